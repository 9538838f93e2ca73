"""Claims of Nakhleh & Nowak, *Global Minimizers of ℓp-Regularized Objectives Yield the Sparsest ReLU
Neural Networks* (NeurIPS 2025, arXiv:2505.21791).

Numbered results (the results map below): Section 3 (univariate) Proposition 3.1,
Theorem 3.1, Corollaries 3.1.1 and 3.1.2, Theorem 3.2; Section 4 (multivariate)
Proposition 4.1, Lemma 4.1, Theorem 4.1. Each claim says which it covers (``covers``)
and how it departs from the statement (``deviation``); the note
``paper_notes/sparse_relu.md`` restates each in our words.
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
from contextlib import contextmanager, nullcontext
from fractions import Fraction
from functools import partial

import flint
import numpy as np
import scipy.linalg
import scipy.optimize
import sympy
import torch
from hypothesis import assume
from hypothesis import strategies as st

from algorithms import RetCode, solve
from algorithms.nets import lp_training, multivariate_interpolation, sparse_interpolation
from algorithms.nets.lp_training import LpPathNormTraining, count_active_neurons, smoothed_lp
from algorithms.nets.multivariate_interpolation import (
    MultivariateInterpolationProblem,
    PatternEnumeration,
    basic_points,
    network_from_pieces,
    network_l0,
    network_lp,
    pattern_program,
)
from algorithms.nets.sparse_interpolation import (
    CPWL,
    BruteForceVp,
    InterpolationProblem,
    SparsestInterpolantDP,
    _slope_tol,
    candidate_knots,
    cpwl_to_network,
    discrete_curvature,
    linear_spline,
    min_knots_slope_dp,
    network_to_cpwl,
    path_norm,
    vp_of_jumps,
)
from algorithms.nets.two_layer import TwoLayerReLU
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.certificates import CannotProve, Certificate, Method, Refuted, Rejected
from theorems.core.evidence import figure, property_outcome, symbolic_truth
from theorems.core.sabotage import patched

PAPER = "sparse_relu"

register_results(PAPER, [
    Result(id="Proposition 3.1", checkable=True,
           statement="for 0 <= p <= 1 the functions of min-ℓp-path-norm interpolating nets (width K >= "
                     "N) are "
                     "exactly the CPWL interpolants (<= K knots) of least V_p = Σ|slope change|^p"),
    Result(id="Theorem 3.1", checkable=True,
           statement="for 0 < p < 1 minimizers exist and obey a geometric description: linear outside "
                     "[x_2, x_{N-1}], on collinear runs and between points of different curvature; on a "
                     "run of "
                     "equal curvature one knot at the chord crossing (2 points) or convex/concave pieces "
                     "through the data points with slopes between neighbouring chords (more points)"),
    Result(id="Corollary 3.1.1", checkable=True,
           statement="every min-ℓp interpolant (0 < p < 1) is also a min-ℓ1 interpolant and needs at "
                     "most N - 2 "
                     "neurons"),
    Result(id="Corollary 3.1.2", checkable=True,
           statement="every min-ℓp net (0 < p < 1) has max_k |v_k w_k| <= Σ_k |v_k w_k| = Σ_i |s_{i+1} "
                     "- s_i| "
                     "and Lipschitz constant <= max_i |s_i|"),
    Result(id="Theorem 3.2", checkable=True,
           statement="the V_p minimizer is unique (up to equal absolute slope changes) for all but "
                     "finitely many "
                     "p in (0, 1); a data-dependent p* exists below which it is sparsest; with no more "
                     "than two "
                     "consecutive points of equal curvature it is sparsest for every p in (0, 1)"),
    Result(id="Proposition 4.1", checkable=True,
           statement="multivariate, K >= N, 0 < p < 1: min-ℓp and min-ℓ0 interpolating nets exist and "
                     "have at "
                     "most N active neurons; in general position an ℓ0 solution has O(N) nonzero parameters"),
    Result(id="Lemma 4.1", checkable=True,
           statement="a min-ℓp (or ℓ0) net can be rebuilt from a solution of the activation-pattern "
                     "program (10) "
                     "with at most N nonzero pattern vectors, with the same ℓ0 and ℓq path norms"),
    Result(id="Theorem 4.1", checkable=True,
           statement="multivariate: for every data set a data-dependent p* exists such that every min-ℓp "
                     "interpolating net with 0 < p < p* is a min-ℓ0 (sparsest) one"),
    Result(id="Figure 1", checkable=False,
           statement="illustrations: several min-ℓ1 interpolants of one univariate data set (non-unique, one "
                     "sparsest, others arbitrarily non-sparse) and two 2-D ReLU interpolants of different "
                     "sparsity",
           why="drawings of examples; the properties they show are Corollary 3.1.1's and Theorem 3.2's, "
               "which the map lists (the p = 1 non-uniqueness is the certificates' control witness)"),
    Result(id="Figure 2", checkable=False,
           statement="illustration of Theorem 3.1 on a data set with a run of equal discrete curvature",
           why="a drawing of Theorem 3.1's cases, which the map lists and sparse_relu.characterization "
               "tests"),
    Result(id="Figure 3", checkable=True,
           statement="gradient training with the ℓp path norm (p = 0.4, 0.7, 1; reweighted-ℓ1 proximal "
                     "algorithm) gives much sparser interpolating nets, much earlier, than "
                     "unregularized Adam "
                     "or AdamW weight decay; on the univariate data p = 0.4 recovers the sparsest net, on "
                     "random multivariate data the ℓp nets obey Proposition 4.1's bound"),
])


# ----------------------------------------------------------------------------- certificates (issue #40)
# Exhaustive exact enumeration on grid data: x = 0, 1, ..., N − 1 and integer y, taken modulo linear
# functions (adding one maps interpolants onto interpolants with the same slope changes), i.e. every
# sequence of integer discrete curvatures d ∈ {−D..D}^{N−2}. For each data set every vertex of the
# interpolants with knots in candidate_knots (interior data points and chord crossings; Theorem 3.1
# puts every V_p minimizer's knots there, and on each orthant V_p is concave, so the minimizers are
# vertices) is found with exact rational linear algebra (flint fmpq_mat).
#: (number of points N, largest |curvature| D): every integer curvature sequence in {−D..D}^{N−2}
CERT_FAMILY = ((3, 3), (4, 3), (5, 2), (6, 1))


def _largest_zero_threshold(x, y) -> float:
    """The largest of the solvers' per-point curvature zero thresholds (``_slope_tol``, local since round 14;
    a claim's control patches it to a number): the slack of the bounds below, at most the old global one."""
    return float(np.max(np.asarray(_slope_tol(x, y), dtype=np.float64), initial=1e-309))
CERT_P_HIGH = Fraction(99, 100)   # short runs: certified for p in (0, 99/100]; at p = 1 ties appear


def _grid_curvatures() -> list[tuple[int, ...]]:
    return [d for n, bound in CERT_FAMILY for d in itertools.product(range(-bound, bound + 1), repeat=n - 2)]


def _grid_data(d: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """x = 0..N−1 and the integer y with y_0 = y_1 = 0 and second differences d."""
    y, slope = [0, 0], 0
    for di in d:
        slope += di
        y.append(y[-1] + slope)
    return list(range(len(y))), y


def _exact_candidates(x: list[int], y: list[int]) -> list[flint.fmpq]:
    """Interior data points and, in each gap with interior ends, the crossing of the extended chords
    (candidate_knots' rule, in exact rationals)."""
    s = [flint.fmpq(y[i + 1] - y[i]) for i in range(len(x) - 1)]
    out = [flint.fmpq(v) for v in x[1:-1]]
    for j in range(1, len(x) - 2):
        if s[j + 1] == s[j - 1]:
            continue
        t = (y[j + 1] - y[j] + s[j - 1] * x[j] - s[j + 1] * x[j + 1]) / (s[j - 1] - s[j + 1])
        if x[j] < t < x[j + 1]:
            out.append(t)
    return sorted(out, key=lambda v: Fraction(int(v.p), int(v.q)))


@functools.lru_cache(maxsize=1024)
def _grid_vertices(d: tuple[int, ...]) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Every vertex interpolant of data set d with knots in the candidate set: a subset T (|T| <= N − 2)
    whose features [1, x, (x − t)₊] are independent and interpolate exactly. As ((knot, slope change),
    ...) over the nonzero slope changes, as "p/q" strings, without repeats."""
    x, y = _grid_data(d)
    n = len(x)
    cands = _exact_candidates(x, y)
    out = {}
    for k in range(n - 1):
        for T in itertools.combinations(cands, k):
            entries = []
            for xi, yi in zip(x, y, strict=True):
                entries += [1, xi, *[(xi - t) if xi > t else 0 for t in T], yi]
            R, rank = flint.fmpq_mat(n, k + 3, entries).rref()
            # independent features that interpolate: rank k + 2 with the pivots in the features' columns
            if rank != k + 2 or any(R[i, i] != 1 for i in range(k + 2)):
                continue
            knots = tuple((str(t), str(R[i + 2, k + 2])) for i, t in enumerate(T) if R[i + 2, k + 2] != 0)
            out[knots] = None
    return tuple(out)


def _vp_bounds(changes, p_low: flint.fmpq, p_high: flint.fmpq) -> tuple[flint.arb, flint.arb]:
    """Balls around (min, max) over p in [p_low, p_high] of Σ|c|^p (each term monotone in p)."""
    low = high = flint.arb(0)
    for c in changes:
        base = flint.arb(abs(_q(c)))
        a, b = base ** flint.arb(p_low), base ** flint.arb(p_high)
        low += a if a < b else (b if b < a else a.union(b))
        high += b if a < b else (a if b < a else a.union(b))
    return low, high


def _q(text: str) -> flint.fmpq:
    f = Fraction(text)
    return flint.fmpq(f.numerator, f.denominator)


def _beats_on(best, other, p_low: flint.fmpq, p_high: flint.fmpq) -> bool:
    """Certified: V_p(best) < V_p(other) for every p in [p_low, p_high] (endpoint balls)."""
    return bool(_vp_bounds([c for _, c in best], p_low, p_high)[1]
                < _vp_bounds([c for _, c in other], p_low, p_high)[0])


def _low_p_certified(vertices, k0: int, best, p0: flint.fmpq) -> bool:
    """For every p in (0, p0]: Σ|c|^p of best < that of every vertex with more than k0 knots.
    Each |c|^p lies between 1 and |c|^p0, so the comparison at the two ends of that range decides."""
    return all(_beats_on(best, v, flint.fmpq(0), p0) for v in vertices if len(v) > k0)


def _sparsest_prove() -> dict:
    sets = []
    for d in _grid_curvatures():
        vertices = _grid_vertices(d)
        k0 = min(len(v) for v in vertices)
        p0 = None
        for best in (v for v in vertices if len(v) == k0):
            for e in range(1, 40):                  # the largest 2^-e that the near-zero bound certifies
                if _low_p_certified(vertices, k0, best, flint.fmpq(1, 2**e)):
                    if p0 is None or Fraction(1, 2**e) > Fraction(p0[0]):
                        p0 = (f"1/{2**e}", best)
                    break
        if p0 is None:
            raise CannotProve(f"d = {d}: no p0 = 2^-e (e < 40) certifies the fewest-knot vertices")
        sets.append({"d": list(d), "K0": k0, "p0": p0[0], "best": [list(kc) for kc in p0[1]]})
    return {"family": [list(f) for f in CERT_FAMILY], "sets": sets}


def _grid_family_check(proof: dict) -> list[tuple[int, ...]]:
    if [tuple(f) for f in proof["family"]] != list(CERT_FAMILY):
        raise Rejected(f"the artifact's family {proof['family']} is not the certified {CERT_FAMILY}")
    family = _grid_curvatures()
    if [tuple(s["d"]) for s in proof["sets"]] != family:
        raise Rejected(f"the artifact lists {len(proof['sets'])} data sets, not the family's {len(family)} "
                       "in order")
    return family


def _sparsest_recheck(proof: dict) -> str:
    _grid_family_check(proof)
    least_p0 = Fraction(1)
    for s in proof["sets"]:
        vertices = _grid_vertices(tuple(s["d"]))
        k0 = min(len(v) for v in vertices)
        best = tuple(tuple(kc) for kc in s["best"])
        if s["K0"] != k0 or best not in vertices or len(best) != k0:
            raise Rejected(f"d = {s['d']}: K0 {s['K0']} (enumerated {k0}) or its vertex {s['best']} is wrong")
        p0 = _q(s["p0"])
        if s["p0"] not in ("1/2", "1/4"):
            raise Rejected(f"d = {s['d']}: p0 = {s['p0']} is not one of the stated 1/2, 1/4")
        if not 0 < p0 <= 1 or not _low_p_certified(vertices, k0, best, p0):
            raise Rejected(f"d = {s['d']}: some vertex with more than {k0} knots is not beaten for all "
                           f"p in (0, {s['p0']}]")
        least_p0 = min(least_p0, Fraction(s["p0"]))
    return (f"{len(proof['sets'])} grid data sets ((N, max |d|) in {CERT_FAMILY}, integer curvatures): "
            f"for p in (0, p0] (p0 >= {least_p0}) every minimizing vertex has the fewest "
            f"knots K0 of any candidate-knot interpolant")


def _sparsest_mutate(proof: dict) -> dict:
    """p0 = 1 for d = (1, 1): there the 2-knot linear spline ties the 1-knot interpolant at p = 1."""
    out = copy.deepcopy(proof)
    next(s for s in out["sets"] if s["d"] == [1, 1])["p0"] = "1/1"
    return out


def _v1_tie_refute() -> dict:
    # d = (1, 1): y = 0, 0, 1, 3; the linear spline (2 knots) and the chord-crossing knot (1 knot)
    return {"x": [0, 1, 2, 3], "y": [0, 0, 1, 3],
            "sparse": {"intercept": "0", "slope": "0", "knots": [["3/2", "2"]]},
            "dense": {"intercept": "0", "slope": "0", "knots": [["1", "1"], ["2", "1"]]}}


def _cpwl_exact(net: dict, x: Fraction) -> Fraction:
    value = Fraction(net["intercept"]) + Fraction(net["slope"]) * x
    return value + sum(Fraction(c) * max(x - Fraction(t), 0) for t, c in net["knots"])


def _v1_tie_recheck_witness(witness: dict) -> str:
    """Both nets interpolate, both reach V_1's lower bound max chord slope − min chord slope (f' must
    take every chord slope somewhere in its gap, so its total variation is at least that), and the
    minimizer with more knots is not sparsest."""
    x, y = [Fraction(v) for v in witness["x"]], [Fraction(v) for v in witness["y"]]
    chords = [(y[i + 1] - y[i]) / (x[i + 1] - x[i]) for i in range(len(x) - 1)]
    bound = max(chords) - min(chords)
    values = {}
    for name in ("sparse", "dense"):
        net = witness[name]
        if any(_cpwl_exact(net, xi) != yi for xi, yi in zip(x, y, strict=True)):
            raise Rejected(f"the {name} net does not interpolate")
        values[name] = sum(abs(Fraction(c)) for _, c in net["knots"])
        if values[name] != bound:
            raise Rejected(f"the {name} net has V_1 = {values[name]}, above the lower bound {bound}")
    counts = {name: sum(Fraction(c) != 0 for _, c in witness[name]["knots"]) for name in values}
    if counts["dense"] <= counts["sparse"]:
        raise Rejected(f"knot counts {counts}: the dense minimizer is not less sparse")
    return (f"at p = 1 both interpolants minimize V_1 (= {bound}, the chord-slope range) with "
            f"{counts['sparse']} and {counts['dense']} knots: a V_1 minimizer need not be sparsest")


def _runs_ok(d: tuple[int, ...]) -> bool:
    """No more than two consecutive interior points share a nonzero curvature sign."""
    run, prev = 0, 0
    for di in d:
        sign = (di > 0) - (di < 0)
        run = run + 1 if sign != 0 and sign == prev else (1 if sign != 0 else 0)
        prev = sign
        if run > 2:
            return False
    return True


def _short_runs_pieces(vertices, k0: int):
    """A cover of (0, CERT_P_HIGH] by p-intervals, each with one fewest-knot vertex beating every vertex
    with more knots on it: (0, p0] by the near-zero bound, then pieces grown greedily."""
    fewest = [v for v in vertices if len(v) == k0]
    pieces, start = [], flint.fmpq(0)
    width = flint.fmpq(1, 4)
    while start < _q(str(CERT_P_HIGH)):
        end = min(start + width, _q(str(CERT_P_HIGH)))
        winner = next((i for i, b in enumerate(fewest)
                       if all(_beats_on(b, v, start, end) for v in vertices if len(v) > k0)), None)
        if winner is None:
            if width < flint.fmpq(1, 2**20):
                return None
            width /= 2
            continue
        pieces.append([str(end), vertices.index(fewest[winner])])
        start, width = end, width * 2
    return pieces


def _short_runs_prove() -> dict:
    sets = []
    for d in _grid_curvatures():
        if not _runs_ok(d):
            continue
        vertices = _grid_vertices(d)
        k0 = min(len(v) for v in vertices)
        pieces = _short_runs_pieces(vertices, k0)
        if pieces is None:
            raise CannotProve(f"d = {d}: could not separate the fewest-knot vertices on (0, {CERT_P_HIGH}]")
        sets.append({"d": list(d), "K0": k0, "pieces": pieces})
    return {"family": [list(f) for f in CERT_FAMILY], "p_high": str(CERT_P_HIGH), "sets": sets}


def _short_runs_recheck(proof: dict) -> str:
    if [tuple(f) for f in proof["family"]] != list(CERT_FAMILY):
        raise Rejected(f"the artifact's family {proof['family']} is not the certified {CERT_FAMILY}")
    family = [d for d in _grid_curvatures() if _runs_ok(d)]
    if [tuple(s["d"]) for s in proof["sets"]] != family or Fraction(proof["p_high"]) != CERT_P_HIGH:
        raise Rejected(f"the artifact does not list the {len(family)} short-run data sets up to "
                       f"p = {CERT_P_HIGH}")
    count = 0
    for s in proof["sets"]:
        vertices = _grid_vertices(tuple(s["d"]))
        k0 = min(len(v) for v in vertices)
        if s["K0"] != k0:
            raise Rejected(f"d = {s['d']}: K0 {s['K0']}, enumerated {k0}")
        start = flint.fmpq(0)
        for end, index in s["pieces"]:
            end = _q(end)
            best = vertices[index]
            if not start < end or len(best) != k0 or not all(
                    _beats_on(best, v, start, end) for v in vertices if len(v) > k0):
                raise Rejected(f"d = {s['d']}: on p in [{start}, {end}] vertex {index} does not win")
            start = end
            count += 1
        if start != _q(str(CERT_P_HIGH)):
            raise Rejected(f"d = {s['d']}: the pieces stop at {start}")
    return (f"{len(proof['sets'])} grid data sets with equal-curvature runs <= 2 ((N, max |d|) in "
            f"{CERT_FAMILY}): on each of {count} p-pieces tiling (0, {CERT_P_HIGH}] a fewest-knot "
            f"vertex beats every vertex with more knots")


def _short_runs_mutate(proof: dict) -> dict:
    """The first piece of d = (1, 1) won by the 2-knot linear spline instead of the 1-knot vertex."""
    out = copy.deepcopy(proof)
    s = next(s for s in out["sets"] if s["d"] == [1, 1])
    vertices = _grid_vertices((1, 1))
    s["pieces"][0][1] = next(i for i, v in enumerate(vertices) if len(v) > s["K0"])
    return out


def _sign_changes(coefficients: list[int]) -> int:
    signs = [c > 0 for c in coefficients if c != 0]
    return sum(a != b for a, b in itertools.pairwise(signs))


def _unique_prove() -> dict:
    sets = []
    for d in _grid_curvatures():
        vertices = _grid_vertices(d)
        multisets = {tuple(sorted(str(abs(_q(c))) for _, c in v)) for v in vertices}
        sets.append({"d": list(d), "vertices": len(vertices), "multisets": len(multisets),
                     "exceptional_p_bound": _exceptional_bound(sorted(multisets))})
    return {"family": [list(f) for f in CERT_FAMILY], "sets": sets}


def _exceptional_bound(multisets: list[tuple[str, ...]]) -> int:
    """Σ over pairs of distinct multisets of the sign changes of Σ_b (count_A(b) − count_B(b)) b^p, bases b
    in increasing order: by Descartes' rule for exponential sums (Pólya–Szegő, Part V, Problem 75) an upper
    bound on the p where two vertices of different |slope change| multisets tie, over all p."""
    total = 0
    for A, B in itertools.combinations(multisets, 2):
        bases = sorted({*A, *B}, key=Fraction)
        coefficients = [A.count(b) - B.count(b) for b in bases]
        if not any(coefficients):
            raise Refuted({"multisets": [list(A), list(B)]},
                          "two different multisets with equal V_p for all p")
        total += _sign_changes(coefficients)
    return total


def _unique_recheck(proof: dict) -> str:
    family = _grid_family_check(proof)
    bound = 0
    for s, d in zip(proof["sets"], family, strict=True):
        vertices = _grid_vertices(d)
        multisets = sorted({tuple(sorted(str(abs(_q(c))) for _, c in v)) for v in vertices})
        for A, B in itertools.combinations(multisets, 2):
            bases = sorted({*A, *B}, key=Fraction)
            if not any(A.count(b) != B.count(b) for b in bases):
                raise Rejected(f"d = {s['d']}: multisets {A} and {B} coincide")
        got = (len(vertices), len(multisets), _exceptional_bound(multisets))
        if got != (s["vertices"], s["multisets"], s["exceptional_p_bound"]):
            raise Rejected(f"d = {s['d']}: (vertices, multisets, bound) {got}, the artifact says "
                           f"{(s['vertices'], s['multisets'], s['exceptional_p_bound'])}")
        bound = max(bound, got[2])
    return (f"{len(proof['sets'])} grid data sets: the minimizers are among finitely many vertices, and two "
            f"with different |slope change| multisets tie at no more than {bound} values of p per data set "
            f"(nonzero exponential sums)")


def _unique_mutate(proof: dict) -> dict:
    out = copy.deepcopy(proof)
    s = max(out["sets"], key=lambda s: s["exceptional_p_bound"])
    s["exceptional_p_bound"] -= 1
    return out


def _concave_prove() -> dict:
    t, p = sympy.symbols("t p", positive=True)
    second = sympy.factor(sympy.powsimp(sympy.diff(t**p, t, 2), force=True))
    return {"function": "t**p", "second_derivative": str(second),
            "factors": ["p", "p - 1", "t**(p - 2)"], "signs": [1, -1, 1]}


def _concave_recheck(proof: dict) -> str:
    t, p = sympy.symbols("t p", positive=True)
    names = {"t": t, "p": p}
    if proof["function"] != "t**p":
        raise Rejected(f"the function {proof['function']} is not t**p")
    second = sympy.sympify(proof["second_derivative"], locals=names)
    # the stated second derivative equals d²/dt² t^p: compare after dividing out t^(p−2) (exact over Q[p])
    if sympy.expand(sympy.powsimp((sympy.diff(t**p, t, 2) - second) * t**(2 - p), force=True)) != 0:
        raise Rejected(f"{second} is not the second derivative of t^p")
    factors = [sympy.sympify(f, locals=names) for f in proof["factors"]]
    if sympy.expand(sympy.powsimp((sympy.Mul(*factors) - second) * t**(2 - p), force=True)) != 0:
        raise Rejected("the factors do not multiply to the second derivative")
    for factor, sign in zip(factors, proof["signs"], strict=True):
        if factor.is_polynomial(p) and sympy.degree(factor, p) <= 1 and not factor.has(t):
            # an affine function of p: its sign on (0, 1) from its values at the ends (exact rationals)
            ends = [factor.subs(p, 0), factor.subs(p, 1)]
            ok = all(sign * e >= 0 for e in ends) and any(sign * e > 0 for e in ends)
        else:
            ok = factor == t**(p - 2) and sign == 1      # a positive base to a real power
        if not ok:
            raise Rejected(f"the factor {factor} does not have sign {sign} for t > 0, 0 < p < 1")
    if sympy.Mul(*proof["signs"]) != -1:
        raise Rejected("the signs do not multiply to −1")
    return "d²/dt² t^p = p·(p − 1)·t^(p−2) < 0 for every t > 0 and 0 < p < 1 (sign of each factor)"


def _concave_refute() -> dict:
    return {"p": "101/100", "a": "1", "b": "4"}


def _concave_recheck_witness(witness: dict) -> str:
    """Midpoint concavity fails for t^p at p = 1.01: t^p((a+b)/2) < (a^p + b^p)/2, in arb balls."""
    p, a, b = (_q(witness[k]) for k in ("p", "a", "b"))
    if not (1 < p <= flint.fmpq(101, 100)) or not (0 < a < b):
        raise Rejected("the witness needs 1 < p <= 1.01 and 0 < a < b")
    mid = flint.arb((a + b) / 2) ** flint.arb(p)
    avg = (flint.arb(a) ** flint.arb(p) + flint.arb(b) ** flint.arb(p)) / 2
    if not mid < avg:
        raise Rejected(f"t^p at the midpoint {mid} is not certainly below the average {avg}")
    return (f"p = {p}: ((a+b)/2)^p = {mid.str(6)} < (a^p + b^p)/2 = {avg.str(6)} (a = {a}, b = {b}): "
            "not concave")


def _segment_prove() -> dict:
    lam, c, e, p = sympy.symbols("s c e p", real=True)
    term = (c + lam * e) ** p          # one coordinate on a segment inside its orthant (c + s·e > 0)
    second = sympy.factor(sympy.diff(term, lam, 2))
    return {"term": "(c + s*e)**p", "second_derivative": str(second),
            "factors": ["p", "p - 1", "e**2", "(c + s*e)**(p - 2)"], "signs": [1, -1, 1, 1]}


def _segment_recheck(proof: dict) -> str:
    lam, c, e, p = sympy.symbols("s c e p", real=True)
    names = {"s": lam, "c": c, "e": e, "p": p}
    u = c + lam * e
    if sympy.expand(sympy.sympify(proof["term"], locals=names) - u**p) != 0:
        raise Rejected(f"the term {proof['term']} is not (c + s·e)^p")
    second = sympy.sympify(proof["second_derivative"], locals=names)
    factors = [sympy.sympify(f, locals=names) for f in proof["factors"]]
    for expr, what in ((sympy.diff(u**p, lam, 2), "the second derivative in s"),
                       (sympy.Mul(*factors), "the product")):
        if sympy.expand(sympy.powsimp((expr - second) * u ** (2 - p), force=True)) != 0:
            raise Rejected(f"{proof['second_derivative']} is not {what}")
    expected = {"p": 1, "p - 1": -1, "e**2": 1, "(c + s*e)**(p - 2)": 1}
    got = dict(zip(proof["factors"], proof["signs"], strict=True))
    if got != expected:   # p > 0, p − 1 < 0, a square, a positive base to a real power (0 < p < 1)
        raise Rejected(f"factor signs {got} are not {expected}")
    return ("along any segment of slope changes inside one orthant, each |c_i + s·e_i|^p has second "
            "derivative "
            "p(p − 1)e_i²|c_i + s·e_i|^(p−2) <= 0: V_p is concave there for 0 < p < 1")


def _vertex_refute() -> dict:
    """Data d = (1, 1) (x = 0..3, y = 0, 0, 1, 3), knots S = {1, 3/2, 2}, p = 3/2: the interpolant with
    slope changes (1/2, 1, 1/2) at the three knots beats every vertex."""
    return {"x": [0, 1, 2, 3], "y": [0, 0, 1, 3], "knots": ["1", "3/2", "2"], "p": "3/2",
            "point": {"intercept": "0", "slope": "0", "changes": ["1/2", "1", "1/2"]}}


def _vertex_recheck_witness(witness: dict) -> str:
    x, y = [Fraction(v) for v in witness["x"]], [Fraction(v) for v in witness["y"]]
    knots = [Fraction(v) for v in witness["knots"]]
    p = _q(witness["p"])
    point = witness["point"]
    net = {"intercept": point["intercept"], "slope": point["slope"],
           "knots": list(zip(witness["knots"], point["changes"], strict=True))}
    if any(_cpwl_exact(net, xi) != yi for xi, yi in zip(x, y, strict=True)):
        raise Rejected("the witness point does not interpolate")
    value = sum((flint.arb(abs(_q(c))) ** flint.arb(p) for c in point["changes"]), flint.arb(0))
    n, best = len(x), None
    for k in range(n - 1):             # every vertex: independent features, exact interpolation
        for T in itertools.combinations(knots, k):
            rows = [[1, xi, *[max(xi - t, 0) for t in T], yi] for xi, yi in zip(x, y, strict=True)]
            M = flint.fmpq_mat(n, k + 3, [flint.fmpq(v.numerator, v.denominator) for r in rows for v in r])
            R, rank = M.rref()
            if rank != k + 2 or any(R[i, i] != 1 for i in range(k + 2)):
                continue
            v = sum((flint.arb(abs(R[i + 2, k + 2])) ** flint.arb(p) for i in range(k)), flint.arb(0))
            best = v if best is None or v < best else best
    if best is None or not value < best:
        raise Rejected(f"V_p at the witness ({value}) is not certainly below every vertex (best {best})")
    return (f"p = {witness['p']}: an interpolant with knots in S has V_p = {value.str(5)} < {best.str(5)}, "
            "the "
            f"least over the vertices: no vertex minimum past p = 1")


def _vertex_properties(d: tuple[int, ...], vertex) -> bool:
    """Corollaries 3.1.1-3.1.2 at one vertex, exactly: V_1 = Σ|Δ_i| (the least ℓ1 path norm), at most N − 2
    knots, and every piece's slope within max_i |s_i| (the first piece has slope s_0: no candidate knot lies
    in (x_0, x_1))."""
    x, y = _grid_data(d)
    chords = [Fraction(y[i + 1] - y[i]) for i in range(len(x) - 1)]
    changes = [Fraction(c) for _, c in vertex]
    least_v1 = sum(abs(chords[i + 1] - chords[i]) for i in range(len(chords) - 1))
    slopes = list(itertools.accumulate(changes, initial=chords[0]))
    return (sum(abs(c) for c in changes) == least_v1 and len(changes) <= len(x) - 2
            and max(abs(s) for s in slopes) <= max(abs(s) for s in chords))


def _possible_minimizers(vertices, lo: flint.fmpq, hi: flint.fmpq) -> tuple[int, list[int]]:
    """(index of the vertex with the least upper bound, indices not certainly beaten by it) on p in "
      "[lo, hi]."""
    bounds = [_vp_bounds([c for _, c in v], lo, hi) for v in vertices]
    winner = min(range(len(vertices)), key=lambda i: float(bounds[i][1].upper().mid()))
    return winner, [i for i, b in enumerate(bounds) if not bounds[winner][1] < b[0]]


def _l1_prove() -> dict:
    sets = []
    for d in _grid_curvatures():
        vertices = _grid_vertices(d)
        pieces, start, width = [], flint.fmpq(0), flint.fmpq(1, 8)
        while start < _q(str(CERT_P_HIGH)):
            end = min(start + width, _q(str(CERT_P_HIGH)))
            winner, possible = _possible_minimizers(vertices, start, end)
            if not all(_vertex_properties(d, vertices[i]) for i in possible):
                if width < flint.fmpq(1, 2**16):
                    bad = next(i for i in possible if not _vertex_properties(d, vertices[i]))
                    raise CannotProve(f"d = {d}: vertex {vertices[bad]} cannot be excluded near p = {start}")
                width /= 2
                continue
            pieces.append([str(end), winner, possible])
            start, width = end, width * 2
        sets.append({"d": list(d), "pieces": pieces})
    return {"family": [list(f) for f in CERT_FAMILY], "p_high": str(CERT_P_HIGH), "sets": sets}


def _l1_recheck(proof: dict) -> str:
    family = _grid_family_check(proof)
    if Fraction(proof["p_high"]) != CERT_P_HIGH:
        raise Rejected(f"p_high {proof['p_high']} is not {CERT_P_HIGH}")
    count = 0
    for s, d in zip(proof["sets"], family, strict=True):
        vertices = _grid_vertices(d)
        start = flint.fmpq(0)
        for end, winner, possible in s["pieces"]:
            end = _q(end)
            if not start < end:
                raise Rejected(f"d = {s['d']}: pieces out of order at {end}")
            beaten = _vp_bounds([c for _, c in vertices[winner]], start, end)[1]
            for i, v in enumerate(vertices):
                if i in possible:
                    if not _vertex_properties(d, v):
                        raise Rejected(f"d = {s['d']}: vertex {i} may minimize on [{start}, {end}] but "
                                       "breaks a corollary")
                elif not beaten < _vp_bounds([c for _, c in v], start, end)[0]:
                    raise Rejected(f"d = {s['d']}: vertex {i} is not beaten by vertex {winner} on "
                                   f"[{start}, {end}]")
            start = end
            count += 1
        if start != _q(str(CERT_P_HIGH)):
            raise Rejected(f"d = {s['d']}: the pieces stop at {start}")
    return (f"{len(proof['sets'])} grid data sets, {count} p-pieces tiling (0, {CERT_P_HIGH}]: every vertex "
            "that can minimize V_p there has V_1 = Σ|Δ_i| (the least ℓ1 path norm), at most N − 2 "
            "neurons and "
            "Lipschitz constant <= max_i |s_i|")


def _l1_mutate(proof: dict) -> dict:
    """Drop a possible minimizer from the first piece of a data set with several: it is not beaten there."""
    out = copy.deepcopy(proof)
    for s in out["sets"]:
        for piece in s["pieces"]:
            others = [i for i in piece[2] if i != piece[1]]
            if others:
                piece[2].remove(others[0])
                return out
    raise ValueError("no piece with two possible minimizers")


def _l1_refute() -> dict:
    """Control (the claim's): the Lipschitz bound tightened to (1 − 10⁻⁶)·max|s_i|; the V_p minimizer of
    d = (1, 1) (its one knot at 3/2, slope 0 then 2) has Lipschitz constant max|s_i| = 2."""
    return {"x": [0, 1, 2, 3], "y": [0, 0, 1, 3], "tighten": "999999/1000000",
            "net": {"intercept": "0", "slope": "0", "knots": [["3/2", "2"]]}}


def _l1_recheck_witness(witness: dict) -> str:
    """Any interpolant takes slope s_i somewhere in gap i (mean value), so its Lipschitz constant is
    >= max|s_i|; the witness net interpolates and its largest slope is exactly max|s_i|, above the bound."""
    x, y = [Fraction(v) for v in witness["x"]], [Fraction(v) for v in witness["y"]]
    net = witness["net"]
    if any(_cpwl_exact(net, xi) != yi for xi, yi in zip(x, y, strict=True)):
        raise Rejected("the witness net does not interpolate")
    chords = [(y[i + 1] - y[i]) / (x[i + 1] - x[i]) for i in range(len(x) - 1)]
    changes = (Fraction(c) for _, c in net["knots"])
    slopes = list(itertools.accumulate(changes, initial=Fraction(net["slope"])))
    lipschitz, bound = max(abs(s) for s in slopes), Fraction(witness["tighten"]) * max(abs(s) for s in chords)
    if not lipschitz > bound:
        raise Rejected(f"Lipschitz {lipschitz} is within the tightened bound {bound}")
    return f"an interpolant's Lipschitz constant {lipschitz} exceeds (1 − 10⁻⁶)·max|s_i| = {bound}"


def _path_norm_prove() -> dict:
    return {"neuron_slope_change": {"w>0": "v*w", "w<0": "-v*w"},
            "rescaling": "(v/alpha)*Max(alpha*z, 0) - v*Max(z, 0)",
            "subadditive_h": "1 + s**p - (1 + s)**p",
            "subadditive_h_prime": "p*(s**(p - 1) - (1 + s)**(p - 1))"}


def _path_norm_recheck(proof: dict) -> str:
    v, x, b = sympy.symbols("v x b", real=True)
    alpha, w_pos, s = sympy.symbols("alpha w_pos s", positive=True)
    p = sympy.Symbol("p", positive=True)
    names = {"v": v, "x": x, "b": b, "s": s, "alpha": alpha, "p": p}
    # (i) one neuron v (w x + b)+ changes slope once, at −b/w, by v|w|: slopes of the two linear pieces
    for case, w in (("w>0", w_pos), ("w<0", -w_pos)):
        pieces = {"left": 0 if case == "w>0" else v * w, "right": v * w if case == "w>0" else 0}
        change = sympy.sympify(proof["neuron_slope_change"][case], locals={**names, "w": w})
        if sympy.expand(pieces["right"] - pieces["left"] - change) != 0 or sympy.expand(
                abs(change) - abs(v) * w_pos) != 0:
            raise Rejected(f"{case}: the slope change {change} is not v|w|")
    # (ii) positive homogeneity of the ReLU: (v/α)(α z)+ = v z+ for the pre-activation z = wx + b of either
    # sign, so rescaling (v/α, αw, αb) leaves the neuron unchanged
    z = sympy.Symbol("z", real=True)
    rescaled = sympy.sympify(proof["rescaling"], locals={**names, "z": z})
    if sympy.expand(rescaled - ((v / alpha) * sympy.Max(alpha * z, 0) - v * sympy.Max(z, 0))) != 0:
        raise Rejected(f"{proof['rescaling']} is not the rescaled neuron minus the neuron")
    for sign in (1, -1):
        zs = sympy.Symbol("zs", positive=True)
        if sympy.expand(rescaled.subs(z, sign * zs)) != 0:    # Max evaluates: α, zs > 0
            raise Rejected(f"rescaling changes the neuron where z has sign {sign}")
    # (iii) subadditivity |a + b|^p <= |a|^p + |b|^p, 0 < p <= 1: with s = |b|/|a| in [0, 1],
    # h(s) = 1 + s^p − (1 + s)^p has h(0) = 0 and h' = p(s^(p−1) − (1+s)^(p−1)) >= 0 (t^(p−1) non-increasing)
    h = sympy.sympify(proof["subadditive_h"], locals=names)
    if sympy.expand(h - (1 + s**p - (1 + s) ** p)) != 0:
        raise Rejected(f"h = {h} is not 1 + s^p − (1 + s)^p")
    h_prime = sympy.sympify(proof["subadditive_h_prime"], locals=names)
    if sympy.expand(sympy.powsimp(sympy.expand(sympy.diff(h, s) - h_prime), force=True)) != 0:
        raise Rejected(f"h' = {h_prime} is not the derivative of h")
    if sympy.expand(h_prime - p * (s ** (p - 1) - (1 + s) ** (p - 1))) != 0:
        raise Rejected("h' is not p(s^(p−1) − (1 + s)^(p−1))")
    if h.subs(s, 0) != 0:                            # 0^p = 0 for p > 0
        raise Rejected("h(0) ≠ 0")
    return ("a neuron v(wx + b)+ changes slope once, by v|w| (so |change|^p = |vw|^p); (v/α, αw, αb) is "
            "the same "
            "neuron; |a + b|^p <= |a|^p + |b|^p for 0 < p <= 1 (h(0) = 0, h' >= 0): merging same-knot "
            "neurons "
            "never raises the path norm, so the least path norm of a net realizing f is V_p(f)")


def _path_norm_refute() -> dict:
    return {"p": 2, "a": 1, "b": 1}


def _path_norm_recheck_witness(witness: dict) -> str:
    p, a, b = (Fraction(witness[k]) for k in ("p", "a", "b"))
    if p.denominator != 1 or p <= 1:
        raise Rejected("the witness needs an integer p > 1")
    merged, separate = abs(a + b) ** int(p), abs(a) ** int(p) + abs(b) ** int(p)
    if not merged > separate:
        raise Rejected(f"|a + b|^p = {merged} is not above |a|^p + |b|^p = {separate}")
    return (f"p = {p}: two neurons at one knot with v w = {a}, {b} have path norm {separate} but the merged "
            f"slope change costs {merged}: V_p exceeds the path norm, the identity fails past p = 1")


_GRID_SCOPE = ("every grid data set x = 0, 1, ..., N − 1 with integer y whose discrete curvatures lie in "
               "{−D..D} for (N, D) in ((3, 3), (4, 3), (5, 2), (6, 1)) (262 data sets, taken modulo linear "
               "functions), every interpolant with knots in the candidate set")
_GRID_TRUSTS = ("Theorem 3.1 of the paper with the Bauer-principle step of Theorem 3.2's proof (every V_p "
                "minimizer, 0 < p < 1, has its segments on chord lines, so its knots are interior data "
                "points or chord crossings) and concavity of V_p on each orthant (so minimizers are "
                "vertices: "
                "certified in sparse_relu.vertex_minimizer); python-flint's exact rational linear algebra "
                "(fmpq_mat) and arb balls for |c|^p")
_V1_TIE = ("at p = 1 the same holds: every V_1 minimizer of every data set has the fewest knots")

_CERTIFICATES: dict[str, Certificate] = {
    "sparse_relu.minimizer_is_sparsest": Certificate(
        statement="For every data set of the grid family some p0 in {1/2, 1/4} exists such that for every p "
                  "in (0, p0] every global V_p minimizer over the candidate-knot interpolants has exactly K0 "
                  "knots, the fewest of any candidate-knot interpolant (Theorem 3.2's data-dependent p*, "
                  "exhibited per data set; p0 >= 1/4 throughout the family)",
        scope=_GRID_SCOPE + "; every p in (0, p0]",
        method=Method.ENUMERATION,
        trusts=_GRID_TRUSTS,
        prove=_sparsest_prove,
        recheck=_sparsest_recheck,
        control_statement=_V1_TIE,
        refute=_v1_tie_refute,
        recheck_witness=_v1_tie_recheck_witness,
        mutate=_sparsest_mutate,
    ),
    "sparse_relu.short_runs_sparsest": Certificate(
        statement="For every data set of the grid family in which no more than two consecutive interior "
                  "points share a nonzero curvature sign, and every p in (0, 99/100], every global V_p "
                  "minimizer over the candidate-knot interpolants has the fewest knots K0 (Theorem 3.2, "
                  "third sentence)",
        scope=_GRID_SCOPE + " with equal-sign curvature runs of length <= 2 (236 data sets); p in "
                            "(0, 99/100] (at p = 1 ties appear, so no finite tiling reaches it)",
        method=Method.ENUMERATION,
        trusts=_GRID_TRUSTS,
        prove=_short_runs_prove,
        recheck=_short_runs_recheck,
        control_statement=_V1_TIE,
        refute=_v1_tie_refute,
        recheck_witness=_v1_tie_recheck_witness,
        mutate=_short_runs_mutate,
    ),
    "sparse_relu.unique_minimizer": Certificate(
        statement="For every data set of the grid family the V_p minimizers (0 < p < 1) are among finitely "
                  "many vertex interpolants, and two vertices with different multisets of |slope change| "
                  "have V_p values that differ for all but at most B values of p (B listed per data set, at "
                  "most 7): the minimizer is unique up to its multiset for all but finitely many p "
                  "(Theorem 3.2, first sentence, with footnote 5)",
        scope=_GRID_SCOPE + "; every p in (0, 1)",
        method=Method.ENUMERATION,
        trusts=_GRID_TRUSTS + "; Descartes' rule of signs for exponential sums Σ a_i b_i^p (Pólya–Szegő, "
                              "Problems and Theorems in Analysis II, Part V, Problem 75)",
        prove=_unique_prove,
        recheck=_unique_recheck,
        control_statement="at p = 1 too all V_1 minimizers share one multiset of |slope change|",
        refute=_v1_tie_refute,
        recheck_witness=_v1_tie_recheck_witness,
        mutate=_unique_mutate,
    ),
    "sparse_relu.l1_and_lipschitz_bounds": Certificate(
        statement="For every data set of the grid family and every p in (0, 99/100], every vertex that "
                  "can be a "
                  "global V_p minimizer over the candidate-knot interpolants (not certainly beaten on a "
                  "p-piece) has Σ|v_k w_k| = Σ_i |s_(i+1) − s_i| (the least ℓ1 path norm: it is also a "
                  "min-ℓ1 "
                  "interpolant), at most N − 2 neurons, and Lipschitz constant <= max_i |s_i| "
                  "(Corollaries 3.1.1 and 3.1.2); max_k |v_k w_k| <= Σ_k |v_k w_k| is immediate",
        scope=_GRID_SCOPE + "; p in (0, 99/100]",
        method=Method.ENUMERATION,
        trusts=_GRID_TRUSTS + "; that minimizers are vertices gives the N − 2 bound (Corollary 3.1.1's own "
                              "argument), so the enumeration confirms the other two properties",
        prove=_l1_prove,
        recheck=_l1_recheck,
        control_statement="the Lipschitz bound tightened to (1 − 10⁻⁶)·max_i |s_i| holds for every minimizer",
        refute=_l1_refute,
        recheck_witness=_l1_recheck_witness,
        mutate=_l1_mutate,
    ),
    "sparse_relu.path_norm_equals_vp": Certificate(
        statement="For every univariate ReLU net and 0 < p <= 1: a neuron v(wx + b)+ with w ≠ 0 changes "
                  "the slope "
                  "once, at −b/w, by v|w| (so its path-norm term |vw|^p is |slope change|^p); (v/α, αw, αb), "
                  "α > 0, is the same neuron; and |a + b|^p <= |a|^p + |b|^p, so merging neurons that "
                  "share a "
                  "knot never raises the path norm: V_p(f) <= the path norm, with equality for distinct "
                  "knots, "
                  "and the least path norm of a net realizing f is V_p(f) (Remark 1, the core of Proposition "
                  "3.1's reduction)",
        scope="all weights (both signs of w), all α > 0, all real a, b and 0 < p <= 1",
        method=Method.EXACT_ALGEBRA,
        trusts="sympy's expansion, simplification of Max as a Piecewise and differentiation; that t^(p−1) is "
               "non-increasing on t > 0 for p <= 1 and |a + b| <= |a| + |b|",
        prove=_path_norm_prove,
        recheck=_path_norm_recheck,
        control_statement="merging same-knot neurons never raises the path norm also at p = 2",
        refute=_path_norm_refute,
        recheck_witness=_path_norm_recheck_witness,
        mutate=lambda proof: {**proof, "subadditive_h_prime": "p*(s**(p - 1) + (1 + s)**(p - 1))"},
    ),
    "sparse_relu.quasinorm_concave": Certificate(
        statement="t ↦ t^p has second derivative p(p − 1)t^(p−2) < 0 for every t > 0 and every 0 < p < 1 "
                  "(strictly concave), the claim's statement",
        scope="all t > 0 and all p in (0, 1)",
        method=Method.EXACT_ALGEBRA,
        trusts="sympy's differentiation, powsimp and expansion over Q(p); the sign of a positive base to a "
               "real power",
        prove=_concave_prove,
        recheck=_concave_recheck,
        control_statement="t ↦ t^p is concave on t > 0 also at p = 1.01",
        refute=_concave_refute,
        recheck_witness=_concave_recheck_witness,
        mutate=lambda proof: {**proof, "signs": [1, 1, 1]},
    ),
    "sparse_relu.vertex_minimizer": Certificate(
        statement="Along every segment of slope changes inside one orthant, V_p = Σ|c_i|^p is concave for "
                  "0 < p < 1 (each term has second derivative p(p − 1)e_i²|c_i + s·e_i|^(p−2) <= 0); so on "
                  "each orthant's polyhedron of interpolants with knots in S (pointed: it lies in an "
                  "orthant of the slope changes, and the intercept and slope are fixed by them) V_p attains "
                  "its least value at a vertex, an interpolant with at most N − 2 knots of S with "
                  "independent features",
        scope="every data set, every finite knot set S, every p in (0, 1)",
        method=Method.EXACT_ALGEBRA,
        trusts="sympy's differentiation and expansion; that a concave function bounded below on a pointed "
               "polyhedron attains its infimum at a vertex (Rockafellar, Convex Analysis, Cor. 32.3.4, "
               "applied to −V_p)",
        prove=_segment_prove,
        recheck=_segment_recheck,
        control_statement="the least V_p over the interpolants with knots in S sits at a vertex also at "
                          "p = 3/2",
        refute=_vertex_refute,
        recheck_witness=_vertex_recheck_witness,
        mutate=lambda proof: {**proof, "signs": [1, 1, 1, 1]},
    ),
}


def _one_failure(test):
    """``test`` with every assertion failure re-raised from one line, without its context.

    hypothesis tells failures apart by where they are raised; with several assertions a control can
    fail in more than one way and hypothesis then raises an ExceptionGroup of all of them, which
    ``property_outcome`` does not read as a counterexample. One origin keeps one (shrunk) failure.
    """
    def wrapped(example):
        message = None
        try:
            return test(example)
        except AssertionError as exc:
            message = str(exc)
        raise AssertionError(message)

    return wrapped


def _sampled_outcome(draw, test, *, ctx: Context, count: int, what: str) -> Outcome:
    """Run ``test`` on ``count`` instances ``draw(rng)`` from the context's generator; no shrinking.

    For the multivariate claims, whose instances cost a second each: hypothesis would spend minutes
    shrinking a control's counterexample. The first failing instance is reported as drawn.
    """
    rng = ctx.rng(what)
    figures: dict = {}
    for index in range(count):
        example = draw(rng)
        try:
            figures = test(example) or figures
        except AssertionError as exc:
            return Outcome("fail", f"{what}: counterexample found ({exc})",
                           {"statement": what, "examples_run": index + 1, "message": str(exc),
                            "counterexample": [np.asarray(e).tolist() for e in example]})
    return Outcome("pass", f"{what}: held on {count} drawn instances",
                   {"statement": what, "examples_run": count, **figures})


# ----------------------------------------------------------------------------- path norm = V_p


@st.composite
def _networks(draw):
    """A univariate ReLU net whose knots come from a 5-point grid (so knots repeat often)."""
    width = draw(st.integers(1, 6))
    grid = [-1.0, -0.5, 0.0, 0.5, 1.0]
    knots = np.array(draw(st.lists(st.sampled_from(grid), min_size=width, max_size=width)))
    mag = st.floats(0.2, 3.0, allow_nan=False)
    sign = st.sampled_from([-1.0, 1.0])
    w = np.array([draw(sign) * draw(mag) for _ in range(width)])
    v = np.array([draw(sign) * draw(mag) for _ in range(width)])
    a = draw(st.floats(-2.0, 2.0, allow_nan=False))
    c = draw(st.floats(-2.0, 2.0, allow_nan=False))
    p = draw(st.floats(0.05, 0.95, allow_nan=False))
    alpha = np.array(draw(st.lists(st.floats(0.1, 10.0, allow_nan=False), min_size=width, max_size=width)))
    return {"knots": knots, "w": w, "b": -w * knots, "v": v, "a": a, "c": c, "p": p, "alpha": alpha}


def _net_eval(net, x):
    pre = np.outer(x, net["w"]) + net["b"]
    return np.maximum(pre, 0.0) @ net["v"] + net["a"] * x + net["c"]


def _vp_by_finite_differences(net, p):
    """V_p from the slopes of the network function on both sides of each distinct drawn knot."""
    knots = np.unique(net["knots"])
    delta = 1e-3  # knots are >= 0.5 apart, so [t - 2δ, t + 2δ] holds exactly one knot
    jumps = []
    for t in knots:
        pts = np.array([t - 2 * delta, t - delta, t + delta, t + 2 * delta])
        f = _net_eval(net, pts)
        jumps.append((f[3] - f[2]) / delta - (f[1] - f[0]) / delta)
    # a slope difference from values of size ≤ ~30 divided by δ carries rounding ~1e-16·30/δ ≈ 3e-12;
    # drawn jumps that do not cancel are ≥ 0.04 in size (see the assume below), so 1e-6 separates them.
    return vp_of_jumps(jumps, p, zero_tol=1e-6)


def _unmerged_vp(w, v, p):
    """Sabotaged V_p for the control: one slope jump v_k|w_k| per active neuron, equal knots NOT merged.

    This is the per-neuron view of the path norm, not a function-space quantity; it lives here,
    not in algorithms/, so no user can pick it by mistake.
    """
    w, v = np.asarray(w, dtype=np.float64), np.asarray(v, dtype=np.float64)
    active = w != 0
    return vp_of_jumps(v[active] * np.abs(w[active]), p)


def _check_path_norm(ctx: Context, *, sabotage: bool) -> Outcome:
    worst = {"max_vp_error": 0.0, "max_gap_with_duplicates": 0.0, "draws_with_duplicates": 0}

    def test(net):
        p = net["p"]
        merged = network_to_cpwl(net["w"], net["b"], net["v"], a=net["a"], c=net["c"])
        # merged slope changes that (nearly) cancel make |c|^p ill-conditioned at c → 0: skip those draws
        per_knot = {}
        for t, u in zip(net["knots"], net["v"] * np.abs(net["w"])):
            per_knot[t] = per_knot.get(t, 0.0) + u
        assume(all(abs(u) > 0.04 for u in per_knot.values()))
        if sabotage:  # one entry per neuron: duplicate knots counted twice
            vp = _unmerged_vp(net["w"], net["v"], p)
        else:
            vp = merged.vp(p)
        reference = _vp_by_finite_differences(net, p)
        err = abs(vp - reference)
        # |c|^p of c known to ~1e-11 (finite differences) moves by p|c|^{p-1}·1e-11 < 1e-9 for |c| > 0.04
        assert err <= 1e-7 * (1 + reference), f"V_p {vp:.10g} vs finite differences {reference:.10g}"
        pn = path_norm(net["v"], net["w"], p)
        distinct = np.unique(net["knots"]).size == net["knots"].size
        # Tolerance for pn vs vp: both sum the same ≤ 6 terms |v_k w_k|^p (each ≤ 9^p, the product
        # v·|w| is the same float either way), only the summation order and merging differ, so
        # with distinct knots they agree to ~6 ulp·(1 + vp) ≈ 1e-15·(1 + vp). A wrong knot set
        # (one missing or extra neuron) moves the sum by ≥ 0.04^p > 0.04 (assume above), so any
        # threshold between 1e-15 and 1e-2 separates them; 1e-9 sits in the middle (log scale).
        if distinct:
            assert abs(pn - vp) <= 1e-9 * (1 + vp), f"distinct knots: path norm {pn} != V_p {vp}"
        else:
            assert pn >= vp - 1e-9 * (1 + vp), f"path norm {pn} < V_p {vp}"
            worst["draws_with_duplicates"] += 1
            worst["max_gap_with_duplicates"] = max(worst["max_gap_with_duplicates"], round(pn - vp, 6))
        # neuron balancing (v, w, b) -> (v/α, αw, αb), α > 0, keeps the function and each |v w|.
        # Tolerances: each neuron's output v(wx + b)₊ is ≤ 3·3·3 = 27 in size (|x| ≤ 2, |knot| ≤ 1,
        # |v|, |w| ≤ 3) and the rescaling changes it by a few ulp (relative ~4e-16), so the net values
        # (≤ 6 neurons plus |a x + c| ≤ 6) agree to ~1e-13 absolute; each |v w| changes by ≤ 2 ulp,
        # so the path norm agrees to ~1e-15·(1 + pn). 1e-9 leaves >= 4 orders of headroom, and a
        # real asymmetry (e.g. |v|·|w|² instead of |v w|) moves them by O(1).
        xs = np.linspace(-2.0, 2.0, 41)
        al = net["alpha"]
        scaled = {**net, "w": al * net["w"], "b": al * net["b"], "v": net["v"] / al}
        assert np.allclose(_net_eval(scaled, xs), _net_eval(net, xs), rtol=0, atol=1e-9), "rescaling"
        assert abs(path_norm(scaled["v"], scaled["w"], p) - pn) <= 1e-9 * (1 + pn)
        # the merged (one neuron per knot) network computes the same function and attains V_p
        assert np.allclose(merged(xs), _net_eval(net, xs), rtol=0, atol=1e-9), "merged net differs"
        pn_merged = path_norm(merged.jumps, np.ones_like(merged.jumps), p)
        # same |c_j|^p summed in the same order, c_j·1.0 is exact: equal to the last bit
        assert pn_merged == merged.vp(p), (pn_merged, merged.vp(p))
        # p = 0 (the ℓ0 path norm counts active neurons, V_0 counts knots), with two dead neurons added
        # (w = 0 with b < 0, and v = 0), which change neither f nor any count: the count is at least the
        # knot count, equal to it for distinct knots, and the merged net attains it. Counts are exact.
        w0, v0 = np.append(net["w"], [0.0, net["w"][0]]), np.append(net["v"], [net["v"][0], 0.0])
        b0 = np.append(net["b"], [-1.0, net["b"][0]])
        active = count_active_neurons(v0, w0)
        assert active == path_norm(v0, w0, 0) == net["w"].size, (
            f"ℓ0 path norm: {active} active neurons, path_norm(p=0) {path_norm(v0, w0, 0)}, "
            f"{net['w'].size} alive")
        dead_added = network_to_cpwl(w0, b0, v0, a=net["a"], c=net["c"])
        assert dead_added.num_knots == merged.num_knots, "dead neurons changed the knot set"
        assert np.allclose(dead_added(xs), merged(xs), rtol=0, atol=1e-9), "dead neurons changed f"
        if distinct:
            assert active == merged.num_knots, (
                f"distinct knots: {active} active neurons, {merged.num_knots} knots")
        else:
            assert active >= merged.num_knots, f"{active} active neurons < {merged.num_knots} knots"
        ones = np.ones_like(merged.jumps)
        assert count_active_neurons(merged.jumps, ones) == merged.num_knots == merged.vp(0)
        worst["max_vp_error"] = max(worst["max_vp_error"], float(f"{err:.3g}"))
        return dict(worst)

    return property_outcome(_networks(), _one_failure(test), ctx=ctx, max_examples=ctx.pick(150, 1000),
                            what="path norm = V_p for distinct knots, >= V_p with repeated knots, "
                                 "V_p matches finite differences")


register(Claim(
    id="sparse_relu.path_norm_equals_vp",
    paper=PAPER,
    source="Proposition 3.1 and Remark 1 (arXiv:2505.21791; path norm vs V_p of the realized function)",
    origin=Origin.PAPER,
    covers=("Proposition 3.1",),
    deviation=("Checks the network-level identity behind Proposition 3.1 (the least path norm of a net "
               "realizing f is V_p(f), Remark 1) on random nets with 0 < p < 1, not the equality of the two "
               "solution sets itself, and not p = 1; p = 0 (neuron count vs knot count) on the same nets."),
    statement=(
        "For a univariate ReLU net f(x) = Σ v_k (w_k x + b_k)₊ + a x + c and 0 < p < 1: V_p(f), the sum "
        "of |slope change|^p over the distinct knots of f, equals the path norm Σ |v_k w_k|^p when the "
        "knots -b_k/w_k are distinct, is at most the path norm in general (same-knot neurons merge, "
        "|a + b|^p <= |a|^p + |b|^p), and is attained by the merged net with one neuron per knot; neuron "
        "rescaling (v, w, b) -> (v/α, αw, αb), α > 0, changes neither f nor the path norm; so the least "
        "path norm among nets realizing f is V_p(f). At p = 0 likewise: the number of active neurons "
        "(|v_k w_k| > 0; dead ones, v_k = 0 or w_k = 0 with b_k < 0, change nothing) is at least the knot "
        "count of f, equal for distinct knots, and the merged net attains it."),
    kind=Kind.PROPERTY,
    check=partial(_check_path_norm, sabotage=False),
    control=partial(_check_path_norm, sabotage=True),
    control_description=(
        "V_p computed neuron by neuron without merging equal knots (duplicate knots counted twice); "
        "it disagrees with the slope changes measured from the network function by finite differences "
        "whenever two neurons share a knot."),
    certificate=_CERTIFICATES["sparse_relu.path_norm_equals_vp"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- minimizer is sparsest


@st.composite
def _datasets(draw, max_points: int):
    n = draw(st.integers(3, max_points))
    h = 1.0
    jitter = draw(st.lists(st.floats(-0.3, 0.3, allow_nan=False), min_size=n, max_size=n))
    x = np.arange(n) * h + np.array(jitter) * h
    value = st.one_of(st.integers(-3, 3).map(float), st.floats(-3.0, 3.0, allow_nan=False))
    y = np.array(draw(st.lists(value, min_size=n, max_size=n)))
    return x, y


@st.composite
def _integer_grid_datasets(draw, max_points: int):
    """x = 0, 1, ..., n - 1 and integer y in [-3, 3]: every chord slope and curvature is an exact integer."""
    n = draw(st.integers(3, max_points))
    return np.arange(float(n)), np.array(draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), float)


def sufficient_p(x, y) -> float:
    """A p below which every V_p minimizer is sparsest, from the data (derivation in the note).

    Every V_p minimizer (0 < p < 1) keeps each curvature Δ_i whole or merges it with a
    same-sign neighbour, so its slope changes lie in [m, M] (m the smallest nonzero |Δ_i|,
    M the largest |Δ_i| or same-sign |Δ_i + Δ_{i+1}|). A sparsest plan (K₀ knots) costs at
    most K₀ M^p, any plan with K₀ + 1 knots at least (K₀ + 1) m^p: sparsest wins for
    p < log(1 + 1/K₀) / log(M/m).
    """
    d = discrete_curvature(x, y)
    nz = np.abs(d[d != 0])
    k0 = min_knots_slope_dp(x, y)
    if nz.size == 0 or k0 == 0:
        return 1.0
    sums = [abs(d[i] + d[i + 1]) for i in range(d.size - 1) if np.sign(d[i]) * np.sign(d[i + 1]) > 0]
    m, M = float(nz.min()), float(max([*nz.tolist(), *sums]))
    if M <= m:
        return 1.0
    return math.log(1 + 1 / k0) / math.log(M / m)


def _check_sparsest(ctx: Context, *, p_override: float | None) -> Outcome:
    stats = {"min_p_used": 1.0, "max_p_used": 0.0}

    def test(data):
        x, y = data
        k0 = min_knots_slope_dp(x, y)  # independent DP over slope states
        p = p_override if p_override is not None else min(0.5, 0.5 * sufficient_p(x, y))
        prob = InterpolationProblem(x=x, y=y, p=p)
        brute = solve(prob, BruteForceVp())
        assert brute.successful, brute.retcode
        # "global" over the candidate knots: every subset of at most N - 2 candidates was tried (a larger
        # knot set has dependent features on N points), no more and no fewer
        n_cands = candidate_knots(prob.x, prob.y).size
        subsets = sum(math.comb(n_cands, k) for k in range(prob.n - 1))
        assert brute.stats.iterations == subsets, (
            f"the brute force tried {brute.stats.iterations} knot subsets, there are {subsets} of at most "
            f"N - 2 = {prob.n - 2} of its {n_cands} candidates")
        counts = [f.num_knots for f in brute.original]
        # Interpolation tolerance, derived from the brute force's own thresholds (scale-invariant): it
        # accepts exact solves with residual ≤ 1e-9·max|y|, then drops slope changes below the shared
        # zero threshold τ <= _largest_zero_threshold(x, y) (<= 1e-9·max|y|/min gap); each dropped jump
        # moves f on the data by ≤ τ·ptp(x), and at most N - 2 are dropped. Measured on 400 draws: max
        # residual 2.8e-12·max|y| (dropped jumps are rounding, ~1e-15); a non-interpolant misses by the
        # data scale.
        res_bound = (1e-9 * float(np.max(np.abs(y)))
                     + (x.size - 2) * _largest_zero_threshold(x, y) * float(np.ptp(x)) + 1e-300)
        for f in brute.original:
            assert np.max(np.abs(f(prob.x) - prob.y)) <= res_bound, "a brute-force minimizer misses the data"
        assert all(k == k0 for k in counts), (
            f"p = {p:.4g}: global V_p minimizers have {counts} knots, the fewest possible is {k0}")
        dp = solve(prob, SparsestInterpolantDP(objective="vp"))
        # Both are Σ|c_j|^p over the same plan's knots, with c_j from sums of curvatures (DP) or an
        # exact ≤ 8x8 solve (brute force, gaps 0.4-1.6): they agree to rounding (measured on 400 draws:
        # max 4.1e-15 relative). Two different plans differ by |a|^p + |b|^p - |a + b|^p or more, far
        # above 1e-9 relative for the drawn curvatures (nonzero ones exceed the shared zero threshold).
        assert abs(dp.value - brute.value) <= 1e-9 * max(1.0, brute.value), (dp.value, brute.value)
        stats["min_p_used"] = min(stats["min_p_used"], round(p, 6))
        stats["max_p_used"] = max(stats["max_p_used"], round(p, 6))
        return dict(stats)

    out = property_outcome(_datasets(ctx.pick(6, 8)), _one_failure(test), ctx=ctx,
                           max_examples=ctx.pick(40, 300),
                           what="every global V_p minimizer has the fewest knots")
    # a data set where p = 0.5 is not small enough (recorded, not asserted: the claim is for small p)
    x = np.arange(6.0)
    y = np.concatenate([[0.0], np.cumsum(np.concatenate([[0.0], np.cumsum([1e-3, 1.0, 1.0, 1e-3])]))])
    half = solve(InterpolationProblem(x=x, y=y, p=0.5), BruteForceVp())
    out.evidence["p_half_example"] = {
        "x": x.tolist(), "y": [round(v, 6) for v in y.tolist()],
        "fewest_knots": min_knots_slope_dp(x, y),
        "knots_of_V_0.5_minimizer": [f.num_knots for f in half.original],
        "sufficient_p": round(sufficient_p(x, y), 6)}
    return out


register(Claim(
    id="sparse_relu.minimizer_is_sparsest",
    paper=PAPER,
    source="Theorem 3.2, second sentence (arXiv:2505.21791; a data-dependent p* exists)",
    origin=Origin.PAPER,
    covers=("Theorem 3.2",),
    deviation=("Theorem 3.2 only proves that some data-dependent p* exists; we exhibit one per data set, "
               "p = min(0.5, p̄/2) with p̄ = log(1 + 1/K₀)/log(M/m) a sufficient threshold of our own "
               "derivation (paper_notes/sparse_relu.md), so the check also tests our p̄."),
    statement=(
        "For univariate data (3 to 6 points in the quick profile, 8 in full; x near a grid, y "
        "arbitrary, ties and collinear points allowed) some p* > 0 exists such that every global V_p "
        "minimizer over CPWL interpolants with 0 < p < p* has exactly K₀ knots, the fewest any "
        "interpolant can have; we exhibit p = min(0.5, p̄/2), p̄ = log(1 + 1/K₀)/log(M/m) our bound. The "
        "global minimizers are the brute force's, which tries each of the Σ_{k<=N-2} C(c, k) subsets of "
        "its c candidate knots once."),
    kind=Kind.PROPERTY,
    check=partial(_check_sparsest, p_override=None),
    control=partial(_check_sparsest, p_override=1.0),
    control_description=(
        "p = 1 (the ℓ1 path norm / weight-decay case): V_1 minimizers are not unique and include the "
        "linear spline with a knot at every curved interior point, which is not sparsest as soon as two "
        "adjacent curvatures share a sign. (p > 1 has no minimizer at all: splitting a knot lowers V_p.)"),
    certificate=_CERTIFICATES["sparse_relu.minimizer_is_sparsest"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- t^p concave


def _check_concave(ctx: Context, *, p_value: sympy.Expr | None) -> Outcome:
    t, q = sympy.symbols("t q", positive=True)
    p = q / (1 + q) if p_value is None else p_value  # q > 0 ⇔ 0 < p < 1
    second = sympy.simplify(sympy.diff(t**p, t, 2))
    what = (f"d²/dt² t^p = {second} < 0 for t > 0, " +
            ("0 < p < 1 (p = q/(1+q), q > 0)" if p_value is None else f"p = {p_value}"))
    out = symbolic_truth((-second).is_positive, what=what)
    out.evidence["second_derivative"] = str(second)
    return out


register(Claim(
    id="sparse_relu.quasinorm_concave",
    paper=PAPER,
    source="proofs of Theorem 3.2 and Theorem 4.1 (arXiv:2505.21791; strict concavity of |t|^p on each "
           "orthant, used with the Bauer maximum principle)",
    origin=Origin.PROOF_STEP,
    statement=(
        "t ↦ t^p is strictly concave on t > 0 for every 0 < p < 1 (second derivative p(p-1)t^{p-2} < 0), "
        "hence V_p is concave on each orthant of slope changes. (That its minimum over the interpolants "
        "with knots in a fixed set sits at a vertex is the separate claim sparse_relu.vertex_minimizer.)"),
    kind=Kind.SYMBOLIC,
    check=partial(_check_concave, p_value=None),
    control=partial(_check_concave, p_value=sympy.Rational(3, 2)),
    control_description="p = 3/2: t^p is strictly convex, sympy must disprove negativity of the second "
                        "derivative.",
    budget_s=60,
    certificate=_CERTIFICATES["sparse_relu.quasinorm_concave"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- minimum at a vertex


@st.composite
def _knot_sets(draw):
    """Data near a grid, and a knot set S: the N - 2 interior data points plus 3 random knots."""
    n = draw(st.integers(4, 6))
    jitter = draw(st.lists(st.floats(-0.3, 0.3, allow_nan=False), min_size=n, max_size=n))
    x = np.arange(n) + np.array(jitter)
    y = np.array(draw(st.lists(st.floats(-3.0, 3.0, allow_nan=False), min_size=n, max_size=n)))
    u = np.array(draw(st.lists(st.floats(0.02, 0.98, allow_nan=False), min_size=3, max_size=3)))
    knots = np.sort(np.concatenate([x[1:-1], x[0] + u * (x[-1] - x[0])]))
    p = draw(st.floats(0.1, 0.9, allow_nan=False))
    return x, y, knots, p


def _vertex_minimum(x, y, knots, p):
    """Least V_p over interpolants using a subset T of the knots with |T| <= N - 2 and independent
    features [1, x, (x - t)₊, t ∈ T]: the vertices of the affine set of interpolants (exact solves)."""
    n = x.size
    best, best_z = math.inf, None
    for k in range(n - 1):
        for subset in itertools.combinations(range(knots.size), k):
            A = np.column_stack([np.ones(n), x, np.maximum(x[:, None] - knots[list(subset)][None, :], 0.0)])
            if np.linalg.matrix_rank(A) < A.shape[1]:
                continue
            coef, *_ = np.linalg.lstsq(A, y, rcond=None)
            # exact solves leave residuals ~1e-16·cond·max|y| <~ 1e-13·max|y| (cond <~ 1e3, see the
            # caller); a subset that cannot interpolate misses by far more than 1e-9·max|y|
            if np.max(np.abs(A @ coef - y)) > 1e-9 * float(np.max(np.abs(y))) + 1e-300:
                continue  # this subset cannot interpolate
            value = float(np.sum(np.abs(coef[2:]) ** p))
            if value < best:
                best = value
                best_z = np.zeros(knots.size + 2)
                best_z[:2] = coef[:2]
                best_z[2 + np.array(subset, dtype=int)] = coef[2:]
    return best, best_z


def _check_vertex(ctx: Context, *, p_override: float | None) -> Outcome:
    stats = {"max_relative_gain_over_vertex": None, "affine_dimensions": []}

    def test(data):
        x, y, knots, p = data
        if p_override is not None:
            p = p_override
        gaps = np.diff(np.concatenate([[x[0]], knots, [x[-1]]]))
        assume(gaps.min() > 0.02)  # well-separated knots: condition number of the feature matrix <~ 1e3
        A = np.column_stack([np.ones(x.size), x, np.maximum(x[:, None] - knots[None, :], 0.0)])
        Z = scipy.linalg.null_space(A)  # directions along the affine set {z : A z = y}
        vertex_value, z0 = _vertex_minimum(x, y, knots, p)
        assert z0 is not None, "the interior data points alone always interpolate"

        def cost(u):
            return float(np.add.reduce(np.abs((z0 + Z @ u)[2:]) ** p))  # np.sum without its wrappers

        # search the whole affine set (dimension |S| + 2 - N = 3): random points at three scales
        # around the best vertex, then Nelder-Mead from the vertex and from the best random point
        rng = np.random.default_rng(int(ctx.seed) + int(1e6 * float(np.sum(np.abs(y)))) % 2**31)
        scale = max(float(np.max(np.abs(z0[2:]))), 1e-3)
        us = np.concatenate([rng.normal(size=(200, Z.shape[1])) * s * scale for s in (1e-3, 1e-1, 1.0)])
        values = [cost(u) for u in us]
        starts = [np.zeros(Z.shape[1]) + 1e-3 * scale, us[int(np.argmin(values))]]
        for u0 in starts:
            res = scipy.optimize.minimize(cost, u0, method="Nelder-Mead",
                                          options={"xatol": 1e-12, "fatol": 1e-14, "maxiter": 2000})
            values.append(float(res.fun))
        found = min(values)
        gain = (vertex_value - found) / vertex_value if vertex_value > 0 else 0.0
        previous = stats["max_relative_gain_over_vertex"]
        gain = float(f"{gain:.3g}")
        stats["max_relative_gain_over_vertex"] = gain if previous is None else max(previous, gain)
        if Z.shape[1] not in stats["affine_dimensions"]:
            stats["affine_dimensions"] = sorted([*stats["affine_dimensions"], Z.shape[1]])
        # V_p at the vertex is computed from an exact solve of a <= 6x6 system (condition <~ 1e3 for
        # the separated knots above): relative error <~ 1e-12 for slope changes of the drawn size, so
        # a point 1e-9 (relative) below the vertex minimum is a real counterexample, not rounding.
        assert found >= vertex_value * (1 - 1e-9), (
            f"p = {p:.4g}: an interpolant with knots in S has V_p = {found:.10g} < {vertex_value:.10g}, "
            "the best vertex (at most N - 2 knots)")
        return dict(stats)

    return property_outcome(_knot_sets(), _one_failure(test), ctx=ctx, max_examples=ctx.pick(30, 200),
                            what="no interpolant with knots in S beats the best vertex (<= N - 2 knots)")


register(Claim(
    id="sparse_relu.vertex_minimizer", cost_s=5,
    paper=PAPER,
    source="our reduction behind BruteForceVp (paper_notes/sparse_relu.md, step 4), the fixed-knot-set "
           "analogue of the Bauer-maximum-principle step in the proof of Theorem 3.2 (arXiv:2505.21791)",
    origin=Origin.DERIVED,
    statement=(
        "For univariate data (4 to 6 points near a grid, y in [-3, 3]), a knot set S (the interior data "
        "points plus 3 random knots) and 0 < p < 1, the least V_p over the affine set of CPWL "
        "interpolants whose knots lie in S is attained at a vertex: an interpolant using at most "
        "N - 2 knots of S with independent features (checked against random points and Nelder-Mead "
        "over the whole affine set)."),
    kind=Kind.PROPERTY,
    check=partial(_check_vertex, p_override=None),
    control=partial(_check_vertex, p_override=1.5),
    control_description=(
        "p = 3/2: Σ|c|^p is strictly convex, its minimum over the affine set spreads slope change over "
        "all knots of S, and the search must find interpolants below every vertex."),
    certificate=_CERTIFICATES["sparse_relu.vertex_minimizer"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- training


#: fraction of (data set, seed) runs that must reach the sparsest knot count. We measured 0.63 for
#: ℓp training and 0.07 for weight decay on 100 runs each (20 data sets x 5 seeds, a different draw
#: from the claim's; paper_notes/sparse_relu.md). With 40 runs (quick: 20 data sets x 2 seeds) the
#: chance that a 0.63-rate method falls below 0.4 (≤ 15 of 40) is 0.09% (2.0% if its true rate were
#: only 0.55), and that a 0.15-rate method reaches it (≥ 16 of 40) 0.01% (binomial, runs treated as
#: independent); with 200 runs (full) both are below 1e-10. (16 runs gave a 3.4% false alarm.)
RECOVERY_THRESHOLD = 0.4


def _check_training(ctx: Context, *, regularizer: str) -> Outcome:
    rng = ctx.rng("sparse_relu.training")
    n_sets, n_seeds = ctx.pick(20, 20), ctx.pick(2, 10)  # spread over data sets: they vary most
    n = 6
    runs = []
    for _ in range(n_sets):
        h = 2.0 / (n - 1)
        x = np.linspace(-1.0, 1.0, n) + rng.uniform(-0.25 * h, 0.25 * h, n)
        y = rng.normal(size=n)
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        k0 = CPWL.from_vector(solve(prob, SparsestInterpolantDP()).x).num_knots
        for seed in range(n_seeds):
            sol = solve(prob, LpPathNormTraining(width=16, regularizer=regularizer), seed=seed)
            k = CPWL.from_vector(sol.x).num_knots
            runs.append({"fewest": k0, "knots": k, "interpolates": sol.successful,
                         "recovered": bool(sol.successful and k == k0)})
    frac = sum(r["recovered"] for r in runs) / len(runs)
    evidence = {
        "regularizer": regularizer, "p": 0.5, "points": n, "width": 16, "data_sets": n_sets,
        "seeds": n_seeds, "recovered_fraction": round(frac, 6), "threshold": RECOVERY_THRESHOLD,
        "interpolating_fraction": round(sum(r["interpolates"] for r in runs) / len(runs), 6),
        "mean_excess_knots": round(float(np.mean([r["knots"] - r["fewest"] for r in runs])), 6),
    }
    status = "pass" if frac >= RECOVERY_THRESHOLD else "fail"
    return Outcome(status, f"{regularizer}: {frac:.0%} of {len(runs)} runs reach the sparsest knot count "
                           f"(threshold {RECOVERY_THRESHOLD:.0%})", evidence)


register(Claim(
    id="sparse_relu.training_recovers", cost_s=17,
    paper=PAPER,
    source="Figure 3 and Section 5 (arXiv:2505.21791; gradient training of the ℓp objective gives sparse "
           "nets); our training method (LpPathNormTraining) and our measured recovery rate",
    origin=Origin.PAPER,
    covers=("Figure 3",),
    deviation=("Figure 3's univariate panel at CPU scale and in another form: our smoothed-ℓp augmented-"
               "Lagrangian Adam training with pruning and polish (not the paper's reweighted-ℓ1 proximal "
               "algorithm), p = 1/2 only, the final knot count over 40 runs on random 6-point data sets "
               "rather than sparsity-over-time curves on one data set; weight decay is the control arm "
               "(it must fall below the 40 % recovery rate); unregularized Adam, p = 0.7 and 1, and the "
               "multivariate panel are not run."),
    statement=(
        "Adam on the augmented Lagrangian of the smoothed ℓp path norm (p = 1/2, width 16, 4000 steps, "
        "ε annealed 1 → 1e-3), followed by magnitude pruning and a least-squares polish, returns an "
        "interpolant with the fewest possible knots (exact DP) in at least 40% of runs over random "
        "6-point data sets (jittered grid, Gaussian y) and initialization seeds (we measure about 63%)."),
    kind=Kind.NUMERIC,
    check=partial(_check_training, regularizer="lp_path"),
    control=partial(_check_training, regularizer="weight_decay"),
    control_description=(
        "Same training, pruning and polish with ℓ2 weight decay ½Σ(v² + w²) instead of the ℓp path "
        "norm: it interpolates with extra knots and must fall below the 40% recovery threshold."),
    # 80 trainings (check + control) cost ~42 s of CPU; on a 2-core machine at load 8 the wall time
    # reached 170 s, past the default 120 s budget (the sample is what the threshold's error rates need)
    budget_s=300,
))


# ----------------------------------------------------------------------------- training = Adam on L (#20)


def _torch_lagrangian(params, X, Y, lam, mu: float, *, p: float, eps: float, regularizer: str):
    """``(L, R, r)`` of the augmented Lagrangian in torch (autograd reference; R from ``smoothed_lp``)."""
    w, b, v, a, c = params
    r = v @ torch.relu(torch.outer(w, X) + b[:, None]) + a[0] * X + c[0] - Y
    reg = smoothed_lp(v * w, p, eps) if regularizer == "lp_path" else 0.5 * (w @ w + v @ v)
    return reg + lam @ r + 0.5 * mu * (r @ r), reg, r


@contextmanager
def _swapped_chain_rule():
    """Sabotage for the control: the penalty's gradient with the chain-rule factors swapped.

    ∂R/∂v_k = R'(u_k) w_k and ∂R/∂w_k = R'(u_k) v_k (u = v w); the sabotaged Lagrangian returns
    R'(u_k) v_k and R'(u_k) w_k instead, a classic slip in hand-written gradients. Loss and
    residual are unchanged. ``_adam_train`` looks ``_lagrangian`` up in its module at each step.
    """
    original = lp_training._lagrangian

    def swapped(params, X, Y, lam, mu, *, p, eps, regularizer):
        loss, reg, r, grads = original(params, X, Y, lam, mu, p=p, eps=eps, regularizer=regularizer)
        if regularizer == "lp_path":
            w, _, v, _, _ = params
            u = v * w
            g_u = p * u * (u * u + eps * eps) ** (p / 2 - 1)
            grads = [grads[0] + g_u * (w - v), grads[1], grads[2] + g_u * (v - w), *grads[3:]]
        return loss, reg, r, grads

    with patched(lp_training, "_lagrangian", swapped):
        yield


def _check_training_gradients(ctx: Context, *, sabotage: bool) -> Outcome:
    rng = ctx.rng("sparse_relu.training_gradients")
    guard = _swapped_chain_rule if sabotage else nullcontext
    worst = {"max_gradient_error": 0.0, "max_loss_trace_error": 0.0, "max_output_error": 0.0}
    # (1) the hand-written L and ∇L against autograd of the torch objective, at random points.
    # Tolerances: both are float64 evaluations of the same closed forms (≤ 8 neurons, ≤ 8 points, entries
    # O(1), penalty terms with (u² + ε²)^{p/2-1} ≤ ε^{p-2} ≤ 1e6): they agree to ~1e-15 relative to the
    # largest term; 1e-9 leaves six orders of headroom, and a wrong gradient term is off by O(|R'(u)|),
    # the size of the penalty's gradient itself.
    for index in range(ctx.pick(40, 200)):
        n, width = int(rng.integers(3, 9)), int(rng.integers(1, 9))
        X = np.sort(rng.uniform(-1.0, 1.0, n))
        Y = rng.normal(size=n)
        params = [rng.normal(size=width), rng.normal(size=width), rng.normal(size=width), rng.normal(size=1),
                  rng.normal(size=1)]
        lam, mu = rng.normal(size=n), float(rng.uniform(1.0, 100.0))
        p = float(rng.choice([0.2, 0.5, 0.8, 1.0]))  # p = 1: the ℓ1 path norm, the edge of the range
        eps = float(10 ** rng.uniform(-3.0, 0.0))
        regularizer = ("lp_path", "weight_decay")[index % 2]
        if index % 4 == 3:  # neuron 0's kink exactly on a data point: w X_j + b = 0, where ReLU' is torch's 0
            params[1][0] = -(params[0][0] * X[index % n])
        with guard():
            loss, reg, r, grads = lp_training._lagrangian(params, X, Y, lam, mu, p=p, eps=eps,
                                                          regularizer=regularizer)
        tp = [torch.tensor(q, dtype=torch.float64, requires_grad=True) for q in params]
        t_loss, t_reg, t_r = _torch_lagrangian(tp, *(torch.tensor(q) for q in (X, Y, lam)), mu, p=p, eps=eps,
                                               regularizer=regularizer)
        t_loss.backward()
        scale = 1.0 + max(float(np.max(np.abs(q.grad.numpy()))) for q in tp)
        for name, mine, ref in [("loss", loss, t_loss.item()), ("regularizer", reg, t_reg.item()),
                                ("residual", r, t_r.detach().numpy()),
                                *((f"dL/d{q}", g, t.grad.numpy()) for q, g, t in zip("wbvac", grads, tp))]:
            err = float(np.max(np.abs(np.asarray(mine) - ref)))
            bound = 1e-9 * (scale if name.startswith("dL") else 1.0 + abs(t_loss.item()))
            if not err <= bound:
                return Outcome("fail", f"{name} of the augmented Lagrangian differs from autograd by "
                                       f"{err:.3g} ({regularizer}, p = {p}, ε = {eps:.3g}, width {width}, "
                                       f"N = {n})",
                               {"instance": index, "quantity": name, "error": figure(err), "bound": bound})
            if name.startswith("dL"):
                worst["max_gradient_error"] = max(worst["max_gradient_error"], err / scale)
    # (2) the training loop against torch.optim.Adam on the same objective, from the same start: the
    # solver's traced loss per step and its returned net (in the data's units) must be the reference's.
    # The two loops apply the same float64 updates in the same order. ε is annealed from 1 to 0.05 here,
    # not to the default 1e-3: with ε ~ 1e-3 the smoothed |u|^p is so sharply curved at u = 0 that a
    # neuron there amplifies the ~1e-16 rounding differences of the two loops to ~1e-4 within 50 steps
    # (seen in 1 of 16 runs), which says nothing about the code. With ε >= 0.05 the traces agreed to
    # 1.4e-13 (relative) at worst over 100 random runs; 1e-7 leaves six orders, and a wrong step,
    # gradient or multiplier update moves the loss by O(1) within a few steps.
    # Run 2 anneals from 0.5, not 1 (with ε from 1 a schedule that multiplies by ε_start where it should
    # divide is the same); the last run has 2 steps, where 70 % of the steps is one step (ε at its end at
    # step 2): a schedule annealing over more steps than documented shows only in short runs.
    outer, runs = 50, ctx.pick(5, 13)
    for run in range(runs):
        regularizer = ("lp_path", "weight_decay")[run % 2]
        steps = 2 if run == runs - 1 else 300
        n = int(rng.integers(4, 8))
        x = np.sort(rng.uniform(-3.0, 5.0, n))
        y = 2.0 * rng.normal(size=n)
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        alg = LpPathNormTraining(width=6, outer_every=outer, smoothing=0.05, regularizer=regularizer,
                                 smoothing_start=0.5 if run == 2 else 1.0)
        with guard():
            sol = solve(prob, alg, maxiters=steps, store_trace=True, seed=run)
        x_mid, x_half = 0.5 * (x[0] + x[-1]), 0.5 * (x[-1] - x[0])  # the documented standardization
        y_scale = float(np.max(np.abs(y)))
        X, Y = torch.tensor((x - x_mid) / x_half), torch.tensor(y / y_scale)
        # the documented start: TwoLayerReLU(in_features=1, width, seed)'s weights, knots uniform on [-1, 1]
        start = TwoLayerReLU(in_features=1, width=6, hidden_bias=True, output_bias=False, seed=run)
        w0 = start.W.detach()[:, 0].clone()
        b0 = -w0 * torch.tensor(np.random.default_rng(run).uniform(-1.0, 1.0, 6))
        tp = [q.clone().requires_grad_(True) for q in (w0, b0, start.v.detach()[0].clone(),
                                                        torch.zeros(1, dtype=torch.float64),
                                                        torch.zeros(1, dtype=torch.float64))]
        opt = torch.optim.Adam(tp, lr=alg.lr, betas=(0.9, 0.999), eps=1e-8)
        lam = torch.zeros(n, dtype=torch.float64)
        ref_losses = []
        for k in range(steps):
            # ε geometric from smoothing_start to smoothing over the first 70% of the steps, then flat
            eps = alg.smoothing_start * (alg.smoothing / alg.smoothing_start) ** min(1.0,
                                                                                     k / int(0.7 * steps))
            opt.zero_grad()
            t_loss, _, _ = _torch_lagrangian(tp, X, Y, lam, alg.penalty, p=0.5, eps=eps,
                                             regularizer=regularizer)
            t_loss.backward()
            ref_losses.append(t_loss.item())
            opt.step()
            if (k + 1) % outer == 0:  # multiplier step λ ← λ + μ r at the updated weights
                with torch.no_grad():
                    lam = lam + alg.penalty * _torch_lagrangian(tp, X, Y, lam, alg.penalty, p=0.5, eps=eps,
                                                                regularizer=regularizer)[2]
        traced = np.array([rec["loss"] for rec in sol.trace])
        ref_losses = np.array(ref_losses)
        if traced.shape != ref_losses.shape:
            return Outcome("fail", f"{regularizer}: {traced.size} traced steps, expected {steps}",
                           {"run": run, "traced_steps": int(traced.size)})
        loss_err = float(np.max(np.abs(traced - ref_losses) / (1.0 + np.abs(ref_losses))))
        net = sol.original["params"]
        with torch.no_grad():
            ref_out = y_scale * (tp[2] @ torch.relu(torch.outer(tp[0], X) + tp[1][:, None]) + tp[3][0] * X
                                 + tp[4][0]).numpy()
        out = np.maximum(np.outer(x, net["W"]) + net["b"], 0.0) @ net["v"] + net["a"] * x + net["c"]
        out_err = float(np.max(np.abs(out - ref_out))) / y_scale
        worst["max_loss_trace_error"] = max(worst["max_loss_trace_error"], loss_err)
        worst["max_output_error"] = max(worst["max_output_error"], out_err)
        if not (loss_err <= 1e-7 and out_err <= 1e-7):
            return Outcome("fail", f"{regularizer} run {run}: the training loop departs from "
                                   f"torch.optim.Adam on the augmented Lagrangian (loss trace error "
                                   f"{loss_err:.3g}, net output error {out_err:.3g}, relative)",
                           {"run": run, "loss_trace_error": figure(loss_err),
                            "output_error": figure(out_err)})
    # (3) the units of y: training runs on y / max|y| and its interpolation criterion is relative to
    # max|y|, so data scaled by 1e6 give the same knots, slope changes times 1e6 and the same retcode.
    # The trained weights are the same floats (same standardized data); the pruned, polished net in the
    # data's units carries ~1e-10 relative rounding (least-squares polish), far inside 1e-6.
    for run, (x, y) in enumerate([([0.0, 1.0, 2.0, 3.0], [0.0, 0.0, 1.0, 3.0]),
                                  ([-1.0, 0.0, 0.5, 2.0], [1.0, -0.5, 0.2, 0.4])]):
        x, y = np.array(x), np.array(y)
        with guard():
            base = solve(InterpolationProblem(x=x, y=y, p=0.5), LpPathNormTraining(width=6), seed=run)
            big = solve(InterpolationProblem(x=x, y=1e6 * y, p=0.5), LpPathNormTraining(width=6), seed=run)
        f, g = CPWL.from_vector(base.x), CPWL.from_vector(big.x)
        same = (base.retcode is big.retcode and f.num_knots == g.num_knots
                and np.allclose(g.knots, f.knots, rtol=0, atol=1e-6) and np.allclose(g.jumps, 1e6 * f.jumps,
                                                                                     rtol=1e-6, atol=0))
        if not (same and base.successful):
            return Outcome("fail", f"training on y·1e6 is not training on y rescaled: retcodes "
                                   f"{base.retcode.value} vs {big.retcode.value}, knots {f.knots.tolist()} "
                                   f"vs {g.knots.tolist()}",
                           {"run": run, "retcodes": [base.retcode.value, big.retcode.value]})
    return Outcome("pass", "the hand-written augmented Lagrangian and its gradient match autograd, the "
                           "training loop matches torch.optim.Adam with the multiplier updates, and training "
                           "does not depend on the units of y",
                   {k: figure(v, digits=2, floor=1e-12) for k, v in worst.items()})


register(Claim(
    id="sparse_relu.training_gradients",
    paper=PAPER,
    source="our training method (LpPathNormTraining; the smoothed ℓp path-norm objective of Sections 2-3, "
           "arXiv:2505.21791), its hand-written gradients",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "The hand-written augmented Lagrangian of LpPathNormTraining, L = R(θ) + λᵀr + (μ/2)‖r‖² with R the "
        "smoothed ℓp path norm Σ((v_k w_k)² + ε²)^{p/2} - ε^p (smoothed_lp; p in {0.2, 0.5, 0.8, 1}) or "
        "weight decay, and its gradient in (w, b, v, a, c) equal torch autograd of the same objective at "
        "random points, a quarter with a kink exactly on a data point (to 1e-9 relative); and 300 training "
        "steps (width 6, multiplier update every 50 "
        "steps, ε annealed geometrically from 1, or 0.5, to 0.05 over the first 70 % of the steps; one run "
        "of 2 steps) follow torch.optim.Adam on that objective from the same start: the traced loss per step "
        "and the returned net, in the data's units, agree with the reference to "
        "1e-7; full training on y·1e6 returns the same knots, slope changes times 1e6 and the same "
        "retcode (Success) as on y."),
    kind=Kind.PROPERTY,
    check=partial(_check_training_gradients, sabotage=False),
    control=partial(_check_training_gradients, sabotage=True),
    control_description=(
        "The penalty's gradient with the chain-rule factors swapped (∂R/∂v_k = R'(u_k) v_k, ∂R/∂w_k = "
        "R'(u_k) w_k instead of R'(u_k) w_k and R'(u_k) v_k): loss values are unchanged, the gradient "
        "comparison with autograd must reject it."),
    # ~6.5 s of CPU (check + control, 5 s of it the four full trainings of part 3); 50 s wall at load 34
    budget_s=300,
))


# ----------------------------------------------------------------------------- Theorem 3.1: the shape


def _one_sided_slopes(f: CPWL, point: float, knot_tol: float) -> tuple[float, float]:
    """Left and right derivative of ``f`` at ``point`` (knots within ``knot_tol`` count as at it)."""
    left = f.slope + float(np.sum(f.jumps[f.knots < point - knot_tol]))
    right = f.slope + float(np.sum(f.jumps[f.knots <= point + knot_tol]))
    return left, right


def _curvature_runs(eps: np.ndarray) -> list[tuple[int, int]]:
    """Maximal runs ``(i, i + m)`` of equal nonzero discrete curvature, m >= 1 (data indices, 0-based)."""
    runs, i, n = [], 1, eps.size
    while i < n - 1:
        j = i
        while j + 1 < n - 1 and eps[j + 1] == eps[i]:
            j += 1
        if eps[i] != 0 and j > i:
            runs.append((i, j))
        i = j + 1
    return runs


def theorem_3_1_violations(f: CPWL, x: np.ndarray, y: np.ndarray) -> list[str]:
    """What of Theorem 3.1's description (and interpolation) the CPWL ``f`` breaks on data ``(x, y)``.

    Our reading of the theorem, with 0-based data indices and ε_i = sign(Δ_i) at the
    interior points: (0) f(x_i) = y_i; (1) no knot left of x_1 or right of x_{N-2};
    no knot inside a gap (x_i, x_{i+1}) unless ε_i = ε_{i+1} ≠ 0; no knot at an interior
    point with ε_i = 0 (three collinear points); (2) on a maximal run x_i..x_{i+m} of
    equal nonzero curvature: slope s_{i-1} arriving at x_i and s_{i+m} leaving x_{i+m};
    at most m knots, all with slope change of sign ε (convex/concave); for m = 1 exactly
    one knot, strictly inside the gap; for m >= 2 at most m - 1 other slopes, each on a
    piece through an interior point x_{i+j} of the run with slope between s_{i+j-1} and s_{i+j}.
    """
    s = np.diff(y) / np.diff(x)
    d = discrete_curvature(x, y)
    eps = np.concatenate([[0], np.sign(d), [0]]).astype(int)
    scale = max(1.0, float(np.max(np.abs(s))))
    # Tolerances. Positions: knots come from exact solves / closed forms, ~1e-15·ptp(x) off; a knot
    # misplaced on purpose is off by a data-scale amount. Slopes: ~1e-13·scale off; a wrong slope is
    # off by a curvature, which exceeds the shared zero threshold _slope_tol (>= 1e-9·max|y|/gap).
    knot_tol = 1e-9 * float(np.ptp(x))
    slope_tol = 1e-9 * scale
    value_tol = 1e-9 * max(1.0, float(np.max(np.abs(y))))
    bad = []
    miss = float(np.max(np.abs(f(x) - y)))
    if miss > value_tol:
        bad.append(f"does not interpolate: max |f(x_i) - y_i| = {miss:.3g}")
    t = f.knots
    if np.any(t < x[1] - knot_tol) or np.any(t > x[-2] + knot_tol):
        bad.append(f"knot outside [x_2, x_(N-1)]: {t.tolist()}")
    for i in range(1, x.size - 2):
        inside = (t > x[i] + knot_tol) & (t < x[i + 1] - knot_tol)
        if np.any(inside) and not (eps[i] == eps[i + 1] != 0):
            bad.append(f"knot inside gap ({x[i]:.6g}, {x[i + 1]:.6g}) with curvatures {eps[i]}, {eps[i + 1]}")
    for i in range(1, x.size - 1):
        if eps[i] == 0 and np.any(np.abs(t - x[i]) <= knot_tol):
            bad.append(f"knot at collinear point x = {x[i]:.6g}")
    for i, j in _curvature_runs(eps):
        m = j - i
        left, _ = _one_sided_slopes(f, x[i], knot_tol)
        _, right = _one_sided_slopes(f, x[j], knot_tol)
        if abs(left - s[i - 1]) > slope_tol or abs(right - s[j]) > slope_tol:
            bad.append(f"run x[{i}..{j}]: slopes {left:.6g} in / {right:.6g} out, expected "
                       f"{s[i - 1]:.6g} / {s[j]:.6g}")
        on_run = (t >= x[i] - knot_tol) & (t <= x[j] + knot_tol)
        if np.sum(on_run) > m or np.any(np.sign(f.jumps[on_run]) != eps[i]):
            bad.append(f"run x[{i}..{j}] (m = {m}): knots {t[on_run].tolist()} with changes "
                       f"{f.jumps[on_run].tolist()}, expected at most m of sign {eps[i]}")
        if m == 1:
            strictly = (t > x[i] + knot_tol) & (t < x[j] - knot_tol)
            if np.sum(on_run) != 1 or np.sum(strictly) != 1:
                bad.append(f"run x[{i}..{j}] (m = 1): knots {t[on_run].tolist()}, expected one inside "
                           f"the gap")
            continue
        # pieces of f meeting (x_i, x_{i+m}): between consecutive breakpoints
        breaks = np.concatenate([[x[i]], t[(t > x[i] + knot_tol) & (t < x[j] - knot_tol)], [x[j]]])
        others = []
        for a, b in itertools.pairwise(breaks):
            slope = _one_sided_slopes(f, 0.5 * (a + b), 0.0)[0]
            if min(abs(slope - s[i - 1]), abs(slope - s[j])) <= slope_tol:
                continue
            others.append(slope)
            through = [k for k in range(i + 1, j) if a - knot_tol <= x[k] <= b + knot_tol
                       and min(s[k - 1], s[k]) - slope_tol <= slope <= max(s[k - 1], s[k]) + slope_tol]
            if not through:
                bad.append(f"run x[{i}..{j}]: piece [{a:.6g}, {b:.6g}] of slope {slope:.6g} passes through "
                           "no interior data point with a slope between its chords")
        if len(others) > m - 1:
            bad.append(f"run x[{i}..{j}] (m = {m}): {len(others)} slopes besides the end chords")
    return bad


@st.composite
def _run_datasets(draw, max_points: int):
    """Data whose discrete curvatures come in runs of equal sign (lengths 1 to 4): the m >= 2 cases."""
    n = draw(st.integers(4, max_points))
    jitter = draw(st.lists(st.floats(-0.3, 0.3, allow_nan=False), min_size=n, max_size=n))
    x = np.arange(n) + np.array(jitter)
    signs: list[float] = []
    while len(signs) < n - 2:
        signs += [draw(st.sampled_from([-1.0, 1.0]))] * draw(st.integers(1, 4))
    mags = np.array(draw(st.lists(st.floats(0.05, 3.0, allow_nan=False), min_size=n - 2, max_size=n - 2)))
    start = draw(st.floats(-2.0, 2.0, allow_nan=False))
    slopes = start + np.concatenate([[0.0], np.cumsum(signs[:n - 2] * mags)])
    y = np.concatenate([[draw(st.floats(-1.0, 1.0, allow_nan=False))], np.zeros(n - 1)])
    y[1:] = y[0] + np.cumsum(slopes * np.diff(x))
    return x, y


@st.composite
def _datasets_with_knots(draw, max_points: int):
    """A data set (``_datasets`` or ``_run_datasets``), p in [0.05, 0.95], 4 extra knots inside the hull."""
    x, y = draw(st.one_of(_datasets(max_points), _run_datasets(max_points)))
    u = np.array(draw(st.lists(st.floats(0.01, 0.99, allow_nan=False), min_size=4, max_size=4)))
    p = draw(st.floats(0.05, 0.95, allow_nan=False))
    return x, y, tuple(x[0] + u * (x[-1] - x[0])), p


def _check_characterization(ctx: Context, *, p_override: float | None) -> Outcome:
    stats = {"minimizers_checked": 0, "runs_seen": {"m=1": 0, "m>=2": 0}}

    def test(data):
        x, y, extra, p = data
        if p_override is not None:
            p = p_override
        prob = InterpolationProblem(x=x, y=y, p=p)
        brute = solve(prob, BruteForceVp(extra_knots=extra))
        assert brute.successful, brute.retcode
        dp = CPWL.from_vector(solve(prob, SparsestInterpolantDP(objective="vp")).x)
        eps = np.concatenate([[0], np.sign(discrete_curvature(prob.x, prob.y)), [0]]).astype(int)
        for i, j in _curvature_runs(eps):
            stats["runs_seen"]["m=1" if j - i == 1 else "m>=2"] += 1
        for name, f in [*((f"brute-force minimizer {k}", g) for k, g in enumerate(brute.original)),
                        ("DP (objective='vp')", dp)]:
            bad = theorem_3_1_violations(f, prob.x.astype(np.float64), prob.y.astype(np.float64))
            assert not bad, f"p = {p:.4g}, {name} (knots {f.knots.tolist()}): {bad}"
            stats["minimizers_checked"] += 1
        return {"minimizers_checked": stats["minimizers_checked"], "runs_seen": dict(stats["runs_seen"])}

    return property_outcome(_datasets_with_knots(ctx.pick(6, 7)), _one_failure(test), ctx=ctx,
                            max_examples=ctx.pick(40, 300),
                            what="every V_p minimizer obeys Theorem 3.1's description")


register(Claim(
    id="sparse_relu.characterization",
    paper=PAPER,
    source="Theorem 3.1 (arXiv:2505.21791; geometric characterization of the V_p minimizers, 0 < p < 1)",
    origin=Origin.PAPER,
    covers=("Theorem 3.1",),
    deviation=("The minimizers are those of a finite knot search (BruteForceVp: interior data points, chord "
               "crossings and 4 random extra knots per data set) and our exact DP, not of all CPWL "
               "functions; existence is taken from that search; 3 to 6 points (7 in full)."),
    statement=(
        "For univariate data (3 to 6 points near a grid, y integers or floats) and 0 < p < 1, every V_p "
        "minimizing interpolant is linear left of x_2, right of x_(N-1), between collinear points and across "
        "gaps whose end curvatures differ; on each maximal run x_i..x_(i+m) of equal nonzero curvature it "
        "arrives with slope s_(i-1), leaves with s_(i+m), is convex/concave with at most m knots, has one "
        "knot inside the gap when m = 1, and otherwise at most m - 1 further slopes, each on a piece "
        "through an interior point x_(i+j) with slope between s_(i+j-1) and s_(i+j)."),
    kind=Kind.PROPERTY,
    check=partial(_check_characterization, p_override=None),
    control=partial(_check_characterization, p_override=1.0),
    control_description=(
        "p = 1 (outside 0 < p < 1): V_1 minimizers tie, and the brute force returns among them the linear "
        "spline (two knots on a two-point run) and interpolants with knots at the extra candidates inside "
        "a run, which break the m = 1 and m >= 2 descriptions."),
))


# ----------------------------------------------------------------------------- Corollaries 3.1.1-3.1.2


def _check_l1_lipschitz(ctx: Context, *, tighten: float) -> Outcome:
    worst = {"max_v1_relative_gap": 0.0, "max_lipschitz_over_bound": 0.0, "max_knots_minus_bound": -99}

    def test(data):
        x, y, extra, p = data
        prob = InterpolationProblem(x=x, y=y, p=p)
        x64, y64 = prob.x.astype(np.float64), prob.y.astype(np.float64)
        s = np.diff(y64) / np.diff(x64)
        total_curvature = float(np.sum(np.abs(np.diff(s))))  # Σ|s_{i+1} - s_i|, the least V_1 (mean values)
        # the least V_1 is Σ|s_(i+1) - s_i|: a lower bound by the mean-value theorem on each gap, attained by
        # the linear spline, which interpolates (values from chord slopes: ~1e-15·max|y| rounding; a wrong
        # slope or intercept misses by the data scale) and has V_1 = Σ|Δ_i| (the same sums, ~1e-15 relative)
        spline = linear_spline(x64, y64)
        spline_miss = float(np.max(np.abs(spline(x64) - y64)))
        assert spline_miss <= 1e-9 * max(1.0, float(np.max(np.abs(y64)))), (
            f"linear spline misses by {spline_miss}")
        assert abs(spline.vp(1.0) - total_curvature) <= 1e-9 * max(total_curvature, 1e-300) + (
            _largest_zero_threshold(x64, y64)), (
            f"linear spline: V_1 = {spline.vp(1.0):.12g} != Σ|Δ| = {total_curvature:.12g}")
        brute = solve(prob, BruteForceVp(extra_knots=extra))
        assert brute.successful, brute.retcode
        for f in brute.original:
            net = cpwl_to_network(f)
            u = np.abs(net["v"] * net["W"])
            # V_1 and Σ|Δ| sum the same <= 4 slope changes (exact solve vs chord differences): they agree to
            # ~1e-13 relative; a non-V_1-minimal plan exceeds by 2·min|Δ| >= 2·_slope_tol (far more in
            # practice)
            v1_gap = (float(np.sum(u)) - total_curvature) / max(total_curvature, 1e-300)
            assert abs(v1_gap) <= 1e-9 or total_curvature == 0, (
                f"p = {p:.4g}: Σ|v w| = {np.sum(u):.12g} != Σ|s_(i+1) - s_i| = {total_curvature:.12g}")
            assert np.max(u, initial=0.0) <= float(np.sum(u)), "max |v w| > Σ |v w|"
            assert f.num_knots <= x.size - 2, f"{f.num_knots} neurons > N - 2"
            piece_slopes = f.slope + np.concatenate([[0.0], np.cumsum(f.jumps)])
            lipschitz = float(np.max(np.abs(piece_slopes)))
            bound = tighten * float(np.max(np.abs(s)))
            # slopes of the same interpolant from an exact solve: ~1e-13 relative, plus an absolute ~1e-16·
            # max|y|/gap (constant data give slopes ~1e-17): below _slope_tol a slope counts as 0
            assert lipschitz <= bound * (1 + 1e-9) + _largest_zero_threshold(x64, y64), (
                f"p = {p:.4g}: Lipschitz constant {lipschitz:.12g} > {tighten:g}·max|s_i| = {bound:.12g}")
            worst["max_v1_relative_gap"] = max(worst["max_v1_relative_gap"], float(f"{abs(v1_gap):.3g}"))
            ratio = lipschitz / max(float(np.max(np.abs(s))), 1e-300)
            worst["max_lipschitz_over_bound"] = max(worst["max_lipschitz_over_bound"], round(ratio, 12))
            worst["max_knots_minus_bound"] = max(worst["max_knots_minus_bound"], f.num_knots - (x.size - 2))
        return dict(worst)

    return property_outcome(_datasets_with_knots(ctx.pick(6, 7)), _one_failure(test), ctx=ctx,
                            max_examples=ctx.pick(40, 300),
                            what="V_p minimizers are V_1 minimizers with <= N - 2 neurons, |v w| and "
                                 "Lipschitz bounds")


register(Claim(
    id="sparse_relu.l1_and_lipschitz_bounds",
    paper=PAPER,
    source="Corollary 3.1.1 and Corollary 3.1.2 (arXiv:2505.21791)",
    origin=Origin.PAPER,
    covers=("Corollary 3.1.1", "Corollary 3.1.2"),
    deviation=("Minimizers from a finite knot search (BruteForceVp with 4 random extra knots) on 3 to 6 "
               "points; the least V_1 is taken as Σ|s_(i+1) - s_i| (the mean-value lower bound; that the "
               "linear spline interpolates and attains it is checked on each draw) rather than recomputed. "
               "Corollary 3.1.1's 'at most N − 2 neurons' is NOT tested by this check: the brute force only "
               "tries knot sets of at most N − 2 (the vertex argument), so its output has that many by "
               "construction; the bound is tested by sparse_relu.vertex_minimizer (a search over every "
               "interpolant with N + 1 knots finds nothing below the best vertex) and certified there, and "
               "this claim's certificate rechecks it on the grid family."),
    statement=(
        "For univariate data (3 to 6 points) and 0 < p < 1, every V_p minimizing interpolant, as the net "
        "with one neuron per knot, has Σ_k |v_k w_k| = Σ_i |s_(i+1) - s_i| (the least ℓ1 path norm of any "
        "interpolant), max_k |v_k w_k| <= Σ_k |v_k w_k|, and Lipschitz constant at most max_i |s_i| (its "
        "at most N - 2 neurons hold by the search's construction: see the deviation)."),
    kind=Kind.PROPERTY,
    check=partial(_check_l1_lipschitz, tighten=1.0),
    control=partial(_check_l1_lipschitz, tighten=1 - 1e-6),
    control_description=(
        "The Lipschitz bound tightened to (1 - 1e-6)·max|s_i|, past the truth: every interpolant has a "
        "slope equal to some chord slope s_i, so the tightened bound must fail."),
    certificate=_CERTIFICATES["sparse_relu.l1_and_lipschitz_bounds"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- Theorem 3.2: uniqueness


def _abs_change_multiset(f: CPWL) -> np.ndarray:
    return np.sort(np.abs(f.jumps))


def _check_unique(ctx: Context, *, p_override: float | None) -> Outcome:
    stats = {"data_sets_with_several_minimizers": 0, "max_minimizers": 0}

    def test(data):
        x, y, extra, p = data
        if p_override is not None:
            p = p_override
        prob = InterpolationProblem(x=x, y=y, p=p)
        brute = solve(prob, BruteForceVp(extra_knots=extra))
        assert brute.successful, brute.retcode
        first = _abs_change_multiset(brute.original[0])
        for f in brute.original[1:]:
            other = _abs_change_multiset(f)
            # two minimizers with the same multiset share their slope changes up to rounding (~1e-13
            # relative);
            # different multisets of equal V_p differ by a data-scale amount
            same = other.size == first.size and np.allclose(other, first, rtol=1e-9, atol=0)
            assert same, (f"p = {p:.4g}: minimizers with |slope changes| {first.tolist()} and "
                          f"{other.tolist()} "
                          f"(knots {brute.original[0].knots.tolist()} and {f.knots.tolist()})")
        if len(brute.original) > 1:
            stats["data_sets_with_several_minimizers"] += 1
        stats["max_minimizers"] = max(stats["max_minimizers"], len(brute.original))
        return dict(stats)

    out = property_outcome(_datasets_with_knots(ctx.pick(6, 7)), _one_failure(test), ctx=ctx,
                           max_examples=ctx.pick(40, 300),
                           what="the V_p minimizer is unique up to its multiset of |slope changes|")
    # the symmetric data of the note: two minimizers, one multiset (footnote 5 of the paper allows this)
    sym = solve(InterpolationProblem(x=np.arange(5.0), y=np.array([0.0, 0.0, 1.0, 3.0, 6.0]), p=0.5),
                BruteForceVp())
    out.evidence["symmetric_example"] = {"knots": [f.knots.tolist() for f in sym.original],
                                         "abs_changes": [_abs_change_multiset(f).tolist()
                                                         for f in sym.original]}
    return out


register(Claim(
    id="sparse_relu.unique_minimizer",
    paper=PAPER,
    source="Theorem 3.2, first sentence, with its footnote 5 (arXiv:2505.21791)",
    origin=Origin.PAPER,
    covers=("Theorem 3.2",),
    deviation=("We draw p at random from [0.05, 0.95] (the exceptional finitely many p are hit with "
               "probability 0), read uniqueness as footnote 5 does (one multiset of absolute slope "
               "changes), and search minimizers over a finite knot set (BruteForceVp with extra knots)."),
    statement=(
        "For univariate data (3 to 6 points) and p drawn from [0.05, 0.95], all V_p minimizing "
        "interpolants have the same multiset of absolute slope changes (they are unique up to the data's "
        "symmetries)."),
    kind=Kind.PROPERTY,
    check=partial(_check_unique, p_override=None),
    control=partial(_check_unique, p_override=1.0),
    control_description=(
        "p = 1: on a two-point run of equal curvature the linear spline (|Δ_i|, |Δ_(i+1)|) and the merged "
        "knot (|Δ_i + Δ_(i+1)|) both minimize V_1, with different multisets."),
    certificate=_CERTIFICATES["sparse_relu.unique_minimizer"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- Theorem 3.2: short runs


def _max_equal_curvature_run(x, y) -> int:
    """Longest run of consecutive interior points with the same nonzero discrete curvature sign."""
    eps = np.sign(discrete_curvature(x, y))
    best = run = 0
    for i, e in enumerate(eps):
        run = run + 1 if (e != 0 and i > 0 and eps[i - 1] == e) else (1 if e != 0 else 0)
        best = max(best, run)
    return best


@st.composite
def _long_run_datasets(draw):
    """Six points with a run of four equal-sign curvatures (ε, 1, 1, ε)·scale, ε small: the note's example.

    Drawn from short lists, so hypothesis shrinks a counterexample in a few steps."""
    small = draw(st.sampled_from([1e-3, 0.01, 0.05]))
    scale = draw(st.sampled_from([1.0, 0.5, 2.0]))
    sign = draw(st.sampled_from([1.0, -1.0]))
    curv = sign * scale * np.array([small, 1.0, 1.0, small])
    x = np.arange(6.0)
    y = np.concatenate([[0.0], np.cumsum(np.concatenate([[0.0], np.cumsum(curv)]))])
    p = draw(st.sampled_from([0.5, 0.7, 0.9]))
    return x, y, (), p


def _check_short_runs(ctx: Context, *, long_runs: bool) -> Outcome:
    stats = {"max_run": 0, "p_range": [1.0, 0.0]}

    def test(data):
        x, y, extra, p = data
        prob = InterpolationProblem(x=x, y=y, p=p)
        run = _max_equal_curvature_run(prob.x, prob.y)
        if not long_runs:
            assume(run <= 2)  # the theorem's hypothesis
        k0 = min_knots_slope_dp(prob.x, prob.y)
        brute = solve(prob, BruteForceVp(extra_knots=extra))
        assert brute.successful, brute.retcode
        counts = [f.num_knots for f in brute.original]
        assert all(k == k0 for k in counts), (
            f"p = {p:.4g}, longest equal-curvature run {run}: minimizers have {counts} knots, fewest {k0}")
        stats["max_run"] = max(stats["max_run"], run)
        stats["p_range"] = [min(stats["p_range"][0], round(p, 4)), max(stats["p_range"][1], round(p, 4))]
        return {"max_run": stats["max_run"], "p_range": list(stats["p_range"])}

    strategy = _long_run_datasets() if long_runs else _datasets_with_knots(ctx.pick(6, 7))
    return property_outcome(strategy, _one_failure(test), ctx=ctx, max_examples=ctx.pick(40, 300),
                            what="with runs of at most two equal curvatures, V_p minimizers are sparsest "
                                 "for every p")


register(Claim(
    id="sparse_relu.short_runs_sparsest",
    paper=PAPER,
    source="Theorem 3.2, third sentence (arXiv:2505.21791; no more than two consecutive points of equal "
           "discrete curvature)",
    origin=Origin.PAPER,
    covers=("Theorem 3.2",),
    deviation=("p drawn from [0.05, 0.95] rather than all of (0, 1); minimizers from a finite knot search "
               "(BruteForceVp with extra knots); 3 to 6 points (7 in full)."),
    statement=(
        "For univariate data (3 to 6 points) in which no more than two consecutive points share a nonzero "
        "discrete curvature, and every p in [0.05, 0.95], every V_p minimizing interpolant has the fewest "
        "knots any interpolant can have."),
    kind=Kind.PROPERTY,
    check=partial(_check_short_runs, long_runs=False),
    control=partial(_check_short_runs, long_runs=True),
    control_description=(
        "Data violating the hypothesis: a run of four equal-sign curvatures (ε, 1, 1, ε)·scale with ε <= "
        "0.05 and p >= 0.5; there the V_p minimizer keeps the two large curvatures apart (3 knots) while "
        "2 knots suffice."),
    certificate=_CERTIFICATES["sparse_relu.short_runs_sparsest"],
    expected_verdict="certified",
))


# ----------------------------------------------------------------------------- the DP's output (#20)


@contextmanager
def _midpoint_pair_knots():
    """Sabotage for the control: the DP places each merged knot at the gap midpoint (same slope change).

    ``_solve`` looks ``_cpwl_from_matching`` up in its module at each call, so ``solve`` runs the
    unchanged DP with the wrong knot placement. The objective values do not move: they depend on
    the slope changes only, which is why a separate check of the output is needed.
    """
    original = sparse_interpolation._cpwl_from_matching

    def midpoint(x, y, pairs):
        f = original(x, y, pairs)
        moved = f.knots.copy()
        for j in pairs:
            gap = (x[j + 1], x[j + 2])
            inside = (moved > gap[0]) & (moved < gap[1])
            moved[inside] = 0.5 * (gap[0] + gap[1])
        return CPWL.from_terms(moved, f.jumps, f.slope, f.intercept)

    with patched(sparse_interpolation, "_cpwl_from_matching", midpoint):
        yield


def _net_outputs(X: np.ndarray, W: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Σ_k v_k (w_kᵀ x̃)₊ at the rows of X (x̃ = (x, 1)): the net of Lemma 4.1's reconstruction."""
    Xa = np.hstack([X, np.ones((X.shape[0], 1))])
    return np.maximum(Xa @ W.T, 0.0) @ v if W.size else np.zeros(X.shape[0])


def _net_values(net: dict, x: np.ndarray) -> np.ndarray:
    """``Σ_k v_k (W_k x + b_k)₊ + a x + c`` evaluated directly (no CPWL code)."""
    return np.maximum(np.outer(x, net["W"]) + net["b"], 0.0) @ net["v"] + net["a"] * x + net["c"]


def _check_dp_output(ctx: Context, *, sabotage: bool) -> Outcome:
    worst = {"max_relative_miss": 0.0, "pairs_merged": 0}

    def prefix_optima(x64, y64, objective):
        """The DP's stage records are optima of the data prefixes they cover (Bellman's principle): the
        record of stage i is the answer for x_0..x_{i+1}, and a two-point problem (no stage) records the
        line. Exact on integer-grid data only: there every curvature is 0 or at least 1 in size, so no
        prefix's own zero threshold (it scales with the prefix's max|y|) can zero a different curvature."""
        traced = solve(InterpolationProblem(x=x64, y=y64, p=0.5), SparsestInterpolantDP(objective=objective),
                       store_trace=True)
        records = [(r["knots"], r["vp"]) for r in traced.trace]
        for length in range(2, x64.size + 1):
            pre = solve(InterpolationProblem(x=x64[:length], y=y64[:length], p=0.5),
                        SparsestInterpolantDP(objective=objective), store_trace=True)
            assert pre.successful, f"objective={objective}: the first {length} points give {pre.retcode}"
            assert pre.trace, f"objective={objective}: the solve of the first {length} points left no record"
            g = CPWL.from_vector(pre.x)
            last = (pre.trace[-1]["knots"], pre.trace[-1]["vp"])
            # the same sums of the same |Δ|^p terms: equal to rounding (1e-12 relative); plans differ by O(1)
            assert last[0] == g.num_knots and abs(last[1] - pre.value) <= 1e-12 * max(1.0, pre.value), (
                f"objective={objective}: the last record {last} of the first {length} points is not their "
                f"answer ({g.num_knots} knots, V_p {pre.value:.10g})")
            if objective == "knots":
                assert g.num_knots == min_knots_slope_dp(x64[:length], y64[:length]), (
                    f"the DP's knot count on the first {length} points is not the fewest")
            if length >= 3:
                rec = records[length - 3]
                assert rec[0] == last[0] and abs(rec[1] - last[1]) <= 1e-12 * max(1.0, last[1]), (
                    f"objective={objective}: stage {length - 2} records {rec}, the optimum of the first "
                    f"{length} points is {last}")

    def test(data, prefixes: bool = False):
        x, y = data
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        x64, y64 = prob.x.astype(np.float64), prob.y.astype(np.float64)
        s = np.diff(y64) / np.diff(x64)
        d = discrete_curvature(x64, y64)
        for objective in ("knots", "vp"):
            # no floating-point exception inside the DP: integer-grid data hold exact zero curvatures, where a
            # division in place of a sign test gives inf or nan that a later comparison silently absorbs
            try:
                with (_midpoint_pair_knots() if sabotage else nullcontext()), \
                        np.errstate(divide="raise", invalid="raise"):
                    sol = solve(prob, SparsestInterpolantDP(objective=objective))
            except FloatingPointError as exc:
                raise AssertionError(f"objective={objective}: inside the DP numpy reports {exc}") from exc
            f = CPWL.from_vector(sol.x)
            net = cpwl_to_network(f)
            miss = float(np.max(np.abs(_net_values(net, x64) - y64)))
            # knots and jumps from closed forms (chord differences and crossings): the values carry
            # ~1e-15·N·max|y| rounding; a misplaced knot misses by ~|Δ|·(distance moved), data scale
            assert miss <= 1e-9 * max(1.0, float(np.max(np.abs(y64)))), (
                f"objective={objective}: the DP's network misses the data by {miss:.3g} (knots "
                f"{f.knots.tolist()})")
            for t, c in zip(f.knots, f.jumps):
                at_point = np.flatnonzero(np.abs(x64[1:-1] - t) <= 1e-9 * np.ptp(x64))
                if at_point.size:  # a single curvature kept at its data point
                    i = int(at_point[0])
                    assert abs(c - d[i]) <= 1e-9 * max(1.0, abs(d[i])), (t, c, d[i])
                    continue
                j = int(np.searchsorted(x64, t)) - 1  # t in the gap (x_j, x_{j+1}), j >= 1 interior
                assert 1 <= j <= x64.size - 3, f"knot {t} is neither at a data point nor in an interior gap"
                crossing = ((y64[j + 1] - y64[j] + s[j - 1] * x64[j] - s[j + 1] * x64[j + 1])
                            / (s[j - 1] - s[j + 1]))
                assert abs(t - crossing) <= 1e-9 * np.ptp(x64), (
                    f"objective={objective}: knot {t:.12g} in gap {j} is not where the chords s_(j-1), "
                    f"s_(j+1) cross ({crossing:.12g})")
                assert abs(c - (d[j - 1] + d[j])) <= 1e-9 * max(1.0, abs(c)), (t, c, d[j - 1] + d[j])
                worst["pairs_merged"] += 1
            if objective == "knots":
                assert f.num_knots == min_knots_slope_dp(x64, y64), "the DP's knot count is not the fewest"
            assert abs(sol.value - f.vp(0.5)) <= 1e-12 * max(1.0, sol.value)
            if prefixes:
                prefix_optima(x64, y64, objective)
            rel = miss / max(1.0, float(np.max(np.abs(y64))))
            worst["max_relative_miss"] = max(worst["max_relative_miss"], float(f"{rel:.3g}"))
        return dict(worst)

    what = "the DP's output net interpolates, knots at data points or chord crossings"
    out = property_outcome(_datasets(ctx.pick(10, 14)), _one_failure(test), ctx=ctx,
                           max_examples=ctx.pick(60, 400), what=what)
    if not out.passed:
        return out
    # exact data on the integer grid (counts, pixel rows): curvatures are exact small integers (0, ±1,
    # ±2, ...), so exact zeros, exact ties between plans and repeated curvatures occur, which jittered
    # data almost never produce; a separate pass keeps the draws of the first one unchanged
    grid_test = _one_failure(partial(test, prefixes=True))
    grid = property_outcome(_integer_grid_datasets(ctx.pick(10, 14)), grid_test, ctx=ctx,
                            max_examples=ctx.pick(30, 200), what=what + " (integer-grid data)")
    if not grid.passed:
        return grid
    out.evidence["integer_grid"] = grid.evidence
    # every y in {-1, 0, 1}^n on x = 0, ..., n - 1 (n = 3..6 quick, ..7 full: 1080 / 3267 data sets): the
    # passes above draw at random, this one is exhaustive, so a transition of either DP that is wrong on
    # a single pattern of exact zero, tied or same-sign curvatures cannot hide from the draw
    patterns = [np.array(values) for n in range(3, ctx.pick(6, 7) + 1)
                for values in itertools.product((-1.0, 0.0, 1.0), repeat=n)]
    for y in patterns:
        try:
            test((np.arange(float(y.size)), y))
            # at p = 1 every plan of whole curvatures and same-sign pairs costs V_1 = Σ|Δ_i|, so the
            # documented tie-break of objective="vp" (V_p, then knots) decides alone: the fewest knots
            one = solve(InterpolationProblem(x=np.arange(float(y.size)), y=y, p=1.0),
                        SparsestInterpolantDP(objective="vp"))
            fewest = min_knots_slope_dp(np.arange(float(y.size)), y)
            assert CPWL.from_vector(one.x).num_knots == fewest, (
                f"p = 1, objective='vp': {CPWL.from_vector(one.x).num_knots} knots, the tie-break by knots "
                f"gives {fewest}")
        except AssertionError as exc:
            return Outcome("fail", f"{what} (every y in {{-1, 0, 1}}^n): fails on y = {y.tolist()} ({exc})",
                           {"statement": what, "counterexample_y": y.tolist(), "message": str(exc)})
    out.evidence["sign_patterns_exhaustive"] = len(patterns)
    return out


register(Claim(
    id="sparse_relu.dp_output_interpolates",
    paper=PAPER,
    source="SparsestInterpolantDP (our solver; its knot placement follows Theorem 3.1, 2a)",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "For univariate data (3 to 10 points, 14 in full; jittered grids, and integer y on the integer "
        "grid, where curvatures are exact integers and plans tie) the exact DP's output, as the net with "
        "one neuron per knot, evaluated at every data point equals y; each knot is an interior data point "
        "x_i with slope change Δ_i or lies in a gap (x_j, x_(j+1)) exactly where the extended chords "
        "s_(j-1) and s_(j+1) cross, with slope change Δ_j + Δ_(j+1); with objective='knots' it has the "
        "fewest knots (independent slope-state DP), and its value is V_p of its own knots; inside the DP "
        "numpy reports no division by zero and no invalid operation (errstate 'raise'; underflow, which "
        "tiny data give, is allowed), exact zero curvatures included. On the "
        "integer-grid data the DP also solves every prefix: the record of stage i (store_trace) is the "
        "(knots, V_p) of its answer on x_0..x_(i+1), which is Success (the two-point prefix, no stage, "
        "too) and, with objective='knots', has the fewest knots of that prefix. All of this also holds on "
        "every y in {-1, 0, 1}^n on the integer grid (n = 3 to 6, 7 in full), checked exhaustively, where "
        "also at p = 1 (all plans tie in V_1) objective='vp' returns the fewest knots, its documented "
        "tie-break."),
    kind=Kind.PROPERTY,
    check=partial(_check_dp_output, sabotage=False),
    control=partial(_check_dp_output, sabotage=True),
    control_description=(
        "The DP with every merged knot moved to its gap's midpoint (same slope changes, so the same V_p "
        "and knot count): the objective-value claims cannot see it, this check must."),
))


@contextmanager
def _count_only_dp():
    """Sabotage for the control: the DP run with p = 0 (every knot costs 1), so any sparsest plan may come
    back, not the one of least V_p; ``_solve`` looks ``_matching_dp`` up in its module at each call."""
    original = sparse_interpolation._matching_dp

    def count_only(d, p, objective, monitor, maxiters):
        return original(d, 0.0, objective, monitor, maxiters)

    with patched(sparse_interpolation, "_matching_dp", count_only):
        yield


def _same_function(f: CPWL, g: CPWL, x: np.ndarray) -> bool:
    """Equal knots and slope changes (to rounding of closed forms vs exact solves, ~1e-13 relative)."""
    return (f.num_knots == g.num_knots and np.allclose(f.knots, g.knots, rtol=0, atol=1e-9 * np.ptp(x))
            and np.allclose(f.jumps, g.jumps, rtol=1e-9, atol=0))


@st.composite
def _offset_long_runs(draw):
    """Seven points with curvatures (c, ε, a, b, ε)·sign: a run of four equal-sign curvatures whose V_p
    minimizer keeps a and b apart (3 knots; 2 suffice), after a curvature c of the other sign or 0, so
    the run starts one stage later in the DP than in ``_long_run_datasets``; p in [0.5, 0.95]."""
    small = draw(st.sampled_from([1e-3, 0.01, 0.05]))
    sign = draw(st.sampled_from([1.0, -1.0]))
    lead = draw(st.sampled_from([0.0, -0.3, -1.0]))
    a, b = draw(st.floats(0.5, 2.0, allow_nan=False)), draw(st.floats(0.5, 2.0, allow_nan=False))
    curv = sign * np.array([lead, small, a, b, small])
    x = np.arange(7.0)
    y = np.concatenate([[0.0], np.cumsum(np.concatenate([[0.0], np.cumsum(curv)]))])
    return x, y, (), draw(st.floats(0.5, 0.95, allow_nan=False))


def _check_dp_order(ctx: Context, *, sabotage: bool) -> Outcome:
    stats = {"draws": 0, "sparsest_plans_max": 0, "knots_objective_not_vp_minimizer": 0}

    def test(data):
        x, y, _, p = data
        prob = InterpolationProblem(x=x, y=y, p=p)
        x64 = prob.x.astype(np.float64)
        with _count_only_dp() if sabotage else nullcontext():
            f_knots = CPWL.from_vector(solve(prob, SparsestInterpolantDP(objective="knots")).x)
            f_vp = CPWL.from_vector(solve(prob, SparsestInterpolantDP(objective="vp")).x)
        # ground truth by enumeration: every fewest-knot interpolant (V_0 minimizers) and every V_p minimizer
        sparsest = solve(InterpolationProblem(x=x, y=y, p=0.0), BruteForceVp())
        brute = solve(prob, BruteForceVp())
        assert sparsest.successful and brute.successful, (sparsest.retcode, brute.retcode)
        k0 = round(sparsest.value)
        best_sparse = min(g.vp(p) for g in sparsest.original)
        # V_p of one plan from closed forms vs exact solves: ~1e-14 relative; two distinct plans of one
        # knot count differ by a data-scale amount (|a + b|^p + |c|^p vs |a|^p + |b + c|^p): 1e-9 splits them
        assert f_knots.num_knots == k0, f"objective='knots': {f_knots.num_knots} knots, fewest {k0}"
        assert f_knots.vp(p) <= best_sparse * (1 + 1e-9), (
            f"p = {p:.4g}, objective='knots': V_p = {f_knots.vp(p):.10g}, but a sparsest interpolant has "
            f"{best_sparse:.10g} (knots {f_knots.knots.tolist()})")
        assert any(_same_function(f_knots, g, x64) for g in sparsest.original), (
            f"objective='knots': knots {f_knots.knots.tolist()} are no enumerated sparsest interpolant")
        fewest_among_vp = min(g.num_knots for g in brute.original)
        assert abs(f_vp.vp(p) - brute.value) <= 1e-9 * max(1.0, brute.value), (f_vp.vp(p), brute.value)
        assert f_vp.num_knots == fewest_among_vp, (
            f"objective='vp': {f_vp.num_knots} knots, a V_p minimizer has {fewest_among_vp}")
        assert any(_same_function(f_vp, g, x64) for g in brute.original), (
            f"objective='vp': knots {f_vp.knots.tolist()} are no enumerated V_p minimizer")
        # p = 0 (V_0 counts knots, the ℓ0 objective): both objectives are the fewest-knot problem
        zero = InterpolationProblem(x=x, y=y, p=0.0)
        with _count_only_dp() if sabotage else nullcontext():
            for objective in ("knots", "vp"):
                g = CPWL.from_vector(solve(zero, SparsestInterpolantDP(objective=objective)).x)
                assert g.num_knots == k0, f"p = 0, objective={objective!r}: {g.num_knots} knots, fewest {k0}"
        stats["draws"] += 1
        stats["sparsest_plans_max"] = max(stats["sparsest_plans_max"], len(sparsest.original))
        stats["knots_objective_not_vp_minimizer"] += int(f_knots.num_knots < fewest_among_vp)
        return dict(stats)

    # grid-like data, and long runs (ε, a, b, ε) where the V_p minimizer (3 knots) is not sparsest (2 knots),
    # so that the two objectives return different interpolants
    strategy = st.one_of(_datasets_with_knots(ctx.pick(7, 8)), _long_run_datasets(), _offset_long_runs())
    return property_outcome(strategy, _one_failure(test), ctx=ctx,
                            max_examples=ctx.pick(40, 300),
                            what="the DP returns the documented minimizer: fewest knots then least V_p, or "
                                 "least V_p then fewest knots")


register(Claim(
    id="sparse_relu.dp_lexicographic_minimizer",
    paper=PAPER,
    source="SparsestInterpolantDP (our solver: its documented lexicographic objectives); ground truth by "
           "enumeration (BruteForceVp), the minimizers of Theorem 3.2 (arXiv:2505.21791)",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "For univariate data (3 to 7 points, 8 in full; grid-like, with runs of equal curvature sign, and "
        "runs of four where the V_p minimizer is not sparsest) and p drawn from [0.05, 0.95], the exact DP "
        "with objective='knots' returns an interpolant with the fewest knots and, among all fewest-knot "
        "interpolants (enumerated), the least V_p; with objective='vp' it "
        "returns a V_p minimizer with the fewest knots among the V_p minimizers; each is, knot for knot, one "
        "of the enumerated interpolants; at p = 0 both objectives return a fewest-knot interpolant."),
    kind=Kind.PROPERTY,
    check=partial(_check_dp_order, sabotage=False),
    control=partial(_check_dp_order, sabotage=True),
    control_description=(
        "The DP run with p = 0 (every knot costs 1): it still finds a sparsest plan, but among several "
        "sparsest plans it keeps the first, not the one of least V_p, and objective='vp' then minimizes "
        "the knot count instead of V_p."),
))


@contextmanager
def _absolute_zero_threshold():
    """Sabotage for the control: the shared zero threshold for curvatures made absolute (1e-9), the
    tolerance bug the first full run found; every solver looks ``_slope_tol`` up in its module."""
    with patched(sparse_interpolation, "_slope_tol", lambda x, y: 1e-9):
        yield


#: (x scale, y scale) pairs: tiny and huge outputs, inputs far from O(1), both at once
_UNIT_CHANGES = ((1.0, 1e-12), (1.0, 1e9), (1e8, 1.0), (1e-6, 1e6))


def _check_units(ctx: Context, *, sabotage: bool) -> Outcome:
    stats = {"draws": 0, "max_knot_error": 0.0, "max_vp_error": 0.0}

    def solved(x, y, p):
        prob = InterpolationProblem(x=x, y=y, p=p)
        out = {obj: CPWL.from_vector(solve(prob, SparsestInterpolantDP(objective=obj)).x)
               for obj in ("knots", "vp")}
        brute = solve(prob, BruteForceVp())
        assert brute.successful, brute.retcode
        return out, brute, min_knots_slope_dp(prob.x, prob.y)

    def test(data):
        x, y = data
        prob = InterpolationProblem(x=x, y=y, p=0.5)  # sorted and merged once, then rescaled
        x, y = prob.x.astype(np.float64), prob.y.astype(np.float64)
        # two exponents: at p = 0.9 the V_p of the 1e-12 outputs is ~1e-11, below any fixed absolute
        # tolerance of order 1e-9 (at p = 0.5 it is ~1e-6), so an absolute tie or zero test shows there
        for p in (0.5, 0.9):
            with _absolute_zero_threshold() if sabotage else nullcontext():
                ref, ref_brute, ref_k0 = solved(x, y, p)
                for sx, sy in _UNIT_CHANGES:
                    # x -> sx·x, y -> sy·y maps interpolants to interpolants: knots -> sx·t, slope changes
                    # -> (sy/sx)·c, V_p -> (sy/sx)^p V_p. Rescaled floats are exact to 1 ulp and every solver
                    # works with relative tolerances, so knots agree to ~1e-14·ptp and V_p to ~1e-14
                    # relative; a solver that zeroes, accepts or merges by an absolute threshold is off by
                    # O(1) at one of these scales (1e-12 and 1e9 outputs, 1e8 inputs).
                    got, brute, k0 = solved(sx * x, sy * y, p)
                    where = f"p = {p}, x·{sx:g}, y·{sy:g}"
                    assert k0 == ref_k0, f"{where}: fewest knots {k0}, unscaled {ref_k0}"
                    for obj in ("knots", "vp"):
                        f, g = got[obj], ref[obj]
                        assert f.num_knots == g.num_knots, (
                            f"{where}, objective={obj}: {f.num_knots} vs {g.num_knots} knots")
                        knot_err = (float(np.max(np.abs(f.knots / sx - g.knots), initial=0.0))
                                    / float(np.ptp(x)))
                        jump_err = float(np.max(np.abs(f.jumps * sx / sy - g.jumps) / np.abs(g.jumps),
                                                initial=0.0))
                        assert knot_err <= 1e-9 and jump_err <= 1e-9, (where, obj, knot_err, jump_err)
                        stats["max_knot_error"] = max(stats["max_knot_error"], knot_err)
                    vp_err = (abs(brute.value / (sy / sx) ** p - ref_brute.value)
                              / max(ref_brute.value, 1e-300))
                    assert vp_err <= 1e-9 and len(brute.original) == len(ref_brute.original), (
                        f"{where}: brute-force V_p {brute.value:.10g} vs (sy/sx)^p·{ref_brute.value:.10g}, "
                        f"{len(brute.original)} vs {len(ref_brute.original)} minimizers")
                    stats["max_vp_error"] = max(stats["max_vp_error"], vp_err)
                    # knot extraction: the minimizer as a net with two neurons per knot (w = 3 and w = 7,
                    # the same knot -b/w up to rounding, ~1e-16·|t|) must come back as the same function;
                    # so must the one-neuron-per-knot net (W = 1, its documented inverse) and a net with an
                    # extra zero-weight neuron v·(0x + b)₊ = v·b
                    f = got["vp"]
                    net = cpwl_to_network(f)
                    W2 = np.concatenate([3.0 * net["W"], 7.0 * net["W"], [0.0]])
                    b2 = np.concatenate([3.0 * net["b"], 7.0 * net["b"], [0.5]])
                    v2 = np.concatenate([0.3 * net["v"] / 3.0, 0.7 * net["v"] / 7.0, [-2.0 * sy]])
                    h = network_to_cpwl(W2, b2, v2, a=net["a"], c=net["c"] + sy)
                    back = network_to_cpwl(net["W"], net["b"], net["v"], a=net["a"], c=net["c"])
                    for name, e in (("split neurons", h), ("one neuron per knot", back)):
                        assert e.num_knots == f.num_knots, (
                            f"{where}: {name} extract to {e.num_knots} knots, the function has {f.num_knots}")
                        # values of size sy·O(10) from sums of ≤ 13 terms: ~1e-14·sy; a lost term is O(sy)
                        err = float(np.max(np.abs(e(sx * x) - f(sx * x))))
                        assert err <= 1e-9 * sy * max(1.0, float(np.max(np.abs(y)))), (
                            f"{where}: {name} extract to another function (off by {err:.3g})")
        stats["draws"] += 1
        return {k: (figure(v, digits=2, floor=1e-13) if isinstance(v, float) else v)
                for k, v in stats.items()}

    return property_outcome(_datasets(6), _one_failure(test), ctx=ctx, max_examples=ctx.pick(25, 150),
                            what="the exact solvers and knot extraction do not depend on the units of x "
                                 "and y")


register(Claim(
    id="sparse_relu.units_equivariance",
    paper=PAPER,
    source="V_p(f) is positively homogeneous and interpolation is linear (Section 3, arXiv:2505.21791); "
           "our solvers' relative tolerances (paper_notes/sparse_relu.md)",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "For univariate data (3 to 6 points, p = 1/2) rescaled to x·s, y·c with (s, c) in {(1, 1e-12), "
        "(1, 1e9), (1e8, 1), (1e-6, 1e6)}, the exact DP (both objectives) returns the rescaled interpolant "
        "(knots s·t, "
        "slope changes (c/s)·Δ), the brute force the same number of minimizers with V_p scaled by (c/s)^p, "
        "the slope-state DP the same fewest knot count, and knot extraction merges two neurons built for one "
        "knot at every scale, inverts cpwl_to_network and keeps a zero-weight neuron's constant."),
    kind=Kind.PROPERTY,
    check=partial(_check_units, sabotage=False),
    control=partial(_check_units, sabotage=True),
    control_description=(
        "The shared zero threshold for curvatures made absolute (1e-9 instead of 1e-9·max(σ_{i-1}, σ_i, "
        "max|y|/(x_N − x_1)), σ_j = max(|y_j|, |y_{j+1}|)/gap_j): at "
        "outputs of size 1e-12 every curvature counts as zero and the solvers return a line that does not "
        "interpolate, so the rescaled solutions differ."),
))


# ----------------------------------------------------------------------------- Section 4: multivariate


def _tiny_multivariate(shapes: tuple[tuple[int, int], ...]):
    """A draw(rng) of N points in d dimensions, N labels and p in [0.05, 0.95].

    Entries have magnitude in [0.05, 1] (coordinates are 0 with probability 1/4): a coordinate ~1e-7
    would call for weights ~1e7 and a label ~0 makes the needed neuron count ill-conditioned, neither
    of which the theorems are about. Points are distinct, and for N <= d + 1 the augmented points are
    well conditioned (smallest singular value >= 0.05), so the data are in general position."""
    def draw(rng):
        while True:
            n, d = shapes[int(rng.integers(len(shapes)))]
            X = rng.choice([-1.0, 1.0], (n, d)) * rng.uniform(0.05, 1.0, (n, d))
            X[rng.uniform(size=(n, d)) < 0.25] = 0.0
            y = rng.choice([-1.0, 1.0], n) * rng.uniform(0.05, 1.0, n)
            Xa = np.hstack([X, np.ones((n, 1))])
            distinct = np.unique(X, axis=0).shape[0] == n
            if distinct and (n > d + 1 or np.linalg.svd(Xa, compute_uv=False)[-1] >= 0.05):
                return X, y, float(rng.uniform(0.05, 0.95))

    return draw


def _stacked(points, n_pieces: int, m: int) -> np.ndarray:
    """Basic points as full vectors z over all pieces (zeros for unused pieces): (count, n_pieces·m)."""
    Z = np.zeros((len(points), n_pieces * m))
    for row, (pieces, U) in enumerate(points):
        for q, u in zip(pieces, U):
            Z[row, q * m:(q + 1) * m] = u
    return Z


def _lp_costs(Z: np.ndarray, p: float) -> np.ndarray:
    A = np.abs(Z)
    return np.where(A > 0, A, 1.0) ** p @ np.ones(Z.shape[1]) - np.sum(A == 0, axis=1)


def _program_matrices(prog: dict) -> tuple[np.ndarray, np.ndarray]:
    """Equality matrix A (N, P·m) and cone matrix G (P·N, P·m) of the full pattern program."""
    P, N, m = prog["out"].shape
    A = np.concatenate(list(prog["out"]), axis=1)
    G = np.zeros((P * N, P * m))
    for q in range(P):
        G[q * N:(q + 1) * N, q * m:(q + 1) * m] = prog["cone"][q]
    return A, G


def _milp_l0(A: np.ndarray, G: np.ndarray, y: np.ndarray, bound: float) -> float:
    """Fewest nonzeros of z with A z = y, G z >= 0, |z| <= bound: a MILP (HiGHS), independent of the
    enumeration."""
    n = A.shape[1]
    eye = np.eye(n)
    constraints = [
        scipy.optimize.LinearConstraint(np.hstack([A, np.zeros_like(A)]), y, y),
        scipy.optimize.LinearConstraint(np.hstack([G, np.zeros_like(G)]), 0.0, np.inf),
        scipy.optimize.LinearConstraint(np.hstack([eye, -bound * eye]), -np.inf, 0.0),
        scipy.optimize.LinearConstraint(np.hstack([-eye, -bound * eye]), -np.inf, 0.0),
    ]
    res = scipy.optimize.milp(np.concatenate([np.zeros(n), np.ones(n)]), constraints=constraints,
                              integrality=np.concatenate([np.zeros(n), np.ones(n)]),
                              bounds=scipy.optimize.Bounds(np.concatenate([-bound * np.ones(n), np.zeros(n)]),
                                                           np.concatenate([bound * np.ones(n), np.ones(n)])))
    assert res.status == 0, f"MILP failed: {res.message}"
    return float(round(res.fun))


def _feasible_samples(A: np.ndarray, G: np.ndarray, y: np.ndarray, bound: float, rng, count: int
                      ) -> np.ndarray:
    """Feasible points of the pattern program, independent of the enumeration: LP optima for random
    objectives inside the box |z| <= bound (HiGHS), and random convex combinations of them."""
    n = A.shape[1]
    found = []
    for _ in range(count):
        res = scipy.optimize.linprog(rng.normal(size=n), A_ub=-G, b_ub=np.zeros(G.shape[0]), A_eq=A, b_eq=y,
                                     bounds=[(-bound, bound)] * n, method="highs")
        if res.status == 0:
            found.append(res.x)
    V = np.array(found).reshape(-1, n)
    if V.shape[0] >= 2:
        weights = rng.dirichlet(np.ones(V.shape[0]), size=count)
        V = np.vstack([V, weights @ V])
    return V


def _orthant_vertices(A: np.ndarray, G: np.ndarray, y: np.ndarray, bound: float, rng, count: int
                      ) -> list[np.ndarray]:
    """Vertices of the pattern program, independent of the enumeration: for a random sign vector σ and
    weights c > 0, the LP min Σ c_i σ_i z_i over A z = y, G z >= 0, σ ∘ z >= 0 (HiGHS) is bounded below
    by 0, and its optimum is a vertex of that polyhedron: a basic point. Optima on the box |z| <= bound
    (a safeguard only) are left out."""
    n = A.shape[1]
    found = []
    for _ in range(count):
        sigma = rng.choice([-1.0, 1.0], n)
        res = scipy.optimize.linprog(rng.uniform(0.5, 1.5, n) * sigma, A_ub=np.vstack([-G, -np.diag(sigma)]),
                                     b_ub=np.zeros(G.shape[0] + n), A_eq=A, b_eq=y,
                                     bounds=[(-bound, bound)] * n, method="highs-ds")
        if res.status == 0 and float(np.max(np.abs(res.x))) < bound * (1 - 1e-9):
            found.append(res.x)
    return found


def _assert_vertices_enumerated(A: np.ndarray, G: np.ndarray, y: np.ndarray, Z: np.ndarray, bound: float, rng,
                                count: int) -> int:
    """Every vertex is enumerated: each LP vertex of :func:`_orthant_vertices` is a row of ``Z`` (the
    stacked basic points); returns how many vertices were checked."""
    vertices = _orthant_vertices(A, G, y, bound, rng, count)
    for z in vertices:
        # HiGHS's vertices are exact to its 1e-7 feasibility tolerance (~1e-15 seen); a basic point the
        # enumeration dropped is off by the data scale
        size = max(1.0, float(np.max(np.abs(z))))
        gap = float(np.min(np.max(np.abs(Z - z), axis=1), initial=np.inf)) / size
        assert gap <= 1e-6, (
            f"an LP vertex of the program is not among the {Z.shape[0]} basic points ({gap:.3g})")
    return len(vertices)


def _pstar(Z: np.ndarray, l0: np.ndarray, k0: int) -> float:
    """The largest p* such that for every grid p < p* the least-‖z‖_p^p point of Z has ℓ0 = k0 (1 if none
    fails).

    Grid: 0.005, 0.01, ..., 0.995; then bisection to 1e-6 between the last good and first bad point."""
    def sparsest_at(p):
        return l0[int(np.argmin(_lp_costs(Z, p)))] == k0

    grid = np.arange(1, 200) * 0.005
    bad = [p for p in grid if not sparsest_at(p)]
    if not bad:
        return 1.0
    lo, hi = bad[0] - 0.005, bad[0]
    while hi - lo > 1e-6:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if sparsest_at(mid) else (lo, mid)
    return float(lo)


def _check_multivariate_sparsest(ctx: Context, *, p_fixed: float | None) -> Outcome:
    stats = {"pstar_below_1": 0, "instances": 0, "min_pstar": 1.0, "basic_points_max": 0, "lp_samples": 0,
             "lp_vertices": 0, "sparsest_ties": 0}
    rng = ctx.rng("sparse_relu.multivariate")

    def test(data):
        X, y, _ = data
        n, d = X.shape
        prob = MultivariateInterpolationProblem(X=X, y=y, p=0.5)
        prog = pattern_program(prob)
        P, m = prog["signs"].size, d + 1
        # the documented pieces, exactly: out[q] = σ_q D_q X̃ and cone[q] = (2 D_q − I) X̃ (entries are X's
        # entries, 0 or their negatives: exact in floats)
        Xt, D = np.hstack([X, np.ones((n, 1))]), prog["patterns"].astype(float)
        assert np.array_equal(prog["out"], prog["signs"][:, None, None] * D[:, :, None] * Xt[None]) and \
            np.array_equal(prog["cone"], np.where(prog["patterns"][:, :, None], Xt[None], -Xt[None])), (
                "pattern_program's out or cone is not σ_q D_q X̃, (2 D_q − I) X̃")
        points, complete = basic_points(prob, max_pieces=n)
        assert complete and points, "no basic point: the pattern program has no interpolating net"
        Xa = np.hstack([X, np.ones((n, 1))])
        for pieces, U in points:  # Lemma 4.1: the rebuilt net interpolates, each neuron has its pattern
            net = network_from_pieces(prob, pieces, U)
            pre = Xa @ net["W"].T
            out = np.maximum(pre, 0.0) @ net["v"]
            # exact <= 9x9 solves with well-conditioned data: ~1e-13; a wrong point misses by O(1)
            miss = float(np.max(np.abs(out - y)))
            assert miss <= 1e-9, f"rebuilt net misses the data by {miss}"
            for q, col in zip(pieces, pre.T):  # on at x̃ᵀw > 0, off at x̃ᵀw < 0 (0 is allowed either way)
                pattern = prog["patterns"][q]
                on_ok, off_ok = np.all(col[pattern] >= -1e-9), np.all(col[~pattern] <= 1e-9)
                assert on_ok and off_ok, "neuron off its pattern"
        Z = _stacked(points, P, m)
        l0 = np.count_nonzero(Z, axis=1)
        k0 = int(l0.min())
        A, G = _program_matrices(prog)
        # big-M of the MILP: 10x the entries of the sparsest enumerated nets (so they are inside the box;
        # a larger M only worsens the MILP's conditioning: its tolerances scale with M)
        bound = 10.0 * max(1.0, float(np.max(np.abs(Z[l0 == k0]))))
        k0_milp = _milp_l0(A, G, y, bound)
        assert k0_milp == k0, f"ℓ0 optimum: MILP {k0_milp} vs enumeration {k0}"
        pstar = _pstar(Z, l0, k0)
        p = 0.5 * pstar if p_fixed is None else p_fixed
        best = int(np.argmin(_lp_costs(Z, p)))
        assert l0[best] == k0, (f"p = {p:.4g} (p* = {pstar:.4g}): the ℓp minimizer has {l0[best]} nonzero "
                                f"parameters, the sparsest net {k0}")
        sol = solve(MultivariateInterpolationProblem(X=X, y=y, p=p), PatternEnumeration())
        assert abs(sol.value - _lp_costs(Z[best:best + 1], p)[0]) <= 1e-9 * sol.value
        # the net solve returns is that minimizer: it interpolates (exact solves, ~1e-13), has ℓ0 = k0
        # nonzero parameters and ℓp path norm sol.value (same |entries|^p summed: ~1e-15 relative)
        W, v = sol.original["W"], sol.original["v"]
        assert np.array_equal(sol.x, W.ravel()), "Solution.x is not the flattened input weights"
        # original["pieces"] is the minimizer's selection: with its basic point it rebuilds the returned net
        chosen = tuple(int(q) for q in sol.original["pieces"])
        assert any(tuple(sel) == chosen and np.array_equal(network_from_pieces(prob, sel, U)["W"], W)
                   for sel, U in sol.original["points"]), (
            f"original['pieces'] = {chosen} does not rebuild the returned net from its basic point")
        sol_miss = float(np.max(np.abs(_net_outputs(X, W, v) - y)))
        assert sol_miss <= 1e-9, f"the returned net misses the data by {sol_miss}"
        assert network_l0(W, v) == k0, f"the returned net has ℓ0 = {network_l0(W, v)}, the sparsest {k0}"
        assert abs(network_lp(W, v, p) - sol.value) <= 1e-9 * sol.value, (network_lp(W, v, p), sol.value)
        # p = 0, problem (9): the enumeration's ℓ0 solve returns a net with the fewest nonzero parameters
        sol0 = solve(MultivariateInterpolationProblem(X=X, y=y, p=0.0), PatternEnumeration())
        assert sol0.value == k0 == network_l0(sol0.original["W"], sol0.original["v"]), (
            f"p = 0: the ℓ0 solve returns {sol0.value} ({network_l0(sol0.original['W'], sol0.original['v'])} "
            f"nonzeros), the sparsest net has {k0}")
        # ... and among the sparsest nets the documented one: least ‖z‖_{1/2}^{1/2} (costs of one point by
        # two sums of the same ≤ 9 terms: ~1e-15 relative; two sparsest nets differ at the data scale)
        half = float(np.min(_lp_costs(Z[l0 == k0], 0.5)))
        got_half = network_lp(sol0.original["W"], sol0.original["v"], 0.5)
        assert abs(got_half - half) <= 1e-9 * half, (
            f"p = 0: the ℓ0 solve's net has ‖z‖_1/2 cost {got_half:.10g}, the least among the sparsest "
            f"{half:.10g}")
        stats["sparsest_ties"] += int(np.sum(l0 == k0) > 1)
        stats["lp_vertices"] += _assert_vertices_enumerated(A, G, y, Z, bound, rng, ctx.pick(20, 40))
        # the enumerated minimum is the minimum over the whole feasible set: LP vertices and mixtures
        samples = _feasible_samples(A, G, y, bound, rng, count=ctx.pick(10, 30))
        lowest = float(np.min(_lp_costs(samples, p), initial=np.inf))
        # costs of exact points agree to ~1e-12 relative; a feasible point below the minimum is a real miss
        assert lowest >= sol.value * (1 - 1e-9), f"a feasible point has ‖z‖_p^p = {lowest} < {sol.value}"
        stats["instances"] += 1
        stats["pstar_below_1"] += int(pstar < 1.0)
        stats["min_pstar"] = min(stats["min_pstar"], round(pstar, 4))
        stats["basic_points_max"] = max(stats["basic_points_max"], len(points))
        stats["lp_samples"] += int(samples.shape[0])
        return dict(stats)

    # network_l0 as documented: the nonzero weight/bias entries of the neurons with v_k != 0 (v: ones by
    # default), on a W with more rows than columns
    W3 = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, -1.0]])
    if (network_l0(W3, [1.0, 0.0, -2.0]), network_l0(W3)) != (3, 4):
        return Outcome("fail", f"network_l0 of {W3.tolist()}: {network_l0(W3, [1.0, 0.0, -2.0])} with v = "
                               f"(1, 0, -2) (documented 3), {network_l0(W3)} with the default v "
                               "(documented 4)",
                       {"W": W3.tolist()})
    # the documented default max_pieces = N, on N = 3 points in d = 1 (N > d: a default read off the wrong
    # axis of X would search at most d pieces)
    three = MultivariateInterpolationProblem(X=[[0.0], [1.0], [2.0]], y=[0.0, 1.0, 0.0], p=0.5)
    default, full = basic_points(three)[0], basic_points(three, max_pieces=3)[0]
    if [(tuple(s), U.tolist()) for s, U in default] != [(tuple(s), U.tolist()) for s, U in full]:
        return Outcome("fail", f"basic_points without max_pieces gives {len(default)} basic points on 3 "
                               f"points in R^1, with max_pieces = N = 3 {len(full)}",
                       {"default": len(default), "max_pieces_N": len(full)})
    shapes = ctx.pick(((2, 2),), ((2, 2), (3, 1)))
    return _sampled_outcome(_tiny_multivariate(shapes), test, ctx=ctx, count=ctx.pick(8, 40),
                            what="below p*, the ℓp minimizer is an ℓ0 (sparsest) net")


register(Claim(
    id="sparse_relu.multivariate_sparsest", cost_s=1.3,
    paper=PAPER,
    source="Theorem 4.1 and Lemma 4.1 (arXiv:2505.21791; activation-pattern program (10), Bauer principle)",
    origin=Origin.PAPER,
    covers=("Theorem 4.1", "Lemma 4.1"),
    deviation=("Tiny instances only (N = 2 points in d = 2 quick; also N = 3 in d = 1 in full) solved by "
               "enumerating the basic points of program (10) with at most N pieces; p* is located on that "
               "finite set and the check runs at p*/2, with the minimum confirmed against LP vertices of the "
               "whole program and the ℓ0 optimum against a MILP."),
    statement=(
        "For N = 2 data points in R^2 (coordinates 0 or of magnitude in [0.05, 1], labels |y| in [0.05, "
        "1]) some p* > 0 exists such "
        "that for 0 < p < p* (checked at p*/2) the least-ℓp-path-norm interpolating ReLU net is an ℓ0 one "
        "(fewest nonzero input weight/bias parameters, equal to a MILP's optimum); every basic point of the "
        "activation-pattern program rebuilds (Lemma 4.1) into a net that interpolates, the solver's ℓp and "
        "ℓ0 (p = 0) nets are those minimizers (at p = 0 the sparsest net of least ‖z‖_{1/2}^{1/2}, as "
        "documented), every vertex of the program that a weighted-ℓ1 LP in a "
        "random orthant finds is an enumerated basic point, and no feasible "
        "point of the program has smaller ‖z‖_p^p than the enumerated minimum; basic_points' documented "
        "default max_pieces is N (on 3 points in R^1 the same basic points as max_pieces = 3), and "
        "pattern_program's pieces are exactly the documented σ_q D_q X̃ and (2 D_q − I) X̃; original's "
        "pieces rebuild the returned net; network_l0 counts the documented entries (v = (1, 0, −2) and the "
        "default v on a 3 × 2 W)."),
    kind=Kind.PROPERTY,
    check=partial(_check_multivariate_sparsest, p_fixed=None),
    control=partial(_check_multivariate_sparsest, p_fixed=0.95),
    control_description=(
        "p = 0.95 on every instance, not below the instance's p*: on instances with p* < 0.95 (about 40% "
        "of draws) the ℓp minimizer uses more nonzero parameters than the sparsest net."),
))


def _check_neuron_bound(ctx: Context, *, neuron_bound_offset: int) -> Outcome:
    stats = {"instances": 0, "max_neurons": 0, "max_l0": 0, "points_with_N+1_pieces": 0, "lp_vertices": 0}
    rng = ctx.rng("sparse_relu.multivariate_neuron_bound.vertices")

    def test(data):
        X, y, p = data
        n, d = X.shape
        prob = MultivariateInterpolationProblem(X=X, y=y, p=p)
        bound = n + neuron_bound_offset
        points, complete = basic_points(prob, max_pieces=n + 1)  # one more piece than the proposition allows
        assert complete and points, "no interpolating net found (existence)"
        lp = np.array([_lp_costs(U.reshape(1, -1), p)[0] for _, U in points])
        l0 = np.array([np.count_nonzero(U) for _, U in points])
        pieces = np.array([len(sel) for sel, _ in points])
        best = int(np.argmin(lp))
        assert pieces[best] <= bound, (
            f"p = {p:.4g}: the ℓp minimizer has {pieces[best]} active neurons > {bound}")
        k0 = int(l0.min())
        sparsest = pieces[l0 == k0]
        assert np.all(sparsest <= bound), f"an ℓ0 solution has {sparsest.max()} active neurons > {bound}"
        sol = solve(prob, PatternEnumeration(max_pieces=n + 1))
        assert int(np.count_nonzero(np.any(sol.original["W"] != 0, axis=1))) <= bound
        # the candidates are all there is: every vertex of the program (weighted-ℓ1 LP optima in random
        # orthants) is an enumerated basic point, so the bounds above hold for every minimizer
        prog = pattern_program(prob)
        A, G = _program_matrices(prog)
        Z = _stacked(points, prog["signs"].size, d + 1)
        stats["lp_vertices"] += _assert_vertices_enumerated(
            A, G, prob.y.astype(np.float64), Z, 10.0 * max(1.0, float(np.max(np.abs(Z)))), rng, 20)
        if n <= d + 1:  # general position with N <= d + 1: the proof's explicit constants
            cap = n if (np.all(y > 0) or np.all(y < 0)) else 2 * n
            assert k0 <= cap, f"ℓ0 optimum {k0} > {cap}"
        stats["instances"] += 1
        stats["max_neurons"] = max(stats["max_neurons"], int(pieces[best]))
        stats["max_l0"] = max(stats["max_l0"], k0)
        stats["points_with_N+1_pieces"] += int(np.sum(pieces == n + 1))
        return dict(stats)

    # d = 1 too: the univariate case of Section 4's setting (one weight and a bias per neuron)
    return _sampled_outcome(_tiny_multivariate(((2, 1), (2, 2))), test, ctx=ctx, count=ctx.pick(10, 40),
                            what="ℓp and ℓ0 minimizers have at most N active neurons, O(N) parameters")


register(Claim(
    id="sparse_relu.multivariate_neuron_bound",
    paper=PAPER,
    source="Proposition 4.1 and its proof (arXiv:2505.21791; constants 2N and N for N <= d + 1)",
    origin=Origin.PAPER,
    covers=("Proposition 4.1",),
    deviation=("N = 2 points in d = 1 or 2 only, solved by enumerating basic points of the pattern program "
               "with up "
               "to N + 1 pieces; the O(N) part is checked with the proof's constants for N <= d + 1 (2N, or "
               "N for labels of one sign)."),
    statement=(
        "For N = 2 data points in R^1 or R^2 in general position (labels |y| in [0.05, 1]) and p in "
        "[0.05, 0.95], an ℓp-minimal and an ℓ0-minimal interpolating ReLU net exist, every one uses at most "
        "N active neurons (an enumeration allowing N + 1 pieces finds no better candidate, and every vertex "
        "of the program that a weighted-ℓ1 LP in a random orthant finds is among its basic points), and "
        "the ℓ0 optimum is at most 2N nonzero parameters (N when all labels share a sign)."),
    kind=Kind.PROPERTY,
    check=partial(_check_neuron_bound, neuron_bound_offset=0),
    control=partial(_check_neuron_bound, neuron_bound_offset=-1),
    control_description=(
        "The neuron bound tightened to N - 1, past the truth: labels of both signs need a positive and a "
        "negative neuron, so the minimizer has N = 2 active neurons."),
))


# ----------------------------------------------------------------------------- multivariate units (#20)


@contextmanager
def _unequilibrated_columns():
    """Sabotage for the control: the enumeration's singularity and rank tests on the raw columns (the
    implementation before round 3 of the mutation audit: an absolute determinant threshold)."""
    with patched(multivariate_interpolation, "_column_scales", lambda A, G: np.ones(A.shape[1])):
        yield


#: (x scale, y scale): inputs of size 1e-3, 1e5 and 1e10 (input weights then below 1e-9·max|y|), outputs of
#: size 1e-9 and 1e6
_MULTIVARIATE_UNIT_CHANGES = ((1e-3, 1.0), (1e5, 1.0), (1e10, 1.0), (1.0, 1e-9), (1.0, 1e6))


def _check_multivariate_units(ctx: Context, *, sabotage: bool) -> Outcome:
    stats = {"instances": 0, "basic_points_max": 0, "max_relative_error": 0.0}

    def by_selection(points):
        found: dict[tuple[int, ...], list[np.ndarray]] = {}
        for sel, U in points:
            found.setdefault(tuple(sel), []).append(U)
        return found

    def test(data):
        X, y, p = data
        d = X.shape[1]
        with _unequilibrated_columns() if sabotage else nullcontext():
            ref, complete = basic_points(MultivariateInterpolationProblem(X=X, y=y, p=p))
            assert complete and ref, "no basic point at the drawn scale"
            ref_sol = solve(MultivariateInterpolationProblem(X=X, y=y, p=p), PatternEnumeration())
            # storage, not units: float32 X and y are solved in float64 and the net comes back in float32
            # (bit for bit the float64 solve of the same values, rounded); one float64 array keeps float64
            X32, y32 = X.astype(np.float32), y.astype(np.float32)
            ref32 = solve(MultivariateInterpolationProblem(X=X32.astype(np.float64), y=y32.astype(np.float64),
                                                           p=p), PatternEnumeration())
            for Xs, ys, dtype in ((X32, y32, np.float32), (X32, y32.astype(np.float64), np.float64)):
                got = solve(MultivariateInterpolationProblem(X=Xs, y=ys, p=p), PatternEnumeration())
                assert got.x.dtype == dtype and np.array_equal(got.x, ref32.x.astype(dtype)), (
                    f"X {Xs.dtype}, y {ys.dtype}: the net comes back as {got.x.dtype} {got.x.tolist()}, "
                    f"expected {np.dtype(dtype)} {ref32.x.astype(dtype).tolist()}")
            for sx, sy in _MULTIVARIATE_UNIT_CHANGES:
                where = f"X·{sx:g}, y·{sy:g}"
                # X -> sx·X, y -> sy·y keeps the activation patterns (sx > 0) and maps each basic point
                # u = (w, b) of a piece to (sy·w/sx, sy·b): the same active rows, so the same basic points
                prob = MultivariateInterpolationProblem(X=sx * X, y=sy * y, p=p)
                got, complete = basic_points(prob)
                assert complete and len(got) == len(ref), (
                    f"{where}: {len(got)} basic points, {len(ref)} at the drawn scale")
                scale_u = sy * np.append(np.full(d, 1.0 / sx), 1.0)
                want, have = by_selection(ref), by_selection(got)
                assert want.keys() == have.keys(), f"{where}: other piece selections"
                for sel, Us in want.items():
                    # each drawn-scale point against the nearest rescaled one, in drawn units (entries
                    # O(1)-O(100)): small exact solves (≤ 9 unknowns, equilibrated columns) agree to
                    # ~1e-13 relative; a lost or spurious point is off by the data scale
                    back = [U / scale_u for U in have[sel]]
                    assert len(back) == len(Us), f"{where}: pieces {sel}: {len(back)} vs {len(Us)} points"
                    for U in Us:
                        size = max(1.0, float(np.max(np.abs(U))))
                        err = min(float(np.max(np.abs(B - U))) for B in back) / size
                        assert err <= 1e-9, f"{where}: a basic point of pieces {sel} moves by {err:.3g}"
                        worst = figure(err, digits=1, floor=1e-13)
                        stats["max_relative_error"] = max(stats["max_relative_error"], worst)
                sol = solve(prob, PatternEnumeration())
                if sx == 1.0:  # ℓp cost scales like sy^p when only y is rescaled
                    rel = abs(sol.value / sy**p - ref_sol.value) / ref_sol.value
                    assert rel <= 1e-9, f"{where}: ℓp optimum {sol.value:.10g} vs sy^p·{ref_sol.value:.10g}"
            # a coordinate that is zero at every point: the same program with one more weight, which no
            # basic point moves off 0 (its column of A and G is zero and must not be divided by)
            X0 = np.hstack([X, np.zeros((X.shape[0], 1))])
            flat = solve(MultivariateInterpolationProblem(X=X0, y=y, p=p), PatternEnumeration())
            W0, W = flat.original["W"], ref_sol.original["W"]
            same = (flat.retcode is RetCode.Success
                    and flat.original["num_points"] == ref_sol.original["num_points"]
                    and W0.shape == (W.shape[0], d + 2) and np.all(W0[:, d] == 0)
                    and np.allclose(np.delete(W0, d, axis=1), W, rtol=1e-12, atol=0))
            assert same, (f"a zero coordinate appended: {flat.retcode.value}, {flat.original['num_points']} "
                          f"basic points ({ref_sol.original['num_points']} without), net {W0.tolist()} vs "
                          f"{W.tolist()}")
        stats["instances"] += 1
        stats["basic_points_max"] = max(stats["basic_points_max"], len(ref))
        return dict(stats)

    def draw(rng):  # two points in the plane, every coordinate of size [0.05, 1], p in [0.05, 0.95]
        while True:
            X = rng.choice([-1.0, 1.0], (2, 2)) * rng.uniform(0.05, 1.0, (2, 2))
            y = rng.choice([-1.0, 1.0], 2) * rng.uniform(0.05, 1.0, 2)
            if np.linalg.svd(np.hstack([X, np.ones((2, 1))]), compute_uv=False)[-1] >= 0.05:
                return X, y, float(rng.uniform(0.05, 0.95))

    return _sampled_outcome(draw, test, ctx=ctx, count=ctx.pick(4, 20),
                            what="the pattern enumeration does not depend on the units or float32 storage "
                                 "of X and y")


register(Claim(
    id="sparse_relu.multivariate_units_equivariance",
    paper=PAPER,
    source="PatternEnumeration / basic_points (our solver of program (10), Lemma 4.1, arXiv:2505.21791): "
           "the program's feasible set maps onto itself under X -> sX, y -> cy",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "For N = 2 data points in R^2 (coordinates and labels of size 0.05 to 1) rescaled to X·s, y·c with "
        "(s, c) in {(1e-3, 1), (1e5, 1), (1e10, 1), (1, 1e-9), (1, 1e6)}, the enumeration finds the same "
        "basic points of the activation-pattern program, mapped u = (w, b) -> (c·w/s, c·b), for the same "
        "piece selections, and PatternEnumeration's optimum scales by c^p when only y is rescaled; with X and"
        " y stored in float32 its net is the float32 rounding of the float64 solve of the same values "
        "(float64 when only X is float32); a coordinate that is zero at every point, appended to X, leaves "
        "the number of basic points and the optimal net unchanged (its weight 0)."),
    kind=Kind.PROPERTY,
    check=partial(_check_multivariate_units, sabotage=False),
    control=partial(_check_multivariate_units, sabotage=True),
    control_description=(
        "The enumeration's singularity and rank tests on the raw columns (an absolute determinant "
        "threshold, as before round 3 of the mutation audit): inputs of size 1e-3 shrink the weight "
        "columns, and basic points whose systems are well posed are dropped as singular."),
))


# ----------------------------------------------------------------------------- activation patterns (#20)


def cover_count(n: int, d: int) -> int:
    """Regions of ``n`` hyperplanes through 0 in general position in R^{d+1}: ``2 Σ_{i<=d} C(n-1, i)``
    (Cover 1965; Zaslavsky's count for a central arrangement), the activation patterns of a ReLU neuron
    with bias on ``n`` points of R^d in general position, the empty pattern included.

    >>> cover_count(3, 1), cover_count(2, 2), cover_count(5, 2)
    (6, 4, 22)
    """
    return 2 * sum(math.comb(n - 1, i) for i in range(d + 1))


@contextmanager
def _marginless_patterns():
    """Sabotage for the control: the pattern LP without its margin (x̃ᵀu <= 0 off the pattern instead of
    <= -1), the bug of dropping the strict inequality; u = 0 then makes every subset 'realizable'."""
    original = multivariate_interpolation.linprog

    def linprog(c, A_ub=None, b_ub=None, **kwargs):
        return original(c, A_ub=A_ub, b_ub=np.zeros_like(b_ub), **kwargs)

    with patched(multivariate_interpolation, "linprog", linprog):
        yield


def _check_pattern_count(ctx: Context, *, sabotage: bool) -> Outcome:
    stats = {"instances": 0, "max_patterns": 0, "sampled_found_all": 0}

    def test(data):
        X, _, _ = data
        n, d = X.shape
        Xa = np.hstack([X, np.ones((n, 1))])
        # general position: every min(n, d + 1) augmented points independent (drawn continuously, so this
        # holds with probability 1; the margin 1e-2 keeps sampled regions from being slivers)
        for rows in itertools.combinations(range(n), min(n, d + 1)):
            assert np.linalg.svd(Xa[list(rows)], compute_uv=False)[-1] >= 1e-2, "draw not in general position"
        with _marginless_patterns() if sabotage else nullcontext():
            listed = multivariate_interpolation.activation_patterns(X)
        keys = {tuple(row) for row in listed.astype(int).tolist()}
        assert len(keys) == listed.shape[0], f"{listed.shape[0] - len(keys)} patterns listed twice"
        assert not any(row.count(1) == 0 for row in keys), "the empty pattern is listed"
        want = cover_count(n, d) - 1  # the empty pattern is left out (a dead neuron)
        assert len(keys) == want, (
            f"N = {n}, d = {d}: {len(keys)} nonempty activation patterns, Cover's count gives {want}")
        # independent of the LPs: the patterns 1[X̃u >= 0] of many random u are all listed (with general
        # position and the count above, finding them all means the list is exactly the arrangement's)
        U = rng.normal(size=(20000, d + 1))
        sampled = {tuple(r) for r in np.unique(U @ Xa.T >= 0, axis=0).astype(int).tolist() if any(r)}
        missing = sampled - keys
        assert not missing, f"N = {n}, d = {d}: realizable patterns {sorted(missing)[:3]} are not listed"
        stats["instances"] += 1
        stats["max_patterns"] = max(stats["max_patterns"], len(keys))
        stats["sampled_found_all"] += int(sampled == keys)
        return dict(stats)

    rng = ctx.rng("sparse_relu.activation_patterns.sampling")
    draw = _general_position_points(((2, 1), (3, 1), (4, 1), (2, 2), (3, 2), (4, 2), (5, 2)))
    return _sampled_outcome(draw, test, ctx=ctx, count=ctx.pick(10, 40),
                            what="activation_patterns lists every activation pattern of the points once")


def _general_position_points(shapes: tuple[tuple[int, int], ...]):
    """A draw(rng) of N points in R^d with every min(N, d + 1) augmented points well conditioned."""
    def draw(rng):
        while True:
            n, d = shapes[int(rng.integers(len(shapes)))]
            X = rng.uniform(-1.0, 1.0, (n, d))
            Xa = np.hstack([X, np.ones((n, 1))])
            if all(np.linalg.svd(Xa[list(rows)], compute_uv=False)[-1] >= 1e-2
                   for rows in itertools.combinations(range(n), min(n, d + 1))):
                return X, np.zeros(n), 0.5

    return draw


register(Claim(
    id="sparse_relu.activation_patterns_complete",
    paper=PAPER,
    source="Cover (1965) / Zaslavsky (1975): a central arrangement of N hyperplanes in general position in "
           "R^{d+1} has 2 Σ_{i<=d} C(N-1, i) regions; applied to the activation patterns that program (10) "
           "of arXiv:2505.21791 (Lemma 4.1, Theorem 4.1) ranges over",
    origin=Origin.PRIOR,
    deviation=("Checks the pattern list the enumeration solves program (10) over, for N = 2 to 5 points in "
               "R^1 or R^2 in general position, not the program itself; every other multivariate claim and "
               "its independent references (MILP, LP vertices) read the same list."),
    statement=(
        "For N points of R^d in general position (N <= 5, d <= 2, uniform in [-1, 1]^d), "
        "activation_patterns lists each nonempty pattern 1[X̃u >= 0] once, 2 Σ_{i<=d} C(N-1, i) - 1 of "
        "them (Cover's count of the regions of the arrangement x̃_iᵀu = 0, less the empty pattern), and "
        "every pattern of 20000 random u is among them."),
    kind=Kind.PROPERTY,
    check=partial(_check_pattern_count, sabotage=False),
    control=partial(_check_pattern_count, sabotage=True),
    control_description=(
        "The pattern LP without its margin (x̃ᵀu <= 0 off the pattern instead of <= -1): u = 0 satisfies "
        "every subset, so all 2^N - 1 subsets are listed, more than the arrangement has once N > d + 1."),
))


# ----------------------------------------------------------------------------- data, not arrays (#20)


@st.composite
def _shuffled_datasets(draw):
    """Sorted data, a permutation of its points and indices of points to repeat (identical x and y)."""
    x, y = draw(_datasets(6))
    order = draw(st.permutations(range(x.size)))
    repeats = draw(st.lists(st.integers(0, x.size - 1), min_size=1, max_size=3))
    return x, y, np.array(order), np.array(repeats)


@contextmanager
def _x_sorted_without_y():
    """Sabotage for the control: InterpolationProblem sorts x but leaves y in the order given (the bug of
    sorting one array instead of both by one permutation)."""
    original = InterpolationProblem.__post_init__

    def post_init(self):
        object.__setattr__(self, "x", np.sort(np.asarray(self.x)))
        original(self)

    with patched(InterpolationProblem, "__post_init__", post_init):
        yield


def _check_data_set(ctx: Context, *, sabotage: bool) -> Outcome:
    stats = {"draws": 0, "repeated_points": 0}

    def solved(x, y):
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        out = [solve(prob, SparsestInterpolantDP(objective=obj)) for obj in ("knots", "vp")]
        return [*out, solve(prob, BruteForceVp())]

    def test(data):
        x, y, order, repeats = data
        ref = solved(x, y)
        # the same points in another order, some of them repeated: the problem is the set of points
        xs = np.concatenate([x[order], x[repeats]])
        ys = np.concatenate([y[order], y[repeats]])
        with _x_sorted_without_y() if sabotage else nullcontext():
            try:
                shuffled = solved(xs, ys)
            except ValueError as exc:  # the points are a function: a correct problem accepts them
                raise AssertionError(f"the shuffled data with repeated points are rejected: {exc}") from None
        for name, a, b in zip(("DP knots", "DP vp", "brute force"), shuffled, ref):
            # the same points, sorted and merged, go through the same arithmetic: bit-identical answers
            assert a.retcode is b.retcode and np.array_equal(a.x, b.x), (
                f"{name}: the shuffled data with {repeats.size} repeated points give {a.x.tolist()}, the "
                f"sorted data {b.x.tolist()}")
        # float32 storage: values exact in float32 are solved in float64 and returned in float32; x and y
        # must both be float32 for that (one float64 array keeps the problem in float64)
        x32, y32 = x.astype(np.float32), y.astype(np.float32)
        ref32 = solved(x32.astype(np.float64), y32.astype(np.float64))
        for xa, ya, dtype in ((x32, y32, np.float32), (x32, y32.astype(np.float64), np.float64),
                              (x32.astype(np.float64), y32, np.float64)):
            for name, a, b in zip(("DP knots", "DP vp", "brute force"), solved(xa, ya), ref32):
                assert a.x.dtype == dtype and np.array_equal(a.x, b.x.astype(dtype)), (
                    f"{name}: x {xa.dtype}, y {ya.dtype}: Solution.x is {a.x.dtype} {a.x.tolist()}, expected "
                    f"{np.dtype(dtype)} {b.x.astype(dtype).tolist()}")
        stats["draws"] += 1
        stats["repeated_points"] += int(repeats.size)
        return dict(stats)

    return property_outcome(_shuffled_datasets(), _one_failure(test), ctx=ctx,
                            max_examples=ctx.pick(25, 150),
                            what="the solvers see the set of data points, not their order, repeats or "
                                 "storage")


register(Claim(
    id="sparse_relu.problem_is_its_data_set",
    paper=PAPER,
    source="InterpolationProblem (our implementation of the interpolation problem of Section 3, "
           "arXiv:2505.21791): the constraints f(x_i) = y_i depend on the set of points only",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "For univariate data (3 to 6 points, p = 1/2), the exact DP (both objectives) and the brute force "
        "return bit for bit the same Solution on the points given in any order with up to three of them "
        "repeated (same x and y) as on the sorted, distinct points; on float32 data the answer is the "
        "float32 rounding of the float64 solve of the same values, and stays float64 when only one of x and "
        "y is float32."),
    kind=Kind.PROPERTY,
    check=partial(_check_data_set, sabotage=False),
    control=partial(_check_data_set, sabotage=True),
    control_description=(
        "InterpolationProblem sorting x without carrying y along (one array sorted instead of both by one "
        "permutation): the shuffled data then pair x values with other points' y, and the solvers fit "
        "other data."),
))


# ----------------------------------------------------------------------------- budgets and retcodes (#20)


@contextmanager
def _budget_ignored():
    """Sabotage for the control: the multivariate enumeration reports every run complete, so an
    exhausted ``maxiters`` is called ``Success`` (the bug of a budget test whose flag is never cleared)."""
    original = multivariate_interpolation.basic_points

    def complete_always(problem, max_pieces=None, *, budget=None):
        return original(problem, max_pieces, budget=budget)[0], True

    with patched(multivariate_interpolation, "basic_points", complete_always):
        yield


def _assert_interpolates(f: CPWL, x: np.ndarray, y: np.ndarray, what: str) -> None:
    # exact solves (DP, lstsq on <= 12 points) leave ~1e-15·max|y|; 1e-9 is the solvers' own residual test
    residual = float(np.max(np.abs(f(x) - y)))
    assert residual <= 1e-9 * max(1.0, float(np.max(np.abs(y)))), f"{what}: the returned function misses " \
        f"the data by {residual:.3g}"


def _blowup_runs() -> list[tuple[float, float, RetCode, int]]:
    """Two-step training runs whose second loss brackets the documented blow-up threshold: ``(ratio,
    lr, retcode, steps)`` with ratio = loss₁ / (1e30·(1 + |loss₀|)).

    Data x = (−1, 0, 1), y = (0, 1, 0) are their own standardization, so the returned parameters are the
    trainer's; with init_scale 1e-3 and penalty 2 the first loss is ½·2·|y|² ≈ 1 (so 1 + |loss₀|, |loss₀|
    and 1 differ by a factor 2). Adam's first step moves every weight by lr, so loss₁ grows as lr⁴: a probe
    at lr = 1e3 and one refinement place lr at ratios of about 0.7, 0.9, 1.15 and 1.35. loss₁ is read from
    the trace when the run went on, and recomputed from the returned (step-1) parameters when it stopped."""
    x, y = np.array([-1.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0])
    prob = InterpolationProblem(x=x, y=y, p=0.5)

    def run(lr: float) -> tuple[float, float, RetCode, int]:
        algorithm = LpPathNormTraining(width=2, lr=lr, penalty=2.0, init_scale=1e-3)
        sol = solve(prob, algorithm, maxiters=2, store_trace=True)
        loss0 = sol.trace[0]["loss"]
        if sol.retcode is RetCode.Diverged:
            raw = sol.original["params"]
            params = [raw["W"], raw["b"], raw["v"], np.array([raw["a"]]), np.array([raw["c"]])]
            eps = lp_training._smoothing_at(1, 2, algorithm.smoothing_start, algorithm.smoothing)
            loss1 = lp_training._lagrangian(params, x, y, np.zeros(3), algorithm.penalty, p=0.5, eps=eps,
                                            regularizer="lp_path")[0]
        else:
            loss1 = sol.trace[1]["loss"]
        return loss1 / (1e30 * (1.0 + abs(loss0))), lr, sol.retcode, sol.stats.iterations

    ratio, lr, _, _ = run(1e3)
    ratio, lr, _, _ = run(lr * (0.5 / ratio) ** 0.25)
    return [run(lr * (target / ratio) ** 0.25) for target in (0.7, 0.9, 1.15, 1.35)]


def _check_budgets(ctx: Context, *, sabotage: bool) -> Outcome:
    stats = {"draws": 0, "dp_caps": 0, "brute_force_caps": 0, "enumeration_caps": 0}
    S, M, T = RetCode.Success, RetCode.MaxIters, RetCode.Terminated

    def dp_caps(x, y, p):
        prob = InterpolationProblem(x=x, y=y, p=p)
        stages = x.size - 2  # one DP stage per interior curvature
        full = solve(prob, SparsestInterpolantDP(), store_trace=True)
        assert full.retcode is S and full.stats.iterations == stages, (
            f"DP, no cap: {full.retcode.value} after {full.stats.iterations} stages, expected Success after "
            f"{stages}")
        # the last stage record is the optimum of the whole data: the answer's knot count and V_p
        last = full.trace[-1]
        assert (last["knots"], last["vp"]) == (CPWL.from_vector(full.x).num_knots, full.value), (
            f"DP at p = {p}: last trace record {last}, the answer has {CPWL.from_vector(full.x).num_knots} "
            f"knots and V_p {full.value!r}")
        spline = linear_spline(x, y).to_vector(prob.dtype)
        for cap in range(stages + 2):
            sol = solve(prob, SparsestInterpolantDP(), maxiters=cap, store_trace=True)
            done = min(cap, stages)
            seen = [r["stage"] for r in sol.trace]
            if cap >= stages:  # the cap is not binding: the full answer
                assert sol.retcode is S and np.array_equal(sol.x, full.x), (
                    f"DP, maxiters={cap} >= {stages} stages: {sol.retcode.value}, x {sol.x.tolist()} "
                    f"(uncapped {full.x.tolist()})")
            else:  # documented: an interrupted DP returns the linear spline, MaxIters
                assert sol.retcode is M and np.array_equal(sol.x, spline), (
                    f"DP, maxiters={cap} < {stages} stages: {sol.retcode.value}, x {sol.x.tolist()}, "
                    f"expected MaxIters with the linear spline {spline.tolist()}")
            assert sol.stats.iterations == done and seen == (list(range(1, done + 1)) or [0]), (
                f"DP, maxiters={cap}: {sol.stats.iterations} stages counted and trace stages {seen}, "
                f"expected {done} and {list(range(1, done + 1)) or [0]}")
            _assert_interpolates(CPWL.from_vector(sol.x), x, y, f"DP, maxiters={cap}")
            stats["dp_caps"] += 1
        stop = solve(prob, SparsestInterpolantDP(), callback=lambda record: True)
        assert stop.retcode is T and np.array_equal(stop.x, spline), (
            f"DP stopped by its callback at stage 1 of {stages}: {stop.retcode.value}, x {stop.x.tolist()}")

    def brute_force_caps(x, y):
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        # the limit is inclusive (its docstring)
        full = solve(prob, BruteForceVp(max_points=x.size), store_trace=True)
        subsets = full.stats.iterations  # all subsets (minimizer_is_sparsest checks this count)
        assert full.retcode is S, f"brute force, no cap: {full.retcode.value}"
        # one record per subset size, the last with every subset tried and the least V_p found
        records = [(r["subset_size"], r["subsets_tried"]) for r in full.trace]
        assert [k for k, _ in records] == list(range(x.size - 1)) and records[-1][1] == subsets \
            and full.trace[-1]["best_vp"] == full.value, (
                f"brute force: trace (size, tried) {records}, last best_vp {full.trace[-1]['best_vp']!r}, "
                f"value {full.value!r} after {subsets} subsets")
        previous = math.inf
        for cap in sorted({0, 1, subsets // 2, subsets - 1, subsets, subsets + 1}):
            sol = solve(prob, BruteForceVp(), maxiters=cap)
            assert sol.stats.iterations == min(cap, subsets) or (cap == 0 and sol.stats.iterations == 0), (
                f"brute force, maxiters={cap} of {subsets} subsets: {sol.stats.iterations} counted")
            want = S if cap >= subsets else M
            assert sol.retcode is want, (
                f"brute force, maxiters={cap} of {subsets} subsets: {sol.retcode.value}, expected "
                f"{want.value}")
            # more subsets tried can only lower the best V_p, down to the uncapped minimum
            assert full.value <= sol.value * (1 + 1e-12) and sol.value <= previous * (1 + 1e-12), (
                f"brute force, maxiters={cap}: V_p {sol.value!r} after {previous!r} at a smaller cap, "
                f"minimum {full.value!r}")
            previous = sol.value
            _assert_interpolates(CPWL.from_vector(sol.x), x, y, f"brute force, maxiters={cap}")
            stats["brute_force_caps"] += 1
        stop = solve(prob, BruteForceVp(), callback=lambda record: True)
        assert stop.retcode is T, f"brute force stopped by its callback: {stop.retcode.value}"

    def enumeration_caps(X, y, max_pieces):
        prob = MultivariateInterpolationProblem(X=X, y=y, p=0.5)
        alg = PatternEnumeration(max_pieces=max_pieces)
        pieces = pattern_program(prob)["signs"].size
        selections = sum(math.comb(pieces, k) for k in range(1, (max_pieces or X.shape[0]) + 1))
        full = solve(prob, alg)
        assert full.retcode is S, f"enumeration, no cap: {full.retcode.value}"
        # the run's record: its basic points and the best cost among them (at p = 1/4, where the cost is not
        # the ‖·‖_{1/2}^{1/2} tie-break that the solver also computes)
        quarter = solve(MultivariateInterpolationProblem(X=X, y=y, p=0.25), alg, store_trace=True)
        record = quarter.trace[-1]
        assert (record["basic_points"], record["best"]) == (len(quarter.original["points"]), quarter.value), (
            f"enumeration: trace {record}, {len(quarter.original['points'])} points, value {quarter.value!r}")
        for cap in sorted({0, 1, selections // 2, selections - 1, selections}):
            sol = solve(prob, alg, maxiters=cap)
            want = S if cap >= selections else M
            assert sol.retcode is want, (
                f"enumeration of {X.shape[0]} points in R^{X.shape[1]}, maxiters={cap} of {selections} "
                f"selections: {sol.retcode.value}, expected {want.value}")
            assert full.value <= sol.value * (1 + 1e-12), (
                f"enumeration, maxiters={cap}: value {sol.value!r} below the uncapped minimum {full.value!r}")
            W = sol.original["W"]
            if not sol.original["points"]:  # nothing found within the cap: the documented empty net
                v, pieces = sol.original["v"], sol.original["pieces"]
                assert sol.value == math.inf and W.shape == (0, X.shape[1] + 1) and v.shape == (0,) \
                    and pieces == () and sol.x.size == 0, (
                        f"enumeration, maxiters={cap}: no net, but value {sol.value!r}, W of shape "
                        f"{W.shape}, v of shape {v.shape}, pieces {pieces}")
            else:
                fit = float(np.max(np.abs(_net_outputs(X, W, sol.original["v"]) - y)))
                assert fit <= 1e-8 * max(1.0, float(np.max(np.abs(y)))), (
                    f"enumeration, maxiters={cap}: the returned net misses the data by {fit:.3g}")
            stats["enumeration_caps"] += 1

    def training(x, y):
        prob = InterpolationProblem(x=x, y=y, p=0.5)
        scale = float(np.max(np.abs(y))) or 1.0     # the documented tolerance's scale: max|y| (1 for y ≡ 0)
        untrained = solve(prob, LpPathNormTraining(width=4), maxiters=0, store_trace=True)
        f0 = CPWL.from_vector(untrained.x)
        r0 = float(np.max(np.abs(f0(x) - y)))
        records = [(r["iteration"], r["max_residual"]) for r in untrained.trace]
        assert untrained.retcode is M and untrained.original["max_residual"] == r0 and records == [(0, r0)] \
            and untrained.stats.iterations == 0, (
                f"training, maxiters=0: {untrained.retcode.value} after {untrained.stats.iterations} steps, "
                f"reported residual {untrained.original['max_residual']!r}, trace (iteration, residual) "
                f"{records}, the returned function's residual {r0!r}")
        # the documented default horizon: 4000 Adam steps when maxiters is not given (0.5 s at width 2)
        default = solve(InterpolationProblem(x=[0.0, 1.0, 2.0], y=[0.0, 1.0, 0.0], p=0.5),
                        LpPathNormTraining(width=2))
        assert default.stats.iterations == 4000, (
            f"training without maxiters ran {default.stats.iterations} steps, documented 4000")
        # documented: seed=None is seed 0 (always reproducible), and another seed is another start
        unseeded, seeded, other = (solve(prob, LpPathNormTraining(width=4), maxiters=50,
                                         seed=seed).original["params"] for seed in (None, 0, 1))
        assert np.array_equal(unseeded["W"], seeded["W"]) and not np.array_equal(unseeded["W"], other["W"]), (
            "training with seed=None does not start as with seed 0 (documented), or seed 1 starts the same")
        # y ≡ 0 is data too (the zero function interpolates it): the y scale's floor keeps 0/0 out of training
        flat = solve(InterpolationProblem(x=[0.0, 1.0, 2.0, 3.0], y=[0.0] * 4, p=0.5),
                     LpPathNormTraining(width=3), maxiters=50)
        flat_knots = CPWL.from_vector(flat.x).num_knots
        assert flat.retcode is RetCode.Success and flat_knots == 0 and flat.value == 0.0, (
            f"training on y = 0: {flat.retcode.value}, {flat_knots} knots, value "
            f"{flat.value!r} (the zero function, Success, wanted)")
        # lr = 1e30 (inside the working range) overflows the float32 loss at the first step
        blown = solve(prob, LpPathNormTraining(width=4, lr=1e30))
        assert blown.retcode is RetCode.Diverged and blown.value == math.inf \
            and blown.x.tolist() == [0.0, 0.0] and blown.original["max_residual"] == math.inf, (
                f"training with lr=1e30: {blown.retcode.value}, value {blown.value!r}, x {blown.x.tolist()}")
        # a loss above BLOWUP_FACTOR·(1 + |loss at step 0|) is a blow-up where it happens: with lr = 1e12
        # the first Adam step moves every weight by ~1e12, so step 1's loss is ~1e48 (finite): it stops there
        jump = solve(prob, LpPathNormTraining(width=4, lr=1e12))
        assert jump.retcode is RetCode.Diverged and jump.stats.iterations == 1, (
            f"training with lr=1e12: {jump.retcode.value} after {jump.stats.iterations} steps, expected "
            "Diverged after 1 (the loss at step 1 exceeds 1e30·(1 + |loss at step 0|))")
        # ... and at the threshold itself: Diverged after one step iff loss₁ > 1e30·(1 + |loss₀|), at ratios
        # on both sides within a factor 1.5 (a wrong factor, floor or sign of the threshold moves it >= 1.5×)
        runs = _blowup_runs()
        ratios = [ratio for ratio, *_ in runs]
        assert any(0.6 < r < 0.95 for r in ratios) and any(1.05 < r < 1.45 for r in ratios), (
            f"the two-step runs missed the blow-up threshold: ratios {ratios}")
        for ratio, lr, retcode, steps in runs:
            want = (RetCode.Diverged, 1) if ratio > 1.0 else (M, 2)
            assert (retcode, steps) == want, (
                f"training with lr={lr:.6g} (loss at step 1 = {ratio:.4f}·1e30·(1 + |loss at step 0|)): "
                f"{retcode.value} after {steps} steps, documented {want[0].value} after {want[1]}")
        # the default tolerance 1e-6·max|y| (relative at every scale of y: round 16, once absolute below
        # max|y| = 1) at 1/2 and 3/2 of itself. One neuron cannot fit a 7-point zigzag, and the residual
        # scales with the zigzag's amplitude, so y = offset + amplitude·zigzag with offset 1e-6 and 1e3
        # (max|y| ≈ offset) puts it at 0.5 and 1.5 times the tolerance; the offset 1e-6 probes the relative
        # rule below 1 (the old absolute 1e-6 called both Success there)
        zx, zy = np.linspace(0.0, 1.0, 7), np.array([0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
        for offset in (1e-6, 1e3):
            unit = 1e-3 * offset        # the zigzag at 1e-3 of the offset (amplitude 1 at offset 1e3)
            short = solve(InterpolationProblem(x=zx, y=offset + unit * zy, p=0.5),
                          LpPathNormTraining(width=1), maxiters=30)
            r_short = short.original["max_residual"] / unit
            assert r_short > 1e-3, f"one neuron fits the zigzag to {r_short:.3g}: no boundary to probe"
            for share, want in ((0.5, S), (1.5, M)):
                amplitude = share * 1e-6 * offset / r_short
                zigzag = offset + amplitude * zy
                sol = solve(InterpolationProblem(x=zx, y=zigzag, p=0.5), LpPathNormTraining(width=1),
                            maxiters=30)
                r, tol = sol.original["max_residual"], 1e-6 * float(np.max(np.abs(zigzag)))
                # measured: r/tol within 3e-6 of share (the offset moves max|y| by the amplitude, < 3e-6
                # relative); only the side of 1 matters, and within 1 % of share it stays 1.5× from it
                assert abs(r / tol - share) <= 1e-2 * share and sol.retcode is want, (
                    f"one neuron, 30 steps on {offset:g} + {amplitude:.3g}·zigzag: residual {r:.3g} = "
                    f"{r / tol:.4f}·tol, {sol.retcode.value}; documented: {want.value} (Success iff residual "
                    "<= 1e-6·max|y|)")
        stop = solve(prob, LpPathNormTraining(width=4), callback=lambda record: record["iteration"] >= 9)
        assert stop.retcode is T and stop.stats.iterations == 10, (
            f"training stopped by its callback at iteration 9: {stop.retcode.value} after "
            f"{stop.stats.iterations} steps")
        for width, steps in ((4, None), (1, 200)):
            sol = solve(prob, LpPathNormTraining(width=width), maxiters=steps)
            fit = float(np.max(np.abs(CPWL.from_vector(sol.x)(x) - y)))
            # the documented criterion, on the returned function: max residual <= 1e-6·max|y| (1 for y ≡ 0)
            want = S if fit <= 1e-6 * scale else M
            assert sol.retcode is want and abs(sol.original["max_residual"] - fit) <= 1e-12 * scale, (
                f"training, width {width}, {steps or 'default'} steps: {sol.retcode.value} with the returned "
                f"function's residual {fit:.3g} (reported {sol.original['max_residual']:.3g}), expected "
                f"{want.value}")

    def test(data):
        x, y = data
        dp_caps(x, y, 0.5)
        dp_caps(x, y, 0.0)  # V_0 = the knot count: a merged pair costs one
        brute_force_caps(x, y)
        stats["draws"] += 1
        return dict(stats)

    what = "budgets give MaxIters, callbacks Terminated, Success only when the method's own criterion held"
    with _budget_ignored() if sabotage else nullcontext():
        try:
            # the multivariate enumeration: two points in R^2 (every selection), and at the documented limit
            # of MAX_POINTS = 6 points in R^1 fitted by a two-neuron net, with at most two pieces
            rng = ctx.rng("budgets")
            X2 = rng.uniform(-1.0, 1.0, (2, 2))
            enumeration_caps(X2, rng.uniform(-2.0, 2.0, 2), None)
            X6 = np.sort(rng.uniform(-1.0, 1.0, (multivariate_interpolation.MAX_POINTS, 1)), axis=0)
            teacher = np.array([[1.0, 0.2], [-0.7, 0.1]])
            enumeration_caps(X6, _net_outputs(X6, teacher, np.array([1.0, -1.0])), 2)
            # the trainer on three points (interpolated from most starts) and the brute force at its default
            # limit of 12 points (one kink: few candidate subsets)
            training(np.array([0.0, 1.0, 2.0]), np.array([0.0, 1.0, 0.0]))
            x12 = np.linspace(0.0, 1.0, 12)
            y12 = np.maximum(0.0, x12 - 0.4) + 0.3 * x12
            assert solve(InterpolationProblem(x=x12, y=y12, p=0.5), BruteForceVp()).retcode is S, \
                "the brute force at its default max_points=12 does not solve 12 points"
        except AssertionError as exc:
            return Outcome("fail", f"{what}: {exc}", {"statement": what, "counterexample": str(exc)})
        return property_outcome(_datasets(7), _one_failure(test), ctx=ctx, max_examples=ctx.pick(10, 60),
                                what=what)


register(Claim(
    id="sparse_relu.budgets_and_retcodes",
    paper=PAPER,
    source="the package's retcode contract (DESIGN.md: Success only when the method's own criterion held, a "
           "budget reached without it MaxIters) for our solvers of Sections 3 and 4 of arXiv:2505.21791",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "Every solver of the paper honours its budget and says how it ended: the DP with maxiters below its"
        " N - 2 stages returns MaxIters with the linear spline after exactly that many stages (trace and "
        "counter), Success with the uncapped answer otherwise; the brute force at caps 0, 1, half, all - 1,"
        " all and all + 1 of its subsets counts min(cap, all) subsets, is MaxIters below all and Success "
        "from all on, and its best V_p falls with the cap to the uncapped minimum; the multivariate "
        "enumeration at caps below its number of piece selections is MaxIters (the empty net of value inf "
        "when nothing was found), Success at all of them (its trace records the basic points and the best "
        "cost, at p = 1/4), with MAX_POINTS = 6 points accepted; training for"
        " 0 steps reports the residual of the function it returns, without maxiters it runs the documented "
        "4000 steps and seed=None trains as seed 0, 50 steps on y ≡ 0 return the zero function with "
        "Success, a blow-up is Diverged with "
        "the empty function, and a run is Success "
        "exactly when the returned function meets 1e-6·max|y| (also "
        "at 1/2 and 3/2 of that default: one neuron on a small 7-point zigzag on an offset of 1e-6 and of "
        "1000), a loss above 1e30·(1 + |loss at step 0|) is Diverged at the step where it occurs"
        " (lr = 1e12: after 1 step; and two-step runs with loss at step 1 at 0.7, 0.9, 1.15 and 1.35 times "
        "that threshold, loss at step 0 ≈ 1, go on, go on, stop, stop); training for 0 steps counts 0 "
        "steps; a callback's stop is Terminated; every returned function or net interpolates the data; the "
        "DP's last trace record (p = 1/2 and p = 0) is the answer's knot count and V_p, the brute force's "
        "has every subset tried and the least V_p. Data: 3 to 7 univariate points."),
    kind=Kind.PROPERTY,
    check=partial(_check_budgets, sabotage=False),
    control=partial(_check_budgets, sabotage=True),
    control_description=(
        "The multivariate enumeration reporting every run complete (the budget test's flag never cleared): "
        "a capped enumeration is then called Success."),
))


# ----------------------------------------------------------------------------- sparse_relu.documented_domain


def _domain_cases() -> list[tuple[str, object, bool]]:
    """(label, call, documented: accepted) at each side of every documented domain boundary of the paper's
    hypotheses: p in [0, 1] univariate (the paper's range; p > 1 favours split neurons), p in [0, 1)
    multivariate, p > 0 for training and its smoothed penalty, prune_tol < 1, at most MAX_POINTS = 6
    multivariate points, at least 2 univariate points."""
    above_one, below_one = float(np.nextafter(1.0, 2.0)), float(np.nextafter(1.0, 0.0))
    x3, y3 = [0.0, 1.0, 2.0], [0.0, 1.0, 0.0]
    X2, y2 = np.array([[0.0, 0.0], [1.0, 0.5]]), np.array([1.0, -1.0])

    def grid(n):  # n distinct points in the plane, labels with a kink
        X = np.column_stack([np.arange(n, dtype=float), np.arange(n, dtype=float) ** 2 / 7.0])
        return X, np.abs(X[:, 0] - 2.0)

    def train(p):  # 0 Adam steps: the guard runs, nothing is trained
        return solve(InterpolationProblem(x=x3, y=y3, p=p), LpPathNormTraining(width=2), maxiters=0)

    cases = []
    for p, ok in ((0.0, True), (1.0, True), (above_one, False)):
        cases += [(f"InterpolationProblem(p={p!r})", partial(InterpolationProblem, x=x3, y=y3, p=p), ok),
                  (f"path_norm(p={p!r})", partial(path_norm, [1.0], [2.0], p), ok)]
    for p, ok in ((0.0, True), (below_one, True), (1.0, False)):
        cases += [(f"MultivariateInterpolationProblem(p={p!r})",
                   partial(MultivariateInterpolationProblem, X=X2, y=y2, p=p), ok),
                  (f"network_lp(p={p!r})", partial(network_lp, [[1.0, 4.0]], [1.0], p), ok)]
    # p > 0 is a positive scale of the working range: 1.2e-38 inside, the subnormal 1e-39 outside (round 13;
    # the probe was 1e-300, which now acts as the refused 0)
    for p, ok in ((0.0, False), (1e-39, False), (1.2e-38, True)):
        cases += [(f"LpPathNormTraining on p={p!r}", partial(train, p), ok),
                  (f"smoothed_lp(p={p!r})", partial(smoothed_lp, np.array([4.0, 0.0]), p, 1e-12), ok)]
    for tol, ok in ((below_one, True), (1.0, False)):
        cases.append((f"prune_network(prune_tol={tol!r})",
                      partial(lp_training.prune_network, x3, y3, W=[1.0], b=[-1.0], v=[1.0], a=0.0, c=0.0,
                              prune_tol=tol, merge_tol=1e-6), ok))
    # MAX_POINTS as documented, a literal: the check must not read the code's constant
    for n, ok in ((6, True), (7, False)):
        X, y = grid(n)
        cases.append((f"MultivariateInterpolationProblem with {n} points",
                      partial(MultivariateInterpolationProblem, X=X, y=y, p=0.5), ok))
    for n, ok in ((2, True), (1, False)):
        cases.append((f"InterpolationProblem with {n} point(s)",
                      partial(InterpolationProblem, x=x3[:n], y=y3[:n], p=0.5), ok))
    # distinct rows (a repeated input cannot take two labels); repeated columns are allowed
    for X, ok in ((np.array([[1.0, 1.0], [2.0, 2.0]]), True), (np.array([[1.0, 2.0], [1.0, 2.0]]), False)):
        cases.append((f"MultivariateInterpolationProblem with X = {X.tolist()}",
                      partial(MultivariateInterpolationProblem, X=X, y=np.array([1.0, -1.0]), p=0.5), ok))
    for shape, ok in (((1, 1), True), ((0, 2), False), ((2, 0), False)):  # X of shape (N, d), N, d >= 1
        X = np.arange(1.0, 1.0 + shape[0] * shape[1]).reshape(shape)
        cases.append((f"MultivariateInterpolationProblem with X of shape {shape}",
                      partial(MultivariateInterpolationProblem, X=X, y=np.ones(shape[0]), p=0.5), ok))
    return cases


def _check_domain(ctx: Context, *, sabotage: bool) -> Outcome:
    # control: MAX_POINTS one lower (a wrong constant), so the documented 6-point problem is refused
    lowered = patched(multivariate_interpolation, "MAX_POINTS", 5)
    cases = _domain_cases()
    with lowered if sabotage else nullcontext():
        for label, call, accepted in cases:
            try:
                call()
                got = True
            except ValueError:
                got = False
            if got != accepted:
                want = "accepted" if accepted else "refused (ValueError)"
                return Outcome("fail", f"{label}: {'accepted' if got else 'refused'}, documented {want}",
                               {"case": label})
    return Outcome("pass", f"all {len(cases)} boundary cases of the documented domains are accepted or "
                           "refused as documented", {"cases": len(cases)})


register(Claim(
    id="sparse_relu.documented_domain",
    paper=PAPER,
    source="the domains our problem classes and solvers document for the hypotheses of Sections 3 and 4 of "
           "arXiv:2505.21791 (ℓp path norms with 0 <= p <= 1, p < 1 for the multivariate sparsity results)",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "Every documented domain boundary holds at both sides (ValueError outside, accepted inside): "
        "InterpolationProblem and path_norm accept p = 0 and p = 1 and refuse the next float above 1; "
        "MultivariateInterpolationProblem and network_lp accept p = 0 and the float just below 1 and refuse "
        "p = 1; LpPathNormTraining (0 steps) and smoothed_lp refuse p = 0 and the subnormal p = 1e-39 and "
        "accept p = 1.2e-38 (the working range's smallest positive scale); "
        "prune_network accepts prune_tol just below 1 and refuses 1; a multivariate problem of MAX_POINTS "
        "= 6 points is accepted and one of 7 refused, X of shape (1, 1) accepted and (0, 2), (2, 0) refused, "
        "X with two equal columns accepted and with two equal rows refused; a univariate problem needs 2 "
        "points."),
    kind=Kind.NUMERIC,
    check=partial(_check_domain, sabotage=False),
    control=partial(_check_domain, sabotage=True),
    control_description="MAX_POINTS one lower (a wrong constant): the documented 6-point problem is refused.",
))


# ----------------------------------------------------------------------------- sparse_relu.documented_rules


def _documented_rule_cases(scale: float) -> list[tuple[str, dict, np.ndarray, object]]:
    """(label, prune_network's net and tolerances, y, the documented knots) on x = 0, scale, ..., 6·scale.

    The knots are a list (to 1e-9 of the range), their count where two knots in one gap leave their places
    open (many 2-knot interpolants), or (list, tolerance relative to the range) where the places are open
    but the documented start decides them: the polish from an exact start drifts along the exact fits by
    rounding-driven steps (measured 5e-9 of the range), the other start lies 5e-3 of the range away.

    Each rule of prune_network's docstring at its boundary, with the documented literals (never the code's
    constants): |v w| equal to prune_tol · max |v w| is dropped; knots at x_1 and x_N (outside the open hull:
    affine on the data) are dropped; knots 0.5 · merge_tol · (x_N − x_1) apart merge, 2 · merge_tol ·
    (x_N − x_1) apart do not. Then the polish from a trained knot off by 2 · merge_tol · range: onto the exact
    knot, at a data point (a kink of the residual) and inside a gap; and a knot within the snap range
    (10 · merge_tol · range) of a data point, both polish starts fit exactly: the snapped one is kept."""
    x = np.arange(7.0) * scale
    span, merge_tol = float(np.ptp(x)), 1e-3
    tols = {"a": 0.0, "c": 0.0, "prune_tol": 1e-2, "merge_tol": merge_tol}
    kink = np.maximum(x - 2.5 * scale, 0.0)  # one knot in the gap (2, 3)·scale
    off, near = 2.0 * merge_tol * span, 2.0 * scale + 5.0 * merge_tol * span  # near: inside the snap range
    return [
        ("|v w| equal to prune_tol·max |v w| is dropped",
         {"W": [1.0, 1.0], "b": [-2.5 * scale, -4.5 * scale], "v": [1.0, 0.5], **tols, "prune_tol": 0.5},
         kink, [2.5 * scale]),
        ("knots at x_1 and x_N are dropped",
         {"W": [1.0, 1.0], "b": [-x[0], -x[-1]], "v": [1.0, 1.0], **tols}, x.copy(), []),
        ("knots 0.5·merge_tol·range apart merge",
         {"W": [1.0, 1.0], "b": [-2.5 * scale, -2.5 * scale - 0.5 * merge_tol * span], "v": [0.5, 0.5],
          **tols}, kink, [2.5 * scale]),
        ("knots 2·merge_tol·range apart stay two",
         {"W": [1.0, 1.0], "b": [-2.5 * scale, -2.5 * scale - off], "v": [1.0, -1.0], **tols},
         np.maximum(x - 2.5 * scale, 0.0) - np.maximum(x - 2.5 * scale - off, 0.0), 2),
        ("a knot off its data point by 2·merge_tol·range is polished onto it",
         {"W": [1.0], "b": [-3.0 * scale - off], "v": [1.0], **tols}, np.maximum(x - 3.0 * scale, 0.0),
         [3.0 * scale]),
        ("a knot in a gap off by 2·merge_tol·range is polished onto the exact one",
         {"W": [1.0], "b": [-2.5 * scale - off], "v": [2.1], **tols}, 2.0 * kink, [2.5 * scale]),
        # two knots in the gap (2, 3)·scale fit exactly wherever they sit, so both polish starts end exact
        # and the documented tie rule decides: the snapped start (its knot on x = 2·scale) is kept
        ("a knot 5·merge_tol·range from a data point is snapped onto it (both starts fit exactly)",
         {"W": [1.0, 1.0], "b": [-near, -2.5 * scale], "v": [1.0, -0.5], **tols},
         np.maximum(x - near, 0.0) - 0.5 * kink, ([2.0 * scale, 2.5 * scale], 1e-6)),
    ]


def _check_documented_rules(ctx: Context, *, sabotage: bool) -> Outcome:
    original = lp_training.prune_network

    def absolute_merge(x, y, W, b, v, a, c, *, prune_tol, merge_tol):  # merge_tol not relative to the range
        return original(x, y, W, b, v, a, c, prune_tol=prune_tol, merge_tol=merge_tol / float(np.ptp(x)))

    # network_to_cpwl's default merge tolerance 1e-9 · max|t_k| (round 14: relative, no floor of 1) and
    # discrete_curvature's zero
    # threshold 1e-9 · max(σ_{i-1}, σ_i, max|y|/(x_N − x_1)), σ_j = max(|y_j|, |y_{j+1}|)/gap_j (= 1e-9 ·
    # max|y| on these unit gaps), each at 0.6 and 1.5 times itself (documented literals; both sides
    # are far from rounding: knots are exact floats here, the curvatures carry ~1e-16 relative error)
    for t0 in (1e-12, 0.3, 1000.0):
        tol = 1e-9 * t0
        for factor, knots in ((0.6, 1), (1.5, 2)):
            t1 = t0 + factor * tol
            f = network_to_cpwl(W=[1.0, 1.0], b=[-t0, -t1], v=[1.0, 1.0])
            if f.num_knots != knots:
                return Outcome("fail", f"network_to_cpwl: knots {t0} and {t1} ({factor} × the default merge "
                                       f"tolerance apart) give {f.num_knots} knots, documented {knots}",
                               {"knots": [t0, t1]})
    for scale in (1.0, 1e6):
        for factor, kept in ((0.6, False), (1.5, True)):
            y = scale * np.array([1.0, 1.0, 1.0 + factor * 1e-9])  # one curvature, factor × the threshold
            d = discrete_curvature([0.0, 1.0, 2.0], y)
            if bool(d[0] != 0.0) != kept:
                return Outcome("fail", f"discrete_curvature: a slope change of {factor} × its documented "
                                       f"zero threshold (max|y| = {scale:g}) is "
                                       f"{'kept' if d[0] else 'zeroed'}",
                               {"factor": factor, "scale": scale})
    worst, cases = 0.0, 0
    with patched(lp_training, "prune_network", absolute_merge) if sabotage else nullcontext():
        for scale in (1.0, 100.0):  # ranges 6 and 600: the rules are relative to the range, not absolute
            x = np.arange(7.0) * scale
            for label, net, y, knots in _documented_rule_cases(scale):
                f, res = lp_training.prune_network(x, y, **net)
                # exact data, an exact answer: the refit leaves rounding, ~1e-15 · N · max(|y|, |x|·|slope|)
                # (measured 1.7e-15 at range 6, 6.8e-13 at 600); a wrong knot misses by ~ its offset · jump
                bound = 1e-12 * max(1.0, float(np.max(np.abs(y))))
                fit = float(np.max(np.abs(f(x) - y)))
                knots, knot_tol = knots if isinstance(knots, tuple) else (knots, 1e-9)
                placed = isinstance(knots, int) or np.allclose(f.knots, knots, rtol=0,
                                                               atol=knot_tol * np.ptp(x))
                count = knots if isinstance(knots, int) else len(knots)
                if f.num_knots != count or not placed or fit > bound or abs(res - fit) > bound:
                    return Outcome("fail", f"range {np.ptp(x):g}: {label}: knots {f.knots.tolist()}, fit "
                                           f"{fit:.3g} (reported {res:.3g}); documented knots {knots}",
                                   {"case": label, "range": float(np.ptp(x)), "knots": f.knots.tolist()})
                worst, cases = max(worst, fit / bound), cases + 1
    return Outcome("pass", "prune_network's documented rules hold at their boundaries at ranges 6 and 600, "
                           "and the polish lands on the exact knots",
                   {"cases": cases, "max_fit_over_bound": float(f"{worst:.3g}")})


register(Claim(
    id="sparse_relu.documented_rules",
    paper=PAPER,
    source="prune_network's documented rules (our pruning and polish of the trained nets of Section 5's "
           "experiments, arXiv:2505.21791)",
    origin=Origin.IMPLEMENTATION,
    statement=(
        "On x = 0, s, ..., 6s (s = 1 and 100) prune_network applies its documented rules at their "
        "boundaries: a neuron with |v w| equal to prune_tol · max |v w| is dropped, knots at x_1 and x_N "
        "are dropped, two knots 0.5 · merge_tol · (x_N − x_1) apart merge into one and 2 · merge_tol · "
        "(x_N − x_1) apart stay two (their places are not unique); a trained knot off the exact one by 2 "
        "· merge_tol · (x_N − x_1), at a data point or in a gap, is polished onto it; a knot 5 · "
        "merge_tol · (x_N − x_1) from a data point (inside the snap range, 10 · merge_tol · (x_N − x_1)) "
        "beside a second knot in its gap, where both polish starts fit exactly, ends on the data point "
        "(the snapped start is kept unless the other fits better by more than rounding). Each result has "
        "the documented knots (to 1e-9 of the range, 1e-6 for the snapped pair, whose exact fits form a "
        "family; the count alone for the pair that stays two) and fits the data to 1e-12 · max(1, "
        "max|y|), as its reported residual says. network_to_cpwl's default merge tolerance 1e-9 · max|t| "
        "merges knots 0.6 times it apart and keeps 1.5 times apart (at t = 1e-12, 0.3 and 1000), and "
        "discrete_curvature zeroes a slope change of 0.6 times its documented threshold 1e-9 · max(σ_{i-1}, "
        "σ_i, max|y|/(x_N − x_1)), σ_j = max(|y_j|, |y_{j+1}|)/(x_{j+1} − x_j) (1e-9 · max|y| on these unit "
        "gaps), and keeps 1.5 times (max|y| = 1 and 1e6)."),
    kind=Kind.NUMERIC,
    check=partial(_check_documented_rules, sabotage=False),
    control=partial(_check_documented_rules, sabotage=True),
    control_description="merge_tol taken as absolute (not relative to the data range): at range 600 the "
                        "0.5·merge_tol·range pair stays two knots.",
))
