"""``copy_matrix_cc_to_ubuf``: the L0C -> UB move of a matmul result on chips whose results leave L0C through UB
(Ascend910, Ascend310, Ascend310P3), converting on the way.

The CCE intrinsic is ``copy_matrix_cc_to_ubuf(dst, src, sid, nBurst, lenBurst, srcStride, dstStride, crMode)``;
its ConvRelu mode (crMode) follows from the operand dtypes here, plus a constant ``relu`` flag.  npusim's row:

* Operands: dst (UB), src (L0C), ``sid`` in [0, 15], ``nburst`` in [1, 4095], ``burst`` in [1, 65535],
  ``src_stride`` / ``dst_stride`` in [0, 65535], ``relu`` (a constant).
* Units: ``burst`` and both strides count 16 x 16 fractals (the chip's cube_m x cube_n accumulators): of the source
  dtype for ``burst`` read and ``src_stride``, of the destination dtype for ``burst`` written and ``dst_stride``
  -- the units of TIK's ``tensor_mov`` block_mode 'm'.  Each burst reads ``burst`` whole fractals contiguously and
  writes the ``burst`` converted fractals contiguously; strides are gaps (tail to next head), ignored when
  ``nburst`` is 1.
* Forms (src -> dst: crMode): float32 -> float32, float16 -> float16 (CRMODE_NONE, or NONE_RELU with relu),
  int32 -> int32 (NONE, no relu), float32 -> float16 (F32toF16_NONE / _RELU: round to nearest even),
  float16 -> float32 (F16toF32_NONE: exact), int32 -> float16 (S32toF16_NONE: nearest even, as vconv's s322f16).
  Results of a conversion or a relu follow the chip's overflow mode as vconv's do (saturation: inf -> +-max,
  NaN -> 0); a plain copy moves bits.  ``relu`` is max(x, 0) on the converted value, so the result equals a
  data_move, a vconv and a vrelu / vmaxs in UB bit for bit.

Checks (typed errors located at the instruction): the chip lists ``isa.copy_matrix_cc_to_ubuf`` (Ascend910B1, whose
results leave L0C by the fixpipe, lists none), src in L0C aligned to one L0C row of cube_n accumulators, dst in UB
aligned to the chip's block, a form the chip lists, relu only on the float forms that have a RELU mode, field
ranges, every byte of both operands inside its buffer.

Cost: a move on the chip's L0C -> UB path row (pipe V on these chips), priced by the bytes it reads from L0C, as the
L0C -> UB data_move of those bytes is.  It runs in lockstep batches (local -> local).
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import as_strided

from npusim.errors.sim import InvalidOperandError, UnsupportedDtypeError
from npusim.sim.checks import check_int_range
from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import Const
from npusim.sim.geometry import DATA_MOVE_BURST_MAX, DATA_MOVE_GAP_MAX, DATA_MOVE_NBURST_MAX, DATA_MOVE_SID_MAX
from npusim.sim.isa.batch_moves import Side, _local_put
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.l0c_out import check_local, form_and_path, l0c_rows
from npusim.sim.isa.rounding import convert
from npusim.sim.isa.saturate import saturating
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_checked

OPCODE = "copy_matrix_cc_to_ubuf"
OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"), OperandSpec("sid", "int", 0),
            OperandSpec("nburst", "int"), OperandSpec("burst", "int"), OperandSpec("src_stride", "int", 0),
            OperandSpec("dst_stride", "int", 0), OperandSpec("relu", "bool", False))
#: (src dtype, dst dtype) -> the chip's isa key
_KEYS = {("float32", "float32"): "f322f32", ("float16", "float16"): "f162f16", ("int32", "int32"): "s322s32",
         ("float32", "float16"): "f322f16", ("float16", "float32"): "f162f32", ("int32", "float16"): "s322f16"}
#: the forms with a relu crMode (NONE_RELU, F32toF16_RELU)
_RELU_KEYS = frozenset({"f322f32", "f162f16", "f322f16"})
_LIMITS = {"sid": (0, DATA_MOVE_SID_MAX), "nburst": (1, DATA_MOVE_NBURST_MAX), "burst": (1, DATA_MOVE_BURST_MAX),
           "src_stride": (0, DATA_MOVE_GAP_MAX), "dst_stride": (0, DATA_MOVE_GAP_MAX)}
_GEOMETRY = ("nburst", "burst", "src_stride", "dst_stride")


def cc_to_ub_key(src_dtype: str, dst_dtype: str):
    """The chip isa key of a copy_matrix_cc_to_ubuf from ``src_dtype`` to ``dst_dtype`` (None: no such form)."""
    return _KEYS.get((src_dtype, dst_dtype))


def _semantics(acc: np.ndarray, out_dt: np.dtype, relu: bool) -> np.ndarray:
    """The converted (and relu'd) values of ``acc`` (any shape) in ``out_dt`` (see the module docstring)."""
    if acc.dtype == out_dt:
        out = np.array(acc, copy=True)
    else:
        out = convert(acc, acc.dtype, out_dt, "")
    if relu:
        np.maximum(out, out.dtype.type(0), out=out)
    return out


class _Geometry:
    """One instruction's checked burst pattern in bytes: the L0C read and the UB write."""

    __slots__ = ("nburst", "src_burst", "src_pitch", "dst_burst", "dst_pitch")

    def __init__(self, values: dict, src_fractal_bytes: int, dst_fractal_bytes: int):
        nburst, burst = values["nburst"], values["burst"]
        self.nburst = nburst
        self.src_burst, self.dst_burst = burst * src_fractal_bytes, burst * dst_fractal_bytes
        self.src_pitch = (burst + values["src_stride"]) * src_fractal_bytes
        self.dst_pitch = (burst + values["dst_stride"]) * dst_fractal_bytes

    @property
    def src_span(self) -> int:
        return (self.nburst - 1) * self.src_pitch + self.src_burst

    @property
    def dst_span(self) -> int:
        return (self.nburst - 1) * self.dst_pitch + self.dst_burst

    @property
    def src_shape(self) -> tuple:
        return self.nburst, self.src_burst, self.src_pitch

    @property
    def dst_shape(self) -> tuple:
        return self.nburst, self.dst_burst, self.dst_pitch


def _check_chip(kc, src, dst):
    """The L0C -> UB path of this chip for the operands' form, or the error saying why not."""
    return form_and_path(kc, OPCODE, _KEYS, src, dst, "UB")


def _relu(kc, instr, key: str) -> bool:
    compiled = kc.expr(instr.arg("relu", False))
    if not isinstance(compiled, Const):
        raise kc.fail(InvalidOperandError, "relu must be a constant")
    relu = bool(compiled.value)
    if relu and key not in _RELU_KEYS:
        raise kc.fail(InvalidOperandError, f"relu applies to the float32 -> float32, float16 -> float16 and "
                                           f"float32 -> float16 forms only (no crMode relu for {key})")
    return relu


def _start(op, env) -> int:
    return op.base.value if isinstance(op.base, Const) else op.base(env)


def compile_cc_to_ub(instr, spec, kc: CompileContext) -> CompiledInstr:
    site, chip = kc.site, kc.chip
    if not chip.isa.get(OPCODE):
        raise kc.fail(UnsupportedDtypeError, f"{OPCODE} is not an instruction of {chip.name} (its chip model lists "
                                             f"no isa.{OPCODE}: the result leaves L0C by the fixpipe there, "
                                             f"copy_matrix_cc_to_gm)")
    dst = kc.tensor("dst", instr.arg("dst"), ("UB",))
    src = kc.tensor("src", instr.arg("src"), ("L0C",))
    key, path = _check_chip(kc, src, dst)
    relu = _relu(kc, instr, key)
    aligns = (chip.cube_n * src.isz, chip.block_bytes)        # one L0C row of accumulators; one UB block
    kc.check_static_alignment(src, aligns[0])
    kc.check_static_alignment(dst, aligns[1])
    fields = {name: compile_checked(kc, instr.arg(name, 0 if name in ("sid", "src_stride", "dst_stride") else None),
                                    (lambda v, n=name: check_int_range(site, n, v, *_LIMITS[n]))) for name in _LIMITS}
    fractal = chip.cube_m * chip.cube_n
    sizes = (fractal * src.isz, fractal * dst.isz)

    def geometry(env) -> _Geometry:
        return _Geometry({n: (fields[n].value if isinstance(fields[n], Const) else fields[n](env))
                          for n in _GEOMETRY}, *sizes)

    fixed = geometry(None) if all(isinstance(fields[n], Const) for n in _GEOMETRY) else None
    src_b, dst_b = kc.as_bytes(src), kc.as_bytes(dst)
    if fixed is not None:
        for op, span, align in ((src_b, fixed.src_span, aligns[0]), (dst_b, fixed.dst_span, aligns[1])):
            if isinstance(op.base, Const):
                check_local(site, op, op.base.value, span, align)
    convert_bursts = _converter(spec.semantics, chip, (np_dtype(src.dtype), np_dtype(dst.dtype)), relu,
                                relu or src.dtype != dst.dtype)
    index = site.instr_index

    def run(ctx):
        g = fixed or geometry(ctx.env)
        s0, d0 = _start(src_b, ctx.env), _start(dst_b, ctx.env)
        check_local(site, src_b, s0, g.src_span, aligns[0])
        check_local(site, dst_b, d0, g.dst_span, aligns[1])
        acc = as_strided(ctx.views[src_b.key][s0:], shape=(g.nburst, g.src_burst), strides=(g.src_pitch, 1),
                         writeable=False)
        data = convert_bursts(acc, g)
        as_strided(ctx.views[dst_b.key][d0:], shape=(g.nburst, g.dst_burst), strides=(g.dst_pitch, 1))[...] = data
        ctx.append((index, g.nburst * g.src_burst))

    static = InstrStatic(index, spec.opcode, path.pipe, spec.cost_kind, spec.cost_key, dst.dtype,
                         path=("L0C", "UB"), text=site.text)
    batch = None
    if kc.batch_uniform(*(instr.arg(n) for n in _GEOMETRY)):
        batch = _batch(kc, (src_b, dst_b), (fixed, geometry), convert_bursts, (index, aligns[0]))
    return CompiledInstr(static, run, batch=batch, local_only=True)


def _converter(semantics, chip, dtypes: tuple, relu: bool, computes: bool):
    """``convert_bursts(acc_bytes [..., nburst, src burst bytes], g) -> [..., nburst, dst burst bytes]``."""
    src_dt, out_dt = dtypes
    run = saturating(semantics, chip, out_dt) if computes else semantics    # a plain copy moves bits

    def convert_bursts(acc_bytes: np.ndarray, g: _Geometry) -> np.ndarray:
        acc = np.ascontiguousarray(acc_bytes).view(src_dt)
        out = np.ascontiguousarray(run(acc, out_dt, relu))
        return out.view(np.uint8).reshape(*acc_bytes.shape[:-1], g.dst_burst)
    return convert_bursts


def _batch(kc, operands: tuple, geometries: tuple, convert_bursts, where: tuple):
    """The lockstep form: every active block's L0C bursts read, converted and stored into its UB at once."""
    src_b, dst_b = operands
    src, dst = Side(kc, src_b), Side(kc, dst_b)
    fixed, geometry_of = geometries
    index, src_align = where
    site = kc.site

    def batch(b):
        g = fixed or geometry_of(b.env)
        acc = l0c_rows(b, site, src, src_b, g.src_span, src_align, g.src_shape)
        d0 = dst.starts(b)
        dst.check(b, d0, g.dst_span)
        _local_put(b.views[dst_b.key], b.rows, d0, g.dst_shape, convert_bursts(acc, g))
        b.append((index, g.nburst * g.src_burst))
    return batch


ROWS = (
    InstrSpec(OPCODE, "cc_to_ub", OPERANDS, compile_cc_to_ub, _semantics, "move", OPCODE,
              "UB <- L0C: nburst bursts of burst 16 x 16 fractals, gaps in fractals of each side's dtype; f32/f16/s32 "
              "copy, f32 -> f16 (nearest even), f16 -> f32, s32 -> f16 (nearest even); optional relu on float forms"),
)

__all__ = ["OPCODE", "ROWS", "cc_to_ub_key", "compile_cc_to_ub"]
