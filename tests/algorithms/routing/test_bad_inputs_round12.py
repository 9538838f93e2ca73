"""#43 round 12: routing instances' arrays and distances cannot be changed after construction."""

import numpy as np
import pytest

from algorithms.routing import random_cvrp, random_tsp


@pytest.mark.parametrize("make", [lambda: random_tsp(6, seed=0), lambda: random_cvrp(5, seed=0)])
def test_distances_cannot_be_replaced_or_made_writable(make):
    # object.__setattr__(p, "distances", zeros) or setflags(write=True) then a write was solved in silence
    problem = make()
    with pytest.raises(AttributeError):
        object.__setattr__(problem, "distances", np.zeros_like(problem.distances))
    arrays = [problem.distances, problem.coords] + ([problem.demands] if hasattr(problem, "demands") else [])
    for array in arrays:
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.setflags(write=True)
    diff = problem.coords[:, None] - problem.coords[None]
    np.testing.assert_allclose(problem.distances, np.sqrt((diff**2).sum(-1)))
