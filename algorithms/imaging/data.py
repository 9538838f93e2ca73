"""Training and held-out images for the imaging family, from the images bundled with scikit-image.

Nothing is downloaded: every image comes from ``skimage.data``. Training patches and
held-out images come from disjoint image sets (:data:`TRAIN_IMAGES`,
:data:`HELD_OUT_IMAGES`), so a network trained on one is evaluated on the other.

>>> patches = training_patches(8, count=4, seed=0)
>>> tuple(patches.shape), bool(patches.min() >= 0) and bool(patches.max() <= 1)
((4, 8, 8), True)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
import torch

from algorithms._validation import _plain_number, check_fits_memory, check_seed, to_float

__all__ = ["HELD_OUT_IMAGES", "TRAIN_IMAGES", "held_out_images", "load_image", "training_patches"]

#: images the networks are trained on (random crops, flips and rotations)
TRAIN_IMAGES = ("astronaut", "brick", "grass", "gravel", "coffee", "chelsea", "rocket", "page", "text",
                "immunohistochemistry", "hubble_deep_field", "cell", "retina", "colorwheel")
#: images kept out of training, for evaluating reconstructions
HELD_OUT_IMAGES = ("camera", "coins", "moon", "clock")

#: the most crops ``training_patches``/``held_out_images`` cut in one call (10⁵ take seconds; the set-ups
#: use 4000)
MAX_CROPS = 10**5

#: every image is first resized so that its longer side has this many pixels
_LONG_SIDE = 128


def _check_size(size: Any) -> int:
    if isinstance(size, bool) or not isinstance(size, int | np.integer) or size < 4:
        raise ValueError(f"size must be an int >= 4, got {size!r}")
    if size > _LONG_SIDE // 2:
        raise ValueError(f"size must be <= {_LONG_SIDE // 2} (images are resized to {_LONG_SIDE} px), "
                         f"got {size}")
    return int(_plain_number(size))


@lru_cache(maxsize=32)
def _load(name: str) -> np.ndarray:
    import skimage.data
    from skimage.color import rgb2gray, rgba2rgb
    from skimage.transform import resize

    image = np.asarray(getattr(skimage.data, name)(), dtype=np.float64)
    if image.ndim == 3 and image.shape[2] == 4:
        image = rgba2rgb(image / 255.0) * 255.0
    if image.ndim == 3:
        image = rgb2gray(image / 255.0)
    elif image.max() > 1.0:
        image = image / 255.0
    scale = _LONG_SIDE / max(image.shape)
    shape = (max(8, round(image.shape[0] * scale)), max(8, round(image.shape[1] * scale)))
    return np.clip(resize(image, shape, anti_aliasing=True), 0.0, 1.0)


def load_image(name: str) -> np.ndarray:
    """Gray image ``name`` of ``skimage.data`` in [0, 1], its longer side resized to 128 pixels.

    >>> load_image("camera").shape
    (128, 128)
    """
    if name not in TRAIN_IMAGES + HELD_OUT_IMAGES:
        raise ValueError(f"name must be one of {TRAIN_IMAGES + HELD_OUT_IMAGES}, got {name!r}")
    # a copy: the cached array itself was returned, so a caller's edit changed every later load_image(name)
    return _load(str(name)).copy()


def _crops(names: tuple[str, ...], size: int, count: int, seed: int, augment: bool) -> torch.Tensor:
    if isinstance(count, bool) or not isinstance(count, int | np.integer) or count < 1:
        raise ValueError(f"count must be a positive int, got {count!r}")
    # refused before np.empty: 2**40 crops raised numpy's MemoryError naming no argument
    owner = "training_patches" if augment else "held_out_images"
    check_fits_memory(owner, "count", count, 8.0 * to_float(count) * size * size)  # 10**400: inf bytes
    if count > MAX_CROPS:  # memory allowed 10**7 crops of 4×4, cut in a Python loop for many minutes (a hang)
        raise ValueError(f"count must be <= {MAX_CROPS} crops (they are cut one by one), got {count}")
    seed = check_seed(seed)
    rng = np.random.default_rng(seed)
    out = np.empty((count, size, size))
    for k in range(count):
        image = load_image(names[k % len(names)] if not augment else names[rng.integers(len(names))])
        while min(image.shape) < size:  # "text" is 49 px high: a 50..64 crop met numpy's "high <= 0"
            image = load_image(names[rng.integers(len(names))])  # drawn again (a crop that fits: same stream)
        r = rng.integers(0, image.shape[0] - size + 1)
        c = rng.integers(0, image.shape[1] - size + 1)
        patch = image[r:r + size, c:c + size]
        if augment:
            patch = np.rot90(patch, rng.integers(4))
            if rng.integers(2):
                patch = patch[:, ::-1]
        out[k] = patch
    return torch.from_numpy(out)


def training_patches(size: int, count: int, seed: int) -> torch.Tensor:
    """``count`` random ``size``×``size`` crops of :data:`TRAIN_IMAGES`, randomly rotated and flipped.

    ``size`` is an int in [4, 64] (the images are resized to 128 px), ``count`` an int in [1, 10⁵]
    (the crops are cut one by one: 10⁶ took minutes) and ``seed`` an int in [0, 2**64).
    """
    return _crops(TRAIN_IMAGES, _check_size(size), count, seed, augment=True)


def held_out_images(size: int, count: int, seed: int = 0) -> torch.Tensor:
    """``count`` random ``size``×``size`` crops of :data:`HELD_OUT_IMAGES` (cycling through them).

    ``size`` is an int in [4, 64] (the images are resized to 128 px), ``count`` an int in [1, 10⁵]
    (the crops are cut one by one: 10⁶ took minutes) and ``seed`` an int in [0, 2**64).

    >>> tuple(held_out_images(16, count=3).shape)
    (3, 16, 16)
    """
    return _crops(HELD_OUT_IMAGES, _check_size(size), count, seed, augment=False)
