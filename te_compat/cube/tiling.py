"""Tile sizes of the cube schedule, from the chip's buffer sizes and transfer rates (never literal sizes).

A tile is ``mt x nt`` output fractals (16 x 16 each), computed as ``sub`` sub-tiles (``parts``: equal widths, or
a wide one then a narrow one), each accumulated in its own L0C slot over k-steps of ``kt`` fractals of K (K0 = one
block of the input dtype).  GM -> L1 loads bring ``kl`` fractals of K at a time (one or more k-steps: fewer,
larger transfers); L1 holds two such A and B panels (the next loads while the cube runs), L0A ``mt x kt`` and L0B
``kt x ns`` fractals (two of each).  With ``sub`` >= 2 the sub-tiles alternate between two L0C slots, so the
epilogue of one (L0C -> UB, bias, cast, store) runs while the cube accumulates the next; a narrow last sub-tile
leaves little epilogue after the last mmad.  When the whole A panel of a tile (``mt`` fractal rows by all of K)
fits L1 beside the B panels it stays there (``a_resident``) and only the first sub-tile reads it from GM.  UB holds
``mt x nc`` fractals of a sub-tile at a time (accumulator and output dtype; two such chunks when they fit, so one
is stored while the next leaves L0C), plus the bias row.

The shape is the one with the fewest modelled cycles per core: per sub-tile the busiest of the cube (one cycle per
16 x 16 x K0 fractal product), the L1 -> L0 moves and the GM transfers (at the core's rate and at its share of the
chip's HBM bandwidth), plus the first load and the last sub-tile's epilogue, which nothing overlaps: the costs the
cycle model charges, with its rates read from the chip.  Tile counts divide the fractal counts, so every tile is
whole (the padding of the native layouts is zero); tiles are spread over ``block_dim`` cores (the largest divisor
of the tile count not above the cores).  Because the cost model gives every active core 1/cores of the chip's HBM
bandwidth (and has no L2), the cheapest plan may leave cores idle: Ascend910's 1024^3 matmul runs on 16 of 32.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from npusim.sim.dtypes import itemsize
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
    def tiles(self) -> int:
        return self.batch * (self.m1 // self.mt) * (self.n1 // self.nt)

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


def _completion_cycles(chip, nbytes: float) -> float:
    path = chip.paths.get(("GM", "L1"))
    return path.completion_cycles(nbytes) if path is not None else nbytes / chip.block_bytes


def _epilogue_bytes(chip, b: _Budget, fractals: int) -> tuple:
    """(GM bytes, cycles of its moves one after another: UB holds one chunk at a time) of moving ``fractals``
    accumulator fractals out."""
    acc, out = fractals * b.acc_frac, fractals * b.out_frac
    if ("L0C", "UB") in chip.paths:
        return out, _path_cycles(chip, "L0C", "UB", acc) + _path_cycles(chip, "UB", "GM", out)
    gm = 2 * acc + out          # through a GM workspace: written by FIX, read back into UB
    return gm, _path_cycles(chip, "L0C", "GM", acc) + _path_cycles(chip, "GM", "UB", acc) + \
        _path_cycles(chip, "UB", "GM", out)


def _modelled(shape: tuple, m1: int, n1: int, k1: int, batch: int, chip, core_num: int, b: _Budget) -> tuple:
    """(modelled cycles per core, block_dim) of tile ``shape`` = (mt, nt, kt, parts, a_resident, kl): per sub-tile
    the busiest of cube, MTE1, MTE2 and the core's HBM share (the first sub-tile also reads a resident A panel,
    and every one but the first carries the previous one's epilogue traffic), then the first load and the last
    epilogue, which nothing overlaps."""
    mt, nt, kt, parts, resident, kl = shape
    tiles = batch * (m1 // mt) * (n1 // nt)
    block_dim = max(d for d in _divisors(tiles) if d <= max(1, core_num))
    share = chip.hbm_bytes_per_cycle / block_dim
    loads = k1 // kl
    a_chunk = mt * kl * b.frac_in
    tile, previous_gm = 0.0, 0.0
    for part, ns in enumerate(parts):
        b_chunk = kl * ns * b.frac_in
        with_a = part == 0 or not resident
        cube = mt * ns * k1
        mte1 = (k1 // kt) * (mt * _path_cycles(chip, "L1", "L0A", kt * b.frac_in) +
                             _path_cycles(chip, "L1", "L0B", kt * ns * b.frac_in))
        gm = loads * ((a_chunk if with_a else 0) + b_chunk) + previous_gm
        mte2 = loads * ((_path_cycles(chip, "GM", "L1", a_chunk) if with_a else 0) +
                        _path_cycles(chip, "GM", "L1", b_chunk))
        # two loads in flight: a load's completion (its GM latency) must hide behind two loads' worth of work
        in_flight = loads * _completion_cycles(chip, (a_chunk if with_a else 0) + b_chunk) / 2
        epi_gm, epi_cycles = _epilogue_bytes(chip, b, mt * ns)
        previous_gm = epi_gm
        tile += max(cube, mte1, mte2, gm / share, in_flight) + (0 if len(parts) > 1 else epi_cycles)
    first_b = kl * parts[0] * b.frac_in
    first_load = max(_path_cycles(chip, "GM", "L1", a_chunk + first_b), (a_chunk + first_b) / share)
    last = epi_cycles + previous_gm / share if len(parts) > 1 else 0
    return (tiles // block_dim) * tile + first_load + last, block_dim


def _l0c_columns(parts: tuple) -> int:
    return sum(max(parts[slot::2]) for slot in range(2 if len(parts) > 1 else 1))


def _fits(mt: int, parts: tuple, b: _Budget, chip) -> bool:
    return _l0c_columns(parts) * mt * b.acc_frac <= chip.l0c_bytes and \
        mt * (b.acc_frac + b.out_frac + b.ub_extra) <= b.ub_room


def _splits(nt: int) -> list:
    """Sub-tile widths of an ``nt``-column tile: 1, 2 or 4 equal ones, or a wide one then a narrow one (the
    narrow last sub-tile leaves little epilogue after the last mmad)."""
    found = [(nt // sub,) * sub for sub in (1, 2, 4) if nt % sub == 0]
    found += [(nt - narrow, narrow) for narrow in _divisors(nt) if 2 * narrow < nt]
    return found


def _shapes(m1: int, n1: int, k1: int, b: _Budget, chip):
    """Every (mt, nt, kt, parts, a_resident, kl) whose buffers fit the chip."""
    for mt in _divisors(m1):
        for nt in _divisors(n1):
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


def choose_tiling(desc: MatmulDesc, chip, core_num: int, epilogue_elem_bytes: int = 0) -> CubeTiling:
    """The tile shape with the fewest modelled cycles per core (see the module docstring); UB takes a sub-tile in
    chunks of ``nc`` fractal columns (``epilogue_elem_bytes``: UB bytes per output element of the epilogue's own
    operands, e.g. gemm's C)."""
    frac_in = FRACTAL * chip.block_bytes                          # bytes of one input fractal
    acc_frac = FRACTAL * FRACTAL * 4                              # one accumulator fractal (float32 / int32)
    out_frac = FRACTAL * FRACTAL * (2 if desc.out_dtype == "float16" else 4)
    k0 = chip.block_bytes // itemsize(desc.in_dtype)
    m1, n1, k1 = ceil_div(desc.m, FRACTAL), ceil_div(desc.n, FRACTAL), ceil_div(desc.k, k0)
    batch = 1
    for dim in desc.batch:
        batch *= dim
    budget = _Budget(frac_in, acc_frac, out_frac, chip.ub_bytes - n1 * FRACTAL * 4 * 2,
                     FRACTAL * FRACTAL * epilogue_elem_bytes)
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
    widths = parts if len(set(parts)) > 1 else ()
    return CubeTiling(m1, n1, k1, mt, nt, kt, batch, block_dim, k0, nc, len(parts), resident, kl, widths)


__all__ = ["CubeTiling", "choose_tiling"]
