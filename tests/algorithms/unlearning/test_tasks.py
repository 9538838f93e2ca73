import math

import torch

from algorithms.unlearning import deep_linear_task, sine_poisoning_task, sup_error, two_layer_task


def _residual(prob, samples):
    X, y = samples
    return float((prob.predict(prob.params, X) - y).abs().max())


def test_tasks_interpolate_the_whole_training_set():
    for prob in (deep_linear_task(5, 8, (3, 2), 2, seed=1), two_layer_task(6, 2, 12, 2, seed=1)):
        assert max(_residual(prob, prob.retain), _residual(prob, prob.forget)) < 1e-9
        assert prob.n_retain + prob.n_forget in (5, 6)


def test_sine_task_shapes_labels_and_metric():
    prob = sine_poisoning_task(8, 2, hidden=(8,), train_steps=5, seed=0)
    assert prob.retain[0].shape == (8, 1) and torch.all(prob.forget[1] == 1.5)
    x = prob.retain[0][:, 0] * 5 * math.pi
    assert torch.allclose(prob.retain[1][:, 0], torch.sin(x))
    assert sup_error(prob, prob.params, grid=11) >= 0.0
    # a model predicting 0 everywhere is off by max |sin| = 1 on a grid containing ±π/2 multiples
    zero = torch.zeros_like(prob.params)
    assert abs(sup_error(prob, zero, grid=21) - 1.0) < 1e-12
