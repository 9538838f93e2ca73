"""#43 round 10 (pre-audit sweep) for the nets family: each class found, with the words of its message."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.nets import multivariate_interpolation as MI
from algorithms.nets.multivariate_interpolation import MultivariateInterpolationProblem, PatternEnumeration

XOR = MultivariateInterpolationProblem(X=[[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
                                       y=[0.0, 1.0, 1.0, 0.0])


# ------------------------------------------------- class 1: exponential enumeration refused before it runs
@pytest.mark.parametrize("call", [
    lambda: solve(XOR, PatternEnumeration(max_pieces=3)),         # minutes: ~2e9 units of work
    lambda: solve(XOR, PatternEnumeration()),                     # hours
    lambda: MI.basic_points(XOR, 3),
    lambda: solve(MultivariateInterpolationProblem(X=np.eye(3), y=[0.0, 1.0, 1.0]), PatternEnumeration()),
])
def test_an_enumeration_past_its_work_bound_is_refused_naming_max_pieces(call):
    with pytest.raises(ValueError, match=r"X of shape \(\d, \d\) with max_pieces=\d.*maxiters"):
        call()


def test_a_budget_keeps_a_large_enumeration_runnable_and_a_huge_d_is_refused():
    assert solve(XOR, PatternEnumeration(max_pieces=3), maxiters=5).retcode.name == "MaxIters"
    with pytest.raises(ValueError, match=r"X has shape \(1, 100\): one piece"):
        MI.basic_points(MultivariateInterpolationProblem(X=np.eye(1, 100), y=[1.0]))
    with pytest.raises(ValueError, match="X has 1001 columns"):
        MultivariateInterpolationProblem(X=np.eye(2, 1001), y=[1.0, 2.0])
    with pytest.raises(TypeError, match="budget must be an int"):
        MI.basic_points(XOR, 1, budget=2.5)


# ------------------------------------ class 2: finite entries up to 1e308 overflowed into NaN/0 in silence
def test_scale_free_collapse_metrics_of_huge_features_are_the_unit_scale_ones():
    from algorithms.nets import neural_collapse as NC

    X = np.array([[1.0, 0.0], [1.0, 1e-8], [-1.0, 0.0], [0.0, -1.0]])
    y = [0, 0, 1, 1]
    small = NC.nc_metrics(X, y, V=[1.0, -1.0])
    # round 12: the largest features are the working range's (3.4e38); 1e308 is refused by name
    big = NC.nc_metrics(X * 3e38, y, V=[3e38, -3e38])
    assert all(np.isfinite(v) for v in big.values())
    assert big == pytest.approx(small, rel=1e-12, abs=1e-12)
    assert NC.mean_cosines(X * 3e38)[0, 1] == pytest.approx(1.0)
    means = NC.class_means(np.vstack([np.full((2, 2), 3e38), -np.ones((1, 2))]), [0, 0, 1])
    assert means[0, 0] == 3e38
    with pytest.raises(ValueError, match=r"X's inner products reach 9e\+76, past the package's working"):
        NC.orthogonal_separability(X * 3e38, y)         # the margins themselves leave the range
    for call in (lambda: NC.nc_metrics(X * 1e308, y, V=[1.0, -1.0]), lambda: NC.mean_cosines(X * 1e308),
                 lambda: NC.orthogonal_separability(X * 1e308, y)):
        with pytest.raises(ValueError, match=r"(H|X|means) has an entry of magnitude 1e\+308, outside"):
            call()


def test_path_norms_factor_the_product_that_overflowed_or_underflowed():
    assert MI.network_lp([[1.0, 4.0]], [3e38], 0.5) == pytest.approx(3.0 * np.sqrt(3e38))
    with pytest.raises(ValueError, match=r"has an entry of magnitude 1e\+308, outside the package's"):
        MI.network_lp([[1.0, 4.0]], [1e308], 0.5)
    assert MI.network_lp([[1e-200, 4.0]], [1e-200], 0) == 2.0
    assert MI.network_l0([[1e-200, 0.0]], [1e-200]) == 1


def test_radius_curve_at_an_overflowing_step_is_inf_not_a_linalg_error():
    from algorithms.nets import stability as ST

    f = ST.radius_curve(np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0]), np.eye(2)]), 1)
    assert np.isfinite(f(3.4e38))      # round 12: the working range's largest lr; 1e308 is refused by name
    with pytest.raises(ValueError, match=r"lr = 1e\+308 is outside the package's working range"):
        f(1e308)


# ----------------------------------------------------------- class 3: records built by hand are checked
@pytest.mark.parametrize("field, bad, kind", [("min_same", "0.5", TypeError), ("max_cross", True, TypeError),
                                              ("min_same", float("nan"), ValueError)])
def test_a_hand_built_separability_names_its_field(field, bad, kind):
    from algorithms.nets.neural_collapse import Separability

    with pytest.raises(kind, match=field):
        Separability(**{"min_same": 0.1, "max_cross": -0.1, field: bad})


# --------------------------------------------- class 4: runs and draws with no natural use at their size
@pytest.mark.parametrize("call, words", [
    (lambda ST: ST.simulate_linearized(np.eye(2)[None], 0.5, 1, 10**6, replicates=4), "steps=1000000 with "
                                                                                        "replicates=4"),
    (lambda ST: ST.perturbed_mean_square(np.eye(2)[None], 0.5, 1, 1.0, 2**31 - 1), "steps=2147483647"),
])
def test_a_simulation_past_its_run_length_is_refused_naming_steps(call, words):
    from algorithms.nets import stability as ST

    with pytest.raises(ValueError, match=words):
        call(ST)


def test_data_generators_cap_sizes_with_no_natural_use_and_name_mismatched_arguments():
    from algorithms.nets import neural_collapse as NC

    with pytest.raises(ValueError, match="dim must be <= 2048"):
        NC.orthogonally_separable_data(2, 4000)
    with pytest.raises(ValueError, match="n_classes must be <= 10000"):
        NC.interleaved_sector_data(4, 6, n_classes=10**6)
    with pytest.raises(ValueError, match="noise = 1e\\+308 is outside the package's working range"):
        NC.interleaved_sector_data(4, 6, noise=1e308)
    with pytest.raises(ValueError, match="n_classes=3"):
        NC.as_class_labels("y", [0, 1, 1], n_classes=3)
    with pytest.raises(TypeError, match="V must be array-like"):
        NC.nc_metrics(np.eye(4, 2), [0, 0, 1, 1], V=[[1.0], [1.0, 2.0]])


# ------------------------------- class 5: horizons and step counts past float's range or a C int, by name
def test_gradient_descent_steps_past_floats_range_are_refused_naming_t_end_and_lr():
    from algorithms.nets.gradient_flow import GradientDescentTraining

    for kw in ({"lr": 5e-324}, {"t_end": 1e308}):       # int(inf) raised a bare OverflowError
        with pytest.raises(ValueError, match=r"(lr|t_end) = \S+ is outside the package's working range"):
            GradientDescentTraining(**kw)
    with pytest.raises(ValueError, match=r"t_end / lr must be at most"):    # both inside the working range
        GradientDescentTraining(lr=1.2e-38, t_end=3e38)


@pytest.mark.parametrize("make", ["sam", "gd_map", "lp"])
def test_training_maxiters_past_a_c_int_is_refused(make):
    from algorithms.nets import gd_map as G
    from algorithms.nets import sam as SA
    from algorithms.nets.lp_training import LpPathNormTraining
    from algorithms.nets.sparse_interpolation import InterpolationProblem

    problem, algorithm = {
        "sam": lambda: (SA.parity_task(n=4, in_features=3, width=4, seed=0),
                        SA.SGDTraining(lr=0.1, batch_size=2)),
        "gd_map": lambda: (G.StrictSaddle(a=[1.0], b=[1.0]), G.GDMap(lr=0.1)),
        "lp": lambda: (InterpolationProblem(x=[0, 1, 2], y=[0, 1, 0], p=0.5), LpPathNormTraining(width=4)),
    }[make]()
    with pytest.raises(ValueError, match=r"maxiters must be <= 2\*\*31 - 1"):
        solve(problem, algorithm, maxiters=2**40)


def test_slq_names_lr_and_caps_its_probes_and_prune_names_huge_data():
    import torch

    from algorithms.nets import gd_map as G
    from algorithms.nets.lp_training import prune_network

    fn = lambda t: 0.5 * (t[0] ** 2 + 4.0 * t[1] ** 2)  # noqa: E731
    with pytest.raises(ValueError, match=r"lr = 1e\+308 is outside the package's working range"):
        G.gd_logabsdet_slq(fn, torch.zeros(2, dtype=torch.float64), 1e308)
    with pytest.raises(ValueError, match="num_probes must be <= 100000"):
        G.stochastic_logabsdet(lambda V: V, 2, num_probes=10**6)
    with pytest.raises(ValueError, match=r"y has an entry of magnitude 1e\+308, outside the package's"):
        prune_network([0, 1, 2], [0, 1e308, 1], W=[1.0], b=[-1.0], v=[1.0], a=0.0, c=0.0, prune_tol=1e-6,
                      merge_tol=1e-6)


# ------------------------------ class 6: products of finite weights past float's range (sparse_relu, gd_map)
def test_univariate_path_norm_and_knot_extraction_name_or_avoid_an_overflowing_product():
    from algorithms.nets import sparse_interpolation as SI

    assert SI.path_norm([3e38, 2.0], [4.0, -1.0], 0.5) == pytest.approx(np.sqrt(12e38) + np.sqrt(2.0))
    assert SI.path_norm([1e-200, 2.0], [1e-200, -1.0], 0) == 2.0       # 1e-400 underflowed to 0
    # round 12: 1e308 is outside the working range; 3e38 · 3e38 stays inside float64
    with pytest.raises(ValueError, match=r"v has an entry of magnitude 1e\+308, outside the package's"):
        SI.path_norm([1e308, 2.0], [4.0, -1.0], 0.5)
    with pytest.raises(ValueError, match=r"W has an entry of magnitude 1e\+308, outside the package's"):
        SI.network_to_cpwl([1e308, 1.0], [-1.0, -0.5], [1e308, 2.0])
    with pytest.raises(ValueError, match=r"v·\|W\|.*leave the working range .*; rescale v, W and b"):
        SI.network_to_cpwl([3e38, 1.0], [-1.0, -0.5], [3e38, 2.0])
    with pytest.raises(ValueError, match=r"knots -b/W leave the working range"):
        SI.network_to_cpwl([1e-30, 1.0], [-3e38, -0.5], [1.0, 2.0])


@pytest.mark.parametrize("method", ["slogdet", "eigvalsh"])
def test_exact_logabsdet_at_an_overflowing_step_is_its_finite_log(method):
    import math

    import torch

    from algorithms.nets import gd_map as G

    fn = lambda t: 0.5 * (t[0] ** 2 + 4.0 * t[1] ** 2)  # noqa: E731
    sign, logdet = G.exact_logabsdet(fn, torch.zeros(2, dtype=torch.float64), 3e38, method=method)
    assert sign == 1.0 and logdet == pytest.approx(2 * math.log(3e38) + math.log(4.0))


# --------------------------------------- class 7: SAM's closure contract and call order, as the optimizers'
@pytest.mark.parametrize("ret, words", [(None, "NoneType"), ("x", "str"), ("vec", "shape \\(3,\\)")])
def test_sam_refuses_a_closure_that_returns_no_loss(ret, words):
    import torch

    from algorithms.nets import SAM

    w = torch.nn.Parameter(torch.ones(3))
    opt = SAM([w], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return torch.ones(3) if ret == "vec" else ret

    with pytest.raises(TypeError, match=f"closure must return the loss.*{words}"):
        opt.step(closure)
    with pytest.raises(TypeError, match=r"closure must be callable .*the class dict"):
        opt.step(dict)


def test_sam_call_order_errors_are_value_errors_too():
    import torch

    from algorithms.nets import SAM
    from algorithms.nets.sam import SAMCallError

    opt = SAM([torch.nn.Parameter(torch.ones(3))], lr=0.1)
    with pytest.raises(ValueError, match=r"SAM\.second_step: call first_step"):
        opt.second_step()
    assert issubclass(SAMCallError, RuntimeError)


# ------------------------------------ class 8: user objectives of torch.func, what torch said now named fn
@pytest.mark.parametrize("fn, words", [
    (lambda t: (t ** 2).sum() > 0, "fn must return a scalar \\(a 0-d real floating tensor\\).*bool"),
    (lambda t: (t * 1j).sum(), "fn must return a (scalar|real floating-point scalar)"),
    (lambda t: t.mul_(2).sum(), "fn must not modify its input in place"),
])
@pytest.mark.parametrize("op", ["gd_map", "hessian_matrix", "gd_logabsdet_slq", "flat_hvp"])
def test_an_objective_torch_cannot_differentiate_is_named(fn, words, op):
    import torch

    from algorithms.nets import functional as F
    from algorithms.nets import gd_map as G

    theta = torch.ones(2, dtype=torch.float64)
    call = {"gd_map": lambda: G.gd_map(fn, theta.clone(), 0.1),
            "hessian_matrix": lambda: G.hessian_matrix(fn, theta.clone()),
            "gd_logabsdet_slq": lambda: G.gd_logabsdet_slq(fn, theta.clone(), 0.1, num_probes=2,
                                                           lanczos_steps=2),
            "flat_hvp": lambda: F.flat_hvp(fn, theta.clone(), theta.clone())}[op]
    with pytest.raises(TypeError, match=words.replace("fn ", "(fn|loss) ")):
        call()


def test_brute_force_past_its_subset_bound_is_refused_unless_maxiters_caps_it():
    from algorithms.nets import sparse_interpolation as SI

    x = np.arange(20.0)
    prob = SI.InterpolationProblem(x=x, y=np.sin(x))
    with pytest.raises(ValueError, match=r"BruteForceVp would try .* knot subsets.*pass maxiters"):
        solve(prob, SI.BruteForceVp(max_points=30))
    assert solve(prob, SI.BruteForceVp(max_points=30), maxiters=100).retcode.name == "MaxIters"


# ------------------------------------------- class 9: records built by hand and public methods' θ, by name
@pytest.mark.parametrize("args, kind, words", [
    (("x", 0.1, [1.0]), TypeError, "estimate must be a real number"),
    ((float("nan"), 0.1, [1.0]), ValueError, "estimate must not be NaN"),
    ((1.0, -0.1, [1.0]), ValueError, "stderr must be >= 0"),
    ((1.0, 0.1, "abc"), TypeError, "samples must be numeric"),
    ((1.0, 0.1, np.zeros((2, 2))), ValueError, "samples must be 1-dimensional"),
])
def test_a_hand_built_slq_estimate_names_its_field(args, kind, words):
    from algorithms.nets.gd_map import SLQEstimate

    with pytest.raises(kind, match=words):
        SLQEstimate(*args)
    assert SLQEstimate(1.0, float("inf"), [1.0]).stderr == float("inf")      # one probe: documented


def test_two_layer_training_methods_refuse_a_theta_whose_products_overflow():
    from algorithms.nets.gradient_flow import TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data

    X, y = orthogonally_separable_data(3, 6, seed=1)
    problem = TwoLayerTraining(X=X, y=y, width=4)
    theta = np.full(problem.n_params, 1e308)
    for method in (problem.loss_and_grad, problem.metrics, problem.features):
        with pytest.raises(ValueError, match=r"theta has an entry of magnitude 1e\+308, outside the"):
            method(theta)


# --------------------------------------- class 10: user models that write into X or draw random numbers
def test_empirical_loss_copies_x_for_the_model_and_refuses_a_random_one():
    import torch

    from algorithms.nets.gd_map import EmpiricalLoss

    class Writes(torch.nn.Module):
        out_features = 2

        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2, dtype=torch.float64)

        def forward(self, x):
            x.mul_(2.0)         # edited the problem's X (and the caller's) at every call
            return self.lin(x)

    X = torch.ones(4, 2, dtype=torch.float64)
    loss = EmpiricalLoss(Writes(), X, torch.tensor([0, 1, 0, 1]))
    assert float(loss.value()) == float(loss.value())
    assert torch.equal(X, torch.ones(4, 2, dtype=torch.float64))
    class Drifts(torch.nn.Module):  # another answer at every call, whatever the global RNG's state
        out_features = 2

        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(2, 2, dtype=torch.float64)
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            return self.lin(x) + self.calls

    with pytest.raises(ValueError, match="model must be deterministic"):
        EmpiricalLoss(Drifts(), X, torch.tensor([0, 1, 0, 1]))


def test_an_mlp_with_more_hidden_layers_than_its_cap_is_refused():
    from algorithms.nets.models import MLP

    with pytest.raises(ValueError, match="hidden must list at most 10000 widths"):
        MLP(3, (4,) * 10**6, 2)


# ------------------------------- round 10 first run (heldout10): mismatched pairs name both sides, by class
def test_flat_forward_and_per_sample_helpers_name_x_against_theta():
    import torch

    from algorithms.nets import TwoLayerReLU
    from algorithms.nets import functional as F

    theta, f = F.flat_forward(torch.nn.Linear(3, 2, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"X of shape \(2, 4\) does not fit Linear"):
        f(theta, torch.ones(2, 4, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"X must have theta.s dtype torch\.float64, got torch\.float32"):
        f(theta, torch.ones(2, 3))
    with pytest.raises(TypeError, match="X must be a torch tensor, got ndarray"):
        f(theta, np.ones((2, 3)))
    sq = lambda t, x, y: ((x * t).sum() - y) ** 2  # noqa: E731
    for helper in (F.per_sample_flat_grads, F.per_sample_flat_hessians):
        with pytest.raises(TypeError, match="X must have theta's dtype"):
            helper(sq, torch.ones(3, dtype=torch.float64), torch.ones(5, 3, dtype=torch.long),
                   torch.ones(5, dtype=torch.float64))
    net = TwoLayerReLU(3, 4)
    params = {k: v.float() for k, v in net.init(0).items()}
    with pytest.raises(TypeError, match=r"X and params must share one dtype"):
        net.forward_with(params, torch.ones(2, 3, dtype=torch.float64))
    with pytest.raises(TypeError, match="params must map str names"):
        F.flatten_params({1: torch.ones(2)})
