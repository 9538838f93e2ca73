"""The bad-input harness every family's ``test_bad_inputs*.py`` uses.

A :class:`BadInput` names the public callable it exercises (``target``), a
zero-argument ``call`` that passes it one bad input, the exception class(es) it
must raise and ``words`` its message must contain (the argument's name and what
was expected). :func:`assert_every_callable_covered` fails when a public callable
of the family's modules has no case and no recorded exemption, so a new callable
without validation is noticed.
"""

from __future__ import annotations

import inspect
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

#: packages whose frames must not be where the user's error is raised
_LIBRARY_PREFIXES = ("numpy", "scipy", "torch", "sklearn", "qpsolvers", "sympy")


@dataclass(frozen=True)
class BadInput:
    target: Callable[..., Any]
    call: Callable[[], Any]
    error: type[BaseException] | tuple[type[BaseException], ...]
    words: tuple[str, ...]
    label: str = ""

    @property
    def id(self) -> str:
        name = getattr(self.target, "__qualname__", repr(self.target))
        return f"{name}-{self.label}" if self.label else name


def _raised_in_library(exc: BaseException) -> str | None:
    """The library module that raised ``exc``, if its innermost frame is in one."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return None
    module = inspect.getmodulename(frames[-1].filename) or ""
    path = frames[-1].filename.replace("\\", "/")
    for prefix in _LIBRARY_PREFIXES:
        if f"/site-packages/{prefix}/" in path:
            return f"{prefix} ({module})"
    return None


def check_bad_input(case: BadInput) -> None:
    """``case.call()`` raises ``case.error`` from our own validation, naming ``case.words``."""
    try:
        case.call()
    except case.error as exc:
        message = str(exc)
        missing = [w for w in case.words if w.lower() not in message.lower()]
        assert not missing, f"{case.id}: message {message!r} does not mention {missing}"
        library = _raised_in_library(exc)
        assert library is None, f"{case.id}: raised inside {library}, not by our validation: {message!r}"
    except Exception as exc:  # the wrong class: report it with its message
        raise AssertionError(f"{case.id}: expected {case.error}, got {type(exc).__name__}: {exc}") from exc
    else:
        raise AssertionError(f"{case.id}: bad input was accepted")


def public_callables(*modules: ModuleType) -> dict[str, Callable[..., Any]]:
    """``module.name`` -> object for every callable in each module's ``__all__``."""
    found = {}
    for module in modules:
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if callable(obj):
                found[f"{module.__name__}.{name}"] = obj
    return found


def assert_every_callable_covered(modules: Iterable[ModuleType], cases: Iterable[BadInput],
                                  exempt: dict[str, str] | None = None) -> None:
    """Every public callable of ``modules`` is the target of a case or exempt (with a reason)."""
    exempt = exempt or {}
    targets = {id(c.target) for c in cases}
    missing = [name for name, obj in public_callables(*modules).items()
               if id(obj) not in targets and name.rsplit(".", 1)[-1] not in exempt and name not in exempt]
    assert not missing, f"public callables without a bad-input case or an exemption: {missing}"
    empty = [name for name, why in exempt.items() if not why.strip()]
    assert not empty, f"exemptions need a reason: {empty}"


def assert_misspelt_attribute_refused(make: Callable[[], Any], name: str, value: Any) -> None:
    """``make()``'s object refuses ``name`` (a name it does not take) set after construction, by name, and
    stores nothing (README: UnknownAttributeError instead of a value stored and ignored)."""
    import pytest

    from algorithms._validation import UnknownAttributeError

    obj = make()
    with pytest.raises(UnknownAttributeError, match=f"takes no attribute '{name}'"):
        setattr(obj, name, value)
    assert name not in vars(obj)


def stepped_once(optimizer_of: Callable[[Any], Any]) -> tuple[Any, Any, Callable[[], Any]]:
    """A seeded two-layer model, ``optimizer_of(model)`` over it, and a closure (a quadratic loss on 5 seeded
    inputs) that stepped it once: ``(model, optimizer, closure)``, for tests of state changed after a step."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    optimizer = optimizer_of(model)
    x = torch.randn(5, 3)

    def closure():
        optimizer.zero_grad()
        loss = model(x).square().sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    return model, optimizer, closure


def with_own_attribute(base: type) -> type:
    """A user's subclass of ``base`` setting an attribute of its own (``extra = 2.0``) after the base class's
    ``__init__`` fixed its names: such a subclass must be allowed (round 23)."""

    class Own(base):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.extra = 2.0

    return Own
