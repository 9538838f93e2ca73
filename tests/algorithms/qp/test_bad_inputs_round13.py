"""#43 round 13 of algorithms.qp: every parameter's domain stated in its docstring, and kept."""

import inspect
import math
from fractions import Fraction

import numpy as np
import pytest

from algorithms import solve
from algorithms.qp import DQP, QP, QPLayer


@pytest.mark.parametrize("lb, expected", [
    ([-2**64, -1.0], [-2.0**64, -1.0]), (np.array([-2**64, -1.0]), [-2.0**64, -1.0]),
    ([Fraction(-1, 2), -math.inf], [-0.5, -math.inf]),
])
def test_bounds_take_every_real_of_the_working_range(lb, expected):
    """A bound list holding 2**64 (a real inside the range; numpy reads it as an object array) or a Fraction
    was refused "lb must be a real numeric vector", while q, h and b took them."""
    qp = QP(np.eye(2), np.array([1.0, -1.0]), lb=lb, ub=[2**64, 2**64])
    assert qp.lb.tolist() == expected and qp.ub.tolist() == [2.0**64] * 2
    sol = solve(qp, DQP())
    assert sol.retcode.name == "Success"
    assert np.allclose(sol.x, np.maximum(-np.array([1.0, -1.0]), np.array(expected)))


@pytest.mark.parametrize("lb, exc", [(["a", 1.0], TypeError), ([1j, 0.0], TypeError),
                                     ([-2**200, 0.0], ValueError)])
def test_bounds_outside_the_reals_of_the_range_are_refused_by_name(lb, exc):
    with pytest.raises(exc, match=r"\blb\b"):
        QP(np.eye(2), np.array([1.0, -1.0]), lb=lb)


@pytest.mark.parametrize("build, name", [
    (lambda v: DQP(eps_active=v), "eps_active"), (lambda v: DQP(kkt_tol=v), "kkt_tol"),
    (lambda v: DQP(abs_tol=v), "abs_tol"), (lambda v: QPLayer(tol=v), "tol"),
])
def test_tolerances_are_positive_scales_as_documented(build, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        build(1e-39)
    build(1.2e-38)


@pytest.mark.parametrize("owner, words", [
    (DQP, "eps_active"), (DQP, "kkt_tol : a float in (0, 1], at least 1.18e-38"),
    (DQP, "abs_tol : ``None`` (default) or a float > 0 in [1.18e-38, 3.4e38]"),
    (QPLayer, "``tol`` (None or a float > 0 in [1.18e-38, 3.4e38])"),
])
def test_docstrings_state_the_domains(owner, words):
    assert words in " ".join(inspect.getdoc(owner).split())


@pytest.mark.parametrize("stiff", [1e12, 1e16, 2.0**64, 3.4e38])
def test_a_stiff_diagonal_p_is_solved(stiff):
    """P = diag(1e12, 1), q = (1, 1) (unconstrained, x* = (−1/stiff, −1)) ended Failure: the scalar
    equilibration sized x by ‖q‖/‖P‖, the stiff variable's scale, and the soft one looked unbounded to every
    backend. The copy failing, the QP solved as given is kept when its answer passes the KKT check."""
    sol = solve(QP(np.diag([stiff, 1.0]), np.array([1.0, 1.0])), DQP())
    assert sol.retcode.name == "Success"
    assert np.allclose(sol.x, [-1.0 / stiff, -1.0], rtol=1e-9, atol=0.0)


def test_qp_solution_x_and_multipliers_are_not_held_to_the_working_range():
    # the docstring promised a range check the code rightly skips (a run's answer is not bounded: README)
    import inspect

    import numpy as np

    from algorithms.qp import QPSolution

    assert "not held to the working range" in inspect.getdoc(QPSolution)
    sol = QPSolution(x=np.array([0.5, 0.5]), value=-0.5, retcode="Success", z=np.array([1.0]))
    sol.x, sol.z = np.array([1e39, 0.0]), np.array([1e39])
    assert sol.x[0] == 1e39 and sol.z[0] == 1e39
