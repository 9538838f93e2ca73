"""The package's ``nn.Module`` base: ``load_state_dict`` checked before torch copies anything."""

from __future__ import annotations

from typing import Any

from torch import nn

from algorithms._validation import check_module_load

__all__ = ["CheckedStateModule"]


class CheckedStateModule(nn.Module):
    """An ``nn.Module`` whose ``load_state_dict`` refuses, before anything is loaded, a ``strict``/``assign``
    that is not a bool (``strict="no"`` was truthy), NaN/inf or non-floating weights, wrong shapes and
    (strict) missing or unexpected keys, each by name: torch loads NaN as it is and half loads a state
    dict whose later entry it then refuses."""

    def load_state_dict(self, state_dict: Any, strict: Any = True, assign: Any = False):
        strict, assign = check_module_load(self, state_dict, strict, assign)
        return super().load_state_dict(state_dict, strict=strict, assign=assign)
