"""#43 round 13: hierarchical domains as documented, a run's own values, Fraction sums."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import algorithms.hierarchical as H
from algorithms import solve
from algorithms.core import RetCode


def _minimax(**kw):
    sm = H.synthetic_minimax()
    return H.MinimaxProblem(grad=sm.grad, phi=sm.phi, grad_phi=sm.grad_phi, x0=np.array([2.0]),
                            y0=np.array([0.0]), **kw)


@pytest.mark.parametrize("sigma", [5e-324, 1e-39, 1.2e-38, 2.0**64, 3.4e38])
def test_noise_levels_take_any_value_from_0_to_the_range_top(sigma):
    # the docstrings said "at most 1e300, no subnormal" while the code took 5e-324 and refused 1e39
    assert "1e300" not in H.MinimaxProblem.__doc__ and "1e300" not in H.BilevelProblem.__doc__
    assert _minimax(sigma=sigma).sigma == sigma
    assert H.quadratic_bilevel(sigma=sigma, hessian_sigma=sigma).hessian_sigma == sigma


@pytest.mark.parametrize("name", ["sigma", "hessian_sigma"])
def test_noise_level_past_the_range_is_refused_by_name(name):
    with pytest.raises(ValueError, match=name):
        H.quadratic_bilevel(**{name: 3.5e38})
    with pytest.raises(ValueError, match="sigma"):
        _minimax(sigma=1e39)


@pytest.mark.parametrize("algorithm", [H.StocBiO(), H.AdaBiO()], ids=lambda a: type(a).__name__)
def test_huge_hessian_noise_is_the_runs_own_value(algorithm):
    # AdaBiO refused its own momentum's gradient (6.3e38) as "gradient ... outside the working range"
    sol = solve(H.quadratic_bilevel(hessian_sigma=3.4e38), algorithm, maxiters=2)
    assert sol.retcode in (RetCode.Diverged, RetCode.MaxIters)


def test_ada_parameters_takes_fraction_sums():
    assert H.ada_parameters(4, Fraction(1), 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=2.0) == \
        H.ada_parameters(4, 1.0, 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=2.0)


def test_ada_parameters_caller_sums_stay_in_range():
    with pytest.raises(ValueError, match="noise_sum"):
        H.ada_parameters(4, 3.5e38, 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=2.0)


def test_series_length_bounds_are_stated_and_named():
    assert "2**63 - 1" in H.neumann_terms.__doc__ and "10**6 terms" in H.BilevelProblem.__doc__
    with pytest.raises(ValueError, match=r"^mu_g / l_g1 = 2e-18 / 1.0 is too small"):
        H.neumann_terms(10**6, 2e-18, 1.0)
    with pytest.raises(ValueError, match=r"^mu_g = "):
        solve(H.quadratic_bilevel(mu_g=1e-6, l_g1=2.0), H.StocBiO(), maxiters=10)
