"""The npusim.aclnn contract: names, argument objects, argument checks, errors, in-place outputs, the runtime used,
the kernel cache and the profile."""
import numpy as np
import pytest

import npusim.aclnn as aclnn
import npusim.errors
from npusim.aclnn import (AclBoolArray, AclDataType, AclFloatArray, AclIntArray, AclnnError, AclnnNotFoundError,
                          AclScalar, AclTensor, AclTensorList, call, provided)
from npusim.sim import profile
from npusim.sim.runtime import new_runtime

REQUIRED = ("aclnnMul", "aclnnAdd", "aclnnSub", "aclnnMuls", "aclnnAdds", "aclnnDiv", "aclnnNeg", "aclnnAbs",
            "aclnnExp", "aclnnLog", "aclnnSqrt", "aclnnRsqrt", "aclnnRelu", "aclnnMaximum", "aclnnMinimum",
            "aclnnCast", "aclnnReduceSum", "aclnnExpand", "aclnnIndex", "aclnnArgMin", "aclnnArgMax",
            "aclnnBatchNorm", "aclnnAvgPool2d", "aclnnCat", "aclnnSplitTensor", "aclnnSplitWithSize",
            "aclnnInplaceMul", "aclnnInplaceAdd")


def test_provided_lists_every_required_operator_sorted():
    names = provided()
    assert list(names) == sorted(names) and len(set(names)) == len(names)
    assert set(REQUIRED) <= set(names)
    assert all(name.startswith("aclnn") for name in names)


def test_the_contract_names_are_importable_from_npusim_aclnn():
    for name in ("call", "provided", "AclTensor", "AclScalar", "AclIntArray", "AclFloatArray", "AclBoolArray",
                 "AclTensorList", "AclDataType", "AclnnError", "AclnnNotFoundError"):
        assert hasattr(aclnn, name), name
    assert npusim.errors.AclnnError is AclnnError and npusim.errors.AclnnNotFoundError is AclnnNotFoundError


def test_acl_data_type_codes_are_cann_s():
    expected = {"ACL_FLOAT": 0, "ACL_FLOAT16": 1, "ACL_INT8": 2, "ACL_INT32": 3, "ACL_UINT8": 4, "ACL_INT16": 6,
                "ACL_UINT16": 7, "ACL_UINT32": 8, "ACL_INT64": 9, "ACL_UINT64": 10, "ACL_DOUBLE": 11,
                "ACL_BOOL": 12, "ACL_STRING": 13, "ACL_COMPLEX64": 16, "ACL_COMPLEX128": 17, "ACL_BF16": 27}
    assert {name: int(getattr(AclDataType, name)) for name in expected} == expected
    assert AclDataType.ACL_FLOAT16.dtype_name == "float16" and AclDataType.of("int64") is AclDataType.ACL_INT64
    assert AclDataType.of(np.float32) is AclDataType.ACL_FLOAT


@pytest.mark.parametrize("type_id, code", [(30, AclDataType.ACL_BOOL), (34, AclDataType.ACL_INT32),
                                           (35, AclDataType.ACL_INT64), (42, AclDataType.ACL_FLOAT16),
                                           (43, AclDataType.ACL_FLOAT), (44, AclDataType.ACL_DOUBLE),
                                           (45, AclDataType.ACL_BF16)])
def test_mindspore_type_ids_map_to_acl_data_types(type_id, code):
    assert AclDataType.from_type_id(type_id) is code


def test_the_prefix_is_optional_and_both_spellings_run_the_same_operator(acl):
    x = np.arange(6, dtype=np.float32)
    first, second = np.zeros_like(x), np.zeros_like(x)
    acl("aclnnMul", AclTensor(x), AclTensor(x), AclTensor(first))
    acl("Mul", AclTensor(x), AclTensor(x), AclTensor(second))
    np.testing.assert_array_equal(first, x * x)
    np.testing.assert_array_equal(second, x * x)


def test_an_unknown_api_is_a_typed_error_naming_it_with_close_names(rt):
    with pytest.raises(AclnnNotFoundError) as info:
        call("aclnnMull", [], rt)
    text = str(info.value)
    assert "aclnnMull" in text and "aclnnMul" in text.split("close names:")[1]
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, npusim.errors.NpusimError)
    with pytest.raises(AclnnNotFoundError, match="aclnnFlashAttentionScore"):
        call("FlashAttentionScore", [], rt)


def test_a_wrong_argument_count_names_the_parameters(acl):
    x = AclTensor(np.ones(3, np.float32))
    with pytest.raises(AclnnError, match=r"aclnnMul: takes 3 argument\(s\) \(self, other, out"):
        acl("aclnnMul", x, x)


@pytest.mark.parametrize("api, args, position, name, cause", [
    ("aclnnMul", lambda t: [t, np.ones(3, np.float32), t], 1, "other", "expects an aclTensor"),
    ("aclnnMul", lambda t: [None, t, t], 0, "self", "is null"),
    ("aclnnAdd", lambda t: [t, t, 1.0, t], 2, "alpha", "expects an aclScalar"),
    ("aclnnReduceSum", lambda t: [t, [0], False, AclDataType.ACL_FLOAT, t], 1, "dim", "expects an aclIntArray"),
    ("aclnnReduceSum", lambda t: [t, AclIntArray([0]), "yes", AclDataType.ACL_FLOAT, t], 2, "keepDim",
     "expects a bool"),
    ("aclnnReduceSum", lambda t: [t, AclIntArray([0]), False, "float32", t], 3, "dtype", "expects an aclDataType"),
    ("aclnnReduceSum", lambda t: [t, AclIntArray([0]), False, 43, t], 3, "dtype", "MindSpore TypeId"),
    ("aclnnArgMin", lambda t: [t, 0.5, False, t], 1, "dim", "expects an int64"),
    ("aclnnBatchNorm", lambda t: [t, None, None, None, None, True, "0.1", 1e-5, t, t, t], 6, "momentum",
     "expects a double"),
    ("aclnnCat", lambda t: [[t, t], 0, t], 0, "tensors", "expects an aclTensorList"),
    ("aclnnCat", lambda t: [AclTensorList([t, None]), 0, t], 0, "tensors", "entry 1 of the tensor list is null"),
])
def test_argument_kinds_are_checked_naming_api_position_and_parameter(acl, api, args, position, name, cause):
    tensor = AclTensor(np.ones(3, np.float32))
    with pytest.raises(AclnnError) as info:
        acl(api, *args(tensor))
    assert str(info.value).startswith(f"{api}: argument {position} '{name}':"), str(info.value)
    assert cause in str(info.value)
    assert (info.value.api, info.value.position, info.value.param) == (api, position, name)


def test_a_dtype_aclnn_does_not_accept_names_the_supported_ones(acl):
    x = AclTensor(np.ones(3, np.uint16))
    with pytest.raises(AclnnError, match=r"aclnnMul: argument 0 'self': dtype uint16 is not supported \(supported: "
                                         r"float32, float16"):
        acl("aclnnMul", x, x, x)


def test_a_dtype_npusim_cannot_store_is_unsupported_not_wrong(acl):
    bf16 = AclTensor(np.zeros(3, np.uint16), dtype="bfloat16")
    assert bf16.dtype == "bfloat16"
    with pytest.raises(aclnn.AclnnUnsupportedError, match="bfloat16") as info:
        acl("aclnnMul", bf16, bf16, bf16)
    assert isinstance(info.value, NotImplementedError)


def test_argument_objects_hold_their_values():
    assert tuple(AclIntArray([1, 2.0, np.int64(3)])) == (1, 2, 3)
    assert AclFloatArray([1, 2.5]).values == (1.0, 2.5)
    assert AclBoolArray([1, 0]).values == (True, False)
    scalar = AclScalar(np.float32(2.5), AclDataType.ACL_FLOAT16)
    assert (scalar.value, scalar.dtype) == (2.5, "float16")
    with pytest.raises(AclnnError, match="aclCreateIntArray"):
        AclIntArray([1.5])
    with pytest.raises(AclnnError, match="aclCreateTensor"):
        AclTensor([1, 2, 3])
    with pytest.raises(AclnnError, match="does not fit"):
        AclTensor(np.zeros(3, np.int8), dtype="float32")
    view = AclTensor(np.zeros(3, np.uint16), dtype="float16")
    view.data()[...] = 1.5
    assert view.array[0] == np.float16(1.5).view(np.uint16)


def test_an_output_aliasing_an_input_is_written_in_place(acl):
    x = np.arange(1, 7, dtype=np.float32).reshape(2, 3)
    expected = x * x
    acl("aclnnMul", AclTensor(x), AclTensor(x), AclTensor(x))
    np.testing.assert_array_equal(x, expected)
    y = np.arange(4, dtype=np.int32)
    acl("aclnnInplaceAdd", AclTensor(y), AclTensor(np.array([10], np.int32)), AclScalar(2, "int32"))
    np.testing.assert_array_equal(y, [20, 21, 22, 23])


def test_outputs_land_in_strided_views_of_the_caller_s_array(acl):
    base = np.full((4, 6), -1.0, np.float32)
    out = base[:, ::2]                               # a strided view: every other column
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    acl("aclnnAdds", AclTensor(x), AclScalar(1, "float32"), AclScalar(1, "float32"), AclTensor(out))
    np.testing.assert_array_equal(base[:, ::2], x + 1)
    assert np.all(base[:, 1::2] == -1.0)


def test_launches_show_in_the_profile_of_the_runtime_passed_with_cycles():
    runtime = new_runtime("Ascend910")
    x = np.ones((4, 8), np.float16)
    out = np.zeros_like(x)
    with profile(runtime) as session:
        call("aclnnMul", [AclTensor(x), AclTensor(x), AclTensor(out)], runtime)
        call("aclnnArgMin", [AclTensor(x), 1, False, AclTensor(np.zeros(4, np.int64))], runtime)
    rows = session.rows()
    assert [row["name"].split("_")[0] for row in rows] == ["aclnnMul", "aclnnArgMin"]
    assert all(row["cycles"] > 0 and row["chip"] == "Ascend910" for row in rows)
    assert "aclnnMul_" in session.table()


def test_the_runtime_passed_is_used_even_inside_another_active_one():
    mine = new_runtime("Ascend910")
    other = new_runtime("Ascend310")
    x = np.ones(8, np.float32)
    with other.activate(), profile(mine) as session:
        call("aclnnAbs", [AclTensor(x), AclTensor(np.zeros_like(x))], mine)
    assert [row["chip"] for row in session.rows()] == ["Ascend910"]


def test_kernels_are_built_once_per_shape_and_dtype_in_the_runtime_cache():
    runtime = new_runtime("Ascend910")
    x = np.ones(5, np.float32)

    def stats():
        found = [s for s in runtime.cache_stats() if s.name == "aclnn.kernels"]
        return found[0] if found else None

    for _ in range(3):
        call("aclnnMul", [AclTensor(x), AclTensor(x), AclTensor(np.zeros(5, np.float32))], runtime)
    first = stats()
    assert (first.size, first.misses, first.hits) == (1, 1, 2)
    call("aclnnMul", [AclTensor(x[:4]), AclTensor(x[:4]), AclTensor(np.zeros(4, np.float32))], runtime)
    assert stats().size == 2


def test_a_call_without_a_runtime_is_an_error_naming_the_api():
    x = AclTensor(np.ones(3, np.float32))
    with pytest.raises(AclnnError, match="aclnnMul: needs an npusim Runtime"):
        call("aclnnMul", [x, x, x], None)


def test_errors_survive_pickling_with_their_fields(acl):
    import pickle
    x = AclTensor(np.ones((2, 3), np.float32))
    with pytest.raises(AclnnError) as info:
        acl("aclnnMul", x, AclTensor(np.ones(4, np.float32)), x)
    copy = pickle.loads(pickle.dumps(info.value))
    assert type(copy) is AclnnError and str(copy) == str(info.value)
    assert (copy.api, copy.position, copy.param) == ("aclnnMul", 1, "other")
