"""Bad inputs for every public callable of algorithms.nets.models and algorithms.nets.gd_map.

Each case passes one bad argument and expects our own error naming it (never a
bare torch/numpy traceback); a new public callable without a case fails
``test_every_public_callable_has_a_case``.
"""

import math

import numpy as np
import pytest
import torch

from algorithms.nets import gd_map as gm
from algorithms.nets import models as md
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

torch.set_num_threads(1)
DT = torch.float64


def _fn(t):
    return (t**2).sum()


THETA = torch.ones(2, dtype=DT)
MLP = md.MLP(3, (4,), 2, seed=0)
CNN = md.CNN(1, 5, 2, 3, 2, seed=0)
ATT = md.SoftmaxAttention(3, 2, 2, seed=0)
X = torch.zeros(4, 3, dtype=DT)
LABELS = torch.tensor([0, 1, 0, 1])
LOSS = gm.EmpiricalLoss(MLP, X, LABELS)
GOOD_PARAMS = {name: p.detach() for name, p in MLP.named_parameters()}


def _nan_params():
    params = {k: v.clone() for k, v in GOOD_PARAMS.items()}
    params["W0"][0, 0] = math.nan
    return params


#: every function of (fn, theta[, lr]) with the step it needs
WITH_LR = [(gm.gd_map, (0.1,)), (gm.gd_jacobian, (0.1,)), (gm.hessian_matrix, ()),
           (gm.hessian_eigenvalues, ()), (gm.exact_logabsdet, (0.1,)), (gm.singular_step_sizes, ()),
           (gm.gd_logabsdet_slq, (0.1,))]


def _model_cases(cls, make):
    """Cases shared by the three models: activation, seed, init_scale, dtype, out_features."""
    return [
        BadInput(cls, lambda: make(activation="gelu"), ValueError, ("activation", "relu", "gelu"),
                 "activation"),
        BadInput(cls, lambda: make(seed=-1), ValueError, ("seed", ">= 0"), "seed-negative"),
        BadInput(cls, lambda: make(seed=1.5), TypeError, ("seed", "int"), "seed-float"),
        BadInput(cls, lambda: make(init_scale=0.0), ValueError, ("init_scale", "> 0"), "init_scale"),
        BadInput(cls, lambda: make(init_scale=math.inf), ValueError, ("init_scale",), "init_scale-inf"),
        BadInput(cls, lambda: make(dtype=torch.int64), TypeError, ("dtype", "float64"), "dtype"),
    ]


CASES = [
    # ----------------------------------------------------------------- models
    BadInput(md.activation, lambda: md.activation("gelu"), ValueError, ("activation", "tanh", "gelu")),
    BadInput(md.activation, lambda: md.activation(3), ValueError, ("activation",), "not-a-str"),
    BadInput(md.Activation, lambda: md.Activation("ReLU"), ValueError, ("activation", "relu")),
    *_model_cases(md.MLP, lambda **kw: md.MLP(3, (4,), 2, **kw)),
    BadInput(md.MLP, lambda: md.MLP(0, (4,), 2), ValueError, ("in_features", "positive int")),
    BadInput(md.MLP, lambda: md.MLP(3, (), 2), ValueError, ("hidden", "non-empty"), "hidden-empty"),
    BadInput(md.MLP, lambda: md.MLP(3, 4, 2), ValueError, ("hidden", "tuple"), "hidden-int"),
    BadInput(md.MLP, lambda: md.MLP(3, (4, 0), 2), ValueError, ("hidden[1]",), "hidden-zero"),
    BadInput(md.MLP, lambda: md.MLP(3, (4,), 2.5), ValueError, ("out_features",), "out_features"),
    BadInput(md.MLP, lambda: md.MLP(3, (4,), 2, bias=1), TypeError, ("bias", "bool"), "bias"),
    BadInput(md.MLP, lambda: MLP(torch.zeros(4, 5, dtype=DT)), ValueError, ("X", "shape", "(n, 3)"),
             "forward-features"),
    BadInput(md.MLP, lambda: MLP(torch.zeros(4, 3, dtype=torch.float32)), TypeError,
             ("X", "dtype", "float64"), "forward-dtype"),
    BadInput(md.MLP, lambda: MLP(np.zeros((4, 3))), TypeError, ("X", "torch.Tensor"), "forward-numpy"),
    BadInput(md.MLP, lambda: MLP(torch.zeros(0, 3, dtype=DT)), ValueError, ("X", "n >= 1"), "forward-empty"),
    *_model_cases(md.CNN, lambda **kw: md.CNN(1, 5, 2, 3, 2, **kw)),
    BadInput(md.CNN, lambda: md.CNN(0, 5, 2, 3, 2), ValueError, ("in_channels",), "in_channels"),
    BadInput(md.CNN, lambda: md.CNN(1, -5, 2, 3, 2), ValueError, ("length",), "length"),
    BadInput(md.CNN, lambda: md.CNN(1, 5, 0, 3, 2), ValueError, ("channels",), "channels"),
    BadInput(md.CNN, lambda: md.CNN(1, 3, 2, 4, 2), ValueError, ("kernel_size", "<= length"), "kernel_size"),
    BadInput(md.CNN, lambda: md.CNN(1, 5, 2, 3, 0), ValueError, ("out_features",), "out_features"),
    BadInput(md.CNN, lambda: CNN(torch.zeros(4, 5, dtype=DT)), ValueError, ("X", "(n, 1, 5)"),
             "forward-shape"),
    *_model_cases(md.SoftmaxAttention, lambda **kw: md.SoftmaxAttention(3, 2, 2, **kw)),
    BadInput(md.SoftmaxAttention, lambda: md.SoftmaxAttention(0, 2, 2), ValueError, ("seq_len",), "seq_len"),
    BadInput(md.SoftmaxAttention, lambda: md.SoftmaxAttention(3, -1, 2), ValueError, ("dim",), "dim"),
    BadInput(md.SoftmaxAttention, lambda: md.SoftmaxAttention(3, 2, None), ValueError, ("out_features",),
             "out_features"),
    BadInput(md.SoftmaxAttention, lambda: ATT(torch.zeros(4, 2, 3, dtype=DT)), ValueError,
             ("X", "(n, 3, 2)"), "forward-shape"),
    # ----------------------------------------------------------------- EmpiricalLoss
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(object(), X, LABELS), TypeError,
             ("model", "torch.nn.Module"), "model"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(torch.nn.Sequential(torch.nn.Linear(3, 2)), X,
                                                        LABELS), TypeError, ("model", "out_features"),
             "model-without-out_features"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(torch.nn.Linear(3, 0).double(), X, LABELS), TypeError,
             ("model", "out_features"), "model-with-zero-out_features"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X, LABELS, loss="hinge"), ValueError,
             ("loss", "cross_entropy", "mse"), "loss"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X.float(), LABELS), TypeError,
             ("X", "dtype", "float64"), "X-dtype"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, torch.zeros(4, 5, dtype=DT), LABELS), ValueError,
             ("X", "(n, 3)"), "X-features"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, torch.zeros(4, dtype=DT), LABELS), ValueError,
             ("X", "sample axis"), "X-1d"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, torch.full((4, 3), math.nan, dtype=DT), LABELS),
             ValueError, ("X", "NaN"), "X-nan"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X, torch.tensor([0, 1, 2, 0])), ValueError,
             ("y", "[0, 2)"), "y-label-range"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X, torch.zeros(4, dtype=DT)), ValueError,
             ("y", "integer labels"), "y-float-labels"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X, torch.zeros(3, dtype=torch.int64)),
             ValueError, ("y", "n=4"), "y-count"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X, torch.zeros(4, 3, dtype=DT), loss="mse"),
             ValueError, ("y", "(4, 2)"), "y-mse-shape"),
    BadInput(gm.EmpiricalLoss, lambda: gm.EmpiricalLoss(MLP, X, torch.full((4, 2), math.inf, dtype=DT),
                                                        loss="mse"), ValueError, ("y", "inf"), "y-mse-inf"),
    BadInput(gm.EmpiricalLoss, lambda: LOSS.flat_objective(batch=[0, 9]), ValueError, ("batch", "[0, 4)"),
             "batch-range"),
    BadInput(gm.EmpiricalLoss, lambda: LOSS.value(batch=[0.5]), TypeError, ("batch", "integer"),
             "batch-float"),
    BadInput(gm.EmpiricalLoss, lambda: LOSS.flat_objective(_nan_params()), ValueError,
             ("params['W0']", "NaN"), "params-nan"),
    BadInput(gm.EmpiricalLoss, lambda: LOSS.flat_objective({"W0": GOOD_PARAMS["W0"]}), ValueError,
             ("params", "parameter names"), "params-names"),
    BadInput(gm.EmpiricalLoss, lambda: LOSS.value({**GOOD_PARAMS, "W0": torch.zeros(2, 2, dtype=DT)}),
             ValueError, ("params['W0']", "shape"), "params-shape"),
    BadInput(gm.EmpiricalLoss, lambda: LOSS.value([1.0]), TypeError, ("params", "dict"), "params-list"),
    # ----------------------------------------------------------------- maps, Hessians, log-dets
    *[BadInput(f, lambda f=f, lr=lr: f(_fn, THETA, lr), ValueError, ("lr", "> 0"), f"lr={lr}")
      for f in (gm.gd_map, gm.gd_jacobian, gm.exact_logabsdet, gm.gd_logabsdet_slq)
      for lr in (0.0, -1.0, math.inf, math.nan)],
    *[BadInput(f, lambda f=f: f(_fn, THETA, "0.1"), TypeError, ("lr", "real number"), "lr-str")
      for f in (gm.gd_map, gm.gd_jacobian, gm.exact_logabsdet, gm.gd_logabsdet_slq)],
    *[BadInput(f, lambda f=f, lr=lr: f(_fn, torch.tensor([1.0, math.nan], dtype=DT), *lr), ValueError,
               ("theta", "NaN"), "theta-nan") for f, lr in WITH_LR],
    *[BadInput(f, lambda f=f, lr=lr: f(_fn, torch.ones(2, 2, dtype=DT), *lr), ValueError,
               ("theta", "1-dimensional"), "theta-2d") for f, lr in WITH_LR],
    *[BadInput(f, lambda f=f, lr=lr: f("loss", THETA, *lr), TypeError, ("fn", "callable"), "fn")
      for f, lr in WITH_LR],
    BadInput(gm.exact_logabsdet, lambda: gm.exact_logabsdet(_fn, THETA, 0.1, method="lu"), ValueError,
             ("method", "slogdet", "eigvalsh"), "method"),
    BadInput(gm.singular_step_sizes, lambda: gm.singular_step_sizes(_fn, THETA, rtol=-1), ValueError,
             ("rtol", "[0, 1)"), "rtol-negative"),
    BadInput(gm.singular_step_sizes, lambda: gm.singular_step_sizes(_fn, THETA, rtol=1.0), ValueError,
             ("rtol", "[0, 1)"), "rtol-one"),
    BadInput(gm.singular_step_sizes, lambda: gm.singular_step_sizes(_fn, THETA, rtol="small"), TypeError,
             ("rtol", "real number"), "rtol-str"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V, 3, num_probes=0),
             ValueError, ("num_probes", "positive int"), "num_probes"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V, 3, lanczos_steps=-1),
             ValueError, ("lanczos_steps",), "lanczos_steps"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V, 0), ValueError, ("dim",),
             "dim"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet("A", 3), TypeError,
             ("matvec", "callable"), "matvec"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V, 3, seed=-2), ValueError,
             ("seed", ">= 0"), "seed"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V, 3, dtype=torch.int32),
             TypeError, ("dtype", "float64"), "dtype"),
    BadInput(gm.gd_logabsdet_slq, lambda: gm.gd_logabsdet_slq(_fn, THETA, 0.1, num_probes=1.5), ValueError,
             ("num_probes",), "num_probes"),
    BadInput(gm.gd_logabsdet_slq, lambda: gm.gd_logabsdet_slq(_fn, THETA, 0.1, lanczos_steps=0), ValueError,
             ("lanczos_steps",), "lanczos_steps"),
    BadInput(gm.gd_logabsdet_slq, lambda: gm.gd_logabsdet_slq(_fn, THETA, 0.1, seed="s"), TypeError,
             ("seed", "int"), "seed"),
    # ----------------------------------------------------------------- StrictSaddle, GDMap
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[0.0], b=[1.0]), ValueError, ("a", "> 0"), "a"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[1.0], b=[-1.0]), ValueError, ("b", "> 0"), "b"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[], b=[1.0]), ValueError, ("a", "at least one"),
             "a-empty"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[[1.0]], b=[1.0]), ValueError, ("a", "1-dimensional"),
             "a-2d"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=["x"], b=[1.0]), TypeError, ("a", "numeric"),
             "a-str"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[1.0], b=[1.0, 2.0], x0=[0.0]), ValueError,
             ("x0", "3 entries"), "x0-size"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[1.0], b=[1.0], x0=[0.0, math.nan]), ValueError,
             ("x0", "NaN"), "x0-nan"),
    BadInput(gm.StrictSaddle, lambda: gm.StrictSaddle(a=[1.0], b=[1.0], init_scale=0), ValueError,
             ("init_scale", "> 0"), "init_scale"),
    BadInput(gm.GDMap, lambda: gm.GDMap(lr=0.0), ValueError, ("lr", "> 0"), "lr-zero"),
    BadInput(gm.GDMap, lambda: gm.GDMap(lr=math.nan), ValueError, ("lr",), "lr-nan"),
    BadInput(gm.GDMap, lambda: gm.GDMap(lr="big"), TypeError, ("lr", "real number"), "lr-str"),
]


# a user matvec of the wrong shape or type is named, not left to torch's einsum/broadcast messages
CASES += [
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V[:2], 3), ValueError,
             ("matvec", "(3, ", "(2, "), "matvec-shape"),
    BadInput(gm.stochastic_logabsdet, lambda: gm.stochastic_logabsdet(lambda V: V.numpy(), 3), TypeError,
             ("matvec", "Tensor", "ndarray"), "matvec-numpy"),
]

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(
        [md, gm], CASES,
        exempt={"SLQEstimate": "a NamedTuple of results the estimators build (fields: round 10 tests)"})


# ---------------------------------------------------------------------- round 7 (issue #43, pre-audit sweep)
@pytest.mark.parametrize("make,shape", [
    (lambda: md.MLP(3, (4,), 2), (5, 3)), (lambda: md.CNN(2, 6, 3, 3, 2), (5, 2, 6)),
    (lambda: md.SoftmaxAttention(4, 3, 2), (5, 4, 3))], ids=["MLP", "CNN", "SoftmaxAttention"])
def test_models_refuse_non_finite_and_meta_inputs(make, shape):
    model = make()
    X = torch.zeros(*shape, dtype=DT)
    X.view(-1)[3] = float("nan")
    with pytest.raises(ValueError, match="X contains NaN or inf"):
        model(X)
    with pytest.raises(ValueError, match="X is on the meta device"):
        model(torch.zeros(*shape, dtype=DT, device="meta"))


def test_activation_module_names_its_input():
    with pytest.raises(TypeError, match=r"t must be a torch\.Tensor"):
        md.Activation("tanh")(np.zeros(2))


def test_strict_saddle_public_methods_check_z_and_the_solve_still_diverges():
    from algorithms import solve

    problem = gm.StrictSaddle(a=[1.0], b=[2.0])
    for call in (problem.value, problem.grad, problem.hessian):
        with pytest.raises(ValueError, match="z contains NaN"):
            call(np.array([np.nan, 0.0]))
        with pytest.raises(ValueError, match=r"z must have shape \(2,\)"):
            call(np.zeros(3))
        with pytest.raises(TypeError, match="z"):
            call("z")
    with pytest.raises(ValueError, match="seed"):
        problem.start(-1)
    assert solve(gm.StrictSaddle(a=[1.0], b=[2.0], x0=[1.0, 1.0]), gm.GDMap(lr=10.0),
                 maxiters=100).retcode.name == "Diverged"


def test_gd_map_helpers_refuse_complex_and_meta_theta_and_name_fn():
    theta = torch.ones(3, dtype=DT)
    with pytest.raises(TypeError, match="theta must be real"):
        gm.gd_map(_fn, theta.to(torch.complex128), 0.1)
    with pytest.raises(ValueError, match="theta is on the meta device"):
        gm.hessian_matrix(_fn, torch.ones(3, device="meta"))
    with pytest.raises(TypeError, match="fn must return a scalar"):
        gm.gd_map(lambda t: "loss", theta, 0.1)
    with pytest.raises(ValueError, match="matvec returned NaN"):
        gm.stochastic_logabsdet(lambda v: v * float("nan"), 3, num_probes=2, lanczos_steps=2)


def test_empirical_loss_names_non_numeric_y_and_meta_X():
    model = md.MLP(3, (4,), 2)
    X = torch.randn(4, 3, dtype=DT)
    with pytest.raises(TypeError, match="y must be numeric"):
        gm.EmpiricalLoss(model, X, np.array(["a", "b", "a", "b"]))
    with pytest.raises(ValueError, match="X is on the meta device"):
        gm.EmpiricalLoss(model, torch.zeros(4, 3, dtype=DT, device="meta"), torch.zeros(4, dtype=torch.long))


@pytest.mark.parametrize("call", [lambda fn, t: gm.gd_map(fn, t, 0.1),
                                  lambda fn, t: gm.gd_jacobian(fn, t, 0.1), gm.hessian_matrix],
                         ids=["gd_map", "gd_jacobian", "hessian_matrix"])
def test_gd_map_helpers_refuse_an_fn_returning_nan_or_a_python_number(call):
    theta = torch.ones(3, dtype=DT)
    with pytest.raises(ValueError, match="fn returned NaN or inf at theta"):
        call(lambda t: (t * float("nan")).sum(), theta)
    with pytest.raises(TypeError, match="fn must return a scalar"):
        call(lambda t: 3.0, theta)


def test_empirical_loss_keeps_its_own_copy_of_the_data():
    X = torch.randn(6, 3, dtype=DT)
    y = torch.tensor([0, 1, 0, 1, 1, 0])
    problem = gm.EmpiricalLoss(md.MLP(3, (4,), 2), X, y)
    before = float(problem.value())
    X[:] = 5.0
    y[:] = 1
    assert float(problem.value()) == before


def test_fn_and_matvec_of_the_wrong_arity_are_named():
    with pytest.raises(TypeError, match="fn must take 1 positional"):
        gm.gd_map(lambda: 1.0, torch.ones(3, dtype=DT), 0.1)
    with pytest.raises(TypeError, match="matvec must take 1 positional"):
        gm.stochastic_logabsdet(lambda: 1, 3, num_probes=2, lanczos_steps=2)
