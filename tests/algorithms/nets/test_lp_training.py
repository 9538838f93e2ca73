"""Unit tests of the ℓp path-norm training, pruning and neuron counting."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.nets.lp_training import LpPathNormTraining, count_active_neurons, prune_network, smoothed_lp
from algorithms.nets.sparse_interpolation import CPWL, InterpolationProblem, SparsestInterpolantDP
from algorithms.nets.two_layer import TwoLayerReLU


def test_smoothed_lp_approaches_lp():
    t = np.array([-2.0, 0.5, 0.0, 3.0])
    exact = np.sum(np.abs(t) ** 0.5)
    for eps in (1e-2, 1e-4, 1e-8):
        # each entry is within eps^p of |t|^p (and the zero entry contributes exactly 0)
        assert abs(smoothed_lp(t, 0.5, eps) - exact) <= 4 * eps**0.5


def test_count_active_neurons():
    assert count_active_neurons([1.0, -2.0, 1e-8], [1.0, 1.0, 1.0], tol=1e-6) == 2
    assert count_active_neurons([1.0, 0.0], [0.0, 5.0]) == 0


def test_prune_network_drops_small_and_outside_neurons_and_polishes():
    x = np.array([0.0, 1.0, 2.0, 3.0])
    y = np.array([0.0, 0.0, 1.0, 3.0])  # sparsest: one knot at 1.5 with slope change 2
    W = np.array([1.0, 1.0, 1.0, -1.0])
    b = -W * np.array([1.5004, 0.7, 10.0, -5.0])  # near-right knot, tiny neuron, two outside the hull
    v = np.array([2.0, 1e-6, 3.0, 1.0])
    f, res = prune_network(x, y, W, b, v, a=0.0, c=0.0, prune_tol=1e-3, merge_tol=1e-3)
    assert f.num_knots == 1 and res < 1e-10
    np.testing.assert_allclose(f.knots, [1.5], atol=1e-9)


def test_training_recovers_single_knot_and_float32():
    prob = InterpolationProblem(x=[0, 1, 2, 3], y=[0, 0, 1, 3], p=0.5)
    counts = []
    for seed in range(3):  # training is a local method: some seeds stop at a 2-knot interpolant
        sol = solve(prob, LpPathNormTraining(width=8), seed=seed)
        assert sol.retcode is RetCode.Success
        f = CPWL.from_vector(sol.x)
        np.testing.assert_allclose(f(prob.x), prob.y, atol=1e-8)
        counts.append(f.num_knots)
    assert min(counts) == 1
    x32, y32 = np.arange(4, dtype=np.float32), np.array([0, 0, 1, 3], np.float32)
    prob32 = InterpolationProblem(x=x32, y=y32, p=0.5)
    assert solve(prob32, LpPathNormTraining(width=8), seed=1).x.dtype == np.float32


def test_lp_sparser_than_weight_decay_on_a_convex_run():
    x = np.linspace(-1, 1, 6)
    prob = InterpolationProblem(x=x, y=x**2, p=0.5)
    k0 = CPWL.from_vector(solve(prob, SparsestInterpolantDP()).x).num_knots
    lp = [CPWL.from_vector(solve(prob, LpPathNormTraining(), seed=s).x).num_knots for s in range(3)]
    wd = [CPWL.from_vector(solve(prob, LpPathNormTraining(regularizer="weight_decay"), seed=s).x).num_knots
          for s in range(3)]
    assert min(lp) == k0
    assert np.mean(lp) < np.mean(wd)


def test_maxiters_trace_and_determinism():
    prob = InterpolationProblem(x=[0, 1, 2], y=[0, 1, 0], p=0.5)
    zero = solve(prob, LpPathNormTraining(width=4), maxiters=0)
    assert zero.retcode is RetCode.MaxIters and len(zero.x) == 2 + 2 * CPWL.from_vector(zero.x).num_knots
    # the reported residual is that of the returned (untrained) function, not |f(x)|
    f0 = zero.original["cpwl"]
    x64, y64 = prob.x.astype(float), prob.y.astype(float)
    assert zero.original["max_residual"] == float(np.max(np.abs(f0(x64) - y64)))
    traced = solve(prob, LpPathNormTraining(width=4), maxiters=50, store_trace=True)
    assert len(traced.trace) == 50 and {"loss", "max_residual"} <= set(traced.trace[0])
    a = solve(prob, LpPathNormTraining(width=4), maxiters=300, seed=4)
    b = solve(prob, LpPathNormTraining(width=4), maxiters=300, seed=4)
    np.testing.assert_array_equal(a.x, b.x)
    # seed=None means seed 0 (LpPathNormTraining's docstring): the same run as seed=0, not another seed
    unseeded = solve(prob, LpPathNormTraining(width=4), maxiters=300, seed=None)
    seeded = {s: solve(prob, LpPathNormTraining(width=4), maxiters=300, seed=s) for s in (0, 1)}
    # (the trained weights: the pruned interpolant of three points is the same from most starts)
    np.testing.assert_array_equal(unseeded.original["params"]["W"], seeded[0].original["params"]["W"])
    assert not np.array_equal(unseeded.original["params"]["W"], seeded[1].original["params"]["W"])
    stop = solve(prob, LpPathNormTraining(width=4), maxiters=300, callback=lambda r: r["iteration"] >= 9)
    assert stop.retcode is RetCode.Terminated and stop.stats.iterations == 10


@pytest.mark.parametrize("kwargs, match", [
    ({"width": 0}, "width"),
    ({"lr": 0.0}, "lr"),
    ({"smoothing": -1.0}, "smoothing"),
    ({"smoothing_start": 0.0}, "smoothing_start"),
    ({"penalty": 0.0}, "penalty"),
    ({"outer_every": 0}, "outer_every"),
    ({"prune_tol": 1.0}, "prune_tol"),
    ({"prune_tol": -1.0}, "prune_tol"),
    ({"merge_tol": -1.0}, "merge_tol"),
    ({"init_scale": 0.0}, "init_scale"),
    ({"regularizer": "l2"}, "regularizer"),
])
def test_bad_inputs(kwargs, match):
    with pytest.raises(ValueError, match=match):
        LpPathNormTraining(**kwargs)


def test_p_zero_rejected_for_lp_training():
    prob = InterpolationProblem(x=[0, 1, 2], y=[0, 1, 0], p=0.0)
    with pytest.raises(ValueError, match="p must be > 0"):
        solve(prob, LpPathNormTraining())


def test_retcodes_follow_the_criterion():
    x = np.linspace(-1.0, 1.0, 6)
    prob = InterpolationProblem(x=x, y=[0.3, -1.2, 0.8, 0.1, -0.7, 1.5], p=0.5)
    blown = solve(prob, LpPathNormTraining(width=8, lr=1e30))  # blows up at the first step (1e200: refused)
    assert blown.retcode is RetCode.Diverged and blown.value == float("inf")
    assert blown.x.tolist() == [0.0, 0.0]  # the empty function: no knots, zero slope and intercept
    short = solve(prob, LpPathNormTraining(width=1), maxiters=200)  # cannot interpolate 6 points
    assert short.retcode is RetCode.MaxIters and short.original["max_residual"] > 1e-3
    ok = solve(InterpolationProblem(x=[0, 1, 2], y=[0, 1, 0], p=0.5), LpPathNormTraining(width=4), seed=0)
    assert ok.retcode is RetCode.Success and ok.original["max_residual"] <= 1e-6


def test_prune_network_lands_a_nearby_knot_on_its_data_point():
    # the curvature sits at x = 1; a trained knot at 1.0001 (within the snap range 10·merge_tol·ptp(x))
    # must end on the data point (any knot in [1, 2) interpolates here, only V_p tells them apart)
    x, y = [0, 1, 2, 3, 4, 5], [0, 0, 1, 1, 1, 1]
    f, res = prune_network(x, y, W=[1.0, 1.0], b=[-1.0001, -2.0001], v=[1.0, -1.0], a=0.0, c=0.0,
                           prune_tol=1e-3, merge_tol=1e-3)
    assert res <= 1e-12
    np.testing.assert_allclose(f.knots, [1.0, 2.0], atol=1e-6)


def test_prune_network_drops_a_neuron_exactly_at_the_threshold():
    # |v w| <= prune_tol · max|v w| is dropped: with prune_tol = 1/2 the neuron of |v w| = 1 goes
    f, res = prune_network([0, 1, 2, 3], [0, 0, 0, 2], W=[1.0, 1.0], b=[-1.0, -2.0], v=[1.0, 2.0], a=0.0,
                           c=0.0, prune_tol=0.5, merge_tol=1e-3)
    assert f.knots.tolist() == [2.0] and res <= 1e-12


def test_trace_records_the_smoothed_penalty():
    # the first record's regularizer: Σ ((v w)² + ε²)^{p/2} - ε^p at the initial weights, ε = smoothing_start
    prob = InterpolationProblem(x=[-1.0, 0.0, 1.0], y=[0.0, 1.0, 0.0], p=0.5)
    sol = solve(prob, LpPathNormTraining(width=4), maxiters=1, seed=2, store_trace=True)
    net = TwoLayerReLU(in_features=1, width=4, seed=2)
    u = net.v.detach().numpy()[0] * net.W.detach().numpy()[:, 0]
    assert sol.trace[0]["regularizer"] == pytest.approx(float(smoothed_lp(u, 0.5, 1.0)), rel=1e-12)
