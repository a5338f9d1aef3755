"""The scheduler, the builder, the simulator and the DSL read the chip's geometry from the Chip they are given.

Synthetic chips (``dataclasses.replace`` of a real model, renamed so no cache confuses them with it) change one
number: a smaller ``max_repeat`` must make the scheduler emit more, shorter instructions and the simulator reject a
longer repeat; a 64-byte block and 512-byte vector unit must change burst sizes, alignment and instruction
strides, and every scheduled kernel must still compute the right result there.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tvm
from tvm import te

from npusim.errors import ChipModelError, RepeatError
from npusim.sim import KernelBuilder, Runtime, Target, get_chip
from npusim.sim.compiler import compile_kernel
from te_compat.schedule import auto_schedule

BASE = get_chip("Ascend910")
SHORT = dataclasses.replace(BASE, name="Ascend910_repeat100", max_repeat=100)
TINY = dataclasses.replace(BASE, name="Ascend910_repeat20", max_repeat=20)
WIDE = dataclasses.replace(BASE, name="Ascend910_block64", block_bytes=64, vector_width_bytes=512)


def _lower(chip, ins, outs, cores=1):
    runtime = Runtime(Target.of(chip, core_num=cores))
    with runtime.activate():
        kernel = auto_schedule(outs).lower(list(ins) + list(outs), "geometry")
    return runtime, kernel


def _run(chip, ins, outs, arrays, expected, cores=1):
    runtime, kernel = _lower(chip, ins, outs, cores)
    dev = runtime.device
    out_ptrs = [dev.malloc(e.nbytes) for e in expected]
    dev.run(kernel, [dev.to_device(a) for a in arrays] + out_ptrs)
    for ptr, want in zip(out_ptrs, expected):
        got = dev.from_device(ptr, want.shape, want.dtype)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=1e-3)
    return kernel


def _repeats(kernel, opcode: str) -> list:
    return [dict(instr.args)["repeat_times"] for _, instr in kernel.instructions() if instr.opcode == opcode]


def _vadds_graph(n: int):
    x = te.placeholder((n,), name="x", dtype="float16")
    res = te.compute(x.shape, lambda i: x(i) + tvm.tirx.const(1.5, "float16"), name="vadds",
                     tag="elewise_single_VS_add", attrs={"scalar": 1.5})
    return [x], [res]


def _row_sum_graph():
    x = te.placeholder((64, 1000), name="x", dtype="float32")
    k = te.reduce_axis((0, 1000), name="k")
    res = te.compute((64,), lambda i: te.sum(x[i, k], axis=k), name="row_sum", tag="reduce_sum",
                     attrs={"axes": [1], "keepdims": False})
    return [x], [res]


def _cmp_sel_graph():
    x = te.placeholder((4000,), name="x", dtype="float16")
    y = te.placeholder((4000,), name="y", dtype="float16")
    less = te.compute(x.shape, lambda i: x(i) < y(i), name="lt", tag="elewise_binary_vcmpv_lt")
    pick = te.compute(x.shape, lambda i: tvm.tirx.Select(less(i), x(i), y(i)), name="vsel",
                      tag="elewise_multiple_sel")
    return [x, y], [less, pick]


def test_the_scheduler_splits_repeats_at_the_chips_max_repeat():
    n = 128 * 300                                  # 300 full float16 repeats on one core
    ins, outs = _vadds_graph(n)
    data = (np.arange(n) % 97).astype("float16")
    want = (data + np.float16(1.5)).astype("float16")
    assert _repeats(_run(BASE, ins, outs, [data], [want]), "vadds") == [255, 45]
    assert _repeats(_run(SHORT, ins, outs, [data], [want]), "vadds") == [100, 100, 100]


def test_the_simulator_rejects_repeats_over_the_chips_max_repeat():
    kb = KernelBuilder("long_repeat", chip=BASE)
    ub = kb.tensor("float16", (128 * 200,), "UB", "ub")
    kb.vadds(128, ub, ub, 1.0, 200, 1, 1, 8, 8)
    kernel = kb.build(check=False)
    runtime = Runtime(Target.of(BASE))
    compile_kernel(kernel, BASE, runtime.sim)                   # 200 <= 255
    with pytest.raises(RepeatError, match=r"range of \[1, 100\], input repeat_times: 200"):
        compile_kernel(kernel, SHORT, runtime.sim)


def test_the_builder_and_the_simulator_use_the_chips_block():
    def kernel_for(chip):
        kb = KernelBuilder("one_burst", chip=chip)
        x = kb.tensor("uint8", (256,), "GM", "x")
        y = kb.tensor("uint8", (256,), "GM", "y")
        small = kb.tensor("uint8", (20,), "UB", "small")
        ub = kb.tensor("uint8", (128,), "UB", "ub")
        kb.data_move(ub, x, 0, 1, 1, 0, 0)                     # one burst: one block of the chip
        kb.data_move(y, ub, 0, 1, 1, 0, 0)
        del small
        return kb.build(inputs=[x], outputs=[y], check=False)

    for chip, block in ((BASE, 32), (WIDE, 64)):
        kernel = kernel_for(chip)
        assert [b.addr_bytes for b in kernel.buffers] == [0, block]  # placed at the chip's block boundary
        dev = Runtime(Target.of(chip)).device
        src = np.arange(256, dtype=np.uint8)
        x, y = dev.to_device(src), dev.to_device(np.zeros(256, np.uint8))
        dev.run(kernel, [x, y])
        out = dev.from_device(y, (256,), "uint8")
        assert np.array_equal(out[:block], src[:block]) and not out[block:].any()


@pytest.mark.parametrize("chip", [SHORT, TINY, WIDE], ids=lambda c: c.name)
def test_scheduled_kernels_stay_right_on_other_geometries(chip):
    rng = np.random.RandomState(0)
    rows = rng.rand(64, 1000).astype("float32")
    for cores in (1, 8):
        ins, outs = _row_sum_graph()
        _run(chip, ins, outs, [rows], [rows.sum(axis=1)], cores)
    x, y = rng.rand(4000).astype("float16"), rng.rand(4000).astype("float16")
    ins, outs = _cmp_sel_graph()
    kernel = _run(chip, ins, outs, [x, y], [(x < y).astype(np.uint8), np.minimum(x, y)])
    assert all(r <= chip.max_repeat for r in _repeats(kernel, "vcmpv"))


def test_a_different_geometry_changes_the_schedule():
    ins, outs = _row_sum_graph()
    base = [(i.opcode, sorted(i.args)) for _, i in _lower(BASE, ins, outs)[1].instructions()]
    for chip in (TINY, WIDE):
        ins, outs = _row_sum_graph()
        other = [(i.opcode, sorted(i.args)) for _, i in _lower(chip, ins, outs)[1].instructions()]
        assert other != base
    ins, outs = _cmp_sel_graph()
    assert _repeats(_lower(TINY, ins, outs)[1], "vcmpv") == [16, 16]   # 20 rounded down to block-aligned bits


def test_the_chip_loader_checks_the_geometry(tmp_path):
    from npusim.sim import chip as chip_module
    text = (chip_module.CHIP_DIR / "Ascend910.yaml").read_text()
    path = tmp_path / "Odd.yaml"
    path.write_text(text.replace("  vector_width_bytes: 256\n", "  vector_width_bytes: 200\n"))
    with pytest.raises(ChipModelError, match="multiple of compute.block_bytes"):
        chip_module._build_chip(chip_module._read_yaml(path), path)
    path.write_text(text.replace("  short_soc_version: Ascend910\n", ""))
    with pytest.raises(ChipModelError, match="identity.short_soc_version"):
        chip_module._build_chip(chip_module._read_yaml(path), path)


@pytest.mark.parametrize("name, short, product, steps", [
    ("Ascend910", "Ascend910", "cloud", 2), ("Ascend910B1", "Ascend910B", "cloud", 2),
    ("Ascend310", "Ascend310", "mini", 1), ("Ascend310P3", "Ascend310P", None, 2)])
def test_what_chip_names_decided_is_chip_yaml_fields(name, short, product, steps):
    chip = get_chip(name)
    assert (chip.short_soc_version, chip.product_2020, chip.vrec_newton_steps) == (short, product, steps)
    assert chip.soc_spec("SHORT_SOC_VERSION") == short
    for field in ("identity.short_soc_version", "identity.product_2020", "dsl.vrec_newton_steps"):
        assert field in chip.sources


def test_the_dsl_reads_the_newton_step_count_from_the_chip():
    import te_compat.dsl as dsl
    from te_compat.graph import extract
    x = te.placeholder((16,), "float16", name="x")
    for steps in (0, 1, 3):
        chip = dataclasses.replace(BASE, name=f"Ascend910_newton{steps}", vrec_newton_steps=steps)
        with Runtime(Target.of(chip)).activate():
            assert len(extract(dsl.vrec(x)).nodes) == 1 + 1 + 4 * steps
