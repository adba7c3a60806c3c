"""Univariate continuous distributions: Normal, Uniform, Laplace, Exponential, Gamma, and the
Dirichlet and Beta (a Dirichlet over two categories), with PyTorch's formulas."""

import math
from numbers import Number, Real

from .._tensor import Size
from .._api.special_functions import igamma
from .._api.creation import as_tensor, full_like, zeros_like, tensor as _tensor
from .._api.joining import stack
from ..nn._functional.linear import one_hot
from . import constraints
from .distribution import Distribution, ExponentialFamily
from .utils import broadcast_all, finfo, standard_normal, uniform, standard_exponential, standard_gamma

__all__ = ["Normal", "Uniform", "Laplace", "Exponential", "Gamma", "Dirichlet", "Beta"]


def _expand_params(self, cls, batch_shape, _instance, names):
    """``expand``'s common part: a new instance whose parameters ``names`` are expanded views."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = Size(batch_shape)
    for name in names:
        setattr(new, name, getattr(self, name).expand(batch_shape))
    Distribution.__init__(new, batch_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new


def _batch_shape(params, tensors):
    """``Size()`` when every parameter is a number, else the broadcast tensors' shape."""
    return Size() if all(isinstance(p, Number) for p in params) else tensors[0].size()


class Normal(ExponentialFamily):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``.

    >>> import tensorgrad as torch
    >>> torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0))
    Normal(loc: 0.0, scale: 1.0)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape((loc, scale), (self.loc,)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Normal, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.loc + standard_normal(shape, self.loc) * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())

    def icdf(self, value):
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()

    @property
    def _natural_params(self):
        return self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal()

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * (-math.pi / y).log()


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``."""

    has_rsample = True

    @property
    def arg_constraints(self):
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        batch_shape = _batch_shape((low, high), (self.low,))
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        return constraints.interval(self.low, self.high)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def mode(self):
        return math.nan * self.high

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return self.low + uniform(shape, self.low) * (self.high - self.low)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return lb.mul(ub).log() - (self.high - self.low).log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return (self.high - self.low).log()


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch_shape((loc, scale), (self.loc,)), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        u = uniform(shape, self.loc, float(finfo(self.loc.dtype).eps) - 1, 1.0)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self):
        return 1 + (2 * self.scale).log()


class Exponential(ExponentialFamily):
    """The exponential distribution with rate ``rate`` (mean ``1 / rate``)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, Number) else self.rate.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        return standard_exponential(shape, self.rate) / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value):
        return -(-value).log1p() / self.rate

    def entropy(self):
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -(-x).log()


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        batch_shape = _batch_shape((concentration, rate), (self.concentration,))
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return _expand_params(self, Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration, shape) / self.rate.expand(shape)
        # as PyTorch: a draw that underflowed to 0 becomes the smallest normal number
        value.detach().clamp_(min=float(finfo(value.dtype).tiny))
        return value

    def log_prob(self, value):
        value = as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return c.xlogy(self.rate) + (c - 1).xlogy(value) - self.rate * value - c.lgamma()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # P(concentration, rate * value), as PyTorch: no derivative in the concentration
        return igamma(*broadcast_all(self.concentration, self.rate * value))

    def entropy(self):
        c = self.concentration
        return c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()

    @property
    def _natural_params(self):
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x, y):
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the simplex of the last dimension of ``concentration``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = concentration.shape
        super().__init__(Size(shape[:-1]), Size(shape[-1:]), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        gammas = standard_gamma(self.concentration, shape)
        gammas = gammas.clamp(min=float(finfo(gammas.dtype).tiny))
        return gammas / gammas.sum(-1, keepdim=True)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (c - 1.0).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concm1 / concm1.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = one_hot(mode[mask].argmax(dim=-1), concm1.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return c.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma() - ((c - 1.0) * c.digamma()).sum(-1)

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - x.sum(-1).lgamma()


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1], a Dirichlet over ``(concentration1, concentration0)``."""

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, Real) and isinstance(concentration0, Real):
            both = _tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def _natural_params(self):
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x, y):
        return x.lgamma() + y.lgamma() - (x + y).lgamma()
