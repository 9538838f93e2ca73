"""#43 round 12: the working range (README) in the submodular family, one test per class."""

import pytest

from algorithms.submodular import DynamicMatchoid


@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_a_scale_whose_zero_is_refused_refuses_a_tiny_one(tiny):
    # eps in (0, 1): 5e-324 ran the guesses over float's whole range in silence
    with pytest.raises(ValueError, match=r"^eps = .* is outside the package's working range"):
        DynamicMatchoid(eps=tiny)
    assert DynamicMatchoid(eps=1.2e-38).eps == 1.2e-38


@pytest.mark.parametrize("huge", [1e39, 1e308])
@pytest.mark.parametrize("form", ["graph", "sparse"])
def test_cut_weights_past_the_range_are_refused_as_dense_ones_are(huge, form):
    import networkx as nx
    import numpy as np
    import scipy.sparse as sp

    from algorithms.submodular import GraphCut

    W = np.array([[0.0, huge], [huge, 0.0]])
    weights = nx.Graph([("a", "b", {"weight": huge})]) if form == "graph" else sp.csr_matrix(W)
    for given in (weights, W):
        with pytest.raises(ValueError, match=r"^weights has an entry of magnitude .* outside the package's"):
            GraphCut(given)


def _set(table, key, value):
    table[key] = value


@pytest.mark.parametrize("write", [
    lambda m: _set(m.capacity, "a", -3),
    lambda m: _set(m.part_of, 0, "b"),
])
def test_partition_matroid_tables_are_read_only(write):
    # capacity["a"] = -3 written after construction was used by is_independent in silence
    from algorithms.submodular import PartitionMatroid

    matroid = PartitionMatroid({0: "a", 1: "a"}, capacity=1)
    with pytest.raises(TypeError):
        write(matroid)
    assert matroid.is_independent(frozenset({0})) and not matroid.is_independent(frozenset({0, 1}))


def test_graphic_matroid_endpoints_are_read_only():
    from algorithms.submodular import GraphicMatroid

    matroid = GraphicMatroid({0: (0, 1), 1: (1, 2)})
    with pytest.raises(TypeError):
        matroid.endpoints[0] = (1, 2)
    assert matroid.is_independent(frozenset({0, 1}))
