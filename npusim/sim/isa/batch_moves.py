"""The lockstep-batch form of ``data_move``: one copy for every active block of a batch.

Local sides are rows of the scope's 2-D arena (the same address in every block: a 2-D slice; per-block
addresses: a gather).  GM sides start at one byte address per block; when the addresses step evenly with the
block index (``s + k * block_idx``, the common case) every block's bytes are one strided view of GM, otherwise
they are gathered.  Moves into GM remember the bytes they overwrite (the batch may have to undo itself) and are
logged when their parameter can be written, with their atomic accumulation applied in block order wherever blocks
meet.  The burst geometry must be the same in every block (otherwise the launch runs block by block).
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npusim.sim.batch_expr import AFFINE, as_int_array, evaluator_for
from npusim.sim.checks import check_access, check_aligned
from npusim.sim.isa.atomic import accumulate
from npusim.sim.isa.batch_cube_moves import fast_copier
from npusim.sim.lockstep.gm_log import ATOMIC, READ, WRITE

try:    # the compiled burst copy (setup.py builds it); the numpy copies below give the same bytes without it
    from npusim.sim.isa._native import copy_bursts as _native_copy
except ImportError:  # pragma: no cover - a source tree without built extensions
    _native_copy = None

#: moves of at most this many bursts log every burst (else one span from the first to the last byte)
LOGGED_BURSTS = 64
#: a batched copy of more bytes than this runs in slices of bursts of about this size (host cache blocking)
COPY_SLICE_BYTES = 1 << 16


class Side:
    """One operand of a batched move: the byte-view operand, its start expression and the burst pitch."""

    def __init__(self, kc, op):
        self.op = op
        self.bexpr = kc.batch_base(op)
        self.evaluate = evaluator_for(self.bexpr)
        self.site = kc.site
        self.align = kc.chip.block_bytes

    def starts(self, b):
        """The start of every active row: a Python int (the same for all) or an int64 array."""
        value = self.evaluate(b)
        if isinstance(value, np.ndarray):
            return as_int_array(value, 0)
        return value

    def check(self, b, start, span: int) -> None:
        """Alignment (local) and bounds of ``span`` bytes from every row's start (as ``moves._start``)."""
        op = self.op
        low = int(start.min()) if isinstance(start, np.ndarray) else start
        high = int(start.max()) if isinstance(start, np.ndarray) else start
        if not op.is_gm:
            misaligned = (start % self.align) if isinstance(start, np.ndarray) else [start % self.align]
            if misaligned.any() if isinstance(misaligned, np.ndarray) else misaligned[0]:
                bad = int(np.asarray(start).reshape(-1)[np.flatnonzero(misaligned)[0]])
                check_aligned(self.site, op.role, bad, self.align)
        hi = op.hi if op.hi is not None else b.gm_hi[op.key]
        if low < op.lo or high + span > hi:
            bad = low if low < op.lo else high
            check_access(self.site, op.role, op.buffer, bad, bad + span - 1, op.lo, hi, "bytes")


def _pattern(nburst: int, burst_bytes: int, pitch: int) -> np.ndarray:
    return ((np.arange(nburst, dtype=np.int64) * pitch)[:, None] + np.arange(burst_bytes)[None, :]).reshape(-1)


def _local_grid(view, rows, start: int, geometry: tuple, writeable: bool):
    """The active rows' bursts at one local start as a (rows x nburst x burst) strided view of the 2-D arena."""
    nburst, burst_bytes, pitch = geometry
    grid = as_strided(view[:, start:], shape=(view.shape[0], nburst, burst_bytes),
                      strides=(view.strides[0], pitch, 1), writeable=writeable)
    return grid if rows is None else grid[rows]


def _local_get(view, rows, start, geometry: tuple):
    """rows x nburst x burst bytes read from local memory at each row's start."""
    if not isinstance(start, np.ndarray):
        return _local_grid(view, rows, start, geometry, False)
    nburst, burst_bytes, pitch = geometry
    cols = start[:, None] + _pattern(nburst, burst_bytes, pitch)[None, :]
    return view[_row_ids(view, rows)[:, None], cols].reshape(start.size, nburst, burst_bytes)


def _local_put(view, rows, start, geometry: tuple, data) -> None:
    """Store rows x nburst x burst bytes into local memory at each row's start."""
    nburst, burst_bytes, pitch = geometry
    if not isinstance(start, np.ndarray):
        grid = as_strided(view[:, start:], shape=(view.shape[0], nburst, burst_bytes),
                          strides=(view.strides[0], pitch, 1))
        if rows is None:
            copy_bursts(grid, data)
        else:
            grid[rows] = data
        return
    cols = start[:, None] + _pattern(nburst, burst_bytes, pitch)[None, :]
    view[_row_ids(view, rows)[:, None], cols] = np.reshape(data, (start.size, -1))


def copy_bursts(dst: np.ndarray, src) -> None:
    """``dst[...] = src`` for (rows x nburst x burst) byte grids, fast on the host: the compiled burst loop of
    :mod:`npusim.sim.isa._native` for separate operands with contiguous bursts; else 8-byte words where the bursts
    allow, and burst slices of ~COPY_SLICE_BYTES across all rows at a time when the grid is large (every block's
    burst n of a strided move usually sits next to the other blocks' burst n in GM: copying slice by slice keeps
    those bytes in the host's cache instead of sweeping each block's bursts in turn)."""
    src = np.asarray(src)
    if src.shape != dst.shape:
        src = np.broadcast_to(src, dst.shape)
    if (_native_copy is not None and dst.ndim == 3 and dst.dtype == np.uint8 and src.dtype == np.uint8
            and dst.strides[-1] == 1 and src.strides[-1] == 1 and not np.may_share_memory(dst, src)):
        _native_copy(dst, src)
        return
    burst_bytes = dst.shape[-1]
    if burst_bytes % 8 == 0 and dst.strides[-1] == 1 and src.strides[-1] == 1 and dst.ndim == 3:
        dst, src = _words(dst), _words(src)
    rows, nburst = dst.shape[0], dst.shape[1]
    if rows < 2 or nburst < 2 or dst.nbytes <= COPY_SLICE_BYTES:
        dst[...] = src
        return
    step = max(1, COPY_SLICE_BYTES // max(1, rows * burst_bytes))
    for first in range(0, nburst, step):
        dst[:, first:first + step] = src[:, first:first + step]


def _words(grid: np.ndarray) -> np.ndarray:
    """A (rows x nburst x burst) byte grid, bursts a multiple of 8 bytes and contiguous, seen as 8-byte words
    (the same memory; numpy allows the view because the last axis is contiguous)."""
    return grid.view(np.uint64)


def _row_ids(view, rows) -> np.ndarray:
    return np.arange(view.shape[0]) if rows is None else rows


def _even_step(starts: np.ndarray) -> Optional[int]:
    """The common step of evenly spaced, non-decreasing starts, else None."""
    if starts.size == 1:
        return 0
    step = int(starts[1] - starts[0])
    if step < 0 or not bool((np.diff(starts) == step).all()):
        return None
    return step


def _gm_rows(view, starts: np.ndarray, geometry: tuple, writeable: bool):
    """Every row's bytes of a GM side as one array view (rows x nburst x burst) when the rows step evenly, else
    None."""
    nburst, burst_bytes, pitch = geometry
    step = _even_step(starts)
    if step is None:
        return None
    first = int(starts[0])
    return as_strided(view[first:], shape=(starts.size, nburst, burst_bytes), strides=(step, pitch, 1),
                      writeable=writeable)


def gm_read(view, starts: np.ndarray, geometry: tuple) -> np.ndarray:
    """Rows x nburst x burst bytes read from GM at each row's start (a strided view where possible)."""
    nburst, burst_bytes, pitch = geometry
    rows = _gm_rows(view, starts, geometry, False)
    if rows is not None:
        return rows
    out = np.empty((starts.size, nburst, burst_bytes), view.dtype)   # row by row: no per-byte index array
    for i, start in enumerate(starts.tolist()):
        copy_bursts(out[i:i + 1], as_strided(view[start:], shape=(1, nburst, burst_bytes),
                                             strides=(0, pitch, 1), writeable=False))
    return out


def gm_write(b, view, starts: np.ndarray, geometry: tuple, data: np.ndarray, modes: list, param: int) -> None:
    """Store (or atomically combine, per row ``modes``) rows x bytes into GM parameter ``param`` at each row's
    start, in block order where rows meet; the overwritten bytes are saved for an undo where it needs them."""
    nburst, burst_bytes, pitch = geometry
    span = (nburst - 1) * pitch + burst_bytes
    count = starts.size
    data3 = data.reshape(count, nburst, burst_bytes)
    rows = _gm_rows(view, starts, geometry, True)
    apart = rows is not None and (count == 1 or int(starts[1] - starts[0]) >= span)
    if apart and all(m is modes[0] for m in modes):
        b.gm.save(param, rows, Ellipsis)
        if modes[0] is None:
            copy_bursts(rows, data3)
        else:
            accumulate(modes[0], rows, data3)
        return
    pattern = _pattern(nburst, burst_bytes, pitch)
    for i in range(count):
        index = pattern + int(starts[i])
        b.gm.save(param, view, index)
        if modes[i] is None:
            view[index] = data3[i].reshape(-1)
        else:
            target = view[index]
            accumulate(modes[i], target.reshape(nburst, burst_bytes), data3[i])
            view[index] = target


def move_batch(kc, instr, src_b, dst_b, fixed, geometry_of, uniform_geometry: bool, index: int) -> Optional[Callable]:
    """The batched data_move, or None when its burst geometry differs between blocks."""
    if not uniform_geometry:
        return None
    src, dst = Side(kc, src_b), Side(kc, dst_b)
    src_param = src_b.key[1] if src_b.is_gm else None
    dst_param = dst_b.key[1] if dst_b.is_gm else None
    gm_param = src_param if dst_param is None else dst_param
    fast = fast_copier(src_b, dst_b, lambda b, starts, geometry: _log_read(b, src_param, starts, geometry))

    def batch(b):
        nburst, burst_bytes, src_pitch, dst_pitch, contiguous = fixed or geometry_of(b.env)
        src_span = (nburst - 1) * src_pitch + burst_bytes
        dst_span = (nburst - 1) * dst_pitch + burst_bytes
        s0, d0 = src.starts(b), dst.starts(b)
        src.check(b, s0, src_span)
        dst.check(b, d0, dst_span)
        total = nburst * burst_bytes
        if fast is None or not fast(b, s0, d0, (nburst, burst_bytes, src_pitch, dst_pitch)):
            data = _read(b, src, src_param, s0, (nburst, burst_bytes, src_pitch))
            _write(b, dst, dst_param, d0, (nburst, burst_bytes, dst_pitch), data)
        b.append((index, total))
        if gm_param is not None:        # the GM side's span per block, for the cost model's L2
            if dst_param is None:
                b.touch(index, gm_param, s0, (nburst, burst_bytes, src_pitch))
            else:
                b.touch(index, gm_param, d0, (nburst, burst_bytes, dst_pitch))
    return batch


def _read(b, side: Side, param, start, geometry: tuple):
    view = b.views[side.op.key]
    if param is None:
        return _local_get(view, b.rows, start, geometry)
    starts = start if isinstance(start, np.ndarray) else np.full(b.active_count(), start, dtype=np.int64)
    _log_read(b, param, starts, geometry)
    return gm_read(view, starts, geometry)


def _log_read(b, param: int, starts: np.ndarray, geometry: tuple) -> None:
    if param in b.gm.tracked:
        _log_bursts(b, param, starts, geometry, READ)


def _write(b, side: Side, param, start, geometry: tuple, data) -> None:
    view = b.views[side.op.key]
    if param is None:
        _local_put(view, b.rows, start, geometry, data)
        return
    starts = start if isinstance(start, np.ndarray) else np.full(b.active_count(), start, dtype=np.int64)
    modes = b.atomic_modes()
    if param in b.gm.tracked:
        _log_bursts(b, param, starts, geometry, ATOMIC if all(m is not None for m in modes) else WRITE)
    gm_write(b, view, starts, geometry, data, modes, param)


def _log_bursts(b, param: int, starts: np.ndarray, geometry: tuple, kind: int) -> None:
    nburst, burst_bytes, pitch = geometry
    bids = b.active_bids()
    if nburst == 1 or nburst > LOGGED_BURSTS:
        span = (nburst - 1) * pitch + burst_bytes
        b.gm.log(param, bids, starts, starts + span, kind)
        return
    lo = (starts[:, None] + np.arange(nburst, dtype=np.int64)[None, :] * pitch).reshape(-1)
    b.gm.log(param, np.repeat(bids, nburst), lo, lo + burst_bytes, kind)
