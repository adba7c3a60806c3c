"""``nn.SyncBatchNorm`` and ``nn.AdaptiveLogSoftmaxWithLoss`` against PyTorch.

The same module is built in both libraries (PyTorch's weights copied through numpy); forward
outputs, losses, the gradients of the input and the parameters, running statistics, reprs,
state-dict keys and errors (type and message) must agree.
"""

import numpy as np
import pytest

import tensorgrad as tg

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

RNG = np.random.default_rng(0)


def _copy_weights(tmod, gmod):
    gmod.load_state_dict({k: v.detach().numpy() for k, v in tmod.state_dict().items()})


def _close(ours, theirs, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol)


def _same_state(gmod, tmod):
    gstate, tstate = gmod.state_dict(), tmod.state_dict()
    assert list(gstate) == list(tstate)
    for key in tstate:
        _close(gstate[key], tstate[key])


def _same_error(call):
    """``call(torch)`` and ``call(tg)`` raise the same exception type with the same message."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(tg)
    assert str(ours.value).replace("tensorgrad", "torch") == str(theirs.value)


def _pair(make):
    torch.manual_seed(0)
    tmod = make(torch)
    gmod = make(tg)
    _copy_weights(tmod, gmod)
    return gmod, tmod


def _perturb(tmod):
    """Non-trivial affine parameters, so that their gradients and effect are tested."""
    with torch.no_grad():
        for p in tmod.parameters():
            p.copy_(torch.tensor(RNG.standard_normal(p.shape).astype(np.float32)))


# ------------------------------------------------------------------------------- SyncBatchNorm

SYNC_CONFIGS = [
    {},
    {"momentum": None},
    {"affine": False},
    {"track_running_stats": False},
    {"bias": False, "eps": 1e-3, "momentum": 0.3},
]


@pytest.mark.parametrize("shape", [(6, 3), (4, 3, 5), (2, 3, 4, 5), (2, 3, 2, 3, 2), (2, 3, 1, 2, 2, 2)])
@pytest.mark.parametrize("config", SYNC_CONFIGS, ids=str)
def test_sync_batchnorm_trains_and_evaluates_like_torch(shape, config):
    """Without a process group SyncBatchNorm is the plain batch norm, for any rank from 2."""
    gmod, tmod = _pair(lambda T: T.nn.SyncBatchNorm(3, **config))
    _perturb(tmod)
    _copy_weights(tmod, gmod)
    for step in range(3):
        x = (RNG.standard_normal(shape) * 2 + step).astype(np.float32)
        tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        w = RNG.standard_normal(shape).astype(np.float32)
        tout, gout = tmod(tx), gmod(gx)
        _close(gout, tout)
        (tout * torch.tensor(w)).sum().backward()
        (gout * tg.tensor(w)).sum().backward()
        _close(gx.grad, tx.grad, atol=1e-4)
        for (name, gp), (_, tp) in zip(gmod.named_parameters(), tmod.named_parameters()):
            _close(gp.grad, tp.grad, atol=1e-4)
        _same_state(gmod, tmod)
    tmod.eval()
    gmod.eval()
    x = RNG.standard_normal(shape).astype(np.float32)
    _close(gmod(tg.tensor(x)), tmod(torch.tensor(x)))
    _same_state(gmod, tmod)


def test_sync_batchnorm_repr_and_state_dict_like_torch():
    for config in SYNC_CONFIGS:
        gmod, tmod = _pair(lambda T: T.nn.SyncBatchNorm(4, **config))
        assert repr(gmod) == repr(tmod)
        assert list(gmod.state_dict()) == list(tmod.state_dict())
        assert gmod.process_group is tmod.process_group is None
    assert int(tg.nn.SyncBatchNorm(4).num_batches_tracked) == 0
    assert tg.nn.SyncBatchNorm(4, dtype=tg.float64).weight.dtype == tg.float64
    assert isinstance(tg.nn.SyncBatchNorm(2), tg.nn.modules.batchnorm._BatchNorm)


@pytest.mark.parametrize("shape,train", [((3,), True), ((3,), False), ((), True), ((1, 3), True), ((2, 0, 3), True),
                                         ((2, 0, 3), False), ((2, 4), True)])
def test_sync_batchnorm_errors_like_torch(shape, train):
    x = RNG.standard_normal(shape).astype(np.float32)
    _same_error(lambda T: T.nn.SyncBatchNorm(3).train(train)(T.tensor(x)))


def test_sync_batchnorm_one_value_per_channel_in_eval_like_torch():
    gmod, tmod = _pair(lambda T: T.nn.SyncBatchNorm(3).eval())
    x = RNG.standard_normal((1, 3)).astype(np.float32)
    _close(gmod(tg.tensor(x)), tmod(torch.tensor(x)))


def test_sync_batchnorm_with_a_process_group_of_one_like_torch():
    """With an initialized default group a training forward needs a GPU input (PyTorch's sync
    kernel is GPU-only) and raises on the CPU; eval mode never synchronizes, and computes."""
    import torch.distributed as tdist
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    tdist.init_process_group("gloo", store=tdist.HashStore(), rank=0, world_size=1)
    tg.distributed.init_process_group("gloo", init_method="tcp://127.0.0.1:29999", rank=0, world_size=1)
    try:
        _same_error(lambda T: T.nn.SyncBatchNorm(3)(T.tensor(x)))
        _same_error(lambda T: T.nn.SyncBatchNorm(3, track_running_stats=False)(T.tensor(x)))
        for config in ({}, {"track_running_stats": False}):
            gmod, tmod = _pair(lambda T: T.nn.SyncBatchNorm(3, **config).eval())
            _close(gmod(tg.tensor(x)), tmod(torch.tensor(x)))
            _same_state(gmod, tmod)
    finally:
        tdist.destroy_process_group()
        tg.distributed.destroy_process_group()
    assert not tg.distributed.is_initialized()


class _Net:
    @staticmethod
    def make(T):
        nn = T.nn
        inner = nn.Sequential(nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3, momentum=0.2))
        return nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4, affine=False), inner, nn.ReLU(),
                             nn.BatchNorm3d(3, track_running_stats=False, eps=1e-3),
                             nn.BatchNorm1d(2, bias=False))


def test_convert_sync_batchnorm_like_torch():
    gnet, tnet = _pair(_Net.make)
    for net in (tnet, gnet):        # non-trivial buffers, a mixed training flag and a qconfig to carry
        net[2][1].train()
        net[1].eval()
        net[2][1].qconfig = "qc"
    x = RNG.standard_normal((5, 2, 3, 3)).astype(np.float32)
    tnet[2](torch.tensor(x))
    gnet[2](tg.tensor(x))
    t_old = tnet[2][1]
    g_old = gnet[2][1]
    tconv = torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet)
    gconv = tg.nn.SyncBatchNorm.convert_sync_batchnorm(gnet)
    assert gconv is gnet and tconv is tnet
    assert [type(m).__name__ for m in gconv.modules()] == [type(m).__name__ for m in tconv.modules()]
    assert [m.training for m in gconv.modules()] == [m.training for m in tconv.modules()]
    assert repr(gconv).replace("tensorgrad", "torch") == repr(tconv)
    _same_state(gconv, tconv)
    assert gconv[2][1].qconfig == tconv[2][1].qconfig == "qc"
    assert hasattr(gconv[1], "qconfig") == hasattr(tconv[1], "qconfig") is False
    # the parameters and buffers are shared with the replaced module, as PyTorch's are
    assert (gconv[2][1].weight is g_old.weight) == (tconv[2][1].weight is t_old.weight) is True
    assert (gconv[2][1].running_mean is g_old.running_mean) == (tconv[2][1].running_mean is t_old.running_mean)
    assert gconv[2][1].running_mean is g_old.running_mean
    # a batch norm itself is replaced by a new module; anything else comes back as it was
    gbn, tbn = _pair(lambda T: T.nn.BatchNorm1d(3))
    assert type(tg.nn.SyncBatchNorm.convert_sync_batchnorm(gbn)) is tg.nn.SyncBatchNorm
    assert type(torch.nn.SyncBatchNorm.convert_sync_batchnorm(tbn)) is torch.nn.SyncBatchNorm
    lin = tg.nn.Linear(2, 2)
    assert tg.nn.SyncBatchNorm.convert_sync_batchnorm(lin, process_group=None) is lin


def test_converted_model_trains_like_torch():
    gnet, tnet = _pair(lambda T: T.nn.Sequential(T.nn.Linear(4, 6), T.nn.BatchNorm1d(6), T.nn.Tanh(),
                                                 T.nn.Linear(6, 2)))
    gnet = tg.nn.SyncBatchNorm.convert_sync_batchnorm(gnet)
    tnet = torch.nn.SyncBatchNorm.convert_sync_batchnorm(tnet)
    gopt = tg.optim.SGD(gnet.parameters(), lr=0.1)
    topt = torch.optim.SGD(tnet.parameters(), lr=0.1)
    for _ in range(3):
        x = RNG.standard_normal((8, 4)).astype(np.float32)
        for T, net, opt in ((torch, tnet, topt), (tg, gnet, gopt)):
            opt.zero_grad()
            net(T.tensor(x)).pow(2).mean().backward()
            opt.step()
    _same_state(gnet, tnet)


# -------------------------------------------------------------------- AdaptiveLogSoftmaxWithLoss

ASM_CONFIGS = [
    (16, 10, [4, 8], {}),
    (16, 20, [3, 9, 15], {"div_value": 2.0, "head_bias": True}),
    (8, 6, [5], {"div_value": 1.5}),
]


def _asm_pair(in_features, n_classes, cutoffs, kwargs):
    return _pair(lambda T: T.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, **kwargs))


def _named_grads(mod):
    return {name: p.grad for name, p in mod.named_parameters()}


@pytest.mark.parametrize("config", ASM_CONFIGS, ids=str)
def test_adaptive_log_softmax_forward_and_gradients_like_torch(config):
    in_features, n_classes, _, _ = config
    gmod, tmod = _asm_pair(*config)
    assert repr(gmod) == repr(tmod)
    assert list(gmod.state_dict()) == list(tmod.state_dict())
    n = 12
    x = RNG.standard_normal((n, in_features)).astype(np.float32)
    target = RNG.integers(0, n_classes, n)
    target[:3] = [0, n_classes - 1, config[2][0]]        # the head, the last cluster and a cluster's first
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    tout = tmod(tx, torch.tensor(target))
    gout = gmod(gx, tg.tensor(target))
    assert type(gout).__name__ == "_ASMoutput" and gout._fields == ("output", "loss")
    _close(gout.output, tout.output)
    _close(gout.loss, tout.loss)
    assert tuple(gout.output.shape) == tuple(tout.output.shape) and gout.loss.dim() == tout.loss.dim() == 0
    (tout.loss + tout.output[1] * 0.5).backward()
    (gout.loss + gout.output[1] * 0.5).backward()
    _close(gx.grad, tx.grad)
    tgrads, ggrads = _named_grads(tmod), _named_grads(gmod)
    assert list(ggrads) == list(tgrads)
    for name in tgrads:
        assert (ggrads[name] is None) == (tgrads[name] is None), name
        if tgrads[name] is not None:
            _close(ggrads[name], tgrads[name])


@pytest.mark.parametrize("config", ASM_CONFIGS, ids=str)
def test_adaptive_log_softmax_log_prob_and_predict_like_torch(config):
    in_features = config[0]
    gmod, tmod = _asm_pair(*config)
    with torch.no_grad():                         # a head that sends some examples to the tail clusters
        tmod.head.weight[config[2][0]:] *= 6
    _copy_weights(tmod, gmod)
    x = RNG.standard_normal((40, in_features)).astype(np.float32)
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    tlp, glp = tmod.log_prob(tx), gmod.log_prob(gx)
    _close(glp, tlp)
    _close(glp.exp().sum(1), torch.ones(40))
    tpred, gpred = tmod.predict(tx), gmod.predict(gx)
    assert gpred.dtype == tg.int64
    np.testing.assert_array_equal(gpred.numpy(), tpred.numpy())
    # all in the shortlist, all outside it: the two shortcuts of predict
    head_first = x[tmod.head(tx).argmax(1).numpy() < config[2][0]]
    head_tail = x[tmod.head(tx).argmax(1).numpy() >= config[2][0]]
    for part in (head_first, head_tail):
        if len(part):
            np.testing.assert_array_equal(gmod.predict(tg.tensor(part)).numpy(),
                                          tmod.predict(torch.tensor(part)).numpy())


def test_adaptive_log_softmax_log_prob_gradients_like_torch():
    gmod, tmod = _asm_pair(*ASM_CONFIGS[1])
    x = RNG.standard_normal((7, 16)).astype(np.float32)
    w = RNG.standard_normal((7, 20)).astype(np.float32)
    tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
    (tmod.log_prob(tx) * torch.tensor(w)).sum().backward()
    (gmod.log_prob(gx) * tg.tensor(w)).sum().backward()
    _close(gx.grad, tx.grad)
    tgrads, ggrads = _named_grads(tmod), _named_grads(gmod)
    for name in tgrads:
        _close(ggrads[name], tgrads[name])


def test_adaptive_log_softmax_unbatched_like_torch():
    gmod, tmod = _asm_pair(*ASM_CONFIGS[0])
    for label in (1, 6, 9):
        x = RNG.standard_normal(16).astype(np.float32)
        tx, gx = torch.tensor(x, requires_grad=True), tg.tensor(x, requires_grad=True)
        tout, gout = tmod(tx, torch.tensor(label)), gmod(gx, tg.tensor(label))
        assert gout.output.dim() == tout.output.dim() == 0
        _close(gout.output, tout.output)
        _close(gout.loss, tout.loss)
        tout.loss.backward()
        gout.loss.backward()
        _close(gx.grad, tx.grad)
    # a batch of one (the squeeze of the head's gather makes a 0-d tensor that broadcasts)
    x = RNG.standard_normal((1, 16)).astype(np.float32)
    _close(gmod(tg.tensor(x), tg.tensor([7])).output, tmod(torch.tensor(x), torch.tensor([7])).output)


def test_adaptive_log_softmax_trains_like_torch():
    gmod, tmod = _asm_pair(*ASM_CONFIGS[1])
    gopt = tg.optim.Adam(gmod.parameters(), lr=0.01)
    topt = torch.optim.Adam(tmod.parameters(), lr=0.01)
    for _ in range(3):
        x = RNG.standard_normal((10, 16)).astype(np.float32)
        y = RNG.integers(0, 20, 10)
        for T, mod, opt in ((torch, tmod, topt), (tg, gmod, gopt)):
            opt.zero_grad()
            mod(T.tensor(x), T.tensor(y)).loss.backward()
            opt.step()
    _same_state(gmod, tmod)


@pytest.mark.parametrize("args", [
    "16, 10, []", "16, 10, [8, 4]", "16, 10, [0, 4]", "16, 10, [4, 10]", "16, 10, [4, 4, 8]", "16, 10, [4.5]",
    "16, 10, (2, 9), div_value=2.0",
])
def test_adaptive_log_softmax_cutoffs_like_torch(args):
    def build(T):
        return eval(f"T.nn.AdaptiveLogSoftmaxWithLoss({args})", {"T": T})
    try:
        theirs = build(torch)
    except Exception:  # noqa: BLE001 - the same error is expected of tensorgrad
        _same_error(build)
        return
    ours = build(tg)
    assert repr(ours) == repr(theirs)
    assert ours.cutoffs == theirs.cutoffs
    assert (ours.shortlist_size, ours.n_clusters, ours.head_size) == (theirs.shortlist_size, theirs.n_clusters,
                                                                       theirs.head_size)


@pytest.mark.parametrize("x_shape,target", [
    ((4, 16), [0, 3, 10, 2]),          # a target past n_classes - 1
    ((4, 16), [0, -1, 5, 2]),          # a negative target
    ((3, 16), [0, 1, 2, 3]),           # batch sizes differ
    ((4, 2, 16), [0, 1, 2, 3]),        # a 1-D target needs a 2-D input
    ((4, 16), 3),                      # a 0-D target needs a 1-D input
    ((4, 16), [[0, 1], [2, 3]]),       # multi-target
])
def test_adaptive_log_softmax_errors_like_torch(x_shape, target):
    x = RNG.standard_normal(x_shape).astype(np.float32)
    _same_error(lambda T: _asm_pair(*ASM_CONFIGS[0])[0 if T is tg else 1](T.tensor(x), T.tensor(target)))


def test_adaptive_log_softmax_dtype_and_output_repr_like_torch():
    gmod = tg.nn.AdaptiveLogSoftmaxWithLoss(8, 6, [2], dtype=tg.float64)
    tmod = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 6, [2], dtype=torch.float64)
    assert [p.dtype for p in gmod.parameters()] == [tg.float64] * 3
    assert [str(p.dtype) for p in tmod.parameters()] == ["torch.float64"] * 3
    _copy_weights(tmod, gmod)
    x = RNG.standard_normal((3, 8))
    tout = tmod(torch.tensor(x), torch.tensor([0, 3, 5]))
    gout = gmod(tg.tensor(x), tg.tensor([0, 3, 5]))
    assert gout.output.dtype == tg.float64
    _close(gout.output, tout.output, rtol=1e-10, atol=1e-12)
    assert repr(gout).split("(")[0] == repr(tout).split("(")[0] == "_ASMoutput"
