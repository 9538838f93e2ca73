"""One record per paper key: title, reference, the ``algorithms`` family and modules that implement it.

The package's own 19 papers are listed here; a user adds a paper of their own
with :func:`register_paper` and then writes claims for it:

>>> paper = register_paper("mypaper", "My paper's title", "Doe. 2026.")
>>> PAPERS["mypaper"].title
"My paper's title"
>>> _ = PAPERS.pop("mypaper")
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    """A paper: ``key`` (claim ids start with ``key.``), its exact ``title``, a ``reference``, the
    ``algorithms`` ``family`` and the ``modules`` implementing it (what mutation testing mutates)."""

    key: str
    title: str
    reference: str
    family: str = ""
    modules: tuple[str, ...] = ()


_RECORDS = [
    Paper("dqp", "Differentiation Through Black-Box Quadratic Programming Solvers",
          "Magoon, Yang, Aigerman, Kovalsky. NeurIPS 2025. arXiv:2410.06324. Code: cwmagoon/dQP (libdqp).",
          "qp", modules=("algorithms.qp.dqp", "algorithms.qp.problem", "algorithms.qp.layer")),
    Paper("lcd", "Local Curvature Descent: Squeezing More Curvature out of Standard and Polyak GD",
          "Richtárik, Giancola, Lubczyk, Yadav. NeurIPS 2025. arXiv:2405.16574.", "curvature",
          modules=("algorithms.curvature.problem", "algorithms.curvature.calculus",
                   "algorithms.curvature.lcd1", "algorithms.curvature.lcd2", "algorithms.curvature.lcd3",
                   "algorithms.curvature.gradient_descent", "algorithms.curvature.polyak")),
    Paper("adaptive_hierarchical", "Adaptive Algorithms with Sharp Convergence Rates for Stochastic "
          "Hierarchical Optimization",
          "Gong, Hao, Liu. NeurIPS 2025. arXiv:2509.15399.", "hierarchical",
          modules=("algorithms.hierarchical.problems", "algorithms.hierarchical._loop",
                   "algorithms.hierarchical.ada_minimax", "algorithms.hierarchical.ada_bio",
                   "algorithms.hierarchical.neumann")),
    Paper("overparam_unlearning", "Machine Unlearning under Overparameterization",
          "Block, Mokhtari, Shakkottai. NeurIPS 2025. arXiv:2505.22601.", "unlearning",
          modules=("algorithms.unlearning.problem", "algorithms.unlearning.models",
                   "algorithms.unlearning.min_norm_og", "algorithms.unlearning.deep_linear_og",
                   "algorithms.unlearning.sparse_width_og", "algorithms.unlearning.retrain",
                   "algorithms.unlearning.gradient_descent", "algorithms.unlearning.neg_grad",
                   "algorithms.unlearning.neg_grad_plus", "algorithms.unlearning.ridge")),
    Paper("cei_rates", "Convergence Rates of Constrained Expected Improvement",
          "H. Wang, J. Wang, Dai, Chiang, Ng, Petra. NeurIPS 2025. arXiv:2505.11323.",
          "bayesopt",
          modules=("algorithms.bayesopt.acquisition", "algorithms.bayesopt.gp", "algorithms.bayesopt.kernels",
                   "algorithms.bayesopt.cei")),
    Paper("sam_stability", "A Unified Stability Analysis of SAM vs SGD: Role of Data Coherence "
          "and Emergence of Simplicity Bias",
          "Chang, Khanna. NeurIPS 2025. arXiv:2511.17378.", "nets",
          modules=("algorithms.nets.stability", "algorithms.nets.sam", "algorithms.nets.functional")),
    Paper("gd_nonsingular", "Non-Singularity of the Gradient Descent Map for Neural Networks with "
          "Piecewise Analytic Activations",
          "Crăciun, Ghoshdastidar. NeurIPS 2025. OpenReview Ecw0Cina9N, arXiv:2510.24466.",
          "nets",
          modules=("algorithms.nets.models", "algorithms.nets.gd_map", "algorithms.nets.functional")),
    Paper("sparse_relu", "Global Minimizers of ℓp-Regularized Objectives Yield the Sparsest ReLU "
          "Neural Networks",
          "Nakhleh, Nowak. NeurIPS 2025. OpenReview EMa1ih7Wdt, arXiv:2505.21791.", "nets",
          modules=("algorithms.nets.sparse_interpolation", "algorithms.nets.lp_training",
                   "algorithms.nets.multivariate_interpolation")),
    Paper("two_layer_nc", "Neural Collapse under Gradient Flow on Shallow ReLU Networks for "
          "Orthogonally Separable Data",
          "Min, Zhu, Vidal. NeurIPS 2025. OpenReview DbJ2f80JF8, arXiv:2510.21078.", "nets",
          modules=("algorithms.nets.neural_collapse", "algorithms.nets.gradient_flow",
                   "algorithms.nets.two_layer", "algorithms.nets.functional")),
    Paper("single_location_attention", "Understanding Softmax Attention Layers: Exact Mean-Field "
          "Analysis on a Toy Problem",
          "Dohmatob. NeurIPS 2025. OpenReview GiqeRe1NsY.", "attention",
          modules=("algorithms.attention.problem", "algorithms.attention.models", "algorithms.attention.risk",
                   "algorithms.attention.dynamics", "algorithms.attention.spherical_gd",
                   "algorithms.attention.phase")),
    Paper("second_order_scaling", "Hyperparameter Transfer Enables Consistent Gains of "
          "Matrix-Preconditioned Optimizers Across Scales",
          "Qiu, Chen, Phan, Lei, Wilson. NeurIPS 2025. OpenReview Ei6IsmxYrb; arXiv 2512.05620. "
          "Code: charliezchen/scaling-matrix-preconditioning.", "optimizers",
          modules=("algorithms.optimizers.muon", "algorithms.optimizers.newton_schulz",
                   "algorithms.optimizers.shampoo", "algorithms.optimizers.soap",
                   "algorithms.optimizers.scaling", "algorithms.optimizers.training",
                   "algorithms.optimizers._base", "algorithms.optimizers._blocks")),
    Paper("bcd_expansion", "Accelerating Block Coordinate Descent for LLM Finetuning via Landscape Expansion",
          "Luo, Shen, Peng, Li, Li. NeurIPS 2025. OpenReview DBybUx7ARy. Code: microsoft/BlockOptimizers.",
          "optimizers", modules=("algorithms.optimizers.block", "algorithms.optimizers.expansion",
                                 "algorithms.optimizers.finetune")),
    Paper("dynamic_matchoid", "Non-monotone Submodular Optimization: p-Matchoid Constraints and "
          "Fully Dynamic Setting",
          "Banihashem, Goudarzi, Hajiaghayi, Jabbarzade, Monemizadeh. NeurIPS 2025.",
          "submodular", modules=("algorithms.submodular.dynamic_matchoid", "algorithms.submodular.oracle",
                                "algorithms.submodular.matroids", "algorithms.submodular.functions",
                                "algorithms.submodular.brute_force", "algorithms.submodular.problems")),
    Paper("hbg_gflownet", "Hybrid-Balance GFlowNet for Solving Vehicle Routing Problems",
          "NeurIPS 2025. arXiv:2510.04792. Code: ZHANG-NI/HBG.", "routing",
          modules=("algorithms.routing.problem", "algorithms.routing.gflownet", "algorithms.routing.hbg",
                   "algorithms.routing.train", "algorithms.routing.held_karp",
                   "algorithms.routing.cvrp_enumeration", "algorithms.routing.nn2opt",
                   "algorithms.routing.lkh", "algorithms.routing.hgs")),
    Paper("ggdopt", "A Gradient Guided Diffusion Framework for Chance Constrained Programming",
          "B. Zhang, Z. Wang, Y.-F. Liu. NeurIPS 2025. arXiv:2510.12238.", "chance",
          modules=("algorithms.chance.guidance", "algorithms.chance.sampler", "algorithms.chance.diffusion",
                   "algorithms.chance.ggdopt", "algorithms.chance.data", "algorithms.chance.problem",
                   "algorithms.chance.saa_milp")),
    Paper("designx", "DesignX: Human-Competitive Algorithm Designer for Black-Box Optimization",
          "Guo, Ma, Ma, Zhang, Chen, Gong. NeurIPS 2025. arXiv:2505.17866. Code: MetaEvo/DesignX.",
          "blackbox",
          modules=("algorithms.blackbox.problem", "algorithms.blackbox.components",
                   "algorithms.blackbox.grammar", "algorithms.blackbox.modular",
                   "algorithms.blackbox.features", "algorithms.blackbox.agents",
                   "algorithms.blackbox.designx", "algorithms.blackbox.baselines")),
    Paper("purest_quantum", "Purest Quantum State Identification",
          "Yu, Chen, Wu, Xie, Li. NeurIPS 2025. arXiv:2502.14334.", "quantum",
          modules=("algorithms.quantum.states", "algorithms.quantum.estimators", "algorithms.quantum.problem",
                   "algorithms.quantum.incoherent_sr", "algorithms.quantum.coherent_sr")),
    Paper("npn", "NPN: Non-Linear Projections of the Null-Space for Imaging Inverse Problems",
          "Jacome, Gualdrón-Hurtado, Suarez, Arguello. NeurIPS 2025. arXiv:2510.01608. Code: yromariogh/NPN.",
          "imaging", modules=("algorithms.imaging.operators", "algorithms.imaging.nullspace",
                              "algorithms.imaging.problems", "algorithms.imaging.priors",
                              "algorithms.imaging.pgd", "algorithms.imaging.admm",
                              "algorithms.imaging._common")),
    Paper("rf_autoencoder", "Autoencoding Random Forests",
          "Vu, Kapar, Wright, Watson. NeurIPS 2025. arXiv:2505.21441.", "forests",
          modules=("algorithms.forests.partition", "algorithms.forests.diffusion",
                   "algorithms.forests.knn_decoder", "algorithms.forests.exact_decoder",
                   "algorithms.forests.autoencoder", "algorithms.forests.metrics")),
]

#: paper key -> record: the package's papers in the order of ``../shared/papers/README.md``, then
#: those a user registered with :func:`register_paper`.
PAPERS: dict[str, Paper] = {p.key: p for p in _RECORDS}

#: the package's own paper keys (``PAPERS`` may also hold a user's)
PACKAGE_PAPERS: tuple[str, ...] = tuple(p.key for p in _RECORDS)

_KEY = re.compile(r"[a-z][a-z0-9_]*")


def register_paper(key: str, title: str, reference: str = "", family: str = "",
                   modules: tuple[str, ...] = ()) -> Paper:
    """Register a paper of one's own so that claims can name it (``Claim(paper=key, ...)``).

    ``key`` is a lower-case identifier (claim ids start with ``key.``); registering the same
    record twice is harmless, a different record under a taken key raises.
    """
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise ValueError(f"key must be a lower-case identifier such as 'mypaper', got {key!r}")
    for name, value in (("title", title), ("reference", reference), ("family", family)):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, got {type(value).__name__}")
    if not title.strip():
        raise ValueError("title must not be empty")
    if isinstance(modules, str) or not all(isinstance(m, str) for m in modules):
        raise TypeError(f"modules must be a tuple of module names, got {modules!r}")
    paper = Paper(key, title, reference, family, tuple(modules))
    existing = PAPERS.get(key)
    if existing is not None and existing != paper:
        raise ValueError(f"paper key {key!r} is taken by {existing.title!r}")
    PAPERS[key] = paper
    return paper
