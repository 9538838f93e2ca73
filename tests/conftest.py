import os

# Claims and tests must never download anything; make accidental hub access fail fast.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
