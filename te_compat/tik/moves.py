"""TIK data movement (``data_move``; ``tensor_mov`` is not modelled yet) and scalar instructions."""
from __future__ import annotations

from npusim.errors.tik import TikDtypeError, TikInstructionUnsupportedError, TikScopeError, TikSyntaxError
from npusim.sim.builder import E, raw
from npusim.sim.dtypes import itemsize
from npusim.sim.geometry import DATA_MOVE_BURST_MAX, DATA_MOVE_GAP_MAX, DATA_MOVE_NBURST_MAX, DATA_MOVE_SID_MAX
from npusim.sim.kernel import BinOp, Cast, UnOp
from te_compat.tik.checks import check_aligned, check_extent, check_range, immediate, operand
from te_compat.tik.objects import TikScalar


class MoveMixin:
    """``data_move`` and the scalar instructions of :class:`~te_compat.tik.Tik`."""

    def data_move(self, dst, src, sid, nburst, burst, src_stride, dst_stride, *args, **argv):
        """TIK ``data_move``: ``nburst`` bursts of ``burst`` blocks (32 B) from src to dst; strides are gaps
        (tail to next head) in blocks; GM->UB/L1, UB->GM, UB->UB ... as the chip's paths allow."""
        del args, argv
        d, s = operand("dst", dst), operand("src", src)
        if d.dtype != s.dtype:
            raise TikDtypeError(f"data_move: dtype of dst and src should be the same, input dst dtype: {d.dtype}, "
                                f"src dtype: {s.dtype}")
        if (s.tensor.scope, d.tensor.scope) not in self.chip.paths:
            raise TikScopeError(f"data_move: moving from {s.tensor.tik_scope} to {d.tensor.tik_scope} is not "
                                f"supported on {self.chip.name}")
        check_range("sid", sid, 0, DATA_MOVE_SID_MAX)
        count = check_range("nburst", nburst, 1, DATA_MOVE_NBURST_MAX)
        length = check_range("burst", burst, 1, DATA_MOVE_BURST_MAX)
        gaps = {"src": check_range("src_stride", src_stride, 0, DATA_MOVE_GAP_MAX),
                "dst": check_range("dst_stride", dst_stride, 0, DATA_MOVE_GAP_MAX)}
        for op in (d, s):
            check_aligned(self.chip, op)
            self._check_move_extent(op, count, length, gaps[op.role])
        return self._kb.emit("data_move", dst, src, sid, nburst, burst, src_stride, dst_stride)

    def _check_move_extent(self, op, count, length, gap) -> None:
        offset = immediate(op.offset)
        if None in (offset, count, length, gap):
            return
        block = self.chip.block_bytes
        blocks = count * length + (count - 1) * gap if count > 1 else length
        size = itemsize(op.dtype)
        need_last = offset + blocks * block // size - 1
        if op.tensor.scope == "GM":  # GM bounds are rounded up to whole blocks (what the hardware reads)
            have = -(-op.tensor.size * size // block) * block // size
            if need_last >= have:
                from npusim.errors.tik import TikTensorOverflowError
                raise TikTensorOverflowError(f"{op.kind} tensor overflow, instruction need {need_last + 1} but "
                                             f"only {have}")
            return
        check_extent(op, need_last)

    def tensor_mov(self, dst, src, block_mode, nburst, burst_len, dst_stride, src_stride, *args, **kwargs):
        """TIK ``tensor_mov``: L0C/L1 paths, not modelled by npusim yet."""
        raise TikInstructionUnsupportedError("tensor_mov (L1/L0C moves) is not supported by npusim yet; use "
                                             "data_move for GM/UB/L1 moves")

    def set_atomic_add(self, mode):
        """TIK ``set_atomic_add(mode)``: 1 (float32) / 2 (float16): later moves into GM add to it; 0: overwrite."""
        if immediate(mode) == 0:
            return self._kb.emit("set_atomic_none")
        from npusim.sim.isa.atomic import TIK_MODES
        from te_compat.tik.checks import check_chip_dtype
        check_chip_dtype(self.chip, "set_atomic_add", "set_atomic_add", TIK_MODES.get(immediate(mode), str(mode)))
        return self._kb.emit("set_atomic_add", mode)

    # -- scalar instructions -------------------------------------------------------------------------------------
    def scalar_conv(self, round_mode, dst, src):
        """TIK ``scalar_conv``: dst = src converted to dst's dtype (the simulator rounds to nearest)."""
        _scalar_dst("scalar_conv", dst).set_as(E(Cast(dst.dtype, raw(src))))

    def scalar_max(self, dst, src0, src1):
        """TIK ``scalar_max``: dst = max(src0, src1)."""
        _scalar_dst("scalar_max", dst).set_as(E(BinOp("max", raw(src0), raw(src1))))

    def scalar_min(self, dst, src0, src1):
        """TIK ``scalar_min``: dst = min(src0, src1)."""
        _scalar_dst("scalar_min", dst).set_as(E(BinOp("min", raw(src0), raw(src1))))

    def scalar_abs(self, dst, src):
        """TIK ``scalar_abs``: dst = |src|."""
        _scalar_dst("scalar_abs", dst).set_as(E(UnOp("abs", raw(src))))

    def scalar_sqrt(self, dst, src):
        """TIK ``scalar_sqrt``: dst = sqrt(src)."""
        _scalar_dst("scalar_sqrt", dst).set_as(E(UnOp("sqrt", raw(src))))


def _scalar_dst(name: str, dst) -> TikScalar:
    if not isinstance(dst, TikScalar):
        raise TikSyntaxError(f"{name}: dst should be a Scalar, input type: {type(dst).__name__}")
    return dst


__all__ = ["MoveMixin"]
