"""Round 18 (issue #43): state changed after construction, then used (bayesopt)."""
import numpy as np
import pytest

from algorithms._validation import UnknownAttributeError
from algorithms.bayesopt import CEI, GaussianProcess, Kernel


def _gp():
    gp = GaussianProcess(Kernel())
    gp.add(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]))
    return gp


def _ask_tell():
    return CEI(n_candidates=50).ask_tell(np.array([[0.0, 1.0], [0.0, 1.0]]), 1, initial=3)


CASES = {
    "GaussianProcess.jiter": (_gp, "jiter", 1e-2),
    "GaussianProcess.kernal": (_gp, "kernal", Kernel("se")),
    "CEIAskTell.algoritm": (_ask_tell, "algoritm", CEI(fit=False)),
    "CEIAskTell.problemm": (_ask_tell, "problemm", None),
}


@pytest.mark.parametrize("case", list(CASES))
def test_misspelt_attribute_refused(case):
    # gp.jiter = 1e-2 kept the old jitter, bo.algoritm = CEI(fit=False) the old algorithm, in silence (red18a)
    make, name, value = CASES[case]
    obj = make()
    with pytest.raises(UnknownAttributeError, match=f"takes no attribute '{name}'"):
        setattr(obj, name, value)
    assert name not in vars(obj)


def test_correct_spelling_still_takes_effect():
    gp = _gp()
    gp.jitter = 1e-4
    reference = GaussianProcess(Kernel(), jitter=1e-4)
    reference.add(np.array([[0.0], [1.0]]), np.array([0.0, 1.0]))
    X = np.array([[0.25], [0.5]])
    np.testing.assert_allclose(gp.predict(X), reference.predict(X), rtol=1e-12)
    bo = _ask_tell()
    bo.algorithm = CEI(fit=False)
    assert bo.algorithm.fit is False


# ---- read-only arrays are immutable: the flag of a read-only view could be set back (red18a: gp.y[1] = 100
# was used with the old posterior; h_samples, lower, best_x likewise)
def _sealed_arrays():
    import copy

    from algorithms.bayesopt import gardner_problem, rkhs_function
    from algorithms.blackbox import Evaluator, bbob_problem
    from algorithms.chance import linear_gaussian_problem

    ev = Evaluator(bbob_problem(1, 1, 2, 50))
    ev(np.zeros((2, 2)))
    g = rkhs_function(Kernel(), 2, 3.0, n_centers=5)
    return {"GaussianProcess.y": lambda: _gp().y, "GaussianProcess.X": lambda: _gp().X,
            "Kernel.lengthscale": lambda: Kernel(lengthscale=np.array([0.2, 0.3])).lengthscale,
            "ConstrainedBOProblem.bounds": lambda: gardner_problem().bounds,
            "RKHSFunction.weights": lambda: g.weights,
            "ChanceConstrainedProblem.h_samples":
                lambda: linear_gaussian_problem(n=2, n_samples=30).h_samples,
            "BlackBoxProblem.lower": lambda: bbob_problem(1, 1, 2, 50).lower,
            "BlackBoxProblem.lower (deepcopy)": lambda: copy.deepcopy(bbob_problem(1, 1, 2, 50)).lower,
            "Evaluator.best_x": lambda: ev.best_x}


@pytest.mark.parametrize("name", list(_sealed_arrays()))
def test_read_only_arrays_cannot_be_made_writable(name):
    array = _sealed_arrays()[name]()
    for a in (array, array.base):
        if isinstance(a, np.ndarray):
            with pytest.raises(ValueError, match="WRITEABLE"):
                a.flags.writeable = True
