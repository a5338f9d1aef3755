"""Issue 15: the profile of a 1024 x 1024 x 1024 float16 matmul (A, B^T and the result in FRACTAL_NZ, as
benchmarks/bench_cube_matmul.py builds it).  Cycle estimates are deterministic: these pin the schedule's estimate,
not host timing.

The issue's target (within 25 % of the cube roofline) is out of reach of any schedule under today's cost model:
it gives each active core 1/cores of the chip's HBM bandwidth and has no L2, so the operands every core must read
from HBM alone take longer than 1.25 x the roofline (test_hbm_floor_alone_exceeds_the_target).  The target tests
are strict xfails: they start passing (and then fail as XPASS) once the model serves shared operands from L2.
"""
import numpy as np
import pytest

from npusim.sim import get_chip, profile, set_chip

SIZE = 1024
CHIPS = ["Ascend910", "Ascend910B1"]
#: the estimate / roofline this schedule reaches today (Ascend910 2.43, Ascend910B1 3.77; before it: 2.77, 4.02)
REACHED = {"Ascend910": 2.55, "Ascend910B1": 3.90}      # both below the old schedule's
_ROWS = {}


def _bench():
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_cube_matmul.py"
    spec = importlib.util.spec_from_file_location("bench_cube_matmul", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _profiled(chip_name):
    """(profile row, tiling) of one launch of the 1024^3 kernel on ``chip_name`` (run once per chip)."""
    if chip_name not in _ROWS:
        set_chip(chip_name)
        kernel, sch = _bench().build(SIZE)
        frac = SIZE // 16
        rng = np.random.default_rng(0)
        a = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
        b = rng.standard_normal((frac, frac, 16, 16)).astype(np.float16)
        with profile() as prof:
            out = kernel.run(a, b)
        out = np.asarray(out[0] if isinstance(out, (list, tuple)) else out)
        dense = [x.transpose(1, 2, 0, 3).reshape(SIZE, SIZE).astype(np.float32) for x in (a, b, out)]
        error = np.abs(dense[2] - dense[0] @ dense[1].T) - 2e-3 * np.abs(dense[0] @ dense[1].T)
        _ROWS[chip_name] = (prof.rows()[-1], sch.tiling, float(error.max()))
    return _ROWS[chip_name][:2]


def _ratio(chip_name):
    row, _ = _profiled(chip_name)
    return row["time_us"] / _bench().roofline_us(get_chip(chip_name), SIZE)


@pytest.mark.parametrize("chip_name", CHIPS)
def test_result_matches_numpy(chip_name):
    """The 1024^3 tiles (Ascend910: a wide and a narrow sub-tile with the A panel resident in L1, two k-steps per
    L1 load) compute the product: float16 rounding of the float32 accumulation."""
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
def test_hbm_floor_alone_exceeds_the_target(chip_name):
    """Whatever the core count, each core's least HBM traffic (its A rows, B columns and C block at its share of
    the bandwidth) exceeds 1.25 x the cube roofline: the target needs an L2 in the cost model."""
    chip = get_chip(chip_name)
    bench = _bench()
    roof = bench.roofline_us(chip, SIZE)
    for cores in range(1, chip.cube_core_num + 1):
        cube_us = SIZE ** 3 / 16 ** 3 / cores / chip.clock_mhz
        assert max(cube_us, bench.hbm_floor_us(chip, SIZE, cores)) > bench.TARGET_RATIO * roof


@pytest.mark.xfail(strict=True, reason="cost model: per-core HBM share, no L2 (see the module docstring)")
@pytest.mark.parametrize("chip_name", CHIPS)
def test_estimate_within_25_percent_of_the_cube_roofline(chip_name):
    assert _ratio(chip_name) <= 1.25


@pytest.mark.xfail(strict=True, reason="cost model: per-core HBM share, no L2; MTE2 waits on HBM on Ascend910B1")
def test_m_pipe_is_the_busiest_on_ascend910b1():
    row, _ = _profiled("Ascend910B1")
    assert row["busiest_pipe"] == "M"
