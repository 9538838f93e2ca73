"""Retcode cases of the imaging family: a step past 2/‖H‖² (PGD) or an expanding denoiser (ADMM)
diverges, a short horizon is MaxIters."""

from algorithms import RetCode
from algorithms.imaging import DenoiserPrior, PnPADMM, PnPPGD, TVPrior
from tests.algorithms.imaging._instances import Expanding, cs_problem, oracle_npn
from tests.retcodes import RetcodeCase


def _pgd_diverging():
    problem, x = cs_problem()
    return problem, PnPPGD(prior=TVPrior(weight=0.01), lr=50.0, npn=oracle_npn(problem, x)), {"maxiters": 500}


def _pgd_short():
    problem, _ = cs_problem()
    return problem, PnPPGD(prior=TVPrior(weight=0.01), lr=0.5), {"maxiters": 3}


def _admm_short():
    problem, x = cs_problem()
    return problem, PnPADMM(prior=TVPrior(weight=0.01), npn=oracle_npn(problem, x)), {"maxiters": 2}


def _admm_expanding_denoiser():
    problem, _ = cs_problem()
    return problem, PnPADMM(prior=DenoiserPrior(Expanding()), penalty=1.0), {"maxiters": 500}


CASES = [RetcodeCase("admm-expanding-denoiser", _admm_expanding_denoiser, RetCode.Diverged),
         RetcodeCase("pgd-step-too-large", _pgd_diverging, RetCode.Diverged),
         RetcodeCase("pgd-horizon", _pgd_short, RetCode.MaxIters),
         RetcodeCase("admm-horizon", _admm_short, RetCode.MaxIters)]
