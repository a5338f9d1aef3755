"""``load2d``: fractals from L1 (or GM) into the cube's input buffers L0A / L0B (TIK ``load2dv1``, CCE ``load2d``).

A fractal is ``cube_m`` rows of one block (16 x 32 bytes = 512 bytes on every modelled chip: 16 x 16 fp16, 16 x 32
int8).  Repeat ``r`` (0 <= r < repeat_times) copies source fractal ``start_index + r * src_stride`` (counted in
fractals from the source operand's start) to destination fractal ``r`` (destinations are contiguous).  A
``src_stride`` of 0 reads the same fractal every repeat.  ``if_transpose`` transposes each fractal while it is
copied; only 2-byte dtypes, whose fractal is square, may be transposed.

Checks (CCE's load2d field widths, :mod:`npusim.sim.geometry`): start_index in [0, 65535], repeat_times in [0, 255]
(0: nothing moves), src_stride in [0, 65535], sid in [0, 15]; equal dtypes; a chip path from the source's scope to
L0A or L0B; destination aligned to one fractal, an L1 source to one block (GM: element-aligned); every byte inside
its buffer.  It runs on the path's pipe (MTE1 from L1, MTE2 from GM) and is priced as a move of
``repeat_times`` fractals on that path (the chip YAML's ``L1->L0A`` / ``L1->L0B`` rows).
"""
from __future__ import annotations

from numpy.lib.stride_tricks import as_strided

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_access, check_aligned, check_int_range
from npusim.sim.expr import Const
from npusim.sim.geometry import DATA_MOVE_SID_MAX, LOAD2D_INDEX_MAX, LOAD2D_REPEAT_MAX, LOAD2D_STRIDE_MAX
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_checked

OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"), OperandSpec("start_index", "int", 0),
            OperandSpec("repeat_times", "int"), OperandSpec("src_stride", "int", 1), OperandSpec("sid", "int", 0),
            OperandSpec("if_transpose", "bool", False))
_LIMITS = {"start_index": (0, LOAD2D_INDEX_MAX), "repeat_times": (0, LOAD2D_REPEAT_MAX),
           "src_stride": (0, LOAD2D_STRIDE_MAX), "sid": (0, DATA_MOVE_SID_MAX)}
_DEFAULTS = {op.name: op.default for op in OPERANDS if op.kind == "int" and op.name != "repeat_times"}
TARGETS = ("L0A", "L0B")


def _start(ctx, site, op, first: int, last: int, align: int) -> int:
    """Byte start of a byte-view operand; bytes [start + first, start + last] must lie inside its buffer."""
    start = op.base.value if isinstance(op.base, Const) else op.base(ctx.env)
    if not op.is_gm and align and start % align:
        check_aligned(site, op.role, start, align)
    hi = op.hi if op.hi is not None else ctx.gm_hi[op.key]
    if start + first < op.lo or start + last >= hi:
        check_access(site, op.role, op.buffer, start + first, start + last, op.lo, hi, "bytes")
    return start


def _fields(kc: CompileContext, instr) -> dict:
    site = kc.site
    fields = {}
    for name, (low, high) in _LIMITS.items():
        fields[name] = compile_checked(kc, instr.arg(name, _DEFAULTS.get(name)),
                                       lambda v, n=name, lo=low, hi=high: check_int_range(site, n, v, lo, hi))
    return fields


def _value(field, env) -> int:
    return field.value if isinstance(field, Const) else field(env)


def compile_load2d(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"), TARGETS)
    src = kc.tensor("src", instr.arg("src"))
    if dst.dtype != src.dtype:
        raise kc.fail(InvalidOperandError, f"load2d needs equal dtypes, got dst {dst.dtype} and src {src.dtype}")
    path = kc.chip.paths.get((src.space, dst.space))
    if path is None:
        raise kc.fail(InvalidOperandError, f"load2d {src.space}->{dst.space} is not a path on {kc.chip.name}")
    transpose = kc.expr(instr.arg("if_transpose", False))
    if not isinstance(transpose, Const):
        raise kc.fail(InvalidOperandError, "if_transpose must be a constant")
    transpose = bool(transpose.value)
    block, rows = kc.chip.block_bytes, kc.chip.cube_m
    fractal = rows * block
    if transpose and kc.chip.block_elems(dst.isz) != rows:
        raise kc.fail(InvalidOperandError, f"load2d if_transpose needs a square fractal (a 2-byte dtype), got "
                                           f"{dst.dtype}")
    dst_b, src_b = kc.as_bytes(dst), kc.as_bytes(src)
    kc.check_static_alignment(dst_b, fractal)
    kc.check_static_alignment(src_b)
    fields = _fields(kc, instr)
    index = site.instr_index
    isz = dst.isz

    def run(ctx):
        env = ctx.env
        first, repeat, stride = (_value(fields[n], env) for n in ("start_index", "repeat_times", "src_stride"))
        if repeat:
            low, high = first, first + (repeat - 1) * stride
            s0 = _start(ctx, site, src_b, low * fractal, (high + 1) * fractal - 1, block)
            d0 = _start(ctx, site, dst_b, 0, repeat * fractal - 1, fractal)
            src_view, dst_view = ctx.views[src_b.key], ctx.views[dst_b.key]
            base = s0 + first * fractal
            if transpose:   # fractal [row, column, byte of the element] -> [column, row, byte]
                elems = rows
                src_4d = as_strided(src_view[base:], shape=(repeat, rows, elems, isz),
                                    strides=(stride * fractal, block, isz, 1), writeable=False)
                dst_4d = as_strided(dst_view[d0:], shape=(repeat, elems, rows, isz), strides=(fractal, block, isz, 1))
                dst_4d[...] = src_4d.transpose(0, 2, 1, 3)
            else:
                src_2d = as_strided(src_view[base:], shape=(repeat, fractal), strides=(stride * fractal, 1),
                                    writeable=False)
                dst_view[d0:d0 + repeat * fractal] = src_2d.reshape(-1)
        ctx.append((index, repeat * fractal))

    static = InstrStatic(index, spec.opcode, path.pipe, spec.cost_kind, spec.cost_key, dst.dtype,
                         path=(src.space, dst.space), text=site.text)
    return CompiledInstr(static, run, local_only=not src_b.is_gm)


ROWS = (
    InstrSpec("load2d", "load2d", OPERANDS, compile_load2d, None, "move", "load2d",
              "dst fractal r = src fractal start_index + r * src_stride (512 B fractals; L1/GM -> L0A/L0B), "
              "optionally transposed (2-byte dtypes)"),
)
