"""``tensorgrad.save`` / ``tensorgrad.load``: exact round trips, and files that must be refused.

Loading never unpickles: the tests craft pickles (bare, inside a PyTorch checkpoint, inside
an object-dtype .npy member of an otherwise valid archive) whose unpickling would create a
marker file, and check that loading raises a clear error and the marker never appears.
"""

import io
import json
import math
import pathlib
import pickle
import zipfile
from collections import Counter, OrderedDict

import numpy as np
import pytest

import tensorgrad as tg


def _round_trip(obj):
    buf = io.BytesIO()
    tg.save(obj, buf)
    buf.seek(0)
    return tg.load(buf)


def _same_bits(a, b):
    assert type(a) is type(b)
    assert a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
    x = np.asarray(a.detach()._data)
    y = np.asarray(b.detach()._data)
    assert x.tobytes() == y.tobytes()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "complex64", "int64", "int32",
                                   "int8", "uint8", "bool"])
def test_tensor_round_trip_is_bit_exact(dtype):
    rng = np.random.default_rng(1)
    values = rng.standard_normal((3, 4)) * 100
    d = getattr(tg, dtype)
    if dtype.startswith("float") or dtype == "bfloat16":
        t = tg.tensor(values, dtype=d)
        t[0, 0] = float("nan")
        t[0, 1] = float("-inf")
        t[0, 2] = -0.0
    elif dtype == "complex64":
        t = tg.tensor(values + 1j * values[::-1], dtype=d)
    else:
        t = tg.tensor(np.abs(values).astype(np.int64) % 100, dtype=d)
    back = _round_trip(t)
    _same_bits(back, t)


def test_shapes_requires_grad_parameters_and_sharing():
    from tensorgrad.nn.parameter import Parameter
    w = Parameter(tg.tensor([[1.5, -2.0]]))
    scalar = tg.tensor(3.25, requires_grad=True)
    empty = tg.zeros(0, 3)
    obj = {"w": w, "again": w, "scalar": scalar, "empty": empty, "frozen": tg.arange(4.)}
    back = _round_trip(obj)
    assert type(back["w"]) is Parameter and back["w"].requires_grad
    assert back["again"] is back["w"]
    assert back["scalar"].requires_grad and back["scalar"].is_leaf and back["scalar"].shape == ()
    assert tuple(back["empty"].shape) == (0, 3)
    assert not back["frozen"].requires_grad
    for k in obj:
        _same_bits(back[k].detach(), obj[k].detach())


def test_python_values_and_containers_round_trip():
    sd = OrderedDict([("a.weight", tg.ones(2)), ("a.bias", tg.zeros(1))])
    sd._metadata = OrderedDict([("", {"version": 1}), ("a", {"version": 2})])
    obj = {
        "state_dict": sd,
        0: [1, 2.5, -0.0, math.inf, -math.inf, True, None, "text", b"\x00\xff", 3 + 4j],
        (1, "k"): (tg.float64, tg.device("cpu"), tg.Size([2, 3])),
        "counter": Counter({2: 1, 5: 3}),
        "np": np.arange(6, dtype=np.int16).reshape(2, 3),
        "npscalar": np.float32(1.5),
        "big": 2 ** 70,
    }
    back = _round_trip(obj)
    assert list(back) == list(obj)
    assert type(back["state_dict"]) is OrderedDict and list(back["state_dict"]) == ["a.weight", "a.bias"]
    assert back["state_dict"]._metadata == sd._metadata
    values = back[0]
    assert values[:3] == [1, 2.5, -0.0] and math.copysign(1, values[2]) == -1
    assert values[3:] == [math.inf, -math.inf, True, None, "text", b"\x00\xff", 3 + 4j]
    assert [type(v) for v in values] == [type(v) for v in obj[0]]
    assert back[(1, "k")] == (tg.float64, tg.device("cpu"), tg.Size([2, 3]))
    assert type(back[(1, "k")][2]) is tg.Size
    assert back["counter"] == Counter({2: 1, 5: 3}) and type(back["counter"]) is Counter
    assert back["np"].dtype == np.int16 and back["np"].tolist() == obj["np"].tolist()
    assert back["npscalar"] == np.float32(1.5) and back["npscalar"].dtype == np.float32
    assert back["big"] == 2 ** 70
    nan = _round_trip(float("nan"))
    assert math.isnan(nan)


def test_paths_and_pathlike(tmp_path):
    t = tg.arange(5.)
    tg.save(t, str(tmp_path / "a.pt"))
    tg.save({"t": t}, tmp_path / "b.pt")
    _same_bits(tg.load(str(tmp_path / "a.pt")), t)
    _same_bits(tg.load(pathlib.Path(tmp_path / "b.pt"))["t"], t)
    with open(tmp_path / "b.pt", "rb") as f:
        _same_bits(tg.load(f)["t"], t)


def test_optimizer_state_dict_round_trip_resumes_exactly():
    def make():
        p = tg.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
        return p, tg.optim.Adam([p], lr=0.1, amsgrad=True)

    def step(p, opt, k):
        p.grad = p.detach() * (k + 1) - 0.3
        opt.step()

    p, opt = make()
    for k in range(4):
        step(p, opt, k)
    q, opt2 = make()
    for k in range(2):
        step(q, opt2, k)
    saved = _round_trip({"param": q.detach().clone(), "optim": opt2.state_dict()})
    r, opt3 = make()
    with tg.no_grad():
        r.copy_(saved["param"])
    opt3.load_state_dict(saved["optim"])
    assert saved["optim"]["state"][0]["step"].dtype == tg.float32
    for k in range(2, 4):
        step(r, opt3, k)
    _same_bits(r.detach(), p.detach())


def test_unsupported_objects_are_refused_before_writing(tmp_path):
    path = tmp_path / "x.pt"
    with pytest.raises(TypeError, match="cannot store an object of type .*set"):
        tg.save({"a": {1, 2}}, path)
    assert not path.exists()
    with pytest.raises(TypeError, match="cannot store an object of type"):
        tg.save([lambda: 0], io.BytesIO())
    with pytest.raises(TypeError, match="numpy arrays of Python objects"):
        tg.save(np.array([object()]), io.BytesIO())


# ------------------------------------------------------------------------ crafted files

class _Payload:
    """Unpickling this object writes a marker file (stands in for arbitrary code)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (pathlib.Path.write_text, (pathlib.Path(self.marker), "code ran"))


def _check_refused(path, marker, match):
    with pytest.raises(RuntimeError, match=match):
        tg.load(path)
    assert not marker.exists(), "loading ran code from the file"


def test_crafted_pickle_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "marker.txt"
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"weight": _Payload(marker)}))
    # the payload is live: unpickling it would create the marker
    pickle.loads(path.read_bytes())
    assert marker.exists()
    marker.unlink()
    _check_refused(path, marker, "is a Python pickle.*never unpickles")
    for protocol in (0, 2):
        path.write_bytes(pickle.dumps(_Payload(marker), protocol=protocol))
        _check_refused(path, marker, "never unpickles")


def test_pytorch_checkpoint_is_refused_with_a_conversion_hint(tmp_path):
    marker = tmp_path / "marker.txt"
    path = tmp_path / "torch_ckpt.pt"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("archive/data.pkl", pickle.dumps(_Payload(marker)))
        archive.writestr("archive/version", "3\n")
    _check_refused(path, marker, "is a PyTorch checkpoint.*load_state_dict accepts numpy arrays")


def test_real_torch_checkpoint_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "real.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(RuntimeError, match="PyTorch checkpoint"):
        tg.load(path)


def _archive(path, manifest, members=()):
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("tensorgrad.json", manifest if isinstance(manifest, str) else json.dumps(manifest))
        for name, data in members:
            archive.writestr(name, data)


def test_object_array_member_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "marker.txt"
    path = tmp_path / "evil.pt"
    buf = io.BytesIO()
    np.save(buf, np.array([_Payload(marker)], dtype=object), allow_pickle=True)
    manifest = {"format": "tensorgrad.save", "version": 1, "arrays": 1,
                "root": {"$": "tensor", "id": 0, "dtype": "float32"}}
    _archive(path, manifest, [("arrays/0.npy", buf.getvalue())])
    _check_refused(path, marker, "holds Python objects")


def _npy(arr):
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


BAD_ARCHIVES = [
    ("not json", "{oops", (), "is not JSON"),
    ("no format", {"root": 1}, (), "does not name the format"),
    ("future version", {"format": "tensorgrad.save", "version": 99, "arrays": 0, "root": 1}, (), "version 99"),
    ("unknown tag", {"format": "tensorgrad.save", "version": 1, "arrays": 0, "root": {"$": "module"}}, (),
     "unknown value kind 'module'"),
    ("missing array", {"format": "tensorgrad.save", "version": 1, "arrays": 1,
                       "root": {"$": "tensor", "id": 0, "dtype": "float32"}}, (), "no member 'arrays/0.npy'"),
    ("out of range", {"format": "tensorgrad.save", "version": 1, "arrays": 1,
                      "root": {"$": "tensor", "id": 7, "dtype": "float32"}}, (), "out of range"),
    ("dtype mismatch", {"format": "tensorgrad.save", "version": 1, "arrays": 1,
                        "root": {"$": "tensor", "id": 0, "dtype": "float32"}},
     (("arrays/0.npy", _npy(np.zeros(2, np.int64))),), "a float32 tensor stored as a int64 array"),
    ("bad dtype name", {"format": "tensorgrad.save", "version": 1, "arrays": 1,
                        "root": {"$": "tensor", "id": 0, "dtype": "object"}},
     (("arrays/0.npy", _npy(np.zeros(2))),), "unknown dtype 'object'"),
    ("garbage npy", {"format": "tensorgrad.save", "version": 1, "arrays": 1,
                     "root": {"$": "ndarray", "id": 0}}, (("arrays/0.npy", b"garbage"),), "not a readable .npy"),
    ("unhashable key", {"format": "tensorgrad.save", "version": 1, "arrays": 0,
                        "root": {"$": "dict", "items": [[{"$": "list", "items": []}, 1]]}}, (), "not hashable"),
    ("nan constant", '{"format": "tensorgrad.save", "version": 1, "arrays": 0, "root": NaN}', (), "not JSON"),
]


@pytest.mark.parametrize("name, manifest, members, match", BAD_ARCHIVES, ids=[b[0] for b in BAD_ARCHIVES])
def test_malformed_archives_raise_clear_errors(tmp_path, name, manifest, members, match):
    path = tmp_path / "bad.pt"
    _archive(path, manifest, members)
    with pytest.raises(RuntimeError, match=match):
        tg.load(path)


def test_other_files_raise_clear_errors(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(_npy(np.zeros(3)))
    with pytest.raises(RuntimeError, match="bare .npy array"):
        tg.load(path)
    path.write_bytes(b"hello world")
    with pytest.raises(RuntimeError, match="not a zip archive"):
        tg.load(path)
    good = io.BytesIO()
    tg.save({"t": tg.ones(100)}, good)
    path.write_bytes(good.getvalue()[:200])
    with pytest.raises(RuntimeError, match="damaged zip archive"):
        tg.load(path)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("other.txt", "x")
    with pytest.raises(RuntimeError, match="has no tensorgrad.json"):
        tg.load(path)


def test_scheduler_state_dicts_round_trip():
    p = tg.tensor([1.0], requires_grad=True)
    opt = tg.optim.SGD([p], lr=0.1, momentum=0.9)
    schedulers = [tg.optim.lr_scheduler.MultiStepLR(opt, [2, 2, 4]),
                  tg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10),
                  tg.optim.lr_scheduler.ReduceLROnPlateau(opt),
                  tg.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5)]
    for sched in schedulers:
        state = sched.state_dict()
        back = _round_trip(state)
        assert back == state
        assert [type(v) for v in back.values()] == [type(v) for v in state.values()]
