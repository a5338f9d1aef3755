"""The accumulation group of a multi-pass norm (see :mod:`te_compat.schedule.multipass`): one row (or one
column block, when the reduce axis is B) streamed from GM once per pass.

    group begin (accumulators := identities; per-row inputs loaded, per-row nodes of them computed)
    for each pass: tiles of the reduce axis as that pass's stage (ping-pong), then its per-row nodes
    per-row outputs stored; MTE3 -> V released for the next group

The FREE flags of the tile slots follow the pass (V -> MTE2 for passes that only accumulate, MTE3 -> MTE2 for the
final pass that stores) and are back on the first pass's flag when the group ends, so every group (and loop
iteration) starts in the same state.  Per-row inputs are loaded once V is done with the previous group's
(V -> MTE2 on EVENT_MISC, released at the group end).
"""
from __future__ import annotations

from te_compat.schedule.emit_moves import load_tile
from te_compat.schedule.emitter import EVENT_GROUP, EVENT_MISC


def group(nest, level: int, axis: int, origin: list, sizes: list, slot: int) -> None:
    """Emit the group at nest level ``level`` (the reduce axis ``axis``)."""
    em, mp = nest.em, nest.sched.multipass
    layouts = nest._layouts(sizes)
    nest.group_begin(sizes)
    if mp.loads or mp.first:
        _per_row_inputs(nest, origin, layouts)
    for one in mp.passes:
        nest.use_stage(one.stage, one.plan)
        nest.tiles(level, axis, origin, sizes, slot)
        for index in one.after:
            nest._compute(mp.group_plan, index, layouts, 0)
    first = mp.passes[0]
    nest.use_stage(first.stage, first.plan)
    if mp.outputs:
        nest._store(mp.group_plan, mp.outputs, layouts, origin, 0, EVENT_GROUP)
    if mp.loads:
        em.set_flag("V", "MTE2", EVENT_MISC)
    em.set_flag("MTE3", "V", EVENT_GROUP)


def _per_row_inputs(nest, origin: list, layouts: dict) -> None:
    em, mp = nest.em, nest.sched.multipass
    if mp.loads:
        em.wait_flag("V", "MTE2", EVENT_MISC)
        for index in mp.loads:
            load_tile(em, nest.gm[index], nest._buf(mp.group_plan, index, layouts, 0), layouts[index], origin, 0)
        em.sync("MTE2", "V", EVENT_GROUP)
    for index in mp.first:
        nest._compute(mp.group_plan, index, layouts, 0)
