"""What a kernel means: the :class:`Target` (chip model, its overflow mode, the AI cores a kernel may use).

A Target is resolved once at the API edge (:func:`npusim.sim.runtime.current_target`) and passed explicitly to
everything below it — scheduling, building, launching, costing, profiling.  Two targets are equal when their
``key`` is: chip name, overflow mode, core count and core type, everything that changes a built kernel.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional, Union

from npusim.errors.sim import ChipModelError
from npusim.sim.chip import Chip

#: the AI-core types TBE's ``set_current_compile_soc_info`` accepts
CORE_TYPES = ("AiCore", "VectorCore")


@dataclass(frozen=True, eq=False)
class Target:
    """A chip (``chip``, in its overflow mode), the AI cores kernels built for it may use (``core_num``, 1 up to
    the chip's count; TBE's ``aicore_num``) and the core type TBE's platform queries report (``core_type``)."""

    chip: Chip
    core_num: int
    core_type: str = "AiCore"

    def __post_init__(self):
        if self.core_type not in CORE_TYPES:
            raise ChipModelError(f"target {self.chip.name}: core type must be one of {CORE_TYPES}, "
                                 f"got {self.core_type!r}")
        if isinstance(self.core_num, bool) or not 1 <= int(self.core_num) <= self.chip.aicore_num:
            raise ChipModelError(f"target {self.chip.name}: core_num {self.core_num!r} is outside "
                                 f"1..{self.chip.aicore_num} (the chip's AI cores)")

    @classmethod
    def of(cls, chip: Chip, core_num: Optional[int] = None, core_type: Optional[str] = None) -> "Target":
        """The target of ``chip`` using ``core_num`` cores (None: all of them, and never more than the chip
        has) with ``core_type`` (None: "AiCore")."""
        cores = chip.aicore_num if core_num is None else min(int(core_num), chip.aicore_num)
        return cls(chip, cores, core_type or "AiCore")

    @property
    def name(self) -> str:
        """The chip's name ("Ascend910")."""
        return self.chip.name

    @property
    def overflow_mode(self) -> str:
        return self.chip.overflow_mode

    @property
    def saturates(self) -> bool:
        return self.chip.saturates

    @property
    def key(self) -> tuple:
        """(chip name, overflow mode, core_num, core_type): what a cache of built kernels keys on."""
        return (self.chip.name, self.chip.overflow_mode, self.core_num, self.core_type)

    def replace(self, chip: Union[Chip, None] = None, core_num: Optional[int] = None,
                core_type: Optional[str] = None) -> "Target":
        """This target with some fields changed (a new chip keeps the core limit, capped at its core count)."""
        chip = chip or self.chip
        cores = self.core_num if core_num is None else core_num
        return dataclasses.replace(self, chip=chip, core_num=min(int(cores), chip.aicore_num),
                                   core_type=core_type or self.core_type)

    def __eq__(self, other) -> bool:
        return isinstance(other, Target) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return (f"Target({self.chip.name}, overflow_mode={self.chip.overflow_mode!r}, core_num={self.core_num}, "
                f"core_type={self.core_type!r})")


__all__ = ["CORE_TYPES", "Target"]
