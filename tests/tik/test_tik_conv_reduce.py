"""int8/uint8 <-> float16 conversions, round modes, per-repeat and whole reductions, compare and select."""
import numpy as np
import pytest
from tik_kernels import int8_dequant_kernel, row_sum_kernel
from tbe import tik


def test_int8_to_fp16_and_back_to_uint8(soc):
    total = 512
    ti = int8_dequant_kernel(total)
    x = np.arange(-256, 256).astype(np.int8)
    h, q = ti.tikdb.start_debug({"x": x}, interactive=False)
    want_h = x.astype(np.float16) * np.float16(0.5)
    np.testing.assert_array_equal(h, want_h)
    np.testing.assert_array_equal(q, np.rint(np.abs(want_h).astype(np.float64)).astype(np.uint8))  # half to even


def _convert(src_dtype, dst_dtype, mode, values):
    ti = tik.Tik()
    n = values.size
    x = ti.Tensor(src_dtype, (n,), name="x", scope=tik.scope_gm)
    y = ti.Tensor(dst_dtype, (n,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor(src_dtype, (n,), name="xu", scope=tik.scope_ubuf)
    yu = ti.Tensor(dst_dtype, (n,), name="yu", scope=tik.scope_ubuf)
    src_size, dst_size = np.dtype(src_dtype).itemsize, np.dtype(dst_dtype).itemsize
    lanes = 256 // max(src_size, dst_size)
    ti.data_move(xu, x, 0, 1, n * src_size // 32, 0, 0)
    ti.vec_conv(lanes, mode, yu, xu, n // lanes, lanes * dst_size // 32, lanes * src_size // 32)
    ti.data_move(y, yu, 0, 1, n * dst_size // 32, 0, 0)
    ti.BuildCCE("tik_conv", [x], [y])
    return ti.tikdb.start_debug({"x": values}, interactive=False)[0]


@pytest.mark.parametrize("mode,rounder", [("round", np.rint), ("floor", np.floor), ("ceil", np.ceil),
                                          ("to-zero", np.trunc)])
def test_fp16_to_int32_round_modes_on_910(mode, rounder):
    from tbe.common.platform import set_current_compile_soc_info
    set_current_compile_soc_info("Ascend910")
    values = (np.arange(128) - 64).astype(np.float16) * np.float16(0.75)
    out = _convert("float16", "int32", mode, values)
    np.testing.assert_array_equal(out, rounder(values.astype(np.float64)).astype(np.int32))


def test_fp16_to_int8_saturates(soc):
    values = np.linspace(-300, 300, 256).astype(np.float16)
    out = _convert("float16", "int8", "", values)
    np.testing.assert_array_equal(out, np.clip(np.rint(values.astype(np.float64)), -128, 127).astype(np.int8))


def test_uint8_to_fp16_and_fp32_to_fp16(soc):
    values = np.arange(256).astype(np.uint8)
    np.testing.assert_array_equal(_convert("uint8", "float16", "", values), values.astype(np.float16))
    f32 = np.linspace(-3, 3, 128).astype(np.float32)
    np.testing.assert_array_equal(_convert("float32", "float16", "", f32), f32.astype(np.float16))


@pytest.mark.parametrize("cols", [64 * 4, 64 * 100])
def test_row_sums_one_row_per_core(soc, cols):
    rows = 3
    ti = row_sum_kernel(rows, cols)
    x = np.random.default_rng(3).integers(-4, 5, (rows, cols)).astype(np.float32)   # sums exact in any order
    out, = ti.tikdb.start_debug({"x": x}, interactive=False)
    np.testing.assert_array_equal(out.reshape(rows, 8)[:, 0], x.sum(axis=1))


def test_fp16_reduce_over_more_repeats_than_lanes(soc):
    out = _reduce_add_f16(200)
    assert out[0] == out[1]


def _reduce_add_f16(repeat):
    ti = tik.Tik()
    n = repeat * 128
    x = ti.Tensor("float16", (n,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (16,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor("float16", (n,), name="xu", scope=tik.scope_ubuf)
    work = ti.Tensor("float16", (repeat,), name="work", scope=tik.scope_ubuf)
    yu = ti.Tensor("float16", (16,), name="yu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, n // 16, 0, 0)
    ti.vec_dup(16, yu, 0, 1, 8)
    ti.vec_reduce_add(128, yu, xu, work, repeat, 8)
    ti.data_move(y, yu, 0, 1, 1, 0, 0)
    ti.BuildCCE("tik_reduce_f16", [x], [y])
    values = np.random.default_rng(4).integers(-2, 3, n).astype(np.float16)
    out, = ti.tikdb.start_debug({"x": values}, interactive=False)
    return out[0], values.astype(np.float64).sum()


def test_vcadd_per_repeat_and_vec_reduce_max_min(soc):
    ti = tik.Tik()
    x = ti.Tensor("float16", (512,), name="x", scope=tik.scope_gm)
    sums = ti.Tensor("float16", (16,), name="sums", scope=tik.scope_gm)
    ext = ti.Tensor("float16", (16,), name="ext", scope=tik.scope_gm)
    xu = ti.Tensor("float16", (512,), name="xu", scope=tik.scope_ubuf)
    su = ti.Tensor("float16", (16,), name="su", scope=tik.scope_ubuf)
    eu = ti.Tensor("float16", (16,), name="eu", scope=tik.scope_ubuf)
    work = ti.Tensor("float16", (16,), name="work", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, 32, 0, 0)
    ti.vec_dup(16, su, 0, 1, 8)
    ti.vcadd(128, su, xu, 4, 1, 1, 8)
    ti.vec_reduce_max(128, eu, xu, work, 4, 8)
    ti.vec_reduce_min(128, eu[8], xu, work, 4, 8)
    ti.data_move(sums, su, 0, 1, 1, 0, 0)
    ti.data_move(ext, eu, 0, 1, 1, 0, 0)
    ti.BuildCCE("tik_vcadd", [x], [sums, ext])
    values = np.random.default_rng(5).permutation(512).astype(np.float16) / np.float16(8)
    s, e = ti.tikdb.start_debug({"x": values}, interactive=False)
    np.testing.assert_array_equal(s[:4], values.reshape(4, 128).astype(np.float64).sum(axis=1).astype(np.float16))
    assert e[0] == values.max() and e[8] == values.min()


def test_vcmp_then_vsel_and_vec_cmpv_then_vec_sel(soc):
    ti = tik.Tik()
    x = ti.Tensor("float16", (256,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (256,), name="y", scope=tik.scope_gm)
    mx = ti.Tensor("float16", (256,), name="mx", scope=tik.scope_gm)
    xu = ti.Tensor("float16", (256,), name="xu", scope=tik.scope_ubuf)
    yu = ti.Tensor("float16", (256,), name="yu", scope=tik.scope_ubuf)
    zu = ti.Tensor("float16", (256,), name="zu", scope=tik.scope_ubuf)
    bits = ti.Tensor("uint16", (16,), name="bits", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, 16, 0, 0)
    ti.data_move(yu, y, 0, 1, 16, 0, 0)
    cmp_mask = ti.vcmp_gt(128, xu, yu, 1, 1)                    # first 128: CMPMASK
    ti.vsel(128, 0, zu, cmp_mask, xu, yu, 1, 1, 1, 1, 8, 8, 8)
    ti.vec_cmpv_lt(bits, xu[128], yu[128], 1, 8, 8)             # last 128: a bits tensor
    ti.vec_sel(128, 0, zu[128], bits, yu[128], xu[128], 1)
    ti.data_move(mx, zu, 0, 1, 16, 0, 0)
    ti.BuildCCE("tik_cmpsel", [x, y], [mx])
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal(256).astype(np.float16), rng.standard_normal(256).astype(np.float16)
    out, = ti.tikdb.start_debug({"x": a, "y": b}, interactive=False)
    np.testing.assert_array_equal(out, np.maximum(a, b))


@pytest.mark.parametrize("dtype,repeat", [("float16", 200), ("float16", 3)])
def test_vec_reduce_max_and_min_over_many_repeats(soc, dtype, repeat):
    lanes, per_block = (128, 16) if dtype == "float16" else (64, 8)
    n = repeat * lanes
    ti = tik.Tik()
    x = ti.Tensor(dtype, (n,), name="x", scope=tik.scope_gm)
    y = ti.Tensor(dtype, (per_block,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor(dtype, (n,), name="xu", scope=tik.scope_ubuf)
    work = ti.Tensor(dtype, (2 * repeat,), name="work", scope=tik.scope_ubuf)
    yu = ti.Tensor(dtype, (per_block,), name="yu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, n // per_block, 0, 0)
    ti.vec_reduce_max(lanes, yu, xu, work, repeat, 8)
    ti.vec_reduce_min(lanes, yu[2], xu, work, repeat, 8)
    ti.data_move(y, yu, 0, 1, 1, 0, 0)
    ti.BuildCCE("tik_reduce_ext", [x], [y])
    values = np.random.default_rng(8).standard_normal(n).astype(dtype)
    out, = ti.tikdb.start_debug({"x": values}, interactive=False)
    assert out[0] == values.max() and out[2] == values.min()


def test_int32_to_fp16_with_deqscale(soc):
    ti = tik.Tik()
    x = ti.Tensor("int32", (64,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (64,), name="y", scope=tik.scope_gm)
    xu = ti.Tensor("int32", (64,), name="xu", scope=tik.scope_ubuf)
    yu = ti.Tensor("float16", (64,), name="yu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, 8, 0, 0)
    ti.vec_conv(64, "", yu, xu, 1, 4, 8, deqscale=0.25)
    ti.data_move(y, yu, 0, 1, 4, 0, 0)
    ti.BuildCCE("tik_deq", [x], [y])
    values = np.arange(-32, 32, dtype=np.int32) * 3
    out, = ti.tikdb.start_debug({"x": values}, interactive=False)
    np.testing.assert_array_equal(out, (values * 0.25).astype(np.float16))
