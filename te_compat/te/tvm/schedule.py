"""``tvm.create_schedule`` of CANN's TVM.

TVM 0.27 has no TE stage schedules, and npusim schedules DSL graphs itself (``auto_schedule``).  A
:class:`LegacySchedule` records the outputs of the graph; ``cce_build_code`` compiles such a schedule through the
scalar-pipe fallback (correct results, a warning, scalar-pipe cycle costs).  Stage primitives (``s[t].split`` ...)
are not modelled and say so.
"""
from __future__ import annotations

from npusim.errors import TbeTypeError, UnsupportedError


class LegacySchedule:
    """What ``tvm.create_schedule(ops)`` returns: the graph's output tensors, as given (surface tensors; the build
    unwraps them)."""

    def __init__(self, outputs):
        self.outputs = list(outputs)

    def __getitem__(self, tensor):
        name = getattr(tensor, "name", tensor)
        raise UnsupportedError(f"s[{name}]: old-TVM stage primitives (split, reorder, set_scope, emit_insn ...) are "
                               f"not modelled by npusim; build the schedule with auto_schedule, or pass this "
                               f"schedule to cce_build_code unchanged (it then runs on the scalar pipe)")

    def __repr__(self) -> str:
        return f"LegacySchedule(outputs={[t.name for t in self.outputs]})"


def _outputs_of(item) -> list:
    if hasattr(item, "op") and hasattr(item, "shape"):  # a tensor
        return [item]
    if hasattr(item, "num_outputs"):  # an operation
        return [item.output(i) for i in range(item.num_outputs)]
    raise TbeTypeError(f"create_schedule expects operations or tensors, got {type(item).__name__}")


def create_schedule(ops) -> LegacySchedule:
    """A schedule of the operations (or tensors) ``ops`` (one or a list)."""
    items = ops if isinstance(ops, (list, tuple)) else [ops]
    outputs = []
    for item in items:
        outputs.extend(_outputs_of(item))
    return LegacySchedule(outputs)


Schedule = LegacySchedule

__all__ = ["LegacySchedule", "Schedule", "create_schedule"]
