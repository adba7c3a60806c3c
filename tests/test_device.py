"""``torch.device`` and the device of tensors (``tensorgrad/_device.py``).

Most cases are differential: the same snippet runs with ``torch`` bound to tensorgrad and to
real PyTorch, and the repr of its last expression (or the exception type and message, and any
warnings) must be equal (``run`` and ``same`` are in snippets.py).
"""

import pytest

import tensorgrad as tg
from snippets import cases, ids, same


@pytest.fixture
def torch_():
    return pytest.importorskip("torch")


# --------------------------------------------------------------------------------------------
# device

def test_device_repr():
    d = tg.device("cpu")
    assert repr(d) == "device(type='cpu')"
    assert str(d) == "cpu"
    assert tg.zeros(2).device == d
    assert repr(tg.zeros(2).device) == "device(type='cpu')"
    assert repr(tg.device("cpu", 0)) == "device(type='cpu', index=0)"


DEVICE_CASES = cases("""
torch.device('cpu'), str(torch.device('cpu')), torch.zeros(2).device, torch.device('cpu') == torch.zeros(1).device
---
torch.device("cpu", 0), torch.device("cpu:0"), str(torch.device("cpu:0")), torch.device("cuda:1").index, torch.device(torch.device("cpu"))
---
torch.device("cpu") == "cpu", torch.device("cpu") == torch.device("cpu"), {torch.device("cpu"): 1}[torch.device("cpu")]
---
torch.device("cpu").type, torch.device("cpu").index, torch.device("cuda").type
---
torch.zeros(2, device="cpu").device, torch.zeros(2, device=torch.device("cpu")).device, torch.ones(2).is_cuda, torch.zeros(2).cpu().device
---
torch.device("foo")
---
torch.device("cpu:x")
""")


@pytest.mark.parametrize("src", DEVICE_CASES, ids=ids(DEVICE_CASES))
def test_device_matches_torch(torch_, src):
    same(torch_, src)


MALFORMED = cases("""
torch.device("cuda:")
---
torch.device("cuda:-1")
---
torch.device("cuda:01")
---
torch.device("cuda:1:2")
---
torch.device(" cuda")
---
torch.device("CUDA")
---
torch.device("cuda:1", 1)
---
torch.device("cuda", -1)
---
torch.device("cpu", "0")
---
torch.device("cpu", 1.0)
---
torch.device("cuda", True)
---
torch.device("")
---
torch.device(None)
---
torch.device("cuda:+1")
---
torch.device("meta:0"), torch.device("cuda", None)
""")


@pytest.mark.parametrize("src", MALFORMED, ids=ids(MALFORMED))
def test_malformed_device_strings_as_torch(torch_, src):
    same(torch_, src)


def test_tpu_names_jax_tpu_backend():
    d = tg.device("tpu:0")
    assert (d.type, d.index, repr(tg.device("gpu"))) == ("tpu", 0, "device(type='cuda')")
    import jax
    if not any(dev.platform == "tpu" for dev in jax.devices()):
        with pytest.raises(RuntimeError, match=r'Found no TPU device: .*pip install -e "\.\[tpu\]"'):
            tg.zeros(1, device="tpu")


MIXED = r'''
import jax
import tensorgrad as tg
from tensorgrad import _device
cpu0, cpu1 = jax.devices("cpu")
real_of_array = _device.of_array
_device.gpus = lambda: [cpu1]    # the second host device plays cuda:0
_device.of_array = lambda a: (tg.device("cuda", 0) if isinstance(a, jax.Array) and a.devices() == {cpu1}
                              else real_of_array(a))
a = tg.ones(2).cuda()
b = a.cpu()
print(a.device, b.device)
for f in [lambda: a + b, lambda: b * a, lambda: a.requires_grad_() @ b, lambda: (a + tg.ones(2)).device]:
    try:
        print(f())
    except RuntimeError as e:
        print(type(e).__name__, e)
'''


def test_mixing_devices_in_one_op_raises_pytorchs_error():
    """With one CPU here, a second host device (XLA's forced host device count) stands in for
    cuda:0; the error comes from JAX refusing arrays committed to two devices."""
    import os
    import subprocess
    import sys
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu")
    proc = subprocess.run([sys.executable, "-c", MIXED], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    msg = "RuntimeError Expected all tensors to be on the same device, but found at least two devices, {} and {}!"
    assert proc.stdout.splitlines() == ["cuda:0 cpu", msg.format("cuda:0", "cpu"), msg.format("cpu", "cuda:0"),
                                        msg.format("cuda:0", "cpu"), "cuda:0"]


def test_host_transfers_give_what_device_put_gives_without_torch():
    """``_device.put`` calls JAX's C++ transfer directly (device_put's Python costs 30 us a call):
    the same array, type, placement and values, for every dtype and memory layout."""
    import jax
    import ml_dtypes
    import numpy as np
    from tensorgrad import _device
    base = np.random.default_rng(0).standard_normal((5, 6, 7))
    cases = [base.astype(np.float32), base[:, ::2], np.asfortranarray(base.astype(np.float32)),
             base.astype(np.float16), base.astype(ml_dtypes.bfloat16), (base * 10).astype(np.int8),
             (base * 1000).astype(np.int64), base > 0, (base + 1j * base).astype(np.complex64),
             np.zeros((0, 3), np.float32), np.array(3.5), np.arange(10, dtype=np.uint32)[::-1],
             base.astype(np.float32).transpose(2, 0, 1)]
    for case in cases:
        ours, theirs = _device.put(case), jax.device_put(case)
        assert type(ours) is type(theirs) and ours.aval == theirs.aval and ours.sharding == theirs.sharding
        assert ours.committed == theirs.committed
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))
        before = case.copy()
        case[...] = 0                                   # a later write reaches both or neither
        assert np.array_equal(np.asarray(ours), before) == np.array_equal(np.asarray(theirs), before)
    assert callable(_device._TRANSFER[0])       # this JAX has the transfer (else device_put serves)
    with jax.default_device(jax.devices()[-1]):     # a default device set through JAX: device_put's
        assert _device.put(np.ones(3)).sharding == jax.device_put(np.ones(3)).sharding
