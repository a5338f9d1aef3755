"""data_move paths and burst geometry, mmad against numpy, scalar instructions and control flow."""
import numpy as np
import pytest

from npusim.errors import InvalidOperandError, OutOfBoundsError
from npusim.sim import Device, KernelBuilder
from sim_helpers import pack_a, pack_b, unpack_c

RNG = np.random.default_rng(3)


def test_data_move_bursts_with_gaps():
    kb = KernelBuilder("gaps")
    src = kb.tensor("float16", (1024,), "GM", "src")
    dst = kb.tensor("float16", (1024,), "GM", "dst")
    ub = kb.tensor("float16", (1024,), "UB", "ub")
    kb.vector_dup(128, ub, 0.0, 8, 1, 8)
    kb.data_move(ub, src[16], 0, 4, 2, 1, 3)       # 4 bursts of 64 B; src gap 32 B, dst gap 96 B
    kb.data_move(dst, ub, 0, 1, 64, 0, 0)
    kernel = kb.build()
    dev = Device("Ascend910")
    data = np.arange(1024).astype(np.float16)
    ps, pd = dev.to_device(data), dev.malloc(2048)
    dev.run(kernel, [ps, pd])
    out = dev.from_device(pd, (1024,), np.float16)
    expected = np.zeros(1024, np.float16)
    for i in range(4):
        expected[i * 80:i * 80 + 32] = data[16 + i * 48:16 + i * 48 + 32]
    assert np.array_equal(out, expected)


def test_gm_element_aligned_offset_and_l1_round_trip():
    kb = KernelBuilder("l1trip")
    src = kb.tensor("float32", (600,), "GM", "src")
    dst = kb.tensor("float32", (512,), "GM", "dst")
    l1 = kb.tensor("float32", (512,), "L1", "l1")
    ub = kb.tensor("float32", (512,), "UB", "ub")
    kb.data_move(l1, src[3], 0, 1, 64, 0, 0)       # GM start only element-aligned: allowed
    kb.data_move(ub, l1, 0, 1, 64, 0, 0)
    kb.data_move(dst, ub, 0, 1, 64, 0, 0)
    kernel = kb.build()
    dev = Device("Ascend910")
    data = RNG.standard_normal(600).astype(np.float32)
    ps, pd = dev.to_device(data), dev.malloc(2048)
    dev.run(kernel, [ps, pd])
    assert np.array_equal(dev.from_device(pd, (512,), np.float32), data[3:515])


def _tail_kernel(burst):
    kb = KernelBuilder(f"tail{burst}")
    src = kb.tensor("float16", (10,), "GM", "src")
    ub = kb.tensor("float16", (64,), "UB", "ub")
    kb.data_move(ub, src, 0, 1, burst, 0, 0)
    return kb.build()


def test_gm_bound_is_rounded_up_to_32_bytes():
    dev = Device("Ascend910")
    ptr = dev.malloc(20)
    dev.run(_tail_kernel(1), [ptr])                  # 32 B from a 20-byte tensor: inside the rounded bound
    with pytest.raises(OutOfBoundsError, match="src tensor src overflow"):
        dev.run(_tail_kernel(2), [ptr])


def test_paths_checked_against_the_chip():
    from npusim.sim import set_chip
    for chip, src_scope, dst_scope in (("Ascend910", "GM", "L0C"), ("Ascend910B1", "L1", "UB")):
        set_chip(chip)
        try:
            kb = KernelBuilder("path")
            a = kb.tensor("float16", (256,), src_scope, "a")
            b = kb.tensor("float16", (256,), dst_scope, "b")
            kb.data_move(b, a, 0, 1, 16, 0, 0)
            with pytest.raises(InvalidOperandError, match=f"{src_scope}->{dst_scope} is not a path on {chip}"):
                kb.build()
        finally:
            set_chip(None)


def _mmad_kernel(m, k, n, in_dtype, out_dtype, k0, accumulate_twice=False):
    m1, k1, n1 = -(-m // 16), -(-k // k0), -(-n // 16)
    kb = KernelBuilder("mm")
    ga = kb.tensor(in_dtype, (m1 * k1 * 16 * k0,), "GM", "ga")
    gb = kb.tensor(in_dtype, (k1 * n1 * 16 * k0,), "GM", "gb")
    gc = kb.tensor(out_dtype, (n1 * m1 * 256,), "GM", "gc")
    l1a = kb.tensor(in_dtype, (m1 * k1 * 16 * k0,), "L1", "l1a")
    l1b = kb.tensor(in_dtype, (k1 * n1 * 16 * k0,), "L1", "l1b")
    l0a = kb.tensor(in_dtype, (m1 * k1 * 16 * k0,), "L0A", "l0a")
    l0b = kb.tensor(in_dtype, (k1 * n1 * 16 * k0,), "L0B", "l0b")
    l0c = kb.tensor(out_dtype, (n1 * m1 * 256,), "L0C", "l0c")
    ub = kb.tensor(out_dtype, (n1 * m1 * 256,), "UB", "ub")
    isz_out = np.dtype(out_dtype).itemsize
    a_bursts, b_bursts = m1 * k1 * 512 // 32, k1 * n1 * 512 // 32
    kb.data_move(l1a, ga, 0, 1, a_bursts, 0, 0)
    kb.data_move(l1b, gb, 0, 1, b_bursts, 0, 0)
    kb.data_move(l0a, l1a, 0, 1, a_bursts, 0, 0)
    kb.data_move(l0b, l1b, 0, 1, b_bursts, 0, 0)
    kb.mmad(l0c, l0a, l0b, m, k, n, False)
    if accumulate_twice:
        kb.mmad(l0c, l0a, l0b, m, k, n, True)
    c_bursts = n1 * m1 * 256 * isz_out // 32
    kb.data_move(ub, l0c, 0, 1, c_bursts, 0, 0)
    kb.data_move(gc, ub, 0, 1, c_bursts, 0, 0)
    return kb.build()


def test_mmad_fp16_to_fp32_with_padding_and_accumulate():
    m, k, n = 20, 40, 24
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    dev = Device("Ascend910")
    kernel = _mmad_kernel(m, k, n, "float16", "float32", 16, accumulate_twice=True)
    pa, pb = dev.to_device(pack_a(a)), dev.to_device(pack_b(b))
    m1, n1 = 2, 2
    pc = dev.malloc(n1 * m1 * 256 * 4)
    record = dev.run(kernel, [pa, pb, pc])
    c = unpack_c(dev.from_device(pc, (n1, m1, 16, 16), np.float32), m, n)
    expected = 2 * (a.astype(np.float64) @ b.astype(np.float64))
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)
    assert record.cost.busy_cycles("M") > 0


def test_mmad_int8_exact():
    m, k, n = 16, 64, 32
    a = RNG.integers(-128, 128, (m, k)).astype(np.int8)
    b = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    dev = Device("Ascend910")
    kernel = _mmad_kernel(m, k, n, "int8", "int32", 32)
    pa, pb = dev.to_device(pack_a(a, 32)), dev.to_device(pack_b(b, 32))
    pc = dev.malloc(2 * 256 * 4)
    dev.run(kernel, [pa, pb, pc])
    c = unpack_c(dev.from_device(pc, (2, 1, 16, 16), np.int32), m, n)
    assert np.array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


def test_scalar_registers_loops_and_branches():
    kb = KernelBuilder("scalars")
    gm = kb.tensor("int32", (64,), "GM", "gm")
    n = kb.input_scalar("int32", "n")
    ub = kb.tensor("int32", (64,), "UB", "ub")
    kb.data_move(ub, gm, 0, 1, 8, 0, 0)
    acc = kb.scalar("int32", "acc", init_value=0)
    tmp = kb.scalar("int32", "tmp")
    with kb.for_range(0, n) as i:
        tmp.set_as(ub[i])
        with kb.if_scope(tmp % 2 == 0):
            acc.set_as(acc + tmp)
        with kb.else_scope():
            acc.set_as(acc - 1)
    ub[63].set_as(acc)
    kb.sstore(ub[62], kb.block_idx * 100 + 7)
    kb.data_move(gm, ub, 0, 1, 8, 0, 0)
    kernel = kb.build()
    dev = Device("Ascend910")
    data = np.arange(64, dtype=np.int32)
    ptr = dev.to_device(data)
    record = dev.run(kernel, [ptr, 10])
    out = dev.from_device(ptr, (64,), np.int32)
    assert out[63] == (0 + 2 + 4 + 6 + 8) - 5
    assert out[62] == 7
    assert record.cost.busy_cycles("S") > 0
