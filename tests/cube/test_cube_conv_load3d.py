"""Issue 15 item 2: a convolution's A operand gathered by load3d (img2col from the feature map in L1 into L0A,
te_compat/cube/conv_load3d.py) instead of a staged im2col: the same bits as the staged path, the NC1HWC0 result
written in place (rows past an image's last output pixel not stored), the tiles on every cube core, and an estimate
the cube's pipes decide instead of the scalar unit's im2col."""
import numpy as np
import pytest

from npusim.custom.backends.tbe_formats import to_format
from npusim.sim import get_chip, profile, set_chip
import te_compat.cube.schedule as cube_schedule
from te_compat.cube.conv_load3d import Load3dConv, fit_tiling
from tests.cube.test_cube_conv2d import _reference

CHIPS = ["Ascend910", "Ascend910B1"]


def _conv(x, w, bias, stride, pad, dilation, relu=False, res_dtype="float16", name="conv_l3d"):
    """(NCHW result, kernel opcodes, profile row) of te.lang.cce.conv on NC1HWC0 / FRACTAL_Z operands."""
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    x5, wz = to_format(x, "NC1HWC0"), to_format(w, "FRACTAL_Z")
    fmap = tvm.placeholder(x5.shape, name="fmap", dtype="float16")
    weight = tvm.placeholder(wz.shape, name="weight", dtype="float16")
    args, arrays = [fmap, weight], [x5, wz]
    bias_t = None
    if bias is not None:
        bias_t = tvm.placeholder(bias.shape, name="bias", dtype=str(bias.dtype))
        args.append(bias_t)
        arrays.append(bias)
    para = {"pad_h": list(pad[:2]), "pad_w": list(pad[2:]), "stride_h": stride[0], "stride_w": stride[1],
            "dilate_h": dilation[0], "dilate_w": dilation[1], "filter_h": w.shape[2], "filter_w": w.shape[3],
            "res_dtype": res_dtype, "bias_tensor": bias_t}
    res = cce.conv(fmap, weight, para)
    if relu:
        res = cce.vrelu(res)
    sch = cce.auto_schedule(res)
    kernel = BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": [*args, res]}))
    with profile() as prof:
        out = kernel.run(*arrays)
    out = np.asarray(out[0] if isinstance(out, (list, tuple)) else out)
    n, co = x.shape[0], w.shape[0]
    ho, wo = out.shape[2], out.shape[3]
    # [N, Co1, Ho, Wo, 16]: 16 channels to a block in every dtype, as the cube writes them
    nchw = out.astype(np.float32).transpose(0, 1, 4, 2, 3).reshape(n, -1, ho, wo)[:, :co]
    opcodes = {instr.opcode for _, instr in kernel.kernel.instructions()}
    return nchw, out, opcodes, prof.rows()[-1]


def _staged(monkeypatch):
    monkeypatch.setattr(cube_schedule, "load3d_graph", lambda graph, chip: None)


CASES = [  # x, w, stride, pad (top, bottom, left, right), dilation, bias, relu, res_dtype
    ((1, 32, 16, 16), (32, 32, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), False, False, "float16"),
    ((2, 19, 9, 11), (20, 19, 3, 3), (2, 1), (1, 1, 2, 2), (1, 2), True, True, "float16"),     # 55 pixels
    ((2, 16, 9, 8), (32, 16, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), True, False, "float32"),     # 72 pixels
    ((1, 16, 12, 12), (16, 16, 5, 5), (2, 2), (2, 2, 2, 2), (1, 1), False, True, "float16"),
    ((1, 16, 4, 16), (16, 16, 1, 1), (1, 1), (0, 12, 0, 0), (1, 1), False, False, "float16"),   # tiles all padding
    ((1, 16, 4, 16), (16, 16, 3, 3), (1, 1), (14, 0, 1, 1), (1, 1), True, False, "float32"),
]


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}x{c[1]}s{c[2]}")
def test_load3d_conv_matches_numpy_and_the_staged_path_bit_for_bit(chip, case, monkeypatch):
    set_chip(chip)
    xs, ws, stride, pad, dilation, with_bias, relu, res_dtype = case
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x = rng.standard_normal(xs).astype(np.float16)
    w = rng.standard_normal(ws).astype(np.float16)
    co1 = -(-ws[0] // 16)
    bias = None
    if with_bias:
        bias = np.zeros(co1 * 16, np.float16)
        bias[:ws[0]] = rng.standard_normal(ws[0])
    got, raw_out, opcodes, row = _conv(x, w, bias, stride, pad, dilation, relu, res_dtype)
    assert "load3d" in opcodes and "tvm_call" not in opcodes          # nothing staged on the scalar unit
    assert row["block_dim"] > 1
    ref = _reference(x, w, None if bias is None else bias[:ws[0]], stride, pad, dilation, relu)
    np.testing.assert_allclose(got, ref, rtol=2e-3, atol=3e-2)
    _staged(monkeypatch)
    _, staged_out, staged_opcodes, _ = _conv(x, w, bias, stride, pad, dilation, relu, res_dtype, "conv_staged")
    assert "load3d" not in staged_opcodes and "tvm_call" in staged_opcodes
    assert raw_out.tobytes() == staged_out.tobytes()


@pytest.mark.parametrize("chip", CHIPS)
def test_load3d_estimate_is_the_cubes_not_the_scalar_units(chip, monkeypatch):
    """A 64 -> 64 channel 3x3 convolution of a 28 x 28 image: the staged im2col alone costs tens of millions of
    scalar-unit cycles; gathered by load3d the kernel is bound by its moves and within a few thousand cycles."""
    set_chip(chip)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 64, 28, 28)).astype(np.float16)
    w = rng.standard_normal((64, 64, 3, 3)).astype(np.float16)
    _, _, _, row = _conv(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1))
    assert row["busiest_pipe"] in ("MTE2", "MTE1", "M")
    assert row["cycles"] < 10_000
    _staged(monkeypatch)
    _, _, _, staged = _conv(x, w, None, (1, 1), (1, 1, 1, 1), (1, 1), name="conv_staged_big")
    assert staged["busiest_pipe"] == "S" and staged["cycles"] > 1000 * row["cycles"]


def test_a_feature_map_band_too_large_for_l1_keeps_the_staged_path():
    chip = get_chip("Ascend910B1")
    from te_compat.cube.tiling import CubeTiling
    tiling = CubeTiling(m1=64, n1=4, k1=9, mt=8, nt=4, kt=9, batch=1, block_dim=8, k0=16, nc=2)
    # a tile's 128 output pixels of a 20000-wide image read 4 input rows: 2.4 MiB of one channel block
    wide = Load3dConv(1, 1, 8, 20000, 3, 3, 8, 20000, 1, 1, 1, 1, 1, 1, 1, 1, 0)
    assert fit_tiling(tiling, wide, chip, 2) == (None, None)
    small = Load3dConv(1, 4, 28, 28, 3, 3, 28, 28, 1, 1, 1, 1, 1, 1, 1, 1, 0)
    fitted, conv = fit_tiling(tiling, small, chip, 2)
    assert conv.c1_per_load == 4 and fitted.kl == 36 and fitted.kl % fitted.kt == 0 and not fitted.a_resident
    assert conv.band_rows == 8          # 128 pixels span 6 output rows (5 + a partial one): 6 - 1 + 3 input rows


@pytest.mark.parametrize("chip", CHIPS)
def test_grouped_conv_gathers_each_groups_channel_blocks(chip):
    """Three groups over two extended groups (tests/cube/test_cube_conv_groups.py) through ops.Custom: a batch of
    (image, group), each group's A gathered from its own channel blocks, B its own filter batch, its output blocks
    written in place; against numpy."""
    from tests.cube.test_cube_conv_groups import _f16, _run
    set_chip(chip)
    x, w, bias = _f16((2, 24, 9, 7), 31), _f16((24, 8, 3, 3), 32), _f16((24,), 33)
    out, ref, record = _run(x, w, bias, 3, stride=(2, 1), pad=(1, 1, 2, 0), dilation=(1, 2))
    assert "load3d" in {instr.opcode for _, instr in record.kernel.instructions()}
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=3e-2)


@pytest.mark.parametrize("chip", CHIPS)
def test_grouped_conv_without_bias_matches_the_staged_path_bit_for_bit(chip, monkeypatch):
    """Two extended groups of 16 channels each, built directly (no build cache): the load3d kernel spreads the
    (image, group) batch over the cores and gives the staged im2col's bits."""
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    set_chip(chip)
    rng = np.random.default_rng(41)
    x = rng.standard_normal((2, 32, 8, 8)).astype(np.float16)
    x5 = to_format(x, "NC1HWC0")
    wz = rng.standard_normal((2 * 9, 1, 16, 16)).astype(np.float16)     # [real_g * cin1_g * 9, cout1_g, 16, 16]

    def run(name):
        fmap = tvm.placeholder(x5.shape, name="fmap", dtype="float16")
        weight = tvm.placeholder(wz.shape, name="weight", dtype="float16")
        para = {"pad_h": [1, 1], "pad_w": [1, 1], "stride_h": 1, "stride_w": 1, "filter_h": 3, "filter_w": 3,
                "group": 2, "group_dict": {"real_g": 2, "cin1_g": 1, "cout_g": 16, "cout_ori": 16}}
        res = cce.conv(fmap, weight, para)
        kernel = BuiltKernel.from_result(build_kernel(cce.auto_schedule(res),
                                                      {"name": name, "tensor_list": [fmap, weight, res]}))
        with profile() as prof:
            out = kernel.run(x5, wz)
        opcodes = {instr.opcode for _, instr in kernel.kernel.instructions()}
        return np.asarray(out[0] if isinstance(out, (list, tuple)) else out), opcodes, prof.rows()[-1]

    gathered, opcodes, row = run("conv_groups_l3d")
    assert "load3d" in opcodes and "tvm_call" not in opcodes and row["block_dim"] > 1
    _staged(monkeypatch)
    staged, staged_opcodes, _ = run("conv_groups_staged")
    assert "load3d" not in staged_opcodes
    assert gathered.tobytes() == staged.tobytes()


@pytest.mark.parametrize("chip", CHIPS)
def test_int8_conv_through_custom_is_exact(chip, monkeypatch):
    """An int8 Conv2D (I8_5HD feature map, I8_FracZ filter: C0 = 32; an int32 bias; I32_5HD result) through the
    CANN-style op file: exact int32 accumulation, A gathered by load3d."""
    import importlib
    from mindspore import Tensor, ops
    from mindspore.ops import CustomRegOp, DataType
    set_chip(chip)
    rng = np.random.default_rng(43)
    x = rng.integers(-128, 128, (2, 40, 9, 8)).astype(np.int8)
    w = rng.integers(-128, 128, (24, 40, 3, 3)).astype(np.int8)
    bias = rng.integers(-1000, 1000, 24).astype(np.int32)
    reg = (CustomRegOp("Conv2DInt8").input(0, "x").input(1, "filter").input(2, "bias", "optional").output(0, "y")
           .attr("strides", "required", "listInt").attr("pads", "required", "listInt")
           .attr("dilations", "required", "listInt").attr("fuse_relu", "optional", "bool")
           .dtype_format(DataType.I8_5HD, DataType.I8_FracZ, DataType.I32_Default, DataType.I32_5HD)
           .target("Ascend").get_op_info())
    impl = importlib.import_module("impl_cube_conv2d").conv2d
    op = ops.Custom(impl, out_shape=(2, 24, 9, 8), out_dtype="int32", func_type="tbe", reg_info=reg)
    out = op(Tensor(x), Tensor(w), Tensor(bias), [1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], False).asnumpy()
    xp = np.pad(x.astype(np.int64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 24, 9, 8), np.int64)
    for i in range(3):
        for j in range(3):
            ref += np.einsum("nchw,oc->nohw", xp[:, :, i:i + 9, j:j + 8], w[:, :, i, j].astype(np.int64))
    ref += bias[None, :, None, None]
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, ref)
