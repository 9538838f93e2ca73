"""Retcode contract cases of the CEI family (``tests/test_contract.py`` runs them).

* ``MaxIters``: three CEI steps on Gardner's problem cannot bring the regret to 1e-6.
* ``Diverged``: the objective returns NaN from its 9th evaluation on (a failed simulation).
* ``MaxIters`` also when no point is feasible yet: CEI keeps searching for one, no ``Failure``.
"""

import numpy as np

from algorithms import RetCode
from algorithms.bayesopt import CEI, ConstrainedBOProblem, Kernel, gardner_problem
from tests.retcodes import RetcodeCase

SE = Kernel("se", lengthscale=0.2)


def _horizon():
    return gardner_problem(initial=8), CEI.paper(kernel=SE), {"maxiters": 3}


def _nan_after_eight():
    calls = {"n": 0}

    def f(x):
        calls["n"] += 1
        return float("nan") if calls["n"] > 8 else float(np.sum((x - 0.8) ** 2))

    problem = ConstrainedBOProblem(
        f=f, c=lambda x: float(x[0] + x[1] - 1.0), bounds=[[0.0, 1.0], [0.0, 1.0]], initial=6, f_star=0.18
    )
    return problem, CEI.paper(kernel=SE), {"maxiters": 20}


def _no_feasible_start():
    problem = ConstrainedBOProblem(
        f=lambda x: float(x @ x),
        c=lambda x: float(0.9 - x[0]),
        bounds=[[0.0, 1.0], [0.0, 1.0]],
        initial=np.array([[0.1, 0.5], [0.5, 0.5]]),
    )
    return problem, CEI.paper(kernel=SE), {"maxiters": 10}


CASES = [
    RetcodeCase("cei-horizon", _horizon, RetCode.MaxIters),
    RetcodeCase("cei-nan-objective", _nan_after_eight, RetCode.Diverged),
    RetcodeCase("cei-no-feasible-start", _no_feasible_start, RetCode.MaxIters),
]
