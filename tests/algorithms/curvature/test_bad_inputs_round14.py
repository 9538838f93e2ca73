"""Round 14: curvature checks relative to the data's own scale (red14b findings)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms.curvature import lcd1_step


@pytest.mark.parametrize("scale", [1e-9, 1e-30, 1.0, 1e30])
@pytest.mark.parametrize("C, words", [([[1.0, 0.0], [0.0, -1.0]], "positive semidefinite"),
                                      ([[1.0, 0.9], [0.0, 1.0]], "symmetric")])
def test_an_invalid_curvature_is_refused_at_every_scale(scale, C, words):
    # max(1, max|C|) as the scale took an indefinite or asymmetric C of 1e-9 (refused at scale 1)
    with pytest.raises(ValueError, match=rf"^C must be {words}"):
        lcd1_step(np.zeros(2), np.ones(2), scale * np.array(C), 0.0)
