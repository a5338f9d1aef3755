"""TIK APIs npusim's instruction set cannot run yet: each raises TikInstructionUnsupportedError naming what the
simulator lacks, instead of an AttributeError a kernel author would take for a typo."""
from __future__ import annotations

from npusim.errors.tik import TikInstructionUnsupportedError

#: TIK API -> what the simulator lacks for it
MISSING = {
}


def _missing(name: str, lacks: str):
    def method(self, *args, **kwargs):
        raise TikInstructionUnsupportedError(f"tik_instance.{name} is not supported by npusim yet: the simulator "
                                             f"has no {lacks}")
    method.__name__ = name
    method.__doc__ = f"TIK ``{name}``: not supported yet (the simulator has no {lacks})."
    return method


class MissingMixin:
    """The TIK APIs of :data:`MISSING`, each raising TikInstructionUnsupportedError."""


for _name, _lacks in MISSING.items():
    setattr(MissingMixin, _name, _missing(_name, _lacks))

__all__ = ["MISSING", "MissingMixin"]
