"""``copy_matrix_cc_to_gm``: the FIX pipe's move of a matmul result out of L0C (Atlas A2, dav-c220), converting on
the way.

On the A2 cube core (no UB) the result of ``mmad`` leaves L0C through the fixpipe: CANN's ``Fixpipe(GlobalTensor,
LocalTensor co1, FixpipeParamsV220)`` (shared/reference/ascendc.md), the dav-c220 intrinsic
``copy_matrix_cc_to_gm(dst, src, sid, n_size, m_size, dst_stride, src_stride, ..., quant_pre, relu_pre, ...,
nz2nd_en)``.  npusim's row keeps the fields that decide the result:

* src: L0C in the zN layout mmad writes, fractal columns of 16 accumulators (``float32`` or ``int32``) per row;
  ``src_stride`` rows (of 16 elements) between the heads of consecutive fractal columns.  Element (row r, column j)
  is ``src[(j // 16) * src_stride * 16 + r * 16 + j % 16]``; ``m_size`` rows and ``n_size`` columns are read.
* conversion (quant_pre), from the dtypes: float32 -> float32 and int32 -> int32 copy (NoQuant); float32 ->
  float16 rounds to nearest even (F322F16); int32 -> float16 scales by ``deq_scale`` (rounded to float16, the
  scalar TIK's fixpipe and vconv's ``deq`` take) and rounds the float32 product to nearest even (DEQF16), exactly
  as vconv's ``deq`` does.  Float16 results follow the chip's overflow mode as vconv's do (saturation: inf ->
  +-65504, NaN -> 0; inf_nan: IEEE).
* ``relu``: max(x, 0) on the converted value (what a vconv then a vrelu in UB give, bit for bit).
* dst (GM), ``nz2nd`` False: NZ fractals, ``n_size`` a multiple of 16; fractal column c starts ``c * dst_stride``
  rows of 16 dst elements from dst and holds ``m_size`` rows.  ``nz2nd`` True: ND rows, row r starts
  ``r * dst_stride`` elements from dst and holds ``n_size`` elements.

Checks (typed errors located at the instruction): src in L0C and aligned to one row of 16 accumulators (64 bytes:
shared/reference/ascendc.md "L0C/bias/fixpipe 64 B"), dst in GM, a dtype pair the chip lists under
``isa.copy_matrix_cc_to_gm`` (a chip that lists none -- Ascend910, Ascend310, Ascend310P3, whose results leave L0C
through UB -- raises UnsupportedDtypeError naming it), deq_scale given exactly for int32 -> float16, n_size in
[1, 4095] (the 12-bit field), m_size in [1, 65535] and src_stride in [0, 65535] (16-bit fields),
src_stride >= m_size rounded up to whole fractals (16 rows; checked even for one fractal column), dst_stride at least one fractal column's rows (NZ) or n_size (ND), every element inside its
buffer.  Not modelled: the other quant_pre modes (per-channel vector scales, int8 / bfloat16 outputs), channel
split, unit flags, the L0C -> L1 form and the post-stage (element-wise add, quant_post).

Cost: a move on the chip's L0C -> GM path row (its pipe: FIX on Ascend910B1), priced by the bytes it writes to
GM (the row's source string says where its rate comes from).  It runs in lockstep batches: GM writes are logged
and restorable through the helpers of :mod:`npusim.sim.isa.batch_moves`.
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npusim.errors.sim import InvalidOperandError, UnsupportedDtypeError
from npusim.sim.checks import check_access, check_int_range
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.geometry import DATA_MOVE_BURST_MAX, DATA_MOVE_GAP_MAX, MMAD_DIM_MAX
from npusim.sim.isa.atomic import accumulate
from npusim.sim.isa.batch_moves import Side, _log_bursts, gm_write
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.conv import compile_deq_scale
from npusim.sim.isa.l0c_out import check_local, form_and_path, l0c_rows
from npusim.sim.isa.rounding import convert
from npusim.sim.isa.saturate import saturating
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_checked
from npusim.sim.lockstep.gm_log import ATOMIC, WRITE

OPCODE = "copy_matrix_cc_to_gm"
OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"), OperandSpec("n_size", "int"),
            OperandSpec("m_size", "int"), OperandSpec("src_stride", "int"), OperandSpec("dst_stride", "int"),
            OperandSpec("deq_scale", "scalar", None), OperandSpec("relu", "bool", False),
            OperandSpec("nz2nd", "bool", False))
#: (src dtype, dst dtype) -> the chip's isa key (CANN's quant_pre: NoQuant, F322F16, DEQF16)
_KEYS = {("float32", "float32"): "f322f32", ("int32", "int32"): "s322s32", ("float32", "float16"): "f322f16",
         ("int32", "float16"): "deqf16"}
_LIMITS = {"n_size": (1, MMAD_DIM_MAX), "m_size": (1, DATA_MOVE_BURST_MAX), "src_stride": (0, DATA_MOVE_GAP_MAX)}


def fixpipe_key(src_dtype: str, dst_dtype: str):
    """The chip isa key of a copy_matrix_cc_to_gm from ``src_dtype`` to ``dst_dtype`` (None: no such form)."""
    return _KEYS.get((src_dtype, dst_dtype))


def _semantics(acc: np.ndarray, out_dt: np.dtype, deq_scale, relu: bool) -> np.ndarray:
    """The converted (and relu'd) values of ``acc`` (any shape) in ``out_dt`` (see the module docstring)."""
    if acc.dtype == out_dt:
        out = np.array(acc, copy=True)
    else:
        out = convert(acc, acc.dtype, out_dt, "", deq_scale)
    if relu:
        np.maximum(out, out.dtype.type(0), out=out)
    return out


def _fractal_rows(acc: np.ndarray, n_size: int, nz2nd: bool, edge: int) -> np.ndarray:
    """``acc`` [..., n1, m, edge] as the bursts GM receives: itself (NZ) or the rows [..., m, n_size] (ND)."""
    if not nz2nd:
        return acc
    lead = acc.shape[:-3]
    n1, m = acc.shape[-3], acc.shape[-2]
    rows = np.moveaxis(acc, -3, -2).reshape(*lead, m, n1 * edge)
    return rows[..., :n_size]


class _Geometry:
    """One instruction's checked sizes: the L0C read (n1 bursts of m rows) and the GM write (bursts, pitch)."""

    __slots__ = ("n_size", "m_size", "n1", "src_burst", "src_pitch", "dst_burst", "dst_pitch", "dst_nburst")

    def __init__(self, values: dict, edge: int, isz: int, osz: int, nz2nd: bool):
        self.n_size, self.m_size = values["n_size"], values["m_size"]
        self.n1 = -(-self.n_size // edge)
        self.src_burst = self.m_size * edge * isz
        self.src_pitch = values["src_stride"] * edge * isz
        if nz2nd:
            self.dst_nburst, self.dst_burst, self.dst_pitch = self.m_size, self.n_size * osz, values["dst_stride"] * osz
        else:
            self.dst_nburst, self.dst_burst = self.n1, self.m_size * edge * osz
            self.dst_pitch = values["dst_stride"] * edge * osz

    @property
    def src_span(self) -> int:
        return (self.n1 - 1) * self.src_pitch + self.src_burst

    @property
    def dst_span(self) -> int:
        return (self.dst_nburst - 1) * self.dst_pitch + self.dst_burst


def _fields(kc, instr) -> dict:
    site = kc.site
    fields = {}
    for name in ("n_size", "m_size", "src_stride", "dst_stride"):
        low, high = _LIMITS.get(name, (0, None))
        check = (lambda v, n=name, lo=low, hi=high: check_int_range(site, n, v, lo, hi)) if high is not None \
            else (lambda v, n=name: _non_negative(site, n, v))
        fields[name] = compile_checked(kc, instr.arg(name), check)
    return fields


def _non_negative(site, name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise site.error(InvalidOperandError, f"{name} should be a non-negative integer, input: {value!r}")
    return int(value)


def _check_geometry(site, g: _Geometry, values: dict, edge: int, nz2nd: bool) -> None:
    if values["src_stride"] < -(-g.m_size // edge) * edge:
        raise site.error(InvalidOperandError, f"src_stride {values['src_stride']} is smaller than m_size "
                                              f"{g.m_size} rounded up to whole fractals (L0C fractal columns "
                                              f"would overlap)")
    if nz2nd and values["dst_stride"] < g.n_size:
        raise site.error(InvalidOperandError, f"nz2nd: dst_stride {values['dst_stride']} is smaller than n_size "
                                              f"{g.n_size} (ND rows would overlap)")
    if not nz2nd and g.n_size % edge:
        raise site.error(InvalidOperandError, f"NZ output needs n_size a multiple of {edge} (whole fractal "
                                              f"columns), input n_size: {g.n_size}")
    if not nz2nd and g.n1 > 1 and values["dst_stride"] < g.m_size:
        raise site.error(InvalidOperandError, f"dst_stride {values['dst_stride']} is smaller than m_size "
                                              f"{g.m_size} (NZ fractal columns would overlap)")


def _options(kc, instr, src, dst) -> tuple:
    """(deq_scale or None, relu, nz2nd), checked constants."""
    values = []
    for name in ("relu", "nz2nd"):
        compiled = kc.expr(instr.arg(name, False))
        if not isinstance(compiled, Const):
            raise kc.fail(InvalidOperandError, f"{name} must be a constant")
        values.append(bool(compiled.value))
    scale = instr.arg("deq_scale", None)
    deq = (src.dtype, dst.dtype) == ("int32", "float16")
    if deq != (scale is not None):
        raise kc.fail(InvalidOperandError, "deq_scale is required for int32 -> float16 (DEQF16) and applies to "
                                           f"it only, got {src.dtype} -> {dst.dtype} with deq_scale {scale!r}")
    if scale is not None:
        scale = compile_deq_scale(kc, scale, "deq_scale")
    return scale, values[0], values[1]


def _check_chip(kc, src, dst) -> tuple:
    """(isa key, L0C -> GM path) on this chip, or the error saying why not."""
    chip = kc.chip
    if not chip.isa.get(OPCODE):
        raise kc.fail(UnsupportedDtypeError, f"{OPCODE} is not an instruction of {chip.name} (its chip model "
                                             f"lists no isa.{OPCODE}: the result leaves L0C through UB there)")
    return form_and_path(kc, OPCODE, _KEYS, src, dst, "GM")


def compile_fixpipe(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"), ("GM",))
    src = kc.tensor("src", instr.arg("src"), ("L0C",))
    _, path = _check_chip(kc, src, dst)
    deq_scale, relu, nz2nd = _options(kc, instr, src, dst)
    edge = kc.chip.cube_n
    align = edge * src.isz                              # one L0C row of accumulators
    kc.check_static_alignment(src, align)
    fields = _fields(kc, instr)
    names = tuple(fields)
    static = all(isinstance(f, Const) for f in fields.values())
    out_dt = np_dtype(dst.dtype)
    computes = relu or src.dtype != dst.dtype          # a plain copy moves bits: no saturation
    semantics = saturating(spec.semantics, kc.chip, out_dt) if computes else spec.semantics

    def geometry(env) -> _Geometry:
        values = {n: (f.value if isinstance(f, Const) else f(env)) for n, f in fields.items()}
        g = _Geometry(values, edge, src.isz, dst.isz, nz2nd)
        _check_geometry(site, g, values, edge, nz2nd)
        return g

    fixed = geometry(None) if static else None
    src_b, dst_b = kc.as_bytes(src), kc.as_bytes(dst)
    if fixed is not None and isinstance(src_b.base, Const):
        check_local(site, src_b, src_b.base.value, fixed.src_span, align)
    index, param = site.instr_index, dst.key[1]
    src_dt = np_dtype(src.dtype)

    def convert_bursts(acc_bytes: np.ndarray, g: _Geometry) -> np.ndarray:
        """[..., n1, m * edge * isz] L0C bytes -> [..., dst bursts, dst burst bytes] GM bytes."""
        acc = np.ascontiguousarray(acc_bytes).view(src_dt)
        acc = acc.reshape(*acc.shape[:-1], g.m_size, edge)
        out = semantics(_fractal_rows(acc, g.n_size, nz2nd, edge), out_dt, deq_scale, relu)
        lead = out.shape[:-2] if nz2nd else out.shape[:-3]
        return np.ascontiguousarray(out).view(np.uint8).reshape(*lead, g.dst_nburst, g.dst_burst)

    run = _single(site, src_b, dst_b, (fixed, geometry), convert_bursts, (index, param, align))

    statics = InstrStatic(index, spec.opcode, path.pipe, spec.cost_kind, spec.cost_key, dst.dtype,
                          path=("L0C", "GM"), text=site.text)
    batch = None
    if kc.batch_uniform(*(instr.arg(n) for n in names)):
        batch = _batch(kc, src_b, dst_b, (fixed, geometry), convert_bursts, (index, param, align))
    return CompiledInstr(statics, run, batch=batch, local_only=False, gm_writes=(param,))


def _single(site, src_b, dst_b, geometries: tuple, convert_bursts, where: tuple):
    """The one-block form: read the L0C bursts, convert, write (or atomically combine into) GM."""
    fixed, geometry_of = geometries
    index, param, align = where

    def run(ctx):
        g = fixed or geometry_of(ctx.env)
        s0 = src_b.base.value if isinstance(src_b.base, Const) else src_b.base(ctx.env)
        d0 = dst_b.base.value if isinstance(dst_b.base, Const) else dst_b.base(ctx.env)
        check_local(site, src_b, s0, g.src_span, align)
        _check_gm(site, dst_b, d0, g.dst_span, ctx.gm_hi[dst_b.key])
        acc = as_strided(ctx.views[src_b.key][s0:], shape=(g.n1, g.src_burst), strides=(g.src_pitch, 1),
                         writeable=False)
        data = convert_bursts(acc, g)
        grid = as_strided(ctx.views[dst_b.key][d0:], shape=(g.dst_nburst, g.dst_burst), strides=(g.dst_pitch, 1))
        if ctx.atomic is not None:
            accumulate(ctx.atomic, grid, data)
        else:
            grid[...] = data
        ctx.append((index, g.dst_nburst * g.dst_burst))
        ctx.touch((index, param, d0, g.dst_nburst, g.dst_burst, g.dst_pitch))
    return run


def _check_gm(site, op, start: int, span: int, hi: int) -> None:
    if start < op.lo or start + span > hi:
        check_access(site, op.role, op.buffer, start, start + span - 1, op.lo, hi, "bytes")


def _batch(kc, src_b, dst_b, geometries: tuple, convert_bursts, where: tuple):
    """The lockstep form: every active block's L0C read at once, its GM write logged (batch_moves' helpers)."""
    src, dst = Side(kc, src_b), Side(kc, dst_b)
    fixed, geometry_of = geometries
    index, param, align = where
    site = kc.site

    def batch(b):
        g = fixed or geometry_of(b.env)
        acc = l0c_rows(b, site, src, src_b, g.src_span, align, (g.n1, g.src_burst, g.src_pitch))
        d0 = dst.starts(b)
        dst.check(b, d0, g.dst_span)
        data = convert_bursts(acc, g)
        starts = d0 if isinstance(d0, np.ndarray) else np.full(b.active_count(), d0, dtype=np.int64)
        shape = (g.dst_nburst, g.dst_burst, g.dst_pitch)
        modes = b.atomic_modes()
        if param in b.gm.tracked:
            _log_bursts(b, param, starts, shape, ATOMIC if all(m is not None for m in modes) else WRITE)
        gm_write(b, b.views[dst_b.key], starts, shape, data.reshape(starts.size, -1), modes, param)
        b.append((index, g.dst_nburst * g.dst_burst))
        b.touch(index, param, d0, shape)
    return batch


ROWS = (
    InstrSpec(OPCODE, "fixpipe", OPERANDS, compile_fixpipe, _semantics, "move", OPCODE,
              "GM <- L0C zN (m_size x n_size) through the FIX pipe: f32 copy, f32 -> f16 (nearest even), s32 copy "
              "or s32 * deq_scale -> f16; optional relu; NZ or ND (nz2nd) out with dst_stride"),
)

__all__ = ["OPCODE", "ROWS", "compile_fixpipe", "fixpipe_key"]
