"""TBE's auto_schedule on npusim: a tagged DSL graph (see :mod:`te_compat.graph`) -> a multi-core, tiled,
double-buffered kernel of AI-core vector instructions.

    sch = auto_schedule(res)                    # sch.classification: "elewise", "broadcast", "reduce_last", ...
    kernel = sch.lower([x, y, res], "add")      # npusim.sim.Kernel; params are the tensor_list in order

Modules: operands / axes / classify (graph analysis), tiling + alloc (block split, UB tiles, buffer plan),
pipeline (loop nest, ping-pong, flags), emit_* (instructions per node kind), vec (vector instruction helpers),
atomic + emit_atomic (sums split over the reduce axis, the blocks meeting in GM through atomic adds),
multipass + emit_multipass (norms whose reduced row exceeds UB: the row streamed from GM once per reduce level).
"""
from te_compat.schedule.schedule import NpuSchedule, auto_schedule

__all__ = ["NpuSchedule", "auto_schedule"]
