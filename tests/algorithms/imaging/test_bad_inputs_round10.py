"""#43 round 10 (pre-audit sweep) of algorithms.imaging: ``train``'s ``steps`` was uncapped (2**31 − 1 steps
would run for years), a non-str ``name`` was a ValueError, and resuming a checkpoint with another ``seed``
mixed two runs in silence."""

import pytest

from algorithms.imaging.train import MAX_STEPS, train


def test_train_steps_capped_and_checkpoint_seed_checked():
    with pytest.raises(ValueError, match=r"\bsteps must be <= MAX_STEPS"):
        train("denoiser", steps=MAX_STEPS + 1, progress=False)
    with pytest.raises(TypeError, match=r"\bsteps\b"):
        train("denoiser", steps=True, progress=False)
    with pytest.raises(TypeError, match=r"\bname must be a str"):
        train(["denoiser"], progress=False)
    # the shipped denoiser checkpoint was trained with seed 0
    with pytest.raises(ValueError, match=r"\bseed must be the seed the checkpoint"):
        train("denoiser", steps=1, seed=1, progress=False)
