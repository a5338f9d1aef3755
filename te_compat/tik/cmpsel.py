"""TIK compare / select and reductions: ``vcmp_*`` (CMPMASK), ``vcmpv_*`` / ``vec_cmpv_*`` (bits to a tensor),
``vsel`` / ``vec_sel``, ``vcadd`` / ``vcmax`` / ``vcmin`` and ``vec_reduce_add`` / ``_max`` / ``_min``."""
from __future__ import annotations

from npusim.errors.tik import TikInstructionUnsupportedError
from npusim.sim.builder import TensorHandle, TensorRef
from npusim.sim.dtypes import itemsize
from npusim.sim.geometry import MASK_WORD_BITS, REDUCE_STRIDE_MAX
from te_compat.tik.checks import (check_chip_dtype, check_extent, check_range, check_repeat, check_same_dtype,
                                  check_scope, immediate, lanes_of, last_lane, operand, span)
from te_compat.tik.objects import CmpMask

CMP_OPS = ("eq", "ne", "lt", "gt", "ge", "le")


def _vcmp(op):
    def method(self, mask, src0, src1, src0_stride, src1_stride):
        ops = [operand("src0", src0, src0_stride, 0), operand("src1", src1, src1_stride, 0)]
        self._vector(f"vcmp_{op}", "vcmp", mask, 1, ops, dict(cmp_op=op, src0=src0, src1=src1,
                                                             src0_blk_stride=src0_stride,
                                                             src1_blk_stride=src1_stride), emit_repeat=False)
        return CmpMask()
    method.__name__ = f"vcmp_{op}"
    method.__doc__ = f"TIK ``vcmp_{op}(mask, src0, src1, src0_stride, src1_stride)``: sets CMPMASK, returns it."
    return method


def _vcmpv(op):
    def method(self, dst, src0, src1, repeat_times, src0_blk_stride, src1_blk_stride, src0_rep_stride,
               src1_rep_stride):
        ops = [operand("src0", src0, src0_blk_stride, src0_rep_stride),
               operand("src1", src1, src1_blk_stride, src1_rep_stride)]
        check_scope(f"vcmpv_{op}", ops + [operand("dst", dst)])
        lanes = lanes_of(self.chip, ops)
        return self._vector(f"vcmpv_{op}", "vcmpv", lanes, repeat_times, ops, dict(
            cmp_op=op, dst=dst, src0=src0, src1=src1, src0_blk_stride=src0_blk_stride,
            src1_blk_stride=src1_blk_stride, src0_rep_stride=src0_rep_stride, src1_rep_stride=src1_rep_stride),
            emit_mask=False)
    method.__name__ = f"vcmpv_{op}"
    return method


def _vec_cmpv(op):
    def method(self, dst, src0, src1, repeat_times, src0_rep_stride, src1_rep_stride):
        return getattr(self, f"vcmpv_{op}")(dst, src0, src1, repeat_times, 1, 1, src0_rep_stride, src1_rep_stride)
    method.__name__ = f"vec_cmpv_{op}"
    return method


class CmpSelMixin:
    """Compare, select and reduce instructions of :class:`~te_compat.tik.Tik`."""

    def vsel(self, mask, mode, dst, sel, src0, src1, repeat_times, dst_blk_stride, src0_blk_stride,
             src1_blk_stride, dst_rep_stride, src0_rep_stride, src1_rep_stride, name=None, mask_mode="normal"):
        """TIK ``vsel``: dst = sel ? src0 : src1 per active lane (sel: a bits tensor or what vcmp_* returned)."""
        del name, mask_mode
        ops = [operand("dst", dst, dst_blk_stride, dst_rep_stride),
               operand("src0", src0, src0_blk_stride, src0_rep_stride)]
        if isinstance(src1, (TensorHandle, TensorRef)):
            ops.append(operand("src1", src1, src1_blk_stride, src1_rep_stride))
        check_range("mode", mode, 0, 2)
        return self._vector("vsel", "vsel", mask, repeat_times, ops, dict(
            mode=mode, dst=dst, sel="CMPMASK" if isinstance(sel, CmpMask) else sel, src0=src0, src1=src1,
            dst_blk_stride=dst_blk_stride, src0_blk_stride=src0_blk_stride, src1_blk_stride=src1_blk_stride,
            dst_rep_stride=dst_rep_stride, src0_rep_stride=src0_rep_stride, src1_rep_stride=src1_rep_stride))

    def vec_sel(self, mask, mode, dst, sel, src0, src1, repeat_times, dst_rep_stride=0, src0_rep_stride=0,
                src1_rep_stride=0):
        """TIK ``vec_sel(mask, mode, dst, sel, src0, src1, repeat_times, *rep_strides)``."""
        return self.vsel(mask, mode, dst, sel, src0, src1, repeat_times, 1, 1, 1, dst_rep_stride,
                         src0_rep_stride, src1_rep_stride)

    # -- per-repeat reductions -----------------------------------------------------------------------------------
    def _reduce(self, opcode, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride):
        per_result = 1 if opcode == "vcadd" else 2
        d, s = operand("dst", dst, 1, dst_rep_stride), operand("src", src, src_blk_stride, src_rep_stride)
        check_scope(opcode, (d, s))
        check_same_dtype(opcode, (d, s))
        check_chip_dtype(self.chip, opcode, opcode, s.dtype)
        repeat = check_repeat(self.chip, repeat_times)
        for name, value in (("dst_rep_stride", dst_rep_stride), ("src_blk_stride", src_blk_stride),
                            ("src_rep_stride", src_rep_stride)):
            check_range(name, value, 0, REDUCE_STRIDE_MAX)
        last = last_lane(mask, lanes_of(self.chip, (s,)), 8 * itemsize(s.dtype))
        if last is not None and repeat is not None:
            found = span(self.chip, s, repeat, last)
            if found is not None:
                check_extent(s, found[1])
            d_off, d_rep = immediate(d.offset), immediate(dst_rep_stride)
            if d_off is not None and d_rep is not None:
                check_extent(d, d_off + ((repeat - 1) * d_rep + 1) * per_result - 1)
        return self._kb.emit(opcode, mask=list(mask) if isinstance(mask, tuple) else mask, dst=dst, src=src,
                             repeat_times=repeat_times, dst_rep_stride=dst_rep_stride,
                             src_blk_stride=src_blk_stride, src_rep_stride=src_rep_stride)

    def vcadd(self, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride):
        """TIK ``vcadd``: dst[r] = pairwise-tree sum of repeat r's active lanes."""
        return self._reduce("vcadd", mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride)

    def vcmax(self, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride):
        """TIK ``vcmax``: (value, index) pair per repeat."""
        return self._reduce("vcmax", mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride)

    def vcmin(self, mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride):
        """TIK ``vcmin``: (value, index) pair per repeat."""
        return self._reduce("vcmin", mask, dst, src, repeat_times, dst_rep_stride, src_blk_stride, src_rep_stride)

    # -- whole reductions ----------------------------------------------------------------------------------------
    def vec_reduce_add(self, mask, dst, src, work_tensor, repeat_times, src_rep_stride):
        """TIK ``vec_reduce_add``: dst[0] = sum of every active lane of every repeat (pairwise trees: per repeat,
        then over the repeat sums, ``lanes`` at a time); ``work_tensor`` holds >= repeat_times elements."""
        repeat = check_repeat(self.chip, repeat_times)
        if repeat is None:
            raise TikInstructionUnsupportedError("vec_reduce_add with a Scalar repeat_times is not supported by "
                                                 "npusim yet")
        if repeat == 1:
            return self.vcadd(mask, dst, src, 1, 1, 1, src_rep_stride)
        self.vcadd(mask, work_tensor, src, repeat, 1, 1, src_rep_stride)
        lanes = self.chip.lanes(itemsize(operand("src", src).dtype))
        count = repeat
        while count > lanes:
            chunks = -(-count // lanes)
            for k in range(chunks):
                self.vcadd(min(lanes, count - k * lanes), work_tensor[k], work_tensor[k * lanes], 1, 1, 1, 0)
            count = chunks
        return self.vcadd(count, dst, work_tensor, 1, 1, 1, 0)

    def vec_reduce_max(self, mask, dst, src, work_tensor, repeat_times, src_rep_stride, cal_index=False):
        """TIK ``vec_reduce_max``: dst[0] = the largest active element (dst[1]: its index when cal_index)."""
        return self._reduce_extreme("vcmax", mask, dst, src, work_tensor, repeat_times, src_rep_stride, cal_index)

    def vec_reduce_min(self, mask, dst, src, work_tensor, repeat_times, src_rep_stride, cal_index=False):
        """TIK ``vec_reduce_min``: dst[0] = the smallest active element (dst[1]: its index when cal_index)."""
        return self._reduce_extreme("vcmin", mask, dst, src, work_tensor, repeat_times, src_rep_stride, cal_index)

    def _reduce_extreme(self, opcode, mask, dst, src, work, repeat_times, src_rep_stride, cal_index):
        repeat = check_repeat(self.chip, repeat_times)
        lanes = self.chip.lanes(itemsize(operand("src", src).dtype))
        if cal_index and repeat != 1:  # the index would need the lane numbers of every level combined
            raise TikInstructionUnsupportedError(f"vec_reduce_{opcode[2:]} with cal_index=True over more than one "
                                                 f"repeat is not supported by npusim yet")
        if repeat == 1:
            return self._reduce(opcode, mask, dst, src, 1, 1, 1, src_rep_stride)
        if repeat is None:
            raise TikInstructionUnsupportedError(f"vec_reduce_{opcode[2:]} with a Scalar repeat_times is not "
                                                 f"supported by npusim yet")
        self._reduce(opcode, mask, work, src, repeat, 1, 1, src_rep_stride)   # (value, index) per repeat
        count, per_pass = repeat, lanes // 2   # values sit at even lanes: half a repeat's lanes per pass
        while count > per_pass:
            chunks = -(-count // per_pass)
            for k in range(chunks):
                self._reduce(opcode, _even_lanes(2 * min(per_pass, count - k * per_pass)), work[2 * k],
                             work[k * lanes], 1, 1, 1, 0)
            count = chunks
        return self._reduce(opcode, _even_lanes(2 * count), dst, work, 1, 1, 1, 0)


def _even_lanes(count: int) -> list:
    """[mask_h, mask_l] selecting lanes 0, 2, 4 ... below ``count``."""
    bits = sum(1 << lane for lane in range(0, count, 2))
    return [bits >> MASK_WORD_BITS, bits & ((1 << MASK_WORD_BITS) - 1)]


for _op in CMP_OPS:
    setattr(CmpSelMixin, f"vcmp_{_op}", _vcmp(_op))
    setattr(CmpSelMixin, f"vcmpv_{_op}", _vcmpv(_op))
    setattr(CmpSelMixin, f"vec_cmpv_{_op}", _vec_cmpv(_op))

__all__ = ["CmpSelMixin"]
