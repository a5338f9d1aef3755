"""Issue 15: MatMul on the cube through ops.Custom(func_type="tbe"), CANN op style, against numpy.

fp16 inputs accumulate in float32 (L0C) and round once to the output dtype, so the reference is the float32 matmul
of the float16 inputs and the tolerance is float16 rounding of the result; int8 -> int32 is exact.
"""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.sim import profile, set_chip

CHIPS = ["Ascend910", "Ascend910B1"]


def mat_mul():
    return importlib.import_module("impl_cube_matmul").mat_mul


def reg(rows):
    builder = (CustomRegOp("MatMul").input(0, "x1").input(1, "x2").input(2, "bias", "optional")
               .output(0, "y").attr("transpose_a", "required", "bool").attr("transpose_b", "required", "bool")
               .attr("fuse_relu", "optional", "bool"))
    for row in rows:
        builder = builder.dtype_format(*row)
    return builder.target("Ascend").get_op_info()


F16, F32, I8, I32 = DataType.F16_Default, DataType.F32_Default, DataType.I8_Default, DataType.I32_Default
ROWS = [(F16, F16, F16, F16), (F16, F16, F32, F32), (I8, I8, I32, I32)]


def _op(m, n, dtype):
    return ops.Custom(mat_mul(), out_shape=(m, n), out_dtype=dtype, func_type="tbe", reg_info=reg(ROWS))


def _data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        return rng.integers(-128, 128, shape).astype(np.int8)
    return rng.standard_normal(shape).astype(np.float16)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("trans_a, trans_b", [(False, False), (True, False), (False, True), (True, True)])
def test_fp16_matmul_odd_shapes_both_transposes(chip, trans_a, trans_b):
    set_chip(chip)
    m, k, n = 33, 65, 47
    a = _data((k, m) if trans_a else (m, k), np.float16, 1)
    b = _data((n, k) if trans_b else (k, n), np.float16, 2)
    out = _op(m, n, "float16")(Tensor(a), Tensor(b), trans_a, trans_b).asnumpy()
    ref = (a.T if trans_a else a).astype(np.float32) @ (b.T if trans_b else b).astype(np.float32)
    assert out.dtype == np.float16 and out.shape == (m, n)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("chip", CHIPS)
def test_fp16_matmul_bias_and_fused_relu(chip):
    set_chip(chip)
    m, k, n = 33, 65, 47
    a, b = _data((m, k), np.float16, 3), _data((k, n), np.float16, 4)
    bias = _data((n,), np.float16, 5)       # (47,) read as the op's (48,) placeholder: zero-filled
    out = _op(m, n, "float16")(Tensor(a), Tensor(b), Tensor(bias), False, False, True).asnumpy()
    ref = np.maximum(a.astype(np.float32) @ b.astype(np.float32) + bias.astype(np.float32), 0)
    assert out.dtype == np.float16 and (out >= 0).all()
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("chip", CHIPS)
def test_fp32_row_is_selected_by_the_output_dtype(chip):
    set_chip(chip)
    m, k, n = 17, 40, 31
    a, b = _data((m, k), np.float16, 3), _data((k, n), np.float16, 4)
    bias = np.random.default_rng(5).standard_normal(n).astype(np.float32)
    out = _op(m, n, "float32")(Tensor(a), Tensor(b), Tensor(bias), False, False).asnumpy()
    ref = a.astype(np.float32) @ b.astype(np.float32) + bias
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("chip", CHIPS)
def test_int8_matmul_is_exact(chip):
    set_chip(chip)
    m, k, n = 20, 70, 36
    a, b = _data((m, k), np.int8, 6), _data((k, n), np.int8, 7)
    out = _op(m, n, "int32")(Tensor(a), Tensor(b), False, False).asnumpy()
    np.testing.assert_array_equal(out, a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("chip", CHIPS)
def test_fractal_nz_rows_convert_like_transdata_and_run_multi_core_with_m_and_mte1_busy(chip):
    set_chip(chip)
    m, k, n = 256, 128, 512
    a, b = _data((m, k), np.float16, 8), _data((n, k), np.float16, 9)
    nz = DataType.F16_FracNZ
    info = (CustomRegOp("MatMulNZ").input(0, "x1").input(1, "x2").input(2, "bias", "optional").output(0, "y")
            .attr("transpose_a", "required", "bool").attr("transpose_b", "required", "bool")
            .attr("fuse_relu", "optional", "bool")
            .dtype_format(nz, nz, F16, nz).target("Ascend").get_op_info())
    op = ops.Custom(mat_mul(), out_shape=(m, n), out_dtype="float16", func_type="tbe", reg_info=info)
    with profile() as prof:
        out = op(Tensor(a), Tensor(b), False, True).asnumpy()
    ref = a.astype(np.float32) @ b.astype(np.float32).T
    assert out.shape == (m, n)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
    names = [r.kernel.name for r in prof.records]
    # MindSpore's TransData around the kernel ran on the device too: two inputs in, one output back
    assert sum(name.startswith("trans_data_fractal_nz") for name in names) == 3
    (record,) = [r for r in prof.records if r.kernel.name.startswith("mat_mul")]
    assert record.block_dim > 1                     # native layouts: the tiles are spread over the cube cores
    cost = record.cost
    assert cost.busy_cycles("M") > 0 and cost.busy_cycles("MTE1") > 0
    # the cube's tiles: ceil(m/16) ceil(n/16) ceil(k/16) on the whole chip, shared by the blocks
    assert sum(core.busy_cycles.get("M", 0) for core in cost.cores) >= (m // 16) * (n // 16) * (k // 16)
