"""``data_move``: ``nburst`` bursts of ``burst`` blocks (the chip's block, 32 bytes on every modelled chip), with
gaps (tail to next head) in blocks.

Paths and the pipe that runs each come from the chip (GM->UB on MTE2, UB->GM on MTE3, L1->L0A on MTE1 ...).
Checks (TIK's; the field widths are in :mod:`npusim.sim.geometry`): nburst in [1, 4095], burst in [1, 65535],
gaps in [0, 65535], sid in [0, 15], equal dtypes, a path the chip has, local addresses block-aligned (GM:
element-aligned), every byte inside its buffer (GM: inside the parameter's extent rounded up to whole blocks).
Gaps are ignored when nburst == 1.  The copy is one slice assignment, or one strided 2-D assignment when there are
gaps.  A move into GM while an atomic mode is set
(:mod:`npusim.sim.isa.atomic`) combines with GM's elements instead of overwriting them; it costs what the plain
move costs (the read-modify-write is assumed to run in the memory system at the path's rate).
"""
from __future__ import annotations

from numpy.lib.stride_tricks import as_strided

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_access, check_aligned, check_int_range
from npusim.sim.expr import Const
from npusim.sim.geometry import DATA_MOVE_BURST_MAX, DATA_MOVE_GAP_MAX, DATA_MOVE_NBURST_MAX, DATA_MOVE_SID_MAX
from npusim.sim.isa.atomic import accumulate
from npusim.sim.isa.batch_moves import move_batch
from npusim.sim.isa.batch_trips import TripMove
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.vector import compile_checked

OPERANDS = (OperandSpec("dst", "tensor"), OperandSpec("src", "tensor"), OperandSpec("sid", "int", 0),
            OperandSpec("nburst", "int"), OperandSpec("burst", "int"), OperandSpec("src_stride", "int", 0),
            OperandSpec("dst_stride", "int", 0))
_LIMITS = {"sid": DATA_MOVE_SID_MAX, "nburst": DATA_MOVE_NBURST_MAX, "burst": DATA_MOVE_BURST_MAX,
           "src_stride": DATA_MOVE_GAP_MAX, "dst_stride": DATA_MOVE_GAP_MAX}


def _geometry(unit_bytes: int, nburst: int, burst: int, src_gap: int, dst_gap: int) -> tuple:
    """(burst_bytes, src_pitch_bytes, dst_pitch_bytes, contiguous) of a checked burst pattern in blocks of
    ``unit_bytes``."""
    burst_bytes = burst * unit_bytes
    if nburst == 1:
        return burst_bytes, burst_bytes, burst_bytes, True
    return (burst_bytes, (burst + src_gap) * unit_bytes, (burst + dst_gap) * unit_bytes,
            src_gap == 0 and dst_gap == 0)


def _start(ctx, site, op, span: int, align: int) -> int:
    """Byte start of a byte-view operand, checked for alignment to ``align`` bytes (local) and for ``span`` bytes
    in bounds."""
    start = op.base.value if isinstance(op.base, Const) else op.base(ctx.env)
    if not op.is_gm and start % align:
        check_aligned(site, op.role, start, align)
    hi = op.hi if op.hi is not None else ctx.gm_hi[op.key]
    if start < op.lo or start + span > hi:
        check_access(site, op.role, op.buffer, start, start + span - 1, op.lo, hi, "bytes")
    return start


def compile_data_move(instr, spec, kc: CompileContext) -> CompiledInstr:
    site = kc.site
    dst = kc.tensor("dst", instr.arg("dst"))
    src = kc.tensor("src", instr.arg("src"))
    if dst.dtype != src.dtype:
        raise kc.fail(InvalidOperandError, f"data_move needs equal dtypes, got dst {dst.dtype} and src {src.dtype}")
    path = kc.chip.paths.get((src.space, dst.space))
    if path is None:
        known = ", ".join(f"{a}->{b}" for a, b in kc.chip.paths)
        raise kc.fail(InvalidOperandError, f"data_move {src.space}->{dst.space} is not a path on {kc.chip.name} "
                                           f"(paths: {known})")
    dst_b, src_b = kc.as_bytes(dst), kc.as_bytes(src)
    for op in (dst_b, src_b):
        kc.check_static_alignment(op)
    fields = {name: compile_checked(kc, instr.arg(name, 0 if name in ("sid", "src_stride", "dst_stride") else None),
                                    _range_check(site, name)) for name in _LIMITS}
    static_geometry = all(isinstance(fields[n], Const) for n in ("nburst", "burst", "src_stride", "dst_stride"))
    index = site.instr_index
    block = kc.chip.block_bytes

    def geometry(env):
        if static_geometry:
            values = [fields[n].value for n in ("nburst", "burst", "src_stride", "dst_stride")]
        else:
            values = [f.value if isinstance(f, Const) else f(env)
                      for f in (fields["nburst"], fields["burst"], fields["src_stride"], fields["dst_stride"])]
        return (values[0],) + _geometry(block, *values)

    fixed = geometry(None) if static_geometry else None
    if fixed is not None:
        _check_static_bounds(site, fixed, src_b, dst_b)

    to_gm = dst_b.is_gm
    gm_param = dst_b.key[1] if to_gm else (src_b.key[1] if src_b.is_gm else None)

    def run(ctx):
        nburst, burst_bytes, src_pitch, dst_pitch, contiguous = fixed or geometry(ctx.env)
        s0 = _start(ctx, site, src_b, (nburst - 1) * src_pitch + burst_bytes, block)
        d0 = _start(ctx, site, dst_b, (nburst - 1) * dst_pitch + burst_bytes, block)
        src_view, dst_view = ctx.views[src_b.key], ctx.views[dst_b.key]
        if to_gm and ctx.atomic is not None:
            src_2d = as_strided(src_view[s0:], shape=(nburst, burst_bytes), strides=(src_pitch, 1), writeable=False)
            dst_2d = as_strided(dst_view[d0:], shape=(nburst, burst_bytes), strides=(dst_pitch, 1))
            accumulate(ctx.atomic, dst_2d, src_2d)
        elif contiguous:
            total = nburst * burst_bytes
            dst_view[d0:d0 + total] = src_view[s0:s0 + total]
        else:
            src_2d = as_strided(src_view[s0:], shape=(nburst, burst_bytes), strides=(src_pitch, 1), writeable=False)
            as_strided(dst_view[d0:], shape=(nburst, burst_bytes), strides=(dst_pitch, 1))[...] = src_2d
        ctx.append((index, nburst * burst_bytes))
        if gm_param is not None:        # the GM side's span, for the cost model's L2
            ctx.touch((index, gm_param, d0, nburst, burst_bytes, dst_pitch) if to_gm else
                      (index, gm_param, s0, nburst, burst_bytes, src_pitch))

    static = InstrStatic(index, spec.opcode, path.pipe, spec.cost_kind, spec.cost_key, dst.dtype,
                         path=(src.space, dst.space), text=site.text)
    uniform = kc.batch_uniform(*(instr.arg(n) for n in ("nburst", "burst", "src_stride", "dst_stride")))
    batch = move_batch(kc, instr, src_b, dst_b, fixed, geometry, uniform, index)
    extra = {}
    if batch is not None and fixed is not None and not to_gm:
        extra["trips"] = TripMove(kc, src_b, dst_b, fixed, index)
    return CompiledInstr(static, run, extra=extra, batch=batch, local_only=not (src_b.is_gm or dst_b.is_gm),
                         gm_writes=(dst_b.key[1],) if to_gm else ())


def _check_static_bounds(site, geometry: tuple, src, dst) -> None:
    """At compile time, bounds of local operands with constant starts and a constant burst pattern."""
    nburst, burst_bytes, src_pitch, dst_pitch, _ = geometry
    for op, pitch in ((src, src_pitch), (dst, dst_pitch)):
        if not op.is_gm and isinstance(op.base, Const):
            start, span = op.base.value, (nburst - 1) * pitch + burst_bytes
            if start < op.lo or start + span > op.hi:
                check_access(site, op.role, op.buffer, start, start + span - 1, op.lo, op.hi, "bytes")


def _range_check(site, name: str):
    low = 1 if name in ("nburst", "burst") else 0
    return lambda value: check_int_range(site, name, value, low, _LIMITS[name])


ROWS = (
    InstrSpec("data_move", "move", OPERANDS, compile_data_move, None, "move", "data_move",
              "copy nburst bursts of burst blocks (32 B) from src to dst, gaps src_stride/dst_stride in blocks"),
)
