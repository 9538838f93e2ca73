"""#43 round 12: the working range (README) in the hierarchical family, one test per class."""

import pytest

from algorithms.hierarchical import auc_minimax, synthetic_minimax


@pytest.mark.parametrize("make, name", [
    (lambda v: synthetic_minimax(coupling=v), "coupling"),
    (lambda v: synthetic_minimax(coupling=-v), "coupling"),
    (lambda v: auc_minimax(positive_fraction=v), "positive_fraction"),
])
@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_a_scale_whose_zero_is_refused_refuses_a_tiny_one(make, name, tiny):
    # 1e-39 acted as the 0 each excludes (x and y decoupled; no positive example), accepted in silence
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the package's working range"):
        make(tiny)
    make(1.2e-38)  # the range's smallest positive scale stays valid
