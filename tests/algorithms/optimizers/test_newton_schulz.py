import numpy as np
import pytest
import torch
from torch.optim._muon import _zeropower_via_newtonschulz

from algorithms.optimizers import CUBIC_COEFFICIENTS, QUINTIC_COEFFICIENTS, newton_schulz, singular_value_map


@pytest.mark.parametrize("shape", [(7, 4), (4, 7), (5, 5)])
def test_acts_on_singular_values_only(shape):
    g = torch.randn(shape, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    u, s, vh = torch.linalg.svd(g, full_matrices=False)
    expected = u @ torch.diag(torch.as_tensor(singular_value_map((s / g.norm()).numpy()))) @ vh
    torch.testing.assert_close(newton_schulz(g, dtype=torch.float64), expected, rtol=0, atol=1e-12)


def test_bfloat16_reproduces_torch():
    g = torch.randn(6, 9, generator=torch.Generator().manual_seed(2))
    assert torch.equal(newton_schulz(g), _zeropower_via_newtonschulz(g, QUINTIC_COEFFICIENTS, 5, 1e-7))


def test_scalar_map_by_hand():
    a, b, c = QUINTIC_COEFFICIENTS
    x = 0.3
    once = a * x + b * x**3 + c * x**5
    assert singular_value_map(x, ns_steps=1) == pytest.approx(once, rel=1e-15)
    assert singular_value_map(x, ns_steps=2) == pytest.approx(a * once + b * once**3 + c * once**5, rel=1e-15)


def test_cubic_converges_to_one_slowly():
    assert singular_value_map(0.5, CUBIC_COEFFICIENTS, ns_steps=30) == pytest.approx(1.0, abs=1e-12)
    assert singular_value_map(0.01, CUBIC_COEFFICIENTS, ns_steps=5) < 0.1
    # the quintic reaches the band from small singular values in the same 5 steps
    assert 0.6 < singular_value_map(0.01) < 1.25


def test_zero_matrix_stays_zero():
    zero = torch.zeros(3, 2, dtype=torch.float64)
    assert torch.equal(newton_schulz(zero, dtype=torch.float64), zero)


def test_zero_steps_is_the_normalized_input():
    g = torch.tensor([[3.0, 0.0], [0.0, 4.0]], dtype=torch.float64)
    torch.testing.assert_close(newton_schulz(g, ns_steps=0, dtype=torch.float64), g / 5.0)
    np.testing.assert_allclose(singular_value_map([0.2], ns_steps=0), [0.2])
