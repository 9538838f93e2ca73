"""Exact multivariate ℓp / ℓ0 path-norm interpolation by enumerating activation patterns."""

import itertools

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.nets.multivariate_interpolation import (
    MultivariateInterpolationProblem,
    PatternEnumeration,
    activation_patterns,
    basic_points,
    network_from_pieces,
    network_l0,
    network_lp,
    pattern_program,
)


def _forward(X, W, v):
    Xa = np.hstack([np.asarray(X, dtype=float), np.ones((len(X), 1))])
    return np.maximum(Xa @ np.asarray(W).T, 0.0) @ np.asarray(v)


def test_activation_patterns_of_points_on_a_line_are_the_threshold_sets():
    # 1-D data with a bias: a ReLU is on for x >= t or for x <= t, nothing else
    pats = {tuple(row) for row in activation_patterns([[0.0], [1.0], [2.0]]).astype(int)}
    assert pats == {(0, 0, 1), (0, 1, 1), (1, 1, 1), (1, 0, 0), (1, 1, 0)}


def test_activation_patterns_match_random_directions():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (3, 2))
    Xa = np.hstack([X, np.ones((3, 1))])
    sampled = {tuple((Xa @ u >= 0).astype(int)) for u in rng.normal(size=(20000, 3))} - {(0, 0, 0)}
    assert sampled == {tuple(row) for row in activation_patterns(X).astype(int)}


def test_every_basic_point_rebuilds_an_interpolating_network():
    prob = MultivariateInterpolationProblem(X=[[0.2, -0.5], [0.9, 0.4]], y=[0.7, -0.3], p=0.5)
    points, complete = basic_points(prob)
    assert complete and points
    prog = pattern_program(prob)
    for pieces, U in points:
        net = network_from_pieces(prob, pieces, U)
        np.testing.assert_allclose(_forward(prob.X, net["W"], net["v"]), prob.y, atol=1e-12)
        assert set(net["v"].tolist()) <= {1.0, -1.0}
        assert len(pieces) <= prob.n  # Proposition 4.1's count, built into the basic points
        for q in pieces:
            assert prog["patterns"][q].any()


def test_enumeration_beats_random_interpolating_networks():
    # random width-3 nets with drawn hidden weights, output weights fit exactly: never below the optimum
    prob = MultivariateInterpolationProblem(X=[[0.3, -0.8], [-0.6, 0.5]], y=[1.0, -0.4], p=0.5)
    best = solve(prob, PatternEnumeration())
    assert best.retcode is RetCode.Success
    np.testing.assert_allclose(_forward(prob.X, best.original["W"], best.original["v"]), prob.y, atol=1e-12)
    rng = np.random.default_rng(1)
    Xa = np.hstack([prob.X, np.ones((2, 1))])
    for _ in range(300):
        W = rng.normal(size=(3, 3))
        H = np.maximum(Xa @ W.T, 0.0)
        v, *_ = np.linalg.lstsq(H, prob.y, rcond=None)
        if np.max(np.abs(H @ v - prob.y)) > 1e-10:
            continue
        assert network_lp(W, v, 0.5) >= best.value * (1 - 1e-9)


def test_l0_objective_finds_the_single_neuron():
    X = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    sol = solve(MultivariateInterpolationProblem(X=X, y=[0.0, 1.0, 1.0], p=0.0), PatternEnumeration())
    assert sol.value == 2.0 and network_l0(sol.original["W"], sol.original["v"]) == 2
    np.testing.assert_allclose(_forward(X, sol.original["W"], sol.original["v"]), [0.0, 1.0, 1.0], atol=1e-12)


def test_more_pieces_than_points_add_no_basic_point():
    prob = MultivariateInterpolationProblem(X=[[0.5, 0.1], [-0.2, 0.7]], y=[0.4, -0.9], p=0.3)
    at_n, _ = basic_points(prob)
    at_more, _ = basic_points(prob, max_pieces=3)
    assert len(at_n) == len(at_more)


def test_budget_gives_maxiters_and_dtype_is_kept():
    X = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    y = np.array([1.0, -2.0], dtype=np.float32)
    prob = MultivariateInterpolationProblem(X=X, y=y, p=0.5)
    assert solve(prob, PatternEnumeration(), maxiters=1).retcode is RetCode.MaxIters
    sol = solve(prob, PatternEnumeration())
    assert sol.retcode is RetCode.Success and sol.x.dtype == np.float32


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
def test_lp_and_l0_helpers_agree_with_a_direct_sum(p):
    W = np.array([[1.0, -2.0, 0.0], [0.5, 0.0, 3.0]])
    v = np.array([2.0, -1.0])
    direct = sum(abs(v[k] * W[k, i]) ** p for k, i in itertools.product(range(2), range(3)) if W[k, i])
    assert network_lp(W, v, p) == pytest.approx(direct)
    assert network_l0(W, v) == 4


def test_no_selection_tried_gives_an_empty_network_of_the_right_shape():
    # maxiters=0: no basic point, MaxIters, and an empty net whose rows would have d + 1 entries
    prob = MultivariateInterpolationProblem(X=[[0.0, 1.0, 2.0], [1.0, 0.0, 0.5]], y=[1.0, -2.0], p=0.5)
    sol = solve(prob, PatternEnumeration(), maxiters=0)
    assert sol.retcode is RetCode.MaxIters and sol.value == float("inf")
    assert sol.original["W"].shape == (0, 4) and sol.x.size == 0


def test_point_limit_is_inclusive():
    # MAX_POINTS = 6 points are accepted (the problem is only built, not solved), 7 are refused
    X = np.arange(12.0).reshape(6, 2) ** 1.5
    assert MultivariateInterpolationProblem(X=X, y=np.ones(6)).n == 6
    with pytest.raises(ValueError, match="at most 6"):
        MultivariateInterpolationProblem(X=np.vstack([X, [[100.0, 1.0]]]), y=np.ones(7))


def test_basic_points_do_not_depend_on_the_units_of_x_and_y():
    # X -> sX, y -> cy maps each basic point u = (w, b) to (c·w/s, c·b); an absolute singularity threshold
    # lost basic points at s = 1e-3, and rounding the returned points to 12 decimals cost y·1e-6 six digits
    X, y = np.array([[0.7, -0.4], [-0.2, 0.9]]), np.array([0.6, -0.3])
    ref, _ = basic_points(MultivariateInterpolationProblem(X=X, y=y, p=0.5))
    for s, c in ((1e-3, 1.0), (1.0, 1e-6)):
        got, _ = basic_points(MultivariateInterpolationProblem(X=s * X, y=c * y, p=0.5))
        assert len(got) == len(ref)
        unit = c * np.array([1.0 / s, 1.0 / s, 1.0])
        assert sorted(sel for sel, _ in got) == sorted(sel for sel, _ in ref)
        by_sel = {}
        for sel, U in got:
            by_sel.setdefault(sel, []).append(U / unit)
        for sel, U in ref:
            assert min(np.max(np.abs(B - U)) for B in by_sel[sel]) <= 1e-9 * max(1.0, np.max(np.abs(U)))
