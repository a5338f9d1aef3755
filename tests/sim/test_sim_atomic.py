"""Atomic accumulation of moves into GM (set_atomic_add / _max / _min / _none) and atomic-clean parameters."""
import itertools

import numpy as np
import pytest

from npusim.errors.sim import InvalidOperandError, KernelFormatError, UnsupportedDtypeError
from npusim.sim import Device, KernelBuilder, get_chip, kernel_from_bytes, kernel_from_json
from npusim.sim.kernel_io import kernel_to_dict, kernel_from_dict

RNG = np.random.default_rng(5)
N = 64          # elements every block adds (whole 32-byte blocks for every dtype used here)


def _accumulating_kernel(dtype: str, blocks: int, mode="set_atomic_add", clean=True, mode_arg=None, check=False):
    """Block b copies row b of x (blocks x N) to UB and moves it into y (N) under ``mode`` (compiled for the
    current chip when ``check``; otherwise when a Device of some chip runs it)."""
    kb = KernelBuilder(f"acc_{mode}_{dtype}", block_dim=blocks)
    x = kb.tensor(dtype, (blocks, N), "GM", "x")
    y = kb.tensor(dtype, (N,), "GM", "y", atomic_clean=clean)
    ub = kb.tensor(dtype, (N,), "UB", "ub")
    nblocks = N * np.dtype(dtype).itemsize // 32
    kb.data_move(ub, x[kb.block_idx * N], 0, 1, nblocks, 0, 0)
    kb.emit(mode, dtype if mode_arg is None else mode_arg)
    kb.data_move(y, ub, 0, 1, nblocks, 0, 0)
    kb.set_atomic_none()
    return kb.build(inputs=[x], outputs=[y], check=check)


def _run(kernel, chip, xa, y0, order=None):
    dev = Device(chip)
    px, py = dev.to_device(xa), dev.to_device(y0)
    record = dev.run(kernel, [px, py], block_order=order)
    return dev.from_device(py, y0.shape, y0.dtype), record


def _sequential(xa, order, combine, start):
    acc = start.copy()
    for b in order:
        acc = combine(acc, xa[b]).astype(xa.dtype)
    return acc


@pytest.mark.parametrize("chip,dtype", [("Ascend910", "float32"), ("Ascend910B1", "float16"),
                                        ("Ascend310P3", "float16"), ("Ascend910B1", "float32")])
def test_float_add_is_one_ieee_add_of_the_dtype_per_block(chip, dtype):
    xa = (RNG.standard_normal((8, N)) * 100).astype(dtype)
    order = [5, 2, 7, 0, 1, 6, 3, 4]
    out, _ = _run(_accumulating_kernel(dtype, 8), chip, xa, np.full(N, 3, dtype), order)
    expected = _sequential(xa, order, np.add, np.zeros(N, dtype))      # atomic clean zeroed y first
    np.testing.assert_array_equal(out, expected)
    # each step is the correctly rounded sum of the two operands (float64 exact sum rounded once)
    acc = np.zeros(N, dtype)
    for b in order:
        acc = (acc.astype(np.float64) + xa[b].astype(np.float64)).astype(dtype)
    np.testing.assert_array_equal(out, acc)


def test_integer_add_wraps_and_max_min_on_a2():
    xa = np.array([[2 ** 31 - 1] * N, [5] * N], np.int32)
    out, _ = _run(_accumulating_kernel("int32", 2), "Ascend910B1", xa, np.zeros(N, np.int32))
    assert np.all(out == np.int32(-(2 ** 31) + 4))
    xs = RNG.integers(-1000, 1000, (6, N)).astype(np.int16)
    out, _ = _run(_accumulating_kernel("int16", 6, "set_atomic_max", clean=False), "Ascend910B1", xs,
                  np.full(N, -5, np.int16))
    np.testing.assert_array_equal(out, np.maximum(xs.max(0), -5))
    xf = RNG.standard_normal((6, N)).astype(np.float16)
    out, _ = _run(_accumulating_kernel("float16", 6, "set_atomic_min", clean=False), "Ascend910B1", xf,
                  np.full(N, 0.5, np.float16))
    np.testing.assert_array_equal(out, np.minimum(xf.min(0), np.float16(0.5)))


def test_result_does_not_depend_on_block_order_beyond_rounding():
    kernel = _accumulating_kernel("float32", 6)
    exact = RNG.integers(-1000, 1000, (6, N)).astype(np.float32)       # integer sums: no rounding at all
    results = [_run(kernel, "Ascend910", exact, np.zeros(N, np.float32), list(order))[0]
               for order in itertools.islice(itertools.permutations(range(6)), 0, 720, 97)]
    for out in results:
        np.testing.assert_array_equal(out, exact.sum(0))
    noisy = RNG.standard_normal((6, N)).astype(np.float32)
    a = _run(kernel, "Ascend910", noisy, np.zeros(N, np.float32), [0, 1, 2, 3, 4, 5])[0]
    b = _run(kernel, "Ascend910", noisy, np.zeros(N, np.float32), [5, 3, 1, 4, 2, 0])[0]
    np.testing.assert_allclose(a, b, rtol=0, atol=4 * np.finfo(np.float32).eps * np.abs(noisy).sum(0).max())
    np.testing.assert_allclose(a, noisy.astype(np.float64).sum(0), rtol=1e-5, atol=1e-5)


def test_strided_moves_accumulate_only_their_bursts_and_reads_stay_plain():
    kb = KernelBuilder("strided", block_dim=2)
    x = kb.tensor("float32", (32,), "GM", "x")
    y = kb.tensor("float32", (64,), "GM", "y")
    ub = kb.tensor("float32", (32,), "UB", "ub")
    kb.set_atomic_add("float32")                      # a read from GM under atomic mode is a plain copy
    kb.data_move(ub, x, 0, 1, 4, 0, 0)
    kb.data_move(y, ub, 0, 2, 2, 0, 2)                # bursts of 16 elements at y[0:16] and y[32:48]
    kb.set_atomic_none()
    kb.data_move(y[16], ub, 0, 1, 2, 0, 0)            # after set_atomic_none: overwrite y[16:32]
    kernel = kb.build(inputs=[x], outputs=[y])
    xa = np.arange(32, dtype=np.float32)
    out, _ = _run(kernel, "Ascend910", xa, np.full(64, 1, np.float32))
    expected = np.full(64, 1, np.float32)
    expected[0:16] += 2 * xa[0:16]
    expected[32:48] += 2 * xa[16:32]
    expected[16:32] = xa[0:16]
    np.testing.assert_array_equal(out, expected)


def test_each_block_starts_without_atomic_mode():
    blocks = get_chip("Ascend910").vector_core_num + 1          # block 32 runs on core 0 after block 0
    kb = KernelBuilder("leak", block_dim=blocks)
    x = kb.tensor("float32", (blocks, 8), "GM", "x")
    y = kb.tensor("float32", (blocks, 8), "GM", "y")
    ub = kb.tensor("float32", (8,), "UB", "ub")
    kb.data_move(ub, x[kb.block_idx * 8], 0, 1, 1, 0, 0)
    with kb.if_scope(kb.block_idx == 0):
        kb.set_atomic_add(1)                                     # TIK's mode number for float32; never cleared
    kb.data_move(y[kb.block_idx * 8], ub, 0, 1, 1, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[y])
    xa = RNG.standard_normal((blocks, 8)).astype(np.float32)
    out, record = _run(kernel, "Ascend910", xa, np.full((blocks, 8), 5, np.float32))
    assert [b.core for b in record.trace.blocks if b.block in (0, blocks - 1)] == [0, 0]
    np.testing.assert_array_equal(out[0], xa[0] + np.float32(5))
    np.testing.assert_array_equal(out[1:], xa[1:])


@pytest.mark.parametrize("chip,mode,dtype", [("Ascend910", "set_atomic_add", "float16"),
                                             ("Ascend910", "set_atomic_add", "int32"),
                                             ("Ascend910", "set_atomic_max", "float32"),
                                             ("Ascend310P3", "set_atomic_min", "float16"),
                                             ("Ascend310", "set_atomic_add", "float32")])
def test_unsupported_atomic_dtype_is_a_typed_error(chip, mode, dtype):
    from npusim.sim import set_chip
    set_chip(chip)
    try:
        with pytest.raises(UnsupportedDtypeError, match=f"{mode} does not support {dtype} on {chip}"):
            _accumulating_kernel(dtype, 2, mode, check=True)
    finally:
        set_chip(None)


def test_bad_atomic_operands_and_atomic_clean_declarations():
    with pytest.raises(InvalidOperandError, match="TIK atomic mode 3"):
        _accumulating_kernel("float32", 2, mode_arg=3, check=True)
    with pytest.raises(InvalidOperandError, match="unsupported dtype"):
        _accumulating_kernel("float32", 2, mode_arg="float33", check=True)
    kb = KernelBuilder("bad_clean")
    with pytest.raises(InvalidOperandError, match="only GM tensors"):
        kb.tensor("float32", (8,), "UB", "u", atomic_clean=True)
    kernel = _accumulating_kernel("float32", 2)
    params = list(kernel.params)
    params[0] = type(params[0])("n", "scalar", "int32", (), True)
    bad = type(kernel)(kernel.name, tuple(params), kernel.buffers, kernel.scalars, (), 1)
    with pytest.raises(InvalidOperandError, match="scalar cannot be atomic_clean"):
        Device("Ascend910").run(bad, [1, Device("Ascend910").malloc(256)])


def test_atomic_clean_serialises_and_old_files_read_as_not_clean():
    kernel = _accumulating_kernel("float32", 3)
    assert [p.atomic_clean for p in kernel.params] == [False, True]
    assert kernel_from_json(kernel.to_json()) == kernel
    assert kernel_from_bytes(kernel.to_bytes()) == kernel
    data = kernel_to_dict(kernel)
    assert "atomic_clean" not in data["params"][0] and data["params"][1]["atomic_clean"] is True
    del data["params"][1]["atomic_clean"]
    assert not kernel_from_dict(data).params[1].atomic_clean
    data["params"][1]["atomic_clean"] = "yes"
    with pytest.raises(KernelFormatError, match="atomic_clean must be true or false"):
        kernel_from_dict(data)
    assert kernel.instructions() and [i.opcode for _, i in kernel.instructions()].count("set_atomic_add") == 1


def test_runtime_zeroes_only_flagged_params_and_only_their_declared_bytes():
    kb = KernelBuilder("clean_only", block_dim=1)
    a = kb.tensor("float32", (8,), "GM", "a", atomic_clean=True)
    b = kb.tensor("float32", (8,), "GM", "b")
    c = kb.tensor("float32", (3,), "GM", "c", is_atomic_add=True)
    kernel = kb.build(inputs=[a, b, c], outputs=[])     # no instructions: only the runtime touches memory
    dev = Device("Ascend910")
    pa, pb = dev.to_device(np.full(8, 9, np.float32)), dev.to_device(np.full(8, 9, np.float32))
    pc = dev.to_device(np.full(8, 9, np.float32))       # c declares 3 elements of this 8-element buffer
    dev.run(kernel, [pa, pb, pc])
    assert np.all(dev.from_device(pa, (8,), "float32") == 0)
    assert np.all(dev.from_device(pb, (8,), "float32") == 9)
    np.testing.assert_array_equal(dev.from_device(pc, (8,), "float32"), [0, 0, 0, 9, 9, 9, 9, 9])


def test_atomic_move_costs_what_the_plain_move_costs():
    def kernel(atomic: bool):
        kb = KernelBuilder(f"cost_{atomic}", block_dim=4)
        x = kb.tensor("float32", (4, 4096), "GM", "x")
        y = kb.tensor("float32", (4096,), "GM", "y", atomic_clean=atomic)
        ub = kb.tensor("float32", (4096,), "UB", "ub")
        kb.data_move(ub, x[kb.block_idx * 4096], 0, 1, 512, 0, 0)
        kb.set_flag("MTE2", "MTE3", 0)
        kb.wait_flag("MTE2", "MTE3", 0)
        if atomic:
            kb.set_atomic_add("float32")
        kb.data_move(y, ub, 0, 1, 512, 0, 0)
        if atomic:
            kb.set_atomic_none()
        return kb.build(inputs=[x], outputs=[y])
    xa = np.ones((4, 4096), np.float32)
    out, plain = _run(kernel(False), "Ascend910", xa, np.zeros(4096, np.float32))
    assert np.all(out == 1)
    out, atomic = _run(kernel(True), "Ascend910", xa, np.zeros(4096, np.float32))
    assert np.all(out == 4)
    chip = get_chip("Ascend910")
    assert atomic.cost.busy_cycles("MTE3") == pytest.approx(plain.cost.busy_cycles("MTE3"))
    assert atomic.cost.busy_cycles("MTE3") >= 4096 * 4 / chip.paths[("UB", "GM")].bytes_per_cycle
    extra = atomic.cost.total_cycles - plain.cost.total_cycles
    assert 0 <= extra <= 2 * (chip.scalar_alu_cycles + chip.scalar_issue_cycles)
    assert atomic.cost.busy_cycles("S") - plain.cost.busy_cycles("S") == pytest.approx(2 * chip.scalar_alu_cycles)


def test_block_order_must_be_a_permutation():
    kernel = _accumulating_kernel("float32", 3)
    with pytest.raises(InvalidOperandError, match="not a permutation"):
        _run(kernel, "Ascend910", np.zeros((3, N), np.float32), np.zeros(N, np.float32), [0, 0, 1])


def test_every_move_into_gm_accumulates_on_a2_including_l1():
    from npusim.sim import set_chip
    set_chip("Ascend910B1")
    try:
        kb = KernelBuilder("l1_acc", block_dim=3)
        x = kb.tensor("float16", (3, N), "GM", "x")
        y = kb.tensor("float16", (N,), "GM", "y", atomic_clean=True)
        l1 = kb.tensor("float16", (N,), "L1", "l1")
        kb.data_move(l1, x[kb.block_idx * N], 0, 1, N * 2 // 32, 0, 0)
        kb.set_atomic_add("float16")
        kb.data_move(y, l1, 0, 1, N * 2 // 32, 0, 0)          # L1 -> GM (an A2 path, on MTE3)
        kb.set_atomic_none()
        kernel = kb.build(inputs=[x], outputs=[y])
    finally:
        set_chip(None)
    xa = RNG.integers(-50, 50, (3, N)).astype(np.float16)
    out, record = _run(kernel, "Ascend910B1", xa, np.ones(N, np.float16))
    np.testing.assert_array_equal(out, xa.astype(np.float32).sum(0).astype(np.float16))
    assert record.cost.busy_cycles("MTE3") > 0
