"""``tensorgrad.compile``'s ``backend``, ``mode``, ``options`` and ``dynamic`` against
``torch.compile``'s: what PyTorch refuses, tensorgrad refuses with the same type and message;
what it accepts, tensorgrad accepts (and compiles with XLA all the same)."""

import warnings

import numpy as np
import pytest

import tensorgrad as tg
from tensorgrad import _compile_options

from compile_tables import oracle_tables
from oracle import torch, _oracle  # noqa: F401  (the autouse fixture skips without PyTorch)

CASES = {
    "defaults": {},
    "inductor": {"backend": "inductor"},
    "eager": {"backend": "eager"},
    "aot_eager": {"backend": "aot_eager"},
    "cudagraphs": {"backend": "cudagraphs"},
    "unknown_backend": {"backend": "nonsense"},
    "unknown_backend_disabled": {"backend": "nonsense", "disable": True},
    "mode_default": {"mode": "default"},
    "mode_max_autotune": {"mode": "max-autotune"},
    "mode_reduce_overhead": {"mode": "reduce-overhead"},
    "mode_empty": {"mode": ""},
    "unknown_mode": {"mode": "fastest"},
    "unknown_mode_disabled": {"mode": "fastest", "disable": True},
    "number_as_mode": {"mode": 3},
    "mode_and_options": {"mode": "default", "options": {}},
    "mode_for_eager": {"backend": "eager", "mode": "fastest"},
    "options": {"options": {"max_autotune": True, "epilogue_fusion": False}},
    "options_dashed": {"options": {"max-autotune": True}},
    "options_empty": {"options": {}},
    "options_popped_keys": {"options": {"use_aoti": False}},
    "unknown_option": {"options": {"max_autotun": True}},
    "option_of_wrong_type": {"options": {"max_autotune": 1}},
    "option_unchecked_type": {"options": {"compile_threads": 2.0}},
    "options_not_a_dict": {"options": [("max_autotune", True)]},
    "options_for_eager": {"backend": "eager", "options": {"bogus": 1}},
    "dynamic_true": {"dynamic": True},
    "dynamic_not_bool": {"dynamic": 1},
    "dynamic_not_bool_disabled": {"dynamic": "yes", "disable": True},
}


def _outcome(m, kwargs):
    def f(x):
        return x.sin() + 1
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # PyTorch's own deprecations, as inductor loads
            compiled = m.compile(f, **kwargs)
    except Exception as e:  # noqa: BLE001 - compared below
        return "raised", e
    return "ok", compiled


@pytest.mark.parametrize("name", CASES)
def test_compile_refuses_what_torch_refuses(name):
    kwargs = CASES[name]
    theirs, expected = _outcome(torch, {k: (dict(v) if isinstance(v, dict) else v) for k, v in kwargs.items()})
    ours, got = _outcome(tg, kwargs)
    assert ours == theirs, (got, expected)
    if ours == "raised":
        kind = type(expected)
        if kind.__module__ == "torch._dynamo.exc":     # InvalidBackend, a RuntimeError of dynamo's own
            assert issubclass(kind, RuntimeError)
            kind = RuntimeError
        assert isinstance(got, kind), (got, expected)
        assert str(got) == str(expected)
    else:
        x = np.linspace(-1, 1, 5).astype(np.float32)
        np.testing.assert_allclose(np.asarray(got(tg.tensor(x))._data), np.sin(x) + 1, rtol=1e-6)


def test_the_tables_are_pytorchs():
    options, modes, backends = oracle_tables()
    assert _compile_options.OPTIONS == options
    assert _compile_options.MODES == modes
    assert _compile_options.BACKENDS == backends


def test_what_has_no_meaning_here_raises_not_implemented_without_torch():
    f = lambda x: x * 2  # noqa: E731
    with pytest.raises(NotImplementedError, match="FX graph"):
        tg.compile(f, backend=lambda graph_module, example_inputs: graph_module.forward)
    with pytest.raises(NotImplementedError, match="test backends"):
        tg.compile(f, backend="relu_compile_error_TESTING_ONLY")
    with pytest.raises(RuntimeError, match="Invalid backend: 'inductr'"):
        tg.compile(tg.nn.Linear(2, 2), backend="inductr")
    with pytest.raises(RuntimeError, match="Invalid backend: 3.5"):      # PyTorch's first call raises
        tg.compile(f, backend=3.5)
    with pytest.raises(RuntimeError, match="Unexpected optimization option max_autotun,"):
        tg.compile(mode=None, options={"max_autotun": True})(f)
