"""Issue 15: GEMM (``alpha * A @ B + beta * C``) on the cube through ops.Custom(func_type="tbe"), CANN op style,
against numpy, on Ascend910 and Ascend910B1.

As CANN's gemm compute has it, A @ B accumulates in L0C (float32 for float16 inputs, int32 for int8), and alpha,
beta and C (float16 ones cast to float32 in UB) combine there in float32 / int32 before one rounding to the output
dtype: the reference is that float32 sum, the tolerance float16 rounding; int8 -> int32 is exact.  alpha / beta
arrive as [1]-shaped device tensors read by the kernel (different values reuse one built kernel).
"""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.errors import TbeArgumentError, TbeDtypeError, UnsupportedError
from npusim.sim import profile, set_chip

CHIPS = ["Ascend910", "Ascend910B1"]
F16, F32, I8, I32 = DataType.F16_Default, DataType.F32_Default, DataType.I8_Default, DataType.I32_Default
NZ = DataType.F16_FracNZ
ROWS = [(F16, F16, F16, F16, F16, F16), (F16, F16, F32, F32, F32, F32), (I8, I8, I32, I32, I32, I32)]


def _impl(name="gemm"):
    return getattr(importlib.import_module("impl_cube_gemm"), name)


def _reg(rows=ROWS, name="GEMM"):
    builder = (CustomRegOp(name).input(0, "a").input(1, "b").input(2, "c").input(3, "alpha").input(4, "beta")
               .output(0, "out").attr("transpose_a", "optional", "bool").attr("transpose_b", "optional", "bool"))
    for row in rows:
        builder = builder.dtype_format(*row)
    return builder.target("Ascend").get_op_info()


def _op(m, n, dtype, rows=ROWS):
    return ops.Custom(_impl(), out_shape=(m, n), out_dtype=dtype, func_type="tbe", reg_info=_reg(rows))


def _f16(shape, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float16)


def _ref(a, b, c, alpha, beta):
    return float(alpha) * (a.astype(np.float32) @ b.astype(np.float32)) + float(beta) * c.astype(np.float32)


@pytest.mark.parametrize("chip", CHIPS)
def test_fp16_gemm_odd_shapes_alpha_beta_from_device_tensors(chip):
    set_chip(chip)
    m, k, n = 33, 65, 47
    a, b, c = _f16((m, k), 1), _f16((k, n), 2), _f16((m, n), 3)
    op = _op(m, n, "float16")
    for alpha, beta in ((0.5, -2.0), (1.25, 0.0)):
        args = (Tensor(a), Tensor(b), Tensor(c), Tensor(np.array([alpha], np.float16)),
                Tensor(np.array([beta], np.float16)))
        with profile() as prof:
            out = op(*args, False, False).asnumpy()
        assert out.dtype == np.float16 and out.shape == (m, n)
        np.testing.assert_allclose(out.astype(np.float32), _ref(a, b, c, alpha, beta), rtol=2e-3, atol=3e-2)
        (record,) = [r for r in prof.records if r.kernel.name.startswith("gemm")]
        assert record.cost.busy_cycles("M") > 0        # the product ran on the cube


@pytest.mark.parametrize("chip", CHIPS)
def test_fp32_output_row_keeps_float32_alpha_beta_and_c(chip):
    set_chip(chip)
    m, k, n = 17, 40, 31
    a, b = _f16((m, k), 4), _f16((k, n), 5)
    c = np.random.default_rng(6).standard_normal((m, n)).astype(np.float32)
    alpha, beta = np.array([0.75], np.float32), np.array([1.5], np.float32)
    out = _op(m, n, "float32")(Tensor(a), Tensor(b), Tensor(c), Tensor(alpha), Tensor(beta), False,
                               False).asnumpy()
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, _ref(a, b, c, alpha[0], beta[0]), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("chip", CHIPS)
def test_int8_gemm_int32_is_exact(chip):
    set_chip(chip)
    m, k, n = 20, 70, 36
    rng = np.random.default_rng(7)
    a = rng.integers(-128, 128, (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    c = rng.integers(-1000, 1000, (m, n)).astype(np.int32)
    alpha, beta = np.array([3], np.int32), np.array([-2], np.int32)
    out = _op(m, n, "int32")(Tensor(a), Tensor(b), Tensor(c), Tensor(alpha), Tensor(beta), False,
                             False).asnumpy()
    np.testing.assert_array_equal(out, 3 * (a.astype(np.int64) @ b.astype(np.int64)) - 2 * c)


@pytest.mark.parametrize("chip", CHIPS)
def test_fractal_nz_gemm_reads_c_in_place_on_several_cores(chip):
    set_chip(chip)
    m, k, n = 128, 64, 256
    a, b_t, c = _f16((m, k), 8), _f16((n, k), 9), _f16((m, n), 10)
    op = _op(m, n, "float16", rows=[(NZ, NZ, NZ, F16, F16, NZ)])
    with profile() as prof:      # A as FRACTAL_NZ of A, B as FRACTAL_NZ of B^T: the cube's native layouts
        out = op(Tensor(a), Tensor(b_t), Tensor(c), Tensor(np.array([-0.5], np.float16)),
                 Tensor(np.array([0.25], np.float16)), False, True).asnumpy()
    np.testing.assert_allclose(out.astype(np.float32), _ref(a, b_t.T, c, -0.5, 0.25), rtol=2e-3, atol=3e-2)
    (record,) = [r for r in prof.records if r.kernel.name.startswith("gemm")]
    # nothing staged (a staged kernel runs on one core): the tiles are spread over the cube cores
    assert record.block_dim > 1 and record.cost.busy_cycles("M") > 0


@pytest.mark.parametrize("chip", CHIPS)
def test_tbe_dsl_para_dict_form_with_float_alpha_beta(chip):
    set_chip(chip)
    m, k, n = 24, 48, 40
    a, b, c = _f16((m, k), 11), _f16((k, n), 12), _f16((m, n), 13)
    info = (CustomRegOp("GemmV2").input(0, "a").input(1, "b").input(2, "c").output(0, "out")
            .attr("alpha", "required", "float").attr("beta", "required", "float")
            .dtype_format(F16, F16, F16, F16).target("Ascend").get_op_info())
    op = ops.Custom(_impl("gemm_v2"), out_shape=(m, n), out_dtype="float16", func_type="tbe", reg_info=info)
    out = op(Tensor(a), Tensor(b), Tensor(c), 2.0, -0.5).asnumpy()
    np.testing.assert_allclose(out.astype(np.float32), _ref(a, b, c, 2.0, -0.5), rtol=2e-3, atol=3e-2)


def _tensors(a=("float16", (32, 48)), b=("float16", (48, 16)), ab=("float16", "float16"), c=("float16", (32, 16))):
    from te import tvm
    ta = tvm.placeholder(a[1], name="a", dtype=a[0])
    tb = tvm.placeholder(b[1], name="b", dtype=b[0])
    alpha = tvm.placeholder([1], name="alpha", dtype=ab[0])
    beta = tvm.placeholder([1], name="beta", dtype=ab[1])
    tc = tvm.placeholder(c[1], name="c", dtype=c[0]) if c else None
    return ta, tb, alpha, beta, tc


@pytest.mark.parametrize("kwargs, error, text", [
    ({"ab": ("float16", "float32")}, TbeDtypeError, "dtype of alpha and beta are not same"),
    ({"ab": ("float32", "float32")}, TbeDtypeError, "dtype of alpha/beta and dst are not same"),
    ({"a": ("float32", (32, 48))}, TbeDtypeError, "only support float16 & float16 and uint8/int8 & int8"),
    ({"b": ("float16", (40, 16))}, TbeArgumentError, "reduce axis not same"),
    ({"c": ("float32", (32, 16))}, TbeDtypeError, "Tensor bias type error, should be 'float16'"),
    ({"c": ("float16", (16, 32))}, TbeArgumentError, "non broadcast bias shape must be same as output shape"),
    ({"c": ("float16", (16,))}, UnsupportedError, "broadcast C"),
])
def test_gemm_argument_errors_name_the_op_and_cause(kwargs, error, text):
    import te.lang.cce
    a, b, alpha, beta, c = _tensors(**kwargs)
    with pytest.raises(error, match=text) as info:
        te.lang.cce.gemm(a, b, alpha, beta, dst_dtype="float16", tensor_bias=c)
    assert str(info.value).startswith("gemm:")


def test_gemm_rejects_what_cann_rejects_for_int8_and_shapes():
    import te.lang.cce
    from te import tvm
    a8 = tvm.placeholder((32, 64), name="a", dtype="int8")
    b8 = tvm.placeholder((16, 64), name="b", dtype="int8")
    one = tvm.placeholder([1], name="one", dtype="int32")
    with pytest.raises(TbeArgumentError, match="Not support B transpose for gevm or gemm b8 input"):
        te.lang.cce.gemm(a8, b8, one, one, trans_b=True, dst_dtype="int32")
    f16 = tvm.placeholder([1], name="h", dtype="float16")
    with pytest.raises(TbeArgumentError, match="Lack of quantize parameter"):
        te.lang.cce.gemm(a8, tvm.placeholder((64, 16), name="b2", dtype="int8"), f16, f16, dst_dtype="float16")
    a, b, alpha, beta, _ = _tensors()
    with pytest.raises(TbeArgumentError, match="tensor_alpha must have shape \\[1\\]"):
        te.lang.cce.gemm(a, b, tvm.placeholder([2], name="two", dtype="float16"), beta)
    with pytest.raises(TbeArgumentError, match="format_a must be ND or fractal"):
        te.lang.cce.gemm(a, b, alpha, beta, format_a="NHWC")
    with pytest.raises(UnsupportedError, match="quantize_params"):
        te.lang.cce.gemm(a, b, alpha, beta, quantize_params={"quantize_alg": "NON_OFFSET"})


def test_matmul_alpha_beta_are_rejected_as_cann_2020_does():
    import te.lang.cce
    a, b, _, _, _ = _tensors()
    with pytest.raises(TbeArgumentError, match="matmul.*alpha_num=2.0.*we not support this situation now"):
        te.lang.cce.matmul(a, b, alpha_num=2.0)


def test_te_lang_cce_and_tbe_dsl_serve_the_same_gemm():
    import te.lang.cce
    from tbe import dsl
    assert te.lang.cce.gemm is dsl.gemm
