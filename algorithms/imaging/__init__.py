"""Imaging inverse problems and NPN, non-linear projections of the null space (Jacome et al., NeurIPS 2025).

Sensing operators with exact adjoints (compressive sensing, blur, super-resolution, CT, MRI),
null-space projection matrices S, the networks G that predict Sx from y, and plug-and-play
PGD/ADMM with a TV or denoiser prior, each with or without the NPN term γ/2‖G(y) − Sx‖².

>>> import torch
>>> from algorithms import solve
>>> from algorithms.imaging import InverseProblem, PnPPGD, TVPrior, gaussian_cs
>>> H = gaussian_cs((8, 8), 0.5, seed=0)
>>> x = torch.zeros(8, 8, dtype=torch.float64); x[2:6, 2:6] = 1.0
>>> solve(InverseProblem(H, H(x)), PnPPGD(prior=TVPrior(weight=1e-3), lr=1.0), maxiters=5).retcode
<RetCode.MaxIters: 'MaxIters'>
"""

from algorithms.imaging.admm import PnPADMM
from algorithms.imaging.data import (
    HELD_OUT_IMAGES,
    TRAIN_IMAGES,
    held_out_images,
    load_image,
    training_patches,
)
from algorithms.imaging.metrics import psnr, ssim
from algorithms.imaging.networks import NullSpaceNet, ResidualDenoiser
from algorithms.imaging.nullspace import (
    NullSpaceProjector,
    complement_angles,
    complement_frequencies,
    complement_rows,
    highpass,
    null_space_basis,
    null_space_leakage,
    pca_null_rows,
    qr_null_rows,
)
from algorithms.imaging.operators import (
    Blur,
    HighPass,
    LinearOperator,
    MaskedFourier,
    MatrixOperator,
    Radon,
    SubsampledHadamard,
    SuperResolution,
    cartesian_mask,
    gaussian_cs,
    gaussian_kernel_spectrum,
)
from algorithms.imaging.pgd import PnPPGD
from algorithms.imaging.priors import DenoiserPrior, SubspacePrior, TVPrior, total_variation
from algorithms.imaging.problems import NPN, InverseProblem

__all__ = [
    "HELD_OUT_IMAGES",
    "NPN",
    "TRAIN_IMAGES",
    "Blur",
    "DenoiserPrior",
    "HighPass",
    "InverseProblem",
    "LinearOperator",
    "MaskedFourier",
    "MatrixOperator",
    "NullSpaceNet",
    "NullSpaceProjector",
    "PnPADMM",
    "PnPPGD",
    "Radon",
    "ResidualDenoiser",
    "SubsampledHadamard",
    "SubspacePrior",
    "SuperResolution",
    "TVPrior",
    "cartesian_mask",
    "complement_angles",
    "complement_frequencies",
    "complement_rows",
    "gaussian_cs",
    "gaussian_kernel_spectrum",
    "held_out_images",
    "highpass",
    "load_image",
    "null_space_basis",
    "null_space_leakage",
    "pca_null_rows",
    "psnr",
    "qr_null_rows",
    "ssim",
    "total_variation",
    "training_patches",
]
