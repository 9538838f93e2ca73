"""Round 23 of #43 in the attention family: docstring promises at their boundaries (class K)."""

import numpy as np
import pytest

from algorithms.attention import SingleLocationProblem


@pytest.mark.parametrize("dtype, stored", [
    ("float32", np.float32), ("float64", np.float64), (np.dtype("float32"), np.float32),
    (np.float64, np.float64),
])
def test_problem_dtype_takes_each_spelling_of_float32_and_float64(dtype, stored):
    # the docstring's "dtype float64 or float32": the string "float32" (the other families' spelling, read by
    # check_float_dtype) was refused here
    problem = SingleLocationProblem(d=4, L=2, gamma=0.5, dtype=dtype)
    assert problem.dtype is stored
    assert problem == SingleLocationProblem(d=4, L=2, gamma=0.5, dtype=stored)


@pytest.mark.parametrize("dtype", ["float16", np.float16, "complex64", None, "x", np.float32(1.0)])
def test_problem_dtype_other_than_float32_or_float64_is_refused_by_name(dtype):
    with pytest.raises(TypeError, match=r"dtype must be numpy\.float32 or numpy\.float64"):
        SingleLocationProblem(d=4, L=2, gamma=0.5, dtype=dtype)


@pytest.mark.parametrize("lr", [1e19, 1e25])
def test_spherical_gd_float32_finite_step_is_not_diverged(lr):
    # the step's norm was taken in float32, squaring ~1e19 entries to inf: Diverged though nothing overflowed
    # (the float64 twin ran to MaxIters; red23b)
    from algorithms import solve
    from algorithms.attention import SphericalGD

    for dtype in (np.float64, np.float32):
        problem = SingleLocationProblem(d=6, L=3, gamma=0.5, n_samples=50, dtype=dtype)
        assert solve(problem, SphericalGD(lr=lr), maxiters=20).retcode.name == "MaxIters"


def _reference_p(problem, mu):
    """p(μ) = 1/(1 + e^{−(sμ − ψ)βd}) of the float inputs at 80 digits (the docstring's formula)."""
    import mpmath
    with mpmath.workdps(80):
        g, b = mpmath.mpf(problem.gamma), mpmath.mpf(problem.beta)
        s = mpmath.sqrt(1 - g * g) if problem.variant == "dohmatob" else mpmath.sqrt(mpmath.mpf(1) / 2)
        alpha = mpmath.log(problem.L - 1) / problem.d
        psi = alpha / b + b / 2 if b < mpmath.sqrt(2 * alpha) else mpmath.sqrt(2 * alpha)
        return float(1 / (1 + mpmath.exp(-(s * mpmath.mpf(mu) - psi) * b * problem.d)))


def _boundary_cases():
    import math
    cases = []
    for d, L, gamma, beta, variant in [(4, 3, 0.6, 1e10, "dohmatob"), (4, 3, 0.6, 1e3, "dohmatob"),
                                       (10, 1000, 0.3, 0.5, "dohmatob"), (6, 20, 0.5, 1e14, "marion")]:
        problem = SingleLocationProblem(d=d, L=L, gamma=gamma, beta=beta, variant=variant)
        alpha = math.log(L - 1) / d
        psi = alpha / beta + beta / 2 if beta < math.sqrt(2 * alpha) else math.sqrt(2 * alpha)
        mu = psi / problem.signal_scale  # sμ ≈ ψ: the logit cancels, βd magnifies the rest
        if abs(mu) <= 1:
            cases += [(problem, mu), (problem, math.nextafter(mu, 2.0))]
    return cases


@pytest.mark.parametrize("problem, mu", _boundary_cases())
def test_locate_probability_keeps_its_digits_where_s_mu_cancels_psi(problem, mu):
    # (sμ − ψ)βd in float64 cancelled at sμ ≈ ψ and βd magnified the rounding of s and ψ: p = 0.5 returned
    # for 0.4999993 (β = 1e10), a wrong value in silence (the class of the curvature gd_step case)
    import torch

    from algorithms.attention import locate_probability, mean_field_risk
    expected = _reference_p(problem, mu)
    assert abs(locate_probability(problem, mu) - expected) <= 1e-12 * expected
    tensor = locate_probability(problem, torch.tensor([mu], dtype=torch.float64))
    assert abs(float(tensor[0]) - expected) <= 1e-12 * expected
    # the risk carries p: at ν = 1, ζ = ρ = 0 it is γ²(p² − 2p + 1) = γ²(1 − p)²
    q = 1 - expected
    risk = mean_field_risk(problem, mu, 1.0, 0.0, 0.0) if problem.variant == "dohmatob" else None
    if risk is not None:
        assert abs(risk - problem.gamma**2 * q * q) <= 1e-12 * problem.gamma**2 * q * q


@pytest.mark.parametrize("d, L, link, epsilon", [(6, 3, "linear", 0.0), (5, 4, "relu", 0.1),
                                                 (4, 2, "quadratic", 1.0)])
def test_a_float32_problem_draws_its_float64_twins_sample_rounded(d, L, link, epsilon):
    # torch's float32 randn is another stream: the float32 problem drew an unrelated sample (max difference
    # 3.2) and SphericalGD from the same seed reached another answer (red23b)
    import torch

    from algorithms.attention import sample_batch
    p64 = SingleLocationProblem(d=d, L=L, gamma=0.5, link=link, epsilon=epsilon)
    p32 = SingleLocationProblem(d=d, L=L, gamma=0.5, link=link, epsilon=epsilon, dtype=np.float32)
    X64, y64, j64 = sample_batch(p64, 7, seed=3)
    X32, y32, j32 = sample_batch(p32, 7, seed=3)
    assert X32.dtype == y32.dtype == torch.float32
    assert torch.equal(j64, j32)
    assert torch.equal(X64.to(torch.float32), X32) and torch.equal(y64.to(torch.float32), y32)


def _phase_boundary_cases():
    import math
    cases = []
    for alpha in (0.1, 0.32, 1.7, 3.3, 1e-30, 2.5e37):
        beta = math.sqrt(2 * alpha)
        cases += [(alpha, beta), (alpha, math.nextafter(beta, 0.0)), (alpha, math.nextafter(beta, math.inf))]
    return cases


@pytest.mark.parametrize("alpha, beta", _phase_boundary_cases())
def test_thermodynamics_decides_the_phase_exactly_at_beta_crit(alpha, beta):
    # β < β_c was compared with the rounded √(2α): β = fl(√(2α)) or a neighbour got the wrong "frozen" (about
    # one boundary case in six) while learnable() decides the same boundary exactly
    from fractions import Fraction

    from algorithms.attention import thermodynamics
    out = thermodynamics(alpha, beta)
    frozen = Fraction(beta) ** 2 >= 2 * Fraction(alpha)
    assert out["frozen"] is frozen
    assert out["r"] == (out["beta_crit"] if frozen else beta) and out["r"] <= beta


@pytest.mark.parametrize("function", ["locate_probability", "top_score_probability"])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_an_overlap_within_the_stated_rounding_slack_is_taken_and_one_past_it_refused(function, sign):
    import algorithms.attention as attention
    problem = SingleLocationProblem(d=6, L=3, gamma=0.5)
    call = getattr(attention, function)
    assert 0.0 <= call(problem, sign * (1 + 1e-10)) <= 1.0
    with pytest.raises(ValueError, match="mu"):
        call(problem, sign * (1 + 1e-8))


@pytest.mark.parametrize("beta, step", [(1e3, 0), (1e3, 1), (1e3, -3), (1e5, 0), (30.0, 2)])
def test_a_float32_overlap_tensor_gets_p_of_its_own_value_to_float32_precision(beta, step):
    # the logit (sμ − ψ)βd was formed in float32: its rounding (~1e-7) times βd moved p by 1e-4 (β = 1e3) up
    # to 0 vs 1 (β = 1e10) near sμ = ψ; now formed in float64, the result cast to float32
    import math

    import torch

    from algorithms.attention import locate_probability
    problem = SingleLocationProblem(d=4, L=3, gamma=0.6, beta=beta)
    alpha = math.log(2) / 4
    psi = alpha / beta + beta / 2 if beta < math.sqrt(2 * alpha) else math.sqrt(2 * alpha)
    mu32 = np.float32(psi / problem.signal_scale)
    for _ in range(abs(step)):
        mu32 = np.nextafter(mu32, np.float32(np.sign(step)))
    expected = _reference_p(problem, float(mu32))
    got = locate_probability(problem, torch.tensor([mu32], dtype=torch.float32))
    assert got.dtype == torch.float32
    assert abs(float(got[0]) - expected) <= 1e-6 * expected


@pytest.mark.parametrize("dtype_name, scale, tol", [("float32", 1e-39, 1e-5), ("float32", 1e-44, 0.5),
                                                   ("float64", 1e-320, 1e-2), ("float64", 1e-300, 1e-12)])
def test_fit_linear_predictor_on_tiny_tokens_predicts_finite_values(dtype_name, scale, tol):
    # coef / scale overflowed for tokens of 1e-39 (float32) / 1e-320 (float64): predict answered inf or NaN on
    # the very data it was fitted to ("finite", its docstring says)
    import torch

    from algorithms.attention import fit_linear_predictor
    dtype = getattr(torch, dtype_name)
    X = torch.randn(40, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = (X[:, 0, 0] + 1.0).to(dtype)
    tokens = (X * scale).to(dtype)
    predicted = fit_linear_predictor(tokens, y)(tokens)
    assert bool(torch.isfinite(predicted).all())
    assert float((predicted - y).abs().max()) <= tol * float(y.abs().max()) + tol
