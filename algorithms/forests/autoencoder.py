"""RFAutoencoder: the random-forest autoencoder as a scikit-learn transformer.

``fit`` trains a forest (supervised on ``y``, or, without ``y``, a synthetic-contrast
classifier separating the data from a copy with every column permuted independently),
builds the forest kernel on the training set (:func:`~algorithms.forests.partition.forest_kernel`),
and keeps its diffusion map (:func:`~algorithms.forests.diffusion.diffusion_map`). ``transform``
embeds new rows by Nyström; ``inverse_transform`` decodes with ``decoder``:

* ``"knn"``: the k-nearest-neighbour decoder (Section 4.3; the paper's default RFAE);
* ``"relabel"``: split relabelling (Section 4.2);
* ``"exact"``: the integer program over the leaf boxes (Section 4.1, Eq. 3).

Mixed tables: a pandas DataFrame with categorical / object / bool columns is encoded to integer
codes for the forest and decoded back to a DataFrame with the input's columns and dtypes.

scikit-learn conventions win over the package's "validate in the constructor" rule here:
``__init__`` only stores its arguments (``check_estimator`` requires it) and ``fit`` validates
them, naming the argument, the expected and the received value.

Estimator checks: ``tests/algorithms/forests/test_autoencoder.py`` runs every check of
``sklearn.utils.estimator_checks`` (``parametrize_with_checks``); we skip none. scikit-learn
itself skips its array-API check unless the environment sets ``SCIPY_ARRAY_API=1`` (the forest
works on numpy arrays only).

References
----------
B. D. Vu, J. Kapar, M. N. Wright, D. S. Watson. Autoencoding Random Forests. NeurIPS 2025,
arXiv:2505.21441.

>>> from sklearn.datasets import load_wine
>>> X = load_wine().data
>>> ae = RFAutoencoder(n_components=3, n_estimators=20, random_state=0).fit(X)
>>> Z = ae.transform(X[:5])
>>> Z.shape, ae.inverse_transform(Z).shape
((5, 3), (5, 13))
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin, clone
from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor, RandomTreesEmbedding
from sklearn.exceptions import NotFittedError
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import validate_data

from algorithms._validation import (
    INT64_MAX,
    UnknownAttributeError,
    as_array,
    as_real_array,
    check_count,
    check_entries_in_range,
    read_only,
    refuse_unknown_attribute,
)
from algorithms.forests.diffusion import DiffusionMap, dense_diffusion_map, diffusion_map
from algorithms.forests.exact_decoder import exact_decode, kernel_estimate
from algorithms.forests.knn_decoder import knn_decode, synthetic_training_set
from algorithms.forests.metrics import distortion
from algorithms.forests.partition import (
    _FLOAT32_MAX,
    ForestPartition,
    _trees_fingerprint,
    check_forest,
    forest_kernel,
    sample_in_boxes,
)
from algorithms.forests.relabel_decoder import majority_box, relabel_forest

__all__ = ["DECODERS", "RFAutoencoder"]

DECODERS = ("knn", "relabel", "exact")
#: the most trees a default forest is given (each is fitted; 2**31 - 1 was a fit that never ends)
MAX_ESTIMATORS = 10_000


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_categorical(series: pd.Series) -> bool:
    return not pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype)


def _refuse_masked_or_sparse(X: Any) -> None:
    """A masked array (its mask was ignored: the hidden entries were fitted) or a sparse matrix
    (scikit-learn's own "Sparse data was passed for X" TypeError), refused naming X."""
    if isinstance(X, np.ma.MaskedArray):
        raise TypeError("X must be a plain array, got a numpy masked array (its mask would be ignored); pass "
                        "X.filled(value) or drop the masked rows")
    if sp.issparse(X):
        raise TypeError(f"X must be dense, got a scipy sparse {type(X).__name__}; pass X.toarray()")


#: the fitted arrays, stored read-only (writing one in place raises "assignment destination is read-only")
_FITTED_ARRAYS = ("feature_names_in_", "train_leaves_", "categorical_", "low_", "high_", "embedding_",
                  "eigenvalues_", "leaf_counts_", "leaf_weights_", "lower_", "upper_", "data_lower_",
                  "data_upper_", "synthetic_")


#: fitted float arrays that fit leaves finite (leaf boxes clipped to the data range, synthetic rows in them)
_FINITE_FITTED = ("low_", "high_", "embedding_", "eigenvalues_", "leaf_weights_", "lower_", "upper_",
                  "data_lower_", "data_upper_", "synthetic_")


def _check_loaded_state(cls: type, state: Any) -> None:
    """A pickled/joblib state is checked as ``fit`` leaves it before it is used (red20b: NaN leaf weights gave
    NaN embeddings in silence, negative leaf counts all-zero ones, ``seed_ = nan`` numpy's SeedSequence error,
    an unknown public name was stored): each refusal names the attribute."""
    if not isinstance(state, dict):
        raise TypeError(f"loaded state of {cls.__name__} must be a dict of attributes, got "
                        f"{type(state).__name__}")
    params = set(cls._get_param_names())
    unknown = sorted(str(k) for k in state if not str(k).endswith("_") and not str(k).startswith("_")
                     and k not in params)
    if unknown:
        raise ValueError(f"loaded state of {cls.__name__} holds unknown attribute(s) {unknown}; its "
                         f"parameters are {sorted(params)}")
    if "dmap_" not in state:  # not fitted: its parameters are checked at fit
        return
    for name in _FINITE_FITTED:
        value = state.get(name)
        if value is None:
            continue
        array = np.asarray(value)
        if array.dtype.kind not in "fiu" or not np.all(np.isfinite(array)):
            raise ValueError(f"loaded state: {name} must be a finite real array (as fit leaves it), got "
                             f"dtype {array.dtype}{' with NaN/inf' if array.dtype.kind in 'fiu' else ''}")
        check_entries_in_range(f"loaded state: {name}", array)
    for name in ("leaf_counts_", "train_leaves_"):
        value = state.get(name)
        if value is not None and (np.asarray(value).dtype.kind not in "iu" or np.any(np.asarray(value) < 0)):
            raise ValueError(f"loaded state: {name} must hold ints >= 0 (as fit leaves it)")
    seed = state.get("seed_")
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**64:
        raise ValueError(f"loaded state: seed_ must be an int in [0, 2**64) (as fit leaves it), got "
                         f"{seed!r:.40}")
    _check_loaded_fit(state)


#: the public names ``fit`` sets (``feature_names_in_`` for a DataFrame, ``relabeled_`` for "relabel" only)
_FIT_NAMES = frozenset(_FITTED_ARRAYS) | {"n_features_in_", "categories_", "partition_", "forest_", "dmap_",
                                          "seed_", "relabeled_"}


def _object_targets(y: np.ndarray) -> np.ndarray:
    """An object-dtype ``y`` as str labels or real targets (what a list of them is read as); a mix of the two,
    or None/other entries, is refused naming y (numpy's sort raised "'<' not supported between instances of
    'int' and 'str'", naming nothing, and None labels were taken: red23b)."""
    values = y.ravel().tolist()
    if all(isinstance(v, str) for v in values):
        return y.astype(str)
    if all(isinstance(v, bool | np.bool_) for v in values):
        return y.astype(bool)
    if all(isinstance(v, numbers.Real | np.number) and not isinstance(v, bool | np.bool_) for v in values):
        return y.astype(np.float64)
    kinds = sorted({type(v).__name__ for v in values})
    raise TypeError(f"y must hold targets of one kind (all str labels or all real numbers), got {kinds}")


def _as_integers(rounded: np.ndarray, dtype: Any) -> np.ndarray:
    """Rounded floats as the ints of an integer column's ``dtype``, clipped to its range: a uint64 value near
    2**64 rounds to the float 2**64, whose cast wrapped to 0 in silence (red23b)."""
    info = np.iinfo(np.dtype(getattr(dtype, "numpy_dtype", dtype)))
    out = np.zeros(rounded.shape, dtype=object)
    high, low = rounded >= float(info.max), rounded <= float(info.min)
    inside = ~(high | low)
    out[inside] = [int(v) for v in rounded[inside]]
    out[high], out[low] = info.max, info.min
    return out


def _refuse_loaded(name: str, what: str) -> None:
    raise ValueError(f"loaded state: {name} {what} (as fit leaves it; a state edited after fit is refused: "
                     f"fit again instead)")


def _check_loaded_fit(state: dict) -> None:
    """The fitted attributes of a loaded state consistent with each other, as ``fit`` leaves them (red23b: a
    dropped ``_fitted_params_`` with another n_components, negated eigenvalues, low_ > high_, a leaf index
    past the partition, scaled leaf weights, another fit's partition or dmap_ were all used in silence): the
    derived arrays are recomputed from the partition, the diffusion map and the training leaves."""
    unknown = sorted(str(k) for k in state if str(k).endswith("_") and not str(k).startswith("_")
                     and k not in _FIT_NAMES)
    if unknown:
        _refuse_loaded(str(unknown), "are not attributes fit sets")
    missing = sorted(set(_FITTED_ARRAYS) - {"feature_names_in_"} - set(state)
                     | ({"_fitted_params_"} - set(state)))
    if missing:
        _refuse_loaded(str(missing), "are missing")
    partition, dmap = state.get("partition_"), state.get("dmap_")
    if not isinstance(partition, ForestPartition):
        _refuse_loaded("partition_", f"must be a ForestPartition, got {type(partition).__name__}")
    if not isinstance(dmap, DiffusionMap):
        _refuse_loaded("dmap_", f"must be a DiffusionMap, got {type(dmap).__name__}")
    try:  # partition_.forest's trees (a copy after pickling: compared by their splits)
        same_forest = _trees_fingerprint(state.get("forest_")) == partition.__dict__.get("_trees_crc")
    except (AttributeError, TypeError, ValueError):
        same_forest = False
    if not same_forest:
        _refuse_loaded("forest_", "must be partition_.forest (its trees)")
    params = state["_fitted_params_"]
    if not isinstance(params, dict) or params.get("n_components") != dmap.embedding.shape[1] \
            or params.get("t") != dmap.t:
        _refuse_loaded("_fitted_params_", "must record the fit's settings (n_components and t of dmap_)")
    arrays = {name: np.asarray(state[name]) for name in _FITTED_ARRAYS if name in state}
    p = partition.n_features
    n_features = state.get("n_features_in_")
    if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral) or n_features != p:
        _refuse_loaded("n_features_in_", f"must be the partition's {p} features, got {n_features!r:.40}")
    _same_as(arrays, "embedding_", dmap.embedding)
    _same_as(arrays, "eigenvalues_", dmap.eigenvalues)
    if arrays["train_leaves_"].shape != (dmap.n_samples, partition.n_trees) or \
            arrays["train_leaves_"].max(initial=0) >= partition.n_leaves:
        _refuse_loaded("train_leaves_", f"must be ({dmap.n_samples}, {partition.n_trees}) leaf ids below "
                                        f"{partition.n_leaves}")
    counts = np.bincount(arrays["train_leaves_"].ravel(), minlength=partition.n_leaves)
    _same_as(arrays, "leaf_counts_", counts)
    inverse = np.divide(1.0, dmap.eigenvalues, out=np.zeros_like(dmap.eigenvalues),
                        where=dmap.eigenvalues > 1e-10)
    sums = np.zeros((partition.n_leaves, dmap.embedding.shape[1]))
    np.add.at(sums, arrays["train_leaves_"].ravel(), np.repeat(dmap.embedding, partition.n_trees, axis=0))
    weights = np.divide(sums, counts[:, None], out=np.zeros_like(sums), where=counts[:, None] > 0) * inverse
    _same_as(arrays, "leaf_weights_", weights)
    for low, high in (("low_", "high_"), ("data_lower_", "data_upper_"), ("lower_", "upper_")):
        if arrays[low].shape != arrays[high].shape or not np.all(arrays[low] <= arrays[high]):
            _refuse_loaded(f"{low}/{high}", f"must satisfy {low} <= {high}")
    if arrays["low_"].shape != (p,):
        _refuse_loaded("low_", f"must have shape ({p},)")
    _same_as(arrays, "lower_", np.clip(partition.lower, arrays["low_"], arrays["high_"]))
    _same_as(arrays, "upper_", np.clip(partition.upper, arrays["low_"], arrays["high_"]))
    categories = state.get("categories_", {})
    names = arrays.get("feature_names_in_")
    coded = np.array([str(c) in categories for c in names]) if state.get("_frame_fitted_") and names is not \
        None else np.zeros(p, dtype=bool)
    _same_as(arrays, "categorical_", coded)


def _same_as(arrays: dict, name: str, expected: np.ndarray) -> None:
    if arrays[name].shape != expected.shape or not np.array_equal(arrays[name], expected):
        _refuse_loaded(name, "does not match the rest of the fit")


class _FittedCategories(dict):
    """``categories_`` after fit: column name -> its categories (an immutable pandas Index), read-only. The
    dict is kept inside the estimator, so ``ae.categories_["c"] = pd.Index([...])`` re-coded that column's
    rows in silence at the next transform."""

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        raise ValueError("categories_ is a fitted attribute of RFAutoencoder, set by fit (read-only); call "
                         "fit again instead of editing it")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = __ior__ = _refuse

    def __reduce__(self) -> tuple:  # pickle/deepcopy rebuild it whole (item by item would be refused)
        return (_FittedCategories, (dict(self),))


def _differs(now: Any, fitted: Any) -> bool:
    """Whether a fit setting changed: by identity for objects (a forest, a RandomState), by value for
    numbers and nested parameter dicts (a forest's own parameters: ``set_params(forest__max_depth=3)``)."""
    if isinstance(fitted, tuple):
        return now is None or now[0] is not fitted[0] or _differs(now[1], fitted[1])
    if isinstance(fitted, dict):
        return not isinstance(now, dict) or set(now) != set(fitted) or \
            any(_differs(now[k], v) for k, v in fitted.items())
    if isinstance(fitted, np.ndarray):
        return not (isinstance(now, np.ndarray) and np.array_equal(now, fitted))
    if isinstance(fitted, numbers.Number | str | np.bool_ | type(None)):
        try:
            return bool(now != fitted)
        except (TypeError, ValueError):   # an array against a number
            return True
    return now is not fitted


class RFAutoencoder(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Encode with a forest's diffusion map, decode with the forest's splits.

    The constructor checks none of its parameters (scikit-learn's contract, the package's one exception to
    "every constructor checks its inputs", README): ``RFAutoencoder(n_components=-1)`` constructs, and ``fit``
    refuses every invalid value below by name (details after ``k``).

    Parameters
    ----------
    n_components : int
        latent dimension d_Z >= 1, at most n_samples − 2.
    forest : unfitted scikit-learn forest or None
        cloned at fit; None: a random forest of ``n_estimators`` trees with ``min_samples_leaf=2``
        (a classifier; a regressor when ``y`` is a continuous target).
    t : int in [0, 2**63)
        diffusion time (one so long that every informative λᵗ underflows to 0 is refused by name at fit,
        as by :func:`~algorithms.forests.diffusion.diffusion_map`).
    decoder : one of :data:`DECODERS`
        ``"knn"`` (default; fast, but it reproduces *training* rows almost exactly, so judge it
        on held-out rows: ``inverse_transform`` warns when latent rows coincide with training
        embeddings), ``"relabel"``, ``"exact"`` (an integer program per row: slow, seconds per
        row; ``progress=True`` shows a bar).
    k : int in [1, 2**63)
        neighbours of the kNN decoder, capped at n_samples.

    As in scikit-learn (``clone`` and ``set_params`` rely on it), the constructor stores its parameters
    as given and checks none of them: ``fit`` checks every one and refuses an invalid value by name.
    A name it does not take, set as an attribute (``ae.n_component = 3``), is refused by name
    (``UnknownAttributeError``, a ValueError), as ``set_params`` refuses it; so is a fitted attribute (one
    ending in ``_`` that ``fit`` set) replaced or deleted outside ``fit``, and its arrays are read-only. A
    pickled (or joblib) estimator is checked when loaded: its fitted arrays finite, its counts >= 0, ``seed_``
    an int, no unknown public name (nor a fitted-looking one ``fit`` does not set), and the fitted attributes
    consistent with one another as ``fit`` leaves them (the fit's recorded settings present, the embedding and
    eigenvalues ``dmap_``'s, leaf ids, counts, weights and boxes those of ``partition_`` and the training
    leaves, each low <= high); a state that fails is refused naming the attribute.
    A ``fit`` that raises (an invalid parameter, too few rows, a refused ``y``) leaves the estimator as it was
    before that call: a fitted one keeps its previous fit whole (its column encoding included), an unfitted
    one stays unfitted.
    Parameters set after ``fit`` (as attributes or by ``set_params``) are checked by ``transform``,
    ``inverse_transform`` and ``score``: an invalid value is refused by name; ``n_components``, ``t``,
    ``forest`` (another one, or its parameters set), ``n_estimators`` (of the default forest),
    ``random_state`` and ``supervised`` (the fitted forest and embedding were built for them) must be set back
    or refitted, else refused by name; and ``decoder`` and ``k`` take effect at the next decode (``"relabel"``
    needs a fit made with it: its relabelled forest). ``X`` (fit, transform, score) is a dense 2-D array-like
    or DataFrame of at least two distinct rows at fit (a masked array or a sparse matrix is refused by name;
    through ``solve``, one repeated row ends ``Failure`` instead); numbers of any real dtype are read as
    float64 (float32, float16, integers and bools promoted), so the outputs are float64. A numeric column
    whose distinct values lie (median gap) within max(3e-6, 4 float32 spacings at its magnitude) of each
    other, too close for scikit-learn's float32 splits (data in units of 1e-30, or a huge offset), is refused
    at fit, naming the column: rescale it.
    n_estimators : int in [1, 10000]
        trees of the default forest (``MAX_ESTIMATORS`` = 10000: 2**31 - 1 was a fit that never ends). The fit
        grows with n_estimators × n_samples on one core: about 4 s for 200 trees on 1000 × 10 data, so the
        maximum 10000 there takes about 3.5 minutes.
    random_state : int, RandomState or None
        draws the fit's seed, which seeds the forest (a given ``forest`` keeps its own
        ``random_state`` unless that is None), ARPACK's start vector and the decoders' draws.
    supervised : None, True or False
        what ``fit(X, y)`` does with ``y``. ``None`` (default): a given ``y`` trains the forest
        on it (the paper's supervised variant; without ``y``, the unsupervised synthetic-contrast
        forest) and warns, since a Pipeline passes its target to every step; ``True``: use ``y``
        (required) without a warning; ``False``: ignore ``y`` (always unsupervised). A
        ``RandomTreesEmbedding`` ``forest`` is unsupervised (its fit ignores ``y``): ``fit`` with a ``y``
        refuses it unless ``supervised=False``. A strict bool
        (numpy's too): 0, 1, 0.0 or np.int64(0) are refused naming ``supervised``.
    progress : bool
        a tqdm bar over the rows the exact decoder solves.

    ``get_feature_names_out`` names the latent columns ``rfautoencoder0``, ... (so
    ``set_output(transform="pandas")`` works), and ``score(X)`` is minus the paper's
    reconstruction distortion of ``X`` (higher is better, scikit-learn's convention).
    """

    def __init__(self, n_components: int = 2, forest: Any = None, t: int = 1, decoder: str = "knn",
                 k: int = 20, n_estimators: int = 100, random_state: Any = None, supervised: Any = None,
                 progress: bool = False) -> None:
        self.n_components = n_components
        self.forest = forest
        self.t = t
        self.decoder = decoder
        self.k = k
        self.n_estimators = n_estimators
        self.random_state = random_state
        self.supervised = supervised
        self.progress = progress

    # ------------------------------------------------------------------ validation and encoding

    def __setattr__(self, name: str, value: Any) -> None:
        # a misspelt parameter (ae.n_component = 3, ae.decoderr = "exact") was stored and ignored in silence;
        # fitted attributes end in "_" (scikit-learn's convention) and private ones start with it
        if not name.endswith("_"):
            refuse_unknown_attribute(self, name, tuple(self._get_param_names()))
        self._refuse_fitted(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._refuse_fitted(name)
        super().__delattr__(name)

    def _refuse_fitted(self, name: str) -> None:
        """A fitted attribute replaced (or deleted) outside ``fit``: ``leaf_weights_ = NaN`` was encoded as
        NaN rows, ``categorical_`` flipped decoded numeric columns as categories, ``seed_ = nan`` met numpy's
        error, all naming nothing (writes in place are refused by the arrays' read-only flag)."""
        if name in self.__dict__.get("_fitted_names_", ()) and not self.__dict__.get("_fitting_"):
            raise UnknownAttributeError(f"{name} is a fitted attribute of {type(self).__name__}, set by fit; "
                                        f"call fit again instead of replacing it")

    def set_params(self, **params: Any) -> RFAutoencoder:
        """scikit-learn's ``set_params``, with an unknown name refused here, naming it and listing the valid
        ones (scikit-learn's own ValueError came from inside scikit-learn). Values are checked at ``fit``."""
        valid = sorted(self.get_params(deep=False))
        unknown = sorted(str(name).split("__")[0] for name in params if str(name).split("__")[0] not in valid)
        if unknown:
            raise ValueError(f"set_params got unknown parameter(s) {unknown}; RFAutoencoder's parameters are "
                             f"{valid}")
        nested = sorted(str(name) for name in params if str(name).startswith("forest__"))
        if nested and params.get("forest", self.forest) is None:  # scikit-learn's AttributeError on None
            raise ValueError(f"forest is None (the default forest is built at fit from n_estimators): pass "
                             f"forest=... to set its parameters {nested}")
        return super().set_params(**params)

    def _check_params(self) -> None:
        if not _is_int(self.n_components) or self.n_components < 1:
            raise ValueError(f"n_components must be a positive int, got {self.n_components!r}")
        if not _is_int(self.t) or self.t < 0:
            raise ValueError(f"t (the diffusion time) must be an int >= 0, got {self.t!r}")
        if self.decoder not in DECODERS:
            raise ValueError(f"decoder must be one of {DECODERS}, got {self.decoder!r}")
        if not _is_int(self.k) or self.k < 1:
            raise ValueError(f"k (kNN decoder neighbours) must be a positive int, got {self.k!r}")
        for name in ("n_components", "t", "k"):   # counts (README): 2**63 and 10**100 were taken
            if getattr(self, name) > INT64_MAX:
                raise ValueError(f"{name} must be <= 2**63 - 1 (the largest count), got "
                                 f"{getattr(self, name)!r}")
        check_count("n_estimators", self.n_estimators, 1, MAX_ESTIMATORS, "each is a tree fitted")
        if self.forest is not None:
            check_forest("forest", self.forest, fitted=False)
        rs = self.random_state
        if not (rs is None or isinstance(rs, np.random.RandomState)
                or (_is_int(rs) and 0 <= rs < 2**32)):
            raise ValueError(f"random_state must be None, an int in [0, 2**32) or a numpy RandomState "
                             f"(scikit-learn's rule), got {type(rs).__name__} {rs!r}")
        # None or a strict bool: 0/1/0.0/np.int64(0) compared equal to False/True, then acted as None (0
        # trained on y without the warning, 1 ran unsupervised)
        if not (self.supervised is None or isinstance(self.supervised, bool | np.bool_)):
            raise ValueError(f"supervised must be None, True or False, got {type(self.supervised).__name__} "
                             f"{self.supervised!r:.40}")
        if not isinstance(self.progress, bool | np.bool_):
            raise TypeError(f"progress must be a bool, got {type(self.progress).__name__} {self.progress!r}")

    def _check_fitted(self) -> None:
        if not hasattr(self, "dmap_"):
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; call fit first")
        # a parameter set after fit (attribute or set_params): an invalid one is refused by name, and one the
        # fitted embedding was built for (n_components, t) must not change silently: decoder = "zzz" ran the
        # exact decoder, n_components = 3 still gave 2 columns, decoder = "relabel" after a "knn" fit found no
        # relabelled forest
        self._check_params()
        fitted = getattr(self, "_fitted_params_", {})
        current = self._fit_settings()
        for name, value in fitted.items():
            if name == "forest" and _differs(current[name], value):
                raise ValueError("forest was changed after fit (another forest, or its parameters set): call "
                                 "fit again, or set it back")
            if _differs(current.get(name), value):
                raise ValueError(f"{name} was changed after fit (fitted with {value!r:.80}, now "
                                 f"{current.get(name)!r:.80}): call fit again, or set it back")
        try:   # forest_ (the partition's forest) refitted or its trees changed after fit
            self.partition_.checked_forest()
        except ValueError:
            raise ValueError("forest_ (the fitted forest, partition_.forest) was refitted or its trees "
                             "changed after fit: call fit again") from None
        if self.decoder == "relabel" and not hasattr(self, "relabeled_"):  # a "knn" fit built none
            raise ValueError("decoder = 'relabel' needs the relabelled forest that fit builds only for that "
                             "decoder: call fit again with decoder='relabel'")

    def _fit_settings(self) -> dict[str, Any]:
        """The parameters the fitted forest and embedding were built from: set after fit, each must be set
        back or refitted (n_estimators = 3 after a fit of 20 trees was ignored in silence, red20b).
        ``n_estimators`` counts only for the default forest; a given forest counts by its parameters."""
        forest_params = self.forest.get_params(deep=True) if self.forest is not None else None
        settings: dict[str, Any] = {"forest": (self.forest, forest_params), "n_components": self.n_components,
                                    "t": self.t, "random_state": self.random_state,
                                    "supervised": self.supervised}
        if self.forest is None:
            settings["n_estimators"] = self.n_estimators
        return settings

    def _encode_frame(self, X: pd.DataFrame, *, fitting: bool) -> np.ndarray:
        columns = [str(c) for c in X.columns]
        repeated = sorted({c for c in columns if columns.count(c) > 1})
        if repeated:  # X[c] was a DataFrame: pandas' "truth value of a Series is ambiguous"
            raise ValueError(f"X must have distinct column names, got repeated {repeated[:5]}")
        if fitting:
            self.feature_names_in_ = np.asarray(columns, dtype=object)
            self.n_features_in_ = len(columns)
            self._fit_dtypes = X.dtypes.copy()   # private: dtypes_ hands out copies
            self.categories_ = {}
        else:
            seen = list(self.feature_names_in_) if hasattr(self, "feature_names_in_") else None
            if seen is None:
                raise ValueError("X has feature names (columns), but RFAutoencoder was fitted without "
                                 "feature names: pass an array")
            unseen = [c for c in columns if c not in seen]
            missing = [c for c in seen if c not in columns]
            if unseen or missing or columns != seen:
                raise ValueError("X: The feature names should match those that were passed during fit: "
                                 f"columns unseen at fit time: {unseen}; columns seen at fit time, yet "
                                 f"now missing: {missing}; expected the columns {seen} in this order")
        out = np.empty((len(X), len(columns)))
        for j, name in enumerate(X.columns):
            series = X[name]
            if series.isna().any():
                raise ValueError(f"X contains NaN (missing values) in column {name!r}")
            key = str(name)
            if fitting and _is_categorical(series):
                self.categories_[key] = pd.Index(pd.unique(series)).sort_values() \
                    if not isinstance(series.dtype, pd.CategoricalDtype) else series.cat.categories
            if key in self.categories_:
                codes = self.categories_[key].get_indexer(series)
                if np.any(codes < 0):
                    bad = series[codes < 0].iloc[0]
                    raise ValueError(f"X column {name!r} holds the category {bad!r} unseen at fit time")
                out[:, j] = codes
            elif pd.api.types.is_complex_dtype(series.dtype):  # cast to float64: its imaginary part dropped
                raise ValueError(f"X must be real: Complex data not supported (column {name!r} has dtype "
                                 f"{series.dtype})")
            else:
                try:
                    out[:, j] = series.to_numpy(dtype=np.float64)
                except (TypeError, ValueError) as exc:
                    raise TypeError(f"X column {name!r} must be numeric or categorical: {exc}") from None
            if not np.all(np.isfinite(out[:, j])):
                raise ValueError(f"X contains inf in column {name!r}")
        return out

    def _encode(self, X: Any, *, fitting: bool) -> np.ndarray:
        if isinstance(X, pd.DataFrame) and (fitting or self._frame_fitted_):
            self._frame_fitted_ = True
            return self._encode_frame(X, fitting=fitting)
        if isinstance(X, np.matrix):  # scikit-learn refuses np.matrix; its rows are a 2-D array's
            X = np.asarray(X)
        if hasattr(X, "detach") and type(X).__module__.startswith("torch"):
            X = as_array("X", X)  # its values: one with requires_grad met numpy's error, a valid X refused
        if not sp.issparse(X):
            try:
                array = np.asarray(X) if not isinstance(X, pd.DataFrame) else X.to_numpy()
            except ValueError as exc:  # ragged rows: numpy's "inhomogeneous shape" did not name X
                raise ValueError(f"X must be a 2-D array-like with rows of one length: {exc}") from None
            except Exception as exc:  # a tensor with grad or on the meta device, an __array__ that raises
                raise TypeError(f"X must be a 2-D array-like of numbers: {type(exc).__name__}: "
                                f"{exc}") from None
            if array.dtype.kind in "mM":  # datetime64/timedelta64: sklearn cast them to numbers silently
                raise TypeError(f"X must be numeric, got dtype {array.dtype} (dates and durations are not; "
                                f"convert them to numbers first)")
            if array.dtype.kind in "US":  # numeric strings were parsed silently (README: refused)
                raise ValueError(f"X must be numeric, got string entries (dtype {array.dtype}); pass "
                                 "numbers, or pass a DataFrame for categorical columns")
            if array.dtype.kind in "O":  # sklearn's exception types (ValueError for a string,
                try:                           # TypeError for an object), naming X and the way out
                    array.astype(np.float64)
                except (TypeError, ValueError) as exc:
                    raise type(exc)(f"X must be numeric (pass a DataFrame for categorical columns), got "
                                    f"dtype {array.dtype}: {exc}") from None
                except Exception as exc:  # 10**400 (OverflowError), a raising __float__
                    raise TypeError(f"X must be numeric, got dtype {array.dtype}: {type(exc).__name__}: "
                                    f"{exc}") from None
            if array.dtype.kind == "c":  # sklearn's own ValueError does not name X
                raise ValueError(f"X must be real: Complex data not supported (got dtype {array.dtype})")
            if array.dtype.kind in "fc" and array.size and not np.all(np.isfinite(array)):
                raise ValueError("X contains NaN or inf entries; the forest kernel needs finite inputs")
            if array.dtype.kind in "fiu" and array.size and float(np.max(np.abs(array))) > _FLOAT32_MAX:
                raise ValueError("X has entries beyond float32's range (±3.4e38): the scikit-learn trees "
                                 "compare their inputs in float32")
            if not fitting and array.ndim == 2 and hasattr(self, "n_features_in_") \
                    and array.shape[1] != self.n_features_in_:
                raise ValueError(f"X has {array.shape[1]} features, but RFAutoencoder is expecting "
                                 f"{self.n_features_in_} features as input (columns unseen at fit time)")
        if fitting:
            self._frame_fitted_ = False
            self.categories_ = {}
            self.__dict__.pop("_fit_dtypes", None)
        try:
            return validate_data(self, X, reset=fitting, dtype=np.float64, ensure_min_samples=1)
        except ValueError as exc:  # sklearn's text (kept: check_estimator matches it), naming X
            raise ValueError(f"X: {exc}") from None

    # ------------------------------------------------------------------ fit / transform

    def _make_forest(self, y: Any, seed: int):
        if self.forest is not None:
            forest = clone(self.forest)
            if "random_state" in forest.get_params() and forest.random_state is None:
                forest.set_params(random_state=seed)
            return forest
        if y is not None and type_of_target(y) not in ("binary", "multiclass"):
            return RandomForestRegressor(n_estimators=self.n_estimators, min_samples_leaf=2,
                                         random_state=seed)
        return RandomForestClassifier(n_estimators=self.n_estimators, min_samples_leaf=2, random_state=seed)

    def fit(self, X: Any, y: Any = None) -> RFAutoencoder:
        """Train the forest and its diffusion map on ``X`` (rows: samples).

        ``y`` (optional, one target per row) makes the forest supervised (a regressor or classifier on
        y) instead of unsupervised; its targets are all str labels or all real numbers (an object array
        mixing them, or holding None, is refused naming y).
        """
        self._fit(X, y, maxiters=None, refuse_constant=True)  # solve reports Failure instead
        return self

    def _fit(self, X: Any, y: Any, *, maxiters: int | None, refuse_constant: bool = False) -> bool:
        """Fit; with ``maxiters`` set, ARPACK is capped and not replaced: returns whether the eigenpairs
        converged (ARPACK's criterion, or the dense fallback when ``maxiters`` is None). Only here may the
        fitted attributes be set; the names set are recorded for :meth:`_refuse_fitted`. A fit that raises
        leaves the estimator as it was before the call (red25b: a refit refused for too few rows had already
        replaced the column encoding, so the old forest then embedded rows under the new categories' codes,
        a different embedding in silence)."""
        before = dict(self.__dict__)
        self.__dict__["_fitting_"] = True
        try:
            converged = self._fit_unguarded(X, y, maxiters=maxiters, refuse_constant=refuse_constant)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(before)
            raise
        finally:
            self.__dict__.pop("_fitting_", None)
        self.__dict__["_fitted_names_"] = frozenset(
            name for name in self.__dict__ if name.endswith("_") and not name.startswith("_"))
        return converged

    def _fit_unguarded(self, X: Any, y: Any, *, maxiters: int | None, refuse_constant: bool) -> bool:
        self._check_params()
        _refuse_masked_or_sparse(X)
        X_enc = self._encode(X, fitting=True)
        n = X_enc.shape[0]
        if n == 0:
            raise ValueError("X must hold at least one sample, got n_samples = 0")
        if refuse_constant and n > 1 and not np.any(X_enc != X_enc[0]):  # no split: an all-zero embedding
            raise ValueError(f"X must hold at least two distinct rows (samples), got {n} copies of one row: "
                             f"the forest cannot split and the embedding would be all zeros")
        if self.n_components > n - 2:  # both named: one row of X was reported as an n_components error
            raise ValueError(f"X has too few rows (samples) for n_components = {self.n_components}: it needs "
                             f"at least n_components + 2 = {self.n_components + 2} (n_components must be at "
                             f"most n_samples - 2), got n_samples = {n}")
        self._check_resolution(X_enc)
        supervised = bool(self.supervised) if isinstance(self.supervised, np.bool_) else self.supervised
        if supervised is False:  # np.False_ (is not False) trained on y in silence
            y = None
        elif supervised is True and y is None:
            raise ValueError("y is required with supervised=True (the forest is trained on it)")
        if y is not None and isinstance(self.forest, RandomTreesEmbedding):
            # its fit ignores y: supervised=True (or a y with None) fitted the unsupervised forest in silence
            raise ValueError(f"supervised = {supervised!r} with a y, but forest is a RandomTreesEmbedding, "
                             f"which is unsupervised (its fit ignores y): pass supervised=False, or a forest "
                             f"that is trained on y (RandomForest*, ExtraTrees*)")
        if y is not None and supervised is None:
            warnings.warn("RFAutoencoder.fit got y: the forest is trained supervised on y (the paper's "
                          "supervised variant). Pass supervised=True to say so, or supervised=False to "
                          "ignore y (e.g. inside a Pipeline that passes its target to every step)",
                          UserWarning, stacklevel=3)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        if y is not None:
            try:
                y = np.asarray(y)
            except ValueError as exc:  # a ragged y: numpy's "inhomogeneous shape", y not named
                raise ValueError(f"y must be a 1-D array of targets (one per row of X): {exc}") from None
            except Exception as exc:  # a tensor with grad, an __array__ that raises
                raise TypeError(f"y must be a 1-D array of targets: {type(exc).__name__}: {exc}") from None
            if y.ndim == 0 or y.shape[0] != n:
                raise ValueError(f"y must have {n} entries (one per row of X), got shape {y.shape}")
            if y.dtype.kind == "O":
                y = _object_targets(y)
            if y.dtype.kind == "c":
                raise ValueError(f"y must be real: Complex data not supported (got dtype {y.dtype})")
            if y.dtype.kind in "fc" and not np.all(np.isfinite(y)):
                raise ValueError("y contains NaN or inf entries; the supervised forest needs a finite target")
            check_entries_in_range("y", y)  # 1e39 was fit (X's 1e39 is refused by name)
        forest = self._make_forest(y, seed)
        if y is not None:
            try:
                forest.fit(X_enc, y)
            except ValueError as exc:   # scikit-learn's message does not say the target is at fault
                raise ValueError(f"y (the forest's target) was rejected: {exc}") from None
        elif type(forest).__name__ == "RandomTreesEmbedding":
            forest.fit(X_enc)
        else:  # synthetic contrast: real rows (0) vs rows with each column permuted (1)
            contrast = np.column_stack([rng.permutation(col) for col in X_enc.T])
            forest.fit(np.vstack([X_enc, contrast]), np.repeat([0, 1], n))
        self.partition_ = ForestPartition.from_forest(forest)
        # the partition's own copy, whose trees it checks at every use: ae.forest_.fit(...) refitted a forest
        # nothing read, so the edit was ignored in silence; now the next transform refuses it by name
        self.forest_ = self.partition_.forest
        self.train_leaves_ = self.partition_.leaves(X_enc)
        self.categorical_ = np.array([str(c) in self.categories_ for c in self.feature_names_in_]) \
            if self._frame_fitted_ else np.zeros(X_enc.shape[1], dtype=bool)
        self.low_, self.high_ = X_enc.min(axis=0), X_enc.max(axis=0)
        K = forest_kernel(self.partition_, X_enc)
        dmap = diffusion_map(K, int(self.n_components), int(self.t), seed=seed, maxiters=maxiters)
        if not dmap.converged and maxiters is None:  # ARPACK gave up: fall back to the dense solver
            warnings.warn("ARPACK did not converge; using a dense eigendecomposition", stacklevel=2)
            dmap = dense_diffusion_map(K, int(self.n_components), int(self.t))
        converged = dmap.converged  # the dense (LAPACK) fallback is exact: it counts as converged
        self.dmap_: DiffusionMap = dmap
        self._fitted_params_ = self._fit_settings()
        self.embedding_ = dmap.embedding
        self.eigenvalues_ = dmap.eigenvalues
        # Nyström through the leaves: Z₀ = K₀ Z Λ⁻¹ = mean over trees of W[leaf], W = S Πᵀ Z Λ⁻¹
        counts = np.bincount(self.train_leaves_.ravel(), minlength=self.partition_.n_leaves)
        self.leaf_counts_ = counts
        inverse = np.divide(1.0, dmap.eigenvalues, out=np.zeros_like(dmap.eigenvalues),
                            where=dmap.eigenvalues > 1e-10)
        sums = np.zeros((self.partition_.n_leaves, dmap.embedding.shape[1]))
        per_tree = np.repeat(dmap.embedding, self.partition_.n_trees, axis=0)
        np.add.at(sums, self.train_leaves_.ravel(), per_tree)
        self.leaf_weights_ = np.divide(sums, counts[:, None], out=np.zeros_like(sums),
                                       where=counts[:, None] > 0) * inverse
        self.lower_ = np.clip(self.partition_.lower, self.low_, self.high_)
        self.upper_ = np.clip(self.partition_.upper, self.low_, self.high_)
        # synthetic rows are drawn in each leaf's box shrunk to the bounding box of its training rows
        # (a gap the paper leaves: an unbounded leaf face needs some bound, and the data range
        # would make every feature a tree never split along a row's paths uniform over its range)
        lows = np.full_like(self.lower_, np.inf)
        highs = np.full_like(self.upper_, -np.inf)
        flat = self.train_leaves_.ravel()
        rows = np.repeat(X_enc, self.partition_.n_trees, axis=0)
        np.minimum.at(lows, flat, rows)
        np.maximum.at(highs, flat, rows)
        lows[:, self.categorical_] -= 0.5  # boxes are open below: keep the smallest code inside
        empty = counts == 0
        lows[empty], highs[empty] = self.lower_[empty], self.upper_[empty]
        self.data_lower_, self.data_upper_ = lows, highs
        self.synthetic_ = synthetic_training_set(self.train_leaves_, lows, highs, self.categorical_,
                                                 np.random.default_rng(seed))
        self.seed_ = seed
        if self.decoder == "relabel":
            self.relabeled_ = relabel_forest(self.partition_, self._embed_encoded, self.low_, self.high_,
                                             self.categorical_, np.random.default_rng(seed + 1))
        for name in _FITTED_ARRAYS:  # read-only: synthetic_ written with 1e30 was decoded in silence
            if name in self.__dict__:    # feature_names_in_: a DataFrame's fit only
                setattr(self, name, read_only(getattr(self, name)))
        self.categories_ = _FittedCategories(self.categories_)
        return converged

    def __setstate__(self, state: dict) -> None:
        """Unpickled or deep-copied: the fitted arrays read-only again (numpy gives them back writable, and
        a copy's synthetic_ written with 1e30 was decoded in silence)."""
        _check_loaded_state(type(self), state)
        super().__setstate__(state)
        for name in _FITTED_ARRAYS:
            if isinstance(self.__dict__.get(name), np.ndarray):
                self.__dict__[name] = read_only(self.__dict__[name])

    def _check_resolution(self, X_enc: np.ndarray) -> None:
        """Refuse a numeric column whose values scikit-learn's trees cannot split between: they route in
        float32 and never split two values closer than 1e-7 (``FEATURE_THRESHOLD``), so data ×1e-7 (or a
        large offset) gave a forest of bare roots (one leaf per tree) and a meaningless embedding in silence.
        The median gap of its distinct values must exceed 30 × 1e-7 and 4 float32 spacings at the column's
        magnitude (measured on 30 normal rows: the embedding equals the unscaled fit's at ×3e-5 and at an
        offset of 1e5, about 30 × 1e-7 and 8 spacings apart; it differs by 3.5 at ×1e-5 and 3.3 at 1e6)."""
        names = list(self.feature_names_in_) if self._frame_fitted_ else None
        for j in range(X_enc.shape[1]):
            if names is not None and str(names[j]) in self.categories_:
                continue  # integer codes
            values = np.unique(X_enc[:, j])
            if values.size < 2:
                continue  # constant: no split, and none was possible
            gap = float(np.median(np.diff(values)))
            top = float(np.abs(values).max())
            floor = max(30 * 1e-7, 4 * float(np.finfo(np.float32).eps) * top)
            if gap <= floor:
                label = repr(names[j]) if names is not None else str(j)
                raise ValueError(
                    f"X column {label}: its distinct values are {gap:.3g} apart (median), too close for "
                    f"scikit-learn's trees (they never split values closer than 1e-7 and route in float32, "
                    f"here at magnitude {top:.3g}: at least {floor:.3g} is needed), so the forest would "
                    f"not split on it. Rescale X (e.g. sklearn.preprocessing.StandardScaler) before fitting")

    def _embed_encoded(self, X_enc: np.ndarray) -> np.ndarray:
        leaves = self.partition_.leaves(X_enc)
        has_mass = self.leaf_counts_[leaves] > 0
        total = (self.leaf_weights_[leaves] * has_mass[:, :, None]).sum(axis=1)
        return total / np.maximum(has_mass.sum(axis=1), 1)[:, None]

    def transform(self, X: Any) -> np.ndarray:
        """Embed the rows of ``X`` (Nyström extension of the diffusion map), shape (m, n_components); 0 rows
        are refused, naming X, as scikit-learn's transformers do."""
        self._check_fitted()
        _refuse_masked_or_sparse(X)
        return self._embed_encoded(self._encode(X, fitting=False))

    def inverse_transform(self, X: Any) -> Any:
        """Decode latent rows (m, n_components) back to input space (a DataFrame if fit on one).

        ``X`` is a finite (m, n_components) array of latent rows, m >= 0 (m = 0 gives an empty (0,
        n_features) result).
        """
        self._check_fitted()
        Z0 = as_real_array("X", X) if not sp.issparse(X) else None
        if Z0 is None or Z0.ndim != 2 or Z0.shape[1] != self.embedding_.shape[1]:
            shape = getattr(X, "shape", None)
            raise ValueError(f"X (latent rows) must have shape (m, n_components = "
                             f"{self.embedding_.shape[1]}), got {shape}")
        if not np.all(np.isfinite(Z0)):
            raise ValueError("X (latent rows) contains NaN or inf entries")
        if Z0.shape[0] == 0:  # an empty batch: no rows back (NearestNeighbors refused 0 rows)
            return self._decode_output(np.zeros((0, self.synthetic_.shape[1])))
        return self._decode_output(self._decode(Z0))

    def _decode(self, Z0: np.ndarray) -> np.ndarray:
        """Latent rows -> rows in the forest's (encoded) coordinates."""
        rng = np.random.default_rng(self.seed_ + 2)
        if self.decoder == "knn":
            k = min(int(self.k), self.embedding_.shape[0])
            nearest = NearestNeighbors(n_neighbors=1).fit(self.embedding_).kneighbors(Z0)[0][:, 0]
            scale = max(1.0, float(np.abs(self.embedding_).max()))
            memorized = int((nearest <= 1e-9 * scale).sum())
            if memorized:
                warnings.warn(f"RFAutoencoder.inverse_transform: {memorized} of {len(Z0)} latent row(s) "
                              "coincide with training embeddings, so the kNN decoder returns (nearly) "
                              "their training rows: the reconstruction error of training data understates "
                              "the error on new data; measure it on held-out rows", UserWarning,
                              stacklevel=3)
            decoded = knn_decode(Z0, self.embedding_, self.synthetic_, k=k, categorical=self.categorical_,
                                 rng=rng)
        elif self.decoder == "relabel":
            leaves = self.relabeled_.leaves(Z0)
            box_lo, box_hi = majority_box(self.data_lower_[leaves], self.data_upper_[leaves])
            decoded = sample_in_boxes(box_lo, np.maximum(box_hi, box_lo), self.categorical_, rng)
        else:
            result = exact_decode(kernel_estimate(Z0, self.dmap_), self.partition_, self.train_leaves_,
                                  self.low_, self.high_, self.categorical_, rng, progress=bool(self.progress))
            decoded = result.x.copy()  # the record's x is read-only; the caller gets a writable array
            if not result.solved.all():  # fall back to the nearest training point's synthetic row
                warnings.warn(f"the exact decoder's ILP found no checked solution for "
                              f"{int((~result.solved).sum())} row(s); those use the 1-NN decoder",
                              stacklevel=2)
                fallback = knn_decode(Z0[~result.solved], self.embedding_, self.synthetic_, k=1,
                                      categorical=self.categorical_, rng=rng)
                decoded[~result.solved] = fallback
        return decoded

    @property
    def dtypes_(self) -> pd.Series:
        """The fitted DataFrame's column dtypes, a copy each time: the Series kept inside was mutable
        (``ae.dtypes_.iloc[0] = "int64"`` changed what inverse_transform returned, in silence)."""
        if "_fit_dtypes" not in self.__dict__:
            raise AttributeError("dtypes_ is set by fit on a pandas DataFrame; this RFAutoencoder was not "
                                 "fitted on one")
        return self._fit_dtypes.copy()

    @dtypes_.setter
    def dtypes_(self, value: Any) -> None:
        raise UnknownAttributeError("dtypes_ is a fitted attribute of RFAutoencoder, set by fit; call fit "
                                    "again instead of replacing it")

    @property
    def _n_features_out(self) -> int:
        """The latent dimension (``get_feature_names_out`` names its columns)."""
        return int(self.embedding_.shape[1])

    def score(self, X: Any, y: Any = None) -> float:
        """Minus the reconstruction distortion of ``X`` (:func:`~algorithms.forests.metrics.distortion`:
        1 − R² per numeric column, the error rate per categorical one, averaged), so higher is
        better; ``y`` is ignored. Score held-out rows: the kNN decoder nearly memorizes training rows."""
        self._check_fitted()
        X_enc = self._encode(X, fitting=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)   # scoring training rows is the caller's choice
            decoded = self._decode(self._embed_encoded(X_enc))
        return -distortion(X_enc, decoded, self.categorical_)

    def _decode_output(self, decoded: np.ndarray) -> Any:
        if not self._frame_fitted_:
            return decoded
        columns = {}
        for j, name in enumerate(self.feature_names_in_):
            dtype = self._fit_dtypes.iloc[j]
            if name in self.categories_:
                codes = np.clip(np.round(decoded[:, j]).astype(int), 0, len(self.categories_[name]) - 1)
                values = self.categories_[name][codes]
                columns[name] = pd.Series(values).astype(dtype)
            elif pd.api.types.is_integer_dtype(dtype):
                columns[name] = pd.Series(_as_integers(np.round(decoded[:, j]), dtype)).astype(dtype)
            else:
                columns[name] = pd.Series(decoded[:, j]).astype(dtype)
        frame = pd.DataFrame(columns)
        frame.columns = self.feature_names_in_.tolist()
        return frame
