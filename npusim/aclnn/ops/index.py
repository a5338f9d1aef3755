"""aclnnIndex(self, indices: tensor_list, out): advanced indexing, ``out = self[indices]`` (a gather on the scalar
pipe).

``indices`` has at most one entry per leading dimension of ``self``; a null entry takes the whole dimension (``:``).
Integer index tensors (int64 / int32; negative values count from the end) broadcast together; their shape replaces
the indexed dimensions where those are adjacent, else it goes first (PyTorch's rule).  A bool / uint8 mask stands
for the integer indices of its true entries (found on the host before the gather, as ``nonzero``).  Indices out of
range are an error naming the dimension.
"""
from __future__ import annotations

import numpy as np

from npusim.aclnn import graph
from npusim.aclnn.op import Op
from npusim.aclnn.ops.common import CASTABLE
from npusim.aclnn.params import Param
from npusim.aclnn.scalar_pipe import run_te
from npusim.aclnn.types import AclTensor

_INDEX_DTYPES = ("int64", "int32", "bool", "uint8")


def _expand_masks(inv, rank: int) -> list:
    """The index entries with masks replaced by integer index arrays (None for null entries)."""
    entries = []
    for number, tensor in enumerate(inv["indices"]):
        if tensor is None:
            entries.append(None)
            continue
        if tensor.dtype not in _INDEX_DTYPES:
            raise inv.fail("indices", f"entry {number} has dtype {tensor.dtype}; indices must be int64, int32, "
                                      f"bool or uint8")
        if tensor.dtype in ("bool", "uint8"):
            start = len(entries)
            mask_shape = tensor.shape
            if tuple(inv["self"].shape[start:start + len(mask_shape)]) != mask_shape:
                raise inv.fail("indices", f"entry {number}: mask of shape {list(mask_shape)} does not match self's "
                                          f"dimensions {list(inv['self'].shape[start:start + len(mask_shape)])}")
            entries.extend(np.nonzero(tensor.data())) if mask_shape else entries.append(
                np.zeros(int(bool(tensor.data())), np.int64))
            continue
        entries.append(tensor.data())
    if len(entries) > rank:
        raise inv.fail("indices", f"indexes {len(entries)} dimension(s), but self has {rank}")
    return entries


def _check_bounds(inv, entries: list, shape: tuple) -> None:
    for dim, values in enumerate(entries):
        if values is None or values.size == 0:
            continue
        low, high = int(values.min()), int(values.max())
        size = shape[dim]
        bad = low if low < -size else high if high >= size else None
        if bad is not None:
            raise inv.fail("indices", f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _layout(entries: list, rank: int, shape: tuple):
    """(indexed dims, the index broadcast shape, out shape, where the broadcast dims start in out)."""
    picked = [d for d, e in enumerate(entries) if e is not None]
    rest = [d for d in range(rank) if d not in picked]
    bshape = ()
    for d in picked:
        bshape = graph.broadcast_shape(bshape, entries[d].shape)
        if bshape is None:
            return None
    adjacent = picked == list(range(picked[0], picked[-1] + 1))
    start = len([d for d in rest if d < picked[0]]) if adjacent else 0
    kept = [shape[d] for d in rest]
    return picked, bshape, tuple(kept[:start]) + bshape + tuple(kept[start:]), start


def _index(inv):
    src, out = inv["self"], inv["out"]
    graph.check_device_dtype(inv, "self", src.dtype)
    rank = len(src.shape)
    entries = _expand_masks(inv, rank)
    entries = [None if e is None else np.asarray(e, dtype=np.int64) for e in entries] + [None] * (rank - len(entries))
    if all(e is None for e in entries):
        picked, bshape, shape, start = [], (), src.shape, 0
    else:
        layout = _layout(entries, rank, src.shape)
        if layout is None:
            raise inv.fail("indices", f"index shapes {[list(e.shape) for e in entries if e is not None]} do not "
                                      f"broadcast together")
        picked, bshape, shape, start = layout
    _check_bounds(inv, entries, src.shape)
    graph.check_out_shape(inv, "out", shape)
    if out.dtype != src.dtype:
        raise inv.fail("out", f"dtype {out.dtype} must be self's, {src.dtype}")
    inputs = {"self": src}
    inputs.update({f"index{d}": AclTensor(entries[d]) for d in picked})
    key = ("index", tuple(picked), bshape, start, out.shape)
    run_te(inv, key, inputs, [out],
           lambda places: [_gather(places[0], dict(zip(picked, places[1:])), entries, bshape, start, shape)],
           "gathers by index tensors")


def _gather(place, index_places: dict, entries: list, bshape: tuple, start: int, out_shape: tuple):
    from tvm import te, tirx
    shape = tuple(int(d) for d in place.shape)
    nb = len(bshape)

    def element(*i):
        i = i if out_shape else ()
        bidx, rest = i[start:start + nb], iter(i[:start] + i[start + nb:])
        full = []
        for d in range(len(shape)):
            if d not in index_places:
                full.append(next(rest))
                continue
            own = entries[d].shape
            aligned = bidx[nb - len(own):] if own else ()
            source = tuple(0 if n == 1 else v for n, v in zip(own, aligned)) or (0,)
            value = index_places[d][source].astype("int32")
            full.append(tirx.if_then_else(value < 0, value + shape[d], value))
        return place[tuple(full)]

    return te.compute(graph.kernel_shape(out_shape), element, name="out")


OPS = (
    Op("aclnnIndex", (Param("self", "tensor", dtypes=CASTABLE), Param("indices", "tensor_list", null_entries=True),
                      Param("out", "tensor", output=True, dtypes=CASTABLE)), _index,
       "out = self[indices] (advanced indexing)", pipe="scalar"),
)

__all__ = ["OPS"]
