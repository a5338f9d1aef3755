"""The vector-unit schedule of ``pooling2d`` (issue 15): ``auto_schedule`` of a max / avg pooling graph -> an
npusim kernel of GM -> UB moves, vector_dup padding and per-tap vmax / vadd over C0-wide blocks.

Modules: plan (the pooling's parameters, bands, UB tiles, block split), kernel (the instructions and flags),
schedule (:class:`PoolingSchedule`, its ``lower``).
"""
from te_compat.pooling.schedule import PoolingSchedule, is_pooling_graph

__all__ = ["PoolingSchedule", "is_pooling_graph"]
