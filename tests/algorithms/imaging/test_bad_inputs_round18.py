"""Round 18 (issue #43): state changed after construction, then used (imaging)."""
import pytest
import torch

from algorithms.imaging import NullSpaceProjector, gaussian_cs


@pytest.mark.parametrize("shape", [(2, 8), (8, 2), (4, 4, 1), "x"])
def test_null_space_projector_image_shape_is_fixed(shape):
    # P.image_shape = (2, 8) projected 2×8 images with the 4×4 geometry, a wrong P x in silence
    P = NullSpaceProjector(gaussian_cs((4, 4), 0.5, seed=0))
    with pytest.raises(ValueError, match="image_shape is fixed"):
        P.image_shape = shape
    assert P.image_shape == (4, 4)
    with pytest.raises(ValueError, match="x must have shape"):
        P(torch.randn(2, 8, dtype=torch.float64))


def test_null_space_projector_image_shape_same_value_still_projects():
    H = gaussian_cs((4, 4), 0.5, seed=0)
    P = NullSpaceProjector(H)
    x = torch.randn(4, 4, dtype=torch.float64)
    assert float(torch.linalg.vector_norm(H(P(x)))) < 1e-12
