"""Round 20: train(resume=True) on optimizer/generator state train never writes (red20b)."""

import copy

import pytest
import torch

from algorithms.routing.train import train

KW = dict(problem="tsp", size=5, steps=2, batch=1, samples=2, hidden=4, layers=1, progress=False)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("resume") / "model.pt")
    train(**KW, out=out)
    return out, torch.load(out, weights_only=False)


def _steps(value):
    return lambda st: [entry.__setitem__("step", value) for entry in st["optimizer"]["state"].values()]


def _generator(key):
    return lambda st: st.__setitem__(key, torch.zeros(3, dtype=torch.uint8))


# before: torch's "ComplexFloat can't be cast" (-5), "cannot be converted to Scalar" ([2, 3]), a silent resume
# (2.5), "Expected a CPUGeneratorImplState of size 5056" (a short generator state)
EDITS = {
    "negative-step": (_steps(torch.tensor(-5.0)), r"\['step'\]"),
    "vector-step": (_steps(torch.tensor([2.0, 3.0])), r"\['step'\]"),
    "fractional-step": (_steps(torch.tensor(2.5)), r"\['step'\]"),
    "nan-step": (_steps(torch.tensor(float("nan"))), r"\['step'\]"),
    "short-generator": (_generator("generator"), "generator"),
    "short-torch-rng": (_generator("torch_rng"), "torch_rng"),
}


@pytest.mark.parametrize("edit", EDITS, ids=list(EDITS))
def test_resume_refuses_state_train_never_writes_by_name(checkpoint, tmp_path, edit):
    _, base = checkpoint
    change, words = EDITS[edit]
    state = copy.deepcopy(base)
    change(state)
    out = str(tmp_path / "edited.pt")
    torch.save(state, out)
    with pytest.raises(ValueError, match=rf"resume: checkpoint .* has an invalid .*{words}"):
        train(**dict(KW, steps=4), out=out, resume=True)


def test_resume_still_takes_the_state_train_wrote(checkpoint, tmp_path):
    _, base = checkpoint
    out = str(tmp_path / "same.pt")
    torch.save(copy.deepcopy(base), out)
    train(**dict(KW, steps=3), out=out, resume=True)
