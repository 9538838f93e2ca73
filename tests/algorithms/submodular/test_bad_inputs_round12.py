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
