"""Reduces split over the reduced axis: every block sums its share, the shares meet in GM through atomic adds.

TBE's atomic reduce schedule: when a sum's kept part is too small to give the cores work (a reduce over every
axis, or over the long axis of a (1_000_000, 4) tensor), the reduce axis itself is cut into per-block ranges.
Each block reduces its range in UB and adds its partial result into GM with ``set_atomic_add``; the runtime
zeroed the output before the launch (the kernel parameter is ``atomic_clean``: a 1 in kernel_meta's
"parameters").  Two forms:

* ``direct``: every output is a sum whose dtype the chip accumulates (Ascend910: float32 only).  The partials
  go straight into the outputs.
* ``two_stage``: one sum followed by element-wise work on its result (a cast back to float16, a scale, a bias
  add ...), or a sum in a dtype the chip cannot accumulate but float32 can hold (float16 on Ascend910).  The
  partials are added, as float32, into an atomic-clean GM workspace; each block then adds 1 to an atomic-clean
  counter, reads the counter back, and the block that sees every block's 1 (the last to finish) loads the total
  and runs the rest of the graph on it.  On the simulator, blocks run one after another, so that is the last
  block run; on hardware, whichever core finishes last (if two read the full count, both write the same values).

Not split: max / min / prod (atomic max / min are not on Ascend910, and an atomic-clean output starts at 0,
which is not their identity), integer sums on chips without integer atomics, graphs that also write a
pre-reduce tensor, reduces over separated axes or broadcast back (norms), and kept parts that do not fit one UB
tile.  Those keep the regular plan.
"""
from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Optional

from te_compat.schedule.common import ceil_div, itemsize, largest_fitting, per_block, round_up
from te_compat.schedule.layout import Tile, buffer_bytes, layout_of

MIN_SHARE_BYTES = 16 * 1024      # input bytes a block must get for a split over the reduce axis to pay off
WORK_DTYPE = "float32"           # what a two-stage split accumulates in


def counter_elems(chip) -> int:
    """Elements of the finished-blocks counter: one block of float32 on ``chip``."""
    return per_block(chip, WORK_DTYPE)


@dataclass(frozen=True)
class AtomicPlan:
    """How the partial results meet.  mode: "direct" | "two_stage".  reduces: the sum nodes.  dtype: the dtype GM
    accumulates in (per reduce for direct: its own; two_stage: float32)."""

    mode: str
    reduces: tuple
    dtype: str

    @property
    def direct(self) -> bool:
        return self.mode == "direct"


def eligible(an, chip, unit: int) -> Optional[AtomicPlan]:
    """The atomic form this analysed graph can use on ``chip`` (rows padded to ``unit`` elements), or None."""
    ra = an.reduce_axis
    if ra not in (1, 2) or an.resident or an.reduce_outer or an.canon.extents[0] != 1:
        return None
    reduces = an.reducing
    if not reduces or any(an.infos[i].op != "sum" for i in reduces):
        return None
    if not all(layout_of(an.mask(i), kept_tile(an), unit).contiguous for i in reduces):   # one move each
        return None
    if any(o not in an.post for o in an.outputs):
        return None
    post_only = an.post == frozenset(reduces)
    dtypes = {an.graph.nodes[i].dtype for i in reduces}
    if post_only and all(o in reduces for o in an.outputs) and all(_accumulates(chip, d) for d in dtypes):
        return AtomicPlan("direct", reduces, dtypes.pop() if len(dtypes) == 1 else "")
    if len(reduces) != 1 or not _accumulates(chip, WORK_DTYPE):
        return None
    dtype = dtypes.pop()
    if dtype != WORK_DTYPE and not (dtype == "float16" and chip.supports("vconv", "f162f32")
                                    and chip.supports("vconv", "f322f16")):
        return None
    return AtomicPlan("two_stage", reduces, WORK_DTYPE)


def _accumulates(chip, dtype: str) -> bool:
    return chip.supports("set_atomic_add", dtype) and chip.supports("vector_dup", dtype)


def kept_tile(an) -> Tile:
    """A tile spanning every kept extent and one element of the reduce axis."""
    ext = list(an.canon.extents)
    ext[an.reduce_axis] = 1
    return Tile(*ext)


def arena_bytes(an, chip, plan: AtomicPlan, unit: int) -> int:
    """UB the atomic stage needs besides the regular plan: the float32 staging copy of a two-stage partial result
    and two counter blocks (the +1 block and the read-back block), in one repeat of ``chip``."""
    if plan.direct:
        return 0
    layout = layout_of(an.mask(plan.reduces[0]), kept_tile(an), unit)
    return buffer_bytes(chip, layout, WORK_DTYPE) + chip.repeat_bytes


def _row_bytes(an) -> int:
    """Input bytes per element of the reduce axis (every loaded input that spans it)."""
    ra, ext = an.reduce_axis, an.canon.extents
    total = 0
    for node in an.graph.nodes:
        if an.infos[node.index].kind != "input" or not an.mask(node.index)[ra]:
            continue
        kept = prod(ext[a] for a in range(3) if a != ra and an.mask(node.index)[a])
        total += itemsize(node.dtype) * kept
    return total


def split(an, cores: int, unit: int, regular_blocks: int, fits) -> Optional[tuple]:
    """((per_block, block_dim, last_start, last_extent), Tile) of a split over the reduce axis, or None when it
    would not give at least twice the regular plan's blocks or no tile spanning the kept part fits UB.

    ``cores``: the AI cores the kernel may use; ``fits(tile)``: whether the regular buffers of ``tile`` plus the
    atomic stage's fit UB.
    """
    ra = an.reduce_axis
    extent = an.canon.extents[ra]
    wanted = min(cores, _row_bytes(an) * extent // MIN_SHARE_BYTES, extent)
    if wanted < max(2, 2 * regular_blocks):
        return None
    align = unit if ra == 2 else 1
    per = round_up(ceil_div(extent, wanted), align)
    blocks = ceil_div(extent, per)
    if blocks < max(2, 2 * regular_blocks):
        return None
    tile = _tile(an, fits, per, align)
    if tile is None:
        return None
    last_start = (blocks - 1) * per
    return (per, blocks, last_start, extent - last_start), tile


def _tile(an, fits, per: int, align: int) -> Optional[Tile]:
    """The longest run of the reduce axis (at most ``per``, ``align``-rounded when possible) whose tile fits."""
    base = kept_tile(an)
    ra = an.reduce_axis

    def with_extent(v: int) -> Tile:
        ext = [base.ta, base.tb, base.tc]
        ext[ra] = v
        return Tile(*ext)
    if not fits(with_extent(min(per, align))):
        return None
    return with_extent(largest_fitting(lambda v: fits(with_extent(v)), per, align))
