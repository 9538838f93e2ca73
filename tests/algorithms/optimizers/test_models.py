import pytest
import torch

from algorithms.optimizers import MLP, Transformer


@pytest.mark.parametrize("make", [lambda s: MLP(6, 4, width=8, depth=3, seed=s),
                                  lambda s: Transformer(5, width=8, depth=2, n_heads=2, context=4, seed=s)])
def test_seeded_init_and_roles_cover_every_parameter(make):
    a, b, c = make(0), make(0), make(1)
    for (name, p), q, r in zip(a.named_parameters(), b.parameters(), c.parameters(), strict=True):
        assert torch.equal(p, q)
        assert p.numel() == 0 or not torch.equal(p, r) or p.std() == 0 or name.endswith(("bias",))
    assert set(a.parameter_roles()) == {n for n, _ in a.named_parameters()}
    assert torch.count_nonzero(a.readout.weight) == 0          # μP: the read-out starts at zero


def test_mlp_is_the_stated_residual_map():
    net = MLP(3, 2, width=4, depth=2, seed=0, residual_multiplier=0.5, dtype=torch.float64)
    with torch.no_grad():
        net.readout.weight.copy_(torch.arange(8.0).reshape(2, 4))
    x = torch.randn(5, 3, dtype=torch.float64)
    h = x @ net.embed.weight.T
    for block in net.blocks:
        h = h + 0.5 * torch.relu(h @ block.weight.T)
    torch.testing.assert_close(net(x), h @ net.readout.weight.T + net.readout.bias)
    assert net(x).dtype == torch.float64


def test_transformer_is_causal():
    lm = Transformer(7, width=8, depth=2, n_heads=2, context=6, seed=0)
    with torch.no_grad():
        lm.readout.weight.normal_()
    tokens = torch.randint(0, 7, (2, 6), generator=torch.Generator().manual_seed(0))
    changed = tokens.clone()
    changed[:, -1] = (changed[:, -1] + 1) % 7
    torch.testing.assert_close(lm(tokens)[:, :-1], lm(changed)[:, :-1])
    assert not torch.allclose(lm(tokens)[:, -1], lm(changed)[:, -1])


def test_widths_scale_the_hidden_matrices():
    roles = MLP(3, 2, width=16, depth=2).parameter_roles()
    assert [r for r in roles.values()].count("hidden") == 2
    lm = Transformer(7, width=16, depth=1, n_heads=4, context=4)
    hidden = [n for n, r in lm.parameter_roles().items() if r == "hidden"]
    assert {n.rsplit(".", 2)[-2] for n in hidden} == {"qkv", "proj", "fc1", "fc2"}
