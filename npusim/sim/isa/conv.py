"""``vconv``: per-lane dtype conversion with a rounding mode (and s32->f16 dequantisation with ``deqscale``).

Lanes per repeat follow the wider operand (64 for f32<->f16, 128 for u8->f16); each operand advances by its own
32-byte blocks, so a u8 source uses 4 blocks per repeat while its f16 destination uses 8.  The conversion key
checked against the chip is CANN's intrinsic name, e.g. ``f322f16``, ``f162s32r``, ``f322f16o``, ``deq``.
Float results follow the chip's overflow mode: saturated (inf -> +-max, NaN -> 0, so f32 1e6 -> f16 65504) in
saturation mode, IEEE in inf_nan mode; float->int conversions always saturate.
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_dtype
from npusim.sim.dtypes import SHORT_NAMES, np_dtype
from npusim.sim.expr import Const
from npusim.sim.isa.batch_vector import conv_batch
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.plans import check_overlap
from npusim.sim.isa.rounding import ROUND_MODE_NAMES, convert
from npusim.sim.isa.saturate import saturating
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import (VectorShape, check_static_access, check_static_overlap, lanes_for, locate,
                                   vector_operands)

OPERANDS = vector_operands(("dst", "src"), extra_before=(OperandSpec("round_mode", "choice", "",
                                                                     tuple(ROUND_MODE_NAMES)),)) + (
    OperandSpec("deqscale", "scalar", None),)


def conversion_key(src: str, dst: str, mode: str, deq: bool) -> str:
    """CANN's vconv intrinsic suffix for a conversion, e.g. ("float32", "float16", "o") -> "f322f16o"."""
    if deq:
        return "deq"
    return f"{SHORT_NAMES.get(src, src)}2{SHORT_NAMES.get(dst, dst)}{mode}"


def _semantics(values: np.ndarray, src: np.dtype, dst: np.dtype, mode: str, deqscale) -> np.ndarray:
    return convert(values, src, dst, mode, deqscale)


def compile_vconv(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"), ("UB",))
    src = kc.tensor("src", instr.arg("src"), ("UB",))
    mode_name = instr.arg("round_mode", "")
    if mode_name is None:
        mode_name = ""
    if not isinstance(mode_name, str) or mode_name.lower() not in ROUND_MODE_NAMES:
        raise kc.fail(InvalidOperandError, f"round_mode {mode_name!r} is not one of {sorted(ROUND_MODE_NAMES)}")
    mode = ROUND_MODE_NAMES[mode_name.lower()]
    deq_value = instr.arg("deqscale")
    deqscale = None if deq_value is None else compile_deq_scale(kc, deq_value, "deqscale")
    key = conversion_key(src.dtype, dst.dtype, mode, deqscale is not None)
    if deqscale is not None and (src.dtype, dst.dtype) != ("int32", "float16"):
        raise kc.fail(InvalidOperandError, f"deqscale applies to int32 -> float16 only, not {src.dtype} -> "
                                           f"{dst.dtype}")
    check_dtype(site, kc.chip, "vconv", key)
    for op in (dst, src):
        kc.check_static_alignment(op)
    shape = VectorShape(kc, instr, (dst, src), lanes_for(kc.chip, (dst, src)))
    if shape.static_plans is not None:
        check_static_access(kc, (dst, src), shape.static_plans[1])
        check_static_overlap(kc, dst, (src,), shape.static_plans[1])
    src_dt, dst_dt = np_dtype(src.dtype), np_dtype(dst.dtype)
    semantics = saturating(spec.semantics, kc.chip, dst_dt)
    index = site.instr_index
    align = kc.chip.block_bytes

    def run(ctx):
        repeat, (dst_plan, src_plan) = shape.plans(ctx.env)
        dst_view, dst_base = locate(ctx, site, dst, dst.base, dst_plan, align)
        src_view, src_base = locate(ctx, site, src, src.base, src_plan, align)
        check_overlap(site, dst, dst_base, dst_plan, src, src_base, src_plan, elementwise=True)
        values = src_plan.read(src_view, src_base)
        dst_plan.write(dst_view, dst_base, semantics(values, src_dt, dst_dt, mode, deqscale))
        ctx.append((index, repeat))

    wider = max(src.dtype, dst.dtype, key=lambda d: np_dtype(d).itemsize)      # prices the repeat (per-dtype cost)
    static = InstrStatic(index, spec.opcode, "V", spec.cost_kind, spec.cost_key, wider, text=site.text)
    batch = conv_batch(kc, instr, dst, src, shape, semantics, (src_dt, dst_dt, mode, deqscale), index)
    return CompiledInstr(static, run, batch=batch, local_only=True)


ROWS = (
    InstrSpec("vconv", "vector_conv", OPERANDS, compile_vconv, _semantics, "vector", "vconv",
              "dst = convert(src) with round_mode (r a f c z o); float->int saturates, float results follow the "
              "overflow mode (saturation: f32->f16 overflow gives 65504); deqscale: f16(src * deqscale)"),
)


def compile_deq_scale(kc: CompileContext, value, name: str) -> float:
    """A dequantisation scale operand: a constant, rounded to float16 as the hardware holds it."""
    compiled = kc.expr(value)
    if not isinstance(compiled, Const):
        raise kc.fail(InvalidOperandError, f"{name} must be a constant")
    with np.errstate(over="ignore"):
        return float(np.float16(compiled.value))
