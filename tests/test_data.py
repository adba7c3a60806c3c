"""Datasets, samplers, collation and the DataLoader against PyTorch's.

Deterministic loaders (no shuffling) must give exactly PyTorch's batches (values, dtypes,
structure); shuffled ones must be reproducible permutations; misuse raises PyTorch's errors.
"""

import collections
import json
import subprocess
import sys
import warnings

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad.utils import data as tgdata

from oracle import _oracle, error_of, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

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


_error = error_of


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


def test_batches_of_numpy_shared_tensors_and_their_subsets_match_torch():
    def load(T, D):
        x = np.arange(24, dtype=np.float32).reshape(12, 2)
        flags = np.zeros(12, dtype=bool)
        ds = D.TensorDataset(T.from_numpy(x), T.from_numpy(np.arange(12)), T.from_numpy(flags))
        first = next(iter(D.DataLoader(ds, batch_size=5)))
        x[1:3] = -1                     # numpy writes reach the next batch
        flags[2] = True
        split = D.Subset(D.Subset(ds, [11, 2, 7, 1, 0, 5]), np.array([1, 3, 0, 5]))
        return [first, list(D.DataLoader(ds, batch_size=5)), list(D.DataLoader(split, batch_size=3)),
                list(D.DataLoader(D.Subset(ds, T.tensor([4, 2])), batch_size=2)),
                list(D.DataLoader(D.Subset(ds, [-1, -12]), batch_size=2))]
    ours, theirs = _both(load)
    assert ours == theirs


def test_a_batch_of_a_numpy_shared_tensor_reads_its_rows_only(monkeypatch):
    from tensorgrad._storage import host
    data = np.zeros((1000, 8), dtype=np.float32)
    ds = tgdata.TensorDataset(tg.from_numpy(data))
    data[7] = 3
    compares = []
    same = host._same
    monkeypatch.setattr(host, "_same", lambda a, seen: compares.append(a.size) or same(a, seen))
    (batch,) = next(iter(tgdata.DataLoader(tgdata.Subset(ds, [7, 9]), batch_size=2)))
    assert batch.tolist() == [[3] * 8, [0] * 8] and compares == []


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


# ------------------------------------------------------------------------------- workers
#
# PyTorch's worker processes are forked, and forking a process that runs JAX can deadlock, so
# PyTorch's side of these tests runs in a subprocess that imports only PyTorch. The same source
# (WORKER_SOURCE) runs in both: ``run(T, D)`` returns plain values.

WORKER_SOURCE = """
def plain(x):
    if isinstance(x, (list, tuple)):
        return [plain(v) for v in x]
    if hasattr(x, "tolist"):
        return [str(x.dtype), list(x.shape), x.tolist()]
    return x


def error_line(fn):
    try:
        fn()
    except Exception as e:
        return [type(e).__name__, str(e).split(chr(10))[0]]
    return None


def run(T, D):
    class Stream(D.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

    class Sharded(D.IterableDataset):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            info = D.get_worker_info()
            if info is None:
                return iter(range(self.start, self.end))
            per = -(-(self.end - self.start) // info.num_workers)
            lo = self.start + info.id * per
            return iter(range(lo, min(lo + per, self.end)))

    class Uneven(D.IterableDataset):
        def __iter__(self):
            info = D.get_worker_info()
            wid = 0 if info is None else info.id
            return iter(range(100 * wid, 100 * wid + 3 * (wid + 1)))

    class Who(D.Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            info = D.get_worker_info()
            return (i, -1, -1) if info is None else (i, info.id, info.num_workers)

    class Bad(D.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise ValueError("bad item")
            return i

    def shift(worker_id):
        # PyTorch's documented worker_init_fn pattern: configure this worker's dataset copy
        D.get_worker_info().dataset.start += 100 * worker_id

    def bad_init(worker_id):
        raise KeyError("no init")

    out = {}
    for n in range(4):
        def L(ds, **kw):
            return plain(list(D.DataLoader(ds, num_workers=n, **kw)))
        cases = [L(Stream(5), batch_size=2), L(Stream(5), batch_size=2, drop_last=True),
                 L(Stream(5), batch_size=None), L(Sharded(3, 10), batch_size=2), L(Uneven(), batch_size=2),
                 L(Who(), batch_size=2), L(Who(), batch_size=None)]
        if n:
            cases.append(L(Sharded(0, 3), batch_size=2, worker_init_fn=shift))
            loader = D.DataLoader(Sharded(0, 5), batch_size=2, num_workers=n, persistent_workers=True,
                                  worker_init_fn=shift)
            cases.append([plain(list(loader)), plain(list(loader))])
        out[str(n)] = cases
    out["errors"] = [error_line(lambda: list(D.DataLoader(Bad(), batch_size=1, num_workers=2))),
                     error_line(lambda: list(D.DataLoader(Bad(), batch_size=1, num_workers=2,
                                                          worker_init_fn=bad_init)))]
    ds = D.TensorDataset(T.arange(7))
    out["tuning"] = [plain(list(D.DataLoader(ds, batch_size=3, **kw))) for kw in (
        {"num_workers": 2, "prefetch_factor": 4}, {"num_workers": 2, "timeout": 30},
        {"num_workers": 1, "multiprocessing_context": "fork"}, {"pin_memory": False, "pin_memory_device": ""})]
    out["unordered"] = plain(list(D.DataLoader(ds, batch_size=3, num_workers=2, in_order=False)))
    return out
"""


def _run_worker_source(T, D):
    ns = {}
    exec(WORKER_SOURCE, ns)
    return ns["run"](T, D)


@pytest.fixture(scope="module")
def torch_worker_results():
    if torch is None:
        pytest.skip("PyTorch (the oracle) is not installed")
    script = ("import json, torch\nfrom torch.utils import data as D\n" + WORKER_SOURCE
              + "\nprint(json.dumps(run(torch, D)))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def worker_results():
    return json.loads(json.dumps(_run_worker_source(tg, tgdata)))


@pytest.mark.parametrize("num_workers", ["0", "1", "2", "3"])
def test_worker_batches_and_order_match_torch(num_workers, worker_results, torch_worker_results):
    assert worker_results[num_workers] == torch_worker_results[num_workers]


def test_worker_exceptions_are_reraised_like_torch(worker_results, torch_worker_results):
    assert worker_results["errors"] == torch_worker_results["errors"]
    assert worker_results["errors"][0] == ["ValueError", "Caught ValueError in DataLoader worker process 0."]


def test_loader_options_that_only_tune_loading_give_torch_batches(worker_results, torch_worker_results):
    assert worker_results["tuning"] == torch_worker_results["tuning"]
    # in_order=False lets PyTorch hand batches out as they are ready: the same batches, in
    # some order, of which tensorgrad's (in order) is one
    ours, theirs = worker_results["unordered"], torch_worker_results["unordered"]
    assert sorted(ours) == sorted(theirs)
    assert ours == worker_results["tuning"][0]


def test_workers_have_their_own_random_streams_without_torch():
    """A worker's draws come from its own streams (seeded ``base_seed + id``), so the caller's
    stream only moves by the one base-seed draw per epoch, as with PyTorch's processes."""
    import random

    class Noisy(tgdata.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            info = tgdata.get_worker_info()
            return tg.rand(1), random.random(), np.random.rand(), info.seed, tg.initial_seed()

    class Quiet(Noisy):
        def __getitem__(self, i):
            return tg.zeros(1), 0.0, 0.0, 0, 0

    after = []
    for ds in (Noisy(), Quiet()):
        tg.manual_seed(0)
        random.seed(0)
        np.random.seed(0)
        list(tgdata.DataLoader(ds, batch_size=None, num_workers=2))
        after.append((tg.rand(1).item(), random.random(), np.random.rand()))
    assert after[0] == after[1]
    tg.manual_seed(0)
    noisy = list(tgdata.DataLoader(Noisy(), batch_size=None, num_workers=2))
    assert noisy[1][3] == noisy[0][3] + 1 and noisy[2][3] == noisy[0][3]
    assert [b[4] for b in noisy] == [b[3] for b in noisy]
    assert noisy[0][0].item() != noisy[1][0].item()
    tg.manual_seed(0)
    again = list(tgdata.DataLoader(Noisy(), batch_size=None, num_workers=2))
    assert [(b[0].item(), b[1], b[2]) for b in again] == [(b[0].item(), b[1], b[2]) for b in noisy]
    assert tgdata.get_worker_info() is None


LOADER_OPTIONS = [
    "D.DataLoader([1, 2], num_workers=2, prefetch_factor=-1)",
    "D.DataLoader([1, 2], prefetch_factor=2)",
    "D.DataLoader([1, 2], persistent_workers=True)",
    "D.DataLoader([1, 2], timeout=-1)",
    "D.DataLoader([1, 2], multiprocessing_context='fork')",
    "D.DataLoader([1, 2], num_workers=1, multiprocessing_context='bogus')",
    "D.DataLoader([1, 2], num_workers=1, multiprocessing_context=3)",
    "list(D.DataLoader([1, 2], timeout=5))",
    "setattr(D.DataLoader([1, 2]), 'batch_size', 3)",
    "setattr(D.DataLoader([1, 2]), 'dataset', [3])",
]


@pytest.mark.parametrize("src", LOADER_OPTIONS)
def test_loader_option_errors_match_torch(src):
    outcomes = [_error(lambda: eval(src, {"T": T, "D": D})) for T, D in ((tg, tgdata), (torch, tdata))]
    assert outcomes[0] is not None
    assert outcomes[0] == outcomes[1]


def test_pin_memory_warns_like_torch_without_an_accelerator():
    import jax
    if jax.default_backend() != "cpu":
        pytest.skip("tensorgrad warns as PyTorch does only on a CPU backend")
    messages = []
    for T, D in ((tg, tgdata), (torch, tdata)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            batches = list(D.DataLoader(D.TensorDataset(T.arange(3)), batch_size=2, pin_memory=True))
        messages.append(([str(w.message) for w in caught], _plain(batches)))
    assert messages[0] == messages[1] and messages[0][0]


def test_iterable_dataset_longer_than_its_len_warns_like_torch():
    messages = []
    for D in (tgdata, tdata):
        class Stream(D.IterableDataset):
            def __iter__(self):
                return iter(range(3))

            def __len__(self):
                return 2

            def __repr__(self):
                return "Stream"
        loader = D.DataLoader(Stream(), batch_size=1)
        assert len(loader) == 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(loader)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]
