"""Round 20 of issue #43 (red20a): a fixed kernel lengthscale far above the points' spread made distinct
design points numerically one, and the refusal blamed a "duplicate" that did not exist; it now names the
lengthscale."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.bayesopt import CEI, ConstrainedBOProblem, GaussianProcess, Kernel

MERGED = r"away, which the kernel's lengthscale = .* makes numerically the same"


@pytest.mark.parametrize("lengthscale", [1e3, 1e6, 3e38])
def test_cei_names_a_lengthscale_that_merges_distinct_points(lengthscale):
    problem = ConstrainedBOProblem(f=lambda x: float(np.sum((x - 0.3) ** 2)),
                                   c=lambda x: float(x[0] + x[1] - 1.0),
                                   bounds=np.array([[0.0, 1.0], [0.0, 1.0]]), initial=5, f_star=0.0)
    with pytest.raises(ValueError, match=MERGED):
        solve(problem, CEI.paper(kernel=Kernel("se", lengthscale=lengthscale)), seed=3, maxiters=8)


def test_a_true_duplicate_still_says_duplicate():
    gp = GaussianProcess(Kernel("se", lengthscale=0.2))
    gp.add(np.array([[0.5, 0.5]]), np.array([0.0]))
    with pytest.raises(ValueError, match=r"earlier observations at the same point.*duplicate"):
        gp.add(np.array([[0.5, 0.5]]), np.array([1.0]))


def test_c_raising_at_the_centre_is_a_user_callable_error_naming_c():
    from algorithms._validation import UserCallableError

    def c(x):
        raise KeyError("boom")

    with pytest.raises(UserCallableError, match=r"^c\(x\) failed at the centre of the box: KeyError"):
        ConstrainedBOProblem(f=lambda x: float(x @ x), c=c, bounds=[[0.0, 1.0], [0.0, 1.0]], initial=3)
