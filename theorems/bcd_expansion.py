"""Claims of "Accelerating Block Coordinate Descent for LLM Finetuning via Landscape Expansion"
(Luo, Shen, Peng, Li, Li; NeurIPS 2025, OpenReview DBybUx7ARy), against :mod:`algorithms.optimizers.block`,
:mod:`algorithms.optimizers.expansion` and :mod:`algorithms.optimizers.finetune`.

* ``bcd_expansion.subproblem_suboptimal`` (numeric, Proposition 3.1): a frozen output layer that
  is not of full rank makes the BCD sub-problem strictly worse than the full problem: exactly
  (non-negative least squares) for the ℓ2 instance of the proof, and by training (BlockOptimizer
  over the hidden blocks reaches the floor log 2 and no lower, AdamW on everything goes far below)
  for the cross-entropy instance of Appendix D.3.2.
* ``bcd_expansion.rank_one_expansion`` (numeric, Proposition 4.1): a rank-1 correction of the
  frozen output layer removes the gap: the proof's explicit C through LowRankExpansion, and
  BCD + a trained rank-1 LowRankExpansion getting below the floor plain BCD cannot cross.
* ``bcd_expansion.sgd_expansion_escapes`` (numeric, derived): BREAD-SGD (expansion="sgd", the
  head an inactive block) gets below the same floor.
* ``bcd_expansion.block_epoch_descent`` (property, Theorem 4.2): deterministic BREAD-SGD with
  small steps decreases the loss over every block-epoch, and its expansion part alone decreases
  it by at least β/2·‖g‖² at every step (the descent-lemma step of the proof of Lemma D.6).
* ``bcd_expansion.state_memory`` (property, implementation): measured optimizer-state bytes
  equal those of the base AdamW on the active block alone.
* ``bcd_expansion.grads_freed`` (property, implementation): with expansion, no inactive
  parameter holds a gradient after the backward pass, and each moved by exactly −β g.
* ``bcd_expansion.matches_adam`` (numeric, implementation): on the tiny Markov finetune, BREAD-SGD
  ends within a stated margin of AdamW's loss at equal steps and below BAdam's, with a fraction of
  its state memory.
* ``bcd_expansion.switch_frequency`` (numeric, Figure 1(b)): BREAD-SGD beats BAdam at every K tried.
* ``bcd_expansion.input_domains`` (property, implementation): the documented input domains of
  BlockOptimizer, find_blocks, BlockCoordinateDescent, FinetuneTask and LowRankExpansion, probed at
  their closed ends and just outside.
* ``bcd_expansion.loop_contract`` (property, implementation): the training loop's epochs, seeds,
  default tolerance and blow-up test, the default blocks and orders, freeze, the task's shift and
  the state-byte count, as documented.
* ``bcd_expansion.deep_rank_one`` (numeric, Appendix D.3.3 Figure 2(b)): on an 8-layer ReLU net
  with each layer a block, a rank-1 correction on every layer lowers the training loss over one pass.

>>> from theorems.core import REGISTRY, coverage
>>> len([k for k in REGISTRY if k.startswith("bcd_expansion.")])
11
>>> coverage("bcd_expansion")["uncovered"]
[]
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
from dataclasses import replace
from fractions import Fraction
from functools import partial
from typing import Any

import flint
import numpy as np
import scipy.optimize
import scipy.stats
import sympy
import torch
from hypothesis import assume
from hypothesis import strategies as st

from algorithms import solve
from algorithms.optimizers.block import BlockCoordinateDescent, BlockOptimizer, optimizer_state_bytes
from algorithms.optimizers.expansion import LowRankExpansion
from algorithms.optimizers.finetune import FullFinetune, markov_finetune_task
from theorems.core import Claim, Context, Kind, Origin, Outcome, Result, register, register_results
from theorems.core.assumptions import domain_outcome
from theorems.core.certificates import Certificate, Method, Rejected
from theorems.core.evidence import figure, property_outcome
from theorems.core.sabotage import patched
from theorems.core.subjects import SUBJECTS, load_object

PAPER = "bcd_expansion"
SOURCE = "Luo et al., NeurIPS 2025, OpenReview DBybUx7ARy"
LOG2 = math.log(2.0)

register_results(PAPER, [
    Result("Proposition 3.1", "With a frozen output layer that is not of full rank, some data make the "
           "BCD sub-problem's minimum strictly larger than the full problem's", checkable=True),
    Result("Proposition 4.1", "A rank-1 update C of the frozen output layer, trained with the active "
           "block, closes that gap (the sub-problem then reaches the full problem's minimum)",
           checkable=True),
    Result("Theorem 4.2", "BREAD (SGD expansion, deterministic gradients, step-size rule of D.1) decreases "
           "the objective over every block-epoch; telescoped, an ε-stationary point in O(ε⁻²) iterations",
           checkable=True),
    Result("Table 1", "Peak memory and GPU hours finetuning Llama 3.1-8B/70B: BREAD needs slightly more than "
           "BAdam and far less than Adam (e.g. 23.5 GB against 21.8 GB and 208 GB at 8B)", checkable=True),
    Result("Table 2", "Math benchmark scores (GSM8K, MATH, NumGLUE, SimulEq, AQuA) after finetuning Llama "
           "3.1-8B/70B on MathInstruct: the BREAD variants beat BAdam and the other memory-efficient methods",
           checkable=False,
           why="finetuning 8B/70B language models for 3 epochs and scoring them on five benchmarks: GPU "
               "days; no CPU-scale analogue of a downstream benchmark score"),
    Result("Table 3", "MT-bench scores after instruction tuning (SFT) and DPO of Llama 3.1-8B",
           checkable=False,
           why="instruction tuning an 8B model and judging it with GPT-4/GPT-4o: GPU days and a paid judge"),
    Result("Figure 1(a)", "Training loss over one epoch: every landscape expansion variant converges faster "
           "than BAdam (BREAD-SGD faster than BREAD-LoRA, LoRA+ fastest)", checkable=True),
    Result("Figure 1(b)", "BREAD-LoRA beats BAdam at every block switch frequency K (32 to 512), and "
                          "larger K "
           "converges faster", checkable=True),
    Result("Figure 1(c)", "Already rank-1 expansion converges much faster than BAdam, and a larger rank "
                          "faster "
           "still", checkable=True),
    # appendix figures the #46 issue names: D.3.3's small multi-layer experiment
    Result("Figure 2(a) (appendix D.3.3)", "3-layer net, every layer a block, K = 100: BREAD-LoRA with a "
           "rank-1 correction converges far faster than BAdam, which only descends once the last layer "
           "has been trained", checkable=True),
    Result("Figure 2(b) (appendix D.3.3)", "the same on an 8-layer net", checkable=True),
])


# ----------------------------------------------------------------------------- certificates (issue #40)
def _floor_prove() -> dict:
    return {"p_label": "E/(2*E + S)", "half_minus_p": "S/(2*(2*E + S))",
            "meaning": "E = exp(shared logit of classes 0 and 1) > 0, S = sum of the other classes' exp >= 0"}


def _floor_recheck(proof: dict) -> str:
    E = sympy.Symbol("E", positive=True)
    S = sympy.Symbol("S", nonnegative=True)
    names = {"E": E, "S": S}
    p = sympy.sympify(proof["p_label"], locals=names)
    gap = sympy.sympify(proof["half_minus_p"], locals=names)
    # softmax of a label in {0, 1} when logits 0 and 1 are equal (equal head rows, any hidden output)
    if sympy.cancel(p - E / (E + E + S)) != 0:
        raise Rejected(f"{proof['p_label']} is not the softmax probability e^z/(e^z + e^z + S)")
    if sympy.cancel(sympy.Rational(1, 2) - p - gap) != 0:
        raise Rejected(f"1/2 − p is not {proof['half_minus_p']}")
    numerator, denominator = sympy.fraction(sympy.cancel(gap))
    if not (numerator.is_nonnegative and denominator.is_positive):
        raise Rejected(f"cannot sign {gap} for E > 0, S >= 0")
    return ("with head rows 0 and 1 equal, a label in {0, 1} gets softmax probability E/(2E + S) <= 1/2 "
            "(1/2 − p = S/(2(2E + S)) >= 0), so its cross-entropy is >= log 2 whatever the other blocks are")


def _floor_refute() -> dict:
    return {"logits": ["1", "0", "0"], "label": 0}


def _floor_recheck_witness(witness: dict) -> str:
    """Distinct head rows (the control): logits (1, 0, 0) give label 0 a loss below log 2, in arb balls."""
    logits = [flint.arb(int(Fraction(v))) for v in witness["logits"]]
    if len(logits) < 2 or witness["logits"][0] == witness["logits"][1]:
        raise Rejected("the witness needs distinct logits for classes 0 and 1")
    total = sum((z.exp() for z in logits), flint.arb(0))
    loss = -(logits[witness["label"]].exp() / total).log()
    if not loss < flint.arb(2).log():
        raise Rejected(f"loss {loss} is not below log 2")
    return f"logits {witness['logits']}, label {witness['label']}: cross-entropy {loss.str(5)} < log 2"


def _rank_one_prove() -> dict:
    return {"correction": "C = (y - W e1) e1^T", "sizes": [[m, h] for m in range(1, 5) for h in range(1, 5)]}


def _rank_one_recheck(proof: dict) -> str:
    sizes = [tuple(s) for s in proof["sizes"]]
    expected = [(m, h) for m in range(1, 5) for h in range(1, 5)]
    if sizes != expected or proof["correction"] != "C = (y - W e1) e1^T":
        raise Rejected(f"the artifact's sizes or correction are not the certified ones: "
                       f"{proof['correction']}")
    for m, h in sizes:       # generic symbolic W (m × h) and y: (W + C) e1 = y and rank C <= 1, exactly
        W = sympy.Matrix(m, h, lambda i, j: sympy.Symbol(f"w{i}_{j}"))
        y = sympy.Matrix(m, 1, lambda i, _: sympy.Symbol(f"y{i}"))
        e1 = sympy.Matrix(h, 1, lambda i, _: 1 if i == 0 else 0)
        C = (y - W * e1) * e1.T
        if (W + C) * e1 - y != sympy.zeros(m, 1) or any(C[:, j] != sympy.zeros(m, 1) for j in range(1, h)):
            raise Rejected(f"({m}, {h}): (W + C)e1 ≠ y or C has a second nonzero column")
    return ("for every m, h <= 4 and symbolic W, y: C = (y − We1)e1ᵀ has rank <= 1 (one nonzero column) and "
            "(W + C)e1 = y exactly (in general: We1 + (y − We1)(e1ᵀe1) = y)")


def _rank_one_refute() -> dict:
    # y = W z* with z* = (−1, 1): a negative entry, as in the proof of Proposition 3.1
    return {"W": [["1", "0"], ["0", "1"], ["1", "1"]], "y": ["-1", "1", "0"], "farkas": ["1", "0", "0"]}


def _rank_one_recheck_witness(witness: dict) -> str:
    """Control: without the correction (C = 0) the frozen W cannot reach y from any z >= 0 (ReLU outputs):
    a Farkas vector w with Wᵀw >= 0 and wᵀy < 0 proves min_{z>=0} ‖Wz − y‖ > 0."""
    W = [[Fraction(v) for v in row] for row in witness["W"]]
    y = [Fraction(v) for v in witness["y"]]
    w = [Fraction(v) for v in witness["farkas"]]
    wt_W = [sum(w[i] * W[i][j] for i in range(len(W))) for j in range(len(W[0]))]
    if not (all(v >= 0 for v in wt_W) and sum(wi * yi for wi, yi in zip(w, y, strict=True)) < 0):
        raise Rejected("the Farkas vector does not separate y from the cone of W's columns")
    return f"w = {[str(v) for v in w]}: Wᵀw = {[str(v) for v in wt_W]} >= 0, wᵀy < 0: no z >= 0 has Wz = y"


def _descent_prove() -> dict:
    return {"upper_bound": "f - beta*g2 + L*beta**2*g2/2", "claimed": "f - beta*g2/2",
            "difference": "beta*g2*(L*beta - 1)/2", "condition": "beta <= 1/L"}


def _descent_recheck(proof: dict) -> str:
    f, beta, g2, L = sympy.symbols("f beta g2 L", positive=True)
    names = {"f": f, "beta": beta, "g2": g2, "L": L}
    upper = sympy.sympify(proof["upper_bound"], locals=names)
    claimed = sympy.sympify(proof["claimed"], locals=names)
    difference = sympy.sympify(proof["difference"], locals=names)
    # the L-smooth upper bound at x − βg: f(x) − β‖g‖² + Lβ²‖g‖²/2
    if sympy.expand(upper - (f - beta * g2 + L * beta**2 * g2 / 2)) != 0:
        raise Rejected("the upper bound is not the L-smooth quadratic bound at x − βg")
    if sympy.expand(claimed - (f - beta * g2 / 2)) != 0 or proof["condition"] != "beta <= 1/L":
        raise Rejected("the claimed decrease is not β‖g‖²/2 under β <= 1/L")
    if sympy.expand(upper - claimed - difference) != 0:
        raise Rejected(f"upper − claimed is not {proof['difference']}")
    # β g2 / 2 > 0 and Lβ − 1 <= 0 for β <= 1/L: the difference is <= 0
    t = sympy.Symbol("t", nonnegative=True)      # t = 1 − Lβ >= 0
    if not sympy.expand(difference.subs(L, (1 - t) / beta) + beta * g2 * t / 2) == 0:
        raise Rejected("the difference is not −βg2(1 − Lβ)/2")
    return ("f(x − βg) <= f(x) − β‖g‖² + Lβ²‖g‖²/2 = f(x) − β‖g‖²/2 − β‖g‖²(1 − Lβ)/2 <= f(x) − β‖g‖²/2 "
            "for every 0 < β <= 1/L")


def _descent_refute() -> dict:
    return {"L": "1", "beta": "3", "x": "1"}


def _descent_recheck_witness(witness: dict) -> str:
    """Control β = 3/L: on f(x) = Lx²/2 (L-smooth) the step x − βf'(x) raises f."""
    L, beta, x = (Fraction(witness[k]) for k in ("L", "beta", "x"))
    g = L * x
    before, after = L * x * x / 2, L * (x - beta * g) ** 2 / 2
    if not (beta * L > 2 and after > before - beta * g * g / 2):
        raise Rejected(f"f goes {before} -> {after}: not a violation of the β‖g‖²/2 decrease")
    return f"β = {beta}/L: f(x) = Lx²/2 goes {before} -> {after}, no decrease β‖g‖²/2 = {beta * g * g / 2}"


_CERTIFICATES: dict[str, Certificate] = {
    "bcd_expansion.subproblem_suboptimal": Certificate(
        statement="With head rows 0 and 1 equal (a head not of full rank), every hidden output gives classes "
                  "0 and 1 the same logit, so a label in {0, 1} has softmax probability <= 1/2 and "
                  "cross-entropy >= log 2: the BCD sub-problem with the head frozen has infimum >= log 2 on "
                  "every data set labelled in {0, 1}, any architecture below the head and any number of "
                  "classes (the floor of Proposition 3.1 (b); that full training goes below it is the "
                  "check's)",
        scope="every hidden-layer output, every number of classes >= 2, every label in {0, 1}",
        method=Method.EXACT_ALGEBRA,
        trusts="sympy's rational-function arithmetic in E = e^z > 0, S >= 0; monotonicity of log",
        prove=_floor_prove,
        recheck=_floor_recheck,
        control_statement="the floor log 2 holds with distinct head rows too",
        refute=_floor_refute,
        recheck_witness=_floor_recheck_witness,
        mutate=lambda proof: {**proof, "half_minus_p": "S/(3*(2*E + S))"},
    ),
    "bcd_expansion.rank_one_expansion": Certificate(
        statement="The proof's correction C = (y − We1)e1ᵀ has rank <= 1 and makes (W + C)e1 = y, so "
                  "with the "
                  "hidden output z = e1 the rank-1-corrected frozen layer fits any target y exactly "
                  "(Proposition 4.1's construction in the ℓ2 case)",
        scope="every W (m × h) and y: symbolically for all m, h <= 4, and in general by the one-line "
              "identity "
              "We1 + (y − We1)(e1ᵀe1) = y",
        method=Method.EXACT_ALGEBRA,
        trusts="sympy's exact matrix arithmetic over Q[w, y]",
        prove=_rank_one_prove,
        recheck=_rank_one_recheck,
        control_statement="the frozen layer alone (C = 0) fits the target from some ReLU output z >= 0",
        refute=_rank_one_refute,
        recheck_witness=_rank_one_recheck_witness,
        mutate=lambda proof: {**proof, "sizes": proof["sizes"][:-1]},
    ),
    "bcd_expansion.block_epoch_descent": Certificate(
        statement="For an L-smooth objective, one expansion step x − βg with 0 < β <= 1/L decreases it by "
                  "at least β‖g‖²/2 (the descent-lemma step in the proof of Lemma D.6 that the claim's "
                  "check measures per step)",
        scope="every L > 0, 0 < β <= 1/L, every gradient g (the quadratic upper bound of L-smoothness "
              "assumed); the block-epoch telescoping and the step-size rule of D.1 are the check's",
        method=Method.EXACT_ALGEBRA,
        trusts="the quadratic upper bound of an L-smooth function (Nesterov 2004, Lemma 1.2.3); sympy's "
               "polynomial expansion",
        prove=_descent_prove,
        recheck=_descent_recheck,
        control_statement="the decrease β‖g‖²/2 also holds at β = 3/L",
        refute=_descent_refute,
        recheck_witness=_descent_recheck_witness,
        mutate=lambda proof: {**proof, "difference": "beta*g2*(L*beta - 2)/2"},
    ),
}


# ----------------------------------------------------------------------------- instances
def _ce_instance(seed: int, full_rank_head: bool, d: int = 6, hidden: int = 8, classes: int = 3,
                 n: int = 16) -> tuple[torch.Tensor, torch.Tensor, torch.nn.Sequential]:
    """Appendix D.3.2: a 3-layer ReLU classifier whose head has rows 0 and 1 equal; labels in {0, 1}.

    Equal rows give equal logits for classes 0 and 1 whatever the hidden layers do, so
    p(label) <= 1/2 and the cross-entropy is >= log 2 while the head is frozen.
    ``full_rank_head=True`` (the control: the assumption broken) leaves the rows distinct.
    """
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g, dtype=torch.float64)
    y = torch.randint(0, 2, (n,), generator=g)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(d, hidden), torch.nn.ReLU(),
                                    torch.nn.Linear(hidden, hidden),
                                    torch.nn.ReLU(), torch.nn.Linear(hidden, classes)).double()
    if not full_rank_head:
        with torch.no_grad():
            model[4].weight[1] = model[4].weight[0]
            model[4].bias[1] = model[4].bias[0]
    return X, y, model


def _best_loss(model: torch.nn.Module, optimizers: list[torch.optim.Optimizer], X: torch.Tensor,
               y: torch.Tensor, steps: int) -> float:
    """The smallest full-batch cross-entropy seen over ``steps`` steps of all ``optimizers``."""
    best = math.inf
    for _ in range(steps):
        for opt in optimizers:
            opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(X), y)
        best = min(best, float(loss.detach()))
        loss.backward()
        for opt in optimizers:
            opt.step()
    with torch.no_grad():
        return min(best, float(torch.nn.functional.cross_entropy(model(X), y)))


#: BCD hyperparameters of the cross-entropy runs (AdamW base, the paper's inner solver)
CE_LR = 0.05
CE_SWITCH = 20


def _bcd_impl(ctx: Context) -> str | None:
    """The plain BCD (subject ``BAdam``) this check runs, as a cache key: None for ours (our runs are
    cached and computed as before), else the ``module:object`` given (``--subject`` / ``--peers``; a
    control always gets ours). BREAD (expansion) runs stay ours: they are what the claims compare."""
    spec = ctx.subject_spec("BAdam")
    return None if spec == SUBJECTS["BAdam"].reference else spec


def _bcd_class(impl: str | None) -> Any:
    return BlockOptimizer if impl is None else load_object(impl)


def _bcd_frozen_head(seed: int, full_rank_head: bool, steps: int, impl: str | None = None) -> float:
    """Plain BCD (BAdam) over the two hidden blocks, the head frozen: the sub-problem of (1)."""
    X, y, model = _ce_instance(seed, full_rank_head)
    for p in model[4].parameters():
        p.requires_grad_(False)
    bcd = _bcd_class(impl)(model, switch_every=CE_SWITCH, lr=CE_LR)
    return _best_loss(model, [bcd], X, y, steps)


def _full_adamw(seed: int, full_rank_head: bool, steps: int) -> float:
    X, y, model = _ce_instance(seed, full_rank_head)
    return _best_loss(model, [torch.optim.AdamW(model.parameters(), lr=CE_LR)], X, y, steps)


def _l2_gap(seed: int, full_rank_head: bool) -> dict[str, float]:
    """The ℓ2 instance of the proof of Proposition 3.1 (Appendix D.2), solved exactly.

    W3 (m × h, full column rank) is frozen; y = W3 z* with z* having a negative entry. The
    sub-problem reaches every z3 >= 0 (ReLU outputs, W2 free), so its minimum is the
    non-negative least-squares residual min_{z>=0} ‖W3 z − y‖² > 0; the full problem reaches 0.
    The control (``full_rank_head=True`` names the broken assumption: here z* >= 0) gives 0.
    """
    rng = np.random.default_rng([seed, 31])
    W3 = rng.standard_normal((5, 3))
    z_star = np.abs(rng.standard_normal(3)) + 0.5
    if not full_rank_head:
        z_star[0] = -z_star[0]
    y = W3 @ z_star
    _, residual = scipy.optimize.nnls(W3, y)
    return {"subproblem_min": float(residual**2), "full_min": 0.0, "rank_W3": int(np.linalg.matrix_rank(W3))}


# ----------------------------------------------------------------------------- Proposition 3.1
#: the trained sub-problem may sit on log 2 up to float64 round-off of the loss (16 samples)
FLOOR_SLACK = 1e-9
#: ...and must reach it: BCD's best is log 2 + at most this (measured <= 8.1e-10 on 13 seeds at
#: 200 steps), so the gap is the sub-problem's, not an optimizer that failed to train
FLOOR_REACHED = 1e-6
#: full training must end clearly below the floor (nats); measured: below 1e-3 on every seed
FULL_TRAINING_GAP = 0.3


def _check_suboptimal(ctx: Context, full_rank_head: bool) -> Outcome:
    seeds = ctx.pick(3, 10)
    steps = ctx.pick(200, 1000)
    rows, failures = [], []
    for seed in range(ctx.seed * 100, ctx.seed * 100 + seeds):
        l2 = _l2_gap(seed, full_rank_head)
        bcd = _bcd_frozen_head(seed, full_rank_head, steps, _bcd_impl(ctx))
        full = _full_adamw(seed, full_rank_head, steps)
        rows.append({"seed": seed, "l2_subproblem_min": figure(l2["subproblem_min"], floor=1e-12),
                     "ce_bcd_best": figure(bcd), "ce_bcd_above_log2": figure(bcd - LOG2, 2, floor=1e-15),
                     "ce_full_best": figure(full, 3, floor=1e-6)})
        if not l2["subproblem_min"] > 1e-12:
            failures.append(f"seed {seed}: ℓ2 sub-problem reaches {l2['subproblem_min']:.3g} = the full "
                            "minimum")
        if bcd < LOG2 - FLOOR_SLACK:
            failures.append(f"seed {seed}: BCD with the head frozen reaches {bcd:.4f} < log 2")
        if bcd > LOG2 + FLOOR_REACHED:
            failures.append(f"seed {seed}: BCD with the head frozen stops at {bcd:.6f}, short of its floor "
                            "log 2")
        if full > LOG2 - FULL_TRAINING_GAP:
            failures.append(f"seed {seed}: full training only reaches {full:.4f}")
    evidence = {"runs": rows, "log2": figure(LOG2), "steps": steps, "failures": failures[:5]}
    if failures:
        return Outcome("fail", f"sub-problem not strictly suboptimal: {failures[0]}", evidence)
    return Outcome("pass", f"{seeds} instances: ℓ2 sub-problem minimum > 0 = full minimum; frozen-head BCD "
                           f"reaches its floor log 2 (to {FLOOR_REACHED:g}) and no lower, while AdamW "
                           f"reaches <= {max(r['ce_full_best'] for r in rows):.3g}",
                   evidence)


register(Claim(
    id="bcd_expansion.subproblem_suboptimal", paper=PAPER,
    source=f"Proposition 3.1, its proof in Appendix D.2 and the cross-entropy case of Appendix D.3.2 "
           f"({SOURCE})",
    origin=Origin.PAPER, covers=("Proposition 3.1",),
    deviation="Checked on concrete instances of a ReLU MLP (not a transformer): the ℓ2 case of the D.2 proof "
              "exactly (NNLS; that proof assumes W3 of full column rank, the opposite of the proposition's "
              "'not of full rank', so only part (b), two equal head rows as in D.3.2, meets the stated "
              "hypothesis), the cross-entropy case by training (the sub-problem's best loss over 200 BCD "
              "steps, not its exact infimum, against the provable floor log 2).",
    statement="With the output layer frozen and not of full rank, the BCD sub-problem is strictly worse "
              "than the full problem: (a) ℓ2, W3 of full column rank (5×3) and y = W3 z* with a negative "
              "entry in z*: min_{z>=0} ‖W3 z − y‖² > 0 = the full minimum; (b) cross-entropy, 3-layer ReLU "
              "net with head rows 0 and 1 equal, labels in {0, 1}: BlockOptimizer (AdamW, K = 20) over the "
              "two hidden blocks never gets below log 2 and reaches it (best <= log 2 + 1e-6), while AdamW "
              "on all parameters gets below log 2 − 0.3, on 3 seeds (full: 10).",
    kind=Kind.NUMERIC,
    check=partial(_check_suboptimal, full_rank_head=False),
    control=partial(_check_suboptimal, full_rank_head=True),
    control_description="The assumption broken: a full-rank head (distinct rows; in the ℓ2 case z* >= 0, "
                        "so the frozen W3 can still fit y): the sub-problem reaches the full minimum "
                        "(or gets below log 2), so the check must fail.",
    budget_s=40.0,
    subjects=("BAdam",),
    certificate=_CERTIFICATES["bcd_expansion.subproblem_suboptimal"],
    expected_verdict="certified"))


# ----------------------------------------------------------------------------- Proposition 4.1
#: the expanded sub-problem must beat the frozen floor by this much (nats); measured gap >= 0.33
EXPANSION_GAP = 0.2


def _bcd_rank_one(seed: int, steps: int, train_correction: bool, impl: str | None = None) -> float:
    """BCD over the hidden blocks, the head frozen but corrected by a rank-1 U V (Algorithm 1)."""
    X, y, model = _ce_instance(seed, full_rank_head=False)
    model[4] = LowRankExpansion(model[4], rank=1, seed=seed)
    hidden = [(name, p) for name, p in model.named_parameters() if not name.startswith("4.")]
    optimizers: list[torch.optim.Optimizer] = [_bcd_class(impl)(hidden, switch_every=CE_SWITCH, lr=CE_LR)]
    if train_correction:
        optimizers.append(torch.optim.AdamW([model[4].U, model[4].V], lr=CE_LR))
    return _best_loss(model, optimizers, X, y, steps)


def _explicit_correction(seed: int, apply: bool) -> dict[str, float]:
    """The proof's C = [y − W3 e1, 0, …, 0] through LowRankExpansion (U = y − W3 e1, V = e1ᵀ) at z3 = e1.

    ``apply=False`` (the control) keeps U = 0, the correction's initial (disabled) value.
    """
    rng = np.random.default_rng([seed, 31])
    W3 = rng.standard_normal((5, 3))
    z_star = np.abs(rng.standard_normal(3)) + 0.5
    z_star[0] = -z_star[0]
    y = torch.as_tensor(W3 @ z_star)
    linear = torch.nn.Linear(3, 5, bias=False).double()
    with torch.no_grad():
        linear.weight.copy_(torch.as_tensor(W3))
    layer = LowRankExpansion(linear, rank=1)
    e1 = torch.zeros(1, 3, dtype=torch.float64)
    e1[0, 0] = 1.0
    with torch.no_grad():
        if apply:
            layer.U.copy_((y - linear.weight[:, 0])[:, None])
        layer.V.copy_(e1)
        loss = float(((layer(e1)[0] - y) ** 2).sum())
        rank = int(torch.linalg.matrix_rank(layer.merged_weight() - linear.weight))
    return {"loss": loss, "rank_C": rank}


#: Kolmogorov-Smirnov level for V's entries against U(−√(6/in), √(6/in)) (2000 entries per draw)
INIT_KS_LEVEL = 1e-3


def _initialization(seed: int) -> dict[str, float]:
    """Appendix B's start: C = U V = 0 (the wrapped layer exactly) and V Kaiming uniform on ±√(6/in)."""
    linear = torch.nn.Linear(500, 8).double()
    layer = LowRankExpansion(linear, rank=4, seed=seed)
    x = torch.randn(3, 500, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    with torch.no_grad():
        same = bool(torch.equal(layer(x), linear(x)))
        bound = math.sqrt(6.0 / 500)
        entries = layer.V.reshape(-1).numpy()
    p_value = float(scipy.stats.kstest(entries, scipy.stats.uniform(loc=-bound, scale=2 * bound).cdf).pvalue)
    return {"identity_at_start": same, "ks_p": p_value}


def _check_rank_one(ctx: Context, train_correction: bool) -> Outcome:
    seeds = ctx.pick(3, 10)
    steps = ctx.pick(200, 1000)
    rows, failures = [], []
    start = _initialization(ctx.seed)
    if not (start["identity_at_start"] and start["ks_p"] > INIT_KS_LEVEL):
        failures.append(f"initialization: output equals the wrapped layer's: {start['identity_at_start']}, "
                        f"KS p-value of V against Kaiming uniform {start['ks_p']:.3g}")
    for seed in range(ctx.seed * 100, ctx.seed * 100 + seeds):
        explicit = _explicit_correction(seed, apply=train_correction)
        best = _bcd_rank_one(seed, steps, train_correction, _bcd_impl(ctx))
        rows.append({"seed": seed, "explicit_loss": figure(explicit["loss"], floor=1e-12),
                     "rank_C": explicit["rank_C"], "bcd_rank1_best": figure(best, 4, floor=1e-6)})
        # round-off of ‖(W3 + C)e1 − y‖² with O(1) entries: 1e-20 is far above it, far below any miss
        if not (explicit["loss"] <= 1e-20 and explicit["rank_C"] == 1):
            failures.append(f"seed {seed}: explicit rank-1 C leaves loss {explicit['loss']:.3g}")
        if best > LOG2 - EXPANSION_GAP:
            failures.append(f"seed {seed}: rank-1 expanded BCD only reaches {best:.4f} (floor log 2)")
    evidence = {"runs": rows, "log2": figure(LOG2), "required_gap": EXPANSION_GAP, "steps": steps,
                "init_ks_p": figure(start["ks_p"], 3), "failures": failures[:5]}
    if failures:
        return Outcome("fail", f"rank-1 expansion does not close the gap: {failures[0]}", evidence)
    return Outcome("pass", f"{seeds} instances: the explicit rank-1 C attains 0; trained rank-1 expansion "
                           f"reaches <= {max(r['bcd_rank1_best'] for r in rows):.3g} < log 2 − "
                           f"{EXPANSION_GAP}",
                   evidence)


register(Claim(
    id="bcd_expansion.rank_one_expansion", paper=PAPER,
    source=f"Proposition 4.1 and its proof (Appendix D.2); Algorithm 1 (BREAD-LoRA) with rank 1; the rank-1 "
           f"curve of Figure 1(c); Figure 2(a) (appendix D.3.3) ({SOURCE})",
    origin=Origin.PAPER, covers=("Proposition 4.1", "Figure 1(c)", "Figure 2(a) (appendix D.3.3)"),
    deviation="Figure 1(c) only in its rank-1 part and on the Proposition 3.1 instance (rank-1 expanded BCD "
              "gets below the floor where BAdam, the plain BCD, stays at log 2), not the rank sweep on "
              "Llama. "
              "On the instances of subproblem_suboptimal: the ℓ2 case by the proof's explicit C, the "
              "cross-entropy case by training a rank-1 correction (200 steps), so 'resolved' means "
              "'at least 0.2 nats below the frozen floor log 2', not an exact minimum; Appendix B's bound "
              "for V reads √(6/r) in our copy, taken as Kaiming's fan-in bound √(6/in). Figure 2(a) of "
              "appendix D.3.3 (3 layers, every layer a block, K = 100, BAdam descending only once its last "
              "layer is trained) is read on the same 3-layer instance with the head frozen throughout (BAdam "
              "never trains it, so it stays at log 2) and a 0.2-nat gap, not as loss curves over steps.",
    statement="(a) ℓ2: the proof's rank-1 C = [y − W3 e1, 0, 0], applied through LowRankExpansion "
              "(U = y − W3 e1, V = e1ᵀ), makes ‖(W3 + C) e1 − y‖² = 0 (<= 1e-20) with rank(C) = 1; "
              "(b) cross-entropy, head rows equal and frozen: BCD over the hidden blocks with a rank-1 "
              "LowRankExpansion of the head trained alongside (AdamW, Algorithm 1) reaches a loss <= "
              "log 2 − 0.2, on 3 seeds (full: 10); (c) the correction starts as Appendix B says: the "
              "wrapped layer's output exactly (U = 0) and V's entries Kaiming uniform on ±√(6/in) (KS "
              "p-value > 1e-3 over 2000 entries).",
    kind=Kind.NUMERIC,
    check=partial(_check_rank_one, train_correction=True),
    control=partial(_check_rank_one, train_correction=False),
    control_description="Expansion disabled: the rank-1 correction is present but stays at its initial "
                        "U = 0 (never trained, the explicit C not set), so the ℓ2 loss stays ‖W3 e1 − y‖² "
                        "> 0, BCD stays at log 2 and the check must fail.",
    budget_s=30.0,
    subjects=("BAdam",),
    certificate=_CERTIFICATES["bcd_expansion.rank_one_expansion"],
    expected_verdict="certified"))


# ----------------------------------------------------------------------------- SGD expansion
def _bcd_sgd_expansion(seed: int, steps: int, expansion: str) -> float:
    """BREAD-SGD: blocks (layer 0, layer 2, head); K > steps/2 so the head is never the active block."""
    X, y, model = _ce_instance(seed, full_rank_head=False)
    opt = BlockOptimizer(model, blocks=[r"^0\.", r"^2\.", r"^4\."], switch_every=steps // 2 + 1, lr=CE_LR,
                         expansion=expansion, expansion_lr_scale=1.0)
    return _best_loss(model, [opt], X, y, steps)


def _check_sgd_expansion(ctx: Context, expansion: str) -> Outcome:
    seeds = ctx.pick(3, 10)
    steps = ctx.pick(200, 1000)
    rows = [{"seed": s, "best": figure(_bcd_sgd_expansion(s, steps, expansion), 4, floor=1e-6)}
            for s in range(ctx.seed * 100, ctx.seed * 100 + seeds)]
    worst = max(r["best"] for r in rows)
    evidence = {"runs": rows, "log2": figure(LOG2), "required_gap": EXPANSION_GAP, "expansion": expansion}
    status = "pass" if worst <= LOG2 - EXPANSION_GAP else "fail"
    return Outcome(status, f"expansion={expansion!r}, head never active: worst best loss {worst:.4f} vs "
                           f"log 2 − {EXPANSION_GAP} = {LOG2 - EXPANSION_GAP:.4f}", evidence)


register(Claim(
    id="bcd_expansion.sgd_expansion_escapes", paper=PAPER,
    source=f"Section 4.2 'Algorithm II: SGD based expansion' and Appendix C (Algorithm 2), applied to the "
           f"instance of Proposition 3.1 ({SOURCE})",
    origin=Origin.DERIVED,
    statement="On the cross-entropy instance of subproblem_suboptimal (head rows equal), BREAD-SGD "
              "(BlockOptimizer, blocks = layer 0, layer 2, head; the head never the active block; the "
              "head moved by on-the-fly SGD with β = lr) reaches a loss <= log 2 − 0.2 within 200 steps "
              "on 3 seeds (full: 1000 steps, 10 seeds): the full-rank SGD expansion also escapes the "
              "frozen floor.",
    kind=Kind.NUMERIC,
    check=partial(_check_sgd_expansion, expansion="sgd"),
    control=partial(_check_sgd_expansion, expansion="none"),
    control_description="Expansion disabled (expansion='none', the head frozen as plain BCD freezes it): "
                        "the loss stays at log 2 and the check must fail.",
    budget_s=30.0))


# ----------------------------------------------------------------------------- Theorem 4.2
def _descent_instance(seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.nn.Sequential]:
    """A smooth (tanh) 3-layer regression net, full batch: Assumptions D.1/D.2 hold on bounded sets."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(20, 5, generator=g, dtype=torch.float64)
    y = torch.randn(20, 2, generator=g, dtype=torch.float64)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = torch.nn.Sequential(torch.nn.Linear(5, 6), torch.nn.Tanh(), torch.nn.Linear(6, 6),
                                    torch.nn.Tanh(),
                                    torch.nn.Linear(6, 2)).double()
    return X, y, model


def _block_epoch_losses(seed: int, lr: float, K: int, epochs: int) -> dict[str, Any]:
    """Full-batch BREAD-SGD (Adam on the active block, no weight decay: Algorithm 2).

    Also splits every step as the proof of Lemma D.6 does: the expansion part (the hooks'
    W_l ← W_l − β g_l on the inactive blocks, done inside backward, before the Adam step) must
    alone decrease H by at least β/2 · Σ_l ‖g_l‖² = ‖ΔW‖²/(2β) (the descent lemma for β ≤ 1/L);
    ``expansion_slack`` is the worst (decrease − that bound) / H over all steps.
    """
    X, y, model = _descent_instance(seed)

    def loss() -> torch.Tensor:
        return ((model(X) - y) ** 2).mean()

    grads = torch.autograd.grad(loss(), list(model.parameters()))
    G = max(float(torch.cat([g.reshape(-1) for g in grads[2 * i:2 * i + 2]]).norm()) for i in range(3))
    beta = 2.0 * lr / G                                   # the rule β = 2α/G of Theorem D.5 (our reading)
    opt = BlockOptimizer(model, switch_every=K, lr=lr, expansion="sgd", expansion_lr_scale=beta / lr,
                         weight_decay=0.0)
    params = dict(model.named_parameters())
    epoch_len = opt.num_blocks * K
    losses = [float(loss().detach())]
    expansion_slack = math.inf
    for t in range(epochs * epoch_len):
        inactive = [n for n in params if n not in set(opt.block_names[opt.active_block])]
        before = {n: params[n].detach().clone() for n in inactive}
        opt.zero_grad()
        value = loss()
        value.backward()                                  # the hooks move the inactive blocks here
        with torch.no_grad():
            moved = sum(float((params[n] - before[n]).square().sum()) for n in inactive)
            decrease = float(value.detach()) - float(loss())
        expansion_slack = min(expansion_slack, (decrease - moved / (2 * beta)) / float(value.detach()))
        opt.step()
        if (t + 1) % epoch_len == 0:
            losses.append(float(loss().detach()))
    return {"losses": losses, "G": G, "beta": beta, "expansion_slack": expansion_slack}


_descent_params = st.fixed_dictionaries({"seed": st.integers(0, 2**20), "K": st.integers(2, 6)})


def _check_descent(ctx: Context, lr: float) -> Outcome:
    epochs = ctx.pick(12, 40)

    def test(params: dict) -> dict:
        run = _block_epoch_losses(params["seed"], lr, params["K"], epochs)
        h = np.asarray(run["losses"])
        increases = np.diff(h)
        # per-epoch change must be <= 0 up to round-off of a 20-sample float64 mean (1e-12 relative)
        worst = float(np.max(increases)) if np.all(np.isfinite(h)) else math.inf
        assert worst <= 1e-12 * float(h[0]), (
            f"H rose by {worst:.3g} over a block-epoch (K = {params['K']}, lr = {lr}, losses "
            f"{[round(float(v), 5) for v in h[:6]]}...)")
        # the same round-off allowance, relative to H, for the expansion part's descent-lemma bound
        assert run["expansion_slack"] >= -1e-12, (
            f"an expansion step (the inactive blocks' SGD part alone) decreased H by less than "
            f"β/2·‖g‖² (relative slack {run['expansion_slack']:.3g}, K = {params['K']}, lr = {lr})")
        return {"worst_increase": figure(worst, 3), "first_loss": figure(h[0]), "last_loss": figure(h[-1]),
                "beta": figure(run["beta"], 3), "expansion_slack": figure(run["expansion_slack"], 3)}

    return property_outcome(_descent_params, test, ctx=ctx, max_examples=ctx.pick(4, 20),
                            what=f"H(W^(t+1)) <= H(W^t) over every block-epoch (Adam lr {lr}, β = 2·lr/G)")


#: small enough for the rule of Theorem D.5 on these nets (measured: steady descent on every seed)
DESCENT_LR = 3e-3
#: far above the rule: the Adam/SGD steps overshoot and the loss blows up within a few block-epochs
OVERSIZED_LR = 0.3

register(Claim(
    id="bcd_expansion.block_epoch_descent", paper=PAPER,
    source=f"Theorem 4.2 (informal; formal as Theorem D.5 with Lemma D.6, Appendix D.1) ({SOURCE})",
    origin=Origin.PAPER, covers=("Theorem 4.2",),
    deviation="The sign of the per-block-epoch change, plus the descent-lemma ingredient of the proof of "
              "Lemma D.6 for the expansion part, not the constants of (8)/(12), which our copy lacks, nor "
              "the telescoped O(ε⁻²) complexity; the "
              "step sizes are ours (Adam lr 3e-3, not checked against the rule's bound on α; β = 2·lr/G with "
              "G the largest block gradient norm at the start, not the trajectory bound of Assumption D.2: "
              "our reading of the stripped rule), on small smooth tanh nets.",
    statement="BREAD-SGD with deterministic (full-batch) gradients, Adam (lr 3e-3, no weight decay) on the "
              "active block and SGD expansion with β = 2·lr/G on the inactive ones, on a 3-layer tanh "
              "regression net (20 samples): the loss after each block-epoch is <= the loss before it, for "
              "12 block-epochs (full: 40), and at every step the expansion part alone (the inactive blocks' "
              "W − βg, before the Adam step) decreases the loss by at least β/2·Σ‖g‖²; K drawn in [2, 6], "
              "4 drawn instances (full: 20).",
    kind=Kind.PROPERTY,
    check=partial(_check_descent, lr=DESCENT_LR),
    control=partial(_check_descent, lr=OVERSIZED_LR),
    control_description="Step sizes far above the rule (Adam lr 0.3, β = 0.6/G): the iterates overshoot and "
                        "the loss rises (to overflow) within a few block-epochs; the check must fail.",
    budget_s=40.0,
    certificate=_CERTIFICATES["bcd_expansion.block_epoch_descent"],
    expected_verdict="certified"))


# ----------------------------------------------------------------------------- state memory
_memory_params = st.fixed_dictionaries({
    "widths": st.lists(st.integers(2, 8), min_size=3, max_size=6),
    "switch_every": st.integers(1, 4),
    "steps": st.integers(1, 12),
    "order": st.sampled_from(["ascending", "descending", "random"]),
    "expansion": st.sampled_from(["none", "sgd", "sign"]),
    "seed": st.integers(0, 2**20),
})


def _mlp(widths: list[int], seed: int) -> torch.nn.Sequential:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layers: list[torch.nn.Module] = []
        for a, b in itertools.pairwise(widths):
            layers += [torch.nn.Linear(a, b), torch.nn.Tanh()]
        return torch.nn.Sequential(*layers[:-1]).double()


def _reference_state_bytes(params: list[torch.Tensor], steps: int) -> int:
    """Measured state of a separate AdamW on copies of ``params`` after ``steps`` steps (0 if none)."""
    copies = [torch.nn.Parameter(p.detach().clone()) for p in params]
    alone = torch.optim.AdamW(copies, lr=1e-3)
    for _ in range(steps):
        for c in copies:
            c.grad = torch.ones_like(c)
        alone.step()
    return optimizer_state_bytes(alone)


def _expected_block(params: dict, num_blocks: int) -> tuple[int, int]:
    """(active block, steps taken in it) after ``steps`` steps, from the schedule's definition alone.

    K steps per block, blocks in the order (ascending, descending, or the permutation
    ``numpy.random.default_rng([seed, epoch])`` draws for each block-epoch, as documented).
    """
    switches, in_block = divmod(params["steps"], params["switch_every"])
    epoch, position = divmod(switches, num_blocks)
    order = list(range(num_blocks))
    if params["order"] == "descending":
        order.reverse()
    elif params["order"] == "random":
        order = [int(i) for i in np.random.default_rng([params["seed"], epoch]).permutation(num_blocks)]
    return order[position], in_block


def _check_memory(ctx: Context, sabotage: bool) -> Outcome:
    bcd = ctx.subject("BAdam")      # ours, or a peer's (--subject / --peers); the control: plain AdamW

    def test(params: dict) -> dict:
        model = _mlp(params["widths"], params["seed"])
        g = torch.Generator().manual_seed(params["seed"])
        X = torch.randn(6, params["widths"][0], generator=g, dtype=torch.float64)
        if sabotage:
            opt: torch.optim.Optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        else:
            try:
                opt = bcd(model, switch_every=params["switch_every"], order=params["order"],
                          expansion=params["expansion"], lr=1e-3, seed=params["seed"])
            except NotImplementedError:     # a peer without the draw's setting (BAdam: expansion, seeded
                assume(False)               # random order): not counted in examples_run
        for _ in range(params["steps"]):
            opt.zero_grad()
            model(X).square().mean().backward()
            opt.step()
        # the Sequential's Linear layers sit at 0, 2, 4, ...: block b is layer 2b (weight and bias)
        active, in_block = _expected_block(params, len(params["widths"]) - 1)
        layer = model[2 * active]
        expected = _reference_state_bytes([layer.weight, layer.bias], in_block)
        measured = optimizer_state_bytes(opt)
        assert measured == expected, (f"measured state {measured} B, AdamW on the active block (layer "
                                      f"{2 * active}) alone after {in_block} steps: {expected} B")
        if not sabotage:             # the state_dict round trip keeps the state and the schedule position
            resumed = bcd(_mlp(params["widths"], params["seed"]),
                          switch_every=params["switch_every"], order=params["order"],
                          expansion=params["expansion"], lr=1e-3, seed=params["seed"])
            resumed.load_state_dict(copy.deepcopy(opt.state_dict()))
            block = getattr(resumed, "active_block", None)      # a peer may not say which block is active
            assert (block, optimizer_state_bytes(resumed)) == (active, expected), (
                f"after a state_dict round trip: block {block}, "
                f"{optimizer_state_bytes(resumed)} B; expected block {active}, {expected} B")
        return {"measured_bytes": measured, "active_block_bytes": expected}

    out = property_outcome(_memory_params, test, ctx=ctx, max_examples=ctx.pick(25, 200),
                           what="optimizer-state bytes == base AdamW's on the active block only")
    if out.status == "pass" and not out.evidence.get("examples_run"):
        return Outcome("undecided", f"{out.summary}; but the subject could express none of the draws",
                       out.evidence, out.artifacts)
    return out


register(Claim(
    id="bcd_expansion.state_memory", paper=PAPER,
    source=f"Section 2 'Memory efficiency of BCD' and Section 4.3 'Memory cost analysis' ({SOURCE}); our "
           "BlockOptimizer and its measured state",
    origin=Origin.IMPLEMENTATION,
    statement="For random MLPs (2-5 blocks, widths 2-8), schedules (K in [1, 4], 1-12 steps, any order, any "
              "expansion), the bytes of the tensors the BlockOptimizer's state holds (measured by walking "
              "its state_dict) equal those of a separate AdamW stepped as often on the active block alone, "
              "the block and the step count computed from the schedule's definition (0 right after a "
              "switch: the old state is dropped), also after a state_dict round trip into a fresh "
              "optimizer; 25 drawn cases (full: 200).",
    kind=Kind.PROPERTY,
    check=partial(_check_memory, sabotage=False),
    control=partial(_check_memory, sabotage=True),
    control_description="Plain AdamW on all parameters in place of the BlockOptimizer: its state covers "
                        "every block, so it exceeds the active block's and the check must fail.",
    budget_s=30.0,
    subjects=("BAdam",)))


# ----------------------------------------------------------------------------- grads freed
_grads_params = st.fixed_dictionaries({
    "widths": st.lists(st.integers(2, 8), min_size=3, max_size=6),
    "expansion": st.sampled_from(["sgd", "sign"]),
    "scale": st.sampled_from([0.1, 0.5, 1.0, 2.0]),
    "active_steps": st.integers(0, 5),
    "seed": st.integers(0, 2**20),
})


def _check_grads_freed(ctx: Context, remove_hooks: bool) -> Outcome:
    def test(params: dict) -> dict:
        model = _mlp(params["widths"], params["seed"])
        g = torch.Generator().manual_seed(params["seed"])
        X = torch.randn(6, params["widths"][0], generator=g, dtype=torch.float64)
        opt = BlockOptimizer(model, switch_every=2, lr=0.01, expansion=params["expansion"],
                             expansion_lr_scale=params["scale"])
        if remove_hooks:
            opt.remove_hooks()
        for _ in range(params["active_steps"]):      # move the schedule to some block
            opt.zero_grad()
            model(X).square().mean().backward()
            opt.step()
        active = set(opt.block_names[opt.active_block])
        names = [n for n, _ in model.named_parameters()]
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        reference = torch.autograd.grad(model(X).square().mean(), list(model.parameters()))
        opt.zero_grad()
        model(X).square().mean().backward()
        opt.step()
        beta = 0.01 * params["scale"]
        held = [n for n, p in model.named_parameters() if n not in active and p.grad is not None]
        assert not held, f"inactive parameters still hold gradients after the pass: {held}"
        worst = 0.0
        for name, p, grad in zip(names, model.parameters(), reference, strict=True):
            if name in active:
                continue
            step = grad.sign() if params["expansion"] == "sign" else grad
            worst = max(worst, float((p.detach() - (before[name] - beta * step)).abs().max()))
        # one in-place add per entry on O(1) float64 values: 1e-13 is far above its round-off
        assert worst <= 1e-13, f"an inactive parameter moved {worst:.3g} away from W − β g"
        return {"worst_update_error": figure(worst, 2, floor=1e-16), "inactive": len(names) - len(active)}

    return property_outcome(_grads_params, test, ctx=ctx, max_examples=ctx.pick(25, 200),
                            what="after backward + step, no inactive gradient is held and W ← W − β·g")


register(Claim(
    id="bcd_expansion.grads_freed", paper=PAPER,
    source=f"Section 4.2 'Algorithm II' and Algorithm 2 lines 17-21 (update then discard each inactive "
           f"gradient within the backward pass) ({SOURCE}); our post-accumulate-grad hooks",
    origin=Origin.IMPLEMENTATION,
    statement="For random MLPs and either expansion ('sgd', 'sign') at β = scale·lr: after one backward pass "
              "and step, no parameter outside the active block holds a .grad, and each moved by exactly "
              "−β g (or −β sign g), g its gradient computed independently by torch.autograd.grad; 25 drawn "
              "cases (full: 200).",
    kind=Kind.PROPERTY,
    check=partial(_check_grads_freed, remove_hooks=False),
    control=partial(_check_grads_freed, remove_hooks=True),
    control_description="Hooks removed (BlockOptimizer.remove_hooks()): the inactive gradients stay in .grad "
                        "and the parameters do not move; the check must fail.",
    budget_s=20.0))


# ----------------------------------------------------------------------------- matches Adam
#: BREAD-SGD's final finetune loss may exceed AdamW's by at most this (nats) at equal steps
MATCH_MARGIN = 0.05
#: BCD schedule and expansion scale of the finetune runs (chosen on seeds 10-12, see the note)
MATCH_K = 20
MATCH_SCALE = 3.0
MATCH_LR = 1e-2
#: a tolerance no run meets (reference_loss is set to 0): every run goes the whole horizon
MATCH_TOL = 1e-9
#: the state-memory allowance of the issue: (1/#blocks + 5 %) of AdamW's
MEMORY_SLACK = 0.05


def _finetune_task(seed: int, pretrain_steps: int) -> Any:
    task = markov_finetune_task(seed=seed, architecture="mlp", width=32, depth=4, n=128,
                                pretrain_steps=pretrain_steps)
    return replace(task, reference_loss=0.0)          # run the whole horizon: no early Success


def _mean_loss(sol: Any) -> float:
    """Mean full-sample loss over the run's steps: the area under the loss curve (convergence speed)."""
    return float(np.mean([record["loss"] for record in sol.trace]))


@functools.lru_cache(maxsize=16)
def _finetune_peers(seed: int, steps: int, pretrain_steps: int, impl: str | None = None) -> dict[str, Any]:
    """AdamW's and BAdam's runs on the seed's task; shared by check and control (only BREAD differs).
    ``impl``: the BAdam run's implementation (:func:`_bcd_impl`)."""
    task = _finetune_task(seed, pretrain_steps)
    adam = solve(task, FullFinetune(lr=MATCH_LR), maxiters=steps, tol=MATCH_TOL, seed=seed)
    badam = solve(task, BlockCoordinateDescent(lr=MATCH_LR, switch_every=MATCH_K,
                                               optimizer=None if impl is None else load_object(impl)),
                  maxiters=steps, tol=MATCH_TOL, seed=seed, store_trace=True)
    blocks = BlockOptimizer(copy.deepcopy(task.model), lr=MATCH_LR).num_blocks
    return {"task": task, "adamw": adam.value, "badam": badam.value, "badam_mean": _mean_loss(badam),
            "adamw_bytes": adam.original["peak_state_bytes"], "blocks": blocks}


def _check_matches(ctx: Context, sabotage: bool) -> Outcome:
    steps = ctx.pick(200, 1000)
    seeds = ctx.pick(2, 5)
    rows, failures = [], []
    for seed in range(ctx.seed * 100, ctx.seed * 100 + seeds):
        peers = _finetune_peers(seed, steps, ctx.pick(100, 400), _bcd_impl(ctx))
        lr = MATCH_LR if not sabotage else MATCH_LR * 1e-3
        bread = solve(peers["task"], BlockCoordinateDescent(lr=lr, switch_every=MATCH_K, expansion="sgd",
                                                            expansion_lr_scale=MATCH_SCALE),
                      maxiters=steps, tol=MATCH_TOL, seed=seed, store_trace=True)
        ratio = bread.original["peak_state_bytes"] / peers["adamw_bytes"]
        allowance = 1.0 / peers["blocks"] + MEMORY_SLACK
        rows.append({"seed": seed, "adamw": figure(peers["adamw"], 4), "bread_sgd": figure(bread.value, 4),
                     "badam": figure(peers["badam"], 4), "bread_sgd_mean": figure(_mean_loss(bread), 4),
                     "badam_mean": figure(peers["badam_mean"], 4), "state_ratio": figure(ratio, 4),
                     "blocks": peers["blocks"]})
        if not bread.value <= peers["adamw"] + MATCH_MARGIN:
            failures.append(f"seed {seed}: BREAD-SGD {bread.value:.4f} > AdamW {peers['adamw']:.4f} + "
                            f"{MATCH_MARGIN}")
        if not bread.value < peers["badam"]:
            failures.append(f"seed {seed}: BREAD-SGD's final loss {bread.value:.4f} >= BAdam's "
                            f"{peers['badam']:.4f}")
        if not _mean_loss(bread) < peers["badam_mean"]:
            failures.append(f"seed {seed}: BREAD-SGD's mean loss {_mean_loss(bread):.4f} >= BAdam's "
                            f"{peers['badam_mean']:.4f}")
        if not ratio <= allowance:
            failures.append(f"seed {seed}: state ratio {ratio:.3f} > 1/{peers['blocks']} + {MEMORY_SLACK}")
    evidence = {"runs": rows, "steps": steps, "margin": MATCH_MARGIN, "failures": failures[:5]}
    if failures:
        return Outcome("fail", failures[0], evidence)
    return Outcome("pass", f"{seeds} finetunes of {steps} steps: BREAD-SGD ends within {MATCH_MARGIN} nats "
                           f"of AdamW, ends below and converges faster than BAdam, with "
                           f"{max(r['state_ratio'] for r in rows):.2f}× AdamW's optimizer state", evidence)


register(Claim(
    id="bcd_expansion.matches_adam", paper=PAPER,
    source=f"Figure 1(a) and Table 1, with the abstract and Sections 5.2-5.4 (BREAD matches Adam with BCD's "
           f"memory; expansion accelerates BAdam), at our tiny scale ({SOURCE})",
    origin=Origin.PAPER, covers=("Figure 1(a)", "Table 1"),
    deviation="A residual MLP finetuned on a Markov chain (not Llama 3.1 on MathInstruct), BREAD-SGD "
              "only (the "
              "LoRA and LoRA+ curves of Figure 1(a) are not run), 200 steps; 'faster' read as a lower mean "
              "loss over the run and a lower final loss than BAdam. Table 1 only through optimizer-state "
              "bytes (not peak GPU memory or GPU hours; the time ratio is in benchmarks/bench_bcd.py).",
    statement="On the tiny Markov finetune (the family's residual MLP, width 32, 4 hidden blocks + 1, "
              "pretrained 100 steps on one chain and finetuned on 128 sequences of another), after 200 "
              "steps (full: 1000) at lr 1e-2: BREAD-SGD (K = 20, β = 3·lr) ends at most 0.05 nats above "
              "AdamW's final loss, its final loss and its mean loss over the run are below BAdam's (the same "
              "BCD without expansion, which also ends within 0.05 of AdamW, so the margin alone would not "
              "tell them apart), and its measured peak optimizer state is at most (1/#blocks + 5 %) of "
              "AdamW's; 2 seeds (full: 5).",
    kind=Kind.NUMERIC,
    check=partial(_check_matches, sabotage=False),
    control=partial(_check_matches, sabotage=True),
    control_description="A sabotaged BREAD-SGD whose steps are 1000× too small (lr 1e-5): the same check "
                        "(margin to AdamW, faster than BAdam) must fail.",
    budget_s=60.0,
    subjects=("BAdam",)))


# ------------------------------------------------------------- Figure 1(b): block switch frequency
#: the block switch frequencies of the sweep (the matches_adam finetune uses K = 20)
SWEEP_K = (10, 40)


@functools.lru_cache(maxsize=8)
def _cached_finetune_task(seed: int, pretrain_steps: int) -> Any:
    """The pretrained task, built once per seed (seeded generators: the same task every time; solve trains a
    copy of its model)."""
    return _finetune_task(seed, pretrain_steps)


@functools.lru_cache(maxsize=64)
def _sweep_mean_loss(seed: int, pretrain_steps: int, K: int, expansion: str, lr: float, steps: int,
                     impl: str | None = None) -> float:
    """Mean loss over one finetune run (cached: the control reuses the check's BAdam runs); ``impl``:
    the plain BCD's implementation (:func:`_bcd_impl`)."""
    task = _cached_finetune_task(seed, pretrain_steps)
    sol = solve(task, BlockCoordinateDescent(lr=lr, switch_every=K, expansion=expansion,
                                             expansion_lr_scale=MATCH_SCALE,
                                             optimizer=None if impl is None else load_object(impl)),
                maxiters=steps, tol=MATCH_TOL, seed=seed, store_trace=True)
    return _mean_loss(sol)


def _check_switch_frequency(ctx: Context, sabotage: bool) -> Outcome:
    steps, seeds = ctx.pick(100, 1000), ctx.pick(2, 5)
    rows, failures, impl = [], [], _bcd_impl(ctx)
    for seed in range(ctx.seed * 100, ctx.seed * 100 + seeds):
        for K in SWEEP_K:
            runs = {name: _sweep_mean_loss(seed, ctx.pick(100, 400), K, expansion, lr, steps,
                                           impl if expansion == "none" else None)
                    for name, expansion, lr in (("badam", "none", MATCH_LR),
                                                ("bread_sgd", "sgd", MATCH_LR * (1e-3 if sabotage else 1.0)))}
            rows.append({"seed": seed, "K": K, "badam_mean": figure(runs["badam"], 4),
                         "bread_sgd_mean": figure(runs["bread_sgd"], 4)})
            if not runs["bread_sgd"] < runs["badam"]:
                failures.append(f"seed {seed}, K = {K}: BREAD-SGD's mean loss {runs['bread_sgd']:.4f} >= "
                                f"BAdam's {runs['badam']:.4f}")
    evidence = {"runs": rows, "steps": steps, "failures": failures[:5]}
    if failures:
        return Outcome("fail", failures[0], evidence)
    return Outcome("pass", f"{seeds} finetunes of {steps} steps: at every K in {SWEEP_K} BREAD-SGD converges "
                           "faster than BAdam (lower mean loss over the run)", evidence)


register(Claim(
    id="bcd_expansion.switch_frequency", paper=PAPER,
    source=f"Figure 1(b) and Section 5.5 'Effect of K' (BREAD beats BAdam under every K), at our tiny scale "
           f"({SOURCE})",
    origin=Origin.PAPER, covers=("Figure 1(b)",),
    deviation="BREAD-SGD (not BREAD-LoRA) on the matches_adam finetune (residual MLP, Markov chain), K in "
              "{10, 40} (the paper: 32 to 512 on Llama 3.1-8B), 100 steps, 2 seeds (full: 1000 steps, 5 "
              "seeds); 'beats' read as a lower mean loss over the run. The figure's second observation "
              "(larger K converges faster) is reported in the evidence, not asserted.",
    statement="On the tiny Markov finetune, at each block switch frequency K in {10, 40} and each of 2 "
              "seeds, "
              "BREAD-SGD (β = 3·lr) has a lower mean loss over 100 steps (1000 in full) than BAdam (the same "
              "BCD without "
              "expansion)",
    kind=Kind.NUMERIC,
    check=partial(_check_switch_frequency, sabotage=False),
    control=partial(_check_switch_frequency, sabotage=True),
    control_description="A sabotaged BREAD-SGD whose steps are 1000× too small (lr 1e-5): it must lose to "
                        "BAdam at some K.",
    budget_s=90.0,
    subjects=("BAdam",)))


# ----------------------------------------------------------------------------- input domains (issue #46)
def _tiny_model() -> torch.nn.Sequential:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))


def _tiny_chain(seed: int = 0) -> Any:
    from algorithms.optimizers.tasks import MarkovLanguageTask

    return MarkovLanguageTask(vocab_size=4, context=3, seed=seed)


def _tokens_with(first: int, last: int, columns: int = 4) -> torch.Tensor:
    """Four sequences of the tiny chain with entry [0, 0] set to ``first`` and [-1, -1] to ``last``."""
    tokens = _tiny_chain().sample(4, torch.Generator().manual_seed(0))[:, :columns].clone()
    tokens[0, 0], tokens[-1, -1] = first, last
    return tokens


def _finetune_with(tokens: Any, batch_size: int = 2, model: torch.nn.Module | None = None) -> Any:
    from algorithms.optimizers.finetune import FinetuneTask

    return FinetuneTask(model=torch.nn.Linear(4, 4) if model is None else model, task=_tiny_chain(),
                        tokens=tokens, batch_size=batch_size)


def _round_trip(drop: str | None = None) -> None:
    """A BlockOptimizer's state_dict (without the key ``drop``) loaded into a fresh one."""
    opt = BlockOptimizer(_tiny_model(), switch_every=2)
    state = opt.state_dict()
    if drop is not None:
        state.pop(drop)
    BlockOptimizer(_tiny_model(), switch_every=2).load_state_dict(state)


def _context_model(context: int) -> torch.nn.Module:
    model = torch.nn.Linear(4, 4)
    model.context = context          # a model that declares its context length (as Transformer does)
    return model


def _tied_parameters() -> None:
    """One parameter under two names (tied weights): accepted and trained once, under its first name."""
    model = _tiny_model()
    pairs = [*model.named_parameters(), ("tied", model[0].weight)]
    names = BlockOptimizer(pairs, blocks=[r"^0\.", r"^2\."]).block_names
    if sorted(n for block in names for n in block) != sorted(n for n, _ in model.named_parameters()):
        raise ValueError(f"params: the tied parameter was not trained once under its first name: {names}")


def _stepped_optimizer(model: torch.nn.Module, blocks: Any = None) -> BlockOptimizer:
    """A BlockOptimizer after one step on ``model`` (its base AdamW then holds moments)."""
    opt = BlockOptimizer(model, blocks=blocks, switch_every=2)
    model(torch.ones(1, 3)).sum().backward()
    opt.step()
    return opt


def _load_other_layout(kind: str) -> None:
    """Load a stepped optimizer's state into another one: ``"shapes"`` (a model of another width, the same
    block and parameter counts), ``"block sizes"`` (the same model, blocks of 2 + 2 saved, 1 + 3 loaded),
    ``"copy"`` (a deepcopy of the model, whose inactive block the saved optimizer froze: its layout is
    adopted), ``"tuple names"`` (the same, the saved block_names a tuple of lists)."""
    if kind == "shapes":
        wide = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
        BlockOptimizer(wide, switch_every=2).load_state_dict(_stepped_optimizer(_tiny_model()).state_dict())
    elif kind == "block sizes":
        saved = _stepped_optimizer(_tiny_model(), blocks=[r"^0\.", r"^2\."]).state_dict()
        BlockOptimizer(_tiny_model(), blocks=[["0.weight"], ["0.bias", "2.weight", "2.bias"]],
                       switch_every=2).load_state_dict(saved)
    else:
        model = _tiny_model()
        opt = _stepped_optimizer(model)
        saved = opt.state_dict()
        if kind == "tuple names":
            saved["schedule"]["block_names"] = tuple(saved["schedule"]["block_names"])
        loaded = BlockOptimizer(copy.deepcopy(model), switch_every=2)
        loaded.load_state_dict(saved)
        if loaded.block_names != opt.block_names:
            raise ValueError(f"state_dict: the saved layout {opt.block_names} was not adopted: "
                             f"{loaded.block_names}")


def _check_domains(ctx: Context, open_ends: bool = False) -> Outcome:
    """The documented input domains of the public constructors and functions: inputs at their
    closed ends are accepted, inputs just outside refused with an error naming the argument."""
    from algorithms.optimizers.block import find_blocks

    model = _tiny_model()
    cases = [  # (label, call, closed end, refusal: (type, argument) or None)
        ("params as named_parameters() pairs", lambda: BlockOptimizer(_tiny_model().named_parameters()),
         False, None),
        ("a tied parameter under a second name", _tied_parameters, False, None),
        ("params as a list of bare tensors", lambda: BlockOptimizer(list(_tiny_model().parameters())), False,
         (TypeError, "params")),
        ("base an optimizer instance, not its class", lambda: BlockOptimizer(
            _tiny_model(), base=torch.optim.AdamW(_tiny_model().parameters())), False, (TypeError, "base")),
        ("params as (parameter, name) pairs",
         lambda: BlockOptimizer([(p, n) for n, p in _tiny_model().named_parameters()]), False,
         (TypeError, "params")),
        ("blocks mixing a pattern and a name list",
         lambda: BlockOptimizer(_tiny_model(), blocks=[r"^0\.", ["2.weight", "2.bias"]]), False, None),
        ("one explicit block holding everything", lambda: find_blocks(["a.w", "b.w"], blocks=["."]), True,
         None),
        ("blocks as a bare string", lambda: find_blocks(["a.w", "b.w"], blocks="."), False,
         (TypeError, "blocks")),
        ("blocks empty", lambda: find_blocks(["a.w", "b.w"], blocks=[]), False, (TypeError, "blocks")),
        ("a state_dict round trip", lambda: _round_trip(), False, None),
        ("a state_dict without 'schedule'", lambda: _round_trip("schedule"), False,
         (ValueError, "state_dict")),
        ("a state_dict without 'base'", lambda: _round_trip("base"), False, (ValueError, "state_dict")),
        ("a state_dict of a model of another width", lambda: _load_other_layout("shapes"), False,
         (ValueError, "state_dict")),
        ("a state_dict whose active block has more parameters", lambda: _load_other_layout("block sizes"),
         False, (ValueError, "parameter group")),
        ("a state_dict loaded onto a copy of its model (layout adopted)", lambda: _load_other_layout("copy"),
         False, None),
        ("a state_dict whose block_names is a tuple", lambda: _load_other_layout("tuple names"), False,
         (ValueError, "block_names")),
        ("BlockCoordinateDescent(blocks=a tuple)", lambda: BlockCoordinateDescent(blocks=(r"^0\.",)), False,
         None),
        ("BlockCoordinateDescent(blocks=a string)", lambda: BlockCoordinateDescent(blocks="0"), False,
         (TypeError, "blocks")),
        ("BlockCoordinateDescent(blocks=a list)", lambda: BlockCoordinateDescent(blocks=[r"^0\."]), False,
         (TypeError, "blocks")),
        ("BlockCoordinateDescent(optimizer=BlockOptimizer)",
         lambda: BlockCoordinateDescent(optimizer=BlockOptimizer), False, None),
        ("BlockCoordinateDescent(optimizer=a number)", lambda: BlockCoordinateDescent(optimizer=3), False,
         (TypeError, "optimizer")),
        ("token ids 0 and vocab_size − 1", lambda: _finetune_with(_tokens_with(0, 3)), True, None),
        ("a token id −1", lambda: _finetune_with(_tokens_with(-1, 3)), False, (ValueError, "tokens")),
        ("a token id vocab_size", lambda: _finetune_with(_tokens_with(0, 4)), False, (ValueError, "tokens")),
        ("two columns (T = 1)", lambda: _finetune_with(_tokens_with(0, 3, columns=2)), True, None),
        ("one column (T = 0)", lambda: _finetune_with(_tokens_with(0, 0, columns=1)), False,
         (ValueError, "tokens")),
        ("no rows", lambda: _finetune_with(torch.zeros(0, 4, dtype=torch.long)), False,
         (ValueError, "tokens")),
        ("context + 1 columns", lambda: _finetune_with(_tokens_with(0, 3), model=_context_model(3)), True,
         None),
        ("context + 2 columns", lambda: _finetune_with(_tokens_with(0, 3), model=_context_model(2)), False,
         (ValueError, "tokens")),
        ("batch_size = n", lambda: _finetune_with(_tokens_with(0, 3), batch_size=4), True, None),
        ("batch_size = n + 1", lambda: _finetune_with(_tokens_with(0, 3), batch_size=5), False,
         (ValueError, "batch_size")),
        ("rank = min(in, out)", lambda: LowRankExpansion(model[2], rank=2), True, None),
        ("rank = min(in, out) + 1", lambda: LowRankExpansion(model[2], rank=3), False, (ValueError, "rank")),
        ("freeze not a bool", lambda: LowRankExpansion(model[2], rank=1, freeze=1), False,
         (TypeError, "freeze")),
    ]
    return domain_outcome(cases, open_ends=open_ends)


register(Claim(
    id="bcd_expansion.input_domains", paper=PAPER,
    source=f"the inputs of Algorithm 2 and Appendix B ({SOURCE}); our validation "
           "(algorithms.optimizers.block, expansion, finetune)",
    origin=Origin.IMPLEMENTATION,
    statement="BlockOptimizer accepts a module's named_parameters() pairs, a tied parameter (trained once), "
              "blocks mixing patterns and name lists, a single block holding everything and its own "
              "state_dict, also loaded onto a copy of its model (the saved block layout adopted), and "
              "refuses bare tensors, (parameter, name) pairs, an optimizer instance as base, a string or "
              "empty blocks, a state_dict without its base or schedule, of a model of another width, whose "
              "active block holds more parameters "
              "or whose block_names is a tuple; BlockCoordinateDescent accepts a callable optimizer and "
              "refuses a number; FinetuneTask accepts token ids 0 and vocab_size − 1, T = 1, context + 1 "
              "columns and batch_size = n, and refuses ids −1 and vocab_size, T = 0, no rows, context + 2 "
              "columns and batch_size = n + 1; LowRankExpansion accepts rank = min(in, out) and refuses one "
              "more and a non-bool freeze; each refusal a ValueError/TypeError naming the argument "
              "(34 cases)",
    kind=Kind.PROPERTY,
    check=_check_domains,
    control=partial(_check_domains, open_ends=True),
    control_description="the closed ends read as open (ids 0 and vocab_size − 1, T = 1, batch_size = n, "
                        "rank = min(in, out), a single block refused): the check must fail, since they are "
                        "accepted",
    budget_s=10.0))


# ------------------------------------------------------------------------- the loop's contract (issue #46)
def _spied_task(n: int, batch_size: int, reference_loss: float | None = None) -> tuple[Any, list[list[int]]]:
    """A FinetuneTask on n sequences of the tiny chain whose mini-batch losses record their row indices."""
    from algorithms.optimizers.finetune import FinetuneTask

    seen: list[list[int]] = []

    class Spied(FinetuneTask):
        def loss(self, model: torch.nn.Module, index: torch.Tensor | None = None) -> torch.Tensor:
            if index is not None:
                seen.append([int(i) for i in index])
            return super().loss(model, index)

    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 4)
    tokens = _tiny_chain(1).sample(n, torch.Generator().manual_seed(0))
    return Spied(model=model, task=_tiny_chain(1), tokens=tokens, batch_size=batch_size,
                 reference_loss=reference_loss), seen


def _loop_failures() -> tuple[list[str], dict[str, Any]]:
    from algorithms.optimizers.finetune import FullFinetune, markov_finetune_task

    failures: list[str] = []
    figures: dict[str, Any] = {}
    # (a) epochs without replacement, 4 steps each for n = 8 (batches fill the epoch exactly) and n = 10
    # (the 2 rows left over sit out): two disjoint batches of 4 per epoch, a fresh permutation each epoch
    for n in (8, 10):
        task, seen = _spied_task(n, 4, reference_loss=0.0)      # reference 0, tol 1e-9: no early stop
        solve(task, FullFinetune(lr=1e-3), maxiters=4, tol=1e-9, seed=0)
        epochs = [seen[i] + seen[i + 1] for i in range(0, len(seen) - 1, 2)]
        if [len(b) for b in seen] != [4] * 4 or any(len(set(e)) != 8 for e in epochs):
            failures.append(f"epochs (n = {n}): batches {seen} are not two disjoint batches of 4 per epoch")
        elif len({tuple(e) for e in epochs}) < 2:
            failures.append(f"epochs (n = {n}): the same order in both epochs ({epochs})")
        figures[f"batches_n{n}"] = seen
    # (b) seeds: no seed is seed 0; seed 1 draws other batches
    runs = {}
    for seed in (None, 0, 1):
        task, seen = _spied_task(8, 2, reference_loss=0.0)
        runs[seed] = (solve(task, FullFinetune(lr=1e-2), maxiters=3, tol=1e-9, seed=seed).x, seen)
    if not np.array_equal(runs[None][0], runs[0][0]) or runs[None][1] != runs[0][1]:
        failures.append("seeds: a solve without a seed differs from seed = 0")
    if runs[1][1] == runs[0][1]:
        failures.append("seeds: seed 1 drew the same batches as seed 0")
    # (c) the default tolerance 0.1 nats: Success at the first step iff loss <= reference + 0.1
    probe = _spied_task(8, 2)[0]
    with torch.no_grad():
        start = float(probe.loss(probe.model))
    for offset, expected in ((0.09, "Success"), (0.11, "MaxIters")):
        sol = solve(_spied_task(8, 2, reference_loss=start - offset)[0], FullFinetune(lr=1e-8), maxiters=2,
                    seed=0)
        figures[f"retcode_reference_minus_{offset}"] = sol.retcode.value
        if sol.retcode.value != expected:
            failures.append(f"tolerance: reference = loss − {offset}: {sol.retcode.value}, not {expected}")
    # (c') the criterion's closed end: a loss exactly at reference + tol is Success. The loss after step 1
    # does not depend on the reference; with reference = 3/4 of it, loss − reference is exact (Sterbenz)
    # and so is reference + (loss − reference) = loss
    first = solve(_spied_task(8, 2, reference_loss=0.0)[0], FullFinetune(lr=1e-3), maxiters=1, tol=1e-9,
                  seed=0).value
    reference = 0.75 * first
    edge_tol = first - reference
    if reference + edge_tol != first:
        failures.append(f"tolerance edge: reference + tol = {reference + edge_tol!r}, not the loss {first!r}")
    else:
        sol = solve(_spied_task(8, 2, reference_loss=reference)[0], FullFinetune(lr=1e-3), maxiters=3,
                    tol=edge_tol, seed=0)
        figures["tolerance_edge"] = [sol.retcode.value, sol.stats.iterations]
        if sol.retcode.value != "Success" or sol.stats.iterations != 1 or sol.value != first:
            failures.append(f"tolerance edge: loss = reference + tol exactly gave {sol.retcode.value} after "
                            f"{sol.stats.iterations} steps, not Success after 1")
    # (c'') the solution's x: the trained parameters, float64 as they are, bfloat16 widened to float32
    for dtype, x_dtype in ((torch.float64, np.float64), (torch.bfloat16, np.float32)):
        ft = markov_finetune_task(vocab_size=4, context=3, n=4, width=4, depth=1, pretrain_steps=1, seed=5,
                                  architecture="mlp", batch_size=2, dtype=dtype)
        sol = solve(ft, FullFinetune(lr=1e-3), maxiters=1, seed=0)
        params = torch.cat([p.detach().reshape(-1) for p in sol.original["model"].parameters()])
        if sol.x.dtype != x_dtype or not np.array_equal(sol.x, params.float().numpy()
                                                        if dtype == torch.bfloat16 else params.numpy()):
            failures.append(f"x of a {dtype} model: dtype {sol.x.dtype}, not {np.dtype(x_dtype)}, or not "
                            "the trained parameters")
    # (d) a finite blow-up (lr 1e8: the loss jumps to ~1e8 nats) is Diverged at once
    sol = solve(_spied_task(8, 2)[0], FullFinetune(lr=1e8), maxiters=5, seed=0)
    figures["blow_up"] = [sol.retcode.value, figure(sol.value, 3), sol.stats.iterations]
    if sol.retcode.value != "Diverged" or sol.stats.iterations != 1:
        failures.append(f"blow-up: {sol.retcode.value} after {sol.stats.iterations} steps at loss "
                        f"{sol.value:.3g}")
    # (e) the block schedule: default blocks with and without numbered layers, the descending order
    from algorithms.optimizers.block import find_blocks

    grouped = find_blocks(["emb.w", "layers.0.w", "layers.0.b", "layers.1.w", "head.w"])
    if grouped != [["layers.0.w", "layers.0.b"], ["layers.1.w"], ["emb.w", "head.w"]]:
        failures.append(f"default blocks with numbered layers: {grouped}")
    top = find_blocks(["enc.w", "enc.b", "dec.w"])
    if top != [["enc.w", "enc.b"], ["dec.w"]]:
        failures.append(f"default blocks without numbered layers: {top}")
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    order = BlockOptimizer(model, order="descending").block_order()
    if order != [2, 1, 0]:
        failures.append(f"descending order of 3 blocks: {order}")
    # (f) the expansion wrapper freezes the wrapped layer exactly when asked
    for freeze in (True, False):
        wrapped = LowRankExpansion(torch.nn.Linear(3, 2), rank=1, freeze=freeze)
        if any(p.requires_grad == freeze for p in wrapped.linear.parameters()):
            failures.append(f"LowRankExpansion(freeze={freeze}) left the wrapped layer's requires_grad wrong")
    # (g) the finetune task's shift: pretrained on chain s, sampled from chain s + 1
    ft = markov_finetune_task(vocab_size=4, context=3, n=4, width=4, depth=1, pretrain_steps=1, seed=5,
                              architecture="mlp", batch_size=2)
    if ft.task.seed != 6:
        failures.append(f"markov_finetune_task(seed=5) samples chain {ft.task.seed}, not chain 6")
    # (h) optimizer_state_bytes in absolute terms (state_memory compares two of its own counts, so a
    # constant offset cancels there): 0 before any step, then the bytes of each state tensor, counted
    # here from the tensors themselves
    w = torch.nn.Parameter(torch.zeros(10))
    adam = torch.optim.AdamW([w])
    counted = [optimizer_state_bytes(adam)]
    w.grad = torch.ones(10)
    adam.step()
    counted.append(optimizer_state_bytes(adam))
    expected = [0, sum(t.nbytes for t in adam.state[w].values() if isinstance(t, torch.Tensor))]
    figures["state_bytes"] = counted
    if counted != expected:
        failures.append(f"optimizer_state_bytes of AdamW on 10 floats before / after a step: {counted}, "
                        f"the state tensors hold {expected}")
    return failures, figures


def _check_loop(ctx: Context, sabotage: bool = False) -> Outcome:
    import algorithms.optimizers.finetune as finetune_module

    if sabotage:                      # the blow-up threshold gone: a finite 1e8-nat loss runs on
        with patched(finetune_module, "DIVERGED_LOSS", math.inf):
            failures, figures = _loop_failures()
    else:
        failures, figures = _loop_failures()
    evidence = {"failures": failures, **figures}
    if failures:
        return Outcome("fail", f"{len(failures)} documented behaviours broken; first: {failures[0]}",
                       evidence)
    return Outcome("pass", "epochs draw disjoint full batches from a fresh permutation, no seed is seed 0, "
                           "Success at loss <= reference + 0.1 (the end point included), x the trained "
                           "parameters in their dtype (bfloat16 as float32), a finite blow-up is Diverged, "
                           "default blocks "
                           "and the descending order as documented, freeze as asked, the task's shift to "
                           "chain s + 1, state bytes in absolute terms", evidence)


register(Claim(
    id="bcd_expansion.loop_contract", paper=PAPER,
    source=f"the finetuning setting of Section 5 ({SOURCE}); our training loop "
           "(algorithms.optimizers.finetune.run_finetune), block schedule (block.find_blocks, "
           "BlockOptimizer.block_order) and LowRankExpansion, as their docstrings document them",
    origin=Origin.IMPLEMENTATION,
    statement="run_finetune draws epochs without replacement (n = 8 and 10, batch 4: two disjoint batches "
              "of 4 per epoch, a fresh permutation each epoch), a solve without a seed equals seed 0 and "
              "seed 1 draws other batches, the default tolerance is 0.1 nats (Success at the first step "
              "with the reference 0.09 below the loss, MaxIters at 0.11; a loss exactly at reference + tol "
              "is Success), the solution's x is the trained parameters (float64 as float64, bfloat16 widened "
              "to float32), a finite blow-up to ~1e8 nats is "
              "Diverged at the first step; default blocks are one per numbered layer then the rest (one "
              "per top-level module without numbered layers), 'descending' is D − 1, …, 0; LowRankExpansion "
              "freezes the wrapped layer iff freeze; markov_finetune_task(seed=s) samples chain s + 1; "
              "optimizer_state_bytes of AdamW on 10 floats is 0 before a step and then the bytes its state "
              "tensors hold (84)",
    kind=Kind.PROPERTY,
    check=_check_loop,
    control=partial(_check_loop, sabotage=True),
    control_description="the blow-up threshold removed (DIVERGED_LOSS = inf, looked up at call time): "
                        "the lr 1e8 run's finite ~1e8-nat loss then runs on as MaxIters, and the check "
                        "must fail",
    budget_s=10.0))


# ----------------------------------------------------------------------------- Figure 2(b) (appendix D.3.3)
#: appendix D.3.3: every layer one block, switch frequency K = 100; our net: 8 Linear layers of width 16
#: with ReLUs, an l2 regression on a fixed random teacher, n = 64, AdamW lr 1e-2 (ours; D.3.3 gives K only)
DEEP = {"layers": 8, "width": 16, "d": 8, "n": 64, "lr": 1e-2}


def _deep_run(seed: int, K: int, bread: bool, train_correction: bool = True) -> float:
    """Mean log10 of the full-batch l2 loss over one pass through the 8 blocks (8K steps) of plain BCD
    (BAdam: the implementation's BlockOptimizer, ascending order) or BREAD-LoRA rank 1 (the same BCD,
    every layer wrapped in LowRankExpansion, its U, V trained by AdamW throughout);
    ``train_correction=False`` (the control) leaves U at 0: the expansion disabled."""
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(DEEP["n"], DEEP["d"], generator=g, dtype=torch.float64)
    teacher = torch.randn(DEEP["d"], 4, generator=g, dtype=torch.float64)
    y = torch.tanh(X @ teacher)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        widths = [DEEP["d"]] + [DEEP["width"]] * (DEEP["layers"] - 1) + [4]
        layers: list[torch.nn.Module] = []
        for i in range(DEEP["layers"]):
            linear = torch.nn.Linear(widths[i], widths[i + 1]).double()
            layers.append(LowRankExpansion(linear, rank=1, seed=seed + i, freeze=False) if bread else linear)
            if i < DEEP["layers"] - 1:
                layers.append(torch.nn.ReLU())
        model = torch.nn.Sequential(*layers)
    base = [(name, p) for name, p in model.named_parameters() if not name.endswith((".U", ".V"))]
    optimizers: list[torch.optim.Optimizer] = [BlockOptimizer(base, switch_every=K, lr=DEEP["lr"])]
    if bread and train_correction:
        corrections = [p for name, p in model.named_parameters() if name.endswith((".U", ".V"))]
        optimizers.append(torch.optim.AdamW(corrections, lr=DEEP["lr"]))
    losses = []
    for _ in range(DEEP["layers"] * K):
        for opt in optimizers:
            opt.zero_grad()
        loss = torch.mean((model(X) - y) ** 2)
        losses.append(float(loss.detach()))
        loss.backward()
        for opt in optimizers:
            opt.step()
    # log10 of the loss: the speed over the pass on the scale the loss curves are read
    return float(np.mean(np.log10(np.maximum(losses, 1e-300))))


def _check_deep(ctx: Context, *, train_correction: bool = True) -> Outcome:
    torch.set_num_threads(1)
    seeds, K = ctx.pick(3, 12), ctx.pick(5, 100)
    rows, diffs = [], []
    for seed in range(ctx.seed * 100, ctx.seed * 100 + seeds):
        badam = _deep_run(seed, K, bread=False)
        bread = _deep_run(seed, K, bread=True, train_correction=train_correction)
        rows.append({"seed": seed, "badam_mean_log10_loss": figure(badam, 4),
                     "bread_mean_log10_loss": figure(bread, 4)})
        diffs.append(badam - bread)
    d = np.array(diffs)
    mean, sd = float(d.mean()), float(d.std(ddof=1))
    half = float(scipy.stats.t.ppf(0.975, d.size - 1)) * sd / math.sqrt(d.size)
    # fail also when BREAD is lower on no seed at all (e.g. identical runs): 'lowers the loss' then has no
    # support in the sample, whatever the interval (which has zero width for identical runs)
    status = "pass" if mean - half > 0 else "fail" if mean + half < 0 or d.max() <= 0 else "undecided"
    evidence = {"K": K, "layers": DEEP["layers"], "runs": rows, "mean_gap": figure(mean, 4),
                "interval95": [figure(mean - half, 4), figure(mean + half, 4)],
                "pairs_that_would_decide": math.ceil((1.96 * sd / abs(mean)) ** 2) if mean else None}
    what = (f"8-layer net, every layer a block (K = {K}): BAdam's mean log10 loss minus BREAD-LoRA rank 1's "
            "over one pass" + ("" if train_correction else " [control: expansion disabled, U stays 0]"))
    return Outcome(status, f"{what}: {mean:+.4g}, 95 % interval [{mean - half:+.4g}, {mean + half:+.4g}] "
                           f"over {d.size} seeds", evidence)


register(Claim(
    id="bcd_expansion.deep_rank_one", paper=PAPER,
    source=f"Figure 2(b) (appendix D.3.3): BREAD with rank-1 expansion converges much faster than BCD on an "
           f"8-layer network ({SOURCE})",
    origin=Origin.PAPER, covers=("Figure 2(b) (appendix D.3.3)",),
    deviation="D.3.3 gives only 'each layer one block, K = 100' and the depth: the data (an l2 regression on "
              "a tanh teacher, n = 64, d = 8), width 16, AdamW lr 1e-2 and the horizon (one pass over the 8 "
              "blocks) are ours; every layer keeps a rank-1 correction trained by AdamW throughout, not "
              "merged at block switches (the paper's BREAD-LoRA corrects the inactive blocks); 'faster' read "
              "as a lower mean log10 loss over the pass, paired over seeds. Quick: K = 5 and 3 seeds; full: "
              "K = 100 (the paper's) and 12 seeds.",
    statement="On an 8-layer ReLU network trained by BCD with every layer a block (ascending order, switch "
              "every K steps), adding a rank-1 correction to every layer (BREAD-LoRA rank 1) lowers the "
              "mean log10 training loss over one pass through the blocks: the 95 % paired t interval of "
              "BAdam's minus BREAD's mean log10 loss over seeds lies above 0 (pass), below 0 (fail), or "
              "straddles it (undecided); BREAD lower on no seed fails.",
    kind=Kind.NUMERIC,
    check=partial(_check_deep, train_correction=True),
    control=partial(_check_deep, train_correction=False),
    control_description="Expansion disabled: the rank-1 corrections are present but never trained (U stays "
                        "0), so BREAD's runs are BAdam's and lower the loss on no seed: the check must fail.",
    budget_s=30.0))
