"""Round 23 of issue #43 (nets): users' subclasses of the exported SAM and TwoLayerReLU."""

import math

import pytest
import torch

from algorithms._validation import UnknownAttributeError
from algorithms.nets import SAM, TwoLayerReLU, flat_hessian, flat_hvp
from algorithms.nets.functional import per_sample_flat_grads
from algorithms.nets.gd_map import (
    exact_logabsdet,
    gd_jacobian,
    gd_logabsdet_slq,
    gd_map,
    hessian_eigenvalues,
    singular_step_sizes,
)
from tests.bad_inputs import with_own_attribute


def test_a_users_sam_subclass_sets_its_own_attributes_and_steps():
    # a subclass setting an attribute in its own __init__ was refused (UnknownAttributeError)
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = with_own_attribute(SAM)([w], lr=0.1, rho=0.05)
    assert opt.extra == 2.0

    def closure():
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    assert bool(torch.isfinite(w).all())
    with pytest.raises(UnknownAttributeError, match="extraa"):
        opt.extraa = 1.0


def test_a_users_two_layer_subclass_sets_its_own_attributes():
    net = with_own_attribute(TwoLayerReLU)(3, 4)
    assert net.extra == 2.0
    assert net(torch.zeros(2, 3, dtype=next(net.parameters()).dtype)).shape[0] == 2
    with pytest.raises(UnknownAttributeError, match="extraa"):
        net.extraa = 1.0


@pytest.mark.parametrize(("v", "w", "tol", "count"), [
    ([1e-200], [1e-200], 0.0, 1),            # |v w| = 1e-400 > 0: the product underflowed to 0, not counted
    ([1e-200, 0.0], [1e-200, 1.0], 1e-39, 0),
    ([1e-160], [1e-160], 1e-39, 0),
    ([1.0, 1e-9, 2.0], [1.0, 1.0, 0.0], 1e-6, 1),
    ([3e38], [3e38], 3.4e38, 1),
])
def test_count_active_neurons_keeps_its_rule_where_the_product_underflows(v, w, tol, count):
    # "Neurons with |v_k w_k| > tol": path_norm counted these from the factors, count_active_neurons did not
    from algorithms.nets.lp_training import count_active_neurons

    assert count_active_neurons(v, w, tol=tol) == count


@pytest.mark.parametrize("value", [float("nan"), -1.0, float("inf")])
@pytest.mark.parametrize("when", ["before", "after"])
def test_flat_forward_refuses_a_module_whose_buffers_make_every_output_nan(value, when):
    # a NaN or negative running_var answered NaN for finite theta and X in silence (red23a)
    from algorithms.nets import flat_forward

    layers = (torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3), torch.nn.Linear(3, 1))
    m = torch.nn.Sequential(*layers).double().eval()
    X = torch.ones(4, 2, dtype=torch.float64)
    if when == "before":
        m[1].running_var.fill_(value)
        with pytest.raises(ValueError, match="running_var"):
            flat_forward(m)
    else:
        theta, f = flat_forward(m)
        assert f(theta, X).shape == (4, 1)
        m[1].running_var.fill_(value)
        with pytest.raises(ValueError, match="running_var"):
            f(theta, X)


def test_flat_forward_keeps_a_minus_inf_mask_buffer():
    from algorithms.nets import flat_forward

    class Masked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3).double()
            self.register_buffer("mask", torch.full((3, 3), -math.inf, dtype=torch.float64).triu(1))

        def forward(self, X):
            return self.lin(X) @ torch.softmax(self.mask, dim=-1)

    theta, f = flat_forward(Masked())
    assert bool(torch.isfinite(f(theta, torch.ones(2, 3, dtype=torch.float64))).all())


def _training_subclass(body):
    import dataclasses

    import numpy as np

    from algorithms.nets.gradient_flow import TwoLayerTraining
    from algorithms.nets.neural_collapse import orthogonally_separable_data

    @dataclasses.dataclass(frozen=True, eq=False)
    class Sub(TwoLayerTraining):
        def loss_and_grad(self, theta, X=None):
            calls = self.__dict__.setdefault("_calls", [0])
            calls[0] += 1
            return body(self, theta, X, calls[0], np, TwoLayerTraining)

    X, y = orthogonally_separable_data(4, 8, n_classes=2, seed=0)
    return Sub(X=X, y=y, width=8, init_scale=1e-2)


def _flow_algorithms():
    from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow

    return [GradientFlow(t_end=20.0, n_records=4, rtol=1e-4),
            GradientDescentTraining(lr=0.5, t_end=2000.0, n_records=4)]


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("which", [0, 1])
def test_a_loss_and_grad_override_turning_nan_mid_run_is_diverged(k, which):
    # GradientFlow ended Failure on a NaN gradient from the user's override (README: Diverged)
    from algorithms import solve
    from algorithms.core import RetCode

    problem = _training_subclass(lambda s, th, X, n, np, base: (1.0, np.full_like(th, np.nan)) if n > k
                                 else base.loss_and_grad(s, th, X))
    assert solve(problem, _flow_algorithms()[which], maxiters=50).retcode == RetCode.Diverged


@pytest.mark.parametrize(("body", "error", "words"), [
    (lambda s, th, X, n, np, base: (1.0, np.zeros(th.size - 1)), ValueError, "theta's shape"),
    (lambda s, th, X, n, np, base: (1.0, [0.0] * th.size), TypeError, "float numpy array"),
    (lambda s, th, X, n, np, base: ("x", np.zeros_like(th)), TypeError, "real number"),
    (lambda s, th, X, n, np, base: None, TypeError, "pair"),
])
@pytest.mark.parametrize("which", [0, 1])
def test_a_loss_and_grad_override_answering_the_wrong_kind_is_named(body, error, words, which):
    # a gradient one entry short or a list was taken (Stalled), a str loss gave Success (red23a)
    from algorithms import solve

    with pytest.raises(error, match=rf"loss_and_grad.*{words}"):
        solve(_training_subclass(body), _flow_algorithms()[which], maxiters=50)


def _writes_theta(t):
    value = (t ** 2).sum() + t[0] * t[1] ** 3
    with torch.no_grad():
        t.data[0] = 9.0     # after using it: every later evaluation saw another point
    return value


def _sample_loss_writes_x(t, x, y):
    value = ((t * x).sum() - y) ** 2
    with torch.no_grad():
        x.data[0] = 9.0
    return value


_TH = torch.tensor([0.3, -0.2, 0.5], dtype=torch.float64)
_X = torch.linspace(-1.0, 1.0, 12, dtype=torch.float64).reshape(4, 3)
_Y = torch.tensor([0.1, -0.2, 0.3, 0.4], dtype=torch.float64)
_V = torch.tensor([1.0, 2.0, -1.0], dtype=torch.float64)


@pytest.mark.parametrize(("call", "name"), [
    (lambda: flat_hessian(_writes_theta, _TH), "loss"), (lambda: flat_hvp(_writes_theta, _TH, _V), "loss"),
    (lambda: gd_map(_writes_theta, _TH, 0.1), "fn"), (lambda: gd_jacobian(_writes_theta, _TH, 0.1), "fn"),
    (lambda: hessian_eigenvalues(_writes_theta, _TH), "fn"),
    (lambda: exact_logabsdet(_writes_theta, _TH, 0.1), "fn"),
    (lambda: singular_step_sizes(_writes_theta, _TH), "fn"),
    (lambda: gd_logabsdet_slq(_writes_theta, _TH, 0.1), "fn"),
    (lambda: per_sample_flat_grads(_sample_loss_writes_x, _TH, _X, _Y), "sample_loss"),
])
def test_a_callable_writing_into_the_point_it_is_given_is_refused(call, name):
    # red23a: the derivatives were taken at the moved point in silence (gd_jacobian met torch's error)
    given = (_TH.clone(), _V.clone())
    with pytest.raises(TypeError, match=rf"^{name} must not modify its input in place: it wrote"):
        call()
    assert torch.equal(_TH, given[0]) and torch.equal(_V, given[1])


def test_gdmap_with_seed_none_is_seed_zero():
    # red23a: StrictSaddle's start drew fresh OS entropy for seed=None (two runs differed), undocumented
    import numpy as np

    from algorithms import solve
    from algorithms.nets.gd_map import GDMap, StrictSaddle

    problem = StrictSaddle(a=[1.0], b=[2.0])
    runs = [solve(problem, GDMap(lr=0.1), seed=seed, maxiters=3).x for seed in (None, None, 0)]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])


@pytest.mark.parametrize(("x", "g", "lr"), [(1e-30, 1e-20, 1e-10), (1.0, 1.0, 1.0 - 2.0 ** -53),
                                            (3e38, 1e38, 3.0)])
def test_gd_map_is_the_formulas_value_where_theta_and_the_step_cancel(x, g, lr):
    # heldout23's gd_step class: lr·∇fn rounded before the subtraction (1.75e-46 for 1.02e-46)
    from fractions import Fraction

    theta = torch.tensor([x, 0.5], dtype=torch.float64)
    out = gd_map(lambda t: g * t[0] + 0.0 * t[1], theta, lr)
    assert float(out[0]) == float(Fraction(x) - Fraction(lr) * Fraction(g)) and float(out[1]) == 0.5


@pytest.mark.parametrize(("lr", "h"), [(0.1, 10.0), (1 / 3, 3.0), (1 / 7, 7.0), (1e-10, 1e10)])
def test_the_gd_map_jacobian_and_logdet_are_exact_where_one_and_lr_h_cancel(lr, h):
    # red23a: 1 − lr·h rounded to 0 (a "singular" map, sign 0) where the exact value is ±5e-17-ish
    from fractions import Fraction

    exact = float(1 - Fraction(lr) * Fraction(h))
    theta = torch.zeros(1, dtype=torch.float64)
    fn = lambda t: 0.5 * h * (t ** 2).sum()  # noqa: E731
    assert float(gd_jacobian(fn, theta, lr)[0, 0]) == exact
    for method in ("slogdet", "eigvalsh"):
        sign, logdet = exact_logabsdet(fn, theta, lr, method=method)
        assert sign == math.copysign(1.0, exact) and logdet == pytest.approx(math.log(abs(exact)), rel=1e-12)


@pytest.mark.parametrize(("top", "lr"), [(5.0, 0.4), (10.0, 0.2), (20.0, 0.1)])
def test_gd_stable_decides_on_the_exact_product(top, lr):
    # red23a: 0.4·5 rounded to 2.0 passed "<= 2"; 0.4 is 0.40000000000000002
    import numpy as np

    from algorithms.nets.stability import gd_stable

    assert gd_stable(np.diag([top, 1.0]), lr) is False
    assert gd_stable(np.diag([top, 1.0]), 2.0 / top * (1 - 2.0 ** -52)) is True


def test_dexter_divergence_condition_decides_its_boundary_exactly():
    # λ_max = 1.5, σ = 1: the boundary η = 2/3 is not a float; fl(2/3)·1.5 < 1 exactly, so not divergent
    # (the rounded quotient 1/fl(2/3) = 1.5 said divergent)
    import numpy as np

    from algorithms.nets.stability import dexter_divergence_condition

    H = np.stack([np.diag([3.0, 0.0]), np.diag([0.0, 1.0])])
    below = 2.0 / 3.0
    assert dexter_divergence_condition(H, lr=below, batch_size=1) is False
    assert dexter_divergence_condition(H, lr=float(np.nextafter(below, 1.0)), batch_size=1) is True
