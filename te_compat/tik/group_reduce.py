"""TIK's per-group reductions ``vcgadd`` / ``vcgmax`` / ``vcgmin`` (one result per block, 8 per repeat) and
``vcpadd`` / ``vec_cpadd`` (one result per pair of adjacent lanes).  Each checks its immediates as TIK does and
emits one instruction of :mod:`npusim.sim.isa.group_reduce`.
"""
from __future__ import annotations

from npusim.sim.dtypes import itemsize
from npusim.sim.geometry import REDUCE_STRIDE_MAX
from npusim.sim.isa.group_reduce import PAIR
from te_compat.tik.checks import (check_aligned, check_chip_dtype, check_extent, check_range, check_repeat,
                                  check_same_dtype, check_scope, immediate, lanes_of, last_lane, operand, span)


def _method(opcode: str, doc: str):
    """The TIK method ``opcode(mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride,
    stride_unit=0)``: one instruction of the same name (stride_unit is accepted and ignored, as before)."""
    def method(self, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride, stride_unit=0):
        return self._group_reduce(opcode, opcode, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride,
                                  src_rep_stride)
    method.__name__ = method.__qualname__ = opcode
    method.__doc__ = f"TIK ``{opcode}``: {doc}."
    return method


class GroupReduceMixin:
    """``vcgadd`` / ``vcgmax`` / ``vcgmin`` / ``vcpadd`` / ``vec_cpadd`` on a :class:`~te_compat.tik.Tik`."""

    def _group_reduce(self, opcode, name, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride,
                      src_rep_stride):
        d, s = operand("dst", dst, 1, dst_rep_stride), operand("src", src, src_blk_stride, src_rep_stride)
        check_scope(name, (d, s))
        check_same_dtype(name, (d, s))
        check_chip_dtype(self.chip, name, opcode, s.dtype)
        check_aligned(self.chip, s)
        if opcode == "vcpadd":        # its results fill whole blocks (Ascend C PairReduceSum: dst 32-byte aligned)
            check_aligned(self.chip, d)
        repeat = check_repeat(self.chip, repeat_times)
        for label, value in (("dst_rep_stride", dst_rep_stride), ("src_blk_stride", src_blk_stride),
                             ("src_rep_stride", src_rep_stride)):
            check_range(label, value, 0, REDUCE_STRIDE_MAX)
        lanes = lanes_of(self.chip, (s,))
        group = PAIR if opcode == "vcpadd" else self.chip.block_elems(itemsize(s.dtype))
        last = last_lane(mask, lanes, 8 * itemsize(s.dtype))
        if last is not None and repeat is not None:
            found = span(self.chip, s, repeat, last)
            if found is not None:
                check_extent(s, found[1])
            d_off, d_rep = immediate(d.offset), immediate(dst_rep_stride)
            if d_off is not None and d_rep is not None:
                check_extent(d, d_off + (repeat - 1) * d_rep * (lanes // group) + last // group)
        return self._kb.emit(opcode, mask=list(mask) if isinstance(mask, tuple) else mask, dst=dst, src=src,
                             repeat_times=repeat_times, dst_rep_stride=dst_rep_stride,
                             src_blk_stride=src_blk_stride, src_rep_stride=src_rep_stride)

    vcgadd = _method("vcgadd", "dst[8r + b] = pairwise-tree sum of block b of repeat r (dst_rep_stride in 8 "
                               "results)")
    vcgmax = _method("vcgmax", "dst[8r + b] = max of block b of repeat r")
    vcgmin = _method("vcgmin", "dst[8r + b] = min of block b of repeat r")
    vcpadd = _method("vcpadd", "dst[i] = src lane 2i + lane 2i+1 per repeat (dst_rep_stride in 128 bytes)")

    def vec_cpadd(self, mask, dst, src, repeat_times, dst_rep_stride, src_rep_stride):
        """TIK ``vec_cpadd(mask, dst, src, repeat_times, dst_rep_stride, src_rep_stride)`` (block stride 1)."""
        return self._group_reduce("vcpadd", "vec_cpadd", mask, dst, src, repeat_times, dst_rep_stride, 1,
                                  src_rep_stride)


__all__ = ["GroupReduceMixin"]
