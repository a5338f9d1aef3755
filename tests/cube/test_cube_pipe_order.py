"""The cube kernel's flags order every access to L1 / L0A / L0B / L0C between pipes (tests/cube/pipe_order.py walks
the instructions as the pipes run them): the L0A ring's flagless A moves (te_compat/cube/kernel.py ``_k_step``),
the planned first loads, the head over two sub-tiles (CubeWriter._led_tile), the pieced tail with its converting
move out of L0C, several tiles per core, and convolutions (one group and two) whose A load3d gathers.  A ring of
three slots, which the argument in ``_k_step`` does not cover, is caught."""
import numpy as np
import pytest

from npusim.sim import get_chip
from npusim.sim.compiler import compile_kernel
from npusim.sim.runtime import current_runtime
from npusim.sim.target import Target
from te_compat.cube.kernel import CubeWriter
from tests.cube.pipe_order import races


def _matmul(m, k, n, name, relu=True):
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    a = tvm.placeholder((k // 16, m // 16, 16, 16), name="a", dtype="float16")
    b = tvm.placeholder((k // 16, n // 16, 16, 16), name="b", dtype="float16")
    res = cce.matmul(a, b, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype="float16")
    if relu:                                    # without: a cast-only result, which may take a head
        res = cce.vrelu(res)
    sch = cce.auto_schedule(res)
    return BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": [a, b, res]})).kernel


def _conv(name):
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    fmap = tvm.placeholder((1, 4, 14, 14, 16), name="fmap", dtype="float16")
    weight = tvm.placeholder((4 * 9, 4, 16, 16), name="weight", dtype="float16")
    res = cce.conv(fmap, weight, {"pad_h": [1, 1], "pad_w": [1, 1], "stride_h": 1, "stride_w": 1,
                                  "filter_h": 3, "filter_w": 3})
    sch = cce.auto_schedule(res)
    return BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": [fmap, weight, res]})).kernel


def _conv_groups(name):
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    fmap = tvm.placeholder((2, 2, 8, 8, 16), name="fmap", dtype="float16")
    weight = tvm.placeholder((2 * 9, 1, 16, 16), name="weight", dtype="float16")
    res = cce.conv(fmap, weight, {"pad_h": [1, 1], "pad_w": [1, 1], "stride_h": 1, "stride_w": 1, "filter_h": 3,
                                  "filter_w": 3, "group": 2,
                                  "group_dict": {"real_g": 2, "cin1_g": 1, "cout_g": 16, "cout_ori": 16}})
    sch = cce.auto_schedule(res)
    return BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": [fmap, weight, res]})).kernel


def _races(chip_name, build):
    chip = get_chip(chip_name)
    runtime = current_runtime().with_target(Target.of(chip))
    with runtime.activate():
        kernel = build()
        statics = compile_kernel(kernel, chip, runtime.sim).statics
        blocks = sorted({0, kernel.block_dim - 1})
        return kernel, {block: races(kernel, statics, block) for block in blocks}


CASES = [("Ascend910", lambda: _matmul(1024, 1024, 1024, "po_mm_1024", False)),       # ring, head, planned
         ("Ascend910B1", lambda: _matmul(1024, 1024, 1024, "po_mm_1024_b1", False)),   # loads, pieced tail; B1:
         ("Ascend910", lambda: _matmul(1024, 1024, 1024, "po_mm_1024_relu")),          # 3 sub-tiles, fixpipe
         ("Ascend910", lambda: _matmul(2048, 2048, 1024, "po_mm_2048")),      # ring, several tiles per core
         ("Ascend910B1", lambda: _matmul(512, 1024, 2048, "po_mm_b1")),       # ring, fixpipe out
         ("Ascend910", lambda: _matmul(256, 512, 256, "po_mm_small")),        # two L0 slots, no ring
         ("Ascend910", lambda: _matmul(128, 4096, 4096, "po_mm_k4096", False)),   # L0B holds three split panels
         ("Ascend910", lambda: _conv("po_conv")), ("Ascend910B1", lambda: _conv("po_conv_b1")),
         ("Ascend910", lambda: _conv_groups("po_conv_groups"))]


@pytest.mark.parametrize("chip_name, build", CASES, ids=["910-1024", "910b1-1024", "910-1024-relu", "910-2048",
                                                         "910b1", "910-small", "910-split-room3", "910-conv",
                                                         "910b1-conv",
                                                         "910-conv-groups"])
def test_every_on_chip_access_between_pipes_is_ordered(chip_name, build):
    kernel, found = _races(chip_name, build)
    assert kernel.block_dim > 1
    for block, listed in found.items():
        assert listed == [], f"block {block}: {listed[:5]}"


def test_a_ring_of_three_slots_is_caught(monkeypatch):
    """Three slots with the k-step count a multiple of four: where the ring's k-step count starts again (a new
    sub-tile or tile), the A move of k-step s + 1 reuses the slot of k-step s - 2, whose mmad may still run.  (In
    the 1024^3 float16 tile on Ascend910, which starts with a head, the k-step counts happen to stay consecutive
    modulo three where they start again, so three slots go uncaught there.)"""
    monkeypatch.setattr(CubeWriter, "_a_ring", lambda self, step_bytes: 3 if self.l0_slots == 2 else self.l0_slots)
    _, found = _races("Ascend910", lambda: _matmul(2048, 2048, 1024, "po_mm_ring3"))
    assert any(kind == "read-write" and buffer == "l0a" for kind, buffer, _, _ in found[0])


def test_a_head_by_the_fixpipe_is_ordered(monkeypatch):
    """The tiler takes no head where the result leaves by the fixpipe, but a tiling that asks for one runs it: its
    flags order every access too (Ascend910B1's three sub-tiles, the second starting again after the head)."""
    import dataclasses
    import te_compat.cube.schedule as cube_schedule
    from te_compat.cube.load_plan import head_plan
    chosen = cube_schedule.choose_tiling

    def with_head(desc, chip, *args, **kwargs):
        tiling = chosen(desc, chip, *args, **kwargs)
        head, rest = head_plan(chip, tiling.k1, tiling.mt, tiling.parts, tiling.kt, tiling.kl1,
                               tiling.kl1 * tiling.ns)
        return dataclasses.replace(tiling, head=head, first_loads=rest)
    monkeypatch.setattr(cube_schedule, "choose_tiling", with_head)
    called = []
    original = CubeWriter._led_tile
    monkeypatch.setattr(CubeWriter, "_led_tile", lambda self, *args: called.append(1) or original(self, *args))
    _, found = _races("Ascend910B1", lambda: _matmul(1024, 1024, 1024, "po_mm_1024_b1_head", False))
    assert called
    for block, listed in found.items():
        assert listed == [], f"block {block}: {listed[:5]}"
