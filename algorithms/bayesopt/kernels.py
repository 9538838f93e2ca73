"""Stationary kernels of the CEI analysis: squared exponential and Matérn ν ∈ {1/2, 3/2, 5/2}.

With r = ‖(x − x′)/ℓ‖₂ (ℓ a scalar or one length per coordinate) and outputscale s²:

* SE:          k(r) = s² exp(−r²/2)
* Matérn 1/2:  k(r) = s² exp(−r)
* Matérn 3/2:  k(r) = s² (1 + √3 r) exp(−√3 r)
* Matérn 5/2:  k(r) = s² (1 + √5 r + 5r²/3) exp(−√5 r)

The theory (Assumption 3.2 of the paper) takes k(x, x) = 1, i.e. ``outputscale=1``.

References
----------
H. Wang, J. Wang, Z. Dai, N.-Y. Chiang, S. H. Ng, C. G. Petra. Convergence Rates of Constrained
Expected Improvement. NeurIPS 2025, arXiv:2505.11323 (Section 2.1).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist

from algorithms._validation import (
    WORKING_MAX,
    WORKING_MIN,
    _brief,
    as_float_array,
    as_real_array,
    check_positive,
    read_only,
    refuse_overrides,
    remember_validated,
    revalidate_if_reassigned,
)

__all__ = ["KERNEL_NAMES", "MATERN_NUS", "Kernel"]

#: the smallest normal float64: a positive scale below it (a subnormal, 5e-324 or 1e-320) has lost its
#: precision, and a product with it rounds to 0 (a GP's jitter ε = jitter · outputscale became 0)
TINY = float(np.finfo(np.float64).tiny)


def check_scale(name: str, value, *, upper: float | None = None) -> float:
    """A positive scale (a lengthscale, an outputscale, a jitter): a finite real number >= 1.18e-38 (the
    working range's smallest positive scale: 0, -0.0, 1e-39 and 5e-324 are refused by name), and at most
    ``upper`` when given."""
    value = check_positive(name, value)
    if value < TINY:
        raise ValueError(f"{name} must be >= {TINY:.3g} (the smallest normal float64), got the subnormal "
                         f"{value!r}")
    if upper is not None and value > upper:
        raise ValueError(f"{name} must be <= {upper:g}, got {value!r}")
    return value

#: the largest lengthscale and outputscale: the package's working range (README), far inside the 1e150 where
#: a scaled squared distance (x/ℓ)² of ordinary inputs left the normal floats (ℓ = 1e308 made every k
#: exactly s², a constant kernel) and s² products overflowed
SCALE_MAX = WORKING_MAX

KERNEL_NAMES = ("se", "matern")
#: real numbers, numpy's too (np.number let a complex nu through, cut to its real part)
_REAL = numbers.Real   # any real (a Fraction too), never a bool (refused before)
MATERN_NUS = (0.5, 1.5, 2.5)


@dataclass(frozen=True)
class Kernel:
    """A stationary kernel: ``name`` ``"se"`` or ``"matern"`` (with ``nu`` in {0.5, 1.5, 2.5}).

    ``lengthscale`` is a positive float or one positive length per input coordinate (ARD, a 1-D array
    or list of d >= 1 entries: ``[0.2]`` is the ARD lengthscale of a 1-D input); ``outputscale`` s² a
    positive float (the prior variance of the GP). Both are real numbers (Python or numpy, never a bool) in
    the package's working range for positive scales, [1.18e-38, 3.4e38] (every ARD entry too): 0, -0.0,
    1e-39 and 1e39 are refused by name. ``nu`` is used
    by the Matérn kernel only (SE accepts 0.5, 1.5, 2.5 or inf).


    A subclass may add methods and attributes but not override __call__ / profile: the package evaluates this
    class's own, so the constructor refuses such a subclass with a TypeError naming the method.

    >>> k = Kernel("matern", nu=2.5, lengthscale=0.2)
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0]])
    >>> np.round(k(X, X), 4)
    array([[1.    , 0.8286],
           [0.8286, 1.    ]])
    """

    name: str = "matern"
    nu: float = 2.5
    lengthscale: float | np.ndarray = 0.2
    outputscale: float = 1.0

    def __post_init__(self) -> None:
        # a subclass's override was ignored or used unchecked (red23a)
        refuse_overrides(self, Kernel, ("__call__", "profile", "_profile", "_scaled_distance"))
        if not isinstance(self.name, str) or self.name not in KERNEL_NAMES:
            raise ValueError(f"name must be one of {list(KERNEL_NAMES)}, got {self.name!r}")
        object.__setattr__(self, "name", str(self.name))   # np.str_("se") was kept (its repr showed np.str_)
        if self.name == "matern":
            if isinstance(self.nu, bool | np.bool_) or not isinstance(self.nu, _REAL) \
                    or self.nu not in MATERN_NUS:
                raise ValueError(
                    f"nu must be one of {list(MATERN_NUS)} for the Matérn kernel, got {self.nu!r}"
                )
            object.__setattr__(self, "nu", float(self.nu))
        elif isinstance(self.nu, bool | np.bool_) or not isinstance(self.nu, _REAL) \
                or not (self.nu in MATERN_NUS or self.nu == np.inf):
            # SE ignores nu, but nu="abc" or NaN was kept (and shown in its repr) as if it meant something
            raise ValueError(f"nu must be one of {list(MATERN_NUS)} or inf (SE is the nu -> inf limit; it "
                             f"ignores nu), got {self.nu!r}")
        else:
            object.__setattr__(self, "nu", float(self.nu))
        try:
            scalar = np.ndim(self.lengthscale) == 0
        except Exception as exc:   # an object whose __array__ raises: its own RuntimeError named nothing
            raise TypeError(f"lengthscale must be a positive float or a 1-D array of them, got "
                            f"{type(self.lengthscale).__name__} {_brief(self.lengthscale)} ({exc})") from None
        if scalar:
            ell = check_scale("lengthscale", self.lengthscale, upper=SCALE_MAX)
            object.__setattr__(self, "lengthscale", ell)
        else:
            scale = as_float_array("lengthscale", self.lengthscale, ndim=1, dtype=np.float64)
            if scale.size == 0 or np.any(scale < WORKING_MIN) or np.any(scale > SCALE_MAX):
                raise ValueError(f"lengthscale must lie in [{WORKING_MIN:.4g}, {SCALE_MAX:.4g}] in every "
                                 f"coordinate (the package's working range for a positive scale: float32's "
                                 f"normal numbers), got {scale}")
            scale = read_only(scale)   # immutable: no flag to set back (red18a)
            object.__setattr__(self, "lengthscale", scale)
        object.__setattr__(self, "outputscale",
                           check_scale("outputscale", self.outputscale, upper=SCALE_MAX))
        remember_validated(self)   # object.__setattr__(kernel, "lengthscale", -1) is refused at the next use

    def _key(self) -> tuple:
        ell = self.lengthscale
        ell = tuple(ell.tolist()) if isinstance(ell, np.ndarray) else ell
        return (self.name, self.nu, ell, self.outputscale)

    def __eq__(self, other: object) -> bool:
        # by value, ARD lengthscales included (the generated __eq__ compared arrays: "truth value ambiguous")
        return isinstance(other, Kernel) and self._key() == other._key()

    def __hash__(self) -> int:   # the generated one hashed the array (unhashable): CEI(kernel=ARD) too
        return hash(self._key())

    @property
    def smoothness(self) -> float:
        """ν of the kernel (``inf`` for SE, the ν → ∞ limit of the Matérn family)."""
        return np.inf if self.name == "se" else self.nu

    def with_params(self, lengthscale, outputscale: float) -> Kernel:
        """The same kernel family with other hyperparameters.

        ``lengthscale`` is a float > 0 or one per input coordinate, ``outputscale`` a finite float > 0
        (checked as in the constructor).
        """
        return Kernel(self.name, self.nu, lengthscale, outputscale)

    def _scaled_distance(self, X: np.ndarray, Y: np.ndarray) -> np.ndarray:
        ell = np.asarray(self.lengthscale)
        if ell.ndim == 1 and ell.size != X.shape[-1]:
            raise ValueError(f"lengthscale has {ell.size} entries but the inputs have {X.shape[-1]} columns")
        # differences first, then scaled: X / ell rounded each point before the subtraction, and the
        # difference of nearby points cancelled (k([1e10 + 1], [1e10]) at ell = 3 off by 1e-7, 10 % at
        # ell = 1e-15 near 1); ell² of the working range is a normal float64
        variances = np.broadcast_to(np.square(ell, dtype=np.float64), (X.shape[-1],))
        with np.errstate(over="ignore"):   # an overflow is refused by __call__ by name
            return cdist(X, Y, "seuclidean", V=variances)

    def profile(self, r: np.ndarray) -> np.ndarray:
        """k as a function of the scaled distance r >= 0 (without the outputscale)."""
        revalidate_if_reassigned(self)
        r = as_real_array("r", r)
        if not np.all(np.isfinite(r)) or np.any(r < 0):  # a distance: -1 gave 4.03 (above k(0) = 1)
            raise ValueError(f"r must hold finite distances >= 0, got min {float(np.min(r, initial=0.0))!r}")
        return self._profile(r)

    def _profile(self, r: np.ndarray) -> np.ndarray:
        if self.name == "se":
            return np.exp(-0.5 * r * r)
        if self.nu == 0.5:
            return np.exp(-r)
        if self.nu == 1.5:
            s = np.sqrt(3.0) * r
            return (1.0 + s) * np.exp(-s)
        s = np.sqrt(5.0) * r
        return (1.0 + s + s * s / 3.0) * np.exp(-s)

    def __call__(self, X, Y) -> np.ndarray:
        """The kernel matrix k(X, Y), shape (len(X), len(Y)); X, Y of shape (n, d) and (m, d), d >= 1, finite
        reals of any real dtype (arrays, lists or tensors): computed and returned in float64, from each
        difference x − y taken before its division by the lengthscale (nearby points far from the origin
        keep their digits: k([1e10 + 1], [1e10]) is the kernel at distance exactly 1/ℓ)."""
        revalidate_if_reassigned(self)
        X, Y = as_real_array("X", X), as_real_array("Y", Y)
        for name, M in (("X", X), ("Y", Y)):   # a 0-d array is no point of shape (d,): made one in silence
            if M.ndim == 0:
                raise ValueError(f"{name} must have shape (n, d) (or (d,) for one point), got a 0-d array")
        X, Y = np.atleast_2d(X), np.atleast_2d(Y)
        for name, M in (("X", X), ("Y", Y)):  # NaN rows gave NaN kernel entries
            if M.ndim != 2:   # scipy's cdist said "XA must be a 2-dimensional array"
                raise ValueError(f"{name} must have shape (n, d) (or (d,) for one point), got {M.shape}")
            if not np.all(np.isfinite(M)):
                raise ValueError(f"{name} contains NaN or inf entries")
        if X.shape[1] != Y.shape[1]:
            raise ValueError(f"X and Y must have the same number of columns, got {X.shape} and {Y.shape}")
        if X.shape[1] == 0:   # points of no coordinates: every pair was at distance 0 (k = outputscale)
            raise ValueError(f"X and Y must have d >= 1 columns (coordinates), got shapes {X.shape} and "
                             f"{Y.shape}")
        R = self._scaled_distance(X, Y)
        if not np.all(np.isfinite(R)):   # 1e300 entries: the squared distances overflowed, k read as 0
            size = float(max(np.abs(X).max(initial=0), np.abs(Y).max(initial=0)))
            raise ValueError(f"X and Y (entries up to {size:.3g}) are too large for the kernel's "
                             f"lengthscale {self.lengthscale!r:.60}: their scaled distances overflow "
                             f"float64; rescale the inputs")
        K = self.outputscale * self._profile(R)
        if not np.all(np.isfinite(K)):   # X / lengthscale overflowed (lengthscale 1e-320 gave NaN entries)
            size = float(max(np.abs(X).max(initial=0), np.abs(Y).max(initial=0)))
            raise ValueError(f"lengthscale {self.lengthscale!r:.60} is too small for inputs of magnitude "
                             f"{size:.3g}: the kernel matrix is not finite")
        return K
