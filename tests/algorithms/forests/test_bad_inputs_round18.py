"""Round 18: state changed after construction (class A) in the forests family."""

import copy
import pickle

import numpy as np
import pytest

from algorithms.forests import DiffusionMap, RFAutoencoder


def _dmap() -> DiffusionMap:
    return DiffusionMap(np.ones((5, 2)), np.array([1.0, 0.5]), np.ones((5, 2)) / np.sqrt(5), 1, 0.0, True, 5)


@pytest.mark.parametrize("field", ["embedding", "eigenvalues", "eigenvectors"])
@pytest.mark.parametrize("made", ["built", "deepcopy", "pickle"])
def test_diffusion_map_arrays_cannot_be_written(field, made):
    # RFAutoencoder.dmap_.eigenvalues[:] = -1 was accepted: transform ignored it, the exact decoder used it
    dmap = {"built": _dmap, "deepcopy": lambda: copy.deepcopy(_dmap()),
            "pickle": lambda: pickle.loads(pickle.dumps(_dmap()))}[made]()
    with pytest.raises(ValueError, match="read-only"):
        getattr(dmap, field)[...] = -1.0


def test_fitted_autoencoder_dmap_cannot_be_written():
    X = np.random.default_rng(0).normal(size=(30, 3))
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0).fit(X)
    with pytest.raises(ValueError, match="read-only"):
        ae.dmap_.eigenvalues[:] = np.nan
    assert np.all(ae.dmap_.eigenvalues == ae.eigenvalues_)


@pytest.mark.parametrize("name", ["n_component", "decoderr", "K", "randomstate"])
@pytest.mark.parametrize("fitted", [False, True])
def test_autoencoder_refuses_a_misspelt_attribute(name, fitted):
    # ae.n_component = 3 was stored and ignored: transform kept 2 columns in silence
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0)
    if fitted:
        ae.fit(np.random.default_rng(0).normal(size=(30, 3)))
    with pytest.raises(ValueError, match=f"takes no attribute '{name}'"):
        setattr(ae, name, 3)
    assert name not in vars(ae)


def test_autoencoder_parameters_and_fitted_attributes_still_settable():
    ae = RFAutoencoder(n_components=2, n_estimators=5, random_state=0)
    ae.k = 5
    ae.set_params(decoder="relabel")
    ae.fit(np.random.default_rng(0).normal(size=(30, 3)))
    ae.custom_ = 1  # scikit-learn's fitted-attribute convention
    assert ae.k == 5 and ae.decoder == "relabel"
