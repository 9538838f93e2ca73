import os
import sys

OWN_PACKAGES = ("algorithms", "theorems", "verification")
INSTALL = 'python3.11 -m venv .venv && .venv/bin/pip install -c constraints.txt -e ".[test]"'


def missing_dependency_message(exc: ModuleNotFoundError) -> str | None:
    """The one-line advice for a third-party module that is not installed, else None."""
    top = (exc.name or "").split(".")[0]
    if not top or top in OWN_PACKAGES:
        return None  # our own import is broken: that is a bug, keep its traceback
    return (f"error: the module {top!r} is not installed in this Python ({sys.executable}); "
            f"install the package with its dependencies first (the README's first command): "
            f"{INSTALL}, then run .venv/bin/python -m verification")


def run() -> int:
    try:
        from verification.cli import main

        return main()
    except ModuleNotFoundError as exc:
        message = missing_dependency_message(exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2
    except BrokenPipeError:  # `--list | head`: the reader left; no traceback (Python's documented way)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(run())
