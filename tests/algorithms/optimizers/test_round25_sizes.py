"""Round 25: find_blocks is linear in the number of names (it was quadratic: 6 s for 5000 names)."""

from __future__ import annotations

import time

import pytest

from algorithms.optimizers import find_blocks


def test_find_blocks_on_many_names_is_fast():
    names = [f"layer{i}.weight" for i in range(50_000)]
    start = time.process_time()
    assert find_blocks(names, blocks=[names[:25_000], names[25_000:]]) == [names[:25_000], names[25_000:]]
    assert find_blocks(names, blocks=[names]) == [names]
    assert time.process_time() - start < 5.0     # quadratic: about 10 minutes


def test_find_blocks_still_names_repeats_and_unknowns():
    with pytest.raises(ValueError, match="more than once"):
        find_blocks(["a", "b", "a"])
    with pytest.raises(ValueError, match="more than once"):
        find_blocks(["a", "b"], blocks=[["a", "a", "b"]])
    with pytest.raises(ValueError, match="does not have"):
        find_blocks(["a", "b"], blocks=[["a", "c"], ["b"]])
