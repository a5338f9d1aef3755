"""Chip models (YAML loader, selection, `npusim chips`) and the kernel format (builder, serialisation)."""
import json

import numpy as np
import pytest

from npusim.errors import ChipModelError, InvalidOperandError, KernelFormatError, UnknownChipError
from npusim.sim import (Device, KernelBuilder, chip_names, current_chip, get_chip, kernel_from_bytes,
                        kernel_from_json, load_kernel, set_chip)
from npusim.sim.chip import _SECTION_FIELDS
from npusim.sim_cli import chips_main
from npusim.sim.kernel import BinOp, BufRef, Instr, Loop, Var


def test_four_chip_models_with_reference_figures():
    assert {"Ascend910", "Ascend910B1", "Ascend310", "Ascend310P3"} <= set(chip_names())
    a910, b1 = get_chip("Ascend910"), get_chip("Ascend910B1")
    assert (a910.aicore_num, a910.ub_bytes, a910.l0c_bytes, a910.event_ids) == (32, 262144, 262144, 4)
    assert (b1.cube_core_num, b1.vector_core_num, b1.ub_bytes, b1.l1_bytes, b1.l0c_bytes) == (24, 48, 196608,
                                                                                             524288, 131072)
    assert "FIX" in b1.pipes and "FIX" not in a910.pipes
    assert get_chip("Ascend310").aicore_num == 2 and get_chip("Ascend310P3").aicore_num == 8
    assert a910.vector_costs["vadd"].cycles(10, "float16") == pytest.approx(5.9 + 20.7)


HW_TABLE = {  # ascend-hw.md: cores, clock MHz, peak fp16 TFLOPS, UB / L1 / L0A / L0B / L0C KiB, HBM GB/s range, events
    "Ascend910": (32, 1000, 256, 256, 1024, 64, 64, 256, (1200, 1200), 4),
    "Ascend910B1": (24, 1850, 364, 192, 512, 64, 64, 128, (1400, 1600), 8),
    "Ascend310": (2, None, 8, 256, 1024, 64, 64, 256, None, 4),
    "Ascend310P3": (8, 1080, 70, 256, 1024, 64, 64, 256, None, 8),
}


@pytest.mark.parametrize("name", sorted(HW_TABLE))
def test_chip_figures_match_the_reference_table(name):
    cores, mhz, tflops, ub, l1, l0a, l0b, l0c, hbm, events = HW_TABLE[name]
    chip = get_chip(name)
    assert chip.cube_core_num == cores and (mhz is None or chip.clock_mhz == mhz)
    assert abs(chip.peak_fp16_tflops - tflops) <= 0.05 * tflops
    assert [chip.scope_bytes(s) // 1024 for s in ("UB", "L1", "L0A", "L0B", "L0C")] == [ub, l1, l0a, l0b, l0c]
    assert hbm is None or hbm[0] <= chip.hbm_gbps <= hbm[1]
    assert chip.event_ids == events
    assert (chip.vector_width_bytes, chip.block_bytes, chip.max_repeat) == (256, 32, 255)
    assert (chip.cube_m, chip.cube_n, chip.cube_k_fp16) == (16, 16, 16) and chip.mmad_kstep["int8"] == 32
    derived = chip.cube_core_num * 16 * 16 * 16 * 2 * chip.clock_mhz * 1e6 / 1e12   # MACs x 2 flop x clock
    assert abs(derived - chip.peak_fp16_tflops) <= 0.1 * chip.peak_fp16_tflops     # clock and peak agree


@pytest.mark.parametrize("name", ["Ascend910", "Ascend910B1", "Ascend310", "Ascend310P3"])
def test_every_number_has_a_source(name):
    chip = get_chip(name)
    for section, fields in _SECTION_FIELDS.items():
        for field in fields:
            assert f"{section}.{field}" in chip.sources
    for src, dst in chip.paths:
        assert f"paths.{src}->{dst}" in chip.sources
    for opcode in chip.vector_costs:
        assert f"vector_costs.{opcode}" in chip.sources
    for opcode in chip.isa:
        assert f"isa.{opcode}" in chip.sources
    assert "cube_costs.kstep" in chip.sources and "isa.vsel_modes" in chip.sources
    assert all(": " in text for text in chip.sources.values())


def test_chip_selection_precedence(monkeypatch):
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    assert current_chip().name == "Ascend910"
    monkeypatch.setenv("NPUSIM_SOC", "ascend310p")
    assert current_chip().name == "Ascend310P3"
    set_chip("Ascend910B")
    try:
        assert current_chip().name == "Ascend910B1"
    finally:
        set_chip(None)
    assert current_chip().name == "Ascend310P3"
    with pytest.raises(UnknownChipError, match="Ascend910B1"):
        get_chip("Ascend999")


def test_soc_spec_keys():
    chip = get_chip("Ascend310")
    assert chip.soc_spec("CORE_NUM") == 2 and chip.soc_spec("UB_SIZE") == 262144
    assert chip.soc_spec("SOC_VERSION") == "Ascend310"
    with pytest.raises(ChipModelError):
        chip.soc_spec("NOPE")


def test_loader_rejects_a_number_without_source(tmp_path, monkeypatch):
    from npusim.sim import chip as chip_module
    text = (chip_module.CHIP_DIR / "Ascend910.yaml").read_text()
    broken = text.replace("clock:\n  source: hw\n", "clock:\n")
    path = tmp_path / "Broken.yaml"
    path.write_text(broken)
    with pytest.raises(ChipModelError, match="clock.clock_mhz has no source"):
        chip_module._build_chip(chip_module._read_yaml(path), path)


def test_chips_command(capsys):
    assert chips_main([]) == 0
    out = capsys.readouterr().out
    assert "Ascend910B1" in out and "*Ascend910 " in out
    assert chips_main(["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["name"] for r in rows} >= {"Ascend310", "Ascend910"}
    assert chips_main(["Ascend310P3"]) == 0
    assert "memory.hbm_gbps" in capsys.readouterr().out


def _sample_kernel():
    kb = KernelBuilder("sample", block_dim=4)
    x = kb.tensor("float16", (8, 256), "GM", "x")
    n = kb.input_scalar("int32", "n")
    ub = kb.tensor("float16", (256,), "UB", "ub")
    acc = kb.scalar("float32", "acc", init_value=0.0)
    with kb.for_range(0, n, name="i") as i:
        kb.data_move(ub, x[kb.block_idx * 2 + i // 4, 0], 0, 1, 16, 0, 0)
        with kb.if_scope(i % 2 == 0):
            kb.vmuls([0, 0xFFFF], ub, ub, 0.5, 2, 1, 1, 8, 8)
        with kb.else_scope():
            kb.vector_dup(128, ub, float("inf"), 2, 1, 8)
        acc.set_as(ub[3])
        kb.data_move(x[kb.block_idx * 2 + i // 4, 0], ub, 0, 1, 16, 0, 0)
    return kb.build(inputs=[x, n])


def test_builder_structure():
    kernel = _sample_kernel()
    assert [p.name for p in kernel.params] == ["x", "n"] and kernel.block_dim == 4
    loop = kernel.body[1]
    assert isinstance(loop, Loop) and loop.var == "i"
    move = loop.body[0]
    assert isinstance(move, Instr) and move.opcode == "data_move"
    src = move.arg("src")
    assert isinstance(src, BufRef) and src.buffer == "x" and isinstance(src.offset, BinOp)
    assert [i for i, _ in kernel.instructions()] == list(range(6))


def test_json_and_binary_round_trip(tmp_path):
    kernel = _sample_kernel()
    assert kernel_from_json(kernel.to_json()) == kernel
    assert kernel_from_bytes(kernel.to_bytes()) == kernel
    path = tmp_path / "sample.o"
    kernel.save(path)
    assert load_kernel(path) == kernel
    dev = Device("Ascend910")
    data = np.ones((8, 256), np.float16)
    ptr = dev.to_device(data)
    dev.run(load_kernel(path), [ptr, 1])          # i = 0 only: the if-branch halves lanes 0-15 of 2 repeats
    out = dev.from_device(ptr, (8, 256), np.float16)
    assert np.all(out[0, :16] == 0.5) and np.all(out[0, 16:128] == 1) and np.all(out[2, 128:144] == 0.5)
    assert np.all(out[1] == 1)
    ptr2 = dev.to_device(data)
    dev.run(load_kernel(path), [ptr2, 2])         # i = 1 reloads the same row and takes the else-branch
    assert np.all(np.isinf(dev.from_device(ptr2, (8, 256), np.float16)[::2]))


def test_bad_kernel_files(tmp_path):
    blob = _sample_kernel().to_bytes()
    with pytest.raises(KernelFormatError, match="magic"):
        kernel_from_bytes(b"ELF!" + blob[4:])
    with pytest.raises(KernelFormatError, match="version"):
        kernel_from_bytes(blob[:8] + b"\x09\x00" + blob[10:])
    with pytest.raises(KernelFormatError, match="truncated"):
        kernel_from_bytes(blob[:-3])
    with pytest.raises(KernelFormatError):
        kernel_from_json('{"format": "npusim-kernel", "version": 1, "name": "x"}')


def test_expressions_have_no_truth_value_and_tuple_indexing():
    kb = KernelBuilder("expr")
    t = kb.tensor("float16", (4, 8, 16), "UB", "t")
    with kb.for_range(0, 2) as i:
        with pytest.raises(InvalidOperandError, match="truth value"):
            bool(i > 0)
        ref = t[1, i, 3].bufref
    assert ref.offset == BinOp("add", BinOp("add", 128, BinOp("mul", Var(i.expr.name), 16)), 3)
    assert t[5].bufref.offset == 5 and t[2:].bufref.offset == 2
