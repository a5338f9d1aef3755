"""The floating-point overflow mode: saturation (Ascend 910, 310, 310P3; 910B on request) turns float results that
are inf into +-max and NaN into 0; inf_nan (910B's default) keeps IEEE results.  Selection and its errors too."""
import numpy as np
import pytest

from npusim.errors import OverflowModeError
from npusim.sim import Device, KernelBuilder, current_chip, default_device, get_chip, set_chip, set_overflow_mode
from npusim.sim.isa.saturate import has_nonfinite, saturate
from sim_helpers import run_on_ub

F16_MAX = 65504.0
F32_MAX = float(np.finfo(np.float32).max)
RUNS = [("Ascend910", None), ("Ascend910B1", None), ("Ascend910B1", "saturation")]   # (chip, overflow_mode)
IDS = ["910", "910B-default", "910B-saturation"]


def _saturates(chip, mode):
    return get_chip(chip, mode).saturates


def _binary(opcode, a, b, dtype, chip, mode):
    """dst = opcode(a, b) over one repeat of 8 values (lanes past them hold 1)."""
    img = np.ones(4096, dtype)
    img[:8], img[1024:1032] = a, b
    lanes = 256 // img.itemsize
    ops = dict(mask=lanes, dst=2048, src0=0, src1=1024, repeat_times=1, dst_blk_stride=1, src0_blk_stride=1,
               src1_blk_stride=1, dst_rep_stride=8, src0_rep_stride=8, src1_rep_stride=8)
    out, _ = run_on_ub(opcode, img, ops, chip=chip, overflow_mode=mode)
    return out[2048:2056]


def _unary(opcode, values, dtype, chip, mode, scalar=None):
    img = np.ones(4096, dtype)
    img[:len(values)] = values
    ops = dict(mask=256 // img.itemsize, dst=2048, src=0, repeat_times=1, dst_blk_stride=1, src_blk_stride=1,
               dst_rep_stride=8, src_rep_stride=8)
    if scalar is not None:
        ops["scalar"] = scalar
    out, _ = run_on_ub(opcode, img, ops, chip=chip, overflow_mode=mode)
    return out[2048:2048 + len(values)]


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_fp16_vadd_vmul_overflow(chip, mode):
    big = [60000, -60000, 40000, 1, 2, 3, 4, 5]
    added = _binary("vadd", big, big, np.float16, chip, mode)
    multiplied = _binary("vmul", big, [2, 2, -2, 1, 1, 1, 1, 1], np.float16, chip, mode)
    top = F16_MAX if _saturates(chip, mode) else np.inf
    assert added[:4].tolist() == [top, -top, top, 2] and added[4:].tolist() == [4, 6, 8, 10]
    assert multiplied[:3].tolist() == [top, -top, -top]


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_fp16_vexp_of_12_and_float32_overflow(chip, mode):
    got = _unary("vexp", [12.0, -12.0, 0.0, 11.0], np.float16, chip, mode)
    top = F16_MAX if _saturates(chip, mode) else np.inf
    assert got[0] == top                                   # CANN's example: exp(12) = 65504 in saturation mode
    assert got[1:].tolist() == [np.float16(np.exp(-12.0)), 1.0, np.float16(np.exp(11.0))]
    wide = _binary("vmul", [3e38, -3e38, 1, 1, 1, 1, 1, 1], [10, 10, 1, 1, 1, 1, 1, 1], np.float32, chip, mode)
    assert wide[:2].tolist() == ([F32_MAX, -F32_MAX] if _saturates(chip, mode) else [np.inf, -np.inf])


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_nan_becomes_zero_in_saturation_mode(chip, mode):
    product = _binary("vmul", [0, np.inf, 1, 1, 1, 1, 1, 1], [np.inf, 0, 1, 1, 1, 1, 1, 1], np.float16, chip, mode)
    roots = _unary("vsqrt", [-1.0, 4.0], np.float16, chip, mode)
    logs = _unary("vln", [0.0, 1.0], np.float32, chip, mode)
    if _saturates(chip, mode):
        assert product[:2].tolist() == [0, 0] and roots.tolist() == [0, 2] and logs.tolist() == [-F32_MAX, 0]
    else:
        assert np.isnan(product[:2]).all() and np.isnan(roots[0]) and logs[0] == -np.inf


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_scalar_and_ternary_ops_saturate(chip, mode):
    top = F16_MAX if _saturates(chip, mode) else np.inf
    assert _unary("vadds", [65000.0, 1.0], np.float16, chip, mode, scalar=1000.0).tolist() == [top, 1001]
    assert _unary("vmuls", [-3e4, 1.0], np.float16, chip, mode, scalar=4.0).tolist() == [-top, 4]
    assert _unary("vaxpy", [60000.0], np.float16, chip, mode, scalar=2.0)[0] == top      # 2 * src + dst(1)
    mla = _binary("vmla", [300, 1, 1, 1, 1, 1, 1, 1], [300, 1, 1, 1, 1, 1, 1, 1], np.float16, chip, mode)
    assert mla[0] == top                                                                  # 300 * 300 + dst


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_vconv_float_results_follow_the_mode(chip, mode):
    img = np.zeros(8192, np.float32)
    img[:4] = [1e6, -1e6, np.nan, 0.5]
    ops = dict(mask=64, round_mode="", dst=(8192, "float16"), src=(0, "float32"), repeat_times=1,
               dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=4, src_rep_stride=8)
    out, _ = run_on_ub("vconv", img, ops, chip=chip, overflow_mode=mode)
    got = out.view(np.float16)[8192:8196]
    if _saturates(chip, mode):
        assert got.tolist() == [F16_MAX, -F16_MAX, 0, 0.5]
    else:
        assert got[:2].tolist() == [np.inf, -np.inf] and np.isnan(got[2]) and got[3] == 0.5


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_vcadd_saturates_each_level(chip, mode):
    img = np.zeros(4096, np.float16)
    img[:4] = [60000, 60000, -30000, 100]              # CANN's vcadd example
    ops = dict(mask=128, dst=2048, src=0, repeat_times=1, dst_rep_stride=1, src_blk_stride=1, src_rep_stride=8)
    out, _ = run_on_ub("vcadd", img, ops, chip=chip, overflow_mode=mode)
    assert out[2048] == (np.float16(35600) if _saturates(chip, mode) else np.inf)


def _mmad_fp16_kernel(chip):
    """One 16x16x16 fractal: C (float16) = A x B, copied L0C -> UB -> GM (or L0C -> GM where the chip has it)."""
    kb = KernelBuilder("mm_overflow")
    ga, gb, gc = (kb.tensor("float16", (256,), "GM", n) for n in ("ga", "gb", "gc"))
    l1a, l1b = kb.tensor("float16", (256,), "L1", "l1a"), kb.tensor("float16", (256,), "L1", "l1b")
    l0a, l0b = kb.tensor("float16", (256,), "L0A", "l0a"), kb.tensor("float16", (256,), "L0B", "l0b")
    l0c, ub = kb.tensor("float16", (256,), "L0C", "l0c"), kb.tensor("float16", (256,), "UB", "ub")
    for dst, src in ((l1a, ga), (l1b, gb), (l0a, l1a), (l0b, l1b)):
        kb.data_move(dst, src, 0, 1, 16, 0, 0)
    kb.mmad(l0c, l0a, l0b, 16, 16, 16, False)
    if ("L0C", "GM") in chip.paths:
        kb.data_move(gc, l0c, 0, 1, 16, 0, 0)
    else:
        kb.data_move(ub, l0c, 0, 1, 16, 0, 0)
        kb.data_move(gc, ub, 0, 1, 16, 0, 0)
    return kb.build(check=False)


@pytest.mark.parametrize("chip,mode", RUNS, ids=IDS)
def test_mmad_float_output_saturates(chip, mode):
    a = np.full((16, 16), 100, np.float16)
    a[1::2] = -100                                      # rows alternate sign: C rows are +-160000
    dev = Device(chip, overflow_mode=mode)
    pa, pb, pc = dev.to_device(a), dev.to_device(np.full(256, 100, np.float16)), dev.malloc(512)
    dev.run(_mmad_fp16_kernel(dev.chip), [pa, pb, pc])
    c = dev.from_device(pc, (16, 16), np.float16)
    top = F16_MAX if _saturates(chip, mode) else np.inf
    assert (c[0::2] == top).all() and (c[1::2] == -top).all()


def test_integer_ops_and_dup_are_unchanged():
    wrapped = _binary("vadd", [2**31 - 1, -2**31, 5, 0, 0, 0, 0, 0], [1, -1, 6, 0, 0, 0, 0, 0], np.int32,
                      "Ascend910", None)
    assert wrapped[:3].tolist() == [-2**31, 2**31 - 1, 11]
    img = np.zeros(4096, np.float16)
    ops = dict(mask=128, dst=0, scalar=float("inf"), repeat_times=1, dst_blk_stride=1, dst_rep_stride=8)
    out, _ = run_on_ub("vector_dup", img, ops, chip="Ascend910")
    assert np.isinf(out[:128]).all()                    # vector_dup moves a value, it does not compute


def test_sigmoid_chain_stays_finite_on_910():
    """1 / (1 + exp(-x)) in float16 for x = -12: exp saturates, so the result is 1/65504, not 0."""
    kb = KernelBuilder("sigmoid_tail")
    gm = kb.tensor("float16", (128,), "GM", "x")
    ub = kb.tensor("float16", (128,), "UB", "ub")
    kb.data_move(ub, gm, 0, 1, 8, 0, 0)
    kb.vmuls(128, ub, ub, -1.0, 1, 1, 1, 8, 8)
    kb.vexp(128, ub, ub, 1, 1, 1, 8, 8)
    kb.vadds(128, ub, ub, 1.0, 1, 1, 1, 8, 8)
    kb.vrec(128, ub, ub, 1, 1, 1, 8, 8)
    kb.data_move(gm, ub, 0, 1, 8, 0, 0)
    kernel = kb.build(inputs=[gm], outputs=[])
    results = {}
    for chip in ("Ascend910", "Ascend910B1"):
        dev = Device(chip)
        ptr = dev.to_device(np.full(128, -12.0, np.float16))
        dev.run(kernel, [ptr])
        results[chip] = dev.from_device(ptr, (128,), np.float16)
    assert (results["Ascend910"] == np.float16(1 / 65504)).all()
    assert (results["Ascend910B1"] == 0).all()


def test_chip_models_carry_the_mode():
    for name in ("Ascend910", "Ascend310", "Ascend310P3"):
        chip = get_chip(name)
        assert chip.overflow_mode == "saturation" and chip.overflow_modes == ("saturation",) and chip.saturates
        assert "numerics.overflow_mode" in chip.sources
    b1 = get_chip("Ascend910B")
    assert b1.overflow_mode == "inf_nan" and set(b1.overflow_modes) == {"inf_nan", "saturation"}
    assert get_chip("Ascend910B1", "saturation").saturates and get_chip("Ascend910B1", "inf_nan") is b1
    assert "assumed" in get_chip("Ascend310P3").sources["numerics.overflow_mode"]


def test_set_overflow_mode_on_910b(monkeypatch):
    monkeypatch.delenv("NPUSIM_SAT_MODE", raising=False)
    set_chip("Ascend910B1")
    try:
        assert current_chip().overflow_mode == "inf_nan"
        assert set_overflow_mode("saturation").overflow_mode == "saturation"
        assert default_device().chip.saturates
        assert set_overflow_mode(1).overflow_mode == "inf_nan"          # CANN's numbering: 1 = inf_nan
        set_overflow_mode(None)
        monkeypatch.setenv("NPUSIM_SAT_MODE", "0")
        assert current_chip().overflow_mode == "saturation"
        monkeypatch.setenv("NPUSIM_SAT_MODE", "inf_nan")
        assert current_chip().overflow_mode == "inf_nan"
        monkeypatch.setenv("NPUSIM_SAT_MODE", "maybe")
        with pytest.raises(OverflowModeError, match="NPUSIM_SAT_MODE.*unknown overflow mode 'maybe'"):
            current_chip()
    finally:
        monkeypatch.delenv("NPUSIM_SAT_MODE", raising=False)
        set_overflow_mode(None)
        set_chip(None)


def test_inf_nan_on_910_is_a_typed_error(monkeypatch):
    monkeypatch.delenv("NPUSIM_SAT_MODE", raising=False)
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    with pytest.raises(OverflowModeError, match="Ascend910 does not support the 'inf_nan'.*supports 'saturation'"):
        set_overflow_mode("inf_nan")
    assert current_chip().overflow_mode == "saturation"                 # the failed call changed nothing
    with pytest.raises(OverflowModeError, match="Ascend910"):
        Device("Ascend910", overflow_mode="inf_nan")
    with pytest.raises(ValueError):                                      # OverflowModeError is a ValueError
        get_chip("Ascend310", "inf_nan")
    monkeypatch.setenv("NPUSIM_SAT_MODE", "1")
    with pytest.raises(OverflowModeError, match="NPUSIM_SAT_MODE=1: Ascend910 does not support"):
        current_chip()
    with pytest.raises(OverflowModeError, match="unknown overflow mode"):
        set_overflow_mode("ieee")


def test_saturate_helper():
    values = np.array([np.inf, -np.inf, np.nan, 1.5, -0.0], np.float16)
    assert has_nonfinite(values) and not has_nonfinite(values[3:])
    assert saturate(values).tolist() == [F16_MAX, -F16_MAX, 0, 1.5, 0]
    finite = np.arange(5, dtype=np.float32)
    assert saturate(finite) is finite                   # nothing to fix: no copy
    assert not has_nonfinite(np.array([np.float16(F16_MAX), -np.float16(F16_MAX)]))
