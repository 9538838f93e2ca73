"""A claim worker: ``python -m verification._worker``, driven by :mod:`verification.runner`.

It reads length-prefixed cloudpickle messages on stdin: first the parent's
``sys.path``, then ``(claim, seed, profile, out_dir)`` tasks (``None`` ends it), and
answers each with ``("started", CPU seconds so far)`` once the claim is unpickled (its module
imported), then the result dict, on the original stdout. Claims travel by value
when they were defined in a script or a notebook (cloudpickle), so the user's
``__main__`` is never re-run here, and whatever a claim prints goes to stderr.
"""

from __future__ import annotations

import os
import struct
import sys
from typing import Any, BinaryIO

import cloudpickle

_HEADER = struct.Struct("!Q")


def send(stream: BinaryIO, obj: Any) -> None:
    payload = cloudpickle.dumps(obj)
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def receive(stream: BinaryIO) -> Any:
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the other end closed the pipe")
    (size,) = _HEADER.unpack(header)
    return cloudpickle.loads(stream.read(size))


def main() -> None:
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a claim's prints must not corrupt the protocol
    requests = sys.stdin.buffer
    sys.path[:] = receive(requests)
    from verification.runner import _run_claim_task

    while (task := receive(requests)) is not None:  # unpickling imports the claim's module
        send(replies, ("started", sum(os.times()[:4])))  # the claim's CPU-time budget starts here
        send(replies, _run_claim_task(*task))


if __name__ == "__main__":
    main()
