"""TIK's transposes: ``vec_trans_scatter`` / ``vnchwconv`` (16 destination and 16 source block addresses) and
``vtranspose`` (one 16 x 16 matrix of 16-bit elements).  Each checks its immediates with TIK's texts (te.tik
``vnchwconv`` / ``vtranspose``) and emits one instruction of :mod:`npusim.sim.isa.transpose`.
"""
from __future__ import annotations

from npusim.errors.tik import TikDtypeError, TikOverlapError, TikSyntaxError
from npusim.sim.builder import TensorHandle, TensorRef
from npusim.sim.dtypes import itemsize
from npusim.sim.isa.transpose import ADDRESS_LIST_LEN, TRANS_STRIDE_HIGH, TRANSPOSE_EDGE
from te_compat.tik.checks import (check_aligned, check_chip_dtype, check_extent, check_range, check_repeat,
                                  check_scope, immediate, operand)

_TRANSPOSE_DTYPES = ("uint16", "int16", "float16")


def _address_list(name: str, values) -> list:
    if not isinstance(values, (list, tuple)):
        raise TikSyntaxError(f"{name} should be tuple or list")
    if len(values) != ADDRESS_LIST_LEN:
        raise TikSyntaxError(f"there should be {ADDRESS_LIST_LEN} addresses in {name}")
    role = name[:-len("_list")]
    for value in values:
        if not isinstance(value, (TensorHandle, TensorRef)):
            raise TikSyntaxError(f"{role} should be tensor")
    return [operand(f"{name}[{i}]", v) for i, v in enumerate(values)]


class TransposeMixin:
    """``vnchwconv`` / ``vec_trans_scatter`` and ``vtranspose`` on a :class:`~te_compat.tik.Tik`."""

    def vnchwconv(self, dst_high_half, src_high_half, dst_list, src_list, repeat_times, dst_rep_stride,
                  src_rep_stride, name=None):
        """TIK ``vnchwconv``: per repeat, dst_list[i]'s block receives element i of every src_list[j] block, at
        j (16-bit; 32-bit splits each column over two blocks; 8-bit moves the block halves ``*_high_half``
        select).  Every address advances by its rep stride (blocks) per repeat, also when repeat_times == 1."""
        name = name or "vnchwconv"
        for label, flag in (("dst_high_half", dst_high_half), ("src_high_half", src_high_half)):
            if not isinstance(flag, bool):
                raise TikSyntaxError(f"{label} should be bool, input type: {type(flag)}")
        repeat = check_repeat(self.chip, repeat_times)
        for label, value in (("dst_rep_stride", dst_rep_stride), ("src_rep_stride", src_rep_stride)):
            check_range(label, value, 0, TRANS_STRIDE_HIGH)
        dsts, srcs = _address_list("dst_list", dst_list), _address_list("src_list", src_list)
        check_scope(name, dsts + srcs)
        dtype = dsts[0].dtype
        if any(op.dtype != dtype for op in dsts + srcs):
            raise TikDtypeError(f"Intrinsic {name}'s src's dtype should be equal to dst's dtype")
        check_chip_dtype(self.chip, name, "vnchwconv", dtype)
        per_block = self.chip.block_elems(itemsize(dtype))
        for op, stride in [(d, dst_rep_stride) for d in dsts] + [(s, src_rep_stride) for s in srcs]:
            check_aligned(self.chip, op)
            offset, step = immediate(op.offset), immediate(stride)
            if None not in (offset, step, repeat):
                check_extent(op, offset + max(repeat - 1, 1) * step * per_block + per_block - 1)
        eight_bit = itemsize(dtype) == 1      # the halves apply to 8-bit data only (TIK ignores them otherwise)
        return self._kb.emit("vnchwconv", dst_high_half=dst_high_half and eight_bit,
                             src_high_half=src_high_half and eight_bit, dst_list=list(dst_list),
                             src_list=list(src_list), repeat_times=repeat_times, dst_rep_stride=dst_rep_stride,
                             src_rep_stride=src_rep_stride)

    def vec_trans_scatter(self, dst_high_half, src_high_half, dst_list, src_list, repeat_times, dst_rep_stride,
                          src_rep_stride):
        """TIK ``vec_trans_scatter`` (the newer name of :meth:`vnchwconv`)."""
        return self.vnchwconv(dst_high_half, src_high_half, dst_list, src_list, repeat_times, dst_rep_stride,
                              src_rep_stride, name="vec_trans_scatter")

    def vtranspose(self, dst, src):
        """TIK ``vtranspose(dst, src)``: dst = the transpose of the 16 x 16 matrix of 16-bit elements at src."""
        for role, value in (("dst", dst), ("src", src)):
            if not isinstance(value, (TensorHandle, TensorRef)):
                raise TikSyntaxError(f"{role} should be tensor")
        ops = [operand("dst", dst), operand("src", src)]
        count = TRANSPOSE_EDGE * TRANSPOSE_EDGE
        for op in reversed(ops):
            if op.tensor.size < count:
                raise TikSyntaxError(f"elements of {op.role} should be more than {count}")
        if ops[0].dtype != ops[1].dtype or ops[0].dtype not in _TRANSPOSE_DTYPES:
            raise TikDtypeError("dtype of dst and src should be u16u16, s16s16 or f16f16")
        check_scope("vtranspose", ops)
        check_chip_dtype(self.chip, "vtranspose", "vtranspose", ops[0].dtype)
        for op in ops:
            check_aligned(self.chip, op)
            offset = immediate(op.offset)
            if offset is not None:
                check_extent(op, offset + count - 1)
        d_off, s_off = immediate(ops[0].offset), immediate(ops[1].offset)
        if ops[0].tensor.name == ops[1].tensor.name and None not in (d_off, s_off) and d_off != s_off \
                and d_off < s_off + count and s_off < d_off + count:
            raise TikOverlapError("vtranspose not support partially address overlapping")
        return self._kb.emit("vtranspose", dst=dst, src=src)


__all__ = ["TransposeMixin"]
