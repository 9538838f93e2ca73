"""The one way a control plants its bug: replace an attribute for the duration of a ``with`` block.

Controls run the unchanged solver path with one function, method or constant swapped where the
implementation looks it up at call time (a module's private hook, a class's method), and put the
original back however the block ends.

>>> import math
>>> with patched(math, "pi", 3.0):
...     math.pi
3.0
>>> math.pi
3.141592653589793
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["patched"]


@contextmanager
def patched(owner: Any, name: str, replacement: Any) -> Iterator[None]:
    """Set ``owner.name = replacement`` inside the block, and restore it afterwards.

    ``inspect.getattr_static`` keeps a class's ``staticmethod``/``classmethod`` wrapper, so the
    restored attribute is the original descriptor; an attribute ``owner`` only inherited is
    deleted again rather than copied onto it.
    """
    own = name in getattr(owner, "__dict__", {})
    original = inspect.getattr_static(owner, name)
    setattr(owner, name, replacement)
    try:
        yield
    finally:
        if own:
            setattr(owner, name, original)
        else:
            delattr(owner, name)
