"""Bad inputs to every public callable of ``algorithms.unlearning``: each is rejected early, by our own
validation, with a message naming the argument and what was expected."""

import math
import pkgutil
from importlib import import_module

import numpy as np
import pytest
import torch

import algorithms.unlearning as unlearning
from algorithms import solve
from algorithms.unlearning import (
    DeepLinear,
    DeepLinearOG,
    GradientDescent,
    LinearModel,
    MinNormOG,
    NegGrad,
    NegGradPlus,
    Retrain,
    Ridge,
    SparseWidthOG,
    TwoLayerPerceptron,
    UnlearningProblem,
    active_neurons,
    balanced_factorization,
    deep_linear_task,
    effective_predictor,
    forget_split,
    lemma1_perturbation,
    linear_task,
    orthogonal_gradient_step,
    prune_inactive_neurons,
    retrained_min_norm,
    sine_poisoning_task,
    strength_schedule,
    sup_error,
    two_layer_task,
)
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

MODULES = [unlearning] + [import_module(m.name) for m in pkgutil.iter_modules(unlearning.__path__,
                                                                                  unlearning.__name__ + ".")]
F64 = torch.float64
X3 = torch.eye(3, dtype=F64)
Y3 = torch.ones(3, dtype=F64)
LIN = LinearModel(3, seed=0)
THETA = torch.ones(3, dtype=F64)
RETAIN, FORGET = (X3[:2], Y3[:2]), (X3[2:], Y3[2:])
TWO = TwoLayerPerceptron(2, 3, seed=0)


def _problem(**overrides):
    kwargs = dict(model=LIN, params=THETA, retain=RETAIN, forget=FORGET)
    kwargs.update(overrides)
    return UnlearningProblem(**kwargs)


CASES = [
    # the problem
    BadInput(UnlearningProblem, lambda: _problem(retain=(X3[:0], Y3[:0])), ValueError,
             ("retain", "empty"), "empty-retain"),
    BadInput(UnlearningProblem, lambda: _problem(forget=(X3[:0], Y3[:0])), ValueError,
             ("forget", "empty"), "empty-forget"),
    BadInput(UnlearningProblem, lambda: _problem(retain=(torch.ones(2, 4, dtype=F64), Y3[:2])), ValueError,
             ("retain X", "3 columns"), "model-data-columns"),
    BadInput(UnlearningProblem, lambda: _problem(retain=(X3[:2], torch.ones(2, 2, dtype=F64))), ValueError,
             ("retain y", "1 column"), "model-data-outputs"),
    BadInput(UnlearningProblem, lambda: _problem(retain=(X3[:2], Y3[:3])), ValueError,
             ("retain y", "shape"), "retain-xy-rows"),
    BadInput(UnlearningProblem, lambda: _problem(params=torch.ones(4, dtype=F64)), ValueError,
             ("params", "3 parameters"), "params-size"),
    BadInput(UnlearningProblem, lambda: _problem(params={"bias": THETA}), ValueError,
             ("params", "missing", "weight"), "params-dict"),
    BadInput(UnlearningProblem, lambda: _problem(model="linear"), TypeError, ("model", "Module"), "model"),
    BadInput(UnlearningProblem, lambda: _problem(retain=[X3]), TypeError, ("retain", "pair"), "pair"),
    BadInput(UnlearningProblem, lambda: _problem(retain=(X3[:2] * math.nan, Y3[:2])), ValueError,
             ("retain X", "NaN"), "nan"),
    BadInput(UnlearningProblem, lambda: _problem(retain=(np.array([["a", "b", "c"]]), [1.0])), TypeError,
             ("retain X", "numeric"), "strings"),
    BadInput(UnlearningProblem, lambda: _problem(model=TWO, params=torch.ones(9, dtype=F64),
                                                 retain=(torch.ones(2, 3, dtype=F64), Y3[:2])),
             ValueError, ("retain X", "2 columns"), "mlp-columns"),
    BadInput(forget_split, lambda: forget_split(X3, Y3, forget=[5]), ValueError,
             ("forget", "training set", "[5]"), "not-in-training-set"),
    BadInput(forget_split, lambda: forget_split(X3, Y3, forget=[-1]), ValueError,
             ("forget", "training set"), "negative"),
    BadInput(forget_split, lambda: forget_split(X3, Y3, forget=[0, 0]), ValueError, ("forget", "repeat"),
             "repeat"),
    BadInput(forget_split, lambda: forget_split(X3, Y3, forget=[0, 1, 2]), ValueError,
             ("forget", "retain"), "everything"),
    BadInput(forget_split, lambda: forget_split(X3, Y3, forget=[0.5]), TypeError, ("forget", "int"), "float"),
    BadInput(forget_split, lambda: forget_split(X3[:0], Y3[:0], forget=[0]), ValueError,
             ("training", "empty"), "empty"),
    BadInput(retrained_min_norm, lambda: retrained_min_norm("problem"), TypeError,
             ("problem", "UnlearningProblem"), "type"),
    # models
    BadInput(LinearModel, lambda: LinearModel(0), ValueError, ("in_features", "positive"), "in_features"),
    BadInput(LinearModel, lambda: LinearModel(2, seed=-1), ValueError, ("seed", ">= 0"), "seed"),
    BadInput(LinearModel.forward, lambda: LIN(torch.ones(2, 4, dtype=F64)), ValueError, ("X", "(n, 3)"),
             "forward-shape"),
    BadInput(DeepLinear, lambda: DeepLinear(3, ()), ValueError, ("widths", "non-empty"), "widths"),
    BadInput(DeepLinear, lambda: DeepLinear(3, (2, 0)), ValueError, ("widths[1]", "positive"), "width-zero"),
    BadInput(TwoLayerPerceptron, lambda: TwoLayerPerceptron(2, 3, activation="gelu"), ValueError,
             ("activation", "relu"), "activation"),
    BadInput(TwoLayerPerceptron, lambda: TwoLayerPerceptron(2, 3, dtype=torch.int64), TypeError,
             ("dtype", "float64"), "dtype"),
    BadInput(effective_predictor, lambda: effective_predictor(TWO), TypeError, ("model", "DeepLinear"),
             "not-linear"),
    BadInput(effective_predictor, lambda: effective_predictor(LinearModel(2, 2)), ValueError,
             ("out_features", "1"), "outputs"),
    # algorithms
    BadInput(MinNormOG, lambda: MinNormOG(lambda_schedule=-0.5), ValueError, ("lambda_schedule", ">= 0"),
             "lambda-negative"),
    BadInput(MinNormOG, lambda: MinNormOG(lambda_schedule=(0.0, -1.0)), ValueError,
             ("lambda_schedule[1]", ">= 0"), "lambda-tuple"),
    BadInput(MinNormOG, lambda: MinNormOG(lambda_schedule=()), ValueError, ("lambda_schedule", "non-empty"),
             "lambda-empty"),
    BadInput(MinNormOG, lambda: MinNormOG(lambda_schedule="big"), TypeError, ("lambda_schedule", "real"),
             "lambda-type"),
    BadInput(MinNormOG, lambda: MinNormOG(n_pert=0), ValueError, ("n_pert", "positive"), "n_pert"),
    BadInput(MinNormOG, lambda: MinNormOG(lr=-1.0), ValueError, ("lr", ">= 0"), "lr"),
    BadInput(MinNormOG, lambda: MinNormOG(optimizer="lbfgs"), ValueError, ("optimizer", "sgd"), "optimizer"),
    BadInput(Retrain, lambda: Retrain(lr=math.inf), ValueError, ("lr", "finite"), "lr"),
    BadInput(GradientDescent, lambda: GradientDescent(lr="fast"), TypeError, ("lr", "real"), "lr"),
    BadInput(NegGrad, lambda: NegGrad(lr=-0.1), ValueError, ("lr", ">= 0"), "lr"),
    BadInput(NegGradPlus, lambda: NegGradPlus(alpha=-1.0), ValueError, ("alpha", ">= 0"), "alpha"),
    BadInput(Ridge, lambda: Ridge(lam=-0.1), ValueError, ("lam", ">= 0"), "lambda-negative"),
    BadInput(Ridge, lambda: Ridge(gamma=0.0), ValueError, ("gamma", "(0, 1]"), "gamma"),
    BadInput(DeepLinearOG, lambda: DeepLinearOG(complexity="width"), ValueError, ("complexity", "predictor"),
             "complexity"),
    BadInput(SparseWidthOG, lambda: SparseWidthOG(prune=1), TypeError, ("prune", "bool"), "prune"),
    BadInput(DeepLinearOG, lambda: solve(_problem(), DeepLinearOG()), TypeError, ("model", "DeepLinear"),
             "wrong-model"),
    BadInput(SparseWidthOG, lambda: solve(_problem(), SparseWidthOG()), TypeError,
             ("model", "TwoLayerPerceptron"), "wrong-model"),
    # functions
    BadInput(orthogonal_gradient_step, lambda: orthogonal_gradient_step(THETA, torch.ones(2, 4, dtype=F64)),
             ValueError, ("gradients", "(k, 3)"), "shape"),
    BadInput(orthogonal_gradient_step, lambda: orthogonal_gradient_step(THETA, X3, -1.0), ValueError,
             ("lam", ">= 0"), "lam"),
    BadInput(orthogonal_gradient_step, lambda: orthogonal_gradient_step([1.0, 2.0], X3), TypeError,
             ("theta", "1-D"), "theta"),
    BadInput(orthogonal_gradient_step,
             lambda: orthogonal_gradient_step(THETA, torch.tensor([[math.nan, 0.0, 1.0]], dtype=F64)),
             ValueError, ("gradients", "finite"), "gradients-nan"),
    BadInput(orthogonal_gradient_step,
             lambda: orthogonal_gradient_step(THETA, torch.ones(1, 3, dtype=torch.complex128)),
             ValueError, ("gradients", "real"), "gradients-complex"),
    BadInput(orthogonal_gradient_step,
             lambda: orthogonal_gradient_step(torch.tensor([1.0, math.inf, 0.0], dtype=F64), X3),
             ValueError, ("theta", "finite"), "theta-inf"),
    BadInput(strength_schedule, lambda: strength_schedule(1.5, 0.5, 3), ValueError, ("lambda_reg", "(0, 1]"),
             "lambda_reg"),
    BadInput(strength_schedule, lambda: strength_schedule(0.5, 0.5, 0), ValueError,
             ("epochs", "positive int"), "epochs"),
    BadInput(strength_schedule, lambda: strength_schedule(0.5, -0.5, 3), ValueError, ("gamma_reg", "(0, 1]"),
             "gamma_reg"),
    BadInput(balanced_factorization, lambda: balanced_factorization(DeepLinear(3, (2,)), torch.ones(4)),
             ValueError, ("predictor", "(3,)"), "shape"),
    BadInput(balanced_factorization, lambda: balanced_factorization(LIN, torch.ones(3)), TypeError,
             ("model", "DeepLinear"), "model"),
    BadInput(lemma1_perturbation, lambda: lemma1_perturbation(_problem()), TypeError, ("model", "DeepLinear"),
             "model"),
    BadInput(active_neurons, lambda: active_neurons(TWO, torch.ones(5)), ValueError, ("theta", "(9,)"),
             "shape"),
    BadInput(prune_inactive_neurons, lambda: prune_inactive_neurons(LIN, THETA), TypeError,
             ("model", "TwoLayerPerceptron"), "model"),
    BadInput(linear_task, lambda: linear_task(n=10, d=5, n_forget=1), ValueError, ("n", "<= d"),
             "underparameterized"),
    BadInput(linear_task, lambda: linear_task(n=4, d=5, n_forget=4), ValueError, ("n_forget", "< n"),
             "forget-all"),
    BadInput(deep_linear_task, lambda: deep_linear_task(3, 5, (2,), 0), ValueError, ("n_forget", "positive"),
             "n_forget"),
    BadInput(two_layer_task, lambda: two_layer_task(6, 2, 4, 1), ValueError, ("n", "<= width"), "too-narrow"),
    BadInput(two_layer_task, lambda: two_layer_task(4, 1, 8, 1, activation="relu"), ValueError,
             ("rank", "interpolates"), "rank-deficient"),
    BadInput(sine_poisoning_task, lambda: sine_poisoning_task(n_retain=0), ValueError,
             ("n_retain", "positive"), "n_retain"),
    BadInput(sup_error, lambda: sup_error(_problem(), THETA, grid=0), ValueError, ("grid", ">= 2"),
             "grid"),
    BadInput(sup_error, lambda: sup_error(_problem(), torch.ones(2, dtype=F64)), ValueError,
             ("theta", "3 parameters"), "theta"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_rejected(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES, exempt={
        "UnlearningStats": "a plain counter dataclass filled by solve; it takes no user input"})


def test_integer_inputs_are_promoted():
    eye = np.eye(3, dtype=int)
    prob = UnlearningProblem(LIN, [1, 1, 1], (eye[:2], [1, 1]), (eye[2:], [1]))
    assert prob.dtype == torch.float64 and prob.retain[1].shape == (2, 1)
    assert isinstance(Ridge(lam=1).lam, float)


# held-out audit (issue #43): dict params are compared with the model's names and shapes, as
# load_state_dict(strict=True) does; a transposed weight has the right element count but not the shape
def test_dict_params_unknown_key_and_transposed_shape_are_rejected():
    model = LinearModel(10, seed=0)
    data = (torch.zeros(4, 10, dtype=F64), torch.zeros(4, dtype=F64))
    good = {k: v.detach().clone() for k, v in model.named_parameters()}
    check_bad_input(BadInput(UnlearningProblem, lambda: UnlearningProblem(
        model, {**good, "zz": torch.zeros(1)}, data, data), ValueError, ("params", "zz", "weight"), "extra"))
    transposed = {**good, "weight": torch.arange(10.0, dtype=F64).reshape(10, 1)}
    check_bad_input(BadInput(UnlearningProblem, lambda: UnlearningProblem(model, transposed, data, data),
                             ValueError, ("params['weight']", "(1, 10)", "(10, 1)"), "transposed"))
    assert UnlearningProblem(model, good, data, data).params.shape == (sum(v.numel() for v in good.values()),)


def test_strength_schedule_rejects_final_descent_past_epochs():
    check_bad_input(BadInput(strength_schedule, lambda: strength_schedule(0.5, 0.5, 2, final_descent=5),
                             ValueError, ("final_descent", "<= epochs = 2", "5"), "final_descent"))
    assert strength_schedule(0.5, 0.5, 2, final_descent=2) == (math.inf, math.inf)


def test_round2_balanced_factorization_refuses_nan():
    # issue #43 round 2: a NaN predictor gave a NaN network silently
    from algorithms.unlearning.deep_linear_og import balanced_factorization
    from algorithms.unlearning.models import DeepLinear

    w = torch.tensor([1.0, math.nan, 0.0], dtype=torch.float64)
    check_bad_input(BadInput(balanced_factorization, lambda: balanced_factorization(DeepLinear(3, (2, 2)), w),
                             ValueError, ("predictor", "NaN"), "nan"))


def test_round2_tasks_and_predictor_name_their_arguments():
    from algorithms.unlearning.models import LinearModel, effective_predictor
    from algorithms.unlearning.tasks import linear_task, two_layer_task

    for case in (
        BadInput(linear_task, lambda: linear_task(6, 10, 2, dtype=5), TypeError, ("dtype",), "dtype"),
        BadInput(two_layer_task, lambda: two_layer_task(6, 3, "3", 2), ValueError, ("width",), "width-str"),
        BadInput(effective_predictor, lambda: effective_predictor(LinearModel(3), {"nope": torch.zeros(1)}),
                 ValueError, ("params", "weight"), "missing"),
        BadInput(effective_predictor, lambda: effective_predictor(LinearModel(3), "p"), ValueError,
                 ("params",),
                 "str"),
    ):
        check_bad_input(case)


# Round 3 of the held-out audit (#43): shapes/dtypes that must agree were not compared (S2).
def _problem_with_forget(forget):
    f64 = torch.float64
    return UnlearningProblem(model=LinearModel(2), params=torch.zeros(2, dtype=f64),
                             retain=(torch.ones(3, 2, dtype=f64), torch.ones(3, dtype=f64)), forget=forget)


ROUND3 = [
    BadInput(effective_predictor, lambda: effective_predictor(LinearModel(3), {"weight": torch.ones(5)}),
             ValueError, ("params['weight']", "shape"), "wrongshape"),
    BadInput(UnlearningProblem, lambda: _problem_with_forget((torch.ones(1, 2), torch.ones(1))), TypeError,
             ("forget", "dtype"), "forget-float32"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_sine_poisoning_task_checks_lr_itself():
    # #43 round 4 (audit4 C11): a negative lr reached torch.optim.Adam's "Invalid learning rate"
    with pytest.raises(ValueError, match=r"^lr must be > 0 and finite, got -1\.0$"):
        sine_poisoning_task(lr=-1.0)


def test_problem_pickles_and_deep_copies():
    # #43 round 7: the problem kept flatten_params' closure, so pickle (and a pickled Solution) failed
    import copy
    import pickle

    problem = _problem()
    for clone in (pickle.loads(pickle.dumps(problem)), copy.deepcopy(problem)):
        assert torch.equal(clone.params, problem.params)
        assert torch.equal(clone.predict(clone.params, clone.retain[0]), problem.predict(problem.params,
                                                                                         problem.retain[0]))
    sol = solve(problem, MinNormOG(), maxiters=2)
    assert torch.equal(pickle.loads(pickle.dumps(sol)).x, sol.x)


def test_problem_does_not_alias_the_callers_tensors():
    # #43 round 7: float64 params/retain/forget were kept as views of the caller's tensors: an in-place edit
    # after construction changed every later solve's answer (and bypassed the finite checks)
    X, y = torch.randn(6, 3, dtype=torch.float64), torch.randn(6, dtype=torch.float64)
    Xf, yf = torch.randn(2, 3, dtype=torch.float64), torch.randn(2, dtype=torch.float64)
    theta = torch.randn(3, dtype=torch.float64)
    problem = UnlearningProblem(LinearModel(3, 1).double(), theta, (X, y), (Xf, yf))
    first = solve(problem, MinNormOG(), maxiters=3).x.clone()
    theta[0], X[0, 0], Xf[0, 0] = math.nan, 100.0, 100.0
    assert torch.equal(solve(problem, MinNormOG(), maxiters=3).x, first)


def test_non_finite_parameters_refused_by_the_helpers():
    # #43 round 7: effective_predictor returned a NaN predictor and active_neurons counted 0 neurons for a NaN
    # theta, silently
    deep = deep_linear_task(3, 5, (2,), 1)
    params = {k: torch.full_like(v, math.nan) for k, v in deep.unflatten(deep.params).items()}
    with pytest.raises(ValueError, match=r"^params\['\w+'\] contains NaN or inf"):
        effective_predictor(deep.model, params)
    net = TwoLayerPerceptron(in_features=2, width=3, seed=0)
    for helper in (active_neurons, prune_inactive_neurons):
        with pytest.raises(ValueError, match=r"^theta contains NaN or inf"):
            helper(net, torch.full((9,), math.nan, dtype=torch.float64))


@pytest.mark.parametrize("make", [lambda: LinearModel(3), lambda: DeepLinear(3, (2, 2)),
                                  lambda: TwoLayerPerceptron(3, 4)])
def test_models_refuse_nan_inputs_and_bad_state_dicts(make):
    # #43 round 7: NaN rows gave NaN predictions, a NaN state dict loaded as it was, and a wrongly shaped one
    # reached torch's RuntimeError after the matching entries had been copied (a half-loaded model)
    model = make()
    with pytest.raises(ValueError, match=r"^X contains NaN or inf"):
        model(torch.full((2, 3), math.nan, dtype=torch.float64))
    assert model(torch.zeros(0, 3, dtype=torch.float64)).shape == (0, 1)
    state = model.state_dict()
    with pytest.raises(ValueError, match=r"^state_dict\['\w+'\] contains NaN or inf"):
        model.load_state_dict({k: torch.full_like(v, math.nan) for k, v in state.items()})
    before = {k: v.clone() for k, v in state.items()}
    last = list(state)[-1]  # the entries before it fit: torch copied them before it refused the last
    bad = {k: (torch.zeros(1, dtype=v.dtype) if k == last else v + 1.0) for k, v in state.items()}
    with pytest.raises(ValueError, match=r"^state_dict\['\w+'\] must have shape"):
        model.load_state_dict(bad)
    assert all(torch.equal(model.state_dict()[k], before[k]) for k in before)
    with pytest.raises(ValueError, match=r"^state_dict does not match"):
        model.load_state_dict({})


def test_predict_empty_batch_and_loss_samples():
    # #43 round 7: predict on 0 rows reached torch's reshape RuntimeError; loss took a 1-tuple to an unpack
    # error and 0 rows to a 0/0
    problem = _problem()
    X = problem.retain[0]
    assert problem.predict(problem.params, X[:0]).shape == (0, problem.retain[1].shape[1])
    with pytest.raises(TypeError, match=r"^samples must be a pair \(X, y\)"):
        problem.loss(problem.params, (X,))
    with pytest.raises(ValueError, match=r"^samples must hold at least one row"):
        problem.loss(problem.params, (X[:0], problem.retain[1][:0]))


def test_heldout7_forget_split_small_int_indices():
    # #43 round 7 (heldout7 A): int8 indices reached torch's "tensors used as indices must be long" IndexError
    X, y = torch.randn(5, 2, dtype=torch.float64), torch.randn(5, dtype=torch.float64)
    (_, _), (Xf, _) = forget_split(X, y, np.array([1], dtype=np.int8))
    assert torch.equal(Xf, X[1:2])


def test_round8_theta_state_dicts_and_counts_checked():
    # #43 round 8 (pre-audit sweep): predict/loss at NaN parameters answered NaN; load_state_dict took
    # strict="no" and cast int weights into the float parameters; MinNormOG refused n_pert=np.int64(2) as
    # "not an int"; sup_error of a d-input task met the model's own shape message
    import torch

    from algorithms.unlearning import LinearModel, MinNormOG, linear_task, sup_error

    problem = linear_task(8, 12, 2)
    nan = torch.full_like(problem.params, float("nan"))
    with pytest.raises(ValueError, match=r"^theta must be finite"):
        problem.predict(nan, problem.retain[0])
    with pytest.raises(ValueError, match=r"^theta must be finite"):
        problem.loss(nan, problem.retain)
    model = LinearModel(3)
    with pytest.raises(TypeError, match=r"^strict must be a bool"):
        model.load_state_dict(model.state_dict(), strict="no")
    with pytest.raises(ValueError, match=r"^state_dict\['weight'\] must be a floating tensor"):
        model.load_state_dict({k: v.to(torch.int64) for k, v in model.state_dict().items()})
    assert MinNormOG(n_pert=np.int64(2)).n_pert == 2 and type(MinNormOG(n_pert=np.int64(2)).n_pert) is int
    with pytest.raises(ValueError, match=r"^problem must have one input feature"):
        sup_error(problem, problem.params)


def test_heldout8_meta_gradients():
    # #43 round 8 (heldout8 phase 2): orthogonal_gradient_step of meta gradients met torch's ".item() cannot
    # be called on meta tensors"
    import torch

    from algorithms.unlearning import orthogonal_gradient_step

    with pytest.raises(ValueError, match=r"^gradients is on the meta device"):
        orthogonal_gradient_step(torch.zeros(3, dtype=torch.float64), torch.zeros(2, 3, device="meta"))


def test_round9_sparse_inference_huge_ints_named():
    # #43 round 9 (pre-audit sweep): a sparse tensor met torch's NotImplementedError ("aten::ne.Scalar") in
    # forget_split and orthogonal_gradient_step; a half theta met torch's SVD error; lam = 10**400 and
    # lr = 10**400 met float's OverflowError; lr = 2**64 reached torch's optimizer as an int (its
    # OverflowError);
    # params = 2**63 met torch's "can't convert np.ndarray of type numpy.ulonglong"; a forward on a tensor
    # made under torch.inference_mode() met "Inference tensors cannot be saved for backward"
    from algorithms.unlearning import (
        GradientDescent,
        MinNormOG,
        Ridge,
        forget_split,
        orthogonal_gradient_step,
    )

    with pytest.raises(TypeError, match=r"^training X must be a dense \(strided\) tensor"):
        forget_split(X3.to_sparse(), Y3, [2])
    with pytest.raises(TypeError, match=r"^theta must be a dense \(strided\) tensor"):
        orthogonal_gradient_step(THETA.to_sparse(), X3[:2])
    with pytest.raises(TypeError, match=r"^theta must be float32 or float64"):
        orthogonal_gradient_step(THETA.half(), X3[:2].half())
    with pytest.raises(ValueError, match=r"^lam must be a float >= 0 or math.inf"):
        orthogonal_gradient_step(THETA, X3[:2], lam=10**400)
    with pytest.raises(ValueError, match=r"^lr must be finite and >= 0"):
        Ridge(lr=10**400)
    assert isinstance(GradientDescent(lr=2**64).lr, float) and isinstance(MinNormOG(lr=2**64).lr, float)
    with torch.inference_mode():
        frozen = torch.ones(2, 3, dtype=F64)
    assert LIN(frozen).shape == (2, 1) and TWO.features(torch.ones(2, 2, dtype=F64)).shape == (2, 3)
    with torch.inference_mode():
        frozen2 = torch.ones(2, 2, dtype=F64)
    assert TWO.features(frozen2).shape == (2, 3)
    with pytest.raises(TypeError, match=r"^state_dict\['weight'\] must be a torch.Tensor"):
        LinearModel(3).load_state_dict({"weight": [1.0, 2.0, 3.0]})


def test_heldout9_models_named_by_their_argument():
    # #43 round 9 (heldout9 interim): a model with NaN weights or on the meta device was refused as
    # "params['weight'] ..." (naming the user's θ* argument, not model); a float16 model, or a float32 model
    # beside float64 data, was used in silence; sup_error of a sparse or meta theta met torch's errors
    from algorithms.unlearning import (
        DeepLinear,
        UnlearningProblem,
        active_neurons,
        balanced_factorization,
        linear_task,
        sup_error,
    )

    task = linear_task(6, 8, 2, seed=0)
    nan_model = LinearModel(8, seed=0)
    with torch.no_grad():
        nan_model.weight.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"^model's own parameters .* NaN"):
        UnlearningProblem(nan_model, task.params, task.retain, task.forget)
    with pytest.raises(ValueError, match=r"^model's own parameters .* meta device"):
        UnlearningProblem(LinearModel(8, seed=0).to("meta"), task.params, task.retain, task.forget)
    with pytest.raises(TypeError, match=r"^model must have float32 or float64 parameters"):
        UnlearningProblem(LinearModel(8, seed=0).half(), task.params, task.retain, task.forget)
    # documented valid: a float32 model beside float64 data runs in the data's dtype
    assert UnlearningProblem(LinearModel(8, seed=0).float(), task.params, task.retain, task.forget).dtype \
        == torch.float64
    with pytest.raises(TypeError, match=r"^model must have float32 or float64 parameters"):
        active_neurons(TwoLayerPerceptron(2, 3, seed=0).half(), torch.ones(9, dtype=torch.float16))
    with pytest.raises(TypeError, match=r"^model must have float32 or float64 parameters"):
        balanced_factorization(DeepLinear(3, (2, 2), seed=0).half(), torch.ones(3, dtype=F64))
    with pytest.raises(TypeError, match=r"^theta must be a dense \(strided\) tensor"):
        sup_error(task, task.params.to_sparse())
    with pytest.raises(ValueError, match=r"^theta is on the meta device"):
        sup_error(task, task.params.to("meta"))


def test_round10_train_steps_capped():
    # #43 round 10: sine_poisoning_task(train_steps=2**31 - 1) was accepted (a build that never ends)
    from algorithms.unlearning import sine_poisoning_task

    with pytest.raises(ValueError, match=r"^train_steps must be <= 100000"):
        sine_poisoning_task(train_steps=2**31 - 1)


def test_round10_a_random_model_is_refused_by_name():
    # #43 round 10: a model with a Dropout in training mode ran NegGrad/Retrain with random predictions and
    # met vmap's "called random operation" RuntimeError in MinNormOG
    from algorithms.unlearning import UnlearningProblem

    model = torch.nn.Sequential(torch.nn.Linear(3, 1, dtype=torch.float64), torch.nn.Dropout(0.5))
    X = torch.randn(10, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = X.sum(1)
    params = torch.cat([p.detach().reshape(-1) for p in model.parameters()])
    with pytest.raises(ValueError, match=r"^model must be deterministic"):
        UnlearningProblem(model, params, (X[:8], y[:8]), (X[8:], y[8:]))
    UnlearningProblem(model.eval(), params, (X[:8], y[:8]), (X[8:], y[8:]))  # eval mode: deterministic


def test_round10_unlearning_stats_figures_nonnegative():
    # #43 round 10: UnlearningStats(retain_loss=-1.0) and distance_to_retrain=-2.0 were stored as given
    from algorithms.unlearning import UnlearningStats

    with pytest.raises(ValueError, match=r"^retain_loss must be >= 0"):
        UnlearningStats(retain_loss=-1.0)
    stats = UnlearningStats(distance_to_retrain=0.5)
    with pytest.raises(ValueError, match=r"^distance_to_retrain must be >= 0"):
        stats.distance_to_retrain = -2.0
    assert stats.distance_to_retrain == 0.5


def test_round10_tensors_edited_after_construction_named_at_solve():
    # #43 round 10: a NaN written into problem.forget[1] after construction gave a Success, into the retain X
    # torch's LinAlgError (torch tensors cannot be read-only: re-checked before each solve)
    from algorithms import solve
    from algorithms.unlearning import NegGrad, linear_task

    problem = linear_task(n=8, d=12, n_forget=2, seed=0)
    problem.forget[1].view(-1)[0] = float("nan")
    with pytest.raises(ValueError, match=r"^forget y contains NaN or inf entries \(written after"):
        solve(problem, NegGrad(), maxiters=2)


def test_heldout10_theta_x_and_gradient_dtypes_named():
    # #43 round 10 (heldout10 first run): a float32 theta on a float64 problem was blamed on X (predict,
    # jacobian) or returned float32 parameters (unflatten); a 0-d X met vmap's error and an inf X gave an
    # inf Jacobian; float32/float16/int64 gradients were mixed into orthogonal_gradient_step silently
    from algorithms.unlearning import linear_task, orthogonal_gradient_step

    problem = linear_task(n=4, d=6, n_forget=1, seed=0)
    theta32 = problem.params.to(torch.float32)
    for call in (lambda: problem.predict(theta32, problem.retain[0]),
                 lambda: problem.jacobian(theta32, problem.retain[0]), lambda: problem.unflatten(theta32)):
        with pytest.raises(TypeError, match=r"^theta must have the problem's dtype torch.float64"):
            call()
    with pytest.raises(ValueError, match=r"^X must be a 2-D"):
        problem.jacobian(problem.params, torch.tensor(1.0, dtype=torch.float64))
    bad = problem.retain[0].clone()
    bad[0, 0] = float("inf")
    with pytest.raises(ValueError, match=r"^X must be finite"):
        problem.jacobian(problem.params, bad)
    theta = torch.ones(3, dtype=torch.float64)
    for dtype in (torch.float32, torch.float16, torch.int64):
        with pytest.raises(TypeError, match=r"^gradients must have theta's dtype"):
            orthogonal_gradient_step(theta, torch.ones(1, 3, dtype=dtype))


def test_round11_loss_samples_y_checked():
    prob = linear_task(8, 12, 2, seed=0)
    theta = torch.zeros(prob.dim, dtype=torch.float64)
    X, y = prob.retain
    with pytest.raises(ValueError, match="samples y"):  # an inf y answered an inf loss
        prob.loss(theta, (X, torch.full_like(y, math.inf)))
    with pytest.raises(TypeError, match="samples y"):  # a complex y answered a complex loss
        prob.loss(theta, (X, y.to(torch.complex128)))
    with pytest.raises(ValueError, match="samples y"):  # one row short
        prob.loss(theta, (X, y[:-1]))
    # a (n,) y is read as (n, 1), not broadcast to (n, n); a bool y is promoted as the constructor's
    assert torch.allclose(prob.loss(theta, (X, y[:, 0])), prob.loss(theta, (X, y)))
    assert prob.loss(theta, (X, torch.ones(X.shape[0], dtype=torch.bool))).dtype == torch.float64


def test_round11_effective_predictor_params_share_one_dtype():
    net = DeepLinear(3, (4, 1), seed=0)
    params = {k: p.detach() for k, p in net.named_parameters()}
    mixed = {**params, "c": params["c"].float()}
    with pytest.raises(TypeError, match="params must share one dtype"):
        effective_predictor(net, mixed)
    with pytest.raises(TypeError, match="params"):
        effective_predictor(net, {k: v.half() for k, v in params.items()})
    assert effective_predictor(net, {k: v.float() for k, v in params.items()}).dtype == torch.float32


def test_round11_empty_rows_and_contradictory_retain_rows_documented():
    prob = linear_task(8, 12, 2, seed=0)
    theta = torch.zeros(prob.dim, dtype=torch.float64)
    X, y = prob.retain
    assert prob.jacobian(theta, X[:0]).shape == (0, prob.dim)  # was torch's reshape RuntimeError
    assert prob.predict(theta, X[:0]).shape == (0, 1)
    twice = (torch.cat([X, X[:1]]), torch.cat([y, y[:1] + 1]))  # the same x with two labels: documented
    contradictory = UnlearningProblem(prob.model, prob.params, twice, prob.forget)  # least squares target
    assert contradictory.n_retain == X.shape[0] + 1


def test_round11_half_theta_refused_and_sine_task_sizes_and_divergence_named():
    net = TwoLayerPerceptron(3, 4, seed=0)
    theta = torch.cat([p.detach().reshape(-1) for p in net.parameters()])
    for call in (active_neurons, prune_inactive_neurons):
        with pytest.raises(TypeError, match="theta must be a real floating tensor"):  # a half θ came back
            call(net, theta.half())
    with pytest.raises(TypeError, match="predictor must be a real floating tensor"):
        balanced_factorization(DeepLinear(3, (4, 1), seed=0), torch.ones(3, dtype=torch.float16))
    with pytest.raises(ValueError, match="n_retain=1099511627776 is too large"):  # numpy's MemoryError
        unlearning.sine_poisoning_task(2**40, 2, train_steps=1)
    with pytest.raises(ValueError, match=r"lr = 1000000\.0 is too large"):  # a diverged θ* was stored
        unlearning.sine_poisoning_task(10, 2, lr=1e6, train_steps=50, hidden=(8,))


def test_round11_init_snapshot_and_model_state():
    model = LinearModel(3, seed=0)
    g = torch.Generator().manual_seed(0)
    Xr = torch.randn(5, 3, dtype=torch.float64, generator=g)
    yr = torch.randn(5, dtype=torch.float64, generator=g)
    problem = UnlearningProblem(model, torch.zeros(3, dtype=torch.float64), (Xr[:4], yr[:4]),
                                (Xr[4:], yr[4:]))
    start = problem.init_params
    with torch.no_grad():
        model.weight.fill_(7.0)  # the "fresh initialization" followed later edits of the model
    assert torch.equal(problem.init_params, start)
    with torch.no_grad():
        model.weight.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"LinearModel\.weight contains NaN"):  # NaN outputs before
        model(Xr)
    with pytest.raises(ValueError, match="in_features is fixed"):  # torch's matmul error at forward
        model.in_features = 4


def test_round11_detached_model_schedule_cap_and_inference_mode_construction():
    class Detached(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(3, 1, dtype=torch.float64))

        def forward(self, X):
            return (X @ self.w).detach()

    X, y = torch.randn(8, 3, dtype=torch.float64), torch.randn(8, dtype=torch.float64)
    with pytest.raises(ValueError, match="model's output must depend on its parameters"):  # autograd's error
        UnlearningProblem(Detached(), torch.full((3,), 0.3, dtype=torch.float64), (X[:6], y[:6]),
                          (X[6:], y[6:]))
    with pytest.raises(ValueError, match=r"epochs must be <= 1000000"):  # a 10**9-entry tuple: a hang
        unlearning.strength_schedule(0.5, 0.5, 10**9)
    with torch.inference_mode():  # the field record met "Inference tensors do not track version counter"
        problem = linear_task(6, 8, 2)
    assert solve(problem, MinNormOG()).retcode.successful


def test_heldout11_step_sizes_strengths_of_normal_magnitude_and_nan_models():
    for make in (lambda v: GradientDescent(lr=v), lambda v: NegGrad(lr=v), lambda v: Ridge(lr=v),
                 lambda v: NegGradPlus(alpha=v), lambda v: MinNormOG(lambda_schedule=v)):
        with pytest.raises(ValueError, match="is outside the package's working range"):
            make(1e308)
    for make in (lambda v: NegGradPlus(alpha=v), lambda v: MinNormOG(lambda_schedule=v)):
        make(5e-324)  # round 12: each may be 0, so a tiny one is a valid (near-)0 (README, working range)
    # round 13: a step size lr is "0 or at least 1.18e-38" (README): test_bad_inputs_round13
    assert GradientDescent(lr=0.0).lr == 0.0 and MinNormOG(lambda_schedule=math.inf).lam(0) == math.inf
    net = DeepLinear(3, (2,), seed=0)
    with torch.no_grad():
        net.c.fill_(float("nan"))
    with pytest.raises(ValueError, match=r"model\.c contains NaN"):  # factorized as if valid before
        balanced_factorization(net, torch.ones(3, dtype=torch.float64))
