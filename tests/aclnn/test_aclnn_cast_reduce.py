"""aclnnCast and the reductions (ReduceSum, Mean, Amax, Amin) against numpy."""
import numpy as np
import pytest

from aclnn_data import assert_close, data
from npusim.aclnn import AclDataType, AclIntArray, AclnnError, AclTensor


@pytest.mark.parametrize("src, dst", [("float32", "float16"), ("float16", "float32"), ("float32", "int32"),
                                      ("int32", "float32"), ("int32", "float16"), ("float16", "int8"),
                                      ("int32", "int8"), ("float32", "bool"), ("bool", "float32"),
                                      ("int64", "int32"), ("float64", "float32"), ("float32", "float32"),
                                      ("uint8", "int32")])
def test_cast_converts_like_numpy_astype(acl, rng, src, dst):
    x = data(rng, (3, 11), src, -100, 100)
    out = np.zeros((3, 11), dst)
    acl("aclnnCast", AclTensor(x), AclDataType.of(dst), AclTensor(out))
    expected = x.astype(dst)                 # floats truncate toward zero, int32 -> int8 wraps
    if dst == "float16":
        assert_close(out, x.astype(np.float64).astype(np.float16), "float16")
    else:
        np.testing.assert_array_equal(out, expected)


def test_cast_takes_the_dtype_as_an_int_code(acl):
    x = np.array([1.9, -1.9, 0.0], np.float32)
    out = np.zeros(3, np.int32)
    acl("aclnnCast", AclTensor(x), int(AclDataType.ACL_INT32), AclTensor(out))
    np.testing.assert_array_equal(out, [1, -1, 0])


def test_cast_errors(acl):
    x = AclTensor(np.ones(3, np.float32))
    with pytest.raises(AclnnError, match=r"aclnnCast: argument 2 'out': dtype float32 must be the dtype argument's, "
                                         r"int32"):
        acl("aclnnCast", x, AclDataType.ACL_INT32, x)
    with pytest.raises(AclnnError, match=r"aclnnCast: argument 1 'dtype': 99 is not an aclDataType code"):
        acl("aclnnCast", x, 99, x)


@pytest.mark.parametrize("dtype, out_dtype", [("float32", "float32"), ("float16", "float16"),
                                              ("float16", "float32"), ("int32", "int32"), ("int32", "int64"),
                                              ("bool", "int64")])
@pytest.mark.parametrize("dims, keep", [([1], False), ([0, 2], True), ([], False), ([-1], True)])
def test_reduce_sum_over_dims_with_keepdims_and_dtype(acl, rng, dtype, out_dtype, dims, keep):
    x = data(rng, (4, 6, 5), dtype)
    axes = tuple(dims) if dims else None
    expected = x.astype(np.float64).sum(axis=axes, keepdims=keep)
    out = np.zeros(np.shape(expected), out_dtype)
    acl("aclnnReduceSum", AclTensor(x), AclIntArray(dims), keep, AclDataType.of(out_dtype), AclTensor(out))
    if out_dtype == "float16":
        np.testing.assert_allclose(out.astype(np.float64), expected, rtol=2e-3, atol=2e-2)
    else:
        assert_close(out, expected)


def test_reduce_sum_of_a_zero_dim_tensor_is_itself(acl):
    x = np.array(3.5, np.float32)
    out = np.zeros((), np.float32)
    acl("aclnnReduceSum", AclTensor(x), AclIntArray([]), False, AclDataType.ACL_FLOAT, AclTensor(out))
    assert out == 3.5


def test_mean_amax_amin(acl, rng):
    x = data(rng, (5, 8), "float32")
    mean, top, low = np.zeros(8, np.float32), np.zeros((5, 1), np.float32), np.zeros((), np.float32)
    acl("aclnnMean", AclTensor(x), AclIntArray([0]), False, AclDataType.ACL_FLOAT, AclTensor(mean))
    acl("aclnnAmax", AclTensor(x), AclIntArray([1]), True, AclTensor(top))
    acl("aclnnAmin", AclTensor(x), AclIntArray([]), False, AclTensor(low))
    assert_close(mean, x.astype(np.float64).mean(0))
    assert_close(top, x.max(1, keepdims=True))
    assert low == x.min()
    ints = data(rng, (3, 4), "int32")
    imean = np.zeros(4, np.float32)
    acl("aclnnMean", AclTensor(ints), AclIntArray([0]), False, AclDataType.ACL_FLOAT, AclTensor(imean))
    assert_close(imean, ints.mean(0))


def test_reduction_errors_name_the_argument(acl):
    x = AclTensor(np.ones((2, 3), np.float32))
    out = AclTensor(np.zeros(2, np.float32))
    with pytest.raises(AclnnError, match=r"aclnnReduceSum: argument 1 'dim': dim 2 is out of range \[-2, 1\]"):
        acl("aclnnReduceSum", x, AclIntArray([2]), False, AclDataType.ACL_FLOAT, out)
    with pytest.raises(AclnnError, match=r"aclnnReduceSum: argument 1 'dim': \[1, -1\] names a dimension twice"):
        acl("aclnnReduceSum", x, AclIntArray([1, -1]), False, AclDataType.ACL_FLOAT, out)
    with pytest.raises(AclnnError, match=r"aclnnReduceSum: argument 4 'out': shape \[2\] must be \[2, 1\]"):
        acl("aclnnReduceSum", x, AclIntArray([1]), True, AclDataType.ACL_FLOAT, out)
    with pytest.raises(AclnnError, match=r"aclnnReduceSum: argument 4 'out': dtype float32 must be the dtype "
                                         r"argument's, float16"):
        acl("aclnnReduceSum", x, AclIntArray([1]), False, AclDataType.ACL_FLOAT16, out)
    with pytest.raises(AclnnError, match=r"aclnnMean: argument 3 'dtype': int32 is not a floating-point dtype"):
        acl("aclnnMean", x, AclIntArray([1]), False, AclDataType.ACL_INT32, AclTensor(np.zeros(2, np.int32)))
