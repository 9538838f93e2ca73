"""#43 round 13 of algorithms.attention: every parameter's domain stated in its docstring, and kept."""

import inspect

import pytest
import torch

from algorithms.attention import (
    ErfAttention,
    OverlapFlow,
    SingleLocationProblem,
    SoftmaxAttention,
    SphericalGD,
    learnable,
    monte_carlo_risk,
    phase_map,
    plot_phase_map,
    sample_batch,
    thermodynamics,
    top_score_probability,
    vectors_with_overlaps,
)

P = SingleLocationProblem(d=8, L=4, gamma=0.6)


@pytest.mark.parametrize("call, name", [
    (lambda: plot_phase_map("unused.png", size=1), "size"),
    (lambda: plot_phase_map("unused.png", size=4097), "size"),
    (lambda: plot_phase_map("unused.png", beta=1e-39), "beta"),
    (lambda: sample_batch(P, 2**31, 0), "n"),
    (lambda: sample_batch(P, 3, 2**64), "seed"),
    (lambda: vectors_with_overlaps(P, mu=1.5, nu=0.0), "mu"),
    (lambda: vectors_with_overlaps(P, mu=0.0, nu=0.0, rho=-1.5), "rho"),
    (lambda: monte_carlo_risk(P, *vectors_with_overlaps(P, mu=0.5, nu=0.5), n=10, level=1e-39), "level"),
    (lambda: top_score_probability(P, 0.5, nodes=361), "nodes"),
    (lambda: SingleLocationProblem(d=2**31, L=4, gamma=0.6), "d"),
    (lambda: SingleLocationProblem(d=8, L=4, gamma=0.6, n_samples=2**31), "n_samples"),
    (lambda: SingleLocationProblem(d=8, L=4, gamma=1e-39), "gamma"),
    (lambda: learnable(1e-39, 0.5), "gamma"),
    (lambda: phase_map([1e-39], [0.5]), "gammas"),
    (lambda: thermodynamics(1.0, 1e-39), "beta"),
    (lambda: ErfAttention(4, lam=1e-39), "lam"),
    (lambda: OverlapFlow(lr=3.5e38), "lr"),
    (lambda: SphericalGD(lr=3.5e38), "lr"),
])
def test_values_outside_the_stated_domains_are_refused_by_name(call, name):
    """red13b: these domains were enforced but not stated (plot_phase_map, sample_batch,
    vectors_with_overlaps, level); each refusal names its argument."""
    with pytest.raises((ValueError, TypeError), match=rf"\b{name}\b"):
        call()


@pytest.mark.parametrize("call", [
    lambda: learnable(0.5, 1e-39), lambda: thermodynamics(1e-39, 1.0), lambda: phase_map([0.5], [1e-39]),
    lambda: learnable(1.2e-38, 0.5, 1.2e-38), lambda: thermodynamics(3.4e38, 3.4e38),
    lambda: ErfAttention(4, lam=1.2e-38), lambda: OverlapFlow(lr=3.4e38), lambda: SphericalGD(lr=2**64),
    lambda: vectors_with_overlaps(P, mu=-1.0, nu=1.0),
    lambda: monte_carlo_risk(P, *vectors_with_overlaps(P, mu=0.5, nu=0.5), n=10, level=1.2e-38),
])
def test_values_inside_the_stated_domains_work(call):
    call()


@pytest.mark.parametrize("owner, words", [
    (plot_phase_map, "an int in [2, 4096]"), (plot_phase_map, "[1.18e-38, 3.4e38]"),
    (sample_batch, "an int in [1, 2**31 − 1]"), (sample_batch, "[0, 2**64)"),
    (vectors_with_overlaps, "in [-1, 1]"), (monte_carlo_risk, "at least 1.18e-38"),
    (top_score_probability, "MAX_NODES = 360"), (SingleLocationProblem, "an int in [2, 2**31 − 1]"),
    (SingleLocationProblem, "``n_samples`` (an int in [1, 2**31 − 1])"), (learnable, "at least 1.18e-38"),
    (phase_map, "each in [0, 3.4e38]"), (thermodynamics, "[1.18e-38, 3.4e38]"),
    (ErfAttention, "[1.18e-38, 3.4e38]"), (OverlapFlow, "[1.18e-38, 3.4e38]"),
    (SphericalGD, "[1.18e-38, 3.4e38]"),
])
def test_docstrings_state_the_domains(owner, words):
    assert words in " ".join(inspect.getdoc(owner).split())


@pytest.mark.parametrize("model, key", [
    (lambda: ErfAttention(4), "k"), (lambda: ErfAttention(4), "v"),
    (lambda: SoftmaxAttention(4), "u"), (lambda: SoftmaxAttention(4), "v"),
])
def test_load_state_dict_refuses_a_sparse_tensor_by_name(model, key):
    """red13b: a sparse entry met torch's NotImplementedError ("aten::ne.Scalar ... SparseCPU") in the
    shared finiteness check."""
    m = model()
    state = m.state_dict()
    with pytest.raises(TypeError, match=rf"state_dict\['{key}'\] must be a dense tensor"):
        m.load_state_dict({**state, key: state[key].to_sparse()})
    m.load_state_dict(state)


@pytest.mark.parametrize("cast", [lambda t: t.half(), lambda t: t.bfloat16(),
                                  lambda t: t.numpy().astype("float16")],
                         ids=["float16", "bfloat16", "numpy16"])
def test_unit_vectors_in_half_precision_are_unit_vectors(cast):
    """red13b: "any real dtype" was documented, but a float16 copy of a unit vector (norm 1 ± 5e-4) was
    refused as "not a unit vector" (the tolerance was float32's at most) and bfloat16 met numpy's missing
    dtype."""
    from algorithms.attention import overlaps

    problem = SingleLocationProblem(d=4, L=3, gamma=0.5)
    u, v = problem.oracle()
    exact = monte_carlo_risk(problem, u, v, n=200)["risk"]
    assert monte_carlo_risk(problem, cast(u), cast(v), n=200)["risk"] == pytest.approx(exact, abs=5e-3)
    assert overlaps(cast(u), cast(v), u, v)["mu"] == pytest.approx(1.0, abs=1e-2)
    SingleLocationProblem(d=4, L=3, gamma=0.5, u0=cast(u))
    with pytest.raises(ValueError, match=r"\bu must be a unit vector"):
        monte_carlo_risk(problem, cast(u * 1.1), v, n=200)


@pytest.mark.parametrize("model", [
    lambda: SoftmaxAttention(4, dtype=torch.float32), lambda: ErfAttention(4, dtype=torch.float32),
    lambda: SoftmaxAttention(4, link="quadratic", dtype=torch.float32),
])
def test_float32_tokens_whose_output_overflows_are_refused_naming_x(model):
    """Tokens of the working range (3e38) in float32: ErfAttention answered inf in silence, SoftmaxAttention
    raised naming its link's own argument t."""
    X = torch.zeros(2, 3, 4)
    X[0, 0, :] = 3e38
    with pytest.raises(ValueError, match=r"^X has entries too large for torch.float32"):
        model()(X)
    assert bool(torch.isfinite(model()(X / 1e38)).all())


@pytest.mark.parametrize("value", [__import__("numpy").array(0.5), torch.tensor(0.5), "0.5", None])
def test_an_overlap_that_is_not_a_number_is_a_type_error(value):
    """A 0-d array was refused "mu must be a real number in [-1, 1], got array(0.5)" (a ValueError about
    its range, for a value inside it)."""
    with pytest.raises(TypeError, match=r"^mu must be a real number in \[-1, 1\], got "):
        vectors_with_overlaps(P, mu=value, nu=0.0)


def test_spherical_gd_does_not_revalidate_its_own_sample_each_step():
    """Each step re-checked all n_samples·L·d tokens (2**22 entries: 1.6 s a step; the cap 2**26: 10 s)."""
    from unittest import mock

    import algorithms.attention.models as M
    from algorithms import solve

    problem = SingleLocationProblem(d=8, L=4, gamma=0.6, n_samples=50)
    with mock.patch.object(M, "_check_tokens", side_effect=AssertionError("per-step token check")):
        sol = solve(problem, SphericalGD(lr=0.05), seed=0, maxiters=5)
    assert sol.stats.iterations == 5
