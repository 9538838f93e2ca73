"""One BLAS thread around dQP's dense factorizations (issue #42).

A multi-threaded BLAS is slow on the small and medium matrices of a QP whenever the cores are
busy: on the shared 2-core machine (load ≈ 24) a 437×437 ``pinv`` took 12.8 s with the default
two OpenBLAS threads and 0.21 s with one, a ``sytrf`` 3.3 s against 0.025 s, and a batch of 32
QPs of 5 variables ran 5-10× slower (issue #42's measurement). A switch costs ~0.3 ms
(threadpoolctl), so it is made once per solve or per batch, and only where it can pay.
"""

from __future__ import annotations

import contextlib

#: problems with at most this many variables (dense data) run their factorizations on one thread;
#: beyond it a dense factorization is large enough for several threads to pay on an idle machine
MAX_N = 3000
_CONTROLLER = None
#: whether some BLAS runs more than one thread (read once: then a switch is needed at all)
_MULTI = None


def single_blas_thread(n: int, min_n: int = 0):
    """A context manager limiting BLAS to one thread when ``min_n < n <= MAX_N`` (else a no-op, and a
    no-op when every BLAS already runs one thread, e.g. under ``OMP_NUM_THREADS=1``)."""
    global _CONTROLLER, _MULTI
    if not (min_n < n <= MAX_N) or _MULTI is False:
        return contextlib.nullcontext()
    try:
        if _CONTROLLER is None:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController()
            _MULTI = any(info.get("num_threads", 1) > 1 for info in _CONTROLLER.info()
                         if info.get("user_api") == "blas")
            if not _MULTI:
                return contextlib.nullcontext()
        return _CONTROLLER.limit(limits=1, user_api="blas")
    except ImportError:  # threadpoolctl is optional
        return contextlib.nullcontext()
