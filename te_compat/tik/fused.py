"""TIK's fused ``vmadd`` / ``vmaddrelu`` (one instruction of :mod:`npusim.sim.isa.fused` each) and the relu-fused
``vaddrelu`` / ``vsubrelu``, in the old ``v*`` forms (block strides) and the ``vec_*`` forms (block stride 1).

``vaddrelu`` / ``vsubrelu`` are vadd / vsub followed by vmaxs(dst, dst, 0) on the same lanes: max(round(a + b), 0)
is what the fused instruction yields (rounding is monotone and keeps 0), so the composition is bit-identical; only
the cycle estimate counts two instructions.
"""
from __future__ import annotations

from npusim.errors.tik import TikDtypeError
from te_compat.tik.checks import operand
from te_compat.tik.vector import _binary_new, _binary_old


class FusedMixin:
    """``vmadd`` / ``vmaddrelu`` / ``vaddrelu`` / ``vsubrelu`` and their ``vec_*`` forms on a
    :class:`~te_compat.tik.Tik`."""

    def _relu_fused(self, opcode, mask, dst, src0, src1, repeat_times, strides):
        dst_blk, src0_blk, src1_blk, dst_rep, src0_rep, src1_rep = strides
        dtype = operand("dst", dst).dtype
        if not self.chip.supports("vmaxs", dtype):
            raise TikDtypeError(f"{opcode}relu doesn't support {dtype} on {self.chip.name}")
        getattr(self, opcode)(mask, dst, src0, src1, repeat_times, *strides)
        return self.vmaxs(mask, dst, dst, 0, repeat_times, dst_blk, dst_blk, dst_rep, dst_rep)


def _fused_old(opcode):
    plain = _binary_old(opcode)          # vmadd / vmaddrelu: one instruction, checked as the binary ones are

    def method(self, mask, dst, src0, src1, repeat_times, dst_blk_stride, src0_blk_stride, src1_blk_stride,
               dst_rep_stride, src0_rep_stride, src1_rep_stride, stride_unit=0):
        del stride_unit   # ignored on v100 (te.tik sets it to 0 on Ascend310 / Ascend910)
        strides = (dst_blk_stride, src0_blk_stride, src1_blk_stride, dst_rep_stride, src0_rep_stride,
                   src1_rep_stride)
        if opcode in ("vaddrelu", "vsubrelu"):
            return self._relu_fused(opcode[:-len("relu")], mask, dst, src0, src1, repeat_times, strides)
        return plain(self, mask, dst, src0, src1, repeat_times, *strides)
    method.__name__ = opcode
    method.__doc__ = f"TIK ``{opcode}(mask, dst, src0, src1, repeat_times, *blk_strides, *rep_strides)``."
    return method


for _op in ("vmadd", "vmaddrelu", "vaddrelu", "vsubrelu"):
    setattr(FusedMixin, _op, _fused_old(_op))
    setattr(FusedMixin, "vec_" + _op[1:], _binary_new(_op))

__all__ = ["FusedMixin"]
