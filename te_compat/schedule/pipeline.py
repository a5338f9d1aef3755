"""The kernel's control flow: blocks, the tile loop nest, ping-pong buffers and the flags between pipes.

Every block runs the same nest over its range of the block axis (the last block may span a different range).
Tiles along the innermost axis with more than one tile alternate between two UB arenas; per arena slot ``p``:

    wait_flag(FREE, p) -> MTE2 loads -> MTE2->V -> vector work -> V->MTE3 -> MTE3 stores -> set_flag(FREE, p)

Where the ping-pong tiles are leaves of the nest, each tile's loads are issued before the previous tile's vector
work (:mod:`te_compat.schedule.prefetch`), so the next tile streams in while this one is computed.
FREE is MTE3->MTE2 when tiles store outputs, V->MTE2 when they only feed accumulators.  In accumulate mode the
reduce axis is the innermost loop (A then C when both are reduced); around it the group stage initialises
accumulators, then after the last tile loads group inputs, computes the post-reduce nodes and stores the group's
outputs.  When blocks split the reduce axis (an atomic plan), the group end adds the block's partial results
into GM instead (:mod:`te_compat.schedule.emit_atomic`).  A multi-pass plan runs the tile loop once per pass
inside the group (:mod:`te_compat.schedule.emit_multipass`); FREE follows the pass (switched between passes).
"""
from __future__ import annotations

from te_compat.schedule import emit_atomic, emit_multipass, prefetch
from te_compat.schedule.common import ceil_div, plus, round_up
from te_compat.schedule.emit_cmpsel import bits_to_bytes
from te_compat.schedule.emit_moves import load_tile, store_tile
from te_compat.schedule.emit_reduce import init_acc
from te_compat.schedule.emitter import EVENT_GROUP, EVENT_MISC
from te_compat.schedule.env import ConstArg, NodeEnv, PlanEnv
from te_compat.schedule.layout import Tile, layouts_of
from te_compat.schedule.temps import emit_node
from te_compat.schedule.vec import Loc


class Nest:
    """Writes the body of one lowering (see the module docstring)."""

    def __init__(self, em, an, sched, gm: dict, ws=None):
        self.em, self.an, self.sched, self.gm, self.ws = em, an, sched, gm, ws
        if an.reduce_outer:      # B outside; the reduced A and C loops inside one accumulation group
            self.order, self.group_axis = [1, 0, 2], 0
        else:
            self.order = [a for a in range(3) if a != an.reduce_axis] + (
                [an.reduce_axis] if an.reduce_axis is not None else [])
            self.group_axis = an.reduce_axis
        self.stage, self.plan = sched.tile_stage, sched.tile_plan
        self.free = _free_of(self.stage)

    # -- whole kernel -------------------------------------------------------------------------------------------
    def emit(self) -> None:
        em, split = self.em, self.sched.split
        if self.sched.accumulate:
            em.set_flag("MTE3", "V", EVENT_GROUP)
            em.set_flag("V", "MTE2", EVENT_MISC)
        for slot in (0, 1):
            em.set_flag(*self.free, slot)
        if split.axis is None:
            self._blocks(None, 0)
        elif split.last_extent == split.per_block and split.last_start == (split.block_dim - 1) * split.per_block:
            self._blocks(split.per_block, em.kb.block_idx * split.per_block)
        else:
            with em.kb.if_scope(em.kb.block_idx < split.block_dim - 1):
                self._blocks(split.per_block, em.kb.block_idx * split.per_block)
            with em.kb.else_scope():
                self._blocks(split.last_extent, split.last_start)
        for slot in (0, 1):
            em.wait_flag(*self.free, slot)
        if self.sched.accumulate:
            em.wait_flag("MTE3", "V", EVENT_GROUP)
            em.wait_flag("V", "MTE2", EVENT_MISC)

    def _blocks(self, extent, base) -> None:
        ext = list(self.an.canon.extents)
        bases = [0, 0, 0]
        if extent is not None:
            ext[self.sched.split.axis] = extent
            bases[self.sched.split.axis] = base
        plans = []
        for axis in self.order:
            plans.append(self._axis_tiles(axis, ext[axis], bases[axis]))
        counts = [p[0][0] + (1 if p[1] else 0) for p in plans]
        multi = [i for i, c in enumerate(counts) if c > 1]
        self.pingpong = multi[-1] if multi else None
        self.plans = plans
        self._level(0, [0, 0, 0], [1, 1, 1], 0)

    def _axis_tiles(self, axis: int, extent: int, base) -> tuple:
        """(full: (count, size, base), tail: (start, size) or None) of the tiles along ``axis``."""
        size = min(self.sched.tile.extent(axis), extent)
        balanced = round_up(ceil_div(extent, ceil_div(extent, size)), self.sched.aligns[axis])
        size = min(size, balanced)
        count, rem = divmod(extent, size)
        if not rem:
            return (count, size, base), None
        if axis == self.an.reduce_axis:
            return (count, size, base), (plus(base, count * size), rem)
        return (count, size, base), (plus(base, extent - size), size)

    # -- loop nest ----------------------------------------------------------------------------------------------
    def _level(self, level: int, origin: list, sizes: list, slot: int) -> None:
        if level == len(self.order):
            self._tile(origin, sizes, slot)
            return
        axis = self.order[level]
        grouped = self.sched.accumulate and axis == self.group_axis
        if grouped and self.sched.multipass is not None:
            emit_multipass.group(self, level, axis, origin, sizes, slot)
            return
        if grouped:
            self.group_begin(sizes)
        self.tiles(level, axis, origin, sizes, slot)
        if grouped:
            self._group_end(origin, sizes)

    def tiles(self, level: int, axis: int, origin: list, sizes: list, slot: int) -> None:
        """The tiles along ``axis`` (level ``level`` of the nest), ping-pong when it is the ping-pong level."""
        (count, size, base), tail = self.plans[level]
        if level == self.pingpong:
            self._pingpong(level, axis, origin, sizes, count, size, base, tail)
        else:
            self._sequential(level, axis, origin, sizes, count, size, base, tail, slot)

    def use_stage(self, stage, plan) -> None:
        """Run the following tiles as ``stage`` with ``plan`` (a multi-pass plan's next pass); when the pass
        frees its slots from another pipe, each slot's FREE flag moves over (wait the old, set the new)."""
        free = _free_of(stage)
        if free != self.free:
            for slot in (0, 1):
                self.em.wait_flag(*self.free, slot)
                self.em.set_flag(*free, slot)
        self.stage, self.plan, self.free = stage, plan, free

    def _child(self, level, axis, origin, sizes, start, size, slot) -> None:
        origin, sizes = list(origin), list(sizes)
        origin[axis], sizes[axis] = start, size
        self._level(level + 1, origin, sizes, slot)

    def _sequential(self, level, axis, origin, sizes, count, size, base, tail, slot) -> None:
        if count > 1:
            with self.em.kb.for_range(0, count) as i:
                self._child(level, axis, origin, sizes, plus(base, i * size), size, slot)
        elif count == 1:
            self._child(level, axis, origin, sizes, base, size, slot)
        if tail:
            self._child(level, axis, origin, sizes, tail[0], tail[1], slot)

    def _pingpong(self, level, axis, origin, sizes, count, size, base, tail) -> None:
        if prefetch.applies(self, level):
            prefetch.pingpong(self, level, axis, origin, sizes, count, size, base, tail)
            return
        pairs = count // 2
        if pairs > 1:
            with self.em.kb.for_range(0, pairs) as j:
                for slot in (0, 1):
                    self._child(level, axis, origin, sizes, plus(base, (j * 2 + slot) * size), size, slot)
        elif pairs == 1:
            for slot in (0, 1):
                self._child(level, axis, origin, sizes, plus(base, slot * size), size, slot)
        if count % 2:
            self._child(level, axis, origin, sizes, plus(base, (count - 1) * size), size, 0)
        if tail:
            self._child(level, axis, origin, sizes, tail[0], tail[1], count % 2)

    # -- one tile -----------------------------------------------------------------------------------------------
    def _layouts(self, sizes: list) -> dict:
        return layouts_of(self.an, Tile(*sizes), self.sched.unit)

    def _tile(self, origin: list, sizes: list, slot: int) -> None:
        self.load_tile(origin, sizes, slot)
        self.work_tile(origin, sizes, slot)

    def load_tile(self, origin: list, sizes: list, slot: int) -> None:
        """A tile's first half: once ``slot`` is free, its loads; MTE2 -> V raised on the slot's event."""
        em, stage, plan = self.em, self.stage, self.plan
        layouts = self._layouts(sizes)
        em.wait_flag(*self.free, slot)
        for index in stage.loads:
            load_tile(em, self.gm[index], self._buf(plan, index, layouts, slot), layouts[index], origin, slot)
        em.set_flag("MTE2", "V", slot)

    def work_tile(self, origin: list, sizes: list, slot: int) -> None:
        """A tile's second half: once its loads are in, its vector work and stores; ``slot`` freed after."""
        em, stage, plan = self.em, self.stage, self.plan
        layouts = self._layouts(sizes)
        em.wait_flag("MTE2", "V", slot)
        for index in stage.computes:
            acc = None
            if self.sched.accumulate and index in self.sched.accs:
                acc = em.buf(self.sched.accs[index], self.an.graph.nodes[index].dtype, layouts[index])
            self._compute(plan, index, layouts, slot, acc)
        if stage.outputs:
            self._store(plan, stage.outputs, layouts, origin, slot, slot)
        em.set_flag(*self.free, slot)

    def _buf(self, plan, index: int, layouts: dict, slot: int):
        node = self.an.graph.nodes[index]
        return self.em.buf(plan.values[index], node.dtype, layouts[index], index in self.an.bits, slot)

    def _arg(self, plan, operand, layouts: dict, slot: int):
        if operand.is_const:
            return ConstArg(operand.value)
        if self.an.is_virtual(operand.node):
            return ConstArg(self.an.infos[operand.node].scalar)
        if operand.node not in plan.values:
            raise self._missing(operand.node)
        return self._buf(plan, operand.node, layouts, slot)

    def _missing(self, index: int):
        from te_compat.schedule.common import UnsupportedPattern
        return UnsupportedPattern(f"{self.an.graph.nodes[index].name} is computed per tile but needed per group")

    def _compute(self, plan, index: int, layouts: dict, slot: int, acc=None) -> None:
        info = self.an.infos[index]
        args = tuple(self._arg(plan, o, layouts, slot) for o in info.operands)
        temps = tuple(self.em.buf(r, "uint8", None, False, slot) for r in plan.temps[index])
        plan_env = PlanEnv(self.an, index, layouts, self.em.chip, plan.dying[index])
        emit_node(NodeEnv(self.em, plan_env, self._buf(plan, index, layouts, slot), args, temps, slot, acc))

    def _store(self, plan, outputs: tuple, layouts: dict, origin: list, slot: int, event: int) -> None:
        em = self.em
        for index in outputs:
            if index in self.an.bits:
                self._materialize(plan, index, layouts, slot)
        em.sync("V", "MTE3", event)
        for index in outputs:
            if index in self.an.bits:
                buf = em.buf(plan.out_bytes[index], "uint8", layouts[index], False, slot)
            else:
                buf = self._buf(plan, index, layouts, slot)
            store_tile(em, self.gm[index], buf, layouts[index], origin, slot)

    def _materialize(self, plan, index: int, layouts: dict, slot: int) -> None:
        em = self.em
        half, ones, zeros = (em.buf(r, "uint8", None, False, slot) for r in plan.out_temp)
        out = em.buf(plan.out_bytes[index], "uint8", layouts[index], False, slot)
        bits = self._buf(plan, index, layouts, slot)
        bits_to_bytes(em, bits, Loc(out, 0, "uint8"), layouts[index].flat, Loc(half, 0, "float16"), ones, zeros)

    # -- accumulate mode: the per-group stage -------------------------------------------------------------------
    def group_begin(self, sizes: list) -> None:
        """Wait until the previous group's stores left the group arena; accumulators := identities."""
        em = self.em
        layouts = self._layouts(sizes)
        em.wait_flag("MTE3", "V", EVENT_GROUP)
        for index, region in self.sched.accs.items():
            node = self.an.graph.nodes[index]
            acc = em.buf(region, node.dtype, layouts[index])
            init_acc(em, acc, self.an.infos[index].op, node.dtype, layouts[index].flat)

    def _group_end(self, origin: list, sizes: list) -> None:
        if self.sched.atomic is None:
            self.finish_group(origin, sizes)
        else:
            emit_atomic.group_end(self, origin, sizes)
        self.em.set_flag("MTE3", "V", EVENT_GROUP)

    def finish_group(self, origin: list, sizes: list) -> None:
        """Group inputs, post-reduce nodes and the group's output stores (the accumulators hold the results)."""
        em, stage, plan = self.em, self.sched.group_stage, self.sched.group_plan
        layouts = self._layouts(sizes)
        em.wait_flag("V", "MTE2", EVENT_MISC)
        for index in stage.loads:
            load_tile(em, self.gm[index], self._buf(plan, index, layouts, 0), layouts[index], origin, 0)
        em.sync("MTE2", "V", EVENT_GROUP)
        for index in stage.computes:
            self._compute(plan, index, layouts, 0)
        em.set_flag("V", "MTE2", EVENT_MISC)
        self._store(plan, stage.outputs, layouts, origin, 0, EVENT_GROUP)


def _free_of(stage) -> tuple:
    """The flag that frees a tile slot: MTE3 -> MTE2 when the stage stores, else V -> MTE2."""
    return ("MTE3", "MTE2") if stage.outputs else ("V", "MTE2")
