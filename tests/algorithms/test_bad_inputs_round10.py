"""#43 round 10, the lead's cross-family probe (each public callable's doctest call with one argument
replaced by a bad value). One test per class fixed, asserting the exception type and that the message
names the argument."""

import numpy as np
import pytest
import torch

from algorithms.attention import (
    SingleLocationProblem,
    link_function,
    locate_probability,
    mean_field_risk,
)
from algorithms.core import RetCode, Solution, Stats
from algorithms.hierarchical import additive_noise, auc_minimax, quadratic_bilevel, synthetic_minimax
from algorithms.quantum import partial_trace
from algorithms.submodular import (
    GraphicMatroid,
    LaminarMatroid,
    Matchoid,
    PartitionMatroid,
    UniformMatroid,
    UpdateStream,
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



# -- hierarchical: the built-in problems' own callables check their points ---------------------------------
@pytest.mark.parametrize("bad", [float("nan"), 1.0, "x", None, np.array([np.nan]), np.zeros(0),
                                 np.zeros((1, 1)), torch.zeros(1, device="meta")])
def test_builtin_minimax_callables_name_their_point(bad):
    """prob.phi(1.0) was "'float' object is not subscriptable", phi('x') a ufunc error, a NaN point NaN."""
    prob = synthetic_minimax()
    for call in (lambda: prob.phi(bad), lambda: prob.grad_phi(bad), lambda: prob.grad(bad, prob.y0, None)):
        with pytest.raises((TypeError, ValueError), match=r"^x (must|is required|is on the meta)"):
            call()


def test_builtin_bilevel_callables_name_their_points_and_rng():
    prob = quadratic_bilevel()
    with pytest.raises(ValueError, match=r"^v must have shape \(4,\) \(the built-in lower_hvp"):
        prob.lower_hvp(prob.x0, prob.y0, np.ones(3), None)
    with pytest.raises(TypeError, match=r"^rng must be a numpy.random.Generator, got int"):
        prob.upper_grad(prob.x0, prob.y0, 0)
    with pytest.raises(TypeError, match=r"^phi\(x\) takes 1 argument\(s\), got 2"):
        prob.phi(prob.x0, prob.x0)
    # None is the documented rng of the exact (deterministic) built-ins
    assert np.isfinite(prob.lower_grad(prob.x0, prob.y0, None)).all()


def test_sphere_noise_needs_a_point_to_put_on_the_sphere():
    """shape = (0,) with sigma > 0 divided 0 by 0 (ZeroDivisionError)."""
    with pytest.raises(ValueError, match=r"^shape must have at least one entry for the 'sphere' law"):
        additive_noise("sphere", 2.0, (0,), np.random.default_rng(0))
    assert additive_noise("sphere", 0.0, (0,), np.random.default_rng(0)).shape == (0,)


def test_builtin_auc_problem_checks_points_and_needs_a_generator():
    """auc_minimax's phi(1.0) met torch's 'slice() cannot be applied to a 0-dim tensor'; grad(x, y, None)
    an AttributeError ('NoneType' object has no attribute 'integers'): its gradient is a minibatch draw."""
    prob = auc_minimax(n_samples=40)
    with pytest.raises(ValueError, match=r"^x must have shape \(\d+,\) \(the built-in phi\(x\)"):
        prob.phi(1.0)
    with pytest.raises(TypeError, match=r"^rng must be a numpy.random.Generator, got NoneType"):
        prob.grad(prob.x0, prob.y0, None)


# -- submodular: is_independent on elements outside a finite ground set --------------------------------------
@pytest.mark.parametrize("matroid", [
    PartitionMatroid({1: "x", 2: "x", 3: "y"}, {"x": 1, "y": 1}),
    GraphicMatroid({"ab": ("a", "b"), "bc": ("b", "c")}),
    LaminarMatroid([{1, 2}, {1, 2, 3}], [1, 2]),
    UniformMatroid(2, ground={1, 2, 3}),
], ids=["partition", "graphic", "laminar", "uniform"])
def test_is_independent_names_elements_outside_the_ground_set(matroid):
    """A KeyError (the bare element) from inside the part/endpoint lookup."""
    words = r"^subset must be a subset of the matroid's ground set .* not in it: \{99\}"
    with pytest.raises(ValueError, match=words):
        matroid.is_independent({99})


# -- core: the output records are checked whenever a field is set, not only at construction ----------------
def test_solution_and_stats_check_fields_set_after_construction():
    """sol.retcode = 'bogus', sol.value = nan (with Success), stats.iterations = -1 were stored as given."""
    sol = Solution(x=np.zeros(2), value=1.0, retcode=RetCode.Success, stats=Stats())
    with pytest.raises(ValueError, match=r"^retcode must be a RetCode"):
        sol.retcode = "bogus"
    with pytest.raises(ValueError, match=r"^value must be finite with retcode Success"):
        sol.value = float("nan")
    with pytest.raises(TypeError, match=r"^stats must be a Stats"):
        sol.stats = {"iterations": 3}
    with pytest.raises(TypeError, match=r"^trace must be a list"):
        sol.trace = "abc"
    with pytest.raises(TypeError, match=r"^problem must be a Problem or None"):
        sol.problem = 3
    sol.retcode = "MaxIters"  # a name is converted, and then a NaN value is allowed
    sol.value = float("nan")
    assert sol.retcode is RetCode.MaxIters
    with pytest.raises(ValueError, match=r"^value must be finite with retcode Success"):
        sol.retcode = RetCode.Success
    with pytest.raises(ValueError, match=r"^iterations must be an int >= 0"):
        sol.stats.iterations = -1
    with pytest.raises(TypeError, match=r"^wall_time must be a real number"):
        sol.stats.wall_time = "1s"
    sol.stats.iterations = np.int64(3)
    assert type(sol.stats.iterations) is int


@pytest.mark.parametrize("f, error, words", [
    (lambda s: None, TypeError, "f must return a real number"),
    (lambda s: -1.0, ValueError, "f must be non-negative"),
    (torch.nn.Linear(2, 2), TypeError, r"f must be a set function .* raised TypeError"),
    (lambda s: 1 / 0, TypeError, r"f must be a set function .* raised ZeroDivisionError"),
], ids=["none", "negative", "module", "raises"])
def test_submodular_problems_probe_f_where_they_are_built(f, error, words):
    """UpdateStream/MatchoidMaximization stored any callable taking one argument: the solve met it."""
    with pytest.raises(error, match=words):
        UpdateStream(f, Matchoid([UniformMatroid(2)]), [("insert", e) for e in range(3)])


@pytest.mark.parametrize("keep", [torch.tensor([1]).to_sparse(),
                                  torch.zeros(1, dtype=torch.long, device="meta")])
def test_partial_trace_names_a_sparse_or_meta_keep(keep):
    bell = np.full((4, 4), 0.0)
    bell[0, 0] = bell[0, 3] = bell[3, 0] = bell[3, 3] = 0.5
    with pytest.raises((TypeError, ValueError), match=r"^keep (must|is on the meta)"):
        partial_trace(bell, keep=keep)


def test_markov_task_sampling_warns_nothing():
    """The cached stationary law is read-only (round 10): torch.as_tensor of it warned 'The given NumPy
    array is not writable' at the first sample of every process."""
    import warnings

    from algorithms.optimizers import MarkovLanguageTask

    task = MarkovLanguageTask(vocab_size=8, context=4, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert task.sample(5, torch.Generator().manual_seed(0)).shape == (5, 5)
