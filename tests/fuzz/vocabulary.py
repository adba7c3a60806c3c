"""The op-table rows the fuzzer calls, as source templates.

A row's ``call`` is a lambda over a module (``lambda m, x, y: m.atan2(x, y)``). Calling it
with ``Source`` stand-ins records the call as text (``torch.atan2(A, B)``), which the fuzzer
fills with the names of its tensors. Rows whose samples show that any shape is accepted (the
unary rows) or any broadcasting pair (the binary rows) join the vocabulary; a row whose call
cannot be written as one expression (control flow on values, statements) is left out.

>>> template(lambda m, x, y: m.clamp(x, min=y) ** 2, 2)
'(torch.clamp(__A__, min=__B__) ** 2)'
"""

import math

import op_table as T

# the sample functions that say "any shape" and "any broadcasting pair (maybe a Python number)"
UNARY_SAMPLES = (T.unary_samples, T.dim_samples)
PAIR_SAMPLES = (T.compare_samples, T.same_dtype_samples, T.pair_samples)
SCALAR_PAIR_SAMPLES = (T.binary_samples, T.scalar_compare_samples, T.integral_samples, T.pow_tensor_samples,
                       T.scalar_pair_samples)
PLACEHOLDERS = ("__A__", "__B__")


class Unrecordable(Exception):
    """The call does something a single expression cannot say."""


class Source:
    """Stands in for a module, tensor or value while a call is recorded; holds its source text."""

    __hash__ = object.__hash__

    def __init__(self, text):
        self.text = text

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Source(f"{self.text}.{name}")

    def __call__(self, *args, **kwargs):
        parts = [render(a) for a in args] + [f"{k}={render(v)}" for k, v in kwargs.items()]
        return Source(f"{self.text}({', '.join(parts)})")

    def __getitem__(self, key):
        return Source(f"{self.text}[{render_index(key)}]")

    def __setitem__(self, key, value):
        raise Unrecordable("a statement")

    def __bool__(self):
        raise Unrecordable("control flow on a value")

    def __iter__(self):
        raise Unrecordable("iteration over a value")

    def __neg__(self):
        return Source(f"(-{self.text})")

    def __invert__(self):
        return Source(f"(~{self.text})")


def _binary(symbol):
    def forward(self, other):
        return Source(f"({self.text} {symbol} {render(other)})")

    def reflected(self, other):
        return Source(f"({render(other)} {symbol} {self.text})")
    return forward, reflected


for _name, _symbol in [("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"),
                       ("mod", "%"), ("pow", "**"), ("matmul", "@"), ("and", "&"), ("or", "|"), ("xor", "^"),
                       ("lshift", "<<"), ("rshift", ">>")]:
    _forward, _reflected = _binary(_symbol)
    setattr(Source, f"__{_name}__", _forward)
    setattr(Source, f"__r{_name}__", _reflected)
for _name, _symbol in [("lt", "<"), ("le", "<="), ("gt", ">"), ("ge", ">="), ("eq", "=="), ("ne", "!=")]:
    setattr(Source, f"__{_name}__", _binary(_symbol)[0])


def render(value):
    """Python source for a value (a recorded ``Source``, a number, a list of them, ...)."""
    if isinstance(value, Source):
        return value.text
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(render(v) for v in value) + "]"
    if isinstance(value, tuple):
        inner = ", ".join(render(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    raise Unrecordable(f"a {type(value).__name__} argument")


def render_index(key):
    """Source for a subscript key: ``0, 1:, ..., None``."""
    if isinstance(key, tuple):
        return ", ".join(render_index(k) for k in key) if key else "()"
    if isinstance(key, slice):
        parts = ["" if p is None else render(p) for p in (key.start, key.stop, key.step)]
        return ":".join(parts[:2]) if key.step is None else ":".join(parts)
    if key is Ellipsis:
        return "..."
    return render(key)


def template(call, arity):
    """The call as text over the placeholders ``__A__`` (and ``__B__``); raises Unrecordable."""
    out = call(Source("torch"), *[Source(p) for p in PLACEHOLDERS[:arity]])
    if not isinstance(out, Source):
        raise Unrecordable("not a single expression")
    return out.text


class Row:
    """One op-table row in the vocabulary: its name, template, dtypes and whether its second
    operand may be a Python number."""

    def __init__(self, row, arity, text, scalar_other=False):
        self.name = row.name
        self.arity = arity
        self.text = text
        self.dtypes = row.dtypes
        self.scalar_other = scalar_other

    def __repr__(self):
        return f"<row {self.name}: {self.text}>"

    def fill(self, *operands):
        """The template with the operands' source text in place of the placeholders."""
        out = self.text
        for placeholder, operand in zip(PLACEHOLDERS, operands):
            out = out.replace(placeholder, operand)
        return out


def rows(table=None):
    """``(unary, binary)``: the vocabulary's rows from the op table."""
    unary, binary = [], []
    for row in table or T.OPS:
        if row.samples in UNARY_SAMPLES:
            arity, scalar = 1, False
        elif row.samples in PAIR_SAMPLES + SCALAR_PAIR_SAMPLES:
            arity, scalar = 2, row.samples in SCALAR_PAIR_SAMPLES
        else:
            continue
        try:
            text = template(row.call, arity)
        except Unrecordable:
            continue
        if not all(p in text for p in PLACEHOLDERS[:arity]):
            continue
        (unary if arity == 1 else binary).append(Row(row, arity, text, scalar))
    return unary, binary
