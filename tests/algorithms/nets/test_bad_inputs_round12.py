"""#43 round 12 (working range) for the nets family: one test per class, with its message's words."""

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.core import RetCode
from algorithms.nets import SAM
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
