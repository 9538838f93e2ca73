"""Round 16 bad/extreme inputs of algorithms.imaging (one test per class)."""

import pytest
import torch

from algorithms.imaging import train as train_module


@pytest.mark.parametrize("seed", [2**60, 2**64 - 1])
def test_train_takes_every_documented_seed(seed, tmp_path, monkeypatch):
    """seed is documented in [0, 2**64): one past 2**64/1000 met torch's bare "Overflow when unpacking long
    long" (the batch generator was seeded with seed·1000 + step)."""
    monkeypatch.setattr(train_module, "checkpoint_path", lambda name: tmp_path / f"{name}.pt")
    saved = train_module.train("denoiser", steps=1, seed=seed, progress=False)
    assert saved["seed"] == seed and saved["step"] == 1
    assert all(bool(torch.isfinite(v).all()) for v in saved["model"].values())
