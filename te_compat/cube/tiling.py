"""Tile sizes of the cube schedule, from the chip's buffer sizes (never literal sizes).

A tile is ``mt x nt`` output fractals (16 x 16 each) accumulated in L0C over k-steps of ``kt`` fractals of K
(K0 = one block of the input dtype).  Per k-step L1 holds the A and B panels, L0A ``mt x kt`` and L0B
``kt x nt`` fractals; UB holds ``mt x nc`` fractals of the tile at a time (accumulator and output dtype), plus the
bias row.  The tile shape minimises the busier of the cube's and the GM reads' cycles per core (a simple model of
what the cycle model charges: the panels are read from HBM at the core's share of the chip's bandwidth).
Tile counts divide the fractal counts, so every tile is whole (the padding of the native layouts is zero).
Tiles are spread over ``block_dim`` cores (a divisor of the tile count, at most the chip's cube cores).
"""
from __future__ import annotations

from dataclasses import dataclass

from npusim.sim.dtypes import itemsize
from te_compat.dsl.cube import FRACTAL, MatmulDesc, ceil_div

@dataclass(frozen=True)
class CubeTiling:
    """Fractal counts (whole matrix: m1, n1, k1; per tile: mt, nt, kt; per UB chunk of the tile: nc columns),
    the batch count, the core split and K0 (elements of one fractal row: one block of the input dtype)."""

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

    @property
    def tiles(self) -> int:
        return self.batch * (self.m1 // self.mt) * (self.n1 // self.nt)

    @property
    def tiles_per_block(self) -> int:
        return self.tiles // self.block_dim


def _divisors(value: int) -> list:
    return [d for d in range(1, value + 1) if value % d == 0]


def _modelled_cycles(desc_batch: int, m1: int, n1: int, k1: int, mt: int, nt: int, chip, core_num: int) -> tuple:
    """(the busier of cube and GM-read cycles per core, block_dim) of ``mt x nt`` tiles: the cube takes one cycle
    per 16 x 16 x K0 fractal product, the panels come from HBM at the core's share of the chip's bandwidth."""
    tiles = desc_batch * (m1 // mt) * (n1 // nt)
    block_dim = max(d for d in _divisors(tiles) if d <= max(1, core_num))
    per_block = tiles // block_dim
    cube = per_block * mt * nt * k1
    hbm_bytes_per_cycle = chip.hbm_gbps * 1e3 / chip.clock_mhz / block_dim
    reads = per_block * (mt + nt) * k1 * FRACTAL * chip.block_bytes / hbm_bytes_per_cycle
    return max(cube, reads), block_dim


def _k_step(k1: int, mt: int, nt: int, frac_in: int, chip) -> int:
    """The largest k-step whose panels fit L0A / L0B twice (the next step loads while the cube runs) and L1 twice;
    else the largest that fits once."""
    for copies in (2, 1):
        fitting = [kt for kt in _divisors(k1) if copies * mt * kt * frac_in <= chip.l0a_bytes and
                   copies * kt * nt * frac_in <= chip.l0b_bytes and copies * (mt + nt) * kt * frac_in <= chip.l1_bytes]
        if fitting:
            return max(fitting)
    return 1


def choose_tiling(desc: MatmulDesc, chip, core_num: int) -> CubeTiling:
    """Whole tiles that fit L0C, chosen by the busier of cube and GM-read cycles per core; the k-step is the
    largest that fits L0A / L0B / L1; UB takes the tile in chunks of ``nc`` fractal columns."""
    frac_in = FRACTAL * chip.block_bytes                          # bytes of one input fractal
    acc_frac = FRACTAL * FRACTAL * 4                              # one accumulator fractal (float32 / int32)
    out_frac = FRACTAL * FRACTAL * (2 if desc.out_dtype == "float16" else 4)
    k0 = chip.block_bytes // itemsize(desc.in_dtype)
    m1, n1, k1 = ceil_div(desc.m, FRACTAL), ceil_div(desc.n, FRACTAL), ceil_div(desc.k, k0)
    batch = 1
    for dim in desc.batch:
        batch *= dim
    ub_room = chip.ub_bytes - n1 * FRACTAL * 4 * 2                # room for the chunks beside the bias row
    best = None
    for mt in _divisors(m1):
        for nt in _divisors(n1):
            if mt * nt * acc_frac > chip.l0c_bytes or mt * (acc_frac + out_frac) > ub_room:
                continue
            cycles, block_dim = _modelled_cycles(batch, m1, n1, k1, mt, nt, chip, core_num)
            key = (cycles, -mt * nt)
            if best is None or key < best[0]:
                best = (key, mt, nt, block_dim)
    _, mt, nt, block_dim = best
    nc = max(c for c in _divisors(nt) if mt * c * (acc_frac + out_frac) <= ub_room)
    kt = _k_step(k1, mt, nt, frac_in, chip)
    return CubeTiling(m1, n1, k1, mt, nt, kt, batch, block_dim, k0, nc)


__all__ = ["CubeTiling", "choose_tiling"]
