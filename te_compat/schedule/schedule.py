"""``auto_schedule`` and :class:`NpuSchedule`: a DSL graph -> an npusim kernel of vector instructions.

``auto_schedule(res)`` (an API edge: it takes the current runtime's target) analyses the tagged graph for that
target (its pattern is ``classification``); ``lower(tensor_list, name, runtime)`` chooses the block split and
tiles for the runtime's target and writes the kernel, whose parameters are the ``tensor_list`` tensors in order.
A graph with no vector mapping (an untagged compute, concat, ...) goes to the scalar-pipe fallback,
``te_compat.fallback.lower_scalar``, with the reason.
"""
from __future__ import annotations

import re
from math import prod

from npusim.errors.tbe import TbeScheduleError
from te_compat.objects import raw_tree
from te_compat.schedule import emit_atomic
from te_compat.schedule.classify import analyze
from te_compat.schedule.common import UnsupportedPattern, ceil_div, gm_dtype
from te_compat.schedule.emit_moves import gm_tensor
from te_compat.schedule.emitter import Emitter, NeedScratch
from te_compat.schedule.layout import gm_geometry
from te_compat.schedule.pipeline import Nest
from te_compat.schedule.tiling import choose, misc_bytes, vector_cores

_RESERVED = re.compile(r"^(i\d+|t\d+|s\d+|r\d+|r_.*|ub_.*|ws_.*|block_idx)$")


class NpuSchedule:
    """The schedule of one DSL graph.  ``outputs``: the output tensors; ``classification``: "elewise",
    "broadcast", "reduce_last", "reduce_nlast", "reduce_all", "norm" or "fallback"; ``fallback_reason``: why
    the scalar path is used (None otherwise); ``plan``: the block/tile plan of the last lowering;
    ``tiles_per_block``: how many UB tiles one block runs in it; ``runtime``: the runtime (target) it was made
    for."""

    def __init__(self, outs, runtime, option=None):
        outs = raw_tree(outs)  # surface wrappers accepted
        self.outputs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        self.option = option
        self.plan = None
        self._lowered = None
        self.fallback_reason = None
        self.runtime = runtime
        try:
            self._analysis = analyze(self.outputs, chip=runtime.target.chip)
            self.classification = self._analysis.pattern
        except UnsupportedPattern as exc:
            self._analysis = None
            self._use_fallback(exc.reason)

    def _use_fallback(self, reason: str) -> None:
        self.classification = "fallback"
        self.fallback_reason = reason
        self.plan = self._lowered = None

    def lower(self, tensor_list, name: str, runtime=None):
        """The npusim Kernel computing this graph for ``runtime``'s target (None: the one ``auto_schedule`` was
        given); parameters are ``tensor_list`` in order."""
        tensor_list = list(raw_tree(tensor_list))
        runtime = runtime or self.runtime
        if self.fallback_reason is None:
            try:
                return self._lower_vector(tensor_list, name, runtime.target)
            except UnsupportedPattern as exc:
                self._use_fallback(exc.reason)
        return _fallback(self.outputs, tensor_list, name, self.fallback_reason, runtime)

    def _lower_vector(self, tensor_list: list, name: str, target):
        extra = [t for t in tensor_list if type(t.op).__name__ != "PlaceholderOp"
                 and not any(t.same_as(o) for o in self.outputs)]
        chip = target.chip
        # constants fold with the chip's instructions: another target than auto_schedule's needs a fresh analysis
        stale = target != self.runtime.target
        an = analyze(self.outputs, extra, chip) if extra or stale else self._analysis
        try:
            return self._write(an, target, tensor_list, name, 0)
        except NeedScratch:
            return self._write(an, target, tensor_list, name, misc_bytes(chip))

    @property
    def tiles_per_block(self) -> int:
        """UB tiles one block runs in the last vector lowering (1 for the fallback or before ``lower``)."""
        if self.plan is None or self._lowered is None:
            return 1
        extents = list(self._lowered.canon.extents)
        split = self.plan.split
        if split.axis is not None:
            extents[split.axis] = split.per_block
        return prod(ceil_div(extents[a], self.plan.tile.extent(a)) for a in range(3))

    def _write(self, an, target, tensor_list: list, name: str, misc_bytes: int):
        chip = target.chip
        sched = choose(an, chip, misc_bytes, vector_cores(chip, target.core_num))
        self.plan, self._lowered = sched, an
        em = Emitter(name, chip, sched.arena_bytes)
        clean = set(sched.atomic.reduces) if sched.atomic is not None and sched.atomic.direct else set()
        handles, gm = _declare_params(em, an, tensor_list, clean)
        _check_params(an, gm, name)
        ws = emit_atomic.declare_workspaces(em, an, sched.atomic, sched.unit)
        Nest(em, an, sched, gm, ws).emit()
        return em.kb.build(inputs=handles, outputs=[], block_dim=sched.split.block_dim)


def auto_schedule(outs, option=None, runtime=None) -> NpuSchedule:
    """TBE's ``auto_schedule``: the schedule of the DSL graph ending in ``outs`` (a tensor or a list) for
    ``runtime``'s target (None: the current runtime, read here at the API edge)."""
    if runtime is None:
        from npusim.sim.runtime import current_runtime
        runtime = current_runtime()
    from te_compat.cube import CubeSchedule, is_cube_graph    # a matmul node: the cube schedule (te_compat.cube)
    from te_compat.pooling import PoolingSchedule, is_pooling_graph    # pooling2d: te_compat.pooling
    if is_pooling_graph(outs):
        return PoolingSchedule(outs, runtime, option)
    return CubeSchedule(outs, runtime, option) if is_cube_graph(outs) else NpuSchedule(outs, runtime, option)


def _param_name(tensor, used: set, position: int) -> str:
    base = re.sub(r"\W", "_", str(getattr(tensor, "name", "") or getattr(tensor.op, "name", "")))
    if not base or base[0].isdigit() or _RESERVED.match(base):
        base = f"arg{position}_{base}" if base else f"arg{position}"
    name, suffix = base, 1
    while name in used:
        name, suffix = f"{base}_{suffix}", suffix + 1
    used.add(name)
    return name


def _declare_params(em, an, tensor_list: list, clean: set) -> tuple:
    """GM parameters for ``tensor_list``; the outputs of nodes in ``clean`` are atomic_clean (zeroed by the
    runtime before each launch)."""
    handles, gm, used = [], {}, set()
    for position, tensor in enumerate(tensor_list):
        dtype = str(tensor.dtype)
        shape = tuple(int(d) for d in tensor.shape)
        try:
            node = an.graph.node_of(tensor)
        except KeyError:
            node = None
        handle = em.kb.tensor(dtype, shape, "GM", _param_name(tensor, used, position),
                              atomic_clean=node is not None and node.index in clean)
        handles.append(handle)
        if node is None:
            continue
        view = handle.reinterpret_cast_to(gm_dtype(dtype)) if dtype == "bool" else handle
        mask = an.mask(node.index)
        gm[node.index] = gm_tensor(em.chip, view, gm_dtype(dtype), gm_geometry(mask, an.canon.extents), mask)
    return handles, gm


def _check_params(an, gm: dict, name: str) -> None:
    for node in an.graph.nodes:
        if node.is_placeholder and an.consumers(node.index) and node.index not in gm:
            raise TbeScheduleError(f"kernel {name}: input {node.name} is used by the graph but missing from "
                                   f"tensor_list")
    for index in an.outputs:
        if index not in gm:
            raise TbeScheduleError(f"kernel {name}: output {an.graph.nodes[index].name} is missing from "
                                   f"tensor_list")


def _fallback(outs: list, tensor_list: list, name: str, reason: str, runtime):
    try:
        from te_compat.fallback import lower_scalar
    except ImportError as exc:
        raise TbeScheduleError(f"kernel {name}: the graph has no vector mapping ({reason}) and the scalar-pipe "
                               f"fallback is not available ({exc})") from exc
    return lower_scalar(outs, tensor_list, name, reason, runtime)
