"""TwoLayerReLU as a torch.nn.Module and its functional view (algorithms.nets.two_layer, .functional)."""

import pytest
import torch

from algorithms.nets.functional import (
    flat_forward,
    flat_hessian,
    flat_hvp,
    flatten_params,
    module_params,
    per_sample_flat_grads,
)
from algorithms.nets.two_layer import TwoLayerReLU

torch.set_num_threads(1)


def test_is_a_module_with_seeded_parameters():
    net = TwoLayerReLU(in_features=3, width=5, out_features=2, output_bias=True, seed=4)
    assert isinstance(net, torch.nn.Module)
    assert (net.in_features, net.width, net.out_features) == (3, 5, 2)
    assert [name for name, _ in net.named_parameters()] == ["W", "b", "v", "c"]
    assert all(p.requires_grad for p in net.parameters())
    again = TwoLayerReLU(in_features=3, width=5, out_features=2, output_bias=True, seed=4)
    assert all(torch.equal(a, b) for a, b in zip(net.parameters(), again.parameters()))
    other = TwoLayerReLU(in_features=3, width=5, out_features=2, output_bias=True, seed=5)
    assert not torch.equal(net.W, other.W)
    assert TwoLayerReLU(3, 5, dtype=torch.float32).W.dtype == torch.float32
    assert torch.count_nonzero(net.c) == 0


@pytest.mark.parametrize("out_features", [1, 3])
def test_forward_shape_and_formula(out_features):
    net = TwoLayerReLU(in_features=4, width=6, out_features=out_features, seed=1)
    X = torch.randn(7, 4, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    out = net(X)
    assert out.shape == (7, out_features)
    torch.testing.assert_close(out, torch.relu(X @ net.W.T + net.b) @ net.v.T)
    torch.testing.assert_close(net.features(X), torch.relu(X @ net.W.T + net.b))


def test_functional_view_agrees_with_the_module():
    net = TwoLayerReLU(in_features=3, width=4, seed=2, init_scale=0.5)
    params = net.init(seed=2)
    assert all(torch.equal(params[k], p) for k, p in module_params(net).items())
    X = torch.randn(5, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(1))
    torch.testing.assert_close(net.forward_with(params, X), net(X)[:, 0])
    torch.testing.assert_close(net.hidden(params, X), net.features(X))
    # other parameters: the module's own weights are untouched
    shifted = {k: v + 1.0 for k, v in params.items()}
    before = net.W.detach().clone()
    torch.testing.assert_close(net.forward_with(shifted, X), (torch.relu(X @ shifted["W"].T + shifted["b"])
                                                       @ shifted["v"].T)[:, 0])
    assert torch.equal(net.W.detach(), before)
    # init at another seed/scale/dtype is the parameters of that module
    twin = TwoLayerReLU(in_features=3, width=4, seed=9, init_scale=0.1, dtype=torch.float32)
    p9 = net.init(seed=9, scale=0.1, dtype=torch.float32)
    assert all(torch.equal(p9[k], v) for k, v in module_params(twin).items())


def test_flat_views_give_module_autograd():
    net = TwoLayerReLU(in_features=3, width=4, out_features=2, seed=3)
    X = torch.randn(6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(2))
    theta, forward = flat_forward(net)
    assert theta.shape == (sum(p.numel() for p in net.parameters()),)

    def loss(t):
        return forward(t, X).square().mean()

    net.zero_grad()
    net(X).square().mean().backward()
    module_grad = torch.cat([p.grad.reshape(-1) for p in net.parameters()])
    torch.testing.assert_close(torch.func.grad(loss)(theta), module_grad)
    H = flat_hessian(loss, theta)
    u = torch.randn(theta.shape, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    torch.testing.assert_close(flat_hvp(loss, theta, u), H @ u)
    torch.testing.assert_close(H, H.T)


def test_per_sample_gradients_of_the_module():
    net = TwoLayerReLU(in_features=2, width=3, seed=0)
    theta, forward = flat_forward(net)
    X = torch.randn(4, 2, dtype=torch.float64, generator=torch.Generator().manual_seed(4))
    y = torch.randn(4, dtype=torch.float64, generator=torch.Generator().manual_seed(5))

    def sample_loss(t, x, target):
        return (forward(t, x[None])[0, 0] - target) ** 2

    rows = per_sample_flat_grads(sample_loss, theta, X, y)
    for i in range(4):
        torch.testing.assert_close(rows[i], torch.func.grad(sample_loss)(theta, X[i], y[i]))


def test_modules_can_be_built_inside_transforms():
    # a loss that builds its seeded module inside the Hessian transform (the sam_stability habit)
    X = torch.ones(3, 2, dtype=torch.float64)
    _, unflatten = flatten_params(TwoLayerReLU(2, 3).init(seed=0))

    def loss(t):
        return TwoLayerReLU(2, 3).forward_with(unflatten(t), X).square().mean()

    theta, _ = flatten_params(TwoLayerReLU(2, 3).init(seed=0))
    assert flat_hessian(loss, theta).shape == (theta.numel(), theta.numel())
