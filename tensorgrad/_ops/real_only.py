"""PyTorch's error for a complex input of each op that has no complex kernel.

The registry gives each op its entry (``OpDef.real_only``); dispatch raises it before running
the op on a complex array, where JAX would order complex numbers lexicographically.
"""


def _kernel(name):
    return (NotImplementedError, f'"{name}" not implemented for \'{{c}}\'')


_CLAMP = (NotImplementedError, "clamp is not supported for complex types")
_SORT = (RuntimeError, " Sort does not support complex dtypes on CPU")

# PyTorch's error for a complex input of each op that has no complex kernel
REAL_ONLY = {
    "lt": _kernel("lt_cpu"), "gt": _kernel("gt_cpu"), "le": _kernel("le_cpu"), "ge": _kernel("ge_cpu"),
    "max": _kernel("max_all"), "min": _kernel("min_all"),
    "max_dim": (RuntimeError, "max(): does not support complex input"),
    "min_dim": (RuntimeError, "min(): does not support complex input"),
    "amax": _kernel("max_values_cpu"), "amin": _kernel("min_values_cpu"), "aminmax": _kernel("aminmax_cpu"),
    "argmax": (RuntimeError, "argmax(): does not support complex input"),
    "argmin": (RuntimeError, "argmin(): does not support complex input"),
    "sort": _SORT, "sort_stable": _SORT, "argsort": _SORT,
    "topk": (RuntimeError, " topk does not support complex dtypes on CPU"),
    "clamp": _CLAMP, "clamp_tensor": _CLAMP, "clamp_min": _CLAMP, "clamp_max": _CLAMP,
    "clamp_min_tensor": _CLAMP, "clamp_max_tensor": _CLAMP, "relu": _CLAMP,
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "fmax": (RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (RuntimeError, "fmin not implemented for complex tensors."),
    "cummax": _kernel("cummax_cpu"), "cummin": _kernel("cummin_cpu"),
    "median": _kernel("median_cpu"), "nanmedian": _kernel("median_cpu"),
    "median_dim": _kernel("median_out"), "nanmedian_dim": _kernel("median_out"),
    "kthvalue": _kernel("kthvalue_cpu"), "mode": _kernel("mode_cpu"),
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "round": _kernel("round_vml_cpu"), "round_decimals": _kernel("round_cpu"), "frac": _kernel("frac_cpu"),
    "sign": (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex numbers. "
                                  "Please use torch.sgn instead."),
    "signbit": (NotImplementedError, "signbit is not implemented for complex tensors."),
    "remainder": _kernel("remainder_cpu"), "remainder_scalar": _kernel("remainder_cpu"),
    "fmod": _kernel("fmod_cpu"), "fmod_scalar": _kernel("fmod_cpu"),
    "div_floor": _kernel("div_floor_cpu"), "floor_divide": _kernel("div_floor_cpu"),
    "heaviside": (RuntimeError, "heaviside is not yet implemented for complex tensors."),
    "atan2": _kernel("atan2_cpu"), "hypot": _kernel("hypot_cpu"), "copysign": _kernel("copysign_cpu"),
    "copysign_scalar": _kernel("copysign_cpu"),
    "erf": _kernel("erf_vml_cpu"), "erfc": _kernel("erfc_vml_cpu"), "erfinv": _kernel("erfinv_vml_cpu"),
    "lgamma": _kernel("lgamma_vml_cpu"), "digamma": _kernel("digamma"),
    "gelu": _kernel("GeluKernelImpl"),
}
