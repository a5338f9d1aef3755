"""Issue 15 item 1: matmul's FRACTAL_Z operands (CANN's weight layout: X[r, c] at [r // c0, c // 16, c % 16, r % c0],
the FRACTAL_NZ of X^T element for element), float16 and int8 (c0 = 32), in both orientations; and item 3: a Dense
weight [n, k] declared F16_FracZ (reshape_type "NC") in a Custom op's reg info reaches a CANN-style op file
converted as MindSpore's TransData converts it (padded to NCHW [n, k, 1, 1]; without a reshape_type MindSpore pads
a 2-D shape to [1, n, k, 1])."""
import importlib

import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType

from npusim.custom.backends.tbe_formats import converted_shape, from_format, to_format
from npusim.sim import set_chip

CHIPS = ["Ascend910", "Ascend910B1"]


def _fractal_z(x: np.ndarray) -> np.ndarray:
    """CANN's FRACTAL_Z of a 2-D X[r, c], zero padded, written from its definition."""
    c0 = 32 // x.dtype.itemsize
    r, c = x.shape
    out = np.zeros((-(-r // c0), -(-c // 16), 16, c0), x.dtype)
    for i in range(r):
        for j in range(c):
            out[i // c0, j // 16, j % 16, i % c0] = x[i, j]
    return out


def _from_nz16(out, m, n):
    """The cube's FRACTAL_NZ result [N1, M1, 16, 16] (16-wide fractals in every dtype) as [m, n]."""
    n1, m1 = out.shape[0], out.shape[1]
    return out.transpose(1, 2, 0, 3).reshape(m1 * 16, n1 * 16)[:m, :n]


def _run(a, stored_b, trans_b, out_dtype, ori_shape=None):
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    pa = tvm.placeholder(a.shape, name="a", dtype=str(a.dtype), attrs={"format": "ND"})
    attrs = {"format": "FRACTAL_Z"} if ori_shape is None else {"format": "FRACTAL_Z", "ori_shape": ori_shape}
    pb = tvm.placeholder(stored_b.shape, name="b", dtype=str(a.dtype), attrs=attrs)
    res = cce.matmul(pa, pb, False, trans_b, format_a="ND", format_b="FRACTAL_Z", dst_dtype=out_dtype,
                     format_out="FRACTAL_NZ")
    sch = cce.auto_schedule(res)
    name = f"fz_{a.dtype}_{int(trans_b)}_{a.shape[0]}"
    kernel = BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": [pa, pb, res]}))
    out = kernel.run(a, stored_b)
    return np.asarray(out[0] if isinstance(out, (list, tuple)) else out)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("dtype, trans_b", [("float16", False), ("float16", True), ("int8", False),
                                            ("int8", True)])
def test_fractal_z_b_against_numpy(chip, dtype, trans_b):
    set_chip(chip)
    m, k, n = 33, 64, 48           # K a whole number of int8 blocks, N of fractals: FRACTAL_Z's sizes are padded
    rng = np.random.default_rng(17)
    scale = 1 if dtype == "float16" else 30
    a = (rng.standard_normal((m, k)) * scale).astype(dtype)
    b = (rng.standard_normal((k, n)) * scale).astype(dtype)
    stored = _fractal_z(b.T.copy() if trans_b else b)
    out_dtype = "float16" if dtype == "float16" else "int32"
    out = _run(a, stored, trans_b, out_dtype)
    got = _from_nz16(out, m, n).astype(np.float64)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if dtype == "int8":
        np.testing.assert_array_equal(got, ref)          # int32 accumulation is exact
    else:
        np.testing.assert_allclose(got, ref, rtol=2e-3, atol=2e-2)


def test_fractal_z_is_read_with_its_padded_sizes():
    """As CANN's matmul: N and K of a FRACTAL_Z operand come from its fractal shape, whatever its ori_shape says
    (MindSpore may pass the weight's [n, k] or the matrix's [k, n]); the padding is zero."""
    set_chip("Ascend910")
    rng = np.random.default_rng(5)
    a = rng.standard_normal((20, 30)).astype(np.float16)
    b = rng.standard_normal((30, 20)).astype(np.float16)
    padded_a = np.zeros((20, 32), np.float16)
    padded_a[:, :30] = a
    for ori in (None, [30, 20], [20, 30]):
        out = _run(padded_a, _fractal_z(b), False, "float16", ori)
        got = _from_nz16(out, 20, 32).astype(np.float32)
        np.testing.assert_allclose(got[:, :20], a.astype(np.float32) @ b.astype(np.float32), rtol=2e-3, atol=2e-2)
        assert not got[:, 20:].any()


def test_two_d_fractal_z_conversion_is_mindspores_padded_nchw():
    w = (np.arange(20 * 40) % 251).astype(np.float16).reshape(20, 40)
    z = to_format(w, "FRACTAL_Z", "NC")                             # [n, c] as NCHW [n, c, 1, 1]
    assert z.shape == converted_shape("FRACTAL_Z", (20, 40), np.float16, "NC") == (3, 2, 16, 16)
    assert z[1, 1, 3, 5] == w[16 + 3, 16 + 5] and z[2, 1, 3, 9] == 0
    np.testing.assert_array_equal(z, _fractal_z(w.T.copy()))       # CANN's FRACTAL_Z of W^T
    np.testing.assert_array_equal(from_format(z, "FRACTAL_Z", (20, 40), "NC"), w)
    default = to_format(w, "FRACTAL_Z")                             # MindSpore's default: [1, 20, 40, 1]
    assert default.shape == converted_shape("FRACTAL_Z", (20, 40), np.float16) == (2 * 40, 1, 16, 16)
    np.testing.assert_array_equal(default, to_format(w.reshape(1, 20, 40, 1), "FRACTAL_Z"))
    np.testing.assert_array_equal(from_format(default, "FRACTAL_Z", (20, 40)), w)


@pytest.mark.parametrize("chip", CHIPS)
@pytest.mark.parametrize("with_bias", [False, True])
def test_dense_weight_in_frac_z_through_custom(chip, with_bias):
    set_chip(chip)
    m, k, n = 24, 64, 32
    rng = np.random.default_rng(23)
    x = rng.standard_normal((m, k)).astype(np.float16)
    w = rng.standard_normal((n, k)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    reg = (CustomRegOp("FullyConnectionZ").input(0, "x").input(1, "w", reshape_type="NC")
           .input(2, "bias", "optional").output(0, "y")
           .dtype_format(DataType.F16_Default, DataType.F16_FracZ, DataType.F32_Default, DataType.F16_FracNZ)
           .target("Ascend").get_op_info())
    impl = importlib.import_module("impl_cube_fc").fully_connection_z
    op = ops.Custom(impl, out_shape=(m, n), out_dtype="float16", func_type="tbe", reg_info=reg)
    args = (Tensor(x), Tensor(w), Tensor(bias)) if with_bias else (Tensor(x), Tensor(w))
    out = op(*args).asnumpy()
    ref = x.astype(np.float32) @ w.astype(np.float32).T + (bias if with_bias else 0)
    assert out.shape == (m, n)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
