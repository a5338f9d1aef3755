"""TIK per-group reductions (vcgadd / vcgmax / vcgmin per block, vcpadd / vec_cpadd per lane pair) and the fused
vmadd / vmaddrelu / vaddrelu / vsubrelu, in kernels written as public TIK kernels are (block_num multi-core loops,
thread_num=2 tiles, flat indexing); through tikdb and ops.Custom on Ascend910 and Ascend310, bit-exact against
numpy references of the chip's order of operations; and their checks with TIK's texts."""
import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import DataType, custom_info_register
from npusim.errors.tik import TikDtypeError, TikOperandRangeError, TikRepeatError, TikTensorOverflowError
from tbe import tik
from tik_kernels import reg_info

ROWS_PER_TILE = 128          # 16-element rows (one block each) per tile: 16 repeats of 8 blocks


def pair_tree(rows: np.ndarray) -> np.ndarray:
    """Adjacent-pair tree sum of each row, every level rounded to the dtype (the chip's vcadd / vcgadd order);
    saturated on Ascend910 / Ascend310 (saturation mode) — the inputs below never overflow."""
    level = rows
    while level.shape[-1] > 1:
        level = (level[..., 0::2] + level[..., 1::2]).astype(rows.dtype)
    return level[..., 0]


def block_reduce_kernel(rows, op, kernel_name="tik_block_reduce"):
    """y[i] = op over row i of x (rows, 16) float16: per core rows / cores rows, double-buffered tiles, one
    vcg* over 16 repeats per tile (8 rows per repeat)."""
    ti = tik.Tik()
    cores = tik.Dprofile().get_aicore_num()
    x = ti.Tensor("float16", (rows, 16), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (rows,), name="y", scope=tik.scope_gm)
    per_core = rows // cores
    with ti.for_range(0, cores, block_num=cores) as core:
        with ti.for_range(0, per_core // ROWS_PER_TILE, thread_num=2) as t:
            src = ti.Tensor("float16", (ROWS_PER_TILE * 16,), name="src", scope=tik.scope_ubuf)
            dst = ti.Tensor("float16", (ROWS_PER_TILE,), name="dst", scope=tik.scope_ubuf)
            row0 = core * per_core + t * ROWS_PER_TILE
            ti.data_move(src, x[row0 * 16], 0, 1, ROWS_PER_TILE, 0, 0)
            getattr(ti, op)(128, dst, src, ROWS_PER_TILE // 8, 1, 1, 8)
            ti.data_move(y[row0], dst, 0, 1, ROWS_PER_TILE // 16, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[y])
    return ti


def pair_add_kernel(n, new_form=True, kernel_name="tik_pair_add"):
    """y[i] = x[2i] + x[2i+1] (float16), one vcpadd repeat = 128 inputs -> 64 results (dst_rep_stride in 128 B);
    a partial last repeat through a count mask."""
    ti = tik.Tik()
    x = ti.Tensor("float16", (n,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (n // 2,), name="y", scope=tik.scope_gm)
    src = ti.Tensor("float16", (n,), name="src", scope=tik.scope_ubuf)
    dst = ti.Tensor("float16", (n // 2,), name="dst", scope=tik.scope_ubuf)
    ti.data_move(src, x, 0, 1, n // 16, 0, 0)
    whole, rest = divmod(n, 128)
    if new_form:
        ti.vec_cpadd(128, dst, src, whole, 1, 8)
    else:
        ti.vcpadd(128, dst, src, whole, 1, 1, 8)
    if rest:
        ti.vec_cpadd(rest, dst[whole * 64], src[whole * 128], 1, 1, 8)
    ti.data_move(y, dst, 0, 1, n // 32, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[y])
    return ti


def fused_kernel(n, op, dtype="float16", kernel_name="tik_fused"):
    """out = op(a, b, c) over n elements on every core's share, tiles of one repeat-run."""
    ti = tik.Tik()
    cores = tik.Dprofile().get_aicore_num()
    lanes = 128 if dtype == "float16" else 64
    per_block = lanes // 8
    names = ("a", "b", "c")
    gms = [ti.Tensor(dtype, (n,), name=name, scope=tik.scope_gm) for name in names]
    out = ti.Tensor(dtype, (n,), name="out", scope=tik.scope_gm)
    per_core = n // cores
    with ti.for_range(0, cores, block_num=cores) as core:
        bufs = [ti.Tensor(dtype, (per_core,), name=f"{name}_ub", scope=tik.scope_ubuf) for name in names]
        for buf, gm in zip(bufs, gms):
            ti.data_move(buf, gm[core * per_core], 0, 1, per_core // per_block, 0, 0)
        a, b, c = bufs
        repeat = per_core // lanes
        if op in ("vmadd", "vmaddrelu"):               # c = a * c + b
            getattr(ti, "vec_" + op[1:])(lanes, c, a, b, repeat, 8, 8, 8)
        else:                                          # c = relu(a +- b)
            getattr(ti, op)(lanes, c, a, b, repeat, 1, 1, 1, 8, 8, 8)
        ti.data_move(out[core * per_core], c, 0, 1, per_core // per_block, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=gms, outputs=[out])
    return ti


@pytest.mark.parametrize("op", ["vcgadd", "vcgmax", "vcgmin"])
def test_block_reductions(soc, op):
    rows = tik.Dprofile().get_aicore_num() * ROWS_PER_TILE * 3
    x = np.random.default_rng(11).uniform(-8, 8, (rows, 16)).astype(np.float16)
    y, = block_reduce_kernel(rows, op).tikdb.start_debug({"x": x}, interactive=False)
    ref = {"vcgadd": pair_tree(x), "vcgmax": x.max(axis=1), "vcgmin": x.min(axis=1)}[op]
    np.testing.assert_array_equal(y.view(np.uint16), ref.view(np.uint16))


@pytest.mark.parametrize("new_form", [True, False])
def test_pair_add(soc, new_form):
    n = 128 * 5 + 64
    x = np.random.default_rng(12).uniform(-8, 8, n).astype(np.float16)
    y, = pair_add_kernel(n, new_form).tikdb.start_debug({"x": x}, interactive=False)
    np.testing.assert_array_equal(y.view(np.uint16), (x[0::2] + x[1::2]).view(np.uint16))


@pytest.mark.parametrize("op", ["vmadd", "vmaddrelu", "vaddrelu", "vsubrelu"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_fused_vector_ops(soc, op, dtype):
    n = tik.Dprofile().get_aicore_num() * 1024
    rng = np.random.default_rng(13)
    a, b, c = (rng.uniform(-4, 4, n).astype(dtype) for _ in range(3))
    out, = fused_kernel(n, op, dtype).tikdb.start_debug({"a": a, "b": b, "c": c}, interactive=False)
    wide = [v.astype(np.float64) for v in (a, b, c)]
    ref = {"vmadd": (wide[0] * wide[2] + wide[1]).astype(dtype),          # one rounding
           "vmaddrelu": np.maximum((wide[0] * wide[2] + wide[1]).astype(dtype), 0),
           "vaddrelu": np.maximum(a + b, 0), "vsubrelu": np.maximum(a - b, 0)}[op]
    np.testing.assert_array_equal(out, ref.astype(dtype))


_reg = reg_info


F16 = DataType.F16_Default


@custom_info_register(_reg(["x"], ["y"], (F16, F16)))
def tik_row_sum_impl(x, y, kernel_name="tik_row_sum_impl"):
    block_reduce_kernel(x["shape"][0], "vcgadd", kernel_name=kernel_name)


@custom_info_register(_reg(["a", "b", "c"], ["out"], (F16, F16, F16, F16)))
def tik_madd_impl(a, b, c, out, kernel_name="tik_madd_impl"):
    fused_kernel(a["shape"][0], "vmadd", kernel_name=kernel_name)


def test_group_reduce_and_madd_through_custom(soc):
    cores = tik.Dprofile().get_aicore_num()
    x = np.random.default_rng(14).uniform(-8, 8, (cores * ROWS_PER_TILE * 2, 16)).astype(np.float16)
    op = ops.Custom(tik_row_sum_impl, out_shape=lambda s: (s[0],), out_dtype=lambda d: d, func_type="tbe")
    np.testing.assert_array_equal(op(Tensor(x)).asnumpy().view(np.uint16), pair_tree(x).view(np.uint16))
    rng = np.random.default_rng(15)
    a, b, c = (rng.uniform(-4, 4, cores * 1024).astype(np.float16) for _ in range(3))
    madd = ops.Custom(tik_madd_impl, out_shape=lambda *s: s[0], out_dtype=lambda *d: d[0], func_type="tbe")
    ref = (a.astype(np.float64) * c.astype(np.float64) + b.astype(np.float64)).astype(np.float16)
    np.testing.assert_array_equal(madd(Tensor(a), Tensor(b), Tensor(c)).asnumpy(), ref)


# -- checks ------------------------------------------------------------------------------------------------------
def test_group_reduce_checks(soc):
    ti = tik.Tik()
    a = ti.Tensor("float16", (1024,), name="a", scope=tik.scope_ubuf)
    d = ti.Tensor("float16", (64,), name="d", scope=tik.scope_ubuf)
    with pytest.raises(TikRepeatError, match=r"repeat_times should be in the range of \[1, 255\], input "
                                             r"repeat_times: 256"):
        ti.vcgadd(128, d, a, 256, 1, 1, 8)
    with pytest.raises(TikOperandRangeError, match=r"src_rep_stride should be in the range of \[0, 65535\], "
                                                   r"input src_rep_stride: 65536"):
        ti.vcgmax(128, d, a, 1, 1, 1, 65536)
    with pytest.raises(TikTensorOverflowError, match="dst tensor overflow, instruction need 72 but only 64"):
        ti.vcgmin(128, d, a, 9, 1, 1, 1)                    # 9 repeats x 8 results, dst stride 1
    with pytest.raises(TikTensorOverflowError, match="src tensor overflow, instruction need 1152 but only 1024"):
        ti.vcgadd(128, d, a, 9, 0, 1, 8)
    with pytest.raises(TikTensorOverflowError, match="dst tensor overflow, instruction need 128 but only 64"):
        ti.vec_cpadd(128, d, a, 2, 1, 8)                    # 64 results per repeat
    f32 = ti.Tensor("float32", (512,), name="f32", scope=tik.scope_ubuf)
    with pytest.raises(TikDtypeError, match=f"vec_cpadd doesn't support float32 on {soc}"):
        ti.vec_cpadd(64, f32, f32, 1, 1, 8)
    with pytest.raises(TikDtypeError, match=f"vcgmax doesn't support float32 on {soc}"):   # akg: float16 only
        ti.vcgmax(64, f32, f32, 1, 1, 1, 8)
    with pytest.raises(TikDtypeError, match="vcgadd: dtype of dst and src should be the same"):
        ti.vcgadd(64, f32, a, 1, 1, 1, 8)
    from npusim.errors.tik import TikAlignmentError
    with pytest.raises(TikAlignmentError, match="Address align error, dst is not 32 Byte align"):
        ti.vec_cpadd(128, d[8], a, 1, 1, 8)
    ti.vcgadd(128, d[3], a, 1, 1, 1, 8)                     # vcg* results need element alignment only


def test_scalar_repeat_and_scalar_offsets_run_in_tikdb(soc):
    """repeat_times and the src offset from InputScalars (flowtable tiling args): checked when the kernel runs;
    a run-time repeat of 0 does nothing (TIK allows 0 for Scalars)."""
    ti = tik.Tik()
    x = ti.Tensor("float16", (1024,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (64,), name="y", scope=tik.scope_gm)
    rows = ti.InputScalar("int32", name="rows")
    first = ti.InputScalar("int32", name="first")
    src = ti.Tensor("float16", (1024,), name="src", scope=tik.scope_ubuf)
    dst = ti.Tensor("float16", (64,), name="dst", scope=tik.scope_ubuf)
    ti.data_move(src, x, 0, 1, 64, 0, 0)
    ti.vector_dup(64, dst, -1.0, 1, 1, 8)
    ti.vcgmax(128, dst, src[first * 16], rows // 8, 1, 1, 8)
    ti.data_move(y, dst, 0, 1, 4, 0, 0)
    ti.BuildCCE("tik_scalar_vcgmax", [x], [y], flowtable=[rows, first])
    values = np.random.default_rng(16).uniform(0, 8, 1024).astype(np.float16)
    out, = ti.tikdb.start_debug({"x": values, "rows": 32, "first": 8}, interactive=False)
    expect = np.full(64, -1, np.float16)
    expect[:32] = values.reshape(64, 16)[8:40].max(axis=1)
    np.testing.assert_array_equal(out, expect)
    out, = ti.tikdb.start_debug({"x": values, "rows": 0, "first": 8}, interactive=False)
    np.testing.assert_array_equal(out, np.full(64, -1, np.float16))
    from npusim.errors import TikAccessViolationError
    with pytest.raises(TikAccessViolationError, match="AccessViolation"):
        ti.tikdb.start_debug({"x": values, "rows": 64, "first": 8}, interactive=False)
