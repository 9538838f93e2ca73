"""Round 14: GGDOpt shows progress over stages 1 and 2 (a default run was silent for about two minutes)."""

from algorithms import solve
from algorithms.chance import linear_gaussian_problem
from algorithms.chance.diffusion import PROGRESS_TICK
from tests.algorithms.chance.cases_ggdopt import TINY_GGDOPT


def test_stage_bars_with_progress(capsys):
    problem = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    solve(problem, TINY_GGDOPT, seed=0, progress=True)
    err = capsys.readouterr().err
    assert "stage 1: feasible points" in err and "stage 2: score training" in err
    assert PROGRESS_TICK.get() is None   # reset on the way out


def test_no_stage_bars_without_progress(capsys):
    problem = linear_gaussian_problem(n=2, n_samples=100, rho=0.1, seed=0)
    solve(problem, TINY_GGDOPT, seed=0)
    assert "stage 1" not in capsys.readouterr().err
