"""#43 round 9 (pre-audit sweep) of algorithms.attention: an inverse temperature λ = β√d that overflows
(NaN softmax weights in silence), a λ·score product that overflows (the softmax's limit instead), the
fitted predictor's argument named as its signature names it, a 0-d array as ``dtype``."""

import numpy as np
import pytest
import torch

from algorithms.attention import (
    SingleLocationProblem,
    SoftmaxAttention,
    fit_linear_predictor,
    monte_carlo_risk,
)


def test_overflowing_inverse_temperature_refused():
    # round 12: past the working range (3.4e38), named as such
    with pytest.raises(ValueError, match=r"\bbeta = 1e\+308 is outside the package's working range"):
        SingleLocationProblem(d=8, L=4, gamma=0.6, beta=1e308)
    with pytest.raises(ValueError, match=r"\bbeta = 1e\+308 is outside the package's working range"):
        SoftmaxAttention(8, beta=1e308)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_huge_finite_temperature_gives_the_argmax_limit(dtype):
    """β at the top of the working range: λ = β√d overflows float32 (inf · 0 gave NaN weights in silence
    in a float32 model); the argmax limit, in either dtype."""
    X = torch.randn(5, 4, 8, dtype=torch.float64, generator=torch.Generator().manual_seed(0)) * 1e10
    X = X.to(dtype)
    out = SoftmaxAttention(8, beta=3.4e38, dtype=dtype)(X)
    assert bool(torch.isfinite(out).all())
    assert torch.allclose(out, SoftmaxAttention(8, beta=1e30, dtype=dtype)(X))
    problem = SingleLocationProblem(d=8, L=4, gamma=0.6, beta=3.4e38,
                                    dtype=np.float32 if dtype == torch.float32 else np.float64)
    risk = monte_carlo_risk(problem, *problem.oracle(), n=50)
    assert all(np.isfinite(v) for v in risk.values())


def test_predict_names_its_argument():
    X = torch.randn(40, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    predict = fit_linear_predictor(X, X[:, 0, 0])
    with pytest.raises(TypeError, match=r"\bX\b must be a torch tensor"):
        predict("X")
    with pytest.raises(ValueError, match=r"\bX\b contains NaN"):
        predict(torch.full((2, 2, 3), float("nan"), dtype=torch.float64))
    predict(X=X[:2])  # the keyword its signature and docstring name


def test_zero_dimensional_dtype_named():
    with pytest.raises(TypeError, match=r"dtype must be numpy.float32 or numpy.float64"):
        SingleLocationProblem(d=8, L=4, gamma=0.6, dtype=np.array(0.5))


def test_vector_of_another_length_names_d():
    problem = SingleLocationProblem(d=8, L=4, gamma=0.6)
    u = torch.ones(4, dtype=torch.float64) / 2
    with pytest.raises(ValueError, match=r"\bu\b must have shape \(8,\) \(the problem's token dimension"):
        monte_carlo_risk(problem, u, problem.oracle()[1])


def test_monte_carlo_sample_count_past_the_budget_refused():
    """n = 2**31 − 1 sampled for hours (a hang)."""
    problem = SingleLocationProblem(d=8, L=4, gamma=0.6)
    with pytest.raises(ValueError, match=r"n must keep n·L <= 2\*\*26 tokens"):
        monte_carlo_risk(problem, *problem.oracle(), n=2**31 - 1)


def test_heldout9_sparse_overlap_vectors_named():
    from algorithms.attention import overlaps

    u = torch.zeros(8, dtype=torch.float64)
    u[0] = 1.0
    v = torch.zeros(8, dtype=torch.float64)
    v[1] = 1.0
    for name in ("u", "v", "u_star"):
        args = {"u": u, "v": v, "u_star": u, "v_star": v}
        args[name] = args[name].to_sparse()
        with pytest.raises(TypeError, match=rf"{name} must be a dense"):
            overlaps(**args)
