"""Tile sizes of the cube schedule, from the chip's buffer sizes and transfer rates (never literal sizes).

A tile is ``mt x nt`` output fractals (16 x 16 each), computed as ``sub`` sub-tiles (``parts``: equal widths, a
wide one then a narrow one, or several equal ones then a narrower one), each accumulated in its own L0C slot over
k-steps of ``kt`` fractals of K (K0 = one block of the input dtype).  GM -> L1 loads bring ``kl`` fractals of K at
a time (one or more k-steps: fewer, larger transfers); L1 holds two such A and B panels (the next loads while the
cube runs), L0A ``mt x kt`` and L0B ``kt x ns`` fractals (two of each).  With ``sub`` >= 2 the sub-tiles alternate
between two L0C slots, so the epilogue of one (L0C -> UB, bias, cast, store) runs while the cube accumulates the
next; a narrow last sub-tile leaves little epilogue after the last mmad.  When the whole A panel of a tile (``mt``
fractal rows by all of K) fits L1 beside the B panels it stays there (``a_resident``) and only the first sub-tile
reads it from GM.  UB holds ``mt x nc`` fractals of a sub-tile at a time (accumulator and output dtype; two such
chunks when they fit, so one is stored while the next leaves L0C; the narrowest chunk whose stores still hide
under the next sub-tile's mmads, so the stores' GM writes interleave with its GM reads), plus the bias row.

Tiles cover M and N with the least tiles of their size; a size that does not divide the fractal count spreads its
tiles evenly, the last ending at the edge, so neighbours overlap by a few fractals (:func:`tile_start`): both
compute the overlap alike and write the same values.  That lets a 64-fractal N split three ways (22, 22, 22 at
0 / 21 / 42), so a launch can use core counts that do not divide a power of two (Ascend910B1's 24 cores).  Tiles
are spread over ``block_dim`` cores (the largest divisor of the tile count not above the cores).

The shape is the one with the fewest modelled cycles per core: per sub-tile the busiest of the cube (one cycle per
16 x 16 x K0 fractal product), the L1 -> L0 moves and the GM -> L1 moves, plus the first load and the last
sub-tile's epilogue, which nothing overlaps: the costs the cycle model charges, with its rates read from the chip.
GM reads follow the cost model's L2 (npusim/sim/cost/l2.py) analytically: of all the tiles' reads, the operands'
bytes come from HBM once (at the core's share of the chip's HBM bandwidth) and the re-reads from the L2 (at
``memory.l2_read_bytes_per_cycle`` per core) when the operands fit the L2; a move takes the longest of its path,
its HBM part and its L2 part.  The first load's panels are fetched once for the cores that share them.  GM writes
(the epilogue's) take the HBM share; a result that leaves L0C by the fixpipe (``fixpipe``) writes only its output.

When every core runs one tile, nothing overlaps its first sub-tile's loads: their sizes (and where the resident A
panel's pieces come) are planned by :mod:`te_compat.cube.load_plan` (``first_loads``), which also decides whether
the tile's first K fractals run over its first two sub-tiles at once (``head``): the cube then has twice the work
per A panel while the first loads ramp up.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from npusim.sim.dtypes import itemsize
from te_compat.cube.load_plan import first_loads, head_plan, head_shape_fits
from te_compat.dsl.cube import FRACTAL, MatmulDesc, ceil_div


@dataclass(frozen=True)
class CubeTiling:
    """Fractal counts (whole matrix: m1, n1, k1; per tile: mt, nt, kt; per UB chunk of a sub-tile: nc columns),
    the batch count, the core split, K0 (elements of one fractal row: one block of the input dtype), the sub-tiles
    of a tile (``sub`` of them, ``widths`` columns each or equal ones, in alternating L0C slots when ``sub`` > 1),
    whether a tile's A panel stays in L1 across its sub-tiles, and the K fractals of one GM -> L1 load."""

    m1: int
    n1: int
    k1: int
    mt: int
    nt: int
    kt: int
    batch: int
    block_dim: int
    k0: int
    nc: int
    sub: int = 1
    a_resident: bool = False
    kl: int = 0             # K fractals per GM -> L1 load (a multiple of kt; 0: kt)
    widths: tuple = ()      # fractal columns of each sub-tile (): ``sub`` equal ones
    first_loads: tuple = () # the first sub-tile's loads, (B K fractals, A K fractals) each (): ``kl`` each
    head: tuple = ()        # the loads, (K fractals, A K fractals) each, of the tile's first K fractals, run
                            # over its first two sub-tiles at once; first_loads then cover the rest (): none

    def __post_init__(self):
        """A tiling the kernel can run whole: its sub-tiles cover the tile in UB chunks, its loads cover K."""
        parts, kl = self.parts, self.kl or self.kt
        problems = []
        if sum(parts) != self.nt or len(parts) != self.sub:
            problems.append(f"sub-tiles {parts} do not make {self.sub} sub-tiles of the tile's {self.nt} columns")
        if self.nc < 1 or any(width % self.nc for width in parts):
            problems.append(f"UB chunks of {self.nc} columns do not divide the sub-tiles {parts}")
        if self.kt < 1 or kl % self.kt:
            problems.append(f"loads of {kl} K fractals are not whole k-steps of {self.kt}")
        elif kl <= self.k1 and self.k1 % kl:    # (a load3d convolution's loads span several channel blocks' K)
            problems.append(f"loads of {kl} K fractals do not divide K = {self.k1}")
        loads = tuple(self.head) + tuple(self.first_loads)      # without a plan the first sub-tile takes kl each
        if loads and (sum(b for b, _ in loads) != self.k1 or sum(a for _, a in loads) != self.k1):
            problems.append(f"head {self.head} and first loads {self.first_loads} do not each cover K = "
                            f"{self.k1} fractals of B and of A")
        if any(b % self.kt for b, _ in loads):
            problems.append(f"head {self.head} and first loads {self.first_loads} are not whole k-steps of "
                            f"{self.kt}")
        if problems:
            raise ValueError("cube tiling: " + "; ".join(problems))

    @property
    def parts(self) -> tuple:
        """Fractal columns of each sub-tile, in order."""
        return tuple(self.widths) or (self.nt // self.sub,) * self.sub

    def l0c_offset(self, slot: int) -> int:
        """First fractal column of L0C slot ``slot`` (slot 1 follows the widest sub-tile of slot 0)."""
        return 0 if slot == 0 else max(self.parts[0::2])

    @property
    def l0c_columns(self) -> int:
        """Fractal columns of L0C the slots take together."""
        return sum(max(self.parts[slot::2]) for slot in range(self.l0c_slots))

    @property
    def kl1(self) -> int:
        """K fractals one GM -> L1 load brings (several L0 k-steps)."""
        return self.kl or self.kt

    @property
    def ns(self) -> int:
        """Fractal columns of the widest sub-tile."""
        return max(self.parts)

    @property
    def l0c_slots(self) -> int:
        """L0C slots the sub-tiles alternate between."""
        return 2 if self.sub > 1 else 1

    @property
    def m_tiles(self) -> int:
        """Tiles along M (the last one may overlap the one before: see :func:`tile_start`)."""
        return -(-self.m1 // self.mt)

    @property
    def n_tiles(self) -> int:
        """Tiles along N (the last one may overlap the one before: see :func:`tile_start`)."""
        return -(-self.n1 // self.nt)

    @property
    def tiles(self) -> int:
        return self.batch * self.m_tiles * self.n_tiles

    @property
    def tiles_per_block(self) -> int:
        return self.tiles // self.block_dim


@dataclass(frozen=True)
class _Budget:
    """Bytes of one input fractal, one accumulator fractal and one output fractal; UB room beside the bias; UB
    bytes an output fractal's epilogue operands take besides (gemm's C)."""

    frac_in: int
    acc_frac: int
    out_frac: int
    ub_room: int
    ub_extra: int = 0
    fixpipe: bool = False   # the result leaves L0C by the FIX pipe straight to GM (te_compat.cube.fixpipe_out)


def _divisors(value: int) -> list:
    return [d for d in range(1, value + 1) if value % d == 0]


def _k_step(k1: int, mt: int, ns: int, frac_in: int, l1_fixed: int, chip) -> int:
    """The largest k-step whose panels fit L0A / L0B twice and L1 twice beside ``l1_fixed`` bytes (a resident
    A panel); else the largest that fits once; 0 when none fits."""
    for copies in (2, 1):
        fitting = [kt for kt in _divisors(k1) if copies * mt * kt * frac_in <= chip.l0a_bytes and
                   copies * kt * ns * frac_in <= chip.l0b_bytes and
                   l1_fixed + copies * (0 if l1_fixed else mt * kt) * frac_in + copies * kt * ns * frac_in
                   <= chip.l1_bytes]
        if fitting:
            return max(fitting)
    return 0


def _path_cycles(chip, src: str, dst: str, nbytes: float) -> float:
    path = chip.paths.get((src, dst))
    return path.occupancy_cycles(nbytes) if path is not None else nbytes / chip.block_bytes


def _read_cycles(chip, nbytes: float, missed: float, share: float) -> float:
    """MTE2 cycles of one GM -> L1 move of ``nbytes``: the path's, or longer when the part that misses the L2
    (``missed``) takes longer at the core's HBM ``share``, or the rest at the core's L2 read rate."""
    return max(_path_cycles(chip, "GM", "L1", nbytes), nbytes * missed / share,
               nbytes * (1 - missed) / chip.l2_read_bytes_per_cycle)


def _completion_cycles(chip, nbytes: float) -> float:
    path = chip.paths.get(("GM", "L1"))
    return path.completion_cycles(nbytes) if path is not None else nbytes / chip.block_bytes


def _epilogue_bytes(chip, b: _Budget, fractals: int) -> tuple:
    """(GM bytes, cycles of its moves one after another: UB holds one chunk at a time) of moving ``fractals``
    accumulator fractals out."""
    acc, out = fractals * b.acc_frac, fractals * b.out_frac
    if b.fixpipe:
        return out, _written(chip, "L0C", out)
    if ("L0C", "UB") in chip.paths:
        return out, _path_cycles(chip, "L0C", "UB", acc) + _written(chip, "UB", out)
    gm = 2 * acc + out          # through a GM workspace: written by FIX, read back into UB
    return gm, _path_cycles(chip, "L0C", "GM", acc) + _path_cycles(chip, "GM", "UB", acc) + _written(chip, "UB", out)


def _written(chip, src: str, nbytes: float) -> float:
    """Cycles until a move of ``nbytes`` from ``src`` into GM is complete (the last write: what the next wait sees)."""
    path = chip.paths.get((src, "GM"))
    return path.completion_cycles(nbytes) if path is not None else nbytes / chip.block_bytes


def _modelled(shape: tuple, m1: int, n1: int, k1: int, batch: int, chip, core_num: int, b: _Budget) -> tuple:
    """(modelled cycles per core, block_dim) of tile ``shape`` = (mt, nt, kt, parts, a_resident, kl): per sub-tile
    the busiest of cube, MTE1, MTE2 and the core's HBM share (the first sub-tile also reads a resident A panel,
    and every one but the first carries the previous one's epilogue traffic), then the first load and the last
    epilogue, which nothing overlaps."""
    mt, nt, kt, parts, resident, kl = shape
    tiles = batch * -(-m1 // mt) * -(-n1 // nt)
    block_dim = max(d for d in _divisors(tiles) if d <= max(1, core_num))
    share = chip.hbm_bytes_per_cycle / block_dim
    loads = k1 // kl
    a_chunk = mt * kl * b.frac_in
    missed = _miss_fraction(shape, m1, n1, k1, batch, b.frac_in, chip)
    tile, previous_gm = 0.0, 0.0
    for part, ns in enumerate(parts):
        b_chunk = kl * ns * b.frac_in
        with_a = part == 0 or not resident
        cube = mt * ns * k1
        mte1 = (k1 // kt) * (min(mt, kt) * _path_cycles(chip, "L1", "L0A", max(mt, kt) * b.frac_in) +
                             _path_cycles(chip, "L1", "L0B", kt * ns * b.frac_in))
        reads = loads * ((a_chunk if with_a else 0) + b_chunk)
        gm = missed * reads + previous_gm            # from HBM: first touches and the previous epilogue's writes
        l2 = (1 - missed) * reads / chip.l2_read_bytes_per_cycle
        mte2 = loads * ((_read_cycles(chip, a_chunk, missed, share) if with_a else 0) +
                        _read_cycles(chip, b_chunk, missed, share))
        # two loads in flight: a load's completion (its GM latency) must hide behind two loads' worth of work
        in_flight = loads * _completion_cycles(chip, (a_chunk if with_a else 0) + b_chunk) / 2
        epi_gm, epi_cycles = _epilogue_bytes(chip, b, mt * ns)
        previous_gm = epi_gm
        alone = max(epi_cycles, epi_gm / share)     # an epilogue nothing overlaps: its writes take the HBM share
        tile += max(cube, mte1, mte2, gm / share, l2, in_flight) + (0 if len(parts) > 1 else alone)
    first_b = kl * parts[0] * b.frac_in
    # the first A and B panels (one move each, B completing after A's move): cores reading the same panel at
    # the start share its fetch from HBM, the rest comes from the L2
    first_hbm = a_chunk / -(-n1 // nt) + first_b / -(-m1 // mt)
    first_load = max(_path_cycles(chip, "GM", "L1", a_chunk) + _completion_cycles(chip, first_b),
                     first_hbm / share, (a_chunk + first_b - first_hbm) / chip.l2_read_bytes_per_cycle)
    last = alone if len(parts) > 1 else 0
    return (tiles // block_dim) * tile + first_load + last, block_dim


def _miss_fraction(shape: tuple, m1: int, n1: int, k1: int, batch: int, frac_in: int, chip) -> float:
    """The part of the launch's GM reads that comes from HBM (an analytic version of the cost model's L2,
    npusim/sim/cost/l2.py): every operand byte once (its first touch), the re-reads of panels other tiles (or
    other sub-tiles) read too from the L2 -- when the operands fit the L2; else every read from HBM."""
    mt, nt, kt, parts, resident, kl = shape
    unique = batch * (m1 + n1) * k1 * frac_in
    a_reads = (1 if resident else len(parts)) * mt * k1 * frac_in
    reads = batch * -(-m1 // mt) * -(-n1 // nt) * (a_reads + nt * k1 * frac_in)
    if unique > chip.l2_bytes or reads <= 0:
        return 1.0
    return min(1.0, unique / reads)


def _l0c_columns(parts: tuple) -> int:
    return sum(max(parts[slot::2]) for slot in range(2 if len(parts) > 1 else 1))


def _fits(mt: int, parts: tuple, b: _Budget, chip) -> bool:
    return _l0c_columns(parts) * mt * b.acc_frac <= chip.l0c_bytes and \
        mt * (b.acc_frac + b.out_frac + b.ub_extra) <= b.ub_room


def _splits(nt: int) -> list:
    """Sub-tile widths of an ``nt``-column tile: 1, 2 or 4 equal ones, a wide one then a narrow one (the
    narrow last sub-tile leaves little epilogue after the last mmad), several equal ones then a narrower one, or a
    wide one then two equal narrower ones."""
    found = [(nt // sub,) * sub for sub in (1, 2, 4) if nt % sub == 0]
    found += [(nt - narrow, narrow) for narrow in _divisors(nt) if 2 * narrow < nt]
    for sub in (3, 4, 5, 6):        # ``sub`` - 1 equal ones and a narrower last one
        width = -(-nt // sub)
        last = nt - (sub - 1) * width
        if 0 < last < width:
            found.append((width,) * (sub - 1) + (last,))
    for narrow in range(1, nt):     # a wide first one (it also brings a resident A panel) then two equal ones
        wide = nt - 2 * narrow
        if wide > narrow and (wide, narrow, narrow) not in found:
            found.append((wide, narrow, narrow))
    return found


def _extents(total: int) -> list:
    """Tile sizes along a dimension of ``total`` fractals: the least size for each tile count (a size that does
    not divide ``total`` has its tiles overlap: :func:`tile_start`)."""
    return sorted({-(-total // count) for count in range(1, total + 1)})


def tile_start(index, count: int, total: int, size: int):
    """First fractal of tile ``index`` of ``count`` tiles of ``size`` fractals along ``total``: evenly spread,
    the first at 0 and the last at ``total - size``, so when ``size`` does not divide ``total`` neighbours overlap
    (both compute the overlap the same way and write the same values).  ``index`` may be a kernel expression."""
    if count == 1:
        return 0 * index
    spread = total - size
    if spread % (count - 1) == 0:
        return index * (spread // (count - 1))
    return (index * spread) // (count - 1)


def _shapes(m1: int, n1: int, k1: int, b: _Budget, chip):
    """Every (mt, nt, kt, parts, a_resident, kl) whose buffers fit the chip."""
    for mt in _extents(m1):
        for nt in _extents(n1):
            for parts in _splits(nt):
                if not _fits(mt, parts, b, chip):
                    continue
                panel = mt * k1 * b.frac_in
                for resident in ((True, False) if len(parts) > 1 else (False,)):
                    kt = _k_step(k1, mt, max(parts), b.frac_in, panel if resident else 0, chip)
                    for kl in _l1_steps(k1, kt, mt, parts, b.frac_in, panel if resident else 0, chip):
                        yield mt, nt, kt, parts, resident, kl


def _l1_steps(k1: int, kt: int, mt: int, widths: tuple, frac_in: int, l1_fixed: int, chip) -> list:
    """K fractals per GM -> L1 load: multiples of ``kt`` dividing K whose panels fit L1 twice beside
    ``l1_fixed`` bytes (a resident A panel, which then takes the A loads); at least two k-steps when one k-step
    of the narrowest sub-tile is shorter than a load's latency."""
    if not kt:
        return []
    ns, narrow = max(widths), min(widths)
    fitting = [kl for kl in _divisors(k1) if kl % kt == 0 and
               l1_fixed + 2 * ((0 if l1_fixed else mt) + ns) * kl * frac_in <= chip.l1_bytes]
    # a k-step of the narrowest sub-tile shorter than a load's GM latency: let each load feed two k-steps
    path = chip.paths.get(("GM", "L1"))
    short = path is not None and mt * narrow * kt < path.latency_cycles
    several = [kl for kl in fitting if kl >= 2 * kt] if short else []
    return several or fitting or [kt]


def _store_chunk(chip, chunks: list, parts: tuple, rows_k: int, out_bytes: int) -> int:
    """The narrowest UB chunk (fractal columns, of ``chunks``) whose stores of every sub-tile but the last still
    fit under the next sub-tile's mmads (``rows_k`` = mt x k1 cube cycles per column; ``out_bytes``: GM bytes
    per column); 0 when none fits.  Narrow chunks spread the epilogue's GM writes, which take the core's HBM
    share, between the next sub-tile's GM reads instead of holding the share for a whole wide store."""
    for nc in sorted(chunks):
        if all((width // nc) * _path_cycles(chip, "UB", "GM", nc * out_bytes) <= rows_k * following
               for width, following in zip(parts, parts[1:])):
            return nc
    return 0


def choose_tiling(desc: MatmulDesc, chip, core_num: int, epilogue_elem_bytes: int = 0,
                  fixpipe: bool = False, cast_only: bool = False) -> CubeTiling:
    """The tile shape with the fewest modelled cycles per core (see the module docstring); UB takes a sub-tile in
    chunks of ``nc`` fractal columns (``epilogue_elem_bytes``: UB bytes per output element of the epilogue's own
    operands, e.g. gemm's C).  ``cast_only``: the result leaves L0C as float16 with no bias, gemm term or fused
    step.  A head (``head``) is considered only then, with the result leaving L0C through UB (not by the
    fixpipe) and a second sub-tile of at least two UB chunks: a head shortens the second sub-tile, under which
    the first one's epilogue runs, and the simulator measured it slower otherwise -- with a fused relu or a bias
    on Ascend910, by the fixpipe on Ascend910B1 for most shapes tried (the first sub-tile's fixpipe copy then
    holds the core's HBM share while the second one loads), and with a one-column second sub-tile.  The tiler
    models neither vector epilogues nor that contention."""
    frac_in = FRACTAL * chip.block_bytes                          # bytes of one input fractal
    acc_frac = FRACTAL * FRACTAL * 4                              # one accumulator fractal (float32 / int32)
    out_frac = FRACTAL * FRACTAL * (2 if desc.out_dtype == "float16" else 4)
    k0 = chip.block_bytes // itemsize(desc.in_dtype)
    m1, n1, k1 = ceil_div(desc.m, FRACTAL), ceil_div(desc.n, FRACTAL), ceil_div(desc.k, k0)
    batch = 1
    for dim in desc.batch:
        batch *= dim
    budget = _Budget(frac_in, acc_frac, out_frac, chip.ub_bytes - n1 * FRACTAL * 4 * 2,
                     FRACTAL * FRACTAL * epilogue_elem_bytes, fixpipe)
    best = None
    for shape in _shapes(m1, n1, k1, budget, chip):
        cycles, block_dim = _modelled(shape, m1, n1, k1, batch, chip, core_num, budget)
        mt, nt, kt, parts, resident, kl = shape
        key = (cycles, -block_dim, -mt * nt, len(parts), not resident, -kt, kl, parts)
        if best is None or key < best[0]:
            best = (key, shape, block_dim)
    _, (mt, nt, kt, parts, resident, kl), block_dim = best
    common = math.gcd(*parts)
    chunk = mt * (acc_frac + out_frac + budget.ub_extra)          # UB bytes per fractal column of a chunk
    double = [c for c in _divisors(common) if 2 * c * chunk <= budget.ub_room]    # two chunks: store overlaps load
    nc = max(double) if double else max(c for c in _divisors(common) if c * chunk <= budget.ub_room)
    if double and len(parts) > 1 and not fixpipe:
        nc = _store_chunk(chip, double, parts, mt * k1, mt * out_frac) or nc
    widths = parts if len(set(parts)) > 1 else ()
    one_tile = batch * -(-m1 // mt) * -(-n1 // nt) == block_dim       # nothing overlaps the first sub-tile's loads
    plan, head = (), ()
    if resident and len(parts) > 1 and one_tile:
        plan = first_loads(chip, k1, mt, parts[0], kt, kl)
        # a head (see the docstring for when it is considered at all)
        if cast_only and not fixpipe and parts[1] >= 2 * nc and head_shape_fits(chip, parts, kt):
            head, rest = head_plan(chip, k1, mt, parts, kt, kl, kl * max(parts))
            plan = rest if head else plan
    return CubeTiling(m1, n1, k1, mt, nt, kt, batch, block_dim, k0, nc, len(parts), resident, kl, widths, plan,
                      head)


__all__ = ["CubeTiling", "choose_tiling", "tile_start"]
