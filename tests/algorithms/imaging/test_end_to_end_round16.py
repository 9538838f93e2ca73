"""Round 16: imaging end to end against hand-written references (valid inputs, documented formulas)."""

from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.imaging import (
    InverseProblem,
    LinearOperator,
    MatrixOperator,
    NullSpaceNet,
    PnPADMM,
    PnPPGD,
    SubspacePrior,
    TVPrior,
    qr_null_rows,
    ssim,
)


@pytest.mark.parametrize("c", [1.0, 1e-20, 1e-100, 1e20])
def test_null_space_net_is_its_documented_formula(c):
    """G(y) = S(z + CNN(z)), z = Hᵀy/‖H‖²: ‖H‖ was floored at 1e-12, so an H of norm 6e-20 scaled Hᵀy by
    1e24 instead of 2.7e38 and G(y) was 30-50 % off in silence."""
    gen = torch.Generator().manual_seed(0)
    M = torch.randn(6, 16, generator=gen, dtype=torch.float64) * c
    H = MatrixOperator(M, (4, 4))
    S = qr_null_rows(H, 4, seed=0)
    G = NullSpaceNet(H, S, channels=8, depth=3, seed=0).double()
    X = torch.randn(3, 6, generator=gen, dtype=torch.float64) * c
    with torch.no_grad():
        out = G(X)
        norm = H.norm()
        z = (X @ M).reshape(3, 4, 4) / norm / norm
        expected = (z + G.body(z[:, None])[:, 0]).reshape(3, 16) @ S.matrix().T
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12 * float(expected.abs().max()))


def _problem():
    gen = torch.Generator().manual_seed(1)
    M = torch.randn(10, 16, generator=gen, dtype=torch.float64) / 4
    U, _ = torch.linalg.qr(torch.randn(16, 6, generator=gen, dtype=torch.float64))
    x = (U @ torch.randn(6, generator=gen, dtype=torch.float64)).reshape(4, 4)
    H = MatrixOperator(M, (4, 4))
    return InverseProblem(H, H(x)), M, U


@pytest.mark.parametrize("algorithm", [PnPPGD(prior=TVPrior(weight=1e-2), lr=0.3),
                                       PnPADMM(prior=TVPrior(weight=1e-2), penalty=0.5)])
def test_callback_true_on_the_converged_record_is_terminated(algorithm):
    """A True on the record that also met tol ended Success (core: a True stops with Terminated)."""
    problem, _, _ = _problem()
    base = solve(problem, algorithm, store_trace=True, maxiters=5000)
    assert base.retcode is RetCode.Success
    last = len(base.trace)
    seen = []
    sol = solve(problem, algorithm, maxiters=5000, callback=lambda r: (seen.append(r), len(seen) == last)[1])
    assert sol.retcode is RetCode.Terminated and len(seen) == last


@pytest.mark.parametrize("scale", [1.0, 1e-30, 1e30])
def test_pgd_and_admm_match_their_update_rules(scale):
    problem, M, U = _problem()
    y = problem.y.reshape(-1) * scale
    problem = InverseProblem(problem.operator, problem.y * scale)
    prior = SubspacePrior(U, (4, 4))
    lr, beta, k = 0.5, 0.7, 10
    x = torch.zeros(16, dtype=torch.float64)
    for _ in range(k):
        x = U @ (U.T @ (x - lr * M.T @ (M @ x - y)))
    sol = solve(problem, PnPPGD(prior=prior, lr=lr), maxiters=k, tol=1.2e-38)
    torch.testing.assert_close(torch.as_tensor(sol.x).reshape(-1), x, rtol=1e-12, atol=0.0)
    x, z, u = (torch.zeros(16, dtype=torch.float64) for _ in range(3))
    normal = M.T @ M + beta * torch.eye(16, dtype=torch.float64)
    for _ in range(k):
        x = torch.linalg.solve(normal, M.T @ y + beta * (z - u))
        z = U @ (U.T @ (x + u))
        u = u + x - z
    sol = solve(problem, PnPADMM(prior=prior, penalty=beta, cg_iters=200), maxiters=k, tol=1.2e-38)
    torch.testing.assert_close(torch.as_tensor(sol.x).reshape(-1), z, rtol=1e-10,
                               atol=1e-10 * float(z.abs().max()))


class _Mutating(LinearOperator):
    """A user's operator whose maps write into their argument (and undo it in their output)."""

    def __init__(self, M):
        self.image_shape, self.measurement_shape, self._M = (4, 4), (M.shape[0],), M

    def _forward(self, x):
        x.mul_(2.0)
        return (x.reshape(x.shape[0], -1) @ self._M.T) / 2

    def _adjoint(self, y):
        y.mul_(3.0)
        return ((y @ self._M) / 3).reshape(y.shape[0], 4, 4)


def test_user_operator_writing_into_its_input_changes_nothing():
    """The subclass got the caller's tensor (a view of it): H(x) doubled the caller's x, and the problem's
    dot-product test refused the operator blaming _adjoint."""
    problem, M, _ = _problem()
    H = _Mutating(M)
    x = torch.ones(4, 4, dtype=torch.float64)
    torch.testing.assert_close(H(x), M @ torch.ones(16, dtype=torch.float64))
    assert torch.equal(x, torch.ones(4, 4, dtype=torch.float64))
    mine = solve(InverseProblem(H, problem.y), PnPPGD(prior=TVPrior(weight=1e-3), lr=0.3), maxiters=20)
    ref = solve(problem, PnPPGD(prior=TVPrior(weight=1e-3), lr=0.3), maxiters=20)
    np.testing.assert_allclose(mine.x, ref.x, rtol=1e-10, atol=1e-12)  # y·3/3: rounding only


@pytest.mark.parametrize("algorithm", ["pgd", "admm"])
@pytest.mark.parametrize("scale", [1e-30, 1e30])
def test_divergence_verdict_does_not_depend_on_the_units(algorithm, scale):
    """The blow-up threshold 1e8·max(1, ‖Hᵀy‖) was absolute below unit scale: data of size 1e-30 grew by 1e35
    and ended MaxIters where the same run in unit scale was Diverged (red16a)."""
    from algorithms.imaging import gaussian_cs

    H = gaussian_cs((8, 8), 0.5, seed=0)
    x = torch.zeros(8, 8, dtype=torch.float64)
    x[2:6, 2:6] = 1.0
    make = (lambda: PnPPGD(prior=TVPrior(weight=0.0), lr=5.0 / H.norm() ** 2)) if algorithm == "pgd" else \
        (lambda: PnPADMM(prior=TVPrior(weight=0.0), penalty=1e-3, cg_iters=1))
    unit = solve(InverseProblem(H, H(x)), make(), maxiters=200)
    scaled = solve(InverseProblem(H, H(x) * scale), make(), maxiters=200)
    assert scaled.retcode is unit.retcode and scaled.stats.iterations == unit.stats.iterations


def _exact_ssim(x: np.ndarray, y: np.ndarray, data_range: float) -> float:
    """skimage's mean SSIM (uniform 7×7 windows, sample covariances, border of 3 left out) in Fractions."""
    c1, c2 = (Fraction(1, 100) * Fraction(data_range)) ** 2, (Fraction(3, 100) * Fraction(data_range)) ** 2
    norm = Fraction(49, 48)
    values = []
    for i in range(3, x.shape[0] - 3):
        for j in range(3, x.shape[1] - 3):
            wx = [Fraction(v) for v in x[i - 3:i + 4, j - 3:j + 4].ravel().tolist()]
            wy = [Fraction(v) for v in y[i - 3:i + 4, j - 3:j + 4].ravel().tolist()]
            ux, uy = sum(wx) / 49, sum(wy) / 49
            vx = norm * (sum(a * a for a in wx) / 49 - ux * ux)
            vy = norm * (sum(b * b for b in wy) / 49 - uy * uy)
            vxy = norm * (sum(a * b for a, b in zip(wx, wy, strict=True)) / 49 - ux * uy)
            values.append((2 * ux * uy + c1) * (2 * vxy + c2) / ((ux * ux + uy * uy + c1) * (vx + vy + c2)))
    return float(sum(values) / len(values))


@pytest.mark.parametrize("shift", [lambda x, n: x + 1e8, lambda x, n: 1e30 + x, lambda x, n: -x - 1e8,
                                   lambda x, n: x + 3.0 + 0.1 * n, lambda x, n: x * 1e-20])
def test_ssim_matches_its_formula_in_exact_arithmetic(shift):
    """SSIM of images far apart (x in [0, 1) against x + 1e8) was 2.7e-9 for an exact 1.1e-8: the
    variances of x were taken after subtracting y's median, and cancelled to noise."""
    rng = np.random.default_rng(0)
    x = rng.random((10, 9))
    y = shift(x, rng.standard_normal(x.shape))
    assert ssim(x, y) == pytest.approx(_exact_ssim(x, y, 1.0), rel=1e-12)
    assert ssim(y, x) == pytest.approx(_exact_ssim(y, x, 1.0), rel=1e-12)
