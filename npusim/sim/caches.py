"""The simulator's caches, one set per runtime store: compiled kernels, access plans, local-memory arenas and
compiled ``tvm_call`` programs.  A :class:`npusim.sim.device.Device` is given its set when it is made and hands it
down (compile context, executor); nothing in the simulator keeps a cache of its own."""
from __future__ import annotations

from dataclasses import dataclass, field

from npusim.sim.isa.plans import PlanCache
from npusim.sim.memory import ArenaPool
from npusim.util.cache import BoundedCache

COMPILED_KERNELS = 64       # compiled (kernel, chip) pairs kept
TVM_PROGRAMS = 256          # compiled tvm_call programs kept (by the sha256 of their text)


@dataclass
class SimCaches:
    """``compiled``: (kernel identity, chip name, overflow mode) -> CompiledKernel; ``plans``: vector/strided
    access plans; ``arenas``: byte arenas of finished launches; ``programs``: tvm_call programs by text sha256."""

    compiled: BoundedCache = field(default_factory=lambda: BoundedCache("sim.compiled", COMPILED_KERNELS))
    plans: PlanCache = field(default_factory=PlanCache)
    arenas: ArenaPool = field(default_factory=ArenaPool)
    programs: BoundedCache = field(default_factory=lambda: BoundedCache("sim.tvm_programs", TVM_PROGRAMS))

    def caches(self) -> tuple:
        """Every bounded cache of the set (for statistics)."""
        return (self.compiled, *self.plans.caches(), self.programs)


__all__ = ["COMPILED_KERNELS", "SimCaches", "TVM_PROGRAMS"]
