"""Loops of scalar instructions run as all trips at once (npusim.sim.lockstep.scalar_trips) against the
block-by-block reference: per-row max/min/sum finishing loops and per-row broadcasts as TBE's norm schedules emit
them, with inf / NaN / -0.0 / overflowing values, float16 and float32 registers, rows taking a branch, and the
loops that must not take the fast path (a value carried from trip to trip, a trip reading what another wrote, an
access past the buffer in the last trip).  GM bytes, per-block trace records and errors must be the reference's,
and each test checks whether the fast path ran."""
from __future__ import annotations

import numpy as np
import pytest

from npusim.errors.sim import SimulatorError
from npusim.sim import KernelBuilder, get_chip
from npusim.sim.builder import E
from npusim.sim.kernel import BinOp
from npusim.sim.lockstep import scalar_trips
from sim_helpers import run_mode as _run, same_as_reference

CHIPS = ("Ascend910", "Ascend910B1")     # saturation mode, inf_nan mode
ROWS, WIDTH, BLOCKS = 12, 8, 4


def _same(kernel, arrays, chip, monkeypatch, block_dim=BLOCKS):
    return same_as_reference(kernel, arrays, chip, monkeypatch, block_dim)


@pytest.fixture
def fast_runs(monkeypatch):
    """How many loops the scalar-trip runner took (it returns True)."""
    taken = []
    original = scalar_trips._Runner.run

    def counting(self, b, low, high):
        done = original(self, b, low, high)
        taken.append(done)
        return done
    monkeypatch.setattr(scalar_trips._Runner, "run", counting)
    return taken


def _row_kernel(chip: str, dtype: str, op: str, swap: bool = False, gate: bool = False):
    """Each block loads ROWS rows of WIDTH values, folds every row on the scalar unit (acc = op(acc, value)),
    stores the row results, then broadcasts each row result over a 64-element row with vector_dup; with
    ``gate`` only blocks 0 and 2 run the loops (rows of a batch taking a branch)."""
    kb = KernelBuilder("rows", chip=get_chip(chip))
    n = ROWS * WIDTH
    x = kb.tensor(dtype, (BLOCKS * n,), "GM", "x")
    y = kb.tensor(dtype, (BLOCKS * ROWS * 64,), "GM", "y")
    z = kb.tensor(dtype, (BLOCKS * 16,), "GM", "z")
    ub = kb.tensor(dtype, (n,), "UB", "ub")
    res = kb.tensor(dtype, (16,), "UB", "res")
    wide = kb.tensor(dtype, (ROWS * 64,), "UB", "wide")
    acc, val = kb.scalar(dtype, "acc"), kb.scalar(dtype, "val")
    kb.data_move(ub, x[kb.block_idx * n], 0, 1, n * np.dtype(dtype).itemsize // 32, 0, 0)
    kb.vector_dup(16, res, 0, 1, 1, 8)

    def loops():
        with kb.for_range(0, ROWS) as i:
            acc.set_as(ub[i * WIDTH])
            for j in range(1, WIDTH):
                val.set_as(ub[i * WIDTH + j])
                lhs, rhs = (val, acc) if swap else (acc, val)
                acc.set_as(E(BinOp(op, lhs.expr, rhs.expr)) if op in ("max", "min") else
                           (lhs + rhs if op == "add" else lhs * rhs))
            res[i].set_as(acc)
        with kb.for_range(0, ROWS) as i:
            val.set_as(res[i])
            kb.vector_dup(64, wide[i * 64], val, 1, 1, 8)
    if gate:
        with kb.if_scope(kb.block_idx % 2 == 0):
            loops()
    else:
        loops()
    kb.data_move(y[kb.block_idx * ROWS * 64], wide, 0, 1, ROWS * 64 * np.dtype(dtype).itemsize // 32, 0, 0)
    kb.data_move(z[kb.block_idx * 16], res, 0, 1, 16 * np.dtype(dtype).itemsize // 32, 0, 0)
    return kb.build(inputs=[x], outputs=[y, z], check=False)


def _values(dtype: str, special: str) -> np.ndarray:
    x = np.random.default_rng(3).standard_normal(BLOCKS * ROWS * WIDTH).astype(dtype)
    if special == "nonfinite":
        x[[3, 17, 40, 41, 90, 200]] = [np.nan, np.inf, -np.inf, np.nan, -0.0, np.inf]
    elif special == "large":
        x[:] = np.finfo(dtype).max / 2
    return x


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("op", ["max", "min", "add", "mul"])
@pytest.mark.parametrize("special", [None, "nonfinite", "large"])
def test_row_loops_run_as_all_trips_and_match_the_reference(chip, dtype, op, special, monkeypatch, fast_runs):
    x = _values(dtype, special)
    y = np.zeros(BLOCKS * ROWS * 64, dtype)
    z = np.zeros(BLOCKS * 16, dtype)
    _, got_y, got_z = _same(_row_kernel(chip, dtype, op), [x, y, z], chip, monkeypatch)
    assert fast_runs.count(True) == 2
    if special is None and op in ("max", "min"):
        rows = x.reshape(BLOCKS, ROWS, WIDTH)
        want = rows.max(-1) if op == "max" else rows.min(-1)
        np.testing.assert_array_equal(got_z.reshape(BLOCKS, 16)[:, :ROWS], want)
        np.testing.assert_array_equal(got_y.reshape(BLOCKS, ROWS, 64)[..., 5], want)


@pytest.mark.parametrize("swap", [False, True])
def test_max_keeps_python_nan_placement(swap, monkeypatch, fast_runs):
    """max(acc, nan) keeps acc, max(nan, x) keeps nan: the operand order decides, as on the scalar unit."""
    x = _values("float32", "nonfinite")
    arrays = [x, np.zeros(BLOCKS * ROWS * 64, np.float32), np.zeros(BLOCKS * 16, np.float32)]
    _same(_row_kernel("Ascend910B1", "float32", "max", swap=swap), arrays, "Ascend910B1", monkeypatch)
    assert fast_runs.count(True) == 2


def test_rows_taking_a_branch(monkeypatch, fast_runs):
    x = _values("float32", None)
    arrays = [x, np.zeros(BLOCKS * ROWS * 64, np.float32), np.zeros(BLOCKS * 16, np.float32)]
    _same(_row_kernel("Ascend910", "float32", "max", gate=True), arrays, "Ascend910", monkeypatch)
    assert fast_runs.count(True) == 2


def test_value_carried_between_trips_runs_trip_by_trip(monkeypatch, fast_runs):
    """A running sum whose register is read before it is written in the body: no fast path."""
    kb = KernelBuilder("carry", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (BLOCKS * 64,), "GM", "x")
    ub = kb.tensor("float32", (64,), "UB", "ub")
    acc, val = kb.scalar("float32", "acc"), kb.scalar("float32", "val")
    kb.data_move(ub, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    acc.set_as(0.0)
    with kb.for_range(0, 32) as i:
        val.set_as(ub[i])
        acc.set_as(acc + val)
        ub[32 + i].set_as(acc)
    kb.data_move(x[kb.block_idx * 64], ub, 0, 1, 8, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    _same(kernel, [np.random.default_rng(4).standard_normal(BLOCKS * 64).astype(np.float32)], "Ascend910",
          monkeypatch)
    assert fast_runs == []


def test_trip_reading_another_trips_store_runs_trip_by_trip(monkeypatch, fast_runs):
    """Trip i stores element i+1, which trip i+1 loads: the runner declines and the trips run in order."""
    kb = KernelBuilder("chain", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (BLOCKS * 64,), "GM", "x")
    ub = kb.tensor("float32", (64,), "UB", "ub")
    a, c = kb.scalar("float32", "a"), kb.scalar("float32", "c")
    kb.data_move(ub, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    with kb.for_range(0, 40) as i:
        a.set_as(ub[i])
        c.set_as(ub[i + 8])
        ub[i + 1].set_as(a + c)
    kb.data_move(x[kb.block_idx * 64], ub, 0, 1, 8, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    ref = _same(kernel, [np.random.default_rng(5).standard_normal(BLOCKS * 64).astype(np.float32)], "Ascend910",
                monkeypatch)
    assert fast_runs == [False]
    assert np.isfinite(ref[0]).all()


def test_access_past_the_buffer_in_the_last_trip_raises_like_the_reference(monkeypatch, fast_runs):
    kb = KernelBuilder("oob", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (BLOCKS * 64,), "GM", "x")
    ub = kb.tensor("float32", (64,), "UB", "ub")
    out = kb.tensor("float32", (64,), "UB", "out")
    a, c = kb.scalar("float32", "a"), kb.scalar("float32", "c")
    kb.data_move(ub, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    with kb.for_range(0, 40) as i:                    # trip 32 reads ub[64]
        a.set_as(ub[i * 2])
        c.set_as(a * 2.0)
        out[i].set_as(c)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    errors = []
    for mode in ("lockstep", "reference"):
        with pytest.raises(SimulatorError) as caught:
            _run(kernel, [np.zeros(BLOCKS * 64, np.float32)], "Ascend910", mode, monkeypatch, BLOCKS)
        errors.append((type(caught.value), caught.value.instr_index))
        assert "accesses elements 64..64 but ub holds 64 elements" in str(caught.value)
    assert errors[0] == errors[1]
    assert fast_runs == [False]


def test_store_address_not_affine_in_the_loop_runs_trip_by_trip(monkeypatch, fast_runs):
    """i + i(i-1)(3-i) agrees with an affine start at trips 0, 1 and 3 of 0..4 but not at trip 2: the runner must
    judge the expression, not sample trips."""
    kb = KernelBuilder("nonaffine", chip=get_chip("Ascend910"))
    x = kb.tensor("float32", (BLOCKS * 64,), "GM", "x")
    src = kb.tensor("float32", (64,), "UB", "src")
    dst = kb.tensor("float32", (64,), "UB", "dst")
    kb.data_move(src, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    kb.data_move(dst, x[kb.block_idx * 64], 0, 1, 8, 0, 0)
    r, r2 = kb.scalar("float32", "r"), kb.scalar("float32", "r2")
    with kb.for_range(0, 5) as i:
        r.set_as(src[i * 8])
        r2.set_as(r + 100.0)
        dst[i + i * (i - 1) * (3 - i) + 32].set_as(r2)
    kb.data_move(x[kb.block_idx * 64], dst, 0, 1, 8, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[], check=False)
    _same(kernel, [np.arange(BLOCKS * 64, dtype=np.float32)], "Ascend910", monkeypatch)
    assert fast_runs == []
