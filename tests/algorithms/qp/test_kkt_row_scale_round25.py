"""KKTFactor factors K with the rows of C at unit size (round 25, red25a): a constraint row and its right-hand
side times c > 0 is the same constraint, and its derivative must not depend on c beyond the chain rule."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms import solve
from algorithms.qp import DQP, QP, KKTFactor


@pytest.mark.parametrize("c", [1e-20, 1e-9, 1e-6, 1.0, 1e7, 1e12])
def test_the_vjp_of_a_scaled_active_row_follows_the_chain_rule(c):
    # x* = (1/2, 1/2) on the row c·(x1 + x2) <= c; ∂x1/∂h1 = 1/(2c) exactly (its multiplier scales as 1/c)
    # c = 1e-9 gave 1e-9 (K_J read as singular against the floor 1: a least-squares solve), not 5e8
    G = np.array([[c, c], [1.0, -1.0]])
    qp = QP(P=np.eye(2), q=-2.0 * np.ones(2), G=G, h=np.array([c, 5.0]))
    sol = solve(qp, DQP(backend="clarabel"))
    assert sol.successful and not sol.kkt.singular
    np.testing.assert_allclose(sol.x, [0.5, 0.5], rtol=1e-9)
    np.testing.assert_allclose(sol.vjp(np.array([1.0, 0.0]))["h"][0], 0.5 / c, rtol=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("c", [1e-12, 1e9])
def test_kkt_factor_solves_with_rows_of_any_size(c, sparse):
    rng = np.random.default_rng(0)
    P = np.diag([1.0, 2.0, 3.0, 4.0])
    C = rng.standard_normal((2, 4)) * np.array([[c], [1.0]])
    K = np.block([[P, C.T], [C, np.zeros((2, 2))]])
    rhs = rng.standard_normal(6)
    factor = KKTFactor(sp.csc_matrix(P), sp.csr_matrix(C)) if sparse else KKTFactor(P, C)
    assert not factor.singular
    zeta = factor.solve(rhs)
    # reference: the same system with the row of size c divided by c (cond(K) ~ c^±2 makes a plain solve of K
    # itself inexact), mapped back; ζ's entries differ by c^±1 in size, so each is compared relatively
    d = np.array([1.0, 1.0, 1.0, 1.0, 1.0 / c, 1.0])
    reference = d * np.linalg.solve(d[:, None] * K * d[None, :], d * rhs)
    np.testing.assert_allclose(zeta, reference, rtol=1e-10)
    np.testing.assert_array_equal(factor.C.toarray() if sparse else factor.C, C)   # the given C, not scaled
