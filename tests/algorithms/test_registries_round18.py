"""#43 round 18 (red18c): the module-level registries are read-only (an edit changed every later run)."""

import pytest

from algorithms.blackbox.grammar import CONFIG_SPACE
from algorithms.nets.two_layer import ACTIVATIONS as NETS_ACTIVATIONS
from algorithms.optimizers import OPTIMIZERS
from algorithms.unlearning.models import ACTIVATIONS as UNLEARNING_ACTIVATIONS


@pytest.mark.parametrize("registry", [CONFIG_SPACE, NETS_ACTIVATIONS, OPTIMIZERS, UNLEARNING_ACTIVATIONS])
def test_module_level_registries_refuse_edits(registry):
    key = next(iter(registry))
    with pytest.raises(TypeError):
        registry[key] = None
    with pytest.raises(TypeError):
        del registry[key]
    with pytest.raises(TypeError):
        registry["new"] = None
    assert key in registry
