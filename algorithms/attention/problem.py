"""The single-location regression problem (Marion et al. 2025; Dohmatob, NeurIPS 2025) and its data.

A sequence ``X = (x_1, ..., x_L)`` of ``L`` tokens in ``R^d``; one secret index ``ℓ*`` (uniform)
carries the signal, the other tokens are pure noise:

    x_ℓ ~ N(0, I_d)                      for ℓ != ℓ*,
    x_ℓ* ~ N(s √d u*, γ² I_d),           y = σ(x_ℓ*ᵀ v*) + ε ξ,  ξ ~ N(0, 1),

with unit, orthogonal oracle directions ``u*`` (key) and ``v*`` (value). Dohmatob's variant takes
the signal scale ``s = c := √(1 − γ²)``; Marion et al.'s takes ``s = 1/√2`` (their ``√(d/2) k*``).
The two coincide at ``γ = 1/√2``. The learner's models see ``λ = β √d`` as inverse temperature.

References
----------
P. Marion, R. Berthier, G. Biau, C. Boyer. Attention layers provably solve single-location
regression. ICLR 2025 (arXiv:2410.01537), Section 2.
E. Dohmatob. Understanding softmax attention layers: exact mean-field analysis on a toy problem.
NeurIPS 2025 (OpenReview GiqeRe1NsY), Section 3.1.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from algorithms._validation import (
    as_float_array,
    as_real_array,
    check_choice,
    check_count,
    check_finite_data,
    check_fits_memory,
    check_float_dtype,
    check_int_at_least,
    check_nonnegative,
    check_positive,
    check_seed,
    physical_memory,
    refuse_sparse,
    remember_validated,
    revalidate_if_reassigned,
    to_float,
)
from algorithms.core import Problem

__all__ = [
    "LINKS",
    "VARIANTS",
    "SingleLocationProblem",
    "link_function",
    "overlaps",
    "sample_batch",
    "vectors_with_overlaps",
]

#: link functions σ of the labels and of the values (Condition 1 of Dohmatob: positive-homogeneous)
LINKS = ("linear", "quadratic", "relu")
#: data variants: the secret token's mean is ``s √d u*`` with s = √(1-γ²) (dohmatob) or 1/√2 (marion)
VARIANTS = ("dohmatob", "marion")
_UNIT_TOL = 1e-6


def link_function(name: str):
    """The link σ named ``name`` (one of ``LINKS``) as a function of a real floating torch tensor ``t``.

    The returned function refuses anything but a dense real floating tensor (a float, an array, a
    complex, sparse or meta tensor) with a TypeError naming ``t``, and NaN/inf entries with a ValueError.

    >>> link_function("relu")(torch.tensor([-1.0, 2.0]))
    tensor([0., 2.])
    """
    check_choice("name (a link)", name, LINKS)
    sigma = {"linear": lambda t: t, "quadratic": lambda t: t * t, "relu": torch.relu}[name]

    def link(t: torch.Tensor) -> torch.Tensor:
        if not isinstance(t, torch.Tensor):  # torch.relu's own message names 'input'
            raise TypeError(f"t (the {name} link's argument) must be a torch tensor, got {type(t).__name__}")
        refuse_sparse(f"t (the {name} link's argument)", t)
        if not t.dtype.is_floating_point or t.device.type == "meta":
            raise TypeError(f"t (the {name} link's argument) must be a real floating tensor with data, got "
                            f"dtype {t.dtype} on {t.device}")
        check_finite_data(f"t (the {name} link's argument)", t)  # NaN/inf in, NaN/inf labels out, in silence
        return sigma(t)

    link.__name__ = link.__qualname__ = f"{name}_link"
    return link


def unit_tolerance(d: int, *values) -> float:
    """The unit-norm tolerance of d-vectors given in ``values``' precisions: rounding a normalised vector to
    the coarsest of them (float16's norm is off by ~5e-4, float32's by ~1e-7), 1e-6 at least."""
    eps = 2.3e-16  # lists and float64
    for value in values:
        dtype = getattr(value, "dtype", None)
        if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
            eps = max(eps, torch.finfo(dtype).eps)
        elif isinstance(dtype, np.dtype) and dtype.kind == "f":
            eps = max(eps, float(np.finfo(dtype).eps))
    # 10√d ulps for float32/float64 (a vector normalised in that precision); half precision rounds a unit
    # vector's norm by ~eps/2, and 10√d of its coarse ulps would pass a norm of 1.1
    return max(_UNIT_TOL, (10.0 if eps < 1e-6 else 2.0) * math.sqrt(d) * eps)


def check_unit_vector(name: str, value, d: int, dtype=torch.float64) -> torch.Tensor:
    """``value`` as a finite unit vector of ``R^d`` (a torch tensor of ``dtype``); any real floating dtype,
    its norm's tolerance that of its precision (:func:`unit_tolerance`)."""
    given = value
    if isinstance(value, torch.Tensor) and value.dtype in (torch.float16, torch.bfloat16):
        value = value.detach().double()  # numpy holds no bfloat16
    try:
        vec = torch.as_tensor(as_real_array(name, value), dtype=dtype).detach().clone()
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a real vector of length {d}: {exc}") from exc
    if vec.shape != (d,):
        raise ValueError(f"{name} must have shape ({d},) (the problem's token dimension d = {d}), got "
                         f"{tuple(vec.shape)}")
    check_finite_data(name, vec)
    norm = float(torch.linalg.vector_norm(vec.double()))
    if abs(norm - 1.0) > unit_tolerance(d, given):
        raise ValueError(f"{name} must be a unit vector (the model lives on the sphere), got norm {norm:.6g}")
    return vec


@dataclass(frozen=True)
class SingleLocationProblem(Problem):
    """A single-location regression instance and the learner's inverse temperature.

    ``d`` (an int in [2, 2**31 − 1]) the token dimension, ``L`` (an int >= 2, the sequence length; not capped
    at 2**63 − 1 as other counts are: it enters the formulas only, L − 1 = e^{αd}, and a sample of L tokens is
    refused by memory, naming L), ``gamma`` in (0, 1) (a positive scale: at least 1.18e-38) the feature noise
    of the secret token, ``beta`` > 0 the normalised inverse temperature
    (λ = β √d; β in the working range [1.18e-38, 3.4e38]: a tiny β is the uniform-attention limit, a huge one
    the argmax limit), ``epsilon`` >= 0 the label noise (at most 3.4e38, 1e-39 included; in a float32
    problem labels with noise beyond ~1e19 overflow the squared loss, and SphericalGD's run then ends
    ``Diverged``), ``link`` the link σ,
    ``variant`` the data model,
    ``n_samples`` (an int in [1, 2**31 − 1]) the training-sample size used by
    :class:`~algorithms.attention.SphericalGD`, ``oracle_seed`` (an int in [0, 2**64)) seeds the oracle
    directions (u*, v*), ``u0``/``v0`` optional unit starting vectors (norm 1 within their precision's
    rounding, max(1e-6, 10·√d·eps) for float32/float64, else refused by name; None: drawn uniformly on the
    sphere from the solve seed; stored as tuples of floats, a copy of what was passed), ``dtype`` float64 or
    float32 (``np.float64``, ``np.dtype("float64")`` or the string ``"float64"``; stored as the numpy type).

    >>> p = SingleLocationProblem(d=8, L=4, gamma=0.6)
    >>> round(p.signal_scale, 3), round(p.alpha, 4)
    (0.8, 0.1373)
    """

    d: int
    L: int
    gamma: float
    beta: float = 1.0
    epsilon: float = 0.0
    link: str = "linear"
    variant: str = "dohmatob"
    n_samples: int = 500
    oracle_seed: int = 0
    u0: object = None
    v0: object = None
    dtype: object = np.float64

    def __post_init__(self) -> None:
        # every field stored as the Python value its check returns: np.int64(6) / np.float32(0.6) / np.str_
        # were kept as numpy scalars (another repr, and a float32 gamma in the formulas)
        object.__setattr__(self, "d", check_count("d", self.d, 2))  # a dimension: vectors of d entries
        # the oracle's QR of a (d, 2) draw and the start vectors: refused before allocating (2**31 − 1 hung)
        check_fits_memory("SingleLocationProblem", "d", self.d, 64.0 * self.d)
        # L − 1 = e^{αd} enters the formulas only (the REM regime log L = αd at large d: the phase-transition
        # claim takes L ~ 1e34), never an array's shape (those are refused by memory, naming L): no int64 cap
        object.__setattr__(self, "L", check_int_at_least("L", self.L, 2, size=False))
        gamma = check_positive("gamma", self.gamma)
        if not gamma < 1.0:
            raise ValueError(f"gamma must be in (0, 1) (feature noise of the secret token), got {gamma!r}")
        object.__setattr__(self, "gamma", gamma)
        # in the working range λ = β√d is finite (β <= 3.4e38); a float32 λ past float32's range is handled
        # by the softmax (tempered_softmax)
        object.__setattr__(self, "beta", check_positive("beta", self.beta))
        object.__setattr__(self, "epsilon", check_nonnegative("epsilon", self.epsilon))
        object.__setattr__(self, "link", str(check_choice("link", self.link, LINKS)))
        object.__setattr__(self, "variant", str(check_choice("variant", self.variant, VARIANTS)))
        object.__setattr__(self, "n_samples", check_count("n_samples", self.n_samples, 1))
        # stored as the int check_seed returns: torch's manual_seed refuses numpy integers
        object.__setattr__(self, "oracle_seed", check_seed(self.oracle_seed, "oracle_seed"))
        # the shared check: "float32" (a string, as the other families take it) was refused here
        dtype = check_float_dtype(self.dtype)
        # stored as the type, so equal problems compare and repr alike
        object.__setattr__(self, "dtype", np.float32 if dtype == np.float32 else np.float64)
        for name in ("u0", "v0"):
            if getattr(self, name) is not None:
                # kept as a tuple of floats, not the caller's array: an edit of that array after construction
                # changed the solve's start (and could bypass the unit check); a tuple also keeps the frozen
                # problem hashable, comparable and picklable
                vec = check_unit_vector(name, getattr(self, name), self.d)
                object.__setattr__(self, name, tuple(float(x) for x in vec.tolist()))
        remember_validated(self)

    @property
    def torch_dtype(self) -> torch.dtype:
        return torch.float32 if self.dtype == np.float32 else torch.float64

    @property
    def signal_scale(self) -> float:
        """``s`` in the secret token's mean ``s √d u*``: √(1 − γ²) (Dohmatob) or 1/√2 (Marion et al.)."""
        # √((1 − γ)(1 + γ)): 1 − γ² cancelled near γ = 1 (relative error 2e-11 at γ = 1 − 1e-7)
        gamma = self.gamma
        return math.sqrt((1.0 - gamma) * (1.0 + gamma)) if self.variant == "dohmatob" else math.sqrt(0.5)

    @property
    def alpha(self) -> float:
        """The length exponent α with L − 1 = e^{α d} (the regime log L = O(d))."""
        return math.log(self.L - 1) / self.d

    @property
    def inverse_temperature(self) -> float:
        """λ = β √d."""
        return self.beta * math.sqrt(self.d)

    def oracle(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The oracle directions (u*, v*): orthonormal, drawn from ``oracle_seed``."""
        u_star, v_star = self._oracle64()
        return u_star.to(self.torch_dtype), v_star.to(self.torch_dtype)

    def _oracle64(self) -> tuple[torch.Tensor, torch.Tensor]:
        """(u*, v*) in float64, whatever the dtype (a float32 problem's sample is drawn from these)."""
        revalidate_if_reassigned(self)  # oracle_seed = -1 set through object.__setattr__ met torch's error
        gen = torch.Generator().manual_seed(self.oracle_seed)
        basis = torch.randn(self.d, 2, generator=gen, dtype=torch.float64)
        q, _ = torch.linalg.qr(basis)
        return q[:, 0], q[:, 1]


def check_problem(problem: Any) -> SingleLocationProblem:
    """``problem`` a :class:`SingleLocationProblem`, validated again when a field was changed after
    construction (``object.__setattr__(problem, "gamma", 2)`` met math's "domain error" in the formulas, or
    was answered), as a solve does. Every public function taking a problem calls it."""
    if not isinstance(problem, SingleLocationProblem):
        raise TypeError(f"problem must be a SingleLocationProblem, got {type(problem).__name__}")
    revalidate_if_reassigned(problem)
    return problem


def sample_batch(problem: SingleLocationProblem, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor,
                                                                               torch.Tensor]:
    """``n`` i.i.d. draws ``(X, y, secret)`` of the problem's distribution: X (n, L, d), y (n,), secret (n,).

    ``n`` is an int in [1, 2**31 − 1] (n·L·d entries past this machine's memory are refused naming L or n)
    and ``seed`` an int in [0, 2**64). The draw is made in float64 and cast to the problem's dtype: a float32
    problem's sample is its float64 twin's, rounded. In a float32 problem, labels whose noise ε·ξ overflows
    float32 (ε of order 1e37 and above, ξ ~ N(0, 1)) are refused naming ``epsilon`` (they were inf labels);
    use a float64 problem.

    >>> p = SingleLocationProblem(d=5, L=3, gamma=0.5)
    >>> X, y, j = sample_batch(p, 4, seed=0)
    >>> tuple(X.shape), tuple(y.shape), bool(((j >= 0) & (j < 3)).all())
    ((4, 3, 5), (4,), True)
    """
    check_problem(problem)
    check_count("n", n, 1)
    check_batch_memory("sample_batch", "n", n, problem)
    X, y, secret = draw_batch(problem, n, seed)
    if not bool(torch.isfinite(y).all()):
        raise ValueError(f"epsilon = {problem.epsilon:g} is too large for a {problem.dtype.__name__} "
                         f"problem: its label noise epsilon·ξ overflows to inf; use dtype=numpy.float64 or a "
                         f"smaller epsilon")
    return X, y, secret


def draw_batch(problem: SingleLocationProblem, n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor,
                                                                             torch.Tensor]:
    """:func:`sample_batch` on checked arguments, its labels unchecked (SphericalGD's sample: labels that
    overflow make its run ``Diverged``, as documented)."""
    gen = torch.Generator().manual_seed(check_seed(seed))  # numpy ints as ints (manual_seed refuses them)
    # drawn in float64 and then cast: torch's float32 stream is another stream, so a float32 problem drew an
    # unrelated sample (not its float64 twin's, rounded) and SphericalGD reached another answer (red23b)
    f64 = torch.float64
    u_star, v_star = problem._oracle64()
    X = torch.randn(n, problem.L, problem.d, generator=gen, dtype=f64)
    secret = torch.randint(problem.L, (n,), generator=gen)
    rows = torch.arange(n)
    X[rows, secret] = problem.gamma * X[rows, secret] + problem.signal_scale * math.sqrt(problem.d) * u_star
    noise = problem.epsilon * torch.randn(n, generator=gen, dtype=f64)
    y = link_function(problem.link)(X[rows, secret] @ v_star) + noise
    dt = problem.torch_dtype
    return X.to(dt), y.to(dt), secret


def check_batch_memory(owner: str, name: str, n: int, problem: SingleLocationProblem) -> None:
    """``n`` sequences of the problem's L tokens in R^d (n·L·d entries, float64) fit this machine's memory,
    else a ValueError naming ``L`` (when one sequence alone does not fit) or ``name`` (torch's allocator
    error, or its size overflow, named neither)."""
    # in ints, then to_float (inf past float's range): L = 2**3000 (valid, formulas only) met OverflowError
    one = to_float(8 * problem.L * problem.d)
    if one > physical_memory():
        check_fits_memory(owner, "L", problem.L, one)
    check_fits_memory(owner, name, n, to_float(8 * n * problem.L * problem.d))


def _real_vector(name: str, value) -> torch.Tensor:
    """``value`` (tensor, array or list) as a finite float64 tensor; strings, complex and NaN named."""
    if isinstance(value, torch.Tensor):
        if value.is_complex() or value.dtype == torch.bool:
            raise TypeError(f"{name} must be a real tensor, got dtype {value.dtype}")
        if value.device.type == "meta":
            raise ValueError(f"{name} is on the meta device (no data)")
        refuse_sparse(name, value)  # torch's NotImplementedError ('aten::ne.Scalar' ... SparseCPU)
        tensor = value.detach().to(device="cpu", dtype=torch.float64)
        if not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{name} contains NaN or inf entries")
        return tensor
    return torch.from_numpy(as_float_array(name, value, dtype=np.float64))


def overlaps(u, v, u_star, v_star) -> dict[str, float]:
    """The order parameters μ = uᵀu*, ν = vᵀv*, η = uᵀv*, ζ = vᵀu*, ρ = uᵀv of unit vectors (a zero or
    non-unit vector is refused, naming it).

    ``u``, ``v`` (the model's key and value) and ``u_star``, ``v_star`` (the truth) are real unit vectors
    (tensors or arrays) of one length d, of any real dtype: they are read as float64 (a float32 or float16
    vector as its rounding, its unit-norm tolerance that precision's) and each overlap, a cosine, is clipped
    to [-1, 1] (a float32 copy of u* gave μ = 1.000000007).

    >>> e = torch.eye(3, dtype=torch.float64)
    >>> overlaps(e[0], e[1], e[0], e[1])
    {'mu': 1.0, 'nu': 1.0, 'eta': 0.0, 'zeta': 0.0, 'rho': 0.0}
    """
    u_in, v_in, us_in, vs_in = u, v, u_star, v_star
    u, v, u_star, v_star = (_real_vector(name, t) for name, t in
                            (("u", u), ("v", v), ("u_star", u_star), ("v_star", v_star)))
    if not (u.shape == v.shape == u_star.shape == v_star.shape and u.ndim == 1):
        raise ValueError(f"u, v, u_star, v_star must be vectors of one length, got shapes "
                         f"{[tuple(t.shape) for t in (u, v, u_star, v_star)]}")
    # the order parameters are cosines of points of the sphere: a zero or non-unit vector has none.
    # Tolerance: rounding of a normalized vector of the input's precision (float32 models included)
    tol = unit_tolerance(u.numel(), u_in, v_in, us_in, vs_in)
    for name, t in (("u", u), ("v", v), ("u_star", u_star), ("v_star", v_star)):
        norm = float(torch.linalg.vector_norm(t))
        if abs(norm - 1.0) > tol:
            raise ValueError(f"{name} must be a unit vector (overlaps are cosines on the sphere), got norm "
                             f"{norm:.6g}")
    return {name: min(1.0, max(-1.0, float(a @ b))) for name, a, b in
            (("mu", u, u_star), ("nu", v, v_star), ("eta", u, v_star), ("zeta", v, u_star), ("rho", u, v))}


def vectors_with_overlaps(problem: SingleLocationProblem, *, mu: float, nu: float, zeta: float = 0.0,
                          eta: float = 0.0, rho: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Unit vectors (u, v) of ``R^d`` (d >= 4) with the given overlaps against the problem's oracle.

    ``mu`` = uᵀu* in [-1, 1], ``nu`` = vᵀv* in [-1, 1], ``zeta`` = vᵀu* in [-1, 1], ``eta`` = uᵀv* in [-1, 1]
    and ``rho`` = uᵀv in [-1, 1] are overlaps (cosines), each a real number (outside [-1, 1] refused by
    name). The Gram matrix of (u*, v*, u, v) must be positive semidefinite (an eigenvalue below -1e-12 is
    refused; one in [-1e-12, 0) is rounding, taken as 0); otherwise no such pair exists. The overlaps are met
    to float64 rounding in absolute terms (about 1e-15, not relatively: a requested 1e-30 comes out as some
    |overlap| <= 1e-15), and u, v are then cast to the problem's dtype.

    >>> p = SingleLocationProblem(d=6, L=3, gamma=0.5)
    >>> u, v = vectors_with_overlaps(p, mu=0.8, nu=0.6, zeta=0.1, rho=0.2)
    >>> {k: round(x, 6) for k, x in overlaps(u, v, *p.oracle()).items()}
    {'mu': 0.8, 'nu': 0.6, 'eta': 0.0, 'zeta': 0.1, 'rho': 0.2}
    """
    check_problem(problem)
    values = {"mu": mu, "nu": nu, "zeta": zeta, "eta": eta, "rho": rho}
    for name, value in values.items():
        if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):  # a 0-d array was
            # told "must be a real number in [-1, 1], got array(0.5)"
            raise TypeError(f"{name} must be a real number in [-1, 1], got {type(value).__name__} "
                            f"{value!r:.60}")
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"{name} must be a real number in [-1, 1], got {value!r}")
    mu, nu, zeta, eta, rho = (float(values[k]) for k in ("mu", "nu", "zeta", "eta", "rho"))  # a Fraction too
    if problem.d < 4:
        raise ValueError(f"problem.d must be >= 4 to place (u*, v*, u, v) freely, got {problem.d}")
    gram = np.array([[1.0, 0.0, mu, zeta], [0.0, 1.0, eta, nu], [mu, eta, 1.0, rho],
                     [zeta, nu, rho, 1.0]])
    eigenvalues, eigenvectors = np.linalg.eigh(gram)
    if eigenvalues[0] < -1e-12:
        raise ValueError(f"no unit vectors have these overlaps: the Gram matrix of (u*, v*, u, v) has "
                         f"eigenvalue {eigenvalues[0]:.3g} < 0 (mu={mu}, nu={nu}, zeta={zeta}, eta={eta}, "
                         f"rho={rho})")
    # coordinates in an orthonormal basis whose first two vectors are u*, v*
    factor = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))  # gram = factor factorᵀ
    r = np.linalg.qr(factor.T, mode="r")  # factorᵀ = q r: rows of rᵀ are coordinates with u* -> e1, v* -> e2
    coords = r.T * np.where(np.diag(r) >= 0, 1.0, -1.0)[None, :]
    u_star, v_star = (t.double() for t in problem.oracle())
    extra = torch.randn(problem.d, 2, dtype=torch.float64,
                        generator=torch.Generator().manual_seed((problem.oracle_seed + 1) % 2**64))
    rest = torch.linalg.qr(torch.cat([torch.stack([u_star, v_star], 1), extra], 1))[0]
    rest[:, 0], rest[:, 1] = u_star, v_star
    u = rest @ torch.as_tensor(coords[2], dtype=torch.float64)
    v = rest @ torch.as_tensor(coords[3], dtype=torch.float64)
    return (u / torch.linalg.vector_norm(u)).to(problem.torch_dtype), \
        (v / torch.linalg.vector_norm(v)).to(problem.torch_dtype)
