import math

import numpy as np

from algorithms import RetCode, solve
from algorithms.submodular import BruteForce, MatchoidMaximization, SampleGreedy
from algorithms.submodular.sample_greedy import sample
from tests.algorithms.submodular._instances import cut, two_partitions


def test_sample_rate_is_one_over_p_plus_one():
    kept = sample(list(range(30000)), 2, np.random.default_rng(0))
    assert abs(len(kept) / 30000 - 1 / 3) < 4 * math.sqrt(1 / 3 * 2 / 3 / 30000)


def test_expected_ratio_on_a_small_instance():
    f, matchoid = cut(), two_partitions()
    problem = MatchoidMaximization(f, matchoid, range(8))
    opt = solve(problem, BruteForce()).value
    values = [solve(problem, SampleGreedy(), seed=s).value for s in range(60)]
    assert all(solve(problem, SampleGreedy(), seed=s).retcode is RetCode.Success for s in range(3))
    assert np.mean(values) >= opt * 2 / 9  # (p + 1)² / p = 4.5 for p = 2
    assert max(values) <= opt + 1e-12
