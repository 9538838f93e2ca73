"""Issue #43 round 13: docstrings that state each parameter's domain, and code that keeps it (bayesopt)."""

import inspect

import numpy as np
import pytest

from algorithms.bayesopt import BOHistory, ConstrainedBOProblem, log_probability_of_feasibility


@pytest.mark.parametrize("mu, sigma, words", [
    ([0.0], [-1.0], r"^sigma_c must be >= 0"),
    ([0.0], [3.5e38], r"^sigma_c has an entry of magnitude 3.5e\+38"),
    ([3.5e38], [1.0], r"^mu_c has an entry of magnitude 3.5e\+38"),
])
def test_log_probability_of_feasibility_keeps_its_stated_domain(mu, sigma, words):
    assert "``sigma_c`` >= 0" in inspect.getdoc(log_probability_of_feasibility)
    with pytest.raises(ValueError, match=words):
        log_probability_of_feasibility(np.array(mu), np.array(sigma))


def test_log_probability_of_feasibility_point_masses_as_documented():
    out = log_probability_of_feasibility(np.array([0.0, 1.0, -1.0, 0.0]), np.array([0.0, 0.0, 0.0, 1e-39]))
    assert out[0] == 0.0 and out[1] == -np.inf and out[2] == 0.0 and out[3] == pytest.approx(np.log(0.5))


@pytest.mark.parametrize("field", ["X", "f", "c"])
def test_bo_history_entries_past_the_range_are_refused_by_name(field):
    assert "at most 3.4e38" in " ".join(inspect.getdoc(BOHistory).split())
    fields = {"X": np.array([[0.5]]), "f": np.array([1.0]), "c": np.array([[0.0]])}
    fields[field] = fields[field] * 0 + 1e39
    with pytest.raises(ValueError, match=rf"^{field} has an entry of magnitude 1e\+39"):
        BOHistory(**fields, n_initial=1)


@pytest.mark.parametrize("kwargs, words", [
    ({"f_star": 3.5e38}, r"f_star has an entry of magnitude 3.5e\+38"),
    ({"bounds": [[0.0, 3.5e38]]}, r"bounds has an entry of magnitude 3.5e\+38"),
    ({"n_constraints": 0}, r"^n_constraints must be"),
])
def test_constrained_bo_problem_domains_as_documented(kwargs, words):
    doc = " ".join(inspect.getdoc(ConstrainedBOProblem).split())
    assert "magnitude at most 3.4e38" in doc and "an int >= 1" in doc
    call = {"f": lambda x: float(x[0]), "c": lambda x: -1.0, "bounds": [[0.0, 1.0]], "initial": 2, **kwargs}
    with pytest.raises(ValueError, match=words):
        ConstrainedBOProblem(**call)
