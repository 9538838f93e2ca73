"""Round 23 of #43 in the attention family: docstring promises at their boundaries (class K)."""

import numpy as np
import pytest

from algorithms.attention import SingleLocationProblem


@pytest.mark.parametrize("dtype, stored", [
    ("float32", np.float32), ("float64", np.float64), (np.dtype("float32"), np.float32),
    (np.float64, np.float64),
])
def test_problem_dtype_takes_each_spelling_of_float32_and_float64(dtype, stored):
    # the docstring's "dtype float64 or float32": the string "float32" (the other families' spelling, read by
    # check_float_dtype) was refused here
    problem = SingleLocationProblem(d=4, L=2, gamma=0.5, dtype=dtype)
    assert problem.dtype is stored
    assert problem == SingleLocationProblem(d=4, L=2, gamma=0.5, dtype=stored)


@pytest.mark.parametrize("dtype", ["float16", np.float16, "complex64", None, "x", np.float32(1.0)])
def test_problem_dtype_other_than_float32_or_float64_is_refused_by_name(dtype):
    with pytest.raises(TypeError, match=r"dtype must be numpy\.float32 or numpy\.float64"):
        SingleLocationProblem(d=4, L=2, gamma=0.5, dtype=dtype)


@pytest.mark.parametrize("lr", [1e19, 1e25])
def test_spherical_gd_float32_finite_step_is_not_diverged(lr):
    # the step's norm was taken in float32, squaring ~1e19 entries to inf: Diverged though nothing overflowed
    # (the float64 twin ran to MaxIters; red23b)
    from algorithms import solve
    from algorithms.attention import SphericalGD

    for dtype in (np.float64, np.float32):
        problem = SingleLocationProblem(d=6, L=3, gamma=0.5, n_samples=50, dtype=dtype)
        assert solve(problem, SphericalGD(lr=lr), maxiters=20).retcode.name == "MaxIters"
