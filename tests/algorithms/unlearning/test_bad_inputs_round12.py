"""#43 round 12: the working range (README) in the unlearning family, one test per class."""

import pytest

from algorithms.unlearning import Ridge


@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_a_scale_whose_zero_is_refused_refuses_a_tiny_one(tiny):
    # gamma in (0, 1]: 1e-39 zeroed the ridge weight after one step, the 0 it excludes, in silence
    with pytest.raises(ValueError, match=r"^gamma = .* is outside the package's working range"):
        Ridge(gamma=tiny)
    assert Ridge(gamma=1.2e-38).gamma == 1.2e-38
