"""The kernel being written: a KernelBuilder plus UB arenas, typed buffer handles, scalar registers and flags.

UB holds four arenas: two tile arenas (ping / pong), one group arena (accumulate mode) and a small misc arena
(tail scratch blocks, one repeat of the chip per slot); a two-stage atomic reduce adds a fifth for its float32
staging and counter blocks.  A :class:`Buf` is a tensor's tile in an arena: a byte offset, a dtype and a layout;
its ``at(k)`` is the operand for element ``k`` (an int or a kernel expression).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from npusim.sim import KernelBuilder
from te_compat.schedule.common import itemsize
from te_compat.schedule.layout import Layout

SCRATCH_SLOTS = 2        # tail scratch areas in the misc arena (one per ping-pong slot)
EVENT_GROUP = 2          # flag event of the per-group stage
EVENT_MISC = 3           # flag event of V -> S syncs and group-input reuse


class NeedScratch(Exception):
    """A tail needs the scratch area the plan did not reserve: plan again with it."""


def scratch_bytes(chip) -> int:
    """Bytes of one slot's tail scratch area: one vector repeat of ``chip`` (room for the block a tail moves,
    keeping the next slot repeat-aligned like every other UB region)."""
    return chip.repeat_bytes


@dataclass(frozen=True)
class Buf:
    """A UB tensor: ``dtype`` elements from byte ``offset`` of ``arena`` in ``layout``; ``bits``: a bit mask."""

    em: "Emitter"
    arena: str
    offset: int
    dtype: str
    layout: Optional[Layout]
    bits: bool = False
    nbytes: int = 0

    def at(self, k=0, dtype: Optional[str] = None):
        """Operand at element ``k`` (in ``dtype`` units when given, else the buffer's dtype)."""
        view_dtype = dtype or self.dtype
        return self.em.view(self.arena, view_dtype)[self.offset // itemsize(view_dtype) + k]


class Emitter:
    """Owns the KernelBuilder of one lowering and the resources every emitter shares."""

    def __init__(self, name: str, chip, arena_bytes: dict):
        self.kb = KernelBuilder(name, chip=chip)
        self.chip = chip
        self._arenas = {}
        for arena, nbytes in arena_bytes.items():
            if nbytes > 0:
                self._arenas[arena] = self.kb.tensor("uint8", (nbytes,), "UB", f"ub_{arena}")
        self._views: dict = {}
        self._regs: dict = {}

    # -- buffers ------------------------------------------------------------------------------------------
    def view(self, arena: str, dtype: str):
        key = (arena, dtype)
        if key not in self._views:
            self._views[key] = self._arenas[arena].reinterpret_cast_to(dtype)
        return self._views[key]

    def buf(self, region, dtype: str, layout: Optional[Layout] = None, bits: bool = False, slot: int = 0) -> Buf:
        """A Buf for an alloc.Region (a "tile" region lands in the arena of ping-pong ``slot``)."""
        arena = f"tile{slot}" if region.arena == "tile" else region.arena
        return Buf(self, arena, region.offset, "uint8" if dtype == "bool" else dtype, layout, bits,
                   region.nbytes)

    def scratch(self, slot: int) -> tuple:
        """(arena, byte offset) of slot ``slot``'s tail scratch area (NeedScratch when the plan reserved none)."""
        if "misc" not in self._arenas:
            raise NeedScratch()
        return "misc", slot * scratch_bytes(self.chip)

    def reg(self, dtype: str, purpose: str = "t"):
        """A scalar register of ``dtype`` (one per dtype and purpose, reused)."""
        key = (dtype, purpose)
        if key not in self._regs:
            self._regs[key] = self.kb.scalar(dtype, name=f"r_{purpose}_{dtype}")
        return self._regs[key]

    # -- sync -----------------------------------------------------------------------------------------------
    def set_flag(self, src: str, dst: str, event: int) -> None:
        self.kb.set_flag(src, dst, event)

    def wait_flag(self, src: str, dst: str, event: int) -> None:
        self.kb.wait_flag(src, dst, event)

    def sync(self, src: str, dst: str, event: int) -> None:
        """``dst`` waits for everything ``src`` issued so far."""
        self.kb.set_flag(src, dst, event)
        self.kb.wait_flag(src, dst, event)

    def v_to_s(self) -> None:
        """The scalar unit is about to read UB data the vector unit (or MTE2 before it) wrote."""
        self.sync("V", "S", EVENT_MISC)
