"""Bad inputs for every public callable of algorithms.attention: each must raise our own error naming
the argument and what was expected (never a bare torch/numpy traceback)."""

import numpy as np
import pytest
import torch

from algorithms.attention import dynamics, models, phase, problem, risk, spherical_gd
from algorithms.attention import problem as pb
from tests.bad_inputs import BadInput, assert_every_callable_covered, check_bad_input

torch.set_num_threads(1)
MODULES = (problem, models, risk, dynamics, spherical_gd, phase)

P = pb.SingleLocationProblem(d=6, L=3, gamma=0.5)
U, V = P.oracle()
X = torch.zeros(2, 3, 6, dtype=torch.float64)


def _problem(**override):
    args = {"d": 6, "L": 3, "gamma": 0.5}
    args.update(override)
    return lambda: pb.SingleLocationProblem(**args)


SLP = pb.SingleLocationProblem
CASES = [
    BadInput(SLP, _problem(L=1), ValueError, ("L", ">= 2"), "L<2"),
    BadInput(SLP, _problem(d=1), ValueError, ("d", ">= 2"), "d<2"),
    BadInput(SLP, _problem(d=4.0), TypeError, ("d", "int"), "d-float"),
    BadInput(SLP, _problem(gamma=0.0), ValueError, ("gamma", "> 0"), "gamma=0"),
    BadInput(SLP, _problem(gamma=-0.3), ValueError, ("gamma",), "gamma<0"),
    BadInput(SLP, _problem(gamma=1.0), ValueError, ("gamma", "(0, 1)"), "gamma=1"),
    BadInput(SLP, _problem(beta=0.0), ValueError, ("beta", "> 0"), "beta=0"),
    BadInput(SLP, _problem(epsilon=-0.1), ValueError, ("epsilon", ">= 0"), "epsilon<0"),
    BadInput(SLP, _problem(link="tanh"), ValueError, ("link", "linear"), "link"),
    BadInput(SLP, _problem(variant="x"), ValueError, ("variant", "dohmatob"), "variant"),
    BadInput(SLP, _problem(n_samples=0), ValueError, ("n_samples", "positive int"), "n_samples"),
    BadInput(SLP, _problem(oracle_seed=-1), ValueError, ("seed", ">= 0"), "oracle_seed"),
    BadInput(SLP, _problem(u0=np.ones(6)), ValueError, ("u0", "unit"), "u0-not-unit"),
    BadInput(SLP, _problem(v0=np.ones(5) / np.sqrt(5)), ValueError, ("v0", "shape"), "v0-shape"),
    BadInput(SLP, _problem(v0=np.full(6, np.nan)), ValueError, ("v0", "nan"), "v0-nan"),
    BadInput(SLP, _problem(dtype=np.int64), TypeError, ("dtype", "float32"), "dtype"),
    BadInput(pb.link_function, lambda: pb.link_function("sigmoid"), ValueError, ("link", "relu"), "name"),
    BadInput(pb.overlaps, lambda: pb.overlaps(U, V, U[:3], V), ValueError, ("u_star", "shapes"), "shapes"),
    BadInput(pb.sample_batch, lambda: pb.sample_batch(P, 0, seed=0), ValueError, ("n", "positive int"), "n"),
    BadInput(pb.sample_batch, lambda: pb.sample_batch(P, 3, seed=-2), ValueError, ("seed",), "seed"),
    BadInput(pb.vectors_with_overlaps, lambda: pb.vectors_with_overlaps(P, mu=1.5, nu=0.0), ValueError,
             ("mu", "[-1, 1]"), "range"),
    BadInput(pb.vectors_with_overlaps, lambda: pb.vectors_with_overlaps(P, mu=1.0, nu=0.0, zeta=0.5),
             ValueError, ("gram", "overlaps"), "infeasible"),
    BadInput(pb.vectors_with_overlaps,
             lambda: pb.vectors_with_overlaps(pb.SingleLocationProblem(d=3, L=3, gamma=0.5), mu=0.1, nu=0.1),
             ValueError, ("d", ">= 4"), "d<4"),
    BadInput(models.SoftmaxAttention, lambda: models.SoftmaxAttention(1), ValueError,
             ("in_features", ">= 2"), "d"),
    BadInput(models.SoftmaxAttention, lambda: models.SoftmaxAttention(4, beta=-1.0), ValueError,
             ("beta", "> 0"), "beta"),
    BadInput(models.SoftmaxAttention, lambda: models.SoftmaxAttention(4, link="tanh"), ValueError,
             ("link",), "link"),
    BadInput(models.SoftmaxAttention, lambda: models.SoftmaxAttention(4)(torch.zeros(2, 3, 5)), ValueError,
             ("X", "(n, L, 4)"), "X-shape"),
    BadInput(models.SoftmaxAttention, lambda: models.SoftmaxAttention(4, seed=-1), ValueError, ("seed",),
             "seed"),
    BadInput(models.ErfAttention, lambda: models.ErfAttention(4, lam=0.0), ValueError, ("lam", "> 0"), "lam"),
    BadInput(models.ErfAttention, lambda: models.ErfAttention(3)(np.zeros((2, 3, 3))), TypeError,
             ("X", "torch"), "X-numpy"),
    BadInput(models.best_linear_weights, lambda: models.best_linear_weights("P"), TypeError,
             ("problem", "SingleLocationProblem"), "type"),
    BadInput(models.best_linear_risk,
             lambda: models.best_linear_risk(pb.SingleLocationProblem(d=4, L=3, gamma=0.5, link="relu")),
             ValueError, ("link", "linear"), "link"),
    BadInput(models.fit_linear_predictor, lambda: models.fit_linear_predictor(X, torch.zeros(2)), ValueError,
             ("rows", "least squares"), "few-rows"),
    BadInput(models.fit_linear_predictor, lambda: models.fit_linear_predictor(X, torch.zeros(3)), ValueError,
             ("y", "shape"), "y-shape"),
    BadInput(risk.thermodynamics, lambda: risk.thermodynamics(-0.1, 1.0), ValueError, ("alpha", ">= 0"),
             "alpha"),
    BadInput(risk.thermodynamics, lambda: risk.thermodynamics(0.1, 0.0), ValueError, ("beta", "> 0"), "beta"),
    BadInput(risk.locate_probability, lambda: risk.locate_probability(P, 1.5), ValueError, ("mu", "[-1, 1]"),
             "mu"),
    BadInput(risk.locate_probability, lambda: risk.locate_probability(P, "1"), TypeError, ("mu",), "mu-str"),
    BadInput(risk.mean_field_risk, lambda: risk.mean_field_risk(P, 0.5, -1.2), ValueError, ("nu", "[-1, 1]"),
             "nu"),
    BadInput(risk.mean_field_risk,
             lambda: risk.mean_field_risk(pb.SingleLocationProblem(d=4, L=3, gamma=0.5, link="quadratic"),
                                          0.5, 0.5), ValueError, ("link", "linear"), "link"),
    BadInput(risk.monte_carlo_risk, lambda: risk.monte_carlo_risk(P, 2 * U, V), ValueError, ("u", "unit"),
             "u-not-unit"),
    BadInput(risk.monte_carlo_risk, lambda: risk.monte_carlo_risk(P, U, V, n=1), ValueError, ("n", ">= 2"),
             "n"),
    BadInput(risk.monte_carlo_risk, lambda: risk.monte_carlo_risk(P, U, V, level=1.5), ValueError,
             ("level", "(0, 1)"), "level"),
    BadInput(risk.monte_carlo_risk, lambda: risk.monte_carlo_risk("P", U, V), TypeError, ("problem",),
             "problem"),
    BadInput(risk.top_score_probability, lambda: risk.top_score_probability(P, 2.0), ValueError,
             ("mu", "[-1, 1]"), "mu"),
    BadInput(risk.top_score_probability, lambda: risk.top_score_probability(P, nodes=1), ValueError,
             ("nodes", ">= 2"), "nodes"),
    BadInput(dynamics.OverlapFlow, lambda: dynamics.OverlapFlow(lr=0.0), ValueError, ("lr", "> 0"), "lr"),
    BadInput(dynamics.OverlapFlow, lambda: dynamics.OverlapFlow(lr=float("inf")), ValueError, ("lr",),
             "lr-inf"),
    BadInput(dynamics.overlap_velocity, lambda: dynamics.overlap_velocity(P, [1.0, 0.0]), ValueError,
             ("state", "4"), "state-shape"),
    BadInput(dynamics.overlap_velocity, lambda: dynamics.overlap_velocity(P, [3.0, 0.0, 0.0, 0.0]),
             ValueError, ("state", "overlaps"), "state-range"),
    BadInput(dynamics.overlap_velocity,
             lambda: dynamics.overlap_velocity(pb.SingleLocationProblem(d=4, L=3, gamma=0.5, link="relu"),
                                               [0.0] * 4), ValueError, ("link", "linear"), "link"),
    BadInput(spherical_gd.SphericalGD, lambda: spherical_gd.SphericalGD(lr=-1.0), ValueError, ("lr", "> 0"),
             "lr"),
    BadInput(spherical_gd.SphericalGD, lambda: spherical_gd.SphericalGD(link="softmax"), ValueError,
             ("link", "none"), "link"),
    BadInput(phase.learnable, lambda: phase.learnable(1.5, 0.2), ValueError, ("gamma", "(0, 1)"), "gamma"),
    BadInput(phase.learnable, lambda: phase.learnable(0.5, -0.2), ValueError, ("alpha",), "alpha"),
    BadInput(phase.phase_map, lambda: phase.phase_map([], [0.2]), ValueError, ("gammas", "non-empty"),
             "empty"),
    BadInput(phase.plot_phase_map, lambda: phase.plot_phase_map("/tmp/x.png", size=1), ValueError,
             ("size", ">= 2"), "size"),
]


# a float32 input on a float64 model: a named dtype error, not torch's addmv message
CASES += [
    BadInput(models.SoftmaxAttention.forward, lambda: models.SoftmaxAttention(6)(X.float()), TypeError,
             ("X", "float64", "float32"), "dtype"),
    BadInput(models.ErfAttention.forward, lambda: models.ErfAttention(6)(X.float()), TypeError,
             ("X", "float64", "float32"), "dtype"),
]

@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES)


def test_solve_options_rejected():
    from algorithms import solve

    with pytest.raises(ValueError, match="maxiters"):
        solve(P, dynamics.OverlapFlow(), maxiters=-1)


def test_round2_names_and_domains():
    # issue #43 round 2: link_function names its argument, phase_map its arrays, overlaps and
    # sample_batch their inputs; least squares names a NaN X and a y of another dtype
    X = torch.randn(10, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    y = X[:, 0, 0].clone()
    e = torch.eye(3, dtype=torch.float64)
    for case in (
        BadInput(pb.link_function, lambda: pb.link_function("__bogus__"), ValueError, ("name",), "unknown"),
        BadInput(phase.phase_map, lambda: phase.phase_map(np.zeros(2), [0.3]), ValueError, ("gammas",),
                 "zero"),
        BadInput(phase.phase_map, lambda: phase.phase_map([0.5], [-1.0]), ValueError, ("alphas",),
                 "negative"),
        BadInput(pb.overlaps, lambda: pb.overlaps(e[0] * np.nan, e[1], e[0], e[1]), ValueError, ("u", "NaN"),
                 "nan"),
        BadInput(pb.overlaps, lambda: pb.overlaps("abc", e[1], e[0], e[1]), TypeError, ("u", "numeric"),
                 "str"),
        BadInput(pb.sample_batch, lambda: pb.sample_batch(None, 4, 0), TypeError, ("problem",), "none"),
        BadInput(models.fit_linear_predictor, lambda: models.fit_linear_predictor(X * np.nan, y), ValueError,
                 ("X", "NaN"), "nan"),
        BadInput(models.fit_linear_predictor, lambda: models.fit_linear_predictor(X, y.float()), TypeError,
                 ("y", "dtype"), "dtype"),
        BadInput(dynamics.OverlapFlow,
                 lambda: dynamics.initial_vectors(pb.SingleLocationProblem(d=5, L=3, gamma=0.5),
                                                                        -1), ValueError, ("seed",), "seed"),
    ):
        check_bad_input(case)


def test_complex_input_refused_by_name():
    # #43 round 4: np.asarray(x, dtype=float) dropped the imaginary part with only a ComplexWarning
    from algorithms.attention import SingleLocationProblem, monte_carlo_risk, overlap_velocity

    problem = SingleLocationProblem(d=4, L=3, gamma=0.5)
    with pytest.raises(TypeError, match=r"^state must be real"):
        overlap_velocity(problem, np.array([0.1 + 1j, 0.1, 0.1, 0.1]))
    with pytest.raises(TypeError, match=r"^u0 must be a real vector.*complex"):
        SingleLocationProblem(d=4, L=3, gamma=0.5, u0=np.array([1 + 1j, 0, 0, 0]))
    with pytest.raises(TypeError, match=r"^u must be a real vector.*complex"):
        monte_carlo_risk(problem, np.array([1 + 1j, 0, 0, 0]), np.array([1.0, 0, 0, 0]))


def test_round7_seeds_aliasing_state_and_predict():
    # #43 round 7 (pre-audit sweep): numpy-int seeds reached torch's manual_seed ("an integer is required"),
    # u0 aliased the caller's array, NaN weights loaded, predict() of another L/dtype reached torch
    from algorithms import solve
    from algorithms.attention import (
        ErfAttention,
        OverlapFlow,
        SingleLocationProblem,
        SoftmaxAttention,
        monte_carlo_risk,
        plot_phase_map,
        sample_batch,
        vectors_with_overlaps,
    )

    p = SingleLocationProblem(d=6, L=4, gamma=0.6, oracle_seed=np.uint64(2**64 - 1))
    assert p.oracle_seed == 2**64 - 1 and type(p.oracle_seed) is int
    us, vs = p.oracle()
    assert torch.equal(sample_batch(p, 2, seed=np.int64(3))[0], sample_batch(p, 2, seed=3)[0])
    assert monte_carlo_risk(p, us, vs, n=10, seed=np.int64(1)) == monte_carlo_risk(p, us, vs, n=10, seed=1)
    u0, v0 = us.double().numpy().copy(), vs.double().numpy().copy()
    start = SingleLocationProblem(d=6, L=4, gamma=0.6, u0=u0, v0=v0)
    before = solve(start, OverlapFlow(), seed=0, maxiters=3).x
    u0[:] = np.eye(6)[0]  # an edit after construction does not reach the problem
    assert np.array_equal(solve(start, OverlapFlow(), seed=0, maxiters=3).x, before)
    assert isinstance(start.u0, tuple) and hash(start) == hash(start) and start == start
    for model in (SoftmaxAttention(6), ErfAttention(6)):
        state = {k: v.clone() for k, v in model.state_dict().items()}
        state["v"][0] = float("nan")
        with pytest.raises(ValueError, match=r"^state_dict\['v'\] contains NaN"):
            model.load_state_dict(state)
        assert bool(torch.isfinite(model.v).all())
    with pytest.raises(TypeError, match=r"^problem must be a SingleLocationProblem"):
        vectors_with_overlaps("p", mu=0.5, nu=0.5)
    X = torch.randn(60, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    predict = models.fit_linear_predictor(X, X[:, 0, 0] + 1.0)
    with pytest.raises(ValueError, match=r"^X must have shape \(m, 2, 3\)"):
        predict(torch.zeros(2, 3, 3, dtype=torch.float64))
    with pytest.raises(TypeError, match=r"^X must have dtype torch.float64"):
        predict(torch.zeros(2, 2, 3))
    with pytest.raises(ValueError, match=r"^X contains NaN"):
        predict(torch.full((2, 2, 3), float("nan"), dtype=torch.float64))
    with pytest.raises(TypeError, match=r"^path must be a str or os.PathLike"):
        plot_phase_map(3, size=3)
    with pytest.raises(ValueError, match=r"^path must be in an existing folder"):
        plot_phase_map("/nonexistent_dir_43/x.png", size=3)


def test_round7_sizes_and_nan_tokens():
    # #43 round 7 (pre-audit sweep): sizes past memory reached torch's allocator (or hung), a
    # 2**40-node quadrature numpy's MemoryError; NaN tokens gave a NaN prediction
    from algorithms.attention import (
        ErfAttention,
        SingleLocationProblem,
        SoftmaxAttention,
        best_linear_weights,
        sample_batch,
        top_score_probability,
    )

    with pytest.raises(ValueError, match=r"SingleLocationProblem: d=2147483647 is too large"):
        SingleLocationProblem(d=2**31 - 1, L=3, gamma=0.6)
    huge = SingleLocationProblem(d=2**20, L=2**20, gamma=0.6)
    with pytest.raises(ValueError, match=r"sample_batch: L=1048576 is too large"):
        sample_batch(huge, 2**20, 0)
    with pytest.raises(ValueError, match=r"sample_batch: n=1048576 is too large"):
        sample_batch(SingleLocationProblem(d=2**10, L=2**10, gamma=0.6), 2**20, 0)
    with pytest.raises(ValueError, match=r"best_linear_weights: L=1048576 is too large"):
        best_linear_weights(huge)
    with pytest.raises(ValueError, match=r"^nodes must be <= 360"):
        top_score_probability(SingleLocationProblem(d=4, L=3, gamma=0.6), nodes=2**40)
    for model in (SoftmaxAttention(4), ErfAttention(4)):
        with pytest.raises(ValueError, match=r"^X contains NaN"):
            model(torch.full((2, 3, 4), float("nan"), dtype=torch.float64))


def test_heldout7_numpy_level_accepted():
    from algorithms.attention import SingleLocationProblem, monte_carlo_risk

    p = SingleLocationProblem(d=6, L=4, gamma=0.6)
    assert monte_carlo_risk(p, *p.oracle(), n=10, level=np.float32(0.5)) == \
        monte_carlo_risk(p, *p.oracle(), n=10, level=float(np.float32(0.5)))


def test_round8_python_types_state_dicts_plots_and_overlap_tensors(tmp_path):
    """#43 round 8: fields stored as Python values; load_state_dict checks strict and shapes first; the phase
    plot names a folder or an unknown extension; tensor overlaps off the unit disc; an empty predict batch."""
    p = pb.SingleLocationProblem(d=np.int64(6), L=np.uint8(4), gamma=np.float32(0.5), n_samples=np.int64(9),
                                 link=np.str_("linear"), dtype=np.dtype("float32"))
    kinds = [type(getattr(p, k)) for k in ("d", "L", "gamma", "n_samples", "link")]
    assert kinds == [int, int, float, int, str]
    assert p.dtype is np.float32 and hash(p) == hash(pb.SingleLocationProblem(
        d=6, L=4, gamma=float(np.float32(0.5)), n_samples=9, dtype=np.float32))
    assert type(spherical_gd.SphericalGD(lr=np.float32(0.5), link=np.str_("relu")).lr) is float
    assert type(dynamics.OverlapFlow(lr=np.float32(0.5)).lr) is float
    assert type(models.SoftmaxAttention(4, link=np.str_("relu")).link) is str
    model = models.SoftmaxAttention(4, seed=0)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with pytest.raises(TypeError, match="strict"):
        model.load_state_dict(model.state_dict(), strict="no")
    bad = {"u": torch.zeros(3, dtype=torch.float64), "v": torch.ones(4, dtype=torch.float64)}
    with pytest.raises(ValueError, match="state_dict"):
        model.load_state_dict(bad)   # torch had loaded v before refusing u (a half-loaded model)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    with pytest.raises(ValueError, match=r"\bpath\b"):
        phase.plot_phase_map(tmp_path, size=4)   # a folder: it wrote folder.png beside it
    with pytest.raises(ValueError, match=r"\bpath\b"):
        phase.plot_phase_map(tmp_path / "map.notanext", size=4)
    with pytest.raises(ValueError, match=r"\bsize\b"):
        phase.plot_phase_map(tmp_path / "map.png", size=2**40)
    assert phase.phase_map([0.5, 0.8], [0.3]).tolist() == [[True], [False]]
    slp = pb.SingleLocationProblem(d=4, L=3, gamma=0.5)
    with pytest.raises(ValueError, match="nu"):
        risk.mean_field_risk(slp, torch.tensor(0.5), torch.tensor(0.9), torch.tensor(0.9))
    X = torch.randn(30, 2, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    predict = models.fit_linear_predictor(X, X[:, 0, 0])
    assert predict(X[:0]).shape == (0,)


def test_round8_astronomical_lengths_and_overflow():
    """#43 round 8: L − 1 past float's range raised OverflowError in top_score_probability and
    best_linear_risk; monte_carlo_risk with L = 2**40 reached torch's allocator; 2α overflowed to inf."""
    huge = pb.SingleLocationProblem(d=10, L=2**3000, gamma=0.5)  # documented: L enters the formulas only
    assert 0.0 <= risk.top_score_probability(huge) <= 1.0
    assert models.best_linear_risk(huge) == 0.25
    long = pb.SingleLocationProblem(d=10, L=2**40, gamma=0.5)
    with pytest.raises(ValueError, match=r"\bL\b"):
        risk.monte_carlo_risk(long, *long.oracle(), n=10)
    assert all(np.isfinite(v) for v in risk.thermodynamics(3.4e38, 1.0).values())
    # the direct product is kept below 2**1023: the documented value is unchanged
    mid = pb.SingleLocationProblem(d=40, L=1 + round(np.exp(0.2 * 40)), gamma=0.6)
    assert 0.0 <= risk.top_score_probability(mid) <= 1.0


def test_heldout8_phase2_inference_tensors_and_alpha_zero():
    """#43 round 8, held-out: an inference-mode X reached torch's "cannot be saved for backward"; α = 0 is
    L = 2 (documented): thermodynamics gives β_c = ψ = r = 0 and learnable is True for every γ < 1."""
    with torch.inference_mode():
        X = torch.zeros(2, 3, 4, dtype=torch.float64)
    assert models.SoftmaxAttention(4)(X).shape == (2, 1)
    assert models.ErfAttention(4)(X).shape == (2, 1)
    assert risk.thermodynamics(0.0, 1.0) == {"beta_crit": 0.0, "psi": 0.0, "r": 0.0, "frozen": True}
    assert phase.learnable(0.5, 0.0, 1.0)
    two = pb.SingleLocationProblem(d=4, L=2, gamma=0.5)
    assert two.alpha == 0.0 and 0.0 <= risk.locate_probability(two, 0.5) <= 1.0


def test_heldout8_phase2_meta_overlaps_named():
    p = pb.SingleLocationProblem(d=6, L=4, gamma=0.6)
    meta = torch.zeros((), device="meta", dtype=torch.float64)
    for call in (lambda: risk.locate_probability(p, meta), lambda: risk.mean_field_risk(p, meta, 0.5),
                 lambda: risk.top_score_probability(p, meta)):
        with pytest.raises(ValueError, match=r"\bmu\b.*meta"):
            call()
