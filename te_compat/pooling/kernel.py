"""``PoolWriter``: the vector-unit kernel of a :class:`~te_compat.pooling.plan.PoolPlan`.

Per unit (one band of output rows of one (n, c1) plane), as CANN's pooling schedule runs it on the AI core:

    MTE2: the band's input rows GM -> the slot's UB tile (one data_move, a burst per row, into the columns between
          the padding);
    V:    the tile's padding rows <- the pad value (vector_dup; the padding columns were set once at kernel start,
          no move ever writes them); the accumulator <- the pad value; then for every window tap (i, j) in
          row-major order, accumulator = vmax (MAX) / vadd (AVG) (accumulator, tap), the tap being the tile read
          from row i, column j (one 32-byte block of C0 = 16 float16 per (h, w) position), stepping sw blocks per
          output column and sh tile rows per output row through the instructions' block / repeat strides.  One
          instruction covers 8 output positions per repeat: usually 8 output rows (block stride sh * wp), its
          repeats walking the output columns (repeat stride sw), so a tap of a band of up to 8 rows x 255 columns
          is one instruction; the plan's ``layout`` picks whichever layout needs the fewest instructions
          (:func:`~te_compat.pooling.plan.tap_layout`).  AVG then multiplies by the float16 divisor;
    MTE3: the accumulator -> the output rows in GM.

Pad value and divisor follow CANN 2020 (``pooling2d_process`` / ``pooling2d_avg_mul_factor``): MAX pads with
float16's lowest (-65504) and starts its accumulator there (so a result is max(-65504, taps), as TVM's max
reduction identity gives); AVG pads with 0, sums the taps in float16 one vadd at a time in (i, j) order starting
from 0, then multiplies by float16(1 / count), count being the window's taps inside the input (max(count, 1):
TensorFlow's SAME rule), as a vmuls by one scalar when every window is whole, else a vmul by a divisor row per
distinct count of window rows (CANN's factor vector).  So AVG rounds after every tap and once more at the
multiply (the chip's order), where npusim's scalar path summed in float32 and divided once.

Two UB slots alternate (double buffering): flags per slot V->MTE2 (tile free), MTE2->V (tile loaded), V->MTE3
(result ready), MTE3->V (accumulator free); the units of a block run in pairs whose two loads are issued before
either pair member computes.
"""
from __future__ import annotations

import numpy as np

from npusim.sim import all_of, any_of
from npusim.sim.geometry import DATA_MOVE_NBURST_MAX
from te_compat.schedule import vec
from te_compat.schedule.emitter import Buf
from te_compat.schedule.vec import Loc

from te_compat.pooling.plan import SLOTS

FP16_LOWEST = -65504.0   # CANN's MAX padding (0xFBFF)
TAP_UNROLL = 25          # windows with more taps (5 x 5) loop over window rows in the kernel (code size)


class PoolWriter:
    """Writes the body of one pooling kernel into ``em`` (an Emitter with arenas "slot0", "slot1" and, for a
    per-position AVG divisor, "factor") reading GM tensor ``gm_in`` and writing ``gm_out``."""

    def __init__(self, em, plan, gm_in, gm_out):
        self.em, self.kb, self.plan, self.p = em, em.kb, plan, plan.params
        self.gm_in, self.gm_out = gm_in, gm_out
        self.op = "vmax" if self.p.mode in ("MAX", "GMP") else "vadd"
        self.pad = FP16_LOWEST if self.op == "vmax" else 0.0
        self.tiles = [Buf(em, f"slot{s}", 0, "float16", None) for s in range(SLOTS)]
        self.accs = [Buf(em, f"slot{s}", plan.in_bytes, "float16", None) for s in range(SLOTS)]
        self.factor = Buf(em, "factor", 0, "float16", None) if plan.factor_counts else None
        for opcode in (self.op, "vector_dup", "vmul" if plan.factor_counts else "vmuls"):
            vec.check(em, opcode, "float16")

    # -- whole kernel -------------------------------------------------------------------------------------------
    def emit(self) -> None:
        """Prologue (padding columns, divisor rows, free flags), every block's units, epilogue."""
        kb, plan = self.kb, self.plan
        p = self.p
        if p.left > 0 or p.wp > p.left + p.w_copy:      # padding columns: no move ever writes them
            for tile in self.tiles:
                vec.dup(self.em, Loc(tile), plan.in_bytes // 2, self.pad)
        if self.factor is not None:
            self._factor_rows()
        for slot in range(SLOTS):
            kb.set_flag("V", "MTE2", slot)
            kb.set_flag("MTE3", "V", slot)
        if plan.block_dim == 1:
            self._units(0, plan.per_block)
        elif plan.last_units == plan.per_block:
            self._units(kb.block_idx * plan.per_block, plan.per_block)
        else:
            with kb.if_scope(kb.block_idx < plan.block_dim - 1):
                self._units(kb.block_idx * plan.per_block, plan.per_block)
            with kb.else_scope():
                self._units((plan.block_dim - 1) * plan.per_block, plan.last_units)
        for slot in range(SLOTS):
            kb.wait_flag("V", "MTE2", slot)
            kb.wait_flag("MTE3", "V", slot)

    def _factor_rows(self) -> None:
        """One float16 row of 1 / count per distinct count of window rows (CANN's mean factor vector)."""
        p, c0 = self.p, self.p.c0
        for index, rows in enumerate(self.plan.factor_counts):
            values = [float(np.float16(1.0 / max(rows * p.col_count(x), 1))) for x in range(p.wo)]
            x = 0
            while x < p.wo:
                end = x
                while end < p.wo and values[end] == values[x]:
                    end += 1
                vec.dup(self.em, Loc(self.factor, (index * p.wo + x) * c0), (end - x) * c0, values[x])
                x = end

    def _units(self, start, count: int) -> None:
        """Units ``start`` .. ``start + count - 1`` of this block: in pairs (slot 0, slot 1), then one left over."""
        pairs, odd = divmod(count, 2)
        if pairs:
            with self.kb.for_range(0, pairs) as k:
                first = start + 2 * k
                self._dispatch(self._load, first, 0)
                self._dispatch(self._load, first + 1, 1)
                self._dispatch(self._compute_store, first, 0)
                self._dispatch(self._compute_store, first + 1, 1)
        if odd:
            last = start + 2 * pairs
            self._dispatch(self._load, last, 0)
            self._dispatch(self._compute_store, last, 0)

    def _dispatch(self, step, unit, slot: int) -> None:
        """``step(group, slot, plane, band)`` for ``unit``, inside a branch per band group when there are several."""
        bands = self.plan.bands
        plane, band = (unit, 0) if bands == 1 else (unit // bands, unit % bands)
        groups = self.plan.groups
        if isinstance(band, int):
            groups = [g for g in groups if band in g.bands]
        if len(groups) == 1:
            step(groups[0], slot, plane, band)
            return
        for group in groups:
            with self.kb.if_scope(_member(band, group.bands)):
                step(group, slot, plane, band)

    # -- one unit ---------------------------------------------------------------------------------------------
    def _load(self, g, slot: int, plane, band) -> None:
        p, kb = self.p, self.kb
        kb.wait_flag("V", "MTE2", slot)
        if g.loaded_rows > 0 and p.w_copy > 0:
            first_row = band * (self.plan.band_rows * p.sh) + (g.pad_above - p.top)
            done = 0
            while done < g.loaded_rows:
                rows = min(DATA_MOVE_NBURST_MAX, g.loaded_rows - done)
                src = self.gm_in[((plane * p.h + first_row) + done) * (p.w * p.c0)]
                dst = self.tiles[slot].at(((g.pad_above + done) * p.wp + p.left) * p.c0)
                kb.data_move(dst, src, 0, rows, p.w_copy, p.w - p.w_copy, p.wp - p.w_copy)
                done += rows
        kb.set_flag("MTE2", "V", slot)

    def _compute_store(self, g, slot: int, plane, band) -> None:
        p, kb, em = self.p, self.kb, self.em
        kb.wait_flag("MTE2", "V", slot)
        kb.wait_flag("MTE3", "V", slot)
        row = p.wp * p.c0
        vec.dup(em, Loc(self.tiles[slot]), g.pad_above * row, self.pad)
        vec.dup(em, Loc(self.tiles[slot], (g.in_rows - g.pad_below) * row), g.pad_below * row, self.pad)
        vec.dup(em, Loc(self.accs[slot]), g.rows * p.wo * p.c0, self.pad)
        self._taps(g, slot)
        if self.op == "vadd":
            self._divide(g, slot)
        kb.set_flag("V", "MTE2", slot)
        kb.set_flag("V", "MTE3", slot)
        kb.wait_flag("V", "MTE3", slot)
        dst = self.gm_out[(plane * p.ho + band * self.plan.band_rows) * (p.wo * p.c0)]
        kb.data_move(dst, self.accs[slot].at(0), 0, 1, g.rows * p.wo, 0, 0)
        kb.set_flag("MTE3", "V", slot)

    # -- window taps ------------------------------------------------------------------------------------------
    def _window_rows(self, body) -> None:
        """``body(i)`` for every window row i: unrolled, or a kernel loop for large windows."""
        p = self.p
        if p.kh * p.kw <= TAP_UNROLL:
            for i in range(p.kh):
                body(i)
        else:
            with self.kb.for_range(0, p.kh) as i:
                body(i)

    def _taps(self, g, slot: int) -> None:
        """accumulator op= tap for every window tap (i, j) in row-major order, laid out as ``g.layout`` says."""
        p, per, most = self.p, self.plan.per_repeat, self.plan.max_repeat
        if g.layout == "per_row":
            if g.rows == 1:
                self._window_rows(lambda i: self._row_taps(slot, 0, i))
            else:
                with self.kb.for_range(0, g.rows) as r:
                    self._window_rows(lambda i: self._row_taps(slot, r, i))
            return

        def window_row(i):
            for j in range(p.kw):
                if g.layout == "rows_in_blocks":     # blocks: 8 output rows; repeats: along the output columns
                    for r0 in range(0, g.rows, per):
                        for x0 in range(0, p.wo, most):
                            self._vop(slot, min(per, g.rows - r0) * p.c0, (r0 * p.wo + x0) * p.c0,
                                      ((r0 * p.sh + i) * p.wp + x0 * p.sw + j) * p.c0, min(most, p.wo - x0),
                                      (p.wo, 1), (p.sh * p.wp, p.sw))
                    continue
                for x0 in range(0, p.wo, per):       # blocks: 8 output columns; repeats: over the output rows
                    for r0 in range(0, g.rows, most):
                        self._vop(slot, min(per, p.wo - x0) * p.c0, (r0 * p.wo + x0) * p.c0,
                                  ((r0 * p.sh + i) * p.wp + x0 * p.sw + j) * p.c0, min(most, g.rows - r0),
                                  (1, p.wo), (p.sw, p.sh * p.wp))
        self._window_rows(window_row)

    def _row_taps(self, slot: int, r, i) -> None:
        """Window row ``i``'s taps of output row ``r``: repeats of 8 output columns, one more for a tail."""
        p, per, most = self.p, self.plan.per_repeat, self.plan.max_repeat
        full, tail = divmod(p.wo, per)
        for j in range(p.kw):
            src_row = (r * p.sh + i) * p.wp + j
            for g0 in range(0, full, most):
                self._vop(slot, per * p.c0, (r * p.wo + g0 * per) * p.c0, (src_row + g0 * per * p.sw) * p.c0,
                          min(most, full - g0), (1, per), (p.sw, per * p.sw))
            if tail:
                self._vop(slot, tail * p.c0, (r * p.wo + full * per) * p.c0, (src_row + full * per * p.sw) * p.c0,
                          1, (1, per), (p.sw, per * p.sw))

    def _vop(self, slot: int, mask: int, acc_k, tap_k, repeat: int, acc_strides: tuple, tap_strides: tuple) -> None:
        """accumulator = op(accumulator, tap); strides are (block stride, repeat stride) in blocks."""
        acc, tile = self.accs[slot], self.tiles[slot]
        self.kb.emit(self.op, mask=mask, dst=acc.at(acc_k), src0=acc.at(acc_k), src1=tile.at(tap_k),
                     repeat_times=repeat, dst_blk_stride=acc_strides[0], src0_blk_stride=acc_strides[0],
                     src1_blk_stride=tap_strides[0], dst_rep_stride=acc_strides[1],
                     src0_rep_stride=acc_strides[1], src1_rep_stride=tap_strides[1])

    def _divide(self, g, slot: int) -> None:
        """AVG: the float16 sums times float16(1 / taps inside the input)."""
        p, em = self.p, self.em
        acc = self.accs[slot]
        row = p.wo * p.c0
        if self.factor is None:
            scale = float(np.float16(1.0 / (p.kh * p.kw)))
            vec.flat(em, "vmuls", {"dst": Loc(acc), "src": Loc(acc)}, g.rows * row, scalar=scale)
            return
        first = 0
        for rows_in, length in g.count_runs:
            index = self.plan.factor_counts.index(rows_in)
            at = Loc(acc, first * row)
            vec.rows(em, "vmul", {"dst": at, "src0": at, "src1": Loc(self.factor, index * row)},
                     {"dst": row, "src0": row, "src1": 0}, length, row)
            first += length


def _member(band, members: tuple):
    """Kernel condition: ``band`` is one of ``members``."""
    lo, hi = members[0], members[-1]
    if list(members) == list(range(lo, hi + 1)):
        if lo == hi:
            return band == lo
        return all_of(band >= lo, band <= hi)
    return any_of(*(band == b for b in members))


__all__ = ["FP16_LOWEST", "PoolWriter"]
