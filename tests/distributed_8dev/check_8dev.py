"""The 8-device checks of tensorgrad.distributed, run by tests/test_distributed.py in a subprocess
with XLA_FLAGS=--xla_force_host_platform_device_count=8 (JAX reads it when it starts).

DDP, FSDP and a 2x4 mesh give one device's losses and parameters, eager and compiled; FSDP holds
1/8 of each parameter per device; DTensor placements and redistribute follow PyTorch's
semantics; a sharded checkpoint reloads on another mesh; bad input raises before anything is
sharded. Prints "ok" at the end.
"""

import copy
import io
import os

import numpy as np

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29500", RANK="0", WORLD_SIZE="1")
import jax  # noqa: E402
import tensorgrad as torch  # noqa: E402
import tensorgrad.distributed as dist  # noqa: E402
from tensorgrad.distributed.device_mesh import init_device_mesh  # noqa: E402
from tensorgrad.distributed.fsdp import fully_shard  # noqa: E402
from tensorgrad.distributed.tensor import DTensor, Partial, Replicate, Shard, distribute_tensor  # noqa: E402
from tensorgrad.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module  # noqa: E402
from tensorgrad.nn.parallel import DistributedDataParallel as DDP  # noqa: E402

assert len(jax.devices()) == 8
dist.init_process_group("gloo")
assert dist.get_world_size() == 1 and dist.get_rank() == 0


def make():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))


torch.manual_seed(1)
DATA = [(torch.randn(32, 16), torch.randn(32, 8)) for _ in range(4)]


def train(model, compiled=False):
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    traces = []

    def step(x, y):
        traces.append(1)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    fn = torch.compile(step) if compiled else step
    losses = []
    for x, y in DATA:
        before = len(traces)
        losses.append(fn(x, y).item())
        late = len(traces) - before
    if compiled:
        assert fn.explain().count("traced program") == 1, fn.explain()
        assert late == 0, "the last compiled step traced again"
    return losses


def full(p):
    return (p.full_tensor() if isinstance(p, DTensor) else p).detach().numpy()


base = make()
REF_LOSSES = train(base)
REF = [p.detach().numpy() for p in base.parameters()]


def same(model, losses):
    np.testing.assert_allclose(losses, REF_LOSSES, rtol=1e-5)
    for ref, p in zip(REF, model.parameters()):
        np.testing.assert_allclose(full(p), ref, rtol=1e-4, atol=1e-6)


mesh8 = init_device_mesh("cpu", (8,), mesh_dim_names=("dp",))
mesh24 = init_device_mesh("cpu", (2, 4), mesh_dim_names=("dp", "tp"))
for compiled in (False, True):
    m = DDP(make())
    same(m, train(m, compiled))
    f = fully_shard(make(), mesh=mesh8)
    same(f, train(f, compiled))
    assert type(f).__name__ == "FSDPSequential"
    for p in f.parameters():
        assert isinstance(p, DTensor) and isinstance(p, torch.nn.Parameter) and p.placements == (Shard(0),)
        assert p._data.addressable_shards[0].data.nbytes * 8 == p._data.nbytes     # 1/8 per device
    g = fully_shard(make(), mesh=mesh24)
    same(g, train(g, compiled))
    assert g[0].weight.placements == (Shard(0), Shard(0))
    # data x tensor parallel on the 2x4 mesh: Colwise/Rowwise over "tp", then FSDP over "dp"
    t2 = make()
    parallelize_module(t2, mesh24["tp"], {"0": ColwiseParallel(), "2": RowwiseParallel()})
    assert [p.placements for p in t2.parameters()] == [(Shard(0),), (Shard(0),), (Shard(1),), (Replicate(),)]
    assert type(t2[0]).__name__ == "Linear"
    fully_shard(t2, mesh=mesh24["dp"])
    assert [p.placements for p in t2.parameters()] == [(Shard(0), Shard(0)), (Shard(0), Shard(0)),
                                                       (Shard(0), Shard(1)), (Shard(0), Replicate())]
    assert t2[2].weight._data.sharding.spec == jax.sharding.PartitionSpec("dp", "tp")
    same(t2, train(t2, compiled))

# a sharded checkpoint (gathered on save) reloads on a mesh of another shape
buffer = io.BytesIO()
torch.save(f.state_dict(), buffer)
buffer.seek(0)
h = fully_shard(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)), mesh=mesh24)
h.load_state_dict(torch.load(buffer))
for p, q in zip(f.parameters(), h.parameters()):
    np.testing.assert_array_equal(full(q), full(p))
    assert q.placements == (Shard(0), Shard(0)) and q._data.sharding.spec[0] == ("dp", "tp")

# distributed.checkpoint: one file per process, shards not gathered; loads onto another mesh shape
import tempfile  # noqa: E402
import tensorgrad.distributed.checkpoint as dcp  # noqa: E402
with tempfile.TemporaryDirectory() as folder:
    dcp.save(f.state_dict(), checkpoint_id=folder)
    assert sorted(os.listdir(folder)) == [".metadata", "__0_0.distcp"]
    k = fully_shard(torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8)),
                    mesh=mesh24)
    state = k.state_dict()
    dcp.load(state, checkpoint_id=folder)
    k.load_state_dict(state)
    plain = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 8))
    state = plain.state_dict()
    dcp.load(state, checkpoint_id=folder)
    for p, q, r in zip(f.parameters(), k.parameters(), plain.parameters()):
        np.testing.assert_array_equal(full(q), full(p))
        np.testing.assert_array_equal(r.detach().numpy(), full(p))
        assert q._data.sharding.spec[0] == ("dp", "tp")

# a copy of a sharded module is sharded alike; detach keeps a DTensor
twin = copy.deepcopy(h)
assert type(twin).__name__ == "FSDPSequential" and all(
    isinstance(q, DTensor) and isinstance(q, torch.nn.Parameter) and q.placements == p.placements
    and q._data.sharding == p._data.sharding for p, q in zip(h.parameters(), twin.parameters()))
assert type(h[0].weight.detach()) is DTensor and h.state_dict()["0.weight"].placements == (Shard(0), Shard(0))

# placements and redistribute, as PyTorch's documented semantics
x = torch.arange(64.).reshape(8, 8).requires_grad_()
d = distribute_tensor(x, mesh8, [Shard(0)])
assert d.is_leaf and d.requires_grad and d.grad_fn is None and d.placements == (Shard(0),)
np.testing.assert_array_equal(d.to_local().detach().numpy(), x.detach().numpy()[:1])
assert (d * 2).placements == (Shard(0),) and type(d * 2) is DTensor
r = d.redistribute(mesh8, [Replicate()])
assert r.placements == (Replicate(),) and r.to_local().shape == (8, 8)
s1 = r.redistribute(mesh8, [Shard(1)])
assert s1.placements == (Shard(1),) and s1._data.sharding.spec == jax.sharding.PartitionSpec(None, "dp")
(s1.full_tensor() ** 2).sum().backward()
np.testing.assert_allclose(d.grad.full_tensor().numpy(), 2 * x.detach().numpy())
assert d.grad.placements == (Shard(0),)
e = distribute_tensor(torch.arange(32.).reshape(4, 8), mesh24, [Shard(0), Shard(1)])
np.testing.assert_array_equal(e.to_local().numpy(), [[0., 1.], [8., 9.]])
assert str(Shard(0)) == "S(0)" and repr(Partial()) == "Partial(sum)" and str(Replicate()) == "R"
p = DTensor.from_local(torch.ones(8), mesh8, [Partial()])
assert p.placements == (Partial(),)
np.testing.assert_array_equal(p.full_tensor().numpy(), np.full(8, 8.))
np.testing.assert_array_equal(p.to_local().numpy(), np.ones(8))
assert p.redistribute(mesh8, [Shard(0)]).placements == (Shard(0),)


def raises(kind, text, fn):
    try:
        fn()
    except kind as error:
        assert text in str(error), str(error)
    else:
        raise AssertionError(f"no {kind.__name__}")


raises(RuntimeError, "redistributing to Partial is for internal use only", lambda: d.redistribute(mesh8, [Partial()]))
raises(ValueError, "must have the same length as `device_mesh.ndim`", lambda: distribute_tensor(x, mesh8, [Shard(0)] * 2))
raises(IndexError, "Dimension out of range", lambda: distribute_tensor(x, mesh8, [Shard(2)]))
raises(ValueError, "not divisible by 8", lambda: distribute_tensor(torch.ones(5), mesh8, [Shard(0)]))
raises(RuntimeError, "got mixed torch.Tensor and DTensor", lambda: d + torch.ones(8, 8))
raises(NotImplementedError, "cross-mesh", lambda: d + distribute_tensor(torch.ones(8, 8), mesh24, [Shard(0), Shard(1)]))
raises(RuntimeError, "Mesh should not be bigger", lambda: init_device_mesh("cpu", (16,)))
# an uneven parameter: nothing is sharded
odd = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 3))
raises(ValueError, "size 3, not divisible by 8", lambda: fully_shard(odd, mesh=mesh8))
assert not any(isinstance(q, DTensor) or len(q._data.devices()) > 1 for q in odd.parameters())
assert type(odd).__name__ == "Sequential"

raises(NotImplementedError, "only support nn.Linear and nn.Embedding",
       lambda: parallelize_module(make(), mesh24["tp"], {"1": ColwiseParallel()}))
raises(ValueError, "Tensor Parallel only accepts a 1D DeviceMesh",
       lambda: parallelize_module(make(), mesh24, {"0": ColwiseParallel()}))

# collectives on one process are the identity
t = torch.ones(3)
dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), np.ones(3))
print("ok")
