"""Unit tests of algorithms.nets.stability against brute force and closed forms."""

import math

import numpy as np
import pytest
import torch

from algorithms.nets import stability as st

RNG = np.random.default_rng(0)


def _hessians(n=5, d=3, rank=2, seed=0, mix=0.0):
    rng = np.random.default_rng(seed)
    G = (1 - mix) * rng.standard_normal((n, d, rank)) + mix * rng.standard_normal((d, rank))
    return G @ np.swapaxes(G, 1, 2)


@pytest.mark.parametrize("sampling", st.SAMPLINGS)
@pytest.mark.parametrize("batch", [1, 2, 4])
def test_closed_form_operator_matches_enumeration(sampling, batch):
    H = _hessians(n=4, d=3)
    lr = 0.3
    K = st.second_moment_matrix(H, lr, batch, sampling=sampling)
    W, p = st.enumerate_batches(4, batch, sampling)
    brute = sum(prob * np.kron(np.eye(3) - lr * np.tensordot(w, H, 1),
                               np.eye(3) - lr * np.tensordot(w, H, 1)) for w, prob in zip(W, p))
    np.testing.assert_allclose(K, brute, atol=1e-12)
    assert math.isclose(p.sum(), 1.0, rel_tol=1e-12)


def test_batch_coefficients_limits():
    assert st.batch_moment_coefficients(7, 7, "without_replacement") == (1.0, 0.0)
    assert st.batch_moment_coefficients(7, 1, "without_replacement") == (0.0, 1.0)
    a, b = st.batch_moment_coefficients(7, 7, "bernoulli")
    assert (a, b) == (1.0, 0.0)


@pytest.mark.parametrize("sampling", st.SAMPLINGS)
def test_methods_agree(sampling):
    H = _hessians(n=6, d=5, rank=2, seed=1)
    lr = 1.0 / np.linalg.eigvalsh(H.mean(0))[-1]
    radii = [st.mean_square_radius(H, lr, 2, sampling=sampling, method=m)
             for m in ("dense", "power", "lanczos")]
    assert max(radii) - min(radii) < 1e-7


def test_lanczos_and_power_agree_beyond_dense_range():
    H = _hessians(n=4, d=34, rank=3, seed=2)
    lr = 0.5 / np.linalg.eigvalsh(H.mean(0))[-1]
    r1 = st.mean_square_radius(H, lr, 1, method="lanczos", restrict_to_range=False)
    r2 = st.mean_square_radius(H, lr, 1, method="power", restrict_to_range=False, tol=1e-13)
    assert abs(r1 - r2) < 1e-6
    assert abs(r1 - 1.0) < 1e-9     # the common null space (rank ≤ 12 < 34) sits exactly at 1


def test_full_batch_is_gd():
    H = _hessians(n=4, d=3)
    mean = H.mean(0)
    for lr in (0.1, 1.0, 3.0):
        expected = np.abs(1 - lr * np.linalg.eigvalsh(mean)).max() ** 2
        assert math.isclose(st.mean_square_radius(H, lr, 4), expected, rel_tol=1e-10)


def test_restrict_to_range_removes_null_space():
    H = np.stack([np.diag([1.0, 0.0, 0.0]), np.diag([2.0, 0.0, 0.0])])
    assert math.isclose(st.mean_square_radius(H, 0.5, 1, restrict_to_range=False), 1.0)
    assert st.mean_square_radius(H, 0.5, 1) < 1
    assert st.restrict_to_range(H).shape == (2, 1, 1)


@pytest.mark.parametrize("sampling", st.SAMPLINGS)
def test_sam_reduction_matches_nonsymmetric_operator(sampling):
    H = _hessians(n=4, d=3, seed=3)
    lr, rho, alpha = 0.4, 0.7, 2.0
    M = np.eye(3) + (rho / alpha) * H.mean(0)
    W, p = st.enumerate_batches(4, 2, sampling)
    brute = sum(prob * np.kron(np.eye(3) - lr * np.tensordot(w, H, 1) @ M,
                               np.eye(3) - lr * np.tensordot(w, H, 1) @ M) for w, prob in zip(W, p))
    expected = np.abs(np.linalg.eigvals(brute)).max()
    got = st.mean_square_radius(H, lr, 2, sampling=sampling, rho=rho, alpha=alpha)
    assert math.isclose(got, expected, rel_tol=1e-9)
    Ht = st.sam_effective_hessians(H, rho, alpha)
    np.testing.assert_allclose(Ht.mean(0), H.mean(0) @ M, atol=1e-12)


def test_sam_coherence_entries():
    H = _hessians(n=3, d=3, seed=4)
    rho = 0.3
    M = np.eye(3) + rho * H.mean(0)
    S = st.sam_coherence_matrix(H, rho)
    for i in range(3):
        for j in range(3):
            assert math.isclose(S[i, j], math.sqrt(np.trace(M @ H[i] @ M @ H[j])), rel_tol=1e-9)


def test_coherence_extremes():
    g = np.array([1.0, 2.0, 0.5])
    same = np.stack([np.outer(g, g)] * 5)
    assert math.isclose(st.coherence_measure(same), 5.0, rel_tol=1e-12)
    orthogonal = np.stack([np.diag(e) for e in np.eye(4)])
    assert math.isclose(st.coherence_measure(orthogonal), 1.0, rel_tol=1e-12)


def test_dexter_condition_needs_coherence():
    g = np.array([1.0, 0.0])
    same = np.stack([np.outer(g, g)] * 4)          # σ = 4, no batch noise at all
    assert not st.dexter_divergence_condition(same, lr=1.5, batch_size=1)
    # without σ the threshold would be (1/η)(n/B − 1)^(-1/2) = 0.385 ≤ λ_max = 1: it would fire,
    # though this (noise-free, η λ_max = 1.5 < 2) minimum is stable
    assert 1.0 >= 1 / (1.5 * math.sqrt(4 / 1 - 1))
    assert st.mean_square_radius(same, 1.5, 1) < 1
    assert not st.dexter_divergence_condition(same, lr=1.5, batch_size=4)
    with pytest.raises(TypeError, match="use_coherence"):      # no public switch to drop σ
        st.dexter_divergence_condition(same, lr=1.5, batch_size=1, use_coherence=False)
    with pytest.raises(TypeError, match="use_coherence"):
        st.sam_divergence_condition(same, 1.5, 1, 0.1, use_coherence=False)


def test_private_radius_body_matches_brute_force_for_signed_rho():
    """``_radius`` (the body of mean_square_radius) against Σ_b p_b J_b ⊗ J_b, J_b = I − ηH_b(I + rH)."""
    H = _hessians(n=4, d=2, seed=11, mix=0.3)
    lr = 0.7 / np.linalg.eigvalsh(H.mean(0))[-1]
    lam = np.linalg.eigvalsh(H.mean(0))[-1]
    for ratio in (0.0, 0.4 / lam, -0.4 / lam):
        W, p = st.enumerate_batches(4, 2, "with_replacement")
        M = np.eye(2) + ratio * H.mean(0)
        A = sum(pi * np.kron(J, J) for pi, J in
                ((pi, np.eye(2) - lr * np.tensordot(w, H, 1) @ M) for w, pi in zip(W, p)))
        brute = np.abs(np.linalg.eigvals(A)).max()
        assert abs(st._radius(H, lr, 2, "with_replacement", ratio) - brute) < 1e-12
        if ratio >= 0:
            assert st.mean_square_radius(H, lr, 2, sampling="with_replacement", rho=ratio) == \
                st._radius(H, lr, 2, "with_replacement", ratio)


def test_simulation_matches_exact_second_moment():
    H = _hessians(n=5, d=2, seed=5, mix=0.7)
    lr = 0.5 / np.linalg.eigvalsh(H.mean(0))[-1]
    K = 6
    T = st.second_moment_matrix(H, lr, 2)
    exact = np.eye(2).reshape(-1) @ np.linalg.matrix_power(T, K) @ np.eye(2).reshape(-1) / 2
    out = st.simulate_linearized(H, lr, 2, K, replicates=20000, seed=0)
    # light-tailed case (η well inside the stable range): 20000 replicates, 3% relative error
    assert abs(math.exp(out["log_mean_sq"][-1]) / exact - 1) < 0.03


def test_simulation_full_batch_is_deterministic_power():
    H = _hessians(n=3, d=3, seed=6)
    lr = 0.2
    J = np.eye(3) - lr * H.mean(0)
    out = st.simulate_linearized(H, lr, 3, 10, replicates=2)
    expected = np.log(np.linalg.norm(np.linalg.matrix_power(J, 10)) ** 2 / 3)
    np.testing.assert_allclose(out["log_mean_sq"][-1], expected, rtol=1e-10)


def test_critical_step_size():
    H = _hessians(n=5, d=3, seed=7)
    lam = np.linalg.eigvalsh(H.mean(0))[-1]
    assert math.isclose(st.critical_step_size(H, 5), 2 / lam, rel_tol=1e-9)
    lr = st.critical_step_size(H, 1)
    assert lr < 2 / lam
    assert abs(st.mean_square_radius(H, lr, 1) - 1) < 1e-8
    assert st.mean_square_radius(H, 1.01 * lr, 1) > 1
    assert st.critical_step_size(H, 1, rho=0.5) <= lr


def test_critical_step_size_full_space_with_a_rotated_null_direction():
    # null direction (1, -1)/sqrt(2): the flat rho = 1 evaluates to 1 +- rounding on the full space;
    # the answer comes from the range (the full-space search returned 0.585 for 0.6 before the fix)
    H = np.stack([np.ones((2, 2)), 2.0 * np.ones((2, 2))])
    on_range = st.critical_step_size(H, 1)
    assert math.isclose(st.critical_step_size(H, 1, restrict_to_range=False), on_range, rel_tol=1e-12)
    assert st.critical_step_size(H, 1, level=0.999, restrict_to_range=False) is None
    assert math.isclose(on_range, 0.6, rel_tol=1e-9)


def test_perturbed_stationary_moment():
    H = _hessians(n=4, d=2, seed=8, mix=0.5)
    lr = 0.3 / np.linalg.eigvalsh(H.mean(0))[-1]
    X = st.perturbed_stationary_moment(H, lr, 2, noise_std=0.5)
    a, b = st.batch_moment_coefficients(4, 2)
    fixed = st.second_moment_apply(H, X + 0.25 * np.eye(2), lr, a, b)
    np.testing.assert_allclose(X, fixed, atol=1e-12)
    big = st.critical_step_size(H, 1) * 1.5
    assert st.perturbed_stationary_moment(H, big, 1, noise_std=1.0) is None


def test_gd_stable():
    H = np.diag([4.0, 1.0])
    assert st.gd_stable(H, 0.5) and not st.gd_stable(H, 0.5 * 1.01)


def test_simulation_reaching_zero_is_minus_infinity():
    out = st.simulate_linearized(np.ones((1, 1, 1)), 1.0, 1, 3)     # 1 − η·1 = 0: w = 0 after one step
    assert out["log_mean_sq"][0] == 0.0 and np.all(np.isneginf(out["log_mean_sq"][1:]))


@pytest.mark.parametrize("sampling", st.SAMPLINGS)
def test_radius_curve_matches_dense_radius(sampling):
    """radius_curve splits T(η) = I − ηL + η²Q from two evaluations: check it at other steps."""
    H = _hessians(n=5, d=3, seed=12, mix=0.4)
    lam = np.linalg.eigvalsh(H.mean(0))[-1]
    curve = st.radius_curve(H, 2, sampling=sampling, rho=0.3)
    for lr in (0.1 / lam, 0.77 / lam, 1.9 / lam, 3.3 / lam):
        dense = st.mean_square_radius(H, lr, 2, sampling=sampling, rho=0.3, method="dense")
        assert abs(curve(lr) - dense) <= 1e-12 * max(1.0, dense)


def test_linearized_sam_step_matches_autograd():
    """J = I − ηH_B(I + (ρ/α)H) is the Jacobian of w ↦ w − η∇L_B(w + (ρ/α)∇L(w)) on quadratics."""
    H = _hessians(n=4, d=3, seed=13, mix=0.2)
    lr, rho, alpha, batch = 0.3, 0.4, 2.0, [0, 2]
    Ht, HB = torch.as_tensor(H), torch.as_tensor(H[batch].mean(0))

    def grad_full(w):
        return Ht.mean(0) @ w

    def sam_map(w):           # the ascent step with the norm frozen to α, descent with the batch gradient
        return w - lr * HB @ (w + (rho / alpha) * grad_full(w))

    J = torch.func.jacrev(sam_map)(torch.zeros(3, dtype=torch.float64)).numpy()
    expected = np.eye(3) - lr * H[batch].mean(0) @ (np.eye(3) + (rho / alpha) * H.mean(0))
    np.testing.assert_allclose(J, expected, atol=1e-14)
    Ht_eff = st.sam_effective_hessians(H, rho, alpha)       # its similarity transform has the same spectrum
    np.testing.assert_allclose(np.sort(np.linalg.eigvals(expected).real),
                               np.linalg.eigvalsh(np.eye(3) - lr * Ht_eff[batch].mean(0)), atol=1e-12)


def test_perturbed_mean_square_matches_simulation_and_limit():
    H = _hessians(n=5, d=2, seed=14, mix=0.5)
    lr = 0.5 * st.critical_step_size(H, 2)
    exact = st.perturbed_mean_square(H, lr, 2, 0.3, 200)
    out = st.simulate_linearized(H, lr, 2, 30, replicates=20000, noise_std=0.3, track="vector", seed=1)
    mc = np.exp(out["log_mean_sq"][30]) * 2        # E‖w_0‖² = d = 2
    # light tails at η*/2: 20000 replicates give ~1% standard error; 5% is > 4 of them
    assert abs(mc / exact[30] - 1) < 0.05
    X = st.perturbed_stationary_moment(H, lr, 2, 0.3)
    assert abs(exact[-1] - np.trace(X)) < 1e-10      # the recursion reaches the stationary moment


def test_coherence_lower_bound_family():
    H = st.coherence_lower_bound_hessians(3.0, n=5, sigma=2)
    assert H.shape == (5, 5, 5) and math.isclose(np.linalg.eigvalsh(H.mean(0))[-1], 3.0)
    assert math.isclose(st.coherence_measure(H), 2.0, rel_tol=1e-12)
    S = st.coherence_matrix(H)
    assert math.isclose(np.linalg.eigvalsh(S)[-1], 3.0 * 5 / 2 * 2, rel_tol=1e-12)   # λ_max(S) = mσ


def test_psd_is_required_where_the_theory_needs_it():
    indefinite = np.stack([np.diag([1.0, -1.0]), np.eye(2)])
    assert st.mean_square_radius(indefinite, 0.1, 1) > 0          # the operator itself needs no PSD
    with pytest.raises(ValueError, match="positive semidefinite"):
        st.mean_square_radius(indefinite, 0.1, 1, rho=0.1)        # M = I + ρH needs a square root


@pytest.mark.parametrize("scale", [1e-6, 1e-12])
@pytest.mark.parametrize("rho", [0.0, 0.3])
def test_critical_step_is_scale_invariant(scale, rho):
    # T depends on ηH_i and ρH̄ only; radius_curve used to form T(η) by differencing T(1) and T(2),
    # which lost the η² term to rounding once λ_max(H) ≪ 1 (1e-7 relative at 1e-6, 100× off at 1e-9)
    H = _hessians(n=5, d=3, rank=3, seed=5)
    unit = st.critical_step_size(H, 2, rho=rho)
    scaled = st.critical_step_size(scale * H, 2, rho=rho / scale)
    assert scaled * scale == pytest.approx(unit, rel=1e-9)
    curve, tiny = st.radius_curve(H, 2, rho=rho), st.radius_curve(scale * H, 2, rho=rho / scale)
    for lr in (0.3 * unit, unit, 1.7 * unit):
        assert tiny(lr / scale) == pytest.approx(curve(lr), rel=1e-9)


def test_restrict_to_range_cut_is_relative():
    # a direction with eigenvalue 1e-3·λ_max is range, whatever the overall scale
    H = np.stack([np.diag([1.0, 1e-3, 0.0]), np.diag([1.0, 1e-3, 0.0])])
    for scale in (1.0, 1e-12):
        assert st.restrict_to_range(scale * H).shape == (2, 2, 2)


def test_psd_tolerance_is_relative_to_the_entries():
    # rounding-level negative eigenvalues pass, in proportion to the entries' size
    big = np.diag([1e6, -1e-4])[None]
    st.check_hessians("hessians", big, psd=True)                       # −1e-4 ≥ −1e-8·1e6
    with pytest.raises(ValueError, match="positive semidefinite"):
        st.check_hessians("hessians", np.diag([1e6, -1e-1])[None], psd=True)
    with pytest.raises(ValueError, match="positive semidefinite"):
        st.sam_effective_hessians(np.diag([1.0, -0.5])[None], rho=0.1)


def test_simulate_default_tracks():
    # noise-free: the product P_k (deterministic for full batch), so GD is exact
    H = np.stack([np.diag([1.0, 0.5])])
    out = st.simulate_linearized(H, lr=0.5, batch_size=1, steps=3)
    exact = math.log(((1 - 0.5) ** 6 + (1 - 0.25) ** 6) / 2)
    assert out["log_mean_sq"][-1] == pytest.approx(exact, rel=1e-12)
    # with noise the default follows one iterate per replicate (the product would raise)
    noisy = st.simulate_linearized(H, lr=0.5, batch_size=1, steps=3, replicates=5, noise_std=0.1)
    assert noisy["log_sq_norms"].shape == (5, 4)
    # a long decaying noise-free run stays finite (no 0·∞ from the renormalization)
    long = st.simulate_linearized(H, lr=1.0, batch_size=1, steps=2000, track="vector")
    assert np.all(np.isfinite(long["log_mean_sq"]))                    # ‖w‖² ~ 0.25^2000 = e^−2773
    assert long["log_mean_sq"][-1] == pytest.approx(2000 * math.log(0.25), rel=1e-3)


@pytest.mark.parametrize("method", ["dense", "power", "lanczos"])
def test_zero_operator_has_radius_zero(method):
    # H_i = 4I and η = 1/4: every batch step is the zero matrix, so T = 0; ARPACK used to stop on
    # the zero residual ("starting vector is zero") instead of returning 0
    H = np.stack([4.0 * np.eye(3)] * 2)
    assert st.mean_square_radius(H, 0.25, 1, sampling="with_replacement", method=method) == 0.0


@pytest.mark.parametrize("method", ["power", "lanczos"])
def test_matrix_free_tolerance_is_relative_at_small_radii(method):
    # deep-stable step (radius ~5e-5): a tolerance applied as absolute stops power iteration after
    # a couple of steps, off by ~1e-2 relative; relative to the radius the error is ~tol/gap
    P = _hessians(n=4, d=3, rank=3, seed=7)
    H = np.eye(3)[None] + 0.01 * P / np.linalg.eigvalsh(P.mean(axis=0))[-1]
    lr = 1.0 / np.linalg.eigvalsh(H.mean(axis=0))[-1]
    dense = st.mean_square_radius(H, lr, 2, method="dense")
    assert dense < 1e-3
    assert st.mean_square_radius(H, lr, 2, method=method) == pytest.approx(dense, rel=1e-7)


def test_check_hessians_symmetrizes_within_tolerance():
    # an asymmetry below the tolerance (rounding in an autograd Hessian) is accepted and removed
    H = np.array([[[2.0, 1.0 + 1e-10], [1.0, 3.0]]])
    out = st.check_hessians("hessians", H)
    assert np.array_equal(out, np.swapaxes(out, 1, 2))
    assert out[0, 0, 1] == pytest.approx(1.0 + 0.5e-10, rel=1e-15)
