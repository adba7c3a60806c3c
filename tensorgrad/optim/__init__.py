"""``tensorgrad.optim``: optimizers and learning-rate schedulers with PyTorch's API and updates."""

from .optimizer import Optimizer as Optimizer
from .sgd import SGD as SGD
from .adam import Adam as Adam, AdamW as AdamW
from .adam_variants import Adamax as Adamax, NAdam as NAdam, RAdam as RAdam
from .adaptive import Adagrad as Adagrad, Adadelta as Adadelta, RMSprop as RMSprop
from .lbfgs import LBFGS as LBFGS
from .rprop_asgd import ASGD as ASGD, Rprop as Rprop
from .adafactor import Adafactor as Adafactor
from . import lr_scheduler as lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "Adagrad", "Adadelta", "RMSprop", "LBFGS",
           "Rprop", "ASGD", "Adafactor", "lr_scheduler"]
