"""The cube kernel's way out of L0C on chips with a FIX pipe (Atlas A2): ``copy_matrix_cc_to_gm`` straight to GM.

On a chip whose model lists ``isa.copy_matrix_cc_to_gm`` (Ascend910B1) a matmul whose epilogue the fixpipe can do
leaves L0C by that one instruction per sub-tile -- converted (float32 -> float16, one nearest-even rounding, as
the UB path's vconv), optionally relu'd, written into the output's FRACTAL_NZ tile -- and never enters UB.  The
epilogues it takes: none, a cast of the float32 accumulator to float16, then at most one relu.  Everything else
(a bias, gemm's alpha / beta / C, other element-wise steps, int32 -> float16, convolutions) keeps the UB path of
:mod:`te_compat.cube.kernel`; so do chips without the instruction (Ascend910, Ascend310, Ascend310P3).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from npusim.sim.isa.fixpipe import OPCODE, fixpipe_key
from te_compat.cube.graph import CubeGraph


@dataclass(frozen=True)
class FixpipeOut:
    """How the result leaves L0C: to ``dst_dtype`` in GM, with ``relu`` or not."""

    dst_dtype: str
    relu: bool


def fixpipe_out(graph: CubeGraph, chip) -> Optional[FixpipeOut]:
    """The fixpipe plan for ``graph`` on ``chip``, or None when the result must go through UB."""
    d = graph.desc
    if graph.conv is not None or graph.gemm is not None or graph.tensor_bias is not None:
        return None
    dtype = d.out_dtype
    steps = list(graph.epilogue)
    if steps and steps[0].opcode == "vconv" and dtype == d.acc_dtype:     # one rounding, from the accumulator
        dtype = steps.pop(0).dst_dtype
    relu = bool(steps) and steps[0].opcode == "vrelu" and steps[0].src_dtype == dtype
    if relu:
        steps.pop(0)
    key = fixpipe_key(d.acc_dtype, dtype)
    if steps or key is None or key == "deqf16" or not chip.supports(OPCODE, key):
        return None
    return FixpipeOut(dtype, relu)


__all__ = ["FixpipeOut", "fixpipe_out"]
