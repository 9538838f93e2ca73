"""Bad inputs to every public callable of ``algorithms.nets.stability`` and ``algorithms.nets.sam``: each is
rejected early, by our own validation, with a message naming the argument and what was expected."""

import numpy as np
import pytest
import torch

import algorithms.nets.sam as sam
import algorithms.nets.stability as stability
from algorithms import solve
from algorithms.nets.sam import (
    SAM,
    SAMTraining,
    SGDTraining,
    TwoLayerMSETask,
    generalizing_solution,
    memorizing_solution,
    minimum_diagnostics,
    parity_task,
    sample_coherence_matrix,
)
from algorithms.nets.stability import (
    batch_moment_coefficients,
    check_hessians,
    coherence_lower_bound_hessians,
    coherence_matrix,
    coherence_measure,
    critical_step_size,
    dexter_divergence_condition,
    enumerate_batches,
    gd_stable,
    mean_square_radius,
    perturbed_mean_square,
    perturbed_stationary_moment,
    radius_curve,
    restrict_to_range,
    sam_coherence_matrix,
    sam_divergence_condition,
    sam_effective_hessians,
    second_moment_apply,
    second_moment_matrix,
    simulate_linearized,
)
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

H = np.stack([np.diag([1.0, 0.0]), np.diag([0.0, 2.0]), np.eye(2)])
ASYM = H.copy()
ASYM[1, 0, 1] = 1.0
INDEFINITE = np.stack([np.diag([1.0, -1.0]), np.eye(2)])
TASK = parity_task(n=4, in_features=8, width=4, seed=0)
X_FLAT = memorizing_solution(TASK)


def _param():
    return [torch.nn.Parameter(torch.zeros(2))]


def _sam_without_backward():
    params = _param()
    opt = SAM(params, lr=0.1)
    opt.step(lambda: (params[0] ** 2).sum())     # the loss, never its backward


CASES = [
    # ------------------------------------------------------------------ stability
    BadInput(check_hessians, lambda: check_hessians("hessians", ASYM), ValueError,
             ("hessians[1]", "symmetric"), "asymmetric"),
    BadInput(check_hessians, lambda: check_hessians("hessians", np.ones((2, 2))), ValueError,
             ("hessians", "3-dimensional"), "ndim"),
    BadInput(check_hessians, lambda: check_hessians("hessians", INDEFINITE, psd=True), ValueError,
             ("hessians[0]", "positive semidefinite"), "psd"),
    BadInput(check_hessians, lambda: check_hessians("hessians", H, rtol=-1.0), ValueError, ("rtol", "> 0"),
             "rtol"),
    BadInput(batch_moment_coefficients, lambda: batch_moment_coefficients(3, 4), ValueError,
             ("batch_size", "<= n"), "batch"),
    BadInput(batch_moment_coefficients, lambda: batch_moment_coefficients(3, 1, "poisson"), ValueError,
             ("sampling", "bernoulli"), "sampling"),
    BadInput(enumerate_batches, lambda: enumerate_batches(40, 1, "bernoulli"), ValueError,
             ("n = 40", "enumerate"), "too-many"),
    BadInput(enumerate_batches, lambda: enumerate_batches(0, 1), ValueError, ("n", "positive int"), "n"),
    BadInput(sam_effective_hessians, lambda: sam_effective_hessians(H, rho=-0.1), ValueError,
             ("rho", ">= 0"), "rho"),
    BadInput(sam_effective_hessians, lambda: sam_effective_hessians(INDEFINITE, rho=0.1), ValueError,
             ("hessians[0]", "positive semidefinite"), "psd"),
    BadInput(restrict_to_range, lambda: restrict_to_range(H, rtol=0.0), ValueError, ("rtol", "> 0"), "rtol"),
    BadInput(second_moment_apply, lambda: second_moment_apply(H, np.eye(3), 0.1, 1.0, 0.0), ValueError,
             ("X", "(2, 2)"), "shape"),
    BadInput(second_moment_apply, lambda: second_moment_apply(H, np.eye(2), -0.1, 1.0, 0.0), ValueError,
             ("lr", "> 0"), "lr"),
    BadInput(second_moment_apply, lambda: second_moment_apply(H, np.eye(2), 0.1, -1.0, 0.0), ValueError,
             ("a", ">= 0"), "a"),
    BadInput(second_moment_matrix, lambda: second_moment_matrix(H, -0.5, 1), ValueError, ("lr", "> 0"), "lr"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.0, 1), ValueError, ("lr", "> 0"), "lr"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.1, 4), ValueError, ("batch_size", "<= n"),
             "batch"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.1, 1, alpha=0.0), ValueError,
             ("alpha", "> 0"), "alpha"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.1, 1, method="qr"), ValueError,
             ("method", "lanczos"), "method"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.1, 1, restrict_to_range=1), TypeError,
             ("restrict_to_range", "bool"), "restrict"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.1, 1, maxiters=2.5), ValueError,
             ("maxiters", "positive int"), "maxiters"),
    BadInput(mean_square_radius, lambda: mean_square_radius(H, 0.1, 1, method="power", maxiters=1),
             RuntimeError, ("maxiters = 1", "power iteration"), "unconverged"),
    BadInput(radius_curve, lambda: radius_curve(H, 1)(-1.0), ValueError, ("lr", ">= 0"), "lr"),
    BadInput(radius_curve, lambda: radius_curve(INDEFINITE, 1), ValueError, ("hessians[0]", "semidefinite"),
             "psd"),
    BadInput(critical_step_size, lambda: critical_step_size(H, 1, level=0.0), ValueError, ("level", "> 0"),
             "level"),
    BadInput(critical_step_size, lambda: critical_step_size(H, 1, rtol=-1e-3), ValueError, ("rtol", "> 0"),
             "rtol"),
    BadInput(gd_stable, lambda: gd_stable(np.eye(2), -1.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(gd_stable, lambda: gd_stable(np.ones(3), 1.0), ValueError, ("hessian", "2-dimensional"), "ndim"),
    BadInput(gd_stable, lambda: gd_stable(np.diag([1.0, -1.0]), 1.0), ValueError,
             ("hessian", "semidefinite"), "psd"),
    BadInput(coherence_matrix, lambda: coherence_matrix(np.ones((2, 2, 3))), ValueError,
             ("hessians", "(n, d, d)"), "shape"),
    BadInput(coherence_measure, lambda: coherence_measure(np.zeros((2, 2, 2))), ValueError,
             ("hessians", "positive eigenvalue"), "zero"),
    BadInput(coherence_lower_bound_hessians, lambda: coherence_lower_bound_hessians(1.0, 3, 4), ValueError,
             ("sigma", "[1, n = 3]"), "sigma"),
    BadInput(coherence_lower_bound_hessians, lambda: coherence_lower_bound_hessians(0.0, 3, 1), ValueError,
             ("lam_max", "> 0"), "lam"),
    BadInput(sam_coherence_matrix, lambda: sam_coherence_matrix(H, rho=-1.0), ValueError, ("rho", ">= 0"),
             "rho"),
    BadInput(dexter_divergence_condition, lambda: dexter_divergence_condition(H, -1.0, 1), ValueError,
             ("lr", "> 0"), "lr"),
    BadInput(dexter_divergence_condition, lambda: dexter_divergence_condition(INDEFINITE, 1.0, 1), ValueError,
             ("hessians[0]", "semidefinite"), "psd"),
    BadInput(sam_divergence_condition, lambda: sam_divergence_condition(H, 0.1, 1, rho=-0.5), ValueError,
             ("rho", ">= 0"), "rho"),
    BadInput(perturbed_stationary_moment, lambda: perturbed_stationary_moment(H, 0.1, 1, noise_std=-1.0),
             ValueError, ("noise_std", ">= 0"), "noise"),
    BadInput(perturbed_mean_square, lambda: perturbed_mean_square(H, 0.1, 1, 0.1, steps=2.5), ValueError,
             ("steps", "int >= 0"), "steps"),
    BadInput(perturbed_mean_square, lambda: perturbed_mean_square(H, -0.1, 1, 0.1, steps=2), ValueError,
             ("lr", "> 0"), "lr"),
    BadInput(simulate_linearized, lambda: simulate_linearized(H, 0.1, 0, 3), ValueError,
             ("batch_size", "positive int"), "batch"),
    BadInput(simulate_linearized, lambda: simulate_linearized(H, 0.1, 1, 3.5), ValueError,
             ("steps", "int >= 0"), "steps"),
    BadInput(simulate_linearized, lambda: simulate_linearized(H, 0.1, 1, 3, seed=-1), ValueError,
             ("seed", "int >= 0"), "seed"),
    # issue #43 round 2: 2**64 was accepted (numpy folds it), a float seed named by check_seed
    BadInput(simulate_linearized, lambda: simulate_linearized(H, 0.1, 1, 3, seed=2**64), ValueError,
             ("seed", "2**64"), "seed-big"),
    BadInput(simulate_linearized, lambda: simulate_linearized(H, 0.1, 1, 3, seed=1.5), TypeError,
             ("seed", "int"), "seed-float"),
    BadInput(simulate_linearized, lambda: simulate_linearized(H, 0.1, 1, 3, noise_std=1.0, track="product"),
             ValueError, ("track", "noise_std"), "track"),
    # ------------------------------------------------------------------ sam
    BadInput(SAM, lambda: SAM(_param(), lr=0.1, rho=-1.0), ValueError, ("rho", ">= 0"), "rho"),
    BadInput(SAM, lambda: SAM(_param(), lr=-0.1), ValueError, ("lr", ">= 0"), "lr"),
    BadInput(SAM, lambda: SAM(_param(), lr=0.1, normalize=1), TypeError, ("normalize", "bool"), "normalize"),
    BadInput(SAM, lambda: SAM(_param(), base_optimizer=SAM, lr=0.1), TypeError,
             ("base_optimizer", "Optimizer subclass"), "base"),
    BadInput(SAM, lambda: SAM(_param(), lr=0.1, momentum=-0.5), ValueError, ("SGD", "momentum"), "momentum"),
    BadInput(SAM, lambda: SAM(_param(), lr=0.1).step(), ValueError, ("closure",), "closure"),
    BadInput(SAM, lambda: SAM(_param(), base_optimizer=torch.optim.SGD(_param(), lr=0.1), lr=0.1), TypeError,
             ("base_optimizer", "instance of SGD", "class"), "base-instance"),
    BadInput(SAM, _sam_without_backward, RuntimeError, ("closure", "backward"), "closure-no-backward"),
    BadInput(SAM, lambda: SAM(_param(), lr=0.1).first_step(), RuntimeError, ("first_step", "backward"),
             "first-step-no-grad"),
    BadInput(SAM, lambda: SAM(_param(), lr=0.1).load_state_dict({"state": {}}), ValueError,
             ("state_dict", "base_optimizer"), "state"),
    BadInput(SGDTraining, lambda: SGDTraining(lr=0.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(SGDTraining, lambda: SGDTraining(batch_size=0), ValueError, ("batch_size", "positive int"),
             "batch"),
    BadInput(SGDTraining, lambda: solve(TASK, SGDTraining(batch_size=5)), ValueError, ("batch_size", "<= n"),
             "batch-above-n"),
    BadInput(SAMTraining, lambda: SAMTraining(rho=-0.1), ValueError, ("rho", ">= 0"), "rho"),
    BadInput(SAMTraining, lambda: SAMTraining(lr=-1.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(SAMTraining, lambda: SAMTraining(normalize=1), TypeError, ("normalize", "bool"), "normalize"),
    BadInput(SAMTraining, lambda: SAMTraining(optimizer="SAM"), TypeError, ("optimizer", "callable"),
             "optimizer"),
    BadInput(TwoLayerMSETask, lambda: TwoLayerMSETask(X=np.zeros((3, 2)), y=np.zeros(2), width=2), ValueError,
             ("y", "length"), "y"),
    BadInput(TwoLayerMSETask, lambda: TwoLayerMSETask(X=np.zeros((3, 2)), y=np.zeros(3), width=0), ValueError,
             ("width", "positive int"), "width"),
    BadInput(TwoLayerMSETask, lambda: TwoLayerMSETask(X=np.full((3, 2), np.nan), y=np.zeros(3), width=2),
             ValueError, ("X", "NaN"), "nan"),
    BadInput(TwoLayerMSETask, lambda: TwoLayerMSETask(X=np.zeros((3, 2)), y=np.zeros(3), width=2,
                                                      activation="gelu"), ValueError, ("activation", "relu"),
             "activation"),
    BadInput(parity_task, lambda: parity_task(n=4, in_features=1, width=2, seed=0), ValueError,
             ("in_features", ">= 2"), "dim"),
    BadInput(parity_task, lambda: parity_task(n=4, in_features=3, width=2, seed=-1), ValueError,
             ("seed", ">= 0"), "seed"),
    BadInput(parity_task, lambda: parity_task(n=4, in_features=3, width=2, seed=0, dtype=np.int64), TypeError,
             ("dtype", "float"), "dtype"),
    BadInput(minimum_diagnostics, lambda: minimum_diagnostics(TASK, X_FLAT[:-1]), ValueError,
             ("x", f"length {TASK.n_params}"), "x"),
    BadInput(minimum_diagnostics, lambda: minimum_diagnostics(TASK, X_FLAT, lr=0.1), ValueError,
             ("lr", "batch_size"), "lr-alone"),
    BadInput(minimum_diagnostics, lambda: minimum_diagnostics("task", X_FLAT), TypeError,
             ("problem", "TwoLayerMSETask"), "problem"),
    BadInput(sample_coherence_matrix, lambda: sample_coherence_matrix(TASK, np.zeros(3)), ValueError,
             ("x", "length"), "x"),
    BadInput(generalizing_solution, lambda: generalizing_solution(TASK, features=3, r=1.0), ValueError,
             ("width", "2**features"), "width"),
    BadInput(generalizing_solution, lambda: generalizing_solution(TASK, features=2, r=0.0), ValueError,
             ("r", "> 0"), "r"),
    BadInput(generalizing_solution, lambda: generalizing_solution(TASK, features=1, r=1.0), ValueError,
             ("features", "[2,"), "features"),
    BadInput(memorizing_solution,
             lambda: memorizing_solution(parity_task(n=6, in_features=3, width=4, seed=0)),
             ValueError, ("width", ">= n"), "width"),
    BadInput(memorizing_solution, lambda: memorizing_solution(
        TwoLayerMSETask(X=np.ones((2, 3)), y=np.ones(2), width=2)), ValueError, ("X row", "distinct"),
             "duplicates"),
    # only row 0 is dominated (by row 1): the message must name that row
    BadInput(memorizing_solution, lambda: memorizing_solution(
        TwoLayerMSETask(X=[[1.0, 0.0], [2.0, 0.0]], y=np.ones(2), width=2)), ValueError, ("X row 0",),
             "one-row"),
]


def _second_step_alone():
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1)
    (w ** 2).sum().backward()
    opt.second_step()


# without first_step there is no ε to undo: the step would silently be the base optimizer's
CASES += [BadInput(SAM.second_step, _second_step_alone, RuntimeError, ("second_step", "first_step()"),
                   "no-first-step")]

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_rejected(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered([stability, sam], CASES)


# Round 3 of the held-out audit (#43): SAM.add_param_group validates like the constructor (S1).
ROUND3 = [
    BadInput(SAM.add_param_group,
             lambda: SAM([torch.nn.Parameter(torch.ones(2))], lr=0.1).add_param_group(
                 {"params": [torch.nn.Parameter(torch.ones(3))], "lr": -1.0}),
             ValueError, ("lr", ">= 0"), "lr-neg"),
    BadInput(SAM.add_param_group,
             lambda: SAM([torch.nn.Parameter(torch.ones(2))], lr=0.1).add_param_group(
                 {"params": [torch.nn.Parameter(torch.ones(3))], "rho": float("nan")}),
             ValueError, ("rho",), "rho-nan"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_round4_sam_protocol_and_state_shapes():
    # #43 round 4 (audit4 C5, C6, C7): first_step twice overwrote ε (θ drifted silently), a state_dict of
    # other shapes failed inside torch's step, and flatten_params promoted mixed dtypes silently
    from algorithms.nets import SAM, flatten_params

    w = torch.tensor([1.0], requires_grad=True)
    opt = SAM([w], lr=0.1, rho=0.1)
    (w**2).sum().backward()
    opt.first_step()
    with pytest.raises(RuntimeError, match=r"^SAM.first_step: already at θ \+ ε; call second_step\(\)"):
        opt.first_step()

    def trained(width):
        torch.manual_seed(0)
        m = torch.nn.Linear(4, width)
        o = SAM(m.parameters(), lr=0.1, rho=0.05, momentum=0.9)
        for _ in range(2):
            o.zero_grad()
            m(torch.randn(3, 4)).sum().backward()
            o.first_step(zero_grad=True)
            m(torch.randn(3, 4)).sum().backward()
            o.second_step(zero_grad=True)
        return m, o

    _, o8 = trained(8)
    m5, _ = trained(5)
    with pytest.raises(ValueError, match=r"^state_dict\['base_optimizer'\]\['state'\]\[0\]"
                                         r"\['momentum_buffer'\] has shape"):
        SAM(m5.parameters(), lr=0.1, rho=0.05, momentum=0.9).load_state_dict(o8.state_dict())
    with pytest.raises(TypeError, match=r"^params must share one dtype"):
        flatten_params({"a": torch.zeros(2), "b": torch.zeros(2, dtype=torch.float64)})


def test_round4_functional_messages_name_the_callable():
    # #43 round 4 (audit4 C3, C4, C8): a vector loss reached torch.func's message, an empty X an
    # IndexError inside vmap, and complex labels numpy's ufunc message
    from algorithms.nets import per_sample_flat_grads, per_sample_flat_hessians
    from algorithms.nets.gd_map import gd_map
    from algorithms.nets.neural_collapse import as_class_labels

    theta = torch.zeros(2, dtype=torch.float64)
    X, y = torch.ones(3, 2, dtype=torch.float64), torch.zeros(3, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"^sample_loss must return a scalar"):
        per_sample_flat_grads(lambda t, x, yy: t * x, theta, X, y)
    with pytest.raises(ValueError, match=r"^X and y must hold at least one sample, got 0"):
        per_sample_flat_hessians(lambda t, x, yy: (t @ x - yy) ** 2, theta, X[:0], y[:0])
    with pytest.raises(TypeError, match=r"^fn must return a scalar"):
        gd_map(lambda t: t**2, theta, lr=0.1)
    with pytest.raises(TypeError, match=r"^y must hold integer class indices"):
        as_class_labels("y", np.array([0, 1 + 1j]))


# ---------------------------------------------------------------------- round 7 (issue #43, pre-audit sweep)
def _sam_stepped(**kw):
    params = [torch.nn.Parameter(torch.randn(3, 2, generator=torch.Generator().manual_seed(0)))]
    opt = SAM(params, lr=0.1, momentum=0.9, **kw)

    def closure():
        opt.zero_grad()
        loss = (params[0] ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    return params, opt, closure


def test_sam_groups_edited_after_construction_are_refused_at_first_step():
    for key, value in (("rho", float("nan")), ("lr", float("nan")), ("normalize", "yes")):
        params, opt, closure = _sam_stepped()
        opt.param_groups[0][key] = value
        before = params[0].detach().clone()
        with pytest.raises((TypeError, ValueError), match=rf"param_groups\[0\].*{key}"):
            opt.step(closure)
        assert torch.equal(before, params[0].detach())


def test_sam_add_param_group_names_params_and_param_group():
    params, opt, _ = _sam_stepped()
    with pytest.raises(ValueError, match="param_group must have a 'params' entry"):
        opt.add_param_group({"lr": 0.1})
    with pytest.raises(ValueError, match="param_group: params: some parameters appear"):
        opt.add_param_group({"params": params})
    with pytest.raises(ValueError, match="meta device"):
        opt.add_param_group({"params": [torch.nn.Parameter(torch.zeros(2, device="meta"))]})
    assert len(opt.param_groups) == 1


def test_sam_nan_gradient_warns():
    params, opt, _ = _sam_stepped()
    params[0].grad = torch.full_like(params[0], float("nan"))
    with pytest.warns(RuntimeWarning, match="NaN or inf"):
        opt.first_step()


@pytest.mark.parametrize("edit,words", [
    (lambda sd: sd["base_optimizer"]["param_groups"][0].__setitem__("momentum", -1.0),
     "state_dict['base_optimizer']['param_groups'][0]"),
    (lambda sd: sd["base_optimizer"]["param_groups"][0].__setitem__("lr", float("nan")), "lr"),
    (lambda sd: sd["param_groups"][0].pop("rho"), "rho is missing"),
], ids=["base-momentum", "base-lr", "no-rho"])
def test_sam_load_state_dict_checks_the_base_groups(edit, words):
    import copy

    _, opt, _ = _sam_stepped()
    sd = copy.deepcopy(opt.state_dict())
    edit(sd)
    fresh = SAM([torch.nn.Parameter(torch.zeros(3, 2))], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError) as info:
        fresh.load_state_dict(sd)
    assert words in str(info.value)


def test_functional_helpers_refuse_non_finite_or_half_data():
    from algorithms.nets import flat_hessian, flat_hvp, flatten_params, per_sample_flat_grads

    theta = torch.zeros(3, dtype=torch.float64)
    nan = torch.tensor([float("nan"), 0.0, 0.0], dtype=torch.float64)
    square = lambda t: (t ** 2).sum()  # noqa: E731
    with pytest.raises(ValueError, match="theta contains NaN"):
        flat_hessian(square, nan)
    with pytest.raises(TypeError, match="theta must be float32 or float64"):
        flat_hessian(square, theta.half())
    with pytest.raises(ValueError, match="vector contains NaN"):
        flat_hvp(square, theta, nan)
    with pytest.raises(TypeError, match="vector must have theta's dtype"):
        flat_hvp(square, theta, theta.to(torch.complex128))
    loss = lambda t, x, y: ((t @ x - y) ** 2)  # noqa: E731
    X, y = torch.ones(2, 3, dtype=torch.float64), torch.zeros(2, dtype=torch.float64)
    with pytest.raises(ValueError, match="X contains NaN"):
        per_sample_flat_grads(loss, theta, torch.stack([nan, nan]), y)
    with pytest.raises(ValueError, match="y contains NaN"):
        per_sample_flat_grads(loss, theta, X, torch.tensor([0.0, float("inf")], dtype=torch.float64))
    with pytest.raises(TypeError, match="y must be real"):
        per_sample_flat_grads(loss, theta, X, y.to(torch.complex128))
    with pytest.raises(TypeError, match=r"params must be floating tensors \(parameters\), got \['a'\]"):
        flatten_params({"a": torch.zeros(2, dtype=torch.long)})


def test_a_loss_returning_nan_is_named_not_differentiated():
    from algorithms.nets import flat_hessian, flat_hvp, per_sample_flat_grads, per_sample_flat_hessians

    theta = torch.ones(3, dtype=torch.float64)
    nan_loss = lambda t: (t * float("nan")).sum()  # noqa: E731
    with pytest.raises(ValueError, match="loss returned NaN or inf at theta"):
        flat_hessian(nan_loss, theta)                # its Hessian came back as zeros
    with pytest.raises(ValueError, match="loss returned NaN or inf at theta"):
        flat_hvp(nan_loss, theta, theta)
    sample_loss = lambda t, x, y: (t * x).sum() * float("nan")  # noqa: E731
    X, y = torch.ones(2, 3, dtype=torch.float64), torch.ones(2, dtype=torch.float64)
    for call in (per_sample_flat_grads, per_sample_flat_hessians):
        with pytest.raises(ValueError, match="sample_loss returned NaN or inf for sample 0"):
            call(sample_loss, theta, X, y)


def test_sam_refuses_the_state_of_another_base_optimizer():
    _, opt, _ = _sam_stepped()
    other = SAM([torch.nn.Parameter(torch.zeros(3, 2))], base_optimizer=torch.optim.Adam, lr=0.1)
    with pytest.raises(ValueError, match="written by a SAM over SGD"):
        other.load_state_dict(opt.state_dict())


def test_two_layer_mse_task_copies_tensors_it_was_given():
    X = torch.tensor([[1.0, 1, -1, 1], [1, -1, 1, 1], [-1, 1, 1, -1], [-1, -1, -1, 1]], dtype=torch.float64)
    y = X[:, 0] * X[:, 1]
    task = TwoLayerMSETask(X, y, 8)
    before = task.X.copy()
    X[:] = 7.0
    assert np.array_equal(task.X, before)


def test_sam_training_stores_numpy_flags_as_bools():
    algorithm = SAMTraining(normalize=np.True_, batch_size=np.int64(2))
    assert algorithm.normalize is True and type(algorithm.batch_size) is int


def test_user_functions_of_the_wrong_arity_are_named():
    from algorithms.nets import flat_hessian, per_sample_flat_grads

    theta = torch.ones(3, dtype=torch.float64)
    with pytest.raises(TypeError, match=r"loss must take 1 positional argument\(s\), as in loss\(theta\)"):
        flat_hessian(lambda: 1.0, theta)
    with pytest.raises(TypeError, match="sample_loss must take 3 positional"):
        per_sample_flat_grads(lambda t: t.sum(), theta, torch.ones(2, 3, dtype=torch.float64),
                              torch.ones(2, dtype=torch.float64))
