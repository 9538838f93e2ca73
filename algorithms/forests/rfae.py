"""RFAE through ``solve``: autoencode a numeric table with a random forest.

``solve(AutoencodingProblem(X, y, X_test), RFAE(...))`` fits an :class:`RFAutoencoder` on ``X``
(supervised on ``y`` when given), embeds ``X_test`` (default ``X``) by Nyström and decodes it.
``sol.x`` is the embedding of ``X_test`` (in ``X``'s float dtype), ``sol.value`` the paper's
distortion of the reconstruction (mean over columns of 1 − R²), ``sol.original`` the fitted
estimator.

Retcodes: ``Success`` when Lanczos (ARPACK) met its own criterion (every Ritz pair's relative
residual below machine precision: solve's ``tol`` has no effect here and solve warns so) within
``maxiters`` restarts and all
``n_components`` eigenvalues are above :data:`~algorithms.forests.diffusion.EIGEN_FLOOR`;
``MaxIters`` when the restart cap came first (``maxiters=0`` returns zeros at once);
``Failure`` when the kernel has too few non-zero eigenvalues for a non-degenerate embedding
(e.g. a forest without splits, on constant data).

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441.

>>> import numpy as np
>>> from algorithms import solve
>>> X = np.random.default_rng(0).normal(size=(60, 3))
>>> sol = solve(AutoencodingProblem(X), RFAE(n_components=2, n_estimators=10), seed=0)
>>> sol.retcode, sol.x.shape, bool(0.0 <= sol.value <= 1.5)
(<RetCode.Success: 'Success'>, (60, 2), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from algorithms._validation import (
    INT64_MAX,
    as_array,
    as_float_array,
    check_count,
    check_entries_in_range,
    check_int_at_least,
    check_positive_int,
    read_only,
    reseal_state,
)
from algorithms.core import (
    Algorithm,
    IterationMonitor,
    Problem,
    RetCode,
    Solution,
    SolveOptions,
    Stats,
    _dispatch,
)
from algorithms.forests.autoencoder import DECODERS, MAX_ESTIMATORS, RFAutoencoder, _object_targets
from algorithms.forests.diffusion import EIGEN_FLOOR
from algorithms.forests.metrics import distortion

__all__ = ["RFAE", "AutoencodingProblem"]


@dataclass(frozen=True, eq=False)  # identity equality and hash (arrays inside)
class AutoencodingProblem(Problem):
    """A numeric table ``X`` (n, d) to autoencode, optional labels ``y`` (n,) for a supervised forest (all str
    labels or all real numbers, finite and in the working range: an object array mixing them, or holding
    None, NaN or inf, is refused naming y), and optional held-out rows ``X_test`` (m, d) to embed and
    reconstruct (each entry in the working range, then held in X's float dtype: beside a float32 X it is
    rounded to float32). A bool ``X`` or ``X_test`` is read as 0/1 in float64, as :class:`RFAutoencoder`
    reads it."""

    X: Any
    y: Any = None
    X_test: Any = None

    def __post_init__(self) -> None:
        X = as_float_array("X", _bools_as_floats("X", self.X), ndim=2)
        if X.shape[0] < 4:
            raise ValueError(f"X must have at least 4 rows (samples), got {X.shape[0]}")
        object.__setattr__(self, "X", read_only(X))  # a NaN written into problem.X after the checks was fit
        if self.y is not None:
            y = as_array("y", self.y)  # a tensor with grad, an __array__ that raises: by name
            if y.dtype.kind == "O":  # mixed str/int labels reached numpy's sort at the solve
                y = _object_targets(y)
            if y.shape != (X.shape[0],):
                raise ValueError(f"y must have shape ({X.shape[0]},), got {y.shape}")
            if y.dtype.kind == "c":
                raise TypeError("y must hold real numbers or str labels, got complex entries")
            if y.dtype.kind == "f":   # NaN labels were accepted here and refused only at the solve or fit
                if not np.all(np.isfinite(y)):
                    raise ValueError("y contains NaN or inf entries")
                check_entries_in_range("y", y)
            object.__setattr__(self, "y", read_only(y))  # as_array may alias the caller's array: a copy
        if self.X_test is not None:
            # its own values checked first (1e39 beside a float32 X was cast to inf and refused as "NaN or
            # inf"), then held in X's dtype
            X_test = as_float_array("X_test", _bools_as_floats("X_test", self.X_test), ndim=2).astype(X.dtype)
            if X_test.shape[1] != X.shape[1]:
                raise ValueError(f"X_test must have {X.shape[1]} columns like X, got {X_test.shape[1]}")
            if X_test.shape[0] == 0:  # the held-out error of no rows is undefined (a mean over nothing)
                raise ValueError("X_test must have at least 1 row (or be None for no held-out set), got 0")
            object.__setattr__(self, "X_test", read_only(X_test))

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the arrays read-only again (numpy gives them back writable)."""
        reseal_state(self, state)


def _bools_as_floats(name: str, value: Any) -> Any:
    """A bool table as 0/1 float64 (RFAutoencoder promotes bools; as_float_array refused them: the solve
    form refused what the estimator took, red23b); anything else as given."""
    if isinstance(value, np.ndarray | list | tuple) or hasattr(value, "__array__"):
        array = as_array(name, value)
        if array.dtype == np.bool_:
            return array.astype(np.float64)
    return value


@dataclass(frozen=True)
class RFAE(Algorithm):
    """The random-forest autoencoder's hyperparameters (see :class:`RFAutoencoder`).

    ``n_components`` (int >= 1, at most n_samples − 2) is the embedding's dimension, ``n_estimators``
    (int in [1, 10000]) the forest's trees, ``t`` (int in [0, 2**63)) the diffusion time (the embedding is
    √n V Λ^t; 0: no eigenvalue scaling; one so long that every informative λᵗ underflows to 0 is refused
    by name at solve, as by :func:`diffusion_map`),
    ``decoder`` one of ``"knn"``, ``"relabel"``, ``"exact"`` and ``k`` (int >= 1) the k-NN decoder's
    neighbours.
    ``solve``'s ``seed``: an int in [0, 2**64) makes the run reproducible; None draws fresh OS entropy (two
    runs may differ; numpy's global generator is left as it was).

    One pass for ``callback``: it is called once, with the final record, after the run is over, so a
    ``True`` it returns changes nothing (the retcode stays the run's own: core's callback rule).
    """

    n_components: int = 2
    n_estimators: int = 50
    t: int = 1
    decoder: str = "knn"
    k: int = 20

    def __post_init__(self) -> None:
        # the shared checks: numpy ints accepted (isinstance(value, int) refused them), n_estimators capped
        # as a count (2**40 trees ran for ever)
        # stored as the checked ints (a numpy int or IntEnum was kept as given)
        object.__setattr__(self, "n_components", check_positive_int("n_components", self.n_components))
        object.__setattr__(self, "n_estimators", check_count("n_estimators", self.n_estimators, 1,
                                                                   MAX_ESTIMATORS, "each is a tree fitted"))
        object.__setattr__(self, "k", check_positive_int("k", self.k))
        # the diffusion time: a power, no array's size
        object.__setattr__(self, "t", check_int_at_least("t", self.t, 0, size=False))
        if self.t > INT64_MAX:  # here, as RFAutoencoder and diffusion_map do (it was refused only at solve)
            raise ValueError(f"t must be <= 2**63 - 1 (a diffusion time the package holds), got "
                             f"{self.t!r:.40}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, got {self.decoder!r}")


@_dispatch
def _solve(problem: AutoencodingProblem, algorithm: RFAE, options: SolveOptions) -> Solution:
    X = problem.X
    X_test = X if problem.X_test is None else problem.X_test
    if algorithm.n_components > X.shape[0] - 2:
        raise ValueError(f"X has too few rows (samples) for n_components = {algorithm.n_components}: it "
                         f"needs at least n_components + 2 = {algorithm.n_components + 2} (n_components "
                         f"must be at most n_samples - 2), got n_samples = {X.shape[0]}")
    monitor = IterationMonitor(options, total=1, desc="RFAE")
    if options.maxiters == 0:
        monitor.record(iteration=0, stage="start")
        monitor.close()
        return Solution(np.zeros((X_test.shape[0], algorithm.n_components), dtype=X.dtype), float("nan"),
                        RetCode.MaxIters, Stats(iterations=0), monitor.trace)
    seed = options.seed
    if seed is None:  # OS entropy drawn here: scikit-learn's None read (and advanced) numpy's global RNG
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    elif seed >= 2**32:   # scikit-learn's random_state is 32-bit: derive one from it
        seed = int(np.random.SeedSequence(seed).generate_state(1)[0])
    ae = RFAutoencoder(n_components=algorithm.n_components, n_estimators=algorithm.n_estimators,
                       t=algorithm.t, decoder=algorithm.decoder, k=algorithm.k, random_state=seed,
                       supervised=problem.y is not None, progress=options.progress)
    converged = ae._fit(X.astype(np.float64), problem.y, maxiters=options.maxiters)
    Z = ae.transform(X_test.astype(np.float64))
    value = distortion(X_test, ae.inverse_transform(Z))
    smallest = float(ae.eigenvalues_.min())
    monitor.record(iteration=1, stage="embedding", residual=ae.dmap_.residual, converged=converged,
                   smallest_eigenvalue=smallest, distortion=value)
    monitor.close()
    if not converged:
        retcode = RetCode.MaxIters
    elif smallest <= EIGEN_FLOOR or not np.isfinite(value):
        retcode = RetCode.Failure
    else:   # one pass: a callback's True for the record after the work changes nothing
        retcode = RetCode.Success
    return Solution(Z.astype(X.dtype), value, retcode, Stats(iterations=1), monitor.trace, original=ae)
