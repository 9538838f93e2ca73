"""Round 25 of #43 (heldout25's first run): numeric strings in object arrays, bools as indices, a message
naming the wrong argument. ``astype(np.float64)`` parses ``"0.1"`` as 0.1, so every validator that converted
object arrays that way took strings as numbers."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import RandomForestRegressor

from algorithms._validation import as_float64, as_real_array
from algorithms.bayesopt import BOHistory, Kernel
from algorithms.curvature import lcd2_coefficients
from algorithms.forests import check_forest, column_distortion, knn_decode
from algorithms.qp import QP
from algorithms.unlearning import forget_split


def _text(*values) -> np.ndarray:
    return np.array([str(v) for v in values], dtype=object)


CASES = {
    "as_real_array": (lambda: as_real_array("x", _text(0.1, 0.2)), "x"),
    "as_float64": (lambda: as_float64("x", _text(1)), "x"),
    "as_real_array bool": (lambda: as_real_array("x", np.array([True, 2.0], dtype=object)), "x"),
    "QP lb": (lambda: QP(P=np.eye(2), q=np.zeros(2), lb=_text(-5, -5)), "lb"),
    "Kernel X": (lambda: Kernel("se", lengthscale=0.3)(_text(0.1, 0.2).reshape(2, 1), np.ones((2, 1))), "X"),
    "BOHistory f": (lambda: BOHistory(X=np.array([[0.1, 0.2], [0.3, 0.4]]), f=_text(1, 2),
                                      c=np.array([[0.1], [-0.1]]), n_initial=2), "f"),
    "lcd2_coefficients D": (lambda: lcd2_coefficients(1.0, _text(0.0, 1.0)), "D"),
    "column_distortion X": (lambda: column_distortion(_text(1, 2, 3, 4).reshape(2, 2), np.ones((2, 2))), "X"),
    "knn_decode Z0": (lambda: knn_decode(_text(0.1, 0.2).reshape(1, 2), np.zeros((3, 2)), np.ones((3, 2)),
                                         k=2, categorical=np.array([False, False]),
                                         rng=np.random.default_rng(0)), "Z0"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_numeric_strings_are_not_numbers(name):
    call, argument = CASES[name]
    # QP names lb in its own words first, then the entry ("lb must be a real numeric vector, ...")
    with pytest.raises(TypeError, match=rf"\b{argument} must hold numbers, got the (string|bool) "):
        call()


def test_a_bool_is_not_a_row_index():
    # [True, 2] forgot rows 1 and 2
    with pytest.raises(TypeError, match=r"^forget must hold numbers, got the bool True"):
        forget_split(np.arange(12.0).reshape(6, 2), np.arange(6.0), [True, 2])


@pytest.mark.parametrize("name", [3, b"x"])
def test_check_forest_names_its_argument_with_a_str(name):
    X = np.arange(16.0).reshape(-1, 2)
    forest = RandomForestRegressor(n_estimators=3, max_depth=2, random_state=0).fit(X, X[:, 0])
    with pytest.raises(TypeError, match=r"^name must be a str"):
        check_forest(name, forest, fitted=True)


def test_an_empty_training_set_is_named_not_k():
    with pytest.raises(ValueError, match=r"^Z_train must hold at least one row"):
        knn_decode(np.array([[0.1, 0.2]]), np.zeros((0, 2)), np.ones((3, 2)), k=2,
                   categorical=np.array([False, False]), rng=np.random.default_rng(0))
