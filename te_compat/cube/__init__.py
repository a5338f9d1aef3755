"""The cube schedule: ``auto_schedule`` of a graph with a ``matmul`` node (:mod:`te_compat.dsl.cube`) -> an npusim
kernel of GM -> L1 -> L0A/L0B moves, ``mmad`` into L0C and a fused element-wise epilogue in UB.

Modules: graph (reading the matmul node and its epilogue), tiling (tile sizes from the chip's buffers), staging
(scalar programs converting operands into the cube's native layouts), kernel (the tile loop and its flags),
gemm_epilogue (gemm's alpha / beta / C in UB), fixpipe_out (L0C -> GM on the FIX pipe where the chip has it),
schedule (:class:`CubeSchedule`, its ``lower``).
"""
from te_compat.cube.graph import is_cube_graph
from te_compat.cube.schedule import CubeSchedule

__all__ = ["CubeSchedule", "is_cube_graph"]
