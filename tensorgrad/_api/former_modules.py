"""The module names ``_api`` had before it was arranged by topic, for callers not yet moved (transitional).

``nn/``, ``optim/``, ``utils/``, ``autograd/``, ``func.py`` and ``tests/`` are edited on other
branches and still import ``_api.math``, ``_api.extra_math``, ``_api.more_ops``,
``_api.reductions`` and ``_api.rearrange``, and read names that moved out of ``_api.shape``
(``S.to``, ``cat``, ``stack``) and ``_api.creation`` (``default_generator``, ``randperm``,
``_key``). ``install`` puts those names back where the callers look for them:

- each former module is a module object again (in ``sys.modules``, so ``from .._api.math import
  maximum`` works), holding the names of the topic modules its code went to; where two of
  them have a name, the first one listed wins (``math.clamp_min`` is ``clamp(input, min=min)``
  from ``elementwise``, ``extra_math.clamp_min`` is ``torch.clamp_min`` from ``binary``);
- ``shape`` and ``creation`` get back, as attributes, the names listed in ``MOVED_OUT``.

Nothing in ``_api`` itself uses these names. Once no caller does (``grep -rnE
"_api(\\.| import )(math|extra_math|extra_ops|more_ops|reductions|rearrange)\\b" tensorgrad tests``,
and the names of ``MOVED_OUT`` read through ``_api.shape``/``_api.creation``), delete this
module and its call in ``__init__.py``.
"""

import sys
import types

from . import (
    binary, comparison, conversion, creation, cumulative, elementwise, indexing, joining, linalg, linalg_legacy,
    matmul, nn_compat, operands, random, reduction, shape, sorting, special, subscript,
)

FORMER = {
    "math": (operands, elementwise, comparison, special, reduction, cumulative, matmul),
    "extra_math": (binary, elementwise, comparison, special),
    "extra_ops": (nn_compat, sorting, reduction, joining, indexing, linalg_legacy),
    "more_ops": (nn_compat, reduction, cumulative, linalg, indexing, elementwise, sorting, creation, shape),
    "reductions": (reduction, cumulative, sorting),
    "rearrange": (shape, joining, indexing, sorting, creation, reduction),
}

MOVED_OUT = {
    shape: {
        joining: "_join cat concat concatenate stack hstack vstack atleast_1d atleast_2d unbind split chunk "
                 "tensor_split",
        conversion: "clone contiguous to _TYPE_NAMES type_ type_as copy_ _size_mismatch _value_tensor",
        subscript: "_is_advanced _expand_key _int_index getitem _keeps_all _index_arrays _advanced_getitem "
                   "_broadcast_value setitem _selects_all _broadcast_check masked_fill _index_put_dtype index_put",
        indexing: "nonzero argwhere",
    },
    creation: {
        random: "Generator _split default_generator manual_seed seed initial_seed get_rng_state set_rng_state _key "
                "_float_dtype rand randn randint randperm rand_like randn_like normal bernoulli multinomial",
    },
}


def install():
    """Register the former modules and give ``shape``/``creation`` back the names that moved out."""
    package = sys.modules[__package__]
    for name, topics in FORMER.items():
        module = types.ModuleType(f"{__package__}.{name}", f"The former ``_api.{name}`` (see ``former_modules``).")
        for topic in reversed(topics):
            module.__dict__.update({k: v for k, v in vars(topic).items() if not k.startswith("__")})
        sys.modules[module.__name__] = module
        setattr(package, name, module)
    for module, moved in MOVED_OUT.items():
        for topic, names in moved.items():
            for name in names.split():
                setattr(module, name, getattr(topic, name))
