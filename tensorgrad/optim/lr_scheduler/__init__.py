"""Learning-rate schedulers (``torch.optim.lr_scheduler``): each ``step()`` writes new ``lr``
values into the optimizer's groups, PyTorch's sequence value for value.

* ``schedules``: the base ``LRScheduler`` and the closed-form and chained schedules, plus
  ``ReduceLROnPlateau``;
* ``cycles``: cosine annealing with warm restarts, the one-cycle policy and cyclical learning rates.
"""

from .schedules import (  # noqa: F401
    LRScheduler as LRScheduler,
    LambdaLR as LambdaLR,
    MultiplicativeLR as MultiplicativeLR,
    StepLR as StepLR,
    MultiStepLR as MultiStepLR,
    ConstantLR as ConstantLR,
    LinearLR as LinearLR,
    ExponentialLR as ExponentialLR,
    PolynomialLR as PolynomialLR,
    CosineAnnealingLR as CosineAnnealingLR,
    SequentialLR as SequentialLR,
    ChainedScheduler as ChainedScheduler,
    ReduceLROnPlateau as ReduceLROnPlateau,
)
from .cycles import (  # noqa: F401
    CosineAnnealingWarmRestarts as CosineAnnealingWarmRestarts,
    CyclicLR as CyclicLR,
    OneCycleLR as OneCycleLR,
)
