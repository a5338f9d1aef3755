"""Vector unary instructions: ``dst = f(src)`` per active lane.

Transcendentals are evaluated in float64 and rounded once to the operand dtype, so float32 results are correctly
rounded (within 1 ulp of any reference) and float16 ones are the nearest half.  Real hardware is less exact
(TIK's manual: vrec misses by up to 0.1 % on float16); npusim gives the IEEE value, saturated (inf -> +-max,
NaN -> 0) on a chip in saturation mode (:mod:`npusim.sim.isa.saturate`).
"""
from __future__ import annotations

import functools

import numpy as np

from npusim.sim.isa.spec import InstrSpec
from npusim.sim.isa.vector import compile_elementwise, vector_operands

OPERANDS = vector_operands(("dst", "src"))
_compile = functools.partial(compile_elementwise, srcs=("src",))


def _exact(func):
    def semantics(inputs, scalar, npdt):
        return func(inputs[0])
    return semantics


def _via_f64(func):
    """``func`` computed in float64 and rounded once to npdt: numpy's buffered casting converts chunk by chunk
    (the same values as ``func(x.astype(float64)).astype(npdt)``, without whole-array float64 copies)."""
    def semantics(inputs, scalar, npdt):
        src = inputs[0]
        if src.dtype.kind != "f" or npdt.kind != "f":
            return func(src.astype(np.float64)).astype(npdt)
        with np.errstate(all="ignore"):
            return func(src, dtype=np.float64, out=np.empty(src.shape, npdt), casting="same_kind")
    return semantics


def _rsqrt(x, dtype=None, out=None, casting="same_kind"):
    """1 / sqrt(x) in float64 (``dtype`` / ``out`` / ``casting`` as numpy's ufuncs take them)."""
    root = np.sqrt(x, dtype=np.float64) if dtype is not None else np.sqrt(x)
    return np.divide(1.0, root, out=out, casting=casting) if out is not None else 1.0 / root


def _relu(x):
    return np.maximum(x, x.dtype.type(0))


def _row(opcode: str, semantics, doc: str) -> InstrSpec:
    return InstrSpec(opcode, "vector_unary", OPERANDS, _compile, semantics, "vector", opcode, doc)


ROWS = (
    _row("vabs", _exact(np.abs), "dst = |src|"),
    _row("vexp", _via_f64(np.exp), "dst = e**src, rounded once to the dtype"),
    _row("vln", _via_f64(np.log), "dst = ln(src), rounded once (src <= 0 gives -inf/NaN)"),
    _row("vrec", _via_f64(np.reciprocal), "dst = 1/src, IEEE-rounded (hardware vrec is an approximation)"),
    _row("vsqrt", _via_f64(np.sqrt), "dst = sqrt(src), rounded once"),
    _row("vrsqrt", _via_f64(_rsqrt), "dst = 1/sqrt(src), rounded once"),
    _row("vrelu", _exact(_relu), "dst = max(src, 0)"),
    _row("vnot", _exact(np.invert), "dst = ~src (16-bit integers)"),
)
