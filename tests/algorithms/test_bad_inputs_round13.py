"""Round 13 of issue #43, core: classes a red team found in Solution and IterationMonitor."""

import warnings

import numpy as np
import pytest
import torch

from algorithms.core import IterationMonitor, RetCode, Solution, SolveOptions

NAN = float("nan")


def _sparse_csr_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch's "sparse CSR is beta" notice
        return torch.tensor([[NAN, 0.0]]).to_sparse_csr()


@pytest.mark.parametrize("make", [lambda: torch.tensor([NAN]).to_sparse(), _sparse_csr_nan,
                                  lambda: torch.tensor([NAN]).to(torch.float8_e4m3fn)],
                         ids=["sparse-coo", "sparse-csr", "float8"])
def test_a_success_refuses_a_non_finite_tensor_torch_cannot_test_directly(make):
    # isfinite is not implemented for sparse layouts or float8: torch's NotImplementedError reached the user
    with pytest.raises(ValueError, match=r"^x must be finite with retcode Success"):
        Solution(x=make(), value=0.0, retcode="Success")


def test_finite_sparse_and_float8_answers_are_kept():
    assert Solution(x=torch.tensor([1.0, 0.0]).to_sparse(), value=0.0, retcode="Success").successful
    assert Solution(x=torch.tensor([1.0]).to(torch.float8_e4m3fn), value=0.0, retcode="Success").successful
    no_answer = Solution(x=torch.tensor([NAN]).to_sparse(), value=0.0, retcode="MaxIters")
    assert no_answer.retcode is RetCode.MaxIters


@pytest.mark.parametrize("x", [np.array([1j], dtype=object), {"a": 1j}, {1j: 0}, {1j},
                               [torch.zeros(2, dtype=torch.complex64)], (np.zeros(2, dtype=complex),)])
def test_x_refuses_a_complex_value_inside_any_container(x):
    with pytest.raises(TypeError, match=r"^x must be real"):
        Solution(x=x, value=0.0, retcode="Success")


def test_str_labels_inside_a_set_are_elements_not_a_str_answer():
    assert Solution(x={"a", "b"}, value=1.0, retcode="Success").x == {"a", "b"}


@pytest.mark.parametrize(("name", "bad", "error"), [("callback", "not callable", TypeError),
                                                     ("progress", "yes", TypeError),
                                                     ("store_trace", "no", TypeError),
                                                     ("maxiters", -1, ValueError)])
def test_monitor_rechecks_options_edited_after_construction(name, bad, error):
    options = SolveOptions(store_trace=True)
    object.__setattr__(options, name, bad)
    with pytest.raises(error, match=rf"^{name} must be"):
        IterationMonitor(options, total=3)


def test_monitor_total_of_another_type_is_a_type_error():
    with pytest.raises(TypeError, match=r"^total must be an int >= 0 .* got str '3'"):
        IterationMonitor(SolveOptions(), total="3")


def test_solve_given_a_class_instead_of_an_instance_names_the_fix():
    from algorithms.core import solve
    from algorithms.qp import DQP, QP

    problem = QP(P=np.eye(2), q=np.array([-1.0, -1.0]))
    with pytest.raises(TypeError, match=r"^algorithm must be an instance, got the class DQP: pass DQP\("):
        solve(problem, DQP)
    with pytest.raises(TypeError, match=r"^problem must be an instance, got the class QP"):
        solve(QP, DQP())
    with pytest.raises(TypeError, match=r"^algorithm must be an Algorithm \(e\.g\. .*\), got str"):
        solve(problem, "DQP")


def test_check_nonnegative_with_scale_is_zero_or_a_positive_scale():
    # a step size that may be 0 ("no step"): 1e-39 would round away in float32 while the run reports steps
    from algorithms._validation import WORKING_MIN, check_nonnegative

    assert check_nonnegative("lr", 0.0, scale=True) == 0.0
    assert check_nonnegative("lr", WORKING_MIN, scale=True) == WORKING_MIN
    assert check_nonnegative("weight_decay", 1e-39) == 1e-39     # a >= 0 weight: a tiny one acts as 0
    with pytest.raises(ValueError, match=r"^lr = 1e-39 is outside the package's working range"):
        check_nonnegative("lr", 1e-39, scale=True)


def _raising_callback(record):
    raise KeyError("boom")


def test_a_raising_callback_is_named_in_solve_and_in_a_monitor():
    # the callback's KeyError reached the caller bare, naming neither the callback nor the call
    from algorithms._validation import UserCallableError
    from algorithms.core import solve
    from algorithms.qp import DQP, QP

    with pytest.raises(UserCallableError, match=r"^callback\(record\) raised KeyError") as info:
        solve(QP(P=np.eye(2), q=np.array([-1.0, -1.0])), DQP(), callback=_raising_callback)
    assert isinstance(info.value.__cause__, KeyError)
    monitor = IterationMonitor(SolveOptions(callback=_raising_callback), total=2)
    with pytest.raises(UserCallableError, match=r"^callback\(record\) raised KeyError"):
        monitor.record(iteration=0, value=1.0)


def test_trace_entries_must_be_records():
    with pytest.raises(TypeError, match=r"^trace must be a list of records .* got a list holding int"):
        Solution(x=1, value=0.0, retcode="Success", trace=[1, 2])
