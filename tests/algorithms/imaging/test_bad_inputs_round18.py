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


# ---- a misspelt attribute set after construction is refused by name (stored and ignored before; red18a)
def _misspelt_cases():

    cases = {}
    from algorithms.imaging import (
        NullSpaceNet,
        NullSpaceProjector,
        ResidualDenoiser,
        gaussian_cs,
        qr_null_rows,
    )
    H = gaussian_cs((4, 4), 0.5, seed=0)
    cases["NullSpaceProjector.image_shapee"] = (lambda: NullSpaceProjector(H), "image_shapee", (2, 8))
    cases["ResidualDenoiser.channelss"] = (lambda: ResidualDenoiser(channels=2), "channelss", 8)
    cases["NullSpaceNet.scal"] = (lambda: NullSpaceNet(H, qr_null_rows(H, 4, 0), channels=2), "scal", 2.0)
    net = lambda: NullSpaceNet(H, qr_null_rows(H, 4, 0), channels=2)  # noqa: E731
    cases["NullSpaceNet.channelss"] = (net, "channelss", 8)
    return cases


@pytest.mark.parametrize("case", list(_misspelt_cases()))
def test_misspelt_attribute_refused(case):
    from algorithms._validation import UnknownAttributeError
    make, name, value = _misspelt_cases()[case]
    obj = make()
    with pytest.raises(UnknownAttributeError, match=f"takes no attribute '{name}'"):
        setattr(obj, name, value)
    assert name not in vars(obj)
