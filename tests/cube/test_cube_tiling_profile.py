"""Issue 15: the profile of a 1024 x 1024 x 1024 float16 matmul (A, B^T and the result in FRACTAL_NZ, as
benchmarks/bench_cube_matmul.py builds it).  Cycle estimates are deterministic: these pin the schedule's estimate,
not host timing.

The cost model has a per-launch L2 (npusim/sim/cost/l2.py): the A and B panels every core re-reads come from HBM
once and then at the cores' L2 read rate, so this launch's estimate is within 2 % of what it would be if the HBM
share never limited a core (test_l2_serves_the_panels_the_cores_share).  Without an L2 no schedule could reach the
issue's target (within 25 % of the cube roofline): the operands every core must read from HBM alone take longer
than 1.25 x the roofline (test_hbm_floor_alone_exceeds_the_target).  The schedule's tiler
(te_compat/cube/tiling.py) prices GM reads with that L2 (operand bytes from HBM once, re-reads at the L2 rate), so
it uses every core: Ascend910 32 cores (8 x 16-fractal tiles, a 12- and a 4-column sub-tile, the A panel resident
in L1, 16 K fractals per L1 load), 1.233 x the roofline (10341 cycles); Ascend910B1 24 cores (8 x 22-fractal
tiles, three to a row of 64 fractals, overlapping by one column; sub-tiles 10, 6, 6 in k-steps of 4 fractals;
fixpipe out), 1.246 x (13599 cycles).  On Ascend910 the tile starts with a head (tests/cube/test_cube_head.py): two
loads of 8 K fractals run over the first two sub-tiles at once, then the first sub-tile's rest of K comes in loads
of 12 planned by te_compat/cube/load_plan.py (on Ascend910B1 the tiler takes no head: by the fixpipe it made other
shapes slower).  MTE1 moves a load's first A panel before it waits for the load's B panel (as soon as the A
panel is in L1 when the load brings it; the last load, split whole, moves its A panels ahead itself); the first
k-step of every load moves B to L0B in pieces, each piece's mmad as soon as it is in.  Four k-steps of A fit L0A
on both, so MTE1 moves each k-step's A panel while the cube runs the one before (tests/cube/test_cube_a_ring.py).
The last sub-tile's last four k-steps run in pieces of two columns, their A panels moved ahead as far as the ring
allows, each piece leaving L0C (a UB chunk cast on the way out by copy_matrix_cc_to_ubuf, or a fixpipe copy) while
the cube runs the next; on Ascend910 the first sub-tile's chunks also leave cast on the way and their stores run
back to back.

Both reach the issue's target.  What is left, from the profiles (M busy is the cube's 8192 / 11264 cycles per core
plus 2 per mmad and 1 per flag; Ascend910B1's 24 cores cannot share 64 x 64 fractals evenly, so its busiest core
alone is 1.031 x the roofline):
- The first mmad waits ~1.25 k (Ascend910, with the head) / ~1.57 k cycles for the first A and B panels: GM -> L1
  holds MTE2 186 cycles + bytes / 153.7 per move and a move completes 351 cycles + bytes / 152 after it starts, so
  loads must be large.  Smaller first loads (a split first B load, other heads and plans) simulated slower.
- Until the first sub-tile's last load is in, MTE2 is busy without a break (the first sub-tile also brings the
  resident A panel), so the cube still waits ~0.1 k cycles there.
- After the last mmad the last piece leaves: L0C -> UB, its store and the store's completion: ~0.32 k cycles on
  Ascend910; its fixpipe copy and completion: ~0.34 k on Ascend910B1.
"""
import dataclasses

import numpy as np
import pytest

from npusim.sim import get_chip, profile, set_chip
from npusim.sim.cost import estimate

SIZE = 1024
CHIPS = ["Ascend910", "Ascend910B1"]
#: the estimate / roofline this schedule reaches today: Ascend910 1.233, Ascend910B1 1.246.  Before (Ascend910,
#: Ascend910B1):
#: - 1.240, 1.252 before MTE1 moved every load's first A panel before waiting for its B panel;
#: - 1.2498, 1.262 before the split k-steps' A panels moved ahead;
#: - 1.260, 1.265 before L1 -> L0A / L0B loads were priced as msKPP's curves measure them (2n + 1 / 4n + 1
#:   cycles for n fractals, not msKPP's per-instruction ceil: 2n + 3 / 4n + 2);
#: - 1.265, 1.273 before the last sub-tile's last four k-steps went by pieces;
#: - 1.277, 1.286 before each load's first k-step went by pieces;
#: - 1.283 (Ascend910) before the first sub-tile's stores ran back to back;
#: - 1.30, 1.29 before the head and the fixpipe's two-piece tail;
#: - 1.33, 1.31 before the L0A ring and the 10, 6, 6 sub-tiles;
#: - 1.37, 1.33 before the first sub-tile's load plan and the pieced last k-steps;
#: - a tiler pricing GM at the HBM share without the L2: 2.37 on 16 cores, 1.89 on 16;
#: - before the L2 and the fixpipe: 2.43, 3.77.
REACHED = {"Ascend910": 1.234, "Ascend910B1": 1.246}
_ROWS = {}


def _bench():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cube_matmul.py"
    spec = importlib.util.spec_from_file_location("bench_cube_matmul", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def launch(seed: int, size: int = SIZE) -> tuple:
    """(A, B^T, result, profile, tiling) of one profiled launch of the benchmark's size^3 kernel on the current
    chip, with random FRACTAL_NZ operands from ``seed``."""
    kernel, sch = _bench().build(size)
    frac = size // 16
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
    b = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
    with profile() as prof:
        out = kernel.run(a, b)
    return a, b, np.asarray(out[0] if isinstance(out, (list, tuple)) else out), prof, sch.tiling


def _profiled(chip_name):
    """(profile row, tiling) of one launch of the 1024^3 kernel on ``chip_name`` (run once per chip)."""
    if chip_name not in _ROWS:
        set_chip(chip_name)
        a, b, out, prof, tiling = launch(0)
        dense = [x.transpose(1, 2, 0, 3).reshape(SIZE, SIZE).astype(np.float32) for x in (a, b, out)]
        error = np.abs(dense[2] - dense[0] @ dense[1].T) - 2e-3 * np.abs(dense[0] @ dense[1].T)
        _ROWS[chip_name] = (prof.rows()[-1], tiling, float(error.max()), prof.records[-1].trace)
    return _ROWS[chip_name][:2]


def _ratio(chip_name):
    row, _ = _profiled(chip_name)
    return row["time_us"] / _bench().roofline_us(get_chip(chip_name), SIZE)


@pytest.mark.parametrize("chip_name", CHIPS)
def test_result_matches_numpy(chip_name):
    """The 1024^3 tiles (Ascend910: a wide and a narrow sub-tile with the A panel resident in L1, four k-steps per
    L1 load; Ascend910B1: three sub-tiles, tiles overlapping by one fractal column) compute the product: float16
    rounding of the float32 accumulation."""
    _profiled(chip_name)
    assert _ROWS[chip_name][2] <= 0.1


@pytest.mark.parametrize("chip_name", CHIPS)
def test_estimate_stays_at_what_the_schedule_reaches(chip_name):
    row, tiling = _profiled(chip_name)
    assert row["cycles"] >= SIZE ** 3 / (16 ** 3 * tiling.block_dim)     # the cube's tiles on each core
    assert _ratio(chip_name) <= REACHED[chip_name]


def test_m_pipe_is_the_busiest_on_ascend910():
    row, _ = _profiled("Ascend910")
    assert row["busiest_pipe"] == "M"
    assert row["utilisation"]["M"] >= 0.7


@pytest.mark.parametrize("chip_name", CHIPS)
def test_l2_serves_the_panels_the_cores_share(chip_name):
    """Every core re-reads A and B panels other cores read too: with the L2 the launch costs within 2 % of what it
    would if the HBM share never limited a core, and less than with every read from HBM (the model without
    spans)."""
    _profiled(chip_name)
    trace = _ROWS[chip_name][3]
    chip = get_chip(chip_name)
    unlimited = dataclasses.replace(chip, name=f"{chip_name}-hbm-unlimited", hbm_gbps=chip.hbm_gbps * 1000)
    from_hbm = dataclasses.replace(trace, blocks=tuple(dataclasses.replace(b, gm_spans=[]) for b in trace.blocks))
    with_l2 = estimate(trace, chip).total_cycles
    assert with_l2 <= 1.02 * estimate(trace, unlimited).total_cycles
    assert with_l2 < estimate(from_hbm, chip).total_cycles


@pytest.mark.parametrize("chip_name", CHIPS)
def test_hbm_floor_alone_exceeds_the_target(chip_name):
    """Without an L2, whatever the core count, each core's least HBM traffic (its A rows, B columns and C block at
    its share of the bandwidth) exceeds 1.25 x the cube roofline: the target needs the cost model's L2 (and a
    tiler that counts on it, as te_compat/cube/tiling.py does)."""
    chip = get_chip(chip_name)
    bench = _bench()
    roof = bench.roofline_us(chip, SIZE)
    for cores in range(1, chip.cube_core_num + 1):
        cube_us = SIZE ** 3 / 16 ** 3 / cores / chip.clock_mhz
        assert max(cube_us, bench.hbm_floor_us(chip, SIZE, cores)) > bench.TARGET_RATIO * roof


@pytest.mark.parametrize("chip_name", CHIPS)
def test_estimate_within_25_percent_of_the_cube_roofline(chip_name):
    assert _ratio(chip_name) <= 1.25


def test_m_pipe_is_the_busiest_on_ascend910b1():
    row, _ = _profiled("Ascend910B1")
    assert row["busiest_pipe"] == "M"
