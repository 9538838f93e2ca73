"""#43 round 10, the lead's cross-family probe (each public callable's doctest call with one argument
replaced by a bad value). One test per class fixed, asserting the exception type and that the message
names the argument."""

import pytest
import torch

from algorithms.attention import (
    SingleLocationProblem,
    link_function,
    locate_probability,
    mean_field_risk,
)


@pytest.mark.parametrize("bad", [1.0, [1.0], torch.zeros(2, dtype=torch.complex64), torch.eye(2).to_sparse(),
                                 torch.zeros(2, device="meta"), torch.arange(3)])
@pytest.mark.parametrize("name", ["linear", "quadratic", "relu"])
def test_link_functions_name_their_argument(name, bad):
    """torch.relu's own TypeError named 'input'; the linear link returned a float or a sparse tensor."""
    with pytest.raises(TypeError, match=rf"t \(the {name} link's argument\) must be"):
        link_function(name)(bad)


@pytest.mark.parametrize("bad", [torch.zeros(1, dtype=torch.complex64), torch.eye(2).to_sparse(),
                                 torch.tensor([True])])
def test_overlap_tensors_must_be_dense_and_real(bad):
    """Complex and sparse overlaps raised torch's NotImplementedError ('gt_cpu', 'aten::ne.Scalar')."""
    p = SingleLocationProblem(d=50, L=21, gamma=0.6)
    with pytest.raises(TypeError, match="mu must be a"):
        locate_probability(p, bad)
    with pytest.raises(TypeError, match="nu must be a"):
        mean_field_risk(p, 1.0, bad)

