"""Round 23 of #43 in the qp family: docstring promises at their boundaries (class K)."""

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP
from algorithms.qp.dqp import installed_backends


@pytest.mark.parametrize("bounds", [{"lb": np.zeros(2)}, {"ub": np.ones(2)}, {"lb": [0.0, 0.0]}])
def test_float64_bounds_keep_a_float32_qp_float32_as_its_docstring_says(bounds):
    # the docstring said "float32 when every input is float32" while lb/ub never counted: it now says so
    f32 = np.float32
    qp = QP(P=np.eye(2, dtype=f32), q=np.array([1.0, -1.0], f32), **bounds)
    assert qp.dtype == np.float32
    assert solve(qp, DQP()).x.dtype == np.float32


@pytest.mark.parametrize("name", ["singlar", "methd", "bogus"])
def test_a_misspelt_kkt_factor_attribute_is_an_unknown_attribute_error(name):
    # README: a name an object does not take raises UnknownAttributeError; KKTFactor said "<name> is fixed by
    # the KKTFactor's factorization" (a plain ValueError) of a name it never had
    from algorithms._validation import UnknownAttributeError
    from algorithms.qp import KKTFactor

    factor = KKTFactor(np.eye(2), np.ones((1, 2)))
    with pytest.raises(UnknownAttributeError, match=f"KKTFactor takes no attribute '{name}'"):
        setattr(factor, name, 1)
    with pytest.raises(ValueError, match="singular is fixed by the KKTFactor's factorization"):
        factor.singular = True



@pytest.mark.parametrize("backend, key, value, words", [
    ("clarabel", "tol_gap_abs", Fraction(-1), "must be a finite number >= 0"),
    ("clarabel", "tol_gap_abs", Decimal("NaN"), "is NaN"),
    ("clarabel", "tol_gap_abs", Decimal("sNaN"), "is NaN"),
    ("clarabel", "time_limit", Fraction(-1), "must be a finite number >= 0"),
    ("daqp", "time_limit", Fraction(-1), "must be a finite number >= 0"),
    ("clarabel", "max_iter", Fraction(2**40), r"must be <= 2\*\*31 - 1"),
    ("osqp", "rho", Decimal("NaN"), "is NaN"),
    ("clarabel", "tol_gap_abs", Fraction(1, 10**50), "= 1e-50 is outside the package.s working range"),
])
def test_fraction_and_decimal_backend_options_meet_the_number_checks(backend, key, value, words):
    # a Fraction or Decimal skipped the checks (an int/float isinstance) and reached the backend: a negative
    # or NaN tolerance ran to Success, a negative time limit to MaxIters with x NaN (red23a)
    if backend not in installed_backends():
        pytest.skip(f"{backend} not installed")
    with pytest.raises(ValueError, match=rf"backend_options\['{key}'\] {words}"):
        DQP(backend=backend, backend_options={key: value})


@pytest.mark.parametrize("key, value", [("tol_gap_abs", Fraction(1, 10**9)), ("tol_gap_abs", Decimal("1e-9")),
                                        ("max_iter", Fraction(50)), ("max_iter", Decimal("50"))])
def test_valid_fraction_and_decimal_backend_options_are_read_as_their_numbers(key, value):
    qp = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=np.array([[1.0, 1.0]]), h=np.array([1.0]))
    sol = solve(qp, DQP(backend="clarabel", backend_options={key: value}))
    assert sol.retcode.name == "Success"
    np.testing.assert_allclose(sol.x, [-1.0, 1.0], atol=1e-6)


@pytest.mark.parametrize("value, words", [(Fraction(-1), "must be a residual >= 0"),
                                          (Fraction(10**40), "outside the package's working range")])
def test_a_fraction_residual_in_qp_stats_meets_the_residual_checks(value, words):
    # an int/float isinstance let Fraction(-1) past the ">= 0" check: stored as -1.0 (the red23a class)
    from algorithms.qp.dqp import QPStats

    with pytest.raises(ValueError, match=words):
        QPStats(stationarity=value)
    assert QPStats(stationarity=Fraction(1, 4)).stationarity == 0.25


@pytest.mark.parametrize("scale, which", [(1e-320, "Pq"), (1e-320, "Gh"), (5e-324, "Pq")])
def test_subnormal_qp_data_refused_with_the_documented_rule(scale, which):
    # a QP whose data are subnormal needs a scale factor past 2**1023: refused, but the message said "its
    # solution or objective is not representable" (false: x* is that of the unit-scale QP) and DQP's docstring
    # did not state the rule
    from algorithms.core import solve
    from algorithms.qp import DQP, QP
    P, q = np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([-1.0, 1.0])
    G, h = np.array([[1.0, 1.0]]), np.array([0.5])
    data = (P * scale, q * scale, G, h) if which == "Pq" else (P, q, G * scale, h * scale)
    with pytest.raises(ValueError, match=r"span scales beyond float64 .* subnormal size"):
        solve(QP(P=data[0], q=data[1], G=data[2], h=data[3]), DQP())
    assert "subnormal size" in DQP.__doc__


def test_a_subnormal_right_hand_side_of_an_inactive_row_still_solves():
    # the subnormal rule covers P, q and the bounds: an inactive row G x <= 1e-320 was solved right, still is
    from algorithms.core import RetCode, solve
    from algorithms.qp import DQP, QP
    P, q = np.array([[2.0, 0.5], [0.5, 1.0]]), np.array([-1.0, 1.0])
    sol = solve(QP(P=P, q=q, G=np.ones((1, 2)), h=np.array([1e-320])), DQP())
    assert sol.retcode is RetCode.Success
    assert np.allclose(sol.x, np.linalg.solve(P, -q), rtol=1e-9, atol=0)


@pytest.mark.parametrize("bound", [1e8, 1e20, 1e30, 3.4e38])
@pytest.mark.parametrize("backend", ["auto", "clarabel", "daqp"])
def test_heldout24_huge_bounds_do_not_hide_a_violated_row(backend, bound):
    """heldout24: bounds of ±1e20 (Maros-Meszaros' "none") shared one primal scale with h, so clarabel's
    x = (1, 1), violating x1 <= 0.5 by 0.5, passed as Success; the bounds are now scaled on their own."""
    from algorithms.qp.dqp import kkt_residuals

    qp = QP(P=np.eye(2), q=-np.ones(2), G=np.eye(2), h=np.array([0.5, 2.0]),
            lb=np.full(2, -bound), ub=np.full(2, bound))
    residuals = kkt_residuals(qp, np.array([1.0, 1.0]), None, np.zeros(2), np.zeros(2))
    assert residuals["primal"] >= 0.5 / 2.0          # the control: the old scale gave 5e-21 at 1e20
    sol = solve(qp, DQP(backend=backend))
    if sol.retcode is RetCode.Success:
        assert np.allclose(sol.x, [0.5, 1.0], atol=1e-6)
    else:
        assert sol.retcode is RetCode.Failure
