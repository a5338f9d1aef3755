"""Errors of Custom aot ops on Ascend naming aclnn operators: each names the Custom op, the aclnn API and, for a bad
argument, its position and parameter name."""
import numpy as np
import pytest

import mindspore.ops as ops
from mindspore import Tensor, context
from mindspore.common import dtype as mstype
from mindspore.ops import CustomRegOp
from npusim.errors import (AclnnCustomNotFoundError, AclnnCustomOpError, AclnnError, AclnnNotFoundError,
                           AotKernelCrash, KernelBuildError, OpValueError)

from aclnn_custom_support import infer_file  # noqa: F401  (fixture)


@pytest.fixture(autouse=True)
def ascend():
    context.set_context(device_target="Ascend")


def same(a, *_):
    return a


def test_an_unknown_aclnn_name_is_a_typed_error_with_close_names():
    with pytest.raises(AclnnCustomNotFoundError, match=r"Custom op 'aclnnMull'.*no aclnn operator named "
                                                       r"'aclnnMull'.*close names: aclnnMul") as info:
        ops.Custom("aclnnMull", same, same, func_type="aot")
    assert isinstance(info.value, AclnnNotFoundError) and isinstance(info.value, RuntimeError)
    assert info.value.api == "aclnnMull" and info.value.op_name == "aclnnMull"


@pytest.mark.parametrize("func", ["MmadCustom", "./infer_file/custom_cpp_infer.cc:aclnnMmadCustom"])
def test_a_user_ascend_c_operator_is_named_in_the_error(func):
    with pytest.raises(AclnnCustomNotFoundError, match="does not run Ascend C operator packages") as info:
        ops.Custom(func, same, same, func_type="aot")
    assert "aclnnMmadCustom" in str(info.value)


@pytest.mark.parametrize("func, error", [(42, TypeError), ("a.cc:b:c", TypeError)])
def test_bad_func_values_raise_mindspores_type_errors(func, error):
    with pytest.raises(error, match="func"):
        ops.Custom(func, same, same, func_type="aot")


def test_a_rejected_argument_names_the_op_the_api_and_the_parameter():
    mul = ops.Custom("aclnnMul", same, same, func_type="aot")
    with pytest.raises(AclnnCustomOpError, match=r"Custom op 'aclnnMul' .* calls aclnnMul: argument 1 'other'") \
            as info:
        mul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4,), np.float32)))
    assert isinstance(info.value, AclnnError) and (info.value.position, info.value.param) == (1, "other")


def test_too_many_call_values_for_the_api():
    abs_op = ops.Custom("aclnnAbs", same, same, func_type="aot")
    with pytest.raises(AclnnCustomOpError, match=r"aclnnAbs: takes 1 input and attribute argument\(s\) \(self\)"):
        abs_op(Tensor(np.ones(3, np.float32)), 2)


def test_a_missing_required_parameter_is_named():
    argmin = ops.Custom("aclnnArgMin", same, mstype.int64, func_type="aot")
    with pytest.raises(AclnnCustomOpError, match=r"argument 2 'keepdim': is required"):
        argmin(Tensor(np.ones((2, 2), np.float32)), 0)


def test_output_count_must_match_the_operator():
    mul = ops.Custom("aclnnMul", lambda a, b: (a, a), lambda a, b: (a, a), func_type="aot")
    with pytest.raises(AclnnCustomOpError, match=r"writes 1 output\(s\) \(out\), but .* give 2"):
        mul(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32)))


def test_in_place_operators_are_refused_at_construction():
    with pytest.raises(AclnnCustomOpError, match="writes its input 'selfRef' in place"):
        ops.Custom("aclnnInplaceMul", same, same, func_type="aot")


def test_no_out_shape_without_an_infer_file():
    mul = ops.Custom("aclnnMul", None, same, func_type="aot")
    with pytest.raises(OpValueError, match=r"out_shape is None.*'path/infer.cc:aclnnMul'"):
        mul(Tensor(np.ones(2, np.float32)), Tensor(np.ones(2, np.float32)))


def test_missing_infer_type_is_named_with_its_declaration(infer_file):
    exp = ops.Custom(f"{infer_file}:aclnnExp", None, None, func_type="aot")
    with pytest.raises(OpValueError, match=r"'out_dtype' is None.*aclnnExpInferType.*std::vector<TypeId> type_ids"):
        exp(Tensor(np.ones(2, np.float32)))
    exp = ops.Custom(f"{infer_file}:aclnnExp", None, same, func_type="aot")  # the shape alone is fine
    np.testing.assert_allclose(exp(Tensor(np.zeros(2, np.float32))).asnumpy(), [1, 1])


def test_a_crashing_infer_function_is_caught(infer_file):
    neg = ops.Custom(f"{infer_file}:aclnnNeg", None, same, func_type="aot")
    with pytest.raises(AotKernelCrash, match="aclnnNegInferShape"):
        neg(Tensor(np.ones(2, np.float32)))


def test_an_infer_file_that_does_not_compile(tmp_path):
    source = tmp_path / "broken_infer.cc"
    source.write_text("this is not C++\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
        op = ops.Custom(f"{source}:aclnnAbs", None, None, func_type="aot")
        with pytest.raises(KernelBuildError, match="broken_infer.cc"):
            op(Tensor(np.ones(2, np.float32)))


def test_reg_info_input_count_checks_still_apply():
    reg = CustomRegOp("aclnnMul").input(0, "x").input(1, "y").output(0, "z").target("Ascend").get_op_info()
    mul = ops.Custom("aclnnMul", same, same, func_type="aot", reg_info=reg)
    with pytest.raises(ValueError, match="takes 2 tensor inputs"):
        mul(Tensor(np.ones(2, np.float32)))
