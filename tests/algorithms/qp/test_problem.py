"""QP construction: stored data, dtype, and every bad input naming its argument."""

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms.qp import QP


def test_stores_float64_and_records_dtype():
    qp = QP(P=np.eye(2, dtype=np.float32), q=np.ones(2, dtype=np.float32))
    assert qp.P.dtype == np.float64 and qp.dtype == np.float32
    assert QP(P=np.eye(2), q=[1, 2]).dtype == np.float64
    assert (qp.n, qp.n_eq, qp.n_ineq) == (2, 0, 0)


def test_sparse_kept_sparse():
    qp = QP(P=sp.identity(4), q=np.zeros(4), G=-sp.identity(4), h=np.zeros(4))
    assert sp.issparse(qp.P) and sp.issparse(qp.G) and qp.sparse


def test_large_sparse_diagonal_psd_is_cheap():
    n = 200_000
    qp = QP(P=sp.identity(n, format="csc"), q=np.zeros(n))
    assert qp.n == n


def test_objective():
    qp = QP(P=2 * np.eye(2), q=np.array([1.0, 0.0]))
    assert qp.objective(np.array([1.0, 1.0])) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"P": np.ones((2, 3)), "q": np.zeros(2)}, "P must be square"),
        ({"P": np.array([[1.0, 1.0], [0.0, 1.0]]), "q": np.zeros(2)}, "P must be symmetric"),
        ({"P": np.diag([1.0, -1.0]), "q": np.zeros(2)}, "P must be positive semidefinite"),
        ({"P": sp.diags([1.0, -1.0]), "q": np.zeros(2)}, "P must be positive semidefinite"),
        # sparse with off-diagonal entries only (not the diagonal shortcut of the PSD test): indefinite
        ({"P": sp.csc_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])), "q": np.zeros(2)},
         "P must be positive semidefinite"),
        ({"P": np.ones(3), "q": np.zeros(3)}, "P must be 2-dimensional"),
        ({"P": np.eye(2), "q": np.zeros(3)}, "q must have shape"),
        ({"P": np.eye(2), "q": np.array([0.0, np.nan])}, "q contains NaN"),
        ({"P": np.array([[np.inf, 0.0], [0.0, 1.0]]), "q": np.zeros(2)}, "P contains NaN"),
        ({"P": np.eye(2), "q": np.zeros(2), "G": np.ones((1, 3)), "h": np.zeros(1)}, "G must have shape"),
        ({"P": np.eye(2), "q": np.zeros(2), "G": np.ones((2, 2)), "h": np.zeros(3)},
         "G and h must have one row per constraint"),
        ({"P": np.eye(2), "q": np.zeros(2), "G": np.ones((1, 2))}, "h is required"),
        ({"P": np.eye(2), "q": np.zeros(2), "b": np.zeros(1)}, "A is required"),
        ({"P": np.eye(2), "q": np.zeros(2), "A": np.ones((1, 2)), "b": np.zeros(2)},
         "A and b must have one row per constraint"),
        ({"P": np.eye(2), "q": np.zeros(2), "A": np.ones((1, 2)), "b": [np.inf]}, "b contains NaN"),
        ({"P": np.eye(2), "q": np.zeros(2), "G": sp.csc_matrix(np.full((1, 2), np.nan)), "h": [0.0]},
         "G contains NaN"),
    ],
)
def test_bad_inputs_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        QP(**kwargs)


def test_non_numeric_is_type_error():
    with pytest.raises(TypeError, match="q must be numeric"):
        QP(P=np.eye(2), q=np.array(["a", "b"]))
    with pytest.raises(TypeError, match="P is required"):
        QP(P=None, q=np.zeros(2))


def test_float32_torch_tensors_keep_the_callers_precision():
    # a torch tensor's .dtype is torch.float32, not np.float32: the precision is read through numpy
    import torch

    qp = QP(P=torch.eye(2), q=torch.ones(2))
    assert qp.dtype == np.float32 and qp.P.dtype == np.float64
    assert QP(P=torch.eye(2, dtype=torch.float64), q=torch.ones(2)).dtype == np.float64
    assert QP(P=[[1.0, 0.0], [0.0, 1.0]], q=np.ones(2, dtype=np.float32)).dtype == np.float64
