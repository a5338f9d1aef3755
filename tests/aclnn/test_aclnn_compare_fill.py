"""Comparisons, logic, Sigmoid, InplaceCopy and the fills against numpy."""
import numpy as np
import pytest

from aclnn_data import assert_close, data
from npusim.aclnn import AclnnError, AclScalar, AclTensor

RELATIONS = {"Eq": np.equal, "Ne": np.not_equal, "Gt": np.greater, "Ge": np.greater_equal, "Lt": np.less,
             "Le": np.less_equal}


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64"])
@pytest.mark.parametrize("name", sorted(RELATIONS))
def test_comparisons_of_tensors_and_scalars(acl, rng, name, dtype):
    x, y = data(rng, (4, 5), dtype, -3, 3), data(rng, (5,), dtype, -3, 3)   # small ints: many equal pairs
    out, scaled = np.zeros((4, 5), bool), np.zeros((4, 5), np.float32)
    acl(f"aclnn{name}Tensor", AclTensor(x), AclTensor(y), AclTensor(out))
    acl(f"aclnn{name}Scalar", AclTensor(x), AclScalar(1, "int32"), AclTensor(scaled))
    np.testing.assert_array_equal(out, RELATIONS[name](x, y))
    np.testing.assert_array_equal(scaled, RELATIONS[name](x, 1).astype(np.float32))


def test_integer_equality_is_exact_beyond_float32(acl):
    x = np.array([2 ** 30 + 1, 7], np.int32)
    y = np.array([2 ** 30, 7], np.int32)
    out = np.zeros(2, bool)
    acl("aclnnEqTensor", AclTensor(x), AclTensor(y), AclTensor(out))
    np.testing.assert_array_equal(out, [False, True])


@pytest.mark.parametrize("name, func", [("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)])
def test_logic_treats_nonzero_as_true(acl, rng, name, func):
    x, y = data(rng, (3, 4), "int32", -1, 2), data(rng, (3, 1), "float32", -1, 1).round()
    out = np.zeros((3, 4), bool)
    acl(f"aclnnLogical{name}", AclTensor(x), AclTensor(y), AclTensor(out))
    np.testing.assert_array_equal(out, func(x, y))
    negated = np.zeros((3, 4), np.int32)
    acl("aclnnLogicalNot", AclTensor(x), AclTensor(negated))
    np.testing.assert_array_equal(negated, np.logical_not(x).astype(np.int32))


def test_comparison_errors(acl):
    x = AclTensor(np.ones((2, 3), np.float32))
    with pytest.raises(AclnnError, match=r"aclnnGtTensor: argument 2 'out': shape \[3\] must be \[2, 3\]"):
        acl("aclnnGtTensor", x, x, AclTensor(np.zeros(3, bool)))
    with pytest.raises(AclnnError, match=r"aclnnLogicalAnd: argument 1 'other': shape \[4\] does not broadcast"):
        acl("aclnnLogicalAnd", x, AclTensor(np.ones(4, bool)), x)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_sigmoid(acl, rng, dtype):
    x = data(rng, (5, 9), dtype, -6, 6)
    out = np.zeros_like(x)
    acl("aclnnSigmoid", AclTensor(x), AclTensor(out))
    assert_close(out, 1 / (1 + np.exp(-x.astype(np.float64))), dtype)
    acl("aclnnInplaceSigmoid", AclTensor(x))
    assert_close(x, out.astype(np.float64), dtype)


@pytest.mark.parametrize("src_dtype, dst_dtype", [("float32", "float32"), ("int32", "float16"), ("float32", "int32"),
                                                  ("int64", "int64"), ("bool", "float32")])
def test_inplace_copy_broadcasts_and_converts(acl, rng, src_dtype, dst_dtype):
    src = data(rng, (1, 6), src_dtype, -50, 50)
    dst = np.zeros((4, 6), dst_dtype)
    acl("aclnnInplaceCopy", AclTensor(dst), AclTensor(src))
    np.testing.assert_array_equal(dst, np.broadcast_to(src, (4, 6)).astype(dst_dtype))


def test_inplace_copy_rejects_a_source_that_does_not_broadcast(acl):
    with pytest.raises(AclnnError, match=r"aclnnInplaceCopy: argument 1 'src': shape \[4\] does not broadcast to "
                                         r"selfRef's shape \[2, 3\]"):
        acl("aclnnInplaceCopy", AclTensor(np.zeros((2, 3), np.float32)), AclTensor(np.zeros(4, np.float32)))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int64", "bool", "int8"])
def test_fills(acl, dtype):
    x = np.full((3, 5), 7, dtype)
    acl("aclnnInplaceZero", AclTensor(x))
    assert not x.any()
    acl("aclnnInplaceFillScalar", AclTensor(x), AclScalar(2.5 if dtype.startswith("float") else 3, "float32"))
    expected = np.array(2.5 if dtype.startswith("float") else 3).astype(dtype)
    assert np.all(x == expected)
