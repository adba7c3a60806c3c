"""``tensorgrad.compile``: run an imperative step as one XLA program.

``compile(step)`` returns a callable that runs ``step`` (a forward pass, ``loss.backward()``,
``optimizer.step()``, ``zero_grad()``, dropout, ...) as one ``jax.jit`` program:

* The first call for a given argument signature runs eagerly and watches which tensors the step
  reads and writes that outlive the call: parameters, their ``.grad``, optimizer state, module
  buffers, the random generator's key. Those are the program's *state*.
* The next call traces the step with JAX tracers swapped into the state and the arguments (the
  tensors keep their identity; only the arrays inside them change, and only as this thread sees
  them: ``_storage/overlay.py``), compiles it, and runs it.
  Every state tensor the step wrote gets its new value back after the call, its version counter
  moves as the eager step would move it, and ``.grad`` attributes the step set or cleared are set
  again. If the trace meets a tensor from outside that it did not lift, it lifts it and traces
  again; if tracing fails, every tensor is restored.
* Later calls check the program's guards (argument structure, shapes, dtypes and Python values,
  grad mode, which ``.grad`` attributes are set, optimizer hyperparameters, modules' training
  flags) and run the compiled program; a failed guard traces a new program and keeps the old
  ones, up to the ``compiled`` cache's limit (``tensorgrad._cache``: beyond it the least recently
  used signature goes with its programs). ``explain()`` lists why each program was traced,
  naming the guard that changed (``SGD.param_groups[0]['lr']: 0.1 -> 0.05``,
  ``parameter '0.weight' of Sequential.grad: set -> None``, ``Sequential.training: train() ->
  eval()``).
* A call whose tensors differ from a traced signature's only in shapes (an epoch's smaller last
  batch) is traced at once with that signature's state, without an eager call first. An argument
  that has had four shapes warns once (padding to a few sizes keeps the programs few);
  ``compile(..., dynamic=True)`` runs calls with further new shapes eagerly instead, and
  ``dynamic=False`` never warns.
* An argument that is a slice with a tensor offset (``X[i:i + 64]``) and no history is passed as
  a plain tensor of its value, so the batches of an epoch share one program; what the step
  writes into it reaches the sliced tensor afterwards.
* ``compile(module)`` knows the module's parameters and buffers as state before any call, so its
  first call is already traced and its results record ``CompiledFunctionBackward``.
  ``module.compile()`` does the same in place: the module's calls go through the compiled call
  (``Module._compiled_call``) and it keeps its type and state dict.
* ``backend``, ``mode`` and ``options`` are checked against PyTorch's names
  (``tensorgrad/_compile_options.py``) and raise its errors; XLA compiles every program whatever
  they say. A backend callable raises ``NotImplementedError``: it would be handed an FX graph.
* A value Python needs inside the step (``loss.item()``, ``if x > 0``, printing a tensor) cannot
  be traced: the step then runs eagerly, with a warning naming the line, as PyTorch's compiler
  breaks its graph there. Return tensors and call ``.item()`` outside the step.
* When the step does not call ``backward()`` and returns tensors that require grad (a compiled
  forward, ``compile(model)``), the whole call is recorded as one ``CompiledFunctionBackward``
  node whose backward is the compiled program's ``jax.vjp``; ``detach()``, ``.data`` and
  ``no_grad`` inside stop gradients.

As with ``jax.jit``, Python side effects of the step (printing, appending to a list) happen while
tracing, not on every call.

>>> import tensorgrad as torch
>>> w = torch.tensor([1., 2.], requires_grad=True)
>>> opt = torch.optim.SGD([w], lr=0.1)
>>> @torch.compile
... def step(x):
...     opt.zero_grad()
...     loss = (w * x).sum()
...     loss.backward()
...     opt.step()
...     return loss
>>> [round(step(torch.tensor([1., 1.])).item(), 4) for _ in range(3)]
[3.0, 2.8, 2.6]
>>> w
tensor([0.7000, 1.7000], requires_grad=True)

The package: ``recorder.py`` watches one call (a storage watch, so only its own thread, plus
the modules and optimizers announced through ``tensorgrad._hooks``); ``program.py`` holds a
traced program and its guards; ``function.py`` is ``CompiledFunction``. The public
``tensorgrad.compile``, which also wraps ``nn.Module``s, is ``tensorgrad/_compile_api.py``: this
package imports neither ``nn`` nor ``optim``.
"""

from .function import CompiledFunction as CompiledFunction

__all__ = ["CompiledFunction"]
