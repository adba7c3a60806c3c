"""Constructor keywords of the nn modules, optimizers, schedulers and data utilities against PyTorch's.

Every module class that ``tensorgrad.nn`` and ``torch.nn`` both export is built from the same
arguments in both libraries: with a bogus keyword both must raise ``TypeError`` naming it (or
both accept it, as ``nn.Identity`` does); every keyword PyTorch's constructor takes must be
taken here too (unless listed, with the reason, in ``KNOWN_MISSING``), and passing each one at
PyTorch's default must build the same module (the same repr and parameter shapes) or fail the
same way. The same holds for the optimizers, the learning-rate schedulers, the DataLoader and
the datasets and samplers.
"""

import inspect
import warnings

import numpy as np
import pytest

import tensorgrad as tg

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)

BOGUS = "not_a_kwarg"

# Constructor arguments (Python source, with ``nn`` and ``T`` bound to either library) for every
# module class both libraries export. A class missing here fails ``test_every_module_class_has_arguments``.
MODULE_ARGS = {
    "AdaptiveAvgPool1d": "3", "AdaptiveAvgPool2d": "(2, 3)", "AdaptiveAvgPool3d": "2",
    "AdaptiveMaxPool1d": "3", "AdaptiveMaxPool2d": "2, True", "AdaptiveMaxPool3d": "2",
    "AlphaDropout": "0.2", "FeatureAlphaDropout": "0.2",
    "AvgPool1d": "3", "AvgPool2d": "3, 2, 1", "AvgPool3d": "2",
    "BCELoss": "", "BCEWithLogitsLoss": "", "CrossEntropyLoss": "label_smoothing=0.1", "NLLLoss": "",
    "L1Loss": "", "MSELoss": "", "HuberLoss": "delta=2.0", "SmoothL1Loss": "beta=0.5", "KLDivLoss": "",
    "PoissonNLLLoss": "", "GaussianNLLLoss": "", "CosineEmbeddingLoss": "0.1", "MarginRankingLoss": "0.1",
    "TripletMarginLoss": "", "SoftMarginLoss": "", "HingeEmbeddingLoss": "", "MultiLabelMarginLoss": "",
    "MultiLabelSoftMarginLoss": "", "MultiMarginLoss": "p=2", "CosineSimilarity": "", "PairwiseDistance": "",
    "BatchNorm1d": "3", "BatchNorm2d": "3", "BatchNorm3d": "3", "SyncBatchNorm": "3",
    "AdaptiveLogSoftmaxWithLoss": "16, 10, [4, 8]",
    "InstanceNorm1d": "3", "InstanceNorm2d": "3", "InstanceNorm3d": "3",
    "LayerNorm": "4", "GroupNorm": "2, 4", "RMSNorm": "4",
    "Bilinear": "2, 3, 4", "Linear": "3, 4", "Identity": "3",
    "LazyLinear": "4", "LazyConv1d": "2, 3", "LazyConv2d": "2, 3", "LazyConv3d": "2, 3",
    "LazyBatchNorm1d": "", "LazyBatchNorm2d": "", "LazyBatchNorm3d": "",
    "CELU": "0.5", "ELU": "", "GELU": "", "GLU": "", "Hardshrink": "", "Hardsigmoid": "", "Hardswish": "",
    "Hardtanh": "-2.0, 2.0", "LeakyReLU": "0.2", "LogSigmoid": "", "LogSoftmax": "1", "Mish": "", "PReLU": "3",
    "RReLU": "0.1, 0.3", "ReLU": "", "ReLU6": "", "SELU": "", "SiLU": "", "Sigmoid": "", "Softmax": "1",
    "Softmax2d": "", "Softmin": "1", "Softplus": "2.0", "Softshrink": "0.3", "Softsign": "", "Tanh": "",
    "Tanhshrink": "", "Threshold": "0.1, 20.0",
    "CircularPad1d": "2", "CircularPad2d": "1", "CircularPad3d": "1",
    "ConstantPad1d": "2, 0.5", "ConstantPad2d": "1, 0.5", "ConstantPad3d": "1, 0.5",
    "ReflectionPad1d": "2", "ReflectionPad2d": "1", "ReflectionPad3d": "1",
    "ReplicationPad1d": "2", "ReplicationPad2d": "1", "ReplicationPad3d": "1",
    "ZeroPad1d": "2", "ZeroPad2d": "1", "ZeroPad3d": "1",
    "Conv1d": "2, 3, 3", "Conv2d": "2, 4, 3", "Conv3d": "1, 2, 2",
    "ConvTranspose1d": "2, 3, 3", "ConvTranspose2d": "2, 3, 3", "ConvTranspose3d": "1, 2, 2",
    "Dropout": "0.2", "Dropout1d": "0.2", "Dropout2d": "0.2", "Dropout3d": "0.2",
    "Embedding": "10, 3", "EmbeddingBag": "10, 3", "CTCLoss": "", "MaxUnpool1d": "2", "MaxUnpool2d": "2, 1",
    "MaxUnpool3d": "2", "FractionalMaxPool2d": "2, output_size=3", "FractionalMaxPool3d": "2, output_ratio=0.5",
    "LPPool1d": "2, 3", "LPPool2d": "2, 3", "LPPool3d": "2, 2", "LocalResponseNorm": "2", "ChannelShuffle": "2",
    "TripletMarginWithDistanceLoss": "", "Flatten": "", "Unflatten": "1, (2, 3)",
    "Fold": "4, 2", "Unfold": "2", "PixelShuffle": "2", "PixelUnshuffle": "2",
    "Upsample": "scale_factor=2", "UpsamplingBilinear2d": "scale_factor=2", "UpsamplingNearest2d": "scale_factor=2",
    "MaxPool1d": "2", "MaxPool2d": "2", "MaxPool3d": "2",
    "Module": "", "ModuleDict": "", "ModuleList": "", "ParameterDict": "", "ParameterList": "", "Sequential": "",
    "MultiheadAttention": "8, 2",
    "RNN": "3, 4", "LSTM": "3, 4", "GRU": "3, 4", "RNNBase": "'LSTM', 3, 4",
    "RNNCell": "3, 4", "LSTMCell": "3, 4", "GRUCell": "3, 4", "RNNCellBase": "3, 4, True, 2",
    "Transformer": "8, 2, 1, 1, 16", "TransformerEncoderLayer": "8, 2, 16", "TransformerDecoderLayer": "8, 2, 16",
    "TransformerEncoder": "nn.TransformerEncoderLayer(8, 2, 16), 1, enable_nested_tensor=False",
    "TransformerDecoder": "nn.TransformerDecoderLayer(8, 2, 16), 1",
}

# Keywords that PyTorch's constructor takes and tensorgrad's does not. Each entry says why; an
# entry that tensorgrad has since gained fails ``test_known_missing_is_current``.
KNOWN_MISSING = {}

# PyTorch's recurrent layers take ``*args, **kwargs``; these are the keywords its documentation
# (and ``RNNBase.__init__``) gives them.
_RNN_KEYWORDS = ["input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional",
                 "device", "dtype"]
VARARGS_KEYWORDS = {
    "RNN": _RNN_KEYWORDS + ["nonlinearity"],
    "LSTM": _RNN_KEYWORDS + ["proj_size"],
    "GRU": _RNN_KEYWORDS,
}


def _common_module_classes():
    if torch is None:
        return []
    return sorted(name for name in tg.nn.modules.__all__
                  if isinstance(getattr(torch.nn, name, None), type) and issubclass(getattr(torch.nn, name),
                                                                                    torch.nn.Module))


MODULES = _common_module_classes()


def _build(T, src):
    """``("ok", value)`` or ``("error", exception)`` of evaluating ``src`` with ``T`` as ``T``/``nn``."""
    ns = {"T": T, "nn": T.nn, "np": np}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", eval(src, ns))
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return ("error", e)


def _call(args, extra):
    return ", ".join(a for a in (args, extra) if a)


def _normalize(text):
    return text.replace("tensorgrad", "torch")


def _shapes(module):
    # a lazy module's uninitialized parameters have no shape yet: their kind is compared
    return [(name, repr(p) if type(p).__name__.startswith("Uninitialized") else tuple(p.shape))
            for name, p in module.state_dict().items()]


def _same_build(src):
    """The same outcome in both libraries: equal reprs and state-dict shapes, or the same
    exception type. Returns PyTorch's outcome."""
    ours = _build(tg, src)
    theirs = _build(torch, src)
    if theirs[0] == "error":
        assert ours[0] == "error", f"{src}: PyTorch raises {theirs[1]!r}, tensorgrad builds {ours[1]!r}"
        assert type(ours[1]).__name__ == type(theirs[1]).__name__, (src, ours[1], theirs[1])
        return theirs
    assert ours[0] == "ok", f"{src}: PyTorch builds it, tensorgrad raises {ours[1]!r}"
    assert _normalize(repr(ours[1])) == repr(theirs[1]), src
    if isinstance(theirs[1], torch.nn.Module):
        assert _shapes(ours[1]) == _shapes(theirs[1]), src
    return theirs


def _keywords(fn):
    """The names of the parameters of ``fn`` that a caller can pass by keyword."""
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params
            if p.name != "self" and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]


def _missing(name, theirs_fn, ours_fn):
    ours = set(_keywords(ours_fn))
    takes_any = any(p.kind == p.VAR_KEYWORD for p in inspect.signature(ours_fn).parameters.values())
    lacking = [k for k in _keywords(theirs_fn) if k not in ours and not takes_any]
    return [k for k in lacking if (name, k) not in KNOWN_MISSING]


# ------------------------------------------------------------------------------- nn modules

def test_every_module_class_has_arguments():
    assert MODULES, "no module class in common"
    assert sorted(set(MODULES) - set(MODULE_ARGS)) == []


@pytest.mark.parametrize("name", MODULES)
def test_module_builds_like_torch(name):
    outcome = _same_build(f"nn.{name}({MODULE_ARGS[name]})")
    assert outcome[0] == "ok"


@pytest.mark.parametrize("name", MODULES)
def test_module_rejects_an_unknown_keyword_like_torch(name):
    outcome = _same_build(f"nn.{name}({_call(MODULE_ARGS[name], BOGUS + '=1')})")
    if outcome[0] == "error" and isinstance(outcome[1], TypeError):
        ours = _build(tg, f"nn.{name}({_call(MODULE_ARGS[name], BOGUS + '=1')})")[1]
        assert BOGUS in str(ours)


@pytest.mark.parametrize("name", MODULES)
def test_module_takes_every_torch_keyword(name):
    assert _missing(name, getattr(torch.nn, name).__init__, getattr(tg.nn, name).__init__) == []


def _plain(value):
    return value is None or isinstance(value, (bool, int, float, str, tuple))


@pytest.mark.parametrize("name", MODULES)
def test_each_torch_keyword_at_its_default_builds_the_same_module(name):
    """Passing a keyword at PyTorch's default changes nothing (in both libraries alike)."""
    cls = getattr(torch.nn, name)
    sig = inspect.signature(cls.__init__)
    args = MODULE_ARGS[name]
    positional, keywords = eval(f"(lambda *a, **k: (a, k))({args})", {"nn": torch.nn, "T": torch})
    try:
        given = set(sig.bind(None, *positional, **keywords).arguments)
    except TypeError:  # arguments the signature cannot bind: treat every keyword as given
        given = set(sig.parameters)
    for key, p in sig.parameters.items():
        if key in given or p.default is p.empty or not _plain(p.default) or key == "self":
            continue
        _same_build(f"nn.{name}({_call(args, f'{key}={p.default!r}')})")


@pytest.mark.parametrize("name", sorted(VARARGS_KEYWORDS))
def test_recurrent_layers_take_their_documented_keywords(name):
    defaults = {"num_layers": 1, "bias": True, "batch_first": False, "dropout": 0.0, "bidirectional": False,
                "device": None, "dtype": None, "nonlinearity": "tanh", "proj_size": 0}
    for key in VARARGS_KEYWORDS[name]:
        if key in ("input_size", "hidden_size"):
            _same_build(f"nn.{name}(input_size=3, hidden_size=4)")
            continue
        _same_build(f"nn.{name}(3, 4, {key}={defaults[key]!r})")
    _same_build(f"nn.{name}(3, 4, 2, True, True, 0.5, True)")


def test_known_missing_is_current():
    stale = []
    for name, key in KNOWN_MISSING:
        if key in _keywords(getattr(tg.nn, name).__init__):
            stale.append((name, key))
    assert stale == []


def test_misspelt_keyword_names_itself():
    with pytest.raises(TypeError, match="bais"):
        tg.nn.Linear(2, 3, bais=False)
    with pytest.raises(TypeError, match="bais"):
        torch.nn.Linear(2, 3, bais=False)


def test_hardtanh_deprecated_bound_names_work_like_torch():
    for src in ("nn.Hardtanh(min_value=-2.0)", "nn.Hardtanh(max_value=3.0)",
                "nn.Hardtanh(-1.0, 1.0, False, -0.5, 0.5)"):
        _same_build(src)
    for T in (tg, torch):
        with pytest.warns(FutureWarning, match="keyword argument `min_value` is deprecated"):
            T.nn.Hardtanh(min_value=-2.0)
    x = np.linspace(-4, 4, 9, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = tg.nn.Hardtanh(min_value=-2.0, max_value=3.0)(tg.tensor(x)).numpy()
        theirs = torch.nn.Hardtanh(min_value=-2.0, max_value=3.0)(torch.tensor(x)).numpy()
    np.testing.assert_array_equal(ours, theirs)


# ------------------------------------------------------------------------------- optimizers

OPTIMIZERS = ["SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "LBFGS", "Rprop",
              "ASGD", "Adafactor"]


def _params(T):
    return [T.nn.Parameter(T.ones(2))]


def _optimizer(T, name, **kwargs):
    return getattr(T.optim, name)(_params(T), lr=0.1, **kwargs)


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        return ("error", e)


def test_optimizer_list_is_complete():
    assert sorted(OPTIMIZERS) == sorted(n for n in tg.optim.__all__ if n not in ("Optimizer", "lr_scheduler"))


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_rejects_an_unknown_keyword_like_torch(name):
    for T in (tg, torch):
        with pytest.raises(TypeError, match=BOGUS):
            _optimizer(T, name, **{BOGUS: 1})


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_takes_every_torch_keyword(name):
    assert _missing(name, getattr(torch.optim, name).__init__, getattr(tg.optim, name).__init__) == []


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_keywords_at_torch_defaults_give_torch_groups(name):
    sig = inspect.signature(getattr(torch.optim, name).__init__)
    kwargs = {k: p.default for k, p in sig.parameters.items()
              if k not in ("self", "params", "lr") and p.default is not p.empty}
    ours = _optimizer(tg, name, **kwargs)
    theirs = _optimizer(torch, name, **kwargs)
    assert _normalize(repr(ours)) == repr(theirs)


def _steps(T, name, **kwargs):
    w = T.tensor([1.0, 2.0], requires_grad=True)
    opt = getattr(T.optim, name)([w], lr=0.1, **kwargs)
    for _ in range(2):
        w.grad = T.tensor([0.5, -0.5])
        opt.step()
    return w.detach().numpy()


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_optimizer_implementation_flags_like_torch(name):
    """``foreach``/``fused`` choose an implementation in PyTorch and give its results (tensorgrad
    has one implementation); ``capturable`` and ``differentiable`` change what a step does and
    are refused with NotImplementedError rather than ignored; invalid combinations raise
    PyTorch's errors."""
    taken = set(_keywords(getattr(torch.optim, name).__init__))
    for flag in ("foreach", "fused"):
        if flag in taken:
            for value in (True, False):
                np.testing.assert_allclose(_steps(tg, name, **{flag: value}), _steps(torch, name, **{flag: value}),
                                           rtol=1e-6)
    for flag in ("capturable", "differentiable"):
        if flag in taken:
            with pytest.raises(NotImplementedError, match=flag):
                _optimizer(tg, name, **{flag: True})
    if "fused" in taken:
        for combo in ({"fused": True, "foreach": True}, {"fused": True, "differentiable": True}):
            ours = _outcome(lambda: _optimizer(tg, name, **combo))
            theirs = _outcome(lambda: _optimizer(torch, name, **combo))
            assert ours[0] == theirs[0] == "error"
            assert (type(ours[1]), str(ours[1])) == (type(theirs[1]), str(theirs[1]))


# ------------------------------------------------------------------------------- schedulers

SCHEDULERS = {
    "LambdaLR": "o, lambda e: 0.9", "MultiplicativeLR": "o, lambda e: 0.9", "StepLR": "o, 2",
    "MultiStepLR": "o, [2, 4]", "ConstantLR": "o", "LinearLR": "o", "ExponentialLR": "o, 0.9",
    "PolynomialLR": "o", "CosineAnnealingLR": "o, 5", "ReduceLROnPlateau": "o",
    "CosineAnnealingWarmRestarts": "o, 3", "OneCycleLR": "o, 1.0, total_steps=10",
    "SequentialLR": "o, [S.StepLR(o, 2), S.StepLR(o, 3)], [2]",
    "ChainedScheduler": "[S.StepLR(o, 2), S.ExponentialLR(o, 0.9)]",
    "CyclicLR": "o, 0.01, 0.1",
}


def _schedulers():
    if torch is None:
        return []
    S = tg.optim.lr_scheduler
    return sorted(n for n in dir(S)
                  if isinstance(getattr(S, n), type) and issubclass(getattr(S, n), S.LRScheduler)
                  and not n.startswith("_") and hasattr(torch.optim.lr_scheduler, n) and n != "LRScheduler")


def _scheduler(T, name, extra=""):
    ns = {"S": T.optim.lr_scheduler, "o": T.optim.SGD(_params(T), lr=0.1)}
    return eval(f"S.{name}({_call(SCHEDULERS[name], extra)})", ns)


def test_every_scheduler_has_arguments():
    assert _schedulers() and sorted(set(_schedulers()) - set(SCHEDULERS)) == []


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_rejects_an_unknown_keyword_like_torch(name):
    for T in (tg, torch):
        with pytest.raises(TypeError, match=BOGUS):
            _scheduler(T, name, BOGUS + "=1")


@pytest.mark.parametrize("name", sorted(SCHEDULERS))
def test_scheduler_takes_every_torch_keyword(name):
    S = torch.optim.lr_scheduler
    assert _missing(name, getattr(S, name).__init__, getattr(tg.optim.lr_scheduler, name).__init__) == []


# every keyword at a value other than its default
SCHEDULER_KEYWORDS = {
    "ReduceLROnPlateau": "o, mode='max', factor=0.5, patience=1, threshold=0.1, threshold_mode='abs', cooldown=1, "
                         "min_lr=[0.001], eps=1e-3",
    "OneCycleLR": "o, max_lr=0.5, epochs=2, steps_per_epoch=5, pct_start=0.4, anneal_strategy='linear', "
                  "cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, div_factor=10.0, final_div_factor=100.0, "
                  "three_phase=True",
    "CosineAnnealingWarmRestarts": "o, T_0=2, T_mult=3, eta_min=0.01",
    "PolynomialLR": "o, total_iters=4, power=0.5",
    "LinearLR": "o, start_factor=0.5, end_factor=0.1, total_iters=3",
    "ConstantLR": "o, factor=0.25, total_iters=2",
    "CosineAnnealingLR": "o, T_max=3, eta_min=0.05",
    "MultiStepLR": "o, [1, 3], gamma=0.5",
    "StepLR": "o, 2, gamma=0.3",
    "CyclicLR": "o, base_lr=0.01, max_lr=0.2, step_size_up=3, step_size_down=2, mode='exp_range', gamma=0.9, "
                "scale_mode='cycle', cycle_momentum=True, base_momentum=0.7, max_momentum=0.95",
}


@pytest.mark.parametrize("name", sorted(SCHEDULER_KEYWORDS))
def test_scheduler_keywords_give_torch_schedules(name):
    metrics = [1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 3.0, 3.0]
    schedules = []
    for T in (tg, torch):
        opt = T.optim.SGD(_params(T), lr=0.1, momentum=0.9)
        sched = eval(f"S.{name}({SCHEDULER_KEYWORDS[name]})", {"S": T.optim.lr_scheduler, "o": opt})
        schedule = []
        for metric in metrics:
            opt.step()
            if name == "ReduceLROnPlateau":
                sched.step(metric)
            else:
                sched.step()
            schedule.append([(round(g["lr"], 12), round(g["momentum"], 12)) for g in opt.param_groups])
        schedules.append(schedule)
    assert schedules[0] == schedules[1]


# ------------------------------------------------------------------------------- data

def _data_cases():
    """(name, source) of data-utility constructions, with ``D`` the ``utils.data`` module.

    ``StackDataset`` is left out: its keywords are the names of the datasets it stacks."""
    return {
        "DataLoader": "D.DataLoader(D.TensorDataset(T.arange(4)), batch_size=2",
        "TensorDataset": "D.TensorDataset(T.arange(4)",
        "ConcatDataset": "D.ConcatDataset([D.TensorDataset(T.arange(4))]",
        "ChainDataset": "D.ChainDataset([]",
        "Subset": "D.Subset(D.TensorDataset(T.arange(4)), [0, 1]",
        "SequentialSampler": "D.SequentialSampler(range(4)",
        "RandomSampler": "D.RandomSampler(range(4)",
        "SubsetRandomSampler": "D.SubsetRandomSampler([0, 1]",
        "BatchSampler": "D.BatchSampler(range(4), 2, False",
        "Sampler": "D.Sampler(",
        "Dataset": "D.Dataset(",
        "IterableDataset": "D.IterableDataset(",
        "random_split": "D.random_split(D.TensorDataset(T.arange(4)), [2, 2]",
    }


DATA = sorted(_data_cases())


def _data_outcome(T, src):
    ns = {"T": T, "D": T.utils.data}
    return _outcome(lambda: eval(src, ns))


@pytest.mark.parametrize("name", DATA)
def test_data_utility_rejects_an_unknown_keyword_like_torch(name):
    src = _data_cases()[name]
    sep = "" if src.endswith("(") else ", "
    for T in (tg, torch):
        outcome = _data_outcome(T, f"{src}{sep}{BOGUS}=1)")
        assert outcome[0] == "error" and isinstance(outcome[1], TypeError), (T.__name__, outcome)
        assert BOGUS in str(outcome[1]) or "takes no arguments" in str(outcome[1])


@pytest.mark.parametrize("name", DATA)
def test_data_utility_builds_like_torch(name):
    """Each builds in both libraries, but ``IterableDataset``, whose ``__iter__`` is abstract."""
    src = _data_cases()[name]
    ours = _data_outcome(tg, src + ")")
    theirs = _data_outcome(torch, src + ")")
    if name == "IterableDataset":
        assert ours[0] == theirs[0] == "error"
        assert (type(ours[1]), _normalize(str(ours[1]))) == (type(theirs[1]), str(theirs[1]))
    else:
        assert ours[0] == theirs[0] == "ok"


@pytest.mark.parametrize("name", [n for n in DATA if n not in ("Dataset", "IterableDataset", "Sampler")])
def test_data_utility_takes_every_torch_keyword(name):
    ours = getattr(tg.utils.data, name)
    theirs = getattr(torch.utils.data, name)
    assert _missing(name, theirs.__init__ if isinstance(theirs, type) else theirs,
                    ours.__init__ if isinstance(ours, type) else ours) == []


def test_sampler_base_takes_no_arguments_like_torch():
    for T in (tg, torch):
        with pytest.raises(TypeError, match="takes no arguments"):
            T.utils.data.Sampler(None)


# ------------------------------------------------------------------------------- keywords with effects

_PADDING = {
    "prefix": [[False, False, True, True, True], [False] * 5, [False, False, False, False, True]],
    "holes": [[False, True, False, True, False], [False] * 5, [True, False, False, False, True]],
}


@pytest.mark.parametrize("padding", sorted(_PADDING))
@pytest.mark.parametrize("mask_check", [True, False])
@pytest.mark.parametrize("nested", [True, False])
@pytest.mark.parametrize("grad", [False, True])
def test_transformer_encoder_nested_tensor_keywords_give_torch_outputs(padding, mask_check, nested, grad):
    """PyTorch packs a padded batch into a nested tensor in eval mode without gradients, which
    zeroes the padded outputs (and, with ``mask_check=False``, packs each sequence's first tokens
    whatever the mask); ``enable_nested_tensor``/``mask_check`` must give the same outputs."""
    x = np.random.default_rng(1).standard_normal((3, 5, 8)).astype(np.float32)
    mask = np.array(_PADDING[padding])
    outputs = []
    state = None
    for T in (torch, tg):
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        encoder = T.nn.TransformerEncoder(layer, 2, norm=T.nn.LayerNorm(8), enable_nested_tensor=nested,
                                          mask_check=mask_check)
        if state is None:
            state = {k: v.detach().numpy() for k, v in encoder.state_dict().items()}
        encoder.load_state_dict({k: T.tensor(v) for k, v in state.items()})
        encoder.eval()
        with T.set_grad_enabled(grad), warnings.catch_warnings():
            # PyTorch warns once that its nested tensors are a prototype
            warnings.filterwarnings("ignore", "The PyTorch API of nested tensors", UserWarning)
            outputs.append(encoder(T.tensor(x), src_key_padding_mask=T.tensor(mask)).detach().numpy())
    np.testing.assert_allclose(outputs[1], outputs[0], atol=2e-5)
