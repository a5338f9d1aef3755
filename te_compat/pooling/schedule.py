"""``PoolingSchedule``: what ``auto_schedule`` returns for a ``pooling2d`` graph; ``lower`` writes the vector
kernel of :mod:`te_compat.pooling.kernel` (the scalar-pipe fallback when the plan does not fit, with the reason).
"""
from __future__ import annotations

import re

from npusim.errors.tbe import TbeScheduleError
from te_compat.objects import raw_tree
from te_compat.pooling.kernel import PoolWriter
from te_compat.pooling.plan import POOL_TAGS, SLOTS, choose_plan, read_params
from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.emitter import Emitter
from te_compat.schedule.tiling import vector_cores

VECTOR_MODES = ("MAX", "AVG", "GMP")   # GAP (a float32 global sum on the chip) stays on the scalar path


def _outputs(outs) -> list:
    outs = raw_tree(outs)
    return list(outs) if isinstance(outs, (list, tuple)) else [outs]


def _is_placeholder(tensor) -> bool:
    return type(tensor.op).__name__ == "PlaceholderOp"


def pooling_input(out):
    """The placeholder a ``pooling2d`` output reads (None when ``out`` is not a bare pooling2d of a
    placeholder: a fused graph goes to the general scheduler)."""
    op = getattr(out, "op", None)
    if str(getattr(op, "tag", "")) not in POOL_TAGS or "pool_mode" not in getattr(op, "attrs", {}):
        return None
    if str(op.attrs["pool_mode"]) not in VECTOR_MODES:
        return None
    source = op.input_tensors
    if str(op.tag) == "pooling2d_avg":
        if len(source) != 1 or str(source[0].op.tag) != "pooling2d_avg_sum":
            return None
        source = source[0].op.input_tensors
    if len(source) != 1 or not _is_placeholder(source[0]):
        return None
    return source[0]


def is_pooling_graph(outs) -> bool:
    """Whether ``outs`` is one ``pooling2d`` (MAX / AVG / GMP) of a placeholder: the vector pooling schedule."""
    outputs = _outputs(outs)
    return len(outputs) == 1 and pooling_input(outputs[0]) is not None


class PoolingSchedule:
    """The schedule of a ``pooling2d`` graph (``classification`` "pooling2d", "fallback" after a lowering that
    did not fit); ``plan``: the :class:`~te_compat.pooling.plan.PoolPlan` of the last lowering."""

    def __init__(self, outs, runtime, option=None):
        self.outputs = _outputs(outs)
        self.runtime, self.option = runtime, option
        self.input = pooling_input(self.outputs[0])
        self.params = read_params(self.outputs[0])
        self.classification = "pooling2d"
        self.fallback_reason = None
        self.plan = None

    def lower(self, tensor_list, name: str, runtime=None):
        """The npusim Kernel of this pooling for ``runtime``'s target (None: auto_schedule's); parameters are
        ``tensor_list`` in order."""
        tensor_list = list(raw_tree(tensor_list))
        runtime = runtime or self.runtime
        try:
            return self._lower_vector(tensor_list, name, runtime)
        except UnsupportedPattern as exc:
            self.classification, self.fallback_reason, self.plan = "fallback", exc.reason, None
            from te_compat.fallback import lower_scalar
            return lower_scalar(self.outputs, tensor_list, name, exc.reason, runtime)

    def _lower_vector(self, tensor_list: list, name: str, runtime):
        target = runtime.target
        chip = target.chip
        plan = choose_plan(self.params, chip, vector_cores(chip, target.core_num))
        arenas = {f"slot{s}": plan.slot_bytes for s in range(SLOTS)}
        arenas["factor"] = plan.factor_bytes
        em = Emitter(name, chip, arenas)
        handles = []
        gm_in = gm_out = None
        for position, tensor in enumerate(tensor_list):
            handle = em.kb.tensor(str(tensor.dtype), tuple(int(d) for d in tensor.shape), "GM",
                                  _param_name(tensor, position))
            handles.append(handle)
            if tensor.same_as(self.input):
                gm_in = handle
            elif tensor.same_as(self.outputs[0]):
                gm_out = handle
        for handle, role in ((gm_in, f"input {self.input.op.name}"), (gm_out, f"output {self.outputs[0].op.name}")):
            if handle is None:
                raise TbeScheduleError(f"kernel {name}: the pooling {role} is missing from tensor_list")
        PoolWriter(em, plan, gm_in, gm_out).emit()
        kernel = em.kb.build(inputs=handles, outputs=[], block_dim=plan.block_dim, check=runtime)
        self.plan = plan
        return kernel


def _param_name(tensor, position: int) -> str:
    return f"arg{position}_{re.sub(r'[^0-9A-Za-z_]', '_', str(tensor.op.name))}"


__all__ = ["PoolingSchedule", "is_pooling_graph", "pooling_input"]
