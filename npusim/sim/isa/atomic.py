"""Atomic accumulation of data moves into GM: ``set_atomic_add`` / ``set_atomic_max`` / ``set_atomic_min`` /
``set_atomic_none`` (scalar pipe, as TIK's ``set_atomic_add(mode)`` and Ascend C's ``SetAtomicAdd<T>``).

While a mode is set, every ``data_move`` whose destination is GM combines its bytes with GM's, element by element
in the mode's dtype, instead of overwriting them: ``gm = gm + src`` (or max / min).  The bytes are read as the
mode's dtype whatever the move's own dtype.  Floats add as one IEEE operation of that dtype (round to nearest
even; float16 through float32, which rounds the same); integers wrap.  Moves from GM are unaffected.

The mode is per block: every block starts with no atomic mode (a kernel sets it before the moves that need it
and clears it after, as CANN's docs ask).  ``dtype`` is a dtype name or TIK's mode number (1 = float32,
2 = float16).  Which dtypes a chip accumulates is its ``isa`` table's ``set_atomic_add`` / ``_max`` / ``_min``
row; a dtype the chip lacks raises UnsupportedDtypeError when the kernel is compiled.
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_dtype
from npusim.sim.dtypes import canonical_dtype, np_dtype
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec

TIK_MODES = {1: "float32", 2: "float16"}
COMBINE = {"set_atomic_add": np.add, "set_atomic_max": np.maximum, "set_atomic_min": np.minimum}
MODE_OPERANDS = (OperandSpec("dtype", "choice"),)


def _mode_dtype(kc: CompileContext, value) -> str:
    if isinstance(value, bool):
        raise kc.fail(InvalidOperandError, f"atomic dtype must be a dtype name or TIK mode 1/2, got {value!r}")
    if isinstance(value, int):
        if value not in TIK_MODES:
            raise kc.fail(InvalidOperandError, f"TIK atomic mode {value} is not one of "
                                               f"{', '.join(f'{k} ({v})' for k, v in TIK_MODES.items())}")
        return TIK_MODES[value]
    try:
        return canonical_dtype(value)
    except InvalidOperandError as exc:
        raise kc.fail(InvalidOperandError, f"atomic dtype: {exc.cause}") from None


def compile_set_atomic(instr, spec, kc: CompileContext) -> CompiledInstr:
    dtype = _mode_dtype(kc, instr.arg("dtype"))
    check_dtype(kc.site, kc.chip, spec.opcode, dtype)
    mode = (COMBINE[spec.opcode], np_dtype(dtype))
    record = (kc.site.instr_index, 1)

    def run(ctx):
        ctx.atomic = mode
        ctx.append(record)

    def batch(b):
        b.set_atomic(mode)
        b.append(record)

    return CompiledInstr(_static(kc, spec, dtype), run, batch=batch)


def compile_set_atomic_none(instr, spec, kc: CompileContext) -> CompiledInstr:
    record = (kc.site.instr_index, 1)

    def run(ctx):
        ctx.atomic = None
        ctx.append(record)

    def batch(b):
        b.set_atomic(None)
        b.append(record)

    return CompiledInstr(_static(kc, spec, ""), run, batch=batch)


def _static(kc: CompileContext, spec, dtype: str) -> InstrStatic:
    return InstrStatic(kc.site.instr_index, spec.opcode, "S", spec.cost_kind, spec.cost_key, dtype,
                       text=kc.site.text)


def accumulate(mode: tuple, dst_bytes: np.ndarray, src_bytes: np.ndarray) -> None:
    """dst = combine(dst, src) over two equal-shape byte arrays (last axis contiguous, whole elements)."""
    combine, npdt = mode
    dst = dst_bytes.view(npdt)
    with np.errstate(all="ignore"):
        combine(dst, src_bytes.view(npdt), out=dst)


def _row(opcode: str, doc: str) -> InstrSpec:
    return InstrSpec(opcode, "atomic", MODE_OPERANDS, compile_set_atomic, None, "scalar", "alu", doc)


ROWS = (
    _row("set_atomic_add", "later data moves into GM add to GM's elements (dtype: name, or TIK mode 1 f32 / 2 f16)"),
    _row("set_atomic_max", "later data moves into GM keep the larger of src and GM's elements"),
    _row("set_atomic_min", "later data moves into GM keep the smaller of src and GM's elements"),
    InstrSpec("set_atomic_none", "atomic", (), compile_set_atomic_none, None, "scalar", "alu",
              "later data moves into GM overwrite it again"),
)
