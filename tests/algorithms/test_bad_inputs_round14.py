"""Round 14 of issue #43 (core): public helpers whose numeric arguments were taken unchecked."""

import pytest

from algorithms.core import SolveOptions


@pytest.mark.parametrize("default", [-1, 2.5, "10", True, 2**64])
def test_solve_options_iterations_refuses_a_bad_default_by_name(default):
    # iterations(-1) returned -1 (a loop of no steps reported as the algorithm's cap) in silence
    with pytest.raises((ValueError, TypeError), match="default"):
        SolveOptions().iterations(default)


def test_solve_options_iterations_keeps_valid_defaults_and_maxiters():
    assert SolveOptions().iterations(0) == 0
    assert SolveOptions().iterations(7) == 7
    assert SolveOptions(maxiters=3).iterations(7) == 3


def _nonfinite_containers():
    import array
    import math

    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    return [sp.csr_matrix(np.array([[np.nan]])), pd.DataFrame([[np.nan, 1.0]]), pd.Series([np.inf]),
            array.array("d", [math.nan]), memoryview(np.array([1.0, np.nan]))]


@pytest.mark.parametrize("x", _nonfinite_containers(), ids=lambda x: type(x).__name__)
def test_a_success_refuses_a_non_finite_answer_in_any_container(x):
    # scipy sparse, pandas, array.array and memoryview answers were not looked into: a NaN passed as Success
    from algorithms.core import RetCode, Solution

    with pytest.raises(ValueError, match="x must be finite"):
        Solution(x, 0.0, RetCode.Success)


def test_a_success_refuses_a_non_finite_real_of_another_number_type():
    mpmath = pytest.importorskip("mpmath")
    from algorithms.core import RetCode, Solution

    with pytest.raises(ValueError, match="x must be finite"):
        Solution(mpmath.mpf("nan"), 0.0, RetCode.Success)


def test_finite_containers_and_an_all_nan_frame_at_the_horizon_are_kept():
    import array

    import numpy as np
    import pandas as pd
    import scipy.sparse as sp

    from algorithms.core import RetCode, Solution

    for x in [sp.csr_matrix(np.eye(2)), pd.DataFrame([[1.0]]), array.array("d", [1.0]),
              memoryview(np.array([1.0])), 10**400, [1, 2], frozenset({1})]:
        assert Solution(x, 0.0, RetCode.Success).x is x
    assert Solution(pd.Series([np.nan]), np.nan, RetCode.MaxIters).retcode is RetCode.MaxIters


@pytest.mark.parametrize("scale", [1e-12, 1.0, 1e12])
def test_symmetry_and_psd_checks_are_relative_to_the_matrix(scale):
    # red14b: both floored the scale at 1, so 1e-12 · (an asymmetric / indefinite matrix) passed in silence
    import numpy as np

    from algorithms._validation import check_psd, check_square_symmetric
    from algorithms.qp import QP

    with pytest.raises(ValueError, match="M must be symmetric"):
        check_square_symmetric("M", scale * np.array([[2.0, 1.0], [0.0, 2.0]]))
    with pytest.raises(ValueError, match="M must be positive semidefinite"):
        check_psd("M", scale * np.diag([1.0, -1.0]))
    with pytest.raises(ValueError, match="P must be positive semidefinite"):
        QP(P=scale * np.diag([1.0, -1.0]), q=np.zeros(2))
    check_square_symmetric("M", scale * np.eye(2))
    assert check_psd("M", scale * np.eye(2)) == pytest.approx(scale)
    QP(P=np.zeros((2, 2)), q=np.ones(2))   # P = 0, a linear program: PSD at any scale
