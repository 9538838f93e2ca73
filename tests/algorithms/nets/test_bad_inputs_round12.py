"""#43 round 12 (working range) for the nets family: one test per class, with its message's words."""

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.core import RetCode
from algorithms.nets import SAM
from algorithms.nets import models as M
from algorithms.nets.lp_training import LpPathNormTraining, prune_network
from algorithms.nets.sam import SAMTraining, SGDTraining, parity_task
from algorithms.nets.sparse_interpolation import BruteForceVp, InterpolationProblem, SparsestInterpolantDP

WR = "outside the package's working range"


# ------------------ class 1: SAM's base-optimizer keywords (and their edits) skipped the working range
def _run(opt, w, n=2):
    for _ in range(n):
        def closure():
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)


@pytest.mark.parametrize("key, value", [("momentum", 1e300), ("weight_decay", 1e39), ("dampening", -1e39)])
def test_sam_base_keywords_and_their_edits_are_in_the_working_range(key, value):
    torch.manual_seed(0)
    w = torch.nn.Parameter(torch.randn(3))
    with pytest.raises(ValueError, match=rf"{key} = {value!r} is {WR}".replace("+", r"\+")):
        SAM([w], lr=0.1, **{key: value})     # momentum 1e300: inf weights; weight_decay 1e39: torch's error
    opt = SAM([w], lr=0.1)
    _run(opt, w)
    opt.param_groups[0][key] = value
    with pytest.raises(ValueError, match=rf"param_groups\[0\] was set to an invalid value: {key} = "):
        _run(opt, w)


# ------------------ class 2: a run's weights past the working range were refused as user input (params['W'])
@pytest.mark.parametrize("algorithm", [SGDTraining(lr=3e38, batch_size=2),
                                       SAMTraining(lr=1e10, batch_size=2)])
def test_training_whose_weights_leave_the_working_range_is_diverged(algorithm):
    task = parity_task(n=8, in_features=6, width=8, seed=0)
    assert solve(task, algorithm, maxiters=5).retcode is RetCode.Diverged


# ------------------ class 3: tolerances the solvers derive from valid data went through the user-input check
@pytest.mark.parametrize("algorithm", [BruteForceVp(), SparsestInterpolantDP()])
def test_tiny_valid_data_do_not_trip_a_derived_tolerance(algorithm):
    # BruteForceVp's jump tolerance 1e-9·1e-300 was refused as "zero_tol = 1e-309"
    problem = InterpolationProblem(x=[0.0, 1.0, 2.0, 3.0], y=[0.0, 1e-300, 0.0, 1e-300], p=0.5)
    solve(problem, algorithm)
    f, _ = prune_network(np.array([0.0, 1e-10, 2e-10]), np.array([0.0, 1e-10, 0.0]), W=[1.0, 1.0],
                         b=[-1e-10, -1e-10], v=[-1.0, -1.0], a=1.0, c=0.0, prune_tol=1e-6, merge_tol=1e-30)
    assert f.num_knots == 1        # merge_tol·ptp(x) = 2e-40 was refused as "merge_tol"


def test_lp_training_on_tiny_x_keeps_its_weights_in_range():
    # W = W'/x_half reached 1e300 on x of 1e-300 and prune_network refused it as "W"
    problem = InterpolationProblem(x=[0.0, 1e-300, 2e-300], y=[0.0, 1e-300, 0.0], p=0.5)
    sol = solve(problem, LpPathNormTraining(width=4), maxiters=50)
    assert np.max(np.abs(sol.original["params"]["W"])) <= 3.4e38


# ------------------ class 4: data whose interpolant leaves the working range failed naming its terms
@pytest.mark.parametrize("x, y, words", [
    ([0.0, 1.0, 2.0], [0.0, 3e38, 0.0], "y and x have a slope scale .* overflow"),   # was "jumps ... 6e+38"
    ([0.0, 1e-30, 2e-30], [0.0, 3e38, 0.0], "y and x have a slope scale .* overflow"),
    ([1e30, 1e30 + 1e15, 1e30 + 2e15], [0.0, 1e30, 0.0], "x and y give the interpolant an intercept"),
])
def test_univariate_data_whose_interpolant_leaves_the_range_are_refused(x, y, words):
    with pytest.raises(ValueError, match=words):
        InterpolationProblem(x=x, y=y)


def test_network_to_cpwl_names_the_network_when_its_terms_leave_the_range():
    from algorithms.nets.sparse_interpolation import network_to_cpwl

    with pytest.raises(ValueError, match=r"v·\|W\|.*leave the working range"):
        network_to_cpwl([3e38, 1.0], [-1.0, -0.5], [3e38, 2.0])
    with pytest.raises(ValueError, match=r"knots -b/W leave the working range"):
        network_to_cpwl([1e-30, 1.0], [-3e38, -0.5], [1.0, 2.0])


# ------------------ class 5 (records): CPWL's arrays were writable and its methods never re-checked a field
def test_cpwl_arrays_are_read_only_and_a_changed_field_is_refused_at_use():
    from algorithms.nets.sparse_interpolation import CPWL, cpwl_to_network

    f = CPWL.from_terms([1.0, 2.0], [1.0, -1.0], slope=0.0, intercept=0.0)
    with pytest.raises(ValueError, match="read-only"):
        f.knots[0] = 3.0
    f.knots.setflags(write=True)
    f.knots[0] = 3.0                                    # unsorted: another function, answered in silence
    for call in (lambda: f(np.array([0.0, 1.5])), lambda: f.vp(0.5), lambda: f.num_knots,
                 lambda: f.to_vector(), lambda: cpwl_to_network(f)):
        with pytest.raises(ValueError, match=r"CPWL\.knots was changed after construction"):
            call()
    g = CPWL.from_terms([1.0, 2.0], [1.0, -1.0], slope=0.0, intercept=0.0)
    object.__setattr__(g, "slope", float("nan"))
    with pytest.raises(ValueError, match=r"CPWL\.slope was changed after construction.*slope must be finite"):
        g(np.array([0.0]))


@pytest.mark.parametrize("args, words", [
    ((1e300, 0.1, [1.0]), rf"estimate = 1e\+300 is {WR}"),
    ((1.0, 1e39, [1.0]), rf"stderr = 1e\+39 is {WR}"),
    ((1.0, 0.1, [1e300]), rf"samples has an entry of magnitude 1e\+300, {WR}"),
])
def test_a_hand_built_slq_estimate_is_in_the_working_range(args, words):
    from algorithms.nets.gd_map import SLQEstimate

    with pytest.raises(ValueError, match=words):
        SLQEstimate(*args)
    assert SLQEstimate(-np.inf, np.inf, [1.0]).estimate == -np.inf       # documented: singular, one probe


# ------------------ class 6 (objects changed after construction): a weight replaced by one of another shape
def test_a_two_layer_weight_replaced_by_another_shape_is_refused_by_name():
    from algorithms.nets import TwoLayerReLU
    from algorithms.nets.models import MLP

    net = TwoLayerReLU(3, 4)
    net.W = torch.nn.Parameter(torch.ones(7, 3, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"TwoLayerReLU's submodules or parameters were .*W: \(4, 3\)"):
        net(torch.ones(2, 3, dtype=torch.float64))
    mlp = MLP(3, (4,), 2)
    x = torch.ones(2, 3, dtype=next(mlp.parameters()).dtype)
    mlp(x)
    mlp.W0 = torch.nn.Parameter(torch.ones(5, 3, dtype=x.dtype))
    with pytest.raises(ValueError, match=r"MLP's submodules or parameters were replaced"):
        mlp(x)


# ------------------ class 7: hand-checked positive curvatures below the working range
@pytest.mark.parametrize("a, b, name", [([1e-39], [1.0], "a"), ([1.0], [5e-324], "b")])
def test_strict_saddle_curvatures_below_the_working_range_are_refused(a, b, name):
    from algorithms.nets.gd_map import StrictSaddle

    with pytest.raises(ValueError, match=rf"{name} must be >= 1.175e-38 entrywise"):
        StrictSaddle(a=a, b=b)
    StrictSaddle(a=[1.2e-38], b=[1.2e-38])


# ------------------ class 8 (hangs): a count computed or looped past any use
def test_enumerate_batches_bounds_the_count_without_computing_it():
    import time

    from algorithms.nets.stability import enumerate_batches

    start = time.perf_counter()
    for args in ((2**24, 2**23), (2**24, 2**23, "with_replacement"), (70, 2, "bernoulli")):
        with pytest.raises(ValueError, match=r"has more than 2\*\*64 batches, more than 1000000"):
            enumerate_batches(*args)        # math.comb of a five-million-digit number: > 60 s before
    assert time.perf_counter() - start < 10.0
    with pytest.raises(ValueError, match="has 155117520 batches, more than 1000000"):
        enumerate_batches(30, 15)
    assert enumerate_batches(20, 10)[0].shape == (184756, 20)


def test_gradient_descent_past_its_run_time_is_refused_naming_lr_and_t_end():
    from algorithms.nets.gradient_flow import GradientDescentTraining, TwoLayerTraining

    X = np.array([[1.0, 0.0], [0.9, 0.1], [-1.0, 0.0], [-0.9, -0.1]])
    y = np.array([0, 0, 1, 1])
    problem = TwoLayerTraining(X, y, width=4)
    with pytest.raises(ValueError, match=r"1000000000 steps \(t_end / lr = 100.0 / 1e-07, or maxiters\)"):
        solve(problem, GradientDescentTraining(lr=1e-7, t_end=100.0), seed=0)      # hours before
    assert solve(problem, GradientDescentTraining(lr=1e-7, t_end=100.0), seed=0, maxiters=100).retcode \
        is RetCode.MaxIters


# ------------------ class 9 (silent): the support of a class mean read as its positive entries only
def test_classifier_alignment_of_mirrored_means_is_the_same():
    from algorithms.nets.neural_collapse import classifier_alignment

    means = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 3.0]])
    v = np.array([1.0, 1.0, -2.0])
    assert classifier_alignment(-v, -means) == pytest.approx([1.0, 1.0])      # [0, 0] before
    assert classifier_alignment(v, means) == pytest.approx([1.0, 1.0])


# ------------------ class 10 (user callables): stochastic_logabsdet's matvec writing its input, another
# dtype, a non-symmetric A
def test_stochastic_logabsdet_guards_its_matvec():
    import math

    from algorithms.nets.gd_map import stochastic_logabsdet

    est = stochastic_logabsdet(lambda V: V.mul_(2), 4, num_probes=2, lanczos_steps=4).estimate
    assert est == pytest.approx(4 * math.log(2))        # 8 log 2 before: V written in place
    with pytest.raises(TypeError, match=r"matvec must return V's dtype torch\.float64"):
        stochastic_logabsdet(lambda V: V.float(), 4, num_probes=2, lanczos_steps=4)
    upper = torch.triu(torch.ones(4, 4, dtype=torch.float64))
    with pytest.raises(ValueError, match="matvec must apply a symmetric A"):
        stochastic_logabsdet(lambda V: upper @ V, 4, num_probes=4, lanczos_steps=4)


# ------------------ class 11 (changed after construction): EmpiricalLoss's y written in place
def test_empirical_loss_rechecks_data_written_in_place():
    from algorithms.nets.gd_map import EmpiricalLoss
    from algorithms.nets.models import MLP

    net = MLP(in_features=2, hidden=(3,), out_features=2, activation="sigmoid", seed=0)
    loss = EmpiricalLoss(net, torch.ones(4, 2, dtype=torch.float64), torch.tensor([0, 1, 0, 1]))
    loss.y[0] = 7                                       # an IndexError inside torch's gather before
    with pytest.raises(ValueError, match=r"EmpiricalLoss\.y was changed after construction.*labels must lie"):
        loss.value()
    with pytest.raises(ValueError, match=r"EmpiricalLoss\.y was changed after construction"):
        loss.flat_objective()


# ------------------ class 12 (computed values through the user-input check): margins and drawn weights
def test_computed_margins_and_initial_weights_past_the_range_name_the_argument():
    from algorithms.nets.gradient_flow import GradientFlow, TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonal_separability

    X = np.array([[1.0, 0.0], [0.9, 0.1], [-1.0, 0.0], [-0.9, -0.1]])
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"X's inner products reach 1e\+40, past the package's working"):
        orthogonal_separability(X * 1e20, y)            # was "min_same = 8.2e+39 is outside ..."
    with pytest.raises(ValueError, match="X's inner products reach"):
        TwoLayerTraining(X * 1e20, y, width=4)
    assert orthogonal_separability(X * 1e18, y).separable
    with pytest.raises(ValueError, match=r"init_scale = 3e\+38 draws initial weights up to"):
        solve(TwoLayerTraining(X, y, width=4, init_scale=3e38), GradientFlow(t_end=10.0), maxiters=5)


def test_a_sam_training_optimizer_over_other_tensors_is_refused_not_run():
    class Elsewhere(torch.optim.Optimizer):
        def __init__(self, params, base, **kw):
            super().__init__([torch.nn.Parameter(torch.zeros(1))], {"lr": kw["lr"]})

        def step(self, closure=None):
            return closure()
    with pytest.raises(ValueError, match="optimizer must build an optimizer over the parameters it is given"):
        solve(parity_task(16, 3, 8, seed=0), SAMTraining(optimizer=Elsewhere), seed=0, maxiters=5)


@pytest.mark.parametrize("value", [np.zeros(3), np.zeros(0), torch.ones(2)])
def test_an_array_for_a_choice_or_count_is_refused_naming_it(value):
    from algorithms.nets import TwoLayerReLU
    from algorithms.nets.gradient_flow import TwoLayerTraining

    with pytest.raises(TypeError, match=r"dtype must be torch\.float32 or torch\.float64"):
        TwoLayerReLU(3, 4, dtype=value)
    X = np.array([[1.0, 0.0], [0.9, 0.1], [-1.0, 0.0], [-0.9, -0.1]])
    with pytest.raises((TypeError, ValueError), match="n_classes"):
        TwoLayerTraining(X, np.array([0, 0, 1, 1]), width=4, n_classes=value)


# ------------------ class 13 (user callables): a RuntimeError inside the user's loss or matvec passed bare
def test_a_runtime_error_of_a_user_loss_names_the_callable():
    from algorithms._validation import UserCallableError
    from algorithms.nets import flat_hessian, flat_hvp, per_sample_flat_grads, per_sample_flat_hessians
    from algorithms.nets.gd_map import stochastic_logabsdet

    theta = torch.zeros(2, dtype=torch.float64)
    X, Y = torch.ones(3, 2, dtype=torch.float64), torch.ones(3, dtype=torch.float64)

    def boom(*args):
        raise RuntimeError("boom")
    three = torch.ones(3, dtype=torch.float64)
    for call, name in ((lambda: per_sample_flat_grads(boom, theta, X, Y), "sample_loss"),
                       (lambda: per_sample_flat_hessians(boom, theta, X, Y), "sample_loss"),
                       (lambda: flat_hessian(lambda t: t @ three, theta), "loss"),
                       (lambda: flat_hvp(lambda t: boom(), theta, theta), "loss"),
                       (lambda: stochastic_logabsdet(boom, 4, num_probes=2, lanczos_steps=2), r"matvec")):
        with pytest.raises(UserCallableError, match=rf"{name}(\(V\))? raised RuntimeError"):
            call()


# ------------------ class 14: a run's own iterate through unflatten met the user-input range check
def test_unflatten_takes_an_iterate_past_the_range_and_refuses_nan():
    from algorithms.nets import flatten_params

    _, unflatten = flatten_params({"w": torch.ones(2, dtype=torch.float64)})
    assert float(unflatten(torch.full((2,), 1e39, dtype=torch.float64))["w"][0]) == 1e39   # a diverging run
    with pytest.raises(ValueError, match="theta contains NaN or inf entries"):
        unflatten(torch.full((2,), float("nan"), dtype=torch.float64))


def test_sam_refuses_nan_written_into_its_base_optimizers_state():
    w = torch.nn.Parameter(torch.randn(3))
    opt = SAM([w], lr=0.1, momentum=0.9)
    _run(opt, w)
    opt.base_optimizer.state[w]["momentum_buffer"].data.fill_(float("nan"))   # NaN weights, no error before
    with pytest.raises(ValueError, match=r"SAM \(its base optimizer\)\.step: state\[param 0\]"):
        _run(opt, w)


# ------------------ class 15 (coercible): a float32 model drew other weights than the float64 one
@pytest.mark.parametrize("build", [
    lambda dtype: M.MLP(3, (4,), 2, seed=1, dtype=dtype),
    lambda dtype: M.CNN(1, 6, 2, 3, 2, seed=1, dtype=dtype),
    lambda dtype: M.SoftmaxAttention(3, 2, 2, seed=1, dtype=dtype),
])
def test_a_float32_model_starts_from_the_float64_weights_rounded(build):
    wide, narrow = build(torch.float64), build(torch.float32)
    for (name, p64), (_, p32) in zip(wide.named_parameters(), narrow.named_parameters(), strict=True):
        assert torch.equal(p64.detach().float(), p32.detach()), name
