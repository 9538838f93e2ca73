"""#43 round 9 (pre-audit sweep) for the nets family: each class found, with the words of its message."""

import re

import numpy as np
import pytest
import torch

from algorithms.nets import TwoLayerReLU, flat_hessian, flat_hvp, flatten_params, per_sample_flat_grads
from algorithms.nets import gd_map as G
from algorithms.nets import stability as ST
from algorithms.nets.lp_training import LpPathNormTraining, smoothed_lp
from algorithms.nets.models import MLP, Activation, SoftmaxAttention
from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem, network_from_pieces

D = torch.float64


def _hessians():
    rng = np.random.default_rng(0)
    return np.stack([np.outer(v, v) for v in rng.normal(size=(4, 3))])


# ---------------------------------------------------------------- class 2: pure maps refuse NaN/sparse/meta
@pytest.mark.parametrize("bad, kind, words", [
    (torch.tensor([1.0, float("nan")]), ValueError, "params\\['a'\\] contains NaN"),
    (torch.tensor([1.0, float("inf")]), ValueError, "params\\['a'\\] contains NaN"),
    (torch.ones(2, device="meta"), ValueError, "params\\['a'\\] is on the meta device"),
    (torch.ones(2, 2).to_sparse(), TypeError, "params\\['a'\\] must be a dense"),
])
def test_flatten_params_refuses_what_it_cannot_flatten(bad, kind, words):
    with pytest.raises(kind, match=words):
        flatten_params({"a": bad})


def test_activation_forward_refuses_non_floating_and_sparse_and_documents_nan():
    act = Activation("tanh")
    for bad, words in ((torch.ones(2, dtype=torch.bool), "t must be a real floating"),
                       (torch.ones(2, dtype=torch.complex128), "t must be a real floating"),
                       (torch.ones(2, 2).to_sparse(), "t must be a dense")):
        with pytest.raises(TypeError, match=words):
            act(bad)
    with pytest.raises(ValueError, match="t is on the meta device"):
        act(torch.ones(2, device="meta"))
    assert "NaN entry\n        maps to NaN" in Activation.forward.__doc__ or "maps to NaN" in " ".join(
        Activation.forward.__doc__.split())


@pytest.mark.parametrize("call, words", [
    (lambda: flat_hessian(lambda t: (t ** 4).sum(), torch.ones(3, dtype=D).to_sparse()),
     "theta must be a dense"),
    (lambda: flat_hvp(lambda t: (t ** 4).sum(), torch.ones(3, dtype=D), torch.ones(3, dtype=D).to_sparse()),
     "vector must be a dense"),
    (lambda: per_sample_flat_grads(lambda t, x, y: ((x * t).sum() - y) ** 2, torch.ones(3, dtype=D),
                                   torch.ones(5, 3, dtype=D).to_sparse(), torch.ones(5, dtype=D)),
     "X must be a dense"),
    (lambda: per_sample_flat_grads(lambda t, x, y: ((x * t).sum() - y) ** 2, torch.ones(3, dtype=D),
                                   torch.ones(5, 3, dtype=D), torch.ones(5, dtype=torch.bool)),
     "y must be numeric"),
    (lambda: MLP(3, (4,), 2)(torch.ones(5, 3, dtype=D).to_sparse()), "X must be a dense"),
    (lambda: TwoLayerReLU(3, 4)(torch.ones(5, 3, dtype=D).to_sparse()), "X must be a dense"),
    (lambda: G.gd_jacobian(lambda t: (t ** 2).sum(), torch.ones(3, dtype=D).to_sparse(), 0.1),
     "theta must be a dense"),
])
def test_sparse_tensors_are_refused_by_name(call, words):
    with pytest.raises(TypeError, match=words):
        call()


def test_empirical_loss_names_x_beside_y_and_refuses_an_overflowing_loss():
    net = MLP(3, (4,), 2)
    with pytest.raises(ValueError, match=r"one per row of X"):
        G.EmpiricalLoss(net, torch.ones(4, 3, dtype=D), torch.tensor([0, 1, 0, 1, 1]))
    with pytest.raises(ValueError, match=r"one row per row of X"):
        G.EmpiricalLoss(net, torch.ones(4, 3, dtype=D), torch.ones(5, 2, dtype=D), loss="mse")
    # round 12: an entry past the working range (3.4e38) is refused before any loss is computed
    with pytest.raises(ValueError, match=r"y has an entry of magnitude 1e\+300, outside the package's"):
        G.EmpiricalLoss(net, torch.ones(5, 3, dtype=D), torch.full((5, 2), 1e300, dtype=D), loss="mse")
    with pytest.raises(ValueError, match="X and y give a non-finite loss"):      # float32: 3e38² overflows
        G.EmpiricalLoss(MLP(3, (4,), 2, dtype=torch.float32), torch.ones(5, 3), torch.full((5, 2), 3e38),
                        loss="mse")
    with pytest.raises(TypeError, match="y must be a dense"):
        G.EmpiricalLoss(net, torch.ones(5, 3, dtype=D), torch.tensor([0, 1, 0, 1, 1]).to_sparse())


def test_flat_objective_names_theta_for_a_dtype_mismatch():
    loss = G.EmpiricalLoss(MLP(3, (4,), 2), torch.ones(5, 3, dtype=D), torch.tensor([0, 1, 0, 1, 1]))
    theta, fn = loss.flat_objective()
    with pytest.raises(TypeError, match=r"theta must have dtype torch\.float64"):
        G.gd_jacobian(fn, theta.float(), lr=0.1)


def test_gd_map_and_jacobian_refuse_an_lr_that_overflows():
    with pytest.raises(ValueError, match=r"lr = 1e\+308 is outside the package's working range"):
        G.gd_jacobian(lambda t: (t ** 2).sum(), torch.ones(2, dtype=D), lr=1e308)
    with pytest.raises(ValueError, match=r"lr = 1e\+308 is outside the package's working range"):
        G.gd_map(lambda t: (t ** 2).sum(), torch.ones(2, dtype=D), lr=1e308)


def test_singular_step_sizes_takes_a_theta_with_grad_and_names_a_huge_rtol():
    theta = torch.ones(2, dtype=D, requires_grad=True)
    assert G.singular_step_sizes(lambda t: (t ** 2).sum(), theta).tolist() == [0.5, 0.5]
    with pytest.raises(ValueError, match="rtol must lie in"):
        G.singular_step_sizes(lambda t: (t ** 2).sum(), theta, rtol=10**400)


def test_stochastic_logabsdet_past_memory_is_refused_by_name():
    with pytest.raises(ValueError, match="num_probes must be <= 100000"):     # round 10: MAX_PROBES first
        G.stochastic_logabsdet(lambda V: V, 4, num_probes=2**31, lanczos_steps=3)
    with pytest.raises(ValueError, match="dim=1099511627776 is too large"):
        G.stochastic_logabsdet(lambda V: V, 2**40, num_probes=1000, lanczos_steps=3)


def test_strict_saddle_public_methods_refuse_an_overflowing_point():
    problem = G.StrictSaddle(a=[1.0], b=[2.0])
    for method in (problem.value, problem.grad, problem.hessian):
        with pytest.raises(ValueError, match="z has an entry of magnitude 1e\\+300, outside the package's"):
            method(np.array([0.1, 1e300]))


# ---------------------------------------------------------------- class 1: huge scales
@pytest.mark.parametrize("build", [
    lambda: MLP(3, (4,), 2, init_scale=1e308),
    lambda: SoftmaxAttention(3, 2, 2, init_scale=1e308),
    lambda: TwoLayerReLU(3, 4, init_scale=1e308),
    lambda: G.StrictSaddle(a=[1.0], b=[1.0], init_scale=1e200),
    lambda: LpPathNormTraining(init_scale=1e200),
])
def test_an_init_scale_past_the_cap_is_refused(build):
    with pytest.raises(ValueError, match=r"init_scale = 1e\+(308|200) is outside the package's"):
        build()


def test_a_float32_draw_that_overflows_is_refused():
    with pytest.raises(ValueError, match=r"init_scale = 3e\+38 draws initial weights up to"):
        TwoLayerReLU(3, 4, init_scale=3e38, dtype=torch.float32)


def test_two_layer_init_names_its_scale():
    with pytest.raises(ValueError, match=r"scale = 1e\+308 is outside the package's working range"):
        TwoLayerReLU(3, 4).init(0, scale=1e308)


def test_softmax_attention_past_memory_is_refused_by_name():
    with pytest.raises(ValueError, match="dim=2147483648 is too large"):
        SoftmaxAttention(3, 2**31, 2)


@pytest.mark.parametrize("call, words", [
    # round 12: 1e308 / 1e-320 are outside the working range, refused by name before the products
    (lambda: ST.coherence_matrix(_hessians() * 1e300), "hessians has an entry of magnitude .* outside the"),
    (lambda: ST.coherence_measure(_hessians() * 1e300), "hessians has an entry of magnitude .* outside the"),
    (lambda: ST.mean_square_radius(_hessians(), lr=1e308, batch_size=2), r"lr = 1e\+308 is outside the"),
    (lambda: ST.second_moment_matrix(_hessians(), lr=1e308, batch_size=2), r"lr = 1e\+308 is outside the"),
    (lambda: ST.perturbed_stationary_moment(_hessians(), 0.1, 2, noise_std=1e308),
     r"noise_std = 1e\+308 is outside the"),
    (lambda: ST.perturbed_mean_square(_hessians(), 0.1, 2, noise_std=1e308, steps=3),
     r"noise_std = 1e\+308 is outside the"),
    (lambda: ST.simulate_linearized(_hessians(), 0.1, 2, 3, noise_std=1e308),
     r"noise_std = 1e\+308 is outside the"),
    (lambda: ST.sam_effective_hessians(_hessians(), rho=1e308), r"rho = 1e\+308 is outside the"),
    (lambda: ST.sam_effective_hessians(_hessians(), rho=0.1, alpha=1e-320), "alpha = 1e-320 is outside the"),
    (lambda: ST.sam_effective_hessians(_hessians() * 1e37, rho=3e38, alpha=1.2e-38), "rho/alpha"),
    (lambda: ST.second_moment_apply(_hessians(), np.eye(3), 0.1, a=1e308, b=0.0), r"a = 1e\+308 is outside"),
    (lambda: ST.second_moment_apply(_hessians(), np.eye(3), 0.1, a=1e7, b=0.0), r"a must be <= 1e6"),
    (lambda: ST.second_moment_apply(_hessians(), np.eye(3), 1e308, a=1.0, b=0.0), r"lr = 1e\+308"),
    (lambda: ST.coherence_lower_bound_hessians(1e308, n=4, sigma=2), "lam_max"),
])
def test_stability_scales_that_overflow_float64_are_refused_by_name(call, words):
    with pytest.raises(ValueError, match=words):
        call()


@pytest.mark.parametrize("call, words", [
    (lambda: ST.simulate_linearized(_hessians(), 0.1, 2, 2**31), r"steps must be <= 2\*\*31 - 1"),
    (lambda: ST.simulate_linearized(_hessians(), 0.1, 2, 3, replicates=2**31),
     r"replicates must be <= 2\*\*31"),
    (lambda: ST.simulate_linearized(_hessians(), 0.1, 2, 2**30, replicates=2**30), "is too large"),
    (lambda: ST.perturbed_mean_square(_hessians(), 0.1, 2, 0.1, steps=2**31),
     r"steps must be <= 2\*\*31 - 1"),
])
def test_stability_counts_past_a_c_int_or_memory_are_refused(call, words):
    with pytest.raises(ValueError, match=words):
        call()


def test_smoothed_lp_and_lp_training_refuse_squares_that_overflow():
    with pytest.raises(ValueError, match=r"eps = 1e\+308 is outside the package's working range"):
        smoothed_lp(np.ones(2), 0.5, 1e308)
    with pytest.raises(ValueError, match="t has an entry of magnitude 1e\\+300, outside the package's"):
        smoothed_lp(np.array([1e300]), 0.5, 1e-3)
    for name in ("smoothing", "smoothing_start"):
        with pytest.raises(ValueError, match=rf"{name} = 1e\+308 is outside the package's working range"):
            LpPathNormTraining(**{name: 1e308})


def test_network_from_pieces_names_a_0d_pieces():
    problem = MultivariateInterpolationProblem(X=[[0.0], [1.0]], y=[1.0, 1.0])
    with pytest.raises(TypeError, match="pieces must be a sequence"):
        network_from_pieces(problem, np.array(4), np.array([[0.0, 1.0]]))


# ---------------------------------------------------------------- SAM / SGD training
def test_sam_rates_past_the_cap_are_refused_by_name():
    from algorithms.nets import SAM
    from algorithms.nets.sam import SAMTraining

    w = torch.nn.Parameter(torch.ones(2, 2))
    for kwargs, words in (({"lr": 1e308}, r"lr = 1e\+308 is outside the package's working range"),
                          ({"lr": 0.1, "rho": 1e308}, r"rho = 1e\+308 is outside the package's"),
                          ({"lr": 2**64}, r"lr must be <= 1e\+?10"),
                          ({"lr": 0.1, "rho": 1e11}, "rho must be <= 1e10")):
        with pytest.raises(ValueError, match=words):
            SAM([w], **kwargs)
        with pytest.raises(ValueError, match=words):
            SAMTraining(**kwargs)
    with pytest.raises(ValueError, match="momentum must be finite"):
        SAM([w], lr=0.1, momentum=10**400)     # OverflowError from float() before


def test_a_blown_up_sgd_run_is_diverged_not_an_error():
    from algorithms import solve
    from algorithms.nets.sam import SGDTraining, parity_task

    task = parity_task(n=8, in_features=6, width=8, seed=0)
    for lr in (3e38, 2**64):       # round 12: 1e308 is outside the working range (refused by name)
        assert solve(task, SGDTraining(lr=lr, batch_size=2), maxiters=5).retcode.value == "Diverged"


def test_task_points_whose_loss_overflows_and_extreme_r_are_refused():
    from algorithms.nets.sam import generalizing_solution, minimum_diagnostics, parity_task

    task = parity_task(n=8, in_features=4, width=8, seed=0)
    x = generalizing_solution(task, features=2, r=1.0)
    with pytest.raises(ValueError, match="x has an entry of magnitude 1e\\+300, outside the package's"):
        task.loss_at(np.full_like(x, 1e300))
    with pytest.raises(ValueError, match="x has an entry of magnitude 1e\\+300, outside the package's"):
        minimum_diagnostics(task, np.full_like(x, 1e300))
    for r in (1e-320, 1e308):      # round 12: the working range, inside the old [1e-75, 1e75]
        with pytest.raises(ValueError, match=rf"r = {re.escape(repr(r))} is outside the package's"):
            generalizing_solution(task, features=2, r=r)
    for r in (1.2e-38, 3.4e38):
        assert task.loss_at(generalizing_solution(task, features=2, r=r)) == 0.0


@pytest.mark.parametrize("sampling", ["without_replacement", "with_replacement", "bernoulli"])
def test_enumerate_batches_refuses_a_huge_n_at_once(sampling):
    # 2**n was computed for every law: n = 2**31 built a two-billion-bit int (a hang)
    with pytest.raises(ValueError, match="batches, more than"):
        ST.enumerate_batches(2**31, 2, sampling)


# ---------------------------------------------------------------- heldout9 interim report (first run)
def test_gd_logabsdet_slq_names_fn_returning_no_tensor():
    with pytest.raises(TypeError, match="fn must return a scalar"):
        G.gd_logabsdet_slq(lambda t: (x for x in t), torch.ones(3, dtype=D), lr=0.1, num_probes=2,
                           lanczos_steps=2)


def test_gd_map_documents_the_array_theta_it_converts():
    for function in (G.gd_map, G.gd_jacobian, G.hessian_matrix, G.hessian_eigenvalues, G.exact_logabsdet,
                     G.singular_step_sizes, G.gd_logabsdet_slq):
        assert "numpy array or a list of numbers is accepted" in " ".join(function.__doc__.split())
    estimate = G.gd_logabsdet_slq(lambda t: (t ** 2).sum(), np.ones(3), lr=0.1, num_probes=2, lanczos_steps=2)
    assert np.isfinite(estimate.estimate)


def test_load_state_dict_refuses_a_class_by_name():
    from collections import OrderedDict

    with pytest.raises(TypeError, match=r"state_dict must be a mapping .* got the class OrderedDict"):
        TwoLayerReLU(3, 4).load_state_dict(OrderedDict)


def test_per_sample_hessians_name_a_sample_loss_returning_no_tensor():
    from algorithms.nets import per_sample_flat_hessians

    with pytest.raises(TypeError, match="sample_loss must return a scalar"):
        per_sample_flat_hessians(lambda t, x, y: "oops", torch.ones(3, dtype=D), torch.ones(4, 3, dtype=D),
                                 torch.ones(4, dtype=D))


def test_module_params_refuses_nan_and_meta_modules_naming_module():
    from algorithms.nets import module_params

    net = TwoLayerReLU(3, 4)
    with torch.no_grad():
        net.W[0, 0] = float("nan")
    with pytest.raises(ValueError, match="module has NaN or inf entries in its parameter 'W'"):
        module_params(net)
    with pytest.raises(ValueError, match="module is on the meta device"):
        module_params(TwoLayerReLU(3, 4).to("meta"))
