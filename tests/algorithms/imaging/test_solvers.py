"""Unit tests of PnP-PGD and PnP-ADMM: fixed points, the NPN term's effect, retcodes, dtype."""

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.imaging import NPN, Blur, InverseProblem, PnPADMM, PnPPGD, SubspacePrior, TVPrior, psnr
from tests.algorithms.imaging._instances import Planted, cs_problem, oracle_npn, square

torch.set_num_threads(1)
DT = torch.float64


def test_pgd_step_is_the_update_rule():
    problem, x = cs_problem()
    npn = oracle_npn(problem, x, gamma=0.7)
    algorithm = PnPPGD(prior=TVPrior(weight=0.0), lr=0.3, npn=npn)
    z = torch.randn(8, 8, dtype=DT)
    H, S = problem.operator.weight, npn.projection.weight
    g = npn.predict(problem.y)
    flat = z.reshape(-1)
    expected = flat - 0.3 * (H.T @ (H @ flat - problem.y) + 0.7 * S.T @ (S @ flat - g))
    torch.testing.assert_close(algorithm.step(problem, z, g).reshape(-1), expected)


def test_pgd_without_prior_converges_to_least_squares_solution():
    H = Blur((8, 8), 0.6)
    x = square()
    sol = solve(InverseProblem(H, H(x)), PnPPGD(prior=TVPrior(weight=0.0), lr=1.0), tol=1e-10, maxiters=20000)
    assert sol.retcode is RetCode.Success
    np.testing.assert_allclose(sol.x, x.numpy(), atol=1e-6)  # a mild blur is invertible


def test_oracle_npn_recovers_cs_image_exactly():
    """With G(y) = Sx and [H; S] of full rank, the NPN fixed point is x itself."""
    problem, x = cs_problem(ratio=0.5)
    npn = oracle_npn(problem, x, gamma=1.0, p=32)
    for algorithm in (PnPPGD(prior=TVPrior(weight=0.0), lr=0.5, npn=npn),
                      PnPADMM(prior=TVPrior(weight=0.0), penalty=0.1, npn=npn, cg_iters=50)):
        sol = solve(problem, algorithm, tol=1e-9, maxiters=20000)
        assert sol.retcode is RetCode.Success
        np.testing.assert_allclose(sol.x, x.numpy(), atol=1e-5)
        assert sol.value == pytest.approx(0.0, abs=1e-8)


def test_npn_helps_and_zero_network_hurts():
    problem, x = cs_problem(ratio=0.3)
    tv = TVPrior(weight=0.01, inner=5)
    base = solve(problem, PnPPGD(prior=tv, lr=0.5), maxiters=150)
    good = solve(problem, PnPPGD(prior=tv, lr=0.5, npn=oracle_npn(problem, x, 1.0, 32)), maxiters=150)
    S = oracle_npn(problem, x).projection
    zero = NPN(S, Planted(torch.zeros(16, dtype=DT), problem.operator.out_features), 1.0)
    bad = solve(problem, PnPPGD(prior=tv, lr=0.5, npn=zero), maxiters=150)
    assert psnr(good.x, x) > psnr(base.x, x) + 3
    assert psnr(bad.x, x) < psnr(good.x, x)


def test_admm_and_pgd_agree_on_a_convex_problem():
    problem, _ = cs_problem(ratio=0.5)
    H = problem.operator
    problem = InverseProblem(H, problem.y + 0.01 * torch.randn(32, generator=torch.Generator().manual_seed(0),
                                                                dtype=DT))
    basis, _ = torch.linalg.qr(torch.randn(64, 10, generator=torch.Generator().manual_seed(1), dtype=DT))
    prior = SubspacePrior(basis, (8, 8))  # a convex set: both solve the same constrained least squares
    a = solve(problem, PnPPGD(prior=prior, lr=0.5), tol=1e-10, maxiters=20000)
    b = solve(problem, PnPADMM(prior=prior, penalty=1.0, cg_iters=30), tol=1e-9, maxiters=20000)
    reference = basis @ torch.linalg.lstsq(H.matrix() @ basis, problem.y.reshape(-1)).solution
    np.testing.assert_allclose(a.x.reshape(-1), reference.numpy(), atol=1e-6)
    np.testing.assert_allclose(b.x.reshape(-1), reference.numpy(), atol=1e-5)


def test_retcodes_and_trace():
    problem, _ = cs_problem()
    prior = TVPrior(weight=0.01)
    assert solve(problem, PnPPGD(prior=prior, lr=0.5), maxiters=0).retcode is RetCode.MaxIters
    assert solve(problem, PnPPGD(prior=prior, lr=50.0), maxiters=500).retcode is RetCode.Diverged
    assert solve(problem, PnPADMM(prior=prior), maxiters=2).retcode is RetCode.MaxIters
    sol = solve(problem, PnPPGD(prior=prior, lr=0.5), maxiters=5, store_trace=True)
    assert [r["iteration"] for r in sol.trace] == [1, 2, 3, 4, 5]
    stopped = solve(problem, PnPPGD(prior=prior, lr=0.5), callback=lambda r: r["iteration"] == 3)
    assert stopped.retcode is RetCode.Terminated and stopped.stats.iterations == 3


def test_float32_kept():
    problem, _ = cs_problem(torch.float32)
    for algorithm in (PnPPGD(prior=TVPrior(weight=0.01), lr=0.5), PnPADMM(prior=TVPrior(weight=0.01))):
        assert solve(problem, algorithm, maxiters=5).x.dtype == np.float32


def test_leaking_projection_refused_unless_accepted():
    problem, x = cs_problem()
    H = problem.operator
    leaky = NPN(H, Planted(H(x), H.out_features), 1.0)  # S = H: all range, no null space
    with pytest.raises(ValueError, match="range component"):
        solve(problem, PnPPGD(prior=TVPrior(weight=0.01), npn=leaky))
    accepted = NPN(H, Planted(H(x), H.out_features), 1.0, max_leakage=1.0)
    assert solve(problem, PnPPGD(prior=TVPrior(weight=0.01), lr=0.3, npn=accepted), maxiters=3).retcode \
        is RetCode.MaxIters


@pytest.mark.parametrize("scale", [1.0, 1e-20])
def test_admm_x_step_is_exact_cg_and_scale_free(scale):
    # HᵀH + γSᵀS + βI with orthonormal H rows and S rows in Null(H) has 3 eigenvalues: 3 CG steps are exact;
    # an absolute exit ‖r‖² <= 1e-30 returned the start for every right-hand side below ~1e-15
    from algorithms.imaging import SubsampledHadamard, qr_null_rows
    H = SubsampledHadamard((4, 4), 0.5, seed=0)
    S = qr_null_rows(H, 3, seed=0)
    npn = NPN(S, Planted(torch.zeros(3, dtype=DT), 8), 2.0)
    admm = PnPADMM(prior=TVPrior(weight=0.1), penalty=0.5, npn=npn, cg_iters=3)
    problem = InverseProblem(H, torch.zeros(8, dtype=DT))
    system = H.matrix().T @ H.matrix() + 2.0 * S.matrix().T @ S.matrix() + 0.5 * torch.eye(16, dtype=DT)
    g = torch.Generator().manual_seed(3)
    start, rhs = torch.randn(4, 4, generator=g, dtype=DT), torch.randn(4, 4, generator=g, dtype=DT)
    exact = torch.linalg.solve(system, rhs.reshape(-1)).reshape(4, 4)
    torch.testing.assert_close(admm.x_step(problem, scale * start, scale * rhs), scale * exact,
                               rtol=1e-10, atol=0.0)
    zero = torch.zeros(4, 4, dtype=DT)
    assert torch.equal(admm.x_step(problem, zero, zero), zero)  # a zero residual: the start, no 0/0
