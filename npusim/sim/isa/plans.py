"""Index plans of vector operands: which elements an instruction touches, computed once per operand pattern.

Element address of lane ``l`` in repeat ``r`` for an operand of ``B = block_bytes / itemsize`` elements per block
(the chip's block):
``start + r * rep_stride * B + (l // B) * blk_stride * B + l % B`` (TIK's formula, per operand).  A plan holds
these relative indices for the active lanes of every repeat as one flat int64 array (repeat-major), whether they
form one contiguous range (then a slice replaces fancy indexing), and, for destinations that hit an element more
than once, which write lands last (hardware runs repeats in order, so the last repeat wins).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from npusim.errors.sim import OverlapError
from npusim.sim.geometry import MASK_WORD_BITS
from npusim.util.cache import BoundedCache


def _frozen(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def make_mask_lanes(mask, lanes: int) -> np.ndarray:
    """Active lane numbers of a (checked) mask: an int count or a (mask_h, mask_l) pair."""
    if isinstance(mask, tuple):
        high, low = mask
        bits = [lane for lane in range(min(lanes, MASK_WORD_BITS)) if (low >> lane) & 1]
        bits += [MASK_WORD_BITS + lane for lane in range(max(0, lanes - MASK_WORD_BITS)) if (high >> lane) & 1]
        return _frozen(np.array(bits, dtype=np.int64))
    return _frozen(np.arange(mask, dtype=np.int64))


@dataclass(frozen=True, eq=False)
class AccessPlan:
    """Relative element indices an operand touches: ``rel`` is flat, ``rows`` repeats x ``cols`` lanes
    (``size`` = rows x cols).  ``cross_repeat``: some element is touched by more than one repeat."""

    rel: np.ndarray
    rows: int
    cols: int
    contiguous: bool
    first: int
    last: int
    write_sel: Optional[np.ndarray]
    write_rel: Optional[np.ndarray]
    size: int
    cross_repeat: bool = False
    grid: Optional[tuple] = None    # (shape, element strides): rel == rel[0] + sum(i_k * stride_k), else None

    def read(self, view: np.ndarray, base: int) -> np.ndarray:
        """The operand's elements (a view when contiguous, a gathered copy otherwise), flat."""
        if self.contiguous:
            start = base + self.first
            return view[start:start + self.size]
        return view[self.rel + base]

    def write(self, view: np.ndarray, base: int, values) -> None:
        """Store ``values`` (flat, one per plan position, or a scalar) with the last write winning."""
        if self.contiguous:
            start = base + self.first
            view[start:start + self.size] = values
        elif self.write_sel is None:
            view[self.rel + base] = values
        else:
            if np.ndim(values):
                values = np.asarray(values).reshape(-1)[self.write_sel]
            view[self.write_rel + base] = values


def _make_plan(rel2d: np.ndarray) -> AccessPlan:
    rows, cols = rel2d.shape
    flat = np.ascontiguousarray(rel2d, dtype=np.int64).reshape(-1)
    size = flat.size
    contiguous = size > 0 and bool(np.all(np.diff(flat) == 1))
    first, last = (int(flat.min()), int(flat.max())) if size else (0, -1)
    write_sel = write_rel = None
    cross_repeat = False
    if not contiguous:
        uniq, first_in_reversed = np.unique(flat[::-1], return_index=True)
        if uniq.size != size:
            last_pos = size - 1 - first_in_reversed
            write_sel = _frozen(last_pos)
            write_rel = _frozen(uniq)
            first_pos = np.unique(flat, return_index=True)[1]
            cross_repeat = bool(np.any(first_pos // cols != last_pos // cols))
    grid = None if contiguous or not size else _grid(np.asarray(rel2d, dtype=np.int64))
    return AccessPlan(_frozen(flat), rows, cols, contiguous, first, last, write_sel, write_rel, size, cross_repeat,
                      grid)


def _grid(rel2d: np.ndarray) -> Optional[tuple]:
    """(shape, strides) describing a plan's indices as a regular 2-D or 3-D grid (repeats x lanes, or repeats x
    blocks x elements of a block) with non-negative strides, or None."""
    rows, cols = rel2d.shape
    starts = rel2d[:, 0]
    row_step = int(starts[1] - starts[0]) if rows > 1 else 0
    lanes = rel2d[0] - starts[0]
    if row_step < 0 or (rows > 1 and not (np.array_equal(np.diff(starts), np.full(rows - 1, row_step))
                                         and np.array_equal(rel2d - starts[:, None], np.broadcast_to(lanes, rel2d.shape)))):
        return None
    if np.array_equal(lanes, np.arange(cols)):
        return (rows, cols), (row_step, 1)
    run = int(np.argmax(np.diff(lanes) != 1)) + 1
    if cols % run:
        return None
    blocks = lanes.reshape(cols // run, run)
    heads = blocks[:, 0]
    step = int(heads[1] - heads[0]) if heads.size > 1 else 0
    if step < 0 or not np.array_equal(blocks, heads[:, None] + np.arange(run)[None, :]) or \
            not np.array_equal(heads, np.arange(heads.size) * step):
        return None
    return (rows, cols // run, run), (row_step, step, 1)


def check_accumulating_dst(site, dst, plan: AccessPlan) -> None:
    """An instruction that reads its destination (vaxpy, vmla) must not let a repeat read an element an earlier
    repeat wrote (the same rule as for sources; the vectorised evaluation would differ from the hardware's)."""
    if plan.cross_repeat:
        raise site.error(OverlapError, f"{dst.role} address overlapping error: {dst.role} is also read, and a repeat "
                                       f"reads {dst.role} data that an earlier repeat wrote")


def make_vector_plan(mask, lanes: int, repeat: int, blk_stride: int, rep_stride: int, isz: int, block_bytes: int,
                     active: np.ndarray = None) -> AccessPlan:
    """Plan of one vector operand (itemsize ``isz``, strides in blocks of ``block_bytes``) for a checked
    mask/repeat/stride combination (``active``: the mask's lanes when already known)."""
    per_block = block_bytes // isz
    active = make_mask_lanes(mask, lanes) if active is None else active
    lane_part = (active // per_block) * blk_stride * per_block + active % per_block
    rel = (np.arange(repeat, dtype=np.int64) * rep_stride * per_block)[:, None] + lane_part[None, :]
    return _make_plan(rel)


def make_strided_plan(repeat: int, count: int, rep_stride_elems: int) -> AccessPlan:
    """``count`` consecutive elements per repeat, repeats ``rep_stride_elems`` apart (reduction outputs, bits)."""
    rel = (np.arange(repeat, dtype=np.int64) * rep_stride_elems)[:, None] + np.arange(count, dtype=np.int64)[None, :]
    return _make_plan(rel)


class PlanCache:
    """Plans by their arguments, in bounded caches (one per plan kind); held by a runtime's simulator caches and
    handed to instructions through their compile context (``kc.plans``)."""

    def __init__(self, mask_entries: int = 1024, vector_entries: int = 8192, strided_entries: int = 4096):
        self._masks = BoundedCache("sim.plans.masks", mask_entries)
        self._vectors = BoundedCache("sim.plans.vector", vector_entries)
        self._strided = BoundedCache("sim.plans.strided", strided_entries)

    def mask_lanes(self, mask, lanes: int) -> np.ndarray:
        """Active lane numbers of a (checked) mask (see :func:`make_mask_lanes`)."""
        key = (mask, lanes)
        found = self._masks.get(key)
        return found if found is not None else self._masks.put(key, make_mask_lanes(mask, lanes))

    def vector(self, mask, lanes: int, repeat: int, blk_stride: int, rep_stride: int, isz: int,
               block_bytes: int) -> AccessPlan:
        """Plan of one vector operand (see :func:`make_vector_plan`)."""
        key = (mask, lanes, repeat, blk_stride, rep_stride, isz, block_bytes)
        found = self._vectors.get(key)
        if found is None:
            found = self._vectors.put(key, make_vector_plan(mask, lanes, repeat, blk_stride, rep_stride, isz,
                                                            block_bytes, self.mask_lanes(mask, lanes)))
        return found

    def strided(self, repeat: int, count: int, rep_stride_elems: int) -> AccessPlan:
        """Plan of ``count`` consecutive elements per repeat (see :func:`make_strided_plan`)."""
        key = (repeat, count, rep_stride_elems)
        found = self._strided.get(key)
        return found if found is not None else self._strided.put(key, make_strided_plan(*key))

    def caches(self) -> tuple:
        return (self._masks, self._vectors, self._strided)


def _byte_plan(base: int, plan: AccessPlan, isz: int) -> np.ndarray:
    starts = ((plan.rel + base) * isz).reshape(plan.rows, plan.cols)
    return (starts[:, :, None] + np.arange(isz)[None, None, :]).reshape(plan.rows, -1)


def check_overlap(site, dst, dst_base: int, dst_plan: AccessPlan, src, src_base: int, src_plan: AccessPlan,
                  elementwise: bool) -> None:
    """Raise OverlapError when dst and src overlap in a way TIK rejects.

    Allowed: disjoint operands; dst exactly equal to src (same start, itemsize and pattern).  Rejected: any
    repeat reading bytes an earlier repeat wrote (the vectorised evaluation would differ from the hardware's
    in-order one), and, for element-wise families with repeat_times == 1, any partial overlap.
    """
    if dst.key[0] != src.key[0] or (dst.is_gm and dst.key[1] != src.key[1]):
        return
    d0, d1 = (dst_base + dst_plan.first) * dst.isz, (dst_base + dst_plan.last + 1) * dst.isz
    s0, s1 = (src_base + src_plan.first) * src.isz, (src_base + src_plan.last + 1) * src.isz
    if d1 <= s0 or s1 <= d0:
        return
    if dst_base * dst.isz == src_base * src.isz and dst.isz == src.isz and (
            dst_plan is src_plan or np.array_equal(dst_plan.rel, src_plan.rel)):
        return
    if elementwise and dst_plan.rows == 1:
        raise site.error(OverlapError, f"{dst.role} and {src.role} address overlapping error. when repeat_times=1, "
                                       f"only support {dst.role} and {src.role} 100% same")
    dst_bytes, src_bytes = _byte_plan(dst_base, dst_plan, dst.isz), _byte_plan(src_base, src_plan, src.isz)
    written, first_write = np.unique(dst_bytes.reshape(-1), return_index=True)
    read_rev, last_read_rev = np.unique(src_bytes.reshape(-1)[::-1], return_index=True)
    first_write_rep = first_write // dst_bytes.shape[1]
    last_read_rep = (src_bytes.size - 1 - last_read_rev) // src_bytes.shape[1]
    _, in_w, in_r = np.intersect1d(written, read_rev, assume_unique=True, return_indices=True)
    if np.any(first_write_rep[in_w] < last_read_rep[in_r]):
        raise site.error(OverlapError, f"{dst.role} and {src.role} address overlapping error: a repeat reads "
                                       f"{src.role} data that an earlier repeat wrote to {dst.role}")
