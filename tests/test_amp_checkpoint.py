"""torch.amp (autocast, GradScaler) and torch.utils.checkpoint against PyTorch."""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
import tensorgrad.utils.checkpoint as tg_checkpoint

from oracle import _oracle, torch  # noqa: F401

RNG = np.random.default_rng(5)
X = RNG.standard_normal((4, 1, 6, 6)).astype(np.float32)
TARGET = np.array([0, 2, 1, 0])


def _cnn(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Conv2d(1, 2, 3), lib.nn.ReLU(), lib.nn.Flatten(), lib.nn.Linear(32, 8),
                             lib.nn.LayerNorm(8), lib.nn.Linear(8, 3))


def _dtypes_under_autocast(lib):
    model = _cnn(lib)
    for m, p in zip(model.parameters(), _cnn(torch).parameters()):
        m.data = lib.tensor(p.detach().numpy())
    x = lib.tensor(X)
    seen = []
    with lib.autocast("cpu"):
        h = x
        for layer in model:
            h = layer(h)
            seen.append(str(h.dtype))
        loss = lib.nn.functional.cross_entropy(h, lib.tensor(TARGET))
        seen.append(str(loss.dtype))
        seen.append(str(lib.nn.functional.mse_loss(h, h).dtype))
        seen.append(str(lib.mm(x[0, 0].double(), x[0, 0].double()).dtype))
        seen.append(str((h.sum()).dtype))
        seen.append(lib.is_autocast_enabled("cpu"))
        seen.append(lib.is_autocast_enabled())
        a = x[0, 0, :2, :2].clone()
        a.addmm_(a, a)      # in-place and out= variants are not cast
        seen.append(str(a.dtype) + str(round(a[0, 0].item(), 6)))
        with lib.autocast("cpu", enabled=False):
            seen.append(str(lib.mm(x[0, 0], x[0, 0]).dtype))
    seen.append(str(lib.get_autocast_dtype("cpu")))
    loss.backward()
    grads = [p.grad.float().numpy() for p in model.parameters()]
    return seen, loss.item(), grads


def test_autocast_dtypes_and_grads_match_pytorch():
    ours, our_loss, our_grads = _dtypes_under_autocast(tg)
    theirs, their_loss, their_grads = _dtypes_under_autocast(torch)
    assert ours == theirs
    np.testing.assert_allclose(our_loss, their_loss, rtol=2e-2)
    for a, b in zip(our_grads, their_grads):
        np.testing.assert_allclose(a, b, rtol=5e-2, atol=5e-2)


def test_autocast_decorator_cache_and_warnings_match_pytorch():
    for lib in (tg, torch):
        w = lib.ones(2, 2, requires_grad=True)

        @lib.autocast("cpu", dtype=lib.float16)
        def f(a):
            return lib.mm(a, a)
        y = f(w)
        assert y.dtype == lib.float16
        assert type(y.grad_fn).__name__ == "MmBackward0"
        first, second = y.grad_fn.next_functions
        assert first[0] is second[0] and type(first[0]).__name__ == "ToCopyBackward0"
        with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported"):
            with lib.autocast("cpu", dtype=lib.float64):
                assert lib.mm(w, w).dtype == lib.float32
        with pytest.warns(FutureWarning, match=r"torch.cpu.amp.autocast\(args...\)` is deprecated"):
            ctx = lib.cpu.amp.autocast()
        with ctx:
            assert lib.get_autocast_dtype("cpu") == lib.bfloat16
        with pytest.warns(DeprecationWarning, match=r"torch.get_autocast_cpu_dtype\(\) is deprecated"):
            assert lib.get_autocast_cpu_dtype() == lib.bfloat16
        with pytest.raises(ValueError, match="Expected `device_type` of type `str`"):
            lib.autocast(lib.device("cpu"))
        with pytest.raises(TypeError, match="requires a callable"):
            lib.autocast("cpu")(3)
        if not lib.cuda.is_available():
            with pytest.warns(UserWarning, match="CUDA is not available"):
                lib.autocast("cuda")
            with pytest.warns(FutureWarning, match="torch.cuda.amp.GradScaler"):
                with pytest.warns(UserWarning, match="GradScaler is enabled, but CUDA is not available"):
                    assert not lib.cuda.amp.GradScaler().is_enabled()


def _scaler_loop(lib, inject_inf_at):
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2)
    with lib.no_grad():
        model.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
        model.bias.copy_(lib.tensor([0.1, -0.1]))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=2.0 ** 4, growth_interval=2)
    x = lib.tensor(X.reshape(4, -1)[:, :3].copy())
    scales = []
    for i in range(4):
        opt.zero_grad()
        with lib.autocast("cpu"):
            loss = model(x).float().pow(2).mean()
        if i == inject_inf_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        if i == 1:
            scaler.unscale_(opt)
            with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
                scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
    return scales, model.weight.detach().numpy(), scaler.state_dict()


def test_grad_scaler_training_loop_matches_pytorch():
    ours = _scaler_loop(tg, 2)
    theirs = _scaler_loop(torch, 2)
    assert ours[0] == theirs[0]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-2, atol=1e-3)
    assert ours[2] == theirs[2]
    with pytest.raises(AssertionError, match="Attempted step but _scale is None"):
        tg.amp.GradScaler("cpu").step(tg.optim.SGD([tg.nn.Parameter(tg.ones(1))], lr=1))


# ------------------------------------------------------------------ checkpoint

def _checkpoint_grads(lib, module, use_reentrant, counter):
    lib.manual_seed(0)
    lin = lib.nn.Linear(3, 3).double()
    x = lib.tensor(X.reshape(4, -1)[:, :3].astype(np.float64), requires_grad=True)

    def block(h, scale=1.0):
        counter.append(1)
        return lib.nn.functional.dropout(lib.tanh(lin(h)), 0.3) * scale

    out = module.checkpoint(block, x, use_reentrant=use_reentrant)
    calls_forward = len(counter)
    out.sum().backward()
    return x.grad.numpy(), lin.weight.grad.numpy(), calls_forward, len(counter)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_recomputes_and_matches_pytorch(use_reentrant):
    import torch.utils.checkpoint as torch_checkpoint
    our_count, their_count = [], []
    ours = _checkpoint_grads(tg, tg_checkpoint, use_reentrant, our_count)
    theirs = _checkpoint_grads(torch, torch_checkpoint, use_reentrant, their_count)
    assert ours[2:] == theirs[2:] == (1, 2)
    # the dropout mask of the recomputation is the first run's (preserve_rng_state)
    tg.manual_seed(0)
    lin = tg.nn.Linear(3, 3).double()
    x = tg.tensor(X.reshape(4, -1)[:, :3].astype(np.float64), requires_grad=True)
    tg.nn.functional.dropout(tg.tanh(lin(x)), 0.3).sum().backward()
    np.testing.assert_allclose(ours[0], x.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours[1], lin.weight.grad.numpy(), rtol=1e-12)


def test_checkpoint_warnings_and_errors_match_pytorch():
    import torch.utils.checkpoint as torch_checkpoint
    for lib, module in ((tg, tg_checkpoint), (torch, torch_checkpoint)):
        x = lib.ones(2, requires_grad=True)
        with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
            module.checkpoint(lib.sin, x)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
            module.checkpoint(lib.sin, x, use_reentrant=True, scale=2)
        with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
            module.checkpoint(lib.sin, lib.ones(2), use_reentrant=True)
        w = lib.ones(2, requires_grad=True)
        out = module.checkpoint(lambda a: a * w, x, use_reentrant=True)
        with pytest.raises(RuntimeError, match="use_reentrant=True, torch.utils.checkpoint is incompatible"):
            lib.autograd.grad(out.sum(), x)
        out = module.checkpoint(lambda a, k: a * w * k, x, use_reentrant=False, k=3.0)
        gx, gw = lib.autograd.grad(out.sum(), (x, w))
        assert gx.tolist() == [3.0, 3.0] and gw.tolist() == [3.0, 3.0]
        seq = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Tanh(), lib.nn.Linear(2, 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = module.checkpoint_sequential(seq, 2, x.reshape(1, 2), use_reentrant=False)
        assert got.shape == (1, 1) and got.requires_grad
        sizes = iter([1, 2])
        out = module.checkpoint(lambda a: a[:next(sizes)].sin(), x, use_reentrant=False)
        with pytest.raises(RuntimeError, match="Recomputed values for the following tensors have different metadata"):
            out.sum().backward()
