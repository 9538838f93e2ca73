"""The CEI, constrained_ei and GaussianProcess subjects and their BoTorch peers (cei_rates)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import solve
from algorithms.bayesopt import CEI, GaussianProcess, Kernel, constrained_ei, two_disks_problem
from theorems.core import REGISTRY, load_all
from theorems.core.subjects import PEERS, SUBJECTS, load_object


class CountingCEI(CEI):
    """Our CEI, counting the calls of its acquisition-maximization step."""

    calls: list = []  # noqa: RUF012 (a class-level log shared by the frozen instances)

    def maximize_acquisition(self, surrogates, U, F, C, best_feasible, rng):
        CountingCEI.calls.append(len(F))
        return super().maximize_acquisition(surrogates, U, F, C, best_feasible, rng)


def test_the_maximization_step_is_the_replaceable_part_of_cei():
    CountingCEI.calls.clear()
    algorithm = CountingCEI.paper(kernel=Kernel("se", lengthscale=0.3), n_candidates=100, n_restarts=1)
    sol = solve(two_disks_problem(initial=6), algorithm, maxiters=3, seed=0, store_trace=True)
    assert CountingCEI.calls == [6, 7, 8] and len(sol.trace) == 3
    bo = algorithm.ask_tell([[0.0, 1.0], [0.0, 1.0]], n_constraints=1, initial=3)
    for _ in range(4):
        x = bo.suggest()
        bo.observe(x, float(np.sum(x**2)), x[0] - 0.5)
    assert CountingCEI.calls[-1] == 3


def test_cei_subjects_are_registered_with_their_claims():
    load_all()
    assert SUBJECTS["CEI"].reference == "algorithms.bayesopt:CEI"
    by_subject = {name: {c.id for c in REGISTRY.values() if name in c.subjects}
                  for name in ("CEI", "constrained_ei", "GaussianProcess")}
    assert by_subject["CEI"] == {"cei_rates.regret_bound", "cei_rates.maximization_step", "cei_rates.rate_se",
                                 "cei_rates.rate_matern", "cei_rates.rate_bayesian",
                                 "cei_rates.test_problem_regret"}
    assert by_subject["constrained_ei"] == {"cei_rates.acquisition_formula"}
    assert by_subject["GaussianProcess"] == {"cei_rates.gp_posterior"}


def test_botorch_constrained_ei_equals_ours():
    pytest.importorskip("botorch")
    peer = load_object(PEERS["constrained_ei"]["BoTorch LogConstrainedExpectedImprovement"])
    rng = np.random.default_rng(0)
    mu_f, sd_f = rng.standard_normal(6), rng.uniform(0.1, 1.0, 6)
    mu_c, sd_c = rng.standard_normal((6, 2)), rng.uniform(0.1, 1.0, (6, 2))
    ours = constrained_ei(mu_f, sd_f, mu_c, sd_c, 0.2)
    # 1e-6 relative: BoTorch's log-space formula and ours agree to ~1e-7 here (its own approximations)
    np.testing.assert_allclose(peer(mu_f, sd_f, mu_c, sd_c, 0.2), ours, rtol=1e-6)


def test_botorch_gp_is_our_posterior_up_to_gpytorchs_noise_floor():
    pytest.importorskip("botorch")
    import gpytorch

    peer = load_object(PEERS["GaussianProcess"]["BoTorch SingleTaskGP"])
    rng = np.random.default_rng(1)
    X, Xq = rng.uniform(size=(30, 2)), rng.uniform(size=(10, 2))
    y = np.sin(4 * X[:, 0]) + X[:, 1]
    kernel = Kernel("matern", nu=2.5, lengthscale=0.3)
    ours, theirs = GaussianProcess(kernel, jitter=1e-8, mean=0.1), peer(kernel, jitter=1e-8, mean=0.1)
    for gp in (ours, theirs):
        gp.add(X[:13], y[:13])
        gp.add(X[13:], y[13:])
    with gpytorch.settings.min_fixed_noise(double_value=1e-10):  # the floor lowered: the same GP
        mu, sd = theirs.predict(Xq)
        lml = theirs.log_marginal_likelihood()
    mu0, sd0 = ours.predict(Xq)
    np.testing.assert_allclose(mu, mu0, atol=1e-7)
    np.testing.assert_allclose(sd, sd0, atol=1e-7)
    assert lml == pytest.approx(ours.log_marginal_likelihood(), rel=1e-6)
    # at gpytorch's default floor (noise 1e-6, not 1e-8) the posterior sd at the data is ~1e-3, not ~1e-4
    assert theirs.predict(X[:3])[1].min() > 5e-4 > ours.predict(X[:3])[1].max()


def test_botorch_log_cei_runs_our_loop_with_its_maximizer():
    pytest.importorskip("botorch")
    peer = load_object(PEERS["CEI"]["BoTorch LogConstrainedExpectedImprovement"])
    algorithm = peer(kernel=Kernel("se", lengthscale=0.3), fit=False, n_candidates=64, n_restarts=2)
    assert isinstance(algorithm, CEI)
    problem = two_disks_problem(initial=6)
    sol = solve(problem, algorithm, maxiters=3, seed=0, store_trace=True)
    assert len(sol.trace) == 3 and sol.original.X.shape == (9, 2)
    lo, hi = problem.bounds[:, 0], problem.bounds[:, 1]
    assert np.all((sol.original.X >= lo) & (sol.original.X <= hi))
    # the same seed, the same run (its raw samples are seeded from the run's generator)
    again = solve(problem, algorithm, maxiters=3, seed=0, store_trace=True)
    np.testing.assert_array_equal(again.original.X, sol.original.X)
