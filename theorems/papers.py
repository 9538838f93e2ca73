"""One record per paper key: title, reference and the ``algorithms`` family that implements it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    key: str
    title: str
    reference: str
    family: str


_RECORDS = [
    Paper("dqp", "dQP: solver-agnostic differentiation of quadratic programs",
          "Magoon, Yang, Aigerman, Kovalsky. NeurIPS 2025. Code: cwmagoon/dQP (libdqp).", "qp"),
    Paper("lcd", "Local Curvature Descent: squeezing more curvature out of standard and "
          "Polyak gradient descent",
          "Richtárik, Giancola, Lubczyk, Yadav. NeurIPS 2025. arXiv:2405.16574.", "curvature"),
    Paper("adaptive_hierarchical", "Noise-adaptive algorithms for stochastic minimax and "
          "bilevel optimization (Ada-Minimax, Ada-BiO)",
          "Gong, Hao, Liu. NeurIPS 2025. arXiv:2509.15399.", "hierarchical"),
    Paper("overparam_unlearning", "Machine unlearning under overparameterization as "
          "minimum-complexity interpolation",
          "Block, Mokhtari, Shakkottai. NeurIPS 2025. arXiv:2505.22601.", "unlearning"),
    Paper("cei_rates", "Convergence rates of constrained expected improvement",
          "H. Wang, J. Wang, Dai, Chiang, Ng, Petra. NeurIPS 2025. arXiv:2505.11323.",
          "bayesopt"),
    Paper("sam_stability", "A unified linear stability analysis of SGD, random perturbation "
          "and SAM: the role of data coherence",
          "Chang, Khanna. NeurIPS 2025. arXiv:2511.17378.", "nets"),
    Paper("gd_nonsingular", "The gradient descent map is non-singular for almost all step sizes",
          "Crăciun, Ghoshdastidar. NeurIPS 2025. OpenReview Ecw0Cina9N, arXiv:2510.24466.",
          "nets"),
    Paper("sparse_relu", "Sparsest interpolating ReLU networks via ℓp path norms, 0 < p < 1",
          "Nakhleh, Nowak. NeurIPS 2025. OpenReview EMa1ih7Wdt, arXiv:2505.21791.", "nets"),
    Paper("two_layer_nc", "Neural collapse under gradient flow in two-layer ReLU networks",
          "Min, Zhu, Vidal. NeurIPS 2025. OpenReview DbJ2f80JF8, arXiv:2510.21078.", "nets"),
    Paper("single_location_attention", "Exact mean-field analysis of softmax attention on "
          "single-location regression",
          "Dohmatob. NeurIPS 2025. OpenReview GiqeRe1NsY.", "attention"),
    Paper("second_order_scaling", "Scaling rules for matrix-preconditioned optimizers "
          "(Shampoo, SOAP, Muon)",
          "Qiu, Chen, Phan, Lei, Wilson. NeurIPS 2025. OpenReview Ei6IsmxYrb.", "optimizers"),
    Paper("bcd_expansion", "Accelerating block coordinate descent for LLM finetuning via "
          "landscape expansion (BREAD)",
          "NeurIPS 2025. OpenReview DBybUx7ARy. Code: microsoft/BlockOptimizers.", "optimizers"),
    Paper("dynamic_matchoid", "Non-monotone submodular optimization: p-matchoid constraints "
          "and the fully dynamic setting",
          "Banihashem, Goudarzi, Hajiaghayi, Jabbarzade, Monemizadeh. NeurIPS 2025.",
          "submodular"),
    Paper("hbg_gflownet", "Hybrid-Balance GFlowNet for vehicle routing (TSP, CVRP)",
          "NeurIPS 2025. arXiv:2510.04792. Code: ZHANG-NI/HBG.", "routing"),
    Paper("ggdopt", "Gradient-guided diffusion for chance-constrained programs",
          "B. Zhang, Wang, Liu. NeurIPS 2025. arXiv:2510.12238.", "chance"),
    Paper("designx", "DesignX: automated black-box optimizer design",
          "NeurIPS 2025. arXiv:2505.17866. Code: MetaEvo/DesignX.", "blackbox"),
    Paper("purest_quantum", "Purest quantum state identification",
          "Yu, Chen, Wu, Xie, Li. NeurIPS 2025. arXiv:2502.14334.", "quantum"),
    Paper("npn", "Non-linear projections of the null space for imaging inverse problems",
          "NeurIPS 2025. arXiv:2510.01608. Code: yromariogh/NPN.", "imaging"),
    Paper("rf_autoencoder", "Autoencoding random forests",
          "Vu, Kapar, Wright, Watson. NeurIPS 2025. arXiv:2505.21441.", "forests"),
]

#: paper key -> record, in the order of ``../shared/papers/README.md``.
PAPERS: dict[str, Paper] = {p.key: p for p in _RECORDS}
