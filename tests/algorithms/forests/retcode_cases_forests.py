"""Retcode cases of the forests family: Lanczos cut at one restart (MaxIters) and a kernel without
splits (constant data: every tree is a single leaf, so K = 11ᵀ/n has no non-trivial eigenvalue and
the embedding is degenerate: Failure)."""

import numpy as np

from algorithms import RetCode
from algorithms.forests import RFAE, AutoencodingProblem
from tests.retcodes import RetcodeCase


def _capped():
    X = np.random.default_rng(0).random((200, 3))
    return AutoencodingProblem(X), RFAE(n_components=10, n_estimators=10), {"maxiters": 1}


def _constant():
    return AutoencodingProblem(np.ones((30, 2))), RFAE(n_estimators=3), {}


CASES = [RetcodeCase("lanczos_one_restart", _capped, RetCode.MaxIters),
         RetcodeCase("constant_data", _constant, RetCode.Failure)]
