"""A user's own Muon for the README's example: ours with one line changed (the Nesterov
look-ahead dropped: the step always uses the momentum buffer)."""

import torch

from algorithms.optimizers import Muon, newton_schulz
from algorithms.optimizers.muon import adamw_direction, adjusted_lr


class MyMuon(Muon):
    def _direction(self, p, grad, state, group, dtype):
        lr = group["lr"]
        if not self._uses_muon(group, p):
            return adamw_direction(grad, state, group["adamw_betas"], group["adamw_eps"]), lr
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = torch.zeros_like(grad)
        buf = state["momentum_buffer"]
        buf.lerp_(grad, 1 - group["momentum"])
        direction = buf  # the changed line: ours uses grad.lerp(buf, momentum) when nesterov
        update = newton_schulz(direction, group["ns_coefficients"], group["ns_steps"], group["eps"],
                               group["ns_dtype"])
        return update.to(dtype), adjusted_lr(lr, group["adjust_lr_fn"], p.shape)
