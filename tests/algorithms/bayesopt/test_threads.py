"""CEI runs in concurrent threads sharing one problem and one algorithm: each gives the serial answer bit for
bit, and the process's BLAS thread count is as it was after them.

Each run limits BLAS to one thread (small GP solves), a count OpenBLAS keeps for the whole process. Every
run saved and restored it on its own (``with threadpool_limits``): of two overlapping runs the first to end
restored the old count under the other, whose last steps then rounded otherwise (another x than the serial
solve's, about 1 contract run in 3), and the other's exit left the process at one thread. threadpoolctl
(3.8) also lets only its controlling thread set the count: a limit taken in one thread and restored in
another was skipped in silence."""

import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from algorithms import solve
from tests.algorithms.bayesopt.cases_cei_rates import make_cei

WAIT_S = 120.0   # a hang (the other thread failed) ends the test instead of the session


def _blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


def _in_a_passing_thread(fn):
    result = []
    thread = threading.Thread(target=lambda: result.append(fn()))
    thread.start()
    thread.join()
    return result[0]


@contextlib.contextmanager
def _two_blas_threads():
    """BLAS at two threads (whatever this machine's default), so a run's limit of one differs from the count
    it restores; set and restored from threads that end (threadpoolctl leaves OpenBLAS to the thread that
    last set it while that thread lives: the test's thread would keep it for the whole test)."""
    limiter = _in_a_passing_thread(lambda: threadpool_limits(limits=2, user_api="blas"))
    try:
        yield
    finally:
        _in_a_passing_thread(limiter.restore_original_limits)


def test_two_threads_give_the_serial_answer_repeatedly():
    """The contract's two-thread comparison, five times: one overlap in which the first run ended first
    was enough to fail (and it left BLAS at one thread, so the later repetitions could not)."""
    problem, algorithm = make_cei(np.float64)
    with _two_blas_threads():
        serial = solve(problem, algorithm, seed=2)
        for repetition in range(5):
            before = _blas_threads()
            with ThreadPoolExecutor(2) as pool:
                results = list(pool.map(lambda _: solve(problem, algorithm, seed=2), range(2)))
            for sol in results:
                assert sol.retcode is serial.retcode
                np.testing.assert_array_equal(sol.x, serial.x, err_msg=f"repetition {repetition}")
            assert _blas_threads() == before, f"repetition {repetition}: the BLAS count was not restored"


def _timed_wait(event: threading.Event, what: str) -> None:
    if not event.wait(WAIT_S):
        raise TimeoutError(f"waited {WAIT_S:g} s for {what}")


def test_the_first_run_ending_under_a_running_one():
    """The interleaving that failed, made certain: run A limits BLAS first, run B starts, A ends while B
    runs, B ends. Both equal their serial runs, and the count is the one before (two BLAS threads, so the
    restored count differs from the runs' one)."""
    problem, algorithm = make_cei(np.float64)
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()

    def run_a():
        def callback(record):
            if record["iteration"] == 1:
                a_inside.set()
                _timed_wait(b_inside, "run B")
        try:
            return solve(problem, algorithm, seed=2, maxiters=3, callback=callback)
        finally:
            a_done.set()

    def run_b():
        def callback(record):
            if record["iteration"] == 1:
                b_inside.set()
                _timed_wait(a_done, "run A to end")
        return solve(problem, algorithm, seed=2, callback=callback)

    with _two_blas_threads():
        serial_a = solve(problem, algorithm, seed=2, maxiters=3)
        serial_b = solve(problem, algorithm, seed=2)
        before = _blas_threads()
        with ThreadPoolExecutor(2) as pool:
            future_a = pool.submit(run_a)
            _timed_wait(a_inside, "run A")
            future_b = pool.submit(run_b)
            sol_a, sol_b = future_a.result(), future_b.result()
        after = _blas_threads()
    for name, sol, serial in (("A", sol_a, serial_a), ("B", sol_b, serial_b)):
        assert sol.retcode is serial.retcode, name
        np.testing.assert_array_equal(sol.original.X, serial.original.X, err_msg=f"run {name}")
        np.testing.assert_array_equal(sol.x, serial.x, err_msg=f"run {name}")
    assert after == before, "the BLAS thread count was not restored"


def test_a_run_in_a_worker_thread_after_one_in_the_main_thread():
    """A limit taken by a run in one thread and restored by it leaves no thread in control: a later run in
    another thread still limits BLAS (it ran on the process's count, rounding otherwise)."""
    problem, algorithm = make_cei(np.float64)
    serial = solve(problem, algorithm, seed=2)
    with ThreadPoolExecutor(1) as pool:
        sol = pool.submit(solve, problem, algorithm, seed=2).result()
    np.testing.assert_array_equal(sol.x, serial.x)
