"""Fused multiply-add rows ``vmadd`` and ``vmaddrelu`` (TIK's vmadd / vmaddrelu, TBE's vmadd / vmaddrelu).

``vmadd``: dst = src0 * dst + src1; ``vmaddrelu``: dst = max(src0 * dst + src1, 0) (TIK API reference;
shared/reference/tbe-dsl.md: vmadd(a, b, c) = a * c + b).  As for ``vmla`` (:mod:`npusim.sim.isa.scalar_ops`) the
product is not rounded: the expression is evaluated in float64 and rounded once to the dtype (assumption: the vector
unit fuses the multiply-add), then saturated on a chip in saturation mode.  A composition of vmul and vadd would
round twice, so these are rows of their own.
"""
from __future__ import annotations

import functools

import numpy as np

from npusim.sim.isa.spec import InstrSpec
from npusim.sim.isa.vector import compile_elementwise, vector_operands

OPERANDS = vector_operands(("dst", "src0", "src1"))
_compile = functools.partial(compile_elementwise, srcs=("src0", "src1"), dst_reads=True)


def _madd(inputs, scalar, npdt):
    src0, src1, old = inputs
    return (src0.astype(np.float64) * old.astype(np.float64) + src1.astype(np.float64)).astype(npdt)


def _madd_relu(inputs, scalar, npdt):
    value = _madd(inputs, scalar, npdt)
    return np.maximum(value, value.dtype.type(0))


ROWS = (
    InstrSpec("vmadd", "vector_ternary", OPERANDS, _compile, _madd, "vector", "vmadd",
              "dst = src0 * dst + src1, one rounding"),
    InstrSpec("vmaddrelu", "vector_ternary", OPERANDS, _compile, _madd_relu, "vector", "vmaddrelu",
              "dst = max(src0 * dst + src1, 0), one rounding"),
)
