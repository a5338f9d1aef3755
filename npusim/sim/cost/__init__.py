"""Cycle model: a launch's trace -> per-core, per-pipe timelines and the kernel's cycles.

Model (pipe level, calibrated against the published 910B figures: benchmarks/bench_cycle_calibration.py; every
number comes from the chip YAML, which names its source):

* The scalar unit S walks each block's instructions in program order, spending ``issue_cycles`` per instruction
  it hands to another pipe and running scalar instructions itself (ALU, load and store cycles; a ``tvm_call``
  scalar program ``alu_ops * alu_cycles + accesses * mem_cycles``).  Every other pipe (V, M, MTE1, MTE2, MTE3,
  FIX) takes its instructions in order.
* Pipelined issue: an instruction holds its pipe for its occupancy and completes later.  A vector instruction
  holds V ``per_repeat * repeat_times`` cycles and completes ``startup`` cycles after that, so a back-to-back run
  of independent instructions pays the start-up once.  An instruction that reads what an in-flight instruction
  of the same pipe writes (read-after-write on bytes or CMPMASK, from the kernel's operands:
  :mod:`~npusim.sim.cost.footprint`) waits for that result plus the pipe's ``dependence_latency``.  Completion is
  in order.  A data_move holds its pipe ``max(setup + bytes / setup_rate, bytes / rate)`` and completes
  ``max(that, latency + bytes / latency_rate)`` after its start; an mmad holds the cube ``tiles + setup`` and
  completes ``fixed`` cycles after its tiles.
* GM transfers also need the core's share of HBM bandwidth (chip bandwidth / active cores): a transfer's bytes
  take ``bytes / share`` cycles of a calendar the core's GM paths share, and hold their pipe until then.  A
  data_move's GM read of lines already in the L2 during the launch takes ``bytes / l2_read_bytes_per_cycle``
  cycles of a second calendar instead (:mod:`~npusim.sim.cost.l2`: which bytes hit, per launch, before any core
  is timed).
* ``set_flag(src, dst, e)`` fires when everything src started before it is complete; ``wait_flag`` holds dst until
  then; ``pipe_barrier(p)`` holds p's later instructions until its earlier ones are complete (plus the chip's
  drain for p when work was outstanding); ``pipe_barrier(ALL)`` makes S wait for every pipe.  A wait that can
  never be answered raises SyncError.
* A core runs its blocks back to back; the kernel takes as long as its slowest core.

What depends only on the chip or the kernel (pipe order, each instruction's descriptor, static footprints) is built
once and reused across launches (:mod:`~npusim.sim.cost.tables`), so a launch pays only for its own records.
"""
from npusim.sim.cost.launch import estimate
from npusim.sim.cost.report import CoreTimeline, CostReport

__all__ = ["CoreTimeline", "CostReport", "estimate"]
