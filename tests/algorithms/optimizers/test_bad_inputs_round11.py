"""#43 round 11 (pre-audit sweep) for the optimizers family: each class found, with its message's words."""

import pytest

from algorithms.optimizers import MLP, Transformer, param_groups


# ------------------------------ class 1: a size attribute reassigned after construction
@pytest.mark.parametrize("make, attribute, value", [
    (lambda: MLP(3, 2, width=8, depth=2), "width", 16),      # param_groups scaled lr for width 16, in silence
    (lambda: MLP(3, 2, width=8, depth=2), "residual_multiplier", float("nan")),
    (lambda: Transformer(11, 8, 1, 2, 8), "vocab_size", 20),  # an IndexError inside nn.Embedding
    (lambda: Transformer(11, 8, 1, 2, 8), "residual_multiplier", 5.0),    # ignored by the blocks
])
def test_an_attribute_the_weights_were_built_for_cannot_be_reassigned(make, attribute, value):
    model = make()
    with pytest.raises(ValueError, match=f"{attribute} is fixed by"):
        setattr(model, attribute, value)
    if isinstance(model, MLP):
        assert param_groups(model, "adamw", 0.1, base_width=8)[1]["lr"] == 0.1
