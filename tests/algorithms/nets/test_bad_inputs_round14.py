"""Round 14 bad inputs of the nets family (one test per class, asserting the type and the argument's name)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import solve
from algorithms.nets.gd_map import GDMap, StrictSaddle


@pytest.mark.parametrize("maxiters", [2**31 - 1, 10**7])
def test_gdmap_refuses_a_run_estimated_past_its_time_limit(maxiters):
    # 2**31 - 1 steps at lr = 1e-30 (tol never met) ran for about 33 hours
    with pytest.raises(ValueError, match="maxiters"):
        solve(StrictSaddle(a=[1.0], b=[1.0], x0=[1.0, 0.0]), GDMap(lr=1e-30), maxiters=maxiters)


def test_gdmap_takes_maxiters_inside_the_limit():
    assert solve(StrictSaddle(a=[1.0], b=[1.0]), GDMap(lr=0.1), maxiters=2_000_000, seed=0).successful


@pytest.mark.parametrize("maxiters", [2**31 - 1, 600_001])
@pytest.mark.parametrize("which", ["sgd", "sam"])
def test_sgd_and_sam_training_refuse_runs_past_max_steps(maxiters, which):
    # 2**31 - 1 steps (a valid count) at milliseconds each ran for weeks
    from algorithms.nets.sam import SAMTraining, SGDTraining, parity_task

    algorithm = SGDTraining(lr=0.01, batch_size=1) if which == "sgd" else SAMTraining(lr=0.01, rho=0.01,
                                                                                        batch_size=1)
    with pytest.raises(ValueError, match="maxiters"):
        solve(parity_task(n=4, in_features=3, width=2, seed=0), algorithm, maxiters=maxiters)


@pytest.mark.parametrize("hessians, psd", [
    (1e-12 * np.array([[[1.0, 1.0], [0.0, 1.0]]]), False),        # asymmetric at scale 1e-12
    (1e-20 * np.array([[[2.0, 0.0], [1e-3, 1.0]]]), False),
    (np.diag([1e-12, -1e-14])[None], True),                       # indefinite at scale 1e-12
    (np.diag([0.5, -0.75e-8])[None], True),
])
def test_check_hessians_is_relative_below_scale_one(hessians, psd):
    # symmetry and PSD were tested against rtol·max(1, max|entry|): a floor of 1 took these as valid
    from algorithms.nets.stability import check_hessians

    with pytest.raises(ValueError, match="hessians"):
        check_hessians("hessians", hessians, psd=psd)


@pytest.mark.parametrize("c", [[1.0, 2.0], [0.5, 3.0, 0.001]])
def test_sam_returns_to_theta_exactly_at_a_huge_rho(c):
    # heldout15: second_step subtracted ε from θ + ε; at rho = 1e10 that moved the weights by 5.6e-7 with
    # lr = 0 (and 1.5e-6 relative off the SGD step at lr = 1e-20); the saved θ is restored now
    import torch

    from algorithms.nets import SAM

    c = torch.tensor(c, dtype=torch.float64)
    for lr in (0.0, 1e-20):
        theta = torch.nn.Parameter(torch.ones_like(c))
        optimizer = SAM([theta], torch.optim.SGD, rho=1e10, lr=lr)

        def closure(theta=theta, optimizer=optimizer):
            optimizer.zero_grad()
            loss = (c * theta**2).sum() / 2
            loss.backward()
            return loss

        optimizer.step(closure)
        # the SGD step from θ = 1 with the gradient at θ + ε: lr · c ⊙ (1 + ε), ε = 1e10 · c/‖c‖
        eps = 1e10 * c / (torch.linalg.vector_norm(c) + 1e-12)
        expected = torch.ones_like(c) - lr * c * (1 + eps)
        assert torch.equal(theta.detach(), expected) if lr == 0 else \
            torch.allclose(theta.detach(), expected, rtol=1e-15, atol=0)
