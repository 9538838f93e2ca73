"""Assumptions at their boundary: the implementation accepts exactly the instances a theorem covers.

A theorem is stated under assumptions (0 < ρ < 1, μ_g <= l_g1, a positive step, a unit vector...);
the implementation's documented contract is that its constructors and public functions enforce
them: an instance inside is accepted, one outside is refused with a ``ValueError``/``TypeError``
that names the argument. A :class:`Boundary` probes one assumption on both sides of its boundary
(the value just inside and the value just outside), so a guard that tests the wrong side, the
strict form for the weak one, or ``and`` for ``or``, is seen; :func:`boundary_outcome` is the
check, and ``shifted=True`` its control: the boundary claimed one step inward (the value just
inside stated as outside), which the same check must reject because that value is accepted.

>>> cases = [Boundary("0 < x", "x", inside=lambda: _positive(1e-300), outside=lambda: _positive(0.0))]
>>> boundary_outcome(cases).status, boundary_outcome(cases, shifted=True).status
('pass', 'fail')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from theorems.core import Outcome

__all__ = ["Boundary", "boundary_outcome", "domain_outcome", "names_argument"]


@dataclass(frozen=True)
class Boundary:
    """One assumption probed at its boundary.

    ``label`` states the assumption; ``argument`` is the name the refusal must mention;
    ``inside`` builds or calls with the value just inside (it must return), ``outside`` with the
    value just outside (it must raise ``ValueError`` or ``TypeError`` naming ``argument``).
    """

    label: str
    argument: str
    inside: Callable[[], Any]
    outside: Callable[[], Any]

    def __post_init__(self) -> None:
        for name in ("label", "argument"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        for name in ("inside", "outside"):
            if not callable(getattr(self, name)):
                raise TypeError(f"{name} must be a zero-argument callable, got {getattr(self, name)!r}")


def _accepted(call: Callable[[], Any]) -> str | None:
    """None when ``call`` returns; else the refusal, as text."""
    try:
        call()
    except (ValueError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def names_argument(message: str, argument: str) -> bool:
    """Whether ``message`` names ``argument`` as a whole token, case included: a substring test would let a
    one-letter name pass on any message containing the letter (``p`` in "shape"), and ``x`` is not ``X``.

    >>> names_argument("ValueError: p must be >= 1, got 0", "p"), names_argument("bad shape", "p")
    (True, False)
    """
    token = rf"(?<![A-Za-z0-9_]){re.escape(argument)}(?![A-Za-z0-9_])"
    return re.search(token, message) is not None


def boundary_outcome(cases: Sequence[Boundary], *, shifted: bool = False) -> Outcome:
    """Pass when every case's inside value is accepted and its outside value is refused with an
    error naming the argument. ``shifted`` (the control) expects the inside value refused too."""
    if not isinstance(cases, Sequence) or not cases or not all(isinstance(c, Boundary) for c in cases):
        raise TypeError(f"cases must be a non-empty sequence of Boundary, got {cases!r}")
    wrong: list[str] = []
    for case in cases:
        refusal_inside = _accepted(case.inside)
        if shifted:
            if refusal_inside is None:
                wrong.append(f"{case.label}: the value just inside was accepted")
        elif refusal_inside is not None:
            wrong.append(f"{case.label}: the value just inside was refused ({refusal_inside})")
        refusal = _accepted(case.outside)
        if refusal is None:
            wrong.append(f"{case.label}: the value just outside was accepted")
        elif not names_argument(refusal, case.argument):
            wrong.append(f"{case.label}: the refusal does not name {case.argument!r} ({refusal})")
    evidence = {"assumptions": len(cases), "wrong": wrong[:20], "shifted": shifted}
    if wrong:
        return Outcome("fail", f"{len(wrong)} boundary probe(s) of {len(cases)} assumptions went the "
                               f"wrong way; first: {wrong[0]}", evidence)
    return Outcome("pass", f"all {len(cases)} assumptions accept the value just inside and refuse the "
                           "value just outside, naming the argument", evidence)


def _positive(x: float) -> float:
    """A doctest helper: refuse x <= 0."""
    if not x > 0:
        raise ValueError(f"x must be positive, got {x}")
    return x


#: one case of :func:`domain_outcome`: (label, call, at a closed end of its domain, refusal) with
#: ``refusal`` None for a valid input, else (the exception type, a word its message must contain)
DomainCase = tuple[str, Callable[[], Any], bool, "tuple[type[Exception], str] | None"]


def domain_outcome(cases: Sequence[DomainCase], *, open_ends: bool,
                   catch: tuple[type[Exception], ...] = (TypeError, ValueError)) -> Outcome:
    """Every case accepted or refused as its documented domain says: a valid input must run, an
    invalid one must raise ``refusal``'s type with its word in the message. ``open_ends=True`` is
    the control: the closed ends stated as excluded, which the same check must reject because
    they are accepted. An exception outside ``catch`` propagates (the claim's verdict: error)."""
    wrong = []
    for label, call, closed_end, refusal in cases:
        expect_refusal = refusal is not None or (open_ends and closed_end)
        try:
            call()
        except catch as exc:
            named = refusal is not None and isinstance(exc, refusal[0]) and refusal[1] in str(exc)
            if not expect_refusal or (refusal is not None and not named):
                wrong.append(f"{label}: {type(exc).__name__}: {str(exc)[:80]}")
        else:
            if expect_refusal:
                wrong.append(f"{label}: accepted")
    return Outcome("pass" if not wrong else "fail",
                   f"{len(cases) - len(wrong)} of {len(cases)} inputs accepted or refused as their "
                   "documented domains say" + (f"; wrong: {'; '.join(wrong[:4])}" if wrong else ""),
                   {"cases": len(cases), "wrong": wrong})


def functional_boundaries() -> list[Boundary]:
    """The flat-parameter helpers' documented refusals (algorithms.nets.functional): params a non-empty
    dict of tensors of one dtype; the unflatten map takes a real floating vector of the flat length; a
    Hessian-vector product's vector has theta's shape; theta a 1-D floating vector; per-sample helpers take
    tensor X and y with a shared, non-empty sample axis; a loss must return a scalar tensor (torch.func's
    two complaints re-raised naming the loss). Shared by sam_stability.assumptions and
    two_layer_nc.assumptions, whose networks go through these helpers."""
    import torch  # here, not at import: the other boundary claims need no torch

    from algorithms.nets.functional import flat_hessian, flat_hvp, flatten_params, per_sample_flat_grads

    f64 = torch.float64
    theta, unflatten = flatten_params({"a": torch.zeros(2, dtype=f64)})
    X, y = torch.ones(3, 2, dtype=f64), torch.zeros(3, dtype=f64)

    def sample_loss(t, x, target):
        return ((t * x).sum() - target) ** 2

    def square(t):
        return (t**2).sum()

    def grads(X=X, y=y):
        return per_sample_flat_grads(sample_loss, theta, X, y)

    return [
        Boundary("flatten_params: a non-empty dict", "params", lambda: flatten_params({"a": theta}),
                 lambda: flatten_params({})),
        Boundary("flatten_params: tensor values", "params", lambda: flatten_params({"a": theta}),
                 lambda: flatten_params({"a": 1.0})),
        Boundary("flatten_params: one dtype", "params",
                 lambda: flatten_params({"a": theta, "b": theta}),
                 lambda: flatten_params({"a": theta, "b": theta.float()})),
        Boundary("unflatten: the flat length", "theta", lambda: unflatten(torch.zeros(2, dtype=f64)),
                 lambda: unflatten(torch.zeros(3, dtype=f64))),
        Boundary("unflatten: a floating vector", "theta", lambda: unflatten(torch.zeros(2, dtype=f64)),
                 lambda: unflatten(torch.zeros(2, dtype=torch.int64))),
        Boundary("unflatten: a real vector", "theta", lambda: unflatten(torch.zeros(2, dtype=f64)),
                 lambda: unflatten(torch.zeros(2, dtype=torch.complex128))),
        Boundary("flat_hvp: vector of theta's shape", "vector", lambda: flat_hvp(square, theta, theta),
                 lambda: flat_hvp(square, theta, torch.zeros(3, dtype=f64))),
        Boundary("per-sample helpers: a tensor y with a sample axis", "y", grads,
                 lambda: grads(y=y.sum())),
        Boundary("per-sample helpers: a tensor X", "X", grads, lambda: grads(X=X.numpy())),
        Boundary("per-sample helpers: as many y as X rows", "y", grads, lambda: grads(y=y[:2])),
        Boundary("per-sample helpers: at least one sample", "X", lambda: grads(X=X[:1], y=y[:1]),
                 lambda: grads(X=X[:0], y=y[:0])),
        Boundary("a loss returning a tensor", "loss", lambda: flat_hessian(square, theta),
                 lambda: flat_hessian(lambda t: 1.0, theta)),
        Boundary("theta a 1-D parameter vector", "theta", lambda: flat_hessian(square, theta),
                 lambda: flat_hessian(square, theta[None])),
        Boundary("theta of a floating dtype", "theta", lambda: flat_hessian(square, theta),
                 lambda: flat_hessian(square, torch.zeros(2, dtype=torch.int64))),
        Boundary("a loss returning a scalar", "loss", lambda: flat_hvp(square, theta, theta),
                 lambda: flat_hvp(lambda t: 2.0 * t, theta, theta)),
    ]
