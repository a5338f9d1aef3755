"""The end of a block's accumulation group when blocks split the reduce axis (see :mod:`te_compat.schedule.atomic`).

direct: the partial sums (padding lanes of their last block zeroed, so the whole-block moves add 0 to the
bytes past the result) are moved into the atomic-clean outputs under ``set_atomic_add``.

two_stage: the partial sum, as float32, is added into the atomic-clean workspace, then a block holding 1.0 into
the atomic-clean counter; once both adds are complete (MTE3 -> MTE2) the block reads the counter back, and if it
reads block_dim it loads the total into the reduce's accumulator and finishes the group as a single-core kernel
would (group inputs, post-reduce nodes, output stores).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from npusim.sim.geometry import DATA_MOVE_BURST_MAX
from te_compat.schedule.alloc import Region
from te_compat.schedule.atomic import WORK_DTYPE, counter_elems, kept_tile
from te_compat.schedule.common import ceil_div, itemsize, per_block, rep_stride, round_up
from te_compat.schedule.emit_cast import conversion_steps, run_steps
from te_compat.schedule.emitter import EVENT_GROUP, EVENT_MISC
from te_compat.schedule.layout import buffer_bytes, layout_of
from te_compat.schedule.vec import Loc

EVENT_DONE = 0           # MTE3 -> MTE2: this block's atomic adds are complete before it reads the counter


@dataclass(frozen=True)
class Workspaces:
    """The two-stage GM workspaces: ``partial`` (float32, the kept elements) and ``counter`` (one block of
    float32)."""

    partial: object
    counter: object


def declare_workspaces(em, an, plan, unit: int) -> Optional[Workspaces]:
    """Declare the atomic-clean workspaces of a two-stage plan (None for other plans)."""
    if plan is None or plan.direct:
        return None
    count = layout_of(an.mask(plan.reduces[0]), kept_tile(an), unit).count
    partial = em.kb.tensor(WORK_DTYPE, (round_up(count, per_block(em.chip, WORK_DTYPE)),), "GM",
                           "ws_atomic_partial", is_workspace=True, atomic_clean=True)
    counter = em.kb.tensor(WORK_DTYPE, (counter_elems(em.chip),), "GM", "ws_atomic_count", is_workspace=True,
                           atomic_clean=True)
    return Workspaces(partial, counter)


def group_end(nest, origin: list, sizes: list) -> None:
    """Emit the group end of an atomic plan (the caller then raises MTE3 -> V for the next group)."""
    em, plan = nest.em, nest.sched.atomic
    layouts = nest._layouts(sizes)
    accs = {i: em.buf(nest.sched.accs[i], nest.an.graph.nodes[i].dtype, layouts[i]) for i in plan.reduces}
    if not plan.direct:
        _two_stage(nest, accs, layouts, origin, sizes)
        return
    for index, acc in accs.items():
        zero_tail(em, Loc(acc), layouts[index].count)
    em.sync("V", "MTE3", EVENT_GROUP)
    for index, acc in accs.items():
        em.kb.set_atomic_add(acc.dtype)
        move_blocks(em, nest.gm[index].handle, Loc(acc), layouts[index].count)
    em.kb.set_atomic_none()


def zero_tail(em, loc: Loc, count: int) -> None:
    """Zero the lanes after element ``count`` up to the end of its block (one masked vector_dup)."""
    epb = per_block(em.chip, loc.dt)
    rest = count % epb
    if rest:
        low = ((1 << epb) - 1) ^ ((1 << rest) - 1)
        em.kb.vector_dup((0, low), loc.ref(count - rest), 0, 1, 1, rep_stride(em.chip, loc.dt))


def move_blocks(em, gm, src: Loc, count: int) -> None:
    """Contiguous moves of the whole blocks holding ``count`` elements of ``src`` to GM tensor ``gm``."""
    for offset, blocks in _chunks(em.chip, count, src.dt):
        em.kb.data_move(gm[offset], src.ref(offset), 0, 1, blocks, 0, 0)


def _load_blocks(em, dst: Loc, gm, count: int) -> None:
    for offset, blocks in _chunks(em.chip, count, dst.dt):
        em.kb.data_move(dst.ref(offset), gm[offset], 0, 1, blocks, 0, 0)


def _chunks(chip, count: int, dtype: str) -> list:
    """(element offset, blocks) of the moves covering ``count`` elements in whole blocks of ``chip``."""
    most = DATA_MOVE_BURST_MAX
    blocks = ceil_div(count * itemsize(dtype), chip.block_bytes)
    step = most * chip.block_bytes // itemsize(dtype)
    return [(k * step, min(most, blocks - k * most)) for k in range(ceil_div(blocks, most))]


def _convert(em, src: Loc, dst: Loc, n: int) -> None:
    run_steps(em, conversion_steps(em.chip, src.dt, dst.dt, ""), src, dst, n, ())


def _two_stage(nest, accs: dict, layouts: dict, origin: list, sizes: list) -> None:
    em, ws = nest.em, nest.ws
    index, acc = next(iter(accs.items()))
    layout = layouts[index]
    count, n = layout.count, layout.flat
    staging_bytes = buffer_bytes(em.chip, layout, WORK_DTYPE)
    staging = Loc(em.buf(Region("atomic", 0, staging_bytes), WORK_DTYPE))
    counters = em.buf(Region("atomic", staging_bytes, em.chip.repeat_bytes), WORK_DTYPE)
    elems, stride = counter_elems(em.chip), rep_stride(em.chip, WORK_DTYPE)
    one, back = Loc(counters), Loc(counters, elems)
    partial = Loc(acc) if acc.dtype == WORK_DTYPE else staging
    if partial is staging:
        _convert(em, Loc(acc), staging, n)
    zero_tail(em, partial, count)
    em.kb.vector_dup(elems, one.ref(), 0.0, 1, 1, stride)
    em.kb.vector_dup(1, one.ref(), 1.0, 1, 1, stride)
    em.sync("V", "MTE3", EVENT_GROUP)
    em.kb.set_atomic_add(WORK_DTYPE)
    move_blocks(em, ws.partial, partial, count)
    move_blocks(em, ws.counter, one, 1)
    em.kb.set_atomic_none()
    em.sync("MTE3", "MTE2", EVENT_DONE)
    _load_blocks(em, back, ws.counter, 1)
    em.sync("MTE2", "S", EVENT_MISC)
    done = em.reg(WORK_DTYPE, "done")
    done.set_as(back.ref())
    with em.kb.if_scope(done == float(nest.sched.split.block_dim)):
        _load_blocks(em, partial, ws.partial, count)
        em.sync("MTE2", "V", EVENT_GROUP)
        if partial is staging:
            _convert(em, staging, Loc(acc), n)
        nest.finish_group(origin, sizes)
