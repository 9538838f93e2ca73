"""Smoke test of benchmarks/bench_maros_meszaros.py's functions on a generated QP (no data files read)."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import scipy.io as sio
import scipy.sparse as sp

_PATH = Path(__file__).resolve().parents[3] / "benchmarks" / "bench_maros_meszaros.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_maros_meszaros", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mat(tmp_path: Path) -> Path:
    """A qpbenchmark-layout problem: an equality row, a two-sided row, a one-sided row (1e20 = ∞), bounds."""
    n = 3
    C = sp.vstack([sp.csr_matrix([[1.0, 1.0, 1.0], [1.0, -1.0, 0.0], [0.0, 1.0, 2.0]]), sp.identity(n)])
    path = tmp_path / "TOY.mat"
    sio.savemat(str(path), {"P": sp.csc_matrix(np.diag([2.0, 1.0, 1.0])),
                            "q": np.array([[-1.0], [0.5], [0.0]]), "r": np.zeros((1, 1)),
                            "A": sp.csc_matrix(C), "n": np.array([[n]]), "m": np.array([[C.shape[0]]]),
                            "l": np.array([[1.0], [-0.5], [-1e20], [0.0], [-1e20], [-1.0]]),
                            "u": np.array([[1.0], [0.5], [1.5], [1e20], [0.8], [1.0]])})
    return path


def test_conversion_follows_qpbenchmark(bench, tmp_path):
    data = bench.load_problem(_mat(tmp_path))
    assert data["A"].shape == (1, 3) and data["b"].tolist() == [1.0]
    # the two-sided row gives two rows, the one-sided row one (its 1e20 side dropped)
    assert data["G"].shape == (3, 3) and sorted(data["h"].tolist()) == [0.5, 0.5, 1.5]
    assert data["lb"].tolist() == [0.0, -np.inf, -1.0] and data["ub"].tolist() == [np.inf, 0.8, 1.0]
    assert bench.problem_size(_mat(tmp_path)) == 9


def test_runs_are_scored_and_summarized(bench, tmp_path):
    data = bench.load_problem(_mat(tmp_path))
    ours = bench.run_config(data, "dqp", seed=0, fd=True)
    direct = bench.run_config(data, "clarabel", seed=0, fd=False)
    assert ours["retcode"] == "Success" and bench.success(ours, 1e-9) and bench.success(direct, 1.0)
    assert ours["backward"] >= 0 and (ours["fd"].get("agrees") or "skipped" in ours["fd"])
    # the high-accuracy column: dQP with abs_tol = 1e-9, the backend with qpbenchmark's high settings
    ours_high = bench.run_config(data, "dqp", seed=0, fd=False, accuracy="high")
    direct_high = bench.run_config(data, "clarabel", seed=0, fd=False, accuracy="high")
    assert ours_high["retcode"] == "Success" and bench.success(ours_high, 1e-9)
    results = {"TOY": {"dqp": {"default": ours, "high": ours_high},
                       "clarabel": {"default": direct, "high": direct_high}}}
    rows = bench.summarize(results, ["dqp", "clarabel"], 10.0)
    assert rows[0]["success_default"] == 1 and rows[0]["success_failing_default"] == 0
    assert rows[0]["success_high"] == 1 and rows[0]["success_failing_high"] == 0
    assert bench.best_backend(rows, "high")["config"] == "clarabel"
    assert bench.shifted_geomean([0.0, 0.0]) == pytest.approx(0.0, abs=1e-15)
    assert bench.shifted_geomean([1.0]) == pytest.approx(1.0)


def test_high_settings_are_absolute(bench):
    """qpbenchmark's high-accuracy column: absolute 1e-9, relative tolerances off."""
    for solver, settings in bench.HIGH_SETTINGS.items():
        assert all(v in (0.0, 1e-9, True) for v in settings.values()), solver
    assert bench.dqp_algorithm("high").abs_tol == 1e-9 and bench.dqp_algorithm("default").abs_tol is None
