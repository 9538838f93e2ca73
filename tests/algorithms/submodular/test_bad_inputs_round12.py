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


def _facility():
    import numpy as np

    from algorithms.submodular import FacilityLocation
    return FacilityLocation(np.array([[1.0, 0.5], [0.0, 2.0]]))


def _coverage():
    from algorithms.submodular import Coverage
    return Coverage([{0, 1}, {1}], item_weights=[1.0, 2.0])


def _logdet():
    import numpy as np

    from algorithms.submodular import LogDet
    return LogDet(np.eye(2))


@pytest.mark.parametrize("make, name",
                         [(_facility, "similarity"), (_coverage, "item_weights"), (_logdet, "kernel")])
def test_ready_made_functions_arrays_cannot_be_made_writable(make, name):
    # setflags(write=True) then a write was answered from (or against) the changed array in silence
    f = make()
    with pytest.raises(ValueError, match="WRITEABLE"):
        getattr(f, name).setflags(write=True)


def test_a_user_objectives_own_exception_is_named():
    from algorithms import solve
    from algorithms._validation import UserCallableError
    from algorithms.submodular import Greedy, Matchoid, MatchoidMaximization, UniformMatroid

    def f(subset):
        if len(subset) > 1:
            raise KeyError("k")
        return float(len(subset))

    problem = MatchoidMaximization(f, Matchoid([UniformMatroid(2)]), range(4))
    with pytest.raises(UserCallableError, match=r"^f\(S\) raised KeyError"):  # a bare KeyError before
        solve(problem, Greedy())


@pytest.mark.parametrize("name", ["FacilityLocation", "LogDet"])
def test_a_sparse_matrix_is_refused_as_not_dense(name):
    import numpy as np
    import scipy.sparse as sp

    import algorithms.submodular as submodular

    with pytest.raises(TypeError, match=r"must be a dense \(n, n\) array"):  # "got dtype object" before
        getattr(submodular, name)(sp.csr_matrix(np.eye(2)))


def test_a_user_matroids_own_exception_is_named():
    from algorithms._validation import UserCallableError
    from algorithms.submodular import Matchoid, Matroid

    class Raiser(Matroid):
        ground = frozenset(range(6))

        @property
        def rank(self):
            return 2

        def is_independent(self, S):
            if 5 in S:
                raise KeyError("no 5")
            return len(S) <= 2

    with pytest.raises(UserCallableError, match=r"is_independent\(S\) raised KeyError"):  # a bare KeyError
        Matchoid([Raiser()])


@pytest.mark.parametrize("copier", ["pickle", "deepcopy"])
def test_read_only_tables_and_arrays_survive_pickle_and_deepcopy(copier):
    import copy
    import pickle

    from algorithms.submodular import GraphicMatroid, LogDet, Matchoid, PartitionMatroid

    again = (lambda o: pickle.loads(pickle.dumps(o))) if copier == "pickle" else copy.deepcopy
    matroid = again(PartitionMatroid({0: "x", 1: "x", 2: "y"}, {"x": 1, "y": 1}))  # mappingproxy: TypeError
    assert matroid.is_independent(frozenset({0, 2}))
    with pytest.raises(TypeError):
        _set(matroid.capacity, "x", -3)
    again(Matchoid([GraphicMatroid({0: (0, 1), 1: (1, 2)}), matroid]))
    kernel = again(_logdet()).kernel  # numpy gave a writable copy back
    with pytest.raises(ValueError):
        kernel[0, 0] = -5.0
    assert isinstance(again(LogDet(__import__("numpy").eye(2))), LogDet)


def test_a_complex_sparse_weight_matrix_is_refused():
    import numpy as np
    import scipy.sparse as sp

    from algorithms.submodular import GraphCut

    with pytest.raises(TypeError, match=r"^weights must be a real numeric \(n, n\) weight matrix"):
        GraphCut(sp.csr_matrix(np.array([[0, 1 + 1j], [1 + 1j, 0]])))  # the imaginary part was dropped
