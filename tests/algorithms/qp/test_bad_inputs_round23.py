"""Round 23 of #43 in the qp family: docstring promises at their boundaries (class K)."""

import numpy as np
import pytest

from algorithms import solve
from algorithms.qp import DQP, QP


@pytest.mark.parametrize("bounds", [{"lb": np.zeros(2)}, {"ub": np.ones(2)}, {"lb": [0.0, 0.0]}])
def test_float64_bounds_keep_a_float32_qp_float32_as_its_docstring_says(bounds):
    # the docstring said "float32 when every input is float32" while lb/ub never counted: it now says so
    f32 = np.float32
    qp = QP(P=np.eye(2, dtype=f32), q=np.array([1.0, -1.0], f32), **bounds)
    assert qp.dtype == np.float32
    assert solve(qp, DQP()).x.dtype == np.float32


@pytest.mark.parametrize("name", ["singlar", "methd", "bogus"])
def test_a_misspelt_kkt_factor_attribute_is_an_unknown_attribute_error(name):
    # README: a name an object does not take raises UnknownAttributeError; KKTFactor said "<name> is fixed by
    # the KKTFactor's factorization" (a plain ValueError) of a name it never had
    from algorithms._validation import UnknownAttributeError
    from algorithms.qp import KKTFactor

    factor = KKTFactor(np.eye(2), np.ones((1, 2)))
    with pytest.raises(UnknownAttributeError, match=f"KKTFactor takes no attribute '{name}'"):
        setattr(factor, name, 1)
    with pytest.raises(ValueError, match="singular is fixed by the KKTFactor's factorization"):
        factor.singular = True
