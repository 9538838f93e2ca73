"""Round 20 of #43 in the qp family: valid QPs scaled far from 1 are answered, not left ``Failure``."""

import numpy as np
import pytest
import torch

from algorithms import RetCode, solve
from algorithms.qp import DQP, QP, installed_backends


def _half_plane(s):  # min |x|² s.t. x1 + x2 >= s: x* = (s/2, s/2) (clarabel answered Failure from s = 1e8 on)
    return QP(P=2 * np.eye(2), q=np.zeros(2), G=np.array([[-1.0, -1.0]]), h=np.array([-s])), np.full(2, s / 2)


def _free(s):  # min ½|x|² − s (3, 4)·x: x* = s (3, 4) (highs answered Failure from s = 1e8 on)
    return QP(P=np.eye(2), q=-s * np.array([3.0, 4.0])), s * np.array([3.0, 4.0])


@pytest.mark.parametrize("backend", ["clarabel", "highs", "daqp", "osqp"])
@pytest.mark.parametrize("scale", [1e8, 1e12, 1e15])
@pytest.mark.parametrize("make", [_half_plane, _free])
def test_a_far_minimiser_is_found_by_every_backend(make, scale, backend):
    if backend not in installed_backends():
        pytest.skip(f"{backend} not installed")
    qp, expected = make(scale)
    sol = solve(qp, DQP(backend=backend))
    assert sol.retcode == RetCode.Success
    np.testing.assert_allclose(sol.x, expected, rtol=1e-6)


_NAN_FORMS = [np.array(np.nan), torch.tensor(float("nan")), torch.tensor(float("nan"), dtype=torch.float32)]


@pytest.mark.parametrize("backend, key", [("osqp", "eps_abs"), ("clarabel", "tol_gap_abs"),
                                          ("osqp", "max_iter")])
@pytest.mark.parametrize("index", range(len(_NAN_FORMS)))
def test_a_0d_nan_backend_option_is_refused_by_name(backend, key, index):
    # a 0-d array or tensor NaN passed the NaN check (Python and numpy floats only): osqp ended MaxIters,
    # clarabel Success with a NaN tolerance
    with pytest.raises(ValueError, match=rf"backend_options\['{key}'\] is NaN"):
        DQP(backend=backend, backend_options={key: _NAN_FORMS[index]})


@pytest.mark.parametrize("value", [np.array([1e-8]), torch.tensor([1e-8])])
def test_an_array_tolerance_option_is_refused_by_name(value):
    with pytest.raises(TypeError, match=r"backend_options\['eps_abs'\] must be a number"):
        DQP(backend="osqp", backend_options={"eps_abs": value})


@pytest.mark.parametrize("value", [np.array(1e-7), torch.tensor(1e-7)])
def test_a_0d_tolerance_option_is_its_number(value):
    algorithm = DQP(backend="osqp", backend_options={"eps_abs": value})
    assert type(algorithm.backend_options["eps_abs"]) is float
    qp, expected = _free(1.0)
    np.testing.assert_allclose(solve(qp, algorithm).x, expected, rtol=1e-6)


def test_the_kkt_acceptance_fails_on_a_nan_residual_in_any_position():
    # max() of [1e-9, nan] is 1e-9 (NaN compares False): a NaN residual after a finite one passed the check
    from algorithms.qp.dqp import _all_within

    assert _all_within({"stationarity": 1e-9, "primal": 0.0}, 1e-6)
    for residuals in ({"stationarity": 1e-9, "primal": np.nan}, {"stationarity": np.nan, "primal": 0.0}):
        assert not _all_within(residuals, 1e-6)


@pytest.mark.parametrize("backend", ["auto", "clarabel", "daqp", "highs", "osqp"])
@pytest.mark.parametrize("scale", [1e8, 1e12])
def test_an_unbounded_or_infeasible_far_qp_keeps_its_diagnosis(backend, scale):
    # the rescaled retry must not run on them: daqp and highs "found" a point of the rescaled unbounded QP,
    # whose check failed (Failure where the diagnosis says Unbounded)
    if backend not in installed_backends() and backend != "auto":
        pytest.skip(f"{backend} not installed")
    unbounded = QP(P=np.zeros((2, 2)), q=np.array([-1.0, 0.0]), G=np.array([[-1.0, 0.0]]),
                   h=np.array([-scale]))
    infeasible = QP(P=np.eye(2), q=np.zeros(2), G=np.array([[1.0, 0.0], [-1.0, 0.0]]),
                    h=np.array([-scale, -scale]))
    assert solve(unbounded, DQP(backend=backend)).retcode == RetCode.Unbounded
    assert solve(infeasible, DQP(backend=backend)).retcode == RetCode.Infeasible


def _factor_of_another_matrix_agreeing_on_the_fixed_probe(n: int) -> tuple[np.ndarray, np.ndarray]:
    """(P, M): M ≠ P with M v = P v for the old check's one probe v = cos(1..n) (red20c)."""
    v = np.cos(np.arange(1, n + 1, dtype=float))
    if n == 2:
        u = np.array([-v[1], v[0]]) / np.linalg.norm(v)
        return np.eye(2), np.eye(2) + 3 * np.outer(u, u)
    rng = np.random.default_rng(1)
    A = rng.standard_normal((n, n))
    P = A @ A.T + n * np.eye(n)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    B = np.zeros((n, len(pairs)))
    for k, (i, j) in enumerate(pairs):   # a symmetric, zero-diagonal E with E v = 0: same diagonal, same Pv
        B[i, k] += v[j]
        B[j, k] += v[i]
    null = np.linalg.svd(B)[2][-1]
    E = np.zeros((n, n))
    for k, (i, j) in enumerate(pairs):
        E[i, j] = E[j, i] = null[k]
    return P, P + 0.5 * E


@pytest.mark.parametrize("n", [2, 5])
def test_kkt_factor_refuses_a_factor_of_another_matrix_that_agrees_on_one_probe(n):
    # one fixed probe vector passed any factor of P + Σ c uuᵀ with u ⟂ v: every solve answered for that K
    from algorithms.qp import KKTFactor

    P, M = _factor_of_another_matrix_agreeing_on_the_fixed_probe(n)
    v = np.cos(np.arange(1, n + 1, dtype=float))
    assert np.allclose(M @ v, P @ v) and not np.allclose(M, P)
    with pytest.raises(ValueError, match="cholesky must be P's lower Cholesky factor"):
        KKTFactor(P, None, cholesky=np.linalg.cholesky(M))
    KKTFactor(P, None, cholesky=np.linalg.cholesky(P))   # P's own factor is taken
