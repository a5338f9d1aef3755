"""TIK's build-time checks (immediates) and run-time checks (Scalar-dependent, in tikdb): type and text."""
import re

import numpy as np
import pytest
from tbe import tik

from npusim.errors import (TikAccessViolationError, TikAlignmentError, TikDtypeError, TikMaskError, TikMemoryError,
                           TikOperandRangeError, TikOverlapError, TikRepeatError, TikScopeError, TikSyntaxError,
                           TikTensorOverflowError, TikUninitializedScalarError)


@pytest.fixture
def ub():
    ti = tik.Tik()
    a = ti.Tensor("float16", (256,), name="a", scope=tik.scope_ubuf)
    b = ti.Tensor("float16", (256,), name="b", scope=tik.scope_ubuf)
    return ti, a, b


@pytest.mark.parametrize("repeat", [0, 256])
def test_repeat_times_out_of_range(ub, repeat):
    ti, a, b = ub
    with pytest.raises(TikRepeatError, match=re.escape(f"repeat_times should be in the range of [1, 255], input "
                                                        f"repeat_times: {repeat}")) as info:
        ti.vec_add(128, a, a, b, repeat, 8, 8, 8)
    assert isinstance(info.value, RuntimeError)
    # TIK shows the kernel's source line with the error
    assert info.value.source_line.endswith("ti.vec_add(128, a, a, b, repeat, 8, 8, 8)")
    assert "test_tik_errors.py" in str(info.value)


def test_tensor_overflow_names_need_and_have(ub):
    ti, a, b = ub
    with pytest.raises(TikTensorOverflowError, match=re.escape("dst tensor overflow, instruction need 384 but only "
                                                               "256")):
        ti.vec_add(128, a, b, b, 3, 8, 0, 0)
    with pytest.raises(TikTensorOverflowError, match=re.escape("src tensor overflow, instruction need 272 but only "
                                                               "256")):
        ti.vec_exp(128, a, b[144], 1, 8, 8)


def test_address_align_error(ub):
    ti, a, b = ub
    with pytest.raises(TikAlignmentError, match=re.escape("Address align error, src0 is not 32 Byte align")):
        ti.vec_add(64, a, b[3], b, 1, 8, 8, 8)


def test_overlap_rules(ub):
    ti, a, b = ub
    ti.vec_add(128, a, a, b, 2, 8, 8, 8)     # in place with equal strides: allowed
    with pytest.raises(TikOverlapError, match=r"vadd address overlapping error\. when repeat_times=1, only support "
                                              r"dst and src0 100% same"):
        ti.vec_add(128, a[16], a, b, 1, 8, 8, 8)
    with pytest.raises(TikOverlapError, match=r"when repeat_times>1, dst of iteration N should not overlap src of "
                                              r"iteration N\+1"):
        ti.vec_exp(64, a[128], a, 2, 4, 8)


def test_mask_checks():
    ti = tik.Tik()
    f = ti.Tensor("float32", (128,), name="f", scope=tik.scope_ubuf)
    with pytest.raises(TikMaskError, match="mask should not be more than 64 when dtype bit length is 32"):
        ti.vec_abs(65, f, f, 1, 8, 8)
    with pytest.raises(TikMaskError, match="mask_h should be 0 when dtype bit length is 32"):
        ti.vec_abs([1, 1], f, f, 1, 8, 8)


def test_dtype_and_scope_mismatches():
    ti = tik.Tik()
    a = ti.Tensor("float16", (128,), name="a", scope=tik.scope_ubuf)
    f = ti.Tensor("float32", (128,), name="f", scope=tik.scope_ubuf)
    g = ti.Tensor("float16", (128,), name="g", scope=tik.scope_gm)
    with pytest.raises(TikDtypeError, match="vadd: dtype of dst and src0 should be the same, input dst dtype: "
                                            "float16, src0 dtype: float32"):
        ti.vec_add(64, a, f, a, 1, 8, 8, 8)
    with pytest.raises(TikScopeError, match="vadd: src1's scope must be UB, input scope is: global"):
        ti.vec_add(64, a, a, g, 1, 8, 8, 8)
    with pytest.raises(TikDtypeError, match="data_move: dtype of dst and src should be the same"):
        ti.data_move(f, g, 0, 1, 1, 0, 0)
    with pytest.raises(TikScopeError, match="scope should be one of"):
        ti.Tensor("float16", (16,), name="bad", scope="local.XX")


def test_chip_dtype_support():
    from tbe.common.platform import set_current_compile_soc_info
    set_current_compile_soc_info("Ascend310")
    ti = tik.Tik()
    f = ti.Tensor("float32", (64,), name="f", scope=tik.scope_ubuf)
    with pytest.raises(TikDtypeError, match="vexp doesn't support float32 on Ascend310"):
        ti.vec_exp(64, f, f, 1, 8, 8)


def test_data_move_field_ranges_and_gm_bound_rounded_up_to_32_bytes():
    ti = tik.Tik()
    g = ti.Tensor("float16", (40,), name="g", scope=tik.scope_gm)   # 80 B: readable up to 96 B
    u = ti.Tensor("float16", (64,), name="u", scope=tik.scope_ubuf)
    with pytest.raises(TikOperandRangeError, match=re.escape("nburst should be in the range of [1, 4095], input "
                                                             "nburst: 0")):
        ti.data_move(u, g, 0, 0, 1, 0, 0)
    with pytest.raises(TikOperandRangeError, match=re.escape("sid should be in the range of [0, 15], input sid: 16")):
        ti.data_move(u, g, 16, 1, 1, 0, 0)
    ti.data_move(u, g, 0, 1, 3, 0, 0)                                # 96 B: inside the rounded-up bound
    with pytest.raises(TikTensorOverflowError, match=re.escape("src tensor overflow, instruction need 64 but only 48")):
        ti.data_move(u, g, 0, 1, 4, 0, 0)


def test_control_flow_misuse():
    ti = tik.Tik()
    with pytest.raises(TikSyntaxError, match="else_scope should be used directly after if_scope"):
        with ti.else_scope():
            pass
    s = ti.Scalar("int32", name="s", init_value=1)
    with pytest.raises(RuntimeError, match="no Python truth value"):
        if s > 0:
            pass
    with pytest.raises(TikOperandRangeError, match=re.escape("thread_num should be in the range of [0, 4]")):
        with ti.for_range(0, 4, thread_num=5):
            pass
    with ti.for_range(0, 2):
        with pytest.raises(TikSyntaxError, match="block_num > 1 must be the outermost loop"):
            with ti.for_range(0, 2, block_num=2):
                pass


def test_ub_capacity_and_sibling_scopes_reuse_space(soc):
    ti = tik.Tik()
    size = ti.get_available_buffer_size(tik.scope_ubuf) // 2       # the whole UB: nothing is reserved
    with ti.for_range(0, 2):
        ti.Tensor("float16", (size,), name="big", scope=tik.scope_ubuf)
    with ti.new_stmt_scope():
        ti.Tensor("float16", (size,), name="big2", scope=tik.scope_ubuf)   # the loop's tensor is gone
        with pytest.raises(TikMemoryError, match="needs 2 bytes of UB"):
            ti.Tensor("float16", (1,), name="more", scope=tik.scope_ubuf)


def _scalar_offset_kernel(offset_name="off"):
    ti = tik.Tik()
    x = ti.Tensor("float16", (64,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (64,), name="y", scope=tik.scope_gm)
    u = ti.Tensor("float16", (64,), name="u", scope=tik.scope_ubuf)
    off = ti.InputScalar("int32", name=offset_name)
    ti.data_move(u, x[off], 0, 1, 4, 0, 0)
    ti.data_move(y, u, 0, 1, 4, 0, 0)
    ti.BuildCCE("tik_scalar_offset", [x, off], [y])
    return ti


def test_scalar_dependent_access_violation_fires_in_tikdb():
    ti = _scalar_offset_kernel()
    x = np.arange(64).astype(np.float16)
    y, = ti.tikdb.start_debug({"x": x, "off": 0}, interactive=False)
    np.testing.assert_array_equal(y, x)
    with pytest.raises(TikAccessViolationError, match=r"Memory out of range(.|\n)*AccessViolation"):
        ti.tikdb.start_debug({"x": x, "off": 32}, interactive=False)


def test_uninitialized_scalar_is_reported_when_read():
    ti = tik.Tik()
    x = ti.Tensor("int32", (8,), name="x", scope=tik.scope_gm)
    u = ti.Tensor("int32", (8,), name="u", scope=tik.scope_ubuf)
    s = ti.Scalar("int32", name="never_set")
    u[0].set_as(s)
    ti.data_move(x, u, 0, 1, 1, 0, 0)
    ti.BuildCCE("tik_uninit", [], [x])
    with pytest.raises(TikUninitializedScalarError, match="found uninitialized Scalar"):
        ti.tikdb.start_debug({}, interactive=False)
