"""The ``load2d`` row: fractals L1 -> L0A / L0B with start_index, src_stride (0 repeats a fractal) and transpose,
read back through an mmad against an identity B (C = A), its checks, and its MTE1 cost."""
import numpy as np
import pytest

from npusim.errors import InvalidOperandError, OutOfBoundsError
from npusim.sim import Device, KernelBuilder

RNG = np.random.default_rng(11)
FRAC = 16 * 16        # fp16 elements of one fractal


def _kernel(n_src, repeat, start, stride, transpose=False, l0a_fracs=None):
    """src (n_src fp16 fractals) -> L1 -> load2d into L0A; identity fractal -> L1 -> load2d into L0B; mmad; the
    fp32 result (zN [1, repeat*16, 16] = the loaded fractals) -> UB -> GM."""
    kb = KernelBuilder("load2d_t")
    src = kb.tensor("float16", (n_src * FRAC,), "GM", "src")
    eye = kb.tensor("float16", (FRAC,), "GM", "eye")
    out = kb.tensor("float32", (repeat * FRAC,), "GM", "out")
    l1 = kb.tensor("float16", (n_src * FRAC,), "L1", "l1")
    l1_eye = kb.tensor("float16", (FRAC,), "L1", "l1_eye")
    l0a = kb.tensor("float16", ((l0a_fracs or repeat) * FRAC,), "L0A", "l0a")
    l0b = kb.tensor("float16", (FRAC,), "L0B", "l0b")
    l0c = kb.tensor("float32", (repeat * FRAC,), "L0C", "l0c")
    ub = kb.tensor("float32", (repeat * FRAC,), "UB", "ub")
    kb.data_move(l1, src, 0, 1, n_src * 16, 0, 0)
    kb.data_move(l1_eye, eye, 0, 1, 16, 0, 0)
    kb.load2d(l0a, l1, start, repeat, stride, 0, transpose)
    kb.load2d(l0b, l1_eye, 0, 1, 1)
    kb.mmad(l0c, l0a, l0b, repeat * 16, 16, 16, False)
    kb.data_move(ub, l0c, 0, 1, repeat * 32, 0, 0)
    kb.data_move(out, ub, 0, 1, repeat * 32, 0, 0)
    return kb.build()


def _run(n_src, repeat, start, stride, transpose=False, chip="Ascend910"):
    data = RNG.standard_normal(n_src * FRAC).astype(np.float16)
    dev = Device(chip)
    ptrs = [dev.to_device(data), dev.to_device(np.eye(16, dtype=np.float16).reshape(-1)), dev.malloc(repeat * FRAC * 4)]
    record = dev.run(_kernel(n_src, repeat, start, stride, transpose), ptrs)
    out = dev.from_device(ptrs[2], (repeat, 16, 16), np.float32)
    fracs = data.reshape(n_src, 16, 16).astype(np.float32)
    return out, fracs, record


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
def test_load2d_start_index_and_stride(chip):
    out, fracs, _ = _run(8, 3, 1, 2, chip=chip)
    assert np.array_equal(out, fracs[[1, 3, 5]])


def test_load2d_stride_zero_repeats_one_fractal():
    out, fracs, _ = _run(4, 3, 2, 0)
    assert np.array_equal(out, fracs[[2, 2, 2]])


def test_load2d_transpose_each_fractal():
    out, fracs, _ = _run(4, 2, 0, 3, transpose=True)
    assert np.array_equal(out, fracs[[0, 3]].transpose(0, 2, 1))


def test_load2d_runs_on_mte1():
    _, _, record = _run(8, 4, 0, 1)
    assert record.cost.busy_cycles("MTE1") > 0
    assert record.cost.busy_cycles("M") > 0


def test_load2d_source_overflow_is_reported():
    kernel = _kernel(4, 3, 2, 1)          # fractals 2, 3, 4 of a 4-fractal L1 buffer
    dev = Device("Ascend910")
    ptrs = [dev.malloc(4 * FRAC * 2), dev.malloc(FRAC * 2), dev.malloc(3 * FRAC * 4)]
    with pytest.raises(OutOfBoundsError, match="src tensor l1 overflow"):
        dev.run(kernel, ptrs)


def test_load2d_field_ranges_checked_at_build():
    kb = KernelBuilder("bad")
    l1 = kb.tensor("float16", (FRAC,), "L1", "l1")
    l0a = kb.tensor("float16", (FRAC,), "L0A", "l0a")
    kb.load2d(l0a, l1, 0, 256, 1)
    with pytest.raises(InvalidOperandError, match=r"repeat_times should be in the range of \[0, 255\]"):
        kb.build()


def test_load2d_needs_an_l0_destination_and_square_transpose():
    kb = KernelBuilder("bad_dst")
    l1 = kb.tensor("float16", (FRAC,), "L1", "l1")
    ub = kb.tensor("float16", (FRAC,), "UB", "ub")
    kb.load2d(ub, l1, 0, 1, 1)
    with pytest.raises(InvalidOperandError, match="must be in L0A or L0B"):
        kb.build()
    kb = KernelBuilder("bad_transpose")
    l1 = kb.tensor("int8", (2 * FRAC,), "L1", "l1")
    l0b = kb.tensor("int8", (2 * FRAC,), "L0B", "l0b")
    kb.load2d(l0b, l1, 0, 1, 1, 0, True)
    with pytest.raises(InvalidOperandError, match="if_transpose needs a square fractal"):
        kb.build()
