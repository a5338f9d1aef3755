"""An AICPU op run from a library file the op test found (:mod:`npusim.optest.impls`), not from a ``cust_aicpu``
name: npusim's AICPU backend (call plans, attribute encoding, the worker) with the library path fixed."""
from __future__ import annotations

from pathlib import Path

from npusim.custom.backends.aicpu import AicpuBackend
from npusim.custom.backends.base import OpDesc


class LibraryAicpuBackend(AicpuBackend):
    """:class:`~npusim.custom.backends.aicpu.AicpuBackend` whose kernel library is ``library`` whatever
    ``cust_aicpu`` says (the op test already picked the library that registers the op type)."""

    def __init__(self, desc: OpDesc, library: str, runtime=None):
        super().__init__(desc, runtime)
        self.library = Path(library)

    def _library(self, name) -> Path:
        return self.library


__all__ = ["LibraryAicpuBackend"]
