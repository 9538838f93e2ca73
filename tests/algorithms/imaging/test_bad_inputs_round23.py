"""Round 23 (issue #43): docstring promises at their boundaries (imaging)."""
import numpy as np
import pytest
import torch

from algorithms._validation import UnknownAttributeError
from algorithms.imaging import Blur, InverseProblem, LinearOperator, MatrixOperator, gaussian_cs


class _NoInit(LinearOperator):
    """Shapes as class attributes, no __init__ of its own."""

    image_shape = (2, 2)
    measurement_shape = (4,)

    def _forward(self, x):
        return x.reshape(x.shape[0], -1)

    def _adjoint(self, y):
        return y.reshape(y.shape[0], 2, 2)


class _SuperFirst(LinearOperator):
    def __init__(self):
        super().__init__()
        self.image_shape, self.measurement_shape, self.k = (2, 2), (4,), 2.0

    def _forward(self, x):
        return self.k * x.reshape(x.shape[0], -1)

    def _adjoint(self, y):
        return self.k * y.reshape(y.shape[0], 2, 2)


OPERATORS = {"Blur": lambda: Blur((4, 4), 1.0),
             "MatrixOperator": lambda: MatrixOperator(torch.eye(4, dtype=torch.float64), (2, 2)),
             "no __init__": _NoInit, "super first": _SuperFirst}


@pytest.mark.parametrize("make", OPERATORS.values(), ids=list(OPERATORS))
def test_operator_misspelt_attribute_is_unknown_attribute_error(make):
    # the README's rule: a name the object does not take raises UnknownAttributeError (a ValueError was
    # raised; a subclass without __init__ stored it)
    op = make()
    with pytest.raises(UnknownAttributeError, match="sigmaa"):
        op.sigmaa = 2.0
    assert not hasattr(op, "sigmaa")


def test_subclass_without_init_has_fixed_attributes():
    # the class docstring: public attributes fixed once construction returns (a subclass without __init__
    # took image_shape = (3, 3))
    op = _NoInit()
    with pytest.raises(ValueError, match="image_shape is fixed"):
        op.image_shape = (3, 3)


@pytest.mark.parametrize("y", [np.ones(32, dtype=np.float16), torch.ones(32, dtype=torch.bfloat16),
                               torch.ones(32, dtype=torch.bool), torch.ones(32, dtype=torch.complex64)],
                         ids=["np16", "bf16", "bool", "complex"])
def test_inverse_problem_refuses_the_dtypes_its_docstring_names(y):
    assert "half-precision" in InverseProblem.__doc__
    with pytest.raises(TypeError, match="y"):
        InverseProblem(gaussian_cs((8, 8), 0.5, seed=0, dtype=torch.float64), y)
