"""Issue #43 round 13: docstrings that state each parameter's domain, and code that keeps it (bayesopt)."""

import inspect
from fractions import Fraction

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


def _writes_into_x(x):
    value = float(x @ x)
    x[...] = 9.0   # the user's callable writes into its argument
    return value


@pytest.mark.parametrize("which", ["f", "c"])
def test_constrained_minimum_gives_f_and_c_copies(which):
    # an f writing into its x moved the returned answer to (9, 0), outside the box, with value 81 (red13a)
    from algorithms.bayesopt import constrained_minimum

    f = _writes_into_x if which == "f" else (lambda x: float(x @ x))
    c = (lambda x: float(0.5 - x[0])) if which == "f" else (lambda x: (0.5 - x[0], x.__setitem__(0, 7.0))[0])
    x, value = constrained_minimum(f, c, [[0.0, 1.0], [0.0, 1.0]])
    assert np.all((x >= 0.0) & (x <= 1.0))
    if which == "c":
        assert x == pytest.approx([0.5, 0.0], abs=1e-6) and value == pytest.approx(0.25)


@pytest.mark.parametrize("make", [
    lambda: __import__("algorithms.bayesopt", fromlist=["Kernel"]).Kernel(nu=Fraction(5, 2)),
    lambda: __import__("algorithms.bayesopt", fromlist=["Kernel"]).Kernel("se", nu=Fraction(3, 2)),
])
def test_kernel_takes_a_fraction_nu_equal_to_a_valid_one(make):
    # a Fraction is a numbers.Real (README's coercible list): Fraction(5, 2) was "not one of [0.5, 1.5, 2.5]"
    kernel = make()
    assert type(kernel.nu) is float and kernel.nu in (1.5, 2.5)


def test_cei_without_fit_takes_an_observed_f_near_the_range_edge():
    # f = 3.4e38 (inside the range) was accepted, then suggest() refused the GP's own posterior mean
    # (3.64e38) naming mu_f, an argument the user never passed (red13a)
    from algorithms.bayesopt import CEI, CEIAskTell, Kernel, constrained_ei

    f = lambda x: float(np.sum((x - 0.3) ** 2))   # noqa: E731
    c = lambda x: float(x[0] + x[1] - 1.0)   # noqa: E731
    prob = ConstrainedBOProblem(f=f, c=c, bounds=np.array([[0.0, 1.0], [0.0, 1.0]]), initial=3)
    at = CEIAskTell(CEI(kernel=Kernel("se", lengthscale=0.3), fit=False, n_candidates=50), prob, seed=0)
    for _ in range(3):
        x = at.suggest()
        at.observe(x, f(x), c(x))
    at.observe(np.array([0.51, 0.5]), 3.4e38, 0.0)
    x = at.suggest()
    assert x.shape == (2,) and np.all((x >= 0) & (x <= 1))
    # a caller's own arrays are still held to the range
    with pytest.raises(ValueError, match=r"^mu_f has an entry of magnitude 3.5e\+38"):
        constrained_ei(np.array([3.5e38]), np.array([1.0]), np.array([0.0]), np.array([1.0]), 0.0)


def test_cei_states_what_seed_none_does_and_keeps_it():
    # red13b: what seed=None does was documented nowhere for CEI; it is seed 0
    from algorithms import solve
    from algorithms.bayesopt import CEI, gardner_problem

    assert "None is 0" in " ".join(inspect.getdoc(CEI).split())
    p = gardner_problem(initial=4)
    one, two = (solve(p, CEI(n_candidates=20), maxiters=1, seed=s) for s in (None, 0))
    assert np.array_equal(one.x, two.x) and one.value == two.value


# ------------------------------------------------ held-out round 13, first run (lead)
@pytest.mark.parametrize("f, c, culprit", [
    (lambda x: np.float32(x @ x), lambda x: 0.5 - x[0], "f"),
    (lambda x: float(x @ x), lambda x: np.float32(0.5 - x[0]), "c"),
    (lambda x: np.asarray(x @ x, dtype=np.float16), lambda x: 0.5 - x[0], "f"),
])
def test_constrained_minimum_refuses_a_low_precision_answer(f, c, culprit):
    # a float32 f stalled the SLSQP polish at x = [0.5, 0.053], 0.2528 (the minimum is [0.5, 0], 0.25)
    from algorithms.bayesopt import constrained_minimum

    with pytest.raises(TypeError, match=rf"^{culprit}\(x\) must return float64 values"):
        constrained_minimum(f, c, [[0, 1], [0, 1]])


def test_gp_sample_path_states_its_positive_definite_jitter():
    from algorithms.bayesopt import Kernel, gp_sample_path

    assert "numerically positive definite" in inspect.getdoc(gp_sample_path)
    with pytest.raises(ValueError, match=r"^jitter = 1.2e-38 is too small"):
        # 50 points (round 23: the kernel now scales exact differences, and K of 20 points is numerically
        # positive definite at 1.2e-38, accepted by the documented rule)
        gp_sample_path(Kernel("se", lengthscale=0.2), 1, n_points=50, jitter=1.2e-38)
