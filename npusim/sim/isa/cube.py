"""``mmad``: the cube's matrix multiply-accumulate, C (L0C) [+]= A (L0A) x B (L0B).

Layouts (CANN's Mmad docs): A is zZ, fractals of 16 x K0 (K0 = 32 bytes / itemsize) stored row-major inside and
row-major between: ``[M1, K1, 16, K0]``; B is nZ, fractals of K0 x 16 stored column-major inside, row-major
between: ``[K1, N1, 16, K0]``; C is zN, fractals of 16 x 16 row-major inside, column-major between:
``[N1, M1, 16, 16]``.  Only the first ``matrix_k`` of the K1*K0 reduction columns take part (padding is ignored);
whole 16x16 C fractals are written.  Products accumulate in float32 (fp16 inputs) or int32 (8-bit inputs).
``is_bias`` true adds into C's old contents.  Alignment: A and B 512 bytes, C 256 elements.  Float C follows the
chip's overflow mode (saturation: inf -> +-max, NaN -> 0; inf_nan: IEEE).
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_dtype, check_int_range
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.plans import strided_plan
from npusim.sim.isa.saturate import saturating
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_checked, locate

OPERANDS = (OperandSpec("dst_fm", "tensor"), OperandSpec("src_fm", "tensor"), OperandSpec("src_filter", "tensor"),
            OperandSpec("matrix_m", "int"), OperandSpec("matrix_k", "int"), OperandSpec("matrix_n", "int"),
            OperandSpec("is_bias", "bool", False))
_KEYS = {("float16", "float16", "float32"): "f162f32", ("float16", "float16", "float16"): "f162f16",
         ("int8", "int8", "int32"): "s8", ("uint8", "uint8", "int32"): "u8", ("uint8", "uint8", "uint32"): "u8",
         ("uint8", "int8", "int32"): "u8s8"}
FRACTAL = 16


def mmad_key(a: str, b: str, c: str):
    """CANN's mmad dtype key for (A, B, C) dtypes, or None if no such combination exists."""
    return _KEYS.get((a, b, c))


def _semantics(a, b, c_old, m1, k1, n1, k0, k, accumulate, out_dt):
    """C fractals [N1, M1, 16, 16] from A [M1, K1, 16, K0] and B [K1, N1, 16, K0] (flat inputs)."""
    acc = np.float32 if out_dt.kind == "f" else np.int64
    a2 = a.reshape(m1, k1, FRACTAL, k0).transpose(0, 2, 1, 3).reshape(m1 * FRACTAL, k1 * k0)[:, :k]
    b2 = b.reshape(k1, n1, FRACTAL, k0).transpose(0, 3, 1, 2).reshape(k1 * k0, n1 * FRACTAL)[:k, :]
    c = np.matmul(a2.astype(acc), b2.astype(acc))
    c_frac = c.reshape(m1, FRACTAL, n1, FRACTAL).transpose(2, 0, 1, 3).reshape(-1)
    if accumulate:
        c_frac = c_frac + c_old.astype(acc)
    if out_dt.kind == "f":
        return c_frac.astype(out_dt)
    return (c_frac.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32).view(out_dt) if out_dt.itemsize == 4 \
        else c_frac.astype(out_dt)


def compile_mmad(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst_fm", instr.arg("dst_fm"), ("L0C",))
    a = kc.tensor("src_fm", instr.arg("src_fm"), ("L0A",))
    b = kc.tensor("src_filter", instr.arg("src_filter"), ("L0B",))
    key = mmad_key(a.dtype, b.dtype, dst.dtype)
    if key is None:
        raise kc.fail(InvalidOperandError, f"mmad has no {a.dtype} x {b.dtype} -> {dst.dtype} form")
    check_dtype(site, kc.chip, "mmad", key)
    kc.check_static_alignment(a, 512)
    kc.check_static_alignment(b, 512)
    kc.check_static_alignment(dst, 256 * dst.isz)
    dims = [compile_checked(kc, instr.arg(n), _dim_check(site, n)) for n in ("matrix_m", "matrix_k", "matrix_n")]
    bias = kc.expr(instr.arg("is_bias", False))
    if not isinstance(bias, Const):
        raise kc.fail(InvalidOperandError, "is_bias must be a constant")
    accumulate = bool(bias.value)
    k0 = 32 // a.isz
    out_dt = np_dtype(dst.dtype)
    semantics = saturating(spec.semantics, kc.chip, out_dt)
    index = site.instr_index

    def run(ctx):
        m, k, n = (d.value if isinstance(d, Const) else d(ctx.env) for d in dims)
        m1, k1, n1 = -(-m // FRACTAL), -(-k // k0), -(-n // FRACTAL)
        a_plan = strided_plan(1, m1 * k1 * FRACTAL * k0, 0)
        b_plan = strided_plan(1, k1 * n1 * FRACTAL * k0, 0)
        c_plan = strided_plan(1, n1 * m1 * FRACTAL * FRACTAL, 0)
        a_view, a_base = locate(ctx, site, a, a.base, a_plan, aligned=False)
        b_view, b_base = locate(ctx, site, b, b.base, b_plan, aligned=False)
        c_view, c_base = locate(ctx, site, dst, dst.base, c_plan, aligned=False)
        if m and k and n:
            old = c_plan.read(c_view, c_base) if accumulate else None
            c_plan.write(c_view, c_base, semantics(a_plan.read(a_view, a_base), b_plan.read(b_view, b_base),
                                                   old, m1, k1, n1, k0, k, accumulate, out_dt))
        ctx.append((index, (m, k, n)))

    static = InstrStatic(index, spec.opcode, "M", spec.cost_kind, spec.cost_key, a.dtype, text=site.text)
    return CompiledInstr(static, run)


def _dim_check(site, name: str):
    return lambda value: check_int_range(site, name, value, 0, 4095)


ROWS = (
    InstrSpec("mmad", "cube", OPERANDS, compile_mmad, _semantics, "cube", "mmad",
              "C[N1,M1,16,16] (+)= A[M1,K1,16,K0] x B[K1,N1,16,K0] (zZ x nZ -> zN fractals)"),
)
