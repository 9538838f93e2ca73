"""Small shared instances of the submodular family's tests."""

import numpy as np

from algorithms.submodular import GraphCut, Matchoid, PartitionMatroid, UniformMatroid


def cut(n: int = 8, seed: int = 0, dtype=np.float64) -> GraphCut:
    rng = np.random.default_rng(seed)
    upper = np.triu(rng.random((n, n)), 1)
    return GraphCut((upper + upper.T).astype(dtype))


def two_partitions(n: int = 8) -> Matchoid:
    return Matchoid([PartitionMatroid({e: e % 3 for e in range(n)}, 1),
                     PartitionMatroid({e: e // 3 for e in range(n)}, 2)])


def cardinality(k: int = 3) -> Matchoid:
    return Matchoid([UniformMatroid(k)])


def mixed_stream(n: int = 8, length: int = 30, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    present: set = set()
    updates = []
    for _ in range(length):
        absent = [e for e in range(n) if e not in present]
        if absent and (not present or rng.random() < 0.6):
            e = int(rng.choice(absent))
            present.add(e)
            updates.append(("insert", e))
        else:
            e = int(rng.choice(sorted(present)))
            present.discard(e)
            updates.append(("delete", e))
    return updates
