"""The named imaging set-ups the shipped networks were trained for (32×32 images).

A set-up fixes the operator H, the projection S (the paper's design per operator, Section 3.1),
the measurement SNR and how much null-space leakage of S is accepted. :func:`load_network`
returns its trained G (``checkpoints/<name>.pt``, made by ``python -m algorithms.imaging.train``);
:func:`load_denoiser` the trained plug-and-play denoiser.

=========  ==============================================  ==========================================
name       H                                               S
=========  ==============================================  ==========================================
cs10/25/50 Gaussian CS, m/n = 0.10 / 0.25 / 0.50           p = 102 leading null-space PCA directions
deblur     Gaussian blur, σ = 1 px                         high-pass δ − b (the paper's design)
sr2        blur σ = 1 px then ×2 decimation                high-pass δ − b
ct         Radon, 60 of 180 angles (0°..59°, limited)      Radon at 20 missing angles 60°, 66°, ...
mri        masked DFT, Cartesian lines, ×4 acceleration    the unsampled k-space points
=========  ==============================================  ==========================================

>>> setup = make_setup("mri")
>>> setup.operator.image_shape, setup.max_leakage
((32, 32), 1e-06)
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import torch

from algorithms._validation import (
    check_finite_real,
    check_nonnegative,
    check_seed,
    check_working_range,
    remember_validated,
    revalidate_if_reassigned,
)
from algorithms.imaging.data import training_patches
from algorithms.imaging.networks import NullSpaceNet, ResidualDenoiser
from algorithms.imaging.nullspace import complement_angles, complement_frequencies, highpass, pca_null_rows
from algorithms.imaging.operators import (
    Blur,
    LinearOperator,
    MaskedFourier,
    Radon,
    SuperResolution,
    cartesian_mask,
    gaussian_cs,
)
from algorithms.imaging.problems import NPN

__all__ = ["SETUPS", "SIZE", "Setup", "checkpoint_path", "load_denoiser", "load_network", "make_setup",
           "measure", "npn_for"]

SIZE = 32
SETUPS = ("cs10", "cs25", "cs50", "deblur", "sr2", "ct", "mri")
#: the widths of the shipped networks
CHANNELS, DEPTH = 16, 4
CHECKPOINTS = Path(__file__).resolve().parent / "checkpoints"


@dataclass(frozen=True)
class Setup:
    """A set-up: the measurement ``operator`` H and the ``projection`` S (both :class:`LinearOperator`
    instances on one image shape), the measurement SNR ``snr_db`` (a finite real number in dB, of magnitude
    <= 3.4e38, the working range) and the accepted null-space leakage ``max_leakage`` of S (a float in
    [0, 3.4e38], >= 0 as :class:`NPN`'s). ``name`` is a str (a label: any str, :data:`SETUPS` for the shipped
    ones). Every field is checked at construction, by name (red23a: a NaN SNR was stored and
    :func:`measure` answered NaN measurements in silence).
    """

    name: str
    operator: LinearOperator
    projection: LinearOperator
    snr_db: float
    max_leakage: float

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str (the set-up's label), got {type(self.name).__name__}")
        for field in ("operator", "projection"):
            if not isinstance(getattr(self, field), LinearOperator):
                kind = type(getattr(self, field)).__name__
                raise TypeError(f"{field} must be a LinearOperator, got {kind}")
        if tuple(self.projection.image_shape) != tuple(self.operator.image_shape):
            raise ValueError(f"projection must act on operator's image shape {self.operator.image_shape}, "
                             f"got {self.projection.image_shape}")
        snr = check_finite_real("snr_db", self.snr_db)
        object.__setattr__(self, "snr_db", check_working_range("snr_db", snr, scale=False))
        object.__setattr__(self, "max_leakage", check_nonnegative("max_leakage", self.max_leakage))
        remember_validated(self)


def _check_name(name: object) -> str:
    if name not in SETUPS:
        raise ValueError(f"name must be one of {SETUPS}, got {name!r}")
    return str(name)


def make_setup(name: str) -> Setup:
    """The operator, projection, SNR (30 dB) and accepted leakage of set-up ``name`` (one of
    :data:`SETUPS`): a fresh copy per call (the cached set-up was handed out shared, so one caller's edit of
    its operator in place poisoned every later call; red23a)."""
    return copy.deepcopy(_make_setup(_check_name(name)))


@cache
def _make_setup(name: str) -> Setup:
    shape = (SIZE, SIZE)
    if name.startswith("cs"):
        H = gaussian_cs(shape, int(name[2:]) / 100, seed=0)
        S = pca_null_rows(H, p=round(0.1 * SIZE * SIZE), images=training_patches(SIZE, 2000, seed=1))
        return Setup(name, H, S, 30.0, 1e-6)
    if name == "deblur":
        H = Blur(shape, 1.0)
        return Setup(name, H, highpass(H), 30.0, 1.0)
    if name == "sr2":
        H = SuperResolution(shape, 2, 1.0)
        return Setup(name, H, highpass(H), 30.0, 1.0)
    if name == "ct":
        H = Radon(shape, np.arange(0.0, 60.0))
        return Setup(name, H, complement_angles(H, np.arange(60.0, 180.0, 6.0)), 30.0, 1.0)
    H = MaskedFourier(cartesian_mask(shape, 4, seed=0))
    return Setup(name, H, complement_frequencies(H), 30.0, 1e-6)


def measure(setup: Setup, x: torch.Tensor, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """y = Hx + ω at the set-up's SNR, and the noise std per image (rms of Hx / 10^(SNR/20)).

    ``x`` has shape (*batch, h, w); the std has shape batch. ``seed`` an int in [0, 2**64) draws ω. The rms
    is computed without underflow or overflow of the squares (any scale of x in the working range).
    """
    if not isinstance(setup, Setup):
        raise TypeError(f"setup must be a Setup (from make_setup), got {type(setup).__name__}")
    revalidate_if_reassigned(setup)   # a field replaced past the frozen dataclass
    seed = check_seed(seed)
    clean = setup.operator.forward(x)
    flat = clean.reshape(*clean.shape[:-len(setup.operator.measurement_shape)], -1)
    # rescaled by each image's largest entry: the squares underflowed to 0 for a float32 x ~1e-30 (std 0, a
    # noiseless y at any SNR) and overflowed to inf for x ~1e20 (a NaN y)
    top = flat.abs().amax(-1, keepdim=True)
    rms = top[..., 0] * (flat / torch.where(top > 0, top, torch.ones_like(top))).pow(2).mean(-1).sqrt()
    std = rms / 10 ** (setup.snr_db / 20)
    generator = torch.Generator().manual_seed(seed)
    noise = torch.randn(clean.shape, generator=generator, dtype=clean.dtype)
    std_b = std.reshape(*std.shape, *([1] * len(setup.operator.measurement_shape)))
    return clean + std_b * noise, std


def checkpoint_path(name: str) -> Path:
    """Where the checkpoint of set-up ``name`` (or ``"denoiser"``) lives."""
    if name != "denoiser":
        _check_name(name)
    return CHECKPOINTS / f"{name}.pt"


def _load_state(name: str, path: Path) -> dict:
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint {path}; train it with "
                                f"python -m algorithms.imaging.train --setup {name}")
    return torch.load(path, map_location="cpu", weights_only=True)


def load_network(name: str) -> NullSpaceNet:
    """The trained G of set-up ``name`` (float32, eval mode): a fresh copy per call (the cached network was
    handed out shared, so a caller's fine-tuning or zeroing of it changed every later call)."""
    return copy.deepcopy(_load_network(name))


@cache
def _load_network(name: str) -> NullSpaceNet:
    setup = _make_setup(_check_name(name))
    network = NullSpaceNet(setup.operator, setup.projection, channels=CHANNELS, depth=DEPTH, seed=0)
    network.load_state_dict(_load_state(name, checkpoint_path(name))["model"])
    return network.eval()


def load_denoiser() -> ResidualDenoiser:
    """The trained plug-and-play denoiser (noise std up to 0.1 on [0, 1] images), a fresh copy per call."""
    return copy.deepcopy(_load_denoiser())


@cache
def _load_denoiser() -> ResidualDenoiser:
    network = ResidualDenoiser(channels=CHANNELS, depth=DEPTH, seed=0)
    network.load_state_dict(_load_state("denoiser", checkpoint_path("denoiser"))["model"])
    return network.eval()


def npn_for(name: str, gamma: float) -> NPN:
    """The NPN term of set-up ``name`` with its trained G and weight ``gamma``."""
    gamma = check_nonnegative("gamma", gamma)  # the shared check: a Fraction too, the working range
    setup = make_setup(name)
    return NPN(setup.projection, load_network(name), gamma, max_leakage=setup.max_leakage)
