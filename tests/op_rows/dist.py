"""Rows for the ops behind ``tensorgrad.distributions``: ``igamma`` (Gamma's cdf) and
``standard_gamma`` (Gamma's reparameterized draw; random, so its row checks the support only,
and ``tests/test_distributions.py`` checks its gradient by expectation)."""

from op_table import FLOAT, Op, samples_of, two_of

ROWS = [
    Op("dist_gamma_cdf", lambda m, r, v: m.distributions.Gamma(2.5, r, validate_args=False).cdf(v),
       two_of((2, 3), (3,)), dtypes=FLOAT, domain="positive"),
    Op("dist_standard_gamma_positive", lambda m, a: m.distributions.Gamma(a, 1.0).rsample((4,)) > 0,
       samples_of((2, 3)), dtypes=FLOAT, domain="positive", grad=False),
]
