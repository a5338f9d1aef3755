"""Vector tensor-scalar and ternary instructions.

The scalar operand is first converted to the tensors' dtype (a float16 tensor gets a float16 scalar), then the
operation runs in that dtype: ``vadds``/``vmuls``/``vmaxs``/``vmins`` round once like their binary counterparts.
``vaxpy`` (dst = scalar * src + dst) and ``vmla`` (dst = src0 * src1 + dst) are evaluated in float64 and rounded
once to the dtype, i.e. as a fused multiply-add (assumption: the vector unit does not round the product).
Float results are saturated on a chip in saturation mode (:mod:`npusim.sim.isa.saturate`).
"""
from __future__ import annotations

import functools

import numpy as np

from npusim.sim.isa.spec import InstrSpec, OperandSpec
from npusim.sim.isa.vector import compile_elementwise, vector_operands

SCALAR_OPERANDS = vector_operands(("dst", "src"), extra_after=(OperandSpec("scalar", "scalar"),))
VMLA_OPERANDS = vector_operands(("dst", "src0", "src1"))
_compile_scalar = functools.partial(compile_elementwise, srcs=("src",), has_scalar=True)
_compile_axpy = functools.partial(compile_elementwise, srcs=("src",), has_scalar=True, dst_reads=True)
_compile_vmla = functools.partial(compile_elementwise, srcs=("src0", "src1"), dst_reads=True)


def _with_scalar(func):
    def semantics(inputs, scalar, npdt):
        return func(inputs[0], scalar)
    semantics.ufunc = func      # func(src, scalar, out=dst) in batched forms
    return semantics


def _axpy(inputs, scalar, npdt):
    src, old = inputs
    return (src.astype(np.float64) * float(scalar) + old.astype(np.float64)).astype(npdt)


def _mla(inputs, scalar, npdt):
    src0, src1, old = inputs
    return (src0.astype(np.float64) * src1.astype(np.float64) + old.astype(np.float64)).astype(npdt)


def _scalar_row(opcode: str, func, doc: str) -> InstrSpec:
    return InstrSpec(opcode, "vector_scalar", SCALAR_OPERANDS, _compile_scalar, _with_scalar(func), "vector",
                     opcode, doc)


ROWS = (
    _scalar_row("vadds", np.add, "dst = src + scalar"),
    _scalar_row("vmuls", np.multiply, "dst = src * scalar"),
    _scalar_row("vmaxs", np.maximum, "dst = max(src, scalar)"),
    _scalar_row("vmins", np.minimum, "dst = min(src, scalar)"),
    InstrSpec("vaxpy", "vector_ternary", SCALAR_OPERANDS, _compile_axpy, _axpy, "vector", "vaxpy",
              "dst = scalar * src + dst, one rounding"),
    InstrSpec("vmla", "vector_ternary", VMLA_OPERANDS, _compile_vmla, _mla, "vector", "vmla",
              "dst = src0 * src1 + dst, one rounding"),
)
