"""Round 18: state changed after construction (class A) of the stateful submodular objects."""

import numpy as np
import pytest

from algorithms import solve
from algorithms._validation import UnknownAttributeError
from algorithms.submodular import (
    CountingOracle,
    Coverage,
    DynamicMatchoid,
    DynamicMatchoidMaximizer,
    Matchoid,
    UniformMatroid,
    UpdateStream,
)


def _maximizer() -> DynamicMatchoidMaximizer:
    dm = DynamicMatchoidMaximizer(len, Matchoid([UniformMatroid(2)]), eps=0.1, seed=0)
    for e in range(4):
        dm.insert(e)
    return dm


@pytest.mark.parametrize("name, value", [
    ("eps", 5.0), ("eps", float("nan")), ("seed", 7), ("max_value", -1.0), ("monotone", "no"),
    ("max_guess", "bogus"), ("q", 2.0), ("c", -1.0), ("rebuilds", 3), ("stop_reason", "x"),
    ("epsilon", 0.2), ("matchoid", None), ("f", len),
])
def test_maximizer_settings_cannot_be_set_after_construction(name, value):
    # eps = 5 written after construction was used by the next run built; seed = 7 was ignored
    dm = _maximizer()
    before = (dm.solution(), dm.value, dm.eps, dm.seed)
    # a setting it has: TypeError; a name it does not take (a misspelt epsilon): the README's
    # UnknownAttributeError (an AttributeError and a ValueError), both naming it
    known = name in vars(dm) or hasattr(type(dm), name)
    expected = (TypeError, rf"{name} cannot be set after construction") if known else \
        (UnknownAttributeError, rf"takes no attribute '{name}'")
    with pytest.raises(expected[0], match=expected[1]):
        setattr(dm, name, value)
    assert (dm.solution(), dm.value, dm.eps, dm.seed) == before
    dm.insert(10)   # still usable, with its own settings
    assert dm.eps == 0.1 and len(dm.solution()) == 2


def test_maximizer_from_a_solve_is_sealed_too():
    stream = UpdateStream(len, Matchoid([UniformMatroid(2)]), [("insert", e) for e in range(4)])
    sol = solve(stream, DynamicMatchoid(eps=0.1), seed=0)
    assert sol.original.stop_reason == ""
    with pytest.raises(TypeError, match="eps cannot be set"):
        sol.original.eps = 2.0


@pytest.mark.parametrize("name", ["f", "matchoid", "value_queries", "independence_queries", "queries"])
def test_counting_oracle_cannot_be_edited(name):
    oracle = CountingOracle(len, Matchoid([UniformMatroid(2)]))
    oracle.value(frozenset({0}))
    with pytest.raises((TypeError, AttributeError), match=name):
        setattr(oracle, name, -5)
    assert oracle.value_queries == 1 and oracle.f is len


@pytest.mark.parametrize("where", ["insert", "stream", "static"])
def test_an_element_not_equal_to_itself_is_refused_by_name(where):
    # a float NaN was inserted, then its delete met an IndexError and left the levels corrupted (red18b)
    from algorithms.submodular import Greedy, MatchoidMaximization
    x = float("nan")
    matchoid = Matchoid([UniformMatroid(3)])
    with pytest.raises(ValueError, match="must equal itself"):
        if where == "insert":
            DynamicMatchoidMaximizer(len, matchoid, eps=0.1, seed=0).insert(x)
        elif where == "stream":
            updates = [("insert", x), ("insert", 2), ("delete", x)]
            solve(UpdateStream(len, matchoid, updates), DynamicMatchoid())
        else:
            solve(MatchoidMaximization(len, matchoid, [x, 1, 2]), Greedy())


@pytest.mark.parametrize("use", ["decode", "indicator"])
def test_decode_revalidates_a_universe_replaced_after_construction(use):
    # decode answered against the replaced universe in silence, where solve refused it (red18b)
    import numpy as np

    from algorithms.submodular import MatchoidMaximization
    p = MatchoidMaximization(len, Matchoid([UniformMatroid(2)]), range(5))
    object.__setattr__(p, "universe", ("a", "b", "c", "d", "e"))
    with pytest.raises(ValueError, match=r"MatchoidMaximization\.universe was changed after construction"):
        p.decode(np.array([1, 1, 0, 0, 0])) if use == "decode" else p.indicator({0})


def test_graph_cut_nodes_cannot_be_edited():
    import networkx as nx

    from algorithms.submodular import DirectedCut, GraphCut
    G = nx.Graph()
    G.add_edge("a", "b", weight=2.0)
    G.add_edge("b", "c", weight=1.0)
    for cut in (GraphCut(G), DirectedCut(nx.DiGraph(G))):
        with pytest.raises(TypeError):
            cut.nodes[0] = "c"
        assert cut.to_nodes(frozenset({0})) == {"a"}


@pytest.mark.parametrize("weights", [None, [1.0, 2.0], {0: 1.0, 1: 2.0}], ids=["none", "list", "mapping"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_coverage_copies_and_pickles(weights, how):
    # its weights were a mappingproxy: "cannot pickle 'mappingproxy' object" (a problem holding it could not
    # be deep-copied either)
    import copy
    import pickle

    from algorithms.submodular import Coverage

    f = Coverage([[0, 1], [1]], item_weights=weights)
    g = copy.deepcopy(f) if how == "deepcopy" else pickle.loads(pickle.dumps(f))
    assert g(frozenset({0})) == f(frozenset({0})) and g(frozenset({1})) == f(frozenset({1}))
    with pytest.raises(TypeError):
        g.n_items = 5


@pytest.mark.parametrize("build", [
    lambda: UniformMatroid(2), lambda: Matchoid([UniformMatroid(2)]),
    lambda: CountingOracle(len, Matchoid([UniformMatroid(2)])), _maximizer, lambda: Coverage([[0]]),
], ids=["UniformMatroid", "Matchoid", "CountingOracle", "DynamicMatchoidMaximizer", "Coverage"])
def test_a_misspelt_name_raises_unknown_attribute_error(build):
    # the README: a name an object does not take raises UnknownAttributeError naming it (was a TypeError)
    obj = build()
    with pytest.raises(UnknownAttributeError, match=r"takes no attribute 'kk'"):
        obj.kk = 2
    assert not hasattr(obj, "kk")


@pytest.mark.parametrize("flag", [np.True_, np.False_])
def test_logdet_takes_a_numpy_bool_as_the_other_flags_do(flag):
    # "monotone must be a bool, got bool" (np.bool_ refused here, taken by every other flag of the family)
    from algorithms.submodular import LogDet

    K = np.array([[2.0, 0.5], [0.5, 1.0]])
    assert LogDet(K, monotone=flag)(frozenset({0})) == LogDet(K, monotone=bool(flag))(frozenset({0}))
    with pytest.raises(TypeError, match=r"^monotone must be a bool"):
        LogDet(K, monotone=1)
