"""Claims of the fully dynamic p-matchoid paper (Banihashem, Goudarzi, Hajiaghayi, Jabbarzade,
Monemizadeh, NeurIPS 2025), against :mod:`algorithms.submodular`.

* ``dynamic_matchoid.ratio_identity`` (symbolic): the parameter arithmetic behind the ratio:
  1/q − 1 = (1 + c)p and 1 − q = 1/c for the paper's q, c; the ratio (1 + c)(1 + (1 + c)p)/c is
  minimized at the paper's c with value 2p + 1 + 2√(p(p+1)) = (√p + √(p+1))² =
  min_q [p/q + (p+1)/(1−q)]; p = 1 gives 3 + 2√2; Proposition 1.3's c = 1 gives 4p; and
  the implementation's ``sampling_parameters`` are these values.
* ``dynamic_matchoid.feasible`` (property): S_t is independent after every update.
* ``dynamic_matchoid.invariants`` (property): Lemmas 5.2/5.3, the invariants 1-5 after Init and
  after every update, recomputed from their definitions.
* ``dynamic_matchoid.filter_cost`` (property): FindSwaps against its definition (loops included), with
  Lemma A.10's O(log k) per matroid as an explicit bound and the early stop's exact cost.
* ``dynamic_matchoid.uniform_invariant`` (property): invariant 6, P[e_i = e | i* >= i, C_i] = 1/|B_i|,
  by an exact conditional chi-square test over many runs, with its power stated.
* ``dynamic_matchoid.approximation`` (property): Theorems 1.1/5.5 and Corollary 1.2 at every time
  step of random streams against brute-force OPT_t, p = 1, 2, 3.
* ``dynamic_matchoid.monotone_approximation`` (property): Proposition 1.3 (4p + ε), monotone f.
* ``dynamic_matchoid.queries_independent_of_n`` (rate): amortized queries per update do not grow
  with the stream length (Theorems 1.1/5.4).
* ``dynamic_matchoid.queries_vs_k`` (rate): their growth in k is within k⁴ log² k.
* ``dynamic_matchoid.function_hypotheses`` (property): the ready-made functions are what the
  theorems assume (their formulas, f >= 0, submodular, monotone where declared).
* ``dynamic_matchoid.assumptions`` (property, implementation check): every documented input condition
  of the family enforced at its boundary (just inside accepted, just outside refused, naming it).
* ``dynamic_matchoid.reference_oracles`` (property, implementation check): the matroid oracles, the
  matchoid, the counter's can_add and the brute-force OPT against their definitions, by enumeration.

Sabotages go through :func:`_patched` (a temporary replacement of one method of the run or the
oracle), so check and control run the same code path.

>>> from theorems.core import REGISTRY, coverage
>>> sorted(k for k in REGISTRY if k.startswith("dynamic_matchoid."))  # doctest: +NORMALIZE_WHITESPACE
['dynamic_matchoid.approximation', 'dynamic_matchoid.assumptions', 'dynamic_matchoid.feasible',
 'dynamic_matchoid.filter_cost', 'dynamic_matchoid.function_hypotheses', 'dynamic_matchoid.invariants',
 'dynamic_matchoid.level_count',
 'dynamic_matchoid.monotone_approximation', 'dynamic_matchoid.queries_independent_of_n',
 'dynamic_matchoid.queries_vs_k', 'dynamic_matchoid.ratio_identity', 'dynamic_matchoid.reference_oracles',
 'dynamic_matchoid.uniform_invariant']
>>> coverage("dynamic_matchoid")["uncovered"]
[]
"""

from __future__ import annotations

import copy
import itertools
import math
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache, partial

import networkx as nx
import numpy as np
import sympy
from hypothesis import strategies as st

from algorithms import solve
from algorithms.core import WORKING_MAX, WORKING_MIN
from algorithms.submodular import (
    BruteForce,
    Coverage,
    DirectedCut,
    DynamicMatchoid,
    DynamicMatchoidMaximizer,
    FacilityLocation,
    GraphCut,
    GraphicMatroid,
    LaminarMatroid,
    LogDet,
    Matchoid,
    MatchoidMaximization,
    PartitionMatroid,
    RecomputeFromScratch,
    UniformMatroid,
    UpdateStream,
    sampling_parameters,
)
from algorithms.submodular import dynamic_matchoid as dynamic_module
from algorithms.submodular import oracle as oracle_module
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import Boundary, boundary_outcome
from theorems.core.certificates import CannotProve, Certificate, Method, Refuted, Rejected
from theorems.core.evidence import fact, figure, property_outcome, prove_zero
from theorems.core.rates import rate_outcome
from theorems.core.sabotage import patched

PAPER = "dynamic_matchoid"
SOURCE = ("Banihashem, Goudarzi, Hajiaghayi, Jabbarzade, Monemizadeh, Non-monotone Submodular "
          "Optimization: p-Matchoid Constraints and Fully Dynamic Setting, NeurIPS 2025")

register_results(PAPER, [
    Result("Theorem 1.1", "a dynamic algorithm keeps a (2p + 2√(p(p+1)) + 1 + ε)-approximate independent "
           "set at every time with expected amortized O(ε⁻³ p k⁴ log² k) queries per update", True),
    Result("Corollary 1.2", "for a matroid (or cardinality) constraint of rank k: 5.82 + ε with "
           "O(ε⁻³ k⁴ log² k) queries per update", True),
    Result("Proposition 1.3", "for monotone f the adapted algorithm is (4p + ε)-approximate with the same "
           "query bound", True),
    Result("Lemma 5.2", "after the offline construction (Init) all six invariants hold", True),
    Result("Lemma 5.3", "insertions and deletions preserve the invariants", True),
    Result("Theorem 5.4", "each insertion or deletion costs O(ε⁻³ p k⁴ log² k) oracle queries in "
           "expectation", True),
    Result("Theorem 5.5", "under the invariants, (2p + 2√(p(p+1)) + 1 + ε) f(A_{i*}) >= OPT for the "
           "output independent set", True),
    Result("Lemma A.11", "(appendix; the depth bound behind Theorem 5.4) every level raises w(A_i) by at "
           "least the filter threshold and w(A_{i*}) <= k·MAX, so i* = O(k²/ε)", True),
])


# ---- certificates: every coin outcome enumerated, exact arithmetic -----------------------------
# Fixed small instances on 5 elements whose singletons f({e}) are all equal, so that MAX = f({e}) is the
# paper's MAX for every present set (Algorithm 1 with MAX known, one run: no MAX-guess runs needed).
_EXACT_N = 5
_EXACT_EPS = Fraction(1, 10)
_EXACT_INSTANCES = {
    # directed cuts whose every vertex has out-weight 6 (f({v}) = 6), found by a search for instances where
    # the filter swaps elements out (32 and 8 of the chain steps do); non-monotone
    "dcut_uniform2": {"f": "dcut", "monotone": False, "matroids": [["uniform", 2]], "k": 2,
                      "arcs": [[0, 2, 2], [0, 4, 4], [1, 2, 1], [1, 3, 4], [1, 4, 1], [2, 1, 3], [2, 3, 3],
                               [3, 0, 2], [3, 1, 1], [3, 2, 2], [3, 4, 1], [4, 0, 1], [4, 1, 1], [4, 2, 4]]},
    # p = 2: one element per parity class, one per block {0, 1}, {2, 3}, {4}
    "dcut_partitions": {"f": "dcut", "monotone": False, "k": 2,
                        "matroids": [["partition", [0, 1, 0, 1, 0]], ["partition", [0, 0, 1, 1, 2]]],
                        "arcs": [[0, 1, 4], [0, 2, 1], [0, 3, 1], [1, 0, 1], [1, 2, 2], [1, 3, 3], [2, 0, 2],
                                 [2, 1, 3], [2, 4, 1], [3, 0, 2], [3, 1, 2], [3, 2, 1], [3, 4, 1], [4, 1, 1],
                                 [4, 2, 1], [4, 3, 4]]},
    # coverage of 2-sets around a 5-cycle of items (f({e}) = 2), monotone; p = 1 and p = 2
    "cover_c5_uniform2": {"f": "cover", "sets": [[i, (i + 1) % 5] for i in range(5)], "monotone": True,
                          "matroids": [["uniform", 2]], "k": 2},
    "cover_c5_partitions": {"f": "cover", "sets": [[i, (i + 1) % 5] for i in range(5)], "monotone": True,
                            "matroids": [["partition", [0, 1, 0, 1, 0]], ["partition", [0, 0, 1, 1, 2]]],
                            "k": 2},
}


def _exact_value(spec: dict, subset) -> int:
    """f(S) from the instance's definition: the weight of the arcs leaving S, or the items covered."""
    if spec["f"] == "dcut":
        return sum(w for u, v, w in spec["arcs"] if u in subset and v not in subset)
    return len({item for e in subset for item in spec["sets"][e]})


def _exact_independent(spec: dict, j: int, subset) -> bool:
    """Independence in matroid j from its definition (uniform: size; partition: one per block)."""
    kind, data = spec["matroids"][j]
    if kind == "uniform":
        return len(subset) <= data
    blocks = [data[e] for e in subset]
    return len(blocks) == len(set(blocks))


class _Quadratic:
    """a + b·√m with a, b rational (m = p(p + 1), not a square): the field holding q, c and the ratio."""

    __slots__ = ("a", "b", "m")

    def __init__(self, a, b=0, m: int = 2) -> None:
        self.a, self.b, self.m = Fraction(a), Fraction(b), m

    def __add__(self, other):
        other = other if isinstance(other, _Quadratic) else _Quadratic(other, 0, self.m)
        return _Quadratic(self.a + other.a, self.b + other.b, self.m)

    def __sub__(self, other):
        other = other if isinstance(other, _Quadratic) else _Quadratic(other, 0, self.m)
        return _Quadratic(self.a - other.a, self.b - other.b, self.m)

    def __mul__(self, other):
        other = other if isinstance(other, _Quadratic) else _Quadratic(other, 0, self.m)
        return _Quadratic(self.a * other.a + self.m * self.b * other.b, self.a * other.b + self.b * other.a,
                          self.m)

    def sign(self) -> int:
        """The exact sign: compare a² with m·b² when a and b differ in sign."""
        sa, sb = (self.a > 0) - (self.a < 0), (self.b > 0) - (self.b < 0)
        if sa == sb or sb == 0:
            return sa
        if sa == 0:
            return sb
        return sa if self.a * self.a > self.m * self.b * self.b else sb

    def __float__(self) -> float:
        return float(self.a) + float(self.b) * math.sqrt(self.m)


def _exact_parameters(p: int, monotone: bool) -> dict:
    """q, c and the ratio of the paper as exact numbers: s = √(p(p+1)), q = 1 − s/(p+1) (= 1/(p + 1 + s)),
    c = s/p, ratio 2p + 1 + 2s; monotone (Proposition 1.3): q = 1/(2p + 1), c = 1, ratio 4p."""
    m = p * (p + 1)
    if monotone:
        return {"q": _Quadratic(Fraction(1, 2 * p + 1), 0, m), "c": _Quadratic(1, 0, m),
                "ratio": _Quadratic(4 * p, 0, m)}
    return {"q": _Quadratic(1, Fraction(-1, p + 1), m), "c": _Quadratic(0, Fraction(1, p), m),
            "ratio": _Quadratic(2 * p + 1, 2, m)}


def _p_of(spec: dict) -> int:
    return len(spec["matroids"])  # every element lies in every matroid of these instances


def _exact_filter(spec: dict, members: list, weights: dict, element, c: _Quadratic, threshold: Fraction):
    """The filter of level i from its definition: (U(e), Δ(e | A)) when e survives, else None.
    U(e): per matroid where A + e is dependent, the lightest element (first in selection order among
    equal weights) whose removal restores independence; e survives iff Δ >= max((1 + c)·w(U), τ)."""
    if element in weights:
        return None
    gain = _exact_value(spec, set(members) | {element}) - _exact_value(spec, set(members))
    if gain < threshold:
        return None
    swaps: list = []
    for j in range(len(spec["matroids"])):
        if _exact_independent(spec, j, set(members) | {element}):
            continue
        fixes = [x for x in members if _exact_independent(spec, j, (set(members) - {x}) | {element})]
        if not fixes:
            return None
        lightest = min(fixes, key=lambda x: weights[x])  # min keeps the first of equal weights
        if lightest not in swaps:
            swaps.append(lightest)
    heavy = (c + 1) * sum(weights[x] for x in swaps)
    if (_Quadratic(gain, 0, c.m) - heavy).sign() < 0 or gain < threshold:
        return None
    return swaps, gain


def _exact_chains(spec: dict, sample: tuple, c: _Quadratic, threshold: Fraction) -> list:
    """Init on the sampled level 0 B₀ = ``sample``, from the definitions: every chain of uniform draws
    e_i ∈ B_i with its exact probability Π 1/|B_i|; each chain as (state, probability, f(A_top))."""
    out = []

    def grow(levels: list, members: list, weights: dict, survivors: tuple, prob: Fraction) -> None:
        passing = {}
        for e in survivors:
            found = _exact_filter(spec, members, weights, e, c, threshold)
            if found is not None:
                passing[e] = found
        if not passing:
            out.append((tuple(levels), prob, _exact_value(spec, set(members))))
            return
        chosen_set = tuple(sorted(passing))
        for e in chosen_set:
            swaps, gain = passing[e]
            kept = [x for x in members if x not in swaps] + [e]
            new_weights = {x: weights[x] for x in kept if x != e}
            new_weights[e] = gain
            level = (chosen_set, e, tuple((x, int(new_weights[x])) for x in kept))
            grow([*levels, level], kept, new_weights, chosen_set, prob / len(chosen_set))

    grow([(tuple(sorted(sample)), None, ())], [], {}, tuple(sorted(sample)), Fraction(1))
    return out


def _state_text(levels) -> str:
    """A state as text: per level 'B/e/x:w,x:w' (B sorted, A in selection order), levels joined by ';'."""
    parts = []
    for survivors, chosen, members in levels:
        parts.append("".join(map(str, survivors)) + "/" + ("" if chosen is None else str(chosen)) + "/"
                     + ",".join(f"{x}:{w}" for x, w in members))
    return ";".join(parts)


def _subsets(mask: int) -> list[int]:
    return [s for s in range(mask + 1) if s & mask == s]


def _elements(mask: int) -> tuple:
    return tuple(e for e in range(_EXACT_N) if mask >> e & 1)


def _init_laws(spec: dict) -> dict:
    """B₀ (bitmask) -> its chains; the law of Init on V is Σ_{B₀ ⊆ V} q^|B₀|(1 − q)^{|V∖B₀|}·chains(B₀)."""
    params = _exact_parameters(_p_of(spec), spec["monotone"])
    threshold = _EXACT_EPS * max(_exact_value(spec, {e}) for e in range(_EXACT_N)) / (2 * spec["k"])
    return {b: _exact_chains(spec, _elements(b), params["c"], threshold) for b in range(1 << _EXACT_N)}


def _poly_at(coefficients, x: _Quadratic) -> _Quadratic:
    total = _Quadratic(0, 0, x.m)
    for coefficient in reversed(coefficients):
        total = total * x + Fraction(coefficient)
    return total


def _bernstein(a: int, b: int) -> list[Fraction]:
    """Coefficients of q^a (1 − q)^b in powers of q."""
    return [Fraction(0)] * a + [Fraction(math.comb(b, i) * (-1) ** i) for i in range(b + 1)]


def _poly_add(x: list, y: list) -> list:
    n = max(len(x), len(y))
    x, y = list(x) + [Fraction(0)] * (n - len(x)), list(y) + [Fraction(0)] * (n - len(y))
    out = [a + b for a, b in zip(x, y, strict=True)]
    while len(out) > 1 and out[-1] == 0:
        out.pop()
    return out


def _exact_opt(spec: dict, mask: int) -> int:
    """OPT(V): the largest f over subsets of V independent in every matroid (brute force)."""
    return max(_exact_value(spec, set(_elements(s))) for s in _subsets(mask)
               if all(_exact_independent(spec, j, set(_elements(s))) for j in range(len(spec["matroids"]))))


class _Branch(Exception):
    """Raised by the scripted generator at a coin the replayed path does not fix yet."""

    def __init__(self, options: int) -> None:
        super().__init__(options)
        self.options = options


class _Tape:
    """A stand-in for the run's numpy Generator that replays a path of coin outcomes and keeps the
    path's probability as a polynomial in q (a list of Fractions): ``random()`` returns a symbolic
    uniform U whose comparisons ``U >= q`` (Insert's rate coin) and ``U·n < 1`` (the promotion coin)
    branch; ``integers(n)`` branches n ways, 1/n each."""

    def __init__(self, path: tuple, q: float) -> None:
        self.path, self.position, self.q = path, 0, q
        self.prob = [Fraction(1)]

    def _take(self, options: list) -> int:
        if self.position == len(self.path):
            raise _Branch(len(options))
        index = self.path[self.position]
        self.position += 1
        self.prob = _poly_mul(self.prob, options[index])
        return index

    def random(self) -> "_Uniform":
        return _Uniform(self)

    def integers(self, n: int) -> int:
        return self._take([[Fraction(1, int(n))]] * int(n))


class _Uniform:
    def __init__(self, tape: _Tape, scale: int = 1) -> None:
        self.tape, self.scale = tape, scale

    def __ge__(self, other: float) -> bool:  # the rate coin: rejected (U >= q) with probability 1 − q
        if self.scale != 1 or other != self.tape.q:
            raise AssertionError(f"unexpected comparison U·{self.scale} >= {other}")
        return self.tape._take([[Fraction(1), Fraction(-1)], [Fraction(0), Fraction(1)]]) == 0

    def __mul__(self, n: int) -> "_Uniform":
        return _Uniform(self.tape, self.scale * int(n))

    def __lt__(self, other: float) -> bool:  # the promotion coin: U·|B_i| < 1 with probability 1/|B_i|
        if other != 1.0 or self.scale < 1:
            raise AssertionError(f"unexpected comparison U·{self.scale} < {other}")
        if self.scale == 1:
            return True
        return self.tape._take([[Fraction(1, self.scale)], [Fraction(self.scale - 1, self.scale)]]) == 0


def _poly_mul(x: list, y: list) -> list:
    out = [Fraction(0)] * (len(x) + len(y) - 1)
    for i, a in enumerate(x):
        for j, b in enumerate(y):
            out[i + j] += a * b
    while len(out) > 1 and out[-1] == 0:
        out.pop()
    return out


def _run_state(run) -> tuple:
    """The run's state as the recheck writes it: per level (B sorted, e, A with integer weights)."""
    levels = []
    for level in run.levels:
        members = tuple((x, int(w)) for x, w in level.weights.items())
        if any(w != int(w) for w in level.weights.values()):
            raise CannotProve("a weight is not an integer: the instance's values are not exact")
        levels.append((tuple(sorted(level.survivors.items)), level.chosen, members))
    return tuple(levels)


def _clone_run(run):
    run._journal = []
    return copy.deepcopy(run, {id(run.oracle): run.oracle, id(run.rng): None})


def _enumerate_update(law: dict, action: str, element, singleton: float, q: float) -> tuple[dict, int]:
    """Apply one update to every state of ``law`` ({state: (run, probability polynomial)}) under every
    coin outcome; states that coincide are merged, their probabilities added. Returns the new law and
    the number of outcome paths run."""
    out: dict = {}
    paths = 0
    for run, prob in law.values():
        stack: list[tuple] = [()]
        while stack:
            path = stack.pop()
            clone = _clone_run(run)
            clone.rng = tape = _Tape(path, q)
            try:
                clone.insert(element, singleton) if action == "insert" else clone.delete(element)
            except _Branch as branch:
                stack.extend((*path, i) for i in range(branch.options))
                continue
            paths += 1
            state = _run_state(clone)
            joint = _poly_mul(prob, tape.prob)
            if state in out:
                out[state] = (out[state][0], _poly_add(out[state][1], joint))
            else:
                out[state] = (clone, joint)
    return out, paths


def _build_exact(spec: dict):
    """(f, matchoid) of our library for an exact instance."""
    if spec["f"] == "dcut":
        w = np.zeros((_EXACT_N, _EXACT_N))
        for u, v, weight in spec["arcs"]:
            w[u, v] = weight
        f = DirectedCut(w)
    else:
        f = Coverage(spec["sets"])
    matroids = []
    for kind, data in spec["matroids"]:
        matroids.append(UniformMatroid(data) if kind == "uniform"
                        else PartitionMatroid({e: data[e] for e in range(_EXACT_N)}, 1))
    matchoid = Matchoid(matroids, rank=spec["k"])
    if matchoid.rank != spec["k"] or matchoid.p != _p_of(spec):
        raise CannotProve(f"instance: rank {matchoid.rank}, p {matchoid.p} differ from the spec")
    return f, matchoid


@lru_cache(maxsize=8)
def _dynamic_laws(name: str) -> tuple[dict, dict]:
    """Our implementation's law of the run after every stream, by closure over the present set V:
    from V = ∅ apply every insertion and deletion to the law of V under every coin outcome; the first
    law found for each V is recorded and every other way of reaching V must give the same law (then
    every stream of any length ends in the recorded law of its V_t). Returns ({V: {state: poly}}, stats)."""
    spec = _EXACT_INSTANCES[name]
    f, matchoid = _build_exact(spec)
    oracle = oracle_module.CountingOracle(f, matchoid)
    q, c = sampling_parameters(matchoid.p, spec["monotone"])
    max_value = max(f(frozenset({e})) for e in range(_EXACT_N))
    base = dynamic_module._Run(oracle, float(_EXACT_EPS), max_value, q, c, f(frozenset()), None)
    laws = {0: {_run_state(base): (base, [Fraction(1)])}}
    queue, transitions, paths = [0], 0, 0
    while queue:
        present = queue.pop(0)
        for e in range(_EXACT_N):
            inserting = not present >> e & 1
            target = present | 1 << e if inserting else present & ~(1 << e)
            new, count = _enumerate_update(laws[present], "insert" if inserting else "delete", e,
                                           f(frozenset({e})), q)
            transitions, paths = transitions + 1, paths + count
            total = [Fraction(0)]
            for _, prob in new.values():
                total = _poly_add(total, prob)
            if total != [Fraction(1)]:
                raise CannotProve(f"{name}: total probability {total} after an update from V = {present}")
            if target not in laws:
                laws[target] = new
                queue.append(target)
            elif {s: p for s, (_, p) in new.items()} != {s: p for s, (_, p) in laws[target].items()}:
                raise CannotProve(f"{name}: the law at V = {_elements(target)} depends on the stream")
    out = {v: {state: prob for state, (_, prob) in law.items()} for v, law in laws.items()}
    return out, {"present_sets": len(out), "transitions": transitions, "coin_paths": paths,
                 "states": sum(len(law) for law in out.values())}


def _fraction_text(x: Fraction) -> str:
    return f"{x.numerator}/{x.denominator}"


def _law_of_init(chains: dict, present: int) -> dict:
    """{state: probability polynomial} of Init on V = ``present`` from the chains of every B₀ ⊆ V."""
    law: dict = {}
    size = bin(present).count("1")
    for sample in _subsets(present):
        a = bin(sample).count("1")
        mix = _bernstein(a, size - a)
        for levels, prob, _ in chains[sample]:
            law[levels] = _poly_add(law.get(levels, [Fraction(0)]), [prob * x for x in mix])
    return law


def _init_average(chains: dict, present: int, weight) -> list:
    """Σ over the states of Init on V of probability × weight(f value), a polynomial in q (exact)."""
    total = [Fraction(0)]
    size = bin(present).count("1")
    for sample in _subsets(present):
        a = bin(sample).count("1")
        mean = sum((prob * weight(value) for _, prob, value in chains[sample]), Fraction(0))
        total = _poly_add(total, [mean * x for x in _bernstein(a, size - a)])
    return total


def _expected_of_init(chains: dict, present: int) -> list:
    """E[f(A_{i*})] under Init on V as a polynomial in q (exact coefficients)."""
    return _init_average(chains, present, lambda value: value)


def _total_is_one(chains: dict, present: int) -> bool:
    return _init_average(chains, present, lambda value: 1) == [Fraction(1)]


def _prove_approximation(names: tuple) -> dict:
    """For each instance: our implementation's E f(S_t) as a polynomial in q and OPT for every present
    set (the closure covers every stream), with the ratio inequality decided exactly."""
    proof = {}
    for name in names:
        spec = _EXACT_INSTANCES[name]
        laws, stats = _dynamic_laws(name)
        params = _exact_parameters(_p_of(spec), spec["monotone"])
        bound = params["ratio"] + _EXACT_EPS
        expected, optimum = {}, {}
        for present in range(1 << _EXACT_N):
            poly = [Fraction(0)]
            for levels, prob in laws[present].items():
                top = {x for x, _ in levels[-1][2]}
                poly = _poly_add(poly, [_exact_value(spec, top) * x for x in prob])
            opt = _exact_opt(spec, present)
            if (bound * _poly_at(poly, params["q"]) - opt).sign() < 0:
                raise Refuted({"instance": name, "present": list(_elements(present))},
                              f"{name}: E f(S) < OPT/(ratio + ε) at V = {_elements(present)}")
            expected[str(present)] = [_fraction_text(x) for x in poly]
            optimum[str(present)] = opt
        proof[name] = {"expected_value": expected, "opt": optimum,
                       "enumeration": f"{stats['present_sets']} present sets, {stats['transitions']} "
                                      f"updates, {stats['coin_paths']} coin paths, {stats['states']} states"}
    return proof


def _recheck_approximation(proof: dict, names: tuple) -> str:
    """Init's law from the definitions (every sample B₀ and chain of uniform draws, exact), its total
    probability exactly 1, E f(A_{i*}) equal to our implementation's, OPT by brute force, and
    (ratio + ε)·E f >= OPT decided in Q(√(p(p+1)))."""
    if sorted(proof) != sorted(names):
        raise Rejected(f"instances {sorted(proof)} are not {sorted(names)}")
    worst = {}
    for name in names:
        spec, part = _EXACT_INSTANCES[name], proof[name]
        chains = _init_laws(spec)
        params = _exact_parameters(_p_of(spec), spec["monotone"])
        bound = params["ratio"] + _EXACT_EPS
        if sorted(part["expected_value"], key=int) != [str(v) for v in range(1 << _EXACT_N)]:
            raise Rejected(f"{name}: not every present set is listed")
        worst[name] = 0.0
        for present in range(1 << _EXACT_N):
            if not _total_is_one(chains, present):
                raise Rejected(f"{name}: Init's total probability is not 1 at V = {_elements(present)}")
            mine = _expected_of_init(chains, present)
            theirs = [Fraction(x) for x in part["expected_value"][str(present)]]
            if mine != _poly_add(theirs, [Fraction(0)]):
                raise Rejected(f"{name}: E f(S) at V = {_elements(present)} is {theirs}, "
                               f"Init gives {mine}")
            opt = _exact_opt(spec, present)
            if part["opt"][str(present)] != opt:
                raise Rejected(f"{name}: OPT at V = {_elements(present)} is {opt}, "
                               f"not {part['opt'][str(present)]}")
            value = _poly_at(mine, params["q"])
            if (bound * value - opt).sign() < 0:
                raise Rejected(f"{name}: (ratio + ε)·E f(S) < OPT at V = {_elements(present)}")
            if opt:
                worst[name] = max(worst[name], opt / float(value))
    return ("E f(S_t) equals Init's exact law on all 32 present sets and (ratio + ε)·E f(S_t) >= OPT_t; "
            "worst OPT/E f: " + ", ".join(f"{k} {v:.4f}" for k, v in worst.items()))


def _refute_tight(names: tuple) -> dict:
    """A present set where OPT/E f(S) exceeds 0.99/q (the worst ratio found is 1/q, at a singleton)."""
    name = names[0]
    return {"instance": name, "present": [0], "stream": [["insert", 0]]}


def _recheck_tight(witness: dict, names: tuple) -> str:
    name = witness["instance"]
    if name not in names:
        raise Rejected(f"{name} is not one of {names}")
    spec = _EXACT_INSTANCES[name]
    present = sum(1 << e for e in witness["present"])
    if [["insert", e] for e in witness["present"]] != witness["stream"]:
        raise Rejected("the stream must insert the present set")
    params = _exact_parameters(_p_of(spec), spec["monotone"])
    value = _poly_at(_expected_of_init(_init_laws(spec), present), params["q"])
    opt = _exact_opt(spec, present)
    # OPT > (0.99/q)·E f  ⟺  q·OPT − 0.99·E f > 0
    if (params["q"] * opt - value * Fraction(99, 100)).sign() <= 0:
        raise Rejected(f"OPT/E f = {opt / float(value):.4f} is not above 0.99/q = "
                       f"{0.99 / float(params['q']):.4f}")
    return (f"{name}, V = {witness['present']}: OPT = {opt}, E f(S) = {float(value):.4f}, OPT/E f = "
            f"{opt / float(value):.4f} > 0.99/q = {0.99 / float(params['q']):.4f}")


def _prove_laws(names: tuple) -> dict:
    """Our implementation's law of the run for every present set (states as text, each probability
    r·q^|B₀|(1 − q)^{|V∖B₀|} stored as r)."""
    proof = {}
    for name in names:
        laws, stats = _dynamic_laws(name)
        part = {}
        for present, law in laws.items():
            size = bin(present).count("1")
            entries = {}
            for levels, prob in law.items():
                a = len(levels[0][0])
                ratio = prob[a] if len(prob) > a else Fraction(0)
                if _poly_add([ratio * x for x in _bernstein(a, size - a)], [Fraction(0)]) != prob:
                    raise CannotProve(f"{name}: a state's probability is not r·q^a(1 − q)^b: {prob}")
                entries[_state_text(levels)] = _fraction_text(ratio)
            part[str(present)] = entries
        proof[name] = {"laws": part, "enumeration": f"{stats['present_sets']} present sets, "
                                                    f"{stats['transitions']} updates, {stats['coin_paths']} "
                                                    f"coin paths, {stats['states']} states"}
    return proof


def _recheck_laws(proof: dict, names: tuple) -> str:
    """Every listed law equals Init's law on V from the definitions, state by state, exactly; each
    sums to exactly 1 (so the conditional law of e_i given C_i is uniform on B_i: Init draws it so)."""
    if sorted(proof) != sorted(names):
        raise Rejected(f"instances {sorted(proof)} are not {sorted(names)}")
    states = 0
    for name in names:
        spec = _EXACT_INSTANCES[name]
        chains = _init_laws(spec)
        laws = proof[name]["laws"]
        if sorted(laws, key=int) != [str(v) for v in range(1 << _EXACT_N)]:
            raise Rejected(f"{name}: not every present set is listed")
        for present in range(1 << _EXACT_N):
            if not _total_is_one(chains, present):
                raise Rejected(f"{name}: Init's total probability is not 1 at V = {_elements(present)}")
            expected = {}
            for sample in _subsets(present):
                for levels, prob, _ in chains[sample]:
                    expected[_state_text(levels)] = _fraction_text(prob)
            if laws[str(present)] != expected:
                missing = sorted(set(expected) ^ set(laws[str(present)]))[:2]
                changed = [s for s in expected if laws[str(present)].get(s, expected[s]) != expected[s]][:2]
                raise Rejected(f"{name}: the law at V = {_elements(present)} differs from Init's "
                               f"(states {missing}, probabilities of {changed})")
            states += len(expected)
    return (f"the law of the run after every stream equals Init's exact law on every present set "
            f"({states} states over {len(names)} instances, each law of total probability 1)")


def _parse_state(text: str) -> list:
    levels = []
    for part in text.split(";"):
        survivors, chosen, members = part.split("/")
        levels.append((tuple(int(x) for x in survivors), None if chosen == "" else int(chosen),
                       [(int(x.split(":")[0]), int(x.split(":")[1])) for x in members.split(",") if x]))
    return levels


def _state_invariants(spec: dict, present: int, text: str, memo: dict | None = None) -> list[str]:
    """Invariants 1-5 of a state recomputed from their definitions (empty list: all hold); ``memo`` keeps
    filter decisions across the states of one recheck (many share their lower levels)."""
    memo = {} if memo is None else memo
    params = _exact_parameters(_p_of(spec), spec["monotone"])
    threshold = _EXACT_EPS * max(_exact_value(spec, {e}) for e in range(_EXACT_N)) / (2 * spec["k"])
    levels = _parse_state(text)
    broken = []
    if not set(levels[0][0]) <= set(_elements(present)) or levels[0][1] is not None or levels[0][2]:
        broken.append("level 0: B₀ ⊆ V, no e₀, A₀ = ∅")
    for i in range(1, len(levels) + 1):
        previous_members = [x for x, _ in levels[i - 1][2]]
        previous_weights = dict(levels[i - 1][2])
        passing = {}
        for e in levels[i - 1][0]:
            key = (tuple(levels[i - 1][2]), e)
            if key not in memo:
                memo[key] = _exact_filter(spec, previous_members, previous_weights, e, params["c"], threshold)
            if memo[key] is not None:
                passing[e] = memo[key]
        if i == len(levels):
            if passing:
                broken.append(f"terminator: {sorted(passing)} pass the filter above the top level")
            break
        survivors, chosen, members = levels[i]
        if set(survivors) != set(passing):
            broken.append(f"survivor {i}: B_{i} = {survivors}, the filter of B_{i-1} gives {sorted(passing)}")
            continue
        if chosen not in survivors:
            broken.append(f"starter {i}: e_{i} = {chosen} not in B_{i}")
            continue
        swaps, gain = passing[chosen]
        expected = [(x, previous_weights[x]) for x in previous_members if x not in swaps] + [(chosen, gain)]
        if members != expected:
            broken.append(f"weight {i}: A_{i} = {members}, A_{i-1} − U + e with w(e) = Δ gives {expected}")
        held = {x for x, _ in members}
        if not all(_exact_independent(spec, j, held) for j in range(len(spec["matroids"]))):
            broken.append(f"independent {i}: A_{i} is dependent")
    return broken


def _law_total(entries: dict, present: int) -> list:
    """Σ r·q^|B₀|(1 − q)^{|V∖B₀|} over the listed states, as a polynomial in q."""
    total = [Fraction(0)]
    size = bin(present).count("1")
    for text, ratio in entries.items():
        a = len(text.split("/", 1)[0])
        total = _poly_add(total, [Fraction(ratio) * x for x in _bernstein(a, size - a)])
    return total


def _recheck_states(proof: dict, names: tuple, *, full: bool) -> str:
    """Every listed state satisfies invariants 1-5 from their definitions (``full``) or has every Aᵢ
    independent in every matroid (not ``full``), and the listed states of each V carry total
    probability exactly 1 (so no reachable state is left out)."""
    if sorted(proof) != sorted(names):
        raise Rejected(f"instances {sorted(proof)} are not {sorted(names)}")
    count, largest = 0, 0
    for name in names:
        spec, laws = _EXACT_INSTANCES[name], proof[name]["laws"]
        if sorted(laws, key=int) != [str(v) for v in range(1 << _EXACT_N)]:
            raise Rejected(f"{name}: not every present set is listed")
        memo: dict = {}
        for present in range(1 << _EXACT_N):
            entries = laws[str(present)]
            if _law_total(entries, present) != [Fraction(1)]:
                raise Rejected(f"{name}: the states of V = {_elements(present)} do not carry probability 1")
            for text in entries:
                reachable = _state_invariants(spec, present, text, memo)  # the listed states are Init's
                if full or reachable:
                    broken = reachable
                else:
                    levels = _parse_state(text)
                    broken = [f"A_{i} dependent" for i, level in enumerate(levels)
                              if not all(_exact_independent(spec, j, {x for x, _ in level[2]})
                                         for j in range(len(spec["matroids"])))]
                    if not set(levels[0][0]) <= set(_elements(present)):
                        broken.append("B₀ ⊄ V")
                if broken:
                    raise Rejected(f"{name}, V = {_elements(present)}, state {text}: {broken[:2]}")
                largest = max(largest, len(_parse_state(text)[-1][2]))
            count += len(entries)
    what = "invariants 1-5 (recomputed from their definitions)" if full else "every Aᵢ independent"
    return (f"{what} on all {count} reachable states of {len(names)} instances, every present set's states "
            f"of total probability 1; largest |S_t| = {largest}")


def _find_state(names: tuple, accept) -> dict:
    for name in names:
        for present, entries in _prove_laws((name,))[name]["laws"].items():
            for text in entries:
                if accept(_EXACT_INSTANCES[name], text):
                    return {"instance": name, "present": list(_elements(int(present))), "state": text}
    raise CannotProve("no reachable state refutes the control statement")


def _swapped_weight(spec: dict, text: str) -> bool:
    levels = _parse_state(text)
    for members, chosen in ((level[2], level[1]) for level in levels[1:]):
        held = {x for x, _ in members}
        if dict(members)[chosen] != _exact_value(spec, held) - _exact_value(spec, held - {chosen}):
            return True
    return False


def _checked_state(witness: dict, names: tuple) -> tuple[dict, list]:
    """The witness's state, after checking that it is reachable: invariants 1-5 from the definitions
    (exactly the states Init gives positive probability on V)."""
    if witness.get("instance") not in names:
        raise Rejected(f"instance {witness.get('instance')!r} is not one of {names}")
    spec = _EXACT_INSTANCES[witness["instance"]]
    present = sum(1 << e for e in witness["present"])
    broken = _state_invariants(spec, present, witness["state"])
    if broken:
        raise Rejected(f"the state is not reachable: {broken[:2]}")
    return spec, _parse_state(witness["state"])


def _recheck_weight_witness(witness: dict, names: tuple) -> str:
    spec, levels = _checked_state(witness, names)
    for i, (_, chosen, members) in enumerate(levels[1:], start=1):
        held = {x for x, _ in members}
        other = _exact_value(spec, held) - _exact_value(spec, held - {chosen})
        if dict(members)[chosen] != other:
            return (f"{witness['instance']}, reachable state {witness['state']}: w(e_{i}) = "
                    f"Δ(e_{i} | A_{i-1}) = {dict(members)[chosen]} but f(A_{i}) − f(A_{i} − e_{i}) = {other}")
    raise Rejected("every weight equals f(A_i) − f(A_i − e_i) in this state")


def _recheck_capacity_witness(witness: dict, names: tuple) -> str:
    spec, levels = _checked_state(witness, names)
    size = len(levels[-1][2])
    if size <= spec["k"] - 1:
        raise Rejected(f"|S| = {size} fits the capacity k − 1 = {spec['k'] - 1}")
    return (f"{witness['instance']}, reachable state {witness['state']}: |S_t| = {size} > k − 1 = "
            f"{spec['k'] - 1}")


def _refute_uniform(names: tuple) -> dict:
    return {"instance": names[0], "stream": [["insert", 0], ["insert", 2]], "level": 1}


def _recheck_uniform_witness(witness: dict, names: tuple) -> str:
    """Insert 0, then insert 2, both kept by the rate coin (probability q² > 0): from the definitions
    both pass level 1's filter over A₀ = ∅, so C₁ has B₁ = {0, 2} with e₁ = 0 before the second
    insertion; the off-by-one coin promotes 2 with probability 1/(|B₁| − 1) = 1, not 1/|B₁| = 1/2."""
    if witness.get("instance") not in names or witness.get("stream") != [["insert", 0], ["insert", 2]]:
        raise Rejected("the witness is the stream insert 0, insert 2 on one of the instances")
    spec = _EXACT_INSTANCES[witness["instance"]]
    params = _exact_parameters(_p_of(spec), spec["monotone"])
    threshold = _EXACT_EPS * max(_exact_value(spec, {e}) for e in range(_EXACT_N)) / (2 * spec["k"])
    first = _exact_filter(spec, [], {}, 0, params["c"], threshold)
    second = _exact_filter(spec, [], {}, 2, params["c"], threshold)
    if first is None or second is None:
        raise Rejected("an element fails level 1's filter over A₀ = ∅")
    size = 2  # B₁ = {0, 2} after the second insertion
    off_by_one, uniform = Fraction(1, size - 1), Fraction(1, size)
    if off_by_one == uniform:
        raise Rejected("the two coins agree")
    return (f"{witness['instance']}: insert 0, insert 2 gives B₁ = {{0, 2}}; the off-by-one coin makes "
            f"P[e₁ = 2 | C₁] = {off_by_one}, not 1/|B₁| = {uniform}")


def _ratio_identities() -> dict:
    """The identities of ratio_identity in a = √p, b = √(p + 1) (so √(p² + p) = ab and b² = a² + 1):
    name -> (expression in a, b that must vanish, or be positive for 'convex')."""
    a, b, c = sympy.symbols("a b c", positive=True)
    p = a**2
    q = 1 / (p + a * b + 1)
    c_star = b / a  # √(1 + 1/p)
    closed = 2 * p + 1 + 2 * a * b
    ratio = (1 + c) * (1 + (1 + c) * p) / c
    q_star = a / (a + b)
    return {
        "1/q - 1 - (1 + c)p": 1 / q - 1 - (1 + c_star) * p,
        "1 - q - 1/c": 1 - q - 1 / c_star,
        "ratio(c*) - closed": ratio.subs(c, c_star) - closed,
        "ratio'(c*)": sympy.diff(ratio, c).subs(c, c_star),
        "(a + b)^2 - closed": (a + b) ** 2 - closed,
        "p/q* + (p+1)/(1-q*) - closed": p / q_star + (p + 1) / (1 - q_star) - closed,
        "monotone, c = 1: (1 + c)^2 p/c - 4p": ((1 + c) ** 2 * p / c).subs(c, 1) - 4 * p,
    }


def _prove_ratio_identity() -> dict:
    """Each identity's numerator N(a, b) (after clearing denominators) and a quotient Q with
    N = Q·(b² − a² − 1): it vanishes on the curve b² = a² + 1; plus ratio''(c) = 2(1 + p)/c³."""
    a, b, c = sympy.symbols("a b c", positive=True)
    relation = b**2 - a**2 - 1
    proof = {}
    for name, expr in _ratio_identities().items():
        numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(expr)))
        quotient, remainder = sympy.div(sympy.expand(numerator), relation, b)
        if sympy.expand(remainder) != 0:
            raise CannotProve(f"{name}: remainder {remainder} modulo b² − a² − 1")
        proof[name] = {"numerator": str(sympy.expand(numerator)),
                       "denominator": str(sympy.expand(denominator)), "quotient": str(sympy.expand(quotient))}
    ratio = (1 + c) * (1 + (1 + c) * a**2) / c
    proof["ratio''(c)"] = {"second_derivative": str(sympy.factor(sympy.diff(ratio, c, 2)))}
    return proof


def _recheck_ratio_identity(proof: dict) -> str:
    """sympy's exact rational-function arithmetic: expr·den − num cancels to 0, num − Q·(b² − a² − 1)
    expands to 0, the denominator is nonzero for a, b > 0 (a product of positive factors is checked by
    its nonnegative coefficients), and the second derivative is recomputed."""
    a, b, c = sympy.symbols("a b c", positive=True)
    names = dict(a=a, b=b, c=c)
    relation = b**2 - a**2 - 1
    identities = _ratio_identities()
    if set(proof) != set(identities) | {"ratio''(c)"}:
        raise Rejected(f"identities {sorted(proof)} are not the expected ones")
    for name, expr in identities.items():
        numerator = sympy.sympify(proof[name]["numerator"], locals=names)
        denominator = sympy.sympify(proof[name]["denominator"], locals=names)
        quotient = sympy.sympify(proof[name]["quotient"], locals=names)
        if sympy.cancel(sympy.together(expr * denominator - numerator)) != 0:
            raise Rejected(f"{name}: the numerator/denominator are not the expression's")
        if sympy.expand(numerator - quotient * relation) != 0:
            raise Rejected(f"{name}: numerator − Q·(b² − a² − 1) does not vanish")
        poly = sympy.Poly(sympy.expand(denominator), a, b)
        if poly.is_zero or any(coefficient < 0 for coefficient in poly.coeffs()):
            raise Rejected(f"{name}: the denominator {denominator} is not visibly positive for a, b > 0")
    second = sympy.sympify(proof["ratio''(c)"]["second_derivative"], locals=names)
    ratio = (1 + c) * (1 + (1 + c) * a**2) / c
    if (sympy.cancel(sympy.diff(ratio, c, 2) - second) != 0
            or sympy.cancel(second - 2 * (a**2 + 1) / c**3) != 0):
        raise Rejected("ratio''(c) is not 2(1 + p)/c³")
    return (f"{len(identities)} identities vanish modulo b² = a² + 1 (a = √p, b = √(p+1)); ratio''(c) = "
            "2(1 + p)/c³ > 0")


def _refute_ratio_identity() -> dict:
    return {"p": 1, "claimed": "2p + 1 + √(p(p+1))"}


def _recheck_ratio_witness(witness: dict) -> str:
    """At p = 1 the ratio at c* = √2 is (1 + √2)(1 + (1 + √2))/√2 = 3 + 2√2, exactly, in Q(√2)."""
    if witness.get("p") != 1:
        raise Rejected("the witness is p = 1")
    root2 = _Quadratic(0, 1, 2)
    c_star = root2  # √(1 + 1/p) at p = 1
    # ratio(c) = (1 + c)(1 + (1 + c)p)/c, times c to stay in the ring: ratio·c
    ratio_times_c = (c_star + 1) * ((c_star + 1) + 1)
    wrong = _Quadratic(3, 0, 2) + root2  # 2p + 1 + √(p(p + 1)) at p = 1
    if (ratio_times_c - wrong * c_star).sign() == 0:
        raise Rejected("the wrong closed form agrees at p = 1")
    return f"p = 1: ratio(c*)·c* = {float(ratio_times_c):.6f} but (3 + √2)·c* = {float(wrong * c_star):.6f}"


# ---- the certificates of the claims below ------------------------------------------------------
_NONMONOTONE = ("dcut_uniform2", "dcut_partitions")
_MONOTONE = ("cover_c5_uniform2", "cover_c5_partitions")
_ENUMERATION_TRUSTS = (
    "the producer's replay of our implementation's coins (a scripted generator giving every outcome its "
    "exact probability, a polynomial in q) and its merging of states equal in every level's B_i, e_i and "
    "A_i (the order of B_i's items matters only through uniform draws); the recheck recomputes Init's law "
    "from the paper's definitions with Fractions and decides inequalities in Q(√(p(p+1)))")
_INSTANCES_TEXT = (
    "two fixed 5-element instances, directed cuts with every out-weight 6 (non-monotone; found by a search "
    "for instances where the filter swaps elements out), p = 1 (at most 2 elements) and p = 2 (one element "
    "per parity class and per block {0, 1}, {2, 3}, {4}), ε = 1/10 and MAX = 6 given (Algorithm 1 with "
    "MAX known: every singleton value is 6, so MAX is the paper's MAX for every present set)")
_CLOSURE_TEXT = (
    "every oblivious stream of insertions and deletions, of any length: from V = ∅, every update applied "
    "to the recorded law of every present set V under every coin outcome lands on the recorded law of its "
    "new present set (all 32 present sets, 160 updates)")


def _certificate_states(full: bool) -> Certificate:
    if full:
        statement = (
            "Every state our implementation's run reaches satisfies invariants 1-5 recomputed from their "
            "definitions (survivor: B_i is the set of B_{i-1}'s elements passing the filter over A_{i-1}; "
            "starter: e_i ∈ B_i; weight: A_i = A_{i-1} − U_i(e_i) + e_i with w(e_i) = Δ(e_i | A_{i-1}); "
            "independent; terminator: no element of B_{i*} passes the filter over A_{i*}; B_0 ⊆ V_t), and "
            "the reached states of each present set carry probability exactly 1.")
        control = ("The weight invariant read as w(e_i) = f(A_i) − f(A_i − e_i) (the gain over the new set, "
                   "not over A_{i-1}).")
        refute, recheck_witness = (lambda: _find_state(_NONMONOTONE, _swapped_weight),
                                   lambda w: _recheck_weight_witness(w, _NONMONOTONE))
    else:
        statement = ("Every state our implementation's run reaches has every A_i, S_t = A_{i*} included, "
                     "independent in every matroid of the matchoid, and the reached states of each present "
                     "set carry probability exactly 1: S_t is independent with probability 1.")
        control = "S_t independent with one unit less capacity: |S_t| <= k − 1 = 1."
        def full_rank(spec: dict, text: str) -> bool:
            return len(_parse_state(text)[-1][2]) == spec["k"]

        refute, recheck_witness = (lambda: _find_state(_NONMONOTONE, full_rank),
                                   lambda w: _recheck_capacity_witness(w, _NONMONOTONE))
    return Certificate(
        statement=statement, scope=f"{_INSTANCES_TEXT}; {_CLOSURE_TEXT}", method=Method.ENUMERATION,
        trusts=_ENUMERATION_TRUSTS, prove=lambda: _prove_laws(_NONMONOTONE),
        recheck=lambda art: _recheck_states(art, _NONMONOTONE, full=full), control_statement=control,
        refute=refute, recheck_witness=recheck_witness)


def _certificate_approximation(monotone: bool) -> Certificate:
    names = _MONOTONE if monotone else _NONMONOTONE
    if monotone:
        instances = ("two fixed 5-element monotone instances, coverage of the 2-sets {i, i+1 mod 5} of a "
                     "5-cycle of items, p = 1 (at most 2 elements) and p = 2 (the two partition matroids of "
                     "the non-monotone instances), ε = 1/10, MAX = 2 given, Proposition 1.3's parameters "
                     "c = 1, q = 1/(2p + 1)")
        ratio = "4p + ε"
    else:
        instances, ratio = _INSTANCES_TEXT, "2p + 1 + 2√(p(p+1)) + ε"
    return Certificate(
        statement=(f"The law of our implementation's run after every stream is the law of Init on the "
                   f"present set V_t, and ({ratio})·E f(S_t) >= OPT_t for every present set: every coin "
                   "outcome enumerated with states merged and probabilities kept as exact polynomials in q, "
                   "E f(S_t) compared with Init's from the definitions, OPT_t by brute force, the inequality "
                   "decided exactly."),
        scope=f"{instances}; {_CLOSURE_TEXT}", method=Method.ENUMERATION, trusts=_ENUMERATION_TRUSTS,
        prove=lambda: _prove_approximation(names), recheck=lambda art: _recheck_approximation(art, names),
        control_statement=("OPT_t <= (0.99/q)·E f(S_t) on every stream: 0.99 times the worst ratio on these "
                           "instances, which is exactly 1/q (a single present element, kept with "
                           "probability q)"),
        refute=lambda: _refute_tight(names), recheck_witness=lambda w: _recheck_tight(w, names))


_CERTIFICATE_UNIFORM = Certificate(
    statement=("After every stream the law of our implementation's run (B_0, e_1, B_1, ..., e_{i*}, B_{i*} "
               "and the A_i) equals the law of Init on V_t: B_0 a q-sample of V_t and each e_i uniform on "
               "B_i given the levels below, state by state and exactly; hence P[e_i = e | i* >= i, C_i] = "
               "1/|B_i| "
               "for every e ∈ B_i (invariant 6), and each law has total probability exactly 1."),
    scope=f"{_INSTANCES_TEXT}; {_CLOSURE_TEXT}", method=Method.ENUMERATION, trusts=_ENUMERATION_TRUSTS,
    prove=lambda: _prove_laws(_NONMONOTONE), recheck=lambda art: _recheck_laws(art, _NONMONOTONE),
    control_statement=("The same with Insert's promotion coin 1/(|B_i| − 1) (the size before the new element "
                       "joined): e_i still uniform on B_i given C_i."),
    refute=lambda: _refute_uniform(_NONMONOTONE),
    recheck_witness=lambda w: _recheck_uniform_witness(w, _NONMONOTONE))

_CERTIFICATE_RATIO = Certificate(
    statement=("For every p > 0, q = 1/(p + √(p² + p) + 1) and c = √(1 + 1/p) satisfy 1/q − 1 = (1 + c)p and "
               "1 − q = 1/c; R(c) = (1 + c)(1 + (1 + c)p)/c has R'(c) = 0 at that c and R''(c) = 2(1 + p)/c³ "
               "> 0 on c > 0 (so it is R's minimizer there), with R(c) = 2p + 1 + 2√(p(p+1)) = "
               "(√p + √(p+1))² = p/q* + (p+1)/(1 − q*) at q* = √p/(√p + √(p+1)); with c = 1, "
               "(1 + c)²p/c = 4p (Proposition 1.3)."),
    scope="every real p > 0: identities in a = √p, b = √(p + 1), reduced modulo b² = a² + 1",
    method=Method.EXACT_ALGEBRA,
    trusts=("sympy's exact arithmetic over Q (expand, cancel): each identity's numerator is a multiple of "
            "b² − a² − 1 and its denominator a nonzero polynomial with nonnegative coefficients "
            "(positive for a, b > 0)"),
    prove=_prove_ratio_identity, recheck=_recheck_ratio_identity,
    control_statement="The minimum value 2p + 1 + √(p(p+1)) (the √ term's factor 2 dropped).",
    refute=_refute_ratio_identity, recheck_witness=_recheck_ratio_witness)


def _heaviest_swap(self, level, element, gain=None):
    """Sabotaged DependencyDetection: the heaviest circuit element instead of the lightest."""
    removal = []
    for j in self.oracle.matchoid.matroids_of(element):
        ground = self.oracle.matchoid.matroids[j].ground
        part = [x for x in level.weights if ground is None or x in ground]
        if self.oracle.independent(j, frozenset(part) | {element}):
            continue
        fixes = [x for x in part if self.oracle.independent(j, (frozenset(part) - {x}) | {element})]
        if not fixes:
            return None
        heaviest = max(fixes, key=level.weights.__getitem__)
        if heaviest not in removal:
            removal.append(heaviest)
    return tuple(removal)


def _always_independent(self, j, subset) -> bool:
    """Sabotaged independence oracle: every set passes (an insert that skips the check)."""
    self._independence_queries += 1  # the counter is sealed: its private field
    return True


# ---- small instances: p = 1, 2, 3 on ten elements ---------------------------------------------
N_SMALL = 10


def _small_instance(p: int, seed: int, monotone: bool = False):
    """(f, matchoid) on the elements 0..9: p = 1 cardinality/laminar, 2 partitions, 3 graphic+."""
    rng = np.random.default_rng([seed, p, int(monotone)])
    n = N_SMALL
    if monotone:
        kind = seed % 3
        if kind == 0:
            f = Coverage([set(rng.choice(12, size=int(rng.integers(1, 5)), replace=False).tolist())
                          for _ in range(n)])
        elif kind == 1:
            f = FacilityLocation(rng.random((6, n)))
        else:
            x = rng.normal(size=(n, 3))
            f = LogDet(x @ x.T)
    else:
        kind = seed % 3
        if kind == 0:
            w = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.6), 1)
            f = GraphCut(w + w.T)
        elif kind == 1:
            f = DirectedCut(rng.random((n, n)) * (rng.random((n, n)) < 0.5) * (1 - np.eye(n)))
        else:
            x = rng.normal(size=(n, 4))
            f = LogDet(x @ x.T, monotone=False)
    if p == 1:
        if seed % 2 == 0:
            matchoid = Matchoid([UniformMatroid(3)])
        else:
            matchoid = Matchoid([LaminarMatroid([set(range(n)), set(range(5)), {0, 1}], [4, 2, 1])])
    elif p == 2:
        left = PartitionMatroid({e: e % 3 for e in range(n)}, 1)
        right = PartitionMatroid({e: e // 4 for e in range(n)}, {0: 1, 1: 2, 2: 1})
        matchoid = Matchoid([left, right])
    else:
        edges = [(u, v) for u in range(5) for v in range(u + 1, 5)]  # K5: its 10 edges
        graphic = GraphicMatroid({e: edges[e] for e in range(n)})
        colours = PartitionMatroid({e: int(rng.integers(3)) for e in range(n)}, 2)
        matchoid = Matchoid([graphic, colours, UniformMatroid(3)])
    assert matchoid.p == p
    return f, matchoid


def _opt(f, matchoid, present: frozenset, cache: dict) -> tuple[float, frozenset]:
    if present not in cache:
        sol = solve(MatchoidMaximization(f, matchoid, sorted(present)), BruteForce())
        cache[present] = (sol.value, sol.original["solution"])
    return cache[present]


def _oblivious_stream(f, matchoid, length: int, rng: np.random.Generator, cache: dict) -> list:
    """Random updates fixed in advance; half the deletions remove an element of OPT_t's optimal
    set (which the maintained solution tends to hold), the rest a random present element; then a
    drain: an element of the current optimal set is deleted until two elements are left (each
    deletion tends to hit the maintained solution, which must be repaired)."""
    present: set = set()
    updates = []
    for _ in range(length):
        absent = [e for e in range(N_SMALL) if e not in present]
        if absent and (not present or rng.random() < 0.55):
            e = int(rng.choice(absent))
            present.add(e)
            updates.append(("insert", e))
            continue
        best = _opt(f, matchoid, frozenset(present), cache)[1]
        pool = sorted(best) if best and rng.random() < 0.5 else sorted(present)
        e = int(rng.choice(pool))
        present.discard(e)
        updates.append(("delete", e))
    while len(present) > 2:
        best = _opt(f, matchoid, frozenset(present), cache)[1] or frozenset(present)
        e = int(rng.choice(sorted(best)))
        present.discard(e)
        updates.append(("delete", e))
    return updates


def _ratio(p: int, monotone: bool) -> float:
    return 4.0 * p if monotone else 2 * p + 1 + 2 * np.sqrt(p * (p + 1))


# ---- ratio_identity -------------------------------------------------------------------------
def _check_ratio_identity(ctx: Context, *, wrong: bool) -> Outcome:
    p, c_sym, q_sym = sympy.symbols("p c q", positive=True)
    q = 1 / (p + sympy.sqrt(p**2 + p) + 1)
    c = sympy.sqrt(1 + 1 / p)
    closed = 2 * p + 1 + 2 * sympy.sqrt(p * (p + 1))
    if wrong:
        closed = 2 * p + 1 + sympy.sqrt(p * (p + 1))  # the √ term with a dropped factor 2
    ratio_of_c = (1 + c_sym) * (1 + (1 + c_sym) * p) / c_sym  # after 1/q - 1 = (1 + c)p
    q_star = sympy.sqrt(p) / (sympy.sqrt(p) + sympy.sqrt(p + 1))
    identities = {
        "1/q - 1 = (1 + c) p": 1 / q - 1 - (1 + c) * p,
        "1 - q = 1/c": sympy.radsimp(1 - q) - 1 / c,
        "ratio(c*) = closed form": ratio_of_c.subs(c_sym, c) - closed,
        "ratio'(c*) = 0": sympy.diff(ratio_of_c, c_sym).subs(c_sym, c),
        "(√p + √(p+1))² = closed form": sympy.expand((sympy.sqrt(p) + sympy.sqrt(p + 1)) ** 2) - closed,
        "min_q [p/q + (p+1)/(1-q)] = closed form": (p / q_sym + (p + 1) / (1 - q_sym)).subs(q_sym, q_star)
        - closed,
        "p = 1: 3 + 2√2": closed.subs(p, 1) - (3 + 2 * sympy.sqrt(2)),
        "Proposition 1.3: c = 1 gives 4p": ((1 + c_sym) ** 2 * p / c_sym).subs(c_sym, 1) - 4 * p,
    }
    evidence: dict = {}
    for what, expr in identities.items():
        out = prove_zero(expr, what=what)
        evidence[what] = out.evidence["reduced"]
        if not out.passed:
            return Outcome(out.status, out.summary, evidence)
    convex = sympy.simplify(sympy.diff(ratio_of_c, c_sym, 2))
    if convex.is_positive is not True:
        return Outcome("undecided", f"cannot show ratio(c) convex: {convex}", evidence)
    evidence["ratio''(c)"] = str(convex)
    constant = float(closed.subs(p, 1))
    evidence["p = 1 constant"] = figure(constant)
    evidence["Corollary 1.2 prints 5.82; 3 + 2√2 - 5.82"] = figure(constant - 5.82)
    for pp in (1, 2, 3, 5):  # the implementation's parameters are the proved ones
        q_impl, c_impl = sampling_parameters(pp)
        qm, cm = sampling_parameters(pp, monotone=True)
        if not (np.isclose(q_impl, float(q.subs(p, pp)), rtol=1e-14)
                and np.isclose(c_impl, float(c.subs(p, pp)), rtol=1e-14)
                and np.isclose(qm, 1 / (2 * pp + 1), rtol=1e-14) and cm == 1.0):
            return Outcome("fail", f"sampling_parameters({pp}) differs from the paper's q, c", evidence)
    return Outcome("pass", "sympy proves the parameter identities; the ratio is (√p + √(p+1))², "
                   "3 + 2√2 at p = 1 and 4p for Proposition 1.3", evidence)


register(Claim(
    id="dynamic_matchoid.ratio_identity", paper=PAPER,
    source=f"Theorem 1.1, Corollary 1.2 and the proofs of Theorem 5.5 and Proposition 1.3 (Appendix A.8) "
           f"({SOURCE})",
    origin=Origin.PAPER, covers=("Corollary 1.2",),
    deviation="The arithmetic only: Corollary 1.2's constant is read as 3 + 2√2 = 5.8284..., the exact "
              "value at p = 1 (the printed 5.82 is a truncation, 0.0084 below it).",
    statement="For p > 0, with q = 1/(p + √(p² + p) + 1) and c = √(1 + 1/p): 1/q − 1 = (1 + c)p and "
              "1 − q = 1/c; the ratio (1 + c)(1 + (1 + c)p)/c the proof yields is convex in c > 0 and "
              "minimized at that c, with value 2p + 1 + 2√(p(p+1)) = (√p + √(p+1))² = "
              "min_q [p/q + (p+1)/(1−q)]; p = 1 gives 3 + 2√2; with c = 1 (Proposition 1.3) the "
              "ratio is 4p; the implemented sampling_parameters return these q, c.",
    kind=Kind.SYMBOLIC,
    check=partial(_check_ratio_identity, wrong=False), control=partial(_check_ratio_identity, wrong=True),
    control_description="The same identities against a wrong closed form, 2p + 1 + √(p(p+1)) (a dropped "
                        "factor 2): sympy must disprove it.",
    budget_s=30.0,
    certificate=_CERTIFICATE_RATIO, expected_verdict="certified",
))


# ---- feasibility, invariants, approximation: random streams on small instances ----------------
def _instances():
    return st.tuples(st.sampled_from((1, 2, 3)), st.integers(0, 10**6))


def _stream_case(p: int, seed: int, length: int, monotone: bool = False):
    f, matchoid = _small_instance(p, seed, monotone)
    cache: dict = {}
    updates = _oblivious_stream(f, matchoid, length, np.random.default_rng([seed, 7]), cache)
    return f, matchoid, updates, cache


def _check_feasible(ctx: Context) -> Outcome:
    length = ctx.pick(40, 150)

    def test(case) -> dict:
        p, seed = case
        f, matchoid, updates, _ = _stream_case(p, seed, length)
        dm = DynamicMatchoidMaximizer(f, matchoid, eps=0.1, seed=seed)
        for t, (kind, element) in enumerate(updates):
            getattr(dm, kind)(element)
            chosen = dm.solution()
            assert matchoid.is_independent(chosen), f"p = {p}: S_{t + 1} = {sorted(chosen)} is dependent"
        return {"updates_per_stream": length}

    return property_outcome(_instances(), test, ctx=ctx, max_examples=ctx.pick(12, 60),
                            what="S_t independent after every update")


def _control_feasible(ctx: Context) -> Outcome:
    with patched(oracle_module.CountingOracle, "independent", _always_independent):
        return _check_feasible(ctx)


register(Claim(
    id="dynamic_matchoid.feasible", paper=PAPER,
    source=f"Theorem 5.5 (A_{{i*}} ∈ I) and the independent invariant (Section 5, Step 1) ({SOURCE})",
    origin=Origin.PAPER, covers=("Theorem 5.5",),
    deviation="Only the feasibility half of Theorem 5.5 (the output is independent), on random streams of "
              "40 (full: 150) updates over 10 elements.",
    statement="On random streams of insertions and deletions (p = 1: cardinality 3 or a laminar matroid; "
              "p = 2: two partition matroids; p = 3: graphic on K5 + colour partition + cardinality), the "
              "maintained S_t is independent in the p-matchoid after every update; 12 streams (full: 60).",
    kind=Kind.PROPERTY, check=_check_feasible, control=_control_feasible,
    control_description="The same streams with an independence oracle that passes every set (an insert "
                        "that skips the independence check): S_t must come out dependent.",
    budget_s=60.0,
    certificate=_certificate_states(full=False), expected_verdict="certified",
))


def _check_invariants(ctx: Context) -> Outcome:
    length = ctx.pick(30, 120)

    def test(case) -> dict:
        p, seed = case
        f, matchoid, updates, _ = _stream_case(p, seed, length)
        # Lemma 5.2: Init on a batch, then Lemma 5.3: every update
        dm = DynamicMatchoidMaximizer(f, matchoid, eps=0.1, seed=seed)
        assert (dm.levels, dm.solution(), dm.value) == (0, frozenset(), f(frozenset())), "empty state"
        for t, (kind, element) in enumerate(updates):
            getattr(dm, kind)(element)
            broken = dm.invariant_violations()
            assert not broken, f"p = {p}, after update {t + 1} ({kind} {element}): {broken[:3]}"
            best = dm._best()  # the reported i* is the last level of the output run, S_t = A_{i*}
            assert (dm.levels == 0 and best is None) or (
                len(best.levels) == dm.levels + 1 and best.levels[dm.levels].members == dm.solution()), "i*"
        max_value = 2.0 * max(f(frozenset({e})) for e in range(N_SMALL))
        run = dynamic_module._Run(dm._oracle, 0.1, max_value, dm.q, dm.c, f(frozenset()),
                                  np.random.default_rng(seed))
        for e in range(N_SMALL):
            run.levels[0].survivors.add(e, f(frozenset({e})))
        run.build()
        broken = run.violations(f, set(range(N_SMALL)), 0.1 * max_value / (2 * matchoid.rank))
        assert not broken, f"p = {p}, after Init: {broken[:3]}"
        return {"updates_per_stream": length}

    # f({v}) = 4 = 2² for every v: the routing boundary f(v) = 2ʲ (random instances never hit it); with
    # ε = 0.75 also the other end, 2k·f(v)/ε = 24/0.75 = 32 = 2⁵ exactly (both sides exact in binary)
    f, matchoid = regular_cut(N_SMALL, 3), Matchoid([UniformMatroid(3)])
    for eps in (0.1, 0.75):
        dm = DynamicMatchoidMaximizer(f, matchoid, eps=eps, seed=ctx.seed)
        updates = [("insert", e) for e in range(N_SMALL)] + [("delete", 0), ("delete", 3), ("insert", 3)]
        for kind, element in updates:
            getattr(dm, kind)(element)
            broken = dm.invariant_violations()
            if broken:
                return Outcome("fail", f"f(v) = 4 on every v, ε = {eps}, after {kind} {element}: "
                                       f"{broken[:3]}", {})
        if eps == 0.75 and 5 not in dm._runs:
            return Outcome("fail", f"ε = 0.75: no run for MAX = 2⁵ = 2k·f(v)/ε (runs {sorted(dm._runs)})", {})
    # max_guess="current" (one run, rebuilt when ⌈log₂ max f(v)⌉ moves): a cut whose vertex degrees span
    # 0..14, inserted lightest first and deleted heaviest first, so the exponent rises and falls; vertex 8
    # (f = 0.05 < 2^top·ε/(2k)) is routed away from the kept run, vertex 9's gain 0.4 lies in [τ, 2τ) of the
    # run 2⁴ (τ = 0.27), so the run's threshold is seen, and vertex 10 is isolated (f = 0: routed nowhere)
    eps, k = 0.1, 3
    weights = np.zeros((11, 11))
    for u in range(1, 8):
        weights[0, u] = weights[u, 0] = 1.0
        weights[u, u % 7 + 1] = weights[u % 7 + 1, u] = float(u)
    weights[8, 1] = weights[1, 8] = 0.05
    weights[9, 0] = weights[0, 9] = 0.4
    f = GraphCut(weights)
    singleton = {v: f(frozenset({v})) for v in range(11)}
    order = sorted(range(11), key=singleton.__getitem__)
    updates = [("insert", v) for v in order] + [("delete", v) for v in reversed(order[2:])]
    dm = DynamicMatchoidMaximizer(f, Matchoid([UniformMatroid(k)]), eps=eps, seed=ctx.seed,
                                  max_guess="current")
    # the rate sampling off (dm is sealed: the claim instruments it): every element routed to the kept run
    # must then sit in its B_0
    object.__setattr__(dm, "q", 1.0)
    present: set = set()
    tops: list = [None]
    for kind, element in updates:
        getattr(dm, kind)(element)
        (present.add if kind == "insert" else present.discard)(element)
        heaviest = max(singleton[v] for v in present)
        top = math.ceil(math.log2(heaviest)) if heaviest > 0 else None
        tops += [top] if top != tops[-1] else []
        routed = set() if top is None else {
            v for v in present if singleton[v] <= 2.0**top <= 2 * k * singleton[v] / eps}
        broken = dm.invariant_violations()
        runs = list(dm._runs.values())
        base = set(runs[0].levels[0].survivors.items) if len(runs) == 1 else (set() if not runs else None)
        if broken or base != routed or dm.value != f(dm.solution()):
            return Outcome("fail", f"max_guess='current', after {kind} {element}: {broken[:3]}; B_0 = "
                                   f"{base}, routed to 2^{top}: {sorted(routed)}; value {dm.value:.6g}, "
                                   f"f(S) = {f(dm.solution()):.6g}", {})
    if dm.rebuilds != len([t for t in tops[1:] if t is not None]):
        return Outcome("fail", f"max_guess='current': {dm.rebuilds} rebuilds; the stream moves the exponent "
                               f"{len(tops) - 1} times ({tops[1:]})", {})
    return property_outcome(_instances(), test, ctx=ctx, max_examples=ctx.pick(10, 50),
                            what="invariants 1-5 after Init and after every update")


def _control_invariants(ctx: Context) -> Outcome:
    with patched(dynamic_module._Run, "_dependency_detection", _heaviest_swap):
        return _check_invariants(ctx)


register(Claim(
    id="dynamic_matchoid.invariants", paper=PAPER,
    source=f"Lemma 5.2 and Lemma 5.3 (Section 5, Steps 1-2; Appendix A.1-A.5) ({SOURCE})",
    origin=Origin.PAPER, covers=("Lemma 5.2", "Lemma 5.3"),
    deviation="Invariants 1-5 are checked exactly; the uniform invariant 6 (a distributional statement) is "
              "tested by dynamic_matchoid.uniform_invariant; Init is run on the whole 10-element set with "
              "every element kept.",
    statement="After Init on a 10-element instance and after every update of random streams (30, full: "
              "120 updates; p = 1, 2, 3), the maintained levels satisfy the survivor, starter, weight, "
              "independent and terminator invariants, recomputed from their definitions (Uᵢ(e) by a scan "
              "of every element whose removal restores independence, not the binary search, and the "
              "threshold ε·MAX/(2k) recomputed from ε, MAX and k), the stored f(Aᵢ) are current, and "
              "every element sits in exactly the MAX-guess runs Appendix B routes it to (also on a stream "
              "over a unit 4-regular cut, where f(v) = 4 = 2² puts the routing on its lower boundary, and "
              "with ε = 0.75, where 2k·f(v)/ε = 2⁵, on its upper one), and the "
              "reported i* is the output run's last level with S_t = A_{i*}; 10 streams (full: 50). With "
              "max_guess='current' (our one-run MAX guess) on a 20-update stream whose ⌈log₂ max f(v)⌉ rises "
              "and falls (a vertex with f = 0, one routed away from the kept run, one whose gain lies "
              "between the run's threshold and twice it), the invariants hold after every update, the run "
              "is rebuilt exactly when that "
              "exponent moves, and, with the rate sampling off (q = 1), its B_0 holds exactly the present "
              "elements Appendix B routes to it.",
    kind=Kind.PROPERTY, check=_check_invariants, control=_control_invariants,
    control_description="The same runs with a DependencyDetection that removes the heaviest circuit element "
                        "instead of the lightest: the recomputed Uᵢ(eᵢ) must disagree.",
    budget_s=60.0,
    certificate=_certificate_states(full=True), expected_verdict="certified",
))


# ---- FindSwaps: its decisions and its query cost (Lemma A.10) ---------------------------------
N_FILTER = 12  # elements 10, 11 are loops in some matroid of every instance


def _filter_instance(p: int, rng: np.random.Generator):
    w = np.triu(rng.random((N_FILTER, N_FILTER)), 1)
    f = GraphCut(w + w.T)
    loops = PartitionMatroid({e: "z" if e >= 10 else e % 4 for e in range(N_FILTER)},
                             {"z": 0, **{part: int(rng.integers(1, 3)) for part in range(4)}})
    if p == 1:
        return f, Matchoid([loops])
    if p == 2:
        return f, Matchoid([loops, PartitionMatroid({e: e // 3 for e in range(N_FILTER)}, 2)])
    edges = [(u, v) for u in range(5) for v in range(u + 1, 5)] + [(0, 0), (2, 2)]  # K5 and two self-loops
    colours = PartitionMatroid({e: int(rng.integers(3)) for e in range(N_FILTER)}, 2)
    return f, Matchoid([GraphicMatroid({e: edges[e] for e in range(N_FILTER)}), colours, UniformMatroid(4)])


def _reference_find_swaps(matchoid, weights: dict, gain: float, element, c: float, threshold: float):
    """FindSwaps from its definition: Xⱼ by a scan, xⱼ = its lightest element; None for a loop."""
    members = frozenset(weights)
    swaps: list = []
    for j in matchoid.matroids_of(element):
        matroid = matchoid.matroids[j]
        part = frozenset(x for x in members if matroid.in_ground(x))
        if matroid.is_independent(part | {element}):
            continue
        fixes = [x for x in weights if x in part and matroid.is_independent((part - {x}) | {element})]
        if not fixes:
            return None
        lightest = min(fixes, key=weights.__getitem__)
        if lightest not in swaps:
            swaps.append(lightest)
    tau = max((1.0 + c) * sum(weights[x] for x in swaps), threshold)
    return tuple(swaps) if gain >= tau else None


def _check_filter(ctx: Context) -> Outcome:
    state: dict = {}
    try:
        _filter_trials(ctx, state)
    except AssertionError as exc:
        return Outcome("fail", str(exc), {k: figure(v) for k, v in state.items()})
    ok = state["shortcut"] > 0 and state["loops"] > 0 and state["survived"] > 0
    return fact(ok, "FindSwaps agrees with its definition (loops included), costs at most "
                "1 + p(2 + ⌈log₂ k⌉) queries and stops at the first matroid that decides", **state)


def _filter_trials(ctx: Context, state: dict) -> None:
    rng = np.random.default_rng([ctx.seed, 77])
    trials = ctx.pick(60, 400)
    state.update(calls=0, shortcut=0, loops=0, survived=0, most=0)
    for trial in range(trials):
        p = 1 + trial % 3
        f, matchoid = _filter_instance(p, rng)
        dm = DynamicMatchoidMaximizer(f, matchoid, eps=0.1, seed=trial, max_value=1.0)
        run = dm._run(None)
        weights: dict = {}
        for e in rng.permutation(10).tolist():  # a random independent A with random weights
            if matchoid.is_independent(frozenset(weights) | {e}):
                weights[int(e)] = float(rng.choice([rng.uniform(0.01, 0.3), rng.uniform(0.3, 2.0)]))
        value = float(f(frozenset(weights)))
        level = dynamic_module._Level(dynamic_module._Survivors(), None, weights, value)
        run.levels.append(level)
        k = matchoid.rank
        # Lemma A.10's bound enforced as the queries happen: a search that does not end (a binary
        # search that stops narrowing) fails here instead of hanging the claim
        budget = {"left": math.inf}
        counted = run.oracle.independent

        def independent(j, subset, counted=counted, budget=budget):
            budget["left"] -= 1
            assert budget["left"] >= 0, "FindSwaps made more independence queries than Lemma A.10's bound"
            return counted(j, subset)

        object.__setattr__(run.oracle, "independent", independent)  # the oracle is sealed
        for element in range(N_FILTER):
            if element in weights:
                continue
            gain = float(f(frozenset(weights) | {element})) - level.value
            bound = 1 + sum(2 + math.ceil(math.log2(max(k, 2))) for _ in matchoid.matroids_of(element))
            budget["left"] = bound
            before = dm.queries
            found = run._find_swaps(level, element)
            cost = dm.queries - before
            state["calls"] += 1
            expected = None if gain < run.threshold else _reference_find_swaps(
                matchoid, weights, gain, element, run.c, run.threshold)
            assert (found is None) == (expected is None) and (found is None or (
                set(found[0]) == set(expected) and found[1] == gain
                and found[2] == float(f(frozenset(weights) | {element})))), (
                f"p = {p}: FindSwaps({element}) = {found}, its definition gives {expected}")
            state["survived"] += found is not None
            state["loops"] += element >= 10
            # Lemma A.10: O(log k) independence queries per matroid of e (<= 2 + ⌈log₂ k⌉), one value query
            assert cost <= bound, f"p = {p}: FindSwaps({element}) cost {cost} > {bound} queries"
            state["most"] = max(state["most"], cost)
            if gain < run.threshold:
                assert cost == 1, f"p = {p}: a gain below ε·MAX/(2k) costs one value query, not {cost}"
                continue
            # the first matroid where A + e is dependent: a lightest weight there that (1 + c) lifts
            # past the gain, or no element of A there (a loop), rejects e with no more queries
            for position, j in enumerate(matchoid.matroids_of(element)):
                part = [x for x in weights if matchoid.matroids[j].in_ground(x)]
                if matchoid.matroids[j].is_independent(frozenset(part) | {element}):
                    continue
                if not part or (1.0 + run.c) * min(weights[x] for x in part) > gain:
                    state["shortcut"] += 1
                    assert cost == 2 + position, (
                        f"p = {p}: FindSwaps({element}) is decided by matroid {j} after {2 + position} "
                        f"queries but cost {cost}")
                break


def _control_filter(ctx: Context) -> Outcome:
    original = dynamic_module._Run._dependency_detection

    def unbounded(self, level, element, gain=None):  # the search run to its end: no early stop
        return original(self, level, element)

    with patched(dynamic_module._Run, "_dependency_detection", unbounded):
        return _check_filter(ctx)


register(Claim(
    id="dynamic_matchoid.filter_cost", paper=PAPER,
    source=f"Lemma A.10 (Lemma 3.2 of Banihashem et al., SODA 2024) and Lemma A.12 ({SOURCE})",
    origin=Origin.IMPLEMENTATION, covers=(),
    deviation="Our explicit constant for Lemma A.10's O(log k) (<= 2 + ⌈log₂ k⌉ independence queries per "
              "matroid: the dependence test, the binary search, a loop test) and our early stop (a gap we "
              "fill: the same decision, fewer queries) are checked on random levels, not on a run's levels.",
    statement="On random independent sets A (random weights) of p = 1, 2, 3 matchoids on 12 elements, two "
              "of them loops, FindSwaps(A, e) for every e outside A gives the decision and the swap set of "
              "its definition (Xⱼ by a scan), costs at most 1 + Σⱼ (2 + ⌈log₂ k⌉) oracle queries, exactly "
              "one when the gain is below ε·MAX/(2k), and exactly 2 + (index of the matroid) when the first "
              "matroid where A + e is dependent has no element of A (a loop) or a lightest weight w with "
              "(1 + c)·w > Δ(e | A); 60 random levels (full: 400).",
    kind=Kind.PROPERTY, check=_check_filter, control=_control_filter,
    control_description="The same levels with DependencyDetection run to the end of its search (no early "
                        "stop): the decisions agree but the rejections decided by the first dependent "
                        "matroid cost more queries than the check allows.",
    budget_s=20.0,
))


# ---- the uniform invariant (6): the law of e_i given the configuration ----------------------
N_UNIFORM = 7
UNIFORM_STREAM = ([("insert", e) for e in range(N_UNIFORM)]  # oblivious: fixed before any coin
                  + [("delete", 2), ("delete", 5), ("insert", 2), ("delete", 0), ("insert", 5), ("insert", 0),
                     ("delete", 4)])
UNIFORM_ALPHA = 0.001


def _uniform_instance(p: int):
    """A dense random cut on 7 elements: p = 1 cardinality 3, p = 2 two partition matroids."""
    rng = np.random.default_rng([p, 5])
    w = np.triu(0.5 + rng.random((N_UNIFORM, N_UNIFORM)), 1)
    if p == 1:
        matchoid = Matchoid([UniformMatroid(3)])
    else:
        matchoid = Matchoid([PartitionMatroid({e: e % 3 for e in range(N_UNIFORM)}, 1),
                             PartitionMatroid({e: e // 3 for e in range(N_UNIFORM)}, 2)])
    return GraphCut(w + w.T), matchoid


def _uniform_groups(p: int, runs: int, seed: int) -> list[tuple[int, np.ndarray, int]]:
    """Per configuration (i, e_1..e_{i-1}, B_0..B_i) seen at the end of ``UNIFORM_STREAM`` in ``runs``
    independent runs: (|B_i|, counts of e_i over B_i with the most recently inserted element
    first, number of runs)."""
    f, matchoid = _uniform_instance(p)
    last_insert = {e: t for t, (kind, e) in enumerate(UNIFORM_STREAM) if kind == "insert"}
    max_value = 2.0 * max(f(frozenset({e})) for e in range(N_UNIFORM))  # MAX known: one run per seed
    seen: dict = {}
    for r in range(runs):
        dm = DynamicMatchoidMaximizer(f, matchoid, eps=0.1, seed=10**6 * (seed + 1) + 1000 * p + r,
                                      max_value=max_value)
        for kind, element in UNIFORM_STREAM:
            getattr(dm, kind)(element)
        levels, chosen = dm._runs[None].levels, []
        for i in range(1, len(levels)):  # i* >= i
            key = (i, tuple(chosen), tuple(frozenset(level.survivors.items) for level in levels[:i + 1]))
            seen.setdefault(key, []).append(levels[i].chosen)
            chosen.append(levels[i].chosen)
    groups = []
    for key, draws in seen.items():
        cells = sorted(key[2][-1], key=lambda e: -last_insert[e])
        if len(cells) >= 2 and len(draws) >= 2:  # a group of one run, or |B_i| = 1, carries no information
            counts = np.array([draws.count(e) for e in cells])
            assert counts.sum() == len(draws), "e_i outside B_i"  # the weight invariant, checked again
            groups.append((len(cells), counts, len(draws)))
    return groups


def _pearson(groups, counts_list) -> np.ndarray:
    total = 0.0
    for (b, _, n), counts in zip(groups, counts_list, strict=True):
        expected = n / b
        total = total + ((counts - expected) ** 2).sum(axis=-1) / expected
    return np.asarray(total)


def _check_uniform(ctx: Context) -> Outcome:
    runs = ctx.pick(2000, 10000)
    groups = _uniform_groups(1, runs, ctx.seed) + _uniform_groups(2, runs // 2, ctx.seed)
    observed = float(_pearson(groups, [g[1] for g in groups]))
    rng = np.random.default_rng([ctx.seed, 66])
    draws = ctx.pick(4000, 10000)

    def simulate(tilt: float, size: int) -> np.ndarray:
        sims = []
        for b, _, n in groups:
            law = np.ones(b)
            law[0] = tilt  # tilt > 1: the most recently inserted element of B_i is favoured
            sims.append(rng.multinomial(n, law / law.sum(), size=size))
        return _pearson(groups, sims)

    null = simulate(1.0, draws)  # the exact conditional law under the invariant (Monte Carlo)
    p_value = (1 + int((null >= observed).sum())) / (draws + 1)
    critical = float(np.quantile(null, 1 - UNIFORM_ALPHA))
    power = float((simulate(1.5, 1000) > critical).mean())  # Monte Carlo power at these group sizes
    power_2x = float((simulate(2.0, 1000) > critical).mean())
    df = sum(b - 1 for b, _, _ in groups)
    evidence = {"pearson_statistic": figure(observed), "degrees_of_freedom": df,
                "configurations": len(groups),
                "runs_in_tested_configurations": sum(n for _, _, n in groups), "p_value": figure(p_value),
                "alpha": UNIFORM_ALPHA, "power_vs_1.5x_tilt_to_newest": figure(power, 3),
                "power_vs_2x_tilt_to_newest": figure(power_2x, 3)}
    ok = p_value >= UNIFORM_ALPHA
    return Outcome("pass" if ok else "fail",
                   f"P[e_i = e | i* >= i, C_i] = 1/|B_i| on B_i: Pearson {observed:.1f} on {df} cells-1 over "
                   f"{len(groups)} configurations, Monte Carlo p = {p_value:.4f} "
                   f"({'not ' if ok else ''}rejected at {UNIFORM_ALPHA}; power {power:.2f} / {power_2x:.2f} "
                   "against a 1.5x / 2x tilt toward the newest survivor)", evidence)


def _promotes_before_adding(self, survivors) -> bool:
    """Sabotaged Insert coin: 1/|B_i| taken with the size before e joined (probability 1/(|B_i| - 1))."""
    return self.rng.random() * (len(survivors) - 1) < 1.0


def _control_uniform(ctx: Context) -> Outcome:
    with patched(dynamic_module._Run, "_promotes", _promotes_before_adding):
        return _check_uniform(ctx)


register(Claim(
    id="dynamic_matchoid.uniform_invariant", paper=PAPER,
    source=f"Invariant 6 (uniform) of Section 5, Lemma 5.2, Lemma 5.3 and their proof for it in Appendix "
           f"A.6 ({SOURCE})",
    origin=Origin.PAPER, covers=("Lemma 5.2", "Lemma 5.3"),
    deviation="A statistical test of the conditional law at one time (the end of a fixed oblivious stream of "
              "14 updates, deletions of chosen elements included), on two 7-element instances, with MAX "
              "given (one run per seed; each MAX-guess run is an independent copy of the same algorithm); "
              "one state per run keeps the samples independent; configurations seen once carry no "
              "information and are left out.",
    statement="Over 2000 (p = 1) and 1000 (p = 2) independent runs (full: 10000 and 5000) of the same "
              "stream, grouping the runs by the configuration C_i = (e_1, ..., e_{i-1}, B_0, ..., B_i) of "
              "each level i <= i*, the counts of e_i over B_i are consistent with the uniform law 1/|B_i|: "
              "the pooled Pearson statistic is not rejected at level 0.001 by its exact conditional null "
              "(4000 Monte Carlo draws, full: 10000); the power of the test against a 1.5x tilt toward "
              "the most recently inserted survivor (and a 2x one) is reported.",
    kind=Kind.PROPERTY, check=_check_uniform, control=_control_uniform,
    control_description="The same runs with Insert's coin 1/|B_i| taken with the size of B_i before the new "
                        "element joined (an off-by-one: probability 1/(|B_i| - 1)): the newest survivor is "
                        "drawn too often and the test must reject.",
    budget_s=30.0,
    certificate=_CERTIFICATE_UNIFORM, expected_verdict="certified",
))


def _check_approximation(ctx: Context, *, monotone: bool, tightened: bool = False) -> Outcome:
    length, runs, eps = ctx.pick(30, 80), ctx.pick(10, 40), 0.1
    state = {"worst": np.inf, "hits": 0, "deletions": 0}

    def test(case) -> dict:
        p, seed = case
        f, matchoid, updates, cache = _stream_case(p, seed, length, monotone)
        bound = 1.0 if tightened else _ratio(p, monotone) + eps
        values = np.zeros((runs, len(updates)))
        for r in range(runs):
            dm = DynamicMatchoidMaximizer(f, matchoid, eps=eps, seed=1000 * seed + r, monotone=monotone)
            for t, (kind, element) in enumerate(updates):
                if kind == "delete":
                    state["deletions"] += 1
                    state["hits"] += element in dm.solution()
                getattr(dm, kind)(element)
                values[r, t] = dm.value
        present: set = set()
        for t, (kind, element) in enumerate(updates):
            (present.add if kind == "insert" else present.discard)(element)
            opt = _opt(f, matchoid, frozenset(present), cache)[0]
            mean = values[:, t].mean()
            if opt > 0:
                state["worst"] = min(state["worst"], mean * bound / opt)
            assert mean * bound >= opt, (f"p = {p}, t = {t + 1}: mean f(S_t) = {mean:.4g} over {runs} runs < "
                                         f"OPT_t / {bound:.4g} = {opt / bound:.4g}")
        return {"worst_mean_times_ratio_over_opt": figure(state["worst"]),
                "deletions_hitting_solution": state["hits"], "deletions": state["deletions"]}

    return property_outcome(_instances(), test, ctx=ctx, max_examples=ctx.pick(9, 40),
                            what=f"mean f(S_t) >= OPT_t / ({'4p' if monotone else '(√p + √(p+1))²'} + ε) "
                                 "at every t")




register(Claim(
    id="dynamic_matchoid.approximation", paper=PAPER,
    source=f"Theorem 1.1, Theorem 5.5 and Corollary 1.2 ({SOURCE})",
    origin=Origin.PAPER, covers=("Theorem 1.1", "Theorem 5.5", "Corollary 1.2"),
    deviation="The expectation is estimated by the mean over 10 (full: 40) algorithm seeds on small "
              "instances (10 elements, streams of 30, full: 80 updates); MAX is guessed by the parallel "
              "runs of Appendix B.",
    statement="On random oblivious streams (insertions and deletions interleaved, half the deletions "
              "removing an element of the current optimal set) over 10-element instances with non-monotone "
              "f (graph cut, directed cut, Gaussian mutual information) and p = 1 (cardinality, laminar), "
              "2 (two partitions), 3 (graphic + partition + cardinality), the mean over algorithm seeds of "
              "f(S_t) is >= OPT_t / (2p + 2√(p(p+1)) + 1 + ε), ε = 0.1, at every time t, OPT_t by brute "
              "force; 9 streams (full: 40). The slack is statistical: the theorem bounds the expectation.",
    kind=Kind.PROPERTY, check=partial(_check_approximation, monotone=False),
    control=partial(_check_approximation, monotone=False, tightened=True),
    control_description="The same runs against the ratio tightened past the truth to 1 (mean f(S_t) >= "
                        "OPT_t): the subsampling alone makes it fail. (A deletion that never repairs is not "
                        "a reliable control: the ratio is so loose that on these instances it often passes; "
                        "see the note.)",
    budget_s=90.0,
    certificate=_certificate_approximation(monotone=False), expected_verdict="certified",
))

register(Claim(
    id="dynamic_matchoid.monotone_approximation", paper=PAPER,
    source=f"Proposition 1.3 and its proof (Appendix A.8) ({SOURCE})",
    origin=Origin.PAPER, covers=("Proposition 1.3",),
    deviation="The approximation half only (the query bound is the one of the main algorithm), with "
              "the mean over 10 (full: 40) seeds on 10-element instances.",
    statement="With the parameters c = 1, q = 1/(2p + 1) and monotone f (coverage, facility location, "
              "log det(I + K_S)), on the streams of dynamic_matchoid.approximation, the mean over algorithm "
              "seeds of f(S_t) is >= OPT_t / (4p + ε), ε = 0.1, at every time t; 9 streams (full: 40).",
    kind=Kind.PROPERTY, check=partial(_check_approximation, monotone=True),
    control=partial(_check_approximation, monotone=True, tightened=True),
    control_description="The same runs against the ratio tightened past the truth to 1 (mean f(S_t) >= "
                        "OPT_t): it must fail at some time step.",
    budget_s=90.0,
    certificate=_certificate_approximation(monotone=True), expected_verdict="certified",
))


# ---- Lemma A.11: the number of levels ------------------------------------------------------------
def _check_levels(ctx: Context, *, factor: float) -> Outcome:
    """At every update of random streams, in every MAX-guess run: each level's weight increment
    w(A_i) − w(A_{i−1}) >= factor·τ (τ = ε·MAX/(2k), our filter threshold), w(A_{i*}) <= k·MAX and
    i* <= k·MAX/τ = 2k²/ε."""
    length, eps = ctx.pick(40, 120), 0.1
    state = {"levels": 0, "worst_increment_over_tau": math.inf, "deepest_over_bound": 0.0}

    def test(case) -> dict:
        p, seed = case
        f, matchoid, updates, _ = _stream_case(p, seed, length)
        dm = DynamicMatchoidMaximizer(f, matchoid, eps=eps, seed=seed)
        k = matchoid.rank
        for t, (kind, element) in enumerate(updates):
            getattr(dm, kind)(element)
            for key, run in dm._runs.items():
                max_value = 2.0**key if key is not None else dm.max_value
                tau = run.threshold
                weights = [sum(level.weights.values()) for level in run.levels]
                for i, (low, high) in enumerate(itertools.pairwise(weights), start=1):
                    state["levels"] += 1
                    state["worst_increment_over_tau"] = min(state["worst_increment_over_tau"],
                                                            (high - low) / tau)
                    # 1e-9 relative: the weights are sums of a few gains in double precision
                    assert high - low >= factor * tau * (1 - 1e-9), (
                        f"p = {p}, update {t + 1}, run {key}: level {i} raises w(A) by {high - low:.4g} < "
                        f"{factor:g}·τ = {factor * tau:.4g}")
                assert weights[-1] <= k * max_value * (1 + 1e-9), f"w(A_i*) = {weights[-1]:.4g} > k·MAX"
                depth = len(run.levels) - 1
                state["deepest_over_bound"] = max(state["deepest_over_bound"], depth / (2 * k * k / eps))
                assert depth <= 2 * k * k / eps, f"i* = {depth} > 2k²/ε"
        return {"levels_checked": state["levels"],
                "min_increment_over_tau": figure(state["worst_increment_over_tau"], 4),
                "max_depth_over_2k2_eps": figure(state["deepest_over_bound"], 3)}

    return property_outcome(_instances(), test, ctx=ctx, max_examples=ctx.pick(9, 40),
                            what=f"every level raises w(A) by >= {factor:g}·ε·MAX/(2k); i* <= 2k²/ε")


register(Claim(
    id="dynamic_matchoid.level_count", paper=PAPER,
    source=f"Lemma A.11 (Appendix A.7) and its use in Lemmas A.12-A.13 ({SOURCE})",
    origin=Origin.PAPER, covers=("Lemma A.11",),
    deviation="With our filter threshold τ = ε·MAX/(2k) (the paper's Lemma A.11 argues with ε·MAX/k; see "
              "'Where we filled gaps', item 2) the increment per level is at least τ, so the depth bound is "
              "k·MAX/τ = 2k²/ε; checked on random streams, every MAX-guess run, at every update.",
    statement="On random oblivious streams (the instances of dynamic_matchoid.approximation: p = 1, 2, 3, 10 "
              "elements, 40 (full: 120) updates, 9 (full: 40) streams), in every MAX-guess run after every "
              "update: each level raises the total weight w(A_i) by at least τ = ε·MAX/(2k) (a survivor's "
              "gain is >= τ, and a swap adds c·w(U) >= τ), w(A_{i*}) <= k·MAX, and so i* <= 2k²/ε.",
    kind=Kind.PROPERTY, check=partial(_check_levels, factor=1.0), control=partial(_check_levels, factor=2.0),
    control_description="The increment bound as Lemma A.11 prints it, ε·MAX/k = 2τ, against our threshold: "
                        "about a fifth of the level increments fall in [τ, 2τ), so it must fail.",
    budget_s=60.0,
))


# ---- query complexity ------------------------------------------------------------------------
DEGREE = 4  # unit-weight 4-regular graphs: f({v}) = 4 for every v, so MAX = 4 is exact


def growing_stream(length: int, rng: np.random.Generator) -> tuple[list, int]:
    """Two insertions of new elements for each deletion of a random present one (expected); returns the
    updates and the number of elements ever inserted. The benchmark uses it too."""
    present: list = []
    updates, fresh = [], 0
    for _ in range(length):
        if present and rng.random() < 1 / 3:
            updates.append(("delete", present.pop(int(rng.integers(len(present))))))
        else:
            updates.append(("insert", fresh))
            present.append(fresh)
            fresh += 1
    return updates, fresh


def regular_cut(n: int, seed: int) -> GraphCut:
    """Unit-weight cut function of a seeded random ``DEGREE``-regular graph on max(n, DEGREE + 2) vertices
    (padded by one vertex when n·DEGREE is odd); the benchmark uses it too."""
    n = max(n + (n * DEGREE) % 2, DEGREE + 2)
    graph = nx.random_regular_graph(DEGREE, n, seed=seed)
    return GraphCut(nx.to_scipy_sparse_array(graph, nodelist=range(n), format="csr"))


def _queries_per_update(length: int, k: int, seed: int, algorithm) -> float:
    """Mean oracle queries per update over the second half of the stream (past the warm-up; Theorem
    5.4 bounds the expected cost of every single update, so any window is covered)."""
    updates, n = growing_stream(length, np.random.default_rng([seed, 11]))
    stream = UpdateStream(regular_cut(n, seed), Matchoid([UniformMatroid(k)]), updates)
    sol = solve(stream, algorithm, seed=seed, store_trace=True)
    assert sol.successful and sol.stats.iterations == length == len(sol.trace), sol.retcode
    assert [record["time"] for record in sol.trace] == list(range(1, length + 1)), "trace times"
    return float(np.mean([record["update_queries"] for record in sol.trace[length // 2:]]))


def _check_queries_n(ctx: Context, *, dynamic: bool) -> Outcome:
    full = [500, 1000, 2000, 4000, 8000] if dynamic else [500, 1000, 2000, 4000]
    lengths = ctx.pick([500, 1000, 2000], full)
    seeds = ctx.pick(6, 30) if dynamic else ctx.pick(2, 3)  # recompute costs ∝ T² per stream: fewer, shorter
    algorithm = DynamicMatchoid(eps=0.1, max_value=float(DEGREE)) if dynamic else RecomputeFromScratch()
    values = np.array([[_queries_per_update(n, 5, s, algorithm) for n in lengths] for s in range(seeds)])
    return rate_outcome(lengths, values, claimed=0.0, relation="<=", ctx=ctx, margin=0.1, max_width=0.8,
                        what="amortized queries per update vs stream length",
                        plot_name=f"dynamic_matchoid_queries_vs_n_{'dyn' if dynamic else 'recompute'}.png",
                        xlabel="updates", ylabel="queries / update")


register(Claim(
    id="dynamic_matchoid.queries_independent_of_n", paper=PAPER,
    source=f"Theorem 1.1, Theorem 5.4 and Lemma A.13 ({SOURCE})",
    origin=Origin.PAPER, covers=("Theorem 1.1", "Theorem 5.4"),
    deviation="The bound's independence of n is tested as a flat log-log slope (<= 0.1) of the measured "
              "per-update count over the second half of each stream (past the warm-up), with MAX known "
              "(Lemma A.13), on one instance family.",
    statement="On streams of T updates (two insertions of new elements per deletion of a random present "
              "one) with f the cut of a random unit-weight 4-regular graph, a cardinality constraint "
              "k = 5, ε = 0.1 and MAX = 4, the mean oracle queries (value + independence) per update over "
              "the second half of the stream has a fitted log-log slope in T whose 95% bootstrap interval "
              "(6 seeds, full: 30) lies below 0.1, for T ∈ {500, 1000, 2000} (full: up to 8000).",
    kind=Kind.RATE, check=partial(_check_queries_n, dynamic=True),
    control=partial(_check_queries_n, dynamic=False),
    control_description="The same check on recompute-from-scratch (Sample Greedy after every update; 2 "
                        "seeds, full: 3 with T up to 4000, for time): its per-update cost grows with "
                        "|V_t| ∝ T, slope about 1.",
    budget_s=90.0,
    # The per-update cost is heavy-tailed (a rebuild of level 1 costs about i*·|B_0| queries with
    # probability about 1/|B_1|): 6 seeds over a 4× range give an interval about ±0.25 wide around a
    # slope near 0, too wide to show <= 0.1; see paper_notes/dynamic_matchoid.md.
    expected_verdict="inconclusive",
    power="The slope's interval [-0.19, 0.31] (6 seeds, T up to 2000) must end below 0.1: at the "
          "measured slope 0.05 that needs a half-width about 5× smaller, about 25× the data; the full "
          "profile (30 seeds, T up to 8000) is that size, and verified it in the run the note records.",
))


@lru_cache(maxsize=4)
def _queries_by_k(ks: tuple, length: int, seeds: int) -> np.ndarray:
    """The measurements of queries_vs_k, shared by its check and its control (the same data, two bounds)."""
    algorithm = DynamicMatchoid(eps=0.1, max_value=float(DEGREE))
    return np.array([[_queries_per_update(length, k, s, algorithm) for k in ks] for s in range(seeds)])


def _check_queries_k(ctx: Context, *, claimed: float) -> Outcome:
    ks = ctx.pick([2, 4, 8, 16], [2, 4, 8, 16, 32])
    length, seeds = ctx.pick(600, 3000), ctx.pick(3, 6)
    raw = _queries_by_k(tuple(ks), length, seeds)
    values = raw / (1.0 + np.log2(ks)) ** 2  # divide out the log² k factor of the bound
    return rate_outcome(ks, values, claimed=claimed, relation="<=", ctx=ctx, margin=0.1, max_width=1.5,
                        what="amortized queries per update / (1 + log₂ k)² vs k",
                        plot_name=f"dynamic_matchoid_queries_vs_k_{claimed:g}.png", xlabel="k",
                        ylabel="queries / update / (1 + log k)²")


register(Claim(
    id="dynamic_matchoid.queries_vs_k", paper=PAPER,
    source=f"Theorem 1.1 and Theorem 5.4 ({SOURCE})",
    origin=Origin.PAPER, covers=("Theorem 5.4",),
    deviation="The O(k⁴ log² k) bound is tested as a fitted slope <= 4 of queries/update/(1 + log₂ k)² "
              "over k ∈ {2, 4, 8, 16} (full: up to 32) on one instance family; an upper-bound test, it "
              "cannot show the exponent 4 is reached.",
    statement="On streams of 600 (full: 3000) updates as in queries_independent_of_n with a cardinality "
              "constraint k, the mean oracle queries per update over the second half of the stream divided "
              "by (1 + log₂ k)² have a fitted "
              "log-log slope in k whose 95% bootstrap interval (3 seeds, full: 6) lies below 4.1.",
    kind=Kind.RATE, check=partial(_check_queries_k, claimed=4.0),
    control=partial(_check_queries_k, claimed=0.0),
    control_description="The same measurements against a bound tightened past the truth, exponent 0 "
                        "(queries independent of k): the interval must lie above 0.1.",
    budget_s=90.0,
))


# ---- the theorem's hypotheses on the ready-made functions -----------------------------------
N_HYPOTHESES = 7  # 2⁷ = 128 subsets: every subset and every pair of added elements is checked


def _function_instances(rng: np.random.Generator) -> list[tuple[str, object, Callable, bool]]:
    """(name, f, independent reference formula, monotone?) for one draw of each ready-made function."""
    n = N_HYPOTHESES
    upper = np.triu(rng.uniform(0.1, 2.0, (n, n)) * (rng.random((n, n)) < 0.6), 1)
    symmetric = upper + upper.T
    directed = rng.uniform(0.1, 2.0, (n, n)) * (rng.random((n, n)) < 0.5) * (1 - np.eye(n))
    undirected_graph = nx.from_numpy_array(symmetric)
    directed_graph = nx.from_numpy_array(directed, create_using=nx.DiGraph)

    def boundary(graph):  # Σ over edges leaving S (networkx's edge boundary: u ∈ S, v ∉ S)
        return lambda s: float(sum(w for _, _, w in nx.edge_boundary(graph, s, data="weight", default=0.0)))

    similarity = rng.uniform(0.0, 1.0, (5, n))
    sets = [set(rng.choice(10, size=int(rng.integers(1, 5)), replace=False).tolist()) for _ in range(n)]
    item_weights = rng.uniform(0.5, 2.0, 10)
    factor = rng.normal(size=(n, 3))
    kernel = factor @ factor.T  # PSD of rank 3

    def log_det(index):
        index = sorted(index)
        if not index:
            return 0.0
        return float(np.log(np.linalg.det(np.eye(len(index)) + kernel[np.ix_(index, index)])))

    everything = set(range(n))
    return [
        ("GraphCut", GraphCut(symmetric), boundary(undirected_graph), False),
        ("DirectedCut", DirectedCut(directed), boundary(directed_graph), False),
        ("FacilityLocation", FacilityLocation(similarity),
         lambda s: float(sum(max((similarity[c, j] for j in s), default=0.0) for c in range(5))), True),
        ("Coverage", Coverage(sets, item_weights),
         lambda s: float(sum(item_weights[i] for i in set().union(*(sets[j] for j in s)))), True),
        ("LogDet", LogDet(kernel), log_det, True),
        ("LogDet(monotone=False)", LogDet(kernel, monotone=False),
         lambda s: log_det(s) + log_det(everything - set(s)) - log_det(everything), False),
    ]


def _check_hypotheses(ctx: Context) -> Outcome:
    subsets = [frozenset(c) for r in range(N_HYPOTHESES + 1)
               for c in itertools.combinations(range(N_HYPOTHESES), r)]
    worst = {"reference": 0.0, "negative": 0.0, "submodularity": 0.0, "monotonicity": 0.0}
    failures: list[str] = []
    for draw in range(ctx.pick(4, 20)):
        rng = np.random.default_rng([ctx.seed, 91, draw])
        for name, f, reference, monotone in _function_instances(rng):
            value = {s: f(s) for s in subsets}
            scale = max(1.0, max(abs(v) for v in value.values()))
            # every formula is a sum of O(n²) terms or a 7×7 log-determinant of a well-conditioned
            # I + K: 1e-9 relative is ~10⁵ ulps, far above round-off and far below any dropped term
            tol = 1e-9 * scale
            errors = {
                "reference": max(abs(value[s] - reference(s)) for s in subsets),
                "negative": max(0.0, -min(value.values())),
                "submodularity": max(
                    value[s | {a, b}] + value[s] - value[s | {a}] - value[s | {b}]
                    for s in subsets for a, b in itertools.combinations(range(N_HYPOTHESES), 2)
                    if a not in s and b not in s),
                "monotonicity": max((value[s] - value[s | {a}] for s in subsets for a in range(N_HYPOTHESES)
                                     if a not in s), default=0.0) if monotone else 0.0,
            }
            for key, err in errors.items():
                worst[key] = max(worst[key], err / scale)
                if err > tol:
                    failures.append(f"{name} (draw {draw}): {key} off by {err:.3g}")
    return fact(
        not failures,
        "every ready-made function equals its defining formula (networkx edge boundaries for the cuts), "
        "is >= 0 and submodular on all subsets, and is monotone where declared"
        + (f"; first failures: {failures[:3]}" if failures else ""),
        **{f"worst_{k}_relative": v for k, v in worst.items()},
    )


def _control_hypotheses(ctx: Context) -> Outcome:
    original = LogDet.__call__

    def dropped_outside_term(self, subset):
        """The bug: the non-monotone log-det without its log det(I + K_{V∖S}) term (clipped at 0)."""
        if self.monotone:
            return original(self, subset)
        self._check(subset)
        return max(self._logdet(sorted(subset)) - self._total, 0.0)

    with patched(LogDet, "__call__", dropped_outside_term):
        return _check_hypotheses(ctx)


register(Claim(
    id="dynamic_matchoid.function_hypotheses", paper=PAPER,
    source=f"Theorem 1.1 and Proposition 1.3 (their hypotheses: f >= 0 submodular, monotone for 1.3; "
           f"{SOURCE})",
    origin=Origin.IMPLEMENTATION, covers=(),
    deviation="A check of the inputs the other claims feed the theorem, not of the theorem: exhaustive on "
              "7 elements, against formulas written independently here.",
    statement="On random instances with 7 elements (4 draws, full: 20), the ready-made GraphCut, "
              "DirectedCut, FacilityLocation, Coverage and LogDet (monotone and not) equal their defining "
              "formulas on every subset (the cuts against networkx's edge boundary), are non-negative, "
              "satisfy f(S + a) + f(S + b) >= f(S + a + b) + f(S) for every S and a, b outside it, and the "
              "three declared monotone are monotone: the hypotheses Theorem 1.1 and Proposition 1.3 rest on.",
    kind=Kind.PROPERTY, check=_check_hypotheses, control=_control_hypotheses,
    control_description="The non-monotone log-det with its log det(I + K_{V∖S}) term dropped (clipped at 0, "
                        "so still non-negative): it no longer equals the mutual-information formula.",
    budget_s=20.0,
))


# ---- assumptions at their boundary ---------------------------------------------------------------
def _assumption_cases() -> list[Boundary]:
    """Every documented input condition of the family, probed just inside and just outside."""
    tiny = 1e-12  # one step past a real-valued boundary, far below any value the claims use
    below_one = math.nextafter(1.0, 0.0)

    def cut(weights):
        return GraphCut(np.asarray(weights, dtype=float))

    def dcut(weights, **kw):
        return DirectedCut(np.asarray(weights, dtype=float), **kw)

    def stream(updates):
        return UpdateStream(len, Matchoid([UniformMatroid(1)]), updates)

    def maximizer(**kw):
        return DynamicMatchoidMaximizer(len, Matchoid([UniformMatroid(2)]), **kw)

    def inserted(f, e, **kw):
        dm = DynamicMatchoidMaximizer(f, Matchoid([UniformMatroid(2, ground=range(3))]), **kw)
        dm.insert(e)
        return dm

    def deleted(e):
        dm = maximizer()
        dm.insert(0)
        dm.delete(e)

    def value(v, subset=()):
        # v at `subset` only (0 elsewhere): the oracle probes f once at the empty set when it is built
        target = frozenset(subset)
        oracle = oracle_module.CountingOracle(lambda s: v if s == target else 0.0,
                                              Matchoid([UniformMatroid(1)]))
        return oracle.value(frozenset(subset))

    def brute(n):
        problem = MatchoidMaximization(len, Matchoid([UniformMatroid(1)]), range(n))
        return solve(problem, BruteForce(), maxiters=1)

    def decode(x):
        return stream([("insert", "a"), ("insert", "b")]).decode(x)

    laminar_ok, laminar_bad = [{1, 2}, {1}], [{1, 2}, {2, 3}]
    return [
        # matroids
        Boundary("uniform rank k >= 1", "k", lambda: UniformMatroid(1), lambda: UniformMatroid(0)),
        Boundary("uniform rank k an int", "k", lambda: UniformMatroid(2), lambda: UniformMatroid(2.0)),
        Boundary("uniform rank k not a bool", "k", lambda: UniformMatroid(1), lambda: UniformMatroid(True)),
        Boundary("uniform ground an iterable, not a string", "ground", lambda: UniformMatroid(1, ("a", "b")),
                 lambda: UniformMatroid(1, "ab")),
        Boundary("uniform ground of hashable elements", "ground", lambda: UniformMatroid(1, [(1,)]),
                 lambda: UniformMatroid(1, [[1]])),
        Boundary("partition part_of a mapping", "part_of", lambda: PartitionMatroid({0: "a"}, 1),
                 lambda: PartitionMatroid([(0, "a")], 1)),
        Boundary("partition parts hashable", "part_of", lambda: PartitionMatroid({0: ("a",)}, 1),
                 lambda: PartitionMatroid({0: ["a"]}, 1)),
        Boundary("partition capacity >= 0", "capacity", lambda: PartitionMatroid({0: "a"}, 0),
                 lambda: PartitionMatroid({0: "a"}, -1)),
        Boundary("partition capacity per part >= 0", "capacity", lambda: PartitionMatroid({0: "a"}, {"a": 0}),
                 lambda: PartitionMatroid({0: "a"}, {"a": -1})),
        Boundary("partition capacity for every part", "capacity",
                 lambda: PartitionMatroid({0: "a", 1: "b"}, {"a": 1, "b": 1}),
                 lambda: PartitionMatroid({0: "a", 1: "b"}, {"a": 1})),
        Boundary("graphic endpoints a mapping", "endpoints", lambda: GraphicMatroid({0: (0, 1)}),
                 lambda: GraphicMatroid([(0, 1)])),
        Boundary("graphic edges are pairs", "endpoints", lambda: GraphicMatroid({0: (0, 1)}),
                 lambda: GraphicMatroid({0: (0, 1, 2)})),
        Boundary("graphic vertices hashable", "endpoints", lambda: GraphicMatroid({0: ((0,), 1)}),
                 lambda: GraphicMatroid({0: ([0], 1)})),
        Boundary("laminar sets nested or disjoint", "sets", lambda: LaminarMatroid(laminar_ok, [1, 1]),
                 lambda: LaminarMatroid(laminar_bad, [1, 1])),
        Boundary("laminar one capacity per set", "sets", lambda: LaminarMatroid([{1}], [1]),
                 lambda: LaminarMatroid([{1}], [1, 1])),
        Boundary("laminar capacities >= 0", "capacities", lambda: LaminarMatroid([{1}], [0]),
                 lambda: LaminarMatroid([{1}], [-1])),
        Boundary("laminar sets a sequence", "sets", lambda: LaminarMatroid([{1}], [1]),
                 lambda: LaminarMatroid("a", [1])),
        Boundary("laminar capacities a sequence", "capacities", lambda: LaminarMatroid([{1}], [1]),
                 lambda: LaminarMatroid([{1}], "1")),
        Boundary("laminar sets of elements", "sets", lambda: LaminarMatroid([{1}], [1]),
                 lambda: LaminarMatroid([1], [1])),
        Boundary("matchoid of one matroid or more", "matroids", lambda: Matchoid([UniformMatroid(1)]),
                 lambda: Matchoid([])),
        Boundary("matchoid a sequence, not one matroid", "matroids", lambda: Matchoid([UniformMatroid(1)]),
                 lambda: Matchoid(UniformMatroid(1))),
        Boundary("matchoid entries are matroids", "matroids", lambda: Matchoid([UniformMatroid(1)]),
                 lambda: Matchoid([UniformMatroid(1), 1])),
        Boundary("matchoid rank k >= 1", "rank", lambda: Matchoid([UniformMatroid(1)], rank=1),
                 lambda: Matchoid([UniformMatroid(1)], rank=0)),
        Boundary("some element lies in a matroid (p >= 1)", "matroids",
                 lambda: Matchoid([UniformMatroid(1, ground=[0])]),
                 lambda: Matchoid([UniformMatroid(1, ground=[])])),
        # set functions (f >= 0 is what the theorems assume)
        Boundary("cut weights >= 0", "weights", lambda: cut([[0.0, 0.0], [0.0, 0.0]]),
                 lambda: cut([[0.0, -tiny], [-tiny, 0.0]])),
        Boundary("directed cut weights >= 0", "weights", lambda: dcut([[0.0, 0.0], [0.0, 0.0]]),
                 lambda: dcut([[0.0, -tiny], [0.0, 0.0]])),
        Boundary("undirected cut weights symmetric", "weights", lambda: cut([[0.0, 1.0], [1.0, 0.0]]),
                 lambda: cut([[0.0, 1.0], [0.0, 0.0]])),
        Boundary("cut weights square", "weights", lambda: dcut(np.zeros((2, 2))),
                 lambda: dcut(np.zeros((2, 3)))),
        Boundary("cut weights numeric", "weights", lambda: dcut([[0.0]]), lambda: DirectedCut("w")),
        Boundary("cut of an undirected graph", "weights", lambda: GraphCut(nx.path_graph(2)),
                 lambda: GraphCut(nx.DiGraph([(0, 1)]))),
        Boundary("cut graph non-empty", "weights", lambda: DirectedCut(nx.DiGraph([(0, 1)])),
                 lambda: DirectedCut(nx.DiGraph())),
        Boundary("cut weight attribute a name or None", "weight", lambda: dcut([[0.0]], weight=None),
                 lambda: dcut([[0.0]], weight=1)),
        Boundary("facility similarities >= 0", "similarity", lambda: FacilityLocation(np.zeros((1, 2))),
                 lambda: FacilityLocation(np.array([[0.0, -tiny]]))),
        Boundary("coverage of one set or more", "sets", lambda: Coverage([{0}]), lambda: Coverage([])),
        Boundary("coverage items are ints >= 0", "sets", lambda: Coverage([{0}]), lambda: Coverage([{-1}])),
        Boundary("coverage sets iterable", "sets", lambda: Coverage([{0}]), lambda: Coverage([0])),
        Boundary("coverage sets a sequence", "sets", lambda: Coverage(({0},)),
                 lambda: Coverage({frozenset({0})})),
        Boundary("coverage one weight per item", "item_weights", lambda: Coverage([{0, 1}], [1.0, 1.0]),
                 lambda: Coverage([{0, 1}], [1.0])),
        Boundary("coverage weights >= 0", "item_weights", lambda: Coverage([{0}], [0.0]),
                 lambda: Coverage([{0}], [-tiny])),
        Boundary("log-det kernel PSD", "kernel", lambda: LogDet(np.zeros((1, 1))),
                 lambda: LogDet(-np.eye(1))),
        Boundary("log-det monotone a bool", "monotone", lambda: LogDet(np.eye(1), monotone=False),
                 lambda: LogDet(np.eye(1), monotone=1)),
        Boundary("elements of f are ints < n", "elements", lambda: GraphCut(np.zeros((2, 2)))(frozenset({1})),
                 lambda: GraphCut(np.zeros((2, 2)))(frozenset({2}))),
        Boundary("elements of f are ints >= 0", "elements", lambda: Coverage([{0}])(frozenset({0})),
                 lambda: Coverage([{0}])(frozenset({-1}))),
        Boundary("elements of f are ints", "elements", lambda: LogDet(np.eye(2))(frozenset({np.int64(1)})),
                 lambda: LogDet(np.eye(2))(frozenset({1.0}))),
        # the query counter: f >= 0 and finite, as the theorems need
        Boundary("f a callable", "f",
                 lambda: oracle_module.CountingOracle(len, Matchoid([UniformMatroid(1)])),
                 lambda: oracle_module.CountingOracle(3, Matchoid([UniformMatroid(1)]))),
        Boundary("the constraint a Matchoid", "matchoid",
                 lambda: oracle_module.CountingOracle(len, Matchoid([UniformMatroid(1)])),
                 lambda: oracle_module.CountingOracle(len, [UniformMatroid(1)])),
        Boundary("f(S) >= 0", "non-negative", lambda: value(0.0), lambda: value(-5e-324)),
        Boundary("f(S) finite", "non-finite", lambda: value(1e308), lambda: value(math.inf)),
        Boundary("f(S) a number", "real number", lambda: value(np.float32(1.0)), lambda: value("one")),
        # the refusal shows a long S cut after 8 elements and says so (", ..."), never as if complete
        Boundary("f(S) >= 0 on a 9-element S (the refusal lists 0..7 and marks the cut)", "7, ...}",
                 lambda: value(0.0, range(9)), lambda: value(-1.0, range(9))),
        # problems
        Boundary("elements distinct", "elements",
                 lambda: MatchoidMaximization(len, Matchoid([UniformMatroid(1)]),
                                                                               [0, 1]),
                 lambda: MatchoidMaximization(len, Matchoid([UniformMatroid(1)]), [0, 0])),
        Boundary("elements an iterable, not a string", "elements",
                 lambda: MatchoidMaximization(len, Matchoid([UniformMatroid(1)]), ("ab",)),
                 lambda: MatchoidMaximization(len, Matchoid([UniformMatroid(1)]), "ab")),
        Boundary("the problem's f callable", "f", lambda: stream([]),
                 lambda: UpdateStream(None, Matchoid([UniformMatroid(1)]), [])),
        Boundary("the problem's constraint a Matchoid", "matchoid", lambda: stream([]),
                 lambda: UpdateStream(len, UniformMatroid(1), [])),
        Boundary("updates a sequence", "updates", lambda: stream([("insert", 0)]),
                 lambda: stream(iter([("insert", 0)]))),
        Boundary("an insertion of an absent element", "updates[2]",
                 lambda: stream([("insert", 0), ("delete", 0), ("insert", 0)]),
                 lambda: stream([("insert", 0), ("insert", 1), ("insert", 0)])),
        Boundary("a deletion of a present element", "updates[1]",
                 lambda: stream([("insert", 0), ("delete", 0)]),
                 lambda: stream([("insert", 0), ("delete", 1)])),
        Boundary("update kinds insert/delete", "kind", lambda: stream([("insert", 0)]),
                 lambda: stream([("add", 0)])),
        Boundary("updates are pairs", "updates[0]", lambda: stream([["insert", 0]]),
                 lambda: stream([("insert", 0, 1)])),
        Boundary("update elements hashable", "element", lambda: stream([("insert", (0,))]),
                 lambda: stream([("insert", [0])])),
        Boundary("decode an indicator of the universe's length", "shape", lambda: decode([1.0, 0.0]),
                 lambda: decode([1.0, 0.0, 0.0])),
        Boundary("brute force at most 30 elements", "elements", lambda: brute(30), lambda: brute(31)),
        # the dynamic algorithm
        Boundary("ε < 1", "eps", lambda: DynamicMatchoid(eps=below_one), lambda: DynamicMatchoid(eps=1.0)),
        Boundary("ε > 0", "eps", lambda: maximizer(eps=WORKING_MIN), lambda: maximizer(eps=0.0)),
        Boundary("ε a real number", "eps", lambda: maximizer(eps=np.float32(0.5)),
                 lambda: maximizer(eps="0.5")),
        Boundary("ε not a bool", "eps", lambda: DynamicMatchoid(eps=0.5), lambda: DynamicMatchoid(eps=True)),
        Boundary("seed >= 0", "seed", lambda: maximizer(seed=0), lambda: maximizer(seed=-1)),
        Boundary("seed < 2**64", "seed", lambda: maximizer(seed=2**64 - 1), lambda: maximizer(seed=2**64)),
        Boundary("seed an int or None", "seed", lambda: maximizer(seed=None), lambda: maximizer(seed=1.0)),
        Boundary("MAX > 0", "max_value", lambda: DynamicMatchoid(max_value=WORKING_MIN),
                 lambda: DynamicMatchoid(max_value=0.0)),
        Boundary("MAX finite", "max_value", lambda: maximizer(max_value=WORKING_MAX),
                 lambda: maximizer(max_value=math.inf)),
        Boundary("MAX a real number", "max_value", lambda: maximizer(max_value=2),
                 lambda: maximizer(max_value=True)),
        Boundary("MAX bounds every f({e})", "max_value", lambda: inserted(len, 0, max_value=1.0),
                 lambda: inserted(lambda s: (1 + 1e-15) * len(s), 0, max_value=1.0)),
        Boundary("monotone a bool (algorithm)", "monotone", lambda: DynamicMatchoid(monotone=True),
                 lambda: DynamicMatchoid(monotone=1)),
        Boundary("monotone a bool (maximizer)", "monotone", lambda: maximizer(monotone=True),
                 lambda: maximizer(monotone=1)),
        Boundary("MAX guess parallel or current", "max_guess", lambda: DynamicMatchoid(max_guess="current"),
                 lambda: DynamicMatchoid(max_guess="serial")),
        Boundary("p an int >= 1", "p", lambda: sampling_parameters(1), lambda: sampling_parameters(0)),
        Boundary("p an int", "p", lambda: sampling_parameters(np.int64(2)), lambda: sampling_parameters(2.0)),
        Boundary("p not a bool", "p", lambda: sampling_parameters(1), lambda: sampling_parameters(True)),
        Boundary("an inserted element lies in a matroid", "no matroid", lambda: inserted(len, 2),
                 lambda: inserted(len, 3)),
        Boundary("an inserted element hashable", "hashable", lambda: inserted(len, 0),
                 lambda: inserted(len, [0])),
        Boundary("a deleted element present", "absent", lambda: deleted(0), lambda: deleted(1)),
    ]


def _check_assumptions(ctx: Context, *, shifted: bool) -> Outcome:
    return boundary_outcome(_assumption_cases(), shifted=shifted)


register(Claim(
    id=f"{PAPER}.assumptions", paper=PAPER, origin=Origin.IMPLEMENTATION, covers=(),
    source=f"the setting of Theorem 1.1 and Proposition 1.3: f >= 0 submodular, matroid constraints, "
           f"0 < ε < 1, a consistent update stream ({SOURCE})",
    deviation="An implementation check, not a result: the package's constructors and public functions "
              "accept exactly the instances the theorems cover (the paper's Theorem 1.1 allows ε = 1; we "
              "follow the issue tracker and require ε < 1, see the note).",
    statement="Each documented input condition of the family (matroid ranks and capacities ints >= 0 or "
              ">= 1, partition parts all capacitated, graphic edges pairs, laminar sets nested or disjoint, "
              "a matchoid of >= 1 matroids covering some element with rank >= 1; cut, facility, coverage and "
              "log-det data non-negative / PSD; set functions' elements ints in [0, n); f(S) finite and "
              ">= 0; "
              "distinct elements; a consistent stream of insert/delete pairs; brute force on <= 30 elements; "
              "0 < ε < 1, seed in [0, 2**64), 0 < MAX < ∞ bounding every f({e}), p an int >= 1; an inserted "
              "element absent, hashable and in some matroid) is enforced at its boundary: the value just "
              "inside is accepted, the value just outside (one unit, one float step or 1e-12 past it) is "
              "refused with a ValueError or TypeError naming the argument; a refusal of f(S) < 0 on a "
              "9-element S lists its first 8 elements and marks the rest with \", ...\".",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_assumptions(ctx, shifted=False),
    control=lambda ctx: _check_assumptions(ctx, shifted=True),
    control_description="every boundary claimed one step inward (the value just inside stated as outside): "
                        "those values are accepted, so the same check must fail.",
    budget_s=10.0,
))


# ---- the reference oracles against their definitions ---------------------------------------------
def _defined_independent(matroid, subset: frozenset) -> bool:
    """Independence by the textbook definition of each matroid class, written here independently."""
    if isinstance(matroid, UniformMatroid):
        return len(subset) <= matroid.k
    if isinstance(matroid, PartitionMatroid):
        return all(sum(matroid.part_of[e] == part for e in subset) <= cap
                   for part, cap in matroid.capacity.items())
    if isinstance(matroid, LaminarMatroid):
        return all(len(subset & members) <= cap for members, cap in zip(matroid.sets, matroid.capacities))
    if isinstance(matroid, GraphicMatroid):  # a forest: each edge joins two different components
        components: list[set] = []
        for element in subset:
            u, v = matroid.endpoints[element]
            cu = next((c for c in components if u in c), {u})
            cv = next((c for c in components if v in c), {v})
            if cu is cv or u == v:
                return False
            components = [c for c in components if c is not cu and c is not cv] + [cu | cv]
        return True
    raise TypeError(f"no definition for {type(matroid).__name__}")


def _reference_matroids(seed: int) -> list:
    """The matroids of the stream claims (their _small_instance constraints) and random ones of each class."""
    rng = np.random.default_rng([seed, 11])
    found = [m for p in (1, 2, 3) for s in (seed, seed + 1) for m in _small_instance(p, s)[1].matroids]
    parts = {e: int(rng.integers(3)) for e in range(N_SMALL)}
    found.append(PartitionMatroid(parts, {part: int(rng.integers(0, 3)) for part in set(parts.values())}))
    # capacities above their part's size (slack parts count their size in the rank), and a zero capacity
    found.append(PartitionMatroid({e: e % 4 for e in range(6)}, {0: 1, 1: 3, 2: 0, 3: 2}))
    vertices = int(rng.integers(3, 6))   # a multigraph: parallel edges and self-loops included
    found.append(GraphicMatroid({e: (int(rng.integers(vertices)), int(rng.integers(vertices)))
                                 for e in range(N_SMALL)}))
    found.append(LaminarMatroid([set(range(N_SMALL)), set(range(6)), {6, 7, 8}, {0, 1, 2}],
                                [int(c) for c in rng.integers(0, 4, size=4)]))
    found.append(UniformMatroid(int(rng.integers(1, 5)), ground=range(N_SMALL)))
    return found


def _check_references(ctx: Context) -> Outcome:
    """Each matroid's is_independent and rank, the matchoid's, the counter's can_add and BruteForce's OPT,
    count and budget against enumeration of every subset."""
    subsets = [frozenset(s) for r in range(N_SMALL + 1) for s in itertools.combinations(range(N_SMALL), r)]
    wrong: list[str] = []
    draws = ctx.pick(1, 10)
    checked = {"matroids": 0, "subsets": 0, "brute_force": 0}
    for draw in range(draws):
        seed = ctx.seed * 1000 + draw
        for matroid in _reference_matroids(seed):
            ground = subsets if matroid.ground is None else [s for s in subsets if s <= matroid.ground]
            defined = {s: _defined_independent(matroid, s) for s in ground}
            independent = [s for s in ground if defined[s]]
            bad = [s for s in ground if matroid.is_independent(s) != defined[s]]
            if bad:
                wrong.append(f"{matroid!r}: is_independent({sorted(bad[0])}) disagrees with the definition")
            rank = max(len(s) for s in independent)
            if matroid.ground is not None and matroid.rank != rank:
                wrong.append(f"{matroid!r}: rank {matroid.rank}, the largest independent set has {rank}")
            checked["matroids"] += 1
            checked["subsets"] += len(ground)
        for p in (1, 2, 3):
            f, matchoid = _small_instance(p, seed)
            oracle = oracle_module.CountingOracle(f, matchoid)
            independent = [s for s in subsets if all(
                _defined_independent(m, s if m.ground is None else s & m.ground) for m in matchoid.matroids)]
            chosen = set(independent)
            if any(matchoid.is_independent(s) != (s in chosen) for s in subsets):
                wrong.append(f"p = {p}: Matchoid.is_independent disagrees with its matroids")
            for s in independent[:: max(1, len(independent) // 40)]:
                for e in range(N_SMALL):
                    if e not in s and oracle.can_add(s, e) != ((s | {e}) in chosen):
                        wrong.append(f"p = {p}: can_add({sorted(s)}, {e}) is {(s | {e}) not in chosen}")
                        break
            # BruteForce on the first 8 elements: OPT, the set, the number of sets it evaluates, its budget
            elements = list(range(8))
            mine = [s for s in independent if s <= frozenset(elements)]
            opt = max(f(s) for s in mine)
            problem = MatchoidMaximization(f, matchoid, elements)
            sol = solve(problem, BruteForce())
            found = problem.decode(sol.x)
            # 1e-12 relative: OPT here and sol.value are f of the same set, equal up to summation order
            if not (sol.retcode.name == "Success" and found in chosen and sol.value == f(found)
                    and abs(sol.value - opt) <= 1e-12 * max(1.0, opt)):
                wrong.append(f"p = {p}: BruteForce gave {sorted(found)} of value {sol.value!r} "
                             f"({sol.retcode.name}); OPT = {opt!r}")
            if sol.stats.iterations != len(mine) or sol.stats.f_calls != len(mine):
                wrong.append(f"p = {p}: BruteForce evaluated {sol.stats.iterations} sets "
                             f"({sol.stats.f_calls} f calls); there are {len(mine)} independent sets")
            capped = solve(problem, BruteForce(), maxiters=len(mine) - 1)
            if capped.retcode.name != "MaxIters" or capped.stats.iterations != len(mine) - 1:
                wrong.append(f"p = {p}: BruteForce with maxiters = {len(mine) - 1}: {capped.retcode.name} "
                             f"after {capped.stats.iterations} sets")
            none = solve(problem, BruteForce(), maxiters=0, store_trace=True)  # no set evaluated: one record
            if (none.retcode.name, none.stats.iterations, none.trace) != (
                    "MaxIters", 0, [{"iteration": 0, "value": 0.0, "size": 0}]):
                wrong.append(f"p = {p}: BruteForce with maxiters = 0: {none.retcode.name}, "
                             f"{none.stats.iterations} sets, trace {none.trace}")
            checked["brute_force"] += 1
    evidence = {**checked, "wrong": wrong[:10]}
    if wrong:
        return Outcome("fail", f"{len(wrong)} disagreement(s) with the definitions; first: {wrong[0]}",
                       evidence)
    return Outcome("pass", f"{checked['matroids']} matroids on {checked['subsets']} subsets, the matchoids' "
                           f"independence and can_add, and {checked['brute_force']} brute-force optima, "
                           "counts and budgets agree with enumeration", evidence)


def _control_references(ctx: Context) -> Outcome:
    def one_too_many(self, subset):
        """The bug: one element past a part's capacity still passes (each part's count starts one low)."""
        counts: dict = {}
        for element in subset:
            counts[self.part_of[element]] = counts.get(self.part_of[element], -1) + 1
        return all(count <= self.capacity[part] for part, count in counts.items())

    with patched(PartitionMatroid, "is_independent", one_too_many):
        return _check_references(ctx)


register(Claim(
    id="dynamic_matchoid.reference_oracles", paper=PAPER, origin=Origin.IMPLEMENTATION, covers=(),
    source=f"the model of Section 3 (matroid independence oracles, a p-matchoid, OPT_t over independent "
           f"sets) that every other claim's instances and brute-force OPT rest on ({SOURCE})",
    deviation="An implementation check, not a result: the other claims judge the algorithm with these "
              "oracles, so a wrong oracle would make them agree with a wrong algorithm.",
    statement="On every subset of 10 elements, the uniform, partition, laminar and graphic matroids of the "
              "stream claims' instances and random ones of each class (multigraphs with loops and parallel "
              "edges included) answer is_independent as their definitions, and their rank is the size of "
              "their largest independent set; each p = 1, 2, 3 matchoid is independent exactly where every "
              "matroid is, its counter's can_add(S, e) is the independence of S + e, and BruteForce on 8 "
              "elements returns an independent set of value OPT (enumerated here), evaluates exactly one "
              "f per independent set, and stops with MaxIters after maxiters sets (with maxiters = 0: no "
              "set, one trace record at iteration 0); 1 draw (full: 10).",
    kind=Kind.PROPERTY, check=_check_references, control=_control_references,
    control_description="A partition matroid that passes a set one element past a part's capacity (the "
                        "count started one too low): it disagrees with the definition, so the check must "
                        "fail.",
    budget_s=20.0,
))
