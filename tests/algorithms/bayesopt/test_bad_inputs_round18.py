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
