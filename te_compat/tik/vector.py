"""TIK's vector instructions (UB only), both forms: ``vec_*`` (block stride fixed at 1) and the older ``v*`` with
block strides.  Each checks its immediates as TIK does (:mod:`te_compat.tik.checks`) and emits one instruction of
the simulator's ISA (same name as the old form).
"""
from __future__ import annotations

from npusim.sim.dtypes import itemsize
from npusim.errors.tik import TikOperandRangeError
from npusim.sim.geometry import VECTOR_STRIDE_MAX
from npusim.sim.isa.conv import conversion_key
from npusim.sim.isa.rounding import ROUND_MODE_NAMES
from te_compat.tik.checks import (check_aligned, check_chip_dtype, check_extent, check_overlap, check_range,
                                  check_repeat, check_same_dtype, check_scope, lanes_of, last_lane, operand, span)

BINARY = ("vadd", "vsub", "vmul", "vdiv", "vmax", "vmin", "vand", "vor", "vmla")
UNARY = ("vabs", "vexp", "vln", "vrec", "vsqrt", "vrsqrt", "vrelu", "vnot")
WITH_SCALAR = ("vadds", "vmuls", "vmaxs", "vmins", "vaxpy")
HIGH_PRECISION = ("vec_rec_high_preci", "vec_rsqrt_high_preci", "vec_ln_high_preci", "vec_exp_high_preci",
                  "vec_sqrt_high_preci")


class VectorChecks:
    """The common path of every vector instruction: checks, then one emit."""

    def _vector(self, opname: str, opcode: str, mask, repeat, ops, args: dict, *, same_dtype=True, overlap=True,
                dtype_key=None, emit_mask=True, emit_repeat=True):
        chip = self.chip
        check_scope(opname, ops)
        if same_dtype:
            check_same_dtype(opname, ops)
        check_chip_dtype(chip, opname, opcode, dtype_key or ops[0].dtype)
        repeat_n = check_repeat(chip, repeat)
        for op in ops:
            for field, value in (("blk_stride", op.blk), ("rep_stride", op.rep)):
                check_range(f"{op.role}_{field}", value, 0, VECTOR_STRIDE_MAX)
            check_aligned(chip, op)
        lanes = lanes_of(chip, ops)
        last = last_lane(mask, lanes, 8 * max(itemsize(op.dtype) for op in ops))
        if last is not None and repeat_n is not None:
            for op in ops:
                found = span(chip, op, repeat_n, last)
                if found is not None:
                    check_extent(op, found[1])
            if overlap:
                dsts = [op for op in ops if op.kind == "dst"]
                for src in (op for op in ops if op.kind == "src"):
                    for dst in dsts:
                        check_overlap(chip, opname, dst, src, repeat_n, last)
        if emit_mask:
            args = dict(args, mask=list(mask) if isinstance(mask, tuple) else mask)
        if emit_repeat:
            args = dict(args, repeat_times=repeat)
        return self._kb.emit(opcode, **args)


def _binary_old(opcode):
    def method(self, mask, dst, src0, src1, repeat_times, dst_blk_stride, src0_blk_stride, src1_blk_stride,
               dst_rep_stride, src0_rep_stride, src1_rep_stride):
        ops = [operand("dst", dst, dst_blk_stride, dst_rep_stride), operand("src0", src0, src0_blk_stride,
               src0_rep_stride), operand("src1", src1, src1_blk_stride, src1_rep_stride)]
        return self._vector(opcode, opcode, mask, repeat_times, ops, dict(
            dst=dst, src0=src0, src1=src1, dst_blk_stride=dst_blk_stride, src0_blk_stride=src0_blk_stride,
            src1_blk_stride=src1_blk_stride, dst_rep_stride=dst_rep_stride, src0_rep_stride=src0_rep_stride,
            src1_rep_stride=src1_rep_stride), overlap=opcode != "vmla")
    method.__name__ = opcode
    method.__doc__ = f"TIK ``{opcode}(mask, dst, src0, src1, repeat_times, *blk_strides, *rep_strides)``."
    return method


def _binary_new(opcode):
    def method(self, mask, dst, src0, src1, repeat_times, dst_rep_stride, src0_rep_stride, src1_rep_stride):
        return getattr(self, opcode)(mask, dst, src0, src1, repeat_times, 1, 1, 1, dst_rep_stride,
                                     src0_rep_stride, src1_rep_stride)
    method.__name__ = "vec_" + opcode[1:]
    method.__doc__ = f"TIK ``vec_{opcode[1:]}(mask, dst, src0, src1, repeat_times, *rep_strides)`` (block stride 1)."
    return method


def _unary_old(opcode):
    def method(self, mask, dst, src, repeat_times, dst_blk_stride, src_blk_stride, dst_rep_stride, src_rep_stride):
        ops = [operand("dst", dst, dst_blk_stride, dst_rep_stride), operand("src", src, src_blk_stride,
                                                                            src_rep_stride)]
        return self._vector(opcode, opcode, mask, repeat_times, ops, dict(
            dst=dst, src=src, dst_blk_stride=dst_blk_stride, src_blk_stride=src_blk_stride,
            dst_rep_stride=dst_rep_stride, src_rep_stride=src_rep_stride))
    method.__name__ = opcode
    return method


def _unary_new(opcode):
    def method(self, mask, dst, src, repeat_times, dst_rep_stride, src_rep_stride):
        return getattr(self, opcode)(mask, dst, src, repeat_times, 1, 1, dst_rep_stride, src_rep_stride)
    method.__name__ = "vec_" + opcode[1:]
    return method


def _high_precision(name):
    opcode = "v" + name[len("vec_"):-len("_high_preci")]

    def method(self, mask, dst, src, work_tensor, repeat_times, dst_rep_stride, src_rep_stride):
        del work_tensor  # the simulator rounds once, to the dtype: already the high-precision result
        return getattr(self, opcode)(mask, dst, src, repeat_times, 1, 1, dst_rep_stride, src_rep_stride)
    method.__name__ = name
    return method


def _scalar_old(opcode):
    def method(self, mask, dst, src, scalar, repeat_times, dst_blk_stride, src_blk_stride, dst_rep_stride,
               src_rep_stride, mask_mode="normal"):
        del mask_mode
        ops = [operand("dst", dst, dst_blk_stride, dst_rep_stride), operand("src", src, src_blk_stride,
                                                                            src_rep_stride)]
        return self._vector(opcode, opcode, mask, repeat_times, ops, dict(
            dst=dst, src=src, scalar=scalar, dst_blk_stride=dst_blk_stride, src_blk_stride=src_blk_stride,
            dst_rep_stride=dst_rep_stride, src_rep_stride=src_rep_stride), overlap=opcode != "vaxpy")
    method.__name__ = opcode
    return method


def _scalar_new(opcode):
    def method(self, mask, dst, src, scalar, repeat_times, dst_rep_stride, src_rep_stride):
        return getattr(self, opcode)(mask, dst, src, scalar, repeat_times, 1, 1, dst_rep_stride, src_rep_stride)
    method.__name__ = "vec_" + opcode[1:]
    return method


class VectorMixin(VectorChecks):
    """``vadd``/``vec_add`` ... ``vector_dup``/``vec_dup``, ``vconv``/``vec_conv`` on a :class:`~te_compat.tik.Tik`."""

    def vector_dup(self, mask, dst, scalar, repeat_times, dst_blk_stride, dst_rep_stride, stride_unit=0):
        """TIK ``vector_dup(mask, dst, scalar, repeat_times, dst_blk_stride, dst_rep_stride)``."""
        del stride_unit
        ops = [operand("dst", dst, dst_blk_stride, dst_rep_stride)]
        return self._vector("vector_dup", "vector_dup", mask, repeat_times, ops, dict(
            dst=dst, scalar=scalar, dst_blk_stride=dst_blk_stride, dst_rep_stride=dst_rep_stride))

    def vec_dup(self, mask, dst, scalar, repeat_times, dst_rep_stride):
        """TIK ``vec_dup(mask, dst, scalar, repeat_times, dst_rep_stride)``."""
        return self.vector_dup(mask, dst, scalar, repeat_times, 1, dst_rep_stride)

    def vconv(self, mask, round_mode, dst, src, repeat_times, dst_blk_stride, src_blk_stride, dst_rep_stride,
              src_rep_stride, deqscale=None, ldst_high_half=False, stride_unit=0):
        """TIK ``vconv``: dst = convert(src) with ``round_mode`` ('', 'none', 'round', 'floor', 'ceil',
        'away-zero', 'to-zero', 'odd'); float->int saturates; deq with ``deqscale``."""
        del stride_unit
        if ldst_high_half:
            from npusim.errors.tik import TikInstructionUnsupportedError
            raise TikInstructionUnsupportedError("vconv ldst_high_half=True is not supported by npusim yet")
        ops = [operand("dst", dst, dst_blk_stride, dst_rep_stride), operand("src", src, src_blk_stride,
                                                                            src_rep_stride)]
        key = _conv_key(ops[1].dtype, ops[0].dtype, round_mode, deqscale)
        return self._vector("vconv", "vconv", mask, repeat_times, ops, dict(
            round_mode=str(round_mode or "").lower(), dst=dst, src=src, dst_blk_stride=dst_blk_stride,
            src_blk_stride=src_blk_stride, dst_rep_stride=dst_rep_stride, src_rep_stride=src_rep_stride,
            **({} if deqscale is None else {"deqscale": deqscale})), same_dtype=False, overlap=False, dtype_key=key)

    def vec_conv(self, mask, round_mode, dst, src, repeat_times, dst_rep_stride, src_rep_stride, deqscale=None,
                 ldst_high_half=False):
        """TIK ``vec_conv(mask, round_mode, dst, src, repeat_times, dst_rep_stride, src_rep_stride)``."""
        return self.vconv(mask, round_mode, dst, src, repeat_times, 1, 1, dst_rep_stride, src_rep_stride,
                          deqscale, ldst_high_half)


def _conv_key(src: str, dst: str, round_mode, deqscale) -> str:
    """The chip's vconv support key ("f162s32r", "s82f16", "deq" ...)."""
    mode = ROUND_MODE_NAMES.get(str(round_mode or "").lower())
    if mode is None:
        raise TikOperandRangeError(f"round_mode should be one of '', 'none', 'round', 'floor', 'ceil', 'away-zero', "
                                   f"'to-zero', 'odd', input round_mode: {round_mode!r}")
    return conversion_key(src, dst, mode, deqscale is not None)


for _op in BINARY:
    setattr(VectorMixin, _op, _binary_old(_op))
    setattr(VectorMixin, "vec_" + _op[1:], _binary_new(_op))
for _op in UNARY:
    setattr(VectorMixin, _op, _unary_old(_op))
    setattr(VectorMixin, "vec_" + _op[1:], _unary_new(_op))
for _op in WITH_SCALAR:
    setattr(VectorMixin, _op, _scalar_old(_op))
    setattr(VectorMixin, "vec_" + _op[1:], _scalar_new(_op))
for _name in HIGH_PRECISION:
    setattr(VectorMixin, _name, _high_precision(_name))

__all__ = ["VectorMixin"]
