"""#43 round 8 (pre-audit sweep) for the nets family: kinds beyond round 7's, each as its class."""

import copy
import dataclasses
import enum
import pickle

import numpy as np
import pytest
import torch

from algorithms.nets import SAM, TwoLayerReLU
from algorithms.nets.functional import flat_forward, flatten_params, module_params
from algorithms.nets.gd_map import GDMap
from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow, TwoLayerTraining
from algorithms.nets.lp_training import LpPathNormTraining, smoothed_lp
from algorithms.nets.models import MLP as NetsMLP
from algorithms.nets.models import activation
from algorithms.nets.multivariate_interpolation import PatternEnumeration
from algorithms.nets.neural_collapse import classifier_alignment, nc1, self_duality_residual
from algorithms.nets.sam import SAMTraining, SGDTraining
from algorithms.nets.sparse_interpolation import BruteForceVp, SparsestInterpolantDP
from algorithms.optimizers import MLP as OptMLP
from algorithms.optimizers import LowRankExpansion, Transformer, singular_value_map

ALGORITHMS = [GDMap, GradientDescentTraining, GradientFlow, LpPathNormTraining, PatternEnumeration,
              SAMTraining, SGDTraining, BruteForceVp, SparsestInterpolantDP]


class _Seven(enum.IntEnum):
    A = 7


def _spellings(value):
    """Other spellings of a Python bool/int/float/str field value that must store as that value."""
    if isinstance(value, bool):
        return [np.bool_(value)]
    if isinstance(value, int):
        return [np.int64(value), np.uint8(value)] if 0 <= value < 256 else [np.int64(value)]
    if isinstance(value, float):
        exact32 = float(np.float32(value)) == value
        return [np.float64(value), np.longdouble(value)] + ([np.float32(value)] if exact32 else [])
    if isinstance(value, str):
        return [np.str_(value)]
    return []


@pytest.mark.parametrize("cls", ALGORITHMS)
def test_numpy_scalars_are_stored_as_python_values(cls):
    # np.float32(0.1) was stored as it came: reprs, hashes and float32 arithmetic differed by spelling
    algorithm = cls()
    for field in dataclasses.fields(cls):
        value = getattr(algorithm, field.name)
        for spelling in _spellings(value):
            built = dataclasses.replace(algorithm, **{field.name: spelling})
            stored = getattr(built, field.name)
            assert type(stored) is type(value), (field.name, type(spelling), type(stored))
            assert built == algorithm and hash(built) == hash(algorithm)
            assert pickle.loads(pickle.dumps(built)) == algorithm


def test_an_int_enum_is_stored_as_its_int():
    assert type(SGDTraining(batch_size=_Seven.A).batch_size) is int


def _sam_step(opt, w):
    def closure():
        opt.zero_grad()
        loss = (w**2).sum()
        loss.backward()
        return loss
    opt.step(closure)


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda o: pickle.loads(pickle.dumps(o))])
def test_a_copied_or_unpickled_sam_steps_as_the_original(copier):
    # torch's __getstate__ dropped base_optimizer: the copy could not step (AttributeError)
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0, 0.5]))
    opt = SAM([w], lr=0.1, momentum=0.9)
    _sam_step(opt, w)
    twin = copier(opt)
    twin_w = twin.param_groups[0]["params"][0]
    assert twin.param_groups is twin.base_optimizer.param_groups
    _sam_step(opt, w)
    _sam_step(twin, twin_w)
    assert torch.equal(w, twin_w)


def test_sam_refuses_a_parameter_listed_twice():
    w = torch.nn.Parameter(torch.ones(3))
    with pytest.raises(ValueError, match=r"params lists a tensor of shape \(3,\) twice"):
        SAM([w, w], lr=0.1)
    opt = SAM([torch.nn.Parameter(torch.ones(2))], lr=0.1)
    with pytest.raises(ValueError, match="params"):
        opt.add_param_group({"params": [w, w]})
    assert len(opt.param_groups) == 1 and opt.param_groups is opt.base_optimizer.param_groups


@pytest.mark.parametrize(("key", "bad"), [("momentum", float("nan")), ("weight_decay", float("inf")),
                                          ("dampening", float("nan"))])
def test_sam_refuses_non_finite_base_keywords_when_built_added_or_edited(key, bad):
    # torch's SGD takes momentum=nan and weight_decay=inf, and steps NaN into the weights
    with pytest.raises(ValueError, match=rf"{key} must be finite"):
        SAM([torch.nn.Parameter(torch.ones(3))], lr=0.1, **{key: bad})
    w = torch.nn.Parameter(torch.ones(3))
    opt = SAM([w], lr=0.1, momentum=0.5)
    with pytest.raises(ValueError, match=rf"param_group: {key} must be finite"):
        opt.add_param_group({"params": [torch.nn.Parameter(torch.ones(2))], key: bad})
    opt.param_groups[0][key] = bad
    with pytest.raises(ValueError, match=rf"param_groups\[0\] was set to an invalid value: {key}"):
        _sam_step(opt, w)
    assert torch.equal(w, torch.ones(3))


def test_sam_takes_numpy_bools_and_a_strict_set_to_none():
    opt = SAM([torch.nn.Parameter(torch.ones(3))], lr=0.1, normalize=np.True_)
    assert opt.param_groups[0]["normalize"] is True
    with pytest.raises(TypeError, match="set_to_none"):
        opt.zero_grad("no")


@pytest.mark.parametrize("make", [
    lambda: TwoLayerReLU(3, 4), lambda: NetsMLP(3, (4,), 1), lambda: OptMLP(4, 4, width=8, depth=1),
    lambda: Transformer(8, 8, 1, context=4), lambda: LowRankExpansion(torch.nn.Linear(4, 3), rank=2)])
def test_modules_refuse_non_finite_or_misshapen_state_before_loading(make):
    # torch loaded NaN weights as they were (every later forward answered NaN)
    module = make()
    before = {k: v.clone() for k, v in module.state_dict().items()}
    poisoned = {k: v * float("nan") if v.is_floating_point() else v for k, v in before.items()}
    with pytest.raises(ValueError, match="state_dict"):
        module.load_state_dict(poisoned)
    key = next(iter(before))
    with pytest.raises(ValueError, match=r"state_dict\["):
        module.load_state_dict({**before, key: torch.zeros(7, 7, 7)})
    assert all(torch.equal(v, before[k]) for k, v in module.state_dict().items())
    module.load_state_dict(before)


def test_class_labels_from_torch_tensors_and_meta_refused():
    # a label tensor that requires grad (or a meta one) reached numpy's/torch's own errors
    H = np.array([[1.0, 0.0], [1.0, 0.1], [-1.0, 0.0], [-1.0, 0.2]])
    y = np.array([0, 0, 1, 1])
    expected = nc1(H, y)
    assert nc1(H, torch.tensor(y, dtype=torch.float64, requires_grad=True)) == expected
    with pytest.raises(ValueError, match="y is on the meta device"):
        nc1(H, torch.empty(4, device="meta"))


@pytest.mark.parametrize("fn", [classifier_alignment, self_duality_residual])
def test_a_zero_dimensional_classifier_is_named(fn):
    means = np.array([[1.0, 2.0, 0.0], [0.0, 0.0, 3.0]])
    with pytest.raises(ValueError, match=r"V must be a \(K, width\) matrix or a \(width,\) vector"):
        fn(1.0, means)


def test_singular_value_map_names_a_meta_tensor():
    with pytest.raises(ValueError, match="sigma is on the meta device"):
        singular_value_map(torch.empty(3, device="meta"))


def test_activation_names_its_argument():
    # "activation must be one of ..." named the constructors' keyword, not this function's name
    with pytest.raises(ValueError, match="activation name must be one of"):
        activation("gelu")


def test_gradient_descent_refuses_more_steps_than_a_c_int():
    # lr=1e-300 asked for round(t_end / lr) = 1e300 steps: the loop never ended
    with pytest.raises(ValueError, match=r"t_end / lr must be at most 2147483647 steps"):
        GradientDescentTraining(lr=1e-20, t_end=1.0, t_first=1e-3)
    GradientDescentTraining(lr=1.0, t_end=2.0**31 - 1, t_first=1.0)


def test_lp_training_width_beyond_memory_is_refused_by_name():
    # width=2**30 spent half a minute allocating before it failed
    with pytest.raises(ValueError, match="width=1073741824 is too large"):
        LpPathNormTraining(width=2**30)


def test_record_counts_beyond_memory_are_refused_by_name():
    # 2**31 - 1 records spent a minute allocating 17 GB before the first step
    with pytest.raises(ValueError, match="n_records=2147483647 is too large"):
        GradientFlow(t_end=10.0, n_records=2**31 - 1)


# ---- round 8 held-out audit, phase 2 (heldout8 first run)


def test_brute_force_rtol_must_be_positive():
    # rtol = 0 kept only bit-equal minimizers: equal V_p from different solves differ in the last bits
    with pytest.raises(ValueError, match="rtol must be > 0"):
        BruteForceVp(rtol=0.0)


def test_flat_maps_refuse_a_non_finite_or_non_tensor_theta():
    # unflatten / f(θ, X) returned NaN or meta parameters for such a θ; a str θ reached .dtype
    module = TwoLayerReLU(3, 4)
    theta, f = flat_forward(module)
    X = torch.ones(2, 3, dtype=torch.float64)
    bad = theta.clone()
    bad[0] = float("nan")
    with pytest.raises(ValueError, match="theta contains NaN"):
        f(bad, X)
    _, unflatten = flatten_params(module_params(module))
    with pytest.raises(ValueError, match="theta is on the meta device"):
        unflatten(torch.empty(theta.shape, dtype=theta.dtype, device="meta"))
    for wrong in ("theta", None):
        with pytest.raises(TypeError, match="theta must be a flat parameter tensor"):
            f(wrong, X)
    hessian = torch.func.hessian(lambda t: f(t, X).sum())(theta)     # the check passes torch.func transforms
    assert hessian.shape == (theta.numel(), theta.numel())


def test_binary_loss_with_three_classes_names_n_classes():
    X = np.eye(4)
    with pytest.raises(ValueError, match="n_classes must be 2"):
        TwoLayerTraining(X, [0, 1, 0, 1], n_classes=3, loss="exponential")


@pytest.mark.parametrize("make", [
    lambda: (TwoLayerReLU(3, 4), torch.zeros(2, 3, dtype=torch.float64)),
    lambda: (NetsMLP(3, (4,), 1), torch.zeros(2, 3, dtype=torch.float64)),
    lambda: (OptMLP(6, 6, width=8, depth=1), torch.zeros(2, 6)),
    lambda: (Transformer(6, 8, 1, context=4), torch.zeros(2, 4, dtype=torch.long)),
    lambda: (LowRankExpansion(torch.nn.Linear(4, 3), 1), torch.zeros(2, 4))])
def test_modules_take_an_input_made_in_inference_mode(make):
    # torch: "Inference tensors cannot be saved for backward"
    module, x = make()
    with torch.inference_mode():
        frozen = x.clone()
    out = module(frozen)
    out.sum().backward()
    assert torch.equal(out, module(x))


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_functional_views_refuse_non_finite_parameters(bad):
    # hidden / forward_with at NaN parameters, and smoothed_lp of a NaN tensor, answered NaN in silence
    module = TwoLayerReLU(3, 4)
    X = torch.ones(2, 3, dtype=torch.float64)
    params = {k: v * bad for k, v in module.init(0).items()}
    with pytest.raises(ValueError, match=r"params\['.+'\] contains NaN or inf"):
        module.hidden(params, X)
    with pytest.raises(ValueError, match=r"params\['.+'\] contains NaN or inf"):
        module.forward_with(params, X)
    with pytest.raises(ValueError, match="t contains NaN or inf"):
        smoothed_lp(torch.tensor([1.0, bad]), 0.5, 1e-3)


@pytest.mark.parametrize("rows", [1, 3])
def test_self_duality_residual_names_means_of_the_wrong_class_count(rows):
    # pseudo_labels' "n_classes must be >= 2" / "binary ... need n_classes = 2" named neither argument
    with pytest.raises(ValueError, match="means"):
        self_duality_residual(np.array([2.0, 4.0, -1.0]), np.ones((rows, 3)))
