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
import struct
import tracemalloc
import warnings
import zipfile
import zlib
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


def test_unpicklable_objects_are_refused_before_writing(tmp_path):
    path = tmp_path / "x.pt"
    with pytest.raises((AttributeError, pickle.PicklingError), match="pickle"):
        tg.save({"a": lambda: 0}, path)
    assert not path.exists()
    buf = io.BytesIO()
    with pytest.raises((AttributeError, pickle.PicklingError)):
        tg.save([lambda: 0], buf)
    assert buf.getvalue() == b""
    with pytest.raises(ValueError, match="pickle protocol must be <= 5"):
        tg.save({"w": tg.ones(2)}, buf, pickle_protocol=99)   # checked for a JSON checkpoint too
    assert buf.getvalue() == b""


# ------------------------------------------------------------------------ pickled objects

def _pickled_round_trip(obj, **load_args):
    buf = io.BytesIO()
    tg.save(obj, buf)
    buf.seek(0)
    assert "object.pkl" in zipfile.ZipFile(buf).namelist()
    buf.seek(0)
    return tg.load(buf, weights_only=False, **load_args)


class _Holder:
    """A user's object holding tensors (two of them views of one storage)."""

    def __init__(self):
        self.base = tg.arange(6.0)
        self.view = self.base[1:4]
        self.param = tg.nn.Parameter(tg.ones(2))
        self.frozen = tg.zeros(3)
        self.extra = {"set": {1, 2}, "same": self.base}


def test_a_whole_module_round_trips_and_trains():
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(2, 2), tg.nn.Linear(2, 2))
    model[1].weight.requires_grad_(False)
    x = tg.ones(1, 2)
    back = _pickled_round_trip(model)
    assert type(back) is tg.nn.Sequential and back is not model
    for (name, p), (name2, q) in zip(model.named_parameters(), back.named_parameters()):
        assert name == name2 and type(q) is tg.nn.Parameter and q.requires_grad == p.requires_grad
        _same_bits(p, q)
    assert back.state_dict().keys() == model.state_dict().keys()
    assert tg.equal(back(x), model(x))
    opt = tg.optim.SGD(back.parameters(), lr=0.1)
    back(x).sum().backward()
    opt.step()
    assert not tg.equal(back[0].weight, model[0].weight) and tg.equal(back[1].weight, model[1].weight)


def test_a_module_and_its_optimizer_share_their_parameters():
    model = tg.nn.Linear(2, 2)
    opt = tg.optim.Adam(model.parameters(), lr=0.01)
    model(tg.ones(1, 2)).sum().backward()
    opt.step()
    model2, opt2 = _pickled_round_trip((model, opt))
    assert opt2.param_groups[0]["params"][0] is model2.weight
    assert tg.equal(opt2.state[model2.weight]["exp_avg"], opt.state[model.weight]["exp_avg"])
    assert model2.weight.grad is None                   # as in PyTorch, grads are not saved
    opt.zero_grad()
    for m, o in ((model, opt), (model2, opt2)):
        m(tg.ones(1, 2)).sum().backward()
        o.step()
    assert tg.equal(model2.weight, model.weight)


def test_a_custom_object_keeps_tensors_sharing_and_flags():
    back = _pickled_round_trip(_Holder())
    assert type(back) is _Holder and back.extra["set"] == {1, 2} and back.extra["same"] is back.base
    assert type(back.param) is tg.nn.Parameter and back.param.requires_grad and not back.frozen.requires_grad
    with tg.no_grad():
        back.base[2] = 100.0
    assert back.view.tolist() == [1.0, 100.0, 3.0]      # the view still shares the storage
    buf = io.BytesIO()
    tg.save(_Holder(), buf)
    manifest = json.loads(zipfile.ZipFile(buf).read("tensorgrad.json"))
    assert len(manifest["arrays"]) == 3 and len(manifest["tensors"]) == 4   # base and view: one storage


def test_state_dicts_stay_json_and_map_location_applies():
    buf = io.BytesIO()
    tg.save(tg.nn.Linear(2, 2).state_dict(), buf)
    assert "object.pkl" not in zipfile.ZipFile(buf).namelist()
    back = _pickled_round_trip(tg.nn.Linear(2, 2), map_location="cpu")
    assert back.weight.device == tg.device("cpu")


def test_pickle_module_and_protocol_are_honoured():
    import pickletools

    class Recording:
        """A pickle module whose Pickler and Unpickler record that they ran."""
        ran = []

        class Pickler(pickle.Pickler):
            def dump(self, obj):
                Recording.ran.append("dump")
                return super().dump(obj)

        class Unpickler(pickle.Unpickler):
            def load(self):
                Recording.ran.append("load")
                return super().load()

    buf = io.BytesIO()
    tg.save(tg.nn.Linear(2, 2), buf, pickle_module=Recording, pickle_protocol=4)
    data = zipfile.ZipFile(buf).read("object.pkl")
    assert next(pickletools.genops(data))[1] == 4
    buf.seek(0)
    with pytest.raises(RuntimeError, match="Can not safely load weights when explicit pickle_module"):
        tg.load(buf, pickle_module=Recording, weights_only=True)
    buf.seek(0)
    assert type(tg.load(buf, pickle_module=Recording)) is tg.nn.Linear   # weights_only then defaults to False
    assert Recording.ran == ["dump", "load"]
    buf.seek(0)
    with pytest.raises(TypeError, match="foo"):
        tg.load(buf, weights_only=False, foo=1)


def test_a_pickled_object_is_refused_by_default_and_nothing_runs(tmp_path):
    marker = tmp_path / "marker.txt"
    path = tmp_path / "payload.pt"
    tg.save({"w": tg.ones(2), "payload": _Payload(marker)}, path)   # a set: pickled
    assert not marker.exists()
    for kwargs in ({}, {"weights_only": True}, {"weights_only": None}):
        with pytest.raises(pickle.UnpicklingError, match="Weights only load failed.*pickled Python objects"
                                                         ".*weights_only=False.*trusted source"):
            tg.load(path, **kwargs)
        assert not marker.exists(), "loading ran code from the file"
    with pytest.raises(pickle.UnpicklingError, match="first global it would import is .*Linear"):
        tg.save(tg.nn.Linear(2, 2), path)
        tg.load(path)
    tg.save({"w": tg.ones(2), "payload": _Payload(marker)}, path)
    back = tg.load(path, weights_only=False)                        # the explicit opt-in runs it
    assert marker.read_text() == "code ran" and back["w"].tolist() == [1.0, 1.0]


def test_pytorch_refuses_a_module_with_the_same_type(tmp_path):
    torch = pytest.importorskip("torch")
    buf = io.BytesIO()
    torch.save(torch.nn.Linear(2, 2), buf)
    buf.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(buf)
    buf.seek(0)
    assert type(torch.load(buf, weights_only=False)) is torch.nn.Linear


def test_a_crafted_pickle_member_is_checked_without_running(tmp_path):
    marker = tmp_path / "marker.txt"
    data = pickle.dumps(_Payload(marker), protocol=2)
    path = tmp_path / "c.pt"
    _craft(path, {"$": "pickle", "crc": zlib.crc32(data) ^ 1})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("object.pkl", data)
    with pytest.raises(RuntimeError, match="CRC-32"):
        tg.load(path, weights_only=False)
    _craft(path, {"$": "pickle", "crc": zlib.crc32(data)})       # the manifest names no pickle member...
    with pytest.raises(RuntimeError, match="no member 'object.pkl'"):
        tg.load(path, weights_only=False)
    _craft(path, {"$": "tensor", "id": 0}, [F2], [_entry()])       # ...nor does a JSON root allow one
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("object.pkl", data)
    with pytest.raises(RuntimeError, match="members the manifest does not list"):
        tg.load(path, weights_only=False)
    assert not marker.exists()
    _craft(path, {"$": "pickle", "crc": zlib.crc32(b"Ptensor:7\n.")})
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("object.pkl", b"Ptensor:7\n.")
    with pytest.raises(pickle.UnpicklingError, match="not an entry of the checkpoint's tensor table"):
        tg.load(path, weights_only=False)


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


def _npy(arr, version=None):
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, version=version, allow_pickle=arr.dtype.hasobject)
    return buf.getvalue()


def _entry(storage=0, dtype="float32", shape=(2,), stride=None, offset=0, requires_grad=False, parameter=False):
    """A tensor-table entry (contiguous unless ``stride`` is given)."""
    if stride is None:
        stride = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
    return {"storage": storage, "dtype": dtype, "shape": list(shape), "stride": list(stride), "offset": offset,
            "requires_grad": requires_grad, "parameter": parameter}


def _craft(path, root, arrays=(), tensors=(), overrides=(), compression=zipfile.ZIP_STORED):
    """A checkpoint archive written by hand: ``arrays`` are numpy arrays or raw member bytes, which
    the manifest lists with their CRC-32 values; ``overrides`` replaces or adds manifest keys."""
    members = [a if isinstance(a, bytes) else _npy(a) for a in arrays]
    head = {"format": "tensorgrad.save", "version": 2, "arrays": [zlib.crc32(m) for m in members],
            "tensors": list(tensors), "root": root}
    head.update(overrides)
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        archive.writestr("tensorgrad.json", json.dumps(head))
        for i, data in enumerate(members):
            archive.writestr(f"arrays/{i}.npy", data)


T0 = {"$": "tensor", "id": 0}
A0 = {"$": "ndarray", "id": 0}
F2 = np.zeros(2, np.float32)


def test_object_array_member_is_refused_and_nothing_runs(tmp_path):
    marker = tmp_path / "marker.txt"
    path = tmp_path / "evil.pt"
    evil = np.array([_Payload(marker)], dtype=object)
    _craft(path, T0, [evil], [_entry(shape=(1,))])
    _check_refused(path, marker, "holds Python objects")
    _craft(path, A0, [evil])
    _check_refused(path, marker, "holds Python objects")

# (name, root, arrays, tensors, manifest overrides, what the error says)
BAD_ARCHIVES = [
    ("no format", 1, (), (), {"format": None}, "does not name the format"),
    ("future version", 1, (), (), {"version": 99}, "version 99; this tensorgrad reads version 2"),
    ("version 1", 1, (), (), {"version": 1}, "version 1; this tensorgrad reads version 2"),
    ("extra key", 1, (), (), {"extra": 0}, "has the keys"),
    ("bad array table", 1, (), (), {"arrays": 3}, "not a list of CRC-32"),
    ("bad tensor table", 1, (), (), {"tensors": {}}, "tensor table is not a list"),
    ("unknown tag", {"$": "module"}, (), (), {}, "unknown value kind 'module'"),
    ("missing array", A0, (), (), {"arrays": [0]}, "no member 'arrays/0.npy'"),
    ("array out of range", {"$": "ndarray", "id": 7}, (F2,), (), {}, "array reference 7 is out of range"),
    ("tensor out of range", {"$": "tensor", "id": 3}, (F2,), (_entry(),), {}, "tensor reference 3 is out of range"),
    ("dtype mismatch", T0, (np.zeros(2, np.int64),), (_entry(),), {}, "holds a int64 array .* not a float32 storage"),
    ("storage not 1-d", T0, (np.zeros((1, 2), np.float32),), (_entry(),), {}, "of shape \\(1, 2\\), not a float32"),
    ("bad dtype name", T0, (F2,), (_entry(dtype="object"),), {}, "unknown dtype 'object'"),
    ("missing entry key", T0, (F2,), ({"storage": 0},), {}, "does not have the keys"),
    ("negative stride", T0, (F2,), (_entry(stride=[-1]),), {}, "malformed layout"),
    ("stride of the wrong rank", T0, (F2,), (_entry(stride=[1, 1]),), {}, "malformed layout"),
    ("outside the storage", T0, (F2,), (_entry(offset=1),), {}, "does not lie inside its storage of 2"),
    ("overlapping layout", T0, (F2,), (_entry(shape=(2,), stride=[0]),), {}, "does not lie inside"),
    ("int requiring grad", T0, (np.zeros(2, np.int64),), (_entry(dtype="int64", requires_grad=True),), {},
     "int64 tensor that requires grad"),
    ("non-bool flag", T0, (F2,), (_entry(parameter=1),), {}, "non-boolean"),
    ("two dtypes on a storage", {"$": "list", "items": [T0, {"$": "tensor", "id": 1}]}, (F2,),
     (_entry(), _entry(dtype="int32")), {}, "storage of both float32 and int32"),
    ("array and storage", {"$": "list", "items": [T0, A0]}, (F2,), (_entry(),), {}, "both as a storage and as a ndarray"),
    ("swapped members", {"$": "list", "items": [A0, {"$": "ndarray", "id": 1}]}, (np.zeros(2), np.ones(2)), (),
     {"arrays": [zlib.crc32(_npy(np.ones(2))), zlib.crc32(_npy(np.zeros(2)))]},
     "arrays/0.npy is not the array the manifest lists"),
    ("unreferenced array", 1, (F2,), (), {}, "arrays/0.npy is never referenced"),
    ("unreferenced tensor", 1, (F2,), (_entry(),), {}, "tensor 0 of the tensor table is never referenced"),
    ("garbage npy", A0, (b"garbage",), (), {}, "not a readable .npy array \\(no .npy header\\)"),
    ("npy shorter than declared", A0, (_npy(np.zeros(4))[:-8],), (), {}, "declares a float64 array of shape \\(4,\\)"),
    ("npy longer than declared", A0, (_npy(np.zeros(4)) + b"\0" * 8,), (), {}, "archive records 40 bytes"),
    ("fortran order", A0, (np.asfortranarray(np.zeros((2, 3))),), (), {}, "Fortran order"),
    ("npy version 3", A0, (_npy(np.zeros(2), version=(3, 0)),), (), {}, "format version \\(3, 0\\)"),
    ("scalar holding an array", {"$": "npscalar", "id": 0}, (F2,), (), {}, "numpy scalar entry holds an array"),
    ("unhashable key", {"$": "dict", "items": [[{"$": "list", "items": []}, 1]]}, (), (), {}, "not hashable"),
    ("bare list", [[1]], (), (), {}, "a bare JSON list"),
    ("huge float", {"$": "complex", "real": 10 ** 400, "imag": 0}, (), (), {}, "malformed 'complex'"),
]


@pytest.mark.parametrize("name, root, arrays, tensors, manifest, match", BAD_ARCHIVES, ids=[b[0] for b in BAD_ARCHIVES])
def test_malformed_archives_raise_clear_errors_without_torch(tmp_path, name, root, arrays, tensors, manifest, match):
    path = tmp_path / "bad.pt"
    _craft(path, root, arrays, tensors, manifest)
    with pytest.raises(RuntimeError, match=match) as info:
        tg.load(path)
    assert type(info.value) is RuntimeError


def _raw_archive(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Duplicate name", UserWarning)
        for name, data in members:
            archive.writestr(name, data)


def test_broken_manifests_and_members_raise_clear_errors_without_torch(tmp_path):
    path = tmp_path / "bad.pt"
    cases = [
        ([("tensorgrad.json", "{oops")], "tensorgrad.json is not JSON"),
        ([("tensorgrad.json", '{"format": "tensorgrad.save", "version": 2, "arrays": [], "tensors": [], '
                              '"root": NaN}')], "not JSON"),
        ([("tensorgrad.json", "[" * 100000 + "]" * 100000)], "not JSON|nested too deeply"),
        ([("tensorgrad.json", "{}"), ("tensorgrad.json", "{}")], "names a member twice"),
    ]
    for members, match in cases:
        _raw_archive(path, members)
        with pytest.raises(RuntimeError, match=match) as info:
            tg.load(path)
        assert type(info.value) is RuntimeError
    good = io.BytesIO()
    tg.save([1], good)
    with zipfile.ZipFile(good) as archive:
        manifest = archive.read("tensorgrad.json")
    _raw_archive(path, [("tensorgrad.json", manifest), ("notes.txt", b"hi")])
    with pytest.raises(RuntimeError, match="members the manifest does not list \\(notes.txt\\)"):
        tg.load(path)
    _raw_archive(path, [("tensorgrad.json", manifest)], compression=zipfile.ZIP_BZIP2)
    with pytest.raises(RuntimeError, match="compressed with method 12"):
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


# ------------------------------------------------------------------------ shared storage

def _shared(torch):
    """Tensors sharing storage, made the same way in tensorgrad and in PyTorch."""
    base = torch.arange(24.).reshape(4, 6)
    p = torch.nn.Parameter(torch.arange(6.).reshape(2, 3))
    leaf = torch.arange(5., dtype=torch.float64).requires_grad_()
    return {"base": base, "rows": base[1:3], "col": base[:, 2], "t": base.t(), "every": base[::2, 1::3],
            "elem": base[3, 4], "alias": base.detach(), "flat": base.view(-1),
            "p": p, "p_view": p[1], "leaf": leaf, "leaf_tail": leaf[2:], "again": base,
            "solo": torch.ones(3, dtype=torch.int32)}


def _torch_round_trip(torch, obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf)


def _describe_tensors(d):
    return {k: (type(v).__name__, tuple(v.shape), v.stride(), v.storage_offset(), v._version, v.requires_grad,
                v.is_leaf, v.grad_fn is None, v._base is None, str(v.dtype).split(".")[1], v.tolist())
            for k, v in d.items()}


def test_shared_storage_loads_as_torch_load_gives_it():
    torch = pytest.importorskip("torch")
    mine = _round_trip(_shared(tg))
    theirs = _torch_round_trip(torch, _shared(torch))
    assert mine["again"] is mine["base"]
    empty = _round_trip(mine["base"][1:1])
    assert tuple(empty.shape) == (0, 6) and empty.dtype == tg.float32
    assert _describe_tensors(mine) == _describe_tensors(theirs)
    # writes through one tensor are seen by the others, and each keeps its own version counter
    for lib, d in ((tg, mine), (torch, theirs)):
        with lib.no_grad():
            d["base"][2, 2] = -1.0
            d["p_view"].mul_(10)
            d["leaf"][3] = 7.0
        d["rows"].add_(0.5)
    assert _describe_tensors(mine) == _describe_tensors(theirs)
    # the loaded tensors are leaves: a backward through a view reaches only that view
    for d in (mine, theirs):
        (d["leaf_tail"] * d["leaf_tail"]).sum().backward()
    assert mine["leaf_tail"].grad.tolist() == theirs["leaf_tail"].grad.tolist()
    assert mine["leaf"].grad is None and theirs["leaf"].grad is None


def test_an_expanded_tensor_is_stored_as_a_copy():
    # a stride-0 layout would cost its full size in memory once read here, so it is saved as the
    # elements it shows (PyTorch keeps stride 0); its values and the base's are exact
    base = tg.arange(3.)
    back = _round_trip({"base": base, "wide": base.expand(2, 3)})
    assert back["wide"].tolist() == [[0., 1., 2.]] * 2 and back["wide"].stride() == (3, 1)
    with tg.no_grad():
        back["base"][0] = 5.0
    assert back["wide"][0, 0].item() == 0.0


def test_a_storage_referenced_many_times_is_read_once_without_torch(tmp_path):
    # the case: one 2 MB array referenced 200 times (as a numpy array, and as tensors)
    path = tmp_path / "refs.pt"
    big = np.arange(2 ** 18, dtype=np.float64)
    _craft(path, {"$": "list", "items": [A0] * 200}, [big], compression=zipfile.ZIP_DEFLATED)
    back, peak = _peak(lambda: tg.load(path))
    assert all(b is back[0] for b in back) and back[0].tolist() == big.tolist()
    assert peak < big.nbytes + (1 << 20)
    tensors = [_entry(shape=(2 ** 18,), dtype="float64")] * 100 + \
        [_entry(shape=(2 ** 17,), stride=[2], offset=1, dtype="float64")] * 100
    root = {"$": "list", "items": [{"$": "tensor", "id": k} for k in range(200)]}
    _craft(path, root, [big], tensors, compression=zipfile.ZIP_DEFLATED)
    back, peak = _peak(lambda: tg.load(path))
    assert back[0].tolist() == big.tolist() and back[150].tolist() == big[1::2].tolist()
    assert peak < big.nbytes + (1 << 20)
    with tg.no_grad():
        back[0][1] = -1.0
    assert back[199][0].item() == -1.0 and back[99][1].item() == -1.0


def _peak(fn):
    """``fn()`` and the peak of Python and numpy allocations while it ran, in bytes."""
    tracemalloc.start()
    try:
        out = fn()
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------------ memory bounds

def test_a_deflate_bomb_allocates_its_declared_array_once_without_torch(tmp_path):
    # 64 MB of zeros deflates to 64 KB: loading allocates the declared array once, not three times
    zeros = np.zeros(2 ** 23)
    path = tmp_path / "bomb.pt"
    _craft(path, A0, [zeros], compression=zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 100_000
    back, peak = _peak(lambda: tg.load(path))
    assert back.shape == zeros.shape and not back.any()
    assert peak < zeros.nbytes + (1 << 20)


def test_inflated_sizes_are_refused_before_allocating_without_torch(tmp_path):
    path = tmp_path / "inflated.pt"
    small = np.zeros(16)
    big_header = _npy(small).replace(b"(16,)", b"(1000000000,)")

    def patched(compression, **sizes):
        _craft(path, A0, [small], compression=compression)
        path.write_bytes(_patch_sizes(path.read_bytes(), "arrays/0.npy", **sizes))

    cases = [
        # the .npy header claims 8 GB that the member does not hold
        (lambda: _craft(path, A0, [big_header]), "declares a float64 array of shape \\(1000000000,\\)"),
        # the archive claims that a deflated member expands to 4 GB
        (lambda: patched(zipfile.ZIP_DEFLATED, file_size=2 ** 32 - 1), "more than its .* deflated bytes can hold"),
        # a stored member that claims more bytes than the file has
        (lambda: patched(zipfile.ZIP_STORED, file_size=2 ** 31, compress_size=2 ** 31),
         "records 2147483648 bytes but the file has"),
        # sizes that disagree with the .npy header
        (lambda: patched(zipfile.ZIP_STORED, file_size=200, compress_size=200), "Bad CRC-32|archive records 72 bytes after"),
        # a deflated manifest of 64 MB
        (lambda: _raw_archive(path, [("tensorgrad.json", b" " * (1 << 26))], zipfile.ZIP_DEFLATED),
         "tensorgrad.json is deflated and expands to 67108864 bytes"),
    ]
    for make, match in cases:
        make()
        with pytest.raises(RuntimeError, match=match) as info:
            tg.load(path)
        assert type(info.value) is RuntimeError
        _, peak = _peak(lambda: _load_or_error(path))
        assert peak < 8 * path.stat().st_size + (1 << 17)


def _patch_sizes(data, name, file_size=None, compress_size=None):
    """The archive with the central directory's record of member ``name`` given other sizes."""
    data = bytearray(data)
    entry = data.index(b"PK\x01\x02")
    while data[entry + 46:entry + 46 + struct.unpack_from("<H", data, entry + 28)[0]] != name.encode():
        entry = data.index(b"PK\x01\x02", entry + 4)
    if compress_size is not None:
        struct.pack_into("<I", data, entry + 20, compress_size)
    if file_size is not None:
        struct.pack_into("<I", data, entry + 24, file_size)
    return bytes(data)


def _load_or_error(path):
    try:
        return tg.load(path)
    except RuntimeError as e:
        return e


# ------------------------------------------------------------------------ corruption fuzz

def _corpus():
    """Valid checkpoints: a state dict, nested containers, and tensors sharing storage (views,
    aliases, parameters)."""
    tg.manual_seed(0)
    model = tg.nn.Sequential(tg.nn.Linear(3, 2), tg.nn.BatchNorm1d(2))
    nested = {"values": [1, 2.5, None, "text", b"\x00\xff", 3 + 4j, float("nan"), -0.0],
              "tensors": (tg.arange(4, dtype=tg.int64), tg.ones(2, 2, dtype=tg.bfloat16), tg.tensor(True)),
              "numpy": np.arange(6, dtype=np.int16).reshape(2, 3), "scalar": np.float32(2.5),
              (1, "key"): tg.Size([2, 3]), "dtype": tg.float64}
    files = []
    for obj in (model.state_dict(), nested, _shared(tg)):
        buf = io.BytesIO()
        tg.save(obj, buf)
        files.append((obj, buf.getvalue()))
    return files


def _same(a, b):
    """Whether ``b`` is exactly ``a``: types, values bit for bit, layouts and autograd flags."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tg.Tensor):
        return (a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
                and a.stride() == b.stride() and np.asarray(a.detach()._data).tobytes() ==
                np.asarray(b.detach()._data).tobytes())
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a) and \
            _same(getattr(a, "_metadata", None), getattr(b, "_metadata", None))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and repr(a) == repr(b)


def _members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def _rezip(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for info, payload in members:
            archive.writestr(info, payload)
    return buf.getvalue()


def _mutants(data, rng, samples):
    """Damaged copies of a checkpoint: truncated, bytes flipped, members swapped or reordered,
    recorded and declared sizes inflated."""
    offsets = sorted(set(rng.integers(0, len(data), samples).tolist()) | {0, 1, 4, len(data) - 1})
    for n in offsets:
        yield f"truncated at {n}", data[:n]
    for n in rng.integers(0, len(data), samples).tolist():
        flipped = bytearray(data)
        flipped[n] ^= int(rng.integers(1, 256))
        yield f"byte {n} flipped", bytes(flipped)
    members = _members(data)
    yield "members reversed", _rezip(members[::-1])
    arrays = [k for k, (info, _) in enumerate(members) if info.filename.startswith("arrays/")]
    if len(arrays) >= 2:
        a, b = arrays[0], arrays[-1]
        swapped = list(members)
        swapped[a] = (members[b][0], members[a][1])
        swapped[b] = (members[a][0], members[b][1])
        yield "two members' contents swapped", _rezip(swapped)
    for info, _ in members:
        yield f"{info.filename} recorded 1000 times larger", _patch_sizes(data, info.filename,
                                                                        file_size=info.file_size * 1000 + 1)
    manifest = json.loads(dict((i.filename, p) for i, p in members)["tensorgrad.json"])
    if manifest["tensors"]:
        manifest["tensors"][0]["shape"] = [n * 1000 + 1 for n in manifest["tensors"][0]["shape"]] or [1000]
        yield "a tensor's shape inflated", _rezip([(i, json.dumps(manifest).encode() if i.filename ==
                                                    "tensorgrad.json" else p) for i, p in members])


def _check_mutants(samples, seed):
    rng = np.random.default_rng(seed)
    outcomes = Counter()
    for obj, data in _corpus():
        # the intact file loads exactly (and compiles its views outside tracemalloc, which is slow)
        assert _same(obj, tg.load(io.BytesIO(data)))
        for what, mutant in _mutants(data, rng, samples):
            def attempt():
                try:
                    return tg.load(io.BytesIO(mutant))
                except RuntimeError as e:
                    assert type(e) is RuntimeError, f"{what}: {type(e).__name__}: {e}"
                    return e

            back, peak = _peak(attempt)
            if isinstance(back, RuntimeError):
                outcomes["refused"] += 1
            else:
                assert _same(obj, back), f"{what}: loaded a wrong value"
                outcomes["right value"] += 1
            # a small multiple of the file (these hold no large array), plus zlib and zipfile buffers
            assert peak < 16 * len(data) + (1 << 17), f"{what}: peak allocation {peak} for {len(data)} bytes"
    return outcomes


def test_corrupted_checkpoints_load_right_or_raise_runtime_error_without_torch():
    outcomes = _check_mutants(samples=24, seed=0)
    assert outcomes["refused"] > 100 and outcomes["right value"] > 0


@pytest.mark.long
def test_corrupted_checkpoints_long_sweep_without_torch():
    for seed in range(1, 20):
        _check_mutants(samples=400, seed=seed)


def test_map_location_is_checked_before_the_file_is_read_without_torch():
    buf = io.BytesIO()
    tg.save({"a": tg.arange(4.), "b": None}, buf)
    buf.seek(0)
    back = tg.load(buf, map_location="cpu")
    assert back["a"].device == tg.device("cpu") and back["a"].tolist() == [0., 1., 2., 3.]
    buf.seek(0)
    with pytest.raises(RuntimeError, match="device type at start of device string: nowhere") as info:
        tg.load(buf, map_location="nowhere")
    assert "checkpoint" not in str(info.value) and buf.tell() == 0


def test_the_legacy_format_is_refused_not_ignored():
    buf = io.BytesIO()
    with pytest.raises(NotImplementedError, match="legacy"):
        tg.save({"w": tg.ones(2)}, buf, _use_new_zipfile_serialization=False)
    assert buf.getvalue() == b""
