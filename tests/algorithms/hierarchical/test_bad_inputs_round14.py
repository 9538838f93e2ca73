"""Round 14: hierarchical's documented ranges held to (red14b findings)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms.hierarchical import quadratic_bilevel


@pytest.mark.parametrize("l_g1, seed", [(1e16, 5), (1e12, 0), (3.4e38, 1)])
def test_quadratic_bilevel_refuses_a_ratio_whose_float64_A_misses_mu_g(l_g1, seed):
    # l_g1/mu_g = 1e16 drew an indefinite A (min eigenvalue −0.25) reported as mu_g = 1
    with pytest.raises(ValueError, match=r"^mu_g = 1\.0 and l_g1 = .*(smallest eigenvalue|singular)"):
        quadratic_bilevel(mu_g=1.0, l_g1=l_g1, dim_y=4, seed=seed)


@pytest.mark.parametrize("mu_g, l_g1", [(1.0, 1e9), (1.2e-38, 1.2e-38), (3.4e38, 3.4e38), (0.5, 2.0)])
def test_quadratic_bilevel_attains_mu_g_inside_the_stated_ratio(mu_g, l_g1):
    prob = quadratic_bilevel(mu_g=mu_g, l_g1=l_g1, dim_y=4, seed=5)
    A = np.column_stack([prob.lower_hvp(prob.x0, prob.y0, e, None)[1] for e in np.eye(4)])
    assert abs(np.linalg.eigvalsh(A)[0] - mu_g) <= 1e-6 * mu_g


def test_a_tiny_representable_grad_phi_is_not_read_as_stationary():
    # √(v·v) of ∇Φ = 4e-170 underflowed to 0: SGDA reported Success at x0 = 2 (x* = 0) with 0 iterations
    from algorithms import solve
    from algorithms.hierarchical import SGDA, MinimaxProblem

    s = 1e-170
    prob = MinimaxProblem(lambda x, y, rng: (s * (y + x), s * (x - y)), lambda x: float(s * x[0] ** 2),
                          lambda x: 2 * s * x, np.array([2.0]), np.array([0.0]))
    sol = solve(prob, SGDA(), maxiters=100)
    assert sol.retcode.name != "Success" and sol.original["grad_phi_norm"][0] > 0


@pytest.mark.parametrize("name", ["SGDA", "TiAda", "AdaMinimax"])
def test_the_minimax_methods_refuse_a_maxiters_past_the_oracle_budget(name):
    # maxiters = 10**9 with a tol never met ran for hours (the bilevel methods refused it already)
    import algorithms.hierarchical as H
    from algorithms import solve

    kwargs = {"lr_x": 1.0, "lr_y": 1.0} if name == "TiAda" else {}
    with pytest.raises(ValueError, match=r"maxiters = 1000000000"):
        solve(H.synthetic_minimax(coupling=0.5**0.5), getattr(H, name)(**kwargs), maxiters=10**9, tol=1.2e-38)


def test_synthetic_minimax_in_float32_names_a_coupling_past_its_range():
    # coupling = 1e20 at x0 = 2 constructed, then phi(x0) raised "x is too large", naming x
    from algorithms.hierarchical import synthetic_minimax

    with pytest.raises(ValueError, match=r"^coupling = 1e\+20 with x0 = 2\.0"):
        synthetic_minimax(coupling=1e20, dtype=np.float32)
    synthetic_minimax(coupling=1e20)  # float64 holds Φ(x0) = 2e40


@pytest.mark.parametrize("which", ["grad", "phi", "grad_phi"])
def test_minimax_oracles_answering_low_precision_scalars_are_refused(which):
    # a list of np.float32 (or an np.float16 Φ) passed where the same values as a float32 array were refused
    from algorithms import solve
    from algorithms.hierarchical import SGDA, MinimaxProblem

    c = 0.5**0.5
    oracles = {"grad": lambda x, y, rng: (-np.sin(x) + c * y, c * x - y), "phi": lambda x: 1.0,
               "grad_phi": lambda x: 0.5 * x - np.sin(x)}
    low = {"grad": lambda x, y, rng: ([np.float32(v) for v in -np.sin(x) + c * y],
                                      [np.float32(v) for v in c * x - y]),
           "phi": lambda x: np.float16(1.0),
           "grad_phi": lambda x: [np.float32(v) for v in 0.5 * x - np.sin(x)]}
    oracles[which] = low[which]
    with pytest.raises(TypeError, match=r"must return floats at least as precise as the iterates"):
        prob = MinimaxProblem(oracles["grad"], oracles["phi"], oracles["grad_phi"], np.array([2.0]),
                              np.array([0.0]))
        solve(prob, SGDA(), maxiters=5)
