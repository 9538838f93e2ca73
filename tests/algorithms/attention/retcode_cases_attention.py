"""Retcode cases of algorithms.attention (tests/test_contract.py): a blow-up and horizons.

SphericalGD keeps its iterates on the sphere and its empirical risk is bounded on a finite
sample, so no valid input makes it diverge; it has a horizon case only (a non-finite risk
would be reported as ``Diverged``).
"""

from algorithms import RetCode
from algorithms.attention import OverlapFlow, SingleLocationProblem, SphericalGD
from tests.retcodes import RetcodeCase


def _flow_problem():
    return SingleLocationProblem(d=6, L=4, gamma=0.6, beta=0.5)


CASES = [
    # lr = 100: the first Euler step throws μ far outside [-1, 1] (|velocity| ~ 0.1 at the start)
    RetcodeCase("overlapflow-blowup", lambda: (_flow_problem(), OverlapFlow(lr=100.0), {"seed": 0}),
                RetCode.Diverged),
    # 10 Euler steps of 0.05 from a random start cannot bring the velocity to 1e-8
    RetcodeCase("overlapflow-horizon", lambda: (_flow_problem(), OverlapFlow(lr=0.05),
                                                {"seed": 0, "maxiters": 10}), RetCode.MaxIters),
    # 5 steps cannot make the Riemannian gradient of the empirical risk 1e-10 small
    RetcodeCase("sphericalgd-horizon",
                lambda: (SingleLocationProblem(d=6, L=3, gamma=0.6, n_samples=50), SphericalGD(lr=0.05),
                         {"seed": 0, "maxiters": 5, "tol": 1e-10}), RetCode.MaxIters),
]
