"""#43 round 9 (pre-audit sweep) of algorithms.qp: a non-iterable ``wrt``, objects whose ``__array__``
raises, torch sparse tensors in the layer, data whose scale overflows float64 (log2's "math domain
error"), an objective that overflows, a kkt_tol above 1 (every point a Success)."""

import numpy as np
import pytest
import torch

from algorithms import solve
from algorithms.qp import DQP, QP, KKTFactor, qp_layer

QP_ = QP(P=2 * np.eye(2), q=np.array([1.0, -1.0]), G=-np.eye(2), h=np.zeros(2))
SOL = solve(QP_, DQP(backend="clarabel"))


class RaisingArray:
    def __array__(self, *args, **kwargs):
        raise RuntimeError("boom")


@pytest.mark.parametrize("wrt", [3, 0.5, None.__class__, np.array(1), [1]])
def test_wrt_of_the_wrong_type_named(wrt):
    with pytest.raises(TypeError, match="wrt must be a tuple of names"):
        SOL.vjp(np.ones(2), wrt=wrt)


def test_raising_array_objects_named():
    for name in ("lb", "ub"):
        with pytest.raises(TypeError, match=rf"{name} must be a real numeric vector"):
            QP(P=np.eye(2), q=np.zeros(2), **{name: RaisingArray()})
    for kwargs, name in (({"P": RaisingArray()}, "P"), ({"P": np.eye(2), "C": RaisingArray()}, "C")):
        with pytest.raises(TypeError, match=rf"{name} must be a 2-D numpy array"):
            KKTFactor(**kwargs)
    with pytest.raises(TypeError, match="cholesky must be a numpy array"):
        KKTFactor(np.eye(2), cholesky=RaisingArray())


def test_layer_refuses_torch_sparse_by_name():
    P = torch.eye(2, dtype=torch.float64)
    with pytest.raises(TypeError, match="G must be a dense"):
        qp_layer(P, torch.ones(2, dtype=torch.float64), (-P).to_sparse(), torch.zeros(2, dtype=torch.float64))


def test_overflowing_scales_named():
    # round 12: entries past the working range are refused by name; inside it, data whose ratio of scales
    # exceeds float64 (P ~1e-300 beside q ~1e38) still are
    with pytest.raises(ValueError, match=r"P, q, G, h, A, b .* span scales beyond float64"):
        solve(QP(P=1e-300 * np.eye(2), q=np.array([1e38, 1.0])), DQP())
    with pytest.raises(ValueError, match=r"\bq has an entry of magnitude 1e\+300, outside"):
        QP(P=np.eye(2), q=np.array([1e300, 1.0]))
    with pytest.raises(ValueError, match=r"\bx has an entry of magnitude 1e\+200, outside"):
        QP_.objective(np.array([1e200, 1e200]))


def test_kkt_tol_above_one_refused():
    with pytest.raises(ValueError, match=r"kkt_tol must be in \(0, 1\]"):
        DQP(kkt_tol=1.5)
    assert DQP(kkt_tol=1.0).kkt_tol == 1.0  # a claim uses the boundary on purpose


def test_solutions_compare_by_identity():
    """QPSolution's generated __eq__ compared the x arrays: numpy's "truth value ... is ambiguous"."""
    import copy

    other = copy.deepcopy(SOL)
    assert (other == SOL) is False and SOL == SOL
    assert hash(SOL) != hash(other) or other is not SOL


def test_length_mismatches_name_both():
    with pytest.raises(ValueError, match=r"q must have shape \(2,\) \(P is 2×2\)"):
        QP(P=np.eye(2), q=np.zeros(3))
    with pytest.raises(ValueError, match=r"lb must have shape \(2,\) \(P is 2×2\)"):
        QP(P=np.eye(2), q=np.zeros(2), lb=np.zeros(3))


def test_heldout9_multipliers_with_extra_axes_named():
    from algorithms.qp import kkt_residuals

    with pytest.raises(ValueError, match=r"z must have shape \(2,\)"):
        kkt_residuals(QP_, SOL.x, None, np.zeros((2, 1, 1)))
