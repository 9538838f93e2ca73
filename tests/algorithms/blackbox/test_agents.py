import torch

from algorithms.blackbox.agents import HyperparameterController, WorkflowGenerator, cosine_positions
from algorithms.blackbox.grammar import N_MAX, validate


def test_generator_samples_valid_and_logprob_matches():
    torch.manual_seed(0)
    a1 = WorkflowGenerator()
    for s in range(20):
        f = torch.randn(13)
        wf, logp, ent = a1.sample(f, generator=torch.Generator().manual_seed(s))
        assert validate(wf) == wf and ent >= 0
        assert torch.allclose(a1.log_prob(f, wf), logp, atol=1e-5)


def test_greedy_is_deterministic_and_gradients_flow():
    a1 = WorkflowGenerator()
    f = torch.zeros(13)
    assert a1.sample(f, greedy=True)[0] == a1.sample(f, greedy=True)[0]
    _, logp, _ = a1.sample(f, generator=torch.Generator().manual_seed(1))
    logp.backward()
    assert a1.head.weight.grad is not None and torch.any(a1.head.weight.grad != 0)


def test_controller_shapes_and_state_dict_roundtrip():
    a2 = HyperparameterController()
    wf = ("init.lhs", "pop.20", "de.rand1", "cx.binomial", "bc.clip", "sel.greedy")
    mean, std, value = a2(wf, torch.rand(7, 9))
    assert mean.shape == (7, 2, N_MAX) and std.shape == mean.shape and value.shape == (7,)
    assert torch.all((mean > 0) & (mean < 1)) and torch.all(std > 0)
    b = HyperparameterController()
    b.load_state_dict(a2.state_dict())
    assert torch.allclose(b(wf, torch.ones(1, 9))[0], a2(wf, torch.ones(1, 9))[0])


def test_cosine_positions():
    P = cosine_positions(5, 8)
    assert torch.allclose(P[0, 1::2], torch.ones(4)) and torch.allclose(P[0, 0::2], torch.zeros(4))
