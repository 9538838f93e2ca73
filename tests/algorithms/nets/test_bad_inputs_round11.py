"""#43 round 11 (pre-audit sweep) for the nets family: each class found, with the words of its message."""

import math

import pytest
import torch

from algorithms.nets import TwoLayerReLU, flat_hessian, flat_hvp, flatten_params, per_sample_flat_hessians
from algorithms.nets.gd_map import gd_logabsdet_slq
from algorithms.nets.models import CNN, MLP, Activation, SoftmaxAttention


# ------------------------------ class 1: a size/activation attribute reassigned after construction
@pytest.mark.parametrize("make, attribute, value", [
    (lambda: TwoLayerReLU(2, 3), "width", 5),
    (lambda: TwoLayerReLU(2, 3), "activation", "bogus"),     # a KeyError at forward
    (lambda: TwoLayerReLU(2, 3), "out_features", 4),         # forward still gave one output, in silence
    (lambda: MLP(2, (3,), 1), "sizes", (2, 4, 1)),
    (lambda: MLP(2, (3,), 1), "bias", False),
    (lambda: CNN(1, 6, 2, 3, 1), "kernel_size", 2),
    (lambda: SoftmaxAttention(3, 2, 1), "dim", 4),
    (lambda: Activation("relu"), "name", "tanh"),            # repr said tanh, forward computed relu
])
def test_an_attribute_the_weights_were_built_for_cannot_be_reassigned(make, attribute, value):
    module = make()
    with pytest.raises(ValueError, match=f"{attribute} is fixed by"):
        setattr(module, attribute, value)
    setattr(module, attribute, getattr(module, attribute))      # the same value is accepted


# ------------------------------- class 2: a theta of another dtype unflattened into parameters of that dtype
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int64])
def test_unflatten_refuses_a_theta_of_another_dtype_naming_theta(dtype):
    theta, unflatten = flatten_params({"a": torch.ones(2, dtype=torch.float64)})
    with pytest.raises(TypeError, match="theta must be a real floating tensor of the parameters' dtype"):
        unflatten(theta.to(dtype))


# --------------------------------- class 3: an expanded (stride-0) theta failed inside torch.func's make_dual
def test_an_expanded_theta_is_differentiated_as_its_values():
    theta = torch.ones(1, dtype=torch.float64).expand(3)
    loss = lambda t: (t**2).sum()  # noqa: E731
    assert torch.equal(flat_hessian(loss, theta), 2 * torch.eye(3, dtype=torch.float64))
    assert torch.equal(flat_hvp(loss, theta, theta), torch.full((3,), 2.0, dtype=torch.float64))
    X = torch.ones(1, 3, dtype=torch.float64).expand(4, 3)
    assert per_sample_flat_hessians(lambda t, x, y: (t * x).sum() ** 2, theta, X, X[:, 0]).shape == (4, 3, 3)
    estimate = gd_logabsdet_slq(loss, theta, lr=0.1, num_probes=2).estimate
    assert estimate == pytest.approx(3 * math.log(0.8))    # I − 0.1·2I


# ------------------------------ class 4: a field of a frozen problem/algorithm replaced after construction
def _two_layer():
    from algorithms.nets.gradient_flow import GradientDescentTraining, TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data
    X, y = orthogonally_separable_data(4, 8, seed=0)
    return TwoLayerTraining(X=X, y=y, width=8, init_scale=1e-3), GradientDescentTraining(lr=0.1, t_end=10.0)


def _sam():
    from algorithms.nets.sam import SAMTraining, parity_task
    return parity_task(n=8, in_features=3, width=8, seed=0), SAMTraining(lr=0.1, rho=0.05, batch_size=4)


@pytest.mark.parametrize("make, which, field, value", [
    (_two_layer, 0, "width", 0),
    (_two_layer, 0, "init_scale", float("nan")),
    (_two_layer, 1, "lr", float("nan")),
    (_two_layer, 1, "t_end", -1.0),
    (_sam, 1, "rho", -0.05),
    (_sam, 1, "batch_size", 0),
])
def test_a_field_replaced_with_object_setattr_is_refused_at_solve(make, which, field, value):
    from algorithms import solve
    problem, algorithm = make()
    object.__setattr__((problem, algorithm)[which], field, value)
    with pytest.raises((TypeError, ValueError), match=f"changed after construction.*{field}"):
        solve(problem, algorithm, seed=0, maxiters=3)


# ------------------------------ class 5: flat_forward's f answered NaN for NaN X, updated module buffers
def test_flat_forward_refuses_non_finite_x_and_leaves_the_modules_buffers_alone():
    from algorithms.nets import flat_forward
    module = torch.nn.Sequential(torch.nn.Linear(2, 2).double(), torch.nn.BatchNorm1d(2).double())
    theta, f = flat_forward(module)
    with pytest.raises(ValueError, match="X contains NaN or inf"):
        f(theta, torch.full((3, 2), float("inf"), dtype=torch.float64))
    f(theta, torch.randn(4, 2, dtype=torch.float64))
    assert torch.equal(module[1].running_mean, torch.zeros(2, dtype=torch.float64))
    assert int(module[1].num_batches_tracked) == 0


# ------------------------------ class 6: SAM ignored a misspelt group key and met torch's error for LBFGS
def test_sam_refuses_unknown_group_keys_and_a_closure_requiring_base():
    from algorithms.nets import SAM
    w = torch.nn.Parameter(torch.ones(2))
    with pytest.raises(ValueError, match=r"keys \['rhoo'\] are not keywords of SAM"):
        SAM([{"params": [w], "rhoo": 0.1}], lr=0.1)
    sam = SAM([w], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match=r"param_group: parameter group keys \['mom'\]"):
        sam.add_param_group({"params": [torch.nn.Parameter(torch.ones(1))], "mom": 0.5})
    assert len(sam.param_groups) == 1
    torch.optim.lr_scheduler.OneCycleLR(sam, max_lr=0.1, total_steps=10)     # its keys are expected
    with pytest.raises(TypeError, match="base_optimizer must step without a closure"):
        SAM([w], base_optimizer=torch.optim.LBFGS, lr=0.1)


# ------------------------------ class 7: TwoLayerReLU ran in half precision, or on NaN weights set in place
def test_two_layer_forward_checks_its_weights_as_they_are_now():
    with pytest.raises(TypeError, match="weights must be float32 or float64"):
        TwoLayerReLU(3, 4).half()(torch.ones(2, 3, dtype=torch.half))
    net = TwoLayerReLU(3, 4)
    with torch.no_grad():
        net.W.fill_(float("nan"))
    with pytest.raises(ValueError, match="the weight W contains NaN"):
        net(torch.ones(2, 3, dtype=torch.float64))


# ------------------------------ class 8: data scales where the tolerances gave a wrong Success/Infeasible
def test_univariate_data_outside_the_slope_scale_are_refused_naming_y():
    from algorithms.nets.sparse_interpolation import InterpolationProblem, linear_spline
    with pytest.raises(ValueError, match=r"y and x have a slope scale .* underflow"):
        InterpolationProblem(x=[0.0, 1.0, 2.0], y=[0.0, 1e-310, 0.0])      # Success with no knot
    with pytest.raises(ValueError, match=r"y and x have a slope scale .* overflow"):
        linear_spline([0.0, 1e-300, 2e-300], [0.0, 3e38, 0.0])              # "slope must be finite"
    # round 12: slopes past the working range (a solve failed naming "jumps"), and an intercept past it
    with pytest.raises(ValueError, match=r"y and x have a slope scale .* overflow"):
        InterpolationProblem(x=[0.0, 1.0, 2.0], y=[0.0, 3e38, 0.0])
    with pytest.raises(ValueError, match=r"x and y give the interpolant an intercept .* outside the working"):
        InterpolationProblem(x=[1e30, 1e30 + 1e15, 1e30 + 2e15], y=[0.0, 1e30, 0.0])
    assert linear_spline([0.0, 1.0, 2.0], [0.0, 8e37, 0.0]).jumps.tolist() == [-1.6e38]
    assert linear_spline([0.0, 1.0, 2.0], [0.0, 1e-300, 0.0]).num_knots == 1


@pytest.mark.parametrize("X, y, words", [
    ([[0.0, 0.0], [1e-12, 0.0], [1.0, 1.0]], [0.0, 1.0, 0.0], "X has two distinct rows"),   # Infeasible
    ([[1e4], [1e4 + 1e-3], [1e4 + 2e-3]], [0.0, 1.0, 0.0], "X has two distinct rows"),       # Infeasible
    ([[0.0, 0.0], [1e13, 0.0], [0.0, 1e13]], [0.0, 1.0, 1.0], "X must have entries of magnitude"),
    ([[0.0, 0.0], [1e-9, 0.0], [0.0, 1e-9]], [0.0, 3e38, 3e38], "y is too large for X's spacing"),
    ([[1e11, 0.0], [1e11 + 1e6, 0.0], [1e11, 1e6]], [0.0, 1e33, 1e33], "y is too large for X's spacing"),
])
def test_multivariate_data_the_enumeration_cannot_resolve_are_refused(X, y, words):
    from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem
    with pytest.raises(ValueError, match=words):
        MultivariateInterpolationProblem(X=X, y=y)


# ------------------------------ class 9: SAM.step's closure without zero_grad summed stale gradients
@pytest.mark.parametrize("rho, expected", [(0.0, [0.8, -1.6]), (0.5, [0.7553, -1.5106])])
def test_sam_step_zeroes_the_gradients_before_each_evaluation(rho, expected):
    from algorithms.nets import SAM
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = SAM([w], lr=0.1, rho=rho)

    def closure():          # no zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert w.detach().tolist() == pytest.approx(expected, abs=1e-4)


# ------------------------------ class 10: one params entry in another dtype (TwoLayerReLU's functional view)
@pytest.mark.parametrize("name, dtype", [("b", torch.float16), ("v", torch.float32)])
def test_a_params_entry_of_another_dtype_is_named(name, dtype):
    net = TwoLayerReLU(3, 4)
    params = net.init(0)
    params[name] = params[name].to(dtype)
    with pytest.raises(TypeError, match=rf"params\['{name}'\] must have params\['W'\]'s dtype"):
        net.forward_with(params, torch.ones(2, 3, dtype=torch.float64))


# ------------------------------ class 11: a loss less precise than theta was differentiated when rounded
def test_a_loss_of_lower_precision_than_theta_is_refused():
    from algorithms.nets import per_sample_flat_grads
    theta = torch.ones(3, dtype=torch.float64)
    with pytest.raises(TypeError, match="loss must return a value of theta's precision"):
        flat_hessian(lambda t: (t.half() ** 2).sum(), theta)
    X, y = torch.ones(4, 3, dtype=torch.float64), torch.ones(4, dtype=torch.float64)
    with pytest.raises(TypeError, match="sample_loss must return values of theta's precision"):
        per_sample_flat_grads(lambda t, x, yy: ((t * x).sum() - yy).float() ** 2, theta, X, y)


# ------------------------------ class 7 (models): MLP/CNN/attention check their weights as they are now
def test_nets_models_forward_checks_their_weights_as_they_are_now():
    with pytest.raises(TypeError, match="MLP's weights must be float32 or float64"):
        MLP(2, (3,), 1).half()(torch.ones(1, 2, dtype=torch.half))
    net = CNN(1, 6, 2, 3, 1)
    with torch.no_grad():
        net.c.fill_(float("nan"))
    with pytest.raises(ValueError, match="the weight c contains NaN"):
        net(torch.ones(1, 1, 6, dtype=torch.float64))


# ------------------------------ class 12: a user's loss raising KeyError reached the caller bare
def test_a_raising_loss_is_named_as_a_user_callable_error():
    from algorithms._validation import UserCallableError
    from algorithms.nets import per_sample_flat_grads

    def loss(t):
        raise KeyError("boom")

    theta = torch.ones(2, dtype=torch.float64)
    with pytest.raises(UserCallableError, match="loss raised KeyError"):
        flat_hessian(loss, theta)
    with pytest.raises(UserCallableError, match="sample_loss raised ZeroDivisionError"):
        X = torch.ones(3, 2, dtype=torch.float64)
        per_sample_flat_grads(lambda t, x, y: 1 / 0, theta, X, X[:, 0])


# ------------------------------ classes 11 and 12 in gd_map: fn's precision, fn/matvec raising KeyError
def test_gd_map_names_a_less_precise_or_raising_fn():
    from algorithms._validation import UserCallableError
    from algorithms.nets.gd_map import gd_jacobian, gd_map, stochastic_logabsdet
    theta = torch.ones(2, dtype=torch.float64)
    with pytest.raises(TypeError, match="fn must return a value of theta's precision"):
        gd_map(lambda t: (t.float() ** 2).sum(), theta, lr=0.1)

    def fn(t):
        raise KeyError("boom")

    with pytest.raises(UserCallableError, match="fn raised KeyError"):
        gd_jacobian(fn, theta, lr=0.1)
    with pytest.raises(UserCallableError, match=r"matvec\(V\) raised KeyError"):
        stochastic_logabsdet(lambda V: {}["x"], 2)


# ------------------------------ class 13: tiny Hessians' products underflowed (coherence 0, divergence True)
@pytest.mark.parametrize("scale", [1e-300, 1e-310])
def test_coherence_and_divergence_conditions_are_scale_free_at_tiny_hessians(scale):
    import numpy as np

    from algorithms.nets.stability import coherence_matrix, coherence_measure, dexter_divergence_condition
    H = np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0])])
    assert coherence_measure(H * scale) == coherence_measure(H) == 1.0
    assert not dexter_divergence_condition(H * scale, lr=2.0, batch_size=1)     # was True: σ = 0
    assert coherence_matrix(H * scale)[0, 0] == pytest.approx(2.0 * scale)


# ------------------------------ class 13 (collapse): tiny rows' inner products underflowed (not separable)
def test_orthogonal_separability_refuses_rows_whose_inner_products_underflow():
    from algorithms.nets.gradient_flow import TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonal_separability, orthogonally_separable_data
    X, y = orthogonally_separable_data(3, 6, seed=0)
    assert orthogonal_separability(X * 1e-140, y).separable
    with pytest.raises(ValueError, match="X row 0 has entries only up to"):
        orthogonal_separability(X * 1e-300, y)          # was Separability(0.0, 0.0): not separable
    with pytest.raises(ValueError, match="X row 0 has entries only up to"):
        TwoLayerTraining(X=X * 1e-200, y=y, width=8)    # refused at the end of its solve before


# ------------------------------ first run: TwoLayerReLU took X of 1e300 in silence
def test_first_run_two_layer_refuses_x_past_1e150():
    net = TwoLayerReLU(3, 4)
    X = torch.full((2, 3), 1e300, dtype=torch.float64)
    with pytest.raises(ValueError, match="X has an entry of magnitude 1e\\+300, outside the package's"):
        net(X)
    with pytest.raises(ValueError, match="X has an entry of magnitude 1e\\+300, outside the package's"):
        net.forward_with(net.init(0), X)


# ------------------------------ first run class (SOAP lr=5e-324): a subnormal step moved nothing
@pytest.mark.parametrize("make", [
    lambda: __import__("algorithms.nets.gd_map", fromlist=["GDMap"]).GDMap(lr=5e-324),
    lambda: __import__("algorithms.nets.sam", fromlist=["SGDTraining"]).SGDTraining(lr=5e-324),
    lambda: __import__("algorithms.nets.sam", fromlist=["SAMTraining"]).SAMTraining(lr=5e-324),
    lambda: __import__("algorithms.nets.gradient_flow", fromlist=["G"]).GradientDescentTraining(lr=5e-324),
    lambda: __import__("algorithms.nets.lp_training", fromlist=["L"]).LpPathNormTraining(lr=5e-324),
])
def test_a_subnormal_learning_rate_is_refused_naming_lr(make):
    with pytest.raises(ValueError, match=r"lr = 5e-324 is outside the package's working range"):
        make()
