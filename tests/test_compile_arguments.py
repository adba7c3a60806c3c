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


# ---------------------------------------------------------------------- tensorgrad.compiler

def test_is_compiling_is_true_only_while_a_step_is_traced_without_torch():
    seen = []

    def step(x):
        seen.append(tg.compiler.is_compiling())
        return (x * 2).sum()

    compiled = tg.compile(step)
    values = [compiled(tg.ones(3)).item() for _ in range(3)]
    assert values == [6.0] * 3
    assert seen == [False, True]        # the eager first call, then the one trace
    assert not tg.compiler.is_compiling() and tg.compiler.is_dynamo_compiling is tg.compiler.is_compiling


def test_a_disabled_function_runs_its_step_eagerly_with_the_same_values_without_torch():
    calls = []

    @tg.compiler.disable(reason="it logs")
    def log(x):
        calls.append(x.shape)
        return x + 1

    def step(x):
        return log(x * 2).sum()

    compiled = tg.compile(step)
    with pytest.warns(UserWarning, match="is marked torch.compiler.disable \\(it logs\\)"):
        values = [compiled(tg.ones(3)).item() for _ in range(3)]
    assert values == [9.0] * 3 and len(calls) == 3       # every call ran it, eagerly
    assert "running eagerly" in compiled.explain()
    with pytest.raises(RuntimeError, match="fullgraph=True.*torch.compiler.disable"):
        strict = tg.compile(step, fullgraph=True)
        for _ in range(2):
            strict(tg.ones(3))
    assert log(tg.ones(2)).tolist() == [2.0, 2.0]        # outside compiled steps: as it is


def test_reset_drops_every_program_without_torch():
    compiled = tg.compile(lambda x: (x * 3).sum())
    for _ in range(2):
        compiled(tg.ones(2))
    assert compiled.explain().count("traced program") == 1
    tg.compiler.reset()
    for _ in range(2):
        assert compiled(tg.ones(2)).item() == 6.0
    assert compiled.explain().count("traced program") == 2 and "reset" in compiled.explain()
    assert tg.compiler.allow_in_graph(len) is len


def test_compiler_functions_behave_as_torchs_outside_compiled_steps():
    for m in (torch, tg):
        assert m.compiler.is_compiling() is False

        @m.compiler.disable
        def f(x):
            return x * 2
        assert f(m.ones(2)).tolist() == [2.0, 2.0]
        m.compiler.reset()
