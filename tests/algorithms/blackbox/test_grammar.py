import numpy as np
import pytest

from algorithms.blackbox.grammar import (
    CONFIG_SPACE,
    END,
    MODULES,
    RULES,
    InvalidWorkflowError,
    allowed_next,
    decode_action,
    default_hyperparameters,
    family_of,
    validate,
)

DE = ("init.lhs", "pop.10d", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")


@pytest.mark.parametrize("workflow, rule", [
    (("pop.20", "de.rand1"), "R1"),
    (("init.lhs", "de.rand1"), "R2"),
    (("init.lhs", "pop.20", "bc.clip"), "R3"),
    (("init.lhs", "pop.20", "niche.random", "es.sep_cmaes"), "R4"),
    (("init.lhs", "pop.20", "de.rand1", "bc.clip"), "R5"),
    (("init.lhs", "pop.20", "ga.gaussian", "sel.greedy"), "R6"),
    (("init.lhs", "pop.20", "pso.inertia", "bc.clip", "sel.mu_plus_lambda"), "R7"),
    ((*DE, "bc.clip"), "R8"),
    ((*DE, "red.linear", "sel.greedy"), "R9"),
    ((*DE, "restart.diversity", "red.linear"), "R10"),
    (("init.lhs", "pop.20", "de.rand9"), "R11"),
    (("init.lhs", "pop.20", "de.rand1", "cx.binomial"), "R11"),
    ((), "R1"),
])
def test_each_rule_named(workflow, rule):
    with pytest.raises(InvalidWorkflowError) as info:
        validate(workflow)
    assert info.value.rule == rule and f"rule {rule}" in str(info.value) and RULES[rule] in str(info.value)


def test_valid_workflows_and_end_token():
    assert validate((*DE, END)) == DE
    longer = (*DE, "red.nonlinear", "restart.stagnation")
    assert validate(longer) == longer
    assert family_of(DE) == "de" and family_of(("init.lhs",)) is None
    assert END in allowed_next(DE) and allowed_next((*DE, "restart.stagnation")) == frozenset({END})


def test_every_module_reachable():
    # seeded random walks through the automaton (a walk that reaches a module proves it reachable);
    # a depth-first search that prunes tokens already seen depended on the frozenset's hash order
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(2000):
        prefix = ()
        while (options := sorted(allowed_next(prefix))) != [END] and len(prefix) < 12:
            token = options[int(rng.integers(len(options)))]
            if token == END:
                break
            prefix = (*prefix, token)
        seen |= set(prefix)
    assert seen == set(MODULES)


def test_decode_action_bounds_and_defaults():
    assert decode_action("ga.gaussian", [0.0]) == {"sigma": pytest.approx(1e-3)}
    assert decode_action("ga.gaussian", [1.0]) == {"sigma": pytest.approx(0.5)}
    assert decode_action("pso.inertia", [2.0, -1.0, 0.5]) == {"w": 1.0, "c1": 0.0, "c2": 1.25}
    hp = default_hyperparameters(DE)
    assert hp == {"de.rand1": {"F1": 0.5, "F2": 0.5, "p": 0.1}, "cx.binomial": {"Cr": 0.9}}
    assert set(CONFIG_SPACE) <= set(MODULES)
