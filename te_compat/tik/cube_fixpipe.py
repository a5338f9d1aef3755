"""TIK ``fixpipe``: a matmul / conv2d result from L1OUT (L0C) to GM (or UB), dropping the rows that only pad M to
whole fractals, with the optional steps of ``extend_params`` in TIK's order: bias -> element-wise-add -> quantize
-> relu.

src is ``[cburst_num, round_howo, 16]`` (howo = burst_len x 32 bytes / (16 x src itemsize), round_howo = howo
rounded up to 16; bursts ``src_stride`` fractals of 256 elements apart beyond that), dst ``[cburst_num, howo, 16]``
with ``dst_stride`` blocks between bursts.  TIK runs it through UB (its fixpipe moves L1OUT -> UB, runs vector
instructions for bias, conversion and relu, then moves UB -> GM), and so does npusim: L0C -> UB on the chip's
path (the vector pipe on Ascend910 / Ascend310), ``vadd`` of the per-channel bias (an L1 tensor moved L1 -> UB)
and of the element-wise-add tensor (L1, laid out like src), ``vconv`` f32 -> f16 ("fp322fp16") or s32 -> f16 with
a constant scale ("int322fp16", the deq conversion), ``vmaxs`` / ``vmax`` with 0 for relu, and UB -> GM (UB -> UB
for a UB dst).  The UB scratch is taken from what is free of UB where fixpipe is written and freed after it; the
result is moved in chunks of whole bursts (or of rows, when one burst does not fit).  A chip with an L0C -> GM
path and no L0C -> UB path (Ascend910B1) moves a plain fp32 / int32 result directly.  Not modelled: int322fp16
with a Scalar or a per-channel tensor mode_param.
"""
from __future__ import annotations

from npusim.errors.tik import TikInstructionUnsupportedError, TikMemoryError, TikSyntaxError
from npusim.sim.dtypes import itemsize
from npusim.sim.geometry import DATA_MOVE_BURST_MAX, DATA_MOVE_GAP_MAX, DATA_MOVE_NBURST_MAX
from te_compat.tik.cube import buffer_copies
from te_compat.tik.cube_checks import check_need, python_int, tensor_operand, unsupported_combo
from te_compat.tik.cube_checks import combo as combo_name
from te_compat.tik.objects import scope_ubuf

_COMBOS = {("float32", "float32"): None, ("int32", "int32"): None, ("float32", "float16"): "fp322fp16",
           ("int32", "float16"): "int322fp16"}
_KEYS = frozenset({"bias", "quantize_params", "relu", "element-wise-add"})


class _Plan:
    """What one fixpipe does (checked arguments)."""

    def __init__(self, tik, src, dst, cburst, burst_len, dst_stride, src_stride, params):
        self.src_dtype, self.dst_dtype = src.dtype, dst.dtype
        self.cburst, self.dst_stride, self.src_stride = cburst, dst_stride, src_stride
        chip = tik.chip
        self.edge = chip.cube_n
        self.howo = burst_len * chip.block_bytes // itemsize(src.dtype) // self.edge
        self.round_howo = -(-self.howo // chip.cube_m) * chip.cube_m
        self.bias = params.get("bias")
        self.ele = params.get("element-wise-add")
        self.relu = bool(params.get("relu", False))
        quant = params.get("quantize_params")
        self.deqscale = None if quant is None else quant.get("mode_param")


def _check_quantize(combo: str, mode_needed, params: dict):
    quant = params.get("quantize_params")
    if mode_needed is None:
        if quant is not None:
            raise TikSyntaxError(f"extend_params['quantize_params'] should be None when src and dst dtype is {combo}")
        return
    if not params:
        raise TikSyntaxError(f"extend_params should not be None when src and dst dtype is {combo}")
    if quant is None:
        raise TikSyntaxError(f"extend_params 'quantize_params' should not be None when src and dst dtype is {combo}")
    if not isinstance(quant, dict):
        raise TikSyntaxError(f"extend_params['quantize_params'] should be dict, input type is "
                             f"{type(quant).__name__}")
    if "mode" not in quant or "mode_param" not in quant:
        raise TikSyntaxError("extend_params['quantize_params'] dict must contains 'mode' and 'mode_param'")
    mode, scale = quant["mode"], quant["mode_param"]
    if mode not in ("int322fp16", "fp322fp16"):
        raise TikSyntaxError(f"Instruction fixpipe doesn't support with quantize_params 'mode' {mode}.")
    if mode != mode_needed:
        raise TikSyntaxError(f"src.dtype and dst.dtype mismatch with quantize_params 'mode' {mode}.")
    if mode == "fp322fp16" and scale is not None:
        raise TikSyntaxError(f"quantize_params 'mode_param' should be None when src and dst dtype is {combo}")
    if mode == "int322fp16" and (isinstance(scale, bool) or not isinstance(scale, (int, float))):
        if scale is not None:
            raise TikInstructionUnsupportedError("fixpipe int322fp16 with a Scalar or tensor mode_param is not "
                                                 "supported by npusim yet (an immediate float scale is)")
        raise TikSyntaxError("Please specify your quantize_params 'mode_param': immediate/Scalar(float16)/"
                             "Tensor(float16) for deq-mode.")


def _check_element_wise(ele, src_dtype: str, need: int) -> None:
    op = tensor_operand("extend_params 'element-wise-add'", ele, ("L1",), "L1",
                        message="extend_params 'element-wise-add' scope should be L1")
    if op.dtype != src_dtype:
        raise TikSyntaxError("extend_params 'element-wise-add' should have the same dtype with src")
    check_need("extend_params 'element-wise-add'", op, need)


def _check_extend(tik, combo: str, mode_needed, params, src_dtype: str, cburst: int) -> dict:
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise TikSyntaxError(f"extend_params should be dict, input type is {type(params).__name__}")
    if not set(params) <= _KEYS:
        raise TikSyntaxError("input extend_params dict contains invalid key, please check!")
    bias, ele = params.get("bias"), params.get("element-wise-add")
    if bias is not None and ele is not None:
        raise TikSyntaxError("fixpipe doesn't support enable extend_params 'bias' and extend_params "
                             "'element-wise-add' at the same time")
    _check_quantize(combo, mode_needed, params)
    if bias is not None:
        op = tensor_operand("extend_params 'bias'", bias, ("L1",), "L1",
                            message="extend_params bias's scope should be L1")
        if op.dtype != src_dtype:
            raise TikSyntaxError("extend_params 'bias' should have the same dtype with src")
        check_need("extend_params 'bias'", op, cburst * tik.chip.cube_n)
    if "relu" in params:
        if not isinstance(params["relu"], bool):
            raise TikSyntaxError("extend_params 'relu' should be bool type.")
        if params["relu"] and (bias is not None or ele is not None):
            raise TikSyntaxError("Intrinsic fixpipe doesn't support relu when enable element-wise-add or bias, "
                                 "extend_params 'relu' should be False")
        if params["relu"] and mode_needed == "int322fp16":
            raise TikSyntaxError("Intrinsic fixpipe doesn't support relu when quantize int322fp16 and mode_param "
                                 "is scalar or float, extend_params 'relu' should be False ")
    return params


class FixpipeMixin:
    """``fixpipe`` of :class:`~te_compat.tik.Tik`."""

    def fixpipe(self, dst, src, cburst_num, burst_len, dst_stride, src_stride, extend_params=None):
        """TIK ``fixpipe``: L1OUT ``[cburst_num, round_howo, 16]`` -> GM ``[cburst_num, howo, 16]`` (howo from
        burst_len, in 32-byte blocks of src), with bias / quantize (fp322fp16, int322fp16) / relu."""
        d = tensor_operand("dst", dst, ("GM", "UB"), "scope_gm or scope_ubuf", must=True)
        s = tensor_operand("src", src, ("L0C",), "L1_out", must=True)
        combo = (s.dtype, d.dtype)
        if combo not in _COMBOS:
            raise unsupported_combo("fixpipe", combo)
        cburst = python_int("cburst_num", cburst_num, 1, DATA_MOVE_NBURST_MAX)
        python_int("burst_len", burst_len, 2, DATA_MOVE_BURST_MAX)
        if burst_len % 2:
            raise TikSyntaxError(f"burst_len should be even number, input burst_len is {burst_len}")
        python_int("dst_stride", dst_stride, 0, DATA_MOVE_GAP_MAX)
        python_int("src_stride", src_stride, 0, DATA_MOVE_GAP_MAX)
        params = _check_extend(self, combo_name(*combo), _COMBOS[combo], extend_params, s.dtype, cburst)
        plan = _Plan(self, s, d, cburst, burst_len, dst_stride, src_stride, params)
        check_need("src", s, cburst * plan.round_howo * plan.edge)
        if plan.ele is not None:
            _check_element_wise(plan.ele, s.dtype, cburst * plan.round_howo * plan.edge)
        check_need("dst", d, cburst * plan.howo * plan.edge)
        with self.new_stmt_scope():
            _FixpipeWriter(self, plan, dst, src).emit()


class _FixpipeWriter:
    """Emits one fixpipe in chunks of ``group`` bursts x ``rows`` rows through UB."""

    def __init__(self, tik, plan: _Plan, dst, src):
        self.tik, self.plan, self.dst, self.src = tik, plan, dst, src
        self.kb, self.chip = tik._kb, tik.chip
        self.block = self.chip.block_bytes
        self.acc_isz, self.out_isz = itemsize(plan.src_dtype), itemsize(plan.dst_dtype)
        self.direct = ("L0C", "UB") not in self.chip.paths
        if self.direct:
            plain = plan.src_dtype == plan.dst_dtype and plan.bias is None and plan.ele is None and not plan.relu
            if ("L0C", dst.scope) not in self.chip.paths or not plain:
                raise TikInstructionUnsupportedError(f"fixpipe with bias / element-wise-add / quantize / relu on "
                                                     f"{self.chip.name} is not supported by npusim yet (it has no "
                                                     f"L0C -> UB path)")
            self.group, self.rows = min(plan.cburst, DATA_MOVE_NBURST_MAX), plan.howo
            return
        self.group, self.rows = self._chunk()
        count = self.group * self.rows * plan.edge
        self.ub_acc = tik.Tensor(plan.src_dtype, (count,), scope_ubuf, name="fixpipe_ub_acc")
        self.ub_out = self.ub_acc if plan.dst_dtype == plan.src_dtype else \
            tik.Tensor(plan.dst_dtype, (count,), scope_ubuf, name="fixpipe_ub_out")
        self.ub_bias = None if plan.bias is None else \
            tik.Tensor(plan.src_dtype, (self.group * plan.edge,), scope_ubuf, name="fixpipe_ub_bias")
        self.ub_ele = None if plan.ele is None else \
            tik.Tensor(plan.src_dtype, (count,), scope_ubuf, name="fixpipe_ub_ele")
        self.ub_zero = None
        if plan.relu and plan.dst_dtype == "int32":
            lanes = self.chip.lanes(self.out_isz)
            self.ub_zero = tik.Tensor("int32", (lanes,), scope_ubuf, name="fixpipe_ub_zero")
            self.kb.emit("vector_dup", lanes, self.ub_zero, 0, 1, 1, 0)

    def _chunk(self) -> tuple:
        """(bursts, rows) per chunk for the UB that is free here."""
        plan, chip = self.plan, self.chip
        row_bytes = plan.edge * (self.acc_isz + (self.out_isz if plan.dst_dtype != plan.src_dtype else 0) +
                                 (self.acc_isz if plan.ele is not None else 0))
        bias_bytes = plan.edge * self.acc_isz if plan.bias is not None else 0
        reserve = chip.repeat_bytes + 4 * self.block        # the relu zeros and each tensor's alignment
        free = (chip.scope_bytes("UB") - self.tik._tops.get("UB", 0)) // buffer_copies(self.tik) - reserve
        per_burst = plan.howo * row_bytes + bias_bytes
        if free >= per_burst:
            return min(plan.cburst, free // per_burst, DATA_MOVE_NBURST_MAX), plan.howo
        rows = (free - bias_bytes) // row_bytes
        if rows < 1:
            raise TikMemoryError(f"fixpipe needs {row_bytes + bias_bytes + reserve} bytes of UB for its scratch, "
                                 f"but only {free + reserve} are free")
        return 1, rows

    def emit(self) -> None:
        plan, group = self.plan, self.group
        full, tail = divmod(plan.cburst, group)
        if full == 1:
            self._rows(0, group)
        elif full > 1:
            with self.tik.for_range(0, full, name="fixpipe_n") as i:
                self._rows(i * group, group)
        if tail:
            self._rows(full * group, tail)

    def _rows(self, n0, count: int) -> None:
        r0 = 0
        while r0 < self.plan.howo:      # rows chunk only when one burst does not fit UB (count is then 1)
            rows = min(self.rows, self.plan.howo - r0)
            self._chunk_body(n0, count, r0, rows)
            r0 += rows

    def _src_ref(self, n0, r0: int, tensor=None):
        """src (or the element-wise-add tensor, laid out like src) at burst n0, row r0; the burst pitch."""
        plan = self.plan
        pitch = (plan.round_howo + plan.src_stride * plan.edge) * plan.edge   # elements between burst heads
        return (self.src if tensor is None else tensor)[n0 * pitch + r0 * plan.edge], \
            pitch * self.acc_isz // self.block

    def _dst_ref(self, n0, r0: int):
        plan = self.plan
        pitch = plan.howo * plan.edge + plan.dst_stride * self.block // self.out_isz
        return self.dst[n0 * pitch + r0 * plan.edge]

    def _chunk_body(self, n0, count: int, r0: int, rows: int) -> None:
        plan, kb, block = self.plan, self.kb, self.block
        src, src_pitch_blocks = self._src_ref(n0, r0)
        acc_blocks = rows * plan.edge * self.acc_isz // block
        out_blocks = rows * plan.edge * self.out_isz // block
        dst_gap = (plan.howo - rows) * plan.edge * self.out_isz // block + plan.dst_stride
        if self.direct:
            kb.emit("data_move", self._dst_ref(n0, r0), src, 0, count, acc_blocks,
                    src_pitch_blocks - acc_blocks, dst_gap)
            return
        kb.emit("data_move", self.ub_acc, src, 0, count, acc_blocks, src_pitch_blocks - acc_blocks, 0)
        if plan.bias is not None:
            self._add_bias(n0, count, rows)
        elements = count * rows * plan.edge
        if plan.ele is not None:
            ele, _ = self._src_ref(n0, r0, plan.ele)
            kb.emit("data_move", self.ub_ele, ele, 0, count, acc_blocks, src_pitch_blocks - acc_blocks, 0)
            self._vector("vadd", self.ub_acc, self.ub_acc, elements, src1=self.ub_ele)
        if self.ub_out is not self.ub_acc:
            extra = {"deqscale": float(plan.deqscale)} if plan.deqscale is not None else {}
            self._vector("vconv", self.ub_out, self.ub_acc, elements, round_mode="", **extra)
        if plan.relu:
            self._relu(elements)
        kb.emit("data_move", self._dst_ref(n0, r0), self.ub_out, 0, count, out_blocks, 0, dst_gap)

    def _add_bias(self, n0, count: int, rows: int) -> None:
        plan, kb, edge = self.plan, self.kb, self.plan.edge
        kb.emit("data_move", self.ub_bias, plan.bias[n0 * edge], 0, 1, count * edge * self.acc_isz // self.block,
                0, 0)
        row_blocks = edge * self.acc_isz // self.block

        def burst(j):
            done = 0
            while done < rows:
                rep = min(self.chip.max_repeat, rows - done)
                base = (j * rows + done) * edge
                kb.emit("vadd", edge, self.ub_acc[base], self.ub_acc[base], self.ub_bias[j * edge], rep, 1, 1, 1,
                        row_blocks, row_blocks, 0)
                done += rep

        if count == 1:
            burst(0)
        else:
            with self.tik.for_range(0, count, name="fixpipe_bias") as j:
                burst(j)

    def _relu(self, elements: int) -> None:
        if self.ub_zero is None:
            self._vector("vmaxs", self.ub_out, self.ub_out, elements, scalar=0.0)
            return
        lanes = self.chip.lanes(self.out_isz)
        rep_blocks = self.chip.repeat_bytes // self.block
        full, tail = divmod(elements, lanes)
        for start, mask, repeat in self._repeats(full, tail, lanes):
            self.kb.emit("vmax", mask, self.ub_out[start], self.ub_out[start], self.ub_zero, repeat, 1, 1, 1,
                         rep_blocks, rep_blocks, 0)

    def _repeats(self, full: int, tail: int, lanes: int):
        done = 0
        while done < full:
            rep = min(self.chip.max_repeat, full - done)
            yield done * lanes, lanes, rep
            done += rep
        if tail:
            yield full * lanes, tail, 1

    def _vector(self, opcode: str, dst, src, elements: int, src1=None, **extra) -> None:
        """``opcode`` over ``elements`` contiguous elements of dst / src (and src1: a binary instruction)."""
        d_isz, s_isz = itemsize(dst.dtype), itemsize(src.dtype)
        lanes = self.chip.lanes(max(d_isz, s_isz))
        d_rep, s_rep = lanes * d_isz // self.block, lanes * s_isz // self.block
        full, tail = divmod(elements, lanes)
        for start, mask, repeat in self._repeats(full, tail, lanes):
            if src1 is not None:
                self.kb.emit(opcode, mask, dst[start], src[start], src1[start], repeat, 1, 1, 1, d_rep, s_rep, s_rep)
                continue
            self.kb.emit(opcode, mask=mask, dst=dst[start], src=src[start], repeat_times=repeat, dst_blk_stride=1,
                         src_blk_stride=1, dst_rep_stride=d_rep, src_rep_stride=s_rep, **extra)


__all__ = ["FixpipeMixin"]
