"""Round 23: docstring promises at their boundaries (hierarchical)."""

from __future__ import annotations

import numpy as np
import pytest

from algorithms import solve
from algorithms.hierarchical import SGDA, AdaMinimax, TiAda, synthetic_minimax


@pytest.mark.parametrize("algorithm", [SGDA(), AdaMinimax(), TiAda()], ids=lambda a: type(a).__name__)
@pytest.mark.parametrize("x0", [2.6e19, -2.6e19])
def test_float32_start_at_the_documented_edge_is_not_reported_diverged(algorithm, x0):
    # synthetic_minimax: float32 takes |c|·|x0| up to about 2.6e19 (Φ(x0) = c²x0²/2 = 3.38e38 fits float32);
    # the built-in phi squared x in float32 (inf), so a run whose x stayed near x0 (AdaMinimax, TiAda)
    # ended Diverged with value inf on a problem the docstring accepts
    prob = synthetic_minimax(x0=x0, y0=0.0, dtype=np.float32)
    sol = solve(prob, algorithm, maxiters=50, seed=0)
    assert sol.retcode.name != "Diverged"
    assert np.isfinite(sol.value)
    x = float(sol.x[0])
    assert sol.value == pytest.approx(np.cos(x) + 0.5 * x * x, rel=1e-6)


def test_float32_start_past_the_edge_is_refused_naming_coupling():
    with pytest.raises(ValueError, match="coupling"):
        synthetic_minimax(x0=2.61e19, y0=0.0, dtype=np.float32)


@pytest.mark.parametrize(("horizon", "expected"), [(2**22, 33), (2**42, 63), (2**62, 93)])
@pytest.mark.parametrize("kind", [int, np.int64, np.uint64])
def test_neumann_terms_numpy_int_horizon_is_not_cubed_in_int64(horizon, expected, kind):
    # red23b: np.int64(2**22) gave 32 (T³ wrapped in int64), one short of Theorem 4.2's least N (2^(2N) >= T³)
    from algorithms.hierarchical import neumann_terms

    assert neumann_terms(kind(horizon), 0.5, 1.0) == expected
