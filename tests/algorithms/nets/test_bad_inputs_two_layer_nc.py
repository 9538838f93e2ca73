"""Bad inputs for every public callable of the two_layer_nc modules and the shared TwoLayerReLU."""

import numpy as np
import pytest
import torch

from algorithms.nets import functional, gradient_flow, neural_collapse, two_layer
from algorithms.nets.functional import (
    flat_forward,
    flat_hessian,
    flat_hvp,
    flatten_params,
    module_params,
    per_sample_flat_grads,
    per_sample_flat_hessians,
)
from algorithms.nets.gradient_flow import (
    GradientDescentTraining,
    GradientFlow,
    TwoLayerTraining,
    record_times,
)
from algorithms.nets.neural_collapse import (
    as_class_labels,
    class_means,
    classifier_alignment,
    etf_distance,
    interleaved_sector_data,
    mean_cosines,
    nc1,
    nc_metrics,
    orthogonal_separability,
    orthogonally_separable_data,
    pseudo_labels,
    self_duality_residual,
    within_class_ratio,
)
from algorithms.nets.two_layer import TwoLayerReLU
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

X0, Y0 = orthogonally_separable_data(3, 6, seed=0)
THETA = torch.zeros(3, dtype=torch.float64)
MEANS = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])


def _square(t):
    return (t**2).sum()


def _sample_loss(t, x, y):
    return ((t * x).sum() - y) ** 2


def _problem(**kw):
    return TwoLayerTraining(**{"X": X0, "y": Y0, "width": 4, **kw})


CASES = [
    # ------------------------------------------------------------------ TwoLayerReLU
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(0, 4), ValueError, ("in_features", "positive int"), "in"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 2.5), ValueError, ("width", "positive int"), "width"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, 0), ValueError, ("out_features",), "out"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, activation="gelu"), ValueError,
             ("activation", "relu"), "activation"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, seed=1.5), TypeError, ("seed", "int"), "seed-type"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, seed=-1), ValueError, ("seed", ">= 0"), "seed"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, init_scale=0.0), ValueError, ("init_scale", "> 0"),
             "scale"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, dtype=torch.int64), TypeError, ("dtype", "float64"),
             "dtype"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4, hidden_bias=1), TypeError, ("hidden_bias", "bool"),
             "bias"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(width=4), TypeError, ("in_features",), "missing"),
    BadInput(TwoLayerReLU, lambda: TwoLayerReLU(3, 4).init(0, scale=-1.0), ValueError, ("scale",),
             "init"),
    # ------------------------------------------------------------------ functional views
    BadInput(flatten_params, lambda: flatten_params({}), TypeError, ("params", "non-empty dict")),
    BadInput(flatten_params, lambda: flatten_params({"W": [1.0]}), TypeError, ("params", "tensors"), "value"),
    BadInput(module_params, lambda: module_params({"W": THETA}), TypeError, ("module", "nn.Module")),
    BadInput(flat_forward, lambda: flat_forward("net"), TypeError, ("module", "nn.Module")),
    BadInput(flat_hessian, lambda: flat_hessian(3.0, THETA), TypeError, ("loss", "callable")),
    BadInput(flat_hessian, lambda: flat_hessian(_square, torch.zeros(2, 2)), TypeError, ("theta", "1-D"),
             "theta"),
    BadInput(flat_hvp, lambda: flat_hvp(_square, THETA, torch.zeros(4)), ValueError, ("vector", "shape")),
    BadInput(per_sample_flat_grads, lambda: per_sample_flat_grads(_sample_loss, THETA, torch.zeros(4, 3),
                                                                  torch.zeros(5)),
             ValueError, ("X", "y", "samples")),
    BadInput(per_sample_flat_hessians, lambda: per_sample_flat_hessians(_sample_loss, THETA, np.zeros((4, 3)),
                                                                        torch.zeros(4)),
             TypeError, ("X", "torch tensor")),
    # ------------------------------------------------------------------ data and metrics
    BadInput(as_class_labels, lambda: as_class_labels("y", [0.5, 1.0, 0.0]), TypeError, ("y", "integer")),
    BadInput(orthogonal_separability, lambda: orthogonal_separability(np.eye(3), [0, 1]), ValueError,
             ("y", "length")),
    BadInput(orthogonally_separable_data, lambda: orthogonally_separable_data(3, 6, spread=1.0), ValueError,
             ("spread", "< 1")),
    BadInput(orthogonally_separable_data, lambda: orthogonally_separable_data(3, 3), ValueError,
             ("dim", "2 * n_classes"), "dim"),
    BadInput(interleaved_sector_data, lambda: interleaved_sector_data(3, 1), ValueError, ("dim", ">= 2")),
    BadInput(class_means, lambda: class_means(np.ones((3, 2)), [0, 1]), ValueError, ("y", "length")),
    BadInput(nc1, lambda: nc1(np.array([[np.nan, 1.0], [1.0, 1.0]]), [0, 1]), ValueError, ("H", "NaN")),
    BadInput(within_class_ratio, lambda: within_class_ratio(np.ones(3), [0, 1, 1]), ValueError,
             ("H", "2-dimensional")),
    BadInput(mean_cosines, lambda: mean_cosines(np.ones(3)), ValueError, ("means", "2-dimensional")),
    BadInput(etf_distance, lambda: etf_distance([["a"]]), TypeError, ("means", "numeric")),
    BadInput(classifier_alignment, lambda: classifier_alignment(np.ones((3, 3)), MEANS), ValueError,
             ("V", "shape")),
    BadInput(self_duality_residual, lambda: self_duality_residual(np.ones((3, 3)), MEANS), ValueError,
             ("V", "shape")),
    BadInput(pseudo_labels, lambda: pseudo_labels(1), ValueError, ("n_classes", ">= 2")),
    BadInput(pseudo_labels, lambda: pseudo_labels(3, binary=True), ValueError, ("binary", "n_classes = 2"),
             "binary"),
    BadInput(nc_metrics, lambda: nc_metrics(np.ones((2, 2)), [0, 0]), ValueError, ("y", "two classes")),
    # ------------------------------------------------------------------ training problem and solvers
    BadInput(TwoLayerTraining, lambda: _problem(init_scale=0.0), ValueError, ("init_scale", "> 0"), "scale"),
    BadInput(TwoLayerTraining, lambda: _problem(width=0), ValueError, ("width", "positive int"), "width"),
    BadInput(TwoLayerTraining, lambda: _problem(loss="mse"), ValueError, ("loss", "exponential"), "loss"),
    BadInput(TwoLayerTraining, lambda: _problem(init="zeros"), ValueError, ("init", "balanced"), "init"),
    BadInput(TwoLayerTraining, lambda: _problem(hidden_bias=1), TypeError, ("hidden_bias", "bool"), "bias"),
    BadInput(TwoLayerTraining, lambda: _problem(y=np.array([0, 0, 0, 2, 2, 2])), ValueError,
             ("y", "class 1 has no sample"), "missing-class"),
    BadInput(TwoLayerTraining, lambda: _problem(y=np.array([0, 1, 2, 0, 1, 2])), ValueError,
             ("binary", "cross_entropy"), "binary-loss"),
    BadInput(TwoLayerTraining, lambda: _problem(y=np.array([0, 1, 0, 1, 0])), ValueError, ("y", "length"),
             "length"),
    BadInput(TwoLayerTraining, lambda: _problem(n_classes=3), ValueError, ("n_classes must be 2", "binary"),
             "n_classes"),
    BadInput(TwoLayerTraining, lambda: _problem(n_classes=3, loss="cross_entropy"), ValueError,
             ("class 2 has no sample",), "n_classes-ce"),
    BadInput(TwoLayerTraining, lambda: _problem(X=np.full((6, 6), np.nan)), ValueError, ("X", "NaN"), "nan"),
    BadInput(TwoLayerTraining, lambda: _problem(X=np.ones(6)), ValueError, ("X", "2-dimensional"), "X-dim"),
    BadInput(TwoLayerTraining, lambda: _problem(init_noise=-0.1), ValueError, ("init_noise", ">= 0"),
             "noise"),
    BadInput(TwoLayerTraining, lambda: _problem(init_noise=0.1), ValueError, ("init_noise", "init='data'"),
             "noise-init"),
    BadInput(TwoLayerTraining, lambda: _problem(init="data", width=1), ValueError, ("width", "n_classes"),
             "data-width"),
    BadInput(record_times, lambda: record_times(10.0, 3, "bogus"), ValueError, ("spacing", "geometric")),
    BadInput(record_times, lambda: record_times(1.0, 3, "geometric", 5.0), ValueError,
             ("t_first", "< t_end"), "t_first"),
    BadInput(record_times, lambda: record_times(0.0, 3), ValueError, ("t_end", "> 0"), "t_end"),
    BadInput(record_times, lambda: record_times(1.0, 0), ValueError, ("n_records", "positive int"),
             "n_records"),
    BadInput(GradientFlow, lambda: GradientFlow(t_end=1.0, t_first=5.0), ValueError, ("t_first", "t_end"),
             "t_first"),
    BadInput(GradientFlow, lambda: GradientFlow(t_end=0.0), ValueError, ("t_end", "> 0"), "t_end"),
    BadInput(GradientFlow, lambda: GradientFlow(t_end=float("inf")), ValueError, ("t_end", "finite"), "inf"),
    BadInput(GradientFlow, lambda: GradientFlow(n_records=0), ValueError, ("n_records",), "n_records"),
    BadInput(GradientFlow, lambda: GradientFlow(spacing="log"), ValueError, ("spacing", "linear"), "spacing"),
    BadInput(GradientFlow, lambda: GradientFlow(method="BDF"), ValueError, ("method", "RK45"), "method"),
    BadInput(GradientFlow, lambda: GradientFlow(rtol=-1.0), ValueError, ("rtol", "> 0"), "rtol"),
    BadInput(GradientFlow, lambda: GradientFlow(atol=0.0), ValueError, ("atol", "> 0"), "atol"),
    BadInput(GradientFlow, lambda: GradientFlow(t_first=0.0), ValueError, ("t_first", "> 0"), "t_first0"),
    BadInput(GradientDescentTraining, lambda: GradientDescentTraining(lr=0.0), ValueError, ("lr", "> 0"),
             "lr"),
    BadInput(GradientDescentTraining, lambda: GradientDescentTraining(lr="0.1"), TypeError,
             ("lr", "real number"), "lr-type"),
    BadInput(GradientDescentTraining, lambda: GradientDescentTraining(lr=1.0, t_end=0.2, n_records=1),
             ValueError, ("t_end", "one step"), "t_end"),
    BadInput(GradientDescentTraining, lambda: GradientDescentTraining(spacing="bogus"), ValueError,
             ("spacing",), "spacing"),
    BadInput(GradientDescentTraining, lambda: GradientDescentTraining(t_end=1.0, t_first=5.0), ValueError,
             ("t_first", "t_end"), "t_first"),
]

MODULES = (two_layer, functional, neural_collapse, gradient_flow)
EXEMPT = {
    "Separability": "a record of two margins that orthogonal_separability measures, not built from "
                    "user input",
}


def _net_and_params():
    net = two_layer.TwoLayerReLU(3, 4, seed=0)
    return net, net.init(0)


def _forward_with(edit):
    net, params = _net_and_params()
    return net.forward_with(edit(params), torch.ones(2, 3, dtype=torch.float64))


# functional_call would fill a missing key from the module and ignore an unknown one, silently
CASES += [
    BadInput(two_layer.TwoLayerReLU.forward_with,
             lambda: _forward_with(lambda p: {k: v for k, v in p.items() if k != "b"}), ValueError,
             ("params", "missing", "'b'"), "missing-key"),
    BadInput(two_layer.TwoLayerReLU.forward_with, lambda: _forward_with(lambda p: {**p, "zz": p["W"]}),
             ValueError, ("params", "unknown", "'zz'"), "unknown-key"),
    BadInput(two_layer.TwoLayerReLU.forward_with,
             lambda: _forward_with(lambda p: {**p, "W": torch.zeros(4, 2, dtype=torch.float64)}), ValueError,
             ("params['W']", "(4, 3)", "(4, 2)"), "W-shape"),
]

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES, exempt=EXEMPT)



# round 2 of the held-out audit (issue #43): an int flat vector came back as int parameters, a vector
# loss gave a stack of Hessians, an empty set of class means gave inf
def test_round2_functional_and_collapse_domains():
    _, unflatten = functional.flatten_params({"W": torch.zeros(2, 2, dtype=torch.float64)})
    for case in (
        BadInput(functional.flatten_params, lambda: unflatten(torch.zeros(4, dtype=torch.long)), TypeError,
                 ("theta", "floating"), "unflatten-int"),
        BadInput(functional.flat_hessian,
                 lambda: functional.flat_hessian(lambda t: t**2,
                     torch.ones(3, dtype=torch.float64)), TypeError,
                 ("loss", "scalar"), "vector-loss"),
        BadInput(neural_collapse.etf_distance, lambda: neural_collapse.etf_distance(np.zeros((0, 3))),
                 ValueError, ("means", "K >= 2"), "empty"),
        BadInput(neural_collapse.etf_distance, lambda: neural_collapse.etf_distance(np.eye(1)), ValueError,
                 ("means", "K >= 2"), "one-class"),
    ):
        check_bad_input(case)


def test_round2_flat_forward_names_the_module():
    check_bad_input(BadInput(functional.flat_forward, lambda: functional.flat_forward(torch.nn.ReLU()),
                             ValueError, ("module", "parameters"), "no-params"))


# Round 3 of the held-out audit (#43, C3): torch.func's and torch's messages now name loss / theta.
ROUND3 = [
    BadInput(flat_hessian, lambda: flat_hessian(lambda t: 1.0, THETA), TypeError, ("loss", "scalar"),
             "nontensor"),
    BadInput(flat_hvp, lambda: flat_hvp(lambda t: 2 * t, THETA, THETA), TypeError, ("loss", "scalar"),
             "vector-loss"),
    BadInput(flat_forward, lambda: flat_forward(torch.nn.Linear(2, 1))[1](torch.zeros(3, dtype=torch.float64),
                                                                          torch.ones(4, 2)),
             TypeError, ("theta", "dtype"), "float64-for-float32"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


# ---------------------------------------------------------------------- round 7 (issue #43, pre-audit sweep)
@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_two_layer_refuses_non_finite_inputs_in_every_view(value):
    net = TwoLayerReLU(3, 4)
    X = torch.zeros(2, 3, dtype=torch.float64)
    X[1, 2] = value
    params = net.init(seed=0)
    for call in (lambda: net(X), lambda: net.features(X), lambda: net.forward_with(params, X),
                 lambda: net.hidden(params, X)):
        with pytest.raises(ValueError, match="X contains NaN or inf"):
            call()


def test_two_layer_hidden_checks_X_as_forward_does():
    net = TwoLayerReLU(3, 4)
    params = net.init(seed=0)
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\)"):
        net.hidden(params, torch.zeros(2, 2, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"X must be a torch\.Tensor"):
        net.hidden(params, "X")
    with pytest.raises(TypeError, match=r"X must have dtype torch\.float64"):
        net.hidden(params, torch.zeros(2, 3, dtype=torch.complex128))


def test_two_layer_input_check_runs_under_vmap():
    from algorithms.nets import per_sample_flat_grads

    net = TwoLayerReLU(3, 4)
    params = net.init(seed=0)
    theta = torch.cat([p.reshape(-1) for p in params.values()])
    sizes = [p.numel() for p in params.values()]

    def loss(t, x, y):
        parts = dict(zip(params, (c.reshape(p.shape) for c, p in zip(torch.split(t, sizes), params.values(),
                                                                        strict=True)), strict=True))
        return (net.forward_with(parts, x[None])[0] - y) ** 2

    grads = per_sample_flat_grads(loss, theta, torch.ones(5, 3, dtype=torch.float64),
                                  torch.zeros(5, dtype=torch.float64))
    assert grads.shape == (5, theta.numel())


def test_two_layer_training_checks_theta_in_every_public_method():
    from algorithms import solve
    from algorithms.nets.gradient_flow import GradientDescentTraining, TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data

    X, y = orthogonally_separable_data(4, 4, 2, seed=0)
    problem = TwoLayerTraining(X, y, width=4)
    theta = problem.initial_theta(0)
    bad = theta.copy()
    bad[0] = np.nan
    for call in (problem.loss_and_grad, problem.loss_value, problem.metrics, problem.features, problem.split,
                 problem.params):
        with pytest.raises(ValueError, match="theta contains NaN"):
            call(bad)
        with pytest.raises(ValueError, match=rf"flat parameter vector of shape \({theta.size},\)"):
            call(theta[:-1])
    with pytest.raises(TypeError, match="theta must be a torch tensor"):
        problem.torch_loss("theta")
    # the solvers use the unchecked private methods: a run still ends as before
    algorithm = GradientDescentTraining(lr=0.01, t_end=1.0, n_records=2, t_first=0.1)
    assert solve(problem, algorithm, seed=0).retcode


def test_nc_metrics_names_H_when_V_has_another_width():
    from algorithms.nets.neural_collapse import nc_metrics

    with pytest.raises(ValueError, match="V must have H's width 2"):
        nc_metrics(np.ones((4, 2)) + np.arange(8).reshape(4, 2), np.array([0, 0, 1, 1]), np.ones((2, 3)))


# ---------------------------------------------------------------------- round 7 held-out audit (phase 2)
def test_two_layer_forward_refuses_a_3d_batch():
    with pytest.raises(ValueError, match=r"X must have shape \(n, 3\)"):
        TwoLayerReLU(3, 4)(torch.zeros(2, 5, 3, dtype=torch.float64))


@pytest.mark.parametrize("make", ["gd", "flow"])
def test_a_stop_request_at_the_first_record_terminates(make):
    from algorithms import solve
    from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow, TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data

    X, y = orthogonally_separable_data(4, 4, 2, seed=0)
    algorithm = (GradientDescentTraining(lr=0.1, t_end=2.0) if make == "gd"
                 else GradientFlow(t_end=2.0, n_records=3, t_first=0.5))
    sol = solve(TwoLayerTraining(X, y, width=4, hidden_bias=np.True_), algorithm, callback=lambda r: True)
    assert sol.retcode.name == "Terminated" and sol.stats.iterations == 0
