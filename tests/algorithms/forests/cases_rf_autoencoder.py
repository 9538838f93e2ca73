"""Contract cases for the (AutoencodingProblem, RFAE) pair."""

import numpy as np

from algorithms.forests import RFAE, AutoencodingProblem


def make_rfae(dtype):
    X = np.random.default_rng(0).random((40, 3)).astype(dtype)
    return AutoencodingProblem(X), RFAE(n_components=2, n_estimators=5)


CASES = [make_rfae]
