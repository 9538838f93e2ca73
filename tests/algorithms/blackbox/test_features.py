import numpy as np

from algorithms.blackbox import BlackBoxProblem, Evaluator, problem_features
from algorithms.blackbox.features import FEATURE_NAMES, N_FEATURES, ela_features, sample_size


def test_sizes():
    assert N_FEATURES == len(FEATURE_NAMES) == 13
    assert sample_size(5, 10_000) == 100 and sample_size(2, 5) == 5


def test_quadratic_is_fit_exactly_and_linear_is_not_multimodal():
    X = np.random.default_rng(0).random((80, 3))
    f = ela_features(X, ((X - 0.3) ** 2).sum(1), np.zeros(3), np.ones(3))
    assert f[1] > 1 - 1e-9 and f[0] < 0.9          # quad R² = 1, linear R² < 1
    g = ela_features(X, X @ [1.0, 1.0, 1.0], np.zeros(3), np.ones(3))
    assert g[0] > 1 - 1e-9 and g[8] <= 0.05         # one corner minimum
    assert g[6] > 0.5                               # fitness rises with distance from the best


def test_constant_and_nonfinite_samples():
    X = np.random.default_rng(0).random((30, 2))
    assert np.all(ela_features(X, np.ones(30), np.zeros(2), np.ones(2)) == 0)
    y = X.sum(1)
    y[:3] = np.inf
    assert np.all(np.isfinite(ela_features(X, y, np.zeros(2), np.ones(2))))


def test_problem_features_charge_budget():
    p = BlackBoxProblem(lambda x: float(x @ x), (-np.ones(4), np.ones(4)), 2000)
    ev = Evaluator(p)
    F, X, _ = problem_features(ev, np.random.default_rng(0))
    assert F.shape == (13,) and ev.evaluations == len(X) == sample_size(4, 2000) and np.all(np.isfinite(F))
