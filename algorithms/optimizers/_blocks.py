"""Blocking of a matrix into equal tiles (zero-padded at the edges), for Shampoo and SOAP.

A d_out × d_in matrix with block size b becomes a stack of ⌈d_out/b⌉·⌈d_in/b⌉ tiles of shape
(min(b, d_out), min(b, d_in)); padded rows and columns carry zeros and are cut off on the way
back. ``block_size=None`` gives one tile, the whole matrix.
"""

from __future__ import annotations

import torch

from algorithms._validation import is_choice


def tile_shape(shape: torch.Size, block_size: int | None) -> tuple[int, int, int, int]:
    """(rows per tile, columns per tile, tiles down, tiles across)."""
    d_out, d_in = shape
    rows = d_out if block_size is None else min(block_size, d_out)
    cols = d_in if block_size is None else min(block_size, d_in)
    return rows, cols, -(-d_out // rows), -(-d_in // cols)      # integer ceilings: exact for any ints


def to_tiles(matrix: torch.Tensor, block_size: int | None) -> torch.Tensor:
    """The stack of tiles, shape (n_tiles, rows, cols)."""
    rows, cols, down, across = tile_shape(matrix.shape, block_size)
    if down == across == 1:
        return matrix.unsqueeze(0)  # one tile, the matrix itself: a view, no padded copy
    padded = torch.nn.functional.pad(matrix, (0, across * cols - matrix.shape[1],
                                              0, down * rows - matrix.shape[0]))
    return padded.reshape(down, rows, across, cols).permute(0, 2, 1, 3).reshape(-1, rows, cols)


def from_tiles(tiles: torch.Tensor, shape: torch.Size, block_size: int | None) -> torch.Tensor:
    """Inverse of :func:`to_tiles`."""
    rows, cols, down, across = tile_shape(shape, block_size)
    if down == across == 1:
        return tiles[0]
    full = tiles.reshape(down, across, rows, cols).permute(0, 2, 1, 3).reshape(down * rows, across * cols)
    return full[: shape[0], : shape[1]]


#: the precisions Shampoo's inverse roots and SOAP's eigenbases may be computed in (``root_dtype``)
ROOT_DTYPES = (torch.float64, torch.float32)


def check_root_dtype(value: object) -> torch.dtype:
    if not is_choice(value, ROOT_DTYPES):
        raise ValueError(f"root_dtype must be torch.float64 (default) or torch.float32, got {value!r:.60}")
    return value  # type: ignore[return-value]


def inverse_root(stat: torch.Tensor, exponent: float, eps: float,
                 dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """(S + ε·I)^(−exponent) for a stack of symmetric PSD S, by eigh in ``dtype`` (float64 by default),
    with the ridge ε = max(``eps``, the rounding floor of S: the machine epsilon of the coarser of S's dtype
    and ``dtype`` · size · S's largest eigenvalue).

    Eigenvalues are clipped at 0 before the ridge, so round-off cannot make them negative.
    """
    s64 = stat.to(dtype)
    s64 = 0.5 * (s64 + s64.transpose(-1, -2))
    values, vectors = torch.linalg.eigh(s64)
    # eigenvalues below the statistics' own rounding (their dtype's eps · size · the largest) are noise:
    # the ridge is at least that floor, else a float32 Shampoo at gradients of 1e14 stepped 25x too far
    # along directions made of rounding alone
    rounding = max(torch.finfo(stat.dtype).eps, torch.finfo(dtype).eps)     # the coarser of the two
    noise = rounding * stat.shape[-1] * values[..., -1:].clamp(min=0.0)
    scale = (values.clamp(min=0.0) + torch.clamp(noise, min=eps)) ** (-exponent)
    return ((vectors * scale.unsqueeze(-2)) @ vectors.transpose(-1, -2)).to(stat.dtype)
