"""A tile that starts with a head (te_compat/cube/kernel.py ``CubeWriter._led_tile``): when every core runs one
tile of two or more sub-tiles and the result leaves L0C through UB as float16 with nothing else to do, the tiler
(te_compat/cube/load_plan.py ``head_plan``) may run the tile's first K fractals over its first two sub-tiles at
once, so the cube has twice the work per A panel while the first loads ramp up.  The 1024^3 float16 matmul takes
one on Ascend910, and its estimate drops; on Ascend910B1 (the result leaves by the fixpipe) the tiler takes none,
but the kernel runs one where a tiling asks.  The head changes the order of the mmads across sub-tiles only, never
the order in which an element accumulates its K: the results are the plain schedule's bit for bit, also with a
bias and a fused relu (a head forced where the tiler would not take one)."""
import dataclasses

import numpy as np
import pytest

from npusim.sim import get_chip, profile
from npusim.sim.runtime import current_runtime
from npusim.sim.target import Target
import te_compat.cube.schedule as cube_schedule
from te_compat.cube.kernel import CubeWriter
from te_compat.cube.load_plan import first_loads, head_plan

CHIPS = ["Ascend910", "Ascend910B1"]
SIZE = 1024


def _build(name: str, bias: bool):
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    frac = SIZE // 16
    a = tvm.placeholder((frac, frac, 16, 16), name="a", dtype="float16")
    b = tvm.placeholder((frac, frac, 16, 16), name="b", dtype="float16")
    tensors = [a, b]
    tensor_bias = None
    if bias:
        tensor_bias = tvm.placeholder((SIZE,), name="bias", dtype="float32")
        tensors.append(tensor_bias)
    res = cce.matmul(a, b, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype="float16",
                     tensor_bias=tensor_bias)
    if bias:
        res = cce.vrelu(res)
    sch = cce.auto_schedule(res)
    built = BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": tensors + [res]}))
    return built, sch.tiling


def _plain(monkeypatch):
    """choose_tiling without a head: the first sub-tile's loads planned over all of K, as before heads."""
    chosen = cube_schedule.choose_tiling

    def without_head(desc, chip, *args, **kwargs):
        tiling = chosen(desc, chip, *args, **kwargs)
        if not tiling.head:
            return tiling
        plan = first_loads(chip, tiling.k1, tiling.mt, tiling.parts[0], tiling.kt, tiling.kl1)
        return dataclasses.replace(tiling, head=(), first_loads=plan)
    monkeypatch.setattr(cube_schedule, "choose_tiling", without_head)


def _forced(monkeypatch):
    """choose_tiling with the head te_compat.cube.load_plan.head_plan plans added where the tiler took none."""
    chosen = cube_schedule.choose_tiling

    def with_head(desc, chip, *args, **kwargs):
        tiling = chosen(desc, chip, *args, **kwargs)
        if tiling.head or not tiling.first_loads:
            return tiling
        head, rest = head_plan(chip, tiling.k1, tiling.mt, tiling.parts, tiling.kt, tiling.kl1,
                               tiling.kl1 * tiling.ns)
        return dataclasses.replace(tiling, head=head, first_loads=rest) if head else tiling
    monkeypatch.setattr(cube_schedule, "choose_tiling", with_head)


def _run(chip_name: str, name: str, bias: bool, seed: int = 3):
    """(result, cycles, tiling) of one launch on ``chip_name``."""
    chip = get_chip(chip_name)
    with current_runtime().with_target(Target.of(chip)).activate():
        kernel, tiling = _build(name, bias)
        rng = np.random.default_rng(seed)
        frac = SIZE // 16
        args = [rng.standard_normal((frac, frac, 16, 16)).astype(np.float16) for _ in range(2)]
        if bias:
            args.append((rng.standard_normal(SIZE) * 4).astype(np.float32))
        with profile() as prof:
            out = kernel.run(*args)
        out = np.asarray(out[0] if isinstance(out, (list, tuple)) else out)
        return out, prof.records[-1].cost.total_cycles, tiling


@pytest.mark.parametrize("chip_name", CHIPS)
@pytest.mark.parametrize("bias", [False, True], ids=["plain", "bias-relu"])
def test_head_gives_the_plain_schedules_bits(chip_name, bias, monkeypatch):
    tag = f"{chip_name}_{int(bias)}"
    chosen = not bias and chip_name == "Ascend910"      # where the tiler takes the head itself
    if not chosen:
        _forced(monkeypatch)
    headed, headed_cycles, tiling = _run(chip_name, f"head_mm_{tag}", bias)
    assert tiling.head and len(tiling.parts) >= 2
    monkeypatch.undo()
    _plain(monkeypatch)
    plain, plain_cycles, plain_tiling = _run(chip_name, f"plain_mm_{tag}", bias)
    assert plain_tiling.head == ()
    assert np.array_equal(headed.view(np.uint16), plain.view(np.uint16))
    if chosen:
        assert headed_cycles < plain_cycles       # where the tiler takes a head, it pays


@pytest.mark.parametrize("chip_name", CHIPS)
def test_a_head_only_for_a_result_that_leaves_l0c_cast_only(chip_name):
    """A bias, a fused relu or a float32 result: no head, and none by the fixpipe (Ascend910B1): each measured
    slower with one (see choose_tiling)."""
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    chip = get_chip(chip_name)
    frac = SIZE // 16
    with current_runtime().with_target(Target.of(chip)).activate():
        plain_head = chip_name == "Ascend910"
        for dst, relu, heads in (("float16", False, plain_head), ("float16", True, False), ("float32", False, False)):
            a = tvm.placeholder((frac, frac, 16, 16), name="a", dtype="float16")
            b = tvm.placeholder((frac, frac, 16, 16), name="b", dtype="float16")
            res = cce.matmul(a, b, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype=dst)
            if relu:
                res = cce.vrelu(res)
            sch = cce.auto_schedule(res)
            sch.lower([a, b, res], f"head_choice_{dst}_{int(relu)}")
            assert bool(sch.tiling.head) == heads, (dst, relu, sch.tiling)
        _, _, tiling = _run(chip_name, f"head_bias_{chip_name}", True)
        assert tiling.head == ()


def _edited(monkeypatch, edit):
    """choose_tiling with ``edit`` applied to what it returns."""
    chosen = cube_schedule.choose_tiling
    monkeypatch.setattr(cube_schedule, "choose_tiling", lambda *args, **kwargs: edit(chosen(*args, **kwargs)))


def test_a_head_that_is_not_whole_ring_turns_is_not_run(monkeypatch):
    """The second sub-tile starts again where the head ends, after the first sub-tile's last k-step: only a head of
    whole turns of the L0A ring (four k-steps) keeps the ring's order there, so the kernel runs no other."""
    def three_steps(tiling):
        return dataclasses.replace(tiling, head=((4, 4), (8, 8)),
                                   first_loads=((12, 12),) * 4 + ((4, 4),))
    _edited(monkeypatch, three_steps)
    called = []
    original = CubeWriter._led_tile
    monkeypatch.setattr(CubeWriter, "_led_tile", lambda self, *args: called.append(1) or original(self, *args))
    out, _, tiling = _run("Ascend910", "head_mm_three_steps", False)
    assert tiling.head == ((4, 4), (8, 8)) and called == []
    monkeypatch.undo()
    _plain(monkeypatch)
    plain, _, _ = _run("Ascend910", "head_mm_three_steps_plain", False)
    assert np.array_equal(out.view(np.uint16), plain.view(np.uint16))


def test_a_head_keeps_the_l1_slots_the_tiler_sized(monkeypatch):
    """K = 896 on Ascend910B1: slots two sub-tiles wide would not fit L1 beside the resident A panel, so the head's
    loads use the tiler's slots (one sub-tile wide) and the A panel stays resident; the head still runs."""
    chip = get_chip("Ascend910B1")
    state = {}
    original = CubeWriter._led_tile

    def spy(self, *args):
        state.update(resident=self.a_resident, slots=self.l1_slots)
        return original(self, *args)
    monkeypatch.setattr(CubeWriter, "_led_tile", spy)

    def headed(tiling):
        rest = tiling.k1 - 16
        return dataclasses.replace(tiling, head=((8, 8), (8, 8)), first_loads=((rest // 2, rest // 2),) * 2)
    _edited(monkeypatch, headed)
    with current_runtime().with_target(Target.of(chip)).activate():
        import npusim.compat  # noqa: F401
        import te.lang.cce as cce
        from te import tvm
        from te_compat.build import BuiltKernel
        from te_compat.build.cce import build_kernel
        a = tvm.placeholder((56, 64, 16, 16), name="a", dtype="float16")
        b = tvm.placeholder((56, 64, 16, 16), name="b", dtype="float16")
        res = cce.matmul(a, b, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype="float16")
        sch = cce.auto_schedule(res)
        kernel = BuiltKernel.from_result(build_kernel(sch, {"name": "head_k896", "tensor_list": [a, b, res]}))
        rng = np.random.default_rng(5)
        x = rng.standard_normal((56, 64, 16, 16)).astype(np.float16)
        y = rng.standard_normal((56, 64, 16, 16)).astype(np.float16)
        out = np.asarray(kernel.run(x, y))
    assert sch.tiling.head and state == {"resident": True, "slots": 2}
    dense = [v.transpose(1, 2, 0, 3).reshape(1024, 896).astype(np.float32) for v in (x, y)]
    expect = dense[0] @ dense[1].T
    got = out.reshape(64, 64, 16, 16).transpose(1, 2, 0, 3).reshape(1024, 1024).astype(np.float32)
    assert np.all(np.abs(got - expect) <= 2e-3 * np.abs(expect) + 2e-2)
