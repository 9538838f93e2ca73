"""Round 23 (issue #43): docstring promises at their boundaries (imaging)."""
import numpy as np
import pytest
import torch

from algorithms._validation import UnknownAttributeError
from algorithms.imaging import (
    Blur,
    DenoiserPrior,
    InverseProblem,
    LinearOperator,
    MatrixOperator,
    SubspacePrior,
    TVPrior,
    gaussian_cs,
)


class _NoInit(LinearOperator):
    """Shapes as class attributes, no __init__ of its own."""

    image_shape = (2, 2)
    measurement_shape = (4,)

    def _forward(self, x):
        return x.reshape(x.shape[0], -1)

    def _adjoint(self, y):
        return y.reshape(y.shape[0], 2, 2)


class _SuperFirst(LinearOperator):
    def __init__(self):
        super().__init__()
        self.image_shape, self.measurement_shape, self.k = (2, 2), (4,), 2.0

    def _forward(self, x):
        return self.k * x.reshape(x.shape[0], -1)

    def _adjoint(self, y):
        return self.k * y.reshape(y.shape[0], 2, 2)


OPERATORS = {"Blur": lambda: Blur((4, 4), 1.0),
             "MatrixOperator": lambda: MatrixOperator(torch.eye(4, dtype=torch.float64), (2, 2)),
             "no __init__": _NoInit, "super first": _SuperFirst}


@pytest.mark.parametrize("make", OPERATORS.values(), ids=list(OPERATORS))
def test_operator_misspelt_attribute_is_unknown_attribute_error(make):
    # the README's rule: a name the object does not take raises UnknownAttributeError (a ValueError was
    # raised; a subclass without __init__ stored it)
    op = make()
    with pytest.raises(UnknownAttributeError, match="sigmaa"):
        op.sigmaa = 2.0
    assert not hasattr(op, "sigmaa")


def test_subclass_without_init_has_fixed_attributes():
    # the class docstring: public attributes fixed once construction returns (a subclass without __init__
    # took image_shape = (3, 3))
    op = _NoInit()
    with pytest.raises(ValueError, match="image_shape is fixed"):
        op.image_shape = (3, 3)


@pytest.mark.parametrize("y", [np.ones(32, dtype=np.float16), torch.ones(32, dtype=torch.bfloat16),
                               torch.ones(32, dtype=torch.bool), torch.ones(32, dtype=torch.complex64)],
                         ids=["np16", "bf16", "bool", "complex"])
def test_inverse_problem_refuses_the_dtypes_its_docstring_names(y):
    assert "half-precision" in InverseProblem.__doc__
    with pytest.raises(TypeError, match="y"):
        InverseProblem(gaussian_cs((8, 8), 0.5, seed=0, dtype=torch.float64), y)


class _TrainModeDenoiser(torch.nn.Module):
    """Dropout and batch norm, in train mode as torch builds it."""

    def __init__(self):
        super().__init__()
        self.drop, self.bn = torch.nn.Dropout(0.3), torch.nn.BatchNorm1d(8)

    def forward(self, x):
        self.bn(x)
        return 0.5 * x + 0.5 * self.drop(x)


def _train_mode_g(m: int) -> torch.nn.Module:
    g = torch.nn.Sequential(torch.nn.Linear(m, 16), torch.nn.Dropout(0.5)).double()
    g.in_features, g.out_features = m, 16
    return g


@pytest.mark.parametrize("where", ["DenoiserPrior", "NPN"])
def test_train_mode_network_runs_in_eval_mode(where):
    # red23a: a train-mode network drew its dropout from torch's global generator (one seed, two answers)
    # and rewrote the user's batch-norm statistics; the docstrings now promise eval mode, modes restored
    from algorithms import solve
    from algorithms.imaging import NPN, DenoiserPrior, PnPPGD, TVPrior, qr_null_rows
    from tests.algorithms.imaging._instances import cs_problem

    problem, _ = cs_problem(torch.float64)
    if where == "DenoiserPrior":
        net = _TrainModeDenoiser().double()
        algorithm = PnPPGD(prior=DenoiserPrior(net), lr=0.5)
    else:
        net = _train_mode_g(problem.operator.out_features)
        npn = NPN(qr_null_rows(problem.operator, 16, seed=0), net, 1.0, max_leakage=1.0)
        algorithm = PnPPGD(prior=TVPrior(0.01), lr=0.5, npn=npn)
    state, stats = torch.random.get_rng_state(), [b.clone() for b in net.buffers()]
    first, second = (solve(problem, algorithm, seed=0, maxiters=5) for _ in range(2))
    assert torch.equal(torch.as_tensor(first.x), torch.as_tensor(second.x))
    assert torch.equal(state, torch.random.get_rng_state())
    assert all(torch.equal(a, b) for a, b in zip(stats, net.buffers(), strict=True))
    assert all(m.training for m in net.modules())


EDITS = {"5": 5.0, "nan": float("nan"), "1e39": 1e39}


@pytest.mark.parametrize("value", EDITS.values(), ids=list(EDITS))
@pytest.mark.parametrize("which", ["H", "S"])
def test_operator_written_in_place_is_refused_by_its_users(value, which):
    # red23a: NullSpaceNet.forward, norm, null_space_leakage and NPN used an operator edited after
    # construction in silence (a NaN edit blamed X); InverseProblem took one every solve then refused
    from algorithms.imaging import NPN, NullSpaceNet, null_space_leakage, qr_null_rows

    H = gaussian_cs((8, 8), 0.5, seed=0)
    S = qr_null_rows(H, 8, seed=0)
    net = NullSpaceNet(H, S)
    edited = H if which == "H" else S
    with torch.no_grad():
        edited.weight[0, 0] = value
    calls = [lambda: net(torch.randn(2, H.out_features)), edited.norm, lambda: null_space_leakage(H, S)]
    if which == "H":
        calls.append(lambda: InverseProblem(H, torch.zeros(32, dtype=torch.float64)))
    else:
        calls.append(lambda: NPN(S, net, 0.5).gradient(torch.zeros(8, 8, dtype=torch.float64),
                                                       torch.zeros(8, dtype=torch.float64)))
    for call in calls:
        with pytest.raises(ValueError, match="weight"):
            call()


@pytest.mark.parametrize("big", [10**20, 2**64, 1e30, 3.4e38, 1e10 + 0.5, -1e20])
def test_radon_takes_a_large_angle_modulo_360_exactly(big):
    # red23a: the conversion to radians before the reduction built another angle's geometry (0.97 off)
    from fractions import Fraction

    from algorithms.imaging import Radon

    reduced = float(Fraction(big) % 360)
    difference = (Radon((8, 8), [float(big)]).matrix() - Radon((8, 8), [reduced]).matrix()).abs().max()
    assert float(difference) < 1e-12


SETUP_FIELDS = {
    "snr_db nan": ({"snr_db": float("nan")}, ValueError, "snr_db"),
    "snr_db -1e39": ({"snr_db": -1e39}, ValueError, "snr_db"),
    "snr_db str": ({"snr_db": "x"}, TypeError, "snr_db"),
    "max_leakage nan": ({"max_leakage": float("nan")}, ValueError, "max_leakage"),
    "max_leakage negative": ({"max_leakage": -1.0}, ValueError, "max_leakage"),
    "operator str": ({"operator": "op"}, TypeError, "operator"),
    "projection None": ({"projection": None}, TypeError, "projection"),
    "projection of another shape": ({"projection": Blur((4, 4), 1.0)}, ValueError, "projection"),
    "name int": ({"name": 5}, TypeError, "name"),
}


@pytest.mark.parametrize("change, error, word", SETUP_FIELDS.values(), ids=list(SETUP_FIELDS))
def test_setup_checks_its_fields(change, error, word):
    # red23a: a Setup stored anything; measure then answered NaN measurements in silence
    from algorithms.imaging import HighPass
    from algorithms.imaging.setups import Setup

    fields = {"name": "b", "operator": Blur((8, 8), 1.0), "projection": HighPass((8, 8), 1.0), "snr_db": 30.0,
              "max_leakage": 0.1} | change
    with pytest.raises(error, match=word):
        Setup(**fields)


def test_make_setup_hands_out_a_fresh_copy():
    # red23a: one caller's in-place edit of the cached set-up's operator poisoned every later make_setup
    from algorithms.imaging.setups import make_setup

    first = make_setup("deblur")
    with torch.no_grad():
        first.operator.spectrum.view(-1)[0] += 0.5
    second = make_setup("deblur")
    assert second is not first and second.operator is not first.operator
    assert second.operator(torch.rand(32, 32, dtype=torch.float64)).shape == (32, 32)


def _sub(base, **namespace):
    import dataclasses

    return dataclasses.make_dataclass("Sub", [], bases=(base,), frozen=True, eq=False, namespace=namespace)


OVERRIDING_PRIORS = {
    "TVPrior prox": (lambda: _sub(TVPrior, prox=lambda s, x, lr: x)(weight=0.1), "prox"),
    "TVPrior value": (lambda: _sub(TVPrior, value=lambda s, x: x)(weight=0.1), "value"),
    "DenoiserPrior prox": (lambda: _sub(DenoiserPrior, prox=lambda s, x, lr: x)(network=torch.nn.Identity()),
                           "prox"),
    "SubspacePrior prox": (lambda: _sub(SubspacePrior, prox=lambda s, x, lr: x)(
        basis=torch.eye(4, dtype=torch.float64)[:, :2], image_shape=(2, 2)), "prox"),
}


@pytest.mark.parametrize("make, method", OVERRIDING_PRIORS.values(), ids=list(OVERRIDING_PRIORS))
def test_prior_subclass_overriding_prox_or_value_is_refused(make, method):
    # red23a: the solvers call the private _prox/_value, so the override was ignored in silence
    with pytest.raises(TypeError, match=rf"overrides \w+\.{method}"):
        make()
    _sub(TVPrior, extra=lambda s: 1)(weight=0.1)   # a subclass adding a method stays valid
