"""vcadd's pair tree as the executor computes it (in the data's own layout, in cache-sized slices for large data)
against a plain reference: level by level over adjacent lane pairs of each repeat, rounding to the dtype, a zero
lane appended to an odd count, saturation on every level where the chip saturates."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from npusim.sim.isa import dup_reduce
from npusim.sim.isa.saturate import saturate


def _reference(rows: np.ndarray, npdt, fix) -> np.ndarray:
    out = []
    for row in rows.reshape(-1, rows.shape[-1]):
        level = [npdt.type(v) for v in row]
        while len(level) > 1:
            if len(level) % 2:
                level.append(npdt.type(0))
            with np.errstate(over="ignore", invalid="ignore"):
                level = [npdt.type(level[i] + level[i + 1]) for i in range(0, len(level), 2)]
            if fix is not None:
                level = [fix(np.array([v], dtype=npdt))[0] for v in level]
        out.append(level[0])
    return np.array(out, dtype=npdt)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("lanes", [64, 40, 7, 1])
@pytest.mark.parametrize("fix", [None, saturate])
def test_tree_matches_the_reference_on_strided_data(dtype, lanes, fix):
    npdt = np.dtype(dtype)
    rng = np.random.default_rng(lanes)
    arena = (rng.standard_normal((4, 4096)) * 3).astype(npdt)
    arena[1, 17] = np.inf
    arena[2, 300] = np.nan
    arena[3, 5:9] = np.finfo(npdt).max
    cube = as_strided(arena, shape=(4, 3, 5, lanes), strides=(arena.strides[0], 64 * npdt.itemsize,
                                                                256 * npdt.itemsize, npdt.itemsize))
    got = dup_reduce._tree_sum(cube, npdt, fix)
    want = _reference(np.ascontiguousarray(cube), npdt, fix)
    assert got.view(np.uint8).tobytes() == want.view(np.uint8).tobytes()


def test_large_trees_run_in_slices_with_the_same_results(monkeypatch):
    """Data larger than two slices: the sliced tree equals the whole-array tree bit for bit."""
    npdt = np.dtype("float32")
    data = np.random.default_rng(9).standard_normal((96, 40, 64)).astype(npdt)
    data[50, 3, 7] = np.nan
    whole = dup_reduce._tree_levels(data, npdt, None).reshape(-1)
    monkeypatch.setattr(dup_reduce, "TREE_SLICE_BYTES", 4096)
    calls = []
    original = dup_reduce._tree_levels
    monkeypatch.setattr(dup_reduce, "_tree_levels", lambda *a: calls.append(1) or original(*a))
    sliced = dup_reduce._tree_sum(data, npdt, None)
    assert len(calls) > 1
    assert sliced.tobytes() == whole.tobytes()
