"""Aliasing and in-place writes against PyTorch: 0-d boolean and integer indices, retain_grad and
hooks across an in-place op, writes through expanded views, overlapping in-place writes, and the
checks PyTorch makes on what a hook returns.

Each case is a snippet run on ``tensorgrad`` and on ``torch``; everything it prints, the
warnings it raises and the exception it ends with must be the same (issue #11).
"""

import contextlib
import io
import re
import textwrap
import warnings

import pytest

import tensorgrad

from oracle import _oracle, torch  # noqa: F401  (the autouse fixture that skips without PyTorch)


def _attempt(src, namespace):
    """Run ``src`` in the snippet's namespace; print the error it raises (the snippets' helper)."""
    try:
        exec(src, namespace)
    except (RuntimeError, TypeError, IndexError) as err:
        print(src, "->", type(err).__name__, err)


def _run(module, src):
    """Run ``src`` with ``torch`` bound to ``module``: what it printed, its warnings, its exception."""
    out = io.StringIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with contextlib.redirect_stdout(out):
                exec(textwrap.dedent(src), {"torch": module, "F": module.nn.functional, "attempt": _attempt})
        except Exception as e:  # noqa: BLE001 - the exception is part of the observed behaviour
            out.write(f"{type(e).__name__}: {e}\n")
    for w in caught:
        out.write(f"warning {w.category.__name__}: {w.message}\n")
    return re.sub(r"0x[0-9a-fA-F]+", "0x...", out.getvalue())


def _check(src):
    ours = _run(tensorgrad, src)
    theirs = _run(torch, src)
    assert ours == theirs, f"\n--- tensorgrad:\n{ours}--- torch:\n{theirs}"


# ====================================================================== 0-d boolean and integer indices

ZERO_DIM_INDEX = {
    "bool_tensor_true_takes_all": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = x[x.sum() > 0]
        print(y.shape, y)
        y.sum().backward()
        print(x.grad)
    """,
    "bool_tensor_false_takes_none": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = x[torch.tensor(False)]
        print(y.shape, y)
        y.sum().backward()
        print(x.grad)
    """,
    "bool_mixed_with_other_parts": """
        x = torch.tensor([[1., 2.], [3., 4.]])
        print(x[torch.tensor(True), 0], x[0, torch.tensor(True)], x[torch.tensor(False), 1].shape)
        print(x[torch.tensor(True), torch.tensor([1, 0])])
        print(x[torch.tensor(True), ..., None].shape, x[None, torch.tensor(True)].shape, x[:, torch.tensor(True)].shape)
        print(x[torch.tensor(True), torch.tensor(False)].shape)
        print(x[True].shape, x[False].shape, x[True, 0], x[torch.tensor(True), True].shape)
        print(x[torch.tensor(True, dtype=torch.uint8)].shape, x[torch.tensor(0, dtype=torch.uint8)].shape)
    """,
    "bool_index_of_0d_tensor": """
        x = torch.tensor(3.)
        print(x[torch.tensor(True)], x[torch.tensor(False)].shape, x[True].shape)
    """,
    "bool_index_gradient": """
        x = torch.arange(6.).view(3, 2).requires_grad_()
        y = x[torch.tensor(True), torch.tensor([2, 0])]
        print(y, y.grad_fn)
        y.sum().backward()
        print(x.grad)
    """,
    "setitem_bool_tensor_true_writes_all": """
        z = torch.zeros(3, 2)
        z[torch.tensor(True)] = 7.0
        print(z, z._version)
        z[torch.tensor(True)] = torch.tensor([1., 2.])
        print(z)
    """,
    "setitem_bool_mixed": """
        z = torch.zeros(3, 2)
        z[torch.tensor(True), 1] = torch.tensor([5.])
        z[2, torch.tensor(True)] = torch.tensor([5., 6.])
        print(z)
        z[1, torch.tensor(False)] = torch.tensor([8., 9.])
        z[..., torch.tensor(False)] = 3.
        print(z, z._version)
        z[..., torch.tensor(True)] = 4.
        print(z)
        z = torch.zeros(3, 2)
        z[torch.tensor(True), torch.tensor([0, 2])] = torch.tensor([[1., 2.], [3., 4.]])
        print(z)
    """,
    "setitem_python_bool_keys": """
        z = torch.zeros(3, 2)
        z[False] = 7.0
        print(z, z._version)
        z[True] = 7.0
        print(z, z._version)
        z[torch.tensor(False)] = 1.0
        print(z, z._version)
    """,
    "setitem_bool_history": """
        w = torch.tensor([1., 2.], requires_grad=True)
        z = torch.zeros(3, 2)
        z[torch.tensor(True)] = w
        print(z, z.grad_fn)
        z.sum().backward()
        print(w.grad)
        for key in ["True", "torch.tensor(True)", "torch.tensor(False)", "torch.tensor(1)", "torch.tensor([1])",
                    "(0, torch.tensor([1]))", "(None, torch.tensor([1]))", "(slice(None), torch.tensor([1]))",
                    "(slice(1, None), torch.tensor([1]))"]:
            z = torch.zeros(3, 2, requires_grad=True).clone()
            z[eval(key)] = 7.0
            print(key, z.grad_fn, z._version)
    """,
    "setitem_bool_on_leaf": """
        z = torch.zeros(3, 2, requires_grad=True)
        for key in ["torch.tensor(True)", "(0, torch.tensor([1]))", "torch.tensor([1])"]:
            attempt(f"z[{key}] = 7.0", globals())
    """,
    "int_tensor_selects_a_view": """
        x = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
        y = x[torch.tensor(1)]
        print(y, y._base is x)
        y.sum().backward()
        print(x.grad)
        x = torch.tensor([[1., 2.], [3., 4.]])
        print(x[torch.tensor(1), torch.tensor(0)]._base is x, x[torch.tensor(1, dtype=torch.int32)]._base is x)
        print(x[torch.tensor(1), ...]._base is x, x[torch.tensor([1])]._base is x)
        print(x[torch.tensor(1), torch.tensor([0, 1])]._base is x)
        x[torch.tensor(1)] = torch.tensor([9., 8.])
        x[torch.tensor(0), torch.tensor(1)] = 7.
        print(x, x._version)
    """,
    "int_tensor_out_of_range": """
        x = torch.arange(6.).view(3, 2)
        for key in ["torch.tensor(3)", "(0, torch.tensor(3))", "torch.tensor(1.)"]:
            attempt(f"x[{key}]", globals())
    """,
}


# ====================================================================== retain_grad and hooks across in-place

# ``fresh()``: a leaf ``x`` and the non-leaf ``h = x * 2``; ``W`` weighs the loss per element.
RETAIN_PRELUDE = """
    W = torch.tensor([1., 10., 100.])
    def fresh():
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        return x, x * 2
"""

RETAIN = {
    "retain_then_mul_": """
        x, h = fresh(); h.retain_grad(); h.mul_(3); (h * W).sum().backward()
        print(h.grad, x.grad, h.retains_grad)
    """,
    "retain_then_setitem": """
        x, h = fresh(); h.retain_grad(); h[0] = 0.0; (h * W).sum().backward()
        print(h.grad, x.grad, h.grad_fn)
    """,
    "retain_then_inplace_relu": """
        x, h = fresh(); h = h - 5; h.retain_grad(); F.relu(h, inplace=True); (h * W).sum().backward()
        print(h.grad, x.grad)
    """,
    "hook_before_inplace_stays_on_old_value": """
        x, h = fresh(); h.register_hook(lambda g: print("hook", g)); h.retain_grad(); h.mul_(3)
        (h * W).sum().backward()
        print(h.grad, x.grad)
        x, h = fresh(); h.retain_grad(); h.register_hook(lambda g: print("hook", g)); h.mul_(3)
        (h * W).sum().backward()
        print(h.grad, x.grad)
    """,
    "changing_hook_before_and_after_inplace": """
        x, h = fresh(); h.register_hook(lambda g: g * 2); h.retain_grad(); h.mul_(3); (h * W).sum().backward()
        print(h.grad, x.grad)
        x, h = fresh(); h.retain_grad(); h.mul_(3); h.register_hook(lambda g: g * 2); (h * W).sum().backward()
        print(h.grad, x.grad)
    """,
    "retain_twice_across_two_writes": """
        x, h = fresh(); h.retain_grad(); h.mul_(3); h.retain_grad(); h.mul_(2); (h * W).sum().backward()
        print(h.grad, x.grad)
    """,
    "retain_then_write_into_a_view_of_it": """
        x, h = fresh(); v = h[1:]; h.retain_grad(); v.mul_(3); (h * W).sum().backward()
        print(h.grad, x.grad)
    """,
    "view_retains_then_base_written": """
        x, h = fresh(); v = h[1:]; v.retain_grad(); h.mul_(3); (v * W[1:]).sum().backward()
        print(v.grad, x.grad)
        x, h = fresh(); v = h[1:]; v.retain_grad(); v.mul_(3); (h * W).sum().backward()
        print(v.grad, x.grad)
    """,
    "retain_across_backwards": """
        x, h = fresh(); h.retain_grad(); h.mul_(3); (h * W).sum().backward(retain_graph=True)
        print(h.grad)
        h.mul_(2); (h * 1).sum().backward()
        print(h.grad, x.grad)
    """,
}


# ====================================================================== writes through expanded views

EXPANDED = {
    "setitem_index_tensor": """
        a = torch.zeros(3); e = a.expand(2, 3)
        e[torch.tensor([0])] = 0.5
        print(a, e, e._base is a, a._version, e._version)
    """,
    "index_fill_": """
        a = torch.zeros(3); e = a.expand(2, 3)
        e.index_fill_(0, torch.tensor([0]), 0.5)
        print(a, e, a._version)
        a = torch.zeros(3); e = a.expand(2, 3)
        e.index_fill_(1, torch.tensor([0]), 0.5)
        print(a, e)
    """,
    "index_put_": """
        a = torch.zeros(3); e = a.expand(2, 3)
        e.index_put_((torch.tensor([0]),), torch.tensor(0.5))
        print(a, e)
        e.index_put_((torch.tensor([0]), torch.tensor([1])), torch.tensor(2.))
        print(a, e)
        e[torch.tensor([0, 1]), torch.tensor([0, 2])] = torch.tensor([1., 3.])
        print(a, e, a._version)
    """,
    "masks": """
        a = torch.zeros(3); e = a.expand(2, 3)
        e.masked_fill_(torch.tensor([[True, False, False], [False, False, True]]), 0.5)
        print(a, e)
        e[torch.tensor([[False, True, False], [False, False, False]])] = torch.tensor([4.])
        print(a, e)
        e[torch.tensor([True, False])] = 0.25
        print(a, e, a._version)
    """,
    "basic_keys": """
        a = torch.zeros(3); e = a.expand(2, 3)
        e[0] = 0.5; print(a)
        e[1, 1] = 2.; print(a)
        e[0, 1:] = torch.tensor([1., 2.]); print(a)
        e[0, torch.tensor([0, 2])] = 7.; print(a)
        e[:, torch.tensor([1])] = 5.; print(a, e, a._version)
    """,
    "other_bases": """
        a = torch.zeros(1, 3); e = a.expand(2, 3); e[torch.tensor([0])] = 0.5; print(a, e)
        a = torch.zeros(3); e = a[None].expand(2, 3); e[torch.tensor([1])] = 0.5; print(a, e)
        a = torch.zeros(3, dtype=torch.int64); e = a.expand(2, 3); e[torch.tensor([0])] = 5; print(a, e)
        a = torch.zeros(3); e = a.expand(2, 3); e.fill_(0.5); print(a); e.zero_(); print(a, a._version)
        w = torch.arange(4.); u = w.unfold(0, 2, 1); u[torch.tensor([0])] = 9.; print(w, u)
        w = torch.arange(4.); u = w.unfold(0, 2, 1); u[1, 0] = 7.; print(w, u)
    """,
    "refused_writes": """
        for src in ["e.fill_(torch.tensor(0.5))", "e.copy_(torch.ones(2, 3))", "e.copy_(torch.ones(3))", "e.add_(1)",
                    "e.mul_(2)", "e.exp_()", "e.clamp_(1, 2)", "e[:, 1] = 0.5", "e[...] = 1.", "e[:] = torch.ones(2, 3)",
                    "e.index_add_(0, torch.tensor([0]), torch.ones(1, 3))",
                    "e.scatter_(0, torch.tensor([[0, 1, 0]]), 1.5)",
                    "e.index_copy_(1, torch.tensor([0]), torch.ones(2, 1))",
                    "e.masked_scatter_(torch.tensor([True, False, True]), torch.ones(6))",
                    "e.put_(torch.tensor([1]), torch.tensor([9.]))", "F.relu(e, inplace=True)",
                    "F.leaky_relu(e, inplace=True)", "F.dropout(e, 0.5, inplace=True)"]:
            a = torch.zeros(3); e = a.expand(2, 3)
            attempt(src, globals())
            print(a, a._version)
    """,
    "history_base_does_not_require_grad": """
        a = torch.zeros(3); e = a.expand(2, 3); v = torch.tensor(0.5, requires_grad=True)
        e[torch.tensor([0])] = v
        print(a, a.grad_fn, e.grad_fn)
        (a * torch.tensor([1., 2., 3.])).sum().backward()
        print(v.grad)
        a = torch.zeros(3); e = a.expand(2, 3); s = torch.tensor([1., 2.], requires_grad=True)
        e[0, torch.tensor([0, 2])] = s
        (a * torch.tensor([1., 2., 3.])).sum().backward()
        print(a, s.grad)
    """,
    "history_base_requires_grad": """
        for src in ["e[torch.tensor([0])] = 0.5", "e.masked_fill_(torch.tensor([True, False, True]), 0.5)",
                    "e.index_fill_(0, torch.tensor([0]), 0.5)", "e.fill_(0.5)", "e[0, 1] = 0.5"]:
            w = torch.zeros(3, requires_grad=True); a = w.clone(); e = a.expand(2, 3)
            exec(src)
            print(src, a, e.grad_fn)
            attempt("(a * torch.tensor([1., 2., 3.])).sum().backward(); print(w.grad)", globals())
    """,
}


# ====================================================================== overlapping in-place writes

OVERLAPPING = {
    "issue_snippets": """
        for src in ["v = a[None]; v.sub_(a, alpha=2)", "a[1:].copy_(a[:-1])", "v = a.view(-1); v += a",
                    "a.copy_(a.view(1, 3))", "a[:1].add_(a[0])", "a.add_(a[0])"]:
            a = torch.tensor([1., 2., 3.])
            attempt(src, globals())
            print(a, a._version)
    """,
    "full_overlap_is_fine": """
        a = torch.tensor([1., 2., 3.])
        a.add_(a); a.add_(a[:]); a.mul_(a.view(3)); a.mul_(a.detach()); a.add_(a.data)
        print(a, a._version)
        y = torch.tensor([[1., 2.], [3., 4.]]); v = y.view(-1); v += y.view(-1); y.t().add_(y.t()); print(y)
        a = torch.arange(4.); a[:] = a; a[...] = a; a[1:].add_(a[0]); a[:2].add_(a[2:]); a[::2].add_(a[1::2])
        print(a, a._version)
        a = torch.arange(6.).view(2, 3); a[:, 0].mul_(a[:, 1]); a.copy_(a.flip(0)); print(a)
    """,
    "partial_overlaps_refused": """
        for src in ["a.add_(a.t())", "a.t().copy_(a)", "a.mul_(a[0])", "a[1].add_(a[0:2].view(-1)[:2])",
                    "a[1:] = a[:1]", "a.view(-1)[1:].atan2_(a.view(-1)[:3])",
                    "a.view(-1)[1:].lerp_(torch.ones(3), a.view(-1)[:3])", "a.view(-1)[1:].clamp_(max=a.view(-1)[:3])",
                    "a.view(-1)[1:].addcmul_(a.view(-1)[:3], a.view(-1)[:3])", "a.addr_(a[0], a[1])"]:
            a = torch.arange(4.).view(2, 2)
            attempt(src, globals())
            print(a, a._version)
    """,
    "indexed_writes_refuse_any_overlap": """
        for src in ["a[torch.tensor([0, 1, 2, 3])] = a", "a[torch.tensor([0, 1])] = a[2:]", "a[torch.tensor([1])] = a[0]",
                    "a.index_put_((torch.tensor([0, 1]),), a[:2])", "a.index_add_(0, torch.tensor([0, 1, 2, 3]), a)",
                    "a.index_copy_(0, torch.tensor([0, 1]), a[2:])", "a.scatter_(0, torch.tensor([0, 1, 2, 3]), a)",
                    "a.scatter_add_(0, torch.tensor([0, 1]), a)", "a.scatter_reduce_(0, torch.tensor([0, 1]), a[2:], 'sum')",
                    "a.put_(torch.tensor([0, 1, 2, 3]), a)", "a[torch.tensor([True, True, False, False])] = a[:2]"]:
            a = torch.arange(4.)
            attempt(src, globals())
            print(a, a._version)
        a = torch.arange(4)
        attempt("a[a] = 1", globals())
    """,
    "writes_that_read_a_number_are_fine": """
        a = torch.arange(4.)
        a.masked_fill_(a > 1, a[0]); a.index_fill_(0, torch.tensor([3]), a[1]); a.fill_(a[3]); print(a)
        a = torch.arange(4.)
        a.masked_scatter_(torch.tensor([True, True, False, False]), a[2:]); print(a)
        a[torch.tensor([True, False, False, False])] = a[2:3]; print(a)
        a.index_put_((torch.tensor([False, True, False, False]),), a[3]); print(a)
        a[1:] = a[0]; a[:2] = a[2:3]; a[1:].copy_(a[0]); print(a, a._version)
    """,
    "copy_shapes_checked_after_overlaps": """
        for dst, src in [((4,), (3, 4)), ((4,), (3,)), ((2, 4), (3, 4)), ((3, 1), (3, 4)), ((2, 3), (4, 1, 3))]:
            attempt(f"torch.zeros({dst}).copy_(torch.ones({src}))", globals())
        a = torch.arange(4.)
        attempt("a.copy_(a.view(2, 2))", globals())
    """,
    "out_overlaps": """
        for src in ["torch.add(a, 1, out=a[:3][:2])", "torch.add(a[:3], 1, out=a[1:])", "torch.add(a, 1, out=a)",
                    "torch.mul(a[1:], 2, out=a[1:])", "torch.add(a[:2], 1, out=a[2:])"]:
            a = torch.arange(4.)
            attempt(src, globals())
            print(a, a._version)
    """,
}


def test_order_dependent_writes_are_refused_without_torch():
    """Where PyTorch does not check (its "too hard" overlaps: views with gaps, overlapping
    unfold windows) its result depends on the order its kernel visits the elements; tensorgrad
    refuses with PyTorch's messages instead of giving another answer."""
    a = tensorgrad.arange(6.).view(2, 3)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        a[:, 1:].add_(a[:, :2])
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        tensorgrad.add(a[:, :2], 1, out=a[:, 1:])
    u = tensorgrad.arange(4.).unfold(0, 2, 1)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        u.mul_(2)
    assert a.tolist() == [[0., 1., 2.], [3., 4., 5.]] and a._version == 0
    assert u._version == 0


# ====================================================================== dtype promotion into a view, masked casts

PROMOTION = {
    "promoted_write_into_a_view": """
        a = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor(3., dtype=torch.float64, requires_grad=True)
        x = a * 1; x[0].mul_(w); x[1].add_(w)
        print(x, x._version, x.grad_fn)
        x.sum().backward()
        print(a.grad, w.grad)
    """,
    "promoted_write_keeps_the_op_node": """
        a = torch.tensor([1., 2.], requires_grad=True); w = torch.tensor([3., 4.], dtype=torch.float64, requires_grad=True)
        x = a * 1; x.mul_(w)
        print(x, x._version, x.grad_fn, x.grad_fn.next_functions)
        x.sum().backward()
        print(a.grad, w.grad, w.grad.dtype)
    """,
    "masked_setitem_casts_one_element": """
        x = torch.zeros(4); s = torch.tensor(2., dtype=torch.float64, requires_grad=True)
        x[torch.tensor([True, False, True, False])] = s
        print(x, x.grad_fn)
        x.sum().backward()
        print(s.grad)
        x = torch.zeros(4)
        x[torch.tensor([True, False, True, False])] = torch.tensor([[2]])
        x.index_put_((torch.tensor([False, True, False, False]),), torch.tensor(3., dtype=torch.float64))
        print(x, x.index_put((torch.tensor([True, False, False, False]),), torch.tensor([5.], dtype=torch.float64)))
        y = torch.zeros(2, 2, dtype=torch.int32); y[torch.tensor([True, False])] = torch.tensor(2.7); print(y)
        y = torch.zeros(2, 2); y[:, torch.tensor([True, False])] = torch.tensor(2., dtype=torch.float64); print(y)
        y[torch.tensor([True, False]), 0] = torch.tensor(5, dtype=torch.int64); print(y)
    """,
    "index_put_dtype_rules": """
        for src in ["x[torch.tensor([True, False, True, False])] = torch.tensor([1., 2.], dtype=torch.float64)",
                    "x[torch.tensor([0, 2])] = torch.tensor(2., dtype=torch.float64)",
                    "x[torch.tensor(True)] = torch.tensor(2., dtype=torch.float64)",
                    "x[torch.tensor([True, False, True, False]).to(torch.uint8)] = torch.tensor(2.)",
                    "x[torch.tensor([True, False, True, False])] = torch.tensor(2.+1j)",
                    "x[torch.tensor([True, False, True, False])] = 2+1j",
                    "x.masked_fill_(torch.tensor([True, False, True, False]), 2+1j)",
                    "x.masked_fill_(torch.tensor([1., 0., 1., 0.]), 2.)",
                    "x.index_put_((None,), torch.tensor(1.))", "x.index_put_(([0],), torch.tensor(1.))",
                    "x.index_put_(torch.tensor([0]), torch.tensor(1.))"]:
            x = torch.zeros(4)
            attempt(src, globals())
            print(x, x._version)
    """,
}


# ====================================================================== what hooks may return

HOOKS = {
    "hook_on_a_view_made_in_no_grad": """
        a = torch.tensor([1., 2.], requires_grad=True)
        with torch.no_grad():
            v = a[0:1]
        print(v.requires_grad, v.grad_fn, v.is_leaf)
        h = v.register_hook(lambda g: print("hook", g))
        (v * 2).sum().backward()
        print(a.grad, v.grad)
        h.remove()
    """,
    "tensor_hook_changes_the_dtype": """
        def myhook(g):
            return g.double()
        for make in ["x * 1", "x"]:
            for hook in ["myhook", "lambda g: g.to(torch.int64)"]:
                x = torch.tensor([1., 2.], requires_grad=True)
                y = eval(make)
                y.register_hook(eval(hook))
                attempt("(y * 1).sum().backward()", globals())
                print(x.grad)
    """,
    "tensor_hook_returns_no_tensor": """
        x = torch.tensor([1., 2.], requires_grad=True); y = x * 1
        y.register_hook(lambda g: 3.0)
        attempt("y.sum().backward()", globals())
    """,
    "node_hooks_results": """
        for src in ["y.grad_fn.register_prehook(lambda g: (g[0].double(),))",
                    "y.grad_fn.register_hook(lambda gi, go: (gi[0].double(),))",
                    "y.grad_fn.register_hook(lambda gi, go: (gi[0].double(), None))",
                    "y.grad_fn.register_hook(lambda gi, go: (gi[0][:1], None))",
                    "y.grad_fn.register_prehook(lambda g: (g[0][:1],))",
                    "y.grad_fn.register_prehook(lambda g: (g[0], g[0]))",
                    "y.grad_fn.register_prehook(lambda g: [g[0]])",
                    "y.grad_fn.register_hook(lambda gi, go: (gi[0], gi[0]))",
                    "y.grad_fn.register_hook(lambda gi, go: (None, None))",
                    "y.grad_fn.register_hook(lambda gi, go: (gi[0] * 3, None))"]:
            x = torch.tensor([1., 2.], requires_grad=True); y = x * 1
            exec(src)
            attempt("y.sum().backward(); print(x.grad)", globals())
    """,
}


GROUPS = {"zero_dim_index": ZERO_DIM_INDEX, "retain": RETAIN, "expanded": EXPANDED, "overlapping": OVERLAPPING,
          "promotion": PROMOTION, "hooks": HOOKS}


@pytest.mark.parametrize("group, name", [(g, n) for g, cases in GROUPS.items() for n in cases],
                         ids=lambda v: v)
def test_same_as_torch(group, name):
    prelude = textwrap.dedent(RETAIN_PRELUDE) if group == "retain" else ""
    _check(prelude + textwrap.dedent(GROUPS[group][name]))


# ====================================================================== an in-place op reading its own target

@pytest.mark.parametrize("call", ["b.mul_(b)", "b.add_(b)", "b.div_(b)", "b.pow_(b)", "b.addcmul_(b, b)",
                                  "b.addcdiv_(b, b)", "b.atan2_(b)", "b.lerp_(b, 0.3)", "b.copy_(torch.maximum(b, b))",
                                  "b.hypot_(b)", "b.mul_(2)"])
def test_an_inplace_op_that_saves_its_own_target_fails_its_backward_as_pytorchs(call):
    """``b.mul_(b)`` saves ``b`` as ``other`` and then modifies it: PyTorch's backward reports the
    modification (the op's own self is kept as a copy and never checked)."""
    _check(f"""
        a = torch.tensor([[1., -2.], [3., 0.5]], dtype=torch.float64, requires_grad=True)
        b = a * 1
        {call}
        print(b._version, type(b.grad_fn).__name__)
        (b * 2).sum().backward()
        print(a.grad)
    """)
