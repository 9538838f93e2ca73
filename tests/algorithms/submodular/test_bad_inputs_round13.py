"""#43 round 13: submodular's two-sided MAX, Coverage's cost and items, stated domains."""

from __future__ import annotations

import time

import pytest

import algorithms.submodular as S
from algorithms import solve
from algorithms.core import RetCode


def _stream():
    return S.UpdateStream(len, S.Matchoid([S.UniformMatroid(3)]), [("insert", e) for e in range(5)])


@pytest.mark.parametrize("max_value", [2.0 + 1e-9, 16.0, 100.0, 3.4e38])
def test_a_max_value_above_twice_the_largest_singleton_is_refused(max_value):
    # Success with f(S) = 0 (OPT = 3): every threshold εMAX/(2k) was above every gain
    with pytest.raises(ValueError, match=r"^max_value = .* exceeds 2·max f\(\{e\}\) = 2\.0"):
        solve(_stream(), S.DynamicMatchoid(eps=0.1, max_value=max_value), seed=0)


@pytest.mark.parametrize("max_value", [1.0, 1.5, 2.0])
def test_a_max_value_in_the_papers_range_runs(max_value):
    sol = solve(_stream(), S.DynamicMatchoid(eps=0.1, max_value=max_value), seed=0)
    assert sol.retcode is RetCode.Success and sol.value > 0


def test_coverage_cost_follows_the_items_present():
    start = time.perf_counter()
    f = S.Coverage([{0}, {10**9}])
    assert f(frozenset({0, 1})) == 2.0 and time.perf_counter() - start < 1.0


@pytest.mark.parametrize("items", [{True}, {2**63}, {-1}])
def test_coverage_refuses_bools_and_ids_past_int64(items):
    with pytest.raises(ValueError, match=r"sets"):
        S.Coverage([items])


def test_greedy_still_warns_that_tol_had_no_effect():
    # the monitor's re-check of the options read tol and silenced the warning
    problem = S.MatchoidMaximization(len, S.Matchoid([S.UniformMatroid(2)]), range(4))
    with pytest.warns(UserWarning, match=r"tol=0\.5 had no effect"):
        solve(problem, S.Greedy(), tol=0.5)


@pytest.mark.parametrize("vertex", [float("nan"), __import__("numpy").float64("nan")])
def test_graphic_matroid_refuses_a_nan_vertex(vertex):
    # is_independent looped until memory ran out (union-find never finds a NaN's root)
    with pytest.raises(ValueError, match=r"^endpoints\['a'\] vertex must equal itself"):
        S.GraphicMatroid({"a": (vertex, 1), "b": (1, 2)})


@pytest.mark.parametrize(("ground", "rank", "error"), [([0, 1, 2], 2, TypeError),
                                                       ((i for i in range(3)), 2, TypeError),
                                                       (None, 2**64, ValueError)])
def test_user_matroid_ground_and_rank_named(ground, rank, error):
    class UserMatroid(S.Matroid):
        def in_ground(self, e):
            return True

        def is_independent(self, s):
            return len(s) <= 2

    UserMatroid.ground, UserMatroid.rank = ground, rank
    with pytest.raises(error, match=r"^matroids\[0\]\.(ground|rank)"):
        S.Matchoid([UserMatroid()])


def test_logdet_takes_a_float32_gram_kernel():
    # refused as not PSD (eigenvalue -3.6e-8) or not symmetric (1.4e-6) with float64's tolerances
    import numpy as np

    A = np.random.default_rng(0).normal(size=(6, 2))
    assert S.LogDet(A.astype(np.float32) @ A.T.astype(np.float32))(frozenset({0, 1})) == pytest.approx(
        S.LogDet(A @ A.T)(frozenset({0, 1})), rel=1e-5)
    B = np.random.default_rng(0).normal(size=(200, 10)).astype(np.float32)
    S.LogDet(B @ B.T)
    with pytest.raises(ValueError, match="positive semidefinite"):
        S.LogDet(np.diag([1.0, -1e-3]).astype(np.float32))


@pytest.mark.parametrize("scale", [1e17, 1e20, 1e30, 1e37])
def test_logdet_of_a_large_rank_deficient_kernel_keeps_its_scale_law(scale):
    # slogdet of I + K_S dropped its sign: Diverged at ×1e17, -inf at ×1e30, a value past the bound at ×1e37;
    # for a rank-2 K, log det(I + sK_S) = 2 log s + log(λ₁λ₂) + o(1)
    import numpy as np

    A = np.random.default_rng(0).normal(size=(6, 2))
    K = A @ A.T
    lam = np.linalg.eigvalsh(K[np.ix_([0, 1, 2], [0, 1, 2])])[-2:]
    assert S.LogDet(K * scale)(frozenset({0, 1, 2})) == pytest.approx(2 * np.log(scale) + np.log(lam).sum(),
                                                                       rel=1e-6)
    sol = solve(S.MatchoidMaximization(S.LogDet(K * scale), S.Matchoid([S.UniformMatroid(4)]), range(6)),
                S.Greedy())
    assert sol.retcode is RetCode.Success


def test_graph_cut_takes_a_float32_symmetric_product():
    import numpy as np

    A = np.random.default_rng(0).normal(size=(200, 10)).astype(np.float32)
    S.GraphCut(np.abs(A @ A.T))
    with pytest.raises(ValueError, match=r"^weights must be symmetric"):
        S.GraphCut(np.array([[0.0, 1.0], [2.0, 0.0]], dtype=np.float32))


@pytest.mark.parametrize("max_guess", ["parallel", "current"])
def test_guessed_max_refuses_singletons_past_2_to_1023(max_guess):
    # the guess 2^j overflowed: every element joined no run, Success with f = 0
    def f(s):
        return 1e308 * min(len(s), 1)

    st = S.UpdateStream(f, S.Matchoid([S.UniformMatroid(2)]), [("insert", i) for i in range(4)])
    with pytest.raises(ValueError, match=r"exceeds 2\*\*1023"):
        solve(st, S.DynamicMatchoid(max_guess=max_guess), seed=0)


@pytest.mark.parametrize("algorithm", [S.Greedy(), S.BruteForce(), S.SampleGreedy()],
                         ids=lambda a: type(a).__name__)
def test_a_user_matroid_changed_after_construction_is_refused_at_solve(algorithm):
    # the stale rank bound (k = 2) ran with k = 4: Success with value 4 in silence
    class Uniform(S.Matroid):
        ground = None

        def __init__(self, k):
            self.k = k

        def in_ground(self, e):
            return True

        def is_independent(self, s):
            return len(s) <= self.k

        @property
        def rank(self):
            return self.k

    matroid = Uniform(2)
    problem = S.MatchoidMaximization(len, S.Matchoid([matroid]), range(5))
    matroid.k = 4
    with pytest.raises(ValueError, match=r"^matroids\[0\]\.rank changed after the Matchoid was built"):
        solve(problem, algorithm)
