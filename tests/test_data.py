"""Datasets, samplers, collation and the DataLoader against PyTorch's.

Deterministic loaders (no shuffling) must give exactly PyTorch's batches (values, dtypes,
structure); shuffled ones must be reproducible permutations; misuse raises PyTorch's errors.
"""

import collections
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.utils import data as tgdata

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

if torch is not None:
    from torch.utils import data as tdata

Point = collections.namedtuple("Point", "x y")


def _plain(obj):
    """Batches as comparable Python values, tensors as (dtype, shape, values)."""
    if isinstance(obj, (tg.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype), tuple(obj.shape), obj.tolist())
    if isinstance(obj, dict):
        return ("dict", {k: _plain(v) for k, v in obj.items()})
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return ("namedtuple", type(obj).__name__, [_plain(v) for v in obj])
    if isinstance(obj, (list, tuple)):
        return (type(obj).__name__, [_plain(v) for v in obj])
    if isinstance(obj, np.ndarray):
        return ("ndarray", obj.tolist())
    return obj


def _both(fn):
    return _plain(fn(tg, tgdata)), _plain(fn(torch, tdata))


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return type(e).__name__, str(e)
    return None


class Squares:
    """A map-style dataset of mixed samples (not a Dataset subclass, as PyTorch allows)."""

    def __init__(self, n, kind):
        self.n = n
        self.kind = kind

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if self.kind == "tuple":
            return (i, float(i) / 2, f"s{i}")
        if self.kind == "dict":
            return {"x": np.arange(3, dtype=np.float32) * i, "y": [i, i + 1], "flag": i % 2 == 0}
        if self.kind == "namedtuple":
            return Point(np.float64(i), np.int32(i))
        return np.full((2, 2), i, dtype=np.int16)


@pytest.mark.parametrize("kind", ["tuple", "dict", "namedtuple", "array"])
@pytest.mark.parametrize("batch_size, drop_last", [(2, False), (3, True), (None, False)])
def test_deterministic_batches_match_torch(kind, batch_size, drop_last):
    ours, theirs = _both(lambda T, D: list(D.DataLoader(Squares(7, kind), batch_size=batch_size,
                                                        drop_last=drop_last)))
    assert ours == theirs


def test_tensor_dataset_batches_and_len_match_torch():
    def load(T, D):
        ds = D.TensorDataset(T.arange(20.).reshape(10, 2), T.arange(10), T.ones(10, dtype=T.bool))
        loader = D.DataLoader(ds, batch_size=4)
        return [len(ds), len(loader), ds[3], list(loader),
                len(D.DataLoader(ds, batch_size=4, drop_last=True))]
    ours, theirs = _both(load)
    assert ours == theirs


def test_custom_collate_fn_and_sampler_match_torch():
    def load(T, D):
        ds = D.TensorDataset(T.arange(6.))
        sampler = [5, 0, 3, 1]
        loader = D.DataLoader(ds, batch_size=3, sampler=sampler, collate_fn=lambda items: [x[0] * 2 for x in items])
        batch_sampler = D.DataLoader(ds, batch_sampler=[[1, 2], [0]])
        return [list(loader), list(batch_sampler), len(batch_sampler)]
    ours, theirs = _both(load)
    assert ours == theirs


def test_iterable_dataset_batches_match_torch():
    def load(T, D):
        class Stream(D.IterableDataset):
            def __iter__(self):
                return iter(range(7))
        return [list(D.DataLoader(Stream(), batch_size=3)), list(D.DataLoader(Stream(), batch_size=3, drop_last=True)),
                list(D.DataLoader(Stream(), batch_size=None))]
    ours, theirs = _both(load)
    assert ours == theirs


def test_concat_subset_and_stack_datasets_match_torch():
    def load(T, D):
        a = D.TensorDataset(T.arange(3))
        b = D.TensorDataset(T.arange(10, 14))
        cat = a + b
        sub = D.Subset(cat, [6, 0, 4])
        stacked = D.StackDataset(x=a, y=D.TensorDataset(T.arange(3.)))
        return [len(cat), cat[4], cat[-1], len(sub), [sub[i] for i in range(3)], list(D.DataLoader(sub, batch_size=2)),
                stacked[1]]
    ours, theirs = _both(load)
    assert ours == theirs


def test_shuffle_is_a_reproducible_permutation_without_torch():
    ds = tgdata.TensorDataset(tg.arange(50))
    loader = tgdata.DataLoader(ds, batch_size=8, shuffle=True, generator=tg.Generator().manual_seed(3))
    first = [x for (batch,) in loader for x in batch.tolist()]
    second = [x for (batch,) in loader for x in batch.tolist()]
    assert sorted(first) == list(range(50)) and sorted(second) == list(range(50))
    assert first != second and first != list(range(50))
    again = tgdata.DataLoader(ds, batch_size=8, shuffle=True, generator=tg.Generator().manual_seed(3))
    assert [x for (batch,) in again for x in batch.tolist()] == first
    tg.manual_seed(7)
    global_a = [x for (batch,) in tgdata.DataLoader(ds, batch_size=50, shuffle=True) for x in batch.tolist()]
    tg.manual_seed(7)
    global_b = [x for (batch,) in tgdata.DataLoader(ds, batch_size=50, shuffle=True) for x in batch.tolist()]
    assert global_a == global_b


def test_random_split_lengths_fractions_and_disjointness():
    ds = tgdata.TensorDataset(tg.arange(10))
    parts = tgdata.random_split(ds, [0.5, 0.3, 0.2], generator=tg.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [5, 3, 2]
    seen = sorted(int(p[i][0]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    ours = [len(p) for p in tgdata.random_split(range(7), [0.34, 0.33, 0.33])]
    theirs = [len(p) for p in tdata.random_split(range(7), [0.34, 0.33, 0.33])]
    assert ours == theirs
    same = tgdata.random_split(ds, [4, 6], generator=tg.Generator().manual_seed(0))
    again = tgdata.random_split(ds, [4, 6], generator=tg.Generator().manual_seed(0))
    assert same[0].indices == again[0].indices


def test_random_split_zero_length_warns_like_torch():
    messages = []
    for D in (tgdata, tdata):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            D.random_split(range(2), [0.9, 0.1, 0.0])
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


ERRORS = [
    "D.TensorDataset(T.zeros(4, 2), T.zeros(3))",
    "D.default_collate([object(), object()])",
    "D.default_collate([[1, 2], [1]])",
    "D.default_collate([np.array(['a']), np.array(['b'])])",
    "D.default_collate([T.zeros(2), T.zeros(3)])",
    "D.DataLoader([1, 2], batch_size=None, drop_last=True)",
    "D.DataLoader([1, 2], sampler=[0, 1], shuffle=True)",
    "D.DataLoader([1, 2], batch_sampler=[[0]], batch_size=2)",
    "D.DataLoader([1, 2], num_workers=-1)",
    "D.DataLoader([1, 2], batch_size=0)",
    "D.random_split(range(5), [2, 2])",
    "D.random_split(range(5), [1.5, -0.5])",
    "D.ConcatDataset([])",
    "D.RandomSampler(range(3), num_samples=0)",
    "D.BatchSampler(range(3), 2, drop_last=1)",
    "list(D.DataLoader(D.TensorDataset(T.zeros(2)), batch_size=1))[5]",
]


@pytest.mark.parametrize("src", ERRORS)
def test_errors_match_torch(src):
    outcomes = [_error(lambda: eval(src, {"T": T, "D": D, "np": np})) for T, D in ((tg, tgdata), (torch, tdata))]
    assert outcomes[0] is not None
    assert outcomes[0] == outcomes[1]


def test_iterable_dataset_rejects_shuffle_like_torch():
    outcomes = []
    for D in (tgdata, tdata):
        class Stream(D.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        outcomes.append(_error(lambda: D.DataLoader(Stream(), shuffle=True)))
    assert outcomes[0] is not None and outcomes[0] == outcomes[1]


def test_training_loop_over_loader_runs_without_torch():
    """A DataLoader feeds an optimizer step as in a tutorial loop."""
    x = tg.arange(8.).reshape(8, 1)
    y = 3 * x + 1
    w = tg.zeros(1, requires_grad=True)
    b = tg.zeros(1, requires_grad=True)
    opt = tg.optim.SGD([w, b], lr=0.01)
    loader = tgdata.DataLoader(tgdata.TensorDataset(x, y), batch_size=4, shuffle=True,
                               generator=tg.Generator().manual_seed(0))
    for _ in range(200):
        for xb, yb in loader:
            opt.zero_grad()
            loss = ((xb * w + b - yb) ** 2).mean()
            loss.backward()
            opt.step()
    assert abs(w.item() - 3) < 0.05 and abs(b.item() - 1) < 0.3
