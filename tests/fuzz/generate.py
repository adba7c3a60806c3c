"""Draw a random straight-line autograd program, one instruction at a time.

Every line is run in PyTorch as soon as it is drawn (``interpret.Interpreter``), so the next
instruction can look at the tensors that exist (shape, dtype, ``requires_grad``, strides) and
pick arguments that fit: broadcasting partners, valid dims and indices, writable targets.
A small share of the choices is deliberately invalid (a dim out of range, an incompatible
shape, a write into a leaf) so that both libraries must raise the same exception type; the first
line that raises ends the program.

Names: ``t<n>`` for tensors (and values), ``h<n>`` for hook handles. Every choice goes through
``Choices``, which draws from hypothesis so that a failing program shrinks.
"""

import numpy as np
from hypothesis import strategies as st

from oracle import torch

from fuzz import interpret, known, vocabulary

UNARY, BINARY = vocabulary.rows()
SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (3, 3), (2, 2, 3), (2, 1, 3), (3, 1), (0, 3)]
DTYPES = ["float32", "float32", "float32", "float64", "float64", "int64", "bool"]
FLOAT_SCALARS = [2, -1, 0.5, 1.5, -2.5, 3]
INT_SCALARS = [2, -1, 3, 0, 1]
# (method, takes a tuple of dims, must have a dim, returns (values, indices) when given a dim)
REDUCTIONS = [("sum", True, False, False), ("mean", True, False, False), ("prod", False, False, False),
              ("amax", True, False, False), ("amin", True, False, False), ("max", False, False, True),
              ("min", False, False, True), ("logsumexp", True, True, False), ("std", True, False, False),
              ("var", True, False, False), ("norm", True, False, False), ("argmax", False, False, False),
              ("cumsum", False, True, False), ("cumprod", False, True, False), ("softmax", False, True, False),
              ("log_softmax", False, True, False), ("all", False, False, False), ("any", False, False, False),
              ("median", False, False, True), ("nansum", True, False, False), ("count_nonzero", True, False, False)]
FLOAT_ONLY = {"mean", "logsumexp", "std", "var", "norm", "softmax", "log_softmax"}
NO_KEEPDIM = {"cumsum", "cumprod", "softmax", "log_softmax", "count_nonzero"}
HOOKS = ["lambda g: g * 2", "lambda g: g * 0.5", "lambda g: -g", "lambda g: g + 1", "lambda g: None"]
INPLACE_UNARY = ["zero_()", "neg_()", "exp_()", "sigmoid_()", "tanh_()", "abs_()", "relu_()", "pow_(2)",
                 "sqrt_()", "clamp_(-0.5, 1.0)", "clamp_(min=0.25)"]
INPLACE_SCALAR = ["add_", "sub_", "mul_", "div_", "fill_", "+=", "*=", "-="]
INPLACE_TENSOR = ["add_", "sub_", "mul_", "div_", "copy_", "+=", "*=", "lerp_", "addcmul_", "masked_fill_"]
GRAD_CONTEXTS = ["torch.no_grad()", "torch.no_grad()", "torch.set_grad_enabled(False)"]


class Choices:
    """Every random choice of a program, drawn from hypothesis's ``st.data()``."""

    def __init__(self, data):
        self.data = data

    def integer(self, lo, hi):
        return self.data.draw(st.integers(lo, hi))

    def pick(self, options):
        """One of ``options``; shrinks towards the first."""
        options = list(options)
        return options[self.integer(0, len(options) - 1)]

    def chance(self, percent):
        """True with ``percent`` % probability; shrinks towards False."""
        return self.integer(0, 99) >= 100 - percent


def literal(values):
    """Source for a nested list of Python numbers (``numpy.ndarray.tolist`` output)."""
    return repr(values).replace("nan", "float('nan')")


def broadcasts(a, b):
    try:
        np.broadcast_shapes(tuple(a), tuple(b))
    except ValueError:
        return False
    return True


def broadcasts_to(value_shape, target_shape):
    return broadcasts(value_shape, target_shape) and np.broadcast_shapes(
        tuple(value_shape), tuple(target_shape)) == tuple(target_shape)


def flag(t, attribute):
    """``t.<attribute> is True``; False where PyTorch refuses to read it (see ``interpret.read``)."""
    return interpret.read(t, attribute) is True


def shares_storage(x, y):
    """Two tensors over one storage (a view and its base, two views, a tensor and itself)."""
    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()


def overlaps_itself(t):
    """An expanded view: some element is reached by two indices (a zero stride on a dim > 1)."""
    return any(s == 0 and n > 1 for s, n in zip(t.stride(), t.shape))


class Generator:
    """Builds one program in ``interpreter`` (PyTorch) line by line."""

    def __init__(self, choices, interpreter):
        self.c = choices
        self.run = interpreter
        self.lines = []
        self.next_name = 0
        self.failed = False

    # ------------------------------------------------------------------ the pool
    @property
    def ns(self):
        return self.run.ns

    def name(self, prefix="t"):
        self.next_name += 1
        return f"{prefix}{self.next_name - 1}"

    def tensors(self, where=lambda t: True):
        return [n for n, v in self.ns.items() if n[0] == "t" and isinstance(v, torch.Tensor) and where(v)]

    def choose(self, where=lambda t: True):
        """A tensor's name, the recent ones twice as likely (which makes fan-in and chains)."""
        names = self.tensors(where)
        if not names:
            return None
        if self.c.chance(50):
            return self.c.pick(reversed(names[-3:]))
        return self.c.pick(names)

    def emit(self, lines):
        for line in lines:
            if self.failed:
                return
            self.lines.append(line)
            self.failed = self.run.step(line) is not None

    def probe(self, expr):
        """The value of a side-effect-free expression in PyTorch, or None if it raises."""
        try:
            return eval(expr, self.ns)  # noqa: S307 - the fuzzer's own generated source
        except Exception:  # noqa: BLE001 - an invalid choice; the line will show the error
            return None

    # ------------------------------------------------------------------ values
    def scalar(self, dtype):
        if dtype == torch.bool:
            return self.c.pick(["True", "False"])
        if dtype.is_floating_point:
            return repr(self.c.pick(FLOAT_SCALARS))
        return repr(self.c.pick(INT_SCALARS))

    def values(self, shape, dtype):
        """A nested list literal of ``shape``: distinct-ish floats, or (grid) ties and zeros."""
        rng = np.random.default_rng(self.c.integer(0, 2**16))
        if dtype == "bool":
            array = rng.random(shape) < 0.5
        elif dtype == "int64":
            array = rng.integers(-3, 4, shape)
        elif self.c.chance(30):  # a grid: ties and zeros (kinks of abs, max, ...)
            array = rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0, 2.0], shape)
        else:
            array = np.array(np.round(rng.uniform(-2.0, 2.0, shape), 2))
            array[np.abs(array) < 0.05] = 0.75
        return literal(array.tolist())

    def leaf(self, shape=None, dtype=None, requires_grad=None):
        shape = self.c.pick(SHAPES) if shape is None else shape
        dtype = self.c.pick(DTYPES) if dtype is None else dtype
        if requires_grad is None:
            requires_grad = dtype.startswith("float") and self.c.chance(70)
        grad = ", requires_grad=True" if requires_grad else ""
        if 0 in shape:
            return [f"{self.name()} = torch.zeros({shape}, dtype=torch.{dtype}{grad})"]
        return [f"{self.name()} = torch.tensor({self.values(shape, dtype)}, dtype=torch.{dtype}{grad})"]

    def cotangent(self, t):
        """A fixed, exactly representable gradient for ``t``."""
        if not t.numel():
            return f"torch.zeros({tuple(t.shape)}, dtype={t.dtype})"
        flat = [(i % 5) * 0.5 - 1.0 for i in range(t.numel())]
        return f"torch.tensor({literal(np.reshape(flat, tuple(t.shape)).tolist())}, dtype={t.dtype})"

    # ------------------------------------------------------------------ ops
    def unary(self, no_grad=False):
        row = self.c.pick(UNARY)
        a = self.choose(lambda t: str(t.dtype)[6:] in row.dtypes or self.c.chance(3))
        if a is None:
            return None
        return [self.assign(row.fill(a))]

    def binary(self, no_grad=False):
        row = self.c.pick(BINARY)
        a = self.choose(lambda t: str(t.dtype)[6:] in row.dtypes)
        if a is None:
            return None
        shape = self.ns[a].shape
        if row.scalar_other and self.c.chance(20):
            b = self.scalar(self.ns[a].dtype)
        else:
            b = self.choose(lambda t: (str(t.dtype)[6:] in row.dtypes and broadcasts(t.shape, shape))
                            or self.c.chance(3))
            if b is None:
                return None
        if self.c.chance(30):
            a, b = b, a
        return [self.assign(row.fill(a, b))]

    def assign(self, expr):
        """``t<n> = expr``, or its values/first item when ``expr`` returns a tuple."""
        value = self.probe(expr)
        if isinstance(value, tuple) and value:
            expr = f"{expr}[{self.c.integer(0, len(value) - 1)}]"
        return f"{self.name()} = {expr}"

    def reduce(self, no_grad=False):
        method, tuples, needs_dim, pair = self.c.pick(REDUCTIONS)
        a = self.choose(lambda t: t.dtype.is_floating_point or method not in FLOAT_ONLY or self.c.chance(3))
        if a is None:
            return None
        nd = self.ns[a].dim()
        span = max(nd, 1)
        args = []
        has_dim = needs_dim or self.c.chance(60)
        if has_dim:
            if tuples and nd >= 2 and self.c.chance(30):
                args.append(f"dim=({self.c.integer(-nd, nd - 1)}, {self.c.integer(-nd, nd - 1)})")
            else:
                args.append(f"dim={self.c.integer(-span - self.c.chance(3), span - 1)}")
            if method not in NO_KEEPDIM and self.c.chance(40):
                args.append("keepdim=True")
        expr = f"{a}.{method}({', '.join(args)})"
        if pair and has_dim:
            expr += self.c.pick([".values", ".indices", "[0]"])
        return [f"{self.name()} = {expr}"]

    def matmul(self, no_grad=False):
        a = self.choose(lambda t: t.dtype.is_floating_point and t.dim() >= 1)
        if a is None:
            return None
        x = self.ns[a]
        partners = self.tensors(lambda t: t.dtype == x.dtype and self._matmul_ok(x, t))
        lines = []
        if partners and self.c.chance(60):
            b = self.c.pick(partners)
        else:
            n = x.shape[-1]
            lines = self.leaf(self.c.pick([(n,), (n, 2)]), str(x.dtype)[6:])
            b = f"t{self.next_name - 1}"
        forms = ["{a} @ {b}", "torch.matmul({a}, {b})", "{a}.matmul({b})"]
        if not lines and x.dim() == 2 and self.ns[b].dim() == 2:
            forms.append("torch.mm({a}, {b})")
        form = self.c.pick(forms)
        return lines + [f"{self.name()} = " + form.format(a=a, b=b)]

    @staticmethod
    def _matmul_ok(x, y):
        try:
            torch.matmul(torch.empty(x.shape, device="meta"), torch.empty(y.shape, device="meta"))
        except RuntimeError:
            return False
        return True

    def combine(self, no_grad=False):
        a = self.choose(lambda t: t.dim() >= 1)
        if a is None:
            return None
        x = self.ns[a]
        kind = self.c.pick(["cat", "stack", "where"])
        if kind == "where":
            c = self.choose(lambda t: broadcasts(t.shape, x.shape) and t.dtype != torch.bool)
            b = self.choose(lambda t: broadcasts(t.shape, x.shape))
            return [f"{self.name()} = torch.where({c} > 0, {a}, {b})"]
        same = (lambda t: t.shape == x.shape) if kind == "stack" else (
            lambda t: t.dim() == x.dim() and t.shape[1:] == x.shape[1:])
        b = self.choose(same) or a
        return [f"{self.name()} = torch.{kind}([{a}, {b}])"]

    # ------------------------------------------------------------------ views
    def view(self, no_grad=False):
        a = self.choose()
        if a is None:
            return None
        expr = self.view_expr(a, self.ns[a])
        return None if expr is None else [f"{self.name()} = {expr}"]

    def view_expr(self, a, t):
        shape, nd = tuple(t.shape), t.dim()
        kind = self.c.pick(["index", "index", "view", "reshape", "transpose", "permute", "expand", "squeeze",
                            "unsqueeze", "select", "narrow", "diagonal", "unbind", "split", "t", "flatten",
                            "contiguous", "clone", "mT"])
        dim = self.c.integer(-nd, nd - 1) if nd else None
        if kind == "index":
            return f"{a}[{self.index_key(a, t)}]"
        if kind in ("view", "reshape"):
            size = self.c.pick([(-1,), (t.numel(),)] + [s for s in SHAPES if int(np.prod(s)) == t.numel()])
            return f"{a}.{kind}({', '.join(map(str, size)) if size else '()'})"
        if kind == "transpose" and nd:
            return f"{a}.transpose({dim}, {self.c.integer(-nd, nd - 1)})"
        if kind == "permute" and nd:
            perm = np.random.default_rng(self.c.integer(0, 99)).permutation(nd)
            return f"{a}.permute({', '.join(map(str, perm))})"
        if kind == "expand":
            sizes = [self.c.pick([2, 3]) if n == 1 else n for n in shape]
            if self.c.chance(30) or not sizes:
                sizes = [2] + sizes
            return f"{a}.expand({', '.join(map(str, sizes))})"
        if kind == "squeeze":
            return f"{a}.squeeze({dim if dim is not None and self.c.chance(50) else ''})"
        if kind == "unsqueeze":
            return f"{a}.unsqueeze({self.c.integer(-nd - 1, nd)})"
        if kind == "select" and nd and shape[dim]:
            return f"{a}.select({dim}, {self.c.integer(-shape[dim], shape[dim] - 1)})"
        if kind == "narrow" and nd and shape[dim]:
            start = self.c.integer(0, shape[dim] - 1)
            return f"{a}.narrow({dim}, {start}, {self.c.integer(1, shape[dim] - start)})"
        if kind == "diagonal" and nd >= 2:
            return f"{a}.diagonal({self.c.integer(-1, 1)})"
        if kind in ("unbind", "split") and nd and shape[dim]:
            k = self.c.integer(0, shape[dim] - 1)
            return f"{a}.unbind({dim})[{k}]" if kind == "unbind" else f"{a}.split(1, dim={dim})[{k}]"
        if kind == "t" and nd <= 2:
            return f"{a}.t()"
        if kind == "mT" and nd >= 2:
            return f"{a}.mT"
        if kind in ("flatten", "contiguous", "clone"):
            return f"{a}.{kind}()"
        return f"{a}[...]"

    def index_key(self, a, t):
        """Source for a subscript of ``t``: ints, slices, None, ..., index tensors, lists, masks."""
        shape, nd = tuple(t.shape), t.dim()
        kind = self.c.pick(["int", "slice", "step", "int_slice", "ellipsis", "none", "tensor", "list", "mask",
                            "mask_literal", "bool"])
        if kind in ("mask", "bool") and not nd and known.avoid("bool_0d_index"):
            kind = "ellipsis"
        if kind == "bool" and known.avoid("bool_0d_index"):
            kind = "mask"
        if kind == "bool":
            return self.c.pick(["True", "False"])
        if kind == "mask" and t.dtype != torch.bool:
            return f"{a} > 0"
        if kind == "mask":
            return a
        if not nd:
            return self.c.pick(["...", "None", "()"])
        n = shape[0]
        if kind == "mask_literal":
            return f"torch.tensor({[bool(self.c.integer(0, 1)) for _ in range(n)]}, dtype=torch.bool)"
        i = self.c.integer(-n - self.c.chance(3), n - 1 + self.c.chance(3)) if n else 0
        j = self.c.integer(-n, n - 1) if n else 0
        if kind == "int":
            return str(i)
        if kind == "slice":
            return f"{j}:" if self.c.chance(50) else f":{j}"
        if kind == "step":
            return "::2"
        if kind == "int_slice" and nd >= 2:
            return f"{i}, 1:" if self.c.chance(50) else f":, {self.c.integer(-shape[1], shape[1] - 1) if shape[1] else 0}"
        if kind == "ellipsis":
            return f"..., {self.c.integer(-shape[-1], shape[-1] - 1) if shape[-1] else ':'}"
        if kind == "none":
            return f"None, {j}" if n else "None"
        if kind == "tensor":
            return f"torch.tensor([{i}, {j}])"
        if kind == "list":
            return f"[{j}, {i}]"
        return ":"

    # ------------------------------------------------------------------ in-place writes
    def writable(self, t, no_grad):
        """A target that PyTorch lets be written (mostly): not a leaf that requires grad (outside
        no_grad), nor a view of one; the known-bug avoidances apply."""
        if known.avoid("expanded_view_write") and overlaps_itself(t):
            return False
        if known.avoid("retain_grad_then_inplace") and (flag(t, "retains_grad") or (
                t._base is not None and flag(t._base, "retains_grad"))):
            return False
        if self.c.chance(4):
            return True
        if no_grad:
            return True
        base = t._base if t._base is not None else t
        return not (flag(base, "is_leaf") and base.requires_grad)

    def value_for(self, target_shape, target):
        """Source for a value to write into a region of ``target_shape``: a number, or a tensor
        that broadcasts to it and that ``target``'s dtype can take."""
        if self.c.chance(40):
            return self.scalar(target.dtype)

        def fits(v):
            if known.avoid("overlapping_inplace") and shares_storage(v, target):
                return False
            return (broadcasts_to(v.shape, target_shape) and torch.can_cast(v.dtype, target.dtype)) or self.c.chance(2)
        b = self.choose(fits)
        return self.scalar(target.dtype) if b is None else b

    def inplace(self, no_grad=False):
        a = self.choose(lambda t: self.writable(t, no_grad))
        if a is None:
            return None
        t = self.ns[a]
        kind = self.c.pick(["unary", "scalar", "tensor", "tensor"])
        if kind == "unary":
            return [f"{a}.{self.c.pick(INPLACE_UNARY)}"]
        if kind == "scalar":
            op = self.c.pick(INPLACE_SCALAR)
            value = self.scalar(t.dtype)
            return [f"{a} {op} {value}" if op.endswith("=") else f"{a}.{op}({value})"]
        op = self.c.pick(INPLACE_TENSOR)
        b = self.value_for(tuple(t.shape), t)
        if b[0] != "t" and op in ("copy_", "lerp_", "addcmul_"):
            op = "add_"
        if op.endswith("="):
            return [f"{a} {op} {b}"]
        if op == "lerp_":
            return [f"{a}.lerp_({b}, 0.5)"]
        if op == "addcmul_":
            return [f"{a}.addcmul_({b}, {b}, value=0.5)"]
        if op == "masked_fill_":
            mask = a if t.dtype == torch.bool else f"{a} > 0"
            return [f"{a}.masked_fill_({mask}, {self.scalar(t.dtype)})"]
        return [f"{a}.{op}({b})"]

    def setitem(self, no_grad=False):
        a = self.choose(lambda t: self.writable(t, no_grad))
        if a is None:
            return None
        t = self.ns[a]
        key = self.index_key(a, t)
        region = self.probe(f"{a}[{key}]")
        shape = tuple(region.shape) if isinstance(region, torch.Tensor) else tuple(t.shape)
        return [f"{a}[{key}] = {self.value_for(shape, t)}"]

    # ------------------------------------------------------------------ autograd
    def detach(self, no_grad=False):
        a = self.choose()
        if a is None:
            return None
        form = self.c.pick(["{a}.detach()", "{a}.data", "{a}.detach().requires_grad_()", "{a}.grad"])
        if form == "{a}.grad" and not (flag(self.ns[a], "is_leaf") or flag(self.ns[a], "retains_grad")):
            form = "{a}.detach()"
        if form.endswith("requires_grad_()") and not self.ns[a].dtype.is_floating_point:
            form = "{a}.data"
        return [f"{self.name()} = " + form.format(a=a)]

    def no_grad(self, no_grad=False):
        kind = self.c.pick(["unary", "binary", "view", "inplace", "setitem", "reduce", "detach", "matmul"])
        body = getattr(self, kind)(no_grad=True)
        if not body:
            return None
        context = self.c.pick(GRAD_CONTEXTS)
        if self.c.chance(10):
            body = ["with torch.enable_grad():\n    " + "\n    ".join(body)]
        return [f"with {context}:\n    " + "\n    ".join(line.replace("\n", "\n    ") for line in body)]

    def retain_grad(self, no_grad=False):
        a = self.choose(lambda t: t.requires_grad or self.c.chance(3))
        return None if a is None else [f"{a}.retain_grad()"]

    def hook(self, no_grad=False):
        a = self.choose(lambda t: t.requires_grad or self.c.chance(3))
        if a is None:
            return None
        return [f"{self.name('h')} = {a}.register_hook({self.c.pick(HOOKS)})"]

    def remove_hook(self, no_grad=False):
        handles = [n for n in self.ns if n[0] == "h"]
        return [f"{self.c.pick(handles)}.remove()"] if handles else None

    def backward(self, no_grad=False):
        a = self.choose(lambda t: t.requires_grad or self.c.chance(2))
        if a is None:
            return None
        t = self.ns[a]
        retain = ", retain_graph=True" if self.c.chance(70) else ""
        if self.c.chance(15):  # gradients that are themselves differentiable (a double backward)
            retain += ", create_graph=True"
        if self.c.chance(15):
            inputs = self.choose(lambda x: x.requires_grad)
            retain += f", inputs=[{inputs}]" if inputs else ""
        form = self.c.pick(["sum", "cotangent", "implicit"])
        if form == "implicit" and t.numel() == 1 and t.dim() == 0:
            return [f"{a}.backward({retain[2:]})"]
        if form == "cotangent" and t.dtype.is_floating_point:
            return [f"{a}.backward({self.cotangent(t)}{retain})"]
        return [f"{a}.sum().backward({retain[2:]})"]

    def grad(self, no_grad=False):
        a = self.choose(lambda t: t.requires_grad)
        if a is None:
            return None
        t = self.ns[a]
        inputs = sorted({self.choose(lambda x: x.requires_grad) for _ in range(self.c.integer(1, 2))})
        options = ""
        if self.c.chance(50):
            options += ", create_graph=True"
        if self.c.chance(50):
            options += ", retain_graph=True"
        if self.c.chance(60):
            options += ", allow_unused=True"
        targets = ", ".join(self.name() for _ in inputs) + ("," if len(inputs) == 1 else "")
        cotangent = "" if t.dim() == 0 and self.c.chance(50) else f", {self.cotangent(t)}"
        return [f"{targets} = torch.autograd.grad({a}, [{', '.join(inputs)}]{cotangent}{options})"]

    def zero_grad(self, no_grad=False):
        a = self.choose(lambda t: flag(t, "is_leaf") and t.grad is not None)
        if a is None:
            return None
        return [f"{a}.grad = None" if self.c.chance(50) else f"{a}.grad.zero_()"]


# kinds, each as often as it is listed; the first is what a shrunk program prefers
KINDS = ["leaf", "unary", "unary", "unary", "binary", "binary", "binary", "binary", "reduce", "reduce", "matmul",
         "view", "view", "view", "view", "inplace", "inplace", "inplace", "setitem", "setitem", "setitem", "detach",
         "no_grad", "no_grad", "retain_grad", "hook", "remove_hook", "backward", "backward", "backward", "grad",
         "grad", "zero_grad", "combine"]


def draw(choices, interpreter, max_steps):
    """Draw and run (in ``interpreter``) one program; returns its lines."""
    gen = Generator(choices, interpreter)
    for _ in range(choices.integer(1, 3)):
        gen.emit(gen.leaf())
    for _ in range(choices.integer(1, max_steps)):
        if gen.failed:
            break
        kind = choices.pick(KINDS)
        lines = gen.leaf() if kind == "leaf" else getattr(gen, kind)()
        if lines:
            gen.emit(lines)
    return gen.lines
