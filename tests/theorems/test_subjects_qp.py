"""The QPLayer subject: dqp's layer claims on another layer (a user's, cvxpylayers', proxsuite's)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import torch

from algorithms.qp import DQP, QPLayer
from theorems.core import REGISTRY, Context, load_all
from theorems.core.subjects import PEERS, SUBJECTS, load_object
from theorems.strategies import make_qp_instance

HERE = "tests.theorems.test_subjects_qp"


class NoGradientInP(QPLayer):
    """Our layer with one line changed: P enters detached, so ∇P is zero (a user's slip)."""

    def forward(self, P, q, G=None, h=None, A=None, b=None, lb=None, ub=None):
        return super().forward(P.detach(), q, G, h, A, b, lb, ub)


class DenseOnly(QPLayer):
    """Our layer refusing scipy.sparse inputs and QPs without rows, as the peer adapters do."""

    def forward(self, P, q, G=None, h=None, A=None, b=None, lb=None, ub=None):
        if any(sp.issparse(v) for v in (P, G, A)) or G is None:
            raise NotImplementedError("dense inputs with inequality rows only")
        return super().forward(P, q, G, h, A, b, lb, ub)


def test_qplayer_subject_is_registered_with_its_claims():
    load_all()
    assert SUBJECTS["QPLayer"].reference == "algorithms.qp:QPLayer"
    assert set(PEERS["QPLayer"]) == {"cvxpylayers", "proxsuite QPLayer"}
    exercising = {c.id for c in REGISTRY.values() if "QPLayer" in c.subjects}
    assert {"dqp.jacobian_fd", "dqp.layer_gradient", "dqp.reduced_equals_full",
            "dqp.dependent_active_rows", "dqp.backend_agnostic",
            "dqp.representation_invariance"} <= exercising


def test_a_users_layer_without_the_P_gradient_is_caught():
    load_all()
    given = (("QPLayer", f"{HERE}:NoGradientInP"),)
    outcome = REGISTRY["dqp.jacobian_fd"].check(Context(role="check", implementations=given))
    assert outcome.status == "fail" and "∇P" in outcome.summary, outcome.summary
    assert outcome.evidence.get("not_run_on_subject") or "counterexample" in outcome.evidence


def test_cases_a_layer_cannot_take_are_skipped_and_said():
    load_all()
    given = (("QPLayer", f"{HERE}:DenseOnly"),)
    outcome = REGISTRY["dqp.layer_gradient"].check(Context(role="check", implementations=given))
    assert outcome.status == "pass", outcome.summary
    skipped = " ".join(outcome.evidence["skipped_unsupported"])
    assert "sparse simplex" in skipped and "unconstrained" in skipped
    assert "routes" in outcome.evidence["not_run_on_subject"]


def _planted():
    inst = make_qp_instance(3, 5, 1, 6, 2)
    return inst, {k: torch.tensor(getattr(inst, k), requires_grad=True) for k in "PqGhAb"}


@pytest.mark.parametrize("peer, package, x_tol", [("cvxpylayers", "cvxpylayers", 1e-4),
                                                  ("proxsuite QPLayer", "proxsuite", 1e-7)])
def test_peer_layers_solve_and_differentiate_a_planted_qp(peer, package, x_tol):
    pytest.importorskip(package)
    make = load_object(PEERS["QPLayer"][peer])
    inst, data = _planted()
    x = make(DQP(backend="daqp"))(**data)
    assert x.shape == (5,) and x.dtype == torch.float64
    # the peer's own default accuracy (SCS through diffcp: ~1e-6 here; ProxQP at eps 1e-9)
    assert np.abs(x.detach().numpy() - inst.x).max() <= x_tol
    x.sum().backward()
    ours = {k: v.detach().clone().requires_grad_() for k, v in data.items()}
    QPLayer(DQP(backend="daqp"))(**ours).sum().backward()
    for k in "PqGhAb":  # the same derivative, up to the peer's accuracy
        assert np.abs(data[k].grad.numpy() - ours[k].grad.numpy()).max() <= 1e-3
    # a batch of 2 sharing P: one x per item
    batch = {k: (torch.stack([v.detach(), v.detach()]) if k != "P" else v.detach()) for k, v in data.items()}
    assert make(None)(**batch).shape == (2, 5)


@pytest.mark.parametrize("peer, package", [("cvxpylayers", "cvxpylayers"),
                                           ("proxsuite QPLayer", "proxsuite")])
def test_peer_layers_refuse_what_they_cannot_take(peer, package):
    pytest.importorskip(package)
    layer = load_object(PEERS["QPLayer"][peer])(None)
    eye = torch.eye(2, dtype=torch.float64)
    q = torch.ones(2, dtype=torch.float64)
    with pytest.raises(NotImplementedError):
        layer(eye, q)  # no constraints
    with pytest.raises(NotImplementedError, match="dense torch tensor"):
        layer(sp.eye(2, format="csc"), q, -eye, torch.zeros(2, dtype=torch.float64))
    with pytest.raises(NotImplementedError, match="variable bounds"):
        layer(eye, q, -eye, torch.zeros(2, dtype=torch.float64), lb=torch.zeros(2, dtype=torch.float64))


def test_cvxpylayers_adapter_needs_a_positive_definite_P():
    pytest.importorskip("cvxpylayers")
    layer = load_object(PEERS["QPLayer"]["cvxpylayers"])(None)
    singular = torch.diag(torch.tensor([1.0, 0.0], dtype=torch.float64))
    with pytest.raises(NotImplementedError, match="positive definite"):
        layer(singular, torch.ones(2, dtype=torch.float64), -torch.eye(2, dtype=torch.float64),
              torch.zeros(2, dtype=torch.float64))
