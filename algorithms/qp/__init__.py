"""Quadratic programs and dQP, their solver-agnostic differentiation (Magoon et al., NeurIPS 2025).

``QP`` holds the data, ``DQP`` solves it with any qpsolvers backend (``DQP()`` picks one by
size and sparsity: ``choose_backend``), checks the answer's KKT conditions
(``kkt_residuals``) and returns a ``QPSolution`` with a ``vjp``; ``QPLayer`` / ``qp_layer``
wrap it as a batched, differentiable torch layer (imported lazily, so numpy users do not need
torch).
"""

from algorithms.qp.dqp import (
    DQP,
    KKTFactor,
    QPSolution,
    absolute_residuals,
    choose_backend,
    installed_backends,
    kkt_residuals,
)
from algorithms.qp.problem import QP

__all__ = ["DQP", "QP", "KKTFactor", "QPLayer", "QPSolution", "absolute_residuals", "choose_backend",
           "installed_backends", "kkt_residuals", "qp_layer"]


def __getattr__(name):
    if name in ("QPLayer", "qp_layer", "QPFunction", "QPLayerError"):
        from algorithms.qp import layer

        return getattr(layer, name)
    raise AttributeError(f"module 'algorithms.qp' has no attribute {name!r}")
