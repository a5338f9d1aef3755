"""Vector binary instructions: ``dst = f(src0, src1)`` per active lane, in the operands' dtype.

numpy's float16 arithmetic rounds each result to the nearest float16 (it computes in float32, which is exact
enough for a single +, -, *, / of two halves), so these rows are bit-exact IEEE per instruction.  On a chip in
saturation mode float results are then saturated (inf -> +-max, NaN -> 0; :mod:`npusim.sim.isa.saturate`).
"""
from __future__ import annotations

import functools

import numpy as np

from npusim.sim.isa.half_native import HALF_OPS, half_result
from npusim.sim.isa.spec import InstrSpec
from npusim.sim.isa.vector import compile_elementwise, vector_operands

OPERANDS = vector_operands(("dst", "src0", "src1"))
_compile = functools.partial(compile_elementwise, srcs=("src0", "src1"))


def _ufunc(func):
    half = HALF_OPS.get(func)

    def semantics(inputs, scalar, npdt):
        if half is not None and npdt == np.float16:
            fast = half_result(half, inputs[0], inputs[1])     # numpy's float16 bits, compiled
            if fast is not None:
                return fast
        return func(inputs[0], inputs[1])
    semantics.ufunc = func      # batched forms may compute straight into the destination (func(..., out=dst))
    return semantics


def _row(opcode: str, func, doc: str) -> InstrSpec:
    return InstrSpec(opcode, "vector_binary", OPERANDS, _compile, _ufunc(func), "vector", opcode, doc)


ROWS = (
    _row("vadd", np.add, "dst = src0 + src1 (int32 wraps)"),
    _row("vsub", np.subtract, "dst = src0 - src1 (int32 wraps)"),
    _row("vmul", np.multiply, "dst = src0 * src1 (int32 keeps the low 32 bits)"),
    _row("vdiv", np.divide, "dst = src0 / src1, IEEE-rounded (hardware vdiv may differ by an ulp)"),
    _row("vmax", np.maximum, "dst = max(src0, src1) (NaN propagates, as numpy)"),
    _row("vmin", np.minimum, "dst = min(src0, src1) (NaN propagates, as numpy)"),
    _row("vand", np.bitwise_and, "dst = src0 & src1 (16-bit integers)"),
    _row("vor", np.bitwise_or, "dst = src0 | src1 (16-bit integers)"),
)
