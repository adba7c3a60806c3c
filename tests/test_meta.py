"""The meta device: shapes and dtypes without data, printed, propagated through ops, modules and
backward, refused where values are asked for, as PyTorch does (tensorgrad/_meta.py)."""

import resource

import pytest

import tensorgrad as tg
from oracle import _oracle, torch  # noqa: F401 - _oracle skips the differential tests without PyTorch


def _shown(fn):
    """What ``fn()`` gives, as text: its repr, or the exception's type and message."""
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the exception is the compared result
        return f"{type(e).__name__}: {e}"
    return repr(out)


def _tensors(m):
    x = m.rand(2, 3, device="meta")
    w = m.randn(3, device="meta", requires_grad=True)
    return {
        "rand": lambda: x,
        "huge": lambda: (m.rand(2 ** 10, 3, 2 ** 16, 2 ** 16, device="meta").shape, x.device, x.is_meta),
        "grad_fn": lambda: (w * 2).sum(),
        "scalar": lambda: m.zeros((), device="meta"),
        "int": lambda: m.arange(5, device="meta"),
        "data": lambda: m.tensor([1.0, 2.0], device="meta"),
        "double": lambda: m.zeros_like(x, dtype=m.float64),
        "new": lambda: m.empty(3, device="meta").new_zeros(2),
        "matmul": lambda: x @ m.ones(3, 4, device="meta"),
        "views": lambda: (x.reshape(3, 2).t().contiguous(), x[:, 1:], x.expand(2, 2, 3).shape),
        "reductions": lambda: (x.sum(0), x.max(dim=0).values, x.mean(), x.sum() > 0),
        "cat": lambda: m.cat([x, x]),
        "inplace": lambda: (x.clone().uniform_(), x.clone().zero_(), x.clone().fill_(2)),
        "scalar_other": lambda: x + m.tensor(1.0),
        "to_meta": lambda: m.ones(3).to("meta"),
        "cross_entropy": lambda: m.nn.functional.cross_entropy(m.randn(4, 5, device="meta"),
                                                               m.tensor([1, 2, 3, 0], device="meta")),
        "item": lambda: x.sum().item(),
        "item_many": lambda: x.item(),
        "tolist": lambda: x.tolist(),
        "numpy": lambda: x.numpy(),
        "to_cpu": lambda: x.to("cpu"),
        "cpu": lambda: x.cpu(),
        "bool": lambda: bool(x.sum() > 0),
        "float": lambda: float(x.sum()),
        "copy_out": lambda: m.zeros(2, 3).copy_(x),
    }


@pytest.mark.parametrize("name", list(_tensors(tg)))
def test_meta_tensors_as_pytorch(name):
    assert _shown(_tensors(tg)[name]) == _shown(_tensors(torch)[name])


def _net(m):
    nn, F = m.nn, m.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.bn = nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)
            self.fc, self.drop, self.ln = nn.Linear(4 * 6 * 6, 5), nn.Dropout(0.5), nn.LayerNorm(5)
            self.emb = nn.Embedding(10, 4)

        def forward(self, x):
            return self.ln(self.fc(self.drop(F.relu(self.bn(self.conv(x)))).flatten(1))).softmax(-1)
    return Net


def _module_story(m):
    """Build on the meta device, run, initialise, load real weights, materialise."""
    Net = _net(m)
    m.manual_seed(0)
    real = Net()
    lines = []
    with m.device("meta"):
        net = Net()
    lines.append((sum(p.numel() for p in net.parameters()), net.fc.weight.is_meta, net.bn.running_mean.is_meta))
    lines.append(net(m.randn(2, 3, 8, 8, device="meta")))
    net.eval()
    lines.append(net(m.randn(2, 3, 8, 8, device="meta")).shape)
    lines.append(net.emb(m.tensor([[1, 2]], device="meta")))
    for init in (m.nn.init.kaiming_uniform_, m.nn.init.trunc_normal_, m.nn.init.orthogonal_):
        init(net.fc.weight)
    lines.append(net.fc.weight)
    net.load_state_dict(real.state_dict(), assign=True)
    lines.append((net.fc.weight.is_meta, m.equal(net.fc.weight, real.fc.weight)))
    with m.device("meta"):
        empty = Net()
    empty.to_empty(device="cpu")
    lines.append((empty.fc.weight.device, empty.bn.running_mean.shape))
    w = m.empty(3, device="meta", requires_grad=True)
    opt = m.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    lines += [w.grad, w]
    return [repr(x) for x in lines]


def test_modules_on_the_meta_device_as_pytorch():
    assert _module_story(tg) == _module_story(torch)


def test_meta_tensors_allocate_nothing_and_draw_no_random_key_without_torch():
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    big = tg.zeros(2 ** 20, 2 ** 20, device="meta")     # 4 TiB of float32 if it were real
    big.uniform_()
    big.zero_()
    (big * 2 + 1).sum()
    with tg.device("meta"):
        tg.nn.Linear(2 ** 16, 2 ** 16)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 200_000   # KiB
    tg.manual_seed(3)
    first = tg.rand(4)
    tg.manual_seed(3)
    tg.rand(4, device="meta")
    tg.randn(2, 2, device="meta").normal_()
    assert tg.equal(tg.rand(4), first)
