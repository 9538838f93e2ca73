"""Round 16 bad inputs of algorithms.attention (one test per class, the exception type and its words)."""

import pytest
import torch

from algorithms.attention import ErfAttention, SoftmaxAttention


def _half_by_conversion(model, dtype):
    return model.to(dtype)


def _half_by_state(model, dtype):
    model.load_state_dict({k: v.to(dtype) for k, v in model.state_dict().items()}, assign=True)
    return model


@pytest.mark.parametrize("convert", [_half_by_conversion, _half_by_state])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("cls", [SoftmaxAttention, ErfAttention])
def test_half_precision_parameters_after_construction_are_refused(cls, dtype, convert):
    """.half() (or a half state_dict loaded with assign=True) ran the forward in half precision, 0.7 % off, in
    silence, although the constructor refuses those dtypes (red16b)."""
    model = convert(cls(4, seed=0), dtype)
    with pytest.raises(TypeError, match=r"parameters must be float32 or float64.*\.double\(\)"):
        model(torch.randn(3, 5, 4).to(dtype))


def test_float32_labels_that_overflow_are_refused_naming_epsilon():
    """epsilon = 3.4e38 is in the working range: a float32 problem's sample_batch answered inf labels in
    silence; SphericalGD's run on it ends Diverged, as its docstring says."""
    import numpy as np

    from algorithms import RetCode, solve
    from algorithms.attention import SingleLocationProblem, SphericalGD, sample_batch

    problem = SingleLocationProblem(d=4, L=3, gamma=0.5, epsilon=3.4e38, dtype=np.float32, n_samples=50)
    with pytest.raises(ValueError, match=r"^epsilon = 3.4e\+38 is too large for a float32 problem"):
        sample_batch(problem, 1000, seed=0)
    assert solve(problem, SphericalGD(), seed=0, maxiters=5).retcode is RetCode.Diverged
    y = sample_batch(SingleLocationProblem(d=4, L=3, gamma=0.5, epsilon=3.4e38), 1000, seed=0)[1]
    assert bool(torch.isfinite(y).all())


def test_spherical_gd_names_l_when_one_sequence_passes_the_sample_cap():
    """L = 10**40 with n_samples = 20 was refused as "problem.n_samples must keep ...", blaming n_samples."""
    from algorithms import solve
    from algorithms.attention import SingleLocationProblem, SphericalGD

    problem = SingleLocationProblem(d=4, L=10**40, gamma=0.5, n_samples=20)
    with pytest.raises(ValueError, match=r"^problem.L must keep one sequence's L·d <= 2\*\*26"):
        solve(problem, SphericalGD(), maxiters=2)
