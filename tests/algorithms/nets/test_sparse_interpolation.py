"""Unit tests: knot extraction, V_p, the exact sparsest-interpolant DP, the brute force, bad inputs."""

import numpy as np
import pytest

from algorithms import RetCode, solve
from algorithms.nets.sparse_interpolation import (
    CPWL,
    BruteForceVp,
    InterpolationProblem,
    SparsestInterpolantDP,
    candidate_knots,
    cpwl_to_network,
    discrete_curvature,
    linear_spline,
    min_knots_slope_dp,
    network_to_cpwl,
    path_norm,
    vp_of_jumps,
)


def _random_data(rng, n, *, rounded=False):
    x = np.sort(rng.choice(np.arange(3 * n), n, replace=False) + rng.uniform(0, 0.5, n))
    y = rng.normal(size=n)
    if rounded:  # ties, zero curvatures and collinear runs
        y = np.round(y)
    return x, y


# ----------------------------------------------------------------------------- objectives


def test_path_norm_closed_form():
    assert path_norm([2.0, -1.0], [0.5, 4.0], 0.5) == pytest.approx(1.0 + 2.0)
    assert path_norm([2.0, 0.0], [0.5, 4.0], 0) == 1.0
    with pytest.raises(ValueError, match="p must"):
        path_norm([1.0], [1.0], -0.5)
    with pytest.raises(ValueError, match="v and w"):
        path_norm([1.0, 2.0], [1.0], 0.5)


def test_network_to_cpwl_matches_forward_pass():
    rng = np.random.default_rng(0)
    for _ in range(20):
        k = 7
        W, b, v = rng.normal(size=k), rng.normal(size=k), rng.normal(size=k)
        W[0] = 0.0  # a constant neuron
        a, c = rng.normal(), rng.normal()
        f = network_to_cpwl(W, b, v, a=a, c=c)
        xs = np.linspace(-5, 5, 101)
        direct = np.maximum(np.outer(xs, W) + b, 0.0) @ v + a * xs + c
        np.testing.assert_allclose(f(xs), direct, atol=1e-12)
        # distinct knots: V_p of the function is the path norm of the active neurons
        assert f.vp(0.3) == pytest.approx(path_norm(v[1:], W[1:], 0.3), rel=1e-12)


def test_duplicate_knots_merge_and_lower_vp():
    # two neurons with the same knot 0.5 (built with different scalings) and one at 2
    W = np.array([0.3, 3.0, -1.0])
    t = np.array([0.5, 0.5, 2.0])
    b = -W * t
    v = np.array([1.0, 0.1, 2.0])
    f = network_to_cpwl(W, b, v)
    assert f.num_knots == 2
    np.testing.assert_allclose(f.jumps, [0.3 + 0.3, 2.0])
    p = 0.5
    assert f.vp(p) == pytest.approx(0.6**p + 2.0**p)
    assert path_norm(v, W, p) == pytest.approx(2 * 0.3**p + 2.0**p)
    assert path_norm(v, W, p) > f.vp(p)
    with pytest.raises(TypeError, match="merge"):  # the unmerged (invalid normal form) view is not public
        network_to_cpwl(W, b, v, merge=False)


def test_cpwl_roundtrip_and_zero_jumps():
    f = CPWL.from_terms([2.0, 1.0, 1.0], [1.0, 0.5, -0.5], slope=1.0, intercept=-1.0)
    assert f.knots.tolist() == [2.0] and f.jumps.tolist() == [1.0]
    g = CPWL.from_vector(f.to_vector())
    np.testing.assert_array_equal(g.knots, f.knots)
    assert vp_of_jumps([0.0, 0.0], 0.5) == 0.0
    with pytest.raises(ValueError, match="vector"):
        CPWL.from_vector([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="vector must be finite"):
        CPWL.from_vector([0.0, 0.0, np.nan, 1.0])
    # knots that coincide in the flat form (e.g. after a float32 cast) merge into one
    h = CPWL.from_vector([0.0, 0.0, 1.0, 1.0, 0.5, 0.25])
    assert h.knots.tolist() == [1.0] and h.jumps.tolist() == [0.75]


def test_cpwl_constructor_normal_form():
    f = CPWL([0.0, 1.0], [1.0, -2.0], 0.5, 1)
    assert f.knots.dtype == np.float64 and isinstance(f.intercept, float) and f.num_knots == 2
    assert f.vp(0.5) == pytest.approx(1.0 + 2.0**0.5)
    empty = CPWL(np.zeros(0), np.zeros(0), 0.0, 0.0)
    assert empty.num_knots == 0 and empty(np.array([1.0])).tolist() == [0.0]


@pytest.mark.parametrize("args, exc, match", [
    (([1.0, 0.0, 0.0], [1.0, 1.0], 0.0, 0.0), ValueError, "knots and jumps must have the same length"),
    (([0.0, 0.0], [1.0, 1.0], 0.0, 0.0), ValueError, "knots must be strictly increasing"),
    (([1.0, 0.0], [1.0, 1.0], 0.0, 0.0), ValueError, "knots must be strictly increasing"),
    (([np.nan, 1.0], [1.0, 1.0], 0.0, 0.0), ValueError, "knots contains NaN"),
    (([0.0, np.inf], [1.0, 1.0], 0.0, 0.0), ValueError, "knots contains NaN"),
    (([0.0, 1.0], [1.0, np.nan], 0.0, 0.0), ValueError, "jumps contains NaN"),
    (([0.0, 1.0], [1.0, 0.0], 0.0, 0.0), ValueError, "jumps must be nonzero"),
    (([[0.0, 1.0]], [1.0, 1.0], 0.0, 0.0), ValueError, "knots must be 1-dimensional"),
    ((["a"], [1.0], 0.0, 0.0), TypeError, "knots must be numeric"),
    (([0.0], [1.0], np.nan, 0.0), ValueError, "slope must be finite"),
    (([0.0], [1.0], 0.0, np.inf), ValueError, "intercept must be finite"),
    (([0.0], [1.0], "1", 0.0), TypeError, "slope must be a real number"),
    (([0.0], [1.0], 0.0, None), TypeError, "intercept must be a real number"),
])
def test_cpwl_bad_inputs(args, exc, match):
    with pytest.raises(exc, match=match):
        CPWL(*args)


def test_from_terms_bad_inputs():
    with pytest.raises(ValueError, match="same length"):
        CPWL.from_terms([0.0, 1.0], [1.0], 0.0, 0.0)
    with pytest.raises(ValueError, match="NaN or inf"):
        CPWL.from_terms([0.0, np.nan], [1.0, 1.0], 0.0, 0.0)


# ----------------------------------------------------------------------------- problem


def test_problem_sorts_and_merges_repeated_points():
    prob = InterpolationProblem(x=[1.0, 0.0, 1.0, 2.0], y=[5.0, 0.0, 5.0, 1.0], p=0.3)
    assert prob.x.tolist() == [0.0, 1.0, 2.0] and prob.y.tolist() == [0.0, 5.0, 1.0]


@pytest.mark.parametrize("kwargs, match", [
    ({"x": [0.0, 0.0], "y": [1.0, 2.0]}, "y must be a function of x"),
    ({"x": [0.0], "y": [1.0]}, "at least 2"),
    ({"x": [1.0, 1.0], "y": [2.0, 2.0]}, "at least 2"),
    ({"x": [0.0, 1.0], "y": [1.0]}, "same length"),
    ({"x": [0.0, np.nan], "y": [1.0, 2.0]}, "x contains NaN"),
    ({"x": [[0.0, 1.0]], "y": [1.0, 2.0]}, "x must be 1-dimensional"),
    ({"x": [0.0, 1.0], "y": [1.0, 2.0], "p": 1.5}, "p must"),
    ({"x": [0.0, 1.0], "y": [1.0, 2.0], "p": -0.1}, "p must"),
    ({"x": ["a", "b"], "y": [1.0, 2.0]}, "x must be numeric"),
])
def test_problem_bad_inputs(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        InterpolationProblem(**kwargs)


def test_algorithm_bad_inputs():
    with pytest.raises(ValueError, match="objective"):
        SparsestInterpolantDP(objective="fewest")
    with pytest.raises(ValueError, match="max_points"):
        BruteForceVp(max_points=0)
    with pytest.raises(ValueError, match="rtol"):
        BruteForceVp(rtol=-1.0)
    with pytest.raises(ValueError, match="extra_knots"):
        BruteForceVp(extra_knots=(0.0, float("nan")))
    prob = InterpolationProblem(x=np.arange(13.0), y=np.zeros(13))
    with pytest.raises(ValueError, match="max_points"):
        solve(prob, BruteForceVp())
    # max_points is inclusive: exactly max_points points are solved, one more is refused
    at_limit = InterpolationProblem(x=np.arange(4.0), y=[0.0, 0.0, 1.0, 3.0], p=0.5)
    assert solve(at_limit, BruteForceVp(max_points=4)).successful
    with pytest.raises(ValueError, match="max_points"):
        solve(at_limit, BruteForceVp(max_points=3))


# ----------------------------------------------------------------------------- solvers


def test_convex_four_points_single_knot_at_chord_crossing():
    # slopes 0, 1, 2: the chords of the outer segments cross at x = 1.5
    prob = InterpolationProblem(x=[0, 1, 2, 3], y=[0, 0, 1, 3], p=0.5)
    for alg in (SparsestInterpolantDP(), SparsestInterpolantDP(objective="vp"), BruteForceVp()):
        sol = solve(prob, alg)
        f = CPWL.from_vector(sol.x)
        assert sol.retcode is RetCode.Success
        np.testing.assert_allclose(f.knots, [1.5])
        np.testing.assert_allclose(f.jumps, [2.0])
        assert sol.value == pytest.approx(2.0**0.5)


def test_small_cases_closed_form():
    assert min_knots_slope_dp([0, 1], [3, -1]) == 0
    assert min_knots_slope_dp([0, 1, 2], [0, 1, 2]) == 0  # collinear
    assert min_knots_slope_dp([0, 1, 2, 3], [0, 1, 0, 1]) == 2  # zigzag: one knot per sign change
    # strictly convex data on N points needs ceil(N/2) - 1 knots
    for n in range(3, 9):
        x = np.arange(float(n))
        assert min_knots_slope_dp(x, x**2) == int(np.ceil(n / 2)) - 1


@pytest.mark.parametrize("rounded", [False, True])
def test_three_solvers_agree_on_random_data(rounded):
    rng = np.random.default_rng(11 + rounded)
    for _ in range(40):
        x, y = _random_data(rng, int(rng.integers(2, 7)), rounded=rounded)
        prob0 = InterpolationProblem(x=x, y=y, p=0.0)
        k_slope = min_knots_slope_dp(x, y)
        dp = solve(prob0, SparsestInterpolantDP())
        f = CPWL.from_vector(dp.x)
        np.testing.assert_allclose(f(prob0.x), prob0.y, atol=1e-9)
        brute = solve(prob0, BruteForceVp())
        assert k_slope == f.num_knots == brute.value
        for p in (0.2, 0.7, 1.0):
            prob = InterpolationProblem(x=x, y=y, p=p)
            vdp = solve(prob, SparsestInterpolantDP(objective="vp"))
            vbf = solve(prob, BruteForceVp())
            assert vdp.value == pytest.approx(vbf.value, rel=1e-9, abs=1e-12)
            g = CPWL.from_vector(vdp.x)
            np.testing.assert_allclose(g(prob.x), prob.y, atol=1e-9)


def test_v1_minimum_is_total_curvature_and_the_linear_spline_attains_it():
    rng = np.random.default_rng(5)
    for _ in range(10):
        x, y = _random_data(rng, 6)
        prob = InterpolationProblem(x=x, y=y, p=1.0)
        total = float(np.sum(np.abs(discrete_curvature(x, y))))
        assert solve(prob, BruteForceVp()).value == pytest.approx(total, rel=1e-9)
        assert linear_spline(x, y).vp(1.0) == pytest.approx(total, rel=1e-9)


def test_extra_grid_knots_never_beat_the_candidates():
    """The characterization: no V_p minimizer needs a knot off the candidate set."""
    rng = np.random.default_rng(3)
    for _ in range(4):
        x, y = _random_data(rng, 5)
        grid = tuple(np.linspace(x[0], x[-1], 14)[1:-1] + rng.uniform(-0.05, 0.05, 12))
        for p in (0.3, 0.8):
            prob = InterpolationProblem(x=x, y=y, p=p)
            base = solve(prob, BruteForceVp()).value
            wider = solve(prob, BruteForceVp(extra_knots=grid)).value
            assert wider >= base * (1 - 1e-9)


def test_candidate_knots_include_interior_points():
    x, y = np.arange(5.0), np.array([0.0, 0.0, 1.0, 3.0, 6.0])
    cands = candidate_knots(x, y)
    assert set(x[1:-1]) <= set(cands.tolist())
    assert 1.5 in cands and 2.5 in cands


def test_vp_minimizer_is_not_unique_on_symmetric_data():
    """Equal curvatures (1, 1, 1) on an even grid: merge the left pair or the right pair, same cost."""
    prob = InterpolationProblem(x=np.arange(5.0), y=[0.0, 0.0, 1.0, 3.0, 6.0], p=0.5)
    sol = solve(prob, BruteForceVp())
    knots = sorted(tuple(np.round(f.knots, 9)) for f in sol.original)
    assert knots == [(1.0, 2.5), (1.5, 3.0)]
    assert sol.value == pytest.approx(1 + 2**0.5)


def test_p_half_minimizer_not_sparsest_example():
    """Curvatures (1e-3, 1, 1, 1e-3): 2 knots suffice, but the V_0.5 minimizer uses 3."""
    x = np.arange(6.0)
    slopes = np.concatenate([[0.0], np.cumsum([1e-3, 1.0, 1.0, 1e-3])])
    y = np.concatenate([[0.0], np.cumsum(slopes)])
    assert min_knots_slope_dp(x, y) == 2
    half = solve(InterpolationProblem(x=x, y=y, p=0.5), BruteForceVp())
    assert [f.num_knots for f in half.original] == [3]
    small = solve(InterpolationProblem(x=x, y=y, p=0.02), BruteForceVp())
    assert [f.num_knots for f in small.original] == [2]


def test_maxiters_and_trace():
    prob = InterpolationProblem(x=np.arange(6.0), y=[0.0, 1.0, 0.0, 2.0, 2.0, 5.0], p=0.5)
    sol = solve(prob, SparsestInterpolantDP(), maxiters=2)
    assert sol.retcode is RetCode.MaxIters
    f = CPWL.from_vector(sol.x)
    np.testing.assert_allclose(f(prob.x), prob.y, atol=1e-12)  # the linear spline
    traced = solve(prob, SparsestInterpolantDP(), store_trace=True)
    assert [r["stage"] for r in traced.trace] == [1, 2, 3, 4]
    bf = solve(prob, BruteForceVp(), maxiters=3)
    assert bf.retcode is RetCode.MaxIters
    stop = solve(prob, SparsestInterpolantDP(), callback=lambda r: True)
    assert stop.retcode is RetCode.Terminated and stop.stats.iterations == 1


def test_float32_in_float32_out():
    prob = InterpolationProblem(x=np.arange(4, dtype=np.float32), y=np.array([0, 0, 1, 3], np.float32))
    for alg in (SparsestInterpolantDP(), BruteForceVp()):
        assert solve(prob, alg).x.dtype == np.float32


def test_scale_invariance_of_knots():
    """Tolerances are relative: scaling y by 1e-200 or 1e30 changes no knot."""
    rng = np.random.default_rng(8)
    for _ in range(5):
        x, y = _random_data(rng, 6)
        ref = solve(InterpolationProblem(x=x, y=y, p=0.5), BruteForceVp())
        for scale in (1e-200, 1e30):      # round 12: 1e200 is outside the working range
            prob = InterpolationProblem(x=x, y=scale * y, p=0.5)
            assert min_knots_slope_dp(prob.x, prob.y) == min_knots_slope_dp(x, y)
            sol = solve(prob, BruteForceVp())
            assert len(sol.original) == len(ref.original)
            np.testing.assert_allclose(CPWL.from_vector(sol.x).knots, CPWL.from_vector(ref.x).knots,
                                       rtol=1e-9)


def test_dp_output_network_interpolates_with_knots_where_claimed():
    # the objective values do not see knot positions: check the output function itself
    rng = np.random.default_rng(5)
    for _ in range(50):
        n = int(rng.integers(3, 10))
        x = np.sort(rng.uniform(-2, 2, n))
        y = rng.normal(size=n)
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        s = np.diff(prob.y) / np.diff(prob.x)
        for objective in ("knots", "vp"):
            f = CPWL.from_vector(solve(prob, SparsestInterpolantDP(objective=objective)).x)
            net = cpwl_to_network(f)
            hidden = np.maximum(np.outer(prob.x, net["W"]) + net["b"], 0.0)
            values = hidden @ net["v"] + net["a"] * prob.x + net["c"]
            np.testing.assert_allclose(values, prob.y, atol=1e-9)
            g = network_to_cpwl(net["W"], net["b"], net["v"], a=net["a"], c=net["c"])
            np.testing.assert_allclose(g.knots, f.knots, atol=1e-12)
            for t in f.knots:
                if np.min(np.abs(prob.x - t)) <= 1e-12:
                    continue
                # inside (x_j, x_{j+1}): where the chords s_{j-1}, s_{j+1} cross
                j = int(np.searchsorted(prob.x, t)) - 1
                left = prob.y[j] + s[j - 1] * (t - prob.x[j])
                right = prob.y[j + 1] + s[j + 1] * (t - prob.x[j + 1])
                assert abs(left - right) <= 1e-9 * max(1.0, np.max(np.abs(prob.y)))


def test_linear_spline_interpolates():
    x, y = np.array([0.0, 0.5, 2.0, 3.0]), np.array([1.0, -1.0, 2.0, 0.5])
    np.testing.assert_allclose(linear_spline(x, y)(x), y, atol=1e-12)


def test_network_to_cpwl_merges_far_knots_built_for_one_position():
    t = 123456789.123  # -b/w rounds differently for w = 3 and w = 7: ~1e-8 apart, far above 1e-9
    f = network_to_cpwl(W=[3.0, 7.0], b=[-3.0 * t, -7.0 * t], v=[1.0, 1.0])
    assert f.num_knots == 1 and f.jumps.tolist() == [10.0]


def test_knots_objective_breaks_ties_by_least_vp():
    # among the sparsest plans the DP (objective="knots") returns one of least V_p
    rng = np.random.default_rng(11)
    for _ in range(30):
        n = int(rng.integers(4, 8))
        x = np.arange(n) + rng.uniform(-0.3, 0.3, n)
        y = np.cumsum(np.cumsum(rng.uniform(0.1, 2.0, n)))  # convex: one long run, many sparsest plans
        dp = solve(InterpolationProblem(x=x, y=y, p=0.5), SparsestInterpolantDP(objective="knots"))
        sparsest = solve(InterpolationProblem(x=x, y=y, p=0.0), BruteForceVp()).original
        assert dp.value == pytest.approx(min(g.vp(0.5) for g in sparsest), rel=1e-9)


def test_brute_force_is_scale_invariant():
    # its residual tolerance is relative to max|y|: data scaled by 1e9 give the same knots
    x, y = np.array([0.0, 1.0, 2.0, 3.0, 4.0]), np.array([0.0, 0.0, 1.0, 3.0, 2.0])
    small = solve(InterpolationProblem(x=x, y=y, p=0.5), BruteForceVp())
    large = solve(InterpolationProblem(x=x, y=1e9 * y, p=0.5), BruteForceVp())
    assert large.successful
    np.testing.assert_allclose(CPWL.from_vector(large.x).knots, CPWL.from_vector(small.x).knots, atol=1e-9)


def test_dp_trace_records_the_partial_optimum():
    # each record holds the best plan of the first `stage` curvatures; the last one is the returned plan
    prob = InterpolationProblem(x=np.arange(7.0), y=[0.0, 1.0, 3.0, 6.0, 10.0, 9.0, 7.0], p=0.5)
    for objective in ("knots", "vp"):
        sol = solve(prob, SparsestInterpolantDP(objective=objective), store_trace=True)
        f = CPWL.from_vector(sol.x)
        assert [r["stage"] for r in sol.trace] == [1, 2, 3, 4, 5]
        assert sol.trace[-1]["knots"] == f.num_knots == 3  # curvatures (1, 1, 1, -5, -1): pair, single, pair
        assert sol.trace[-1]["vp"] == pytest.approx(f.vp(0.5), rel=1e-12)
        assert [r["knots"] for r in sol.trace] == [1, 1, 2, 3, 3]


def test_dp_trace_of_two_and_three_points():
    # N = 2 has no DP stage: one record of the empty plan; N = 3 has one stage and no extra record
    two = solve(InterpolationProblem(x=[0.0, 1.0], y=[0.0, 2.0]), SparsestInterpolantDP(), store_trace=True)
    assert two.trace == [{"stage": 0, "knots": 0.0, "vp": 0.0}] and two.stats.iterations == 0
    # nothing to decide is not a horizon: exact (it was MaxIters, through the maxiters = 0 branch)
    assert two.retcode is RetCode.Success and CPWL.from_vector(two.x).num_knots == 0
    assert solve(InterpolationProblem(x=[0.0, 1.0], y=[0.0, 2.0]), SparsestInterpolantDP(),
                 maxiters=0).retcode is RetCode.Success
    three = solve(InterpolationProblem(x=[0.0, 1.0, 2.0], y=[0.0, 1.0, 0.0]), SparsestInterpolantDP(),
                  store_trace=True)
    assert [r["stage"] for r in three.trace] == [1] and three.trace[0]["knots"] == 1.0


@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e-300])
def test_dp_merges_same_sign_curvatures_whose_product_underflows(scale):
    # the run test multiplied two curvatures: at 1e-200 their product is 0 and the merge was missed (3 knots
    # instead of 2; found by mutation round 8's survivor `d[i-2]·d[i-1] > 0` → `>= 0`)
    x, y = np.arange(5.0), scale * np.array([0.0, 0.0, 1.0, 3.0, 6.0])
    sol = solve(InterpolationProblem(x=x, y=y, p=0.5), SparsestInterpolantDP())
    assert CPWL.from_vector(sol.x).num_knots == min_knots_slope_dp(x, y) == 2
