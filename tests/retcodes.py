"""Retcode cases each family ships (``tests/algorithms/<family>/retcode_cases*.py``).

A :class:`RetcodeCase` builds a (problem, algorithm, options) triple whose run
must end with ``expected``: a diverging run must say ``Diverged``, a run cut by
its horizon ``MaxIters``, never ``Success``. ``tests/test_contract.py`` runs them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from algorithms import Algorithm, Problem, RetCode


@dataclass(frozen=True)
class RetcodeCase:
    name: str
    build: Callable[[], tuple[Problem, Algorithm, dict[str, Any]]]
    expected: RetCode
