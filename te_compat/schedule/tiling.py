"""Block split and UB tiling, the way TBE's schedules choose them.

Blocks: the outermost axis that no reduce crosses and every output spans is split into per-block ranges (at
most the chip's vector cores, each range a whole number of block runs of every output and at least one block of it).
Tiles: inside a block, the largest tile whose buffers (double-buffered) fit UB: whole (B, C) slabs over several
A, else runs of B rows, else column chunks of rows too long for UB.  A tile that splits the reduce axis makes the
kernel accumulate across tiles (always when A is reduced too: tiles are then one A row each); a graph that
broadcasts a reduce result back keeps the whole reduce axis in one tile, or, when one row of it does not fit,
streams the row several times in chunks (:mod:`te_compat.schedule.multipass`).  A sum whose kept part gives the
cores too little work splits the reduce axis itself over the blocks, which meet through atomic adds
(:mod:`te_compat.schedule.atomic`).
"""
from __future__ import annotations

from dataclasses import dataclass
from math import gcd

from te_compat.schedule import atomic, multipass
from te_compat.schedule.alloc import Region, Stage, StagePlan, plan_stage
from te_compat.schedule.common import UnsupportedPattern, ceil_div, itemsize, largest_fitting, lcm, per_block, \
    round_up
from te_compat.schedule.emitter import SCRATCH_SLOTS, scratch_bytes
from te_compat.schedule.layout import Tile, buffer_bytes, layouts_of

# Tiling heuristics (element and row counts chosen for good tiles, not hardware numbers).
MIN_CHUNK_COLUMNS = 512  # least columns of a column-chunked tile of aligned rows: a few repeats
FIRST_ROWS = 32          # rows a column-chunked tile tries first (halved until one fits UB)
CHUNK_COLUMNS = 128      # columns of a multi-pass tile whose reduce axis is B (rows of the tile run along B)


def misc_bytes(chip) -> int:
    """UB bytes of the misc arena when tails need scratch areas: one per ping-pong slot."""
    return SCRATCH_SLOTS * scratch_bytes(chip)


@dataclass(frozen=True)
class BlockSplit:
    """Blocks over canonical ``axis`` (None: one block): ``per_block`` each; the last starts at ``last_start``
    and spans ``last_extent`` (it may overlap the previous block, which then writes identical values)."""

    axis: object
    per_block: int
    block_dim: int
    last_start: int
    last_extent: int


@dataclass(frozen=True)
class Schedule:
    """The full plan: block split, tile, accumulate mode, row pitch unit, stages and their buffer plans, the
    atomic plan (:mod:`te_compat.schedule.atomic`) when blocks split the reduce axis, and the multi-pass plan
    (:mod:`te_compat.schedule.multipass`) of a norm whose row does not fit UB."""

    split: BlockSplit
    tile: Tile
    accumulate: bool
    unit: int
    layouts: dict
    tile_stage: Stage
    group_stage: object
    tile_plan: StagePlan
    group_plan: object
    accs: dict
    arena_bytes: dict
    aligns: tuple
    atomic: object = None
    multipass: object = None


def vector_cores(chip, core_num: int = None) -> int:
    """Cores a vector-only kernel spreads its blocks over on ``chip`` when the target may use ``core_num`` AI
    cores (None: all of them).  Chips that pair each cube core with several vector cores (the 910B's AIC with two
    AIV) run vector-only kernels on the vector cores, as CANN launches them: the limit scales by that ratio."""
    cores = chip.aicore_num if core_num is None else core_num
    if chip.vector_core_num <= chip.aicore_num:
        return cores
    return max(1, cores * chip.vector_core_num // chip.aicore_num)


def choose(an, chip, misc_bytes: int = 0, cores: int = None) -> Schedule:
    """Block split and tile of ``an`` on ``chip`` (UnsupportedPattern when nothing fits UB); ``misc_bytes`` of
    UB are kept for tail scratch areas (:func:`misc_bytes`); ``cores``: the vector cores the kernel may use
    (:func:`vector_cores` of the target; None: all the chip's)."""
    cores = vector_cores(chip) if cores is None else cores
    unit = max(per_block(chip, an.graph.nodes[i].dtype) for i in range(len(an.graph.nodes)) if not an.is_virtual(i))
    split = _split(an, chip, cores)
    chosen = _atomic_split(an, chip, unit, split, misc_bytes, cores)
    if chosen is not None:
        split, tile, plan = chosen
        return _finish(an, chip, unit, split, tile, misc_bytes, plan)
    extents = list(an.canon.extents)
    if split.axis is not None:
        extents[split.axis] = split.per_block
    tile = _search(an, chip, unit, tuple(extents), misc_bytes)
    if tile is None:
        return _finish_multipass(an, chip, unit, split, _chunk_tile(an, chip, unit, extents, misc_bytes),
                                 misc_bytes)
    return _finish(an, chip, unit, split, tile, misc_bytes)


def _atomic_split(an, chip, unit: int, regular: BlockSplit, misc_bytes: int, cores: int):
    """(BlockSplit over the reduce axis, Tile, AtomicPlan) when that beats the regular split, else None."""
    plan = atomic.eligible(an, chip, unit)
    if plan is None:
        return None
    extra = misc_bytes + atomic.arena_bytes(an, chip, plan, unit)
    found = atomic.split(an, cores, unit, regular.block_dim,
                         lambda tile: _usage(an, chip, unit, tile) + extra <= chip.ub_bytes)
    if found is None:
        return None
    (per, blocks, last_start, last_extent), tile = found
    return BlockSplit(an.reduce_axis, per, blocks, last_start, last_extent), tile, plan


# -- blocks -------------------------------------------------------------------------------------------------------
def _unit_bytes(an, index: int, axis: int) -> int:
    mask, ext = an.mask(index), an.canon.extents
    size = itemsize(an.graph.nodes[index].dtype)
    for a in range(axis + 1, 3):
        if mask[a]:
            size *= ext[a]
    return size


def _split(an, chip, cores: int) -> BlockSplit:
    ext, best = an.canon.extents, None
    block = chip.block_bytes
    for axis in range(3):
        reduced = axis == an.reduce_axis or (axis == 0 and an.reduce_outer)
        if ext[axis] <= 1 or reduced or not all(an.mask(o)[axis] for o in an.outputs):
            continue
        unit_bytes = [_unit_bytes(an, o, axis) for o in an.outputs]
        min_units = ceil_div(block, min(unit_bytes))
        align = 1
        for nbytes in unit_bytes:
            align = lcm(align, block // gcd(nbytes, block))
        per = min(ext[axis], round_up(max(ceil_div(ext[axis], cores), min_units), align))
        blocks = ceil_div(ext[axis], per)
        if best is None or blocks > best[1]:
            best = (axis, blocks, per, align)
    if best is None or best[1] == 1:
        return BlockSplit(None, 1, 1, 0, 1)
    axis, blocks, per, align = best
    last = ext[axis] - (blocks - 1) * per
    last = min(ext[axis], round_up(last, align))
    return BlockSplit(axis, per, blocks, ext[axis] - last, last)


def tile_align(an, chip, axis: int) -> int:
    """Tile extents along ``axis`` that keep every output's contiguous runs whole blocks of ``chip``."""
    align, block = 1, chip.block_bytes
    for o in an.outputs:
        if an.mask(o)[axis]:
            align = lcm(align, block // gcd(_unit_bytes(an, o, axis), block))
    return align


# -- tiles --------------------------------------------------------------------------------------------------------
def _search(an, chip, unit: int, ext: tuple, misc_bytes: int):
    """The regular tile, or None for a norm whose reduce axis does not fit UB whole (the multi-pass plan)."""
    full = an.canon.extents
    fits = lambda tile: _usage(an, chip, unit, tile) + misc_bytes <= chip.ub_bytes
    ra = an.reduce_axis
    if fits(Tile(1, ext[1], ext[2])):
        if ext[1] != full[1] or ext[2] != full[2] or ext[0] == 1 or an.reduce_outer:
            return Tile(1, ext[1], ext[2])
        return Tile(largest_fitting(lambda v: fits(Tile(v, ext[1], ext[2])), ext[0], tile_align(an, chip, 0)), ext[1],
                    ext[2])
    whole_b = ra == 1 and an.resident
    if not whole_b and ext[1] > 1 and fits(Tile(1, 1, ext[2])):
        align = tile_align(an, chip, 1)
        rows = largest_fitting(lambda v: fits(Tile(1, v, ext[2])), ext[1], align)
        if rows >= align or align > ext[1] or (ra == 2 and an.resident):
            return Tile(1, rows, ext[2])
        aligned = _aligned_columns(an, chip, fits, unit, ext, align)      # whole output blocks beat whole rows
        return aligned or Tile(1, rows, ext[2])
    if ra == 2 and an.resident:
        return None
    return _column_tile(an, chip, fits, unit, ext, whole_b)


def _aligned_columns(an, chip, fits, unit: int, ext: tuple, rows: int):
    """A tile of ``rows`` rows cut into column chunks of at least a few repeats, or None."""
    step = max(unit, tile_align(an, chip, 2))
    least = min(ext[2], max(step, MIN_CHUNK_COLUMNS))
    if not fits(Tile(1, rows, least)):
        return None
    return Tile(1, rows, largest_fitting(lambda v: fits(Tile(1, rows, v)), ext[2], step))


def _column_tile(an, chip, fits, unit: int, ext: tuple, whole_b: bool):
    """Rows cut into column chunks (a multiple of the block unit wide); all B rows when ``whole_b`` (None when
    those do not fit: the multi-pass plan)."""
    rows = ext[1] if whole_b else min(ext[1], FIRST_ROWS)
    step = max(unit, tile_align(an, chip, 2))
    while rows >= 1:
        if fits(Tile(1, rows, min(step, ext[2]))):
            return Tile(1, rows, largest_fitting(lambda v: fits(Tile(1, rows, v)), ext[2], step))
        if whole_b:
            return None
        rows //= 2
    raise UnsupportedPattern("not even one block of every tensor fits UB")


def _stages(an, accumulate: bool) -> tuple:
    nodes = [n.index for n in an.graph.nodes if not an.is_virtual(n.index)]
    computes = [i for i in nodes if an.infos[i].kind != "input"]
    if not accumulate:
        loads = [i for i in nodes if an.infos[i].kind == "input" and an.consumers(i)]
        return Stage("tile", tuple(loads), tuple(computes), an.outputs), None
    reduces = [i for i in computes if an.infos[i].kind == "reduce"]
    pre = [i for i in computes if i not in an.post or i in reduces]
    post = [i for i in computes if i in an.post and i not in reduces]
    uses = lambda group, i: any(i in an.operand_nodes(c) for c in group)
    inputs = [i for i in nodes if an.infos[i].kind == "input"]
    tile = Stage("tile", tuple(i for i in inputs if uses(pre, i)), tuple(pre),
                 tuple(o for o in an.outputs if o in pre and o not in reduces))
    group = Stage("group", tuple(i for i in inputs if uses(post, i)), tuple(post),
                  tuple(o for o in an.outputs if o in an.post), tuple(reduces))
    return tile, group


def _plans(an, chip, unit: int, tile: Tile) -> tuple:
    ra = an.reduce_axis
    accumulate = ra is not None and (tile.extent(ra) < an.canon.extents[ra] or an.reduce_outer)
    layouts = layouts_of(an, tile, unit)
    tile_stage, group_stage = _stages(an, accumulate)
    accs, group_plan = {}, None
    if accumulate:
        offset = 0
        for index in group_stage.held:
            nbytes = buffer_bytes(chip, layouts[index], an.graph.nodes[index].dtype)
            accs[index] = Region("group", offset, nbytes)
            offset += nbytes
        group_plan = plan_stage(an, group_stage, layouts, chip, preset=accs)
    tile_plan = plan_stage(an, tile_stage, layouts, chip)
    return accumulate, layouts, tile_stage, group_stage, tile_plan, group_plan, accs


def _usage(an, chip, unit: int, tile: Tile) -> int:
    _, _, _, _, tile_plan, group_plan, _ = _plans(an, chip, unit, tile)
    return 2 * tile_plan.peak + (group_plan.peak if group_plan else 0)


def _finish(an, chip, unit: int, split: BlockSplit, tile: Tile, misc_bytes: int, atomic_plan=None) -> Schedule:
    accumulate, layouts, tile_stage, group_stage, tile_plan, group_plan, accs = _plans(an, chip, unit, tile)
    arenas = {"tile0": tile_plan.peak, "tile1": tile_plan.peak, "group": group_plan.peak if group_plan else 0,
              "misc": misc_bytes}
    if atomic_plan is not None:
        arenas["atomic"] = atomic.arena_bytes(an, chip, atomic_plan, unit)
    return Schedule(split, tile, accumulate, unit, layouts, tile_stage, group_stage, tile_plan, group_plan, accs,
                    arenas, _aligns(an, chip, unit), atomic_plan)


def _aligns(an, chip, unit: int) -> tuple:
    return tuple(unit if axis == an.reduce_axis == 2 else (1 if axis == an.reduce_axis else tile_align(an, chip, axis))
                 for axis in range(3))


# -- norms whose row does not fit UB ------------------------------------------------------------------------------


def _chunk_tile(an, chip, unit: int, ext: list, misc_bytes: int) -> Tile:
    """The largest chunk of the reduce axis whose multi-pass buffers fit UB (see _search)."""
    fits = lambda tile: multipass.usage_bytes(multipass.plan(an, chip, unit, tile)[0]) + misc_bytes <= chip.ub_bytes
    if an.reduce_axis == 2:
        step = max(unit, tile_align(an, chip, 2))
        if not fits(Tile(1, 1, min(step, ext[2]))):
            raise UnsupportedPattern(f"not even {step} elements of a norm's {ext[2]}-element rows fit UB")
        return Tile(1, 1, largest_fitting(lambda v: fits(Tile(1, 1, v)), ext[2], step))
    step = max(unit, tile_align(an, chip, 2))
    for columns in (min(ext[2], round_up(CHUNK_COLUMNS, step)), min(ext[2], step)):
        if fits(Tile(1, 1, columns)):
            return Tile(1, largest_fitting(lambda v: fits(Tile(1, v, columns)), ext[1], 1), columns)
    raise UnsupportedPattern(f"not even one row of {min(ext[2], step)} columns of a norm fits UB")


def _finish_multipass(an, chip, unit: int, split: BlockSplit, tile: Tile, misc_bytes: int) -> Schedule:
    mp, layouts, accs = multipass.plan(an, chip, unit, tile)
    peak = mp.tile_peak
    arenas = {"tile0": peak, "tile1": peak, "group": mp.group_plan.peak, "misc": misc_bytes}
    first = mp.passes[0]
    return Schedule(split, tile, True, unit, layouts, first.stage, mp.group_stage, first.plan, mp.group_plan, accs,
                    arenas, _aligns(an, chip, unit), None, mp)
