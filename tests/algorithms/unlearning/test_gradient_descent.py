import torch

from algorithms import RetCode, solve
from algorithms.unlearning import GradientDescent, UnlearningProblem, linear_task


def _off(prob, shift=0.2):
    return UnlearningProblem(prob.model, prob.params + shift, prob.retain, prob.forget)


def test_iterates_are_plain_gradient_steps():
    prob = _off(linear_task(n=4, d=6, n_forget=1, seed=1))
    X, y = prob.retain
    theta = prob.params.clone()
    for _ in range(3):
        theta = theta - 0.1 * (2 / X.shape[0]) * X.T @ (X @ theta - y[:, 0])
    sol = solve(prob, GradientDescent(lr=0.1), maxiters=3)
    assert sol.retcode is RetCode.MaxIters and torch.allclose(sol.x, theta, atol=1e-14)


def test_converges_to_an_interpolator_keeping_the_kernel_component():
    prob = _off(linear_task(n=4, d=6, n_forget=1, seed=1))
    sol = solve(prob, GradientDescent(lr=0.2), maxiters=5000)
    X = prob.retain[0]
    kernel = torch.eye(6, dtype=X.dtype) - torch.linalg.pinv(X) @ X
    assert sol.retcode is RetCode.Success and sol.stats.retain_loss < 1e-18
    # GD never touches the null space of X_r: it keeps θ*'s component there (not the min-norm answer)
    assert torch.allclose(kernel @ sol.x, kernel @ prob.params, atol=1e-10)
    assert sol.stats.distance_to_retrain > 0.1


def test_at_an_interpolator_it_stops_at_once():
    prob = linear_task(n=4, d=6, n_forget=1, seed=1)
    sol = solve(prob, GradientDescent(lr=0.5), store_trace=True)
    assert sol.retcode is RetCode.Success and sol.stats.iterations == 0 and torch.equal(sol.x, prob.params)
    assert len(sol.trace) == 1
