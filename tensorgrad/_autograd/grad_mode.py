"""Grad modes (no_grad, enable_grad, set_grad_enabled, inference_mode), per thread."""

import functools
import inspect
import threading


class _State(threading.local):
    # Class attributes are each thread's defaults.
    grad = True
    inference = False
    anomaly = False
    anomaly_check_nan = True
    functional = 0      # depth of tensorgrad.func transforms being run
    vmap = 0            # depth of tensorgrad.func.vmap calls being run
    forward = False     # the innermost tensorgrad.func transform is forward mode (jvp, jacfwd)
    immediate = False   # ops run at once, none deferred (an in-place op, whose result is read at once)


STATE = _State()


def is_grad_enabled():
    """True when ops record the graph (the default)."""
    return STATE.grad


def is_inference_mode_enabled():
    return STATE.inference


class _Mode:
    """A grad-mode switch usable as a context manager and as a decorator."""

    def _enter(self):
        raise NotImplementedError

    def _exit(self):
        raise NotImplementedError

    def __enter__(self):
        self._enter()
        return None

    def __exit__(self, *exc):
        self._exit()
        return False

    def clone(self):
        return self.__class__()

    def __call__(self, func):
        if inspect.isclass(func):
            raise TypeError(f"{type(self).__name__} cannot decorate a class")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    with self.clone():
                        try:
                            response = gen.send(request)
                        except StopIteration as stop:
                            return stop.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper


class _FixedGrad(_Mode):
    """no_grad and enable_grad: grad mode ``_grad`` inside a block or a decorated function (also as
    a bare decorator, ``@no_grad`` without parentheses)."""

    _grad = False

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        # a bare decorator on a function
        return cls()(orig_func)

    def __init__(self, orig_func=None):
        self.prev = self._grad

    def _enter(self):
        self.prev = STATE.grad
        STATE.grad = self._grad

    def _exit(self):
        STATE.grad = self.prev


class no_grad(_FixedGrad):
    """Turn graph recording off inside a block or a decorated function.

    >>> import tensorgrad as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    _grad = False


class enable_grad(_FixedGrad):
    """Turn graph recording on inside a block (undoes an outer no_grad)."""

    _grad = True


class set_grad_enabled(_Mode):
    """Set grad mode: at once when called, restored on exit when used as a context manager.

    As a decorator (``@set_grad_enabled(False)``) the mode is restored at decoration time and
    the function body runs with the given mode, as PyTorch does.
    """

    def __init__(self, mode):
        self.prev = STATE.grad
        self.mode = bool(mode)
        STATE.grad = self.mode

    def __call__(self, func):
        STATE.grad = self.prev
        return super().__call__(func)

    def _enter(self):
        STATE.grad = self.mode

    def _exit(self):
        STATE.grad = self.prev

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self):
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class inference_mode(_Mode):
    """Like no_grad; tensors made inside are inference tensors (``is_inference()``)."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)
        self.prev = (True, False)

    def _enter(self):
        self.prev = (STATE.grad, STATE.inference)
        if self.mode:
            STATE.grad = False
            STATE.inference = True

    def _exit(self):
        STATE.grad, STATE.inference = self.prev

    def clone(self):
        return self.__class__(self.mode)
