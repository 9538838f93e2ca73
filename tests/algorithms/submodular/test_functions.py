import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms.submodular import Coverage, DirectedCut, FacilityLocation, GraphCut, LogDet

RNG = np.random.default_rng(0)
N = 6
_SYM = np.triu(RNG.random((N, N)), 1)
_X = RNG.normal(size=(N, 3))

FUNCTIONS = {
    "cut": GraphCut(_SYM + _SYM.T),
    "sparse cut": GraphCut(sp.csr_matrix(_SYM + _SYM.T)),
    "directed cut": DirectedCut(RNG.random((N, N)) * (1 - np.eye(N))),
    "facility": FacilityLocation(RNG.random((4, N))),
    "coverage": Coverage([{0, 1}, {1, 2, 3}, {3}, {4, 5}, {0, 5}, {2}], item_weights=RNG.random(6)),
    "logdet": LogDet(_X @ _X.T),
    "mutual information": LogDet(_X @ _X.T, monotone=False),
}
MONOTONE = {"facility", "coverage", "logdet"}
SUBSETS = [frozenset(s) for r in range(N + 1) for s in itertools.combinations(range(N), r)]


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_nonnegative_and_submodular(name):
    f = FUNCTIONS[name]
    values = {s: f(s) for s in SUBSETS}
    assert min(values.values()) >= 0
    for a in SUBSETS:
        for e in range(N):
            if e in a:
                continue
            for extra in range(N):
                b = a | {extra}
                if e in b:
                    continue
                assert values[a | {e}] - values[a] >= values[b | {e}] - values[b] - 1e-9


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_monotone_exactly_when_documented(name):
    f = FUNCTIONS[name]
    monotone = all(f(s | {e}) >= f(s) - 1e-12 for s in SUBSETS for e in range(N))
    assert monotone == (name in MONOTONE)


def test_closed_forms():
    w = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 4.0], [2.0, 4.0, 0.0]])
    assert GraphCut(w)(frozenset({0})) == 3.0 and GraphCut(w)(frozenset({0, 1})) == 6.0
    assert DirectedCut(np.triu(w))(frozenset({1})) == 4.0
    assert Coverage([{0}, {0, 1}])(frozenset({0, 1})) == 2.0
    k = np.array([[1.0, 0.0], [0.0, 3.0]])
    assert np.isclose(LogDet(k)(frozenset({0, 1})), np.log(2.0) + np.log(4.0))
    assert LogDet(k, monotone=False)(frozenset({0})) == pytest.approx(0.0, abs=1e-12)  # independent parts


def test_float32_data_keeps_its_dtype():
    assert GraphCut(np.eye(2, dtype=np.float32)[::-1].copy()).dtype is np.float32
    assert FacilityLocation(np.ones((2, 2))).dtype is np.float64


def test_elements_out_of_range_are_named():
    with pytest.raises(ValueError, match=r"ints in \[0, 6\)"):
        FUNCTIONS["cut"](frozenset({6}))


def test_graph_cut_takes_a_networkx_graph():
    import networkx as nx

    G = nx.Graph()
    G.add_edge("x", "y", weight=2.0)
    G.add_edge("y", "z", weight=0.5)
    G.add_edge("x", "z")                     # no weight attribute: 1, networkx's convention
    cut = GraphCut(G)
    dense = GraphCut(nx.to_numpy_array(G, nodelist=list(G.nodes)))
    for r in range(4):
        for S in itertools.combinations(range(3), r):
            assert cut(frozenset(S)) == dense(frozenset(S))
    assert cut(cut.from_nodes({"x"})) == 3.0 and cut.to_nodes({1, 2}) == frozenset({"y", "z"})
    unweighted = GraphCut(G, weight=None)
    assert unweighted(unweighted.from_nodes({"x"})) == 2.0
    directed = DirectedCut(nx.DiGraph([("a", "b", {"weight": 4.0})]))
    assert directed(directed.from_nodes({"a"})) == 4.0 and directed(directed.from_nodes({"b"})) == 0.0
