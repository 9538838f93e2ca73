import os

# Claims and tests must never download anything; make accidental hub access fail fast.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

# Under ``pytest -n N`` the N workers share the machine's cores: give each cores/N BLAS/OpenMP
# threads, as the runner does for ``--jobs N`` (oversubscribed torch threads made claims several
# times slower). Set before numpy/torch are first imported by a test module; the user's own
# setting wins.
_workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
if _workers:
    _threads = str(max(1, (os.cpu_count() or 1) // int(_workers)))
    for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ.setdefault(_name, _threads)
