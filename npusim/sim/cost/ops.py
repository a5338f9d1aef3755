"""Each instruction of a trace priced once: a small tuple the core simulation reads per record.

Descriptors (``kind`` first, then the pipe's index in the chip's pipe list):

* ``(SCALAR, S, cycles)``: runs on the scalar unit; ``(PROGRAM, S)``: a tvm_call, units = (alu ops, accesses)
* ``(VECTOR, pipe, startup, per_repeat, tracked)``: units = repeat_times
* ``(MOVE, pipe, setup, setup_rate, rate, latency, latency_rate, gm, tracked)``: units = bytes; ``gm``: 0 (no GM
  side), GM_READ (a data_move from GM: the L2 may serve it, :mod:`.l2`) or GM_OTHER (any other GM transfer)
* ``(CUBE, pipe, kstep, setup, latency, tracked)``: units = (m, k, n)
* ``(SET_FLAG, pipe, key, dynamic, dst)``, ``(WAIT_FLAG, pipe, key, dynamic, dst)``: key (src, dst, event), or
  (src, dst) when the event id comes with the record (``dynamic``; units = the event id); the pipe is src for
  set_flag, dst for wait_flag; ``dst``: the dst pipe's index; ``(BARRIER, pipe, drain)``; ``(BARRIER_ALL, S)``;
  ``(NOP, S)``

``tracked``: the pipe waits for read-after-write dependences (``chip.dependence_latency``).
"""
from __future__ import annotations

# numbered so that the core simulation's tests stay cheap: ``kind <= MOVE`` is its hot path (vector and move),
# ``CUBE < kind <= BARRIER`` a pipe's sync instruction; kinds from SCALAR on run on the scalar unit
VECTOR, MOVE, CUBE, SET_FLAG, WAIT_FLAG, BARRIER, SCALAR, PROGRAM, BARRIER_ALL, NOP = range(10)
#: a move descriptor's ``gm`` field (both true: the move shares HBM)
GM_READ, GM_OTHER = 1, 2


def pipe_index(chip) -> dict:
    """pipe name -> index, "S" first."""
    return {pipe: i for i, pipe in enumerate(chip.pipes)}


def describe(static, chip, pipes: dict) -> tuple:
    """The descriptor of one compiled instruction (its :class:`~npusim.sim.isa.spec.InstrStatic`)."""
    kind, pipe = static.cost_kind, pipes.get(static.pipe, 0)
    tracked = static.pipe in chip.dependence_latency
    if kind == "vector":
        row = chip.vector_costs[static.cost_key]
        return VECTOR, pipe, row.startup(static.dtype), row.per_repeat(static.dtype), tracked
    if kind == "move":
        path = chip.paths[static.path]
        gm = 0 if not path.touches_gm else GM_READ if path.src_scope == "GM" and static.opcode == "data_move" \
            else GM_OTHER
        return (MOVE, pipe, path.setup_cycles, path.setup_bytes_per_cycle or path.bytes_per_cycle,
                path.bytes_per_cycle, path.latency_cycles, path.latency_bytes_per_cycle or path.bytes_per_cycle,
                gm, tracked)
    if kind == "cube":
        kstep = chip.mmad_kstep.get(static.dtype, chip.cube_k_fp16)
        return CUBE, pipe, kstep, chip.mmad_setup_cycles, chip.mmad_fixed_cycles, tracked
    if kind == "scalar":
        cycles = {"alu": chip.scalar_alu_cycles, "load": chip.scalar_load_cycles,
                  "store": chip.scalar_store_cycles}.get(static.cost_key)
        if cycles is None:   # "mem": a load (sload) or store (sstore) by opcode
            cycles = chip.scalar_store_cycles if static.opcode == "sstore" else chip.scalar_load_cycles
        return SCALAR, 0, cycles
    if kind == "scalar_program":
        return PROGRAM, 0
    if kind in ("set_flag", "wait_flag"):
        src, dst, event = static.flag
        key = (src, dst) if event == -1 else (src, dst, event)
        return ((SET_FLAG if kind == "set_flag" else WAIT_FLAG), pipes[static.pipe], key, event == -1,
                pipes.get(dst, 0))
    if kind == "barrier":
        if static.barrier_pipe == "ALL":
            return BARRIER_ALL, 0
        if static.barrier_pipe == "S":
            return NOP, 0
        return BARRIER, pipes[static.barrier_pipe], chip.barrier_drain.get(static.barrier_pipe, 0.0)
    raise ValueError(f"no cost formula for {kind!r} (instruction #{static.index} `{static.text}`)")


def cube_tiles(chip, units: tuple, kstep: int) -> int:
    """Cube tiles of an (m, k, n) mmad."""
    m, k, n = units
    return -(-m // chip.cube_m) * -(-n // chip.cube_n) * -(-k // kstep)
