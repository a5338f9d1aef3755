"""TIK transposes in the style of public kernels: a multi-core, double-buffered NCHW -> NHWC (C = 16) transpose with
vec_trans_scatter, an int8 32 x 32 transpose from four vnchwconv calls on block halves, a float32 transpose,
batches of 16 x 16 vtransposes; through tikdb and ops.Custom on Ascend910 and Ascend310, bit-exact against
numpy; and the TIK checks with TIK's texts."""
import numpy as np
import pytest

from mindspore import Tensor, ops
from mindspore.ops import DataType, custom_info_register
from npusim.errors import TikAccessViolationError
from npusim.sim import profile
from npusim.errors.tik import (TikAlignmentError, TikDtypeError, TikOperandRangeError, TikOverlapError,
                               TikRepeatError, TikSyntaxError, TikTensorOverflowError)
from tbe import tik
from tik_kernels import reg_info

C0 = 16
TILE = 256            # HW elements per channel per tile


def nchw_to_nhwc_kernel(hw, kernel_name="tik_nchw_to_nhwc", dtype="float16", new_form=True):
    """x (16, hw) -> y (hw, 16): each core takes hw / cores columns, in double-buffered tiles of TILE; one
    data_move gathers the 16 channel rows of a tile (16 bursts with a gap), one vnchwconv transposes it."""
    ti = tik.Tik()
    cores = tik.Dprofile().get_aicore_num()
    per_block = 32 // (2 if dtype.endswith("16") else 4)
    x = ti.Tensor(dtype, (C0, hw), name="x", scope=tik.scope_gm)
    y = ti.Tensor(dtype, (hw, C0), name="y", scope=tik.scope_gm)
    per_core = hw // cores
    tiles = per_core // TILE
    trans = ti.vec_trans_scatter if new_form else ti.vnchwconv
    with ti.for_range(0, cores, block_num=cores) as core:
        with ti.for_range(0, tiles, thread_num=2) as t:
            src = ti.Tensor(dtype, (C0, TILE), name="src", scope=tik.scope_ubuf)
            dst = ti.Tensor(dtype, (TILE, C0), name="dst", scope=tik.scope_ubuf)
            start = core * per_core + t * TILE
            ti.data_move(src, x[start], 0, C0, TILE // per_block, (hw - TILE) // per_block, 0)
            if per_block == C0:              # 16-bit: repeat r writes rows 16r .. 16r+15 (16 blocks)
                trans(False, False, [dst[C0 * i] for i in range(C0)], [src[TILE * c] for c in range(C0)],
                      TILE // C0, C0, 1)
            else:                            # 32-bit: a repeat covers 8 columns of the 16 channels
                trans(False, False, [dst[per_block * i] for i in range(C0)], [src[TILE * c] for c in range(C0)],
                      TILE // per_block, C0, 1)
            ti.data_move(y[start * C0], dst, 0, 1, TILE * C0 // per_block, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[y])
    return ti


def int8_transpose_kernel(batches, kernel_name="tik_int8_t"):
    """x (batches, 32, 32) int8 -> y with every 32 x 32 matrix transposed: four vnchwconv calls per matrix, one
    per (dst half, src half), as 8-bit NC1HWC0 kernels do (C0 = 32)."""
    ti = tik.Tik()
    x = ti.Tensor("int8", (batches, 32, 32), name="x", scope=tik.scope_gm)
    y = ti.Tensor("int8", (batches, 32, 32), name="y", scope=tik.scope_gm)
    with ti.for_range(0, batches, thread_num=2) as b:
        src = ti.Tensor("int8", (32, 32), name="src", scope=tik.scope_ubuf)
        dst = ti.Tensor("int8", (32, 32), name="dst", scope=tik.scope_ubuf)
        ti.data_move(src, x[b * 1024], 0, 1, 32, 0, 0)
        for dst_high in (False, True):
            for src_high in (False, True):
                rows, cols = 16 * dst_high, 16 * src_high      # dst row e0+e, byte k0+k <- src row k0+k, byte e0+e
                ti.vnchwconv(dst_high, src_high, [dst[(cols + e) * 32] for e in range(16)],
                             [src[(rows + k) * 32] for k in range(16)], 1, 0, 0)
        ti.data_move(y[b * 1024], dst, 0, 1, 32, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[y])
    return ti


def vtranspose_kernel(count, kernel_name="tik_vtranspose"):
    """x (count, 16, 16) float16 -> each matrix transposed, one vtranspose per matrix, the matrices split over the
    cores (a core with nothing to do skips through if_scope)."""
    ti = tik.Tik()
    cores = tik.Dprofile().get_aicore_num()
    x = ti.Tensor("float16", (count, 16, 16), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (count, 16, 16), name="y", scope=tik.scope_gm)
    per_core = -(-count // cores)
    with ti.for_range(0, cores, block_num=cores) as core:
        with ti.for_range(0, per_core) as i:
            m = core * per_core + i
            with ti.if_scope(m < count):
                buf = ti.Tensor("float16", (2, 256), name="buf", scope=tik.scope_ubuf)
                ti.data_move(buf, x[m * 256], 0, 1, 16, 0, 0)
                ti.vtranspose(buf[256], buf)
                ti.vtranspose(buf, buf)                      # in place: the transpose again
                ti.data_move(y[m * 256], buf[256], 0, 1, 16, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[y])
    return ti


@pytest.mark.parametrize("new_form", [True, False])
def test_nchw_to_nhwc_fp16(soc, new_form):
    hw = tik.Dprofile().get_aicore_num() * TILE * 3
    x = np.random.default_rng(1).standard_normal((C0, hw)).astype(np.float16)
    y, = nchw_to_nhwc_kernel(hw, new_form=new_form).tikdb.start_debug({"x": x}, interactive=False)
    np.testing.assert_array_equal(y.view(np.uint16), x.T.view(np.uint16))


@pytest.mark.parametrize("dtype", ["float32", "int16"])
def test_nchw_to_nhwc_32_and_16_bit_integers(soc, dtype):
    hw = tik.Dprofile().get_aicore_num() * TILE * 2
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((C0, hw)) * 1000).astype(dtype)
    y, = nchw_to_nhwc_kernel(hw, dtype=dtype).tikdb.start_debug({"x": x}, interactive=False)
    np.testing.assert_array_equal(y, x.T)


def test_int8_32x32_transpose_from_block_halves(soc):
    x = np.random.default_rng(3).integers(-128, 128, (3, 32, 32)).astype(np.int8)
    y, = int8_transpose_kernel(3).tikdb.start_debug({"x": x}, interactive=False)
    np.testing.assert_array_equal(y, x.transpose(0, 2, 1))


def test_vtranspose_batches_over_cores(soc):
    x = np.random.default_rng(4).standard_normal((5, 16, 16)).astype(np.float16)
    y, = vtranspose_kernel(5).tikdb.start_debug({"x": x}, interactive=False)
    np.testing.assert_array_equal(y.view(np.uint16), x.transpose(0, 2, 1).view(np.uint16))


_reg = reg_info


@custom_info_register(_reg(["x"], ["y"], (DataType.F16_Default, DataType.F16_Default)))
def tik_nchw_to_nhwc_impl(x, y, kernel_name="tik_nchw_to_nhwc_impl"):
    nchw_to_nhwc_kernel(x["shape"][1], kernel_name=kernel_name)


@custom_info_register(_reg(["x"], ["y"], (DataType.I8_Default, DataType.I8_Default)))
def tik_int8_transpose_impl(x, y, kernel_name="tik_int8_transpose_impl"):
    int8_transpose_kernel(x["shape"][0], kernel_name=kernel_name)


def test_transposes_through_custom(soc):
    hw = tik.Dprofile().get_aicore_num() * TILE * 2
    x = np.random.default_rng(5).standard_normal((C0, hw)).astype(np.float16)
    op = ops.Custom(tik_nchw_to_nhwc_impl, out_shape=lambda s: (s[1], s[0]), out_dtype=lambda d: d,
                    func_type="tbe")
    with profile() as session:
        out = op(Tensor(x)).asnumpy()
    np.testing.assert_array_equal(out.view(np.uint16), x.T.view(np.uint16))
    row, = session.rows()                      # in npusim profile, with a cycle estimate
    assert row["name"].startswith("tik_nchw_to_nhwc_impl") and row["cycles"] > 0
    q = np.random.default_rng(6).integers(-128, 128, (2, 32, 32)).astype(np.int8)
    op8 = ops.Custom(tik_int8_transpose_impl, out_shape=lambda s: s, out_dtype=lambda d: d, func_type="tbe")
    np.testing.assert_array_equal(op8(Tensor(q)).asnumpy(), q.transpose(0, 2, 1))


# -- checks ------------------------------------------------------------------------------------------------------
@pytest.fixture
def ub():
    ti = tik.Tik()
    return ti, ti.Tensor("float16", (1024,), name="a", scope=tik.scope_ubuf)


def _lists(t, step=16, count=16, start=0):
    return [t[start + step * i] for i in range(count)]


def test_vec_trans_scatter_checks(ub):
    ti, a = ub
    with pytest.raises(TikSyntaxError, match="there should be 16 addresses in dst_list"):
        ti.vec_trans_scatter(False, False, _lists(a, count=15), _lists(a), 1, 0, 0)
    with pytest.raises(TikSyntaxError, match="src_list should be tuple or list"):
        ti.vec_trans_scatter(False, False, _lists(a), a, 1, 0, 0)
    with pytest.raises(TikSyntaxError, match="dst_high_half should be bool, input type: <class 'int'>"):
        ti.vec_trans_scatter(0, False, _lists(a), _lists(a), 1, 0, 0)
    with pytest.raises(TikRepeatError, match=r"repeat_times should be in the range of \[1, 255\], input "
                                             r"repeat_times: 0"):
        ti.vec_trans_scatter(False, False, _lists(a), _lists(a), 0, 0, 0)
    with pytest.raises(TikOperandRangeError, match=r"dst_rep_stride should be in the range of \[0, 65535\], input "
                                                   r"dst_rep_stride: 65536"):
        ti.vec_trans_scatter(False, False, _lists(a), _lists(a), 1, 65536, 0)
    with pytest.raises(TikAlignmentError, match=r"Address align error, dst_list\[0\] is not 32 Byte align"):
        ti.vec_trans_scatter(False, False, _lists(a, start=8), _lists(a), 1, 0, 0)
    with pytest.raises(TikTensorOverflowError, match="src tensor overflow, instruction need 1040 but only 1024"):
        ti.vec_trans_scatter(False, False, _lists(a), _lists(a, step=64), 5, 0, 1)   # src_list[15] + 4 blocks
    b = ti.Tensor("int16", (256,), name="b", scope=tik.scope_ubuf)
    with pytest.raises(TikDtypeError, match="Intrinsic vec_trans_scatter's src's dtype should be equal to dst's "
                                            "dtype"):
        ti.vec_trans_scatter(False, False, _lists(a), _lists(b), 1, 0, 0)
    g = ti.Tensor("float16", (256,), name="g", scope=tik.scope_gm)
    with pytest.raises(Exception, match="scope must be UB"):
        ti.vec_trans_scatter(False, False, _lists(a), _lists(g), 1, 0, 0)


def test_vtranspose_checks(ub):
    ti, a = ub
    small = ti.Tensor("float16", (128,), name="small", scope=tik.scope_ubuf)
    with pytest.raises(TikSyntaxError, match="elements of src should be more than 256"):
        ti.vtranspose(a, small)
    f32 = ti.Tensor("float32", (256,), name="f32", scope=tik.scope_ubuf)
    with pytest.raises(TikDtypeError, match="dtype of dst and src should be u16u16, s16s16 or f16f16"):
        ti.vtranspose(f32, f32)
    with pytest.raises(TikOverlapError, match="vtranspose not support partially address overlapping"):
        ti.vtranspose(a[16], a)
    with pytest.raises(TikTensorOverflowError, match="dst tensor overflow, instruction need 1040 but only 1024"):
        ti.vtranspose(a[784], a)
    with pytest.raises(TikAlignmentError, match="Address align error, src is not 32 Byte align"):
        ti.vtranspose(a[512], a[1])


def test_scalar_dependent_vnchwconv_address_fails_in_tikdb():
    ti = tik.Tik()
    x = ti.Tensor("float16", (256,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (256,), name="y", scope=tik.scope_gm)
    off = ti.InputScalar("int32", name="off")
    u = ti.Tensor("float16", (512,), name="u", scope=tik.scope_ubuf)
    ti.data_move(u, x, 0, 1, 16, 0, 0)
    ti.vnchwconv(False, False, _lists(u, start=256), [u[off + 16 * i] for i in range(16)], 1, 0, 0)
    ti.data_move(y, u[256], 0, 1, 16, 0, 0)
    ti.BuildCCE("tik_trans_scalar", [x, off], [y])
    x_np = np.arange(256, dtype=np.float16)
    out, = ti.tikdb.start_debug({"x": x_np, "off": 0}, interactive=False)
    np.testing.assert_array_equal(out, x_np.reshape(16, 16).T.reshape(-1))
    with pytest.raises(TikAccessViolationError, match="AccessViolation"):
        ti.tikdb.start_debug({"x": x_np, "off": 512}, interactive=False)


def test_inserted_sync_sees_the_address_lists(soc):
    """vnchwconv reads its 16 sources and writes its 16 destinations as far as TIK's pipe synchronisation is
    concerned: MTE2 -> V before it, V -> MTE3 after it."""
    from npusim.sim.kernel import Instr, Loop
    body = next(s for s in int8_transpose_kernel(2).built.kernel.body if isinstance(s, Loop)).body
    text = [(s.opcode, tuple(v for k, v in s.args if k in ("src_pipe", "dst_pipe"))) for s in body
            if isinstance(s, Instr)]
    first = text.index(("vnchwconv", ()))
    last = len(text) - 1 - text[::-1].index(("vnchwconv", ()))
    assert ("wait_flag", ("MTE2", "V")) in text[:first]
    assert ("set_flag", ("V", "MTE3")) in text[last:] and ("wait_flag", ("V", "MTE3")) in text[last:]
