"""Round 18: a problem's arrays stay read-only after pickling or deepcopy (quantum; forests' problem too)."""

import copy
import pickle

import numpy as np
import pytest

from algorithms import solve
from algorithms.forests import RFAE, AutoencodingProblem
from algorithms.quantum import PurestStateProblem, UniformAllocation, random_state


def _purest() -> PurestStateProblem:
    states = [random_state(1, purity=p, seed=i) for i, p in enumerate((0.6, 0.9))]
    return PurestStateProblem(states, copies=200)


def _autoencoding() -> AutoencodingProblem:
    rng = np.random.default_rng(0)
    return AutoencodingProblem(rng.normal(size=(30, 3)), y=np.arange(30) % 2, X_test=np.ones((2, 3)))


@pytest.mark.parametrize(("make", "field"), [(_purest, "states"), (_autoencoding, "X"), (_autoencoding, "y"),
                                             (_autoencoding, "X_test")])
@pytest.mark.parametrize("made", ["built", "deepcopy", "pickle"])
def test_problem_arrays_stay_read_only(make, field, made):
    # a deep-copied PurestStateProblem's states came back writable (README: problems keep arrays read-only),
    # and the flag of the original could be turned back on
    problem = make()
    problem = {"built": problem, "deepcopy": copy.deepcopy(problem),
               "pickle": pickle.loads(pickle.dumps(problem))}[made]
    array = getattr(problem, field)
    with pytest.raises(ValueError, match="read-only"):
        array[0] = 0
    with pytest.raises(ValueError):
        array.flags.writeable = True
    algorithm = UniformAllocation() if isinstance(problem, PurestStateProblem) else RFAE(n_estimators=5)
    assert solve(problem, algorithm, seed=0).successful


@pytest.mark.parametrize("atol", [np.array(1e-8), [1e-8], "1e-8"])
def test_as_density_matrix_atol_of_another_type_is_a_type_error(atol):
    # class C: a 0-d array of 1e-8 (inside the range) was told "must be a positive float <= 0.01" (ValueError)
    from algorithms.quantum import as_density_matrix

    with pytest.raises(TypeError, match=r"^atol must be a positive float .* got (ndarray|list|str)"):
        as_density_matrix(np.eye(2) / 2, atol=atol)


def test_tensors_with_requires_grad_are_read_as_their_values():
    # class C: a float64 tensor with requires_grad (a valid array) was refused with numpy's "Can't call
    # numpy() on Tensor that requires grad"
    import torch

    from algorithms.quantum import hardness_h1, purity, sample_counts

    rho = random_state(1, purity=0.8, seed=0).real
    assert purity(torch.tensor(rho, requires_grad=True)) == pytest.approx(purity(rho))
    purities = np.array([0.9, 0.6])
    assert hardness_h1(torch.tensor(purities, requires_grad=True)) == hardness_h1(purities)
    probabilities = np.array([0.25, 0.75])
    assert np.array_equal(sample_counts(torch.tensor(probabilities, requires_grad=True), 10),
                          sample_counts(probabilities, 10))


@pytest.mark.parametrize("call", [
    lambda: __import__("algorithms.quantum", fromlist=["x"]).hardness_h1([True, 0.5]),
    lambda: __import__("algorithms.quantum", fromlist=["x"]).hardness_h2([0.9, np.True_]),
    lambda: __import__("algorithms.quantum", fromlist=["x"]).purity([[True, 0.0], [0.0, 0.0]]),
    lambda: __import__("algorithms.quantum", fromlist=["x"]).sample_counts([True, 0.0], 5),
])
def test_a_bool_among_list_entries_is_refused(call):
    # red18c: hardness_h1([True, 0.5]) read True as the purity 1.0 (a bool array was refused by name)
    with pytest.raises(TypeError, match="must hold numbers, got the bool"):
        call()
