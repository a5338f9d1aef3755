"""UB planning: which buffer every tensor of a tile gets, with reuse.

A stage (the per-tile computation, or in accumulate mode the per-group one) loads its inputs, computes its
nodes in graph order and stores its outputs at the end.  A tensor's buffer is freed after its last use (outputs
live to the end); an element-wise node may take over a dying operand's buffer in place.  Each op's temporaries
(asked from the emitters through :func:`te_compat.schedule.temps.temp_bytes`) live for that op only.  Offsets
are first-fit in units of one vector repeat (256 bytes); the stage's arena size is the high-water mark.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from te_compat.schedule.common import round_up
from te_compat.schedule.layout import buffer_bytes

INPLACE_ANY = ("unary", "vs", "binary", "logic")


@dataclass(frozen=True)
class Region:
    """``nbytes`` at byte ``offset`` of arena ``arena`` ("tile" or "group")."""

    arena: str
    offset: int
    nbytes: int


@dataclass
class StagePlan:
    """Buffers of one stage.  values: node -> Region; temps: node -> tuple of Regions; dying: node -> operand
    nodes whose buffers it may clobber; out_bytes: bool outputs kept as bits -> Region of their byte form;
    out_temp: (float16 staging, ones, zeros) Regions of that conversion."""

    values: dict = field(default_factory=dict)
    temps: dict = field(default_factory=dict)
    dying: dict = field(default_factory=dict)
    out_bytes: dict = field(default_factory=dict)
    out_temp: object = None
    peak: int = 0


class _FirstFit:
    def __init__(self, arena: str, unit_bytes: int):
        self.arena = arena
        self.unit_bytes = unit_bytes   # allocation granule: one vector repeat of the chip
        self.used: list = []  # sorted (offset, nbytes)
        self.peak = 0

    def alloc(self, nbytes: int) -> Region:
        nbytes = round_up(max(nbytes, self.unit_bytes), self.unit_bytes)
        offset = 0
        for start, size in self.used:
            if start - offset >= nbytes:
                break
            offset = max(offset, start + size)
        self.used.append((offset, nbytes))
        self.used.sort()
        self.peak = max(self.peak, offset + nbytes)
        return Region(self.arena, offset, nbytes)

    def free(self, region: Region) -> None:
        self.used.remove((region.offset, region.nbytes))


@dataclass(frozen=True)
class Stage:
    """What a stage does: ``loads`` placeholders, ``computes`` nodes in order, ``outputs`` it stores, ``held``
    nodes whose buffers exist before the stage and stay (accumulators)."""

    name: str
    loads: tuple
    computes: tuple
    outputs: tuple
    held: tuple = ()


def plan_stage(an, stage: Stage, layouts: dict, chip, preset: dict = None) -> StagePlan:
    """Assign buffers for ``stage``; ``preset`` holds regions fixed elsewhere (accumulators, per-row values):
    those in this stage's arena are reserved, and a computed node with a preset region writes it (never freed)."""
    from te_compat.schedule.temps import temp_bytes
    fit = _FirstFit(stage.name, chip.repeat_bytes)
    plan = StagePlan()
    preset = preset or {}
    for index, region in preset.items():
        if region.arena == stage.name:
            fit.used.append((region.offset, region.nbytes))
            fit.used.sort()
            fit.peak = max(fit.peak, region.offset + region.nbytes)
        plan.values[index] = region
    for index in stage.loads:
        plan.values[index] = fit.alloc(_value_bytes(an, index, layouts, chip))
    last_use = _last_uses(an, stage)
    for position, index in enumerate(stage.computes):
        dying = [o for o in _operand_nodes(an, index) if last_use.get(o) == position and o not in stage.outputs
                 and o not in stage.held and o in plan.values]
        plan.dying[index] = frozenset(dying)
        temps = tuple(fit.alloc(n) for n in temp_bytes(an, index, layouts, chip, set(dying)))
        plan.temps[index] = temps
        fixed = index in preset
        plan.values[index] = preset[index] if fixed else _take_or_alloc(an, index, layouts, chip, plan, fit, dying)
        for region in temps:
            fit.free(region)
        for operand in set(dying):
            if plan.values[operand] is not plan.values[index]:
                fit.free(plan.values[operand])
        if index not in last_use and index not in stage.outputs and not fixed:
            fit.free(plan.values[index])
    _plan_bit_outputs(an, stage, layouts, chip, plan, fit)
    plan.peak = fit.peak
    return plan


def _value_bytes(an, index: int, layouts: dict, chip) -> int:
    node = an.graph.nodes[index]
    return buffer_bytes(chip, layouts[index], node.dtype, bits=index in an.bits)


def _operand_nodes(an, index: int) -> list:
    return [o.node for o in an.infos[index].operands if not o.is_const and not an.is_virtual(o.node)]


def _last_uses(an, stage: Stage) -> dict:
    last = {}
    for position, index in enumerate(stage.computes):
        for operand in _operand_nodes(an, index):
            last[operand] = position
    return last


def _take_or_alloc(an, index: int, layouts: dict, chip, plan: StagePlan, fit: _FirstFit, dying: list) -> Region:
    nbytes = _value_bytes(an, index, layouts, chip)
    for operand in _inplace_candidates(an, index, dying):
        region = plan.values[operand]
        if region.nbytes == round_up(nbytes, fit.unit_bytes) and layouts[operand] == layouts[index] and \
                (operand in an.bits) == (index in an.bits):
            return region
    return fit.alloc(nbytes)


def _inplace_candidates(an, index: int, dying: list) -> list:
    info = an.infos[index]
    node = an.graph.nodes[index]
    operands = [o for o in info.operands if not o.is_const]
    if info.kind in INPLACE_ANY:
        pick = [o.node for o in operands]
    elif info.kind == "cast":
        pick = [o.node for o in operands if an.graph.nodes[o.node].dtype == node.dtype
                or _same_size(an.graph.nodes[o.node].dtype, node.dtype)]
    elif info.kind == "fma":
        pick = [info.operands[2].node] if not info.operands[2].is_const else []
    elif info.kind == "axpy":
        pick = [info.operands[1].node] if not info.operands[1].is_const else []
    elif info.kind == "sel":
        pick = [o.node for o in info.operands[1:] if not o.is_const]
    else:
        pick = []
    from te_compat.schedule.emit_broadcast import row_source
    # a row broadcast holds only its first row, which its readers re-read for every row: never write over it
    return [p for p in pick if p in dying and not row_source(an, p)]


def _same_size(a: str, b: str) -> bool:
    from te_compat.schedule.common import itemsize
    return itemsize(a) == itemsize(b) and "bool" not in (a, b)


def _plan_bit_outputs(an, stage: Stage, layouts: dict, chip, plan: StagePlan, fit: _FirstFit) -> None:
    """Bool outputs held as bits get a byte buffer (and one shared float16 staging buffer) at the end."""
    widest = 0
    for index in stage.outputs:
        if index in an.bits:
            plan.out_bytes[index] = fit.alloc(buffer_bytes(chip, layouts[index], "uint8"))
            widest = max(widest, buffer_bytes(chip, layouts[index], "float16"))
    if widest:
        plan.out_temp = (fit.alloc(widest), fit.alloc(chip.repeat_bytes), fit.alloc(chip.repeat_bytes))
