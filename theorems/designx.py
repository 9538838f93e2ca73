"""Claims of DesignX (Guo, Ma, Ma, Zhang, Chen, Gong, *DesignX: Human-Competitive Algorithm
Designer for Black-Box Optimization*, NeurIPS 2025, arXiv:2505.17866): the modular space, its
grammar, Agent 1's masked generation, and the trained designer against hand-crafted baselines.

The paper is empirical: its results are the space's design (Section 3.1, Appendix A Table 3),
the masked auto-regressive generation (Section 3.2.1, Eq. 2), and performance tables and figures
(Table 1, Figure 3, the ablations and scaling of Sections 4.3-4.4). Instances here are BBOB
functions from ``ioh`` (seeded instances) and hypothesis-drawn arrays; the trained agents are the
shipped checkpoint (``python -m algorithms.blackbox.train``, seed 0). Sabotage controls patch one
function of the implementation for the duration of the control (:func:`_patched`).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import math
import types
from fractions import Fraction

import numpy as np
import scipy.optimize as scipy_optimize
import sympy
import torch
from hypothesis import strategies as st
from scipy import stats as sstats

import algorithms.blackbox.components as components_module
import algorithms.blackbox.features as features_module
import algorithms.blackbox.grammar as grammar_module
import algorithms.blackbox.modular as modular_module
import algorithms.blackbox.problem as problem_module
from algorithms import solve
from algorithms.blackbox import (
    CMAES,
    PSO,
    BlackBoxProblem,
    HyperparameterController,
    ModularOptimizer,
    RandomSearch,
    ScipyDE,
    WorkflowGenerator,
    allowed_next,
    bbob_problem,
    load_agents,
    normalized_regret,
    run_episode,
    validate,
)
from algorithms.blackbox.components import (
    BOUNDARY,
    INITIALIZATIONS,
    MUTATIONS,
    N_PARTNERS,
    SELECTIONS,
    SepCMAState,
    boundary,
    crossover,
    de_mutation,
    ga_mutation,
    initialize,
    partners,
    select,
)
from algorithms.blackbox.features import N_FEATURES
from algorithms.blackbox.grammar import END, TOKENS, InvalidWorkflowError
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import domain_outcome
from theorems.core.certificates import Certificate, Method, Rejected
from theorems.core.evidence import fact, figure, property_outcome
from theorems.core.sabotage import patched

PAPER = "designx"
ARXIV = "arXiv:2505.17866"
SPACE, MASK, TABLE1, TABLE3 = "Section 3.1", "Eq. 2", "Table 1", "Table 3"

register_results(
    PAPER,
    [
        Result(
            SPACE,
            "Modular-EC: 10 module types, 116 variants, with topology rules, expresses DE, GA, PSO and ES "
            "optimizers as workflows of modules",
            checkable=True,
        ),
        Result(
            TABLE3,
            "The module variants and their update formulas (DE mutations, crossovers, boundary "
            "controls, selections, initializations, ...) with configuration spaces and topology rules",
            checkable=True,
        ),
        Result(
            MASK,
            "Agent 1 samples workflows auto-regressively with a softmax masked by the previous module's "
            "topology rule, so every generated workflow is legal",
            checkable=True,
        ),
        Result(
            TABLE1,
            "On held-out synthetic instances the DesignX-designed optimizers reach lower objective "
            "values than human-crafted optimizers of four eras and MetaBBO baselines",
            checkable=True,
        ),
        Result(
            "Figure 1",
            "The designed optimizers' normalized objective over training, against the human-crafted "
            "optimizers of four eras and MetaBBO baselines (the evolution behind Table 1)",
            checkable=False,
            why="a curve over the paper's six training days (checkpoints we do not have); its end point "
            "is Table 1's statement (designed_beats_baselines)",
        ),
        Result(
            "Figure 2",
            "Overview of DesignX: Modular-EC, Agent 1 (workflow) and Agent 2 (hyperparameters)",
            checkable=False,
            why="a schematic; its parts are what workflows_valid, agent2_control and space_contains_de run",
        ),
        Result(
            "Figure 4",
            "Importance of each module type per problem property (KL divergence of module occurrences "
            "between problem groups), and two look-ins: greedy mutations for unimodal problems, "
            "population reduction for small search ranges",
            checkable=True,
        ),
        Result(
            "Figure 5",
            "Ratios of optimizer types (DE, PSO, GA, ES) among the designed workflows: DE modules dominate",
            checkable=True,
        ),
        Result(
            "Figure 6",
            "Ablations (w/o A1, w/o A2, w/o A1+A2, SBS, CMA-ES) on D_test and the realistic suites",
            checkable=False,
            why="each ablation is a separate days-long training run; only the untrained-Agent-1 control "
            "of designed_beats_baselines is run",
        ),
        Result(
            "Figure 7",
            "Performance across model sizes (1, 6, 12 layers) and training-set sizes (500-20000)",
            checkable=False,
            why="fifteen training runs at the paper's scale; far beyond the CPU budget",
        ),
        Result(
            "Figure 8",
            "Rank-based comparison (critical difference diagram on Table 1's runs): CMA-ES and DesignX "
            "perform almost equally and both significantly outperform the other baselines",
            checkable=True,
        ),
        Result(
            "Table 2",
            "Per-step training time breakdown: the BBO simulation dominates (20 s of ~23 s per Agent 1 step)",
            checkable=False,
            why="wall times of the authors' machine; timings never enter our verdicts",
        ),
        Result(
            "Figure 3",
            "DesignX generalizes to realistic problems (protein docking, HPO-B, UAV path planning)",
            checkable=False,
            why="the realistic suites (docking benchmark, HPO-B surrogates, UAV terrain models) are not "
            "installed and cannot be downloaded here; BBOB held-out instances stand in (Table 1's claim)",
        ),
        Result(
            "Section 4.3",
            "Ablations: the cooperative objective, Agent 2 and the feature embedding each "
            "contribute to the performance",
            checkable=False,
            why="each ablation is a separate days-long training run of the paper; our training budget is "
            "~20 CPU minutes, so only the untrained-Agent-1 control of designed_beats_baselines is run",
        ),
        Result(
            "Section 4.4",
            "Performance scales with model size and the number of training problems (a scaling law)",
            checkable=False,
            why="needs a sweep of training runs at several scales, far beyond the CPU budget",
        ),
    ],
)


def _log_regret(value: float, prob: BlackBoxProblem) -> float:
    return math.log10(max(value - prob.optimum, 0.0) + 1e-8)


# ---------------------------------------------------------------- designx.workflows_valid


def _unmasked_sample(
    agent: WorkflowGenerator, features: torch.Tensor, gen: torch.Generator
) -> tuple[str, ...]:
    """The control's generator: Agent 1's own logits, sampled WITHOUT the grammar mask."""
    prefix: list[str] = []
    with torch.no_grad():
        while len(prefix) < 12:
            probs = torch.softmax(agent.logits(features, prefix), -1)
            token = TOKENS[int(torch.multinomial(probs, 1, generator=gen))]
            if token == END:
                break
            prefix.append(token)
    return tuple(prefix)


def _workflows(ctx: Context, masked: bool) -> Outcome:
    trained, _ = load_agents()
    torch.manual_seed(ctx.seed)
    untrained = WorkflowGenerator().eval()

    examples = st.tuples(
        st.integers(0, 2**31 - 1),
        st.integers(1, 12),
        st.integers(20, 300),
        st.booleans(),
        st.floats(-3.0, 3.0),
    )

    def test(example) -> dict:
        seed, dim, budget, use_trained, shift = example
        rng = np.random.default_rng(seed)
        features = torch.as_tensor(rng.normal(size=N_FEATURES), dtype=torch.float32)
        gen = torch.Generator().manual_seed(seed)
        agent = trained if use_trained else untrained
        if masked:
            with torch.no_grad():
                workflow, _, _ = agent.sample(features, generator=gen)
        else:
            workflow = _unmasked_sample(agent, features, gen)
        try:
            validate(workflow)
        except InvalidWorkflowError as exc:
            raise AssertionError(f"workflow {workflow} breaks rule {exc.rule}") from exc
        lower = np.full(dim, -1.0 + shift)
        prob = BlackBoxProblem(lambda x: float(np.sum((x - shift) ** 2)), (lower, lower + 2.0), budget)
        sol = solve(prob, ModularOptimizer(workflow), seed=seed % 1000)
        assert sol.stats.f_calls == budget, f"{workflow}: {sol.stats.f_calls} evaluations, budget {budget}"
        assert np.all((sol.x >= prob.lower) & (sol.x <= prob.upper)), f"{workflow}: x left the box"
        return {"last_workflow_length": len(workflow)}

    return property_outcome(
        examples,
        test,
        ctx=ctx,
        max_examples=ctx.pick(25, 200),
        what="every workflow Agent 1 samples is grammar-valid and runs within budget",
    )


register(
    Claim(
        id="designx.workflows_valid",
        paper=PAPER,
        source=f"{ARXIV}, Section 3.2.1, Eq. 2 (masked softmax)",
        origin=Origin.PAPER,
        covers=(MASK,),
        deviation="Our grammar (rules R1-R11 of algorithms.blackbox.grammar) is a smaller analogue of "
                  "Modular-EC's "
        "topology rules; features are drawn at random (N(0, 1)) rather than computed, so the mask is "
        "exercised far from the training distribution; both the trained and an untrained Agent 1 are drawn.",
        statement="For random problem features, dimensions 1..12, budgets 20..300 and seeds, every "
                  "workflow sampled "
        "by Agent 1 (trained checkpoint or untrained) passes validate() and ModularOptimizer runs it on a "
        "shifted sphere using exactly the budget and returning a point in the box",
        kind=Kind.PROPERTY,
        check=lambda ctx: _workflows(ctx, True),
        control=lambda ctx: _workflows(ctx, False),
        control_description="a generator that ignores the grammar: Agent 1's logits sampled without the mask",
        budget_s=30,
    )
)


# ---------------------------------------------------------------- designx.space_contains_de

DE_WORKFLOW = ("init.uniform", "pop.10d", "de.rand1", "cx.binomial", "bc.random", "sel.greedy")
# F and Cr are CONFIG_SPACE's defaults, so this claim cannot see hyperparameters that are ignored
# (audit: a Cr hard-coded to 0.9 passes); at F = 0.7, Cr = 0.3 the check sat at Z = -2.4 (f8 apart,
# p = 0.007) and the swapped-crossover control was not rejected (Z = -1.1), see the note's Audit
DE_F, DE_CR = 0.5, 0.9
DE_HYPER = {"de.rand1": {"F1": DE_F}, "cx.binomial": {"Cr": DE_CR}}


def _de_runs(ctx: Context, n_seeds: int, fids: tuple[int, ...], dim: int, budget: int) -> Outcome:
    ours = ModularOptimizer(DE_WORKFLOW, DE_HYPER)
    ref = ScipyDE(strategy="rand1bin", popsize=10, mutation=DE_F, recombination=DE_CR, init="random")
    zs, rows = [], {}
    for fid in fids:
        prob = bbob_problem(fid, 1, dim, budget)
        a = [_log_regret(solve(prob, ours, seed=1000 * ctx.seed + s).value, prob) for s in range(n_seeds)]
        b = [_log_regret(solve(prob, ref, seed=1000 * ctx.seed + s).value, prob) for s in range(n_seeds)]
        test = sstats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic")
        # Stouffer: the U statistic standardized (normal approximation, ties are rare in real-valued regrets)
        mu, sd = n_seeds * n_seeds / 2, math.sqrt(n_seeds * n_seeds * (2 * n_seeds + 1) / 12)
        zs.append((test.statistic - mu) / sd)
        rows[f"f{fid}"] = {
            "median_log10_regret_modular": figure(float(np.median(a)), 3),
            "median_log10_regret_scipy": figure(float(np.median(b)), 3),
            "p_mann_whitney": figure(float(test.pvalue), 3),
        }
    z = float(np.sum(zs) / math.sqrt(len(zs)))
    # |Z| <= 2.576: a two-sided 1 % level for the pooled Stouffer statistic of the per-function U tests
    ok = abs(z) <= 2.576
    out = fact(
        ok,
        f"modular DE/rand/1/bin and scipy's rand1bin have the same final log-regret distribution "
        f"({len(fids)} BBOB functions, d = {dim}, budget {budget}, {n_seeds} seeds each)",
        stouffer_z=z,
    )
    out.evidence["per_function"] = rows
    return out


def _check_de(ctx: Context) -> Outcome:
    return _de_runs(ctx, ctx.pick(12, 30), ctx.pick((1, 2, 8), (1, 2, 3, 8, 10, 15)), 5, 1500)


def _miswired_crossover(method, X, V, Cr, rng):
    """The control's bug: parent and donor swapped in the crossover (donor genes where rand >= Cr)."""
    return crossover(method, V, X, Cr, rng)


def _control_de(ctx: Context) -> Outcome:
    with patched(modular_module, "crossover", _miswired_crossover):
        return _check_de(ctx)


register(
    Claim(
        id="designx.space_contains_de",
        paper=PAPER,
        source=f"{ARXIV}, Section 3.1 (Modular-EC expresses DE); Table 3 (DE/rand/1, binomial crossover)",
        origin=Origin.PAPER,
        covers=(SPACE,),
        deviation="Only DE/rand/1/bin is matched against an independent implementation (scipy); F = "
                  "0.5, Cr = 0.9 (the defaults), "
        "N = 10d, uniform initialization and random re-sampling of out-of-box genes (scipy's rule) on "
        "BBOB instance 1 of three functions in 5-D at 1500 evaluations.",
        statement="The workflow (init.uniform, pop.10d, de.rand1, cx.binomial, bc.random, sel.greedy) "
                  "with F = 0.5, "
        "Cr = 0.9 and scipy.optimize.differential_evolution(rand1bin, popsize 10, mutation 0.5, "
        "recombination 0.9, init random, deferred updating) give statistically indistinguishable final "
        "log10 regrets: the pooled (Stouffer) Mann-Whitney statistic over functions has |Z| <= 2.576",
        kind=Kind.NUMERIC,
        check=_check_de,
        control=_control_de,
        control_description="a mis-wired crossover: parent and donor swapped (donor genes taken where "
                            "rand >= Cr)",
        budget_s=40,
    )
)


# ---------------------------------------------------------------- designx.designed_beats_baselines

BASELINES = {"DE (scipy)": ScipyDE(), "CMA-ES": CMAES(), "PSO": PSO(), "random": RandomSearch()}


def _held_out(ctx: Context) -> list[BlackBoxProblem]:
    dims = ctx.pick((5,), (5, 10))
    # two held-out instances in quick (48 paired problems; 24 gave p ~ 0.06 against CMA-ES at seed 0
    # and ~ 0.02 at another seed: too little power for a stable verdict, audit)
    instances = ctx.pick((6, 7), (6, 7, 8, 9, 10))
    factor = ctx.pick(200, 500)
    return [bbob_problem(f, i, d, factor * d) for d in dims for f in range(1, 25) for i in instances]


def _designx_regrets(problems, agent1, agent2, seed: int) -> np.ndarray:
    out = []
    for k, prob in enumerate(problems):
        rng = np.random.default_rng(seed + k)
        gen = torch.Generator().manual_seed(seed + k)
        ep = run_episode(prob, agent1, agent2, rng, generator=gen)
        out.append(normalized_regret(ep.evaluator.best_value, prob))
    return np.asarray(out)


def _compare(ctx: Context, agent1: WorkflowGenerator) -> Outcome:
    _, agent2 = load_agents()
    problems = _held_out(ctx)
    ours = _designx_regrets(problems, agent1, agent2, ctx.seed)
    medians, wins, pvals, pworse = {"DesignX": float(np.median(ours))}, {}, {}, {}
    means = {"DesignX": float(np.mean(ours))}
    beats_all = True
    for name, alg in BASELINES.items():
        theirs = np.asarray(
            [normalized_regret(solve(p, alg, seed=ctx.seed + k).value, p) for k, p in enumerate(problems)]
        )
        medians[name] = float(np.median(theirs))
        means[name] = float(np.mean(theirs))
        lo, lt = np.log10(ours + 1e-12), np.log10(theirs + 1e-12)
        wins[name] = float(np.mean(lo < lt))
        diff = lo - lt
        if np.any(diff != 0):
            p_better = float(sstats.wilcoxon(diff, alternative="less").pvalue)
            p_worse = float(sstats.wilcoxon(diff, alternative="greater").pvalue)
        else:
            p_better = p_worse = 1.0
        pvals[name] = p_better
        pworse[name] = p_worse
        # passing needs every one of the four one-sided tests at 5 %: an intersection-union test, valid
        # at 5 % without a multiplicity correction
        beats_all &= medians["DesignX"] < medians[name] and p_better < 0.05
    # falsifying needs ONE baseline significantly better out of four tests: Holm's step-down keeps the
    # family-wise error at 5 % (an uncorrected 5 % per test falsifies a true claim up to ~19 % of the time)
    # (Holm rejects at least one hypothesis exactly when its first step, min p < 5 % / 4, does)
    worse_significantly = min(pworse.values()) < 0.05 / len(pworse)
    evidence = {
        "statement": "DesignX's median normalized regret is below every baseline's, with a "
        "one-sided paired Wilcoxon p < 0.05 against each",
        "problems": len(problems),
        "median_normalized_regret": {k: figure(v, 4) for k, v in medians.items()},
        # Table 1's own metric is the average normalized objective; its Figure 8 (rank-based) finds
        # CMA-ES and DesignX about equal: the mean is reported for comparison, the test is on ranks
        "mean_normalized_regret": {k: figure(v, 4) for k, v in means.items()},
        "falsification_rule": "Holm-corrected one-sided Wilcoxon (baseline better) at family-wise 5 %",
        "win_rate_of_designx": {k: figure(v, 3) for k, v in wins.items()},
        "p_designx_better": {k: figure(v, 3) for k, v in pvals.items()},
        "p_baseline_better": {k: figure(v, 3) for k, v in pworse.items()},
    }
    # power statement: at the measured effect (the Wilcoxon z scales like √n), the number of paired problems
    # at which each baseline's test would reach the pass level (one-sided 5 %) or the falsification level
    # (Holm's first step, 5 %/4); the claim is decided once every baseline passes or one falsifies
    n = len(problems)
    z_pass, z_fail = float(sstats.norm.isf(0.05)), float(sstats.norm.isf(0.05 / len(pworse)))

    def size(p: float, z: float) -> float:
        return n * (z / float(sstats.norm.isf(p))) ** 2 if p < 0.5 else math.inf

    to_pass = {k: size(v, z_pass) for k, v in pvals.items()}
    to_fail = {k: size(v, z_fail) for k, v in pworse.items()}
    decide = min(max(to_pass.values()), min(to_fail.values()))
    evidence["problems_to_pass"] = {k: figure(v, 3) for k, v in to_pass.items()}
    evidence["problems_to_falsify"] = {k: figure(v, 3) for k, v in to_fail.items()}
    evidence["problems_that_would_decide"] = figure(math.ceil(decide) if math.isfinite(decide) else decide, 6)
    if beats_all:
        return Outcome("pass", "DesignX beats every baseline on the held-out instances", evidence)
    if worse_significantly:
        return Outcome(
            "fail", "a baseline is significantly better than DesignX on the held-out instances", evidence
        )
    return Outcome(
        "undecided",
        "DesignX does not beat every baseline significantly, nor is it beaten significantly; about "
        f"{evidence['problems_that_would_decide']} paired problems would decide at the measured effects",
        evidence,
    )


def _one_thread_compare(ctx: Context, agent1: WorkflowGenerator) -> Outcome:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the agents are tiny: two contended threads cost ~50× the wall time (measured)
    try:
        return _compare(ctx, agent1)
    finally:
        torch.set_num_threads(threads)


def _check_beats(ctx: Context) -> Outcome:
    agent1, _ = load_agents()
    return _one_thread_compare(ctx, agent1)


def _control_beats(ctx: Context) -> Outcome:
    torch.manual_seed(ctx.seed)
    return _one_thread_compare(ctx, WorkflowGenerator().eval())


register(
    Claim(
        id="designx.designed_beats_baselines", cost_s=9,
        paper=PAPER,
        source=f"{ARXIV}, Table 1 and Section 4.1 (RQ1)",
        origin=Origin.PAPER,
        covers=(TABLE1,),
        deviation="Table 1 ranks by the AVERAGE normalized objective; we test paired ranks (one-sided "
        "Wilcoxon per baseline; pass: all four at 5 %, fail: one baseline better after Holm), a stricter "
        "reading for CMA-ES, which the paper's own rank-based Figure 8 finds about equal to DesignX. "
        "BBOB held-out instances (instances 6-7 in quick, 6-10 in full; training used instances "
                  "1-5 of the "
        "same 24 functions) instead of the paper's synthetic composition/hybrid set; agents trained ~20 "
        "CPU minutes instead of 6 days; baselines are scipy DE, pycma CMA-ES, PSO and random search at "
        "the same budget (200·d in quick, 500·d in full), not the paper's 17 optimizers.",
        statement="On the 24 BBOB functions at held-out instances (d = 5 quick; 5 and 10 full), the "
                  "shipped DesignX "
        "has a lower median normalized regret (f_best − f*)/(f_ref − f*) than scipy DE, CMA-ES, PSO and "
        "random search, each with a one-sided paired Wilcoxon p < 0.05",
        kind=Kind.NUMERIC,
        check=_check_beats,
        control=_control_beats,
        control_description="an untrained Agent 1 (random weights, seed ctx.seed) with the trained Agent 2",
        expected_verdict="inconclusive",
        power="About 66 paired problems at the measured CMA-ES effect (48 run; DE, PSO and random "
              "already pass); the full profile runs 240 (24 functions × instances 6-10 × d = 5 and 10).",
        budget_s=90,
        full_budget_s=3600,
    )
)


# ---------------------------------------------------------------- designx.rank_comparison (Figure 8)


def _rank_problems(ctx: Context) -> list[BlackBoxProblem]:
    """Quick: 6 held-out problems (every fourth BBOB function, instance 6, d = 5, 200·d); full: the
    240 problems of designed_beats_baselines."""
    if ctx.profile == "quick":
        return [bbob_problem(f, 6, 5, 200 * 5) for f in range(1, 25, 4)]
    return _held_out(ctx)


#: the "almost equal" half passes only on this many problems or more: a two-sided Wilcoxon that does not
#: reject is evidence of near-equality only with power, and on 6 problems even random search in
#: DesignX's place is not rejected against CMA-ES (p = 0.0625; the exact test's floor there is 0.031);
#: at 20 a normal paired shift of one standard deviation is rejected with power ≈ 0.98 (simulated)
EQUAL_MIN_PROBLEMS = 20


def _rank_comparison(ctx: Context, *, designer_is_random: bool) -> Outcome:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the agents are tiny: two contended threads only cost CPU time
    try:
        return _rank_comparison_body(ctx, designer_is_random=designer_is_random)
    finally:
        torch.set_num_threads(threads)


def _rank_comparison_body(ctx: Context, *, designer_is_random: bool) -> Outcome:
    problems = _rank_problems(ctx)
    regrets = {}
    for name, alg in BASELINES.items():
        regrets[name] = np.asarray(
            [normalized_regret(solve(p, alg, seed=ctx.seed + k).value, p) for k, p in enumerate(problems)]
        )
    if designer_is_random:  # control: the designer replaced by random search (another seed)
        regrets["DesignX"] = np.asarray([normalized_regret(solve(p, RandomSearch(), seed=ctx.seed + 7919 + k)
                                                           .value, p) for k, p in enumerate(problems)])
    else:
        agent1, agent2 = load_agents()
        regrets["DesignX"] = _designx_regrets(problems, agent1, agent2, ctx.seed)
    logs = {k: np.log10(v + 1e-12) for k, v in regrets.items()}
    names = list(logs)
    ranks = sstats.rankdata(np.column_stack([logs[k] for k in names]), axis=1)
    mean_rank = {k: figure(float(ranks[:, i].mean()), 3) for i, k in enumerate(names)}
    # (1) "almost equal": two-sided paired Wilcoxon DesignX vs CMA-ES at 5 % must not reject
    diff = logs["DesignX"] - logs["CMA-ES"]
    p_equal = float(sstats.wilcoxon(diff).pvalue) if np.any(diff != 0) else 1.0
    # (2) both better than DE, PSO and random: six one-sided paired Wilcoxon tests; pass needs each at 5 %
    # (intersection-union), falsification needs one reversed after Holm (first step, 5 %/6)
    better, worse = {}, {}
    for top in ("DesignX", "CMA-ES"):
        for other in ("DE (scipy)", "PSO", "random"):
            d = logs[top] - logs[other]
            key = f"{top} < {other}"
            if np.any(d != 0):
                better[key] = float(sstats.wilcoxon(d, alternative="less").pvalue)
                worse[key] = float(sstats.wilcoxon(d, alternative="greater").pvalue)
            else:
                better[key] = worse[key] = 1.0
    evidence = {"problems": len(problems), "mean_rank": mean_rank, "p_designx_vs_cmaes_two_sided":
                figure(p_equal, 3), "p_top_better": {k: figure(v, 3) for k, v in better.items()},
                "p_top_worse": {k: figure(v, 3) for k, v in worse.items()}}
    if p_equal < 0.05:
        return Outcome("fail", f"DesignX and CMA-ES differ in paired ranks (two-sided Wilcoxon p = "
                       f"{p_equal:.3g} over {len(problems)} problems): not 'almost equal'", evidence)
    if min(worse.values()) < 0.05 / len(worse):
        return Outcome("fail", "a baseline ranks significantly above DesignX or CMA-ES (Holm)", evidence)
    if max(better.values()) < 0.05 and len(problems) < EQUAL_MIN_PROBLEMS:
        return Outcome("undecided", f"both rank above DE, PSO and random (each one-sided p < 0.05), but "
                       f"'DesignX ≈ CMA-ES' (p = {p_equal:.3g}) is not evidence of equality on "
                       f"{len(problems)} problems (fewer than {EQUAL_MIN_PROBLEMS})", evidence)
    if max(better.values()) < 0.05:
        return Outcome("pass", f"DesignX ≈ CMA-ES (p = {p_equal:.3g}) and both rank above DE, PSO and random "
                       f"(each one-sided p < 0.05) over {len(problems)} problems", evidence)
    return Outcome("undecided", f"DesignX ≈ CMA-ES not rejected (p = {p_equal:.3g}), but not every "
                   f"'better than' test reaches 5 % over {len(problems)} problems", evidence)


register(
    Claim(
        id="designx.rank_comparison",
        paper=PAPER,
        source=f"{ARXIV}, Section 4.4 (Rank-based Comparison), Figure 8",
        origin=Origin.PAPER,
        covers=("Figure 8",),
        deviation="Paired Wilcoxon tests in place of the critical-difference diagram (Friedman-Nemenyi); "
        "'almost equal' read as a two-sided test at 5 % that does not reject, counted only on >= 20 "
        "problems (below, it is absence of evidence: undecided); 6 held-out BBOB problems in quick (so "
        "quick cannot pass), the 240 of designed_beats_baselines in full; our baselines and agents as "
        "there",
        statement="On held-out BBOB problems, the paired ranks of the shipped DesignX and CMA-ES do not "
        "differ at 5 % (two-sided Wilcoxon on log normalized regret; on >= 20 problems), and each of the "
        "two ranks above scipy DE, PSO and random search (one-sided Wilcoxon p < 0.05 for all six pairs); "
        "falsified if DesignX and CMA-ES differ, or if one of the six is reversed after Holm",
        kind=Kind.NUMERIC,
        check=lambda ctx: _rank_comparison(ctx, designer_is_random=False),
        control=lambda ctx: _rank_comparison(ctx, designer_is_random=True),
        control_description="the designer replaced by random search: it differs from CMA-ES and does not "
        "rank above the others",
        budget_s=90,
        full_budget_s=3600,
        expected_verdict="inconclusive",
        power="Two of the six 'better than' tests miss 5 % on 6 problems (DesignX < PSO p = 0.06, CMA-ES "
              "< PSO p = 0.08); the full profile runs "
              "the 240 problems of designed_beats_baselines, where DesignX below PSO already has p = "
              "3e-5 over 48.",
    )
)


# ---------------------------------------------------------------- designx.designs_prefer_de (Figure 5)


def _family_counts(ctx: Context, *, static_pso: bool) -> dict[str, int]:
    """Reproduction families (de, ga, pso, es) of the workflows the shipped Agent 1 designs for held-out
    BBOB problems (instance 6, d = 5, 1000 evaluations): quick every third function × 5 samples, full all
    24 × 20. ``static_pso`` (the control) replaces the designer by one that always emits a PSO workflow."""
    agent1, _ = load_agents()
    functions = ctx.pick(range(1, 25, 3), range(1, 25))
    samples = ctx.pick(5, 20)
    counts = {"de": 0, "ga": 0, "pso": 0, "es": 0}
    for f in functions:
        prob = bbob_problem(f, 6, 5, 1000)
        features, _, _ = features_module.problem_features(problem_module.Evaluator(prob),
                                                          np.random.default_rng([ctx.seed, f]))
        gen = torch.Generator().manual_seed(ctx.seed * 1000 + f)
        for _ in range(samples):
            if static_pso:
                counts["pso"] += 1
                continue
            with torch.no_grad():
                workflow, _, _ = agent1.sample(torch.as_tensor(features, dtype=torch.float32), generator=gen)
            family = grammar_module.family_of(workflow)
            if family is not None:
                counts[family] += 1
    return counts


def _designs_prefer_de(ctx: Context, *, static_pso: bool) -> Outcome:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the agent is tiny: two contended threads only cost CPU time
    try:
        counts = _family_counts(ctx, static_pso=static_pso)
    finally:
        torch.set_num_threads(threads)
    rival = max((k for k in counts if k != "de"), key=lambda k: counts[k])
    de, other = counts["de"], counts[rival]
    # a two-sided sign test among the workflows of the two leading families (each workflow one trial)
    p = float(sstats.binomtest(de, de + other, 0.5).pvalue) if de + other else 1.0
    evidence = {"family_counts": counts, "runner_up": rival, "p_sign_test": figure(p, 3)}
    summary = f"workflow families {counts}: DE {de} vs {rival} {other}, two-sided sign test p = {p:.3g}"
    if de > other and p < 0.05:
        return Outcome("pass", summary + ": DE dominates", evidence)
    if other > de and p < 0.05:
        return Outcome("fail", summary + f": {rival} dominates, not DE", evidence)
    return Outcome("undecided", summary, evidence)


register(
    Claim(
        id="designx.designs_prefer_de",
        paper=PAPER,
        source=f"{ARXIV}, Section 4.2 (RQ2, point 3), Figure 5",
        origin=Origin.PAPER,
        covers=("Figure 5",),
        deviation="Our Agent 1 (trained ~20 CPU minutes on BBOB instances 1-5) in place of the paper's (6 "
        "days on its synthetic set), so this asks whether the paper's training recipe leads to DE-heavy "
        "designs at our scale, not whether the paper's checkpoint does; counted per workflow by its "
        "reproduction family (Figure 5 counts module variants derived from each family) on held-out BBOB "
        "problems; 40 workflows quick, 480 full",
        statement="Among the workflows the shipped Agent 1 designs for held-out BBOB problems (d = 5), the "
        "DE family is the most frequent: more DE workflows than those of the runner-up family, with a "
        "two-sided sign test p < 0.05 (pass); the runner-up significantly more frequent (fail); otherwise "
        "undecided",
        kind=Kind.NUMERIC,
        check=lambda ctx: _designs_prefer_de(ctx, static_pso=False),
        control=lambda ctx: _designs_prefer_de(ctx, static_pso=True),
        control_description="a static designer that always emits a PSO workflow",
        budget_s=90,
        full_budget_s=1800,
        expected_verdict="falsified",
    )
)


# ---------------------------------------------------------- designx.figure4_module_importance (Figure 4)
#: BBOB's own grouping (Hansen et al. 2009): f3, f4 (Rastrigin variants) and f15-f24 are multimodal
FIG4_MULTIMODAL = frozenset({3, 4, *range(15, 25)})
#: "greedy-fashion" DE mutations: the ones that move toward the best individual(s)
FIG4_GREEDY = frozenset({"de.best1", "de.best2", "de.current_to_best1", "de.rand_to_best1",
                         "de.current_to_pbest1"})
#: search ranges [-R, R]^5 of the same BBOB function (f(5x/R), the landscape rescaled): BBOB's own R = 5
#: (the range our Agent 1 was trained on) against a smaller R = 1
FIG4_RANGES = (1.0, 5.0)
FIG4_TYPES = ("INITIALIZATION", "POPULATION_SIZE", "NICHING", "DE_MUTATION", "DE_CROSSOVER", "GA_MUTATION",
              "BOUNDARY_CONTROL", "SELECTION", "POPULATION_REDUCTION", "RESTART")


def _fig4_problem(f: int, R: float) -> BlackBoxProblem:
    base = bbob_problem(f, 6, 5, 1000)
    if R == 5.0:
        return base
    scale = 5.0 / R
    return BlackBoxProblem(lambda x: base.f(np.asarray(x) * scale), ([-R] * 5, [R] * 5), budget=1000,
                           vectorized=base.vectorized, optimum=base.optimum, name=f"{base.name}_R{R:g}")


def _fig4_workflows(ctx: Context, *, rule_based: bool) -> dict[tuple[int, float], list[tuple[str, ...]]]:
    """Workflows the shipped Agent 1 designs for each BBOB function (instance 6, d = 5, 1000 evaluations)
    at each search range; ``rule_based`` (the control) puts a fixed designer in its place that uses a
    greedy mutation on multimodal functions only and population reduction at the large range only."""
    agent1, _ = load_agents()
    samples = ctx.pick(4, 20)
    out = {}
    for f in range(1, 25):
        for R in FIG4_RANGES:
            if rule_based:
                mutation = "de.best1" if f in FIG4_MULTIMODAL else "de.rand1"
                tail = ("red.linear",) if R == max(FIG4_RANGES) else ()
                flow = ("init.lhs", "pop.10d", mutation, "cx.binomial", "bc.clip", "sel.greedy", *tail)
                out[(f, R)] = [validate(flow)] * samples
                continue
            prob = _fig4_problem(f, R)
            features, _, _ = features_module.problem_features(problem_module.Evaluator(prob),
                                                              np.random.default_rng([ctx.seed, f, int(R)]))
            gen = torch.Generator().manual_seed(ctx.seed * 1000 + 10 * f + int(R))
            flows = []
            for _ in range(samples):
                with torch.no_grad():
                    workflow, _, _ = agent1.sample(torch.as_tensor(features, dtype=torch.float32),
                                                   generator=gen)
                flows.append(tuple(m for m in workflow if m != END))
            out[(f, R)] = flows
    return out


def _fig4_counts(flows: list[tuple[str, ...]], kind: str) -> dict[str, int]:
    """Occurrences of each sub-module of type ``kind`` in these workflows ("absent": a workflow has none)."""
    counts: dict[str, int] = {}
    for flow in flows:
        names = [m for m in flow if grammar_module.MODULE_TYPE[m] == kind] or ["absent"]
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _fig4_share(flows: list[tuple[str, ...]], members: frozenset[str], kind: str) -> tuple[int, int]:
    """(workflows whose module of type ``kind`` is in ``members``, workflows with a module of that type)."""
    hits = total = 0
    for flow in flows:
        names = [m for m in flow if grammar_module.MODULE_TYPE[m] == kind]
        if names:
            total += 1
            hits += any(m in members for m in names)
    return hits, total


def _figure4(ctx: Context, *, rule_based: bool) -> Outcome:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        flows = _fig4_workflows(ctx, rule_based=rule_based)
    finally:
        torch.set_num_threads(threads)
    rng = ctx.rng("figure4")
    perms = ctx.pick(999, 9999)
    functions = list(range(1, 25))
    big, small = max(FIG4_RANGES), min(FIG4_RANGES)
    # per (function, range) count vectors over fixed categories: every statistic below is a sum of rows
    cats = {kind: sorted({m for w in flows.values() for flow in w for m in flow
                          if grammar_module.MODULE_TYPE[m] == kind} | {"absent"}) for kind in FIG4_TYPES}
    counts = {kind: {key: np.array([_fig4_counts(w, kind).get(c, 0) for c in cats[kind]], dtype=float)
                     for key, w in flows.items()} for kind in FIG4_TYPES}
    greedy = {key: np.array(_fig4_share(w, FIG4_GREEDY, "DE_MUTATION"), dtype=float)
              for key, w in flows.items()}

    def kl(a: np.ndarray, b: np.ndarray) -> float:
        p, q = (a + 0.5) / (a + 0.5).sum(), (b + 0.5) / (b + 0.5).sum()   # Jeffreys: each count + 1/2
        return float(np.sum(p * np.log(p / q)))

    def modality_stat(multi: np.ndarray, kind: str) -> float:
        rows = np.stack([counts[kind][(f, big)] for f in functions])
        return kl(rows[~multi].sum(axis=0), rows[multi].sum(axis=0))

    greedy_rows = np.stack([greedy[(f, big)] for f in functions])

    def greedy_gap(multi: np.ndarray) -> float:
        (h_u, t_u), (h_m, t_m) = greedy_rows[~multi].sum(axis=0), greedy_rows[multi].sum(axis=0)
        return (h_u / t_u if t_u else 0.0) - (h_m / t_m if t_m else 0.0)

    def range_stat(swap: np.ndarray, kind: str) -> float:
        lo = np.stack([counts[kind][(f, small)] for f in functions])
        hi = np.stack([counts[kind][(f, big)] for f in functions])
        return kl(np.where(swap[:, None], hi, lo).sum(axis=0), np.where(swap[:, None], lo, hi).sum(axis=0))

    truth = np.array([f in FIG4_MULTIMODAL for f in functions])
    no_swap = np.zeros(len(functions), dtype=bool)
    observed_kl = {kind: modality_stat(truth, kind) for kind in FIG4_TYPES}
    observed_range_kl = {kind: range_stat(no_swap, kind) for kind in FIG4_TYPES}
    observed_gap = greedy_gap(truth)
    null_m, null_pr, null_gap = [], [], []
    for _ in range(perms):
        # the null: function labels exchangeable (modality), each function's two ranges exchangeable (range)
        shuffled = rng.permutation(truth)
        null_m.append(modality_stat(shuffled, "DE_MUTATION"))
        null_gap.append(greedy_gap(shuffled))
        null_pr.append(range_stat(rng.integers(2, size=len(functions)).astype(bool), "POPULATION_REDUCTION"))
    p_m = (1 + sum(v >= observed_kl["DE_MUTATION"] for v in null_m)) / (perms + 1)
    p_pr = (1 + sum(v >= observed_range_kl["POPULATION_REDUCTION"] for v in null_pr)) / (perms + 1)
    p_gap_up = (1 + sum(v >= observed_gap for v in null_gap)) / (perms + 1)
    p_gap_down = (1 + sum(v <= observed_gap for v in null_gap)) / (perms + 1)
    # look-in b: per function, population-reduction share at the small range minus at BBOB's; sign test
    diffs = []
    for f in functions:
        share = [sum(any(grammar_module.MODULE_TYPE[m] == "POPULATION_REDUCTION" for m in w)
                     for w in flows[(f, R)]) / len(flows[(f, R)]) for R in (small, big)]
        diffs.append(share[0] - share[1])
    up, down = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    p_sign_up = float(sstats.binomtest(up, up + down, 0.5, alternative="greater").pvalue) \
        if up + down else 1.0
    p_sign_down = float(sstats.binomtest(down, up + down, 0.5, alternative="greater").pvalue) \
        if up + down else 1.0
    parts = {
        "mutation_differs_by_modality": "pass" if p_m < 0.05 else "undecided",
        "reduction_differs_by_range": "pass" if p_pr < 0.05 else "undecided",
        "greedy_mutation_more_on_unimodal": "pass" if p_gap_up < 0.05 else "fail" if p_gap_down < 0.05
        else "undecided",
        "reduction_more_at_small_range": "pass" if p_sign_up < 0.05 else "fail" if p_sign_down < 0.05
        else "undecided",
    }
    status = "fail" if "fail" in parts.values() else "undecided" if "undecided" in parts.values() else "pass"
    evidence = {
        "workflows": sum(len(v) for v in flows.values()), "permutations": perms, "parts": parts,
        "kl_modality_by_type": {k: figure(v, 4) for k, v in observed_kl.items()},
        "kl_range_by_type": {k: figure(v, 4) for k, v in observed_range_kl.items()},
        "p_mutation_modality": figure(p_m, 3), "p_reduction_range": figure(p_pr, 3),
        "greedy_share_unimodal_minus_multimodal": figure(observed_gap, 3),
        "p_greedy_one_sided": figure(p_gap_up, 3), "p_greedy_other_side": figure(p_gap_down, 3),
        "reduction_share_small_minus_large": {"up": up, "down": down, "ties": 24 - up - down,
                                              "p_sign": figure(p_sign_up, 3),
                                              "p_sign_other_side": figure(p_sign_down, 3)},
    }
    summary = (f"Figure 4 on {'a rule-based designer [control]' if rule_based else 'our Agent 1'}: "
               f"{parts}; KL(mutation | modality) p = {p_m:.3g}, KL(reduction | range) p = {p_pr:.3g}, "
               f"greedy-share gap {observed_gap:+.2f} (p = {p_gap_up:.3g}), reduction at R = {small:g} more "
               f"often on {up}, less on {down} functions (sign p = {p_sign_up:.3g})")
    return Outcome(status, summary, evidence)


register(
    Claim(
        id="designx.figure4_module_importance",
        paper=PAPER,
        source=f"{ARXIV}, Section 4.2 (RQ2, points 1 and 2), Figure 4",
        origin=Origin.PAPER,
        covers=("Figure 4",),
        deviation="Our Agent 1 (trained ~20 CPU minutes on BBOB instances 1-5, all at search range [-5, 5]) "
        "in place of the paper's over its 3200 test problems, so this asks whether our agent learned the "
        "figure's design patterns; groups are BBOB's own (unimodal f1, f2, f5-f14 vs multimodal f3, f4, "
        "f15-f24; ranges [-1, 1]^5 vs BBOB's [-5, 5]^5 with the landscape rescaled, a range our agent "
        "never saw in training); occurrence distributions count 'absent' as a category and add 1/2 to "
        "each count; KL importances tested against a permutation null (function labels permuted for "
        "modality, each function's two ranges swapped at random for range) rather than normalized and "
        "ranked; only the figure's first two observations (mutation by modality, reduction by range) and "
        "its two look-ins are tested, not 'initialization matters little' (KLs are reported); 4 "
        "workflows per (function, range) quick, 20 full",
        statement="For the workflows the shipped Agent 1 designs for the 24 BBOB functions (d = 5) at two "
        "search ranges: the DE-mutation occurrence distribution differs between unimodal and multimodal "
        "functions (KL above its permutation null, p < 0.05), the population-reduction distribution "
        "differs between the ranges (likewise), greedy DE mutations (towards the best) are a larger share "
        "on unimodal functions (one-sided permutation p < 0.05; significantly smaller fails), and "
        "population reduction is chosen more often at the smaller range (one-sided sign test over "
        "functions p < 0.05; significantly less often fails); otherwise undecided",
        kind=Kind.NUMERIC,
        check=lambda ctx: _figure4(ctx, rule_based=False),
        control=lambda ctx: _figure4(ctx, rule_based=True),
        control_description="a fixed designer that uses a greedy mutation on multimodal functions only and "
        "population reduction at the large range only: both look-ins must fail",
        budget_s=90,
        full_budget_s=1800,
        expected_verdict="inconclusive",
        power="Quick (4 workflows per function and range): no part decided (KL p = 0.28 and 0.51, "
              "greedy-share gap -0.17, reduction more often at the small range on 11 functions and less on "
              "7). Full (20 per function and range, run seed 0): the DE-mutation distribution differs by "
              "modality (p = 0.04), but the range KL (p = 0.80) and both look-ins stay undecided, with "
              "effects near zero (greedy-share gap +0.01). The look-ins are tested over BBOB's 24 functions, "
              "which more workflows per function do not add to: if our agent's effects are as small as "
              "measured, no size we can run on BBOB decides them (a larger labelled suite would be needed).",
    )
)


# ---------------------------------------------------------------- designx.boundary_controls


def _boundary(ctx: Context, handler) -> Outcome:
    examples = st.tuples(
        st.integers(0, 2**31 - 1),
        st.integers(1, 6),
        st.integers(1, 8),
        st.floats(0.1, 10.0),
        st.floats(0.0, 3.0),
    )

    def test(example) -> None:
        seed, d, n, width, reach = example
        rng = np.random.default_rng(seed)
        lower = rng.normal(size=d)
        upper = lower + width
        X = lower + rng.random((n, d)) * width  # parents in the box
        U = lower + (rng.random((n, d)) * (1 + 2 * reach) - reach) * width  # up to `reach` widths out
        inside = (U >= lower) & (U <= upper)
        for method in BOUNDARY:
            R = handler(method, U, X, lower, upper, np.random.default_rng(seed))
            assert np.all((R >= lower) & (R <= upper)), f"{method}: a repaired point left the box"
            assert np.array_equal(R[inside], U[inside]), f"{method}: an in-box coordinate was changed"
            if method == "clip":
                assert np.array_equal(R, np.clip(U, lower, upper)), "clip is not the projection"
            if method == "halving":
                mid = np.where(U < lower, (X + lower) / 2, (X + upper) / 2)
                assert np.allclose(R[~inside], mid[~inside]), "halving is not the parent-bound midpoint"
            if method in ("reflect", "periodic"):
                period = 2 * width if method == "reflect" else width
                k = (R - U) / period
                # reflection: R ≡ ±U (mod 2w) about the lower bound; periodic: R ≡ U (mod w)
                if method == "periodic":
                    assert np.allclose(k, np.round(k), atol=1e-9), "periodic is not a shift by whole periods"
                else:
                    a = (R - lower) - (U - lower)
                    b = (R - lower) + (U - lower)
                    ka, kb = a / period, b / period
                    ok = np.isclose(ka, np.round(ka), atol=1e-9) | np.isclose(kb, np.round(kb), atol=1e-9)
                    assert np.all(ok), "reflect is not a mirror image modulo 2 widths"

    outcome = property_outcome(
        examples,
        test,
        ctx=ctx,
        max_examples=ctx.pick(60, 500),
        what="every boundary handler maps into the box, is the identity inside, and follows its rule",
    )
    # the box is closed: coordinates exactly on a face are inside, left alone by every handler, also in a
    # row whose other coordinate is out (halving and random would move a face coordinate they took as out)
    lo_f, hi_f = np.array([-1.0, 0.0]), np.array([2.0, 3.0])
    U_f = np.array([[-1.0, 3.0], [2.0, 0.0], [-1.0, 7.0], [5.0, 3.0]])
    moved = [m for m in BOUNDARY
             if not np.array_equal(handler(m, U_f, np.zeros_like(U_f), lo_f, hi_f,
                                           np.random.default_rng(ctx.seed))[[0, 1, 2, 3], [0, 0, 0, 1]],
                                   U_f[[0, 1, 2, 3], [0, 0, 0, 1]])]
    outcome.evidence["faces_left_alone"] = moved or "every handler"
    if moved and outcome.status == "pass":
        return Outcome("fail", f"a coordinate on a face moved by {moved}", outcome.evidence)
    return outcome


def _single_reflection(method, U, X, lower, upper, rng):
    """The control's bug: reflect mirrors once at the violated bound (no folding for far-out points)."""
    if method != "reflect":
        return boundary(method, U, X, lower, upper, rng)
    return np.where(U > upper, 2 * upper - U, np.where(U < lower, 2 * lower - U, U))


register(
    Claim(
        id="designx.boundary_controls",
        paper=PAPER,
        source=f"{ARXIV}, Table 3 (BOUNDARY_CONTROL: clip, reflect, periodic, halving, random)",
        origin=Origin.PAPER,
        covers=(TABLE3,),
        statement="For random boxes, parents in the box and trial points up to 3 widths outside, clip, "
                  "reflect, "
        "periodic, halving and random return points in the box, leave in-box coordinates unchanged, and "
        "follow their rules (projection; mirror image mod 2w; shift by whole widths; parent-bound "
        "midpoint)",
        kind=Kind.PROPERTY,
        check=lambda ctx: _boundary(ctx, boundary),
        control=lambda ctx: _boundary(ctx, _single_reflection),
        control_description="reflect that mirrors once at the violated bound (points beyond one width "
                            "stay out)",
        budget_s=20,
    )
)


# ---------------------------------------------------------------- designx.initialization_and_crossover


def _init_cross(ctx: Context, init, cross) -> Outcome:
    examples = st.tuples(
        st.integers(0, 2**31 - 1), st.integers(1, 8), st.integers(2, 40), st.floats(0.0, 1.0)
    )

    def test(example) -> None:
        seed, d, n, Cr = example
        rng = np.random.default_rng(seed)
        lower = rng.normal(size=d)
        upper = lower + rng.uniform(0.5, 5.0, d)
        for method in ("uniform", "sobol", "lhs", "halton", "gaussian"):
            X = init(method, n, lower, upper, np.random.default_rng(seed))
            assert X.shape == (n, d) and np.all((X >= lower) & (X <= upper)), f"{method}: outside the box"
        X = init("lhs", n, lower, upper, np.random.default_rng(seed))
        strata = np.floor((X - lower) / (upper - lower) * n).astype(int)
        for j in range(d):
            assert sorted(strata[:, j].tolist()) == list(range(n)), f"LHS: coordinate {j} misses a stratum"
        P, V = rng.normal(size=(n, d)), rng.normal(size=(n, d)) + 10.0  # donors distinguishable
        for method in ("binomial", "exponential"):
            Uc = cross(method, P, V, Cr, np.random.default_rng(seed))
            from_v, from_p = Uc == V, Uc == P
            assert np.all(from_v | from_p), f"{method}: a gene from neither parent nor donor"
            assert np.all(from_v.sum(1) >= 1), f"{method}: a trial without a donor gene"
            if method == "exponential":
                for row in from_v:  # the donor genes form one cyclic run
                    assert np.sum(row != np.roll(row, 1)) <= 2, "exponential: donor genes are not one run"
        # GA mutations (Table 3): polynomial (Deb's bounded form) and Gaussian, replayed on the same draws
        Xb = lower + rng.random((n, d)) * (upper - lower)
        eta = 5.0 + 95.0 * Cr
        Vp = ga_mutation("polynomial", Xb, lower, upper, np.random.default_rng(seed), eta=eta)
        u = np.random.default_rng(seed).random((n, d))
        w = upper - lower
        lo_part = (2 * u + (1 - 2 * u) * (1 - (Xb - lower) / w) ** (eta + 1)) ** (1 / (eta + 1)) - 1
        hi_part = 1 - (2 * (1 - u) + 2 * (u - 0.5) * (1 - (upper - Xb) / w) ** (eta + 1)) ** (1 / (eta + 1))
        expected = Xb + np.where(u <= 0.5, lo_part, hi_part) * w
        # the same float64 expression up to operand order: 1e-9 of the width is rounding
        assert np.allclose(Vp, expected, rtol=0, atol=1e-9 * w.max()), "polynomial mutation is not Deb's"
        assert np.all((Vp >= lower - 1e-12) & (Vp <= upper + 1e-12)), "polynomial mutation left the box"
        Vg = ga_mutation("gaussian", Xb, lower, upper, np.random.default_rng(seed), sigma=0.1)
        z = np.random.default_rng(seed).standard_normal((n, d))
        gauss_ok = np.allclose(Vg, Xb + 0.1 * w * z, rtol=1e-12, atol=1e-12)
        assert gauss_ok, "Gaussian mutation scale is not σ(u − l)"

    return property_outcome(
        examples,
        test,
        ctx=ctx,
        max_examples=ctx.pick(60, 400),
        what="initializations stay in the box, LHS fills every stratum, binomial and "
        "exponential crossover keep >= 1 donor gene (exponential: one cyclic run), GA mutations "
        "follow Deb's polynomial and the Gaussian σ(u − l) rule",
    )


def _no_jrand(method, X, V, Cr, rng):
    """The control's bug: binomial crossover without the forced gene j_rand."""
    if method != "binomial":
        return crossover(method, X, V, Cr, rng)
    return np.where(rng.random(X.shape) < Cr, V, X)


register(
    Claim(
        id="designx.initialization_and_crossover",
        paper=PAPER,
        source=f"{ARXIV}, Table 3 (INITIALIZATION: uniform, Sobol, LHS, Halton, Gaussian; DE binomial and "
        "exponential crossover)",
        origin=Origin.PAPER,
        covers=(TABLE3,),
        statement="For random boxes, sizes and Cr in [0, 1]: every initialization returns n points in "
                  "the box, "
        "LHS has exactly one point in each of the n strata of every coordinate, and every binomial or "
        "exponential trial vector takes each gene from the parent or the donor with at least one donor "
        "gene, exponential's donor genes forming one cyclic run; polynomial mutation equals Deb's bounded "
        "formula on the same uniform draws (and stays in the box) and Gaussian mutation adds σ(u − l) z",
        kind=Kind.PROPERTY,
        check=lambda ctx: _init_cross(ctx, initialize, crossover),
        control=lambda ctx: _init_cross(ctx, initialize, _no_jrand),
        control_description="binomial crossover without the forced donor gene j_rand",
        budget_s=20,
    )
)


# ---------------------------------------------------------------- designx.de_mutations


def _mutations(ctx: Context, mutate) -> Outcome:
    examples = st.tuples(
        st.integers(0, 2**31 - 1),
        st.integers(1, 6),
        st.integers(6, 30),
        st.floats(0.0, 1.0),
        st.floats(0.0, 1.0),
        st.floats(0.02, 0.5),
        st.booleans(),
    )

    def test(example) -> None:
        seed, d, n, F1, F2, p, grouped = example
        rng = np.random.default_rng(seed)
        X, y = rng.normal(size=(n, d)), rng.normal(size=n)
        groups = (np.arange(n) % 2) if grouped and n >= 12 else np.zeros(n, dtype=int)
        for method in MUTATIONS:
            V = mutate(method, X, y, np.random.default_rng(seed), F1=F1, F2=F2, p=p, groups=groups)
            r = np.random.default_rng(seed)
            R = partners(N_PARTNERS[method], groups, r)
            assert np.all(R != np.arange(n)[:, None]), "a partner equals the individual"
            assert all(len(set(row)) == R.shape[1] for row in R.tolist()), "partners repeat"
            assert np.all(groups[R] == groups[:, None]), "a partner from another niche"
            xr = [X[R[:, k]] for k in range(R.shape[1])]
            best = np.array(
                [np.flatnonzero(groups == groups[i])[np.argmin(y[groups == groups[i]])] for i in range(n)]
            )
            xb = X[best]
            if method == "current_to_pbest1":
                # the pbest draw follows the partner draw on the same generator
                pb = np.empty(n, dtype=int)
                for g in np.unique(groups):
                    members = np.flatnonzero(groups == g)
                    k = max(1, math.ceil(p * members.size))
                    top = members[np.argsort(y[members], kind="stable")[:k]]
                    pb[members] = top[r.integers(k, size=members.size)]
                expected = X + F1 * (X[pb] - X) + F2 * (xr[0] - xr[1])
            elif method == "rand1":
                expected = xr[0] + F1 * (xr[1] - xr[2])
            elif method == "rand2":
                expected = xr[0] + F1 * (xr[1] - xr[2]) + F2 * (xr[3] - xr[4])
            elif method == "best1":
                expected = xb + F1 * (xr[0] - xr[1])
            elif method == "best2":
                expected = xb + F1 * (xr[0] - xr[1]) + F2 * (xr[2] - xr[3])
            elif method == "current_to_best1":
                expected = X + F1 * (xb - X) + F2 * (xr[0] - xr[1])
            elif method == "current_to_rand1":
                expected = X + F1 * (xr[0] - X) + F2 * (xr[1] - xr[2])
            else:
                expected = xr[0] + F1 * (xb - xr[1])
            # float64 arithmetic in the same order up to regrouping: 1e-12 relative is rounding
            assert np.allclose(V, expected, rtol=1e-12, atol=1e-12), f"{method}: donors differ from Table 3"

    outcome = property_outcome(
        examples,
        test,
        ctx=ctx,
        max_examples=ctx.pick(40, 300),
        what="every DE mutation's donors follow Table 3's formula with distinct in-niche partners",
    )
    # Table 3's PSO move v ← w·v + c1·r1(p − x) + c2·r2(g − x), r1, r2 uniform on [0, 1), clamped to
    # ±0.2·width (the docstring): with w = 0 and one
    # of c1, c2 zero, every velocity component points from x toward p (resp. the best p, g) and is no
    # longer than the gap (the 0.2·width clamp only shortens it)
    rng = np.random.default_rng(ctx.seed)
    X, V, P = rng.normal(size=(3, 12, 4))
    yP = rng.normal(size=12)
    lo, hi = -10 * np.ones(4), 10 * np.ones(4)
    misdirected = []
    for c1, c2, target in ((1.0, 0.0, P), (0.0, 1.0, P[np.argmin(yP)])):
        Xn, Vn = components_module.pso_update(X, V, P, yP, lo, hi, np.random.default_rng(ctx.seed), w=0.0,
                                              c1=c1, c2=c2)
        gap = target - X
        if not (np.all(Vn * gap >= 0) and np.all(np.abs(Vn) <= np.abs(gap)) and np.array_equal(Xn, X + Vn)
                and np.any(Vn != 0)):
            misdirected.append(f"c1 = {c1}, c2 = {c2}")
    # the inertia term and the clamp on their own (c1 = c2 = 0): v ← clip(w·v, ±0.2·width), exactly, with
    # velocities beyond the clamp (|0.7·v| up to about 10 against 0.2·20 = 4)
    V_big = 5.0 * V
    Xn, Vn = components_module.pso_update(X, V_big, P, yP, lo, hi, np.random.default_rng(ctx.seed), w=0.7,
                                          c1=0.0, c2=0.0)
    want_v = np.clip(0.7 * V_big, -4.0, 4.0)
    if not (np.allclose(Vn, want_v, rtol=1e-15, atol=0) and np.array_equal(Xn, X + Vn)
            and np.any(np.abs(0.7 * V_big) > 4.0)):
        misdirected.append("inertia w·v clamped to 0.2·width")
    # the random factors r1, r2 are uniform on [0, 1): with w = 0 and a box wide enough that nothing is
    # clamped, v / (target − x) over the 48 components passes KS against U(0, 1) (p >= 1e-4; a dropped
    # factor makes every ratio 1)
    wide_lo, wide_hi = -1e3 * np.ones(4), 1e3 * np.ones(4)
    for c1, c2, target in ((1.0, 0.0, P), (0.0, 1.0, P[np.argmin(yP)])):
        _, Vn = components_module.pso_update(X, V, P, yP, wide_lo, wide_hi,
                                             np.random.default_rng(ctx.seed + 1), w=0.0, c1=c1, c2=c2)
        ratio = (Vn / (target - X)).ravel()
        if sstats.kstest(ratio, "uniform").pvalue < 1e-4:
            misdirected.append(f"r{1 if c1 else 2} not uniform (KS)")
    outcome.evidence["pso_moves_toward_p_and_g"] = misdirected or "every component, both terms"
    if misdirected and outcome.status == "pass":
        return Outcome("fail", f"PSO velocity not toward its target ({misdirected[0]})", outcome.evidence)
    return outcome


def _dropped_term(method, X, y, rng, **kw):
    """The control's bug: rand/2 with its second difference dropped."""
    if method == "rand2":
        kw = {**kw, "F2": 0.0}
    return de_mutation(method, X, y, rng, **kw)


register(
    Claim(
        id="designx.de_mutations",
        paper=PAPER,
        source=f"{ARXIV}, Table 3 (MUTATION: the DE variants)",
        origin=Origin.PAPER,
        covers=(TABLE3,),
        deviation="Our eight DE mutations (rand/1, rand/2, best/1, best/2, current-to-best/1, "
                  "current-to-rand/1, "
        "rand-to-best/1, current-to-pbest/1) of Table 3's eleven (no archive variants, no weighted "
        "rand-to-pbest).",
        statement="For random populations, F1, F2 in [0, 1], p in [0.02, 0.5] and with or without two "
                  "niches, every "
        "DE mutation's donors equal Table 3's formula evaluated on the partners it drew (distinct, "
        "different from the individual, from its niche; best and pbest inside the niche); and PSO's "
        "move with w = 0 and one of c1, c2 zero points each particle, component by component, toward its "
        "personal best (resp. the swarm's best), never past it",
        kind=Kind.PROPERTY,
        check=lambda ctx: _mutations(ctx, de_mutation),
        control=lambda ctx: _mutations(ctx, _dropped_term),
        control_description="DE/rand/2 with its second difference term dropped",
        budget_s=20,
    )
)


# ---------------------------------------------------------------- designx.selection_elitist


def _selection(ctx: Context, sel) -> Outcome:
    examples = st.tuples(st.integers(0, 2**31 - 1), st.integers(1, 4), st.integers(2, 20))

    def test(example) -> None:
        seed, d, n = example
        rng = np.random.default_rng(seed)
        X, U = rng.normal(size=(n, d)), rng.normal(size=(n, d))
        y, yu = rng.normal(size=n), rng.normal(size=n)
        yu[rng.random(n) < 0.2] = np.inf  # non-finite offspring are the worst
        Z, yz = np.vstack([X, U]), np.concatenate([y, yu])
        for method in SELECTIONS:
            Xn, yn = sel(method, X, y, U, yu, np.random.default_rng(seed))
            assert Xn.shape == X.shape, f"{method}: the population size changed"
            assert np.min(yn) == np.min(yz), f"{method}: the best of parents and offspring was lost"
            for row, value in zip(Xn, yn):  # every survivor carries its own value
                hit = np.flatnonzero(np.all(Z == row, axis=1))
                assert hit.size and np.any(yz[hit] == value), f"{method}: a survivor with a foreign value"
            if method == "greedy":
                assert np.all(yn == np.minimum(y, yu)), "greedy is not the pairwise minimum"
            if method == "mu_plus_lambda":
                assert np.array_equal(np.sort(yn), np.sort(yz)[:n]), "mu+lambda did not keep the n best"
            if method == "tournament":
                # replayed on the same draws: the union's best, then for each of n − 1 random pairs of the
                # union the one with the lower value (the first on a tie)
                a, b = np.random.default_rng(seed).integers(2 * n, size=(2, n - 1))
                want = [float(np.min(yz))] + [yz[i] if yz[i] <= yz[j] else yz[j] for i, j in zip(a, b)]
                assert np.array_equal(yn, want), "tournament: a pair's survivor is not its better member"
            if method == "crowding":
                # replayed: offspring in increasing value each meet their nearest parent (in the old
                # population, Euclidean) and replace it when not worse than what now holds its place
                want = y.copy()
                nearest = [int(np.argmin(((X - u) ** 2).sum(1))) for u in U]
                for i in np.argsort(yu, kind="stable"):
                    if yu[i] <= want[nearest[i]]:
                        want[nearest[i]] = yu[i]
                assert np.array_equal(yn, want), "crowding: not each offspring against its nearest parent"

    return property_outcome(
        examples,
        test,
        ctx=ctx,
        max_examples=ctx.pick(60, 400),
        what="every selection keeps the size, the best of parents and offspring, and "
        "each survivor's own value (greedy: pairwise minimum; mu+lambda: the n best)",
    )


def _inverted_greedy(method, X, y, U, yu, rng):
    """The control's bug: greedy selection with the comparison inverted."""
    if method != "greedy":
        return select(method, X, y, U, yu, rng)
    keep = yu >= y
    return np.where(keep[:, None], U, X), np.where(keep, yu, y)


register(
    Claim(
        id="designx.selection_elitist",
        paper=PAPER,
        source=f"{ARXIV}, Table 3 (SELECTION)",
        origin=Origin.PAPER,
        covers=(TABLE3,),
        deviation="Our four selections (greedy, crowding, mu+lambda, tournament with the best kept) of "
                  "Table 3's six.",
        statement="For random parents and offspring (a fifth of the offspring non-finite), greedy, crowding, "
        "mu_plus_lambda and tournament keep N individuals including the best of the union, each with its "
        "own value; greedy is the pairwise minimum and mu_plus_lambda the N best; tournament (replayed on "
        "the same draws) keeps the union's best and the better member of each of N − 1 random pairs, "
        "crowding (replayed) lets offspring in increasing value replace their nearest parent when not worse",
        kind=Kind.PROPERTY,
        check=lambda ctx: _selection(ctx, select),
        control=lambda ctx: _selection(ctx, _inverted_greedy),
        control_description="greedy selection with the comparison inverted (keeps the worse of each pair)",
        budget_s=20,
    )
)


# ---------------------------------------------------------------- designx.exact_counting


def _random_workflow(rng: np.random.Generator) -> tuple[str, ...]:
    prefix: list[str] = []
    while True:
        options = sorted(allowed_next(tuple(prefix)))
        token = options[int(rng.integers(len(options)))]
        if token == END:
            return tuple(prefix)
        prefix.append(token)


def _counting(ctx: Context) -> Outcome:
    examples = st.tuples(st.integers(0, 2**31 - 1), st.integers(1, 6), st.integers(1, 250), st.integers(0, 5))

    def test(example) -> None:
        seed, d, budget, which = example
        rng = np.random.default_rng(seed)
        calls = {"n": 0, "bad": 0, "values": []}

        def f(x):
            calls["n"] += 1
            v = float(np.sum(x**2))
            if rng.random() < 0.1:
                v = [math.nan, math.inf, -math.inf][int(rng.integers(3))]
                calls["bad"] += 1
            calls["values"].append(v)
            return v

        prob = BlackBoxProblem(f, (-np.ones(d), np.ones(d)), budget)
        alg = [
            ModularOptimizer(_random_workflow(rng)),
            ScipyDE(),
            CMAES(),
            PSO(),
            RandomSearch(batch=7),
            ModularOptimizer(_random_workflow(rng)),
        ][which]
        sol = solve(prob, alg, seed=seed % 1000, store_trace=True)
        assert calls["n"] <= budget, f"{type(alg).__name__}: {calls['n']} calls with budget {budget}"
        # the stored trace numbers the iterations 1..n, n = stats.iterations, and its evaluation counts
        # never decrease and never pass the count the solution reports
        numbers = [r["iteration"] for r in sol.trace]
        assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) in (0, sol.stats.iterations), (
            f"{type(alg).__name__}: trace iterations {numbers[:5]}... with stats.iterations "
            f"{sol.stats.iterations}"
        )
        counts = [r["evaluations"] for r in sol.trace]
        assert all(a <= b for a, b in itertools.pairwise([*counts, sol.stats.f_calls])), (
            f"{type(alg).__name__}: trace evaluations {counts[-3:]} against f_calls {sol.stats.f_calls}"
        )
        assert sol.stats.f_calls == calls["n"], (
            f"{type(alg).__name__}: counted {sol.stats.f_calls}, made {calls['n']}"
        )
        assert sol.stats.nonfinite == calls["bad"], "non-finite values miscounted"
        finite = [v for v in calls["values"] if math.isfinite(v)]
        if finite:
            assert sol.value == min(finite), "the returned value is not the best finite value seen"
            assert float(np.sum(np.asarray(sol.x, dtype=float) ** 2)) == sol.value, (
                "x does not carry its value"
            )

    outcome = property_outcome(
        examples,
        test,
        ctx=ctx,
        max_examples=ctx.pick(40, 300),
        what="every optimizer counts evaluations and non-finite values exactly, never "
        "exceeds the budget and returns the best finite value seen",
    )
    # the random draws need not give every baseline a budget with several iterations: each solver once
    # more on a budget that does (3-D sphere, 250 evaluations), its trace numbered 1..stats.iterations
    rng = np.random.default_rng(ctx.seed)
    misnumbered = []
    for alg in (ModularOptimizer(_random_workflow(rng)), ScipyDE(), CMAES(), PSO(), RandomSearch(batch=7)):
        prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(3), np.ones(3)), 250)
        sol = solve(prob, alg, seed=int(ctx.seed % 1000), store_trace=True)
        numbers = [r["iteration"] for r in sol.trace]
        if numbers != list(range(1, sol.stats.iterations + 1)) or not numbers:
            misnumbered.append(f"{type(alg).__name__}: {numbers[:3]}...{numbers[-2:]} for "
                               f"{sol.stats.iterations} iterations")
        # the iteration horizon (SolveOptions.maxiters) is a stop of its own: 2 iterations, then MaxIters
        # (each solver's two generations take <= 150 of the 250 evaluations)
        short = solve(prob, alg, seed=int(ctx.seed % 1000), maxiters=2)
        if short.retcode.name != "MaxIters" or short.stats.iterations != 2:
            misnumbered.append(f"{type(alg).__name__} with maxiters = 2: {short.retcode.name} after "
                               f"{short.stats.iterations} iterations")
        # maxiters = 0 returns the start with MaxIters (algorithms.core): 0 iterations, and the trace holds
        # exactly core's one final record (iteration 0, retcode MaxIters; stored since 7c258fc, issue #43)
        start = solve(prob, alg, seed=int(ctx.seed % 1000), maxiters=0, store_trace=True)
        final = ([r.get("iteration") for r in start.trace] == [0]
                 and start.trace[0].get("retcode") == "MaxIters")
        if start.retcode.name != "MaxIters" or start.stats.iterations != 0 or not final:
            misnumbered.append(f"{type(alg).__name__} with maxiters = 0: {start.retcode.name} after "
                               f"{start.stats.iterations} iterations, trace {start.trace[:1]}")
    # without maxiters the budget alone ends a scipy DE run: the iteration count scipy is given must cover
    # every generation a budget of 10¹³ evaluations pays for (10¹² of 10 in 2-D; a finite default such as
    # scipy's 1000 or 10⁹ would end the run early with MaxIters). scipy is stopped at its call (a spy).
    horizon = {}

    def spy_de(fun, bounds, **kwargs):
        horizon["maxiter"] = kwargs.get("maxiter")
        raise _SpyStop

    huge = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 10**13)
    with patched(scipy_optimize, "differential_evolution", spy_de), contextlib.suppress(_SpyStop):
        solve(huge, ScipyDE(popsize=5), seed=0)
    if not isinstance(horizon.get("maxiter"), int) or horizon["maxiter"] < 10**13 // 10:
        misnumbered.append(f"ScipyDE without maxiters gives scipy maxiter={horizon.get('maxiter')!r}, "
                           f"fewer than the {10**12} generations a budget of 10¹³ pays for")
    # a non-finite value does not end a CMA-ES run: the batch is told to pycma with the worst value in its
    # place (pycma's own stops, e.g. on flat fitness, may still restart it). Spied: every batch asked while
    # budget remains is told, NaN batches included (f NaN on x₁ > 0.2 of [-1, 1]², budget 150, 3 seeds)
    import cma

    counts = {"ask": 0, "tell": 0, "told_worst": 0, "built": 0}

    class SpiedCMA(cma.CMAEvolutionStrategy):
        def __init__(self, *args, **kwargs):
            counts["built"] += 1
            super().__init__(*args, **kwargs)

        def ask(self, *args, **kwargs):
            counts["ask"] += 1
            return super().ask(*args, **kwargs)

        def tell(self, solutions, function_values, *args, **kwargs):
            counts["tell"] += 1
            counts["told_worst"] += sum(v >= np.finfo(float).max / 1e7 for v in function_values)
            return super().tell(solutions, function_values, *args, **kwargs)

    def half_nan(x):
        return math.nan if x[0] > 0.2 else float(np.sum(x**2))

    runs = 0
    with patched(cma, "CMAEvolutionStrategy", SpiedCMA):
        for seed in range(3):
            sol = solve(BlackBoxProblem(half_nan, (-np.ones(2), np.ones(2)), 150), CMAES(), seed=seed)
            runs += sol.stats.restarts + 1
    # each run's last batch may be cut by the budget before its tell
    if counts["tell"] < counts["ask"] - runs or not counts["told_worst"]:
        misnumbered.append(f"CMA-ES asked {counts['ask']} batches and told {counts['tell']} "
                           f"({counts['told_worst']} non-finite values told as the worst)")
    # stats.restarts counts the pycma runs after the first
    if counts["built"] != runs:
        misnumbered.append(f"CMA-ES reported {runs - 3} restarts over 3 solves that built {counts['built']} "
                           "pycma runs")
    # above CMA_STAGNATION_OFF_ABOVE = 100 dimensions pycma's stagnation stop is off (it cannot fire within
    # the budget: pycma tests it only once the iteration count reaches tolstagnation / 10, and a run makes at
    # most `budget` iterations); up to it pycma's default is left alone. The options pycma is built with are
    # spied at 100-D and 101-D (budget 10⁶; stopped at the construction)
    built = {}

    class OptionsSpy(cma.CMAEvolutionStrategy):
        def __init__(self, x0, sigma0, inopts=None, *args, **kwargs):
            built[len(x0)] = dict(inopts or {})
            raise _SpyStop

    with patched(cma, "CMAEvolutionStrategy", OptionsSpy):
        for dim in (100, 101):
            with contextlib.suppress(_SpyStop):
                solve(BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(dim), np.ones(dim)), 10**6),
                      CMAES(), seed=0)
    stag_100 = built.get(100, {}).get("tolstagnation", "default")
    stag_101 = built.get(101, {}).get("tolstagnation")
    off_101 = stag_101 is not None and (stag_101 == 0 or stag_101 / 10 > 10**6)
    if stag_100 != "default" or not off_101:
        misnumbered.append(f"CMA-ES gives pycma tolstagnation {stag_100!r} at 100-D (want pycma's default) "
                           f"and {stag_101!r} at 101-D (want off within a 10⁶ budget)")
    outcome.evidence["trace_numbering_250"] = misnumbered or (
        "1..n for each solver; maxiters = 2 honoured; no iteration cap on scipy DE without maxiters; CMA-ES "
        "tells every batch, non-finite values as the worst; pycma's stagnation stop off above 100-D only")
    if misnumbered and outcome.status == "pass":
        return Outcome("fail", f"trace numbering: {misnumbered[0]}", outcome.evidence)
    return outcome


class _SpyStop(Exception):
    """Ends a solve at the backend call a spy replaced."""


def _overshooting_call(self, X):
    """The control's bug: the evaluator evaluates the whole last batch, past the budget, and counts only what
    the budget allowed (the Evaluator refuses a count past its budget since #43 round 11, so an overshoot
    that is counted can no longer happen; one that is not counted still can)."""
    X = np.asarray(X)
    values = (
        np.array([problem_module._scalar(self.problem.f(row)) for row in X])
        if not self.problem.vectorized
        else np.asarray(self.problem.f(X), dtype=float)
    )
    self.evaluations = min(self.evaluations + len(X), self.problem.budget)
    bad = ~np.isfinite(values)
    self.nonfinite += int(bad.sum())
    values = np.where(bad, np.inf, values)
    i = int(np.argmin(values))
    if values[i] < self.best_value:
        self.best_x, self.best_value = X[i].copy(), float(values[i])  # the point first: the value is its
    list.append(self.history, (self.evaluations, self.best_value))   # the Evaluator's own append
    return values


def _control_counting(ctx: Context) -> Outcome:
    with patched(problem_module.Evaluator, "__call__", _overshooting_call):
        return _counting(ctx)


register(
    Claim(
        id="designx.exact_counting",
        paper=PAPER,
        source="the family's evaluation contract (algorithms.blackbox.problem.Evaluator's docstring: "
        "the budget counted exactly, non-finite values treated as the worst)",
        origin=Origin.IMPLEMENTATION,
        statement="For random grammar-valid workflows and each baseline, budgets 1..250 and an "
                  "objective that returns "
        "NaN/±inf with probability 0.1, the optimizer makes at most `budget` calls, stats.f_calls equals "
        "the calls made, stats.nonfinite the non-finite values returned, and the solution is the best "
        "finite value seen, at a point that has that value; the stored trace numbers its iterations "
        "1, 2, ..., stats.iterations, with evaluation counts that never decrease nor pass stats.f_calls "
        "(also checked once per solver at budget 250 in 3-D, where each makes several iterations, and "
        "there maxiters = 2 stops each solver after exactly 2 iterations with MaxIters, and maxiters = 0 "
        "returns the start with MaxIters, 0 iterations and a trace of core's one final record, iteration 0); "
              "CMA-ES's stats.restarts counts "
        "the pycma runs it built after the first; without maxiters "
        "scipy DE is given an iteration count that covers every generation of a 10¹³-evaluation budget; "
        "a CMA-ES run that meets NaN values (f NaN on x₁ > 0.2, budget 150, 3 seeds) tells pycma every "
        "batch it asked for, the NaN ones with the worst value (the last batch of a run may be cut); "
        "pycma's stagnation stop is off above 100-D (it cannot fire within a 10⁶ budget at 101-D) and left "
        "at pycma's default at 100-D",
        kind=Kind.PROPERTY,
        check=_counting,
        control=_control_counting,
        control_description="an evaluator that evaluates the whole last batch past the budget (counting only "
                            "the budget)",
        budget_s=30,
    )
)


# ---------------------------------------------------------------- designx.sep_cmaes_learns_scaling


def _sep_cma_run(ctx: Context) -> Outcome:
    d, budget = 5, 4000
    scales = 10.0 ** (3 * np.arange(d) / (d - 1))  # axis scales 1 .. 1e3: conditioning 1e6
    finals = []
    for s in range(ctx.pick(3, 10)):
        rng = np.random.default_rng([ctx.seed, s])
        es = SepCMAState.start(rng.uniform(-3, 3, d), 1.0)
        used = 0
        best = math.inf
        while used < budget:
            X = es.sample(10, rng)
            y = ((X * scales) ** 2).sum(1)
            used += len(X)
            best = min(best, float(y.min()))
            es.update(X, y, 0.5)
        finals.append(best)
    worst = float(np.max(finals))
    # a separable ellipsoid of condition 1e6: learning the diagonal scaling reaches 1e-10 in 4000
    # evaluations (about 800 per decade would be needed without it); 1e-8 leaves two decades of margin
    return fact(
        worst < 1e-8,
        "Sep-CMA-ES reaches f < 1e-8 on a 5-D separable ellipsoid (condition 1e6) within "
        "4000 evaluations in every seeded run",
        worst_final=worst,
    )


def _control_sep_cma(ctx: Context) -> Outcome:
    original = SepCMAState.update

    def frozen_covariance_update(self, X, y, mu_ratio=0.5):
        """The control's bug: the diagonal covariance update dropped (an isotropic CSA-ES)."""
        c = self.c.copy()
        original(self, X, y, mu_ratio)
        self.c = c

    with patched(components_module.SepCMAState, "update", frozen_covariance_update):
        return _sep_cma_run(ctx)


register(
    Claim(
        id="designx.sep_cmaes_learns_scaling",
        paper=PAPER,
        source="Ros & Hansen, A simple modification in CMA-ES achieving linear time and space "
               "complexity, PPSN 2008 "
        f"(the Sep-CMA-ES module of {ARXIV} Table 3)",
        origin=Origin.PRIOR,
        statement="Our Sep-CMA-ES (λ = 10, μ = 5) reaches f < 1e-8 on the 5-D separable ellipsoid Σ "
                  "(10^(3(i−1)/4) "
        "x_i)² from a uniform start in [-3, 3]^5 with σ0 = 1 within 4000 evaluations in every seeded run",
        kind=Kind.NUMERIC,
        check=_sep_cma_run,
        control=_control_sep_cma,
        control_description="the diagonal covariance update dropped (an isotropic step-size-adapted ES)",
        budget_s=20,
    )
)


# ---------------------------------------------------------------- designx.sep_cmaes_step_size

SPHERE_D, SPHERE_LAM, SPHERE_TARGET, SPHERE_MAXF = 10, 10, 1e-10, 30_000
SIGMA0S = (1e-4, 1.0, 1e2)  # step size far too small, about right, far too large (distance sqrt(10))


def _evals_to_target(ask, tell) -> int:
    used = 0
    while used < SPHERE_MAXF:
        X = ask()
        y = (X**2).sum(1)
        used += len(X)
        if y.min() < SPHERE_TARGET:
            return used
        tell(X, y)
    return SPHERE_MAXF


def _ours_sphere(sigma0: float, seed: int) -> int:
    rng = np.random.default_rng(seed)
    es = SepCMAState.start(np.ones(SPHERE_D), sigma0)
    return _evals_to_target(lambda: es.sample(SPHERE_LAM, rng), lambda X, y: es.update(X, y, 0.5))


@functools.lru_cache(maxsize=256)  # the reference runs are shared by the check and the control
def _pycma_sphere(sigma0: float, seed: int) -> int:
    import cma  # the reference: pycma's separable CMA-ES (CMA_diagonal), same λ and default μ = λ/2

    opts = {"CMA_diagonal": True, "popsize": SPHERE_LAM, "seed": seed + 1, "verbose": -9, "tolfun": 0,
            "tolx": 0, "tolfunhist": 0, "tolstagnation": 10**9, "tolflatfitness": 10**9,
            "maxfevals": 10**9, "CMA_active": False}
    es = cma.CMAEvolutionStrategy(np.ones(SPHERE_D), sigma0, opts)
    return _evals_to_target(lambda: np.asarray(es.ask()), lambda X, y: es.tell(list(X), list(y)))


def _step_size(ctx: Context) -> Outcome:
    n = ctx.pick(10, 30)
    rows, ok = {}, True
    for sigma0 in SIGMA0S:
        seeds = [(ctx.seed + 7919 * s) % (2**31 - 2) for s in range(n)]
        a = [_ours_sphere(sigma0, k) for k in seeds]
        b = [_pycma_sphere(sigma0, k) for k in seeds]
        ratio = float(np.median(a) / np.median(b))
        # Window [0.8, 1.25]: the evaluations to 1e-10 vary by ~5 % between seeds (measured), so the
        # median ratio of n = 10 runs each is known to ~3 %; pycma's defaults differ from Ros & Hansen's
        # constants (its c_sigma and damping), which puts the correct ratio at ~0.91 (measured at three
        # seeds); a mis-normalized or un-whitened evolution path, a wrong mu_eff give 0.75-0.78 or 1.27
        ok &= 0.8 <= ratio <= 1.25 and max(a) < SPHERE_MAXF
        rows[f"sigma0={sigma0:g}"] = {"median_evals_ours": float(np.median(a)),
                                      "median_evals_pycma": float(np.median(b)),
                                      "ratio": figure(ratio, 3)}
    out = fact(ok, f"Sep-CMA-ES's evaluations to f < 1e-10 on the 10-D sphere are within [0.8, 1.25] of "
               f"pycma's separable CMA-ES for sigma0 in {SIGMA0S} ({n} seeds each)")
    out.evidence["per_sigma0"] = rows
    return out


def _unnormalized_path_gain(cs, mueff):
    """The control's bug: the evolution path p_sigma accumulated WITHOUT its normalization factor
    sqrt(c_sigma (2 - c_sigma) mu_eff) (so |p_sigma| is off its chi_d scale)."""
    return 1.0


def _control_step_size(ctx: Context) -> Outcome:
    with patched(components_module.SepCMAState, "_path_gain", staticmethod(_unnormalized_path_gain)):
        return _step_size(ctx)


register(
    Claim(
        id="designx.sep_cmaes_step_size",
        paper=PAPER,
        source="Ros & Hansen, PPSN 2008 (sep-CMA-ES with cumulative step-size adaptation; the Sep-CMA-ES "
        f"module of {ARXIV} Table 3); reference implementation pycma (CMA_diagonal)",
        origin=Origin.PRIOR,
        deviation="Matched against pycma's separable CMA-ES, whose default constants differ slightly from "
        "ours (so a window, not equality); the sphere is unconstrained (no boundary control).",
        statement="From x0 = (1, ..., 1) in 10-D with λ = 10, μ = 5 and σ0 ∈ {1e-4, 1, 1e2}, our "
        "Sep-CMA-ES needs a median number of evaluations to reach f < 1e-10 on the sphere within a factor "
        "[0.8, 1.25] of pycma's CMA_diagonal, i.e. its step-size adaptation grows a too-small σ, shrinks "
        "a too-large one and converges at pycma's rate",
        kind=Kind.NUMERIC,
        check=_step_size,
        control=_control_step_size,
        control_description="the evolution path accumulated without its sqrt(c_σ(2 − c_σ)μ_eff) "
        "normalization (a dropped factor in CSA)",
        budget_s=30,
    )
)


# ---------------------------------------------------------------- designx.population_reduction


def _reduction(ctx: Context, size) -> Outcome:
    examples = st.tuples(st.integers(4, 400), st.integers(1, 50), st.lists(st.floats(0.0, 1.0), min_size=2,
                                                                           max_size=20))

    def test(example) -> None:
        n0, n_min, ts = example
        n_min = min(n_min, n0)
        for method in ("linear", "nonlinear"):
            assert size(method, n0, n_min, 0.0) == n0, f"{method}: N(0) != N0"
            assert size(method, n0, n_min, 1.0) == n_min, f"{method}: N(1) != N_min"
            sizes = [size(method, n0, n_min, t) for t in sorted(ts)]
            assert all(n_min <= s <= n0 for s in sizes), f"{method}: a size outside [N_min, N0]"
            grew = any(b > a for a, b in itertools.pairwise(sizes))
            assert not grew, f"{method}: the size grew with the budget"
            for t in ts:
                frac = t if method == "linear" else t ** (1.0 - t)
                assert size(method, n0, n_min, t) == max(n_min, min(n0, round(n0 + (n_min - n0) * frac))), (
                    f"{method}: N({t}) differs from the L-SHADE / NL-SHADE-RSP schedule")

    return property_outcome(examples, test, ctx=ctx, max_examples=ctx.pick(60, 400),
                            what="population reduction follows the linear and nonlinear schedules")


def _flipped_exponent(method, n0, n_min, used_fraction):
    """The control's bug: the nonlinear schedule's exponent 1 − t written t − 1."""
    if method != "nonlinear":
        return components_module.reduced_size(method, n0, n_min, used_fraction)
    t = min(max(float(used_fraction), 0.0), 1.0)
    frac = t ** (t - 1.0) if t > 0 else 0.0
    return int(max(n_min, min(n0, round(n0 + (n_min - n0) * frac))))


# ---- certificate: the nonlinear schedule's shape. g(t) = t^(1−t) has g(0) = 0, g(1) = 1 and
# g'(t) = t^(1−t)·((1 − t)/t − ln t), a product of factors >= 0 on (0, 1]: g is non-decreasing from 0 to 1, so
# N(t) = round(N0 + (N_min − N0)·g(t)) is non-increasing from N0 to N_min (round is monotone), as the linear
# schedule (g(t) = t) trivially is.

_RT = sympy.Symbol("t", positive=True)


def _reduction_cert_prove() -> dict:
    g = _RT ** (1 - _RT)
    return {"g": str(g), "derivative": str(sympy.simplify(sympy.diff(g, _RT))),
            "factors": [str(g), str((1 - _RT) / _RT), str(-sympy.log(_RT))]}


def _reduction_cert_recheck(proof: dict) -> str:
    names = {"t": _RT}
    g = sympy.sympify(proof["g"], locals=names)
    if sympy.simplify(g - _RT ** (1 - _RT)) != 0:
        raise Rejected(f"the schedule {g} is not t^(1 − t)")
    factors = [sympy.sympify(f, locals=names) for f in proof["factors"]]
    expected = [_RT ** (1 - _RT), (1 - _RT) / _RT, -sympy.log(_RT)]
    if len(factors) != 3 or any(sympy.simplify(f - e) != 0 for f, e in zip(factors, expected, strict=True)):
        raise Rejected("the factors are not t^(1−t), (1 − t)/t and −ln t")
    derivative = sympy.sympify(proof["derivative"], locals=names)
    if sympy.simplify(sympy.diff(g, _RT) - derivative) != 0:
        raise Rejected("the recorded derivative is not g'")
    if sympy.simplify(derivative - factors[0] * (factors[1] + factors[2])) != 0:
        raise Rejected("g' is not t^(1−t)·((1 − t)/t − ln t)")
    if sympy.limit(g, _RT, 0, "+") != 0 or g.subs(_RT, 1) != 1:
        raise Rejected("g(0+) ≠ 0 or g(1) ≠ 1")
    return ("g(t) = t^(1−t): g(0+) = 0, g(1) = 1, g' = t^(1−t)·((1 − t)/t − ln t) with every factor >= 0 on "
            "(0, 1]: the nonlinear reduction is non-increasing from N0 to N_min")


def _reduction_cert_refute() -> dict:
    return {"t": "1/2"}


def _reduction_cert_recheck_witness(w: dict) -> str:
    """Control: the exponent t − 1 (g(t) = t^(t−1)) leaves [0, 1]: at t = 1/2, g² = (1/2)^(−1) = 2 > 1."""
    t = Fraction(w["t"])
    if not 0 < t < 1:
        raise Rejected("t must lie in (0, 1)")
    squared = (1 / t) ** (2 * (1 - t)) if (2 * (1 - t)).denominator == 1 else None
    if squared is None or squared <= 1:
        raise Rejected("the witness does not show g(t) > 1")
    return f"t^(t−1) at t = {t}: its square is {squared} > 1, so N(t) would undershoot N_min"


REDUCTION_CERTIFICATE = Certificate(
    statement="The nonlinear (NL-SHADE-RSP) schedule g(t) = t^(1−t) is non-decreasing on [0, 1] with "
              "g(0) = 0 and g(1) = 1, so N(t) = round(N0 + (N_min − N0)g(t)) starts at N0, ends at N_min "
              "and never increases; the linear (L-SHADE) schedule g(t) = t likewise",
    scope="every t in [0, 1], N0 >= N_min (symbolically: the sign of g' factor by factor)",
    method=Method.EXACT_ALGEBRA,
    trusts="t^(1−t) > 0, (1 − t)/t >= 0 and −ln t >= 0 on (0, 1] (elementary); sympy's differentiation, "
           "simplification and limit; round is non-decreasing",
    prove=_reduction_cert_prove,
    recheck=_reduction_cert_recheck,
    control_statement="with the exponent written t − 1 (the claim's control) the schedule stays in [0, 1]",
    refute=_reduction_cert_refute,
    recheck_witness=_reduction_cert_recheck_witness,
)


register(Claim(
    id="designx.population_reduction", paper=PAPER,
    source=f"{ARXIV}, Table 3 (POPULATION_REDUCTION: linear, L-SHADE; nonlinear, NL-SHADE-RSP)",
    origin=Origin.PAPER, covers=(TABLE3,),
    statement="For N0 in 4..400, N_min <= N0 and budget fractions t in [0, 1], the linear and nonlinear "
              "reductions give N(0) = N0, N(1) = N_min, sizes in [N_min, N0] non-increasing in t, equal to "
              "round(N0 + (N_min − N0) t) and round(N0 + (N_min − N0) t^(1 − t))",
    kind=Kind.PROPERTY, check=lambda ctx: _reduction(ctx, components_module.reduced_size),
    control=lambda ctx: _reduction(ctx, _flipped_exponent),
    control_description="the nonlinear schedule's exponent written t − 1 instead of 1 − t",
    budget_s=20,
    certificate=REDUCTION_CERTIFICATE,
    expected_verdict="certified",
))


# ---------------------------------------------------------------- designx.population_floor


def _floor_workflows() -> list[tuple[tuple[str, ...], int]]:
    """A reduced workflow per DE mutation, plus GA and PSO, with the floor each must shrink to: the L-SHADE
    floor 4, raised to partners + 1 where a DE mutation needs more distinct partners than 3."""
    runs = [(("init.uniform", "pop.50", f"de.{m}", "cx.binomial", "bc.clip", "sel.greedy", "red.linear"),
             max(4, N_PARTNERS[m] + 1)) for m in MUTATIONS]
    runs.append((("init.uniform", "pop.50", "ga.gaussian", "bc.clip", "sel.greedy", "red.nonlinear"), 4))
    runs.append((("init.uniform", "pop.50", "pso.inertia", "bc.clip", "sel.greedy", "red.linear"), 4))
    return runs


def _population_floor(ctx: Context) -> Outcome:
    budget = ctx.pick(1200, 6000)
    wrong, rows = [], []
    for i, (workflow, floor) in enumerate(_floor_workflows()):
        prob = BlackBoxProblem(lambda X: (X**2).sum(1), (-np.ones(2), np.ones(2)), budget, vectorized=True)
        sol = solve(prob, ModularOptimizer(workflow), seed=int(ctx.seed % 1000) + i, store_trace=True)
        sizes = [r["pop"] for r in sol.trace]
        # spent the whole budget, the reduction reaches its floor at t = 1 and never goes below it
        # (the trace starts after the first generation's reduction, so its first size is below 50)
        if sol.stats.f_calls != budget or sizes[-1] != floor or min(sizes) != floor or max(sizes) > 50:
            wrong.append(f"{workflow[2]}: sizes {sizes[0]}..{sizes[-1]} (min {min(sizes)}), "
                         f"expected ..{floor} after {sol.stats.f_calls} of {budget} evaluations")
        rows.append({"module": workflow[2], "floor": floor, "last": sizes[-1]})
    return Outcome("fail" if wrong else "pass",
                   f"{len(rows) - len(wrong)} of {len(rows)} reduced workflows shrink from 50 to the "
                   "smallest population their reproduction can run with" + (f"; {wrong[0]}" if wrong else ""),
                   {"runs": rows, "wrong": wrong})


def _floor_off_by_one(self) -> int:
    """The control's bug: a DE workflow's smallest population one larger than its partners need."""
    return N_PARTNERS[self.mutation] + 2 if self.family == "de" else 2


def _control_population_floor(ctx: Context) -> Outcome:
    with patched(modular_module.WorkflowPlan, "min_size", _floor_off_by_one):
        return _population_floor(ctx)


register(Claim(
    id="designx.population_floor", paper=PAPER,
    source=f"{ARXIV}, Table 3 (POPULATION_REDUCTION down to N_min; DE mutations draw distinct partners); "
           "algorithms.blackbox.modular.WorkflowPlan.min_size",
    origin=Origin.IMPLEMENTATION,
    statement="A workflow with a population-reduction module, run to its budget on a 2-D sphere from 50 "
              "individuals, ends at the smallest population its reproduction can run with and never goes "
              "below it: max(4, partners + 1) for each of the eight DE mutations (4, 5 or 6), 4 for GA and "
              "PSO",
    kind=Kind.PROPERTY, check=_population_floor, control=_control_population_floor,
    control_description="a DE workflow's smallest population one larger than its partners need "
                        "(partners + 2)",
    budget_s=20,
))


# ---------------------------------------------------------------- designx.niching_partitions


def _niching(ctx: Context, niche_fn) -> Outcome:
    examples = st.tuples(st.integers(0, 2**31 - 1), st.integers(1, 6), st.integers(2, 40), st.integers(2, 5))

    def test(example) -> None:
        seed, d, n, k = example
        k = min(k, n)
        rng = np.random.default_rng(seed)
        X, y = rng.normal(size=(n, d)), rng.normal(size=n)
        small = n // k                       # the k groups have sizes floor(n/k) or ceil(n/k)
        sizes = np.full(k, small)
        sizes[: n % k] += 1
        for method in ("random", "ranking", "distance"):
            lab = np.asarray(niche_fn(method, X, y, k, np.random.default_rng(seed)))
            assert lab.shape == (n,) and set(lab.tolist()) <= set(range(k)), (
                f"{method}: labels outside 0..k-1")
            assert np.array_equal(np.bincount(lab, minlength=k), sizes), (
                f"{method}: group sizes {np.bincount(lab)}")
            if method == "ranking":
                order = np.argsort(y, kind="stable")
                assert np.all(np.diff(lab[order]) >= 0), (
                    "ranking: a niche is not a block of consecutive ranks")
            if method == "distance":
                # replay: niche g is seeded by the best unassigned individual and takes the |g| unassigned
                # individuals nearest to it in Euclidean distance (ties have probability 0 for normal X)
                free = np.ones(n, dtype=bool)
                for g in range(k):
                    cand = np.flatnonzero(free)
                    s = cand[np.argmin(y[cand])]
                    assert lab[s] == g, f"distance: niche {g} is not seeded by the best unassigned individual"
                    dist = np.linalg.norm(X[cand] - X[s], axis=1)
                    inside = lab[cand] == g
                    later = cand[~inside]
                    if later.size:
                        assert dist[inside].max() < dist[~inside].min(), (
                            f"distance: niche {g} is not the {sizes[g]} individuals nearest to its seed")
                    free[cand[inside]] = False

    outcome = property_outcome(examples, test, ctx=ctx, max_examples=ctx.pick(60, 400),
                               what="niching partitions the population as Table 3's NICHING variants say")
    # how many niches a run asks for (modular.N_NICHES): min(3, N // (partners + 1)) for DE, so that each
    # niche holds a target and its partners, min(3, N // 2) for PSO, no split below 2 (spied, 2-D sphere)
    counts = []
    de_rand2 = ("init.uniform", "pop.20", "niche.random", "de.rand2", "cx.binomial", "bc.clip", "sel.greedy")
    de_best2 = ("init.uniform", "pop.5d", "niche.distance", "de.best2", "cx.exponential", "bc.clip",
                "sel.greedy")
    pso = ("init.uniform", "pop.20", "niche.ranking", "pso.inertia", "bc.clip", "sel.greedy")
    # 20 // 6 = 3; 10 // 5 = 2; min(3, 20 // 2) = 3
    for flow, expected in ((de_rand2, {3}), (de_best2, {2}), (pso, {3})):
        asked = set()

        def spy(method, X, y, k, rng, _asked=asked):
            _asked.add(k)
            return niche_fn(method, X, y, k, rng)

        problem = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 120)
        with patched(modular_module, "niche", spy):
            solve(problem, ModularOptimizer(flow), seed=int(ctx.seed % 1000))
        if asked != expected:
            counts.append(f"{flow[1]} {flow[3]}: niches {sorted(asked)}, expected {sorted(expected)}")
    outcome.evidence["niche_counts"] = counts or "3, 2 and 3 niches as documented"
    if counts and outcome.status == "pass":
        return Outcome("fail", f"niche counts in a run: {'; '.join(counts)}", outcome.evidence)
    return outcome


def _niche_seed_not_refreshed(method, X, y, k, rng):
    """The control's bug: every distance niche is grown around the GLOBAL best (the seed is not re-drawn
    among the still unassigned individuals), so later niches are shells around the first one."""
    if method != "distance":
        return components_module.niche(method, X, y, k, rng)
    X, y = np.asarray(X, float), np.asarray(y, float)
    n = len(X)
    sizes = np.full(k, n // k)
    sizes[: n % k] += 1
    out, free = np.full(n, -1), np.ones(n, dtype=bool)
    seed = int(np.argmin(y))
    for g in range(k):
        cand = np.flatnonzero(free)
        dist = ((X[cand] - X[seed]) ** 2).sum(1)
        take = cand[np.argsort(dist, kind="stable")[: sizes[g]]]
        out[take] = g
        free[take] = False
    return out


register(Claim(
    id="designx.niching_partitions", paper=PAPER,
    source=f"{ARXIV}, Table 3 (NICHING: random, ranking and distance-based sub-population division)",
    origin=Origin.PAPER, covers=(TABLE3,),
    deviation="Our three niching variants (random, ranking, distance) of Table 3's; the paper's tree of "
              "sub-populations is flattened to one split per generation (see the note).",
    statement="For random populations (n in 2..40, d in 1..6) and k in 2..5 niches, random, ranking and "
              "distance niching give each individual one label in 0..k−1 with group sizes ⌊n/k⌋ or ⌈n/k⌉ "
              "(the first n mod k larger); ranking niches are blocks of consecutive fitness ranks; each "
              "distance niche holds the best still unassigned individual and the unassigned individuals "
              "nearest to it in Euclidean distance; a run splits its population of N into min(3, N // "
              "(partners + 1)) niches for DE and min(3, N // 2) for PSO (20 for DE/rand/2: 3, 10 for "
              "DE/best/2: 2, 20 for PSO: 3)",
    kind=Kind.PROPERTY, check=lambda ctx: _niching(ctx, components_module.niche),
    control=lambda ctx: _niching(ctx, _niche_seed_not_refreshed),
    control_description="every distance niche grown around the global best instead of the best still "
                        "unassigned individual",
    budget_s=20,
))


# ---------------------------------------------------------------- designx.agent2_control


def _spied_operators(seen: list, wire_crossover):
    """Wrappers of the operators ``run_workflow`` calls that record the hyperparameters they receive."""
    real_de, real_cx, real_ga, real_pso = (components_module.de_mutation, components_module.crossover,
                                           components_module.ga_mutation, components_module.pso_update)
    real_es = components_module.SepCMAState.update

    def de(method, X, y, rng, **kw):
        seen.append((f"de.{method}", {k: kw[k] for k in ("F1", "F2", "p")}))
        return real_de(method, X, y, rng, **kw)

    def cx(method, X, V, Cr, rng):
        seen.append((f"cx.{method}", {"Cr": Cr}))
        return real_cx(method, X, V, Cr, rng)

    def ga(method, X, lower, upper, rng, **kw):
        name = "sigma" if method == "gaussian" else "eta"
        seen.append((f"ga.{method}", {name: kw[name]}))
        return real_ga(method, X, lower, upper, rng, **kw)

    def pso(*args, **kw):
        seen.append(("pso.inertia", {k: kw[k] for k in ("w", "c1", "c2")}))
        return real_pso(*args, **kw)

    def es(self, X, y, mu_ratio=0.5):
        seen.append(("es.sep_cmaes", {"mu_ratio": mu_ratio}))
        return real_es(self, X, y, mu_ratio)

    return {"de_mutation": de, "crossover": wire_crossover(cx), "ga_mutation": ga, "pso_update": pso}, es


def _agent2_control(ctx: Context, wire_crossover) -> Outcome:
    space = grammar_module.CONFIG_SPACE
    examples = st.tuples(st.integers(0, 2**31 - 1), st.integers(1, 5), st.integers(1, 3), st.booleans())

    def test(example) -> None:
        seed, d, interval, with_controller = example
        rng = np.random.default_rng(seed)
        # (1) decoding: [0, 1] maps onto each configuration range, affinely (lin) or geometrically (log)
        for module, params in space.items():
            a = rng.uniform(-0.3, 1.3, grammar_module.N_MAX)
            lo_cfg = grammar_module.decode_action(module, np.zeros(grammar_module.N_MAX))
            hi_cfg = grammar_module.decode_action(module, np.ones(grammar_module.N_MAX))
            got = grammar_module.decode_action(module, a)
            for j, (name, lo, hi, default, scale) in enumerate(params):
                assert lo < hi and lo <= default <= hi, (
                    f"{module}.{name}: default {default} outside [{lo}, {hi}]")
                # 1e-12 relative: exp(log) round trips and one fused multiply-add
                assert math.isclose(lo_cfg[name], lo, rel_tol=1e-12), (
                    f"{module}.{name}: action 0 -> {lo_cfg[name]}")
                assert math.isclose(hi_cfg[name], hi, rel_tol=1e-12), (
                    f"{module}.{name}: action 1 -> {hi_cfg[name]}")
                t = min(max(a[j], 0.0), 1.0)
                want = lo * (hi / lo) ** t if scale == "log" else lo + t * (hi - lo)
                assert math.isclose(got[name], want, rel_tol=1e-12, abs_tol=1e-15), (
                    f"{module}.{name}: action {a[j]:.3f} -> {got[name]}, expected {want}")
        # (2) plumbing: the decoded values (static, or from a controller every `interval` generations)
        # are exactly what the operators of a random valid workflow receive
        workflow = _random_workflow(rng)
        controllable = [m for m in workflow if m in space]

        def draw() -> dict[str, dict[str, float]]:
            return {m: grammar_module.decode_action(m, rng.uniform(0, 1, grammar_module.N_MAX))
                    for m in controllable}

        current = draw()
        calls = {"n": 0}

        def controller(obs):
            calls["n"] += 1
            current.update(draw())
            return {m: dict(v) for m, v in current.items()}

        seen: list = []
        fns, es = _spied_operators(seen, wire_crossover)
        prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(d), np.ones(d)), 400)
        plan = ModularOptimizer(workflow).plan
        ev = problem_module.Evaluator(prob)
        with contextlib.ExitStack() as stack:
            for name, fn in fns.items():
                stack.enter_context(patched(modular_module, name, fn))
            stack.enter_context(patched(components_module.SepCMAState, "update", es))
            checked = []

            def spy_check():
                # compare every recorded call with the values in force when it was made
                while seen:
                    module, cfg = seen.pop(0)
                    for k, v in cfg.items():
                        assert v == current[module][k], (
                            f"{module}.{k}: the operator got {v}, the "
                            f"{'controller' if with_controller else 'caller'} "
                            f"set {current[module][k]} ({' '.join(workflow)})")
                    checked.append(module)

            class Monitor:
                def record(self, **_):
                    spy_check()
                    return False

            hp = {m: dict(v) for m, v in current.items()}
            modular_module.run_workflow(plan, ev, np.random.default_rng(seed), hp,
                                        controller=controller if with_controller else None,
                                        maxiters=6, monitor=Monitor(), control_interval=interval)
            spy_check()
        if controllable and with_controller:
            assert calls["n"] >= 1, "the controller was never asked"
        assert set(controllable) <= set(checked) or ev.exhausted, (
            f"a controllable module never reached its operator: {sorted(set(controllable) - set(checked))}")

    outcome = property_outcome(examples, test, ctx=ctx, max_examples=ctx.pick(40, 300),
                               what="Agent 2's actions decode onto the configuration ranges and reach the "
                                    "operators")
    # without a controller or given values, each controllable module runs at its documented default
    # (grammar.CONFIG_SPACE's comment): default_hyperparameters and ModularOptimizer's own fill-in
    documented = {"F1": 0.5, "F2": 0.5, "p": 0.1, "Cr": 0.9, "sigma": 0.1, "eta": 20.0, "w": 0.7, "c1": 1.5,
                  "c2": 1.5, "mu_ratio": 0.5}
    flows = [("init.uniform", "pop.20", f"de.{m}", "cx.binomial", "bc.clip", "sel.greedy") for m in MUTATIONS]
    flows += [("init.uniform", "pop.20", "de.rand1", "cx.exponential", "bc.clip", "sel.greedy"),
              ("init.uniform", "pop.20", "ga.gaussian", "bc.clip", "sel.greedy"),
              ("init.uniform", "pop.20", "ga.polynomial", "bc.clip", "sel.greedy"),
              ("init.uniform", "pop.20", "pso.inertia", "bc.clip", "sel.greedy"),
              ("init.uniform", "pop.cma", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda")]
    off = []
    for flow in flows:
        for source, got in (("default_hyperparameters", grammar_module.default_hyperparameters(flow)),
                            ("ModularOptimizer", ModularOptimizer(flow).hyperparameters)):
            off += [f"{source}: {m}.{k} = {v}" for m, cfg in got.items() for k, v in cfg.items()
                    if v != documented[k]]
    # run_workflow given no values runs every operator at the defaults too (spied operators, 2 generations;
    # one DE mutation stands for the eight, whose defaults default_hyperparameters checked above)
    for flow in flows[:1] + flows[-5:]:
        seen: list = []
        fns, es = _spied_operators(seen, wire_crossover)
        with contextlib.ExitStack() as stack:
            for name, fn in fns.items():
                stack.enter_context(patched(modular_module, name, fn))
            stack.enter_context(patched(components_module.SepCMAState, "update", es))
            prob = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 200)
            modular_module.run_workflow(modular_module.WorkflowPlan.parse(flow),
                                        problem_module.Evaluator(prob), np.random.default_rng(ctx.seed), {},
                                        maxiters=2)
        off += [f"run_workflow without values: {m}.{k} = {v}" for m, cfg in seen for k, v in cfg.items()
                if v != documented[k]]
        if not seen:
            off.append(f"run_workflow without values: no operator call recorded for {flow}")
    covered = {m for flow in flows for m in flow if m in space}
    if covered != set(space):
        off.append(f"modules without a default checked: {sorted(set(space) - covered)}")
    outcome.evidence["documented_defaults"] = off or "every controllable module's default as documented"
    if off and outcome.status == "pass":
        return Outcome("fail", f"defaults: {off[0]}", outcome.evidence)
    return outcome


def _cr_hard_coded(cx):
    """The control's bug: the crossover rate passed on is the default 0.9 whatever was configured
    (a hyperparameter silently ignored between the controller and the operator)."""
    return lambda method, X, V, Cr, rng: cx(method, X, V, 0.9, rng)


register(Claim(
    id="designx.agent2_control", paper=PAPER,
    source=f"{ARXIV}, Section 3.2.2 (Agent 2 outputs the hyperparameters of the controllable modules) "
           "and Table 3 (their configuration spaces)",
    origin=Origin.IMPLEMENTATION,
    deviation="Agent 2's Normal is over [0, 1]^N_MAX (a sigmoid mean), decoded onto each range by our "
              "decode_action; the paper does not spell the decoding out.",
    statement="For every controllable module, decode_action maps action 0 to the lower and 1 to the upper "
              "end of its configuration range (defaults inside it), affinely (linear parameters) or "
              "geometrically (log parameters), clipping actions outside [0, 1]; in random valid workflows "
              "(d in 1..5, 6 generations) the values set statically or by a controller every 1-3 "
              "generations are exactly the F1, F2, p, Cr, σ, η, w, c1, c2 and μ-ratio the operators receive; "
              "without given values (ModularOptimizer, default_hyperparameters, and run_workflow's "
              "operators, spied) each module runs at its documented default (F1 = F2 = 0.5, p = 0.1, "
              "Cr = 0.9, σ = 0.1, η = 20, w = 0.7, c1 = c2 = 1.5, μ ratio 0.5)",
    kind=Kind.PROPERTY, check=lambda ctx: _agent2_control(ctx, lambda cx: cx),
    control=lambda ctx: _agent2_control(ctx, _cr_hard_coded),
    control_description="Cr hard-coded to its default 0.9 between run_workflow and the crossover",
    budget_s=20,
))


# ---------------------------------------------------------------- designx.sep_cmaes_update_rule


def _sep_cma_reference(m, sigma, c, ps, pc, t, X, y, mu_ratio):
    """One Sep-CMA-ES generation written from Hansen's tutorial (arXiv:1604.00772, Appendix A, the
    default strategy parameters of its Table 1) with Ros & Hansen's diagonal learning-rate factor
    (d + 2)/3; returns (m, sigma, c, ps, pc, h_sigma)."""
    lam, d = X.shape
    mu = max(1, math.ceil(mu_ratio * lam))
    raw = np.array([math.log(mu + 0.5) - math.log(i) for i in range(1, mu + 1)])
    w = raw / raw.sum()
    mueff = w.sum() ** 2 / (w**2).sum()
    c_sigma = (mueff + 2) / (d + mueff + 5)
    d_sigma = 1 + 2 * max(0.0, math.sqrt((mueff - 1) / (d + 1)) - 1) + c_sigma
    c_c = (4 + mueff / d) / (d + 4 + 2 * mueff / d)
    c_1 = (d + 2) / 3 * 2 / ((d + 1.3) ** 2 + mueff)
    c_mu = min(1 - c_1, (d + 2) / 3 * 2 * (mueff - 2 + 1 / mueff) / ((d + 2) ** 2 + mueff))
    e_norm = math.sqrt(d) * (1 - 1 / (4 * d) + 1 / (21 * d**2))   # E||N(0, I_d)||
    order = np.argsort(y, kind="stable")
    steps = [(X[i] - m) / sigma for i in order[:mu]]
    y_w = sum(wi * s for wi, s in zip(w, steps))
    m_new = m + sigma * y_w
    g = t + 1
    ps_new = (1 - c_sigma) * ps + math.sqrt(c_sigma * (2 - c_sigma) * mueff) * y_w / np.sqrt(c)
    h = float(np.linalg.norm(ps_new) / math.sqrt(1 - (1 - c_sigma) ** (2 * g)) < (1.4 + 2 / (d + 1)) * e_norm)
    pc_new = (1 - c_c) * pc + h * math.sqrt(c_c * (2 - c_c) * mueff) * y_w
    delta = (1 - h) * c_c * (2 - c_c)
    rank_mu = sum(wi * s**2 for wi, s in zip(w, steps))
    c_new = (1 - c_1 - c_mu) * c + c_1 * (pc_new**2 + delta * c) + c_mu * rank_mu
    c_new = np.clip(c_new, 1e-20, 1e20)
    sigma_new = sigma * math.exp(min(1.0, c_sigma / d_sigma * (np.linalg.norm(ps_new) / e_norm - 1)))
    return m_new, sigma_new, c_new, ps_new, pc_new, h


def _sep_update_rule(ctx: Context) -> Outcome:
    examples = st.tuples(st.integers(0, 2**31 - 1), st.integers(1, 12), st.integers(2, 24),
                         st.floats(0.1, 0.5), st.integers(0, 30), st.floats(0.0, 4.0))

    def test(example) -> None:
        seed, d, lam, mu_ratio, t, path_scale = example
        rng = np.random.default_rng(seed)
        # a random state: path lengths up to 4 chi_d (so h_sigma takes both values), skewed covariance
        state = SepCMAState(rng.normal(size=d), float(np.exp(rng.uniform(-5, 2))),
                            np.exp(rng.uniform(-3, 3, d)), path_scale * rng.normal(size=d),
                            rng.normal(size=d), t)
        X = state.sample(lam, rng)
        y = rng.permutation(lam).astype(float)
        ref = _sep_cma_reference(state.m.copy(), state.sigma, state.c.copy(), state.ps.copy(),
                                 state.pc.copy(), state.t, X, y, mu_ratio)
        state.update(X, y, mu_ratio)
        names = ("mean", "sigma", "diagonal covariance", "p_sigma", "p_c")
        for name, got, want in zip(names, (state.m, state.sigma, state.c, state.ps, state.pc), ref[:5]):
            # same float64 operations up to regrouping: 1e-10 relative covers the rounding of sums of
            # <= 24 terms and one exp; any dropped term or wrong constant changes the value by >= 1e-4
            assert np.allclose(got, want, rtol=1e-10, atol=1e-14), (
                f"{name} differs from the reference update (h_sigma = {ref[5]:.0f}, d = {d}, lambda = {lam})")
        assert state.t == t + 1, "the generation counter did not advance"

    outcome = property_outcome(
        examples, test, ctx=ctx, max_examples=ctx.pick(150, 1000),
        what="one Sep-CMA-ES generation equals the tutorial's update of every state part")
    # c_μ at its cap 1 − c_1: only for μ_eff >= about 10.8 (μ >= 19), beyond the random states' λ <= 24; the
    # populations pop.50 / pop.100 reach it. Fixed states (d, λ) = (1, 40), (2, 100), (5, 60), μ = λ/2
    capped = []
    for d_cap, lam_cap in ((1, 40), (2, 100), (5, 60)):
        rng = np.random.default_rng(ctx.seed + d_cap)
        mu = lam_cap // 2
        w = np.log(mu + 0.5) - np.log(np.arange(1, mu + 1))
        mueff = w.sum() ** 2 / (w**2).sum()
        c1 = (d_cap + 2) / 3 * 2 / ((d_cap + 1.3) ** 2 + mueff)
        if not (d_cap + 2) / 3 * 2 * (mueff - 2 + 1 / mueff) / ((d_cap + 2) ** 2 + mueff) > 1 - c1:
            capped.append(f"d = {d_cap}, λ = {lam_cap}: c_μ is not at its cap (the case tests nothing)")
        state = SepCMAState(rng.normal(size=d_cap), 0.3, np.exp(rng.uniform(-1, 1, d_cap)),
                            rng.normal(size=d_cap), rng.normal(size=d_cap), 3)
        X = state.sample(lam_cap, rng)
        y = rng.permutation(lam_cap).astype(float)
        ref = _sep_cma_reference(state.m.copy(), state.sigma, state.c.copy(), state.ps.copy(),
                                 state.pc.copy(), state.t, X, y, 0.5)
        state.update(X, y, 0.5)
        if not np.allclose(state.c, ref[2], rtol=1e-10, atol=1e-14):  # the same tolerance as above
            capped.append(f"d = {d_cap}, λ = {lam_cap}: covariance {state.c} against {ref[2]}")
    outcome.evidence["c_mu_at_its_cap"] = capped or "d = 1, 2, 5 with λ = 40, 100, 60: the reference update"
    if capped and outcome.status == "pass":
        return Outcome("fail", f"c_μ at its cap: {capped[0]}", outcome.evidence)
    # the ES family's start (documented in modular._es_start): mean at the best individual, per-
    # coordinate sd σ√c_i = width_i / 4; a box with unequal sides, [0, 4] x [0, 1], separates c from its
    # powers
    start = modular_module._es_start(np.array([[1.0, 0.5], [3.0, 0.2]]), np.array([2.0, 1.0]),
                                     np.zeros(2), np.array([4.0, 1.0]))
    start_ok = bool(np.array_equal(start.m, [3.0, 0.2]) and np.allclose(start.sigma * np.sqrt(start.c),
                                                                         [1.0, 0.25], rtol=1e-12))
    outcome.evidence["es_start_sd_is_width_over_4"] = start_ok
    if not start_ok and outcome.status == "pass":
        return Outcome("fail", f"ES start: mean {start.m}, sd {start.sigma * np.sqrt(start.c)} (want "
                       "width / 4)", outcome.evidence)
    return outcome


def _control_update_rule(ctx: Context) -> Outcome:
    with patched(components_module.SepCMAState, "_path_gain", staticmethod(
            lambda cs, mueff: math.sqrt(cs * (2 - cs)))):
        return _sep_update_rule(ctx)


register(Claim(
    id="designx.sep_cmaes_update_rule", paper=PAPER,
    source="Hansen, The CMA Evolution Strategy: A Tutorial, arXiv:1604.00772 (Appendix A and Table 1: "
           "default parameters, CSA, h_sigma); Ros & Hansen, PPSN 2008 (diagonal learning rates "
           "× (d + 2)/3); "
           f"the Sep-CMA-ES module of {ARXIV} Table 3",
    origin=Origin.PRIOR,
    statement="For random Sep-CMA-ES states (d in 1..12, λ in 2..24, μ = ⌈rλ⌉ with r in [0.1, 0.5], "
              "generation 0..30, ‖p_σ‖ up to about 4√d so that h_σ takes both values) and random rankings, "
              "one update gives the mean, σ, the diagonal covariance and both evolution paths of the "
              "tutorial's update with log weights, c_σ = (μ_eff + 2)/(d + μ_eff + 5), "
              "d_σ = 1 + 2 max(0, √((μ_eff − 1)/(d + 1)) − 1) + c_σ, c_c = (4 + μ_eff/d)/(d + 4 + 2μ_eff/d), "
              "c_1, c_μ scaled by (d + 2)/3 and the h_σ stall of the rank-one path, to 1e-10 (also on "
              "fixed states where c_μ meets its cap 1 − c_1: d = 1, 2, 5 with λ = 40, 100, 60); and the ES "
              "family starts at the best individual with per-coordinate sd σ√c = width / 4 (box [0, 4] x "
              "[0, 1])",
    kind=Kind.PROPERTY, check=_sep_update_rule, control=_control_update_rule,
    control_description="p_σ accumulated with √(c_σ(2 − c_σ)) instead of √(c_σ(2 − c_σ)μ_eff) "
                        "(the μ_eff of the weighted mean forgotten)",
    budget_s=20,
))


# ---------------------------------------------------------------- designx.landscape_features

FEATURE_D, FEATURE_N, FEATURE_REPS = 5, 200, 10


def _landscape_features(ctx: Context, ela) -> Outcome:
    lo, hi = -5 * np.ones(FEATURE_D), 5 * np.ones(FEATURE_D)
    noise, exact_ok, sphere_ok = [], True, True
    sphere = []
    for r in range(FEATURE_REPS):
        rng = np.random.default_rng([ctx.seed, r])
        X = initialize("lhs", FEATURE_N, lo, hi, rng)
        c = rng.uniform(-2, 2, FEATURE_D)
        lin = ela(X, X @ rng.normal(size=FEATURE_D) + 3.0, lo, hi)
        quad = ela(X, ((X - c) ** 2) @ (10.0 ** np.arange(FEATURE_D)), lo, hi)
        # exact fits: R² = 1 and the axis-scale ratio 1e4 give 1 and log10(1e4)/10 = 0.4 up to the
        # rounding of a 200 x 11 least-squares solve (1e-9)
        exact_ok &= bool(abs(lin[0] - 1) < 1e-9 and abs(lin[1] - 1) < 1e-9 and abs(quad[1] - 1) < 1e-9
                         and abs(quad[2] - 0.4) < 1e-6)
        noise.append(ela(X, rng.random(FEATURE_N), lo, hi))
        s = ela(X, ((X - c) ** 2).sum(1), lo, hi)
        sphere.append(s)
        sphere_ok &= bool(s[5] < -0.2 and s[6] > 0.6)
    # no landscape to describe: a constant f, or fewer than 2d + 2 points, gives the zero vector (the
    # documented degenerate case; a NaN state would reach Agent 1), and 2d + 2 points of a linear f do not
    Xs = initialize("lhs", 2 * FEATURE_D + 2, lo, hi, np.random.default_rng([ctx.seed, FEATURE_REPS]))
    flat = ela(X, np.full(FEATURE_N, 7.0), lo, hi)
    short = ela(Xs[:-1], Xs[:-1].sum(1), lo, hi)
    enough = ela(Xs, Xs.sum(1), lo, hi)
    degenerate_ok = bool(flat.shape == short.shape == enough.shape == (9,) and np.all(flat == 0.0)
                         and np.all(short == 0.0) and abs(enough[0] - 1) < 1e-9)
    # a 5 x 5 grid spanning the box and f = x_1: each point's nearest better point is the grid neighbour one
    # step lower in x_1, at the nearest-neighbour distance, so the nearest-better ratio is 1 (feature 1/10)
    g = np.linspace(-5.0, 5.0, 5)
    G = np.array([[a, b] for a in g for b in g])
    nbc = float(ela(G, G[:, 0], -5 * np.ones(2), 5 * np.ones(2))[7])
    degenerate_ok &= abs(nbc - 0.1) <= 1e-12
    # dispersion by hand: 30 equally spaced points on a line, f = x: the best ⌊30/10⌋ = 3 are 0, 1, 2
    # (mean pairwise distance 4/3) against a mean pairwise distance (n + 1)/3 = 31/3 over all, so the
    # feature is 4/31 − 1
    line = np.arange(30.0)[:, None]
    disp = float(ela(line, line[:, 0], np.zeros(1), np.full(1, 29.0))[5])
    degenerate_ok &= abs(disp - (4 / 31 - 1)) <= 1e-12
    # the clips of the y-distribution features, by hand: one value 1 among 29 zeros has skewness
    # 28/√29 ≈ 5.2 and excess kurtosis 813/29 − 3 ≈ 25.0, beyond the clips at 5 and 20, so the features
    # are 5/5 = 1 and 20/20 = 1; the mirrored spike (−1) has skewness feature −1
    spike = np.zeros(30)
    spike[0] = 1.0
    up, down = (ela(line, v, np.zeros(1), np.full(1, 29.0)) for v in (spike, -spike))
    clips = (float(up[3]), float(up[4]), float(down[3]))
    degenerate_ok &= clips == (1.0, 1.0, -1.0)
    N = np.array(noise)
    m = N.mean(0)
    # y independent of x (uniform noise): no structure to find. Tolerances are ~4 standard errors of
    # the mean of 10 replicates (per-replicate sd measured at seed 0: dispersion 0.034, fdc 0.10, local
    # minima 0.018, skewness 0.022, kurtosis feature 0.0036): dispersion 0 and fdc 0; a point is the
    # smallest of itself and its 5 nearest neighbours with probability exactly 1/6; a uniform y has
    # skewness 0 and excess kurtosis -1.2 (feature -1.2/20 = -0.06)
    # an R² is a fraction of variance: in [0, 1] on noise too
    noise_ok = (bool(np.all((N[:, :2] >= 0) & (N[:, :2] <= 1))) and abs(m[5]) < 0.05 and abs(m[6]) < 0.12
                and abs(m[8] - 1 / 6) < 0.02 and abs(m[3]) < 0.03 and abs(m[4] + 0.06) < 0.006)
    S = np.array(sphere)
    out = fact(bool(exact_ok and noise_ok and sphere_ok and degenerate_ok),
               "the ELA features take their defining values: R² = 1 for linear and separable quadratic f, "
               "the quadratic's scale ratio, no dispersion / fitness-distance correlation and 1/6 local "
               "minima on noise, clustered best points and a positive FDC on a sphere, the nearest-better "
               "ratio 1 on a grid, the zero vector without a landscape")
    out.evidence.update(exact_fits=bool(exact_ok), degenerate_and_grid=bool(degenerate_ok),
                        grid_nearest_better_feature=figure(nbc, 6), line_dispersion=figure(disp, 6),
                        spike_skew_kurt_clips=[figure(c, 6) for c in clips],
                        noise_mean={"dispersion": figure(m[5], 3), "fdc": figure(m[6], 3),
                                    "local_minima": figure(m[8], 3), "skewness": figure(m[3], 3),
                                    "kurtosis_feature": figure(m[4], 3)},
                        sphere_max_dispersion=figure(S[:, 5].max(), 3),
                        sphere_min_fdc=figure(S[:, 6].min(), 3))
    return out


def _dispersion_without_offset(X, y, lower, upper):
    """The control's bug: dispersion reported as the ratio of mean distances, its "- 1" dropped (so a
    structureless landscape reads 1 instead of 0)."""
    f = features_module.ela_features(X, y, lower, upper)
    f[5] += 1.0
    return f


register(Claim(
    id="designx.landscape_features", paper=PAPER,
    source="Mersmann et al., Exploratory landscape analysis, GECCO 2011 (meta-model R², y-distribution, "
           "dispersion, FDC, local-minima features); Lunacek & Whitley 2006 (dispersion); "
           f"the ELA state of Agent 1, {ARXIV} Section 3.2.1",
    origin=Origin.PRIOR,
    deviation="Our 9 features are cheap analogues of the families the paper draws its 9 ELA features from "
              "(its Appendix B.1 list is not reproduced); checked on synthetic landscapes with known values.",
    statement="On a 200-point LHS sample of [-5, 5]^5 (10 replicates): a linear f has linear and quadratic "
              "R² = 1; Σ 10^(i−1)(x_i − c_i)² has quadratic R² = 1 and conditioning feature log10(1e4)/10; "
              "uniform noise has R² in [0, 1], mean dispersion ≈ 0, FDC ≈ 0, local-minima fraction ≈ 1/6, "
              "skewness ≈ 0 and kurtosis feature ≈ −0.06; a sphere has dispersion < −0.2 and FDC > 0.6 in "
              "every replicate; a constant f, or 2d + 1 points, give the zero vector of 9 features (2d + 2 "
              "points of a linear f do not); on a 5 x 5 grid with f = x_1 the nearest-better feature (mean "
              "nearest-better over mean nearest-neighbour distance, / 10) is 1/10 to 1e-12; on 30 equally "
              "spaced points of a line with f = x the dispersion (of the best ⌊n/10⌋ points) is 4/31 − 1 "
              "to 1e-12, and one spike among 29 zeros gives skewness and kurtosis features clipped to 1 "
              "(skewness 5.2 > 5, excess kurtosis 25 > 20; −1 for the mirrored spike)",
    kind=Kind.NUMERIC,
    check=lambda ctx: _landscape_features(ctx, features_module.ela_features),
    control=lambda ctx: _landscape_features(ctx, _dispersion_without_offset),
    control_description="dispersion reported without its − 1 (the ratio instead of the excess)",
    budget_s=20,
))


# ---------------------------------------------------------------- designx.normalized_regret


def _regret(ctx: Context, regret) -> Outcome:
    examples = st.tuples(st.floats(-1e3, 1e3), st.floats(1e-3, 1e3), st.floats(-2.0, 5.0),
                         st.floats(1e-2, 1e2), st.floats(-1e3, 1e3))

    def test(example) -> None:
        fstar, gap, t, a, b = example
        f_ref = fstar + gap
        if not f_ref > fstar:
            return
        p = BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=fstar, f_ref=f_ref)
        q = BlackBoxProblem(lambda x: 0.0, ([0.0], [1.0]), 5, optimum=a * fstar + b, f_ref=a * f_ref + b)
        assert regret(fstar, p) == 0.0, "the optimum has regret != 0"
        assert math.isclose(regret(f_ref, p), 1.0, rel_tol=1e-9), "f_ref has regret != 1"
        v = fstar + t * gap
        r = regret(v, p)
        # 1e-9 relative (+1e-9 absolute near f*): float rounding of |f*| <= 1e3 against gaps >= 1e-3
        assert math.isclose(r, max(0.0, t), rel_tol=1e-9, abs_tol=1e-9), (
            f"regret {r} at (f − f*)/(f_ref − f*) = {t}")
        assert math.isclose(regret(a * v + b, q), r, rel_tol=1e-7, abs_tol=1e-7), (
            "the regret changed under f -> a f + b (a > 0)")

    out = property_outcome(examples, test, ctx=ctx, max_examples=ctx.pick(100, 1000),
                           what="the normalized regret is 0 at f*, 1 at f_ref, affine in f and invariant "
                                "to f -> a f + b")
    if out.status != "pass":
        return out
    # on BBOB, f_ref is a typical random point: about half of fresh uniform points have regret < 1
    fracs = []
    for fid in (1, 8, 15, 21):
        prob = bbob_problem(fid, 1, 5, 100)
        X = ctx.rng(f"regret{fid}").uniform(prob.lower, prob.upper, (400, 5))
        vals = [regret(float(v), prob) for v in np.asarray(prob.f(X), dtype=float).reshape(-1)]
        fracs.append(float(np.mean(np.array(vals) < 1.0)))
    # 400 fresh points: the fraction below the median of 1000 others has sd ~ sqrt(.25/400 + .25/1000)
    # ~ 0.03; 0.35-0.65 is 5 sd
    ok = all(0.35 <= f <= 0.65 for f in fracs)
    # bbob_problem's documented reference and target, replayed: the box [-5, 5]^d, f_ref the median of f
    # over 1000 uniform points drawn with seed 1000·fid + instance, target f* + target_precision
    prob = bbob_problem(8, 3, 4, 100, target_precision=1e-6)
    sample = np.random.default_rng(8003).uniform(-5.0, 5.0, (1000, 4))
    ok &= bool(prob.f_ref == float(np.median(np.asarray(prob.f(sample), dtype=float)))
               and prob.target == prob.optimum + 1e-6
               and np.all(prob.lower == -5.0) and np.all(prob.upper == 5.0))
    res = fact(ok, "the normalized regret is 0 at f*, 1 at f_ref and invariant to f -> a f + b "
               f"({ctx.pick(100, 1000)} drawn cases), and on BBOB f1/f8/f15/f21 (5-D) fresh "
               "uniform points have regret < 1 about half the time; bbob_problem's f_ref and target as "
               "documented (f8, instance 3, 4-D)",
               min_fraction_below_1=min(fracs), max_fraction_below_1=max(fracs))
    res.evidence["fraction_below_1"] = [figure(f, 3) for f in fracs]
    return res


def _regret_unnormalized(value, problem):
    """The control's bug: the regret f − f* without its division by f_ref − f*."""
    return max(0.0, float(value) - problem.optimum)


# ---- certificate: the definition's algebra. With r(f) = max(0, (f − f*)/(f_ref − f*)), f_ref > f*:
# r(f*) = 0, r(f_ref) = 1, and under f ↦ af + b (a > 0) the ratio (af + b − af* − b)/(af_ref + b − af* − b)
# cancels to the original one, so the clipped regret is unchanged.

_R = sympy.symbols("f fs fr a b", real=True)


def _regret_cert_prove() -> dict:
    f, fs, fr, a, b = _R
    ratio = (f - fs) / (fr - fs)
    transformed = ((a * f + b) - (a * fs + b)) / ((a * fr + b) - (a * fs + b))
    return {"ratio": str(ratio), "transformed": str(transformed),
            "difference_numerator": str(sympy.numer(sympy.together(transformed - ratio)))}


def _regret_cert_recheck(proof: dict) -> str:
    f, fs, fr, a, b = _R
    names = dict(zip(("f", "fs", "fr", "a", "b"), _R, strict=True))
    ratio, transformed = (sympy.sympify(proof[k], locals=names) for k in ("ratio", "transformed"))
    if sympy.cancel(ratio - (f - fs) / (fr - fs)) != 0:
        raise Rejected("the artifact's ratio is not (f − f*)/(f_ref − f*)")
    if sympy.cancel(transformed - ((a * f + b) - (a * fs + b)) / ((a * fr + b) - (a * fs + b))) != 0:
        raise Rejected("the artifact's transformed ratio is not that of af + b")
    if sympy.expand(sympy.sympify(proof["difference_numerator"], locals=names)) != 0:
        raise Rejected("the recorded numerator of transformed − ratio is not 0")
    if sympy.cancel(transformed - ratio) != 0:
        raise Rejected("the transformed ratio differs from the original")
    if ratio.subs(f, fs) != 0 or sympy.cancel(ratio.subs(f, fr) - 1) != 0:
        raise Rejected("r(f*) ≠ 0 or r(f_ref) ≠ 1")
    # a > 0 keeps the sign of the ratio, so the clip max(0, ·) commutes with the map: identical regrets
    return ("(f − f*)/(f_ref − f*) is 0 at f*, 1 at f_ref and identical after f ↦ af + b for every a ≠ 0, "
            "b (the clip at 0 then agrees for a > 0): the regret is affine-invariant")


def _regret_cert_refute() -> dict:
    return {"f": "1", "fs": "0", "fr": "2", "unnormalized": True}


def _regret_cert_recheck_witness(w: dict) -> str:
    """Control: the unnormalized regret f − f* is not invariant to f ↦ 2f (a = 2, b = 0)."""
    f, fs, fr = (Fraction(w[k]) for k in ("f", "fs", "fr"))
    if not fr > fs:
        raise Rejected("needs f_ref > f*")
    before, after = f - fs, 2 * f - 2 * fs
    if before == after:
        raise Rejected("the unnormalized regret agrees at this point")
    return f"f − f* = {before} but 2f − 2f* = {after}: the unnormalized regret changes under f ↦ 2f"


REGRET_CERTIFICATE = Certificate(
    statement="normalized_regret's formula r(f) = max(0, (f − f*)/(f_ref − f*)) satisfies r(f*) = 0, "
              "r(f_ref) = 1 and r is unchanged when f, f* and f_ref are all mapped by f ↦ af + b, a > 0",
    scope="every real f, f* < f_ref, a > 0, b (symbolically)",
    method=Method.EXACT_ALGEBRA,
    trusts="sympy's rational-function cancellation",
    prove=_regret_cert_prove,
    recheck=_regret_cert_recheck,
    control_statement="the unnormalized regret f − f* is affine-invariant too",
    refute=_regret_cert_refute,
    recheck_witness=_regret_cert_recheck_witness,
)


register(Claim(
    id="designx.normalized_regret", paper=PAPER,
    source=f"{ARXIV}, Table 1 (performance reported as the cost normalized between the optimum and a "
           "reference, averaged over problems)",
    origin=Origin.IMPLEMENTATION,
    deviation="Our reference f_ref is the median of 1000 seeded uniform points (the paper normalizes by "
              "the initial population's best, f*_0); the same role: a scale that makes problems comparable.",
    statement="normalized_regret(f) = max(0, (f − f*)/(f_ref − f*)) is 0 at f*, 1 at f_ref, invariant to "
              "f -> a f + b (a > 0) for random f* in [-1e3, 1e3] and gaps 1e-3..1e3; on BBOB f1/f8/f15/f21 "
              "(5-D, instance 1) between 35 % and 65 % of fresh uniform points have regret below 1; "
              "bbob_problem(8, 3, 4, ·) has the box [-5, 5]^4, f_ref the median of f over 1000 uniform "
              "points drawn with seed 1000·fid + instance, and target f* + target_precision",
    kind=Kind.PROPERTY, check=lambda ctx: _regret(ctx, problem_module.normalized_regret),
    control=lambda ctx: _regret(ctx, _regret_unnormalized),
    control_description="the regret f − f* left unnormalized (the division by f_ref − f* dropped)",
    budget_s=20,
    certificate=REGRET_CERTIFICATE,
    expected_verdict="certified",
))


# ---------------------------------------------------------------- designx.reward_telescopes


def _log_regret_rewards():
    from algorithms.blackbox.designx import log_regret_rewards

    return log_regret_rewards


def _unnormalized_rewards(episode, optimum: float, floor: float = 1e-8) -> np.ndarray:
    """The control's rewards: the log-regret improvements without the normalization by ℓ₀ − log10 ε."""
    ell = lambda v: math.log10(max(v - optimum, 0.0) + floor)  # noqa: E731
    prev, out = ell(episode.start_best), []
    for b in episode.best_after:
        out.append(prev - ell(b))
        prev = ell(b)
    return np.asarray(out)


def _check_rewards(ctx: Context, rewards_of) -> Outcome:
    """Agent 2's per-step rewards on best-so-far sequences: they telescope to the normalized total
    improvement, a run that reaches f* earns exactly 1, a run that never improves earns 0."""
    from algorithms.blackbox.designx import Episode

    rng = ctx.rng("rewards")
    optimum, floor = 3.0, 1e-8
    ell = lambda v: math.log10(v - optimum + floor)  # noqa: E731
    worst, rows = 0.0, []
    for case in range(6):
        start = optimum + 10.0 ** rng.uniform(-2, 3)
        steps = rng.integers(3, 12)
        # a nonincreasing best-so-far; the last two cases end at f* exactly and never improve
        gaps = np.minimum.accumulate((start - optimum) * 10.0 ** -rng.uniform(0, 1.5, size=steps).cumsum())
        if case == 4:
            gaps[-1] = 0.0
        if case == 5:
            gaps[:] = start - optimum
        episode = Episode(workflow=(), logp1=torch.zeros(()), entropy1=torch.zeros(()),
                          best_after=list(optimum + gaps), start_best=start)
        r = np.asarray(rewards_of(episode, optimum, floor))
        expected = (ell(start) - ell(optimum + gaps[-1])) / (ell(start) - math.log10(floor))
        # float64 sums of <= 12 terms of size <= 1: 1e-12
        worst = max(worst, abs(float(r.sum()) - expected), 0.0 if r.size == steps else math.inf)
        rows.append({"steps": int(steps), "return": figure(float(r.sum()), 6),
                     "expected": figure(expected, 6), "min_reward": figure(float(r.min()), 3)})
        if float(r.min()) < -1e-12:
            worst = math.inf
    # the edges of the domain, by hand: a start 1e-14 above f* that reaches it (ℓ₀ − log10 ε = 4.3e-7,
    # below any fixed floor on the divisor a guard might use) earns exactly 1 over two steps; a start
    # at f* earns 0 per step, without a division by ℓ₀ − log10 ε = 0
    for start, gaps, expected in ((optimum + 1e-14, [4e-15, 0.0], 1.0), (optimum, [0.0, 0.0, 0.0], 0.0)):
        episode = Episode(workflow=(), logp1=torch.zeros(()), entropy1=torch.zeros(()),
                          best_after=[optimum + g for g in gaps], start_best=start)
        r = np.asarray(rewards_of(episode, optimum, floor))
        worst = max(worst, abs(float(r.sum()) - expected), 0.0 if r.size == len(gaps) else math.inf)
        rows.append({"steps": len(gaps), "return": figure(float(r.sum()), 6), "expected": expected,
                     "min_reward": figure(float(r.min()), 3)})
    ok = worst <= 1e-12
    return Outcome("pass" if ok else "fail",
                   "per-step rewards telescope to (ℓ₀ − ℓ_T)/(ℓ₀ − log10 ε), 1 at f*, 0 without "
                   f"improvement: max error {worst:.3g} ({'<=' if ok else '>'} 1e-12)", {"episodes": rows})


register(Claim(
    id="designx.reward_telescopes", paper=PAPER,
    source="Section 3.3 (Agent 2's per-step reward: the improvement of the best-so-far, normalized), in our "
           "log-regret form (see the note's departures); algorithms.blackbox.designx.log_regret_rewards",
    origin=Origin.IMPLEMENTATION,
    statement="For any nonincreasing best-so-far sequence, the per-step rewards r_t = (ℓ_{t−1} − ℓ_t)/(ℓ₀ − "
              "log10 ε), ℓ = log10(f_best − f* + ε), are >= 0 and sum to (ℓ₀ − ℓ_T)/(ℓ₀ − log10 ε): a run "
              "that reaches f* earns exactly 1 and one that never improves 0 (6 random sequences, 1e-12); "
              "also a start 1e-14 above f* that reaches f* earns 1 and a start at f* earns 0 per step",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_rewards(ctx, _log_regret_rewards()),
    control=lambda ctx: _check_rewards(ctx, _unnormalized_rewards),
    control_description="the rewards without the normalization by ℓ₀ − log10 ε (a run reaching f* then "
                        "earns ℓ₀ − log10 ε, not 1)",
))


# ---------------------------------------------------------------- designx.agent2_sampling

_REAL_AGENT2_FORWARD = HyperparameterController.forward


@contextlib.contextmanager
def _one_torch_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the agents are tiny: two contended threads only cost CPU time
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def _agent2_sampling(ctx: Context) -> Outcome:
    """Stochastic episodes of the shipped agents; every recorded action standardized by the Normal that
    Agent 2 outputs for its recorded observation (recomputed, unpatched), and its log-probability."""
    from algorithms.blackbox.designx import run_episode

    agent1, agent2 = load_agents()
    standardized, worst_lp, steps, bookkeeping = [], 0.0, 0, []
    with _one_torch_thread():
        for k in range(3):
            prob = BlackBoxProblem(lambda X: (X**2).sum(1), (-np.ones(2), np.ones(2)), 400, vectorized=True)
            seed = int(ctx.seed % 2**31) + k
            episode = run_episode(prob, agent1, agent2, np.random.default_rng(seed),
                                  generator=torch.Generator().manual_seed(seed), stochastic=True)
            for obs, action, lp in zip(episode.obs, episode.actions, episode.logp2, strict=True):
                with torch.no_grad():
                    mean, std, _ = _REAL_AGENT2_FORWARD(agent2, episode.workflow,
                                                        torch.as_tensor(obs, dtype=torch.float32)[None])
                a = torch.as_tensor(action)
                standardized.extend(((a - mean[0]) / std[0]).reshape(-1).tolist())
                density = float(torch.distributions.Normal(mean[0], std[0]).log_prob(a).sum())
                worst_lp = max(worst_lp, abs(lp - density))
                steps += 1
            # the episode's bookkeeping, which training reads: one action, log-probability, value and
            # best-after per control step; the bests never increase from the first control step's, and
            # the last one is the run's best
            n = len(episode.obs)
            bests = [episode.start_best, *episode.best_after]
            if (n == 0 or {len(episode.actions), len(episode.logp2), len(episode.values),
                           len(episode.best_after)} != {n}
                    or any(b > a for a, b in itertools.pairwise(bests))
                    or episode.best_after[-1] != episode.evaluator.best_value):
                bookkeeping.append(f"episode {k}: {n} steps, {len(episode.best_after)} bests after")
    u = np.asarray(standardized)
    p = float(sstats.kstest(u, "norm").pvalue)
    # p >= 1e-4: a false alarm once in 10^4 runs of a correct sampler; the log-probability is a float32 sum
    # of <= 9 terms of size ~1-10, so 1e-4 is ~100 ulps
    ok = p >= 1e-4 and worst_lp <= 1e-4 and not bookkeeping
    return Outcome("pass" if ok else "fail",
                   f"{u.size} action coordinates over {steps} control steps: standardized actions vs "
                   f"N(0, 1) KS p = {p:.3g} ({'>=' if p >= 1e-4 else '<'} 1e-4), log-probability error "
                   f"{worst_lp:.2g} ({'<=' if worst_lp <= 1e-4 else '>'} 1e-4); episode bookkeeping "
                   f"{'; '.join(bookkeeping) or 'one record per control step'}",
                   {"coordinates": int(u.size), "steps": steps, "ks_p": figure(p, 3),
                    "mean": figure(float(u.mean()), 3), "sd": figure(float(u.std()), 3),
                    "max_logprob_error": figure(worst_lp, 3)})


def _doubled_std_forward(self, workflow, obs):
    """The control's bug: the sampler's std twice the policy's (e.g. a variance read as a std)."""
    mean, std, value = _REAL_AGENT2_FORWARD(self, workflow, obs)
    return mean, 2.0 * std, value


def _control_agent2_sampling(ctx: Context) -> Outcome:
    with patched(HyperparameterController, "forward", _doubled_std_forward):
        return _agent2_sampling(ctx)


register(Claim(
    id="designx.agent2_sampling", paper=PAPER,
    source=f"{ARXIV}, Sections 3.2.2 and 3.3 (Agent 2 outputs a Normal over each controllable module's "
           "hyperparameters; PPO trains it on the sampled actions' log-probabilities); "
           "algorithms.blackbox.designx.run_episode",
    origin=Origin.IMPLEMENTATION,
    statement="In stochastic (training) episodes each of Agent 2's actions is a draw from the "
              "Normal(mean, std) its network outputs for the recorded observation, and the recorded "
              "log-probability is that Normal's log-density: over 3 episodes of the shipped agents on a 2-D "
              "sphere (budget 400), the standardized actions (a − mean)/std pass a Kolmogorov-Smirnov test "
              "against N(0, 1) at p >= 1e-4 and the log-probabilities agree to 1e-4; each episode records "
              "one action, log-probability, value and best-so-far per control step, the bests non-increasing "
              "from the first control step's and ending at the run's best",
    kind=Kind.NUMERIC, check=_agent2_sampling, control=_control_agent2_sampling,
    control_description="actions drawn with twice the policy's std (their log-probabilities under that std)",
    budget_s=20,
))


# ---------------------------------------------------------------- designx.input_domains


def _zero_regret(value: float) -> None:
    if value != 0.0:
        raise ValueError(f"value: the regret of f* is {value}, not 0")


def _designx_domain_cases() -> list:
    """(label, call, at a closed end, expected refusal (type, argument) or None)."""
    from algorithms.blackbox.designx import DesignX, log_regret_rewards
    from algorithms.blackbox.features import ela_features

    def box(**kw):
        return BlackBoxProblem(lambda x: float(np.sum(x**2)), ([0.0, 0.0], [1.0, 1.0]), 20, **kw)

    X = np.random.default_rng(0).random((30, 2))
    cx_flow = ("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")

    def evaluate_returning(value):  # one evaluation of an f that returns `value` (Evaluator's f(x) check)
        prob = BlackBoxProblem(lambda x: value, ([0.0], [1.0]), 5)
        got = problem_module.Evaluator(prob)(np.zeros((1, 1)))
        if got.tolist() != [float(value)]:
            raise ValueError(f"f(x) returned {value!r}, evaluated as {got.tolist()}")

    from algorithms.blackbox.designx import DEFAULT_CHECKPOINT as shipped

    def run_interval(k):
        plan = modular_module.WorkflowPlan.parse(cx_flow)
        modular_module.run_workflow(plan, problem_module.Evaluator(box()), np.random.default_rng(0),
                                    grammar_module.default_hyperparameters(cx_flow), control_interval=k)

    def reaches_target_at_equality():  # the target is reached by a value equal to it (best <= target)
        ev = problem_module.Evaluator(BlackBoxProblem(lambda x: 1.0, ([0.0], [1.0]), 5, optimum=0.0,
                                                      target=1.0))
        ev(np.zeros((1, 1)))
        if not ev.target_reached():
            raise ValueError("target: a best value equal to the target does not reach it")

    def same_workflow(got):  # validate's documented result: the workflow without its "end" token
        if got != cx_flow:
            raise ValueError(f"validate returned {got}, not the workflow {cx_flow}")

    return [
        ("PSO with w = 0.2", lambda: PSO(w=0.2), True, None),
        ("CMA-ES with popsize 2 (pycma's minimum)", lambda: CMAES(popsize=2), True, None),
        ("scipy DE with recombination 0 and 1, dithering (0.7, 0.7)",
         lambda: (ScipyDE(recombination=0.0), ScipyDE(recombination=1.0), ScipyDE(mutation=(0.7, 0.7))), True,
         None),
        ("CMA-ES with popsize 1", lambda: CMAES(popsize=1), False, (ValueError, "popsize")),
        ("scipy DE with recombination 1.01", lambda: ScipyDE(recombination=1.01), False,
         (ValueError, "recombination")),
        ("scipy DE with dithering (1.5, 0.5) (lo > hi)", lambda: ScipyDE(mutation=(1.5, 0.5)), False,
         (ValueError, "mutation")),
        ("scipy DE with a dithering triple", lambda: ScipyDE(mutation=(0.5, 1.0, 1.5)), False,
         (ValueError, "mutation")),
        ("a workflow that ends with the end token", lambda: same_workflow(validate((*cx_flow, END))), False,
         None),
        ("hyperparameter Cr = 1 (the top of its range)",
         lambda: ModularOptimizer(cx_flow, hyperparameters={"cx.binomial": {"Cr": 1.0}}), True, None),
        ("a module outside the space (rule R11, not the rule of the next step)",
         lambda: validate(("init.uniform", "pop.20", "de.bogus", "cx.binomial", "bc.clip", "sel.greedy")),
         False, (InvalidWorkflowError, "rule R11")),
        ("hyperparameter Cr = 1.5 (out of its range [0, 1])",
         lambda: ModularOptimizer(cx_flow, hyperparameters={"cx.binomial": {"Cr": 1.5}}), False,
         (ValueError, "['Cr']")),
        ("PSO with c1 = 0 and c2 = 2.5", lambda: PSO(c1=0.0, c2=2.5), True, None),
        ("PSO with a swarm of 2", lambda: PSO(swarm=2), True, None),
        ("a target equal to the optimum", lambda: box(optimum=1.0, target=1.0), True, None),
        ("the regret of f* itself", lambda: _zero_regret(normalized_regret(1.0, box(optimum=1.0, f_ref=2.0))),
         True, None),
        ("BBOB in dimension 2", lambda: bbob_problem(1, 1, 2, 10), True, None),
        ("BBOB function 24", lambda: bbob_problem(24, 1, 2, 10), True, None),
        ("ELA features of (n, d) samples", lambda: ela_features(X, X.sum(1), np.zeros(2), np.ones(2)), True,
         None),
        ("scipy DE with mutation 0 and dithering (0, 1.999)",
         lambda: (ScipyDE(mutation=0.0), ScipyDE(mutation=(0.0, 1.999))), True, None),
        ("DesignX with the shipped checkpoint (None)", lambda: DesignX(), True, None),
        ("crossover with Cr = 1 (an int)",
         lambda: crossover("binomial", np.eye(3), np.ones((3, 3)), 1, np.random.default_rng(0)), True, None),
        ("PSO with w = 0.19", lambda: PSO(w=0.19), False, (ValueError, "w")),
        ("PSO with c1 = 2.6", lambda: PSO(c1=2.6), False, (ValueError, "c1")),
        ("PSO with a swarm of 1", lambda: PSO(swarm=1), False, (ValueError, "swarm")),
        ("a target below the optimum", lambda: box(optimum=1.0, target=0.5), False, (ValueError, "target")),
        ("f_ref equal to the optimum", lambda: box(optimum=1.0, f_ref=1.0), False, (ValueError, "f_ref")),
        ("a regret without an optimum", lambda: normalized_regret(1.0, box(f_ref=2.0)), False,
         (ValueError, "optimum")),
        ("BBOB in dimension 1", lambda: bbob_problem(1, 1, 1, 10), False, (ValueError, "dim")),
        ("BBOB with dim = 2.0", lambda: bbob_problem(1, 1, 2.0, 10), False, (ValueError, "dim")),
        ("ELA bounds of the wrong length", lambda: ela_features(X, X.sum(1), np.zeros(3), np.ones(3)), False,
         (ValueError, "lower")),
        ("rewards of a non-episode", lambda: log_regret_rewards("episode", 0.0), False,
         (TypeError, "episode")),
        # scipy's own range is [0, 2): 2 must be refused here, naming the argument, not inside scipy
        ("scipy DE with mutation 2", lambda: ScipyDE(mutation=2.0), False, (ValueError, "mutation")),
        ("scipy DE with dithering (0.5, 2)", lambda: ScipyDE(mutation=(0.5, 2.0)), False,
         (ValueError, "mutation")),
        ("crossover with Cr = True (a bool, not a rate)",
         lambda: crossover("binomial", np.eye(3), np.ones((3, 3)), True, np.random.default_rng(0)), False,
         (ValueError, "Cr")),
        ("DesignX with a checkpoint that is not a path", lambda: DesignX(checkpoint=3), False,
         (TypeError, "checkpoint")),
        ("crossover with Cr = 1.01", lambda: crossover("binomial", np.eye(3), np.ones((3, 3)), 1.01,
                                                       np.random.default_rng(0)), False, (ValueError, "Cr")),
        ("negative group labels", lambda: de_mutation("rand1", np.eye(6), np.arange(6.0),
                                                      np.random.default_rng(0),
                                                      groups=np.array([0, 0, 0, -1, -1, -1])),
         False, (ValueError, "groups")),
        ("BBOB function 25 (the suite has 24)", lambda: bbob_problem(25, 1, 2, 10), False,
         (ValueError, "fid")),
        ("an objective returning an int or a numpy float32",
         lambda: (evaluate_returning(3), evaluate_returning(np.float32(0.5))), True, None),
        ("an objective returning the str '1'", lambda: evaluate_returning("1"), False, (TypeError, "f(x)")),
        ("an objective returning True", lambda: evaluate_returning(True), False, (TypeError, "f(x)")),
        # round 6: guards whose lax mutants no case reached (an in-process screen of the 180 guard mutants)
        ("Agent sizes hidden 30, heads 3 (even, divisible)",
         lambda: (WorkflowGenerator(hidden=30, heads=3), HyperparameterController(hidden=30, heads=3)), True,
         None),
        ("Agent 1 with hidden 30, heads 4 (not divisible)", lambda: WorkflowGenerator(hidden=30, heads=4),
         False,
         (ValueError, "hidden")),
        ("Agent 2 with hidden 15, heads 3 (odd)", lambda: HyperparameterController(hidden=15, heads=3), False,
         (ValueError, "hidden")),
        ("PSO with w = True (a bool)", lambda: PSO(w=True), False, (ValueError, "w")),
        ("scipy DE with mutation = True (a bool)", lambda: ScipyDE(mutation=True), False,
         (ValueError, "mutation")),
        ("scipy DE with recombination = True (a bool)", lambda: ScipyDE(recombination=True), False,
         (ValueError, "recombination")),
        ("a one-individual population (the ES start's mean)",
         lambda: (SepCMAState.start(np.zeros(2), 1),
                  boundary("clip", np.full((1, 2), 2.0), np.zeros((1, 2)), -np.ones(2), np.ones(2),
                           np.random.default_rng(0))),
         True, None),
        ("a 1-D population",
         lambda: de_mutation("rand1", np.zeros(6), np.arange(6.0), np.random.default_rng(0)),
         False, (ValueError, "X")),
        ("an empty population", lambda: de_mutation("rand1", np.zeros((0, 2)), np.zeros(0),
                                                    np.random.default_rng(0)), False, (ValueError, "X")),
        ("partner draws with float group labels",
         lambda: partners(1, np.zeros(4), np.random.default_rng(0)), False, (ValueError, "groups")),
        ("partner draws from a group of 3 for 2 partners (the fewest that can supply them)",
         lambda: partners(2, np.zeros(3, dtype=int), np.random.default_rng(0)), True, None),
        ("partner draws from a group of 2 for 2 partners",
         lambda: partners(2, np.zeros(2, dtype=int), np.random.default_rng(0)), False,
         (ValueError, "partners")),
        ("the ES start with sigma = True (a bool)", lambda: SepCMAState.start(np.zeros(2), True), False,
         (ValueError, "sigma")),
        ("the ES start with sigma = 0", lambda: SepCMAState.start(np.zeros(2), 0.0), False,
         (ValueError, "sigma")),
        ("the ES start with sigma = '1' (a str)", lambda: SepCMAState.start(np.zeros(2), "1"), False,
         (ValueError, "sigma")),
        ("DesignX with the shipped checkpoint's path", lambda: DesignX(checkpoint=shipped), True, None),
        ("DesignX with a checkpoint file that does not exist",
         lambda: DesignX(checkpoint=shipped.with_name("missing.pt")), False, (ValueError, "checkpoint")),
        ("a workflow given as one str", lambda: validate("init.uniform"), False, (TypeError, "workflow")),
        ("hyperparameter Cr = 0 (the bottom of its range)",
         lambda: ModularOptimizer(cx_flow, hyperparameters={"cx.binomial": {"Cr": 0.0}}), True, None),
        ("hyperparameter Cr = True (a bool)",
         lambda: ModularOptimizer(cx_flow, hyperparameters={"cx.binomial": {"Cr": True}}), False,
         (ValueError, "Cr")),
        ("run_workflow with a plan that is not one",
         lambda: modular_module.run_workflow("plan", problem_module.Evaluator(box()),
                                             np.random.default_rng(0), {}),
         False, (TypeError, "plan")),
        ("run_workflow with control_interval = True", lambda: run_interval(True), False,
         (ValueError, "control_interval")),
        ("run_workflow with control_interval = 1.5", lambda: run_interval(1.5), False,
         (ValueError, "control_interval")),
        ("a best value equal to the target reaches it", reaches_target_at_equality, True, None),
        ("allowed_next after an invalid prefix (a population size first)", lambda: allowed_next(("pop.20",)),
         False, (InvalidWorkflowError, "prefix: invalid workflow: rule R1")),
        ("BBOB instance 2**31 - 1 (ioh's largest)", lambda: bbob_problem(1, 2**31 - 1, 2, 10), True, None),
        ("BBOB function True (a bool)", lambda: bbob_problem(True, 1, 2, 10), False, (ValueError, "fid")),
        ("BBOB with target_precision 0", lambda: bbob_problem(1, 1, 2, 10, target_precision=0.0), False,
         (ValueError, "target_precision")),
        ("BBOB with target_precision -1", lambda: bbob_problem(1, 1, 2, 10, target_precision=-1.0), False,
         (ValueError, "target_precision")),
        ("bounds given as a triple", lambda: BlackBoxProblem(sum, ([0.0], [1.0], [2.0]), 5), False,
         (ValueError, "bounds")),
        ("empty bounds", lambda: BlackBoxProblem(sum, ([], []), 5), False, (ValueError, "bounds")),
        ("bounds of two lengths", lambda: BlackBoxProblem(sum, ([0.0, 0.0], [1.0]), 5), False,
         (ValueError, "bounds")),
        ("bounds with lower == upper in one coordinate",
         lambda: BlackBoxProblem(sum, ([0.0, 0.0], [0.0, 1.0]), 5),
         False, (ValueError, "bounds")),
        ("an optimum True (a bool)", lambda: box(optimum=True), False, (ValueError, "optimum")),
        ("an f_ref '2' (a str)", lambda: box(f_ref="2"), False, (ValueError, "f_ref")),
        ("points of the wrong dimension", lambda: problem_module.Evaluator(box())(np.zeros((2, 3))), False,
         (ValueError, "X")),
        ("the regret of True (a bool)", lambda: normalized_regret(True, box(optimum=0.0, f_ref=2.0)), False,
         (TypeError, "value")),
        ("group labels of the wrong length", lambda: de_mutation("rand1", np.eye(6), np.arange(6.0),
                                                                 np.random.default_rng(0), groups=[0, 0]),
         False, (ValueError, "groups")),
    ]


def _check_designx_domains(ctx: Context, *, open_ends: bool) -> Outcome:
    return domain_outcome(_designx_domain_cases(), open_ends=open_ends)


register(Claim(
    id="designx.input_domains", paper=PAPER,
    source="Sections 3-4 (the problems, the regret metric, the baselines and Agent 2's rewards as the paper "
           "defines them); our validation (algorithms.blackbox)",
    origin=Origin.IMPLEMENTATION,
    statement="The public constructors and functions accept their domains' closed ends (PSO's w = 0.2, "
              "c1 = 0, c2 = 2.5, a swarm of 2; a target equal to f*; the regret of f* itself, 0; BBOB in "
              "dimension 2; "
              "ELA features of (n, d) samples; scipy DE's mutation 0 and dithering up to 1.999; Cr = 1 as "
              "an int; DesignX with the shipped checkpoint; a workflow's hyperparameter Cr = 1; validate of "
              "a workflow ending with the end token, which returns the workflow without it) and refuse "
              "inputs just outside with an error naming the "
              "argument (w = 0.19, c1 = 2.6, a swarm of 1, a target below f*, f_ref = f*, a regret without "
              "f*, dimension 1 or 2.0, bounds of the wrong length, rewards of a non-episode, group labels of "
              "the wrong length, scipy DE's mutation 2 or dithering up to 2 (scipy's range is [0, 2)), "
              "Cr = True or 1.01, a DesignX checkpoint that is not a path, a workflow's hyperparameter "
              "Cr = 1.5, a workflow with a module outside the space, refused by rule R11; CMA-ES's popsize 2 "
              "accepted and 1 refused; scipy DE's recombination 0 and 1 and dithering (0.7, 0.7) accepted, "
              "recombination 1.01, dithering (1.5, 0.5) and a triple refused; BBOB function 24 accepted, 25 "
              "refused; negative group labels refused; an objective returning an int or a float32 "
              "evaluated, one returning the str '1' or True refused naming f(x); round 6: the agents' sizes "
              "(hidden 30 with 3 heads accepted; 4 heads, or hidden 15, refused), bools refused as PSO's w, "
              "scipy DE's mutation and recombination, a hyperparameter (Cr = True; Cr = 0 accepted), the ES "
              "start's sigma (also 0 and a str), an optimum; a one-individual population accepted, a 1-D or "
              "empty one refused; float group labels refused; a group of 3 supplies 2 partners, one of 2 is "
              "refused; DesignX with the shipped checkpoint's path accepted, a missing file refused; a "
              "workflow as one str, a non-plan or a control interval True / 1.5 given to run_workflow "
              "refused; bounds as a triple, empty, of two lengths, or with lower == upper refused; points "
              "of the wrong dimension refused; the regret of True refused; BBOB instance 2**31 − 1 accepted, "
              "function True and target_precision 0 or −1 refused; allowed_next refuses an invalid prefix "
              "naming it and the rule; a best value equal to the target reaches it): 79 cases",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_designx_domains(ctx, open_ends=False),
    control=lambda ctx: _check_designx_domains(ctx, open_ends=True),
    control_description="the domains read as open at their closed ends: the check expects refusals where "
                        "the model accepts, and must fail",
))


# ---------------------------------------------------------------- designx.random_operator_laws


def _start_at_zero(method, X, V, Cr, rng):
    """The control's bug: exponential crossover whose run always starts at gene 0 (j_rand ignored)."""
    if method != "exponential":
        return crossover(method, X, V, Cr, rng)
    N, d = X.shape
    rng.integers(d, size=N)
    run = np.cumprod(rng.random((N, d - 1)) < Cr, axis=1)
    L = 1 + run.sum(axis=1)
    return np.where(np.arange(d)[None, :] < L[:, None], V, X)


def _check_operator_laws(ctx: Context, cross) -> Outcome:
    """The probabilities of Table 3's random operators, not only their structure: chi-square and KS
    tests at level 1e-4 each (six tests: family-wise false alarm <= 6e-4)."""
    rng = ctx.rng("operator-laws")
    n, d, Cr = ctx.pick(4000, 40_000), 5, 0.5
    X, V = np.zeros((n, d)), np.ones((n, d))
    tests = {}
    # binomial: gene j from the donor with probability Cr + (1 − Cr)/d (the forced j_rand included)
    take = cross("binomial", X, V, Cr, rng) == 1.0
    p_gene = Cr + (1 - Cr) / d
    counts = take.sum(axis=0)
    # Σ_j z_j² over the d independent positions is chi-square with d degrees of freedom
    z = (counts - n * p_gene) / math.sqrt(n * p_gene * (1 - p_gene))
    tests["binomial: donor genes per position"] = float(sstats.chi2.sf(float(z @ z), d))
    # exponential: run length L with P(L = k) = (1 − Cr)Cr^{k−1} (k < d), P(L = d) = Cr^{d−1}; a run
    # shorter than d starts at a uniform position j_rand
    take = cross("exponential", X, V, Cr, rng) == 1.0
    L = take.sum(axis=1)
    law = np.r_[[(1 - Cr) * Cr ** (k - 1) for k in range(1, d)], Cr ** (d - 1)]
    tests["exponential: run length"] = sstats.chisquare(np.bincount(L, minlength=d + 1)[1:], n * law).pvalue
    short = take[L < d]
    # the run's first gene: taken, its left (cyclic) neighbour not
    starts = np.argmax(short & ~np.roll(short, 1, axis=1), axis=1)
    tests["exponential: run start"] = sstats.chisquare(np.bincount(starts, minlength=d)).pvalue
    # random repair: the out-of-box coordinates land uniformly in [l, u]
    lower, upper = np.full(d, -1.0), np.full(d, 2.0)
    U = np.where(rng.random((n, d)) < 0.5, -3.0, 5.0)  # every coordinate out of the box
    R = boundary("random", U, np.zeros((n, d)), lower, upper, rng)
    tests["random repair: uniform in [l, u]"] = sstats.kstest(((R - lower) / (upper - lower)).ravel(),
                                                              "uniform").pvalue
    # the uniform initialization, the same way
    Xi = initialize("uniform", n, lower, upper, rng)
    tests["uniform initialization"] = sstats.kstest(((Xi - lower) / (upper - lower)).ravel(),
                                                    "uniform").pvalue
    # the Gaussian initialization: N(centre, (width/6)²) clipped into the box, so in box units the CDF is
    # Φ(6(u − 1/2)) on [0, 1) (the atoms of Φ(−3) = 0.13 % at each face move the KS statistic by <= 0.0013)
    Xg = initialize("gaussian", n, lower, upper, rng)
    unit_normal_cdf = lambda u: sstats.norm.cdf(6.0 * (np.asarray(u) - 0.5))  # noqa: E731
    tests["gaussian initialization"] = sstats.kstest(((Xg - lower) / (upper - lower)).ravel(),
                                                     unit_normal_cdf).pvalue
    # the quasi-random designs are scrambled from a seed drawn over a wide range: 60 Sobol and 60 Halton
    # designs from successive draws of one generator have 60 distinct first points each (an unscrambled
    # design repeats its first point; a range of 62 seeds repeats within 60 draws with probability 1 − 5e-23,
    # one of 2³¹ with probability 8e-7)
    distinct = {m: len({tuple(initialize(m, 2, lower, upper, rng)[0]) for _ in range(60)})
                for m in ("sobol", "halton")}
    # every initialization lies in the box (the Gaussian one by its clip: 0.13 % of its draws sit on each
    # face); the count of points outside is exact, not a test
    outside = {}
    for method in INITIALIZATIONS:
        Xm = {"gaussian": Xg, "uniform": Xi}.get(method)
        Xm = initialize(method, 64, lower, upper, rng) if Xm is None else Xm
        outside[method] = int(np.sum(np.any((Xm < lower) | (Xm > upper), axis=1)))
    # power: a run that always starts at gene 0, a repair that resets to a bound, or a draw on half the
    # box gives chi-square / KS p-values below 1e-100 at these sizes
    worst = min(tests.values())
    in_box = not any(outside.values())
    scrambled = min(distinct.values()) == 60
    ok = worst >= 1e-4 and in_box and scrambled
    return Outcome("pass" if ok else "fail",
                   f"Table 3's random operators follow their laws: smallest p-value {worst:.3g} "
                   f"({'>=' if worst >= 1e-4 else '<'} 1e-4) over {len(tests)} tests of {n} draws; "
                   + ("every initialization in the box" if in_box else f"points outside the box: {outside}")
                   + f"; distinct scrambled first points of 60: {distinct}",
                   {name: figure(float(p), 3) for name, p in tests.items()} | {"draws": n,
                                                                              "outside_the_box": outside,
                                                                              "distinct_of_60": distinct})


register(Claim(
    id="designx.random_operator_laws", paper=PAPER,
    source=f"{ARXIV}, Table 3 (DE binomial and exponential crossover, the random boundary repair, uniform "
           "initialization): their probabilities",
    origin=Origin.PAPER,
    covers=(TABLE3,),
    statement="With Cr = 1/2, d = 5 and 4000 (full: 40 000) draws each: binomial crossover takes gene j from "
              "the donor with probability Cr + (1 − Cr)/d; exponential crossover's run length L has "
              "P(L = k) = (1 − Cr)Cr^{k−1} (k < d), P(L = d) = Cr^{d−1}, and a run shorter than d starts at "
              "a uniform position; the random repair puts out-of-box coordinates uniformly in [l, u]; the "
              "uniform initialization is uniform and the Gaussian one N(centre, (width/6)²) clipped into "
              "the box (chi-square / Kolmogorov–Smirnov, each p >= 1e-4); no point of any initialization "
              "(uniform, Sobol, LHS, Halton, Gaussian) lies outside the box; 60 Sobol and 60 Halton "
              "designs drawn in turn from one generator have 60 distinct first points each (scrambled, "
              "seeds from a wide range)",
    kind=Kind.NUMERIC,
    check=lambda ctx: _check_operator_laws(ctx, crossover),
    control=lambda ctx: _check_operator_laws(ctx, _start_at_zero),
    control_description="exponential crossover whose run always starts at gene 0 (j_rand drawn but not "
                        "used): the run-start test must reject",
))


# ---------------------------------------------------------------- designx.agents_round_trip


def _check_round_trip(ctx: Context, *, reload: bool) -> Outcome:
    """save_agents into a folder that does not exist yet, then load_agents: the same parameters and
    sizes, and the metadata beside it; ``reload=False`` (the control) compares fresh agents instead."""
    import json
    import tempfile
    from pathlib import Path

    from algorithms.blackbox.designx import load_agents, save_agents

    agent1, agent2 = load_agents()
    meta = {"seed": ctx.seed, "note": "round trip"}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "new" / "folder" / "agents.pt"
        save_agents(path, agent1, agent2, meta=meta)
        # saving again over an existing checkpoint (its folder now exists) replaces it
        save_agents(path, agent1, agent2, meta=meta)
        if reload:
            back1, back2 = load_agents(path)
        else:
            torch.manual_seed(ctx.seed)
            back1, back2 = type(agent1)(), type(agent2)()
        meta_back = json.loads(path.with_suffix(".json").read_text())
    same = all(torch.equal(a, b) for m, n in ((agent1, back1), (agent2, back2))
               for a, b in zip(m.state_dict().values(), n.state_dict().values(), strict=True))
    # the sizes travel too: a model rebuilt with another head count has the same parameter shapes but
    # computes something else, so the reloaded agents must also give the same outputs
    def shape(m):
        return m.hidden, m.body.layers[0].self_attn.num_heads, len(m.body.layers)

    feats = torch.linspace(-1.0, 1.0, N_FEATURES)
    obs = torch.linspace(0.0, 1.0, 9)[None]
    flow = ("init.uniform", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")
    with _one_torch_thread(), torch.no_grad():
        outputs = (torch.equal(agent1.logits(feats, flow[:2]), back1.logits(feats, flow[:2]))
                   and all(torch.equal(a, b)
                           for a, b in zip(agent2(flow, obs), back2(flow, obs), strict=True)))
    sizes = all(shape(m) == shape(n) for m, n in ((agent1, back1), (agent2, back2)))
    # training's starting exploration (train.py): initial_log_std_bias fills the log-std head's bias with
    # log 0.3 by default, or with the value given
    from algorithms.blackbox.agents import initial_log_std_bias

    fresh = HyperparameterController()
    initial_log_std_bias(fresh)
    bias_ok = bool(torch.allclose(fresh.log_std.bias, torch.full_like(fresh.log_std.bias, math.log(0.3))))
    initial_log_std_bias(fresh, -1.0)
    bias_ok = bias_ok and bool(torch.all(fresh.log_std.bias == -1.0))
    # Agent 2's stds lie in [0.5·e^-4, 0.5] (HyperparameterController.forward): a log-std head pinned at
    # ±10 gives the two ends
    ends = []
    with torch.no_grad():
        fresh.log_std.weight.zero_()
        for b in (10.0, -10.0):
            initial_log_std_bias(fresh, b)
            ends.append(fresh(flow, obs)[1])
    bias_ok = bias_ok and bool(torch.allclose(ends[0], torch.full_like(ends[0], 0.5))
                               and torch.allclose(ends[1], torch.full_like(ends[1], 0.5 * math.exp(-4.0))))
    ok = same and meta_back == meta and sizes and outputs and bias_ok
    return Outcome("pass" if ok else "fail",
                   f"agents saved into a new folder and loaded back: parameters identical {same}, sizes "
                   f"identical {sizes}, outputs identical {outputs}, metadata identical {meta_back == meta}; "
                   f"initial log-std bias log 0.3 / as given: {bias_ok}",
                   {"parameters_identical": same, "sizes_identical": sizes, "outputs_identical": outputs,
                    "initial_log_std_bias": bias_ok})


register(Claim(
    id="designx.agents_round_trip", paper=PAPER,
    source="Section 3.3 (the trained agents, used by every DesignX run); our checkpoint files "
           "(algorithms.blackbox.designx.save_agents / load_agents)",
    origin=Origin.IMPLEMENTATION,
    statement="The shipped agents written by save_agents into a folder that does not exist yet and read back "
              "by load_agents have bit-identical parameters, the same sizes (hidden, heads, layers) and "
              "bit-identical outputs (Agent 1's logits, Agent 2's means, stds and values on fixed inputs), "
              "and the metadata written beside them reads back equal; initial_log_std_bias (training's "
              "starting exploration) fills Agent 2's log-std bias with log 0.3, or the value given, and a "
              "log-std head pinned at ±10 gives Agent 2's std bounds 0.5 and 0.5·e^-4",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_round_trip(ctx, reload=True),
    control=lambda ctx: _check_round_trip(ctx, reload=False),
    control_description="freshly initialized agents compared with the saved ones (what a loader that "
                        "ignored the file would return): the parameters must differ",
))


# ---------------------------------------------------------------- designx.restart_counting


def _check_restarts(ctx: Context, *, miscount: int) -> Outcome:
    """Random workflows with a RESTART module (Table 3) on a constant function, so that stagnation
    restarts fire: the reported ``stats.restarts`` must equal the re-initializations the run made
    (calls of the initializer after the first). ``miscount`` (the control) shifts the expectation."""
    rng = ctx.rng("restarts")
    orig = modular_module.initialize
    rows, wrong, total = [], 0, 0
    for _ in range(ctx.pick(6, 20)):
        workflow = _random_workflow(rng)
        while not any(token.startswith("restart.") for token in workflow):
            workflow = _random_workflow(rng)
        calls = {"n": 0}

        def spy(*args, _calls=calls, **kwargs):
            _calls["n"] += 1
            return orig(*args, **kwargs)

        problem = BlackBoxProblem(lambda x: 1.0, (-np.ones(2), np.ones(2)), 1500)
        modular_module.initialize = spy
        try:
            sol = solve(problem, ModularOptimizer(workflow), seed=int(rng.integers(1000)))
        finally:
            modular_module.initialize = orig
        made = calls["n"] - 1
        total += made
        wrong += sol.stats.restarts != made + miscount
        rows.append({"workflow": " ".join(workflow), "reported": sol.stats.restarts, "made": made})
    # when a stagnation restart fires (modular.STALL_MIN): after max(30, ⌊300 / N0⌋) generations without
    # improvement, i.e. on a constant f after 20 + 30·20 = 620 evaluations for 20 individuals and after
    # 5 + 60·5 = 305 for 5 (each restart then costs a new population and starts a new count)
    timing = []
    def stalling(pop: str) -> tuple[str, ...]:
        return ("init.uniform", pop, "de.rand1", "cx.binomial", "bc.clip", "sel.greedy", "restart.stagnation")

    for flow, d, budget, expected in ((stalling("pop.20"), 2, 1300, [0, 620, 1240]),
                                      (stalling("pop.5d"), 1, 700, [0, 305, 610])):
        calls, at = {"n": 0}, []

        def count(x, _calls=calls):
            _calls["n"] += 1
            return 1.0

        def spy_at(*args, _calls=calls, _at=at, **kwargs):
            _at.append(_calls["n"])
            return orig(*args, **kwargs)

        with patched(modular_module, "initialize", spy_at):
            solve(BlackBoxProblem(count, (-np.ones(d), np.ones(d)), budget), ModularOptimizer(flow), seed=0)
        if at != expected:
            timing.append(f"{flow[1]}: initializations at evaluations {at}, expected {expected}")
    # the check has power only if some run restarted
    ok = wrong == 0 and total > 0 and not timing
    # the DIVERSITY restart's test (modular._diversity_lost) on hand-made states: the LARGEST relative
    # spread must be below DIVERSITY_TOL = 1e-8, strictly, relative to each coordinate's width
    lost = modular_module._diversity_lost
    es_state = lambda sigma, c: types.SimpleNamespace(sigma=sigma, c=np.asarray(c, float))  # noqa: E731
    cases = [
        (lost(np.array([[0.0, 0.0], [0.0, 1.0]]), np.ones(2)), False),      # one coordinate still spread
        (lost(np.array([[0.0], [2e-3]]), np.array([1e6])), True),           # spread 1e-3 of a width 1e6
        (lost(np.array([[0.0], [2.0]]), np.array([1e8])), False),           # exactly 1e-8: not below
        (lost(None, np.ones(2), es_state(1e-9, [1.0, 4.0])), True),        # σ√max c = 2e-9
        (lost(None, np.ones(2), es_state(1e-9, [1e4, 1.0])), False),       # 1e-7 along one axis
        (lost(None, np.array([1.0, 100.0]), es_state(1e-7, [1.0, 1.0])), True),  # below 1e-8 x 100
    ]
    if [got for got, _ in cases] != [want for _, want in cases]:
        timing.append(f"diversity test {[got for got, _ in cases]}, documented {[w for _, w in cases]}")
    when = "; ".join(timing) or ("stagnation restarts at 620/1240 and 305/610 evaluations as documented; the "
                                 "diversity test as documented on 6 hand-made states")
    return Outcome("pass" if ok else "fail",
                   f"{len(rows)} runs with a restart module on a constant function: {total} restarts made, "
                   f"{wrong} run(s) reporting another count; {when}", {"runs": rows, "timing": timing})


register(Claim(
    id="designx.restart_counting", paper=PAPER,
    source=f"{ARXIV}, Table 3 (RESTART_STRATEGY: stagnation, diversity); our exact counts "
           "(algorithms.blackbox.modular.finish)",
    origin=Origin.IMPLEMENTATION,
    statement="For 6 (full: 20) random workflows that contain a restart module, run on a constant function "
              "in 2-D with a budget of 1500 (so stagnation restarts fire), the Solution's stats.restarts "
              "equals the number of re-initializations the run made (initializer calls after the first), "
              "and at least one run restarts; a stagnation restart fires after max(30, ⌊300 / N0⌋) "
              "generations without improvement (constant f, DE/rand/1/bin: the initializer runs at "
              "evaluations 0, 620, 1240 for 20 individuals in 2-D and 0, 305, 610 for 5 in 1-D); the "
              "diversity restart's test holds exactly when the largest spread (population std over the "
              "coordinate's width; for the ES σ√max c over the largest width) is below 1e-8, strictly "
              "(6 hand-made states, one at exactly 1e-8)",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_restarts(ctx, miscount=0),
    control=lambda ctx: _check_restarts(ctx, miscount=1),
    control_description="the expectation off by one (a counter that also counts the first start): every "
                        "run must then disagree",
))


# ---------------------------------------------------------------- designx.agent_states


def _check_agent_states(ctx: Context, *, dim_scale: float) -> Outcome:
    """Agent 1's 13 problem features and Agent 2's 9 progress observations against their documented
    formulas, recomputed here on hand-built states (the scales the shipped agents were trained with).
    ``dim_scale`` (the control) is the dimension feature's divisor the check expects."""
    from algorithms.blackbox.features import problem_features, sample_size
    from algorithms.blackbox.modular import progress_features

    wrong = []
    lower, upper = np.array([-3.0, -1.0, 0.0, -2.0]), np.array([5.0, 2.0, 4.0, 1.0])
    prob = BlackBoxProblem(lambda x: float(np.sum(x**2) + x[0]), (lower, upper), 10_000)
    ev = problem_module.Evaluator(prob)
    F, X, y = problem_features(ev, np.random.default_rng(ctx.seed))
    # Agent 1: dimension / 20, log10(budget) / 6, mean upper / 10, mean lower / 10 (here 0.2, 2/3,
    # 0.3, -0.15), then the ELA features of the sample, which is charged to the budget
    basic = np.array([4 / dim_scale, 4 / 6, 12 / 4 / 10, -6 / 4 / 10])
    if not np.allclose(F[:4], basic, rtol=1e-15, atol=0.0):
        wrong.append(f"problem features {np.round(F[:4], 6).tolist()}, documented "
                     f"{np.round(basic, 6).tolist()}")
    if not np.array_equal(F[4:], features_module.ela_features(X, y, lower, upper)):
        wrong.append("problem features 5-13 are not the sample's ELA features")
    if ev.evaluations != len(X) or len(X) != sample_size(4, 10_000) or F.size != N_FEATURES:
        wrong.append(f"{ev.evaluations} evaluations charged for a sample of {len(X)}")
    # the sample's size: 20d points, at most 5 % of the budget, at least 2d + 3, never past the budget
    sizes = [sample_size(5, 10_000), sample_size(5, 1000), sample_size(5, 200), sample_size(5, 10)]
    if sizes != [100, 50, 13, 10]:
        wrong.append(f"sample sizes for d = 5 and budgets 10⁴, 1000, 200, 10: {sizes}, documented "
                     "[100, 50, 13, 10]")
    # Agent 2 on a population of 10 after those evaluations: budget used, stagnation / 50 (capped at
    # 1), spread (mean − min over |initial best − best| + tiny), diversity (mean distance to the
    # centroid over the box diagonal), progress (initial best − best) / (|initial best| + |best|),
    # success rate, improved, population / 100, log10(d) / 2
    P, yp = X[:10], y[:10]
    best, init_best = ev.best_value, float(y.max()) + 1.0
    want = np.array([len(X) / 10_000, min(1.0, 70 / 50),
                     min(1.0, (yp.mean() - yp.min()) / abs(init_best - best)),
                     np.linalg.norm(P - P.mean(0), axis=1).mean() / np.linalg.norm(upper - lower),
                     (init_best - best) / (abs(init_best) + abs(best)), 0.3, 1.0, 10 / 100,
                     math.log10(4) / 2])
    got = progress_features(ev, P, yp, lower, upper, 70, 0.3, True, init_best)
    # 1e-9 relative: the documented formulas without the code's 1e-12 guards, which move these values
    # by < 1e-11 relative (|initial best − best| >= 1 here)
    if not np.allclose(got, want, rtol=1e-9, atol=0.0):
        wrong.append(f"progress observations {np.round(got, 6).tolist()}, documented "
                     f"{np.round(want, 6).tolist()}")
    # the stagnation scale below its cap: 20 stalled generations read 20 / 50 = 0.4
    stalled = progress_features(ev, P, yp, lower, upper, 20, 0.3, False, init_best)[1]
    if stalled != 0.4:
        wrong.append(f"stagnation observation {stalled} after 20 stalled generations, documented 0.4")
    # the documented degenerate cases (as in training): no finite value in the population -> spread 0; an
    # initial best that is not finite -> progress 0
    degenerate = progress_features(ev, P, np.full(10, np.inf), lower, upper, 20, 0.3, False, math.inf)
    if degenerate[2] != 0.0 or degenerate[4] != 0.0:
        wrong.append(f"spread {degenerate[2]} of a population without a finite value and progress "
                     f"{degenerate[4]} from a non-finite initial best, documented 0 and 0")
    # the small scales the docstring gives (the observations Agent 2 was trained on), with the best so far 0:
    # before any progress (initial best 0) values (0, 1e-12) spread 5e-13 / (1e-12·(1 + 0)) = 0.5, and a
    # progress from 1e-12 to 0 reads 1e-12 / (1e-12 + 0 + 1e-12) = 0.5 (1e-9 relative: sums of two floats)
    zero_ev = problem_module.Evaluator(BlackBoxProblem(lambda x: 0.0, (lower, upper), 10))
    zero_ev(X[:1])
    tiny_spread = progress_features(zero_ev, P[:2], np.array([0.0, 1e-12]), lower, upper, 0, 0.0, False,
                                    0.0)[2]
    tiny_progress = progress_features(zero_ev, P[:2], np.zeros(2), lower, upper, 0, 0.0, True, 1e-12)[4]
    if not (math.isclose(tiny_spread, 0.5, rel_tol=1e-9) and math.isclose(tiny_progress, 0.5, rel_tol=1e-9)):
        wrong.append(f"spread {tiny_spread} and progress {tiny_progress} at the 1e-12 scale, documented 0.5 "
                     "and 0.5")
    # Agent 1's ELA features of a sample without a finite value (every value +inf, the worst: the Evaluator's
    # NaN; a NaN y itself is refused since round 12): the 9 zeros
    ela_none = features_module.ela_features(X[:10], np.full(10, np.inf), lower, upper)
    if ela_none.shape != (9,) or np.any(ela_none != 0.0):
        wrong.append(f"ELA features of a sample without a finite value: {ela_none}, documented 9 zeros")
    # the population sizes (modular's docstring): pop.cma 4 + ⌊3 ln d⌋, 20, 50, 100, 5d, 10d, 15d, never below
    # the workflow's minimum nor above the budget; d = 2 and 10, budget 10⁴ (and 30 for the budget cap)
    sizes_got, sizes_want = [], []
    for pop in ("pop.cma", "pop.20", "pop.50", "pop.100", "pop.5d", "pop.10d", "pop.15d"):
        plan_pop = modular_module.WorkflowPlan.parse(("init.uniform", pop, "ga.gaussian", "bc.clip",
                                                      "sel.greedy"))
        sizes_got.append([plan_pop.size(2, 10_000), plan_pop.size(10, 10_000), plan_pop.size(10, 30)])
        base = {"pop.cma": (6, 10), "pop.20": (20, 20), "pop.50": (50, 50), "pop.100": (100, 100),
                "pop.5d": (10, 50), "pop.10d": (20, 100), "pop.15d": (30, 150)}[pop]
        sizes_want.append([base[0], base[1], min(base[1], 30)])
    if sizes_got != sizes_want:
        wrong.append(f"population sizes {sizes_got}, documented {sizes_want}")
    # when Agent 2 is asked (designx.CONTROL_STEPS): run_episode passes run_workflow the interval
    # ⌈(budget / N0) / 25⌉ (spied, the run stopped there: budget 1300 in 2-D, where a divisor 26 would give
    # another interval for N0 = 50), and run_workflow asks the controller before generations 0, k, 2k, ...
    import algorithms.blackbox.designx as designx_module

    asked = {}

    def spy_run(plan, *args, **kwargs):
        asked.update(plan=plan, interval=kwargs.get("control_interval"))
        raise _SpyStop

    sphere = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 1300)
    agent1, agent2 = load_agents()
    with (_one_torch_thread(), patched(designx_module, "run_workflow", spy_run),
          contextlib.suppress(_SpyStop)):
        designx_module.run_episode(sphere, agent1, agent2, np.random.default_rng(ctx.seed))
    want_interval = max(1, math.ceil(1300 / asked["plan"].size(2, 1300) / 25))
    if asked["interval"] != want_interval:
        wrong.append(f"Agent 2 asked every {asked['interval']} generations, documented {want_interval}")
    calls = []
    plan = modular_module.WorkflowPlan.parse(DE_WORKFLOW)
    small = BlackBoxProblem(lambda x: float(np.sum(x**2)), (-np.ones(2), np.ones(2)), 300)
    result = modular_module.run_workflow(plan, problem_module.Evaluator(small),
                                         np.random.default_rng(ctx.seed),
                                         grammar_module.default_hyperparameters(DE_WORKFLOW),
                                         controller=lambda obs: calls.append(1) or {}, control_interval=3)
    if len(calls) != math.ceil(result.generations / 3):
        wrong.append(f"controller asked {len(calls)} times in {result.generations} generations at interval 3")
    # maxiters = 2: MaxIters after 2 generations, and the progress monitor is told that horizon (spied)
    from algorithms.blackbox import DesignX

    horizons = []

    class SpiedMonitor(designx_module.IterationMonitor):
        def __init__(self, options, total, desc="solve"):
            horizons.append(total)
            super().__init__(options, total, desc)

    with _one_torch_thread(), patched(designx_module, "IterationMonitor", SpiedMonitor):
        capped = solve(small, DesignX(), seed=0, maxiters=2)
    if capped.retcode.name != "MaxIters" or capped.stats.iterations != 2 or horizons != [2]:
        wrong.append(f"DesignX with maxiters = 2: {capped.retcode.name} after {capped.stats.iterations} "
                     f"generations, monitor horizon {horizons}")
    # solve(problem, DesignX(stochastic=True), seed=s) is run_episode with numpy seed s and torch seed s (the
    # same workflow and best value), and a greedy episode records Agent 2's log-probabilities as 0 (no draw)

    with _one_torch_thread():
        sol = solve(small, DesignX(stochastic=True), seed=3)
        ep = designx_module.run_episode(small, agent1, agent2, np.random.default_rng(3),
                                        generator=torch.Generator().manual_seed(3), stochastic=True)
        greedy = designx_module.run_episode(small, agent1, agent2, np.random.default_rng(ctx.seed))
    solved_flow = sol.original["workflow"]
    if solved_flow != ep.workflow or sol.value != ep.evaluator.best_value:
        wrong.append(f"solve with DesignX at seed 3: {sol.value} ({solved_flow}), run_episode "
                     f"{ep.evaluator.best_value} ({ep.workflow})")
    if any(lp != 0.0 for lp in greedy.logp2):
        wrong.append(f"a greedy episode's Agent 2 log-probabilities {greedy.logp2[:3]}..., documented 0")
    return fact(not wrong, "; ".join(wrong) or "Agent 1's 4 basic features and 9 ELA features and Agent 2's "
                "9 progress observations equal their documented formulas (the 1e-12 scales and degenerate "
                "cases too); the population sizes as documented; Agent 2 asked every ⌈(budget / N0) / 25⌉ "
                "generations; solve with DesignX is run_episode with the seed")


register(Claim(
    id="designx.agent_states", paper=PAPER,
    source=f"Sections 3.2.1-3.2.2 ({ARXIV}: Agent 1's problem features, Agent 2's optimization-progress "
           "state); our scales (algorithms.blackbox.features.problem_features, modular.progress_features)",
    origin=Origin.IMPLEMENTATION,
    statement="On a 4-D problem with box [-3, 5] x [-1, 2] x [0, 4] x [-2, 1] and budget 10⁴, Agent "
              "1's 13 features are dimension / 20, log10(budget) / 6, mean upper bound / 10, mean lower "
              "bound / 10 and the ELA features of the LHS sample (of sample_size(4, 10⁴) points, charged "
              "to the budget; sample_size(5, ·) is 100, 50, 13 and 10 for budgets 10⁴, 1000, 200 and 10: "
              "20d points, at most 5 % of the budget, at least 2d + 3, never past the budget); Agent 2's 9 "
              "observations of a population of 10 (70 stalled generations, "
              "success 0.3, improved) are the budget fraction used, min(1, stall / 50) (also 0.4 after 20), "
              "the value spread, "
              "the diversity over the box diagonal, the relative progress, the success rate, the "
              "improvement flag, population / 100 and log10(d) / 2, to 1e-9 relative; run_episode asks "
              "Agent 2 every ⌈(budget / N0) / 25⌉ generations (budget 1300 in 2-D) and run_workflow asks a "
              "controller before every k-th generation (⌈G / k⌉ times in G generations, k = 3, budget 300)",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_agent_states(ctx, dim_scale=20.0),
    control=lambda ctx: _check_agent_states(ctx, dim_scale=40.0),
    control_description="the dimension feature expected at dimension / 40 (another scale than the one the "
                        "agents were trained with): the features must then disagree",
))


# ---------------------------------------------------------------- designx.checkpoint_fidelity

# The shipped agents' outputs on fixed inputs, computed with the code of the commit that trained and
# shipped the checkpoint (da35190: agents.py, grammar.py, designx.py as they were then; torch 2.13.0+cpu,
# the version in the checkpoint's metadata) and bit-identical with the code since (checked when
# recorded). The weights only mean what they meant in training under that forward pass and that
# action decoding: a layer order, a positional encoding, a std clamp or a configuration range changed
# afterwards still loads (the shapes agree) but gives other workflows and other hyperparameters.
# Agent 1's features: round(sin(k·(1..13)), 3); Agent 2's observations: round(0.5 + 0.4 cos(k·(1..9)), 3),
# k = 1, 2; the literals keep 7 significant digits.
_AGENT1_GOLDEN = (  # (k, greedy workflow, its log-probability, summed entropy)
    (1, ("init.uniform", "pop.cma", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda", "red.linear",
         "restart.stagnation"), -4.745121, 8.361563),
    (2, ("init.gaussian", "pop.50", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda", "red.linear",
         "restart.stagnation"), -4.469518, 7.849935),
    (3, ("init.gaussian", "pop.50", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda", "red.linear",
         "restart.stagnation"), -4.378926, 7.796167),
)
_AGENT2_GOLDEN = (  # (workflow, means and stds flattened from (T = 2, M_c, 3), values (T,))
    (("init.lhs", "pop.50", "de.current_to_pbest1", "cx.exponential", "bc.reflect", "sel.greedy"),
     [0.433309, 0.8254008, 0.295282, 0.2231435, 0.6081221, 0.4948769, 0.4741359, 0.8504608, 0.2572142,
      0.2457439, 0.6621932, 0.449023],
     [0.06941791, 0.3003091, 0.2147087, 0.4142102, 0.174526, 0.2207553, 0.06362396, 0.2864364, 0.1985365,
      0.3630394, 0.1678258, 0.2010999],
     [-0.1683192, -0.1283862]),
    (("init.sobol", "pop.20", "ga.polynomial", "bc.clip", "sel.greedy"),
     [0.4893296, 0.6393211, 0.1848845, 0.5275993, 0.6834085, 0.160736],
     [0.06012743, 0.4408999, 0.3644789, 0.05688739, 0.4106368, 0.3237165],
     [-0.06065524, -0.0348295]),
    (("init.uniform", "pop.50", "pso.inertia", "bc.clip", "sel.greedy"),
     [0.4671392, 0.722688, 0.5127532, 0.5011362, 0.7618477, 0.4590794],
     [0.08820997, 0.2843437, 0.08193147, 0.07851626, 0.2605802, 0.07400478],
     [0.108337, 0.1316727]),
    (("init.uniform", "pop.cma", "es.sep_cmaes", "bc.clip", "sel.mu_plus_lambda"),
     [0.4552287, 0.8567815, 0.3240898, 0.5031108, 0.8821496, 0.283693],
     [0.2130755, 0.4194493, 0.3003783, 0.1879701, 0.4028183, 0.2694574],
     [0.09440285, 0.1244879]),
)
# decode_action(module, (0.3, 0.6, 0.9)) for every controllable module, as trained
_DE_NAMES = ("rand1", "rand2", "best1", "best2", "current_to_best1", "current_to_rand1", "rand_to_best1",
             "current_to_pbest1")
_DECODE_GOLDEN = {**{f"de.{n}": {"F1": 0.3, "F2": 0.6, "p": 0.452} for n in _DE_NAMES},
                  "cx.binomial": {"Cr": 0.3}, "cx.exponential": {"Cr": 0.3},
                  "ga.gaussian": {"sigma": 0.00645195}, "ga.polynomial": {"eta": 33.5},
                  "pso.inertia": {"w": 0.44, "c1": 1.5, "c2": 2.25}, "es.sep_cmaes": {"mu_ratio": 0.22}}


def _post_ln_encoder(hidden: int, heads: int, layers: int) -> torch.nn.TransformerEncoder:
    """The control's encoder: the shipped layers with post-LN order (norm_first=False)."""
    layer = torch.nn.TransformerEncoderLayer(hidden, heads, dim_feedforward=2 * hidden, dropout=0.0,
                                             batch_first=True, norm_first=False)
    return torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)


def _shipped_agents(*, post_ln: bool):
    """The shipped checkpoint's agents (``post_ln``: loaded into post-LN layers, the control)."""
    import algorithms.blackbox.agents as agents_module
    import algorithms.blackbox.designx as designx_module

    if not post_ln:
        # built afresh, not taken from load_agents' cache: what is checked is the agents the code builds
        # now (an earlier claim's cached pair would hide a layer changed since it was built)
        designx_module._load.cache_clear()
        return designx_module.load_agents()
    state = torch.load(designx_module.DEFAULT_CHECKPOINT, map_location="cpu", weights_only=True)
    with patched(agents_module, "_encoder", _post_ln_encoder):
        a1, a2 = WorkflowGenerator(**state["sizes"]), HyperparameterController(**state["sizes"])
    a1.load_state_dict(state["agent1"])
    a2.load_state_dict(state["agent2"])
    return a1.eval(), a2.eval()


def _check_checkpoint_fidelity(ctx: Context, *, post_ln: bool) -> Outcome:
    from algorithms.blackbox.grammar import CONFIG_SPACE, decode_action

    a1, a2 = _shipped_agents(post_ln=post_ln)
    # float32 forward passes on another CPU or BLAS differ from the recorded ones by a few ulps per
    # operation (~1e-6 here); 1e-4 is far above that and far below what a changed layer makes (> 1e-2)
    tol, wrong, worst = 1e-4, [], 0.0
    with _one_torch_thread(), torch.no_grad():
        for k, flow, logp, entropy in _AGENT1_GOLDEN:
            feats = torch.tensor(np.round(np.sin(np.arange(1, 14) * k), 3), dtype=torch.float32)
            got, lp, ent = a1.sample(feats, greedy=True)
            err = max(abs(float(lp) - logp), abs(float(ent) - entropy))
            worst = max(worst, err)
            if got != flow or err > tol:
                wrong.append(f"Agent 1 (k={k}): {' '.join(got)}, log-probability {float(lp):.6g}, entropy "
                             f"{float(ent):.6g}; recorded {' '.join(flow)}, {logp}, {entropy}")
            # log_prob (REINFORCE's score of a given workflow) scores the recorded workflow, end token
            # included, as the sampler did
            scored = float(a1.log_prob(feats, flow))
            worst = max(worst, abs(scored - logp))
            if abs(scored - logp) > tol:
                wrong.append(f"Agent 1 (k={k}): log_prob of the recorded workflow {scored:.6g}, recorded "
                             f"{logp}")
        obs = torch.tensor(np.stack([np.round(0.5 + 0.4 * np.cos(np.arange(1, 10) * k), 3) for k in (1, 2)]),
                           dtype=torch.float32)
        for flow, mean, std, value in _AGENT2_GOLDEN:
            m, s, v = a2(flow, obs)
            err = max(float(np.abs(m.numpy().reshape(-1) - mean).max()),
                      float(np.abs(s.numpy().reshape(-1) - std).max()),
                      float(np.abs(v.numpy() - value).max()))
            worst = max(worst, err)
            if err > tol:
                wrong.append(f"Agent 2 on {' '.join(flow)}: outputs {err:.3g} from the recorded ones")
    # the decoded hyperparameters: 1e-6 relative, the literals' 7 significant digits
    if set(CONFIG_SPACE) != set(_DECODE_GOLDEN):
        wrong.append(f"controllable modules {sorted(CONFIG_SPACE)}, trained with {sorted(_DECODE_GOLDEN)}")
    for module, want in _DECODE_GOLDEN.items():
        got = decode_action(module, [0.3, 0.6, 0.9]) if module in CONFIG_SPACE else {}
        if got.keys() != want.keys() or any(abs(got[n] - w) > 1e-6 * abs(w) for n, w in want.items()):
            wrong.append(f"decode_action({module!r}, (0.3, 0.6, 0.9)) = {got}, trained with {want}")
    out = fact(not wrong, "; ".join(wrong[:4]) or
               f"the shipped agents reproduce the training-time outputs (3 greedy workflows and their "
               f"log_prob, 4 Agent 2 "
               f"batches, max error {worst:.2g} <= {tol:g}) and every controllable module decodes as trained")
    out.evidence.update(max_error=figure(worst, 3), mismatches=len(wrong))
    return out


register(Claim(
    id="designx.checkpoint_fidelity", paper=PAPER,
    source=f"Sections 3.2.1-3.3 ({ARXIV}: the trained agents and Agent 2's action decoding); our shipped "
           "checkpoint (algorithms/blackbox/checkpoints/designx.pt, trained at da35190) and "
           "algorithms.blackbox.agents / grammar.decode_action",
    origin=Origin.IMPLEMENTATION,
    statement="The shipped agents, loaded by load_agents, reproduce the outputs recorded with the code they "
              "were trained with (commit da35190) on fixed inputs: Agent 1's greedy workflow, its "
              "log-probability and entropy for 3 feature vectors (and log_prob scores each recorded workflow "
              "with the recorded log-probability), and Agent 2's means, stds and values for 2 "
              "observations on 4 workflows (DE, GA, PSO, Sep-CMA-ES), to 1e-4; and decode_action maps the "
              "action (0.3, 0.6, 0.9) of every controllable module to the hyperparameters it gave in "
              "training (1e-6 relative)",
    kind=Kind.PROPERTY,
    check=lambda ctx: _check_checkpoint_fidelity(ctx, post_ln=False),
    control=lambda ctx: _check_checkpoint_fidelity(ctx, post_ln=True),
    control_description="the same weights loaded into post-LN Transformer layers (norm_first=False: the "
                        "shapes agree, so the checkpoint loads): the outputs must then differ from the "
                        "recorded ones",
))
