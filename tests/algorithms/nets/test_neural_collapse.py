"""Data generators, the separability checker and the NC metrics of algorithms.nets.neural_collapse."""

import numpy as np
import pytest

from algorithms.nets.neural_collapse import (
    as_class_labels,
    class_means,
    classifier_alignment,
    etf_distance,
    interleaved_sector_data,
    mean_cosines,
    nc1,
    nc_metrics,
    orthogonal_separability,
    orthogonally_separable_data,
    within_class_ratio,
)


# ----------------------------------------------------------------------------- data
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_generator_is_orthogonally_separable(k, seed):
    X, y = orthogonally_separable_data(7, 4 * k, n_classes=k, seed=seed)
    assert X.shape == (7 * k, 4 * k)
    assert np.bincount(y).tolist() == [7] * k
    gram = X @ X.T
    same = y[:, None] == y[None, :]
    assert gram[same].min() > 0 and gram[~same].max() <= 1e-12  # brute force over all pairs
    assert orthogonal_separability(X, y).separable
    norms = np.linalg.norm(X, axis=1)
    assert norms.min() >= 0.5 - 1e-12 and norms.max() <= 1.5 + 1e-12


def test_generator_margin_bounds():
    # same-class inner products >= a a' (1 - spread²); cross-class = a a' rho
    X, y = orthogonally_separable_data(10, 10, n_classes=2, spread=0.5, center_correlation=-0.3,
                                       norm_range=(1.0, 1.0), seed=4)
    s = orthogonal_separability(X, y)
    # points are rescaled to unit norm, which divides by ||c + s z|| <= sqrt(1 + spread²)
    assert s.min_same >= (1 - 0.25) / (1 + 0.25) - 1e-12
    assert s.max_cross <= -0.3 / (1 + 0.25) + 1e-12


def test_generator_is_seeded_and_keeps_float32():
    a = orthogonally_separable_data(3, 6, seed=5)
    b = orthogonally_separable_data(3, 6, seed=5)
    np.testing.assert_array_equal(a[0], b[0])
    assert orthogonally_separable_data(3, 6, seed=5, dtype=np.float32)[0].dtype == np.float32
    assert not np.array_equal(a[0], orthogonally_separable_data(3, 6, seed=6)[0])


def test_sector_data_violates_the_assumption():
    for k in (2, 3):
        X, y = interleaved_sector_data(6, 5, n_classes=k, seed=0)
        s = orthogonal_separability(X, y)
        assert not s.separable and s.max_cross > 0
        assert np.bincount(y).tolist() == [6] * k


def test_checker_on_hand_made_sets():
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    assert orthogonal_separability(X, [0, 1]).separable  # orthogonal across classes is allowed
    X2 = np.array([[1.0, 0.0], [-1.0, 0.1], [0.0, 1.0]])
    assert not orthogonal_separability(X2, [0, 0, 1]).separable  # same class, negative inner product


@pytest.mark.parametrize("kwargs, match", [
    ({"n_per_class": 0, "dim": 6}, "n_per_class"),
    ({"n_per_class": 3, "dim": 3}, "dim"),
    ({"n_per_class": 3, "dim": 6, "n_classes": 1}, "n_classes"),
    ({"n_per_class": 3, "dim": 6, "spread": 1.0}, "spread"),
    ({"n_per_class": 3, "dim": 6, "center_correlation": 0.2}, "center_correlation"),
    ({"n_per_class": 3, "dim": 6, "norm_range": (0.0, 1.0)}, "norm_range"),
])
def test_generator_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        orthogonally_separable_data(**kwargs)


@pytest.mark.parametrize("y, match, exc", [
    ([0, 2, 2], "class 1 has no sample", ValueError),
    ([0, 0, 0], "at least two classes", ValueError),
    ([-1, 0, 1], "class indices", ValueError),
    ([0.5, 1.0, 0.0], "integer class indices", TypeError),
    ([[0, 1]], "1-dimensional", ValueError),
])
def test_labels_bad_inputs(y, match, exc):
    with pytest.raises(exc, match=match):
        as_class_labels("y", y)


def test_labels_not_covering_n_classes():
    with pytest.raises(ValueError, match="class 2 has no sample"):
        as_class_labels("y", [0, 1, 1], n_classes=3)


def test_separability_length_mismatch():
    with pytest.raises(ValueError, match="y must have length"):
        orthogonal_separability(np.eye(3), [0, 1])


# ----------------------------------------------------------------------------- metrics
def _brute_nc1(H, y):
    k = int(y.max()) + 1
    mu = np.array([H[y == c].mean(0) for c in range(k)])
    mg = H.mean(0)
    sw = sum(np.outer(h - mu[c], h - mu[c]) for h, c in zip(H, y)) / len(H)
    sb = sum(np.outer(m - mg, m - mg) for m in mu) / k
    return np.trace(sw @ np.linalg.pinv(sb)) / k


def test_nc1_matches_brute_force():
    rng = np.random.default_rng(0)
    H = rng.standard_normal((30, 5)) + np.repeat(np.eye(3, 5) * 4, 10, axis=0)
    y = np.repeat(np.arange(3), 10)
    assert nc1(H, y) == pytest.approx(_brute_nc1(H, y), rel=1e-9)


def test_nc1_zero_for_collapsed_and_scale_invariant():
    H = np.repeat(np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 3.0]]), 4, axis=0)
    y = np.repeat(np.arange(3), 4)
    assert nc1(H, y) == 0.0 and within_class_ratio(H, y) == 0.0
    rng = np.random.default_rng(1)
    G = H + 0.1 * rng.standard_normal(H.shape)
    assert nc1(7.0 * G, y) == pytest.approx(nc1(G, y), rel=1e-9)


def test_directional_collapse_ignores_norms():
    # same direction per class, different norms: raw NC1 > 0, directional NC1 = 0
    H = np.array([[1.0, 0.0], [3.0, 0.0], [0.0, 1.0], [0.0, 2.0]])
    y = np.array([0, 0, 1, 1])
    assert nc1(H, y) > 0.1
    assert nc1(H, y, normalize=True) == 0.0
    assert within_class_ratio(H, y, normalize=True) == 0.0


def test_within_ratio_sees_directions_nc1_misses_for_two_classes():
    # spread orthogonal to the between-class direction is invisible to tr(Σ_W Σ_B⁺) when K = 2
    H = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    assert nc1(H, y) == pytest.approx(0.0, abs=1e-15)
    assert within_class_ratio(H, y) == pytest.approx(0.5)


def test_mean_cosines_and_etf():
    means = np.array([[2.0, 0, 0], [0, 1.0, 0], [0, 0, 5.0]])
    np.testing.assert_allclose(mean_cosines(means), np.eye(3), atol=1e-15)
    assert etf_distance(np.eye(3)) == pytest.approx(0.0, abs=1e-12)
    assert etf_distance(means) > 0.05  # unequal norms: centred means are no simplex ETF
    # simplex ETF directly
    etf = np.eye(4) - 0.25
    assert etf_distance(etf) == pytest.approx(0.0, abs=1e-12)


def test_class_means_and_alignment():
    H = np.array([[1.0, 2.0, 0.0], [3.0, 2.0, 0.0], [0.0, 0.0, 4.0]])
    y = np.array([0, 0, 1])
    M = class_means(H, y)
    np.testing.assert_allclose(M, [[2.0, 2.0, 0.0], [0.0, 0.0, 4.0]])
    # binary classifier v = +mean_0 - mean_1 on the supports: perfect projected self-duality
    np.testing.assert_allclose(classifier_alignment(np.array([1.0, 1.0, -7.0]), M), [1.0, 1.0])
    # multi-class rows equal to the means (after centring they remain aligned on the supports)
    V = np.array([[1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]])
    np.testing.assert_allclose(classifier_alignment(V, M), [1.0, 1.0])
    with pytest.raises(ValueError, match="V must have shape"):
        classifier_alignment(np.ones((3, 3)), M)


def test_nc_metrics_keys_and_values():
    X, y = orthogonally_separable_data(4, 8, seed=0)
    H = np.maximum(X, 0.0)
    out = nc_metrics(H, y, V=np.ones(8))
    assert set(out) == {"nc1", "nc1_directional", "within_ratio", "within_ratio_directional",
                        "max_mean_cosine", "etf_distance", "min_classifier_alignment",
                        "self_duality_residual"}
    assert all(isinstance(v, float) for v in out.values())


def test_metrics_bad_inputs():
    with pytest.raises(ValueError, match="y must have length"):
        nc1(np.ones((3, 2)), [0, 1])
    with pytest.raises(ValueError, match="H contains NaN"):
        nc1(np.array([[np.nan, 1.0], [1.0, 1.0]]), [0, 1])
