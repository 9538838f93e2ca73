"""The fake paper's implementation: ``mean`` and ``halve_below_one`` are what its claim checks;
``spread`` is not checked by it, so mutants of ``spread`` survive."""

_PADDING = [0.0] * 2  # module-level code: a mutant here can break the import


def mean(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total = total + value
    return total / len(values)


def halve_below_one(x: float) -> float:
    while x >= 1.0:
        x = x / 2.0
    return x


def spread(values: list[float]) -> float:
    return max(values) - min(values)
