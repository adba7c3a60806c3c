"""tensorgrad.distributed: the process group and its errors against PyTorch's (one CPU device
here), the 8-device checks (tests/distributed_8dev/check_8dev.py, in a subprocess with 8
simulated CPU devices), and two processes started as torchrun starts them."""

import json
import os
import socket
import subprocess
import sys

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.distributed as dist

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _env(**extra):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("XLA_FLAGS", None)
    env.update(extra)
    return env


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _message(fn):
    try:
        fn()
    except Exception as error:      # noqa: BLE001 (the type is what is compared)
        return type(error), str(error)
    return None


def test_before_init_process_group_as_pytorch():
    torch = pytest.importorskip("torch")
    import torch.distributed as tdist
    assert not dist.is_initialized()
    for name, args in (("all_reduce", lambda m: (m.ones(2),)), ("get_rank", lambda m: ()),
                       ("get_world_size", lambda m: ()), ("barrier", lambda m: ())):
        ours = _message(lambda: getattr(dist, name)(*args(tg)))
        theirs = _message(lambda: getattr(tdist, name)(*args(torch)))
        assert ours == theirs, (name, ours, theirs)
    assert _message(dist.destroy_process_group) == _message(tdist.destroy_process_group)


def test_init_process_group_errors_and_world_of_one(monkeypatch):
    for var in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="environment variable RANK expected, but not set"):
        dist.init_process_group("gloo")
    monkeypatch.setenv("RANK", "0")
    monkeypatch.setenv("WORLD_SIZE", "1")
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected"):
        dist.init_process_group()
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", "29999")
    with pytest.raises(RuntimeError, match="No rendezvous handler for bogus://"):
        dist.init_process_group("gloo", init_method="bogus://x")
    with pytest.raises(AssertionError, match="Unknown backend type foo"):
        dist.init_process_group("foo")
    with pytest.raises(RuntimeError, match="no GPUs found"):
        dist.init_process_group("nccl")
    with pytest.raises(NotImplementedError, match="Store"):
        dist.init_process_group("gloo", store=object())
    assert not dist.is_initialized()
    dist.init_process_group("gloo")
    try:
        with pytest.raises(ValueError, match="trying to initialize the default process group twice!"):
            dist.init_process_group("gloo")
        assert (dist.get_rank(), dist.get_world_size(), dist.get_backend()) == (0, 1, "gloo")
        t = tg.tensor([1., 2.])
        v = t._version
        assert dist.all_reduce(t, op=dist.ReduceOp.MAX) is None
        assert dist.all_reduce(t, async_op=True).wait()
        np.testing.assert_array_equal(t.numpy(), [1., 2.])
        outs = [tg.zeros(2)]
        dist.all_gather(outs, t)
        np.testing.assert_array_equal(outs[0].numpy(), [1., 2.])
        with pytest.raises(RuntimeError, match="expected length 1, got 2"):
            dist.all_gather([tg.zeros(2), tg.zeros(2)], t)
        with pytest.raises(RuntimeError, match="invalid root rank: 1"):
            dist.broadcast(t, src=1)
        with pytest.raises(RuntimeError, match="Cannot use ReduceOp.BAND with non-integral dtype"):
            dist.all_reduce(t, op=dist.ReduceOp.BAND)
        with pytest.raises(TypeError, match="Expected parameter `tensor` of type torch.Tensor"):
            dist.all_reduce([t])
        out = tg.zeros(2)
        dist.all_gather_into_tensor(out, t)
        np.testing.assert_array_equal(out.numpy(), [1., 2.])
        dist.reduce_scatter_tensor(out, t)
        dist.barrier()
        assert t._version >= v
        assert repr(dist.ReduceOp.SUM) == "<RedOpType.SUM: 0>"
    finally:
        dist.destroy_process_group()
    assert not dist.is_initialized()


def test_functional_collectives_as_pytorch_on_one_process(monkeypatch):
    torch = pytest.importorskip("torch")
    import torch.distributed as tdist
    import torch.distributed.nn.functional as TF
    import tensorgrad.distributed.nn.functional as F
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    monkeypatch.setenv("MASTER_PORT", str(_free_port()))
    dist.init_process_group("gloo", rank=0, world_size=1)
    ours = not tdist.is_initialized()
    if ours:
        tdist.init_process_group("gloo", rank=0, world_size=1, store=tdist.HashStore())
    try:
        results = []
        for mod, fn in ((tg, F), (torch, TF)):
            x = mod.tensor([1., 2., 3.], requires_grad=True)
            with pytest.warns(FutureWarning, match="torch.distributed.nn.functional.all_reduce is deprecated"):
                y = fn.all_reduce(x)
            with pytest.warns(FutureWarning):
                g = fn.all_gather(x)
            with pytest.warns(FutureWarning):
                b = fn.broadcast(x, 0)
            with pytest.warns(FutureWarning):
                r = fn.reduce_scatter(mod.zeros(3), [x])
            ((y * 2).sum() + (g[0] * 3).sum() + (b * 5).sum() + (r * 7).sum()).backward()
            results.append(([type(t.grad_fn).__name__ for t in (y, g[0], b, r)], x.grad.tolist(), y is x))
        assert results[0] == results[1]
    finally:
        dist.destroy_process_group()
        if ours:
            tdist.destroy_process_group()


def test_eight_devices():
    """DDP, FSDP, a 2x4 mesh, DTensor semantics, checkpoint reload, compile: check_8dev.py."""
    run = subprocess.run([sys.executable, os.path.join(HERE, "distributed_8dev", "check_8dev.py")],
                         env=_env(XLA_FLAGS="--xla_force_host_platform_device_count=8"), capture_output=True,
                         text=True, timeout=240)
    assert run.returncode == 0 and run.stdout.strip().endswith("ok"), run.stdout + run.stderr[-4000:]


def test_two_processes_as_torchrun_starts_them(tmp_path):
    port = str(_free_port())
    worker = os.path.join(HERE, "distributed_8dev", "two_process_worker.py")
    procs = [subprocess.Popen([sys.executable, worker], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=_env(MASTER_ADDR="127.0.0.1", MASTER_PORT=port, RANK=str(r), WORLD_SIZE="2",
                                       LOCAL_RANK=str(r), CKPT_DIR=str(tmp_path)))
             for r in range(2)]
    results = []
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err[-4000:]
        results.append(json.loads(out.strip().splitlines()[-1]))
    for r, res in enumerate(results):
        assert res["rank"] == r and res["world"] == 2 and res["local_rank"] == r
        assert res["all_reduce"] == [3.0] * 3
        assert res["all_gather"] == [[0.0, 0.0], [1.0, 1.0]]
        assert res["broadcast"] == [6.0, 6.0]
        assert res["functional"] == [3.0, 3.0]
        # all_reduce's backward sums the ranks' gradients (2 * (rank + 1)); all_gather's gives this
        # rank's slot's summed gradient ((10 if rank 0 else 1) * 2 ranks * (rank + 1))
        assert res["functional_grad"] == [2.0 * (r + 1) + (10 if r == 0 else 1) * 2 * (r + 1)] * 2
        assert res["ddp_vs_single"] < 1e-6
        assert res["no_sync"] < 1e-6 and res["unsynced"] > 1e-3     # local inside no_sync, averaged after
        assert res["reloaded"] == 0.0 and res["files"] == [".metadata", "__0_0.distcp", "__1_0.distcp"]


def test_data_parallel_example_smoke():
    run = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "data_parallel.py"), "--devices", "2",
                          "--steps", "2"], env=_env(MASTER_PORT=str(_free_port())), capture_output=True, text=True,
                         timeout=240)
    assert run.returncode == 0, run.stdout + run.stderr[-4000:]
    assert run.stdout.count("losses equal one device's: True") == 4, run.stdout


def test_dtensor_semantics_against_pytorch_on_a_one_device_mesh(monkeypatch):
    """On one device both libraries can build a mesh: placements, values, leaves and errors agree."""
    torch = pytest.importorskip("torch")
    import torch.distributed as tdist
    from torch.distributed.device_mesh import init_device_mesh as t_mesh
    from torch.distributed import tensor as T
    from tensorgrad.distributed.device_mesh import init_device_mesh
    from tensorgrad.distributed import tensor as D
    ours = not tdist.is_initialized()
    if ours:
        tdist.init_process_group("gloo", rank=0, world_size=1, store=tdist.HashStore())
    try:
        seen = []
        for mod, mesh_of, api in ((tg, init_device_mesh, D), (torch, t_mesh, T)):
            mesh = mesh_of("cpu", (1,), mesh_dim_names=("dp",))
            x = mod.arange(6.).reshape(2, 3).requires_grad_()
            d = api.distribute_tensor(x, mesh, [api.Shard(-1)])
            r = d.redistribute(mesh, [api.Replicate()])
            p = api.DTensor.from_local(mod.ones(2), mesh, [api.Partial()])
            (r.full_tensor() * 2).sum().backward()
            row = [d.placements, r.placements, (d * 2).placements, type(d * 2).__name__, d.is_leaf, d.requires_grad,
                   d.grad_fn is None, x.grad is None, d.grad.placements, d.grad.full_tensor().tolist(),
                   p.placements, p.full_tensor().tolist(), p.redistribute(mesh, [api.Replicate()]).placements,
                   mesh.shape, mesh.ndim, mesh.mesh_dim_names, str(api.Shard(0)), repr(api.Partial("max")),
                   api.Shard(1) == api.Shard(1), hash(api.Replicate())]
            for fn in (lambda: api.distribute_tensor(x, mesh, [api.Shard(0), api.Shard(1)]),
                       lambda: api.distribute_tensor(x, mesh, [api.Shard(2)]),
                       lambda: d.redistribute(mesh, [api.Partial()]),
                       lambda: p.redistribute(mesh, [api.Partial("max")])):
                row.append(_message(fn))
            mixed = _message(lambda: d + mod.ones(2, 3))
            row.append((mixed[0], mixed[1].split(" got ")[1]))       # PyTorch names the overload (aten.add.Tensor)
            seen.append([repr(v) for v in row])
        assert seen[0] == seen[1]
    finally:
        if ours:
            tdist.destroy_process_group()
