"""Unit tests of the phase map: learnable iff √(1 − γ²) > ψ(α, β)."""

import math

import numpy as np

from algorithms.attention import learnable, phase_map, plot_phase_map, thermodynamics


def test_learnable_boundary():
    alpha, beta = 0.3, 1.0
    gamma_c = math.sqrt(1 - thermodynamics(alpha, beta)["psi"] ** 2)
    assert learnable(0.99 * gamma_c, alpha, beta) and not learnable(1.01 * gamma_c, alpha, beta)


def test_phase_map_monotone_in_noise_and_length():
    grid = phase_map(np.linspace(0.05, 0.95, 15), np.linspace(0.02, 0.9, 12), beta=0.7)
    assert grid.shape == (15, 12)
    # more noise or longer sequences never make a learnable instance unlearnable the other way
    assert np.all(grid[:-1] >= grid[1:]) and np.all(grid[:, :-1] >= grid[:, 1:])
    assert grid[0, 0] and not grid[-1, -1]


def test_plot_written(tmp_path):
    path = plot_phase_map(tmp_path / "map.png", size=10)
    assert path.exists() and path.stat().st_size > 1000
