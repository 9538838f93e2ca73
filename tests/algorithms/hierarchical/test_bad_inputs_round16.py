"""Round 16 (heldout16): the hierarchical callables get read-only points."""

from __future__ import annotations

import math

import numpy as np
import pytest

from algorithms import solve
from algorithms.hierarchical import SGDA, AdaBiO, AdaMinimax, BilevelProblem, MinimaxProblem, StocBiO, TiAda


def _minimax_parts():
    def grad(x, y, rng):
        return np.array([-math.sin(x[0]) + y[0]]), np.array([x[0] - y[0]])

    return {"grad": grad, "phi": lambda x: math.cos(x[0]) + x[0] ** 2 / 2,
            "grad_phi": lambda x: np.array([-math.sin(x[0]) + x[0]])}


def _bilevel_parts():
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    B = np.array([[1.0], [0.5]])
    b = np.array([1.0, -1.0])
    M = np.linalg.solve(A, B)
    return {"upper_grad": lambda x, y, rng: (0.1 * x, y - b), "lower_grad": lambda x, y, rng: A @ y - B @ x,
            "lower_hvp": lambda x, y, v, rng: (-(B.T @ v), A @ v),
            "phi": lambda x: float(0.5 * np.sum((M @ x - b) ** 2) + 0.05 * np.sum(x**2)),
            "grad_phi": lambda x: 0.1 * x + M.T @ (M @ x - b)}


def _writing(fn, always):
    """``fn`` writing 99 into its first argument: when it is writeable, then answering for the point it sees
    (the package's point must not be writeable); or always, after forming its answer (the write must not
    reach the run)."""
    def wrapped(x, *rest):
        if always:
            answer = fn(x.copy(), *rest)
            x[0] = 99.0
            return answer
        if x.flags.writeable:
            x[0] = 99.0
        return fn(x, *rest)
    return wrapped


def _build(kind, name, always):
    parts = _minimax_parts() if kind == "minimax" else _bilevel_parts()
    if name is not None:
        parts[name] = _writing(parts[name], always)
    if kind == "minimax":
        return MinimaxProblem(**parts, x0=np.array([1.5]), y0=np.array([0.5]))
    return BilevelProblem(**parts, x0=np.array([1.0]), y0=np.zeros(2), mu_g=0.5, l_g1=2.5)


CASES = [("minimax", name, algorithm) for name in ("grad", "phi", "grad_phi")
         for algorithm in (SGDA, AdaMinimax, TiAda)]
CASES += [("bilevel", name, algorithm)
          for name in ("upper_grad", "lower_grad", "lower_hvp", "phi", "grad_phi")
          for algorithm in (AdaBiO, StocBiO)]


@pytest.mark.parametrize(("kind", "name", "algorithm"), CASES)
def test_a_callable_writing_into_its_point_changes_nothing(kind, name, algorithm):
    """heldout16: grad(x, y, rng) that wrote x[0] = 99 when x was writeable, then answered for that point, ran
    SGDA on wrong gradients (MaxIters at x = -152 against 0.34) in silence."""
    clean = solve(_build(kind, None, False), algorithm(), maxiters=20, seed=0)
    written = solve(_build(kind, name, False), algorithm(), maxiters=20, seed=0)
    assert written.retcode is clean.retcode
    np.testing.assert_array_equal(written.x, clean.x)
    assert written.value == clean.value


@pytest.mark.parametrize(("kind", "name", "algorithm"), CASES)
def test_a_callable_that_always_writes_into_its_point_changes_nothing(kind, name, algorithm):
    """A callable that writes regardless (x *= 2 to form its answer) is called again on a writeable copy."""
    clean = solve(_build(kind, None, False), algorithm(), maxiters=20, seed=0)
    written = solve(_build(kind, name, True), algorithm(), maxiters=20, seed=0)
    assert written.retcode is clean.retcode
    np.testing.assert_array_equal(written.x, clean.x)
    assert written.value == clean.value
