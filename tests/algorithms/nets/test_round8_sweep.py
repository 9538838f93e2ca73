"""#43 round 8 (pre-audit sweep) for the nets family: kinds beyond round 7's, each as its class."""

import dataclasses
import enum
import pickle

import numpy as np
import pytest

from algorithms.nets.gd_map import GDMap
from algorithms.nets.gradient_flow import GradientDescentTraining, GradientFlow
from algorithms.nets.lp_training import LpPathNormTraining
from algorithms.nets.multivariate_interpolation import PatternEnumeration
from algorithms.nets.sam import SAMTraining, SGDTraining
from algorithms.nets.sparse_interpolation import BruteForceVp, SparsestInterpolantDP

ALGORITHMS = [GDMap, GradientDescentTraining, GradientFlow, LpPathNormTraining, PatternEnumeration,
              SAMTraining, SGDTraining, BruteForceVp, SparsestInterpolantDP]


class _Seven(enum.IntEnum):
    A = 7


def _spellings(value):
    """Other spellings of a Python bool/int/float/str field value that must store as that value."""
    if isinstance(value, bool):
        return [np.bool_(value)]
    if isinstance(value, int):
        return [np.int64(value), np.uint8(value)] if 0 <= value < 256 else [np.int64(value)]
    if isinstance(value, float):
        exact32 = float(np.float32(value)) == value
        return [np.float64(value), np.longdouble(value)] + ([np.float32(value)] if exact32 else [])
    if isinstance(value, str):
        return [np.str_(value)]
    return []


@pytest.mark.parametrize("cls", ALGORITHMS)
def test_numpy_scalars_are_stored_as_python_values(cls):
    # np.float32(0.1) was stored as it came: reprs, hashes and float32 arithmetic differed by spelling
    algorithm = cls()
    for field in dataclasses.fields(cls):
        value = getattr(algorithm, field.name)
        for spelling in _spellings(value):
            built = dataclasses.replace(algorithm, **{field.name: spelling})
            stored = getattr(built, field.name)
            assert type(stored) is type(value), (field.name, type(spelling), type(stored))
            assert built == algorithm and hash(built) == hash(algorithm)
            assert pickle.loads(pickle.dumps(built)) == algorithm


def test_an_int_enum_is_stored_as_its_int():
    assert type(SGDTraining(batch_size=_Seven.A).batch_size) is int
