from itertools import pairwise

import numpy as np
import pytest

from algorithms.blackbox.components import (
    BOUNDARY,
    SELECTIONS,
    SepCMAState,
    boundary,
    crossover,
    de_mutation,
    ga_mutation,
    initialize,
    niche,
    partners,
    pso_update,
    reduced_size,
    select,
)

RNG = np.random.default_rng


def test_lhs_strata_and_sobol_balance():
    X = initialize("lhs", 16, np.zeros(3), np.ones(3), RNG(0))
    for j in range(3):
        assert sorted(np.floor(X[:, j] * 16).astype(int).tolist()) == list(range(16))
    S = initialize("sobol", 16, np.zeros(2), np.ones(2), RNG(0))
    assert np.all(np.bincount(np.floor(S[:, 0] * 4).astype(int), minlength=4) == 4)  # (t, m, s)-net balance


def test_gaussian_init_centred():
    X = initialize("gaussian", 4000, -np.ones(2), np.ones(2), RNG(1))
    assert np.all(np.abs(X.mean(0)) < 0.02) and np.all(np.abs(X.std(0) - 1 / 3) < 0.02)


def test_partners_distinct_and_in_group():
    groups = np.repeat([0, 1, 2], 7)
    R = partners(5, groups, RNG(0))
    assert np.all(groups[R] == groups[:, None]) and np.all(R != np.arange(21)[:, None])
    assert all(len(set(r)) == 5 for r in R.tolist())
    with pytest.raises(ValueError, match="partners"):
        partners(5, np.zeros(5, dtype=int), RNG(0))


def test_de_mutation_rand1_mean():
    # E[x_r1 + F (x_r2 - x_r3)] over the draw of partners is the mean of the others
    X = RNG(0).normal(size=(10, 2))
    V = np.mean([de_mutation("rand1", X, np.zeros(10), RNG(s), F1=0.5) for s in range(3000)], axis=0)
    others = (X.sum(0) - X) / 9
    assert np.allclose(V, others, atol=0.05)


def test_binomial_rate_and_exponential_run_length():
    N, d, Cr = 4000, 10, 0.5
    X, V = np.zeros((N, d)), np.ones((N, d))
    U = crossover("binomial", X, V, Cr, RNG(0))
    # each gene: Cr + (1 - Cr)/d donor probability (the forced j_rand)
    assert abs(U.mean() - (Cr + (1 - Cr) / d)) < 4 * np.sqrt(0.25 / (N * d))
    L = crossover("exponential", X, V, Cr, RNG(0)).sum(1)
    expected = sum(Cr ** (k - 1) for k in range(1, d + 1))   # E[L] = Σ P(L >= k)
    assert abs(L.mean() - expected) < 0.1


def test_polynomial_mutation_stays_in_box_and_gaussian_scale():
    X = RNG(0).uniform(-1, 1, (2000, 3))
    V = ga_mutation("polynomial", X, -np.ones(3), np.ones(3), RNG(1), eta=20.0)
    assert np.all((V >= -1 - 1e-12) & (V <= 1 + 1e-12))
    G = ga_mutation("gaussian", np.zeros((20000, 1)), -np.ones(1), np.ones(1), RNG(2), sigma=0.1)
    assert abs(G.std() - 0.2) < 0.005


def test_pso_velocity_clamp_and_attraction():
    X = np.zeros((1, 2))
    P = np.full((1, 2), 10.0)
    Xn, Vn = pso_update(X, np.zeros((1, 2)), P, np.zeros(1), -np.ones(2) * 10, np.ones(2) * 10, RNG(0),
                        w=0.0, c1=2.0, c2=2.0)
    assert np.all(Vn <= 0.2 * 20 + 1e-12) and np.all(Vn > 0) and np.allclose(Xn, Vn)


@pytest.mark.parametrize("method", BOUNDARY)
def test_boundary_identity_inside(method):
    U = RNG(0).uniform(0.1, 0.9, (5, 3))
    assert np.array_equal(boundary(method, U, U, np.zeros(3), np.ones(3), RNG(0)), U)


def test_boundary_formulas():
    lo, hi = np.zeros(1), np.ones(1)
    U = np.array([[1.25], [-0.25], [3.5]])
    X = np.full((3, 1), 0.5)
    assert boundary("reflect", U, X, lo, hi, RNG(0)).ravel().tolist() == [0.75, 0.25, 0.5]
    assert boundary("periodic", U, X, lo, hi, RNG(0)).ravel().tolist() == [0.25, 0.75, 0.5]
    assert boundary("halving", U, X, lo, hi, RNG(0)).ravel().tolist() == [0.75, 0.25, 0.75]


@pytest.mark.parametrize("method", SELECTIONS)
def test_selection_keeps_best(method):
    X, U = RNG(0).normal(size=(6, 2)), RNG(1).normal(size=(6, 2))
    y, yu = RNG(2).normal(size=6), RNG(3).normal(size=6)
    Xn, yn = select(method, X, y, U, yu, RNG(4))
    assert yn.min() == min(y.min(), yu.min()) and Xn.shape == X.shape


def test_crowding_replaces_nearest():
    X = np.array([[0.0], [10.0]])
    U, yu = np.array([[9.0], [0.5]]), np.array([0.0, 5.0])
    Xn, yn = select("crowding", X, np.array([1.0, 1.0]), U, yu, RNG(0))
    assert Xn.ravel().tolist() == [0.0, 9.0] and yn.tolist() == [1.0, 0.0]


def test_niche_sizes_and_distance_groups():
    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    y = np.array([0.0, 1.0, 2.0, 0.5, 1.5, 2.5])
    labels = niche("distance", X, y, 2, RNG(0))
    assert labels.tolist() == [0, 0, 0, 1, 1, 1]
    for method in ("random", "ranking"):
        assert np.bincount(niche(method, X, y, 4, RNG(0))).tolist() == [2, 2, 1, 1]


def test_reduced_size_monotone():
    sizes = [reduced_size(m, 100, 4, t) for m in ("linear", "nonlinear") for t in np.linspace(0, 1, 11)]
    lin, nonlin = sizes[:11], sizes[11:]
    assert lin[0] == nonlin[0] == 100 and lin[-1] == nonlin[-1] == 4
    assert all(a >= b for a, b in pairwise(lin)) and all(a >= b for a, b in pairwise(nonlin))


def test_sep_cmaes_on_sphere():
    rng = RNG(0)
    es = SepCMAState.start(np.full(4, 2.0), 1.0)
    for _ in range(150):
        X = es.sample(8, rng)
        es.update(X, (X**2).sum(1), 0.5)
    assert np.linalg.norm(es.m) < 1e-4 and es.sigma < 1e-3
