"""L-BFGS: a quasi-Newton method that re-evaluates the objective through a closure.

The parameters are treated as one flat vector. Each iteration builds a search direction from
the last ``history_size`` steps and gradient changes (the two-loop recursion), then moves along
it by a fixed step (``lr``) or by a strong-Wolfe line search. The arithmetic follows PyTorch's
``torch.optim.LBFGS`` step by step (its scalars are 0-d tensors, as there), so the parameters
after a step agree with PyTorch's to float rounding. A complex parameter is two real coordinates
per element in the flat vectors (its real view, ``view_as_real``), as in PyTorch.
"""

from .._autograd.grad_mode import enable_grad, no_grad
from .._api.complex import view_as_real
from .._api.creation import zeros
from .._tensor import Tensor
from .._api.joining import cat
from .optimizer import Optimizer, axpy_


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through ``(x1, f1)`` and ``(x2, f2)`` with slopes ``g1``, ``g2``,
    clamped to ``bounds`` (by default the interval between the points); the interval's middle
    when the cubic has no real minimiser."""
    if bounds is None:
        low, high = (x1, x2) if x1 <= x2 else (x2, x1)
    else:
        low, high = bounds
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        minimum = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimum = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimum, low), high)


class _Bracket:
    """The line search's interval: step sizes, losses, gradients and directional derivatives at
    its ends (one end while only a point is known)."""

    def __init__(self, steps, losses, grads, slopes):
        self.steps = steps
        self.losses = losses
        self.grads = grads
        self.slopes = slopes

    def set(self, i, step, loss, grad, slope):
        self.steps[i] = step
        self.losses[i] = loss
        self.grads[i] = grad
        self.slopes[i] = slope

    def ends(self):
        """``(low, high)``: the indices of the end with the lower loss and of the other end."""
        return (0, 1) if self.losses[0] <= self.losses[-1] else (1, 0)


def _strong_wolfe(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step size along ``d`` that satisfies the strong Wolfe conditions (More and Thuente's
    bracketing and zoom with cubic interpolation, as PyTorch's ``_strong_wolfe``).

    ``evaluate(x, t, d)`` returns the loss and flat gradient at ``x + t * d``. Returns the loss,
    the gradient and the step size found, and the number of evaluations made."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = evaluate(x, t, d)
    evaluations = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    iteration = 0
    bracket = None
    while iteration < max_ls:
        if f_new > (f + c1 * t * gtd) or (iteration > 1 and f_new >= f_prev):
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = _Bracket([t], [f_new], [g_new], [gtd_new])
            done = True
            break
        if gtd_new >= 0:
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.clone()], [gtd_prev, gtd_new])
            break
        # extrapolate: the cubic's minimum between a little past t and ten times t
        previous = t
        t = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = previous, f_new, g_new.clone(), gtd_new
        f_new, g_new = evaluate(x, t, d)
        evaluations += 1
        gtd_new = g_new.dot(d)
        iteration += 1
    if iteration == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], [None, None])

    # zoom: shrink the bracket until a point in it satisfies the conditions
    insufficient_progress = False
    low, high = bracket.ends()
    while not done and iteration < max_ls:
        if abs(bracket.steps[1] - bracket.steps[0]) * d_norm < tolerance_change:
            break
        steps = bracket.steps
        t = _cubic_minimum(steps[0], bracket.losses[0], bracket.slopes[0],
                           steps[1], bracket.losses[1], bracket.slopes[1])
        # a trial point too near an end twice in a row (or at an end) moves a tenth of the
        # bracket's length inside it
        eps = 0.1 * (max(steps) - min(steps))
        if min(max(steps) - t, t - min(steps)) < eps:
            if insufficient_progress or t >= max(steps) or t <= min(steps):
                if abs(t - max(steps)) < abs(t - min(steps)):
                    t = max(steps) - eps
                else:
                    t = min(steps) + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(x, t, d)
        evaluations += 1
        gtd_new = g_new.dot(d)
        iteration += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket.losses[low]:
            bracket.set(high, t, f_new, g_new.clone(), gtd_new)
            low, high = bracket.ends()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket.steps[high] - bracket.steps[low]) >= 0:
                bracket.set(high, bracket.steps[low], bracket.losses[low], bracket.grads[low], bracket.slopes[low])
            bracket.set(low, t, f_new, g_new.clone(), gtd_new)
    return bracket.losses[low], bracket.grads[low], bracket.steps[low], evaluations


class LBFGS(Optimizer):
    """L-BFGS, after minFunc; ``step(closure)`` runs up to ``max_iter`` iterations.

    Arguments:
      lr: the step size (the first iteration's is ``min(1, 1 / |g|_1) * lr``).
      max_iter: iterations per ``step``; max_eval: closure evaluations per ``step``
        (default ``max_iter * 5 // 4``).
      tolerance_grad: stop when the largest gradient component is at most this.
      tolerance_change: stop when the loss or the parameters change less than this.
      history_size: how many past steps the inverse Hessian estimate uses.
      line_search_fn: ``None`` (fixed steps) or ``"strong_wolfe"``.

    Only one parameter group is allowed; the state (kept under the first parameter, as in
    PyTorch) holds the history, the last direction and step size, and the evaluation counts.

    >>> import tensorgrad as torch
    >>> w = torch.nn.Parameter(torch.tensor([3.0], dtype=torch.float64))
    >>> opt = torch.optim.LBFGS([w])
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 1) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> w
    Parameter containing:
    tensor([1.], dtype=torch.float64, requires_grad=True)
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel() for p in self._params)
        return self._numel_cache

    def _flat_grad(self):
        """The gradients as one flat vector (zeros for a parameter without one); a complex
        parameter's as the real and imaginary parts of each element, in turn."""
        pieces = []
        for p in self._params:
            if p.grad is None:
                piece = zeros(p.numel(), dtype=p.dtype, device=p.device)
            else:
                piece = p.grad.reshape(-1)
            if piece.is_complex():
                piece = view_as_real(piece).reshape(-1)
            pieces.append(piece)
        return cat(pieces, 0)

    def _add_to_params(self, step_size, update):
        """Move the parameters by ``step_size * update`` (a flat vector; a complex parameter
        through its real view)."""
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = view_as_real(p)
            n = p.numel()
            axpy_(p, update[offset:offset + n].view_as(p), step_size)
            offset += n

    def _evaluate_along(self, closure, x, t, d):
        """The loss and flat gradient at ``x + t * d``; the parameters are put back to ``x``."""
        self._add_to_params(t, d)
        loss = float(closure())
        flat_grad = self._flat_grad()
        for p, value in zip(self._params, x):
            p.copy_(value)
        return loss, flat_grad

    def step(self, closure):
        """Run up to ``max_iter`` iterations; returns the closure's first loss.

        ``closure`` re-evaluates the model (zeroing and recomputing the gradients) and returns the
        loss; it runs with grad enabled."""
        with no_grad():
            return self._run(closure)

    def _run(self, closure):
        def evaluate():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr = group["lr"]
        if isinstance(lr, Tensor):
            lr = lr.reshape(())
        max_iter = group["max_iter"]
        max_eval = group["max_eval"]
        tolerance_grad = group["tolerance_grad"]
        tolerance_change = group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        history_size = group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        d = state.get("d")
        t = state.get("t")
        old_dirs = state.get("old_dirs")
        old_stps = state.get("old_stps")
        ro = state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad = state.get("prev_flat_grad")
        prev_loss = state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # the search direction
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs = []
                old_stps = []
                ro = []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                # the two-loop recursion: d = -H g for the inverse Hessian estimate H
                q = flat_grad.neg()
                for i in range(len(old_dirs) - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    axpy_(q, old_dirs[i], -al[i])
                d = r = q.mul(H_diag)
                for i in range(len(old_dirs)):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    axpy_(r, old_stps[i], al[i] - be_i)

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p.clone() for p in self._params]

                def along(x, t, d):
                    return self._evaluate_along(evaluate, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(along, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_to_params(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_to_params(t, d)
                # the last iteration's loss is not re-evaluated (PyTorch's choice for stochastic losses)
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss
