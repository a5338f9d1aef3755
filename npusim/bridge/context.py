"""The device target with real MindSpore: scripts ask for "Ascend", MindSpore's CPU wheel runs them on "CPU".

MindSpore's CPU wheel refuses ``set_context(device_target="Ascend")`` and ``set_device("Ascend")``, and reporting
"Ascend" as its own target would switch on its Ascend-only code paths (GE, Ascend C Custom ops, kernel
selection) that the wheel cannot run.  So the bridge keeps MindSpore's target "CPU" and remembers the target the
script asked for (:func:`requested_target`), which decides where akg/hybrid Custom ops run (the simulated Ascend
device for "Ascend").  ``set_context`` applies ``device_target`` twice — through ``_Context.set_device_target``
and through the class's ``setters`` table (which holds the original function) — so both are replaced.
Ascend-only settings (``ascend_config``, ``max_device_memory``, ``variable_memory_max_size`` ...) pass: MindSpore
itself ignores them (with a warning) on a CPU target.
"""
from __future__ import annotations

from mindspore import context as ms_context
from mindspore import device_manager

#: the targets a script may ask for that MindSpore's CPU wheel cannot be: asked → remembered as
_SIMULATED_TARGETS = {"Ascend": "Ascend", "Davinci": "Ascend", "GPU": "GPU"}
#: the attribute of ``mindspore.context`` holding the bridge's record (process-wide, like MindSpore's context)
RECORD_ATTR = "_npusim_bridge_target"


class TargetRecord:
    """The device target the script asked for (``requested``); MindSpore itself stays on "CPU"."""

    def __init__(self, requested: str = "CPU"):
        self.requested = requested

    def accept(self, target):
        """Remember ``target`` (a str MindSpore validates) and return the one MindSpore is given."""
        if isinstance(target, str) and target in _SIMULATED_TARGETS:
            self.requested = _SIMULATED_TARGETS[target]
            return "CPU"
        if isinstance(target, str) and target == "CPU":
            self.requested = "CPU"
        return target


def record() -> TargetRecord | None:
    """The bridge's target record, None before :func:`install`."""
    return getattr(ms_context, RECORD_ATTR, None)


def requested_target() -> str:
    """The device target the script asked for ("CPU" when it asked for none, or before the bridge is on)."""
    found = record()
    return found.requested if found is not None else "CPU"


def install() -> TargetRecord:
    """Replace MindSpore's device-target setters (idempotent); returns the record."""
    found = record()
    if found is not None:
        return found
    target_record = TargetRecord()
    setattr(ms_context, RECORD_ATTR, target_record)
    _patch_set_device_target(target_record)
    _patch_set_device(target_record)
    return target_record


def _patch_set_device_target(target_record: TargetRecord) -> None:
    context_class = ms_context._Context
    original = context_class.set_device_target

    def set_device_target(self, target):
        """MindSpore's ``_Context.set_device_target`` under npusim's bridge: "Ascend" is remembered, "CPU" set."""
        return original(self, target_record.accept(target))

    set_device_target.__wrapped__ = original
    context_class.set_device_target = set_device_target
    context_class.setters["device_target"] = set_device_target


def _patch_set_device(target_record: TargetRecord) -> None:
    import mindspore
    original = device_manager.set_device

    def set_device(device_target, device_id=None):
        """``mindspore.set_device`` under npusim's bridge: "Ascend" is remembered, "CPU" set."""
        return original(target_record.accept(device_target), device_id)

    set_device.__wrapped__ = original
    set_device.__doc__ = (original.__doc__ or "") + "\n(npusim bridge: 'Ascend' runs on CPU with simulated Custom ops)"
    device_manager.set_device = set_device
    mindspore.set_device = set_device


__all__ = ["RECORD_ATTR", "TargetRecord", "install", "record", "requested_target"]
