import torch

from algorithms import RetCode, solve
from algorithms.unlearning import NegGrad, UnlearningProblem, linear_task


def test_one_step_ascends_the_forget_loss():
    prob = linear_task(n=5, d=8, n_forget=2, seed=0)
    (Xf, yf) = prob.forget
    shifted = UnlearningProblem(prob.model, prob.params, prob.retain, (Xf, yf + 1.0))
    sol = solve(shifted, NegGrad(lr=0.05), maxiters=1)
    grad = (2 / Xf.shape[0]) * Xf.T @ (Xf @ prob.params - yf[:, 0] - 1.0)
    assert torch.allclose(sol.x, prob.params + 0.05 * grad, atol=1e-14)
    assert sol.stats.forget_loss > float(shifted.loss(prob.params, shifted.forget))


def test_ascent_on_an_unfitted_forget_set_diverges():
    prob = linear_task(n=5, d=8, n_forget=2, seed=0)
    (Xf, yf) = prob.forget
    shifted = UnlearningProblem(prob.model, prob.params, prob.retain, (Xf, yf + 1.0))
    assert solve(shifted, NegGrad(lr=0.5), maxiters=5000).retcode is RetCode.Diverged
