"""Unit tests of algorithms.nets.stability against brute force and closed forms."""

import math

import numpy as np
import pytest

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
    eta = 0.3
    K = st.second_moment_matrix(H, eta, batch, sampling=sampling)
    W, p = st.enumerate_batches(4, batch, sampling)
    brute = sum(prob * np.kron(np.eye(3) - eta * np.tensordot(w, H, 1),
                               np.eye(3) - eta * np.tensordot(w, H, 1)) for w, prob in zip(W, p))
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
    eta = 1.0 / np.linalg.eigvalsh(H.mean(0))[-1]
    radii = [st.mean_square_radius(H, eta, 2, sampling=sampling, method=m)
             for m in ("dense", "power", "lanczos")]
    assert max(radii) - min(radii) < 1e-7


def test_lanczos_and_power_agree_beyond_dense_range():
    H = _hessians(n=4, d=34, rank=3, seed=2)
    eta = 0.5 / np.linalg.eigvalsh(H.mean(0))[-1]
    r1 = st.mean_square_radius(H, eta, 1, method="lanczos", restrict_to_range=False)
    r2 = st.mean_square_radius(H, eta, 1, method="power", restrict_to_range=False, tol=1e-13)
    assert abs(r1 - r2) < 1e-6
    assert abs(r1 - 1.0) < 1e-9     # the common null space (rank ≤ 12 < 34) sits exactly at 1


def test_full_batch_is_gd():
    H = _hessians(n=4, d=3)
    mean = H.mean(0)
    for eta in (0.1, 1.0, 3.0):
        expected = np.abs(1 - eta * np.linalg.eigvalsh(mean)).max() ** 2
        assert math.isclose(st.mean_square_radius(H, eta, 4), expected, rel_tol=1e-10)


def test_restrict_to_range_removes_null_space():
    H = np.stack([np.diag([1.0, 0.0, 0.0]), np.diag([2.0, 0.0, 0.0])])
    assert math.isclose(st.mean_square_radius(H, 0.5, 1, restrict_to_range=False), 1.0)
    assert st.mean_square_radius(H, 0.5, 1) < 1
    assert st.restrict_to_range(H).shape == (2, 1, 1)


@pytest.mark.parametrize("sampling", st.SAMPLINGS)
def test_sam_reduction_matches_nonsymmetric_operator(sampling):
    H = _hessians(n=4, d=3, seed=3)
    eta, rho, alpha = 0.4, 0.7, 2.0
    M = np.eye(3) + (rho / alpha) * H.mean(0)
    W, p = st.enumerate_batches(4, 2, sampling)
    brute = sum(prob * np.kron(np.eye(3) - eta * np.tensordot(w, H, 1) @ M,
                               np.eye(3) - eta * np.tensordot(w, H, 1) @ M) for w, prob in zip(W, p))
    expected = np.abs(np.linalg.eigvals(brute)).max()
    got = st.mean_square_radius(H, eta, 2, sampling=sampling, rho=rho, alpha=alpha)
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
    assert not st.dexter_divergence_condition(same, eta=1.5, batch_size=1)
    # without σ the threshold would be (1/η)(n/B − 1)^(-1/2) = 0.385 ≤ λ_max = 1: it would fire,
    # though this (noise-free, η λ_max = 1.5 < 2) minimum is stable
    assert 1.0 >= 1 / (1.5 * math.sqrt(4 / 1 - 1))
    assert st.mean_square_radius(same, 1.5, 1) < 1
    assert not st.dexter_divergence_condition(same, eta=1.5, batch_size=4)
    with pytest.raises(TypeError, match="use_coherence"):      # no public switch to drop σ
        st.dexter_divergence_condition(same, eta=1.5, batch_size=1, use_coherence=False)
    with pytest.raises(TypeError, match="use_coherence"):
        st.sam_divergence_condition(same, 1.5, 1, 0.1, use_coherence=False)


def test_private_radius_body_matches_brute_force_for_signed_rho():
    """``_radius`` (the body of mean_square_radius) against Σ_b p_b J_b ⊗ J_b, J_b = I − ηH_b(I + rH)."""
    H = _hessians(n=4, d=2, seed=11, mix=0.3)
    eta = 0.7 / np.linalg.eigvalsh(H.mean(0))[-1]
    lam = np.linalg.eigvalsh(H.mean(0))[-1]
    for ratio in (0.0, 0.4 / lam, -0.4 / lam):
        W, p = st.enumerate_batches(4, 2, "with_replacement")
        M = np.eye(2) + ratio * H.mean(0)
        A = sum(pi * np.kron(J, J) for pi, J in
                ((pi, np.eye(2) - eta * np.tensordot(w, H, 1) @ M) for w, pi in zip(W, p)))
        brute = np.abs(np.linalg.eigvals(A)).max()
        assert abs(st._radius(H, eta, 2, "with_replacement", ratio) - brute) < 1e-12
        if ratio >= 0:
            assert st.mean_square_radius(H, eta, 2, sampling="with_replacement", rho=ratio) == \
                st._radius(H, eta, 2, "with_replacement", ratio)


def test_simulation_matches_exact_second_moment():
    H = _hessians(n=5, d=2, seed=5, mix=0.7)
    eta = 0.5 / np.linalg.eigvalsh(H.mean(0))[-1]
    K = 6
    T = st.second_moment_matrix(H, eta, 2)
    exact = np.eye(2).reshape(-1) @ np.linalg.matrix_power(T, K) @ np.eye(2).reshape(-1) / 2
    out = st.simulate_linearized(H, eta, 2, K, replicates=20000, seed=0)
    # light-tailed case (η well inside the stable range): 20000 replicates, 3% relative error
    assert abs(math.exp(out["log_mean_sq"][-1]) / exact - 1) < 0.03


def test_simulation_full_batch_is_deterministic_power():
    H = _hessians(n=3, d=3, seed=6)
    eta = 0.2
    J = np.eye(3) - eta * H.mean(0)
    out = st.simulate_linearized(H, eta, 3, 10, replicates=2)
    expected = np.log(np.linalg.norm(np.linalg.matrix_power(J, 10)) ** 2 / 3)
    np.testing.assert_allclose(out["log_mean_sq"][-1], expected, rtol=1e-10)


def test_critical_step_size():
    H = _hessians(n=5, d=3, seed=7)
    lam = np.linalg.eigvalsh(H.mean(0))[-1]
    assert math.isclose(st.critical_step_size(H, 5), 2 / lam, rel_tol=1e-9)
    eta = st.critical_step_size(H, 1)
    assert eta < 2 / lam
    assert abs(st.mean_square_radius(H, eta, 1) - 1) < 1e-8
    assert st.mean_square_radius(H, 1.01 * eta, 1) > 1
    assert st.critical_step_size(H, 1, rho=0.5) <= eta


def test_perturbed_stationary_moment():
    H = _hessians(n=4, d=2, seed=8, mix=0.5)
    eta = 0.3 / np.linalg.eigvalsh(H.mean(0))[-1]
    X = st.perturbed_stationary_moment(H, eta, 2, noise_std=0.5)
    a, b = st.batch_moment_coefficients(4, 2)
    fixed = st.second_moment_apply(H, X + 0.25 * np.eye(2), eta, a, b)
    np.testing.assert_allclose(X, fixed, atol=1e-12)
    big = st.critical_step_size(H, 1) * 1.5
    assert st.perturbed_stationary_moment(H, big, 1, noise_std=1.0) is None


def test_gd_stable():
    H = np.diag([4.0, 1.0])
    assert st.gd_stable(H, 0.5) and not st.gd_stable(H, 0.5 * 1.01)


# ----------------------------------------------------------------------------- bad inputs
def test_bad_inputs_name_the_argument():
    H = _hessians(n=3, d=2)
    bad = H.copy()
    bad[1, 0, 1] += 1.0
    with pytest.raises(ValueError, match=r"hessians\[1\] must be symmetric"):
        st.mean_square_radius(bad, 0.1, 1)
    with pytest.raises(ValueError, match="batch_size"):
        st.mean_square_radius(H, 0.1, 4)
    with pytest.raises(ValueError, match="batch_size"):
        st.simulate_linearized(H, 0.1, 0, 3)
    with pytest.raises(ValueError, match="eta"):
        st.mean_square_radius(H, 0.0, 1)
    with pytest.raises(ValueError, match="eta"):
        st.dexter_divergence_condition(H, -1.0, 1)
    with pytest.raises(ValueError, match="rho"):
        st.mean_square_radius(H, 0.1, 1, rho=-0.1)
    with pytest.raises(ValueError, match="rho"):
        st.sam_effective_hessians(H, -1.0)
    with pytest.raises(ValueError, match="alpha"):
        st.mean_square_radius(H, 0.1, 1, rho=0.1, alpha=0.0)
    with pytest.raises(ValueError, match="sampling"):
        st.mean_square_radius(H, 0.1, 1, sampling="poisson")
    with pytest.raises(ValueError, match="method"):
        st.mean_square_radius(H, 0.1, 1, method="qr")
    with pytest.raises(ValueError, match="hessians"):
        st.coherence_matrix(np.ones((2, 2)))
    with pytest.raises(ValueError, match="hessians"):
        st.coherence_matrix(np.ones((2, 2, 3)))
    with pytest.raises(ValueError, match="noise_std"):
        st.simulate_linearized(H, 0.1, 1, 3, noise_std=-1.0)
    with pytest.raises(ValueError, match="track"):
        st.simulate_linearized(H, 0.1, 1, 3, noise_std=1.0, track="product")


def test_simulation_reaching_zero_is_minus_infinity():
    out = st.simulate_linearized(np.ones((1, 1, 1)), 1.0, 1, 3)     # 1 − η·1 = 0: w = 0 after one step
    assert out["log_mean_sq"][0] == 0.0 and np.all(np.isneginf(out["log_mean_sq"][1:]))
