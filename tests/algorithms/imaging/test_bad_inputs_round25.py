"""Round 25: null_space_basis reads the rank of H with each row at its own scale (class B of #43's sweep)."""

from __future__ import annotations

import pytest
import torch

from algorithms.imaging import MatrixOperator, null_space_basis


@pytest.mark.parametrize("size", [1e30, 1e-30])
def test_one_extreme_row_leaves_the_others_directions_out_of_the_null_space(size):
    # σ = 1 of the row e2 fell below 1e-10·σ_max = 1e20 beside a row 1e30·e1: e2 came back null (H e2 = 1)
    matrix = torch.zeros(2, 4, dtype=torch.float64)
    matrix[0, 0], matrix[1, 1] = size, 1.0
    basis = null_space_basis(MatrixOperator(matrix, (2, 2)))
    assert basis.shape == (4, 2)
    assert float((matrix @ basis).abs().max()) == 0.0
    assert torch.allclose(basis.T @ basis, torch.eye(2, dtype=torch.float64), atol=1e-12)
