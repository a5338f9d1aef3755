"""lower_scalar: user TVM computes (untagged) run on the simulated device and match numpy; the warning; the
kernel's parameters; serialisation round trips."""
import numpy as np
import pytest
import tvm
from tvm import te

import npusim.sim as sim
from npusim.sim.runtime import current_runtime
from te_compat.fallback import ScalarPipeWarning, lower_scalar
from fallback_helpers import build, run

RNG = np.random.default_rng(7)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
@pytest.mark.parametrize("shape", [(3, 5), (37, 53), (1, 130)])
def test_transpose_matches_numpy(dtype, shape):
    a = (RNG.random(shape) * 100).astype(dtype)
    x = te.placeholder(shape, dtype, name="x")
    y = te.compute((shape[1], shape[0]), lambda i, j: x[j, i], name="y")
    (out,), _ = run(build(y, [x, y]), [a])
    np.testing.assert_array_equal(out, a.T)


def test_gather_with_index_tensor():
    table = RNG.random((50, 7)).astype(np.float32)
    index = RNG.integers(0, 50, size=19).astype(np.int32)
    x = te.placeholder((50, 7), "float32", name="x")
    idx = te.placeholder((19,), "int32", name="idx")
    y = te.compute((19, 7), lambda i, j: x[idx[i], j] * 2.0, name="y")
    (out,), _ = run(build(y, [x, idx, y]), [table, index])
    np.testing.assert_allclose(out, table[index] * 2.0, rtol=1e-6)


def test_concat_and_reduction_with_two_outputs():
    a, b = RNG.random((4, 6)).astype(np.float32), RNG.random((3, 6)).astype(np.float32)
    x, z = te.placeholder((4, 6), "float32", name="x"), te.placeholder((3, 6), "float32", name="z")
    cat = te.compute((7, 6), lambda i, j: tvm.tirx.if_then_else(i < 4, x[i, j], z[i - 4, j]), name="cat")
    k = te.reduce_axis((0, 7), "k")
    total = te.compute((6,), lambda j: te.sum(cat[k, j], axis=k), name="total")
    (out_cat, out_total), _ = run(build([cat, total], [x, z, cat, total]), [a, b])
    np.testing.assert_array_equal(out_cat, np.concatenate([a, b]))
    np.testing.assert_allclose(out_total, np.concatenate([a, b]).sum(0), rtol=1e-5)


def test_compare_output_is_bool_and_exp_is_computed():
    a = RNG.random((5, 9)).astype(np.float32) * 4 - 2
    x = te.placeholder((5, 9), "float32", name="x")
    e = te.compute((5, 9), lambda i, j: te.exp(x[i, j]), name="e")
    gt = te.compute((5, 9), lambda i, j: e[i, j] > 1.0, name="gt")
    (out_e, out_gt), _ = run(build([e, gt], [x, e, gt]), [a])
    np.testing.assert_allclose(out_e, np.exp(a), rtol=1e-5)
    assert out_gt.dtype == np.bool_
    np.testing.assert_array_equal(out_gt, np.exp(a) > 1.0)


def test_warning_names_kernel_and_reason():
    x = te.placeholder((8,), "float32", name="x")
    y = te.compute((8,), lambda i: x[7 - i], name="y")
    with pytest.warns(ScalarPipeWarning, match=r"kernel 'reverse_8'.*reversal is not a vector pattern"):
        lower_scalar(y, [x, y], "reverse_8", "reversal is not a vector pattern")
    assert issubclass(ScalarPipeWarning, UserWarning)


def test_kernel_params_are_the_tensor_list_in_order():
    x, z = te.placeholder((2, 3), "float16", name="x"), te.placeholder((3,), "int32", name="z")
    y = te.compute((3, 2), lambda i, j: x[j, i] + z[i].astype("float16"), name="y")
    kernel = build(y, [z, x, y], name="ordered")
    assert kernel.name == "ordered" and kernel.block_dim == 1
    assert [(p.name, p.kind, p.dtype, p.shape) for p in kernel.params] == [
        ("z", "gm", "int32", (3,)), ("x", "gm", "float16", (2, 3)), ("y", "gm", "float16", (3, 2))]
    (instr,) = kernel.body
    assert instr.opcode == "tvm_call" and "T.prim_func" in instr.arg("program")
    assert [a.buffer for a in instr.arg("args")] == ["z", "x", "y"]


def test_program_text_is_element_aligned_and_round_trips():
    x = te.placeholder((6,), "float16", name="x")
    y = te.compute((6,), lambda i: x[5 - i], name="y")
    text = build(y, [x, y]).body[0].arg("program")
    assert text.count("align=2") == 2
    assert tvm.script.from_source(text).script() == text


def test_tensors_named_like_tvmscript_prefixes_are_aligned_too():
    """The printer renames tensors called I or T (TVMScript's own names); the alignment rewrite follows."""
    big_i = te.placeholder((3,), "int32", name="I")
    big_t = te.placeholder((3,), "float16", name="T")
    y = te.compute((3,), lambda i: big_t[big_i[i]], name="y")
    kernel = build(y, [big_i, big_t, y])
    text = kernel.body[0].arg("program")
    assert "I_1: T.Buffer((3,), \"int32\", align=4)" in text and "align=2" in text
    assert [p.name for p in kernel.params] == ["I", "T", "y"]
    (out,), _ = run(kernel, [np.array([2, 0, 1], np.int32), np.array([5, 6, 7], np.float16)])
    np.testing.assert_array_equal(out, [7, 5, 6])


def test_kernel_survives_bytes_round_trip_and_still_runs(tmp_path):
    a = RNG.random((11, 4)).astype(np.float32)
    x = te.placeholder((11, 4), "float32", name="x")
    y = te.compute((4, 11), lambda i, j: x[j, i] - 1.0, name="y")
    kernel = build(y, [x, y], name="rt_kernel")
    loaded = sim.kernel_from_bytes(kernel.to_bytes())
    assert loaded == kernel
    kernel.save(tmp_path / "rt_kernel.o")
    from_file = sim.load_kernel(tmp_path / "rt_kernel.o")
    current_runtime().store.sim.programs.clear()  # a fresh process would compile the text again
    for candidate in (loaded, from_file):
        (out,), record = run(candidate, [a])
        np.testing.assert_allclose(out, a.T - 1.0)
        assert record.kernel.name == "rt_kernel"


def test_program_is_compiled_once_per_text():
    x = te.placeholder((9,), "int32", name="x")
    y = te.compute((9,), lambda i: x[8 - i] * 3, name="y")
    first = build(y, [x, y]).body[0].arg("program")
    again = build(y, [x, y], name="other_name").body[0].arg("program")
    assert first == again
    from npusim.sim.isa.tvm_call.program import load_program
    programs = current_runtime().store.sim.programs
    assert load_program(first, programs) is load_program(again, programs)


def test_part_of_a_bigger_gm_tensor_with_offset():
    x = te.placeholder((4,), "float32", name="x")
    y = te.compute((4,), lambda i: x[3 - i], name="y")
    text = build(y, [x, y]).body[0].arg("program")
    from npusim.sim.isa.tvm_call import program_kernel
    from npusim.sim.kernel import BufRef, Param
    params = (Param("big", "gm", "float32", (16,)), Param("out", "gm", "float32", (4,)))
    kernel = program_kernel("windowed", text, params, (BufRef("big", 8), BufRef("out")))
    big = np.arange(16, dtype=np.float32)
    (out,), _ = run(kernel, [big])
    np.testing.assert_array_equal(out, big[8:12][::-1])


def test_misaligned_gm_pointer_is_handled_with_unaligned_text():
    """A text whose buffers assume 64-byte alignment still runs on a tensor at an odd GM address (copied)."""
    a = RNG.random((10, 4)).astype(np.float32)
    x = te.placeholder((10, 4), "float32", name="x")
    y = te.compute((10,), lambda i: x[i, 0] + x[i, 3], name="y")
    from npusim.sim.isa.tvm_call import program_kernel
    from npusim.sim.kernel import BufRef, Param
    text = te.create_prim_func([x, y]).script()  # default data alignment (64 bytes)
    params = (Param("x", "gm", "float32", (10, 4)), Param("y", "gm", "float32", (10,)))
    kernel = program_kernel("unaligned", text, params, (BufRef("x"), BufRef("y")))
    device = sim.Device()
    raw = device.malloc(a.nbytes + 64)
    device.memcpy(raw + 4, a)
    out = device.malloc(40)
    device.run(kernel, [raw + 4, out])
    np.testing.assert_allclose(device.from_device(out, (10,), "float32"), a[:, 0] + a[:, 3])


def test_disk_cache_under_npusim_cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path))
    x = te.placeholder((5, 3), "int32", name="x")
    y = te.compute((3, 5), lambda i, j: x[j, i] * 7 + 11, name="y")   # a text no other test builds
    kernel = build(y, [x, y], name="disk_cached")
    built = list((tmp_path / "tvm_call").glob("*.so"))
    assert len(built) == 1
    stamp = built[0].stat().st_mtime_ns
    current_runtime().store.sim.programs.clear()
    a = np.arange(15, dtype=np.int32).reshape(5, 3)
    (out,), _ = run(kernel, [a])
    np.testing.assert_array_equal(out, a.T * 7 + 11)
    assert built[0].stat().st_mtime_ns == stamp   # loaded, not rebuilt


def test_kernel_builder_can_emit_tvm_call():
    """A hand-written kernel (KernelBuilder) calls a program on a GM tensor and a scalar parameter."""
    n = tvm.tirx.Var("alpha", "float32")
    x = te.placeholder((6,), "float32", name="x")
    y = te.compute((6,), lambda i: x[5 - i] * n, name="y")
    from npusim.sim.isa.tvm_call import program_text
    text = program_text(te.create_prim_func([x, n, y]))
    kb = sim.KernelBuilder("built_by_hand")
    gx, gy = kb.tensor("float32", (6,), "GM", "gx"), kb.tensor("float32", (6,), "GM", "gy")
    alpha = kb.input_scalar("float32", "alpha")
    kb.tvm_call(text, (gx, alpha, gy))
    kernel = kb.build(inputs=[gx, alpha], outputs=[gy])
    device = sim.Device()
    data = np.arange(6, dtype=np.float32)
    px, py = device.to_device(data), device.malloc(24)
    device.run(kernel, [px, 2.5, py])
    np.testing.assert_allclose(device.from_device(py, (6,), "float32"), data[::-1] * 2.5)


@pytest.mark.parametrize("chip,expected", [("Ascend910", 65504.0), ("Ascend910B1", np.inf)])
def test_outputs_follow_the_chips_overflow_mode(chip, expected):
    """fp16 exp(12) and 12/0 overflow: Ascend910 saturates what the program writes (as its vector path does),
    910B1 keeps IEEE inf; the inputs, one of which holds an inf, are left alone."""
    x = te.placeholder((2, 16), "float16", name="x")
    w = te.placeholder((2, 16), "float16", name="w")
    y = te.compute((2, 16), lambda i, j: te.exp(x[i, j]), name="y")
    z = te.compute((2, 16), lambda i, j: x[i, j] / w[i, j], name="z")      # 0/0 and 12/0
    kernel = build([y, z], [x, w, y, z], name=f"sat_{chip}")
    data = np.full((2, 16), 12, np.float16)
    data[0, 0] = 0
    data[1, 1] = np.inf
    zeros = np.zeros((2, 16), np.float16)
    device = sim.Device(chip)
    pointer = device.to_device(data)
    outs = [device.malloc(64), device.malloc(64)]
    device.run(kernel, [pointer, device.to_device(zeros)] + outs)
    exp, div = (device.from_device(p, (2, 16), "float16") for p in outs)
    assert exp[0, 1] == expected and div[0, 1] == expected
    if chip == "Ascend910":
        assert div[0, 0] == 0 and np.isfinite(exp).all() and np.isfinite(div).all()   # NaN -> 0
    else:
        assert np.isnan(div[0, 0])
    np.testing.assert_array_equal(device.from_device(pointer, (2, 16), "float16"), data)
