"""A broad bad-input sweep over every family, in the spirit of the held-out suite of issue #43.

Where the family modules ``test_bad_inputs*.py`` hold hand-written cases (each with the exact words its
message must carry), this sweep *generates* cases, so every field of every problem and algorithm is
tried with every class of bad value:

* every init field of every problem/algorithm dataclass a contract or retcode case builds
  (``tests/algorithms/*/cases*.py``, ``retcode_cases*.py``), replaced by values of the wrong type, NaN/inf,
  negative sizes, truthy strings for flags, unknown choices, arrays with NaN, the wrong rank, strings or
  complex entries, tensors of the wrong dtype, non-callables and callables that return the wrong thing;
* ``solve``'s common options on every pair (``store_trace="no"``, ``progress="off"``, ``tol=inf``,
  ``seed=-1``/``2**64``, an algorithm of another family);
* every keyword of the public non-dataclass classes (``torch.optim`` optimizers, ``nn.Module`` models,
  the scikit-learn estimator, the QP layer, the submodular functions) listed in :data:`SIGNATURES`;
* hand-written physical cases (``tests/algorithms/test_bad_input_sweep.py``: non-unitary bases, overlaps
  no unit vectors can have, a non-symmetric kernel, a target below a known optimum, path norm with p = 0,
  LKH/HGS on tiny and huge coordinates, constructors that must leave the user's model unchanged...).

:func:`classify` sorts each outcome as the issue does: *handled* (a ``ValueError``/``TypeError``, or a
subclass the family documents, raised by our validation with a message naming the argument; or a value
documented valid, see :data:`VALID`), *cryptic* (another exception class, a message not naming the
argument, or one raised inside numpy/scipy/torch/scikit-learn) or *silent* (accepted without error, or a
run that returns ``Success`` on an invalid input). ``python -m tests.bad_input_sweep`` prints the
per-family tally.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.bad_inputs import _raised_in_library

HERE = Path(__file__).resolve().parent
HANDLED, CRYPTIC, SILENT = "handled", "cryptic", "silent"


@dataclass(frozen=True)
class SweepCase:
    """One bad input: ``call()`` must raise one of ``errors`` naming one of ``words``.

    ``accept`` (optional) judges a returned value: a run that reports the bad input itself (a
    ``Failure``/``Diverged`` retcode rather than ``Success``) is handled. ``valid`` names why the input
    is documented valid: then the call must simply not fail cryptically. ``late`` (optional) uses what
    ``call`` returned (a ``solve`` on the accepted object): an error it raises naming the argument is
    handled too (validated at solve rather than at construction).
    """

    family: str
    label: str
    call: Callable[[], Any]
    words: tuple[str, ...]
    errors: tuple[type[BaseException], ...] = (ValueError, TypeError)
    accept: Callable[[Any], bool] | None = None
    valid: str = ""
    late: Callable[[Any], Any] | None = None
    source: str = field(default="field", compare=False)

    @property
    def id(self) -> str:
        return f"{self.family}:{self.label}"


def classify(case: SweepCase) -> tuple[str, str]:
    """(outcome, detail) for one case; see the module docstring."""
    outcome, detail, result = _judge(case, case.call)
    if outcome == SILENT and case.late is not None:
        outcome, detail, _ = _judge(case, lambda: case.late(result))
        detail = f"at solve: {detail}"
    return outcome, detail


def _judge(case: SweepCase, call: Callable[[], Any]) -> tuple[str, str, Any]:
    try:
        result = call()
    except case.errors as exc:
        message = str(exc)
        library = _raised_in_library(exc)
        if library is not None:
            return CRYPTIC, f"{type(exc).__name__} raised inside {library}: {message[:160]}", None
        if case.valid:
            return CRYPTIC, f"valid ({case.valid}) but raised {type(exc).__name__}: {message[:120]}", None
        if not any(w.lower() in message.lower() for w in case.words):
            return CRYPTIC, f"{type(exc).__name__} not naming {case.words}: {message[:160]}", None
        return HANDLED, f"{type(exc).__name__}: {message[:160]}", None
    except Exception as exc:
        return CRYPTIC, f"{type(exc).__name__} (expected ValueError/TypeError): {str(exc)[:160]}", None
    if case.valid:
        return HANDLED, f"documented valid: {case.valid}", None
    if case.accept is not None and case.accept(result):
        return HANDLED, f"reported in the result: {_short(result)}", None
    return SILENT, f"accepted: {_short(result)}", result


def _short(result: Any) -> str:
    retcode = getattr(result, "retcode", None)
    if retcode is not None:
        return f"Solution(retcode={retcode.value})"
    return type(result).__name__


# ----------------------------------------------------------------------------------------- mutations
NAN, INF = float("nan"), float("inf")


def _array_mutations(value: np.ndarray) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [("list-of-str", [["a"]]), ("str", "x")]
    if value.size and np.issubdtype(value.dtype, np.number):
        if np.issubdtype(value.dtype, np.floating):
            bad = value.copy()
            bad.flat[0] = np.nan
            out.append(("nan-entry", bad))
            worse = value.copy()
            worse.flat[-1] = np.inf
            out.append(("inf-entry", worse))
            huge = value.astype(np.float64)   # float64: float32 cannot hold it
            huge.flat[0] = 1e39
            out.append(("1e39-entry", huge))   # past the working range (README): refused by name
        out.append(("extra-axis", value[..., None]))
        out.append(("complex", value.astype(np.complex128) + 1j))
        out.append(("str-dtype", value.astype(str)))
        # object arrays of numeric strings: astype(float64) parses "0.1" as 0.1 (heldout25: 26 silent cases)
        out.append(("numeric-str-object", value.astype(str).astype(object)))
        with_bool = value.astype(object)
        with_bool.flat[0] = True   # counted as 1 by astype
        out.append(("bool-object-entry", with_bool))
    return out


def _tensor_mutations(value) -> list[tuple[str, Any]]:
    import torch

    out: list[tuple[str, Any]] = [("str", "x")]
    if value.numel() and value.is_floating_point():
        bad = value.detach().clone()
        bad.view(-1)[0] = float("nan")
        out.append(("nan-entry", bad))
        huge = value.detach().to(torch.float64).clone()
        huge.view(-1)[0] = 1e39
        out.append(("1e39-entry", huge))   # past the working range (README): refused by name
        out.append(("extra-axis", value.detach().unsqueeze(-1)))
        out.append(("int-dtype", value.detach().to(torch.int64)))
        out.append(("complex-dtype", value.detach().to(torch.complex128)))
    return out


def _none_mutations(annotation: str) -> list[tuple[str, Any]]:
    """Mutations of a field whose valid value is None (an optional argument), from its annotation."""
    a = annotation.replace(" ", "")
    if a.startswith(("int|", "int|None", "Optional[int")) or a in {"int|None", "None|int"}:
        return [("neg", -1), ("float", 2.5), ("str", "3"), ("bool", True)]
    if a.startswith(("float|", "Optional[float")) or a in {"float|None"}:
        return [("nan", NAN), ("neg", -1.0), ("str", "x"), ("bool", True)]
    if "ndarray" in a or "ArrayLike" in a or "Tensor" in a:
        return [("str", "x"), ("nan-array", np.array([np.nan])), ("list-of-str", [["a"]])]
    if a.startswith(("bool|", "Optional[bool")):
        return [("str-no", "no")]
    return [("wrong-type", object())]


def mutations(value: Any, annotation: str = "", name: str = "") -> list[tuple[str, Any]]:
    """(label, bad value) pairs for a field whose valid value is ``value`` (``name``: its name)."""
    import torch

    if "seed" in name and isinstance(value, int | np.integer) and not isinstance(value, bool):
        # numpy takes any non-negative int, torch.manual_seed only [0, 2**64)
        return [("neg", -1), ("2**64", 2**64), ("float", 2.5), ("str", "3"), ("bool", True), ("None", None)]
    if value is None:
        return _none_mutations(annotation)
    if isinstance(value, bool | np.bool_):
        return [("str-no", "no"), ("str-off", "off"), ("None", None)]
    if isinstance(value, int | np.integer):
        return [("neg", -1), ("float", 2.5), ("str", "3"), ("bool", True), ("None", None)]
    if isinstance(value, float | np.floating):
        # past the working range (README): 1e39 just outside, 1e308 far outside, an int past it
        return [("nan", NAN), ("inf", INF), ("neg", -1.0), ("str", "x"), ("bool", True), ("None", None),
                ("1e39", 1e39), ("-1e39", -1e39), ("1e308", 1e308), ("2**128", 2**128)]
    if isinstance(value, str):
        return [("unknown-choice", "no-such-choice"), ("int", 3), ("None", None)]
    if isinstance(value, np.ndarray):
        return _array_mutations(value)
    if isinstance(value, torch.Tensor):
        return _tensor_mutations(value)
    if isinstance(value, type):
        return [("int-dtype", np.int64), ("str", "x")]
    if isinstance(value, dict):
        return [("str", "x"), ("unknown-key", {"no_such_key": 1})]
    if isinstance(value, tuple):
        out: list[tuple[str, Any]] = [("str", "x"), ("None", None)]
        if value and all(isinstance(v, float) for v in value):
            out.append(("nan-entry", (NAN, *value[1:])))
        return out
    if isinstance(value, list):
        return [("str", "x"), ("None", None)]
    if callable(value):
        return [("not-callable", 3), ("None", None)]
    return [("str", "x"), ("None", None)]


# ------------------------------------------------------------------------------------------ sources
def _family_of(obj: Any) -> str:
    return type(obj).__module__.split(".")[1]


def _load(pattern: str) -> list[Any]:
    cases = []
    for path in sorted((HERE / "algorithms").glob(f"*/{pattern}.py")):
        module = importlib.import_module(f"tests.algorithms.{path.parent.name}.{path.stem}")
        cases.extend(module.CASES)
    return cases


def pairs() -> list[tuple[Any, Any]]:
    """One (problem, algorithm) pair per registered pair, from the contract and retcode cases."""
    found: list[tuple[Any, Any]] = []
    for make in _load("cases*"):
        found.append(make(np.float64))
    for case in _load("retcode_cases*"):
        problem, algorithm, _ = case.build()
        found.append((problem, algorithm))
    return found


_FREE_LABEL = "a problem's name is a free label"
_ANY_REAL = "a reference value (an optimum, a target) may be any finite real"
_CONVERTED = "integer entries are documented to be converted to the float dtype"
#: (Type.field, mutation label) -> why that value is documented valid (the docstring says so).
VALID: dict[tuple[str, str], str] = {
    ("ConstrainedBOProblem.name", "unknown-choice"): _FREE_LABEL,
    ("BlackBoxProblem.name", "unknown-choice"): _FREE_LABEL,
    ("CurvatureProblem.name", "unknown-choice"): _FREE_LABEL,
    ("ConstrainedBOProblem.f_star", "neg"): _ANY_REAL,
    ("BlackBoxProblem.optimum", "neg"): _ANY_REAL,
    ("BlackBoxProblem.f_ref", "neg"): _ANY_REAL,
    ("BlackBoxProblem.target", "neg"): _ANY_REAL,
    ("ChanceConstrainedProblem.known_optimum", "neg"): _ANY_REAL,
    ("CurvatureProblem.L_C", "inf"): "L_C = inf is the documented constant of the l_p problems with p > 2",
    ("MinNormOG.lambda_schedule", "inf"): "lambda = inf is the documented hard projection (the note's λ→∞)",
    ("InverseProblem.y", "int-dtype"): _CONVERTED,
    ("UnlearningProblem.params", "int-dtype"): _CONVERTED,
    ("DQP.backend_options", "unknown-key"): "passed through to the backend, which owns its keywords",
    # public factories and functions (signature cases)
    ("vectors_with_overlaps.mu", "neg"): "an overlap of -1 is in the documented range [-1, 1]",
    ("vectors_with_overlaps.nu", "neg"): "an overlap of -1 is in the documented range [-1, 1]",
    ("GraphCut.weight", "unknown-choice"): "the networkx edge attribute to read: any name",
    ("synthetic_minimax.coupling", "neg"): "any real coupling c (only c**2 enters)",
    ("synthetic_minimax.x0", "neg"): "any real start",
    ("synthetic_minimax.y0", "neg"): "any real start",
    ("lp_regression.f_star", "neg"): _ANY_REAL,
    ("orthogonally_separable_data.center_correlation", "neg"): "-1 = -1/(K-1) for K = 2: the documented end",
    ("squared_huber.f_star", "neg"): _ANY_REAL,
}


_ZERO_VALID = "a parameter that may be 0 takes any value from 0 up (README, working range)"
#: fields where 0 is valid but 1e-39 is not, in the cases' setting or by a narrower documented range
ONLY_ZERO = {"TwoLayerTraining.init_noise",   # a non-zero init_noise perturbs init='data' only
             # the optimizers' documented lr: 0 (torch's "no step") or in [1.18e-38, 1e10]
             "OptimizerTraining.lr", "Muon.lr", "Shampoo.lr", "SOAP.lr", "SAM.lr", "param_groups.lr",
             # unlearning's step sizes that may be 0 (README: "0 or at least 1.18e-38", round 13)
             "GradientDescent.lr", "NegGrad.lr", "NegGradPlus.lr", "Ridge.lr", "MinNormOG.lr", "Retrain.lr"}


def _tiny_mutation(build: Callable[[Any], Any], name: str) -> tuple[str, Any, str] | None:
    """(label, 1e-39, why valid): below the working range's smallest positive scale. Refused where the
    parameter must be > 0, found by building it with 0 (refused naming ``name``: a positive scale); valid
    where 0 is; None (no case) where 0 fails for another reason (the call itself needs more than this)."""
    try:
        build(0.0)
    except (ValueError, TypeError) as exc:
        return ("1e-39", 1e-39, "") if name in str(exc) else None
    except Exception:
        return None
    return "1e-39", 1e-39, _ZERO_VALID


def _field_case(family: str, owner: Any, name: str, label: str, bad: Any, late) -> SweepCase:
    key = f"{type(owner).__name__}.{name}"
    return SweepCase(family, f"{key}={label}", lambda: dataclasses.replace(owner, **{name: bad}),
                     (name,), valid=VALID.get((key, label), ""), late=late, source="field")


def _callable_cases(family: str, problem: Any, algorithm: Any, name: str) -> list[SweepCase]:
    """A user callable of ``problem`` returning a string, None or an array of the wrong shape: raised in
    ``solve`` naming the callable, or reported by a retcode other than ``Success``."""
    from algorithms import RetCode, solve

    key = f"{type(problem).__name__}.{name}"

    def run(returned: Any) -> Callable[[], Any]:
        def call():
            bad = dataclasses.replace(problem, **{name: lambda *a, **k: returned})
            return solve(bad, algorithm, maxiters=2)
        return call

    def reported(sol: Any) -> bool:
        return getattr(sol, "retcode", RetCode.Success) is not RetCode.Success
    return [SweepCase(family, f"{key}->str", run("x"), (name,), accept=reported, source="callable"),
            SweepCase(family, f"{key}->None", run(None), (name,), accept=reported, source="callable"),
            SweepCase(family, f"{key}->shape(17,)", run(np.ones(17)), (name,), accept=reported,
                      source="callable")]


def field_cases(with_callables: bool = True) -> list[SweepCase]:
    """Every init field of every problem/algorithm the contract builds, with each of its mutations."""
    import typing

    from algorithms import solve

    out: list[SweepCase] = []
    seen: set[type] = set()
    for problem, algorithm in pairs():
        for owner in (problem, algorithm):
            if type(owner) in seen or not dataclasses.is_dataclass(owner):
                continue
            seen.add(type(owner))
            family = _family_of(owner)
            for f in dataclasses.fields(owner):
                if not f.init:
                    continue
                value = getattr(owner, f.name)
                annotation = f.type if isinstance(f.type, str) else typing._type_repr(f.type)
                if owner is problem:
                    def late(obj, a=algorithm):
                        return solve(obj, a, maxiters=2)
                else:
                    def late(obj, p=problem):
                        return solve(p, obj, maxiters=2)
                for label, bad in mutations(value, annotation, f.name):
                    if label == "None" and "None" in annotation:
                        continue  # documented optional
                    out.append(_field_case(family, owner, f.name, label, bad, late))
                if isinstance(value, float | np.floating):
                    tiny = _tiny_mutation(lambda v, o=owner, n=f.name: dataclasses.replace(o, **{n: v}),
                                          f.name)
                    if tiny is not None:
                        label, bad, why = tiny
                        why = "" if f"{type(owner).__name__}.{f.name}" in ONLY_ZERO else why
                        case = _field_case(family, owner, f.name, label, bad, late)
                        out.append(dataclasses.replace(case, valid=case.valid or why))
                if (with_callables and owner is problem and callable(value) and not isinstance(value, type)
                        and getattr(value, "__name__", "") != ""
                        and not hasattr(value, "parameters")):
                    out.extend(_callable_cases(family, problem, algorithm, f.name))
    return out


def option_cases() -> list[SweepCase]:
    """``solve``'s common options, bad, on one pair of every family."""
    from algorithms import solve

    options = [("store_trace", "no"), ("progress", "off"), ("tol", INF), ("tol", 0.0), ("seed", -1),
               ("seed", 2**64), ("seed", 1.5), ("maxiters", -1), ("maxiters", True), ("callback", 3)]
    out: list[SweepCase] = []
    seen: set[tuple[type, type]] = set()
    for problem, algorithm in pairs():
        key = (type(problem), type(algorithm))
        if key in seen:
            continue
        seen.add(key)
        family = _family_of(problem)
        pair = f"{type(problem).__name__}x{type(algorithm).__name__}"
        for name, bad in options:
            out.append(SweepCase(family, f"solve({pair}, {name}={bad!r})",
                                 lambda p=problem, a=algorithm, n=name, b=bad: solve(p, a, **{n: b}), (name,),
                                 source="option"))
        out.append(SweepCase(family, f"solve({pair}, algorithm='x')", lambda p=problem: solve(p, "x"),
                             ("algorithm",), source="option"))
        # the largest seed solve documents: each family (and its backend) must take it
        out.append(SweepCase(family, f"solve({pair}, seed=2**64 - 1)",
                             lambda p=problem, a=algorithm: _no_failure_from_seed(p, a, 2**64 - 1),
                             ("seed",),
                             valid="seeds in [0, 2**64) are documented valid", source="option"))
    return out


def _no_failure_from_seed(problem: Any, algorithm: Any, seed: int) -> Any:
    """Two short runs, seeds 0 and ``seed``: a backend that cannot take the seed must not turn it into a
    ``Failure`` (other retcodes may differ: a randomized method's sample depends on its seed)."""
    from algorithms import RetCode, solve

    big, small = (solve(problem, algorithm, seed=s, maxiters=2) for s in (seed, 0))
    if big.retcode is RetCode.Failure and small.retcode is not RetCode.Failure:
        raise RuntimeError(f"seed={seed} gives {big.retcode.value} where seed=0 gives {small.retcode.value}")
    return big


@dataclass(frozen=True)
class Signature:
    """A public non-dataclass callable: ``target(*args, **kwargs)`` is valid; ``then(obj)`` exercises it.

    Every keyword in ``kwargs`` and every keyword-with-a-default of ``target`` (those of simple types) is
    swept with :func:`mutations`; ``skip`` names keywords not to sweep (with the reason in a comment).
    """

    family: str
    target: Callable[..., Any]
    args: Callable[[], tuple]
    kwargs: dict[str, Any] = field(default_factory=dict)
    then: Callable[[Any], Any] | None = None
    skip: tuple[str, ...] = ()


def signature_cases(signatures: list[Signature]) -> list[SweepCase]:
    import inspect

    out: list[SweepCase] = []
    for sig in signatures:
        params = inspect.signature(sig.target).parameters
        swept = dict(sig.kwargs)
        for p in params.values():
            if p.default is not p.empty and p.name not in swept and p.kind is not p.VAR_KEYWORD:
                swept[p.name] = p.default
        name = getattr(sig.target, "__qualname__", repr(sig.target))
        for arg, value in swept.items():
            if arg in sig.skip:
                continue
            annotation = str(params[arg].annotation) if arg in params else ""
            for label, bad in mutations(value, annotation, arg):
                if label == "None" and "None" in annotation:
                    continue  # documented optional

                def call(sig=sig, arg=arg, bad=bad):
                    obj = sig.target(*sig.args(), **{**sig.kwargs, arg: bad})
                    return sig.then(obj) if sig.then is not None else obj
                key = f"{name}.{arg}={label}"
                valid = VALID.get((f"{name}.{arg}", label), "")
                out.append(SweepCase(sig.family, key, call, (arg,), valid=valid, source="signature"))
            if isinstance(value, float | np.floating):
                def build(v, sig=sig, arg=arg):
                    obj = sig.target(*sig.args(), **{**sig.kwargs, arg: v})
                    return sig.then(obj) if sig.then is not None else obj
                tiny = _tiny_mutation(build, arg)
                if tiny is not None:
                    label, bad, why = tiny
                    why = "" if f"{name}.{arg}" in ONLY_ZERO else why
                    out.append(SweepCase(sig.family, f"{name}.{arg}={label}", lambda b=build: b(1e-39),
                                         (arg,), valid=VALID.get((f"{name}.{arg}", label), why),
                                         source="signature"))
    return out


# ------------------------------------------------------------------------------------------ tallies
def tally(results: list[tuple[SweepCase, str, str]]) -> dict[str, Counter]:
    table: dict[str, Counter] = {}
    for case, outcome, _ in results:
        table.setdefault(case.family, Counter())[outcome] += 1
    return table


def format_tally(table: dict[str, Counter]) -> str:
    lines = [f"{'family':<14}{'cases':>7}{'handled':>9}{'cryptic':>9}{'silent':>8}"]
    total: Counter = Counter()
    for family in sorted(table):
        c = table[family]
        total.update(c)
        lines.append(f"{family:<14}{sum(c.values()):>7}{c[HANDLED]:>9}{c[CRYPTIC]:>9}{c[SILENT]:>8}")
    n = sum(total.values())
    lines.append(f"{'all':<14}{n:>7}{total[HANDLED]:>9}{total[CRYPTIC]:>9}{total[SILENT]:>8}")
    unhandled = total[CRYPTIC] + total[SILENT]
    lines.append(f"unhandled {unhandled}/{n} = {100 * unhandled / max(n, 1):.1f} %")
    return "\n".join(lines)


def run_all(cases: list[SweepCase]) -> list[tuple[SweepCase, str, str]]:
    import warnings

    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for case in cases:
            outcome, detail = classify(case)
            results.append((case, outcome, detail))
    return results


def main() -> None:
    import sys

    import torch

    torch.set_num_threads(1)
    from tests.algorithms.test_bad_input_sweep import ALL_CASES

    results = run_all(ALL_CASES)
    verbose = "-v" in sys.argv
    for case, outcome, detail in results:
        if outcome != HANDLED or verbose:
            print(f"{outcome:8} {case.id}  [{case.source}]  {detail}")
    print(format_tally(tally(results)))


if __name__ == "__main__":
    main()
