"""#43 round 13 (docstring domains) for the nets family: one test per class, with its message's words."""

import pytest
import torch

from algorithms.nets import SAM


# ------------------ class 1: SAM's lr took a subnormal step (1e-39), which rounds every float32 step to 0
def _sam_lr_sites(lr):
    w = torch.nn.Parameter(torch.ones(2))
    yield lambda: SAM([w], lr=lr)
    yield lambda: SAM([w], lr=0.1).add_param_group({"params": [torch.nn.Parameter(torch.ones(1))], "lr": lr})

    def edited():
        opt = SAM([w], lr=0.1)
        opt.param_groups[0]["lr"] = lr

        def closure():
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
    yield edited

    def loaded():
        opt = SAM([w], lr=0.1)
        state = opt.state_dict()
        state["param_groups"][0]["lr"] = lr
        opt.load_state_dict(state)
    yield loaded


@pytest.mark.parametrize("lr", [1e-39, 5e-324])
@pytest.mark.parametrize("site", range(4))
def test_sam_lr_is_0_or_a_normal_float(lr, site):
    call = list(_sam_lr_sites(lr))[site]
    with pytest.raises(ValueError, match=r"lr must be 0 or >= 1.175e-38"):
        call()


@pytest.mark.parametrize("lr", [0.0, 1.2e-38, 1e10])
def test_sam_lr_0_and_the_normal_range_are_taken(lr):
    w = torch.nn.Parameter(torch.ones(2))
    assert SAM([w], lr=lr).param_groups[0]["lr"] == lr


# ------------------ class 2: a p documented > 0 took a subnormal (1e-39 acts as the refused p = 0)
def test_smoothed_lp_p_is_a_positive_scale():
    import numpy as np

    from algorithms.nets.lp_training import smoothed_lp
    with pytest.raises(ValueError, match=r"p = 1e-39 is outside the package's working range"):
        smoothed_lp(np.array([4.0, 0.0]), 1e-39, 1e-12)


def test_lp_path_training_refuses_a_subnormal_p_naming_it():
    from algorithms import solve
    from algorithms.nets.lp_training import LpPathNormTraining
    from algorithms.nets.sparse_interpolation import InterpolationProblem
    with pytest.raises(ValueError, match=r"p must be > 0, at least 1.175e-38, for LpPathNormTraining"):
        solve(InterpolationProblem(x=[0, 1, 2], y=[0, 1, 0], p=1e-39), LpPathNormTraining(width=4),
              maxiters=2)


# ------------------ class 3: an init_scale inside the range whose draws leave it was refused naming W / jumps
def test_two_layer_init_scale_whose_draws_pass_the_range_is_refused_naming_it():
    from algorithms.nets import TwoLayerReLU
    with pytest.raises(ValueError, match=r"init_scale = 3.4e\+38 draws initial weights up to"):
        TwoLayerReLU(1, 4, init_scale=3.4e38)


def test_lp_path_training_whose_weights_leave_the_range_is_diverged():
    from algorithms import solve
    from algorithms.core import RetCode
    from algorithms.nets.lp_training import LpPathNormTraining
    from algorithms.nets.sparse_interpolation import InterpolationProblem
    prob = InterpolationProblem(x=[0.0, 1.0, 2.0, 3.0, 4.0], y=[0.0, 0.0, 1.0, 3.0, 2.0], p=0.5)
    sol = solve(prob, LpPathNormTraining(width=4, init_scale=2.0**64), maxiters=2, seed=0)
    assert sol.retcode is RetCode.Diverged      # was a ValueError naming the knots' "jumps"


# ------------------ class 4: SAM's effective Hessians of a large rho were refused as input, naming hessians
@pytest.mark.parametrize("call", [
    lambda S, H: S.sam_coherence_matrix(H, 3.4e38),
    lambda S, H: S.sam_divergence_condition(H, 0.5, 1, 3.4e38),
])
def test_a_large_rho_is_taken_its_effective_stack_is_computed(call):
    import numpy as np

    from algorithms.nets import stability as S
    H = np.stack([np.diag([1.0, 2.0]), np.diag([2.0, 1.0])])
    assert np.all(np.isfinite(call(S, H)))


def test_a_user_stack_past_the_range_is_still_refused_naming_hessians():
    import numpy as np

    from algorithms.nets import stability as S
    with pytest.raises(ValueError, match="hessians has an entry of magnitude 2e\\+39"):
        S.sam_coherence_matrix(np.stack([np.diag([1e39, 2e39])]), 1.0)


# ------------------ class 5: a module state_dict entry past the range was loaded (refused at next forward)
def _modules():
    from algorithms.nets import TwoLayerReLU
    from algorithms.nets import models as M
    from algorithms.optimizers import MLP
    return [lambda: TwoLayerReLU(2, 3), lambda: TwoLayerReLU(2, 3, dtype=torch.float32),
            lambda: M.MLP(2, (3,), 1), lambda: MLP(4, 4, width=8, depth=2)]


@pytest.mark.parametrize("index", range(4))
def test_a_state_dict_entry_past_the_range_is_refused_at_load_naming_the_key(index):
    module = _modules()[index]()
    state = {k: v.clone() for k, v in module.state_dict().items()}
    key = next(k for k, v in state.items() if v.is_floating_point())
    state[key] = torch.full(state[key].shape, 1e39, dtype=torch.float64)
    before = {k: v.clone() for k, v in module.state_dict().items()}
    with pytest.raises(ValueError, match=rf"state_dict\['{key}'\] has an entry of magnitude 1e\+39"):
        module.load_state_dict(state)
    assert all(torch.equal(before[k], v) for k, v in module.state_dict().items())   # nothing loaded


# ------------------ class 6: a training run of hours (LpPathNormTraining width 10**6) instead of an error
@pytest.mark.parametrize("width, maxiters", [(10**6, None), (10**7, 400), (10**5, 10**5)])
def test_an_lp_path_run_estimated_past_the_time_limit_is_refused_naming_width(width, maxiters):
    from algorithms import solve
    from algorithms.nets.lp_training import LpPathNormTraining
    from algorithms.nets.sparse_interpolation import InterpolationProblem
    prob = InterpolationProblem(x=[0, 1, 2, 3, 4], y=[0, 1, 0, 2, 1], p=0.5)
    with pytest.raises(ValueError, match=r"LpPathNormTraining: \d+ steps \(maxiters\) of width \d+ .* 60 s"):
        solve(prob, LpPathNormTraining(width=width), maxiters=maxiters, seed=0)


# ------------------ class 7: GradientFlow: an overflowing velocity hung; an rtol scipy raises was taken
def test_gradient_flow_with_an_overflowing_velocity_ends_diverged_at_once():
    from algorithms import solve
    from algorithms.core import RetCode
    from algorithms.nets.gradient_flow import GradientFlow, TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data
    X, y = orthogonally_separable_data(3, 6, seed=1)
    problem = TwoLayerTraining(X=X, y=y, width=4, init_scale=1e5)
    sol = solve(problem, GradientFlow(t_end=5.0), seed=0, maxiters=1)
    assert sol.retcode is RetCode.Diverged and sol.stats.f_calls < 10


@pytest.mark.parametrize("rtol", [1.2e-38, 1e-20, 2e-14])
def test_gradient_flow_rtol_below_solve_ivps_floor_is_refused_naming_it(rtol):
    from algorithms.nets.gradient_flow import GradientFlow
    with pytest.raises(ValueError, match=r"rtol must be >= 2.220446049250313e-14 \(solve_ivp's floor"):
        GradientFlow(rtol=rtol)


def test_radius_curve_lr_is_0_or_a_normal_float():
    import numpy as np

    from algorithms.nets.stability import radius_curve
    f = radius_curve(np.eye(2)[None], batch_size=1)
    assert f(0.0) == 1.0 and f(1.2e-38) == 1.0
    with pytest.raises(ValueError, match=r"lr = 1e-39 is outside the package's working range"):
        f(1e-39)


# ------------------ class 8: BruteForceVp tested rank and residual on raw data (wrong Success at y ~ 1e-300)
@pytest.mark.parametrize("x, y", [([0.0, 1.0, 2.0], [0.0, 1e-300, 0.0]), ([0.0, 1e15, 2e15], [0.0, 1.0, 0.0]),
                                  ([0.0, 1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 1.0, 3.0, 2.0])])
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0])
def test_brute_force_vp_agrees_with_the_dp_at_extreme_scales(x, y, p):
    from algorithms import solve
    from algorithms.core import RetCode
    from algorithms.nets.sparse_interpolation import BruteForceVp, InterpolationProblem, SparsestInterpolantDP
    prob = InterpolationProblem(x=x, y=y, p=p)
    exact, brute = solve(prob, SparsestInterpolantDP()), solve(prob, BruteForceVp())
    assert brute.retcode is RetCode.Success
    assert brute.value == pytest.approx(exact.value, rel=1e-9)    # was 0.0 ("no knots") at y ~ 1e-300


# ------------------ class 9: GradientDescentTraining took runs of hours (its per-step estimate was 10x low)
def test_gradient_descent_run_of_hours_is_refused_naming_lr_and_t_end():
    import numpy as np

    from algorithms import solve
    from algorithms.nets.gradient_flow import GradientDescentTraining, TwoLayerTraining
    X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    problem = TwoLayerTraining(X, np.array([0, 0, 1, 1]), width=4)
    with pytest.raises(ValueError, match=r"100000000 steps \(t_end / lr = 100.0 / 1e-06, or maxiters\)"):
        solve(problem, GradientDescentTraining(lr=1e-6, t_end=100.0, n_records=2), seed=0)


# ------------------ class 10: SAMTraining's failing optimizer factory escaped raw; generalizing r's range
def test_sam_training_names_a_failing_optimizer_factory():
    from algorithms import solve
    from algorithms._validation import UserCallableError
    from algorithms.nets.sam import SAMTraining, parity_task
    task = parity_task(n=8, in_features=3, width=8, seed=0)
    with pytest.raises(UserCallableError, match=r"SAMTraining's optimizer\(params.*raised ZeroDivisionError"):
        solve(task, SAMTraining(lr=0.1, batch_size=4, optimizer=lambda params, base, **kw: 1 / 0), maxiters=3)


@pytest.mark.parametrize("r, ok", [(1.2e-38, True), (1.7e38, True), (3.4e38, False), (1e-39, False)])
def test_generalizing_solution_r_in_its_documented_range(r, ok):
    from algorithms.nets.sam import generalizing_solution, parity_task
    task = parity_task(n=8, in_features=4, width=8, seed=0)
    if ok:
        generalizing_solution(task, features=2, r=r)
    else:
        with pytest.raises(ValueError, match=r"\br\b"):
            generalizing_solution(task, features=3, r=r)


# ------------------ class 11: an fn writing into its argument past torch.func's check changed the caller's θ
@pytest.mark.parametrize("call", [
    lambda fn, th: __import__("algorithms.nets.gd_map", fromlist=["g"]).gd_map(fn, th, lr=0.1),
    lambda fn, th: __import__("algorithms.nets.gd_map", fromlist=["g"]).singular_step_sizes(fn, th),
    lambda fn, th: __import__("algorithms.nets", fromlist=["f"]).flat_hessian(fn, th),
])
def test_the_callers_theta_is_never_written(call):
    def fn(t):
        with torch.no_grad():
            t.add_(1.0)
        return (t ** 2).sum()
    theta = torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"^(fn|loss) must not modify its input in place"):   # round 23
        call(fn, theta)
    assert theta.tolist() == [1.0, 1.0]


# ------------------ class 12: GradientFlow's evaluation cap was a count, not a time (valid runs took minutes)
def test_gradient_flow_evaluations_are_bounded_by_an_estimate_of_their_time(monkeypatch):
    from algorithms import solve
    from algorithms.core import RetCode
    from algorithms.nets import gradient_flow as G
    from algorithms.nets.neural_collapse import orthogonally_separable_data
    monkeypatch.setattr(G, "MAX_RUN_SECONDS", 1e-6)      # the floor of 1000 evaluations then applies
    X, y = orthogonally_separable_data(3, 6, seed=1)
    flow = G.GradientFlow(t_end=1000.0, rtol=2.3e-14, atol=1.2e-38)
    sol = solve(G.TwoLayerTraining(X=X, y=y, width=4), flow, seed=0)
    assert sol.retcode is RetCode.Failure and sol.stats.f_calls <= 1001
    assert "gradient evaluations" in sol.original["solver_message"]


def test_a_task_init_scale_whose_draws_pass_the_range_is_named_at_solve():
    import dataclasses

    from algorithms import solve
    from algorithms.nets.sam import SGDTraining, parity_task
    task = dataclasses.replace(parity_task(n=8, in_features=3, width=8, seed=0), init_scale=3.4e38)
    with pytest.raises(ValueError, match=r"^init_scale = 3.4e\+38 draws initial weights up to"):
        solve(task, SGDTraining(lr=0.1, batch_size=4), maxiters=2)
