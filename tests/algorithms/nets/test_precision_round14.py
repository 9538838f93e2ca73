"""Round 14: valid inputs at their domains' extremes, answered right (mpmath / fractions references)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import torch

from algorithms.nets.lp_training import smoothed_lp
from algorithms.nets.stability import (
    batch_moment_coefficients,
    critical_step_size,
    dexter_divergence_condition,
)


def _exact_coefficients(n: int, B: int, sampling: str) -> tuple[Fraction, Fraction]:
    if sampling == "with_replacement":
        return 1 - Fraction(1, B), Fraction(1, B)
    if sampling == "bernoulli":
        return Fraction(1), Fraction(1, B) - Fraction(1, n)
    if n == 1:
        return Fraction(1), Fraction(0)
    return Fraction(n * (B - 1), B * (n - 1)), Fraction(n - B, B * (n - 1))


@pytest.mark.parametrize("sampling", ["with_replacement", "bernoulli", "without_replacement"])
@pytest.mark.parametrize("n, B", [(10, 3), (2**60, 2**60 - 1), (2**63 - 1, 2**63 - 2), (2**53 + 1, 2**53),
                                  (2**63 - 1, 1), (7, 7), (1, 1)])
def test_batch_moment_coefficients_are_correctly_rounded(n, B, sampling):
    # 1/B - 1/n cancelled to 0 for B = n - 1 near 2**60 (Bernoulli's b): a finite wrong answer
    got = batch_moment_coefficients(n, B, sampling)
    want = _exact_coefficients(n, B, sampling)
    for g, w in zip(got, want, strict=True):
        assert g == float(w), (n, B, sampling, got, want)


def _diagonal_critical_step(diagonals: np.ndarray, a: float, b: float, level: float) -> mpmath.mpf:
    """η* of commuting diagonal Hessians at 60 digits: T acts on each entry X_jk by the scalar
    1 − η(h̄_j + h̄_k) + η²(a h̄_j h̄_k + b·mean_i h_ij h_ik); η* is where the largest |scalar| reaches level."""
    mpmath.mp.dps = 60
    h = [[mpmath.mpf(float(x)) for x in row] for row in diagonals]
    n, d = len(h), len(h[0])
    mean = [sum(h[i][j] for i in range(n)) / n for j in range(d)]

    def radius(eta):
        return max(abs(1 - eta * (mean[j] + mean[k]) + eta**2 * (
            mpmath.mpf(a) * mean[j] * mean[k] + mpmath.mpf(b) * sum(h[i][j] * h[i][k] for i in range(n)) / n))
            for j in range(d) for k in range(d))

    lo, hi = mpmath.mpf(0), 1 / max(mean)
    while radius(hi) <= level:
        hi *= 2
    # the minimum of the convex radius, then the right end of {radius <= level}
    a_, b_ = lo, hi
    for _ in range(300):
        m1, m2 = a_ + (b_ - a_) / 3, b_ - (b_ - a_) / 3
        if radius(m1) <= radius(m2):
            b_ = m2
        else:
            a_ = m1
    left, right = a_, hi
    for _ in range(300):
        mid = (left + right) / 2
        if radius(mid) <= level:
            left = mid
        else:
            right = mid
    return left


@pytest.mark.parametrize("scale", [1.0, 1e-30, 1e-100, 1e-300, 1e30, 1e38])
@pytest.mark.parametrize("sampling, level", [("without_replacement", 1.0), ("bernoulli", 1.0),
                                             ("with_replacement", 2.0)])
def test_critical_step_size_at_every_scale(scale, sampling, level):
    # Hessians of 1e-100 made the search step to 1e100, which its own step check refused naming lr
    diagonals = np.array([[2.0, 0.5], [0.3, 1.0], [1.0, 1.0]])
    H = scale * np.stack([np.diag(row) for row in diagonals])
    a, b = batch_moment_coefficients(3, 2, sampling)
    want = _diagonal_critical_step(scale * diagonals, a, b, level)
    got = critical_step_size(H, 2, sampling=sampling, level=level)
    assert got is not None
    assert abs(mpmath.mpf(got) - want) <= 1e-10 * want, (scale, got, want)


def test_critical_step_size_large_sam_ratio_is_bracketed_on_the_effective_stack():
    # with rho/alpha * lambda ~ 1e38 the bracket started from 4/lambda_max(H), far past the effective
    # stack's eta*, and the search answered None (no stable step) for a family with one
    diagonals = np.array([[2.0, 0.5], [0.3, 1.0]])
    s, rho = 1.5e38, 0.5
    H = s * np.stack([np.diag(row) for row in diagonals])
    mean = diagonals.mean(axis=0) * s
    effective = (s * diagonals) * (1 + rho * mean)          # M H_i with M = I + rho H (commuting, diagonal)
    a, b = batch_moment_coefficients(2, 1)
    want = _diagonal_critical_step(effective, a, b, 1.0)
    got = critical_step_size(H, 1, rho=rho)
    assert got is not None and abs(mpmath.mpf(got) - want) <= 1e-9 * want, (got, want)


def test_dexter_condition_uses_the_exact_batch_ratio():
    # (n/B - 1) is computed as (n - B)/B: the threshold sigma / (lr sqrt(n/B - 1)) at its boundary
    H = np.stack([np.diag([2.0, 0.0]), np.diag([0.0, 2.0]), np.diag([1.0, 1.0])])
    # sigma and lambda_max of this family: threshold = sigma / (lr * sqrt(2)) for n = 3, B = 1
    assert dexter_divergence_condition(H, lr=1e6, batch_size=1) is True
    assert dexter_divergence_condition(H, lr=1e-6, batch_size=1) is False


def _smoothed_reference(t, p, eps) -> mpmath.mpf:
    mpmath.mp.dps = 800      # the reference itself cancels: (t² + ε²)^{p/2} − ε^p with t ≪ ε
    return mpmath.fsum((mpmath.mpf(float(x)) ** 2 + mpmath.mpf(eps) ** 2) ** (mpmath.mpf(p) / 2)
                       - mpmath.mpf(eps) ** mpmath.mpf(p) for x in t)


@pytest.mark.parametrize("t", [[1e-10], [4.0, 0.0], [1e-30], [3.4e38], [1.2e-38], [-2.5, 1e-20, 7e5]])
@pytest.mark.parametrize("p", [1.0, 0.5, 1e-8, 1.2e-38])
@pytest.mark.parametrize("eps", [1.0, 1e-12, 1.2e-38, 3.4e38])
def test_smoothed_lp_matches_mpmath(t, p, eps):
    # (t² + ε²)^{p/2} − ε^p cancelled to 0 for |t| ≪ ε (t = 1e-10, ε = 1: 5e-21) and for tiny p
    want = _smoothed_reference(t, p, eps)
    for got in (smoothed_lp(np.array(t), p, eps), smoothed_lp(torch.tensor(t, dtype=torch.float64), p, eps)):
        assert abs(mpmath.mpf(float(got)) - want) <= 1e-14 * abs(want) + mpmath.mpf("1e-320"), (got, want)
    got32 = smoothed_lp(torch.tensor(t, dtype=torch.float32), p, eps)
    assert got32.dtype == torch.float32
    if float(want) < 3.4e38:
        assert float(got32) == pytest.approx(float(want), rel=1.2e-7, abs=1.5e-45)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("eps", [1e-3, 1.2e-38, 1.0])
def test_smoothed_lp_gradient_is_finite_and_exact(dtype, eps):
    t = torch.tensor([0.0, 1e-30, 1e-10, 0.3, -5.0, 1e10], dtype=dtype, requires_grad=True)
    smoothed_lp(t, 0.5, eps).backward()
    assert torch.isfinite(t.grad).all()
    x = t.detach().double()
    exact = 0.5 * x * (x * x + eps * eps) ** (0.5 / 2 - 1)
    torch.testing.assert_close(t.grad.double(), exact, rtol=1e-6 if dtype == torch.float32 else 1e-12, atol=0)


_LAMS = [2.0, -1.0, 0.5, 3e-5]


def _quadratic(t: torch.Tensor) -> torch.Tensor:
    return 0.5 * (torch.tensor(_LAMS, dtype=t.dtype) * t**2).sum()


@pytest.mark.parametrize("method", ["slogdet", "eigvalsh"])
@pytest.mark.parametrize("lr", [1.2e-38, 1e-20, 1e-8, 0.1, 0.4, 3.0, 1e10, 3.4e38])
def test_exact_logabsdet_keeps_relative_accuracy_at_every_step(method, lr):
    # log det(I − ηH) for η = 1.2e-38 is −η·tr H ≈ −1.8e-38; the LU (and log(1 − ηλ)) answered 0.0
    from algorithms.nets.gd_map import exact_logabsdet

    mpmath.mp.dps = 60
    want = mpmath.fsum(mpmath.log(abs(1 - mpmath.mpf(lr) * mpmath.mpf(lam))) for lam in _LAMS)
    sign, got = exact_logabsdet(_quadratic, torch.zeros(4, dtype=torch.float64), lr, method=method)
    want_sign = float(mpmath.sign(mpmath.fprod(1 - mpmath.mpf(lr) * mpmath.mpf(lam) for lam in _LAMS)))
    assert sign == want_sign
    assert abs(mpmath.mpf(got) - want) <= 1e-14 * abs(want), (got, want)


@pytest.mark.parametrize("dtype, scale", [(torch.float32, 1e20), (torch.float32, 1e30),
                                          (torch.float64, 1e160)])
def test_sam_step_with_gradients_whose_squares_overflow(dtype, scale):
    # ‖g‖ of float32 gradients of 2e20 overflowed to inf: ε = 0 and the step was plain SGD's, under a
    # warning about NaN/inf gradients that were not there
    import warnings

    from algorithms.nets import SAM

    theta = np.array([1.0, -2.0])
    lr, rho = max(1e-2 / scale, 1.2e-38), 0.05
    g = 2 * scale * theta
    perturbed = theta + rho * g / (np.linalg.norm(theta) * 2 * scale + 1e-12)
    want = theta - lr * 2 * scale * perturbed
    w = torch.nn.Parameter(torch.tensor(theta, dtype=dtype))
    opt = SAM([w], lr=lr, rho=rho)

    def closure():
        opt.zero_grad()
        loss = (scale * w**2).sum()
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step(closure)
    rtol = 1e-6 if dtype == torch.float32 else 1e-13
    np.testing.assert_allclose(w.detach().double().numpy(), want, rtol=rtol)


@pytest.mark.parametrize("x, y, fewest", [([0, 1e-3, 2e6, 3e6], [0, 0, 1, 0], 2),
                                          ([0, 1e-6, 1e4, 2e4, 2e4 + 1e-6], [0, 1e-9, 1, 0, 3e-10], 2),
                                          ([-3e6, -2e6, 0, 1e-3], [0, 1, 0, 0], 2)])
def test_sparse_interpolants_keep_real_curvature_of_uneven_gaps(x, y, fewest):
    # the zero threshold 1e-9·max|y|/min gap zeroed a real curvature of 5e-7 when gaps differ by 1e9: the
    # DP's "interpolant" missed y by 1 with Success, the knot count came out 1 for 2
    from fractions import Fraction as F

    from algorithms import solve
    from algorithms.nets.sparse_interpolation import (
        CPWL,
        BruteForceVp,
        InterpolationProblem,
        SparsestInterpolantDP,
        discrete_curvature,
        min_knots_slope_dp,
    )

    xs, ys = [F(v) for v in x], [F(v) for v in y]
    slopes = [(ys[i + 1] - ys[i]) / (xs[i + 1] - xs[i]) for i in range(len(x) - 1)]
    exact = [slopes[i + 1] - slopes[i] for i in range(len(x) - 2)]
    np.testing.assert_allclose(discrete_curvature(x, y), [float(d) for d in exact], rtol=1e-12, atol=0)
    assert min_knots_slope_dp(x, y) == fewest       # by hand: two sign changes of the curvature each
    scale = max(abs(v) for v in y)
    knots = []
    for algorithm in (SparsestInterpolantDP(), BruteForceVp()):
        sol = solve(InterpolationProblem(x=x, y=y, p=0.5), algorithm)
        f = CPWL.from_vector(sol.x)
        assert sol.retcode.name == "Success"
        assert max(abs(float(f(t)) - v) for t, v in zip(x, y, strict=True)) <= 1e-12 * scale
        knots.append(f.num_knots)
    assert knots[0] == knots[1] == min_knots_slope_dp(x, y)


@pytest.mark.parametrize("lr", [0.5, 1e-3, 1e-9, 1e-12, 1e-16, 1e-20, 1.2e-38])
@pytest.mark.parametrize("sampling", ["without_replacement", "bernoulli"])
def test_perturbed_stationary_moment_at_tiny_steps(lr, sampling):
    # (I − T) was formed as I − K: at lr = 1e-12 the moment kept 5 digits, at 1e-16 it was 3.5 % off and at
    # 1e-20 the radius rounded to 1 and the answer was None (no moment) for a contracting iteration
    from algorithms.nets.stability import perturbed_stationary_moment

    mpmath.mp.dps = 60
    diagonals = [[2.0, 0.5], [0.3, 1.0]]
    H = np.stack([np.diag(row) for row in diagonals])
    a, b = batch_moment_coefficients(2, 1, sampling)
    X = perturbed_stationary_moment(H, lr, 1, 1.0, sampling=sampling)
    eta = mpmath.mpf(lr)
    for j in range(2):
        mean = sum(mpmath.mpf(row[j]) for row in diagonals) / 2
        second = sum(mpmath.mpf(row[j]) ** 2 for row in diagonals) / 2
        c = 1 - 2 * eta * mean + eta**2 * (mpmath.mpf(a) * mean**2 + mpmath.mpf(b) * second)   # T on X_jj
        want = c / (1 - c)           # X = T(X + I) on the diagonal (off-diagonal entries stay 0)
        assert abs(mpmath.mpf(float(X[j, j])) - want) <= 1e-12 * want, (j, X[j, j], want)
    assert X[0, 1] == 0.0


@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e-305, 1e-320])
def test_restrict_to_range_is_relative_at_every_scale(scale):
    # a floor of 1e-300 on the null threshold emptied the range of a rank-1 stack of 1e-305
    from algorithms.nets.stability import restrict_to_range

    H = scale * np.stack([np.diag([1.0, 0.0]), np.diag([3.0, 0.0])])
    assert restrict_to_range(H).shape == (2, 1, 1)
    assert restrict_to_range(0.0 * H).shape == (2, 0, 0)


@pytest.mark.parametrize("scales", [(1.0, 1.0), (1e-200, 1e30), (1e-150, 1e30), (3e37, 1e-30),
                                    (1e-300, 1e-300), (1e-300, 1.0)])
def test_coherence_matrix_of_a_stack_spanning_many_scales(scales):
    # one common scale underflowed the products of the small matrix: S_11 = 0 for a stack of 1e-200 and 1e30
    from algorithms.nets.stability import coherence_matrix

    mpmath.mp.dps = 50
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    B = np.array([[1.0, -0.2], [-0.2, 3.0]])
    H = np.stack([scales[0] * A, scales[1] * B])
    S = coherence_matrix(H)
    for i in range(2):
        for j in range(2):
            want = mpmath.sqrt(mpmath.fsum(mpmath.mpf(float(x)) * mpmath.mpf(float(y))
                                           for x, y in zip(H[i].ravel(), H[j].T.ravel(), strict=True)))
            assert abs(mpmath.mpf(float(S[i, j])) - want) <= 1e-14 * want, (i, j, S[i, j], want)


@pytest.mark.parametrize("scale", [1e-12, 1e-6, 1.0, 1e6])
def test_network_to_cpwl_keeps_distinct_knots_at_every_scale(scale):
    # the default merge_tol 1e-9·max(1, max|t|) merged knots at 1e-12 and 3e-12 into one: another function
    from algorithms.nets.sparse_interpolation import network_to_cpwl

    f = network_to_cpwl(np.array([1.0, 1.0]), np.array([-1.0, -3.0]) * scale, np.array([1.0, -1.0]))
    assert f.num_knots == 2
    x = np.array([0.0, 2.0, 4.0]) * scale
    np.testing.assert_allclose(f(x), np.maximum(x - scale, 0.0) - np.maximum(x - 3 * scale, 0.0), rtol=1e-15,
                               atol=0)
    same = network_to_cpwl(np.array([1.0, 3.0]), np.array([-1.0, -3.0]) * scale, np.array([1.0, 1.0]))
    assert same.num_knots == 1      # two neurons built for one knot (-b/w rounded) still merge


@pytest.mark.parametrize("hessians, lr, want", [
    (np.diag([1e-10, -1e-10])[None], 1.0, (1 + 1e-10) ** 2),              # H̄'s negative eigenvalue dropped
    (np.stack([np.diag([1.0, -1.0]), np.diag([-1.0, 1.0])]), 0.5, 1.25),  # H̄ = 0 though no H_i is 0
])
def test_mean_square_radius_of_an_indefinite_stack_restricts_to_the_common_range(hessians, lr, want):
    # ρ = 0 takes indefinite Hessians; the restriction to H̄'s range dropped negative eigenvalues as null
    # (radius (1 − ηλ)² for a growing (1 + ηλ)²) and, for H̄ = 0, everything (radius 1)
    from algorithms.nets.stability import mean_square_radius

    for restrict in (True, False):
        got = mean_square_radius(hessians, lr, 1, restrict_to_range=restrict)
        assert got == pytest.approx(want, rel=1e-14, abs=0)


@pytest.mark.parametrize("loss", ["exponential", "logistic"])
@pytest.mark.parametrize("margin", [3.0, -700.5, -705.0, 705.0, 745.0])
def test_two_layer_training_loss_at_large_margins(loss, margin):
    # the public loss capped exp(−margin) at exp(700): a margin of −705 reported exp(700), 150x low; the
    # logistic derivative 1/(1 + e^min(margin, 700)) was 1e-304 where it is e^−margin
    from algorithms.nets.gradient_flow import TwoLayerTraining

    mpmath.mp.dps = 50
    p = TwoLayerTraining(X=np.eye(2), y=[0, 1], width=2, loss=loss, hidden_bias=False)
    theta = np.array([1.0, 0.0, 0.0, 1.0, margin, -margin])     # W = I, both samples at this margin
    m = mpmath.mpf(margin)
    want = mpmath.exp(-m) if loss == "exponential" else mpmath.log1p(mpmath.exp(-m))
    value, grad = p.loss_and_grad(theta)
    assert abs(mpmath.mpf(value) - want) <= 1e-14 * want + mpmath.mpf("5e-324")    # subnormal: one ulp
    assert p.loss_value(theta) == value
    slope = mpmath.exp(-m) if loss == "exponential" else 1 / (1 + mpmath.exp(m))    # |dℓ/d margin|
    assert abs(mpmath.mpf(abs(float(grad[-2]))) - slope / 2) <= 1e-14 * slope / 2 + mpmath.mpf("5e-324")
