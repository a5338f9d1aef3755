"""The pooling plan: what ``pooling2d`` computes (:class:`PoolParams`, read back from the output node's attrs) and
how the vector schedule cuts it (:class:`PoolPlan`: output-row bands, UB tiles, the block split).

A unit of work is one band of ``band_rows`` output rows of one (n, c1) plane.  Its input rows (the band's window
rows, ``(rows - 1) * sh + kh``) sit in a UB tile ``wp`` blocks wide (``wp = (wo - 1) * sw + kw``: the padded columns
the windows touch; one 32-byte block per (h, w) position holds the C0 = 16 float16 channels) with the padding
already in place, so every window tap is a strided read of that tile.  Bands whose tiles need the same padding
rows (and, for AVG, the same per-row tap counts) form a :class:`BandGroup`: one piece of kernel code serves all of
them, the band index only moving addresses.
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.sim.geometry import VECTOR_STRIDE_MAX
from te_compat.schedule.common import UnsupportedPattern, ceil_div

POOL_TAGS = ("pooling2d_max", "pooling2d_avg")
SLOTS = 2                # ping-pong UB slots (double buffering)


@dataclass(frozen=True)
class PoolParams:
    """One ``pooling2d``: ``mode`` "MAX" / "AVG"; input ``[n, c1, h, w, c0]``; window (kh, kw), strides (sh, sw);
    ``top`` / ``left`` padding rows / columns before the map; output ``ho`` x ``wo``."""

    mode: str
    n: int
    c1: int
    h: int
    w: int
    c0: int
    kh: int
    kw: int
    sh: int
    sw: int
    top: int
    left: int
    ho: int
    wo: int

    @property
    def planes(self) -> int:
        return self.n * self.c1

    @property
    def wp(self) -> int:
        """Columns (blocks) of a padded UB row: every column some window of the row reads."""
        return (self.wo - 1) * self.sw + self.kw

    @property
    def w_copy(self) -> int:
        """Input columns a GM -> UB move copies (those inside the padded row)."""
        return max(0, min(self.w, self.wp - self.left))

    def row_count(self, y: int) -> int:
        """Window rows of output row ``y`` inside the input."""
        start = y * self.sh - self.top
        return max(0, min(start + self.kh, self.h) - max(start, 0))

    def col_count(self, x: int) -> int:
        """Window columns of output column ``x`` inside the input."""
        start = x * self.sw - self.left
        return max(0, min(start + self.kw, self.w) - max(start, 0))


def read_params(tensor) -> PoolParams:
    """The :class:`PoolParams` ``pooling2d`` recorded on its output ``tensor`` (attrs ``pool_*``)."""
    attrs = tensor.op.attrs
    try:
        ints = {key: [int(v) for v in attrs[f"pool_{key}"]] for key in ("input", "window", "stride", "pads", "out")}
        mode = str(attrs["pool_mode"])
    except (KeyError, TypeError) as exc:
        raise UnsupportedPattern(f"the pooling node {tensor.op.name} carries no pooling parameters ({exc})") from None
    n, c1, h, w, c0 = ints["input"]
    (kh, kw), (sh, sw), (top, left), (ho, wo) = ints["window"], ints["stride"], ints["pads"], ints["out"]
    return PoolParams(mode, n, c1, h, w, c0, kh, kw, sh, sw, top, left, ho, wo)


@dataclass(frozen=True)
class BandGroup:
    """Bands served by one piece of code: ``bands`` (indices), ``rows`` output rows each, ``in_rows`` input rows
    of the tile, ``pad_above`` / ``pad_below`` of them padding, ``count_runs`` ((tap rows, run length) over the
    band's output rows, for the AVG divisor) and ``layout``: how a tap instruction covers the band
    (:func:`tap_layout`)."""

    bands: tuple
    rows: int
    in_rows: int
    pad_above: int
    pad_below: int
    count_runs: tuple
    layout: str

    @property
    def loaded_rows(self) -> int:
        """Tile rows the GM -> UB move fills."""
        return self.in_rows - self.pad_above - self.pad_below


@dataclass(frozen=True)
class PoolPlan:
    """How a :class:`PoolParams` runs: bands of ``band_rows`` output rows (``bands`` per plane), ``groups``,
    ``units`` = planes x bands spread over ``block_dim`` blocks of ``per_block`` units (the last block
    ``last_units``), the UB bytes of one slot's input tile (``in_bytes``) and accumulator (``acc_bytes``), and the
    float16 divisor rows (``factor_counts``: the distinct tap-row counts of AVG's per-position divisor, empty when
    one scalar divides every position); ``per_repeat``: blocks (positions) one full-mask repeat covers,
    ``max_repeat``: the chip's repeat limit."""

    params: PoolParams
    band_rows: int
    bands: int
    groups: tuple
    block_dim: int
    per_block: int
    last_units: int
    in_bytes: int
    acc_bytes: int
    factor_counts: tuple
    per_repeat: int
    max_repeat: int

    @property
    def units(self) -> int:
        return self.params.planes * self.bands

    @property
    def slot_bytes(self) -> int:
        return self.in_bytes + self.acc_bytes

    @property
    def factor_bytes(self) -> int:
        return len(self.factor_counts) * self.params.wo * self.params.c0 * 2


def _band_geometry(p: PoolParams, y0: int, rows: int) -> tuple:
    """(input rows of the band's tile, padding rows above, padding rows below)."""
    start = y0 * p.sh - p.top
    in_rows = (rows - 1) * p.sh + p.kh
    above = min(in_rows, max(0, -start))
    below = min(in_rows - above, max(0, start + in_rows - p.h))
    return in_rows, above, below


def _runs(values: list) -> tuple:
    runs = []
    for v in values:
        if runs and runs[-1][0] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    return tuple((v, n) for v, n in runs)


def tap_layout(p: PoolParams, rows: int, per_repeat: int, max_repeat: int) -> str:
    """How a tap instruction spreads over a band of ``rows`` output rows (the fewest instructions whose stride
    fields fit): "rows_in_blocks" (the 8 blocks of a repeat are 8 output rows, the repeats step along the output
    columns), "cols_in_blocks" (the blocks are 8 output columns, the repeats step over the rows) or "per_row" (one
    instruction per output row, its blocks and repeats along the columns).  ``per_repeat``: blocks one
    full-mask repeat covers; ``max_repeat``: the repeat field's limit."""
    fits = p.sh * p.wp <= VECTOR_STRIDE_MAX and p.wo <= VECTOR_STRIDE_MAX and p.sw <= VECTOR_STRIDE_MAX
    counts = {}
    if fits:
        counts["rows_in_blocks"] = ceil_div(rows, per_repeat) * ceil_div(p.wo, max_repeat)
        counts["cols_in_blocks"] = ceil_div(p.wo, per_repeat) * ceil_div(rows, max_repeat)
    if per_repeat * p.sw <= VECTOR_STRIDE_MAX:
        full, tail = divmod(p.wo, per_repeat)
        counts["per_row"] = rows * (ceil_div(full, max_repeat) + (1 if tail else 0))
    if not counts:
        raise UnsupportedPattern(f"pooling strides {p.sh}x{p.sw} over a {p.wp}-block row exceed the vector "
                                 f"instructions' stride fields")
    return min(counts, key=lambda k: (counts[k], k != "rows_in_blocks"))


def _groups(p: PoolParams, band_rows: int, bands: int, per_repeat: int, max_repeat: int) -> tuple:
    found: dict = {}
    for band in range(bands):
        y0 = band * band_rows
        rows = min(band_rows, p.ho - y0)
        in_rows, above, below = _band_geometry(p, y0, rows)
        counts = _runs([p.row_count(y) for y in range(y0, y0 + rows)]) if p.mode == "AVG" else ()
        key = (rows, in_rows, above, below, counts)
        found.setdefault(key, []).append(band)
    return tuple(BandGroup(tuple(members), rows, in_rows, above, below, counts,
                           tap_layout(p, rows, per_repeat, max_repeat))
                 for (rows, in_rows, above, below, counts), members in found.items())


def _factor_counts(p: PoolParams) -> tuple:
    if p.mode != "AVG":
        return ()
    rows = sorted({p.row_count(y) for y in range(p.ho)})
    cols = {p.col_count(x) for x in range(p.wo)}
    if rows == [p.kh] and cols == {p.kw}:
        return ()
    return tuple(rows)


def choose_plan(p: PoolParams, chip, cores: int) -> PoolPlan:
    """The plan of ``p`` on ``chip`` with ``cores`` vector cores (UnsupportedPattern when one output row's tile
    does not fit UB, or the strides do not fit the instructions)."""
    block = chip.block_bytes
    if p.c0 * 2 != block:
        raise UnsupportedPattern(f"pooling C0 of {p.c0} float16 is not one {block}-byte block")
    factors = _factor_counts(p)
    budget = chip.ub_bytes - len(factors) * p.wo * block

    def slot_bytes(rows: int) -> int:
        return (((rows - 1) * p.sh + p.kh) * p.wp + rows * p.wo) * block

    if SLOTS * slot_bytes(1) > budget:
        raise UnsupportedPattern(f"one pooling output row ({p.wp} padded input columns x {p.kh} window rows) does "
                                 f"not fit UB twice; npusim does not split W")
    fit = 1
    while fit < p.ho and SLOTS * slot_bytes(fit + 1) <= budget:
        fit += 1
    wanted = ceil_div(p.ho, max(1, ceil_div(cores, p.planes)))   # enough bands for every core to have one
    band_rows = max(1, min(fit, wanted))
    bands = ceil_div(p.ho, band_rows)
    units = p.planes * bands
    per_block = ceil_div(units, min(cores, units))
    block_dim = ceil_div(units, per_block)
    per_repeat = chip.lanes(2) // p.c0
    groups = _groups(p, band_rows, bands, per_repeat, chip.max_repeat)
    tallest = max(g.in_rows for g in groups)
    return PoolPlan(p, band_rows, bands, groups, block_dim, per_block, units - (block_dim - 1) * per_block,
                    tallest * p.wp * block, band_rows * p.wo * block, factors, per_repeat, chip.max_repeat)


__all__ = ["BandGroup", "POOL_TAGS", "PoolParams", "PoolPlan", "choose_plan", "read_params"]
