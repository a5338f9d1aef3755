"""Vector instruction helpers: one logical operation over contiguous or row-strided UB ranges, split into as few
instructions as the ISA allows (up to the chip's max_repeat repeats each, the last partial repeat masked).

Operands are :class:`Loc` (a buffer, an element offset, the dtype the instruction sees).  ``flat`` covers n
contiguous elements; ``rows`` covers ``rows`` x ``row_len`` elements with per-operand row strides (0 = every row
reads the same elements) either one instruction per lane-chunk with a repeat per row (when the strides are whole
blocks that fit the stride field) or one short run per row inside a kernel loop, whichever executes fewer
instructions.
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.sim.geometry import DATA_MOVE_BURST_MAX, VECTOR_STRIDE_MAX
from te_compat.schedule.common import UnsupportedPattern, ceil_div, itemsize, lanes_of, plus
from te_compat.schedule.env import ConstArg


@dataclass(frozen=True)
class Loc:
    """Element ``k`` (int or kernel expression) of ``buf`` seen as ``dtype``."""

    buf: object
    k: object = 0
    dtype: str = ""

    @property
    def dt(self) -> str:
        return self.dtype or self.buf.dtype

    def ref(self, extra=0):
        if isinstance(self.buf, ConstArg):
            raise UnsupportedPattern(f"a constant ({self.buf.value!r}) where the instruction reads a UB tensor")
        return self.buf.at(plus(self.k, extra), self.dt)

    def shift(self, extra) -> "Loc":
        return Loc(self.buf, plus(self.k, extra), self.dtype)

    def as_dtype(self, dtype: str) -> "Loc":
        """The same address seen as ``dtype`` (the offset must stay a whole number of new elements)."""
        old, new = itemsize(self.dt), itemsize(dtype)
        if isinstance(self.k, int):
            if (self.k * old) % new:
                raise UnsupportedPattern(f"cannot view element {self.k} of {self.dt} as {dtype}")
            return Loc(self.buf, self.k * old // new, dtype)
        if old % new == 0:
            return Loc(self.buf, self.k * (old // new), dtype)
        return Loc(self.buf, self.k // (new // old), dtype)


def check(em, opcode: str, key: str) -> None:
    """Raise UnsupportedPattern unless the chip has ``opcode`` for ``key``."""
    if not em.chip.supports(opcode, key):
        raise UnsupportedPattern(f"{opcode} does not support {key} on {em.chip.name}")


def _emit(em, opcode: str, locs: dict, offset, mask, repeat: int, strides: dict, extra: dict) -> None:
    kwargs = dict(extra)
    kwargs["mask"] = mask
    kwargs["repeat_times"] = repeat
    for role, loc in locs.items():
        kwargs[role] = loc.ref(offset if not isinstance(offset, dict) else offset[role])
        kwargs[f"{role}_rep_stride"] = strides[role]
    em.kb.emit(opcode, **kwargs)


def flat(em, opcode: str, locs: dict, n: int, **extra) -> None:
    """``opcode`` over ``n`` contiguous elements of every operand (role -> Loc); extra operands as keywords."""
    if n <= 0:
        return
    chip = em.chip
    lanes = lanes_of(chip, *(loc.dt for loc in locs.values()))
    strides = {role: lanes * itemsize(loc.dt) // chip.block_bytes for role, loc in locs.items()}
    full, tail = divmod(n, lanes)
    done = 0
    while done < full:
        repeat = min(chip.max_repeat, full - done)
        _emit(em, opcode, locs, done * lanes, lanes, repeat, strides, extra)
        done += repeat
    if tail:
        _emit(em, opcode, locs, full * lanes, tail, 1, strides, extra)


def _row_strides_ok(chip, locs: dict, strides: dict) -> bool:
    for role, loc in locs.items():
        nbytes = strides[role] * itemsize(loc.dt)
        if nbytes % chip.block_bytes or nbytes // chip.block_bytes > VECTOR_STRIDE_MAX:
            return False
    return True


def _flat_count(chip, n: int, lanes: int) -> int:
    full, tail = divmod(n, lanes)
    return ceil_div(full, chip.max_repeat) + (1 if tail else 0)


def rows(em, opcode: str, locs: dict, strides: dict, nrows: int, row_len: int, **extra) -> None:
    """``opcode`` over ``nrows`` rows of ``row_len`` elements; row r of operand x starts at x + r * strides[x]."""
    if nrows <= 0 or row_len <= 0:
        return
    if nrows == 1:
        flat(em, opcode, locs, row_len, **extra)
        return
    chip = em.chip
    lanes = lanes_of(chip, *(loc.dt for loc in locs.values()))
    by_chunk = ceil_div(row_len, lanes) * ceil_div(nrows, chip.max_repeat)
    by_row = nrows * _flat_count(chip, row_len, lanes)
    if _row_strides_ok(chip, locs, strides) and by_chunk <= by_row:
        _rows_by_chunk(em, opcode, locs, strides, nrows, row_len, lanes, extra)
        return
    with em.kb.for_range(0, nrows) as r:
        shifted = {role: (loc.shift(r * strides[role]) if strides[role] else loc) for role, loc in locs.items()}
        flat(em, opcode, shifted, row_len, **extra)


def _rows_by_chunk(em, opcode, locs, strides, nrows, row_len, lanes, extra) -> None:
    block, max_repeat = em.chip.block_bytes, em.chip.max_repeat
    rep = {role: strides[role] * itemsize(loc.dt) // block for role, loc in locs.items()}
    for c0 in range(0, row_len, lanes):
        mask = min(lanes, row_len - c0)
        for r0 in range(0, nrows, max_repeat):
            offsets = {role: r0 * strides[role] + c0 for role in locs}
            _emit(em, opcode, locs, offsets, mask, min(max_repeat, nrows - r0), rep, extra)


def dup(em, dst: Loc, n: int, value) -> None:
    """dst[0:n] = value (a number or a scalar register); bytes are set through a 16-bit view."""
    if n <= 0:
        return
    if itemsize(dst.dt) == 1:
        if not isinstance(value, (int, float)):
            raise UnsupportedPattern("a byte tensor cannot be filled from a register")
        byte = int(value) & 0xFF
        dst, n, value = dst.as_dtype("uint16"), ceil_div(n, 2), byte * 257
    check(em, "vector_dup", dst.dt)
    chip = em.chip
    lanes = lanes_of(chip, dst.dt)
    stride = lanes * itemsize(dst.dt) // chip.block_bytes
    full, tail = divmod(n, lanes)
    done = 0
    while done < full:
        repeat = min(chip.max_repeat, full - done)
        em.kb.vector_dup(lanes, dst.ref(done * lanes), value, repeat, 1, stride)
        done += repeat
    if tail:
        em.kb.vector_dup(tail, dst.ref(full * lanes), value, 1, 1, stride)


def copy(em, dst: Loc, src: Loc, nbytes: int) -> None:
    """UB -> UB copy of ``nbytes`` (rounded up to whole blocks)."""
    block = em.chip.block_bytes
    burst = ceil_div(nbytes, block)
    while burst > 0:
        part = min(burst, DATA_MOVE_BURST_MAX)
        em.kb.data_move(dst.ref(), src.ref(), 0, 1, part, 0, 0)
        step = part * block // itemsize(dst.dt)
        dst, src, burst = dst.shift(step), src.shift(step), burst - part


def copy_rows(em, dst: Loc, src: Loc, dst_stride: int, src_stride: int, nrows: int, row_len: int) -> None:
    """Row copies (strides in elements; src_stride 0 replicates one row) through a bitwise-or on 16-bit views."""
    isz = itemsize(dst.dt)
    if (row_len * isz) % 2 or (dst_stride * isz) % 2 or (src_stride * isz) % 2:
        raise UnsupportedPattern("row copy of an odd number of bytes")
    d16, s16 = dst.as_dtype("int16"), src.as_dtype("int16")
    check(em, "vor", "int16")
    rows(em, "vor", {"dst": d16, "src0": s16, "src1": s16},
         {"dst": dst_stride * isz // 2, "src0": src_stride * isz // 2, "src1": src_stride * isz // 2},
         nrows, row_len * isz // 2)
