"""Contract cases for every (ChanceConstrainedProblem, algorithm) pair of the chance family."""

from algorithms.chance import SAAMILP, CVaRApproximation, GGDOpt, ScenarioApproach, linear_gaussian_problem

#: tiny GGDOpt: a few restricted problems, a short training, few samples (the contract checks the
#: interface, the claims check the method)
TINY_GGDOPT = GGDOpt(
    beta=0.2, n_train_points=30, train_steps=60, batch_size=64, n_samples=64, n_steps=10, corrector_steps=0
)


def _make(algorithm):
    def make(dtype):
        return linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0, dtype=dtype), algorithm

    make.__name__ = f"make_{type(algorithm).__name__}"
    return make


CASES = [_make(a) for a in (TINY_GGDOPT, SAAMILP(), CVaRApproximation(), ScenarioApproach())]
