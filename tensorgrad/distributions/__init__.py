"""``torch.distributions`` on tensorgrad: parameterizable probability distributions with
reparameterized sampling (``rsample``), densities, entropies, KL divergences, constraints and
transforms, with PyTorch's API, semantics and validation messages.

Draws come from tensorgrad's generator (``tensorgrad.manual_seed`` makes them reproducible);
they are not PyTorch's streams bit for bit. Each draw is one bounded compiled kernel.
"""

from . import constraints as constraints
from . import transforms as transforms
from . import kl as kl
from .distribution import Distribution as Distribution
from .distribution import ExponentialFamily as ExponentialFamily
from .continuous import (
    Normal as Normal, Uniform as Uniform, Laplace as Laplace, Exponential as Exponential, Gamma as Gamma,
    Dirichlet as Dirichlet, Beta as Beta,
)
from .discrete import (
    Bernoulli as Bernoulli, Categorical as Categorical, OneHotCategorical as OneHotCategorical, Poisson as Poisson,
)
from .multivariate_normal import MultivariateNormal as MultivariateNormal
from .transformed import (
    Independent as Independent, TransformedDistribution as TransformedDistribution, LogNormal as LogNormal,
)
from .transforms import (
    Transform as Transform, AbsTransform as AbsTransform, AffineTransform as AffineTransform,
    ComposeTransform as ComposeTransform, ExpTransform as ExpTransform, PowerTransform as PowerTransform,
    SigmoidTransform as SigmoidTransform, SoftmaxTransform as SoftmaxTransform,
    StickBreakingTransform as StickBreakingTransform, TanhTransform as TanhTransform,
    identity_transform as identity_transform,
)
from .kl import kl_divergence as kl_divergence, register_kl as register_kl
from .constraint_registry import biject_to as biject_to, transform_to as transform_to

__all__ = [
    "Bernoulli", "Beta", "Categorical", "Dirichlet", "Distribution", "Exponential", "ExponentialFamily", "Gamma",
    "Independent", "Laplace", "LogNormal", "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson",
    "TransformedDistribution", "Uniform", "kl_divergence", "register_kl", "constraints", "transforms",
    "AbsTransform", "AffineTransform", "ComposeTransform", "ExpTransform", "PowerTransform", "SigmoidTransform",
    "SoftmaxTransform", "StickBreakingTransform", "TanhTransform", "Transform", "identity_transform", "biject_to",
    "transform_to",
]
