"""``te.platform.fusion_manager``: registration of op compute functions for UB fusion.

npusim does not fuse separately built ops (each Custom op is its own kernel), so ``register`` is a pass-through
decorator that only records the compute function under its op name; ``get_op_compute`` returns it.
"""
from __future__ import annotations

from npusim.errors import TbeArgumentError

_BUILD_CFG_VALUES = ("enable", "disable")


class FusionManager:
    """The ``fusion_manager`` object: a registry of op compute functions and the fusion build switch."""

    def __init__(self):
        self._computes: dict = {}  # op name -> compute function (an explicit registry)
        self._build_cfg = "enable"
        self._current_op_name = ""

    def register(self, op_name: str):
        """Decorator: record ``func`` as the compute of ``op_name`` and return it unchanged."""
        if not isinstance(op_name, str) or not op_name:
            raise TbeArgumentError(f"fusion_manager.register needs a non-empty op name, got {op_name!r}")

        def decorator(func):
            self._computes[op_name] = func
            return func

        return decorator

    def has_op_compute(self, op_name: str) -> bool:
        return op_name in self._computes

    def get_op_compute(self, op_name: str):
        """The compute function registered for ``op_name``."""
        if op_name not in self._computes:
            raise TbeArgumentError(f"fusion_manager: no compute registered for op {op_name!r}")
        return self._computes[op_name]

    def get_build_cfg(self) -> str:
        """"enable" (default) or "disable"; shape refinement helpers skip their work when "disable"."""
        return self._build_cfg

    def set_build_cfg(self, value: str) -> None:
        if value not in _BUILD_CFG_VALUES:
            raise TbeArgumentError(f"fusion_manager.set_build_cfg: {value!r} is not one of {_BUILD_CFG_VALUES}")
        self._build_cfg = value

    def set_current_op_name(self, op_name: str) -> None:
        self._current_op_name = str(op_name)

    def get_current_op_name(self) -> str:
        return self._current_op_name

    def get_fusion_build_cfg(self) -> dict:
        """Build options a fused build would add: none in npusim."""
        return {}


#: the process-wide fusion manager (CANN's is a module-level singleton too)
fusion_manager = FusionManager()

__all__ = ["FusionManager", "fusion_manager"]
