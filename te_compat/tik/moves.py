"""TIK data movement (``data_move``, ``tensor_mov``) and scalar instructions.

``tensor_mov(dst, src, block_mode, nburst, burst_len, dst_stride, src_stride, ...)`` covers the two forms public TIK
kernels use: block_mode ``''`` moves ``burst_len`` 32-byte blocks per burst between GM / UB / L1 as ``data_move``
does (note the stride order: dst's gap before src's); block_mode ``'m'`` moves whole 16 x 16 fractals of L1OUT
(L0C) into UB, ``burst_len`` and the gaps counted in fractals, with ``relu`` applied to what it moved; a dst dtype
other than src's converts on the way (``copy_matrix_cc_to_ubuf``: f32 -> f16, f16 -> f32, s32 -> f16, relu on the
float forms).  ``deqscale``, ``sid_store_mode``, padding and on-the-fly modes raise a typed error.
"""
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

    def tensor_mov(self, dst, src, block_mode, nburst, burst_len, dst_stride, src_stride, deqscale=None,
                   sid_store_mode=None, relu=False, pad_mode=None, pad_value=None, onthefly_mode=0, *args, **kwargs):
        """TIK ``tensor_mov``: block_mode '' moves 32-byte blocks (GM / UB / L1, as ``data_move``); 'm' moves
        16 x 16 fractals from L1OUT (L0C) to UB, then ``relu`` on them, converting when the dtypes differ."""
        del args, kwargs
        mode = "" if block_mode is None else block_mode
        d, s = operand("dst", dst), operand("src", src)
        unsupported = [name for name, value, default in (("deqscale", deqscale, None), ("sid_store_mode",
                       sid_store_mode, None), ("pad_mode", pad_mode, None), ("pad_value", pad_value, None),
                       ("onthefly_mode", onthefly_mode, 0)) if value is not default and value != default]
        if d.dtype != s.dtype and mode != "m":
            unsupported.append(f"a conversion from {s.dtype} to {d.dtype} outside block_mode 'm'")
        if unsupported:
            raise TikInstructionUnsupportedError(f"tensor_mov with {', '.join(unsupported)} is not supported by "
                                                 f"npusim yet (block_mode 'm' converts f32 -> f16, f16 -> f32 and "
                                                 f"s32 -> f16; fixpipe (L1OUT -> GM) quantizes)")
        if mode == "":
            if relu:
                raise TikInstructionUnsupportedError("tensor_mov: relu is not supported by npusim for block_mode "
                                                     "'' (it applies to L1OUT moves, block_mode 'm')")
            return self.data_move(dst, src, 0, nburst, burst_len, src_stride, dst_stride)
        if mode != "m":
            raise TikSyntaxError(f"tensor_mov: block_mode should be '' or 'm', input block_mode: {block_mode!r}")
        if (s.tensor.scope, d.tensor.scope) != ("L0C", "UB"):
            raise TikScopeError(f"tensor_mov block_mode 'm' moves L1OUT -> UB, input: {s.tensor.tik_scope} -> "
                                f"{d.tensor.tik_scope}")
        unit = self.chip.cube_m * self.chip.cube_n * itemsize(s.dtype) // self.chip.block_bytes  # blocks/fractal
        count = check_range("nburst", nburst, 1, DATA_MOVE_NBURST_MAX)
        length = check_range("burst_len", burst_len, 1, DATA_MOVE_BURST_MAX // unit)
        gaps = [check_range(name, value, 0, DATA_MOVE_GAP_MAX // unit)
                for name, value in (("src_stride", src_stride), ("dst_stride", dst_stride))]
        if d.dtype != s.dtype:      # the converting L0C -> UB copy (crMode from the dtypes), fractal units
            return self._kb.emit("copy_matrix_cc_to_ubuf", dst, src, 0, count, length, gaps[0], gaps[1], bool(relu))
        instr = self.data_move(dst, src, 0, count, length * unit, gaps[0] * unit, gaps[1] * unit)
        if relu:
            self._relu_after_move(dst, count, length * unit, gaps[1] * unit, d.dtype)
        return instr

    def _relu_after_move(self, dst, nburst, burst_blocks, gap_blocks, dtype) -> None:
        """vrelu over the bursts a move just wrote at ``dst`` (``nburst`` of ``burst_blocks`` blocks, ``gap_blocks``
        apart)."""
        if immediate(nburst) is None or immediate(burst_blocks) is None or immediate(gap_blocks) is None:
            raise TikInstructionUnsupportedError("tensor_mov relu with Scalar burst counts is not supported by "
                                                 "npusim yet")
        chip = self.chip
        if chip.supports("vrelu", dtype):
            emit = lambda mask, at, repeat: self._kb.emit("vrelu", mask, at, at, repeat, 1, 1, 8, 8)  # noqa: E731
        elif chip.supports("vmaxs", dtype):
            emit = lambda mask, at, repeat: self._kb.emit("vmaxs", mask, at, at, 0, repeat, 1, 1, 8, 8)  # noqa: E731
        else:
            raise TikInstructionUnsupportedError(f"tensor_mov relu on {dtype} is not supported on {chip.name} "
                                                 f"(no vrelu / vmaxs for it); fixpipe applies relu")
        per_block = chip.block_bytes // itemsize(dtype)
        lanes = chip.lanes(itemsize(dtype))
        for burst in range(nburst):
            start, left = burst * (burst_blocks + gap_blocks) * per_block, burst_blocks * per_block
            while left:
                repeat = min(left // lanes, chip.max_repeat) if left >= lanes else 1
                mask = lanes if left >= lanes else left
                emit(mask, dst[start], repeat)
                start, left = start + repeat * mask, left - repeat * mask

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
