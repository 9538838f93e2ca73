import math

import pytest

from algorithms.optimizers import MLP, Transformer, independent_weight_decay, lr_multiplier, param_groups


@pytest.mark.parametrize("rule, expected", [
    ("adamw", 1 / 8), ("grafted_shampoo", 1 / 8), ("muon", math.sqrt(2 / 8)),
    ("shampoo", (2 / 8) ** 0.5 * 4 ** -0.5 * 3 ** 0), ("soap", math.sqrt(2 / 8) / 2),
])
def test_table_one(rule, expected):
    assert lr_multiplier(rule, 8.0, 2.0, blocks_in_ratio=2.0, blocks_out_ratio=2.0) == pytest.approx(expected)


def test_shampoo_depth_and_one_sided_factors():
    # E = 1/4 one-sided: N^(1/2) (d_out/d_in)^(3/4) nb^(-1/4)
    assert lr_multiplier("shampoo", 1.0, 16.0, depth_ratio=4.0, one_sided=True) == pytest.approx(2.0 * 8.0)
    assert lr_multiplier("shampoo", 1.0, 1.0, depth_ratio=4.0) == 1.0           # E = 1/2: no depth factor
    assert lr_multiplier("muon", 1.0, 1.0, depth_ratio=4.0) == 1.0


def test_mlp_groups_follow_the_roles():
    net = MLP(5, 3, width=64, depth=2)
    lrs = {g["name"]: g["lr"] for g in param_groups(net, "muon", 0.1, base_width=16)}
    assert lrs["blocks.0.weight"] == pytest.approx(0.1)          # √(4/4)
    assert lrs["embed.weight"] == pytest.approx(0.1)             # AdamW: d_in fixed
    assert lrs["readout.weight"] == pytest.approx(0.1 / 4)       # AdamW: 1/d_in
    assert lrs["readout.bias"] == pytest.approx(0.1)
    muon = {g["name"]: g["use_muon"] for g in param_groups(net, "muon", 0.1, base_width=16)}
    assert muon == {"embed.weight": False, "blocks.0.weight": True, "blocks.1.weight": True,
                    "readout.weight": False, "readout.bias": False}
    standard = param_groups(net, "adamw", 0.1, base_width=16, parametrization="standard")
    assert {g["lr"] for g in standard} == {0.1}


def test_blocks_enter_shampoo_rule():
    net = MLP(4, 4, width=64, depth=1)
    lrs = {g["name"]: g["lr"] for g in param_groups(net, "shampoo", 1.0, base_width=16, block_size=16)}
    # hidden 64 x 64 against 16 x 16 base: 4 x 4 blocks vs 1 -> (1)^(1/2) (16)^(-1/2)
    assert lrs["blocks.0.weight"] == pytest.approx(0.25)


def test_transformer_embeddings_are_fan_out_scaled():
    lm = Transformer(9, width=32, depth=1, n_heads=2, context=4)
    lrs = {g["name"]: g["lr"] for g in param_groups(lm, "adamw", 1.0, base_width=8)}
    assert lrs["token_embedding.weight"] == 1.0 and lrs["readout.weight"] == pytest.approx(0.25)
    assert lrs["blocks.0.fc2.weight"] == pytest.approx(0.25)


def test_independent_weight_decay_is_inverse_width():
    assert independent_weight_decay(0.01, 64, 16) == pytest.approx(0.0025)
