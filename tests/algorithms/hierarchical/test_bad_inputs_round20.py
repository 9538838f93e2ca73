"""Round 20: the built-in problems' oracles edited after construction (red20b; class A of round 18)."""

import dataclasses

import numpy as np
import pytest

import algorithms.hierarchical as H
from algorithms import solve
from algorithms.core import RetCode


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


def _bilevel(hess) -> H.BilevelProblem:
    return H.BilevelProblem(
        upper_grad=lambda x, y, rng: (x.copy(), y - 1.0), lower_grad=lambda x, y, rng: y - x,
        lower_hvp=lambda x, y, v, rng: (-v, hess(v)),
        phi=lambda x: float(0.5 * np.sum((x - 1) ** 2) + 0.5 * np.sum(x**2)), grad_phi=lambda x: 2 * x - 1,
        x0=np.array([3.0, -2.0]), y0=np.array([0.5, 0.5]), mu_g=1.0, l_g1=1.0)


SOLVERS = {"StocBiO": H.StocBiO(), "StocBiO-1": H.StocBiO(neumann_terms=1),
           "StocBiO-3": H.StocBiO(neumann_terms=3), "AdaBiO": H.AdaBiO()}


# before: the hypergradient's last lower_hvp call dropped its yy-part unchecked: a NaN or wrong-shape
# ∇²_yy G·v ended Success (always with a series of <= 1 term; red20c)
@pytest.mark.parametrize("solver", SOLVERS, ids=list(SOLVERS))
def test_every_part_of_every_lower_hvp_answer_is_checked(solver):
    with pytest.raises(ValueError, match=r"lower_hvp yy-part .*shape \(2,\)"):
        solve(_bilevel(lambda v: np.full(3, 0.0)), SOLVERS[solver], maxiters=30, seed=0)
    sol = solve(_bilevel(lambda v: np.full(2, np.nan)), SOLVERS[solver], maxiters=30, seed=0)
    assert sol.retcode == RetCode.Diverged
    with pytest.raises(ValueError, match="lower_hvp yy-part"):
        H.neumann_hypergradient(_bilevel(lambda v: np.full(3, 0.0)), np.ones(2), np.zeros(2), 1,
                                np.random.default_rng(0))


# before: AdaMinimax's second grad call per step dropped its y-part unchecked: a NaN there ran on to MaxIters
def test_ada_minimax_checks_the_y_part_of_its_second_grad_call():
    calls = {"n": 0}

    def grad(x, y, rng):
        calls["n"] += 1
        gy = np.full_like(y, np.nan) if calls["n"] % 2 == 0 else x - y
        return np.sin(x) + y, gy

    problem = H.MinimaxProblem(grad=grad, phi=lambda x: float(np.sum(x**2)), grad_phi=lambda x: 2 * x,
                               x0=np.array([1.0]), y0=np.array([0.0]))
    calls["n"] = 0
    assert solve(problem, H.AdaMinimax(), maxiters=20, seed=0).retcode == RetCode.Diverged
