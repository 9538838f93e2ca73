"""Round 14: valid inputs answered right (exact Fractions as the reference)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch

from algorithms.unlearning import DeepLinear, balanced_factorization, strength_schedule

_TOP = Fraction(3.4028234663852886e38)


def _reference(lambda_reg: float, gamma_reg: float, epochs: int) -> list[Fraction]:
    lam, out = 1 / Fraction(lambda_reg) - 1, []
    for _ in range(epochs):
        out.append(min(lam, _TOP))
        lam = min((lam + 1) / Fraction(gamma_reg) - 1, _TOP)
    return out


@pytest.mark.parametrize("lambda_reg", [1.0, 1 - 2**-53, 1 - 1e-10, 0.5, 0.3, 1e-5, 1.2e-38])
@pytest.mark.parametrize("gamma_reg", [1.0, 1 - 2**-53, 1 - 1e-12, 0.9, 0.5, 0.1, 1.2e-38])
def test_strength_schedule_is_the_float_nearest_each_exact_strength(lambda_reg, gamma_reg):
    # (λ + 1)/γ − 1 cancelled: γ = 1 − 2**-53 gave 2.2e-16 for 1.1e-16, and the drift grew per projection
    for got, ref in zip(strength_schedule(lambda_reg, gamma_reg, 60), _reference(lambda_reg, gamma_reg, 60)):
        assert got == float(ref) or (ref == _TOP and got == float(_TOP)), (got, float(ref))
    assert strength_schedule(lambda_reg, gamma_reg, 3, final_descent=1)[-1] == math.inf


def test_balanced_factorization_of_a_float32_predictor_near_its_top():
    # ρ = ‖w‖ = 4.2e38 overflowed float32: θ was inf (s = ρ^(1/3) = 7.5e12 fits)
    net = DeepLinear(2, (2, 3), seed=0, dtype=torch.float32)
    theta = balanced_factorization(net, torch.tensor([3e38, 3e38], dtype=torch.float32))
    rho = math.hypot(float(np.float32(3e38)), float(np.float32(3e38)))
    assert theta.dtype == torch.float32 and bool(torch.isfinite(theta).all())
    assert math.isclose(float(theta.double() @ theta.double()), 3 * rho ** (2 / 3), rel_tol=1e-6)
