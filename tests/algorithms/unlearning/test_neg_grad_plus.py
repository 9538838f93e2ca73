import torch

from algorithms import solve
from algorithms.unlearning import NegGradPlus, UnlearningProblem, linear_task


def test_step_combines_descent_on_retain_and_ascent_on_forget():
    prob = linear_task(n=5, d=8, n_forget=2, seed=2)
    (Xr, yr), (Xf, yf) = prob.retain, prob.forget
    shifted = UnlearningProblem(prob.model, prob.params, (Xr, yr + 0.5), (Xf, yf - 0.5))
    sol = solve(shifted, NegGradPlus(lr=0.05, alpha=0.3), maxiters=1)
    g_r = (2 / Xr.shape[0]) * Xr.T @ (Xr @ prob.params - yr[:, 0] - 0.5)
    g_f = (2 / Xf.shape[0]) * Xf.T @ (Xf @ prob.params - yf[:, 0] + 0.5)
    assert torch.allclose(sol.x, prob.params - 0.05 * (g_r - 0.3 * g_f), atol=1e-14)


def test_alpha_zero_is_gradient_descent():
    from algorithms.unlearning import GradientDescent

    prob = linear_task(n=5, d=8, n_forget=2, seed=2)
    moved = UnlearningProblem(prob.model, prob.params + 0.1, prob.retain, prob.forget)
    a = solve(moved, NegGradPlus(lr=0.1, alpha=0.0), maxiters=4)
    b = solve(moved, GradientDescent(lr=0.1), maxiters=4)
    assert torch.equal(a.x, b.x)
