"""What the cycle model derives from a chip once: pipe order, dependence latencies, the HBM share test, and the
per-kernel memos (instruction descriptors, static footprints) its launches reuse.

:func:`cost_tables` builds a chip's :class:`CostTables` on first use and keeps it on that :class:`Chip` object
(chips are immutable and owned by the runtime store's catalog, so the tables live exactly as long as the chip and
need no module-level state).  The per-kernel memos are bounded caches keyed by the identity of the kernel's
statics tuple (one per compiled kernel) or of the :class:`~npusim.sim.kernel.Kernel`; an entry holds its key
object, so an id is never reused while its entry lives.
"""
from __future__ import annotations

from npusim.sim.cost.footprint import Footprints
from npusim.sim.cost.ops import MOVE, describe
from npusim.util.cache import BoundedCache

#: kernels whose descriptors (and footprints) one chip's tables keep: a cache capacity, not hardware
KERNELS_KEPT = 200
#: the Chip instance attribute holding its CostTables
TABLES_ATTRIBUTE = "_npusim_cost_tables"


class KernelOps:
    """A compiled kernel's instructions priced on one chip: ``ops[instr_index]`` (see :mod:`.ops`) and whether
    any of them moves data to or from GM (only then may the HBM share limit a core)."""

    __slots__ = ("statics", "ops", "moves_gm")

    def __init__(self, statics: tuple, ops: list, moves_gm: bool):
        self.statics, self.ops, self.moves_gm = statics, ops, moves_gm


class CostTables:
    """One chip's cycle-model tables (see the module docstring)."""

    def __init__(self, chip):
        names = ("S",) + tuple(p for p in chip.pipes if p != "S")
        self.names, self.count = names, len(names)
        self.index = {name: i for i, name in enumerate(names)}
        self.dependence = tuple(chip.dependence_latency.get(name, 0.0) for name in names)
        self.tracks_dependences = bool(chip.dependence_latency)
        self.issue, self.flag_cycles = chip.scalar_issue_cycles, chip.flag_cycles
        self.hbm_bytes_per_cycle = chip.hbm_bytes_per_cycle
        self.gm_bytes_per_cycle = _gm_path_rates(chip)
        #: id(statics tuple) -> KernelOps (the entry holds the tuple, so the id is not reused while it lives)
        self.ops = BoundedCache(f"cost.{chip.name}.ops", KERNELS_KEPT)
        self._footprints = BoundedCache(f"cost.{chip.name}.footprints", KERNELS_KEPT)

    def port_limits(self, hbm_share: float) -> bool:
        """Whether a core's share of HBM (bytes/cycle) can limit it: less than its GM paths' rates summed over
        their pipes."""
        return hbm_share < self.gm_bytes_per_cycle

    def kernel_ops(self, statics: tuple, chip) -> KernelOps:
        """The descriptors of a compiled kernel's instructions (``statics``: its trace's statics tuple)."""
        found = self.ops.get(id(statics))
        if found is not None and found.statics is statics:
            return found
        return self.price(statics, chip)

    def price(self, statics: tuple, chip) -> KernelOps:
        """Describe every instruction of ``statics`` and remember the result under the tuple's identity (what
        :meth:`kernel_ops` and :func:`~npusim.sim.cost.launch.estimate` look up)."""
        ops = [describe(static, chip, self.index) for static in statics]
        moves_gm = any(op[0] == MOVE and op[7] for op in ops)
        return self.ops.put(id(statics), KernelOps(statics, ops, moves_gm))

    def footprints(self, kernel, chip):
        """The kernel's static footprints (memoised across its launches), or None when the chip tracks no
        dependences or no kernel is given."""
        if kernel is None or not self.tracks_dependences:
            return None
        found = self._footprints.get(id(kernel))
        if found is not None and found.kernel is kernel:
            return found
        return self._footprints.put(id(kernel), Footprints(kernel, chip))


def cost_tables(chip) -> CostTables:
    """``chip``'s cost tables, built on first use and kept on the chip object."""
    tables = chip.__dict__.get(TABLES_ATTRIBUTE)
    if tables is None:
        tables = CostTables(chip)
        object.__setattr__(chip, TABLES_ATTRIBUTE, tables)       # Chip is frozen: derived data, not a field
    return tables


def _gm_path_rates(chip) -> float:
    """The fastest GM path's bytes/cycle of each pipe, summed over the pipes."""
    fastest: dict = {}
    for path in chip.paths.values():
        if path.touches_gm:
            fastest[path.pipe] = max(path.bytes_per_cycle, fastest.get(path.pipe, 0.0))
    return sum(fastest.values())
