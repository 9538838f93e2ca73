"""Retcode cases for GDMap on StrictSaddle: a blow-up is Diverged, a horizon without convergence MaxIters."""

from algorithms import RetCode
from algorithms.nets.gd_map import GDMap, StrictSaddle
from tests.retcodes import RetcodeCase


def _diverging():
    # v0 = 10 with lr = 1: v -> v - (v³ - v) = 2v - v³ grows like v³ and passes 1e8 (1 + |z0|) in 3 steps
    return StrictSaddle(a=[1.0], b=[1.0], x0=[0.0, 10.0]), GDMap(lr=1.0), {}


def _horizon():
    # a small step from a point far from any critical point: 5 steps cannot reach |grad f| <= 1e-8
    return StrictSaddle(a=[1.0], b=[1.0], x0=[0.5, 0.5]), GDMap(lr=0.01), {"maxiters": 5}


CASES = [
    RetcodeCase("gdmap-blowup", _diverging, RetCode.Diverged),
    RetcodeCase("gdmap-horizon", _horizon, RetCode.MaxIters),
]
