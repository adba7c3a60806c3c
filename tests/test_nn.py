"""nn.Module, Parameter, containers and layers against PyTorch.

Reprs, registration, traversal orders, state dicts and their errors are compared with
PyTorch's by running the same snippet with ``T`` bound to each library. Layers run on the
same weights (copied from PyTorch's through numpy) and inputs; outputs, gradients and whole
training runs must agree.
"""

import copy
import io
import re
import warnings

import numpy as np
import pytest

import tensorgrad as tg

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

RNG = np.random.default_rng(0)


def _sorted_set(match):
    return "{" + ", ".join(sorted(match.group(1).split(", "))) + "}"


def _normalize(text):
    """Module paths as torch's, addresses elided, and Python sets printed in sorted order (a set
    literal's print order depends on how the interpreter built it, not on the source)."""
    text = text.replace("tensorgrad.", "torch.").replace("tensorgrad", "torch")
    text = re.sub(r"\{('[^{}:]*')\}", _sorted_set, text)
    return re.sub(r"0x[0-9a-fA-F]+", "0x...", text)


def _outcome(src, T):
    """``("ok", repr)`` of the last expression of ``src`` run with ``T``, or ``("error", type, message)``."""
    lines = src.strip().split("\n")
    ns = {"T": T, "nn": T.nn, "np": np, "OrderedDict": __import__("collections").OrderedDict}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec("\n".join(lines[:-1]), ns)
            value = eval(lines[-1], ns)
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return ("error", type(e).__name__, _normalize(str(e)))
    return ("ok", _normalize(repr(value)))


def _same(src):
    ours = _outcome(src, tg)
    theirs = _outcome(src, torch)
    assert ours == theirs
    return ours


# ------------------------------------------------------------------------------------ reprs

REPRS = """nn.Identity(3, a=1)
nn.Linear(3, 4, bias=False)
nn.Bilinear(2, 3, 4)
nn.Flatten(0, 2)
nn.Unflatten(1, (2, 3))
nn.ReLU(inplace=True)
nn.ReLU6()
nn.LeakyReLU(0.2, True)
nn.ELU(alpha=0.5)
nn.CELU(0.5)
nn.SELU(True)
nn.GELU('tanh')
nn.SiLU()
nn.Mish()
nn.Hardsigmoid()
nn.Hardswish()
nn.Hardsigmoid(True)
nn.Hardswish(inplace=True)
nn.SiLU(inplace=True)
nn.Mish(True)
nn.Sigmoid()
nn.Tanh()
nn.Softplus(2, 10)
nn.Softsign()
nn.LogSigmoid()
nn.Tanhshrink()
nn.Hardshrink()
nn.Softshrink(0.3)
nn.Hardtanh(-2, 2, True)
nn.Threshold(0.1, 20)
nn.PReLU(3, 0.1)
nn.GLU(1)
nn.Softmax()
nn.LogSoftmax(1)
nn.Softmin(0)
nn.Softmax2d()
nn.Conv1d(2, 3, 3)
nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False)
nn.Conv2d(2, 4, (3, 5), padding='same', dilation=2, groups=2, padding_mode='reflect')
nn.Conv3d(1, 1, 2)
nn.ConvTranspose1d(2, 3, 3, stride=2, output_padding=1)
nn.ConvTranspose2d(2, 3, 3, groups=1, dilation=2)
nn.MaxPool1d(2)
nn.MaxPool2d((2, 3), stride=1, padding=1, dilation=2, return_indices=True, ceil_mode=True)
nn.AvgPool1d(3)
nn.AvgPool2d(3, 2, 1, True, False, 2)
nn.AdaptiveAvgPool1d(3)
nn.AdaptiveAvgPool2d((2, None))
nn.AdaptiveMaxPool2d(2, True)
nn.BatchNorm1d(3)
nn.BatchNorm2d(3, eps=1e-3, momentum=None, affine=False, track_running_stats=False)
nn.BatchNorm2d(3, bias=False)
nn.LayerNorm((2, 3), elementwise_affine=False, bias=False)
nn.LayerNorm(4)
nn.GroupNorm(2, 4, affine=False)
nn.InstanceNorm1d(3)
nn.InstanceNorm2d(3, affine=True, track_running_stats=True)
nn.RMSNorm(4)
nn.Dropout(0.2, True)
nn.Dropout1d()
nn.Dropout2d(0.1)
nn.Dropout3d()
nn.Embedding(10, 3)
nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=3.0, scale_grad_by_freq=True, sparse=True)
nn.L1Loss()
nn.CrossEntropyLoss(label_smoothing=0.1, ignore_index=1)
nn.BCEWithLogitsLoss()
nn.HuberLoss(delta=2.0)
nn.TripletMarginLoss()
nn.CosineSimilarity()
nn.PairwiseDistance()
nn.Sequential()
nn.ModuleList()
nn.ModuleDict({'a': nn.Linear(2, 2), 'b': nn.ReLU()})
nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU(), nn.Tanh()])
nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.Tanh()))
nn.Sequential(OrderedDict([('fc', nn.Linear(2, 2)), ('act', nn.ReLU())]))
nn.ParameterList([nn.Parameter(T.zeros(2, 3)), T.zeros(2, dtype=T.float64), 3])
nn.ParameterList([nn.Parameter(T.zeros(2, 3))])
nn.ParameterDict({'a': nn.Parameter(T.zeros(2, 3)), 'b': T.ones(1)})
nn.ParameterDict({'a': nn.Parameter(T.zeros(2, 3))})
nn.RNN(3, 4)
nn.RNN(3, 4, 2, nonlinearity='relu', bias=False, batch_first=True, dropout=0.5, bidirectional=True)
nn.LSTM(3, 4, num_layers=2, proj_size=2)
nn.GRU(3, 4, batch_first=True)
nn.RNNCell(3, 4, bias=False, nonlinearity='relu')
nn.LSTMCell(3, 4)
nn.GRUCell(3, 4)
nn.MultiheadAttention(8, 2)
nn.MultiheadAttention(8, 2, kdim=4, vdim=4, bias=False, add_bias_kv=True)
nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, enable_nested_tensor=False)
nn.ZeroPad2d((1, 2, 3, 4))
nn.ZeroPad1d(2)
nn.ConstantPad3d((1, 2, 1, 2, 1, 2), 0.5)
nn.ReflectionPad1d(2)
nn.ReplicationPad2d(1)
nn.CircularPad2d((1, 1, 2, 0))
nn.Upsample(size=4)
nn.Upsample(scale_factor=(2, 3), mode='bilinear', align_corners=True)
nn.UpsamplingNearest2d(scale_factor=2)
nn.UpsamplingBilinear2d(size=(3, 4))
nn.PixelShuffle(3)
nn.PixelUnshuffle(2)
nn.Fold(4, (2, 3), dilation=2, padding=1, stride=2)
nn.Unfold((2, 2), stride=2)
nn.TransformerDecoderLayer(8, 2, 16, norm_first=True)
nn.Transformer(8, 2, 1, 1, 16, batch_first=True)
nn.Parameter(T.tensor([1., 2.]))
nn.Parameter(T.tensor([1, 2]), requires_grad=False)
nn.Parameter()
[nn.Parameter(T.ones(1)), nn.Parameter(T.zeros(2))]""".split("\n")


@pytest.mark.parametrize("src", REPRS)
def test_repr_matches_torch(src):
    outcome = _same(src)
    assert outcome[0] == "ok"


# ------------------------------------------------------------------------- module behaviour

class _Net:
    """Source of a small module with a shared weight, a buffer and nested children."""

    SRC = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 3)
        self.block = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.BatchNorm1d(3))
        self.tied = nn.Linear(2, 3)
        self.tied.weight = self.fc.weight
        self.register_buffer('steps', T.zeros(1))
        self.register_buffer('scratch', T.zeros(2), persistent=False)
        self.scale = nn.Parameter(T.ones(1))
        self.shared = self.block
    def forward(self, x):
        return self.block(self.fc(x)) * self.scale
    def extra_repr(self):
        return 'custom=1'
net = Net()
"""


MODULE_CASES = [
    "[n for n, _ in net.named_parameters()]",
    "[n for n, _ in net.named_parameters(remove_duplicate=False)]",
    "[n for n, _ in net.named_parameters(prefix='root', recurse=False)]",
    "[n for n, _ in net.named_buffers()]",
    "[n for n, _ in net.named_modules()]",
    "[n for n, _ in net.named_modules(remove_duplicate=False)]",
    "[n for n, _ in net.named_children()]",
    "[type(m).__name__ for m in net.modules()]",
    "len(list(net.parameters()))",
    "list(net.state_dict().keys())",
    "list(net.state_dict(prefix='p.').keys())",
    "net.state_dict()._metadata",
    "net",
    "net.train(False) is net, [m.training for m in net.modules()]",
    "net.eval(); net.train(); [m.training for m in net.modules()]",
    "net.train(1)",
    "[p.requires_grad for p in net.requires_grad_(False).parameters()]",
    "net.get_submodule('block.2')",
    "net.get_submodule('block.5')",
    "net.get_submodule('fc.weight')",
    "net.get_parameter('block.0.bias').shape",
    "net.get_parameter('block.1')",
    "net.get_buffer('block.2.running_var')",
    "net.get_buffer('fc.weight')",
    "net.zz",
    "net.fc = 3",
    "net.scale = T.ones(1)",
    "net.steps = 3",
    "net.steps = T.ones(2); net.steps",
    "net.register_buffer('fc', T.ones(1))",
    "net.register_buffer('a.b', T.ones(1))",
    "net.register_buffer('x', 3)",
    "net.register_parameter('x', T.ones(1))",
    "net.register_parameter('', None)",
    "net.register_parameter('y', nn.Parameter(T.ones(1)) * 2)",
    "net.add_module('q', 3)",
    "net.add_module('a.b', nn.ReLU())",
    "net.add_module('fc', nn.ReLU())",
    "net.add_module(3, nn.ReLU())",
    "nn.Module()(3)",
    "net.new_buffer = T.ones(1); list(net.state_dict().keys())[-1], 'new_buffer' in net._buffers",
    "net.fc = nn.ReLU(); net",
    "del net.block; [n for n, _ in net.named_modules()]",
    "net.scale = None; [n for n, _ in net.named_parameters()]",
    "net.buf2 = nn.Buffer(T.ones(2), persistent=False); list(net.state_dict().keys())[-3:], net.buf2",
    "net.load_state_dict(net.state_dict())",
    "net.load_state_dict({k: v for k, v in net.state_dict().items() if 'bias' not in k}, strict=False)",
    "sd = net.state_dict(); sd['extra.weight'] = T.zeros(1); sd['fc.foo'] = T.zeros(1); net.load_state_dict(sd)",
    "sd = net.state_dict(); del sd['scale']; sd['fc.weight'] = T.zeros(2, 2); net.load_state_dict(sd)",
    "sd = net.state_dict(); sd['block.0.weight'] = T.zeros(3); net.load_state_dict(sd, strict=False)",
    "sd = net.state_dict(); sd['fc.bias'] = 3; net.load_state_dict(sd)",
    "net.load_state_dict([1])",
    "sd = {k: v * 2 for k, v in net.state_dict().items()}; r = net.load_state_dict(sd, assign=True); r, type(net.fc.weight).__name__, net.fc.weight.requires_grad, net.tied.weight is net.fc.weight, net.block[2].running_var",
    "sd = dict(net.state_dict()); del sd['block.2.num_batches_tracked']; net.load_state_dict(sd)",
    "net.double().fc.weight.dtype, net.steps.dtype, net.block[2].num_batches_tracked.dtype",
    "net.to(T.float64).fc.bias.dtype",
    "net.to(T.int64)",
    "net.float().scale.dtype",
    "p = net.fc.weight; net.double(); net.fc.weight is p, type(net.fc.weight).__name__",
    "seen = []; net.apply(lambda m: seen.append(type(m).__name__)); seen",
    "sorted(k for k in dir(net) if k in ('fc', 'steps', 'scale', 'block'))",
]


@pytest.mark.parametrize("case", MODULE_CASES)
def test_module_behaviour_matches_torch(case):
    _same(_Net.SRC + case)


def test_module_copy_deepcopy_and_shared_parameters_without_torch():
    ns = {"T": tg, "nn": tg.nn}
    exec(_Net.SRC, ns)
    net = ns["net"]
    clone = copy.deepcopy(net)
    assert clone.tied.weight is clone.fc.weight
    assert clone.fc.weight is not net.fc.weight
    assert type(clone.fc.weight) is tg.nn.Parameter and clone.fc.weight.requires_grad
    assert clone.shared is clone.block
    np.testing.assert_array_equal(clone.fc.weight.detach().numpy(), net.fc.weight.detach().numpy())


def test_zero_grad_and_hooks_without_torch():
    lin = tg.nn.Linear(2, 2)
    lin(tg.ones(3, 2)).sum().backward()
    assert lin.weight.grad is not None
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad.abs().sum().item() == 0
    lin.zero_grad()
    assert lin.weight.grad is None

    calls = []
    pre = lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    post = lin.register_forward_hook(lambda m, args, out: calls.append(args[0].sum().item()) or out + 1)
    first = lin.register_forward_hook(lambda m, args, out: calls.append("first"), prepend=True)
    kw = lin.register_forward_pre_hook(lambda m, args, kwargs: (args, kwargs), with_kwargs=True)
    x = tg.ones(1, 2)
    out = lin(x)
    expected = tg.nn.functional.linear(x * 2, lin.weight, lin.bias) + 1
    assert calls == ["first", 4.0]
    assert out.tolist() == expected.tolist()
    for h in (pre, post, first, kw):
        h.remove()
    assert lin(x).tolist() == tg.nn.functional.linear(x, lin.weight, lin.bias).tolist()

    seen = []
    lin.register_forward_hook(lambda m, a, o: seen.append(o), always_call=True)

    class Boom(tg.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    boom = Boom()
    boom.register_forward_hook(lambda m, a, o: seen.append(("always", o)), always_call=True)
    with pytest.raises(ValueError, match="boom"):
        boom(x)
    assert seen == [("always", None)]


def test_parameter_semantics_without_torch():
    data = tg.tensor([1.0, 2.0])
    p = tg.nn.Parameter(data)
    assert isinstance(p, tg.Tensor) and p.is_leaf and p.requires_grad and p.grad_fn is None
    with tg.no_grad():
        p.mul_(2)
    assert data.tolist() == [2.0, 4.0], "a Parameter shares its data's storage"
    assert type(p * 2) is tg.Tensor and type(p.detach()) is tg.Tensor and type(p.data) is tg.Tensor
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        tg.nn.Parameter(tg.tensor([1, 2]))
    q = copy.deepcopy(p)
    assert type(q) is tg.nn.Parameter and q.tolist() == p.tolist() and q is not p
    # a Parameter is a JAX pytree, as every Tensor is
    import jax
    assert jax.jit(lambda t: t * 2)(p).tolist() == [4.0, 8.0]
    rebuilt = jax.tree_util.tree_map(lambda a: a + 1, [p])[0]
    assert type(rebuilt) is tg.nn.Parameter and rebuilt.tolist() == [3.0, 5.0]


def test_containers_behave_like_torch():
    cases = [
        "s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid()); s[1:], s[-1], len(s)",
        "s = nn.Sequential(nn.ReLU(), nn.Tanh()); s[5]",
        "s = nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid()); del s[0]; s",
        "s = nn.Sequential(nn.ReLU()); s.append(nn.Tanh()); s.insert(0, nn.ELU()); s",
        "s = nn.Sequential(nn.ReLU()) + nn.Sequential(nn.Tanh()); s",
        "s = nn.Sequential(nn.ReLU(), nn.Tanh()); s[0] = nn.ELU(); s.pop(1); s",
        "m = nn.ModuleList([nn.ReLU(), nn.Tanh()]); m[::-1], m[-1]",
        "m = nn.ModuleList([nn.ReLU(), nn.Tanh()]); m[5]",
        "nn.ModuleList([3])",
        "m = nn.ModuleList([nn.ReLU()]); m.extend([nn.Tanh()]); m.insert(0, nn.ELU()); m += [nn.GELU()]; m",
        "m = nn.ModuleList([nn.ReLU(), nn.Tanh(), nn.ELU()]); del m[1]; m",
        "d = nn.ModuleDict({'b': nn.ReLU(), 'a': nn.Tanh()}); list(d), 'a' in d, d.pop('b'), list(d.keys())",
        "d = nn.ModuleDict(); d.update([('x', nn.ReLU())]); d['y'] = nn.Tanh(); d",
        "p = nn.ParameterList([T.ones(1)]); p.append(nn.Parameter(T.zeros(2))); type(p[0]).__name__, list(p.state_dict())",
        "p = nn.ParameterDict({'w': T.ones(2)}); p['v'] = T.zeros(1); type(p['w']).__name__, list(p.keys()), list(p.state_dict())",
        "p = nn.ParameterDict({'w': T.ones(2)}); del p['w']; len(p), p",
    ]
    for case in cases:
        _same(case)


# ------------------------------------------------------------------------------ layer numerics

def _copy_weights(tmod, gmod):
    gmod.load_state_dict({k: v.detach().numpy() for k, v in tmod.state_dict().items()})


def _compare_layer(make, inputs, train=True, atol=1e-5, rtol=1e-4):
    torch.manual_seed(0)
    tmod = make(torch)
    gmod = make(tg)
    _copy_weights(tmod, gmod)
    tmod.train(train)
    gmod.train(train)
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in inputs]
    g_in = [tg.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in inputs]
    with warnings.catch_warnings():
        # PyTorch's oneDNN notices ("LSTM with projections is not supported with oneDNN") are its own
        warnings.simplefilter("ignore")
        t_out = tmod(*t_in)
    g_out = gmod(*g_in)
    t_out = t_out[0] if isinstance(t_out, tuple) else t_out
    g_out = g_out[0] if isinstance(g_out, tuple) else g_out
    np.testing.assert_allclose(g_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=atol)
    if t_out.requires_grad:
        weights = RNG.standard_normal(tuple(t_out.shape)).astype(np.float32)
        (t_out * torch.tensor(weights)).sum().backward()
        (g_out * tg.tensor(weights)).sum().backward()
        for (name, tp), (name2, gp) in zip(tmod.named_parameters(), gmod.named_parameters()):
            assert name == name2
            if tp.grad is None:
                assert gp.grad is None
                continue
            np.testing.assert_allclose(gp.grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=atol, err_msg=name)
        for t_x, g_x in zip(t_in, g_in):
            if isinstance(t_x, torch.Tensor) and t_x.requires_grad:
                if t_x.grad is None:
                    assert g_x.grad is None
                else:
                    np.testing.assert_allclose(g_x.grad.numpy(), t_x.grad.numpy(), rtol=rtol, atol=atol)
    for (name, tb), (_, gb) in zip(tmod.named_buffers(), gmod.named_buffers()):
        np.testing.assert_allclose(gb.numpy(), tb.numpy(), rtol=rtol, atol=atol, err_msg=name)


def _x(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


LAYERS = {
    "Linear": (lambda T: T.nn.Linear(4, 3), [_x(2, 4)]),
    "Bilinear": (lambda T: T.nn.Bilinear(3, 2, 4), [_x(2, 3), _x(2, 2)]),
    "Conv1d": (lambda T: T.nn.Conv1d(2, 3, 3, stride=2, padding=1), [_x(2, 2, 7)]),
    "Conv2d-groups": (lambda T: T.nn.Conv2d(4, 4, 3, groups=2, dilation=1, bias=False), [_x(1, 4, 5, 5)]),
    "Conv2d-same-reflect": (lambda T: T.nn.Conv2d(2, 3, 3, padding="same", padding_mode="reflect"), [_x(1, 2, 5, 5)]),
    "ConvTranspose2d": (lambda T: T.nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1), [_x(1, 2, 3, 3)]),
    "MaxPool2d": (lambda T: T.nn.MaxPool2d(2, ceil_mode=True), [_x(1, 2, 5, 5)]),
    "AvgPool1d": (lambda T: T.nn.AvgPool1d(3, 2, 1), [_x(2, 3, 7)]),
    "AdaptiveAvgPool2d": (lambda T: T.nn.AdaptiveAvgPool2d((2, 3)), [_x(1, 2, 5, 6)]),
    "BatchNorm1d-train": (lambda T: T.nn.BatchNorm1d(3), [_x(4, 3)]),
    "BatchNorm2d-momentum-None": (lambda T: T.nn.BatchNorm2d(3, momentum=None), [_x(2, 3, 2, 2)]),
    "LayerNorm": (lambda T: T.nn.LayerNorm((2, 3)), [_x(4, 2, 3)]),
    "GroupNorm": (lambda T: T.nn.GroupNorm(2, 4), [_x(2, 4, 3)]),
    "InstanceNorm2d": (lambda T: T.nn.InstanceNorm2d(2, affine=True, track_running_stats=True), [_x(2, 2, 3, 3)]),
    "Embedding": (lambda T: T.nn.Embedding(6, 3, padding_idx=1), [np.array([[0, 1, 5], [1, 2, 2]])]),
    "PReLU": (lambda T: T.nn.PReLU(3), [_x(2, 3, 2)]),
    "ReflectionPad2d": (lambda T: T.nn.ReflectionPad2d((1, 2, 0, 1)), [_x(1, 2, 3, 4)]),
    "Upsample-bilinear": (lambda T: T.nn.Upsample(scale_factor=2, mode="bilinear"), [_x(1, 2, 3, 3)]),
    "PixelShuffle": (lambda T: T.nn.PixelShuffle(2), [_x(1, 8, 2, 3)]),
    "Unfold": (lambda T: T.nn.Unfold(2, stride=1), [_x(1, 2, 3, 4)]),
    "RNN-relu-bidirectional": (lambda T: T.nn.RNN(3, 4, 2, nonlinearity="relu", bidirectional=True), [_x(5, 2, 3)]),
    "GRU-batch-first-no-bias": (lambda T: T.nn.GRU(3, 4, bias=False, batch_first=True), [_x(2, 5, 3)]),
    "LSTM-proj-unbatched": (lambda T: T.nn.LSTM(3, 4, proj_size=2), [_x(5, 3)]),
    "RNNCell": (lambda T: T.nn.RNNCell(3, 4), [_x(2, 3)]),
    "LSTMCell": (lambda T: T.nn.LSTMCell(3, 4), [_x(2, 3)]),
    "GRUCell-unbatched": (lambda T: T.nn.GRUCell(3, 4), [_x(3)]),
    "MultiheadAttention": (lambda T: T.nn.MultiheadAttention(8, 2, kdim=4, vdim=3, add_bias_kv=True,
                                                             add_zero_attn=True), [_x(3, 2, 8), _x(4, 2, 4), _x(4, 2, 3)]),
    "TransformerEncoderLayer-norm-first": (lambda T: T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=True,
                                                                                  activation="gelu"), [_x(4, 2, 8)]),
    "Sequential-activations": (lambda T: T.nn.Sequential(T.nn.Linear(3, 6), T.nn.GELU(), T.nn.Linear(6, 6),
                                                         T.nn.LeakyReLU(0.1), T.nn.ELU(), T.nn.Softplus(),
                                                         T.nn.Tanh(), T.nn.LogSoftmax(dim=1)), [_x(4, 3)]),
}


@pytest.mark.parametrize("key", list(LAYERS))
def test_layer_matches_torch(key):
    make, inputs = LAYERS[key]
    _compare_layer(make, inputs)


def test_batchnorm_eval_uses_running_stats():
    _compare_layer(lambda T: T.nn.BatchNorm2d(3), [_x(2, 3, 2, 2)], train=False)


LOSSES = {
    "MSELoss": (lambda T: T.nn.MSELoss(), [_x(3, 4), _x(3, 4)]),
    "L1Loss-sum": (lambda T: T.nn.L1Loss(reduction="sum"), [_x(3, 4), _x(3, 4)]),
    "CrossEntropyLoss": (lambda T: T.nn.CrossEntropyLoss(label_smoothing=0.1), [_x(4, 5), np.array([0, 4, 2, 1])]),
    "NLLLoss": (lambda T: T.nn.NLLLoss(ignore_index=2), [_x(4, 5), np.array([0, 4, 2, 1])]),
    "BCEWithLogitsLoss": (lambda T: T.nn.BCEWithLogitsLoss(),
                          [_x(3, 2), (RNG.random((3, 2)) > 0.5).astype(np.float32)]),
    "BCELoss": (lambda T: T.nn.BCELoss(), [RNG.random((3, 2)).astype(np.float32) * 0.8 + 0.1,
                                           (RNG.random((3, 2)) > 0.5).astype(np.float32)]),
    "HuberLoss": (lambda T: T.nn.HuberLoss(delta=0.5), [_x(3, 4), _x(3, 4)]),
    "SmoothL1Loss": (lambda T: T.nn.SmoothL1Loss(beta=0.5), [_x(3, 4), _x(3, 4)]),
    "KLDivLoss": (lambda T: T.nn.KLDivLoss(reduction="batchmean"), [_x(3, 4), RNG.random((3, 4)).astype(np.float32)]),
    "MarginRankingLoss": (lambda T: T.nn.MarginRankingLoss(margin=0.3), [_x(5), _x(5), np.sign(_x(5))]),
    "CosineEmbeddingLoss": (lambda T: T.nn.CosineEmbeddingLoss(margin=0.1, reduction="sum"),
                            [_x(4, 3), _x(4, 3), np.sign(_x(4))]),
    "TripletMarginLoss": (lambda T: T.nn.TripletMarginLoss(margin=0.5, swap=True), [_x(4, 3), _x(4, 3), _x(4, 3)]),
    "CosineSimilarity": (lambda T: T.nn.CosineSimilarity(dim=0), [_x(4, 3), _x(4, 3)]),
    "PairwiseDistance": (lambda T: T.nn.PairwiseDistance(p=1.5, keepdim=True), [_x(4, 3), _x(4, 3)]),
}


def _every_activation(T):
    """One module applying each activation module to the same input and stacking the results."""
    nn = T.nn

    class Activations(nn.Module):
        def __init__(self):
            super().__init__()
            self.acts = nn.ModuleList([
                nn.ReLU(), nn.ReLU6(), nn.SELU(), nn.CELU(0.7), nn.SiLU(), nn.Mish(), nn.Hardsigmoid(),
                nn.Hardswish(), nn.Sigmoid(), nn.Softsign(), nn.LogSigmoid(), nn.Tanhshrink(), nn.Hardshrink(0.3),
                nn.Softshrink(0.3), nn.Hardtanh(-0.5, 0.7), nn.Threshold(0.2, -1.0), nn.Softmax2d(),
                nn.Softmin(dim=1), nn.Softmax(dim=-1), nn.PReLU(4)])
            self.glu = nn.GLU(dim=1)

        def forward(self, x):
            return T.cat([T.stack([act(x) for act in self.acts]).flatten(), self.glu(x).flatten()])

    return Activations()


def test_every_activation_module_matches_torch():
    _compare_layer(_every_activation, [_x(2, 4, 3, 3)])


def test_legacy_size_average_warns_like_torch():
    messages = []
    for T in (tg, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = T.nn.MSELoss(size_average=False)
        messages.append((loss.reduction, [str(w.message) for w in caught]))
    assert messages[0] == messages[1] and messages[0][1]


@pytest.mark.parametrize("key", list(LOSSES))
def test_loss_module_matches_torch(key):
    make, inputs = LOSSES[key]
    _compare_layer(make, inputs)


def test_cross_entropy_weight_is_a_buffer_like_torch():
    _same("list(nn.CrossEntropyLoss(weight=T.ones(3)).state_dict())")
    _same("list(nn.BCEWithLogitsLoss(pos_weight=T.ones(3)).state_dict())")


def test_layer_errors_match_torch():
    cases = [
        "nn.Conv2d(3, 4, 3, groups=2)",
        "nn.Conv2d(4, 3, 3, groups=2)",
        "nn.Conv2d(2, 2, 3, groups=0)",
        "nn.Conv2d(2, 2, 3, padding='full')",
        "nn.Conv2d(2, 2, 3, stride=2, padding='same')",
        "nn.Conv2d(2, 2, 3, padding_mode='mirror')",
        "nn.ConvTranspose2d(2, 2, 3, padding_mode='reflect')",
        "nn.ConvTranspose2d(2, 3, 3, stride=2)(T.zeros(1, 2, 3, 3), output_size=[10, 10])",
        "nn.ConvTranspose2d(2, 3, 3, stride=2)(T.zeros(1, 2, 3, 3), output_size=[8, 8]).shape",
        "nn.BatchNorm2d(3)(T.zeros(2, 3))",
        "nn.BatchNorm1d(3)(T.zeros(2, 3, 4, 5))",
        "nn.InstanceNorm2d(3, affine=True)(T.zeros(2, 4, 3, 3))",
        "nn.GroupNorm(3, 4)",
        "nn.Dropout(1.5)",
        "nn.Embedding(3, 2, padding_idx=3)",
        "nn.Hardtanh(1, 0)",
        "nn.TripletMarginLoss(margin=0)",
        "nn.Softmax2d()(T.zeros(2))",
        "nn.Unflatten(1, 3)",
        "nn.Embedding.from_pretrained(T.zeros(3))",
        "nn.Linear(3, 2)(T.zeros(2, 4))",
    ]
    for case in cases:
        _same(case)


def test_init_functions_without_torch():
    t = tg.empty(60, 40)
    tg.nn.init.kaiming_uniform_(t, a=5 ** 0.5)
    bound = 1 / 40 ** 0.5
    assert t.abs().max().item() <= bound and t.abs().max().item() > 0.95 * bound
    tg.nn.init.xavier_normal_(t, gain=2.0)
    assert abs(t.std().item() / (2.0 * (2 / 100) ** 0.5) - 1) < 0.08
    tg.nn.init.trunc_normal_(t, std=1.0, a=-0.5, b=1.0)
    assert t.min().item() >= -0.5 and t.max().item() <= 1.0
    q = tg.empty(4, 6)
    tg.nn.init.orthogonal_(q)
    np.testing.assert_allclose((q @ q.t()).numpy(), np.eye(4), atol=1e-5)
    tg.nn.init.eye_(q)
    assert q.numpy().tolist() == np.eye(4, 6).tolist()
    w = tg.nn.Parameter(tg.zeros(3, 2, 3))
    tg.nn.init.dirac_(w)
    assert w.requires_grad and w.sum().item() == 2
    gains = {("tanh", None): 5 / 3, ("relu", None): 2 ** 0.5, ("leaky_relu", 0.2): (2 / 1.04) ** 0.5,
             ("selu", None): 0.75, ("conv2d", None): 1}
    for (name, param), gain in gains.items():
        assert tg.nn.init.calculate_gain(name, param) == pytest.approx(gain, rel=1e-15)
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        tg.nn.init.calculate_gain("foo")
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        tg.nn.init.xavier_uniform_(tg.empty(3))


def test_clip_grad_and_vector_conversion_match_torch():
    results = []
    for T in (tg, torch):
        a = T.tensor([3.0, -4.0], requires_grad=True)
        b = T.tensor([[1.0, 2.0]], requires_grad=True)
        a.grad = T.tensor([3.0, -4.0])
        b.grad = T.tensor([[12.0, 0.0]])
        total = T.nn.utils.clip_grad_norm_([a, b], 1.3)
        inf_total = T.nn.utils.clip_grad_norm_(a, 10.0, norm_type="inf")
        T.nn.utils.clip_grad_value_([b], 0.5)
        vec = T.nn.utils.parameters_to_vector([a, b])
        T.nn.utils.vector_to_parameters(vec * 2, [a, b])
        results.append((total.item(), inf_total.item(), a.grad.tolist(), b.grad.tolist(), vec.tolist(),
                        a.tolist(), b.tolist()))
    np.testing.assert_allclose(results[0][:2], results[1][:2], rtol=1e-6)
    for ours, theirs in zip(results[0][2:], results[1][2:]):
        np.testing.assert_allclose(np.array(ours), np.array(theirs), rtol=1e-6)
    with pytest.raises(TypeError, match="expected torch.Tensor, but got: list"):
        tg.nn.utils.vector_to_parameters([1.0], [])


# ------------------------------------------------------------------------------ training parity

def _conv_net(T):
    # no conv bias before BatchNorm: its exact gradient is zero, and Adam-like optimizers would
    # turn the rounding noise in it into full-size, framework-dependent steps
    nn = T.nn
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1, bias=False), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Dropout(p=0.0), nn.Flatten(), nn.Linear(4 * 3 * 3, 3))


TRAIN_X = _x(5, 2, 6, 6)
TRAIN_Y = np.array([0, 1, 2, 1, 0])

OPTIMIZERS = [("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 1e-3}), ("Adam", {"lr": 0.01}),
              ("AdamW", {"lr": 0.01, "amsgrad": True}), ("RMSprop", {"lr": 0.01, "centered": True}),
              ("Adagrad", {"lr": 0.05}), ("Adadelta", {"lr": 1.0}), ("Adamax", {"lr": 0.01}), ("NAdam", {"lr": 0.01}),
              ("RAdam", {"lr": 0.01})]


def _train(T, model, name, kwargs, x, y, steps, loss_fn):
    opt = getattr(T.optim, name)(model.parameters(), **kwargs)
    model.train()
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(T, model, T.tensor(x), T.tensor(y))
        loss.backward()
        opt.step()
    return opt


def _assert_state_dicts_close(gmodel, tmodel, rtol=1e-5, atol=1e-6):
    ours = gmodel.state_dict()
    theirs = tmodel.state_dict()
    assert list(ours) == list(theirs)
    for key in theirs:
        np.testing.assert_allclose(ours[key].numpy(), theirs[key].numpy(), rtol=rtol, atol=atol, err_msg=key)


def _classify(T, model, x, y):
    return T.nn.functional.cross_entropy(model(x), y)


@pytest.mark.parametrize("name, kwargs", OPTIMIZERS, ids=[o[0] for o in OPTIMIZERS])
def test_conv_net_training_matches_torch(name, kwargs):
    torch.manual_seed(1)
    tmodel = _conv_net(torch)
    gmodel = _conv_net(tg)
    _copy_weights(tmodel, gmodel)
    topt = _train(torch, tmodel, name, kwargs, TRAIN_X, TRAIN_Y, 3, _classify)
    gopt = _train(tg, gmodel, name, kwargs, TRAIN_X, TRAIN_Y, 3, _classify)
    _assert_state_dicts_close(gmodel, tmodel)
    assert repr(gopt) == repr(topt)
    gmodel.eval()
    tmodel.eval()
    np.testing.assert_allclose(gmodel(tg.tensor(TRAIN_X)).detach().numpy(),
                               tmodel(torch.tensor(TRAIN_X)).detach().numpy(), rtol=1e-4, atol=1e-5)


class _SeqModel:
    @staticmethod
    def build(T):
        nn = T.nn

        class Tagger(nn.Module):
            def __init__(self):
                super().__init__()
                self.embed = nn.Embedding(7, 4)
                self.lstm = nn.LSTM(4, 5, num_layers=2, batch_first=True)
                self.head = nn.Linear(5, 3)

            def forward(self, tokens):
                out, (h, c) = self.lstm(self.embed(tokens))
                return self.head(out).reshape(-1, 3)

        return Tagger()


SEQ_X = np.array([[1, 2, 3, 4], [6, 5, 0, 2], [3, 3, 1, 0]])
SEQ_Y = np.array([0, 1, 2, 1, 0, 0, 2, 2, 1, 1, 0, 2])


@pytest.mark.parametrize("name, kwargs", [OPTIMIZERS[0], OPTIMIZERS[1]], ids=["SGD", "Adam"])
def test_lstm_training_matches_torch(name, kwargs):
    torch.manual_seed(2)
    tmodel = _SeqModel.build(torch)
    gmodel = _SeqModel.build(tg)
    _copy_weights(tmodel, gmodel)
    _train(torch, tmodel, name, kwargs, SEQ_X, SEQ_Y, 3, _classify)
    _train(tg, gmodel, name, kwargs, SEQ_X, SEQ_Y, 3, _classify)
    _assert_state_dicts_close(gmodel, tmodel, rtol=1e-4, atol=1e-5)


def test_transformer_with_masks_matches_torch():
    def make(T):
        torch.manual_seed(5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return T.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    src = _x(5, 2, 8)
    tgt = _x(4, 2, 8)
    padding = np.array([[False, False, False, True, True], [False] * 5])
    outs = []
    for T in (torch, tg):
        model = make(T)
        if T is tg:
            _copy_weights(tmodel, model)
        else:
            tmodel = model
        model.eval()
        mask = T.nn.Transformer.generate_square_subsequent_mask(4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = model(T.tensor(src), T.tensor(tgt), tgt_mask=mask, src_key_padding_mask=T.tensor(padding),
                        memory_key_padding_mask=T.tensor(padding))
        outs.append(out.detach().numpy())
    np.testing.assert_allclose(outs[1], outs[0], rtol=1e-4, atol=1e-5)


def _transformer(T):
    nn = T.nn
    return nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True),
                                 num_layers=2, enable_nested_tensor=False)


def _regress(T, model, x, y):
    return ((model(x) - y) ** 2).mean()


# The key projection's bias gets an exactly-zero gradient (softmax ignores a shift shared by all
# keys), so its computed gradient is rounding noise; Adam's default eps would blow that noise up
# into full-size steps, so it runs with a larger eps here.
@pytest.mark.parametrize("name, kwargs", [("SGD", {"lr": 0.05, "momentum": 0.9}), ("Adam", {"lr": 0.01, "eps": 1e-4})],
                         ids=["SGD", "Adam"])
def test_transformer_training_matches_torch(name, kwargs):
    torch.manual_seed(3)
    tmodel = _transformer(torch)
    gmodel = _transformer(tg)
    _copy_weights(tmodel, gmodel)
    x = _x(2, 5, 8)
    y = _x(2, 5, 8)
    _train(torch, tmodel, name, kwargs, x, y, 3, _regress)
    _train(tg, gmodel, name, kwargs, x, y, 3, _regress)
    _assert_state_dicts_close(gmodel, tmodel, rtol=1e-4, atol=1e-5)


# ------------------------------------------------------------------------------ state dicts on disk

def test_state_dict_round_trips_through_save_and_load_bit_exactly_without_torch(tmp_path):
    model = _conv_net(tg)
    model(tg.tensor(TRAIN_X))
    opt = tg.optim.Adam(model.parameters())
    model(tg.tensor(TRAIN_X)).sum().backward()
    opt.step()
    tg.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3}, tmp_path / "ckpt.pt")
    ckpt = tg.load(tmp_path / "ckpt.pt")
    assert ckpt["epoch"] == 3
    sd = model.state_dict()
    assert list(ckpt["model"]) == list(sd) and ckpt["model"]._metadata == sd._metadata
    for key, value in sd.items():
        loaded = ckpt["model"][key]
        assert loaded.dtype == value.dtype and np.asarray(loaded._data).tobytes() == np.asarray(value._data).tobytes()
    fresh = _conv_net(tg)
    assert repr(fresh.load_state_dict(ckpt["model"])) == "<All keys matched successfully>"
    for key, value in fresh.state_dict().items():
        assert np.asarray(value._data).tobytes() == np.asarray(sd[key]._data).tobytes()
    opt2 = tg.optim.Adam(fresh.parameters())
    opt2.load_state_dict(ckpt["optim"])
    assert repr(opt2) == repr(opt)


def test_torch_state_dict_via_numpy_loads_into_twin_model():
    torch.manual_seed(4)
    tmodel = _conv_net(torch)
    tmodel.train()
    tmodel(torch.tensor(TRAIN_X))
    gmodel = _conv_net(tg)
    result = gmodel.load_state_dict({k: v.numpy() for k, v in tmodel.state_dict().items()})
    assert repr(result) == "<All keys matched successfully>"
    for key, value in tmodel.state_dict().items():
        assert np.asarray(gmodel.state_dict()[key]._data).tobytes() == value.numpy().tobytes()
    gmodel.eval()
    tmodel.eval()
    np.testing.assert_allclose(gmodel(tg.tensor(TRAIN_X)).detach().numpy(),
                               tmodel(torch.tensor(TRAIN_X)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_mismatched_state_dict_raises_torch_error_and_changes_nothing():
    model = _conv_net(tg)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    bad = {k: v.clone() for k, v in model.state_dict().items()}
    bad["0.weight"] = tg.zeros(4, 2, 5, 5)
    bad["6.bias"] = tg.zeros(7)
    bad["1.weight"] = tg.full((4,), 9.0)
    del bad["1.running_var"]
    bad["9.weight"] = tg.zeros(1)
    with pytest.raises(RuntimeError) as info:
        model.load_state_dict(bad)
    theirs = _conv_net(torch)
    tbad = {k: torch.tensor(v.numpy()) for k, v in bad.items()}
    with pytest.raises(RuntimeError) as tinfo:
        theirs.load_state_dict(tbad)
    assert str(info.value) == str(tinfo.value)
    for key, value in model.state_dict().items():
        assert value.tolist() == before[key].tolist(), f"{key} was changed by a failed load"


def test_state_dict_save_load_through_buffer_round_trips_module_repr_without_torch():
    model = _SeqModel.build(tg)
    buf = io.BytesIO()
    tg.save(model.state_dict(), buf)
    buf.seek(0)
    other = _SeqModel.build(tg)
    other.load_state_dict(tg.load(buf))
    for (k, a), (_, b) in zip(model.state_dict().items(), other.state_dict().items()):
        assert a.tolist() == b.tolist(), k


@pytest.mark.parametrize("mode, reverse", [("LSTM", False), ("LSTM-proj", True), ("GRU", True), ("RNN_TANH", False),
                                           ("RNN_RELU", True)])
def test_recurrent_layer_op_gradients_match_finite_differences_without_torch(mode, reverse):
    """The ``rnn_layer`` op behind RNN/LSTM/GRU (a ``lax.scan``) against float64 central differences,
    for every input: sequence, initial states, weights and biases."""
    from tensorgrad._ops import rnn as rnn_ops
    from tensorgrad._tensor import apply

    gen = tg.Generator().manual_seed(0)

    def rand(*shape):
        return tg.randn(*shape, dtype=tg.float64, generator=gen, requires_grad=True)

    proj = mode == "LSTM-proj"
    kind = "LSTM" if proj else mode
    gates = {"LSTM": 4, "GRU": 3}.get(kind, 1)
    steps, batch, inputs, hidden, projected = 3, 2, 2, 3, 2
    out = projected if proj else hidden
    args = [rand(steps, batch, inputs), rand(batch, out), rand(batch, hidden) if kind == "LSTM" else None,
            rand(gates * hidden, inputs), rand(gates * hidden, out), rand(gates * hidden), rand(gates * hidden),
            rand(projected, hidden) if proj else None]
    live = [i for i, a in enumerate(args) if a is not None]

    def layer(*values):
        full = list(args)
        for i, v in zip(live, values):
            full[i] = v
        return apply(rnn_ops.rnn_layer, tuple(full), (kind, reverse))

    assert tg.autograd.gradcheck(layer, tuple(args[i] for i in live))


# ---------------------------------------------------------------- the remaining losses and alpha dropout

_MORE_LOSSES = [
    ("PoissonNLLLoss", {}, {"log_input": False, "full": True, "eps": 1e-6, "reduction": "sum"}),
    ("GaussianNLLLoss", {}, {"full": True, "eps": 1e-3, "reduction": "none"}),
    ("SoftMarginLoss", {}, {"reduction": "sum"}),
    ("HingeEmbeddingLoss", {}, {"margin": 0.5, "reduction": "none"}),
    ("MultiLabelMarginLoss", {}, {"reduction": "none"}),
    ("MultiLabelSoftMarginLoss", {}, {"reduction": "sum"}),
    ("MultiMarginLoss", {}, {"p": 2, "margin": 0.5, "reduction": "none"}),
]


def _loss_inputs(m, name):
    rng = np.random.default_rng(3)
    x = m.tensor(rng.uniform(0.2, 2.0, (3, 4)), dtype=m.float64, requires_grad=True)
    pm = m.tensor(np.where(rng.random((3, 4)) > 0.5, 1.0, -1.0), dtype=m.float64)
    if name == "PoissonNLLLoss":
        return x, m.tensor(rng.uniform(0.5, 3.0, (3, 4)), dtype=m.float64)
    if name == "GaussianNLLLoss":
        return x, pm, m.tensor(rng.uniform(0.5, 2.0, (3, 4)), dtype=m.float64)
    if name == "MultiLabelMarginLoss":
        return x, m.tensor([[3, 0, -1, 1], [1, -1, 2, 2], [0, 1, 2, 3]])
    if name == "MultiLabelSoftMarginLoss":
        return x, (pm > 0).to(m.float64)
    if name == "MultiMarginLoss":
        return x, m.tensor([1, 3, 0])
    return x, pm


@pytest.mark.parametrize("name, args, kwargs", _MORE_LOSSES, ids=[c[0] for c in _MORE_LOSSES])
def test_more_loss_modules_match_torch(name, args, kwargs):
    torch = pytest.importorskip("torch")
    for kw in ({}, kwargs):
        ours_mod, theirs_mod = getattr(tg.nn, name)(**kw), getattr(torch.nn, name)(**kw)
        assert repr(ours_mod) == repr(theirs_mod)
        ours_in, theirs_in = _loss_inputs(tg, name), _loss_inputs(torch, name)
        ours, theirs = ours_mod(*ours_in), theirs_mod(*theirs_in)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        ours.sum().backward()
        theirs.sum().backward()
        np.testing.assert_allclose(ours_in[0].grad.numpy(), theirs_in[0].grad.numpy(), rtol=1e-10, atol=1e-12)


def test_multi_margin_loss_module_checks_p_and_weight():
    with pytest.raises(ValueError):
        tg.nn.MultiMarginLoss(p=3)
    w = tg.tensor([1.0, 2.0, 0.5, 1.0], dtype=tg.float64)
    loss = tg.nn.MultiMarginLoss(weight=w)
    assert "weight" in dict(loss.named_buffers())


@pytest.mark.parametrize("cls", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropout_modules(cls):
    torch = pytest.importorskip("torch")
    assert repr(getattr(tg.nn, cls)(0.2, inplace=True)) == repr(getattr(torch.nn, cls)(0.2, inplace=True))
    assert repr(getattr(tg.nn, cls)()) == repr(getattr(torch.nn, cls)())
    with pytest.raises(ValueError):
        getattr(tg.nn, cls)(1.5)
    tg.manual_seed(0)
    layer = getattr(tg.nn, cls)(0.3)
    x = tg.randn(400, 50, 2, requires_grad=True)
    y = layer(x)
    assert type(y.grad_fn).__name__ == "AddBackward0"
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "MulBackward0"
    # SELU statistics are kept: zero mean and unit variance stay (roughly) so
    vals = y.detach().numpy()
    assert abs(vals.mean()) < 0.05 and abs(vals.std() - 1.0) < 0.05
    # dropped entries all take the same value a * (-alpha) + b
    a = 1.0 / np.sqrt((1.7580993408473766 ** 2 * 0.3 + 1) * 0.7)
    dropped = -1.7580993408473766 * a + 1.7580993408473766 * a * 0.3
    frac = np.isclose(vals, dropped).mean()
    assert 0.25 < frac < 0.35
    if cls == "FeatureAlphaDropout":
        same = np.isclose(vals, dropped).all(axis=2) | ~np.isclose(vals, dropped).any(axis=2)
        assert same.all()  # whole channels drop together
    layer.eval()
    assert layer(x) is x


# ---------------------------------------------------------------------- recurrent layers' residuals

RNN_CASES = [("LSTM", {}), ("LSTM", {"num_layers": 2, "bidirectional": True}), ("LSTM", {"proj_size": 3}),
             ("GRU", {"bidirectional": True}), ("RNN", {"nonlinearity": "relu", "num_layers": 2})]


@pytest.mark.filterwarnings("ignore:LSTM with projections")     # PyTorch's, about its oneDNN kernel
@pytest.mark.parametrize("kind, kwargs", RNN_CASES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(RNN_CASES)])
def test_recurrent_backward_from_saved_residuals_matches_torch(kind, kwargs):
    """A recurrent layer's node keeps its derivative's residuals (no replay of the scan in the
    backward): gradients node by node, fused, retained and of second order as PyTorch's."""
    from tensorgrad._autograd import staged
    from tensorgrad._ops.registry import Saved
    rng = np.random.default_rng(4)
    x_np = rng.standard_normal((6, 2, 4)).astype(np.float32)
    w_np = rng.standard_normal((6, 2, 5 * (2 if kwargs.get("bidirectional") else 1)
                                if "proj_size" not in kwargs else 3)).astype(np.float32)
    torch.manual_seed(0)
    tmod = getattr(torch.nn, kind)(4, 5, **kwargs)
    gmod = getattr(tg.nn, kind)(4, 5, **kwargs)
    _copy_weights(tmod, gmod)
    tx = torch.tensor(x_np, requires_grad=True)
    gx = tg.tensor(x_np, requires_grad=True)

    def loss(m, mod, x):
        out = mod(x)[0]
        return (out * m.tensor(w_np)).sum(), out

    tl, _ = loss(torch, tmod, tx)
    tl.backward()
    expected = [tx.grad.numpy()] + [p.grad.numpy() for p in tmod.parameters()]
    background = staged.BACKGROUND["on"]
    staged.BACKGROUND["on"] = False         # the fused program compiles in the call that wants it
    try:
        for attempt in range(3):            # node by node, then as one fused program
            gx.grad = None
            gmod.zero_grad(set_to_none=True)
            gl, gout = loss(tg, gmod, gx)
            assert isinstance(gout.grad_fn.res if gout.grad_fn.res is not None else
                              gout.grad_fn.next_functions[0][0].res, Saved)
            gl.backward(retain_graph=attempt == 2)
            got = [gx.grad.numpy()] + [p.grad.numpy() for p in gmod.parameters()]
            for a, b in zip(got, expected):
                np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        gl.backward()                       # retained: the residuals are still there
        with pytest.raises(RuntimeError, match="second time"):
            gl.backward()
    finally:
        staged.BACKGROUND["on"] = background
    if kwargs.get("bidirectional") and kwargs.get("num_layers"):
        return      # GRU-3 (bidirectional) and RNN-4 (two layers) cover it, in 10 s less than this one
    # second order: the gradient's own gradient, through the replayed forward
    tg_x, = torch.autograd.grad(loss(torch, tmod, tx)[0], tx, create_graph=True)
    torch_gg, = torch.autograd.grad((tg_x ** 2).sum(), tx)
    gg_x, = tg.autograd.grad(loss(tg, gmod, gx)[0], gx, create_graph=True)
    ours_gg, = tg.autograd.grad((gg_x ** 2).sum(), gx)
    np.testing.assert_allclose(ours_gg.numpy(), torch_gg.numpy(), rtol=1e-3, atol=1e-5)
