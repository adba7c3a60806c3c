"""PyTorch's per-op rules for ``out=``: the ops whose ``out=`` must have the result's own dtype
(and the message each raises), the ops whose ``out=`` may share no memory with an input, and
those whose ``out=`` is a list of tensors.

Most of PyTorch's elementwise ops write their result into an ``out=`` of any dtype it can be
cast to (``torch.add(a, b, out=float64_tensor)``); the ops below refuse any dtype but the
result's (each output's, for a tuple), each with its own message, observed by running
PyTorch 2.13. Placeholders: ``{want}``/``{got}`` are the dtypes as ScalarType names
(``Float``), ``{want_c}``/``{got_c}`` as C type names (``float``, ``long int``).
"""

from .._tensor.tensor import _C_TYPE

_BY_MESSAGE = {
    'Found dtype {got} but expected {want}': (
        'abs', 'ceil', 'conj_physical', 'frac', 'floor', 'neg', 'round', 'sign', 'sgn', 'trunc', 'fft.ifft',
        'fft.ihfft',
    ),
    'dtype {want} does not match dtype of out parameter ({got})': (
        'arange', 'linspace', 'logspace', 'randn', 'ones', 'zeros', 'full', 'empty', 'eye',
    ),
    'Expected out tensor to have dtype {want_c}, but got {got_c} instead': (
        '_reshape_alias_copy', 'addmm', 'addmv', 'baddbmm', 'bmm', 'cross', 'expand_copy', 'diag', 'diagonal_copy',
        'alias_copy', 'isin',
        'lu_unpack', 'lu_solve', 'max', 'min',
        'softmax', 'aminmax', 'as_strided_copy', 'topk', 'mm', 'view_copy',
        'permute_copy', 'qr', 'split_with_sizes_copy', 'slice_scatter', 'triangular_solve', 'svd', 'gather',
        'index_copy', 'index_add', 'index_reduce', 'sort', 'scatter', 'scatter_add', 'unbind_copy', 'unfold_copy',
        'msort', 'renorm', 'squeeze_copy', 'take_along_dim', 'unsqueeze_copy', 'transpose_copy', 'tril', 'triu',
        'log_softmax', 'norm', 't_copy', 'argmax', 'argmin', 'scatter_reduce', 'linalg.cross', 'linalg.det',
        'linalg.cholesky', 'linalg.cholesky_ex', 'linalg.eigh', 'linalg.eigvalsh', 'linalg.ldl_factor',
        'linalg.ldl_factor_ex', 'linalg.ldl_solve', 'linalg.qr', 'linalg.slogdet', 'linalg.vector_norm',
        'linalg.lu_factor', 'linalg.lu_factor_ex', 'linalg.lu', 'linalg.lu_solve', 'linalg.inv', 'linalg.inv_ex',
        'linalg.solve', 'linalg.solve_ex', 'linalg.svd', 'linalg.svdvals',
    ),
    'self and mat2 must have the same dtype, but got {got} and {want}': (
        'addbmm',
    ),
    'result dtype {got} does not match input dtype {want}': (
        'dot', 'vdot',
    ),
    'addmv input tensors must have the same dtype, but got {got}, {want}, and {want}': (
        'mv',
    ),
    "Expected object of scalar type {want} but got scalar type {got} for argument 'out'": (
        'complex', 'polar',
    ),
    'expected scalar_type {want} but found {got}': (
        'cummax', 'cummin', 'diff', 'logcumsumexp',
    ),
    'torch.frexp() expects mantissa to have dtype {want_c} but got {got_c}': (
        'frexp',
    ),
    'output values must be of same type as input': (
        'kthvalue',
    ),
    'masked_select(): self and result must have the same scalar type': (
        'masked_select',
    ),
    'quantile() out tensor must be same dtype as the input tensor': (
        'quantile', 'nanquantile',
    ),
    'heaviside is not yet implemented for tensors with different dtypes.': (
        'heaviside',
    ),
    'expected scalar type {want} but found {got}': (
        'native_batch_norm', 'linalg.solve_triangular',
    ),
    "expected scalar type '{want}' but got '{got}' for values output": (
        'mode',
    ),
    'Expected self.dtype() == output.dtype() to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)': (
        'narrow_copy',
    ),
    'torch.ormqr: Expected input and result to have the same dtype, but input has dtype{want} and result has dtype {got}': (
        'ormqr',
    ),
    "the output given to float_power has dtype {got} but the operation's result requires dtype {want}": (
        'float_power',
    ),
    'signbit does not support non-boolean outputs.': (
        'signbit',
    ),
    'nan_to_num: dtype of out: {got} should be same as input: {want}': (
        'nan_to_num',
    ),
    'isposinf does not support non-boolean outputs.': (
        'isposinf',
    ),
    'isneginf does not support non-boolean outputs.': (
        'isneginf',
    ),
    'index_select(): self and result must have the same scalar type': (
        'index_select',
    ),
    'take(): self and out expected to have the same dtype, but got self.dtype = {want} and out.dtype = {got}': (
        'take',
    ),
    'multinomial expects {want} tensor out, got: {got}': (
        'multinomial',
    ),
    'torch.histogram: input tensor and hist tensor should have the same dtype, but got input {want_c} and hist {got_c}': (
        'histogram', 'histc',
    ),
    "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or {want}(int64) depending on whether out_int32 flag is True, but we got output tensor's dtype {got} and out_int32 flag is False": (
        'bucketize', 'searchsorted',
    ),
    'tensordot: Expected the output tensor to have dtype {want}, but got an output tensor with dtype {got}': (
        'inner', 'tensordot',
    ),
    'Expected out type to be {want} but got {got}': (
        'where',
    ),
    'nonzero: Expected out tensor to have scalar type {want} but got scalar type{got}': (
        'nonzero',
    ),
    "Expected the dtype for input and out to match, but got {want} for input's dtype and {got} for out's dtype.": (
        'amax', 'amin',
    ),
    'linalg.vecdot: Expected out of dtype{want} but found {got}': (
        'linalg.vecdot',
    ),
    'multi_dot(): expected out tensor to have dtype {want_c} but got {got_c}': (
        'linalg.multi_dot',
    ),
    'linalg.norm expected out tensor dtype {want} but got: {got}': (
        'linalg.norm',
    ),
    'linalg.matrix_norm expected out tensor dtype {want} but got: {got}': (
        'linalg.matrix_norm',
    ),
}

EXACT = {name: message for message, names in _BY_MESSAGE.items() for name in names}
# matmul raises the message of the kernel its operands' ranks pick: dot, mv, or mm
EXACT["matmul"] = None
_MATMUL = {(1, 1): EXACT["dot"], (2, 1): EXACT["mv"]}
# only their ``dim`` overloads, which return (values, indices): ``torch.max(a, b, out=...)`` casts
_TUPLE_ONLY = {"max", "min"}


# ops that read their inputs while writing: ``out=`` may not even be one of them (``torch.cat((a, b),
# out=a)``); the elementwise ops allow an ``out=`` that is exactly an input
NO_OVERLAP = {"cat", "concat", "concatenate", "cross", "linalg.cross", "gather", "index_select", "masked_select",
              "take", "take_along_dim"}

# ops whose ``out=`` may be bool or uint8, whatever their result's dtype (uint8 for a uint8 input),
# and nothing else (its own RuntimeError)
BOOL_OR_BYTE = {"all", "any"}

# ops whose ``out=`` is PyTorch's ``Tensor(a!)[] out`` (a list of any length), with the start of
# the RuntimeError its count check raises: they return None, and write without a graph (an input
# that requires grad is allowed). ``split_copy`` copies each piece in (``copy_``: broadcast to
# the out tensor's shape, any dtype, no resize); the others resize with the dtype rule above.
TENSOR_LISTS = {"split_copy": "split_copy_Tensor_out()", "split_with_sizes_copy": "split_with_sizes_copy_out",
                "unbind_copy": "unbind_copy_int_out"}
COPIED_IN = {"split_copy"}
# of those, the ones that refuse an out tensor that requires grad
REFUSE_OUT_REQUIRING_GRAD = {"unbind_copy"}


def check(name, result, out, in_tuple, inputs):
    """PyTorch's RuntimeError where ``name`` takes only its result's dtype as ``out=``."""
    if name in BOOL_OR_BYTE:
        if out.dtype.name not in ("bool", "uint8"):
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {out.dtype.c_name}")
        return
    message = EXACT.get(name)
    if name == "matmul":
        ranks = tuple(t.ndim for t in inputs[:2])
        message = _MATMUL.get(ranks, EXACT["mm"])
    if message is not None and out.dtype is not result.dtype and (in_tuple or name not in _TUPLE_ONLY):
        raise RuntimeError(message.format(want=result.dtype.c_name, got=out.dtype.c_name,
                                          want_c=_C_TYPE[result.dtype.name], got_c=_C_TYPE[out.dtype.name]))
