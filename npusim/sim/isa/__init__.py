"""The AI-core instruction table: ``ISA[opcode] -> InstrSpec`` (operands, numpy semantics, cost row).

One module per family holds its rows (``ROWS``); this package only gathers them.  A new instruction is one row in
its family's module plus one test.
"""
from __future__ import annotations

from types import MappingProxyType

from npusim.sim.isa import atomic, binary, cmpsel, conv, cube, dup_reduce, moves, scalar, scalar_ops, sync, unary
from npusim.sim.isa import tvm_call  # TVM-compiled scalar programs (TBE fallback, akg/hybrid on Ascend)
from npusim.sim.isa import load2d, load3d  # L1 -> L0A/L0B fractal loads, img2col (TIK load2dv1, load3dv1)
from npusim.sim.isa import fused, group_reduce, transpose  # vmadd(relu); vcg*/vcpadd; vnchwconv, vtranspose
from npusim.sim.isa import fixpipe  # copy_matrix_cc_to_gm: L0C -> GM on the FIX pipe (Atlas A2)
from npusim.sim.isa import cc_to_ub  # copy_matrix_cc_to_ubuf: converting L0C -> UB (Ascend910 / 310 / 310P3)
from npusim.sim.isa.spec import REQUIRED, CompiledInstr, InstrSpec, InstrStatic, OperandSpec

_FAMILIES = (moves, binary, unary, scalar_ops, conv, cmpsel, dup_reduce, cube, sync, scalar, atomic, tvm_call,
             load2d, load3d, fused, group_reduce, transpose, fixpipe, cc_to_ub)


def _build_table():
    table = {}
    for module in _FAMILIES:
        for row in module.ROWS:
            if row.opcode in table:
                raise RuntimeError(f"instruction {row.opcode!r} is defined twice in the ISA table")
            table[row.opcode] = row
    return MappingProxyType(table)


ISA = _build_table()

__all__ = ["ISA", "InstrSpec", "InstrStatic", "OperandSpec", "CompiledInstr", "REQUIRED"]
