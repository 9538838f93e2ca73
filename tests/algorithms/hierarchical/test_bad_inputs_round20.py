"""Round 20: the built-in problems' oracles edited after construction (red20b; class A of round 18)."""

import dataclasses

import numpy as np
import pytest

import algorithms.hierarchical as H


def _cells(oracle) -> dict:
    fn = oracle.fn
    return dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__ or ()), strict=True))


FACTORIES = {"synthetic_minimax": lambda: H.synthetic_minimax(),
             "quadratic_bilevel": lambda: H.quadratic_bilevel(),
             "auc_minimax": lambda: H.auc_minimax(n_samples=20, hidden=2, batch_size=4)}


@pytest.mark.parametrize("attribute", ["fn", "signature", "likes", "exact", "names", "new_name"])
@pytest.mark.parametrize("factory", FACTORIES, ids=list(FACTORIES))
def test_a_built_in_oracle_cannot_be_reassigned(factory, attribute):
    # p.grad_phi.fn = lambda x: 0 * x was taken: the frozen problem kept the same object and SGDA answered
    # Success at x0 for the edited formula (red20b)
    problem = FACTORIES[factory]()
    with pytest.raises(dataclasses.FrozenInstanceError, match=attribute):
        setattr(problem.grad_phi, attribute, lambda x: np.zeros_like(x))
    with pytest.raises(dataclasses.FrozenInstanceError, match=attribute):
        delattr(problem.phi, attribute)


@pytest.mark.parametrize("name", ["A", "B", "b", "solve_map"])
def test_quadratic_bilevel_data_behind_its_oracles_is_read_only(name):
    # cells["b"][:] = 100 changed Φ, ∇Φ and upper_grad behind mu_g/l_g1: Success for another problem (red20b)
    problem = H.quadratic_bilevel()
    cells = {**_cells(problem.grad_phi), **_cells(problem.phi), **_cells(problem.lower_grad),
             **_cells(problem.lower_hvp), **_cells(problem.upper_grad)}
    with pytest.raises(ValueError, match="read-only"):
        cells[name][...] = 100.0


def test_auc_minimax_data_behind_its_oracles_is_read_only():
    # the objective closed over Z's tensor and the ScoreNet: Z_t scaled in place changed every later solve
    problem = H.auc_minimax(n_samples=20, hidden=2, batch_size=4)
    objective = _cells(problem.phi)["objective"]
    inner = dict(zip(objective.__code__.co_freevars, (c.cell_contents for c in objective.__closure__),
                     strict=True))
    scores = dict(zip(inner["scores"].__code__.co_freevars,
                      (c.cell_contents for c in inner["scores"].__closure__), strict=True))
    for array in (scores["Z"], inner["positive"], _cells(problem.phi)["full"]):
        with pytest.raises(ValueError, match="read-only"):
            array[...] = 0
    assert not any(hasattr(v, "named_parameters") for v in {**inner, **scores}.values())


def test_a_loaded_score_net_whose_settings_disagree_with_its_layers_is_refused_by_name():
    # a whole-model pickle restored out_features = 3 beside a 1-output layer: accepted, 1 column (red20b)
    import copy

    import torch
    net = H.ScoreNet(4)
    state = copy.copy(net.__dict__)
    state["out_features"] = 3
    loaded = object.__new__(H.ScoreNet)
    loaded.__setstate__(state)
    with pytest.raises(ValueError, match="out_features"):
        loaded(torch.zeros(2, 4, dtype=torch.float64))
