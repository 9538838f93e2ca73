"""Round 16 bad inputs of the bayesopt family (issue #43)."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.bayesopt import CEI, ConstrainedBOProblem


@pytest.mark.parametrize("unit", [1.0, 1e-13, 1e-200])
@pytest.mark.parametrize("name", ["f", "c"])
def test_a_contradicting_repeat_is_refused_naming_f_or_c_at_every_scale(unit, name):
    # red16a: the repeat check's absolute floor 1e-12 let any contradiction of values in units 1e-13 through;
    # the GP refused it at the next suggest(), naming its own y, X row and jitter
    bo = CEI(n_candidates=50).ask_tell([[0.0, 1.0], [0.0, 1.0]], n_constraints=1, initial=4)
    points = [bo.suggest() for _ in range(4)]
    for x in points:
        bo.observe(x, unit * float(np.sum((x - 0.7) ** 2)), unit * (x[0] - 0.5))
    x = points[0]
    f, c = unit * float(np.sum((x - 0.7) ** 2)), unit * (x[0] - 0.5)
    bo.observe(x, f, c)   # the same values again: a valid repeat
    f, c = (f + 5.0 * unit, c) if name == "f" else (f, c + 0.3 * unit)
    with pytest.raises(ValueError, match=rf"^{name} = .* contradicts the earlier observation {name} = "):
        bo.observe(x, f, c)


@pytest.mark.parametrize("unit", [1.0, 1e-13])
def test_a_contradicting_repeat_in_a_design_is_refused_naming_f(unit):
    values = iter([0.1, 0.2, 0.3, 0.1 + 5.0])
    problem = ConstrainedBOProblem(lambda x: unit * next(values), lambda x: -1.0, [[0.0, 1.0]],
                                   initial=np.array([[0.1], [0.5], [0.9], [0.1]]))
    with pytest.raises(ValueError, match=r"^f = .* contradicts the earlier observation f = "):
        solve(problem, CEI(n_candidates=50), maxiters=1, seed=0)
