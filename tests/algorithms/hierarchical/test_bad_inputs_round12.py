"""#43 round 12: the working range (README) in the hierarchical family, one test per class."""

import pytest

from algorithms.hierarchical import auc_minimax, synthetic_minimax


@pytest.mark.parametrize("make, name", [
    (lambda v: synthetic_minimax(coupling=v), "coupling"),
    (lambda v: synthetic_minimax(coupling=-v), "coupling"),
    (lambda v: auc_minimax(positive_fraction=v), "positive_fraction"),
])
@pytest.mark.parametrize("tiny", [1e-39, 5e-324])
def test_a_scale_whose_zero_is_refused_refuses_a_tiny_one(make, name, tiny):
    # 1e-39 acted as the 0 each excludes (x and y decoupled; no positive example), accepted in silence
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the package's working range"):
        make(tiny)
    make(1.2e-38)  # the range's smallest positive scale stays valid


@pytest.mark.parametrize("name", ["noise_sum", "previous_noise_sum", "lower_sum"])
@pytest.mark.parametrize("huge", [1e39, 1e308, 10**100])
def test_ada_parameters_refuses_a_callers_sum_past_the_range(name, huge):
    # a caller's running sum of 1e308 was taken in silence (the solver's own sums may be any size)
    from algorithms.hierarchical import ada_parameters

    sums = {"noise_sum": 0.0, "previous_noise_sum": 0.0, "lower_sum": 0.0, name: huge}
    if name == "previous_noise_sum":
        sums["noise_sum"] = 3e38
    with pytest.raises(ValueError, match=rf"^{name} = .* is outside the package's working range"):
        ada_parameters(4, sums["noise_sum"], sums["previous_noise_sum"], sums["lower_sum"], lr_x=1.0,
                       lr_y=1.0, alpha=1.0, gamma=2.0)


@pytest.mark.parametrize("huge", [1e39, 1e308, -1e308])
def test_a_final_value_past_the_range_is_diverged_not_success(huge):
    # a user's phi answering 1e308 at the last iterate was reported Success with that value
    import dataclasses

    from algorithms import RetCode, solve
    from algorithms.hierarchical import SGDA

    problem = dataclasses.replace(synthetic_minimax(), phi=lambda x: huge)
    sol = solve(problem, SGDA(lr_x=0.2, lr_y=0.5), maxiters=3)
    assert sol.retcode is RetCode.Diverged and "phi(x)" in sol.original["reason"]


@pytest.mark.parametrize("name", ["x0", "y0"])
def test_starting_points_cannot_be_made_writable(name):
    from algorithms.hierarchical import quadratic_bilevel

    for problem in (synthetic_minimax(), quadratic_bilevel()):
        with pytest.raises(ValueError, match="WRITEABLE"):
            getattr(problem, name).setflags(write=True)


@pytest.mark.parametrize("which", ["grad", "phi", "grad_phi"])
def test_a_user_oracles_own_exception_is_named(which):
    import dataclasses

    from algorithms import solve
    from algorithms._validation import UserCallableError
    from algorithms.hierarchical import SGDA

    base = synthetic_minimax()

    def boom(*args):
        raise KeyError("k")

    problem = dataclasses.replace(base, **{which: boom})
    with pytest.raises(UserCallableError, match=rf"^{which}\(x.*\) raised KeyError"):
        solve(problem, SGDA(lr_x=0.2, lr_y=0.5), maxiters=3)


@pytest.mark.parametrize("cast", ["half", "long", "float"])
def test_a_torch_oracle_answer_less_precise_than_the_iterates_is_refused(cast):
    import numpy as np
    import torch

    from algorithms import solve
    from algorithms.hierarchical import SGDA, MinimaxProblem

    base = synthetic_minimax()

    def grad(x, y, rng):
        parts = base.grad(x, y, rng)
        return tuple(getattr(torch.from_numpy(np.asarray(v, dtype=np.float64)), cast)() for v in parts)

    problem = MinimaxProblem(grad=grad, phi=base.phi, grad_phi=base.grad_phi, x0=base.x0, y0=base.y0)
    with pytest.raises(TypeError, match=r"must return floats at least as precise as the iterates"):
        solve(problem, SGDA(), maxiters=5)  # upcast in silence before (numpy's float16 was refused)


def test_a_solve_past_the_oracle_budget_is_refused_naming_its_counts():
    from algorithms import solve
    from algorithms.hierarchical import StocBiO, quadratic_bilevel

    # inner_steps = 10**6 at the default 10**4 iterations: hours of oracle calls
    with pytest.raises(ValueError, match=r"^inner_steps = 1000000 and neumann_terms = \d+ make \d+ oracle"):
        solve(quadratic_bilevel(), StocBiO(inner_steps=10**6))


def test_auc_positive_fraction_takes_numpy_and_fraction_values():
    from fractions import Fraction

    import numpy as np

    # refused "must be in (0, 1)" (false) before
    for value in (np.float32(0.25), Fraction(1, 4)):
        assert auc_minimax(n_samples=20, batch_size=4, positive_fraction=value).x0.shape == \
            auc_minimax(n_samples=20, batch_size=4, positive_fraction=0.25).x0.shape


def test_a_user_oracles_own_value_error_at_the_start_passes_as_it_is():
    import dataclasses

    from algorithms import solve
    from algorithms.hierarchical import SGDA

    def grad_phi(x):
        raise ValueError("my own message")

    problem = dataclasses.replace(synthetic_minimax(), grad_phi=grad_phi)
    with pytest.raises(ValueError, match=r"^my own message$"):  # blamed on x0/y0's lengths before
        solve(problem, SGDA(), maxiters=3)
