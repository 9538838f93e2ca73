"""Subjects: the implementations a claim exercises, replaceable by anyone's.

A claim names its *subjects* (``Claim(subjects=("Muon",))``): the names of our classes or
functions its check runs, each registered here with our reference implementation and the
interface a replacement must offer. A check asks its context for them
(``ctx.subject("Muon")``) instead of importing ours, so the same claim runs against another
implementation given as ``NAME=module:object``::

    python -m verification --subject Muon=torch.optim:Muon
    python -m verification --subject Muon=my_muon:MyMuon --paper second_order_scaling

A control always gets our reference: its sabotage is planted there, so a check's power is
shown whatever the subject. Adapters for peers whose interface differs are small functions in
:mod:`theorems.adapters`; :data:`PEERS` lists the peer implementations the package runs its
claims against (``python -m verification --peers``).

>>> spec = parse_spec("Muon=torch.optim:Muon")
>>> spec
('Muon', 'torch.optim:Muon')
>>> load_object(spec[1]).__name__
'Muon'
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

__all__ = ["PEERS", "SUBJECTS", "Subject", "load_object", "parse_spec", "register_peer", "register_subject"]


@dataclass(frozen=True)
class Subject:
    """An implementation claims exercise: ``name``, our ``reference`` (``module:object``) and
    the ``interface`` a replacement must offer (constructor / call signature, in words)."""

    name: str
    reference: str
    interface: str

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise ValueError(f"subject name must be an identifier, got {self.name!r}")
        parse_spec(f"{self.name}={self.reference}")
        if not self.interface.strip():
            raise ValueError(f"subject {self.name!r}: say what interface a replacement must offer")


SUBJECTS: dict[str, Subject] = {}

#: subject name -> {peer label: "module:object"}: the libraries a user would pick instead
PEERS: dict[str, dict[str, str]] = {}


def register_subject(name: str, reference: str, interface: str) -> Subject:
    """Record a subject (idempotent for an identical record)."""
    subject = Subject(name, reference, interface)
    if SUBJECTS.get(name, subject) != subject:
        raise ValueError(f"subject {name!r} is registered twice, differently")
    SUBJECTS[name] = subject
    return subject


def register_peer(name: str, label: str, spec: str) -> None:
    """Record a peer implementation of subject ``name`` (``spec`` as ``module:object``)."""
    if name not in SUBJECTS:
        raise ValueError(f"unknown subject {name!r}; known: {', '.join(sorted(SUBJECTS)) or 'none'}")
    parse_spec(f"{name}={spec}")
    PEERS.setdefault(name, {})[label] = spec


def parse_spec(text: str) -> tuple[str, str]:
    """``"NAME=module:object"`` -> ``(NAME, "module:object")``; raises ValueError naming the form."""
    if not isinstance(text, str) or text.count("=") != 1:
        raise ValueError(f"a subject is given as NAME=module:object, got {text!r}")
    name, spec = (part.strip() for part in text.split("="))
    module, _, obj = spec.partition(":")
    if not name.isidentifier() or not module or not obj or not all(
            p.isidentifier() for p in [*module.split("."), *obj.split(".")]):
        raise ValueError(f"a subject is given as NAME=module:object (e.g. Muon=torch.optim:Muon), "
                         f"got {text!r}")
    return name, spec


def load_object(spec: str) -> Any:
    """Import ``module:object`` (``object`` may be dotted) and return it."""
    module_name, _, path = spec.partition(":")
    try:
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"cannot import module {module_name!r} of subject {spec!r}: {exc}") from exc
    for part in path.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{spec!r}: {obj.__name__ if hasattr(obj, '__name__') else obj!r} "
                             f"has no attribute {part!r}")
        obj = getattr(obj, part)
    return obj


# ---------------------------------------------------------------------------------------------
# the package's subjects and the peers its claims run against (adapters: theorems.core.adapters)

register_subject(
    "Muon", "algorithms.optimizers:Muon.paper",   # torch's routing: every matrix to Muon
    "a torch.optim.Optimizer built as Muon(params, lr=, weight_decay=, momentum=, nesterov=) with "
    "torch.optim.Muon's meaning of each keyword (decoupled weight decay, lr scaled by "
    "√max(1, d_out/d_in)); params: 2-D tensors or groups of them")
register_peer("Muon", "torch.optim.Muon", "torch.optim:Muon")
register_peer("Muon", "pytorch-optimizer Muon", "theorems.core.adapters:pytorch_optimizer_muon")
register_peer("Muon", "heavyball Muon", "theorems.core.adapters:heavyball_muon")

register_subject(
    "SAM", "algorithms.nets:SAM",
    "a torch.optim.Optimizer built as SAM(params, base_optimizer=torch.optim.SGD, rho=, normalize=True, "
    "**base keywords (lr=, momentum=, ...)) with step(closure) evaluating the closure at θ and at "
    "θ + ε, ε = ρg/‖g‖ (normalize=False: ρg), and first_step()/second_step() as pytorch-optimizer's SAM")
register_peer("SAM", "pytorch-optimizer SAM", "theorems.core.adapters:pytorch_optimizer_sam")

register_subject(
    "SOAP", "algorithms.optimizers:SOAP",
    "a torch.optim.Optimizer built as SOAP(params, lr=, betas=(β1, β2), eps=, weight_decay=, "
    "precondition_frequency=, block_size=) with our SOAP's meaning of each keyword (Adam in the eigenbasis "
    "of the Shampoo statistics, decoupled weight decay, block_size: square tiles); 1-D tensors take "
    "AdamW's step; a keyword it cannot honour raises NotImplementedError (the claim skips that part)")
register_peer("SOAP", "pytorch-optimizer SOAP", "theorems.core.adapters:pytorch_optimizer_soap")
register_peer("SOAP", "heavyball SOAP", "theorems.core.adapters:heavyball_soap")
register_subject(
    "Shampoo", "algorithms.optimizers:Shampoo",
    "a torch.optim.Optimizer built as Shampoo(params, lr=, betas=(β1, β2), eps=, weight_decay=, "
    "precondition_frequency=, block_size=, adam_eps=) with our Shampoo's meaning (two-sided ¼ roots of "
    "the statistics plus εI, decoupled weight decay, block_size: square tiles) and 1-D tensors on AdamW "
    "with betas and adam_eps; a keyword it cannot honour raises NotImplementedError (the claim skips that "
    "part: pytorch-optimizer's Shampoo has no betas, tiling or Adam path)")
register_peer("Shampoo", "pytorch-optimizer Shampoo", "theorems.core.adapters:pytorch_optimizer_shampoo")

register_subject(
    "BAdam", "algorithms.optimizers:BlockOptimizer",
    "plain block coordinate descent (BAdam): a torch.optim.Optimizer built as BlockOptimizer(params, "
    "blocks=None, switch_every=, order='ascending', lr=, seed=, expansion='none', **AdamW keywords) with "
    "our BlockOptimizer's meaning (params a module or named_parameters(), frozen ones left out; blocks: "
    "None = one per numbered layer, or patterns / name lists; AdamW on the active block only, its state "
    "dropped at each switch); the claims' BREAD runs stay ours; a keyword it cannot honour raises "
    "NotImplementedError")
register_peer("BAdam", "BAdam (badam)", "theorems.core.adapters:badam_block_optimizer")

register_subject(
    "QPLayer", "algorithms.qp:QPLayer",
    "a torch.nn.Module built as QPLayer(algorithm) (algorithm: our DQP, the backend our layer solves with; "
    "a peer solves with its own solver and ignores it) whose forward(P, q, G=None, h=None, A=None, b=None) "
    "takes dense float64 tensors of min ½xᵀPx + qᵀx s.t. Gx ≤ h, Ax = b (unbatched, or batched on a "
    "leading dimension, unbatched ones shared by the batch) and returns x* (n, or batch × n) "
    "differentiable by autograd w.r.t. every input; an input it cannot take (scipy.sparse, a QP without "
    "constraints, a singular P) raises NotImplementedError")
register_peer("QPLayer", "cvxpylayers", "theorems.core.adapters:cvxpylayers_qp")
register_peer("QPLayer", "proxsuite QPLayer", "theorems.core.adapters:proxsuite_qplayer")

register_subject(
    "CEI", "algorithms.bayesopt:CEI",
    "an algorithms.bayesopt.CEI (or subclass) built as CEI(kernel=, fit=, n_candidates=, n_restarts=) whose "
    "solve(ConstrainedBOProblem, ·, maxiters=, seed=, tol=, store_trace=True) runs constrained EI with GPs "
    "of that kernel (fit=False: fixed, the paper's setting) and records each step's point, f⁺ and regret; a "
    "replacement overrides maximize_acquisition(surrogates, U, F, C, best_feasible, rng), the step that "
    "picks the next point in [0, 1]^d")
register_peer("CEI", "BoTorch LogConstrainedExpectedImprovement", "theorems.core.adapters:BoTorchLogCEI")

register_subject(
    "constrained_ei", "algorithms.bayesopt:constrained_ei",
    "a function constrained_ei(mu_f, sigma_f, mu_c, sigma_c, best_feasible) -> array: the constrained "
    "expected improvement EI_f·ΠⱼΦ(−μ_cⱼ/σ_cⱼ) of minimizing f below best_feasible at each point, from the "
    "posterior means and standard deviations of f (shape (n,)) and of the constraints cⱼ <= 0 (shape (n, m))")
register_peer("constrained_ei", "BoTorch LogConstrainedExpectedImprovement",
              "theorems.core.adapters:botorch_constrained_ei")

register_subject(
    "GaussianProcess", "algorithms.bayesopt:GaussianProcess",
    "a class built as GaussianProcess(kernel, jitter=, mean=) (kernel: our algorithms.bayesopt.Kernel, its "
    "family and hyperparameters fixed; jitter the noise variance relative to the outputscale) with add(X, y) "
    "(observations, in batches), predict(X) -> (posterior mean, posterior sd) and log_marginal_likelihood()")
register_peer("GaussianProcess", "BoTorch SingleTaskGP", "theorems.core.adapters:BoTorchGP")
