"""Run a program's source lines in one library, observe everything, compare two runs.

After each line the interpreter records, for every name ``t<n>``: dtype, shape,
``requires_grad``, ``is_leaf``, the ``grad_fn`` class name, ``_version`` (see
``version_baseline``), ``retains_grad`` and
the ``.grad`` (all of that but its version) of leaves and retaining tensors; values too after the last line (or after every
line, when the program asks). It also records the exception a line raised (its builtin type)
and the warning categories. ``compare`` finds the first difference; ``shrink`` removes lines
while the same kind of difference remains.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from op_checks import _builtin_type, numpy_of

# (rtol, atol); atol is scaled by the largest magnitude in the expected array (values that went
# through a chain of float32 ops differ from PyTorch's by a few ulps of their inputs). float64's
# allows float32's last ulp: programs mix dtypes, and a float32 value promoted into a float64
# result keeps its float32 rounding (XLA's sin and PyTorch's may differ there by one ulp)
TOL = {"float16": (1e-2, 1e-3), "bfloat16": (1e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-6, 1e-8)}
END = "# (after the last line)"


@dataclass
class Step:
    line: str
    error: tuple    # (builtin type name, "Type: message") or None
    warnings: tuple
    state: dict     # name -> observation


class Interpreter:
    """Runs source lines in a namespace where ``torch`` is ``module``."""

    def __init__(self, module, values_each_line=False):
        self.module = module
        self.ns = {"torch": module}
        self.values_each_line = values_each_line
        self.steps = []
        self.baselines = {}

    def step(self, line):
        """Run one line; returns its error (or None)."""
        error = None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                exec(line, self.ns)  # noqa: S102 - the fuzzer's own generated source
            except Exception as e:  # noqa: BLE001 - the exception is part of what is compared
                error = (_builtin_type(type(e)).__name__, f"{type(e).__name__}: {e}")
            state = self.observe(self.values_each_line or error is not None)
        self.steps.append(Step(line, error, tuple(sorted({w.category.__name__ for w in caught})), state))
        return error

    def finish(self):
        """The last observation, with values; returns the steps."""
        if not self.steps or self.steps[-1].error is None:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                state = self.observe(True)
            self.steps.append(Step(END, None, tuple(sorted({w.category.__name__ for w in caught})), state))
        return self.steps

    def observe(self, values):
        return {name: self.describe(v, values, name) for name, v in self.ns.items()
                if name[0] == "t" and name[1:].isdigit()}

    def describe(self, v, values, name=None):
        """What is compared of a value; ``name`` is given for a named value (not a ``.grad``)."""
        nested = name is not None
        if isinstance(v, self.module.Tensor):
            d = {"dtype": str(v.dtype), "shape": tuple(v.shape)}
            for attribute in ("requires_grad", "is_leaf", "grad_fn", "retains_grad"):
                d[attribute] = read(v, attribute)
            # a .grad's version counts PyTorch's internal writes (the first accumulation is
            # one), which no program can rely on
            if nested:
                d["version"] = v._version - self.version_baseline(name, v)
            if nested and (d["is_leaf"] is True or d["retains_grad"] is True):
                d["grad"] = None if v.grad is None else self.describe(v.grad, values)
            if values:
                d["values"] = numpy_of(v).copy()  # numpy() may share the tensor's memory
            return d
        if isinstance(v, (tuple, list)):
            return [self.describe(x, values, name and f"{name}[{i}]") for i, x in enumerate(v)]
        return repr(v)

    def version_baseline(self, name, t):
        """Versions are compared from a tensor's first observed version: PyTorch's composite ops
        return outputs they wrote in place (``isclose``'s is at version 1), which no program can
        rely on. A view counts from its base's baseline, so that it shares the base's count."""
        if name not in self.baselines:
            base = t._base if t._base is not None else t
            if id(base) not in self.baselines:
                self.baselines[id(base)] = (base._version, base)  # the tensor keeps its id unique
            self.baselines[name] = self.baselines[id(base)][0]
        return self.baselines[name]


def read(t, attribute):
    """``t.<attribute>`` (a ``grad_fn`` as its class name), or ``"raises <type>"``: PyTorch
    refuses to read ``grad_fn`` and ``is_leaf`` of a view made in no_grad mode whose base was then
    written with grad mode on."""
    try:
        value = getattr(t, attribute)
    except Exception as e:  # noqa: BLE001 - the error is what is observed
        return f"raises {_builtin_type(type(e)).__name__}"
    if attribute == "grad_fn":
        return None if value is None else type(value).__name__
    return value


def run(module, lines, values_each_line=False):
    """All of ``lines`` in a fresh namespace (stopping at the first error); the steps."""
    interpreter = Interpreter(module, values_each_line)
    for line in lines:
        if interpreter.step(line) is not None:
            break
    return interpreter.finish()


# ====================================================================== comparing

@dataclass
class Finding:
    """The first difference between tensorgrad's run and PyTorch's."""

    step: int
    line: str
    name: str
    field: str      # error, warning, names, kind, dtype, ..., values, grad (None or not), grad.values, ...
    ours: str
    theirs: str
    nan_differs: bool = False

    @property
    def signature(self):
        """What kind of difference, without names (which shrinking renumbers)."""
        if self.field == "error":
            return ("error", (self.ours or "").split(":")[0], (self.theirs or "").split(":")[0])
        return (self.field, self.nan_differs)

    def describe(self):
        where = f"{self.name}: " if self.name else ""
        return f"{where}{self.field}: tensorgrad {self.ours} | torch {self.theirs}"


def close(ours, theirs, dtype):
    """``(equal within tolerance, NaN positions differ)`` for two numpy arrays."""
    if ours.shape != theirs.shape:
        return False, False
    if ours.dtype.kind not in "fc":
        return bool(np.array_equal(ours, theirs)), False
    if "c" in (ours.dtype.kind, theirs.dtype.kind):   # complex: real and imaginary parts, each
        ours, theirs = (np.stack([np.real(a), np.imag(a)], -1) for a in (ours, theirs))
    ours, theirs = ours.astype(np.float64), theirs.astype(np.float64)
    if not np.array_equal(np.isnan(ours), np.isnan(theirs)):
        return False, True
    finite = np.isfinite(theirs)
    if not np.array_equal(ours[~finite], theirs[~finite], equal_nan=True):
        return False, False
    rtol, atol = TOL.get(dtype.removeprefix("torch."), (0, 0))
    expected = theirs[finite]
    scale = max(1.0, float(np.abs(expected).max())) if expected.size else 1.0
    return bool(np.allclose(ours[finite], expected, rtol=rtol, atol=atol * scale)), False


def _show(value):
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=6, threshold=20).replace("\n", "")
    return repr(value)


def compare_observations(ours, theirs, prefix=""):
    """The first difference between two ``describe`` results: ``(field, ours, theirs, nan)``;
    the fields of a ``.grad`` are named ``grad.values``, ``grad.dtype``, ..."""
    if type(ours) is not type(theirs):
        return (prefix + "kind", _show(ours), _show(theirs), False)
    if isinstance(theirs, list):
        if len(ours) != len(theirs):
            return (prefix + "kind", f"{len(ours)} items", f"{len(theirs)} items", False)
        for o, t in zip(ours, theirs):
            found = compare_observations(o, t, prefix)
            if found:
                return found
        return None
    if not isinstance(theirs, dict):
        return None if ours == theirs else (prefix + "value", ours, theirs, False)
    for key, expected in theirs.items():
        got = ours.get(key, "<missing>")
        if key == "values":
            ok, nan = close(got, expected, theirs["dtype"])
            if not ok:
                return (prefix + "values", _show(got), _show(expected), nan)
        elif key == "grad" and got is not None and expected is not None:
            found = compare_observations(got, expected, "grad.")
            if found:
                return found
        elif got != expected:
            return (prefix + key, _show(got), _show(expected), False)
    return None


def compare(ours, theirs):
    """The first difference between two runs' steps, or None."""
    for i, (o, t) in enumerate(zip(ours, theirs)):
        if (o.error is None) != (t.error is None) or (o.error and o.error[0] != t.error[0]):
            return Finding(i, t.line, "", "error", o.error and o.error[1], t.error and t.error[1])
        if o.warnings != t.warnings:
            return Finding(i, t.line, "", "warning", _show(o.warnings), _show(t.warnings))
        if set(o.state) != set(t.state):
            return Finding(i, t.line, "", "names", _show(sorted(o.state)), _show(sorted(t.state)))
        for name, expected in t.state.items():
            found = compare_observations(o.state[name], expected)
            if found:
                return Finding(i, t.line, name, *found)
    if len(ours) != len(theirs):
        return Finding(min(len(ours), len(theirs)), "", "", "steps", str(len(ours)), str(len(theirs)))
    return None


def check(tensorgrad, torch, lines, values_each_line=False):
    """Run ``lines`` in both libraries; the first difference, or None."""
    return compare(run(tensorgrad, lines, values_each_line), run(torch, lines, values_each_line))


def shrink(tensorgrad, torch, lines, finding, values_each_line=False):
    """Remove lines while a difference of the same kind remains; ``(lines, finding)``."""
    changed = True
    while changed:
        changed = False
        for i in reversed(range(len(lines))):
            candidate = lines[:i] + lines[i + 1:]
            found = check(tensorgrad, torch, candidate, values_each_line)
            if found is not None and found.signature == finding.signature:
                lines, finding, changed = candidate, found, True
    return lines, finding


def report(lines, finding):
    """The program as Python source (runs under ``import torch`` and ``import tensorgrad as
    torch``), with the difference as a comment."""
    where = "after the last line" if finding.line == END else f"at line {finding.step + 1}"
    return "\n".join(lines) + f"\n# differs {where}: {finding.describe()}"
