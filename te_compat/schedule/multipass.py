"""Norms whose reduced row does not fit UB: several passes over the row, re-reading the input from GM.

A norm (a reduce result broadcast back over the reduced axis: softmax, x - mean(x), layer norm) normally keeps
the whole reduce axis in one tile.  When one row of it does not fit UB, TBE's norm schedule streams the row
again; so does this plan.  The row is cut into UB-sized chunks and the group (the tiles of one row along the
reduce axis) runs:

* per-row inputs (a (N, 1) tensor) are loaded and per-row nodes of them computed into the group arena;
* pass k = 1 .. K (K: the longest chain of reduces, softmax: 2, max then sum): every chunk is loaded from GM,
  the element-wise nodes feeding the reduces of depth k are recomputed, and those reduces accumulate into the
  group arena (their per-row results are small and stay in UB);
* after pass k the per-row nodes of depth k (a mean, rsqrt(var + eps)) run once on the group arena;
* the final pass loads the chunks once more, computes the outputs that span the reduce axis with the per-row
  values broadcast back, and stores them; per-row outputs are stored at the group end.

The input is read K + 1 times and nothing is written to a workspace, so the cycle estimate counts the real GM
traffic of that choice.  Blocks split the kept axes as in the regular plan; a graph that reduces everything (one
row) runs on one core.
"""
from __future__ import annotations

from dataclasses import dataclass

from te_compat.schedule.alloc import Region, Stage, StagePlan, plan_stage
from te_compat.schedule.common import UnsupportedPattern
from te_compat.schedule.layout import Tile, buffer_bytes, layouts_of


@dataclass(frozen=True)
class Pass:
    """One stream over the row: the tile ``stage`` (reduces of ``depth`` accumulate; the final pass stores the
    row outputs) and its UB ``plan``; ``after``: per-row nodes computed once when the pass is over."""

    depth: int
    stage: Stage
    plan: StagePlan
    after: tuple


@dataclass(frozen=True)
class MultiPassPlan:
    """The passes in order, the group stage holding every per-row node (``group_plan``: their fixed regions and
    the temporaries of the per-row computes), the per-row ``outputs`` stored at the group end, the per-row
    inputs ``loads`` and the per-row nodes ``first`` computed from them (or constants) when the group begins."""

    passes: tuple
    group_stage: Stage
    group_plan: StagePlan
    outputs: tuple
    loads: tuple = ()
    first: tuple = ()

    @property
    def tile_peak(self) -> int:
        """The largest tile arena any pass needs."""
        return max(p.plan.peak for p in self.passes)


@dataclass(frozen=True)
class _Structure:
    group: tuple          # per-row nodes (lack the reduce axis, computed from a reduce), graph order
    reduces: tuple
    depth: dict           # node -> reduces on its longest input chain (itself included)
    passes: tuple         # per pass: (depth, loads, computes, outputs, held)


def plan(an, chip, unit: int, tile: Tile) -> tuple:
    """(MultiPassPlan, layouts, accumulator regions) of ``an`` with chunks ``tile`` of the reduce axis."""
    st = _structure(an)
    layouts = layouts_of(an, tile, unit)
    regions, offset = {}, 0
    for index in st.group:
        nbytes = buffer_bytes(chip, layouts[index], an.graph.nodes[index].dtype, bits=index in an.bits)
        regions[index] = Region("group", offset, nbytes)
        offset += nbytes
    loads = tuple(i for i in st.group if an.infos[i].kind == "input")
    computes = tuple(i for i in st.group if i not in st.reduces and i not in loads)
    outputs = tuple(o for o in an.outputs if o in regions)
    group_stage = Stage("group", (), computes, outputs, st.group)
    group_plan = plan_stage(an, group_stage, layouts, chip, preset=regions)
    passes = []
    for depth, tile_loads, tile_computes, tile_outputs, held in st.passes:
        stage = Stage("tile", tile_loads, tile_computes, tile_outputs, held)
        stage_plan = plan_stage(an, stage, layouts, chip, preset={i: regions[i] for i in held})
        passes.append(Pass(depth, stage, stage_plan, tuple(i for i in computes if st.depth[i] == depth)))
    first = tuple(i for i in computes if st.depth[i] == 0)
    accs = {i: regions[i] for i in st.reduces}
    return MultiPassPlan(tuple(passes), group_stage, group_plan, outputs, loads, first), layouts, accs


def usage_bytes(mp: MultiPassPlan) -> int:
    """UB the plan needs: two tile arenas (ping / pong) and the group arena."""
    return 2 * mp.tile_peak + mp.group_plan.peak


def _structure(an) -> _Structure:
    reduces = an.reducing
    group = _group_nodes(an, reduces)
    depth = {}
    for node in an.graph.nodes:
        operands = an.operand_nodes(node.index)
        depth[node.index] = max((depth[o] for o in operands), default=0) + (1 if node.index in reduces else 0)
    passes = []
    for k in range(1, max(depth[r] for r in reduces) + 1):
        passes.append(_pass(an, k, [r for r in reduces if depth[r] == k], (), group))
    row_outputs = tuple(o for o in an.outputs if o not in group)
    if row_outputs:
        passes.append(_pass(an, len(passes) + 1, list(row_outputs), row_outputs, group))
    return _Structure(group, reduces, depth, tuple(passes))


def _group_nodes(an, reduces: tuple) -> tuple:
    """Per-row nodes in graph order: those computed from a reduce that lack the reduce axis, and the per-row
    tensors (inputs included) they read."""
    ra = an.reduce_axis
    group = {i for i in an.post if not an.mask(i)[ra] and not an.is_virtual(i)}
    stack = [i for i in group if i not in reduces]
    while stack:
        index = stack.pop()
        for o in an.operand_nodes(index):
            if an.is_virtual(o) or o in group:
                continue
            if an.mask(o)[ra]:
                raise UnsupportedPattern(f"per-row node {an.graph.nodes[index].name} of a norm whose row exceeds "
                                         f"UB reads {an.graph.nodes[o].name}, which spans the reduce axis")
            group.add(o)
            if an.infos[o].kind != "input":
                stack.append(o)
    return tuple(n.index for n in an.graph.nodes if n.index in group)


def _pass(an, depth: int, roots: list, outputs: tuple, group: tuple) -> tuple:
    """(depth, loads, computes, outputs, held) of the pass computing ``roots`` per chunk."""
    need, stack = set(), list(roots)
    while stack:
        index = stack.pop()
        if index in need:
            continue
        need.add(index)
        stack.extend(o for o in an.operand_nodes(index) if o not in group and not an.is_virtual(o))
    ordered = [n.index for n in an.graph.nodes if n.index in need]
    loads = tuple(i for i in ordered if an.infos[i].kind == "input")
    computes = tuple(i for i in ordered if an.infos[i].kind != "input")
    held = tuple(dict.fromkeys(o for i in computes for o in an.operand_nodes(i) if o in group))
    return depth, loads, computes, outputs, held
