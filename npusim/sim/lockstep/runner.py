"""Running a launch in lockstep: the blocks of a wave (at most one per core) execute every instruction together.

A wave of ``n`` blocks has ``n`` rows; waves run one after another, and row ``r`` of every wave is core ``r``, so
a block still sees the local memory its core's previous block left.  The batch must reproduce the block-by-block
run byte for byte; it gives up (raises, after restoring the GM bytes it overwrote in every tensor the kernel may
read: :func:`restore_set`) whenever it cannot be sure:

* an instruction raised (the block-by-block run then raises the same error at the same place);
* a ``wait_flag`` no ``set_flag`` answered (a hang, reported by the block-by-block run);
* blocks of a wave accessed common GM bytes in an order other than block order (:class:`GmLog`);
* a per-block value appeared where the batch needs one value (e.g. a burst length that depends on block_idx).

The caller (:func:`npusim.sim.executor.run`) then runs the launch block by block.
"""
from __future__ import annotations

import numpy as np

from npusim.sim.dtypes import np_dtype
from npusim.sim.expr import UNSET
from npusim.sim.isa.context import GM
from npusim.sim.kernel import BufRef
from npusim.sim.lockstep.context import BatchContext, BatchFallback, CoreRegisters
from npusim.sim.lockstep.gm_log import GmLog
from npusim.sim.lockstep.program import build_program
from npusim.sim.trace import BlockTrace

ARENA_ALIGN_BYTES = 64     # per-row arena sizes are multiples of this (every dtype's itemsize divides it)


#: instructions whose ``dst`` operand is a plain store into GM (any other mention of a GM parameter may read it)
_GM_STORES = frozenset({"data_move", "sstore"})


def program_for(compiled):
    """(batched program or None, GM parameter indices the kernel may write, indices it may read, whether an undo
    must restore every written tensor: :func:`_gm_reads`), derived once per compiled kernel."""
    found = compiled.derived.get("lockstep")
    if found is None:
        writes = frozenset(i for instr in _instrs(compiled.tree) for i in instr.gm_writes)
        reads, restore_all = _gm_reads(compiled.kernel)
        found = compiled.derived["lockstep"] = (build_program(compiled), writes, reads, restore_all)
    return found


def _gm_reads(kernel) -> tuple:
    """(indices of the GM parameters some operand other than a plain store's ``dst`` mentions, whether every
    written tensor must be restored: the kernel switches on atomic accumulation, or loads memory into a register
    (``sload``: data can then decide whether and where later stores write, and a batch that read stale data may
    have stored where the block-by-block run does not))."""
    index_of = {p.name: i for i, p in enumerate(kernel.params) if p.kind != "scalar"}
    reads, restore_all = set(), False
    for _, instr in kernel.instructions():
        restore_all |= instr.opcode.startswith("set_atomic_") and instr.opcode != "set_atomic_none"
        restore_all |= instr.opcode == "sload"
        for name, value in instr.args:
            for ref in _bufrefs(value):
                if ref.buffer in index_of and not (name == "dst" and instr.opcode in _GM_STORES):
                    reads.add(index_of[ref.buffer])
    return frozenset(reads), restore_all


def _bufrefs(value):
    if isinstance(value, BufRef):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _bufrefs(item)


def restore_set(ranges: dict, writes: frozenset, reads: frozenset, restore_all: bool) -> frozenset:
    """The written GM parameters whose overwritten bytes an undo must put back: those the kernel may also read
    (directly, or through a binding that shares bytes with one it reads), and all of them when ``restore_all``
    (atomic accumulation, or memory loaded into registers).  A parameter the kernel only stores into needs no undo
    otherwise: with no memory value in a register, whether and where every store writes depends only on the
    launch's arguments, so the block-by-block run that follows a give-up stores into the same bytes (the values
    may differ where the batch read stale data; the rerun's replace them); after a launch that raised, such an
    output may also hold what blocks the batch ran ahead wrote, as on a chip whose other cores went on."""
    read_ranges = [ranges[i] for i in reads if i in ranges]
    return frozenset(w for w in writes if w in ranges and (
        restore_all or w in reads or any(lo < ranges[w][1] and ranges[w][0] < hi for lo, hi in read_ranges)))


def _instrs(nodes):
    for node in nodes:
        if hasattr(node, "instr"):
            yield node.instr
        elif hasattr(node, "slot"):
            yield from _instrs(node.body)
        else:
            yield from _instrs(node.then_body)
            yield from _instrs(node.else_body)


def run_lockstep(compiled, gm_args: dict, scalar_args: dict, block_dim: int, num_cores: int, fill_byte: int,
                 arenas, gm_views: dict, gm_hi: dict) -> list:
    """The launch's BlockTraces in block order, or BatchFallback (GM restored) when it cannot run in lockstep."""
    program, writes, reads, restore_all = program_for(compiled)
    if program is None:
        raise BatchFallback(f"kernel {compiled.kernel.name} has an instruction without a batched form")
    width = min(block_dim, num_cores)
    memory = _WaveMemory(compiled, width, fill_byte, arenas)
    gm = _gm_log(gm_args, writes, reads, restore_all)
    cores = [CoreRegisters() for _ in range(width)]
    template = _template(compiled, scalar_args)
    blocks = []
    try:
        for first in range(0, block_dim, num_cores):
            bids = np.arange(first, min(first + num_cores, block_dim), dtype=np.int64)
            blocks.extend(_run_wave(compiled, program, bids, memory, gm, cores, template, gm_views, gm_hi,
                                    num_cores))
        if not gm.in_block_order():
            raise BatchFallback("blocks of a wave accessed common GM bytes out of block order")
    except BaseException:
        gm.rollback()
        raise
    finally:
        memory.release()
    return blocks


def _run_wave(compiled, program, bids, memory, gm, cores, template, gm_views, gm_hi, num_cores) -> list:
    n = bids.size
    views = dict(gm_views)
    views.update({key: view[:n] for key, view in memory.views.items()})
    env = list(template)
    b = BatchContext(n, bids, env, views, gm_hi, gm, cores)
    env[compiled.slots.slot("block_idx")] = b.bids_obj
    for stmt in program:
        stmt(b)
    b.flush()
    if b.unanswered():
        raise BatchFallback("a wait_flag is never answered")
    return [BlockTrace(int(block), int(block) % num_cores, b.lists[r], b.spans[r])
            for r, block in enumerate(bids.tolist())]


def _template(compiled, scalar_args: dict) -> list:
    slots = compiled.slots
    template = [UNSET] * slots.size()
    for name, value in scalar_args.items():
        template[slots.slot(name)] = value
    return template


def _gm_log(gm_args: dict, writes: frozenset, reads: frozenset, restore_all: bool) -> GmLog:
    addresses, ranges = {}, {}
    for index, binding in gm_args.items():
        address = binding.data.__array_interface__["data"][0]
        addresses[index] = address
        ranges[index] = (address, address + binding.data.size)
    written = [ranges[i] for i in writes if i in ranges]
    tracked = frozenset(i for i, (lo, hi) in ranges.items() if any(lo < w_hi and w_lo < hi for w_lo, w_hi in written))
    return GmLog(addresses, tracked, restore_set(ranges, writes, reads, restore_all))


class _WaveMemory:
    """Local scopes of a wave: one (rows x bytes) arena per scope the kernel uses, sized to the highest byte its
    buffers reach, and a 2-D typed view per (scope, dtype) key."""

    def __init__(self, compiled, rows: int, fill_byte: int, pool):
        self.pool = pool
        self.arenas: dict = {}
        self.views: dict = {}
        for key in compiled.view_keys:
            if key[0] == GM:
                continue
            scope, dtype = key
            arena = self.arenas.get(scope)
            if arena is None:
                reach = compiled.scope_high_water.get(scope, 0)
                size = max(ARENA_ALIGN_BYTES, -(-reach // ARENA_ALIGN_BYTES) * ARENA_ALIGN_BYTES)
                flat = (np.full(rows * size, fill_byte, dtype=np.uint8) if pool is None
                        else pool.take(rows * size, fill_byte))
                arena = self.arenas[scope] = flat
            self.views[key] = arena.reshape(rows, -1).view(np_dtype(dtype))

    def release(self) -> None:
        arenas, self.arenas, self.views = self.arenas, {}, {}
        if self.pool is not None:
            for arena in arenas.values():
                self.pool.give(arena)
