import numpy as np

from algorithms.bayesopt import ConstrainedBOProblem


def test_problem_maps_the_box_to_the_unit_cube_and_counts_constraints():
    prob = ConstrainedBOProblem(
        f=lambda x: float(x.sum()), c=lambda x: np.array([x[0], -x[1]]), bounds=[[-1.0, 3.0], [2.0, 4.0]]
    )
    X = np.array([[-1.0, 2.0], [3.0, 4.0], [1.0, 3.0]])
    np.testing.assert_allclose(prob.to_unit(X), [[0, 0], [1, 1], [0.5, 0.5]])
    np.testing.assert_allclose(prob.from_unit(prob.to_unit(X)), X)
    assert prob.n_constraints == 2 and prob.dim == 2
    value, cons = prob.evaluate(np.array([1.0, 3.0]))
    assert value == 4.0 and cons.tolist() == [1.0, -3.0]
