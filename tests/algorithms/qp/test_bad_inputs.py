"""Bad inputs to every public callable of ``algorithms.qp``: each is named in our own error message.

The module loops over the ``__all__`` callables of the family's modules
(:func:`tests.bad_inputs.assert_every_callable_covered`), so a new public callable
without a case (or a recorded exemption) fails here.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import torch

import algorithms.qp as qp_family
from algorithms import solve
from algorithms.qp import DQP, QP, KKTFactor, QPLayer, QPSolution, qp_layer
from algorithms.qp import dqp as dqp_module
from algorithms.qp import layer as layer_module
from algorithms.qp import problem as problem_module
from algorithms.qp.dqp import absolute_residuals, choose_backend, kkt_residuals
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

MODULES = (qp_family, dqp_module, problem_module, layer_module)
EYE = np.eye(2)
T_EYE = torch.eye(2, dtype=torch.float64)
T_ZERO = torch.zeros(2, dtype=torch.float64)
BOX = QP(P=EYE, q=np.ones(2), G=-EYE, h=np.zeros(2), A=np.ones((1, 2)), b=np.ones(1))


def _solution() -> QPSolution:
    return solve(BOX, DQP(backend="daqp"))


CASES = [
    # QP: symmetry, PSD-ness, shapes, types, finiteness
    BadInput(QP, lambda: QP(P=np.array([[1.0, 2.0], [0.0, 1.0]]), q=np.zeros(2)), ValueError,
             ("P", "symmetric"), "non-symmetric"),
    BadInput(QP, lambda: QP(P=np.diag([1.0, -1.0]), q=np.zeros(2)), ValueError,
             ("P", "positive semidefinite"), "indefinite"),
    BadInput(QP, lambda: QP(P=np.ones((2, 3)), q=np.zeros(2)), ValueError, ("P", "square"), "P-shape"),
    BadInput(QP, lambda: QP(P=EYE, q=np.zeros(3)), ValueError, ("q", "shape"), "q-shape"),
    BadInput(QP, lambda: QP(P=EYE, q=np.zeros(2), G=np.ones((1, 3)), h=np.zeros(1)), ValueError,
             ("G", "shape"), "G-shape"),
    BadInput(QP, lambda: QP(P=EYE, q=np.zeros(2), G=np.ones((2, 2)), h=np.zeros(3)), ValueError,
             ("h", "shape"), "h-shape"),
    BadInput(QP, lambda: QP(P=EYE, q=np.zeros(2), A=np.ones((1, 2))), ValueError, ("b", "required"),
             "b-missing"),
    BadInput(QP, lambda: QP(P=EYE, q=np.array(["a", "b"])), TypeError, ("q", "numeric"), "q-type"),
    BadInput(QP, lambda: QP(P=EYE, q=np.array([0.0, np.nan])), ValueError, ("q", "NaN"), "q-nan"),
    # DQP hyperparameters
    BadInput(DQP, lambda: DQP(backend=3), TypeError, ("backend", "string"), "backend-type"),
    BadInput(DQP, lambda: DQP(backend="gurobi_nope"), ValueError, ("backend", "auto", "clarabel"),
             "backend-name"),
    BadInput(DQP, lambda: DQP(eps_active=-1.0), ValueError, ("eps_active", "> 0"), "eps_active"),
    BadInput(DQP, lambda: DQP(kkt_tol=0.0), ValueError, ("kkt_tol", "> 0"), "kkt_tol"),
    BadInput(DQP, lambda: DQP(polish="yes"), TypeError, ("polish", "bool"), "polish"),
    BadInput(DQP, lambda: DQP(backend_options=[1]), TypeError, ("backend_options", "mapping"), "options"),
    # KKTFactor
    BadInput(KKTFactor, lambda: KKTFactor(np.array([[1.0, np.nan], [np.nan, 1.0]]), None), ValueError,
             ("P", "NaN"), "P-nan"),
    BadInput(KKTFactor, lambda: KKTFactor(sp.csc_matrix(np.diag([1.0, np.inf])), None), ValueError,
             ("P", "NaN"), "sparse-P-inf"),
    BadInput(KKTFactor, lambda: KKTFactor(EYE, np.array([[np.nan, 0.0]])), ValueError, ("C", "NaN"),
             "C-nan"),
    BadInput(KKTFactor, lambda: KKTFactor(EYE, np.ones((1, 3))), ValueError, ("C", "shape"), "C-shape"),
    BadInput(KKTFactor, lambda: KKTFactor(EYE, None, cholesky=np.array([[1.0, 0.0], [np.nan, 1.0]])),
             ValueError, ("cholesky", "NaN"), "cholesky-nan"),
    BadInput(KKTFactor, lambda: KKTFactor(EYE, None, cholesky=np.eye(3)), TypeError, ("cholesky", "(2, 2)"),
             "cholesky-shape"),
    BadInput(KKTFactor, lambda: KKTFactor(np.ones((2, 3)), None), ValueError, ("P", "square"), "P-square"),
    BadInput(KKTFactor, lambda: KKTFactor([[1.0]], None), TypeError, ("P", "array"), "P-type"),
    BadInput(KKTFactor, lambda: KKTFactor(np.ones(3), None), TypeError, ("P", "2-D"), "P-1d"),
    # QPSolution's derivative
    BadInput(QPSolution, lambda: _solution().vjp(np.ones(3)), ValueError, ("grad_x", "shape"), "vjp-shape"),
    BadInput(QPSolution, lambda: _solution().vjp(np.ones((1, 2))), ValueError, ("grad_x",), "vjp-2d"),
    BadInput(QPSolution, lambda: _solution().vjp(np.ones(2), wrt="P"), ValueError, ("wrt",), "vjp-wrt"),
    BadInput(QPSolution, lambda: _solution().vjp(np.ones(2), wrt=("Q",)), ValueError, ("wrt", "P"),
             "vjp-wrt-name"),
    BadInput(QPSolution, lambda: _solution().adjoint(np.array([1.0, np.nan])), ValueError,
             ("grad_x", "NaN"), "adjoint-nan"),
    # helpers
    BadInput(choose_backend, lambda: choose_backend(np.eye(2)), TypeError, ("qp", "QP"), "not-a-QP"),
    BadInput(kkt_residuals, lambda: kkt_residuals(BOX, np.ones(3), np.ones(1), np.ones(2)), ValueError,
             ("x", "shape"), "x-shape"),
    BadInput(kkt_residuals, lambda: kkt_residuals(BOX, np.ones(2), np.ones(1), None), ValueError,
             ("z", "required"), "z-missing"),
    BadInput(absolute_residuals, lambda: absolute_residuals(BOX, np.ones(3), np.ones(1), np.ones(2)),
             ValueError, ("x", "shape"), "abs-x-shape"),
    BadInput(absolute_residuals, lambda: absolute_residuals(BOX, np.ones(2), np.ones(1), None), ValueError,
             ("z", "required"), "abs-z-missing"),
    BadInput(absolute_residuals, lambda: absolute_residuals(np.eye(2), np.ones(2), None, None), TypeError,
             ("qp", "QP"), "abs-not-a-QP"),
    # the torch layer validates each item as QP does (issue #6)
    BadInput(qp_layer, lambda: qp_layer(torch.tensor([[1.0, 2.0], [0.0, 1.0]]), torch.zeros(2)), ValueError,
             ("P", "symmetric"), "non-symmetric"),
    BadInput(qp_layer, lambda: qp_layer(torch.diag(torch.tensor([1.0, -1.0])), torch.zeros(2),
                                        -torch.eye(2), torch.ones(2)), ValueError,
             ("P", "positive semidefinite"), "indefinite"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE, torch.zeros(3, dtype=torch.float64)), ValueError,
             ("q", "shape"), "q-shape"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE, T_ZERO, torch.ones(1, 3, dtype=torch.float64),
                                        torch.zeros(1, dtype=torch.float64)), ValueError,
             ("G", "shape"), "G-shape"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE.repeat(2, 1, 1),
                                        torch.tensor([[0.0, 0.0], [float("nan"), 0.0]], dtype=torch.float64)),
             ValueError,
             ("q", "NaN"), "q-nan"),
    BadInput(qp_layer, lambda: qp_layer(torch.stack([T_EYE, torch.diag(torch.tensor([1.0, -1.0]))]),
                                        torch.zeros(2, 2, dtype=torch.float64)), ValueError,
             ("P", "batch item 1"), "batch-item"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE, np.zeros(2)), TypeError, ("q", "tensor"), "q-numpy"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE, T_ZERO, G=T_EYE), ValueError, ("G", "h"), "h-missing"),
    BadInput(qp_layer, lambda: qp_layer(torch.ones(2), T_ZERO), ValueError, ("P", "dimensions"), "P-ndim"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE, T_ZERO, tol=-1.0), ValueError, ("tol",), "tol"),
    BadInput(qp_layer, lambda: qp_layer(T_EYE, T_ZERO, algorithm="osqp"), TypeError, ("algorithm", "DQP"),
             "algorithm"),
    BadInput(QPLayer, lambda: QPLayer(algorithm="osqp"), TypeError, ("algorithm", "DQP"), "algorithm"),
]

EXEMPT = {
    "QPFunction": "the torch.autograd.Function behind qp_layer/QPLayer; it is applied only by qp_layer, "
                  "whose cases above exercise its validation",
    "installed_backends": "takes no arguments",
    "QPStats": "counters filled by solve, not built from user input",
    "QPLayerError": "the exception the layer raises (test_bad_inputs_round10), not called with user input",
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES, exempt=EXEMPT)


# round 2 of the held-out audit (issue #43): complex bounds and a complex P were cast to their real part
# silently; a string bound was parsed; a huge valid maxiters overflowed the backend's C int (NaN answer)
def test_complex_and_string_inputs_are_named():
    P, q = np.eye(2), -np.ones(2)
    for case in (
        BadInput(QP, lambda: QP(P=P, q=q, lb=np.zeros(2) + 1j), TypeError, ("lb", "real"), "lb-complex"),
        BadInput(QP, lambda: QP(P=P, q=q, ub=np.ones(2) + 1j), TypeError, ("ub", "real"), "ub-complex"),
        BadInput(QP, lambda: QP(P=P, q=q, ub=["1", "2"]), TypeError, ("ub", "real"), "ub-str"),
        BadInput(qp_layer, lambda: qp_layer(torch.eye(2, dtype=torch.complex128), T_ZERO), TypeError,
                 ("P", "real", "complex"), "P-complex"),
    ):
        check_bad_input(case)


def test_huge_maxiters_is_clamped_for_the_backend():
    qp = QP(P=np.eye(2), q=-np.ones(2), G=np.eye(2), h=np.array([0.5, 2.0]))
    for backend in ("clarabel", "osqp"):
        default = solve(qp, DQP(backend=backend))
        huge = solve(qp, DQP(backend=backend), maxiters=2**63 - 1)  # round 12: counts are <= 2**63 - 1
        assert huge.retcode == default.retcode, backend
        np.testing.assert_allclose(huge.x, default.x, atol=1e-6)


# Round 3 of the held-out audit (#43): multipliers of rows the QP does not have were ignored (S2).
_NO_ROWS = QP(P=np.eye(2), q=np.ones(2))
ROUND3 = [
    BadInput(dqp_module.kkt_residuals,
             lambda: dqp_module.kkt_residuals(_NO_ROWS, np.ones(2), np.ones(3), None),
             ValueError, ("y", "no equalities"), "y-extra"),
    BadInput(dqp_module.kkt_residuals,
             lambda: dqp_module.kkt_residuals(_NO_ROWS, np.ones(2), None, np.ones(2)),
             ValueError, ("z", "no inequalities"), "z-extra"),
    BadInput(qp_layer, lambda: qp_layer(torch.eye(2).expand(3, 2, 2), torch.ones(2, 2)), ValueError,
             ("P: 3", "q: 2", "batch size"), "batch-mismatch"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_kkt_residuals_accepts_empty_multipliers_of_no_rows():
    assert dqp_module.kkt_residuals(_NO_ROWS, -np.ones(2), np.zeros(0), np.zeros(0))["stationarity"] == 0.0


def test_complex_point_refused_by_name():
    # #43 round 4: np.asarray(x, dtype=float) dropped the imaginary part with only a ComplexWarning
    from algorithms.qp import QP

    with pytest.raises(TypeError, match=r"^x must be real, got complex"):
        QP(P=np.eye(2), q=np.ones(2)).objective(np.array([1 + 1j, 0.0]))


def test_round4_silent_cases_refused_by_name():
    # #43 round 4 (audit4 C15, C16): a masked P lost its mask (np.asarray drops it) and multipliers given
    # for equalities the QP does not have were ignored by absolute_residuals
    from algorithms.qp import QP, absolute_residuals

    P = np.ma.masked_array(np.eye(2), mask=[[0, 1], [0, 0]])
    with pytest.raises(ValueError, match=r"^P has 1 masked entries"):
        QP(P=P, q=np.ones(2))
    qp = QP(P=np.eye(2), q=-np.ones(2), G=np.array([[1.0, 0.0]]), h=np.array([0.5]))
    with pytest.raises(ValueError, match=r"^y must be None \(or empty\): the QP has no equalities"):
        absolute_residuals(qp, np.array([0.3, 0.3]), np.array([1.0]), np.array([0.0]))


def test_round7_sparse_alias_pickle_and_empty_batch():
    # #43 round 7 (pre-audit sweep): a CSC P was kept as the caller's matrix (P.data edits after
    # construction changed the solve), a clarabel or sparse solution did not pickle (SolverStatus,
    # SuperLU), an empty batch through the layer raised IndexError
    import pickle

    P = sp.csc_matrix(np.eye(2))
    problem = QP(P=P, q=[-1.0, -1.0])
    P.data[:] = 100.0
    assert np.allclose(solve(problem, DQP()).x, [1.0, 1.0])
    for qp in (QP(P=np.eye(2), q=[-1.0, -1.0], G=np.eye(2), h=[0.5, 2.0]),
               QP(P=sp.eye(60, format="csc"), q=-np.ones(60), G=sp.eye(60, format="csc"),
                  h=0.5 * np.ones(60))):
        sol = solve(qp, DQP(backend="clarabel"))
        back = pickle.loads(pickle.dumps(sol))
        assert np.array_equal(back.x, sol.x) and back.retcode is sol.retcode
        assert np.allclose(back.vjp(np.ones(qp.n))["q"], sol.vjp(np.ones(qp.n))["q"])
    P0 = torch.eye(2, dtype=torch.float64).expand(0, 2, 2)
    q0 = torch.zeros(0, 2, dtype=torch.float64, requires_grad=True)
    x = qp_layer(P0, q0)
    assert x.shape == (0, 2) and x.dtype == torch.float64
    x.sum().backward()
    assert q0.grad.shape == (0, 2)


@pytest.mark.parametrize("backend", ["auto", "clarabel", "daqp", "osqp", "highs"])
@pytest.mark.parametrize("scale", [1e-7, 1e-12, 1e7])
def test_round7_answer_scales_with_the_units(backend, scale):
    # #43 round 7 (pre-audit sweep): with P, q ×1e-7 (or x* ~ 1e-7) the backends' absolute tolerances and
    # the KKT check's max(1, ·) floors passed a point 4e-5 from x* as Success; such a QP is now solved as
    # its equilibrated copy (powers of two) and mapped back
    objective = solve(QP(P=scale * np.eye(2), q=scale * np.array([-1.0, -1.0]), G=np.eye(2), h=[0.5, 2.0]),
                      DQP(backend=backend))
    assert objective.retcode.value == "Success" and np.allclose(objective.x, [0.5, 1.0], atol=1e-6)
    units = solve(QP(P=np.eye(2) / scale, q=np.array([-1.0, -1.0]), G=np.eye(2),
                     h=[0.5 * scale, 2.0 * scale]), DQP(backend=backend))
    assert units.retcode.value == "Success" and np.allclose(units.x, [0.5 * scale, scale], rtol=1e-6)


def test_round7_equilibrated_derivatives_match_the_unit_problem():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 4))
    P, q = M @ M.T + np.eye(4), rng.standard_normal(4)
    G, h = rng.standard_normal((3, 4)), np.abs(rng.standard_normal(3)) * 0.1 + 0.05
    A, b = rng.standard_normal((1, 4)), 0.01 * rng.standard_normal(1)
    box = {"lb": -0.3 * np.ones(4), "ub": 0.3 * np.ones(4)}
    c = 1e-9
    base = solve(QP(P=P, q=q, G=G, h=h, A=A, b=b, **box), DQP(backend="daqp"))
    small = solve(QP(P=c * P, q=c * q, G=G, h=h, A=A, b=b, **box), DQP(backend="daqp"))
    assert small._scaling is not None and np.allclose(small.x, base.x, atol=1e-9)
    g = rng.standard_normal(4)
    v0, v1 = base.vjp(g), small.vjp(g)
    for name, value in v0.items():  # x*(cP, cq) = x*(P, q): ∂/∂P and ∂/∂q are 1/c times the unit ones
        if value is not None:
            assert np.allclose(v1[name] * (c if name in "Pq" else 1.0), value, rtol=1e-6, atol=1e-8), name
    assert np.allclose(small.z / c, base.z, rtol=1e-6, atol=1e-9)
    assert np.allclose(small.z_box / c, base.z_box, rtol=1e-6, atol=1e-9)
    (x0, l0, m0), (x1, l1, m1) = base.kkt_solution, small.kkt_solution
    assert np.allclose(x1, x0) and np.allclose(l1 / c, l0, rtol=1e-6) and np.allclose(m1 / c, m0, rtol=1e-6)
    a0, a1 = base.adjoint(g), small.adjoint(g)
    assert np.allclose(a1[0] * c, a0[0], rtol=1e-6) and np.allclose(a1[2], a0[2], rtol=1e-6, atol=1e-9)
    from concurrent.futures import ThreadPoolExecutor  # vjp changes no state: threads may share a solution

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: small.vjp(g)["q"], range(8)))
    assert all(np.array_equal(r, v1["q"]) for r in results)


def test_round7_backend_options_copied_and_checked():
    options = {"eps_abs": 1e-9}
    algorithm = DQP(backend="osqp", backend_options=options)
    options["max_iter"] = 1  # an edit after construction does not reach the algorithm
    assert "max_iter" not in algorithm.backend_options
    with pytest.raises(ValueError, match=r"^backend_options\['tol_gap_abs'\] is NaN"):
        DQP(backend="clarabel", backend_options={"tol_gap_abs": float("nan")})
    with pytest.raises(TypeError, match=r"^P is required"):
        KKTFactor(None)


def test_round7_objective_checks_x():
    qp = QP(P=np.eye(2), q=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"^x must have shape \(2,\)"):
        qp.objective(np.ones((2, 1)))
    with pytest.raises(ValueError, match=r"^x contains NaN"):
        qp.objective([np.nan, 1.0])
    assert qp.objective([1.0, 1.0]) == 3.0


def test_heldout7_numpy_bools_and_hash():
    # heldout7 (first run): DQP(polish=np.True_) was refused ("polish must be a bool, got bool") and
    # hash(DQP()) failed on the backend_options dict
    algorithm = DQP(polish=np.True_, refine_active=np.False_)
    assert algorithm.polish is True and algorithm.refine_active is False
    assert hash(DQP()) == hash(DQP()) and DQP() == DQP()
    assert hash(DQP(backend_options={"eps_abs": 1e-9})) == hash(DQP(backend_options={"eps_abs": 1e-9}))
    assert len({DQP(), DQP(), DQP(kkt_tol=1e-7)}) == 2
    with pytest.raises(TypeError, match=r"^polish must be a bool"):
        DQP(polish="yes")


def test_round8_numbers_stored_as_python_types_and_backend_options_checked():
    """#43 round 8: numpy scalars stored as Python numbers; a misspelled backend option is named."""
    import qpsolvers

    alg = DQP(eps_active=np.float32(1e-5), kkt_tol=np.float64(1e-6), abs_tol=np.float32(1e-3),
              backend=np.str_("auto"))
    assert all(type(getattr(alg, k)) is float for k in ("eps_active", "kkt_tol", "abs_tol"))
    assert type(alg.backend) is str
    assert hash(alg) == hash(DQP(eps_active=float(np.float32(1e-5)), abs_tol=float(np.float32(1e-3))))
    qp = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-np.eye(2), h=np.zeros(2))
    for backend in ("piqp", "highs", "cvxopt", "osqp", "daqp"):   # the first three ignored it in silence
        if backend not in qpsolvers.available_solvers:
            continue
        with pytest.raises(ValueError, match=r"backend_options.*eps_abz"):
            solve(qp, DQP(backend=backend, backend_options={"eps_abz": 1e-3}))
    # bool and masked bounds refused by name (they were read as 0/1 and as unmasked data)
    with pytest.raises(TypeError, match=r"\blb\b"):
        QP(P=np.eye(2), q=np.zeros(2), lb=np.array([True, False]))
    with pytest.raises(ValueError, match=r"\bub\b"):
        QP(P=np.eye(2), q=np.zeros(2), ub=np.ma.array([1.0, 1.0], mask=[True, False]))
    # a cholesky factor of another matrix is refused (it was used as given: every solve answered another K)
    with pytest.raises(ValueError, match="cholesky"):
        KKTFactor(np.eye(2), None, cholesky=2.0 * np.eye(2))
    P = np.array([[4.0, 1.0], [1.0, 3.0]])
    KKTFactor(P, None, cholesky=np.linalg.cholesky(P))   # P's own factor passes


def test_round8_numpy_values_in_backend_options_reach_the_backend_as_python_values():
    """#43 round 8: cvxopt refused {"maxiters": np.int64(100)} ("must be a positive integer"): a Failure."""
    import qpsolvers

    alg = DQP(backend_options={"maxiters": np.int64(100), "abstol": np.float32(1e-7)})
    assert type(alg.backend_options["maxiters"]) is int and type(alg.backend_options["abstol"]) is float
    if "cvxopt" in qpsolvers.available_solvers:
        qp = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-np.eye(2), h=np.zeros(2))
        sol = solve(qp, DQP(backend="cvxopt", backend_options={"maxiters": np.int64(100)}))
        assert sol.retcode.value == "Success"


def test_round8_constraint_rows_far_above_unit_scale_are_equilibrated():
    """#43 round 8: G, h ×1e40 gave Success at x = (0, 0) (daqp) and Infeasible (interior-point backends)."""
    import qpsolvers

    # round 12: the working range ends at 3.4e38 (1e40 is refused by name)
    with pytest.raises(ValueError, match=r"\bG has an entry of magnitude 1e\+40, outside"):
        QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-1e40 * np.eye(2), h=np.zeros(2))
    for scale in (1e30, 3.4e38):
        qp = QP(P=np.eye(2), q=np.array([1.0, -1.0]), G=-scale * np.eye(2), h=np.zeros(2))
        for backend in ("auto", "clarabel", "daqp"):
            if backend != "auto" and backend not in qpsolvers.available_solvers:
                continue
            sol = solve(qp, DQP(backend=backend))
            assert sol.retcode.value == "Success", (scale, backend)
            assert np.allclose(sol.x, [0.0, 1.0], atol=1e-8), (scale, backend)


def test_round8_layer_is_marked_differentiable_once():
    """#43 round 8: create_graph=True gave a gradient without grad_fn (no second derivative, in silence)."""
    P = torch.eye(2, dtype=torch.float64)
    q = torch.tensor([1.0, -1.0], dtype=torch.float64, requires_grad=True)
    x = qp_layer(P, q, -P, torch.zeros(2, dtype=torch.float64))
    (g,) = torch.autograd.grad((x**2).sum(), q, create_graph=True)
    assert g.requires_grad   # torch's once_differentiable node, which refuses a second backward
    with pytest.raises(RuntimeError, match="once_differentiable"):
        g.sum().backward()


def test_round8_kkt_factor_repr_names_its_route():
    assert repr(KKTFactor(np.eye(2), np.ones((1, 2)))).startswith("KKTFactor(n=2, k=1, method=")
