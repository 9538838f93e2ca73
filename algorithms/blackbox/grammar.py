"""The modular space: module tokens, their types, the successor grammar and a validator.

A workflow is a sequence of module names (the pre-order traversal of the optimizer's program
tree, as in the paper's Figure 2), optionally closed by ``"end"``. The grammar is a small
automaton over the prefix: :func:`allowed_next` returns the names that may follow a prefix
(Agent 1 masks its softmax with it) and :func:`validate` walks a workflow and raises
:class:`InvalidWorkflowError` naming the rule that a token breaks. The rules (ours; the paper's
Section 3.1 gives three of them as examples: start with INITIALIZATION, no BOUNDARY_CONTROL
between two reproduction modules, RESTART only at the end):

R1  the first module is an INITIALIZATION
R2  INITIALIZATION is followed by a POPULATION_SIZE
R3  POPULATION_SIZE is followed by NICHING or a reproduction module (DE mutation, GA mutation,
    PSO update, ES sampling)
R4  NICHING is followed by a DE mutation or the PSO update (the operators that draw partners or a
    neighbourhood best inside a sub-population)
R5  a DE MUTATION is followed by a DE CROSSOVER (nothing between two reproduction modules)
R6  the last reproduction module (DE crossover, GA mutation, PSO update, ES sampling) is followed
    by a BOUNDARY_CONTROL
R7  BOUNDARY_CONTROL is followed by a SELECTION that fits the reproduction family (DE: greedy,
    crowding, mu_plus_lambda, tournament; GA: greedy, mu_plus_lambda, tournament; PSO: greedy, the
    personal-best update; ES: mu_plus_lambda)
R8  SELECTION is followed by POPULATION_REDUCTION, RESTART or the end
R9  POPULATION_REDUCTION is followed by RESTART or the end
R10 RESTART is only at the end
R11 every name is a module of the space, and the workflow stops only where the end is allowed
    (after a SELECTION, a POPULATION_REDUCTION or a RESTART)

CONTROLLABLE modules carry hyperparameters (:data:`CONFIG_SPACE`: name, low, high, default,
scale); Agent 2 outputs ``N_MAX = 3`` numbers in [0, 1] per controllable module, decoded by
:func:`decode_action`.

References
----------
H. Guo et al. DesignX. NeurIPS 2025, arXiv:2505.17866 (Section 3.1, Appendix A, Table 3).

>>> validate(("init.lhs", "pop.10d", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy"))
('init.lhs', 'pop.10d', 'de.rand1', 'cx.binomial', 'bc.clip', 'sel.greedy')
>>> sorted(allowed_next(("init.lhs", "pop.10d", "de.rand1")))
['cx.binomial', 'cx.exponential']
"""

from __future__ import annotations

import math
import types
from collections.abc import Sequence

import numpy as np

from algorithms._validation import as_real_array
from algorithms.blackbox.components import BOUNDARY, CROSSOVERS, INITIALIZATIONS, MUTATIONS, NICHING

__all__ = [
    "CONFIG_SPACE",
    "END",
    "MODULES",
    "MODULE_TYPE",
    "N_MAX",
    "RULES",
    "TOKENS",
    "InvalidWorkflowError",
    "allowed_next",
    "decode_action",
    "default_hyperparameters",
    "family_of",
    "validate",
]

END = "end"
N_MAX = 3
POP_SIZES = ("pop.cma", "pop.20", "pop.50", "pop.100", "pop.5d", "pop.10d", "pop.15d")

MODULE_TYPE: dict[str, str] = {}
for _n in INITIALIZATIONS:
    MODULE_TYPE[f"init.{_n}"] = "INITIALIZATION"
for _n in POP_SIZES:
    MODULE_TYPE[_n] = "POPULATION_SIZE"
for _n in NICHING:
    MODULE_TYPE[f"niche.{_n}"] = "NICHING"
for _n in MUTATIONS:
    MODULE_TYPE[f"de.{_n}"] = "DE_MUTATION"
for _n in CROSSOVERS:
    MODULE_TYPE[f"cx.{_n}"] = "DE_CROSSOVER"
MODULE_TYPE["ga.gaussian"] = "GA_MUTATION"
MODULE_TYPE["ga.polynomial"] = "GA_MUTATION"
MODULE_TYPE["pso.inertia"] = "PSO_UPDATE"
MODULE_TYPE["es.sep_cmaes"] = "ES_SAMPLING"
for _n in BOUNDARY:
    MODULE_TYPE[f"bc.{_n}"] = "BOUNDARY_CONTROL"
for _n in ("greedy", "crowding", "mu_plus_lambda", "tournament"):
    MODULE_TYPE[f"sel.{_n}"] = "SELECTION"
MODULE_TYPE["red.linear"] = "POPULATION_REDUCTION"
MODULE_TYPE["red.nonlinear"] = "POPULATION_REDUCTION"
MODULE_TYPE["restart.stagnation"] = "RESTART"
MODULE_TYPE["restart.diversity"] = "RESTART"

MODULES: tuple[str, ...] = tuple(MODULE_TYPE)
#: Agent 1's vocabulary: every module and the end token (index len(MODULES))
TOKENS: tuple[str, ...] = (*MODULES, END)

RULES = {
    "R1": "the first module is an INITIALIZATION",
    "R2": "INITIALIZATION is followed by a POPULATION_SIZE",
    "R3": "POPULATION_SIZE is followed by NICHING or a reproduction module",
    "R4": "NICHING is followed by a DE mutation or the PSO update",
    "R5": "a DE MUTATION is followed by a DE CROSSOVER",
    "R6": "the last reproduction module is followed by a BOUNDARY_CONTROL",
    "R7": "BOUNDARY_CONTROL is followed by a SELECTION that fits the reproduction family",
    "R8": "SELECTION is followed by POPULATION_REDUCTION, RESTART or the end",
    "R9": "POPULATION_REDUCTION is followed by RESTART or the end",
    "R10": "RESTART is only at the end",
    "R11": "every name is a module of the space and the workflow stops only where the end is allowed",
}

_SELECTION_OF = {
    "de": ("sel.greedy", "sel.crowding", "sel.mu_plus_lambda", "sel.tournament"),
    "ga": ("sel.greedy", "sel.mu_plus_lambda", "sel.tournament"),
    "pso": ("sel.greedy",),
    "es": ("sel.mu_plus_lambda",),
}

#: hyperparameters of the CONTROLLABLE modules: (name, low, high, default, scale). The defaults (used when
#: no controller sets them) are the usual settings of each operator: DE F1 = F2 = 0.5 (Storn & Price) with
#: the p-best fraction p = 0.1 (inside JADE's recommended 5-20 %), crossover Cr = 0.9, Gaussian mutation
#: σ = 0.1 of the box width, polynomial mutation η = 20 (Deb), PSO w = 0.7, c1 = c2 = 1.5 (near Clerc's
#: constriction values 0.7298 and 1.49618), Sep-CMA-ES μ ratio 0.5 (μ = λ/2, Hansen's default)
CONFIG_SPACE: dict[str, tuple[tuple[str, float, float, float, str], ...]] = {}
for _n in MUTATIONS:
    CONFIG_SPACE[f"de.{_n}"] = (("F1", 0.0, 1.0, 0.5, "lin"), ("F2", 0.0, 1.0, 0.5, "lin"),
                                ("p", 0.02, 0.5, 0.1, "lin"))
for _n in CROSSOVERS:
    CONFIG_SPACE[f"cx.{_n}"] = (("Cr", 0.0, 1.0, 0.9, "lin"),)
CONFIG_SPACE["ga.gaussian"] = (("sigma", 1e-3, 0.5, 0.1, "log"),)
CONFIG_SPACE["ga.polynomial"] = (("eta", 5.0, 100.0, 20.0, "lin"),)
CONFIG_SPACE["pso.inertia"] = (("w", 0.2, 1.0, 0.7, "lin"), ("c1", 0.0, 2.5, 1.5, "lin"),
                               ("c2", 0.0, 2.5, 1.5, "lin"))
CONFIG_SPACE["es.sep_cmaes"] = (("mu_ratio", 0.1, 0.5, 0.5, "lin"),)
#: read-only once built (an edit widened every later run's ranges in silence); so are the module types, the
#: rules and the selection table (an edit of MODULE_TYPE refused valid workflows process-wide; red23a)
CONFIG_SPACE = types.MappingProxyType(CONFIG_SPACE)
MODULE_TYPE = types.MappingProxyType(MODULE_TYPE)
RULES = types.MappingProxyType(RULES)
_SELECTION_OF = types.MappingProxyType(_SELECTION_OF)


class InvalidWorkflowError(ValueError):
    """A workflow breaks a rule of the grammar; ``rule`` is its id (``"R1"`` ... ``"R11"``)."""

    def __init__(self, rule: str, message: str) -> None:
        if not isinstance(rule, str) or rule not in RULES:   # RULES[3] was a bare KeyError
            raise ValueError(f"rule must be one of {sorted(RULES)}, got {rule!r}")
        if not isinstance(message, str):
            raise TypeError(f"message must be a str, got {type(message).__name__}")
        super().__init__(f"invalid workflow: rule {rule} ({RULES[rule]}) broken: {message}")
        self.rule = rule


def family_of(prefix: Sequence[str]) -> str | None:
    """The reproduction family (``de``, ``ga``, ``pso``, ``es``) of a (partial) workflow."""
    names = _as_names(prefix, "prefix")
    unknown = [n for n in names if n not in MODULE_TYPE and n != END]
    if unknown:   # an unknown module was skipped (None: "no family yet")
        raise ValueError(f"prefix holds {unknown[0]!r}, which is not a module of the space")
    for name in names:
        kind = MODULE_TYPE.get(name)
        if kind == "DE_MUTATION":
            return "de"
        if kind == "GA_MUTATION":
            return "ga"
        if kind == "PSO_UPDATE":
            return "pso"
        if kind == "ES_SAMPLING":
            return "es"
    return None


def _of_type(*kinds: str) -> frozenset[str]:
    return frozenset(n for n, k in MODULE_TYPE.items() if k in kinds)


_REPRODUCTION_START = _of_type("DE_MUTATION", "GA_MUTATION", "PSO_UPDATE", "ES_SAMPLING")


def _successors(prefix: Sequence[str]) -> tuple[frozenset[str], str]:
    """The allowed next tokens after ``prefix`` (assumed valid) and the rule that says so."""
    if not prefix:
        return _of_type("INITIALIZATION"), "R1"
    last = prefix[-1]
    kind = MODULE_TYPE[last]
    if kind == "INITIALIZATION":
        return _of_type("POPULATION_SIZE"), "R2"
    if kind == "POPULATION_SIZE":
        return _of_type("NICHING") | _REPRODUCTION_START, "R3"
    if kind == "NICHING":
        return _of_type("DE_MUTATION") | {"pso.inertia"}, "R4"
    if kind == "DE_MUTATION":
        return _of_type("DE_CROSSOVER"), "R5"
    if kind in ("DE_CROSSOVER", "GA_MUTATION", "PSO_UPDATE", "ES_SAMPLING"):
        return _of_type("BOUNDARY_CONTROL"), "R6"
    if kind == "BOUNDARY_CONTROL":
        return frozenset(_SELECTION_OF[family_of(prefix)]), "R7"
    if kind == "SELECTION":
        return _of_type("POPULATION_REDUCTION", "RESTART") | {END}, "R8"
    if kind == "POPULATION_REDUCTION":
        return _of_type("RESTART") | {END}, "R9"
    return frozenset({END}), "R10"


def allowed_next(prefix: Sequence[str]) -> frozenset[str]:
    """The tokens (module names or ``"end"``) that may follow the valid prefix ``prefix``.

    >>> sorted(allowed_next(("init.uniform", "pop.20", "es.sep_cmaes", "bc.clip")))
    ['sel.mu_plus_lambda']
    """
    prefix = _as_names(prefix, "prefix")
    for i in range(len(prefix)):
        try:
            if prefix[i] == END:   # a prefix that ended already: nothing follows it (a bare KeyError 'end')
                raise InvalidWorkflowError("R11", f"position {i}: 'end' closes the workflow; a prefix holds "
                                                  f"module names only")
            _check_step(prefix[:i], prefix[i], i)
        except InvalidWorkflowError as exc:  # the rule's text, naming the argument it is about
            exc.args = (f"prefix: {exc.args[0]}", *exc.args[1:]) if exc.args else ("prefix",)
            raise
    return _successors(prefix)[0]


def _as_names(workflow, name: str = "workflow") -> tuple[str, ...]:
    if isinstance(workflow, str) or not isinstance(workflow, Sequence):
        raise TypeError(f"{name} must be a sequence of module names (a workflow), got "
                        f"{type(workflow).__name__}")
    bad = [w for w in workflow if not isinstance(w, str)]
    if bad:
        raise TypeError(f"{name} must hold module names (str; a workflow), got {type(bad[0]).__name__} "
                        f"{bad[0]!r}")
    return tuple(workflow)


def _check_step(prefix: tuple[str, ...], name: str, i: int) -> None:
    if name != END and name not in MODULE_TYPE:
        raise InvalidWorkflowError("R11", f"position {i}: {name!r} is not a module of the space "
                                          f"(known: {', '.join(MODULES)})")
    allowed, rule = _successors(prefix)
    if name not in allowed:
        after = f"after {prefix[-1]!r}" if prefix else "as the first module"
        raise InvalidWorkflowError(rule, f"position {i}: {name!r} {after}; allowed: {sorted(allowed)}")


def validate(workflow: Sequence[str]) -> tuple[str, ...]:
    """``workflow`` as a tuple of module names without ``"end"``; raises naming the broken rule.

    >>> validate(("init.uniform", "pop.20", "de.rand1", "bc.clip", "sel.greedy"))
    Traceback (most recent call last):
    ...
    algorithms.blackbox.grammar.InvalidWorkflowError: invalid workflow: rule R5 (a DE MUTATION is \
followed by a DE CROSSOVER) broken: position 3: 'bc.clip' after 'de.rand1'; allowed: ['cx.binomial', \
'cx.exponential']
    """
    names = _as_names(workflow)
    if names and names[-1] == END:
        names = names[:-1]
    if not names:
        raise InvalidWorkflowError("R1", "the workflow is empty")
    for i, name in enumerate(names):
        if name == END:
            raise InvalidWorkflowError("R11", f"position {i}: 'end' before the last position")
        _check_step(names[:i], name, i)
    if END not in _successors(names)[0]:
        raise InvalidWorkflowError("R11", f"the workflow stops after {names[-1]!r} "
                                          f"({MODULE_TYPE[names[-1]]}), where the end is not allowed")
    return names


def default_hyperparameters(workflow: Sequence[str]) -> dict[str, dict[str, float]]:
    """The default configuration of every CONTROLLABLE module of ``workflow``.

    >>> default_hyperparameters(("init.uniform", "pop.20", "ga.gaussian", "bc.clip", "sel.greedy"))
    {'ga.gaussian': {'sigma': 0.1}}
    """
    return {n: {p[0]: p[3] for p in CONFIG_SPACE[n]} for n in validate(workflow) if n in CONFIG_SPACE}


def decode_action(module: str, action) -> dict[str, float]:
    """Map Agent 2's ``action`` in [0, 1]^N_MAX (clipped) to ``module``'s hyperparameters.

    ``module`` a CONTROLLABLE module name (a str); ``action`` real numbers (a 1-D array, or one number for a
    module of one hyperparameter), at least as many as the module's hyperparameters (extra entries are
    ignored); entries outside [0, 1], ±inf included, are clipped to the nearer end (a Normal sample's
    tail), NaN is refused.

    >>> decode_action("cx.binomial", [0.25, 0.0, 0.0])
    {'Cr': 0.25}
    """
    if not isinstance(module, str) or module not in CONFIG_SPACE:   # a list met "unhashable type: 'list'"
        raise ValueError(f"module must be a CONTROLLABLE module ({sorted(CONFIG_SPACE)}), got {module!r}")
    raw = as_real_array("action", action)
    if raw.ndim > 1:   # a (1, 3) or (3, 1) array was flattened in silence
        raise ValueError(f"action must be a number or a 1-D array of numbers, got shape {raw.shape}")
    raw = raw.reshape(-1)
    if np.isnan(raw).any():   # clip keeps NaN: {'Cr': nan} came back
        raise ValueError("action contains NaN entries")
    a = np.clip(raw, 0.0, 1.0)
    if a.size < len(CONFIG_SPACE[module]):
        raise ValueError(f"action must have at least {len(CONFIG_SPACE[module])} entries, got {a.size}")
    out = {}
    for (name, lo, hi, _, scale), v in zip(CONFIG_SPACE[module], a):
        if scale == "log":
            out[name] = float(math.exp(math.log(lo) + v * (math.log(hi) - math.log(lo))))
        else:
            out[name] = float(lo + v * (hi - lo))
    return out
