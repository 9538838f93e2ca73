"""Round 18 (issue #43): numeric twins (a number, numpy scalar, 0-d array or tensor) of one parameter get the
same checks and the same answer (chance)."""
import numpy as np
import pytest
import torch

from algorithms.chance import GaussianScore, VPSchedule, guidance_term, tweedie_mean


def _model():
    return GaussianScore(np.zeros(2), np.ones(2), VPSchedule())


def _x():
    return torch.full((1, 2), 0.3, dtype=torch.float64)


def _objective(x):
    return (x ** 2).sum(-1)


CALLS = {
    "tweedie_mean": lambda t: tweedie_mean(_model(), _x(), t),
    "guidance_term": lambda t: guidance_term(_model(), _objective, _x(), t, beta=1.0)[0],
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("value", [0.5, 1e39, float("nan"), -1.0])
def test_meta_time_refused_by_name(call, value):
    # torch's "Tensor.item() cannot be called on meta tensors" named nothing
    with pytest.raises(ValueError, match=r"\bt\b.*meta"):
        CALLS[call](torch.tensor(value).to("meta"))


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("form", [np.float64, np.float32, lambda v: torch.tensor(v, dtype=torch.float64),
                                  lambda v: torch.tensor(v, dtype=torch.float64, requires_grad=True)])
def test_time_twins_give_the_number_answer(call, form):
    expected = CALLS[call](0.5)
    assert torch.allclose(CALLS[call](form(0.5)).detach(), expected.detach(), rtol=1e-6, atol=0)


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("value", [1e39, float("nan"), -1.0])
@pytest.mark.parametrize("form", [float, np.float64, lambda v: torch.tensor(v, dtype=torch.float64)])
def test_time_out_of_range_refused_in_every_form(call, value, form):
    with pytest.raises(ValueError, match=r"\bt\b"):
        CALLS[call](form(value))


def _mlp_weight(model):
    return model.net[0].weight


@pytest.mark.parametrize("where", ["mean", "var", "mlp"])
@pytest.mark.parametrize("use", ["forward", "tweedie_mean", "guidance_term"])
def test_weight_past_working_range_written_in_place_refused(where, use):
    # load_state_dict refuses an entry of 1e39; the same entry written in place was used (red18a)
    from algorithms.chance import ScoreMLP
    model = ScoreMLP(2, hidden=4) if where == "mlp" else _model()
    with torch.no_grad():
        (_mlp_weight(model) if where == "mlp" else getattr(model, where)).view(-1)[0] = 1e39
    calls = {"forward": lambda: model(torch.full((3, 3), 0.5, dtype=torch.float64)),
             "tweedie_mean": lambda: tweedie_mean(model, _x(), 0.5),
             "guidance_term": lambda: guidance_term(model, _objective, _x(), 0.5, beta=1.0)}
    with pytest.raises(ValueError, match=r"(parameter|buffer) '(mean|var|net\.0\.weight)'.*working range"):
        calls[use]()


def test_weight_inside_working_range_written_in_place_is_used():
    model = _model()
    with torch.no_grad():
        model.var.fill_(3.0e38)
    assert bool(torch.isfinite(tweedie_mean(model, _x(), 0.5)).all())


# ---- a misspelt attribute set after construction is refused by name (stored and ignored before; red18a)
def _misspelt_cases():
    import numpy as np
    import torch

    cases = {}
    from algorithms.chance import GaussianScore, ScoreMLP, VPSchedule
    cases["ScoreMLP.hiden"] = (lambda: ScoreMLP(2, hidden=4), "hiden", 8)
    cases["ScoreMLP.seed"] = (lambda: ScoreMLP(2, hidden=4), "seed", 7)
    cases["ScoreMLP.in_featuress"] = (lambda: ScoreMLP(2, hidden=4), "in_featuress", 3)
    cases["GaussianScore.means"] = (lambda: GaussianScore(np.zeros(2), np.ones(2), VPSchedule()), "means",
                                    torch.zeros(2))
    cases["GaussianScore.schedul"] = (lambda: GaussianScore(np.zeros(2), np.ones(2), VPSchedule()), "schedul",
                                      VPSchedule())
    return cases


@pytest.mark.parametrize("case", list(_misspelt_cases()))
def test_misspelt_attribute_refused(case):
    from tests.bad_inputs import assert_misspelt_attribute_refused

    assert_misspelt_attribute_refused(*_misspelt_cases()[case])


# ---- the factories' f, g and h_sampler are bound to read-only data (red18a: p.f.args[0][0] = 100 changed f
# while p.linear kept the old cost, and a linear solve answered the old LP as Success)
def _factory_arrays():
    from algorithms.chance import (
        beamforming_problem,
        linear_gaussian_problem,
        portfolio_var_problem,
        power_control_problem,
    )
    out = []
    for name, make in {"linear_gaussian": lambda: linear_gaussian_problem(n=2, n_samples=30),
                       "portfolio_var": lambda: portfolio_var_problem(n_samples=30),
                       "power_control": lambda: power_control_problem(n_samples=30),
                       "beamforming": lambda: beamforming_problem(n_samples=30)}.items():
        problem = make()
        for role in ("f", "g", "h_sampler"):
            for i, arg in enumerate(getattr(getattr(problem, role), "args", ())):
                if not isinstance(arg, int | float):
                    out.append(pytest.param(problem, role, i, id=f"{name}.{role}.args[{i}]"))
    return out


@pytest.mark.parametrize("problem, role, i", _factory_arrays())
def test_factory_callables_bound_data_is_read_only(problem, role, i):
    data = getattr(problem, role).args[i]
    assert isinstance(data, np.ndarray), f"{role} is bound to a {type(data).__name__}, which can be written"
    with pytest.raises(ValueError, match="read-only"):
        data.reshape(-1)[0] = 100.0


def test_linear_gaussian_solve_unchanged_by_factory_data():
    from algorithms import solve
    from algorithms.chance import ScenarioApproach, linear_gaussian_problem
    solution = solve(linear_gaussian_problem(n=2, n_samples=30), ScenarioApproach())
    np.testing.assert_allclose(solution.value, -0.3620386612780412, rtol=1e-9)


# red18a: GGDOptResult's arrays were writable and its losses a list kept inside: edits in place went unchecked
RESULT_EDITS = {
    "train_points": lambda r: r.train_points.__setitem__((0, 0), np.nan),
    "train_violation": lambda r: r.train_violation.__setitem__(0, 5.0),
    "samples": lambda r: r.samples.__setitem__((0, 0), np.nan),
    "sample_values": lambda r: r.sample_values.__setitem__(0, np.nan),
    "sample_violation": lambda r: r.sample_violation.__setitem__(0, -1.0),
    "flag": lambda r: r.samples.setflags(write=True),
}


def _result():
    from algorithms.chance import GGDOptResult
    return GGDOptResult(np.zeros((3, 2)), np.zeros(3), [1.0], samples=np.zeros((2, 2)),
                        sample_values=np.zeros(2), sample_violation=np.zeros(2))


@pytest.mark.parametrize("edit", RESULT_EDITS)
def test_ggdopt_result_arrays_read_only(edit):
    result = _result()
    with pytest.raises(ValueError, match=r"read-only|WRITEABLE"):
        RESULT_EDITS[edit](result)
    assert np.all(result.train_points == 0) and np.all(result.sample_violation == 0)


def test_ggdopt_result_losses_a_tuple():
    result = _result()
    with pytest.raises(AttributeError):
        result.losses.append("x")
    result.losses = [2.0, float("nan")]   # set as a field: checked, stored as a tuple
    assert result.losses[0] == 2.0 and isinstance(result.losses, tuple)
    with pytest.raises(TypeError, match=r"^losses must hold real numbers"):
        result.losses = ["x"]


@pytest.mark.parametrize("key", ["net.0.bias", "net.2.weight", "net.4.bias"])
def test_score_mlp_int_parameter_swapped_in_refused(key):
    # an int64 parameter replaced after construction met torch's "self and mat2 must have the same dtype"
    from algorithms.chance import ScoreMLP
    model = ScoreMLP(2, hidden=8, dtype=torch.float64)
    *path, leaf = key.split(".")
    module = model
    for part in path:
        module = module[int(part)] if part.isdigit() else getattr(module, part)
    old = getattr(module, leaf)
    setattr(module, leaf, torch.nn.Parameter(torch.zeros(old.shape, dtype=torch.int64), requires_grad=False))
    with pytest.raises(TypeError, match=f"ScoreMLP's parameter '{key}' has dtype torch.int64"):
        model(torch.tensor([[0.1, 0.2, 0.5]], dtype=torch.float64))


@pytest.mark.parametrize("name", ["mean", "var"])
def test_gaussian_score_buffer_of_another_dtype_refused(name):
    # a float32 var assigned beside the float64 mean was taken and rounded in silence
    model = _model()
    with pytest.raises(TypeError, match=f"{name} must have the model's dtype torch.float64"):
        setattr(model, name, getattr(model, name).float())
    model.double()   # a whole-model conversion stays allowed
    assert model.var.dtype == torch.float64
