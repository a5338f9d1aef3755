"""How the cube kernel's result leaves L0C converting on the way: straight to GM by the FIX pipe's
``copy_matrix_cc_to_gm`` (Atlas A2), or into UB by ``copy_matrix_cc_to_ubuf`` (Ascend910 / 310 / 310P3).

Both take the head of the epilogue that a converting move can do: a cast of the accumulator (float32 -> float16,
one nearest-even rounding, as the UB path's vconv), then at most one relu (max(x, 0) of the converted value, as a
vrelu after the vconv).  On a chip whose model lists ``isa.copy_matrix_cc_to_gm`` (Ascend910B1) a matmul whose whole
epilogue is that head leaves L0C by one instruction per sub-tile, written into the output's FRACTAL_NZ tile, and
never enters UB; anything more (a bias, gemm's alpha / beta / C, other element-wise steps, int32 -> float16,
convolutions) keeps the UB path of :mod:`te_compat.cube.kernel`.  On a chip that lists ``copy_matrix_cc_to_ubuf``
the UB path's move out of L0C does the head itself when nothing must run on the float32 accumulator first (no bias,
no gemm terms): the vconv (and the vrelu) it replaces no longer hold the vector pipe.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from npusim.sim.isa.cc_to_ub import OPCODE as UB_OPCODE, cc_to_ub_key
from npusim.sim.isa.fixpipe import OPCODE, fixpipe_key
from te_compat.cube.graph import CubeGraph


@dataclass(frozen=True)
class FixpipeOut:
    """How the result leaves L0C: to ``dst_dtype`` in GM, with ``relu`` or not."""

    dst_dtype: str
    relu: bool


@dataclass(frozen=True)
class UbConvert:
    """The UB path's converting move out of L0C: to ``dst_dtype``, with ``relu`` or not; ``steps``: the epilogue
    steps left to run in UB after it."""

    dst_dtype: str
    relu: bool
    steps: tuple


def _head(graph: CubeGraph) -> tuple:
    """(dtype after the cast, relu, the steps after them) of the epilogue's convertible head."""
    d = graph.desc
    dtype = d.out_dtype
    steps = list(graph.epilogue)
    if steps and steps[0].opcode == "vconv" and dtype == d.acc_dtype:     # one rounding, from the accumulator
        dtype = steps.pop(0).dst_dtype
    relu = bool(steps) and steps[0].opcode == "vrelu" and steps[0].src_dtype == dtype
    if relu:
        steps.pop(0)
    return dtype, relu, tuple(steps)


def fixpipe_out(graph: CubeGraph, chip) -> Optional[FixpipeOut]:
    """The fixpipe plan for ``graph`` on ``chip``, or None when the result must go through UB."""
    d = graph.desc
    if graph.conv is not None or graph.gemm is not None or graph.tensor_bias is not None:
        return None
    dtype, relu, steps = _head(graph)
    key = fixpipe_key(d.acc_dtype, dtype)
    if steps or key is None or key == "deqf16" or not chip.supports(OPCODE, key):
        return None
    return FixpipeOut(dtype, relu)


def ub_convert(graph: CubeGraph, chip, bias: bool) -> Optional[UbConvert]:
    """The converting L0C -> UB move for ``graph`` on ``chip`` (``bias``: a bias is added to the accumulator),
    or None when the UB path moves the accumulator as it is (a bias or gemm terms first, no float32 -> float16
    cast to take, or a chip without the instruction)."""
    d = graph.desc
    if bias or graph.gemm is not None:
        return None
    dtype, relu, steps = _head(graph)
    key = cc_to_ub_key(d.acc_dtype, dtype)
    if key != "f322f16" or not chip.supports(UB_OPCODE, key):
        return None
    return UbConvert(dtype, relu, steps)


__all__ = ["FixpipeOut", "UbConvert", "fixpipe_out", "ub_convert"]
