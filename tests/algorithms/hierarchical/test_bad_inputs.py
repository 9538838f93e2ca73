"""Bad inputs to every public callable of ``algorithms.hierarchical``: rejected early by our own
validation, with a message naming the argument and what was expected. Bad *oracle outputs* are not
input errors: a solve stops with ``Diverged`` (see ``retcode_cases_hierarchical.py`` and below)."""

import dataclasses
import math

import numpy as np
import pytest

import algorithms.hierarchical as hierarchical
from algorithms import RetCode, solve
from algorithms.hierarchical import (
    SGDA,
    AdaBiO,
    AdaMinimax,
    BilevelProblem,
    MinimaxProblem,
    ScoreNet,
    StocBiO,
    TiAda,
    ada_bio,
    ada_minimax,
    ada_parameters,
    additive_noise,
    auc_minimax,
    neumann_hypergradient,
    neumann_terms,
    quadratic_bilevel,
    synthetic_minimax,
)
from tests.bad_inputs import BadInput as B
from tests.bad_inputs import assert_every_callable_covered, check_bad_input

RNG = np.random.default_rng(0)
X1, X3, Y4 = np.ones(1), np.ones(3), np.ones(4)


def _minimax(**overrides):
    prob = synthetic_minimax()
    kwargs = dict(grad=prob.grad, phi=prob.phi, grad_phi=prob.grad_phi, x0=prob.x0, y0=prob.y0)
    kwargs.update(overrides)
    return MinimaxProblem(**kwargs)


def _bilevel(**overrides):
    prob = quadratic_bilevel()
    kwargs = dict(upper_grad=prob.upper_grad, lower_grad=prob.lower_grad, lower_hvp=prob.lower_hvp,
                  phi=prob.phi, grad_phi=prob.grad_phi, x0=prob.x0, y0=prob.y0, mu_g=0.5, l_g1=2.0)
    kwargs.update(overrides)
    return BilevelProblem(**kwargs)


PARAMS = dict(lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=1.0)

CASES = [
    B(MinimaxProblem, lambda: _minimax(grad=3.0), TypeError, ("grad", "callable"), "grad"),
    B(MinimaxProblem, lambda: _minimax(x0=np.array([np.nan])), ValueError, ("x0", "NaN"), "x0"),
    B(MinimaxProblem, lambda: _minimax(y0=np.ones((2, 2))), ValueError, ("y0", "1-D"), "y0"),
    B(MinimaxProblem, lambda: _minimax(sigma=-1.0), ValueError, ("sigma", ">= 0"), "sigma"),
    B(MinimaxProblem, lambda: _minimax(noise="cauchy"), ValueError, ("noise", "sphere"), "noise"),
    B(BilevelProblem, lambda: _bilevel(lower_hvp=None), TypeError, ("lower_hvp", "callable"), "hvp"),
    B(BilevelProblem, lambda: _bilevel(mu_g=0.0), ValueError, ("mu_g", "> 0"), "mu_g"),
    B(BilevelProblem, lambda: _bilevel(mu_g=3.0), ValueError, ("mu_g", "l_g1"), "mu_g>l"),
    B(BilevelProblem, lambda: _bilevel(hessian_sigma=-0.1), ValueError, ("hessian_sigma",), "hs"),
    B(additive_noise, lambda: additive_noise("sphere", -1.0, (2,), RNG), ValueError, ("sigma",), "sigma"),
    B(additive_noise, lambda: additive_noise("levy", 1.0, (2,), RNG), ValueError, ("kind",), "kind"),
    B(additive_noise, lambda: additive_noise("sphere", 1.0, (2,), 3), TypeError, ("rng", "Generator"),
             "rng"),
    B(synthetic_minimax, lambda: synthetic_minimax(coupling=0.0), ValueError, ("coupling", "nonzero"),
             "coupling"),
    B(synthetic_minimax, lambda: synthetic_minimax(x0=math.inf), ValueError, ("x0", "finite"), "x0"),
    B(synthetic_minimax, lambda: synthetic_minimax(sigma=-2.0), ValueError, ("sigma",), "sigma"),
    B(synthetic_minimax, lambda: synthetic_minimax(dtype=np.int64), TypeError, ("dtype",), "dtype"),
    B(quadratic_bilevel, lambda: quadratic_bilevel(dim_x=0), ValueError, ("dim_x", "positive"), "dim"),
    B(quadratic_bilevel, lambda: quadratic_bilevel(mu_g=-1.0), ValueError, ("mu_g", "> 0"), "mu_g"),
    B(quadratic_bilevel, lambda: quadratic_bilevel(seed=-1), ValueError, ("seed", ">= 0"), "seed"),
    B(auc_minimax, lambda: auc_minimax(positive_fraction=1.0), ValueError, ("positive_fraction", "(0, 1)"),
             "p"),
    B(auc_minimax, lambda: auc_minimax(batch_size=0), ValueError, ("batch_size", "positive"), "batch"),
    B(auc_minimax, lambda: auc_minimax(separation=0.0), ValueError, ("separation", "> 0"), "sep"),
    B(ScoreNet, lambda: ScoreNet(0), ValueError, ("in_features", "positive"), "in"),
    B(ScoreNet, lambda: ScoreNet(2, seed=-3), ValueError, ("seed",), "seed"),
    B(AdaMinimax, lambda: AdaMinimax(lr_x=0.0), ValueError, ("lr_x", "> 0"), "lr_x"),
    B(AdaMinimax, lambda: AdaMinimax(lr_y=-1.0), ValueError, ("lr_y", "> 0"), "lr_y"),
    B(AdaMinimax, lambda: AdaMinimax(alpha=math.nan), ValueError, ("alpha", "finite"), "alpha"),
    B(AdaMinimax, lambda: AdaMinimax(gamma="1"), TypeError, ("gamma", "real number"), "gamma"),
    B(AdaBiO, lambda: AdaBiO(lr_x=-0.5), ValueError, ("lr_x", "> 0"), "lr_x"),
    B(AdaBiO, lambda: AdaBiO(neumann_terms=-1), ValueError, ("neumann_terms", ">= 0"), "N"),
    B(SGDA, lambda: SGDA(lr_x=0), ValueError, ("lr_x", "> 0"), "lr_x"),
    B(TiAda, lambda: TiAda(alpha=0.3, beta=0.4), ValueError, ("alpha", "beta"), "order"),
    B(TiAda, lambda: TiAda(lr_y=-1.0), ValueError, ("lr_y",), "lr_y"),
    B(StocBiO, lambda: StocBiO(inner_steps=0), ValueError, ("inner_steps", "positive int"), "inner"),
    B(StocBiO, lambda: StocBiO(neumann_terms=1.5), ValueError, ("neumann_terms",), "N"),
    B(ada_parameters, lambda: ada_parameters(0, 0.0, 0.0, 0.0, **PARAMS), ValueError, ("t", ">= 1"), "t"),
    B(ada_parameters, lambda: ada_parameters(1, -1.0, 0.0, 0.0, **PARAMS), ValueError, ("noise_sum",),
             "sum"),
    B(ada_minimax.check_rate, lambda: ada_minimax.check_rate("lr", True), TypeError, ("lr",), "bool"),
    B(ada_bio.check_terms, lambda: ada_bio.check_terms(-2), ValueError, ("neumann_terms",), "neg"),
    B(neumann_terms, lambda: neumann_terms(0, 0.5, 1.0), ValueError, ("horizon", ">= 1"), "T"),
    B(neumann_terms, lambda: neumann_terms(10, 2.0, 1.0), ValueError, ("mu_g", "l_g1"), "order"),
    B(neumann_hypergradient, lambda: neumann_hypergradient(synthetic_minimax(), X1, X1, 2, RNG), TypeError,
      ("problem", "BilevelProblem"), "problem"),
    B(neumann_hypergradient, lambda: neumann_hypergradient(quadratic_bilevel(), X3, Y4, -1, RNG), ValueError,
      ("terms", ">= 0"), "terms"),
    B(neumann_hypergradient, lambda: neumann_hypergradient(quadratic_bilevel(), X1, Y4, 1, RNG), ValueError,
      ("shapes",), "shape"),
]

MODULES = [hierarchical, ada_minimax, ada_bio]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_rejected(case):
    check_bad_input(case)


def test_every_public_callable_has_a_case():
    assert_every_callable_covered(MODULES, CASES, exempt={
        "momentum_update": "the solvers' inner-loop helper; its inputs are the solver's own arrays"})


@pytest.mark.parametrize("algorithm", [AdaMinimax(), SGDA(), TiAda()])
@pytest.mark.parametrize("bad", ["nan", "inf_phi"])
def test_bad_oracle_output_stops_with_diverged_and_a_finite_iterate(algorithm, bad):
    if bad == "nan":
        prob = _minimax(grad=lambda x, y, rng: (np.full(1, np.nan), y))
    else:
        prob = _minimax(grad_phi=lambda x: np.full(1, np.inf))
    sol = solve(prob, algorithm, maxiters=50, tol=1e-12)
    assert sol.retcode is RetCode.Diverged
    assert np.all(np.isfinite(sol.x))


@pytest.mark.parametrize("algorithm", [AdaMinimax(), SGDA(), TiAda()])
@pytest.mark.parametrize("returned", [(np.zeros(1), np.zeros(2)), (np.zeros(1), None), (np.zeros(1), "y")])
def test_oracle_of_the_wrong_shape_or_type_is_named(algorithm, returned):
    # a programming error, not a blow-up (issue #43): the error names the oracle and the part
    prob = _minimax(grad=lambda x, y, rng: returned)
    with pytest.raises((TypeError, ValueError), match=r"grad\(x, y, rng\)\[1\]"):
        solve(prob, algorithm, maxiters=50, tol=1e-12)


@pytest.mark.parametrize("algorithm", [AdaBiO(), StocBiO()])
def test_lower_oracle_of_the_wrong_shape_is_named(algorithm):
    # was a Diverged retcode case; a wrong shape is the user's error, named, not a blow-up
    from dataclasses import replace

    prob = replace(quadratic_bilevel(mu_g=1.0, l_g1=2.0), lower_grad=lambda x, y, rng: np.zeros(7))
    with pytest.raises(ValueError, match=r"lower_grad must return an array of shape \(4,\), got shape \(7"):
        solve(prob, algorithm, maxiters=100)


def test_ints_are_promoted():
    algo = AdaMinimax(lr_x=2, lr_y=1, alpha=3, gamma=1)
    assert isinstance(algo.lr_x, float) and algo.lr_x == 2.0
    assert synthetic_minimax(x0=2).x0.dtype == np.float64


def test_ada_parameters_rejects_a_decreasing_running_sum():
    # held-out audit (issue #43): S_t is cumulative, so S_t < S_{t-1} means the caller mixed the sums up
    with pytest.raises(ValueError, match=r"noise_sum must be >= previous_noise_sum = 1.0.*got 0.0"):
        ada_parameters(1, 0.0, 1.0, 0.0, **PARAMS)
    assert ada_parameters(1, 1.0, 1.0, 0.0, **PARAMS)[0] > 0


# round 2 of the held-out audit (issue #43): the AUC needs a positive and a negative example, step sizes
# are >= 0, noise shapes are int tuples, a NaN point and a non-Generator rng are named
def _round2_cases():
    from algorithms.hierarchical import ada_parameters, additive_noise, auc_minimax, neumann_hypergradient

    bilevel = quadratic_bilevel()
    return [
        B(auc_minimax, lambda: auc_minimax(n_samples=1), ValueError, ("n_samples", ">= 2"), "one-sample"),
        B(ada_parameters, lambda: ada_parameters(4, 0.0, 0.0, 0.0, **{**PARAMS, "lr_x": -1.0}), ValueError,
          ("lr_x", "> 0"), "lr_x"),
        B(additive_noise, lambda: additive_noise("gaussian", 1.0, (-1,), RNG), ValueError, ("shape",),
            "negative"),
        B(additive_noise, lambda: additive_noise("gaussian", 1.0, "2", RNG), ValueError, ("shape",), "str"),
        B(additive_noise, lambda: additive_noise("gaussian", 1.0, (2.5,), RNG), ValueError, ("shape",),
            "float"),
        B(neumann_hypergradient,
            lambda: neumann_hypergradient(bilevel, bilevel.x0 * np.nan, bilevel.y0, 2, RNG),
          ValueError, ("x", "NaN"), "nan"),
        B(neumann_hypergradient, lambda: neumann_hypergradient(bilevel, bilevel.x0, bilevel.y0, 2, "r"),
            TypeError,
          ("rng", "Generator"), "rng"),
    ]


@pytest.mark.parametrize("case", _round2_cases(), ids=lambda c: c.id)
def test_round2_bad_input(case):
    check_bad_input(case)


# Round 3 of the held-out audit (#43): a mini-batch larger than the data set was accepted (S1).
ROUND3 = [
    B(auc_minimax, lambda: auc_minimax(n_samples=10, batch_size=11), ValueError, ("batch_size", "n_samples"),
      "batch>n"),
]


@pytest.mark.parametrize("case", ROUND3, ids=lambda c: c.id)
def test_round3_bad_input(case):
    check_bad_input(case)


def test_numpy_float_constants_accepted():
    # #43 round 7: mu_g = np.float32(1.0) was refused as "mu_g must be a finite number > 0, got 1.0"
    import dataclasses

    from algorithms.hierarchical import quadratic_bilevel

    problem = quadratic_bilevel(mu_g=1.0, l_g1=2.0)
    changed = dataclasses.replace(problem, mu_g=np.float32(1.0), l_g1=np.float64(2.0))
    assert changed.mu_g == 1.0 and type(changed.mu_g) is float


def test_score_net_refuses_nan_inputs_and_bad_state_dicts():
    # #43 round 7: NaN rows scored NaN, a NaN state dict loaded as it was
    import torch

    from algorithms.hierarchical import ScoreNet

    net = ScoreNet(3)
    with pytest.raises(ValueError, match=r"^X contains NaN or inf"):
        net(torch.full((2, 3), math.nan, dtype=torch.float64))
    with pytest.raises(ValueError, match=r"^state_dict\['hidden\.weight'\] contains NaN or inf"):
        net.load_state_dict({k: torch.full_like(v, math.nan) for k, v in net.state_dict().items()})


@pytest.mark.parametrize("algorithm", [SGDA(), TiAda(), AdaMinimax()])
def test_default_tolerance_does_not_pass_the_start_on_a_small_unit(algorithm):
    # #43 round 7: with f scaled by 1e-7, ‖∇Φ(x0)‖ ~ 1e-7 passed the absolute default 1e-2: Success at x0 = 2,
    # far from a stationary point; the default is relative to the start's gradient below 1
    base = synthetic_minimax()

    def scaled(c):
        return MinimaxProblem(grad=lambda x, y, r: tuple(c * np.asarray(g) for g in base.grad(x, y, r)),
                              phi=lambda x: c * base.phi(x),
                              grad_phi=lambda x: c * np.asarray(base.grad_phi(x)), x0=base.x0, y0=base.y0)

    small = solve(scaled(1e-7), algorithm, maxiters=200)
    assert small.retcode is not RetCode.Success or small.original["grad_phi_norm"][-1] <= 1e-9
    assert solve(scaled(1.0), algorithm, maxiters=2000).retcode is RetCode.Success


def test_heldout7_numpy_scalars_arity_oracle_shapes_and_global_rng():
    # #43 round 7 (heldout7 A, B, D, E): np.float32 x0/coupling/mu_g refused by the factories; grad=lambda: 0
    # met Python's TypeError; a run stopping at its start never checked grad's shapes (swapped (g_y, g_x)
    # accepted); ScoreNet (so auc_minimax) advanced torch's global generator
    import random
    from dataclasses import replace

    import torch

    from algorithms.hierarchical import ScoreNet, auc_minimax, quadratic_bilevel

    assert synthetic_minimax(x0=np.float32(2.0), coupling=np.float32(0.5)).x0.tolist() == [2.0]
    assert quadratic_bilevel(mu_g=np.float32(0.5), l_g1=np.float64(2.0)).mu_g == 0.5
    base = synthetic_minimax()
    for name in ("grad", "phi", "grad_phi"):
        with pytest.raises(TypeError, match=rf"^{name} must take"):
            replace(base, **{name: lambda: 0.0})
    swapped = MinimaxProblem(grad=lambda x, y, r: (np.ones(1), np.ones(2)), phi=lambda x: 0.0,
                             grad_phi=lambda x: 0 * x, x0=np.ones(2), y0=np.ones(1))
    with pytest.raises(ValueError, match=r"^grad\(x, y, rng\)\[0\] must return an array of shape \(2,\)"):
        solve(swapped, SGDA(), maxiters=5)
    torch.manual_seed(0), random.seed(0)
    before = (torch.rand(1).item(), random.random())
    torch.manual_seed(0), random.seed(0)
    ScoreNet(3)
    solve(auc_minimax(n_samples=40), AdaMinimax(), maxiters=5, seed=4)
    assert (torch.rand(1).item(), random.random()) == before


def test_round8_oracles_check_points_and_run_lengths_bounded():
    # #43 round 8 (pre-audit sweep): the public oracles took points of the wrong length (broadcast, or numpy's
    # matmul error), NaN points (NaN answers) and an int as rng; neumann_terms divided by zero for
    # mu_g/l_g1 < 1e-16 and Theorem 4.2's length (or inner_steps / neumann_terms = 2**31 - 1) was a run
    # that never ends; ScoreNet.load_state_dict took strict="no" and cast int weights; sigma kept np.float32
    import torch

    from algorithms.hierarchical import ScoreNet, StocBiO, neumann_terms, quadratic_bilevel, synthetic_minimax
    from algorithms.hierarchical.neumann import theorem_terms

    rng = np.random.default_rng(0)
    minimax, bilevel = synthetic_minimax(), quadratic_bilevel()
    with pytest.raises(ValueError, match=r"^x must have shape \(1,\)"):
        minimax.oracle(np.ones(3), minimax.y0, rng)
    with pytest.raises(ValueError, match=r"^y must be finite"):
        bilevel.lower_oracle(bilevel.x0, np.full_like(bilevel.y0, np.nan), rng)
    with pytest.raises(ValueError, match=r"^v must have shape \(4,\)"):
        bilevel.hvp_oracle(bilevel.x0, bilevel.y0, np.ones(2), rng)
    with pytest.raises(TypeError, match=r"^rng must be a numpy.random.Generator"):
        bilevel.upper_oracle(bilevel.x0, bilevel.y0, 0)
    assert neumann_terms(10, 1e-12, 1.0) > 10**6  # round 12: 1e-300 is outside the working range
    with pytest.raises(ValueError, match=r"^mu_g = 1e-12 .* needs \d+ Neumann terms"):
        theorem_terms(10, 1e-12, 1.0)
    for kwargs, name in ((dict(inner_steps=2**31 - 1), "inner_steps"), (dict(neumann_terms=2**31 - 1),
                                                                       "neumann_terms")):
        with pytest.raises(ValueError, match=rf"^{name} must be <= 1000000"):
            StocBiO(**kwargs)
    assert type(StocBiO(neumann_terms=np.int64(3)).neumann_terms) is int
    net = ScoreNet(3)
    with pytest.raises(TypeError, match=r"^strict must be a bool"):
        net.load_state_dict(net.state_dict(), strict="no")
    ints = {k: v.to(torch.int64) for k, v in net.state_dict().items()}
    with pytest.raises(ValueError, match=r"^state_dict\['hidden.weight'\] must be a floating tensor"):
        net.load_state_dict(ints)
    assert type(synthetic_minimax(sigma=np.float32(0.5)).sigma) is float


def test_heldout8_rates_and_inference_tensors():
    # #43 round 8 (heldout8 phase 2): ada_parameters took lr_x = 0 / lr_y = 0; ScoreNet.forward of an
    # inference-mode tensor met torch's "Inference tensors cannot be saved for backward"
    import torch

    from algorithms.hierarchical import ScoreNet, ada_parameters

    for name in ("lr_x", "lr_y"):
        kwargs = dict(lr_x=1.0, lr_y=1.0, alpha=2.0, gamma=1.0) | {name: 0.0}
        with pytest.raises(ValueError, match=rf"^{name} must be > 0"):
            ada_parameters(1, 1.0, 0.5, 1.0, **kwargs)
    net = ScoreNet(3)
    with torch.inference_mode():
        X = torch.zeros(2, 3, dtype=torch.float64)
    assert torch.equal(net(X), net(X.clone()))


def test_round9_overflowing_constants_sums_and_helpers():
    # #43 round 9 (pre-audit sweep): alpha = 5e-324 / 1e308 met ZeroDivisionError / OverflowError in
    # ada_parameters; an overflowing running sum (x0 = 1e200, sigma = 1e308) raised "noise_sum must be finite"
    # (an internal name) instead of ending Diverged; mu_g = 5e-324 met ZeroDivisionError in neumann_terms and
    # LinAlgError in quadratic_bilevel; momentum_update took anything; additive_noise(shape=10**400) met
    # OverflowError; an x0 of the wrong length met numpy's matmul error in grad_phi, naming nothing
    from algorithms import RetCode, solve
    from algorithms.hierarchical import (
        AdaBiO,
        AdaMinimax,
        TiAda,
        ada_parameters,
        additive_noise,
        neumann_terms,
        quadratic_bilevel,
        synthetic_minimax,
    )
    from algorithms.hierarchical.ada_minimax import momentum_update

    for alpha in (1.2e-38, 3.4e38):  # round 12: the working range's edges (5e-324, 1e308 refused by name)
        a_t, lr_x, lr_y = ada_parameters(3, 1.0, 0.5, 2.0, lr_x=1.0, lr_y=1.0, alpha=alpha, gamma=3.4e38)
        assert all(np.isfinite([a_t, lr_x, lr_y]))
    for alpha in (5e-324, 1e308):
        with pytest.raises(ValueError, match=r"^alpha = .* is outside the package's working range"):
            ada_parameters(3, 1.0, 0.5, 2.0, lr_x=1.0, lr_y=1.0, alpha=alpha, gamma=1.0)
    with pytest.raises(TypeError, match=r"^noise_sum must be a finite number >= 0, got bool"):
        ada_parameters(3, True, 0.0, 0.0, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=1.0)
    with pytest.raises(ValueError, match=r"^lower_sum must be a finite number >= 0, got an int past"):
        ada_parameters(3, 0.0, 0.0, 10**400, lr_x=1.0, lr_y=1.0, alpha=1.0, gamma=1.0)
    # round 12: x0 = 1e200 is outside the working range (refused by name); at its edge the running sums
    # (~1e77) stay finite and the run is an ordinary one, not an internal error
    with pytest.raises(ValueError, match=r"^x0 has an entry of magnitude 1e\+200, outside the package's"):
        dataclasses.replace(synthetic_minimax(), x0=np.array([1e200]))
    problem = dataclasses.replace(synthetic_minimax(), x0=np.array([3e38]))
    for algorithm in (AdaMinimax(), TiAda()):
        assert solve(problem, algorithm, maxiters=3).retcode in (RetCode.MaxIters, RetCode.Diverged)
    with pytest.raises(ValueError, match=r"^mu_g = 5e-324 is outside the package's working range"):
        neumann_terms(10, 5e-324, 1.0)
    with pytest.raises(ValueError, match=r"^mu_g / l_g1 = 1e-30 / 1.0 is too small: .* exceeds 2\*\*63 - 1"):
        neumann_terms(10, 1e-30, 1.0)  # round 12: a count past int64 was returned
    with pytest.raises(ValueError, match=r"^mu_g must be > 0 and finite"):
        neumann_terms(10, 10**400, 1.0)
    with pytest.raises(ValueError, match=r"^mu_g = 5e-324 is outside the package's working range"):
        quadratic_bilevel(mu_g=5e-324)
    bad_x0 = dataclasses.replace(quadratic_bilevel(), x0=np.ones(1))
    # the built-in problem's own callables check their points (round 10): the message names x0 and y0
    with pytest.raises(ValueError, match=r"^x must have shape \(3,\) \(the built-in .* x0 and y0 must keep"):
        solve(bad_x0, AdaBiO(), maxiters=2)
    with pytest.raises(TypeError, match=r"^gradient must be array-like|^gradient must be numeric"):
        momentum_update(None, "x", 0.5)
    with pytest.raises(ValueError, match=r"^momentum must have the shape of gradient"):
        momentum_update(np.ones(2), np.ones(3), 0.5)
    with pytest.raises(ValueError, match=r"^alpha_t must be in \[0, 1\]"):
        momentum_update(np.ones(3), np.ones(3), 2.0)
    with pytest.raises(ValueError, match=r"^shape must be <= 2\*\*63 - 1"):
        additive_noise("gaussian", 1.0, (10**400,), np.random.default_rng(0))
    bad_y0 = dataclasses.replace(quadratic_bilevel(), y0=np.ones(1))
    with pytest.raises(ValueError, match=r"^y must have shape \(4,\) \(the built-in .* x0 and y0 must keep"):
        solve(bad_y0, AdaBiO(), maxiters=2)


def test_round10_neumann_terms_capped_in_the_function_too():
    # #43 round 10: neumann_hypergradient(terms=2**31 - 1) was accepted (2e9 Hessian-vector products)
    from algorithms.hierarchical import neumann_hypergradient, quadratic_bilevel

    problem = quadratic_bilevel()
    with pytest.raises(ValueError, match=r"^terms must be <= 1000000"):
        neumann_hypergradient(problem, problem.x0, problem.y0, 2**31 - 1, np.random.default_rng(0))


def test_round10_auc_oracles_check_their_points():
    # #43 round 10: auc_minimax's phi/grad_phi/grad took any x: an empty x met torch's split_with_sizes
    # RuntimeError, a str array torch's own TypeError (the lead's point check covered the other factories)
    from algorithms.hierarchical import auc_minimax

    problem = auc_minimax(n_samples=40)
    for call in (problem.phi, problem.grad_phi):
        with pytest.raises(ValueError, match=r"^x must have shape"):
            call(np.array([]))
        with pytest.raises(TypeError, match=r"^x must be numeric"):
            call(np.array(["a"]))
    with pytest.raises(ValueError, match=r"^y must have shape \(1,\)"):
        problem.grad(problem.x0, np.zeros(3), np.random.default_rng(0))


def test_round10_oracles_writing_into_their_arguments_do_not_move_the_iterate():
    # #43 round 10: a user's grad writing into x/y (x *= 100) or grad_phi zeroing x moved the solver's own
    # iterate: SGDA ended at 2e12, or reported Success at x = 0 (a wrong answer)
    from algorithms.hierarchical import SGDA, synthetic_minimax

    base = synthetic_minimax()

    def grad(x, y, rng):
        gx, gy = base.grad(x.copy(), y.copy(), rng)
        x *= 100.0
        y *= 100.0
        return gx, gy

    def grad_phi(x):
        out = base.grad_phi(x.copy())
        x[:] = 0.0
        return out

    clean = solve(base, SGDA(), maxiters=30, seed=0)
    for problem in (dataclasses.replace(base, grad=grad), dataclasses.replace(base, grad_phi=grad_phi)):
        sol = solve(problem, SGDA(), maxiters=30, seed=0)
        assert np.array_equal(sol.x, clean.x) and sol.retcode is clean.retcode


def test_round10_problem_starts_read_only():
    # #43 round 10: a NaN written into problem.x0 / y0 after the checks was run (Diverged at once)
    from algorithms.hierarchical import quadratic_bilevel, synthetic_minimax

    for problem in (synthetic_minimax(), quadratic_bilevel()):
        for array in (problem.x0, problem.y0):
            with pytest.raises(ValueError, match="read-only"):
                array[0] = np.nan


def test_heldout10_integer_start_promoted_as_documented():
    # #43 round 10 (heldout10 first run): an int8 x0 was accepted while the docs said float32 or float64;
    # the promotion to float64 is documented now (as numpy and the other families do)
    from algorithms.hierarchical import MinimaxProblem, synthetic_minimax

    problem = dataclasses.replace(synthetic_minimax(), x0=np.array([2], dtype=np.int8))
    assert problem.x0.dtype == np.float64 and problem.y0.dtype == np.float64
    assert "promoted" in MinimaxProblem.__doc__


def test_round11_oracle_points_take_the_problems_dtype():
    rng = np.random.default_rng(0)
    mm = hierarchical.synthetic_minimax(sigma=0.0)
    bl = hierarchical.quadratic_bilevel()
    seen = []

    def grad(x, y, rng):
        seen.append((x.dtype, y.dtype))
        return np.cos(x), y

    prob = hierarchical.MinimaxProblem(grad, mm.phi, mm.grad_phi, mm.x0, mm.y0)
    prob.oracle(mm.x0.astype(np.float32), mm.y0.astype(np.float16), rng)
    assert seen == [(np.float64, np.float64)]  # a float32 point reached the user's grad as float32
    est, _ = hierarchical.neumann_hypergradient(bl, bl.x0.astype(np.float32), bl.y0, 3, rng)
    assert est.dtype == np.float64  # a float32 x gave a float32 estimate, a float32 y a float64 one
    with pytest.raises(ValueError, match="x must have shape"):
        prob.oracle(np.array([]), mm.y0, rng)


def test_round11_low_precision_oracle_outputs_and_score_net_state():
    import torch

    def grad(x, y, rng):
        return (-np.sin(x) + y).astype(np.float32), (x - y).astype(np.float32)

    prob = hierarchical.MinimaxProblem(grad=grad, phi=lambda x: float(np.cos(x[0]) + x[0] ** 2 / 2),
                                       grad_phi=lambda x: x - np.sin(x), x0=np.array([2.0]),
                                       y0=np.array([0.0]))
    with pytest.raises(TypeError, match=r"grad\(x, y, rng\)\[0\] must return floats at least as precise"):
        solve(prob, hierarchical.AdaMinimax(), maxiters=5)  # was a Success on float32 gradients
    single = hierarchical.synthetic_minimax(dtype=np.float32)  # float32 iterates: float32 gradients fine
    assert solve(single, hierarchical.TiAda(), maxiters=5).x.dtype == np.float32
    net = hierarchical.ScoreNet(in_features=3, hidden=4)
    with pytest.raises(ValueError, match="in_features is fixed"):
        net.in_features = 5
    with torch.no_grad():
        next(net.parameters()).fill_(float("nan"))
    with pytest.raises(ValueError, match=r"ScoreNet\.hidden\.weight contains NaN"):
        net(torch.zeros(5, 3, dtype=torch.float64))


def test_heldout11_rates_and_constants_of_normal_magnitude():
    from algorithms.hierarchical import SGDA, AdaBiO, AdaMinimax, StocBiO, TiAda, quadratic_bilevel

    for make in (lambda v: SGDA(lr_x=v), lambda v: StocBiO(lr_x=v), lambda v: AdaBiO(alpha=v),
                 lambda v: AdaMinimax(lr_y=v)):
        for value in (5e-324, 1e308):  # accepted in silence at the first run
            with pytest.raises(ValueError, match="is outside the package's working range"):
                make(value)
    with pytest.raises(ValueError, match=r"^beta = 5e-324 is outside the package's working range"):
        TiAda(beta=5e-324)
    with pytest.raises(ValueError, match=r"^l_g1 = 1e\+308 is outside the package's working range"):
        quadratic_bilevel(l_g1=1e308)
    for coupling in (5e-324, -5e-324, 1e308):  # round 12: c != 0, so |c| is a positive scale of the range
        with pytest.raises(ValueError, match=r"^coupling = .* is outside the package's working range"):
            hierarchical.synthetic_minimax(coupling=coupling)
    # round 12: the working range's edges stay valid
    assert AdaMinimax(lr_x=1.2e-38, lr_y=3.4e38).lr_y == 3.4e38


def test_heldout11_built_in_formulas_overflowing_at_a_point_named():
    prob = hierarchical.synthetic_minimax()
    with pytest.raises(ValueError, match=r"phi\(x\) overflows at this point: x is too large"):
        with np.errstate(over="ignore"):
            prob.phi(np.array([1e300]))  # answered inf in silence
