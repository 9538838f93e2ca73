"""Round 20 of issue #43 (nets): a user's closure answering badly part-way through SAM's step."""

import numpy as np
import pytest
import torch

from algorithms._validation import UserCallableError
from algorithms.nets import SAM
from algorithms.nets.sam import SAMCallError


def _closure_failing_at_second_call(model, x, failure):
    calls = [0]

    def closure():
        calls[0] += 1
        loss = model(x).pow(2).mean()
        if calls[0] == 2:
            if failure == "raises":
                raise KeyError("the user's own error")
            if failure == "no backward":
                return loss
            loss.backward()
            return "x"
        loss.backward()
        return loss

    return closure


@pytest.mark.parametrize("failure, error, words", [
    ("raises", UserCallableError, "closure() raised KeyError"),
    ("no backward", SAMCallError, "unset or unchanged"),
    ("returns a str", TypeError, "closure must return the loss"),
])
def test_a_closure_failing_at_theta_plus_eps_leaves_the_weights_at_theta(failure, error, words):
    # the second evaluation raised with the weights left at θ + ε (the next step then refused: "already at
    # θ + ε"), and one that skipped backward() there stepped nothing in silence
    torch.manual_seed(0)
    model, x = torch.nn.Linear(3, 1), torch.randn(4, 3)
    opt = SAM(model.parameters(), torch.optim.SGD, lr=0.1, rho=0.05)
    before = [p.detach().clone() for p in model.parameters()]
    with pytest.raises(error, match=words.replace("(", r"\(").replace(")", r"\)")):
        opt.step(_closure_failing_at_second_call(model, x, failure))
    assert all(torch.equal(a, p) for a, p in zip(before, model.parameters(), strict=True))

    def fine():
        loss = model(x).pow(2).mean()
        loss.backward()
        return loss

    opt.step(fine)  # the next step runs
    assert not all(torch.equal(a, p) for a, p in zip(before, model.parameters(), strict=True))


@pytest.mark.parametrize("k", [0, 1, 3])
def test_samtraining_optimizer_raising_mid_run_is_named(k):
    # the step of the optimizer SAMTraining's optimizer built: its KeyError reached the caller bare
    from algorithms.core import solve
    from algorithms.nets.sam import SAMTraining
    from tests.algorithms.nets.cases_sam_stability import _task

    class Failing(SAM):
        def step(self, closure=None):
            self.__dict__["_calls"] = self.__dict__.get("_calls", 0) + 1
            out = super().step(closure)
            if self.__dict__["_calls"] > k:
                raise KeyError("the user's own error")
            return out

    algorithm = SAMTraining(lr=0.1, rho=0.01, batch_size=4, optimizer=Failing)
    with pytest.raises(UserCallableError, match=r"optimizer\.step\(closure\).*SAMTraining.*raised KeyError"):
        solve(_task(np.float64), algorithm, seed=0, maxiters=6)


class _Answering(torch.nn.Module):
    """A 3 -> 2 linear model answering ``answer`` once ``live`` is set (or from the start with ``nan``);
    ``raises`` raises the user's own KeyError once live."""

    out_features = 2

    def __init__(self, answer):
        super().__init__()
        self.lin = torch.nn.Linear(3, 2, dtype=torch.float64)
        self.answer, self.live = answer, False

    def forward(self, X):
        out = self.lin(X)
        if self.answer == "nan":
            return out * float("nan")
        if not self.live:
            return out
        if self.answer == "raises":
            raise KeyError("the user's own error")
        return {"tuple": (out,), "ndarray": out.detach().numpy(), "int": out.long(), "shape": out[:, :1],
                "float32": out.float()}[self.answer]


def test_empirical_loss_names_a_model_answering_nan_at_its_parameters():
    # NaN != NaN under torch.equal: it was refused as "not deterministic" (a Dropout?), a wrong diagnosis
    from algorithms.nets.gd_map import EmpiricalLoss

    with pytest.raises(ValueError, match=r"model\(X\) must be finite at the model's parameters"):
        EmpiricalLoss(_Answering("nan"), torch.ones(4, 3, dtype=torch.float64), torch.tensor([0, 1, 0, 1]))


@pytest.mark.parametrize("answer, error, words", [
    ("tuple", TypeError, "must return a floating torch.Tensor, got tuple"),
    ("ndarray", TypeError, "must return a floating torch.Tensor, got ndarray"),
    ("int", TypeError, "must return a floating torch.Tensor"),
    ("shape", ValueError, r"must have shape \(n, out_features\) = \(4, 2\), got \(4, 1\)"),
])
@pytest.mark.parametrize("where", ["build", "value", "flat_objective"])
def test_empirical_loss_names_a_model_answering_a_wrong_type_or_shape(answer, error, words, where):
    # "'tuple' object has no attribute 'detach'", log_softmax's and gather's errors named nothing
    from algorithms.nets.gd_map import EmpiricalLoss

    model = _Answering(answer)
    model.live = where == "build"
    X, y = torch.ones(4, 3, dtype=torch.float64), torch.tensor([0, 1, 0, 1])
    with pytest.raises(error, match=words):
        loss = EmpiricalLoss(model, X, y)
        model.live = True
        if where == "value":
            loss.value()
        else:
            theta, fn = loss.flat_objective()
            fn(theta)


@pytest.mark.parametrize("matrix, dim, num_probes", [
    ([[1.0, 5.0], [0.0, 1.0]], 2, 1),      # one probe: the symmetry check was skipped
    ([[1.0, 5.0], [0.0, 1.0]], 2, 2),      # two probes equal up to sign: uᵀAv = vᵀAu trivially
    ([[2.0, 1.0, 0.0], [-1.0, 2.0, 0.0], [0.0, 0.0, 1.0]], 3, 3),
])
def test_stochastic_logabsdet_refuses_a_non_symmetric_a_whatever_the_probes(matrix, dim, num_probes):
    # red20a: a confident wrong log|det| (stderr 0) for a non-symmetric A
    from algorithms.nets.gd_map import stochastic_logabsdet

    A = torch.tensor(matrix, dtype=torch.float64)
    with pytest.raises(ValueError, match="matvec must apply a symmetric A"):
        stochastic_logabsdet(lambda V: A @ V, dim, num_probes=num_probes, lanczos_steps=dim)


def test_sam_base_step_overflowing_names_the_keyword():
    # red20a: ASGD's alpha = 1e30 (inside the working range) met Python's bare OverflowError
    w = torch.nn.Parameter(torch.ones(3))
    opt = SAM([w], base_optimizer=torch.optim.ASGD, lr=0.1, alpha=1e30)

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss

    with pytest.raises(ValueError, match=r"overflowed .* alpha=1e\+30"):
        opt.step(closure)


def _sqrt_abs(t):
    return t.abs().sqrt().sum()   # finite at t = 0, its derivative there is not


@pytest.mark.parametrize("helper", ["flat_hessian", "hessian_matrix", "hessian_eigenvalues",
                                    "exact_logabsdet", "singular_step_sizes"])
def test_hessian_helpers_refuse_a_nan_second_derivative_naming_the_function(helper):
    # red20a: NaN Hessians / eigenvalues, and singular_step_sizes' wrong [] (NaN fails every comparison)
    from algorithms.nets import gd_map
    from algorithms.nets.functional import flat_hessian

    theta = torch.tensor([0.0, 1.0], dtype=torch.float64)
    call = {"flat_hessian": lambda: flat_hessian(_sqrt_abs, theta),
            "hessian_matrix": lambda: gd_map.hessian_matrix(_sqrt_abs, theta),
            "hessian_eigenvalues": lambda: gd_map.hessian_eigenvalues(_sqrt_abs, theta),
            "exact_logabsdet": lambda: gd_map.exact_logabsdet(_sqrt_abs, theta, 0.1),
            "singular_step_sizes": lambda: gd_map.singular_step_sizes(_sqrt_abs, theta)}[helper]
    with pytest.raises(ValueError, match=r"(loss|fn) has a NaN or inf second derivative at theta"):
        call()


@pytest.mark.parametrize("helper, what", [("per_sample_flat_grads", "gradient"),
                                          ("per_sample_flat_hessians", "second derivative")])
def test_per_sample_helpers_refuse_a_nan_derivative_naming_the_sample(helper, what):
    from algorithms.nets import functional

    theta = torch.tensor([0.0, 1.0], dtype=torch.float64)
    X, y = torch.randn(4, 2, dtype=torch.float64), torch.randn(4, dtype=torch.float64)
    with pytest.raises(ValueError, match=f"sample_loss has a NaN or inf {what} at theta for sample 0"):
        getattr(functional, helper)(lambda t, x, yy: ((t * x).sum() * 0).abs().sqrt(), theta, X, y)


@pytest.mark.parametrize("answer, error, words", [
    ("raises", UserCallableError, r"raised KeyError"),
    ("float32", TypeError, r"must return X's dtype torch.float64"),
])
def test_empirical_loss_names_a_model_raising_or_answering_float32_after_construction(answer, error, words):
    from algorithms.nets.gd_map import EmpiricalLoss

    model = _Answering(answer)
    loss = EmpiricalLoss(model, torch.ones(4, 3, dtype=torch.float64), torch.tensor([0, 1, 0, 1]))
    model.live = True
    with pytest.raises(error, match=words):
        loss.value()


@pytest.mark.parametrize("method", ["RK45", "DOP853"])
@pytest.mark.parametrize("seed", [2**64 - 1, np.uint64(2**64 - 1), np.int64(2**63 - 1), 2**64 - 2])
def test_gradient_flow_sliding_along_a_relu_kink_fails_at_once(seed, method):
    # these seeds start a flow that slides along a ReLU kink (a unit's pre-activation on ±e1 pinned at 0):
    # RK45 (DOP853) crossed it back and forth every (other) step of ~1e-6 (~1e-7) and spent 10**6 evaluations
    # (16-60 s) on 4 points
    # before its Failure; the Failure now comes as soon as the chattering's pace would spend that budget
    from algorithms import RetCode, solve
    from algorithms.nets.gradient_flow import GradientFlow, TwoLayerTraining

    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    problem = TwoLayerTraining(X, np.array([0, 1, 0, 1]), width=4, loss="exponential")
    sol = solve(problem, GradientFlow(t_end=2.0, n_records=3, method=method), maxiters=3, seed=seed)
    assert sol.retcode is RetCode.Failure
    assert sol.stats.f_calls < 10**5   # 10**6 before (a 20000-evaluation window measures the pace)
    assert "slides along a ReLU kink" in sol.original["solver_message"]
    # a flow without the kink is unchanged
    assert solve(problem, GradientFlow(t_end=2.0, n_records=3), maxiters=3, seed=0).retcode is RetCode.Success


@pytest.mark.parametrize("which", ["gd_map", "gd_jacobian"])
def test_gd_map_names_fn_for_a_non_finite_derivative_of_a_finite_value(which):
    # sqrt|t| at 0: a finite value, an infinite derivative; the refusal blamed lr ("too large")
    from algorithms.nets import gd_map as module
    theta = torch.tensor([0.0, 1.0], dtype=torch.float64)
    with pytest.raises(ValueError, match="fn has a NaN or inf") as info:
        getattr(module, which)(lambda t: t.abs().sqrt().sum(), theta, 0.1)
    assert "lr" not in str(info.value).split("(")[0]


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_empirical_loss_value_refuses_non_finite_outputs_at_finite_own_parameters(bad):
    # a model answering NaN after the construction probes gave value() = NaN in silence (red20a)
    from algorithms.nets.gd_map import EmpiricalLoss

    class Flaky(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2).double()
            self.out_features, self.calls = 2, 0

        def forward(self, X):
            self.calls += 1
            out = self.lin(X)
            return out * bad if self.calls > 2 else out

    loss = EmpiricalLoss(Flaky(), torch.ones(4, 2, dtype=torch.float64), torch.tensor([0, 1, 0, 1]))
    with pytest.raises(ValueError, match=r"model\(X\) must be finite"):
        loss.value()


@pytest.mark.parametrize("name, value", [
    ("base_optimizer", "adam_lr_10"), ("defaults", "x"), ("state", "empty"), ("param_groups", "list"),
    ("param_groups", "x"),
])
def test_sam_shared_containers_are_fixed_after_construction(name, value):
    # red20c: a replaced base_optimizer stepped at its own lr (10 where SAM's groups say 0.01), or another
    # model's parameters; a replaced defaults/state met bare AttributeError/KeyError at the step
    from algorithms.nets import SAM

    model = torch.nn.Linear(3, 1)
    sam = SAM(model.parameters(), lr=0.01)
    value = {"adam_lr_10": torch.optim.Adam(model.parameters(), lr=10.0),
             "list": [{"params": list(model.parameters()), "lr": 0.1}], "empty": {}}.get(value, value)
    with pytest.raises(ValueError, match=f"SAM.{name} is fixed at construction"):
        setattr(sam, name, value)
    sam.base_optimizer = sam.base_optimizer     # the same object: nothing changes
    sam.param_groups = sam.base_optimizer.param_groups


@pytest.mark.parametrize("base", [torch.optim.SGD, torch.optim.Adam])
def test_sam_group_appended_without_its_keys_is_named(base):
    # red20c: a group appended to param_groups by hand met a bare KeyError ('rho') at the step
    from algorithms.nets import SAM

    first, second = torch.nn.Linear(3, 3), torch.nn.Linear(3, 1)
    sam = SAM(first.parameters(), base, lr=0.1)
    sam.param_groups.append({"params": list(second.parameters()), "lr": 0.1})

    def closure():
        sam.zero_grad()
        loss = second(first(torch.ones(2, 3))).sum()
        loss.backward()
        return loss

    with pytest.raises(ValueError, match=r"param_groups\[1\] lacks the key\(s\) \[.*'rho'"):
        sam.step(closure)
