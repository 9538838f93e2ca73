"""Contract cases for (QP, DQP): small, fast, one dense and one sparse."""

import numpy as np
import scipy.sparse as sp

from algorithms.qp import DQP, QP


def dense_box(dtype):
    """Projection of (2, -1, 0.5) onto the box [0, 1]³ with the sum fixed to 1.5."""
    P = np.eye(3, dtype=dtype)
    q = -np.array([2.0, -1.0, 0.5], dtype=dtype)
    G = np.vstack([np.eye(3), -np.eye(3)]).astype(dtype)
    h = np.concatenate([np.ones(3), np.zeros(3)]).astype(dtype)
    A, b = np.ones((1, 3), dtype=dtype), np.array([1.5], dtype=dtype)
    return QP(P=P, q=q, G=G, h=h, A=A, b=b), DQP()  # the default, backend="auto"


def sparse_simplex(dtype):
    n = 5
    y = np.linspace(-1.0, 1.0, n).astype(dtype)
    P = sp.identity(n, format="csc", dtype=dtype)
    G = -sp.identity(n, format="csc", dtype=dtype)
    return (QP(P=P, q=-y, G=G, h=np.zeros(n, dtype=dtype), A=np.ones((1, n), dtype=dtype),
               b=np.ones(1, dtype=dtype)), DQP(backend="osqp"))


CASES = [dense_box, sparse_simplex]
