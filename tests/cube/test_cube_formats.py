"""Issue 15 items 1 and 3: batch_matmul through ops.Custom, and the formats MindSpore feeds a tbe op (the dicts the
impl gets, the conversions around the kernel)."""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.custom.backends.tbe_formats import converted_shape, from_format, to_format
from npusim.sim import set_chip

F16, F32 = DataType.F16_Default, DataType.F32_Default


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend910B1"])
@pytest.mark.parametrize("shared_b", [False, True])
def test_batch_matmul_against_numpy(chip, shared_b):
    set_chip(chip)
    batch, m, k, n = 3, 20, 37, 29
    rng = np.random.default_rng(11)
    a = rng.standard_normal((batch, m, k)).astype(np.float16)
    b = rng.standard_normal((k, n) if shared_b else (batch, n, k)).astype(np.float16)
    info = (CustomRegOp("BatchMatMul").input(0, "x").input(1, "y").input(2, "bias", "optional").output(0, "z")
            .attr("adj_x", "required", "bool").attr("adj_y", "required", "bool")
            .dtype_format(F16, F16, F32, F32).target("Ascend").get_op_info())
    impl = importlib.import_module("impl_cube_matmul").batch_matmul
    op = ops.Custom(impl, out_shape=(batch, m, n), out_dtype="float32", func_type="tbe", reg_info=info)
    out = op(Tensor(a), Tensor(b), False, not shared_b).asnumpy()
    bf = b.astype(np.float32) if shared_b else b.astype(np.float32).transpose(0, 2, 1)
    np.testing.assert_allclose(out, a.astype(np.float32) @ bf, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("fmt, shape, dtype", [
    ("FRACTAL_NZ", (3, 33, 47), np.float16), ("FRACTAL_NZ", (20, 70), np.int8), ("FRACTAL_NZ", (5, 9), np.float32),
    ("NC1HWC0", (2, 19, 3, 5), np.float16), ("FRACTAL_Z", (20, 19, 3, 3), np.float16)])
def test_format_round_trips(fmt, shape, dtype):
    x = (np.arange(np.prod(shape)) % 97).astype(dtype).reshape(shape)
    y = to_format(x, fmt)
    assert y.shape == converted_shape(fmt, shape, dtype)
    np.testing.assert_array_equal(from_format(y, fmt, shape), x)


def test_fractal_nz_and_5hd_element_positions():
    x = np.arange(33 * 47, dtype=np.float16).reshape(33, 47)
    nz = to_format(x, "FRACTAL_NZ")
    assert nz.shape == (3, 3, 16, 16) and nz[2, 1, 3, 5] == x[16 + 3, 32 + 5] and nz[2, 2, 1, 15] == 0
    img = np.arange(2 * 19 * 2 * 2, dtype=np.float16).reshape(2, 19, 2, 2)
    five = to_format(img, "NC1HWC0")
    assert five.shape == (2, 2, 2, 2, 16) and five[1, 1, 0, 1, 2] == img[1, 18, 0, 1] and five[1, 1, 0, 1, 3] == 0


def test_impl_gets_the_fractal_dicts_mindspore_would():
    seen = []

    def probe(x, y, kernel_name="probe"):
        import te.lang.cce
        from te import tvm
        seen.append((dict(x), dict(y)))
        data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
        res = te.lang.cce.vmuls(data, 2.0)
        te.lang.cce.cce_build_code(te.lang.cce.auto_schedule(res), {"name": kernel_name, "tensor_list": [data, res]})

    nz = DataType.F16_FracNZ
    info = CustomRegOp("Probe").input(0, "x").output(0, "y").dtype_format(nz, nz).target("Ascend").get_op_info()
    op = ops.Custom(probe, out_shape=(33, 47), out_dtype="float16", func_type="tbe", reg_info=info)
    x = np.random.default_rng(3).standard_normal((33, 47)).astype(np.float16)
    out = op(Tensor(x)).asnumpy()
    (xd, yd), = seen
    assert xd["format"] == "FRACTAL_NZ" and xd["shape"] == [3, 3, 16, 16] and xd["ori_shape"] == [33, 47]
    assert xd["ori_format"] == "ND" and yd["format"] == "FRACTAL_NZ" and yd["ori_shape"] == [33, 47]
    np.testing.assert_array_equal(out, x * np.float16(2))


@pytest.mark.parametrize("trans_a, trans_b, format_out", [(False, False, "ND"), (True, True, "FRACTAL_NZ"),
                                                          (True, False, "ND")])
def test_fractal_nz_operands_with_ori_shape_in_any_orientation(trans_a, trans_b, format_out):
    import te.lang.cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    m, k, n = 33, 65, 47
    rng = np.random.default_rng(12)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(np.float16)
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float16)
    an, bn = to_format(a, "FRACTAL_NZ"), to_format(b, "FRACTAL_NZ")
    ta = tvm.placeholder(an.shape, name="ta", dtype="float16", attrs={"ori_shape": list(a.shape)})
    tb = tvm.placeholder(bn.shape, name="tb", dtype="float16", attrs={"ori_shape": list(b.shape)})
    res = te.lang.cce.matmul(ta, tb, trans_a, trans_b, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ",
                             dst_dtype="float16", format_out=format_out)
    sch = te.lang.cce.auto_schedule(res)
    kernel = BuiltKernel.from_result(build_kernel(sch, {"name": "nz_any", "tensor_list": [ta, tb, res]}))
    (out,) = kernel.run(an, bn)
    if format_out == "FRACTAL_NZ":
        out = from_format(out, "FRACTAL_NZ", (m, n))
    ref = (a.T if trans_a else a).astype(np.float32) @ (b.T if trans_b else b).astype(np.float32)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-2)


def test_c0_is_mindspores_cube_size():
    """C0 as MindSpore's GetCubeSizeByType sizes it: 32 for 1-byte dtypes, 16 for every other (float32 and int32
    too: the cube's 16 x 16 fractal), so a float32 / int32 result in FRACTAL_NZ or NC1HWC0 has the layout the cube
    writes."""
    assert converted_shape("FRACTAL_NZ", (5, 9), np.float32) == (1, 1, 16, 16)
    assert converted_shape("NC1HWC0", (2, 24, 9, 8), np.int32) == (2, 2, 9, 8, 16)
    assert converted_shape("NC1HWC0", (2, 40, 9, 8), np.int8) == (2, 2, 9, 8, 32)
    assert converted_shape("FRACTAL_Z", (24, 40, 3, 3), np.float16) == (3 * 9, 2, 16, 16)
