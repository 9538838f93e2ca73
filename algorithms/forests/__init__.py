"""Autoencoding random forests (Vu, Kapar, Wright, Watson; arXiv:2505.21441).

The forest kernel (:func:`forest_kernel`, Eq. 1), its diffusion map with the Nyström extension
(:func:`diffusion_map`, :func:`nystrom`), the three decoders (:func:`knn_decode`,
:func:`relabel_forest`, :func:`exact_decode`), the scikit-learn estimator
:class:`RFAutoencoder`, and the ``solve`` pair :class:`AutoencodingProblem` x :class:`RFAE`.

>>> import numpy as np
>>> X = np.random.default_rng(0).normal(size=(50, 3))
>>> ae = RFAutoencoder(n_components=2, n_estimators=10, random_state=0).fit(X)
>>> ae.transform(X).shape
(50, 2)
"""

from algorithms.forests.autoencoder import DECODERS, RFAutoencoder
from algorithms.forests.diffusion import (
    EIGEN_FLOOR,
    DiffusionMap,
    dense_diffusion_map,
    diffusion_map,
    nystrom,
)
from algorithms.forests.exact_decoder import BOX_MARGIN, ExactDecoding, exact_decode, kernel_estimate
from algorithms.forests.knn_decoder import knn_decode, synthetic_training_set
from algorithms.forests.metrics import column_distortion, distortion
from algorithms.forests.partition import (
    ForestPartition,
    check_forest,
    cooccurrence_kernel,
    forest_kernel,
    node_boxes,
    sample_in_boxes,
)
from algorithms.forests.relabel_decoder import RelabeledForest, majority_box, relabel_forest
from algorithms.forests.rfae import RFAE, AutoencodingProblem

__all__ = [
    "BOX_MARGIN",
    "DECODERS",
    "EIGEN_FLOOR",
    "RFAE",
    "AutoencodingProblem",
    "DiffusionMap",
    "ExactDecoding",
    "ForestPartition",
    "RFAutoencoder",
    "RelabeledForest",
    "check_forest",
    "column_distortion",
    "cooccurrence_kernel",
    "dense_diffusion_map",
    "diffusion_map",
    "distortion",
    "exact_decode",
    "forest_kernel",
    "kernel_estimate",
    "knn_decode",
    "majority_box",
    "node_boxes",
    "nystrom",
    "relabel_forest",
    "sample_in_boxes",
    "synthetic_training_set",
]
