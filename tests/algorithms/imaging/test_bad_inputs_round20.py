"""Round 20 of issue #43: non-finite values from a user's callable part-way through a run (class H).

A user's denoiser network answering NaN/inf pixels mid-run raised a ValueError out of the solve (the README's
rule: a non-finite iterate ends the run ``Diverged``); a user's operator answering NaN mid-run in PnPADMM's
conjugate-gradient x-step was swallowed (the CG broke off at a NaN curvature, kept its last finite x, and
the run reported ``Success``).
"""

import math

import pytest
import torch

from algorithms import RetCode, solve
from algorithms._validation import UserCallableError
from algorithms.imaging import DenoiserPrior, InverseProblem, LinearOperator, PnPADMM, PnPPGD, TVPrior
from tests.algorithms.imaging._instances import cs_problem


class _Failing(torch.nn.Module):
    """0.9·x for the first ``k`` calls, then ``bad`` (NaN pixels, inf pixels, or an exception)."""

    def __init__(self, k: int, bad: str):
        super().__init__()
        self.k, self.bad, self.calls = k, bad, 0

    def forward(self, x):
        self.calls += 1
        if self.calls <= self.k:
            return 0.9 * x
        if self.bad == "raise":
            raise ZeroDivisionError("boom")
        out = x.clone()
        out.view(-1)[0] = math.nan if self.bad == "nan" else math.inf
        return out


def _algorithm(name: str, prior):
    return PnPPGD(prior=prior, lr=0.5) if name == "pgd" else PnPADMM(prior=prior, penalty=1.0)


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("bad", ["nan", "inf"])
@pytest.mark.parametrize("name", ["pgd", "admm"])
def test_a_network_turning_non_finite_mid_run_ends_diverged(name, bad, k):
    problem, _ = cs_problem()
    sol = solve(problem, _algorithm(name, DenoiserPrior(_Failing(k, bad))), maxiters=8)
    assert sol.retcode is RetCode.Diverged


@pytest.mark.parametrize("name", ["pgd", "admm"])
def test_a_network_raising_mid_run_is_a_user_callable_error_naming_it(name):
    problem, _ = cs_problem()
    with pytest.raises(UserCallableError, match=r"\bnetwork must map .* it raised ZeroDivisionError"):
        solve(problem, _algorithm(name, DenoiserPrior(_Failing(2, "raise"))), maxiters=8)


def test_prox_called_by_the_user_still_refuses_non_finite_pixels_naming_network():
    prior = DenoiserPrior(_Failing(0, "nan"))
    with pytest.raises(ValueError, match=r"\bnetwork returned NaN or inf pixels"):
        prior.prox(torch.ones(1, 4, 4), 1.0)


class _Op(LinearOperator):
    """A user's 8 × 16 operator whose ``which`` map answers ``bad`` once ``state['k']`` calls have passed."""

    def __init__(self, which: str, bad: float):
        self.M = torch.randn(8, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
        self.state = {"which": which, "bad": bad, "calls": 0, "k": 10**9}
        self.image_shape, self.measurement_shape = (4, 4), (8,)

    def _answer(self, out, which):
        if self.state["which"] != which:
            return out
        self.state["calls"] += 1
        return out * self.state["bad"] if self.state["calls"] > self.state["k"] else out

    def _forward(self, x):
        return self._answer(x.reshape(x.shape[0], -1) @ self.M.T.to(x.dtype), "forward")

    def _adjoint(self, y):
        return self._answer((y @ self.M.to(y.dtype)).reshape(y.shape[0], 4, 4), "adjoint")


@pytest.mark.parametrize("k", [2, 3, 12])
@pytest.mark.parametrize("bad", [math.nan, math.inf])
@pytest.mark.parametrize("which", ["forward", "adjoint"])
def test_admm_with_an_operator_turning_non_finite_mid_run_is_diverged_not_success(which, bad, k):
    op = _Op(which, bad)
    problem = InverseProblem(op, torch.ones(8, dtype=torch.float64))
    op.state["k"] = op.state["calls"] + k   # the construction's probes passed: fail k calls into the run
    sol = solve(problem, PnPADMM(prior=TVPrior(weight=0.01)), maxiters=10)
    assert sol.retcode is RetCode.Diverged


class _TurningForward(LinearOperator):
    """A user's 32 × 64 operator whose forward map answers NaN after ``k`` calls (red20a)."""

    def __init__(self, k: int):
        self.M = torch.randn(32, 64, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
        self.state = {"k": k, "calls": 0}
        self.image_shape, self.measurement_shape = (8, 8), (32,)

    def _forward(self, x):
        self.state["calls"] += 1
        out = x.reshape(x.shape[0], -1) @ self.M.T.to(x.dtype)
        return out * math.nan if self.state["calls"] > self.state["k"] else out

    def _adjoint(self, y):
        return (y @ self.M.to(y.dtype)).reshape(y.shape[0], 8, 8)


@pytest.mark.parametrize("k", [0, 1, 5, 30])
def test_norm_refuses_a_map_turning_nan_naming_the_operator(k):
    """norm() returned nan: a NaN passed the power iteration's `value == 0.0` test and every later step."""
    with pytest.raises(ValueError, match=r"^_TurningForward's _forward/_adjoint returned NaN/inf"):
        _TurningForward(k).norm()


@pytest.mark.parametrize("first", [True, False])
def test_null_space_leakage_refuses_a_map_turning_nan_not_answering_one(first):
    """null_space_leakage answered min(1.0, nan) = 1.0, a plausible "fully leaking" value."""
    from algorithms.imaging import gaussian_cs, null_space_leakage

    S = gaussian_cs((8, 8), 0.25, seed=1, dtype=torch.float64)
    pair = (_TurningForward(100), S) if first else (S, _TurningForward(100))
    with pytest.raises(ValueError, match=r"\(_TurningForward\).*_forward/_adjoint returned NaN/inf"):
        null_space_leakage(*pair)


class _HalfPrecise(torch.nn.Module):
    """A float64 network answering float32 (red20a: the float64 problem's precision lost in silence)."""

    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(0.9, dtype=torch.float64))

    def forward(self, x):
        return (self.w * x).float()


@pytest.mark.parametrize("name", ["pgd", "admm"])
def test_a_float64_denoiser_answering_float32_is_refused_naming_network(name):
    problem, _ = cs_problem()
    with pytest.raises(ValueError, match=r"^network must return images of its input's dtype torch.float64"):
        solve(problem, _algorithm(name, DenoiserPrior(_HalfPrecise())), maxiters=3)


def _edit_state(key, value):
    return lambda st: [entry.__setitem__(key, entry[key] * 0 + value)
                       for entry in st["optimizer"]["state"].values()]


@pytest.mark.parametrize("edit", [
    lambda st: st["optimizer"]["param_groups"][0].__setitem__("lr", 5.0),
    lambda st: st["optimizer"]["param_groups"][0].__setitem__("lr", -1.0),
    lambda st: st["optimizer"]["param_groups"][0].__setitem__("betas", (float("nan"), 0.999)),
    _edit_state("exp_avg", float("nan")),
    _edit_state("exp_avg_sq", -1.0),
    lambda st: st.__setitem__("step", -3),
    lambda st: st.__setitem__("step", 1.5),
    lambda st: st.__setitem__("losses", [float("nan")]),
    lambda st: st.__setitem__("rng", torch.zeros(3, dtype=torch.uint8)),
], ids=["lr5", "lr-1", "betas-nan", "exp_avg-nan", "exp_avg_sq-neg", "step-3", "step1.5", "losses-nan",
        "rng"])
def test_imaging_train_resume_refuses_a_checkpoint_train_never_writes(edit, tmp_path, monkeypatch):
    """red20c: train resumed model/optimizer/step/losses/rng unchecked: lr 5.0 or -1.0 and NaN betas or
    moments were trained on and saved, a step of -3 trained 5 steps for steps = 2, 1.5 met torch's
    "manual_seed expected a long"."""
    import copy

    import algorithms.imaging.train as T

    path = tmp_path / "denoiser.pt"
    monkeypatch.setattr(T, "checkpoint_path", lambda name: path)
    T.train("denoiser", steps=1, seed=0, progress=False)
    base = torch.load(path, weights_only=True)
    state = copy.deepcopy(base)
    edit(state)
    torch.save(state, path)
    with pytest.raises(ValueError, match=r"^resume: checkpoint .* has an invalid"):
        T.train("denoiser", steps=2, seed=0, progress=False)
    torch.save(base, path)   # the control: as train wrote it
    assert T.train("denoiser", steps=2, seed=0, progress=False)["step"] == 2
