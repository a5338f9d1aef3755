"""``mmad``: the cube's matrix multiply-accumulate, C (L0C) [+]= A (L0A) x B (L0B).

Layouts (CANN's Mmad docs), with the chip's fractal edges FM = ``cube_m``, FN = ``cube_n`` (16 on every modelled
chip) and K0 = one block of elements (``block_bytes / itemsize``: 16 fp16, 32 int8): A is zZ, fractals of FM x K0
stored row-major inside and row-major between: ``[M1, K1, FM, K0]``; B is nZ, fractals of K0 x FN stored
column-major inside, row-major between: ``[K1, N1, FN, K0]``; C is zN, fractals of FM x FN row-major inside,
column-major between: ``[N1, M1, FM, FN]``.  Only the first ``matrix_k`` of the K1*K0 reduction columns take part
(padding is ignored); whole C fractals are written.  Accumulation, fp16 inputs: every product of two halves is
exact in float32; the products of one K0 chunk (16 reduction columns) are summed exactly and rounded once to
float32 (in float64 where an exponent bound shows no step can round, else in integers), and the chunks accumulate
in float32 in K order, as partial sums enter L0C -- an order fixed by the instruction, not by the host's BLAS (its
blocking and thread count would otherwise decide the float32 rounding);
with ``is_bias`` the accumulation starts from C's old contents.  8-bit inputs: exact int32 accumulation (wrapping).  Alignment: A and B one fractal (FM or FN blocks: 512 bytes),
C one fractal of elements (FM x FN = 256).  Float C follows the chip's overflow mode (saturation: inf -> +-max,
NaN -> 0; inf_nan: IEEE).
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_dtype, check_int_range
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.geometry import MMAD_DIM_MAX
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.saturate import saturating, saturator_for
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_checked, locate

try:    # the compiled chunked float16 mmad (setup.py builds it); without it the numpy form below, same bytes
    from npusim.sim.isa._native import mmad_f16_f32 as _native_mmad
except ImportError:     # pragma: no cover - the extension is built in every test environment
    _native_mmad = None

OPERANDS = (OperandSpec("dst_fm", "tensor"), OperandSpec("src_fm", "tensor"), OperandSpec("src_filter", "tensor"),
            OperandSpec("matrix_m", "int"), OperandSpec("matrix_k", "int"), OperandSpec("matrix_n", "int"),
            OperandSpec("is_bias", "bool", False))
_KEYS = {("float16", "float16", "float32"): "f162f32", ("float16", "float16", "float16"): "f162f16",
         ("int8", "int8", "int32"): "s8", ("uint8", "uint8", "int32"): "u8", ("uint8", "uint8", "uint32"): "u8",
         ("uint8", "int8", "int32"): "u8s8"}


def mmad_key(a: str, b: str, c: str):
    """CANN's mmad dtype key for (A, B, C) dtypes, or None if no such combination exists."""
    return _KEYS.get((a, b, c))


def _semantics(a, b, c_old, fractal, blocks, k, accumulate, out_dt):
    """C fractals [N1, M1, FM, FN] from A [M1, K1, FM, K0] and B [K1, N1, FN, K0] (flat inputs); ``fractal`` is
    (FM, FN), ``blocks`` (M1, K1, N1, K0).  Float inputs: per K0 chunk an exact (float64) sum rounded to float32,
    the chunks accumulated in float32 in K order (the module docstring); 8-bit products exactly, in float64
    (|sum| < 2^53 for any K the cube takes)."""
    fm, fn = fractal
    m1, k1, n1, k0 = blocks
    if out_dt.kind == "f":
        fast = _native_sum(a, b, fractal, blocks, k, c_old if accumulate else None)
        if fast is not None:
            return fast if out_dt == np.float32 else fast.astype(out_dt)
        frac = _chunked_float_sum(a, b, fractal, blocks, k, c_old if accumulate else None)
        accumulate = False              # C's old contents started the accumulation
    else:
        a2 = np.empty((m1, fm, k1, k0), np.float64)
        np.copyto(a2, a.reshape(m1, k1, fm, k0).transpose(0, 2, 1, 3))
        a2 = a2.reshape(m1 * fm, k1 * k0)
        b2 = np.empty((k1, k0, n1, fn), np.float64)
        np.copyto(b2, b.reshape(k1, n1, fn, k0).transpose(0, 3, 1, 2))
        b2 = b2.reshape(k1 * k0, n1 * fn)
        if k < k1 * k0:
            a2, b2 = np.ascontiguousarray(a2[:, :k]), b2[:k]
        frac = np.matmul(a2, b2).reshape(m1, fm, n1, fn).transpose(2, 0, 1, 3)
    acc = np.float32
    if out_dt.kind == "f":
        out = np.empty((n1, m1, fm, fn), acc)
        np.copyto(out, frac)
        out = out.reshape(-1)
        if accumulate:
            np.add(out, c_old, out=out)
        return out if out.dtype == out_dt else out.astype(out_dt)
    out = np.empty((n1, m1, fm, fn), np.int64)
    np.copyto(out, frac, casting="unsafe")
    out = out.reshape(-1)
    if accumulate:
        np.add(out, c_old, out=out, casting="unsafe")
    return (out & 0xFFFFFFFF).astype(np.uint32).view(out_dt) if out_dt.itemsize == 4 else out.astype(out_dt)


def _chunked_float_sum(a, b, fractal, blocks, k, c_old=None) -> np.ndarray:
    """[N1, M1, FM, FN] float32: per K0 chunk (the last one cut at ``k``) the exact float64 sum of its products
    rounded to float32, the chunks added in float32 in K order, onto ``c_old`` (C's old contents, flat
    [N1, M1, FM, FN]) when given."""
    fm, fn = fractal
    m1, k1, n1, k0 = blocks
    chunks = -(-k // k0)
    a3 = np.empty((chunks, m1, fm, k0), np.float64)       # per chunk: (M, K0)
    np.copyto(a3, a.reshape(m1, k1, fm, k0)[:, :chunks].transpose(1, 0, 2, 3))
    b3 = np.empty((chunks, k0, n1, fn), np.float64)       # per chunk: (K0, N)
    np.copyto(b3, b.reshape(k1, n1, fn, k0)[:chunks].transpose(0, 3, 1, 2))
    if k % k0:                                            # reduction columns past matrix_k take no part
        a3[-1, ..., k % k0:] = 0                          # (both sides: 0 * inf would be NaN)
        b3[-1, k % k0:] = 0
    partial = np.matmul(a3.reshape(chunks, m1 * fm, k0), b3.reshape(chunks, k0, n1 * fn))
    partial = _exact_where_rounded(a3.reshape(chunks, m1 * fm, k0), b3.reshape(chunks, k0, n1 * fn), partial)
    if c_old is None:
        total, rest = partial[0].astype(np.float32), partial[1:]
    else:
        total = np.empty((m1 * fm, n1 * fn), np.float32)
        np.copyto(total.reshape(m1, fm, n1, fn), np.asarray(c_old).reshape(n1, m1, fm, fn).transpose(1, 2, 0, 3))
        rest = partial
    for chunk in rest:
        total += chunk.astype(np.float32)
    return total.reshape(m1, fm, n1, fn).transpose(2, 0, 1, 3)


def _native_sum(a, b, fractal, blocks, k, c_old):
    """The compiled form of :func:`_chunked_float_sum` for float16 operands with 16 x 16 fractals, flat
    [N1, M1, FM, FN] float32; None where it does not apply (no extension, other shapes, inf or NaN inputs)."""
    m1, k1, n1, k0 = blocks
    if (_native_mmad is None or a.dtype != np.float16 or b.dtype != np.float16 or fractal != (16, 16)
            or k0 != 16):
        return None
    out = np.empty(n1 * m1 * fractal[0] * fractal[1], np.float32)
    old = None if c_old is None else np.ascontiguousarray(c_old, dtype=np.float32).reshape(-1)
    status = _native_mmad(np.ascontiguousarray(a).reshape(-1).view(np.uint16),
                          np.ascontiguousarray(b).reshape(-1).view(np.uint16), old, out, m1, k1, n1, k)
    return out if status == 0 else None


#: chunk sums whose row and column spans (see _spans) add up to more than this may round in float64
_SPAN_LIMIT = 49


def _spans(values: np.ndarray, axis: int) -> np.ndarray:
    """Per chunk and row (or column) of float16-valued float64 ``values`` [chunks, ..., K0 on ``axis``]: with e' the
    binary exponent of each nonzero value's half (subnormals as the least normal), e'max - e'min + 11 bounds the
    bits its values span; -10000 for all zeros."""
    mag = np.abs(values)
    exps = np.frexp(np.maximum(mag, 2.0 ** -14))[1]
    nonzero = mag != 0
    hi = np.where(nonzero, exps, -10000).max(axis=axis)
    lo = np.where(nonzero, exps, 10000).min(axis=axis)
    return np.where(hi > -10000, hi - lo + 11, -10000)


def _exact_where_rounded(a3: np.ndarray, b3: np.ndarray, partial: np.ndarray) -> np.ndarray:
    """``partial`` [chunks, M, N] (float64 chunk sums of a3 [chunks, M, K0] x b3 [chunks, K0, N]) with every sum
    that float64 may have rounded replaced by the exact sum rounded to float32 (values below 2^16 in magnitude,
    multiples of 2^-24: every 16-term sum of products fits 53 bits unless the spans are wide).  Inf or NaN inputs
    keep numpy's IEEE results."""
    if not (np.isfinite(a3).all() and np.isfinite(b3).all()):
        return partial
    wide = _spans(a3, 2)[:, :, None] + _spans(b3, 1)[:, None, :] > _SPAN_LIMIT
    if not wide.any():
        return partial
    partial = partial.astype(np.float32).astype(np.float64)
    for chunk, row, col in zip(*np.nonzero(wide)):
        terms = (int(x * 2.0 ** 24) * int(y * 2.0 ** 24) for x, y in zip(a3[chunk, row], b3[chunk, :, col]))
        partial[chunk, row, col] = _round_f32_scaled(sum(terms))
    return partial


def _round_f32_scaled(count: int) -> float:
    """``count`` * 2^-48 rounded to float32 (round half to even), as a float."""
    mag = abs(count)
    shift = max(mag.bit_length() - 24, 0)
    q, r = divmod(mag, 1 << shift)
    if shift and (r > 1 << (shift - 1) or (r == 1 << (shift - 1) and q & 1)):
        q += 1
    value = float(q << shift) * 2.0 ** -48
    return -value if count < 0 else value


def compile_mmad(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst_fm", instr.arg("dst_fm"), ("L0C",))
    a = kc.tensor("src_fm", instr.arg("src_fm"), ("L0A",))
    b = kc.tensor("src_filter", instr.arg("src_filter"), ("L0B",))
    key = mmad_key(a.dtype, b.dtype, dst.dtype)
    if key is None:
        raise kc.fail(InvalidOperandError, f"mmad has no {a.dtype} x {b.dtype} -> {dst.dtype} form")
    check_dtype(site, kc.chip, "mmad", key)
    fm, fn, block = kc.chip.cube_m, kc.chip.cube_n, kc.chip.block_bytes
    kc.check_static_alignment(a, fm * block)       # one A fractal: FM rows of one block
    kc.check_static_alignment(b, fn * block)       # one B fractal: FN columns of one block
    kc.check_static_alignment(dst, fm * fn * dst.isz)
    dims = [compile_checked(kc, instr.arg(n), _dim_check(site, n)) for n in ("matrix_m", "matrix_k", "matrix_n")]
    bias = kc.expr(instr.arg("is_bias", False))
    if not isinstance(bias, Const):
        raise kc.fail(InvalidOperandError, "is_bias must be a constant")
    accumulate = bool(bias.value)
    k0 = kc.chip.block_elems(a.isz)
    out_dt = np_dtype(dst.dtype)
    semantics = saturating(spec.semantics, kc.chip, out_dt)
    in_place = _in_place_form(a.dtype, b.dtype, out_dt, (fm, fn, k0), saturator_for(kc.chip, out_dt))
    index = site.instr_index
    strided_plan = kc.plans.strided

    def run(ctx):
        m, k, n = (d.value if isinstance(d, Const) else d(ctx.env) for d in dims)
        m1, k1, n1 = -(-m // fm), -(-k // k0), -(-n // fn)
        a_plan = strided_plan(1, m1 * k1 * fm * k0, 0)
        b_plan = strided_plan(1, k1 * n1 * fn * k0, 0)
        c_plan = strided_plan(1, n1 * m1 * fm * fn, 0)
        a_view, a_base = locate(ctx, site, a, a.base, a_plan)
        b_view, b_base = locate(ctx, site, b, b.base, b_plan)
        c_view, c_base = locate(ctx, site, dst, dst.base, c_plan)
        if m and k and n and in_place is not None and c_plan.contiguous:
            if in_place(a_plan.read(a_view, a_base), b_plan.read(b_view, b_base), c_plan.read(c_view, c_base),
                        (m1, k1, n1, k0), k, accumulate):
                ctx.append((index, (m, k, n)))
                return
        if m and k and n:
            old = c_plan.read(c_view, c_base) if accumulate else None
            c_plan.write(c_view, c_base, semantics(a_plan.read(a_view, a_base), b_plan.read(b_view, b_base),
                                                   old, (fm, fn), (m1, k1, n1, k0), k, accumulate, out_dt))
        ctx.append((index, (m, k, n)))

    static = InstrStatic(index, spec.opcode, "M", spec.cost_kind, spec.cost_key, a.dtype, text=site.text)
    return CompiledInstr(static, run, local_only=True)


def _in_place_form(a_dtype: str, b_dtype: str, out_dt, edges: tuple, fix):
    """For float16 x float16 -> float32 with 16-element fractal edges and the extension built: a function
    (a, b, c, blocks, k, accumulate) -> bool that computes the mmad straight into the C view ``c`` (saturating it
    with ``fix`` when old contents were inf or NaN), False when it did not apply (inf or NaN in A or B: the numpy
    form decides those); else None."""
    if (_native_mmad is None or (a_dtype, b_dtype) != ("float16", "float16") or out_dt != np.float32
            or edges != (16, 16, 16)):
        return None

    def run(a, b, c, blocks, k, accumulate) -> bool:
        m1, k1, n1, _ = blocks
        status = _native_mmad(a.view(np.uint16), b.view(np.uint16), c if accumulate else None, c, m1, k1, n1, k)
        if status == 2 and fix is not None:
            c[...] = fix(c.copy())
        return status in (0, 2)
    return run


def _dim_check(site, name: str):
    return lambda value: check_int_range(site, name, value, 0, MMAD_DIM_MAX)


ROWS = (
    InstrSpec("mmad", "cube", OPERANDS, compile_mmad, _semantics, "cube", "mmad",
              "C[N1,M1,FM,FN] (+)= A[M1,K1,FM,K0] x B[K1,N1,FN,K0] (zZ x nZ -> zN fractals, FM = FN = 16)"),
)
