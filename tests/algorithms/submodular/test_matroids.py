import itertools

import pytest

from algorithms.submodular import GraphicMatroid, LaminarMatroid, Matchoid, PartitionMatroid, UniformMatroid


def _exchange_axiom_holds(matroid, ground):
    independent = [frozenset(s) for r in range(len(ground) + 1) for s in itertools.combinations(ground, r)
                   if matroid.is_independent(frozenset(s))]
    for a, b in itertools.product(independent, repeat=2):
        if len(a) < len(b) and not any(matroid.is_independent(a | {x}) for x in b - a):
            return False
    return all(matroid.is_independent(frozenset(s)) for i in independent
               for r in range(len(i)) for s in itertools.combinations(i, r))


@pytest.mark.parametrize("matroid, ground", [
    (UniformMatroid(2), range(5)),
    (PartitionMatroid({0: "a", 1: "a", 2: "b", 3: "b", 4: "c"}, {"a": 1, "b": 2, "c": 0}), range(5)),
    (GraphicMatroid({0: (0, 1), 1: (1, 2), 2: (0, 2), 3: (2, 3), 4: (3, 3)}), range(5)),
    (LaminarMatroid([{0, 1, 2, 3, 4}, {0, 1}, {2, 3}], [3, 1, 1]), range(5)),
])
def test_each_matroid_satisfies_the_axioms(matroid, ground):
    assert _exchange_axiom_holds(matroid, list(ground))


def test_ranks():
    assert UniformMatroid(3).rank == 3 and UniformMatroid(3, ground=[1, 2]).rank == 2
    assert PartitionMatroid({0: "a", 1: "a", 2: "b"}, 1).rank == 2
    assert GraphicMatroid({0: (0, 1), 1: (1, 2), 2: (0, 2), 3: (5, 6)}).rank == 3
    assert LaminarMatroid([{0, 1, 2}, {0, 1}], [2, 1]).rank == 2


def test_graphic_loops_and_parallel_edges_are_dependent():
    g = GraphicMatroid({"loop": (1, 1), "a": (1, 2), "b": (2, 1)})
    assert not g.is_independent(frozenset({"loop"}))
    assert not g.is_independent(frozenset({"a", "b"}))
    assert g.is_independent(frozenset({"a"}))


def test_matchoid_p_rank_and_independence():
    left = PartitionMatroid({0: "u", 1: "u", 2: "v"}, 1)
    right = PartitionMatroid({0: "x", 1: "y", 2: "y"}, 1)
    m = Matchoid([left, right])
    assert m.p == 2 and m.rank == 4
    assert m.is_independent({0, 2}) and not m.is_independent({0, 1}) and not m.is_independent({1, 2})
    assert m.matroids_of(2) == (0, 1)
    assert Matchoid([left, right], rank=2).rank == 2
    everywhere = Matchoid([left, UniformMatroid(1)])
    assert everywhere.p == 2 and everywhere.rank == 1 and everywhere.covers("anything")
    assert not m.covers("anything")


def test_paper_counterexample_matchoid():
    """The 2-matchoid of the paper's Section 1.1.2: independent sets ∅, {1}, {2}, {3}, {2, 3}."""
    m = Matchoid([UniformMatroid(1, ground=[1, 2]), UniformMatroid(1, ground=[1, 3])])
    independent = {frozenset(s) for r in range(4) for s in itertools.combinations([1, 2, 3], r)
                   if m.is_independent(s)}
    assert independent == {frozenset(), frozenset({1}), frozenset({2}), frozenset({3}), frozenset({2, 3})}
