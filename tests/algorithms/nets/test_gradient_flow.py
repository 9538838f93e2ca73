"""Gradient flow (solve_ivp) and gradient descent for TwoLayerTraining (algorithms.nets.gradient_flow)."""

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.nets.functional import flatten_params, module_params
from algorithms.nets.gradient_flow import (
    GradientDescentTraining,
    GradientFlow,
    TwoLayerTraining,
    record_times,
)
from algorithms.nets.neural_collapse import interleaved_sector_data, orthogonally_separable_data
from algorithms.nets.two_layer import TwoLayerReLU

torch.set_num_threads(1)


def _binary(dtype=np.float64, **kw):
    X, y = orthogonally_separable_data(5, 10, seed=0, dtype=dtype)
    return TwoLayerTraining(X=X, y=y, width=kw.pop("width", 12), **kw)


def _multi(**kw):
    X, y = orthogonally_separable_data(4, 12, n_classes=3, seed=1)
    return TwoLayerTraining(X=X, y=y, width=9, loss="cross_entropy", **kw)


# ----------------------------------------------------------------------------- loss and gradient
@pytest.mark.parametrize("make, loss, bias", [
    (_binary, "exponential", False), (_binary, "logistic", False), (_binary, "exponential", True),
    (_multi, "cross_entropy", False), (_multi, "cross_entropy", True),
])
def test_closed_form_gradient_matches_autograd(make, loss, bias):
    problem = make(loss=loss, hidden_bias=bias) if make is _binary else make(hidden_bias=bias)
    rng = np.random.default_rng(3)
    theta = 0.7 * rng.standard_normal(problem.n_params)
    value, grad = problem.loss_and_grad(theta)
    t = torch.tensor(theta, requires_grad=True)
    ref = problem.torch_loss(t)
    (ref_grad,) = torch.autograd.grad(ref, t)
    assert value == pytest.approx(ref.item(), rel=1e-12)
    np.testing.assert_allclose(grad, ref_grad.numpy(), rtol=1e-10, atol=1e-13)


def test_layout_matches_flatten_params_and_features():
    problem = _binary(hidden_bias=True)
    params = problem.initial_params(4)
    theta, _ = flatten_params(params)
    np.testing.assert_array_equal(problem.initial_theta(4), theta.numpy())
    W, b, V = problem.split(theta.numpy())
    np.testing.assert_array_equal(W, params["W"].numpy())
    np.testing.assert_array_equal(b, params["b"].numpy())
    np.testing.assert_array_equal(V, params["v"].numpy())
    np.testing.assert_allclose(problem.features(theta.numpy()), np.maximum(problem.X @ W.T + b, 0.0))


def test_balanced_initialization():
    for problem in (_binary(init_scale=1e-2), _multi(init_scale=1e-2)):
        W, _, V = problem.split(problem.initial_theta(0))
        np.testing.assert_allclose(np.linalg.norm(V, axis=0), np.linalg.norm(W, axis=1), rtol=1e-12)
        assert np.linalg.norm(W) == pytest.approx(1e-2 * np.sqrt(problem.width), rel=0.5)
    small, big = _binary(init_scale=1e-3), _binary(init_scale=1e-1)
    np.testing.assert_allclose(100 * small.initial_theta(7), big.initial_theta(7), rtol=1e-12)
    assert not np.array_equal(small.initial_theta(7), small.initial_theta(8))


def test_data_initialization_satisfies_semi_local_assumption():
    problem = _multi(init="data", init_scale=1e-2)
    W, _, V = problem.split(problem.initial_theta(3))
    classes = problem.data_neuron_classes()
    assert np.bincount(classes).tolist() == [3, 3, 3]
    np.testing.assert_allclose(np.linalg.norm(W, axis=1), 1e-2, rtol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(V, axis=0), 1e-2, rtol=1e-12)
    E = problem.pseudo_labels()
    np.testing.assert_allclose(E.sum(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(V.T, 1e-2 * E[classes], rtol=1e-12)
    # each input weight is a sample of its class: active exactly on that class
    active = problem.X @ W.T > 0
    np.testing.assert_array_equal(active, problem.y[:, None] == classes[None, :])
    binary = _binary(init="data", hidden_bias=True)
    W, b, V = binary.split(binary.initial_theta(0))
    np.testing.assert_allclose(np.hypot(np.linalg.norm(W, axis=1), b), np.abs(V[0]), rtol=1e-12)
    np.testing.assert_array_equal(np.sign(V[0]), np.where(binary.data_neuron_classes() == 0, 1.0, -1.0))


def test_gaussian_initialization_uses_the_net():
    problem = _binary(init="gaussian", init_scale=0.5)
    net = TwoLayerReLU(in_features=10, width=12, hidden_bias=False, seed=2, init_scale=0.5)
    theta, _ = flatten_params(module_params(net))
    np.testing.assert_array_equal(problem.initial_theta(2), theta.numpy())


# ----------------------------------------------------------------------------- flow and GD
def test_flow_decreases_the_loss_and_solvers_agree():
    problem = _binary()
    a = solve(problem, GradientFlow(t_end=30.0, n_records=6, rtol=1e-10, atol=1e-14), seed=1)
    b = solve(problem, GradientFlow(t_end=30.0, n_records=6, method="DOP853", rtol=1e-10, atol=1e-14),
              seed=1)
    assert a.retcode is RetCode.Success
    losses = a.original["losses"]
    assert np.all(np.diff(losses) <= 1e-12) and losses[-1] < 0.1 * losses[0]
    np.testing.assert_allclose(a.x, b.x, rtol=1e-5, atol=1e-9)
    assert a.value == pytest.approx(problem.loss_value(a.x))


def test_gd_converges_to_the_flow_at_first_order():
    problem = _binary()
    kw = {"t_end": 20.0, "n_records": 5, "spacing": "linear"}
    flow = solve(problem, GradientFlow(rtol=1e-10, atol=1e-14, **kw), seed=2).original["thetas"]
    gaps = []
    for eta in (0.04, 0.02, 0.01):
        gd = solve(problem, GradientDescentTraining(lr=eta, **kw), seed=2).original
        np.testing.assert_allclose(gd["times"], [0, 4, 8, 12, 16, 20])
        gaps.append(np.max(np.linalg.norm(gd["thetas"] - flow, axis=1)))
    orders = np.log2(np.array(gaps[:-1]) / np.array(gaps[1:]))
    assert np.all(np.abs(orders - 1.0) < 0.3), orders


def test_gd_step_equals_manual_euler_step():
    problem = _binary()
    sol = solve(problem, GradientDescentTraining(lr=0.1, t_end=0.1, n_records=1), seed=0)
    theta0 = problem.initial_theta(0)
    np.testing.assert_allclose(sol.x, theta0 - 0.1 * problem.loss_and_grad(theta0)[1], rtol=1e-14)
    assert sol.stats.iterations == 1 and sol.stats.grad_calls == 1


def test_trace_records_nc_metrics_over_time():
    sol = solve(_binary(), GradientFlow(t_end=100.0, n_records=5, rtol=1e-4), seed=0, store_trace=True)
    assert [r["iteration"] for r in sol.trace] == list(range(6))
    ts = [r["t"] for r in sol.trace]
    assert ts[0] == 0.0 and ts[-1] == 100.0 and np.all(np.diff(ts) > 0)
    last = sol.trace[-1]
    for key in ("loss", "nc1", "nc1_directional", "max_mean_cosine", "etf_distance",
                "min_classifier_alignment", "param_norm"):
        assert np.isfinite(last[key])
    assert last["max_mean_cosine"] < 1e-6 and last["within_ratio_directional"] < 1e-3


def test_maxiters_tol_and_callback():
    problem = _binary()
    flow = GradientFlow(t_end=100.0, n_records=5)
    part = solve(problem, flow, maxiters=2, seed=0)
    assert part.retcode is RetCode.MaxIters and part.stats.iterations == 2
    assert part.original["times"].tolist() == pytest.approx([0.0, 1.0, record_times(100.0, 5, "geometric",
                                                                                     1.0)[1]])
    early = solve(problem, flow, tol=0.5, seed=0)
    assert early.retcode is RetCode.Success and early.value <= 0.5 and early.original["times"][-1] < 100
    stopped = solve(problem, flow, callback=lambda rec: rec["iteration"] >= 1, seed=0)
    assert stopped.retcode is RetCode.Terminated and stopped.stats.iterations == 1
    gd = solve(problem, GradientDescentTraining(lr=0.1, t_end=10.0), maxiters=7, seed=0)
    assert gd.retcode is RetCode.MaxIters and gd.stats.iterations == 7
    assert gd.original["times"][-1] == pytest.approx(0.7)  # the trajectory ends at the returned iterate


def test_gd_retcodes_follow_its_own_criterion():
    problem = _binary()
    horizon = solve(problem, GradientDescentTraining(lr=0.1, t_end=10.0), seed=0)
    assert horizon.retcode is RetCode.MaxIters and horizon.stats.iterations == 100
    early = solve(problem, GradientDescentTraining(lr=0.1, t_end=100.0), tol=0.5, seed=0)
    assert early.retcode is RetCode.Success and early.value <= 0.5
    assert early.stats.iterations < 1000 and early.original["losses"][-1] == early.value
    assert early.value == pytest.approx(problem.loss_value(early.x), rel=1e-12)
    # the step before the stop was still above tol: the first iterate below it is returned
    assert problem.loss_value(early.original["thetas"][-2]) > 0.5


@pytest.mark.parametrize("n_per_class, dim, width, init_scale, lr", [
    (5, 10, 12, 1e-2, 100.0),   # used to be Success with the loss at 2e303
    (4, 8, 8, 1e-3, 1e3),       # used to be Success-like: ||θ|| ~ 1e3, loss stuck above its start
])
def test_gd_blow_up_is_diverged(n_per_class, dim, width, init_scale, lr):
    X, y = orthogonally_separable_data(n_per_class, dim, seed=0)
    problem = TwoLayerTraining(X=X, y=y, width=width, init_scale=init_scale)
    sol = solve(problem, GradientDescentTraining(lr=lr, t_end=3 * lr, n_records=3), seed=0)
    assert sol.retcode is RetCode.Diverged
    assert sol.value > sol.original["losses"][0]
    assert np.all(np.isfinite(sol.x))


def test_gd_on_a_dead_network_is_stalled():
    # one step of lr = 30 leaves every unit inactive on every sample: zero gradient, loss ℓ(0) = 1
    X, y = interleaved_sector_data(4, 8, seed=0)
    problem = TwoLayerTraining(X=X, y=y, width=8, init_scale=1e-2, init="gaussian")
    sol = solve(problem, GradientDescentTraining(lr=30.0, t_end=90.0, n_records=3), seed=0)
    assert sol.retcode is RetCode.Stalled and sol.value == 1.0
    assert not np.any(problem.loss_and_grad(sol.x.astype(np.float64))[1])


def test_gd_loss_underflow_is_success():
    # a step of 1e4 separates the classes with huge margins: the loss underflows to 0 <= tol
    X, y = orthogonally_separable_data(6, 12, seed=0)
    problem = TwoLayerTraining(X=X, y=y, width=20, init_scale=1e-2)
    sol = solve(problem, GradientDescentTraining(lr=1e4, t_end=3e4, n_records=3), seed=0)
    assert sol.retcode is RetCode.Success and sol.value == 0.0 and sol.stats.iterations == 1


def test_flow_that_cannot_finish_is_not_success():
    problem = _binary()
    flow = solve(problem, GradientFlow(t_end=10.0, n_records=2), seed=0)
    assert flow.retcode is RetCode.Success  # reached t_end under error control
    assert solve(problem, GradientFlow(t_end=10.0, n_records=2), maxiters=1, seed=0).retcode \
        is RetCode.MaxIters

def test_gd_divergence_is_a_retcode():
    X, y = orthogonally_separable_data(5, 10, seed=0)
    problem = TwoLayerTraining(X=X, y=y, width=12, init_scale=3.0, init="gaussian")
    sol = solve(problem, GradientDescentTraining(lr=1e6, t_end=1e8, n_records=3), seed=0)
    assert sol.retcode is RetCode.Diverged
    assert np.all(np.isfinite(sol.x))


def test_float32_data_trains_in_float32():
    problem = _binary(dtype=np.float32)
    gd = solve(problem, GradientDescentTraining(lr=0.05, t_end=5.0, n_records=2), seed=0)
    flow = solve(problem, GradientFlow(t_end=5.0, n_records=2), seed=0)
    assert gd.x.dtype == np.float32 and flow.x.dtype == np.float32
    np.testing.assert_allclose(gd.x, solve(_binary(), GradientDescentTraining(lr=0.05, t_end=5.0,
                                                                              n_records=2), seed=0).x,
                               rtol=1e-3, atol=1e-6)


def test_non_separable_data_is_reported_not_refused():
    X, y = interleaved_sector_data(3, 5, seed=0)
    sol = solve(TwoLayerTraining(X=X, y=y, width=6), GradientFlow(t_end=5.0, n_records=2, rtol=1e-3),
                seed=0)
    assert sol.retcode is RetCode.Success
    assert sol.original["separability"]["orthogonally_separable"] is False
    assert sol.original["separability"]["max_cross_class_inner"] > 0


def test_record_times():
    np.testing.assert_allclose(record_times(1000.0, 4, "geometric", 1.0), [1, 10, 100, 1000])
    np.testing.assert_allclose(record_times(2.0, 2, "linear", 1.0), [1.0, 2.0])
    np.testing.assert_allclose(record_times(0.5, 3, "linear", 5.0), [1 / 6, 1 / 3, 0.5])  # t_first unused
    assert record_times(7.0, 1, "geometric", 10.0).tolist() == [7.0]
    with pytest.raises(ValueError, match="t_first must be < t_end"):
        record_times(0.5, 3, "geometric", 1.0)


def test_callback_sees_the_metrics_without_a_trace():
    seen = []
    solve(_binary(), GradientFlow(t_end=5.0, n_records=2), seed=0,
          callback=lambda rec: seen.append((rec["iteration"], rec["loss"], rec["nc1"])) and False)
    assert [s[0] for s in seen] == [0, 1, 2] and all(np.isfinite(s[1]) and np.isfinite(s[2]) for s in seen)


def test_float32_problem_records_and_views_in_float64():
    # red25a: a float32 TwoLayerTraining's run records its float32 θ, which the float64 template refused
    # (TypeError from inside GradientDescentTraining whenever store_trace or a callback asked for records);
    # params/features/metrics refused a float32 θ the same way
    from tests.algorithms.nets.cases_two_layer_nc import make_gd

    problem, algorithm = make_gd(np.float32)
    seen = []
    sol = solve(problem, algorithm, store_trace=True, callback=lambda record: seen.append(record) and False)
    plain = solve(problem, algorithm)
    assert sol.retcode is plain.retcode and len(sol.trace) == len(seen) >= 2
    np.testing.assert_array_equal(sol.x, plain.x)
    theta = np.full(problem.n_params, 0.1, dtype=np.float32)
    assert problem.metrics(theta)["loss"] == problem.metrics(theta.astype(np.float64))["loss"]
    assert all(t.dtype == torch.float64 for t in problem.params(theta).values())
