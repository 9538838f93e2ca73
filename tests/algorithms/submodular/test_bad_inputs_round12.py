"""#43 round 12: the working range (README) in the submodular family, one test per class."""

import pytest

from algorithms.submodular import DynamicMatchoid


@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_a_scale_whose_zero_is_refused_refuses_a_tiny_one(tiny):
    # eps in (0, 1): 5e-324 ran the guesses over float's whole range in silence
    with pytest.raises(ValueError, match=r"^eps = .* is outside the package's working range"):
        DynamicMatchoid(eps=tiny)
    assert DynamicMatchoid(eps=1.2e-38).eps == 1.2e-38
