"""Round 11 of issue #43, lead: cross-family bad-input classes."""

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from algorithms import solve
from algorithms.qp import DQP, QP


def _qp() -> QP:
    return QP(P=np.eye(2), q=np.array([-1.0, -1.0]))


@pytest.mark.parametrize("role", ["problem", "algorithm"])
def test_field_replaced_by_object_setattr_is_validated_again_at_solve(role):
    problem, algorithm = _qp(), DQP(backend="clarabel")
    target, label, bad = (problem, "QP.q", np.array([np.nan, 1.0])) if role == "problem" else (
        algorithm, "DQP.backend", "zzz")
    object.__setattr__(target, label.split(".")[1], bad)
    with pytest.raises(ValueError, match=rf"{label} was changed after construction"):
        solve(problem, algorithm)


def test_copies_pickles_and_replace_keep_a_problem_solvable():
    problem, algorithm = _qp(), DQP(backend="clarabel")
    for same in (copy.copy(problem), copy.deepcopy(problem), pickle.loads(pickle.dumps(problem)),
                 dataclasses.replace(problem, q=np.array([1.0, 1.0]))):
        assert solve(same, copy.deepcopy(algorithm)).retcode.successful


def test_an_option_the_run_never_reads_is_named_in_a_warning():
    from algorithms.routing import random_tsp
    from algorithms.routing.held_karp import HeldKarp

    with pytest.warns(UserWarning, match=r"tol=0\.5 had no effect: this HeldKarp run used no stopping"):
        assert solve(random_tsp(5, seed=1), HeldKarp(), tol=0.5).retcode.successful


def test_a_fraction_is_a_real_number_for_the_shared_checks():
    from fractions import Fraction

    from algorithms._validation import check_positive

    assert check_positive("lr", Fraction(1, 4)) == 0.25


def test_a_success_never_carries_a_non_finite_or_str_answer():
    from algorithms.core import Solution

    sol = Solution(x=np.array([1.0, 1.0]), value=0.0, retcode="Success")
    with pytest.raises(ValueError, match=r"x must be finite with retcode Success"):
        sol.x = np.array([np.nan, 1.0])
    with pytest.raises(TypeError, match=r"x must be the answer a family returns .* got str"):
        sol.x = "abc"
    with pytest.raises(ValueError, match=r"x must be finite with retcode Success"):
        Solution(x=np.array([np.inf]), value=1.0, retcode="Success")
    assert Solution(x=np.array([np.nan]), value=np.nan, retcode="Diverged").retcode.value == "Diverged"
