"""Small shared instances of the imaging tests (8×8 images, so every solve takes milliseconds)."""

import torch

from algorithms.imaging import NPN, InverseProblem, gaussian_cs, qr_null_rows


def square(dtype=torch.float64) -> torch.Tensor:
    x = torch.zeros(8, 8, dtype=dtype)
    x[2:6, 3:7] = 1.0
    return x


class Planted(torch.nn.Module):
    """A network that returns a fixed vector (G(y) = target for every y)."""

    def __init__(self, target: torch.Tensor, in_features: int) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, target.numel()
        self.register_buffer("target", target.reshape(1, -1))

    def forward(self, X):
        return self.target.expand(X.shape[0], -1)


def cs_problem(dtype=torch.float64, ratio=0.5):
    H = gaussian_cs((8, 8), ratio, seed=0, dtype=torch.float64)
    x = square(torch.float64)
    return InverseProblem(H, H(x).to(dtype)), x


def oracle_npn(problem, x, gamma=1.0, p=16):
    """The NPN term with S from Algorithm 1 and G(y) = Sx exactly."""
    S = qr_null_rows(problem.operator, p, seed=0)
    return NPN(S, Planted(S(x), problem.operator.out_features), gamma)


class Expanding(torch.nn.Module):
    """A "denoiser" that triples its input: not nonexpansive, so plug-and-play blows up."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor(3.0, dtype=torch.float64))

    def forward(self, x):
        return self.weight * x
