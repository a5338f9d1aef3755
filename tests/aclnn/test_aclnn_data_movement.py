"""Expand, Cat, SplitTensor, SplitWithSize, Index, ArgMin / ArgMax against numpy."""
import numpy as np
import pytest

from aclnn_data import data
from npusim.aclnn import AclIntArray, AclnnError, AclTensor, AclTensorList


def tensors(arrays):
    return AclTensorList([None if a is None else AclTensor(a) for a in arrays])


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32", "int64", "bool"])
@pytest.mark.parametrize("shape, size", [((1, 4), [3, 4]), ((3, 1), [2, -1, 5]), ((4,), [4]), ((), [2, 2])])
def test_expand_broadcasts_to_size(acl, rng, dtype, shape, size):
    x = data(rng, shape, dtype)
    target = tuple(shape[i - (len(size) - len(shape))] if s == -1 else s for i, s in enumerate(size))
    out = np.zeros(target, dtype)
    acl("aclnnExpand", AclTensor(x), AclIntArray(size), AclTensor(out))
    np.testing.assert_array_equal(out, np.broadcast_to(x, target))


def test_expand_errors(acl):
    x = AclTensor(np.ones((3, 2), np.float32))
    with pytest.raises(AclnnError, match=r"aclnnExpand: argument 1 'size': \[3, 4\] cannot expand self's shape"):
        acl("aclnnExpand", x, AclIntArray([3, 4]), AclTensor(np.zeros((3, 4), np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnExpand: argument 1 'size': has 1 dimension\(s\), fewer than"):
        acl("aclnnExpand", x, AclIntArray([2]), AclTensor(np.zeros(2, np.float32)))


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_concatenates_a_tensor_list(acl, rng, dim):
    parts = [data(rng, (2, 3), "float32"), data(rng, (2, 3), "float32"), data(rng, (2, 3), "float32")]
    expected = np.concatenate(parts, axis=dim)
    out = np.zeros(expected.shape, np.float32)
    acl("aclnnCat", tensors(parts), dim, AclTensor(out))
    np.testing.assert_array_equal(out, expected)


def test_cat_promotes_dtypes_and_skips_legacy_empty_tensors(acl, rng):
    a, b = data(rng, (2, 2), "int32"), data(rng, (1, 2), "float16")
    out = np.zeros((3, 2), np.float16)
    acl("aclnnCat", tensors([a, np.zeros(0, np.float32), b]), 0, AclTensor(out))
    np.testing.assert_array_equal(out, np.concatenate([a.astype(np.float16), b]))


def test_cat_errors(acl):
    a, b = np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)
    with pytest.raises(AclnnError, match=r"aclnnCat: argument 0 'tensors': entry 1 has shape \[2, 4\], which does "
                                         r"not match \[2, 3\] outside dim 0"):
        acl("aclnnCat", tensors([a, b]), 0, AclTensor(np.zeros((4, 3), np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnCat: argument 1 'dim': dim 2 is out of range"):
        acl("aclnnCat", tensors([a, a]), 2, AclTensor(np.zeros((4, 3), np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnCat: argument 2 'out': shape \[4, 3\] must be \[2, 7\]"):
        acl("aclnnCat", tensors([a, b]), 1, AclTensor(np.zeros((4, 3), np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnCat: argument 0 'tensors': the tensor list is empty"):
        acl("aclnnCat", tensors([]), 0, AclTensor(np.zeros((4, 3), np.float32)))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_split_tensor_makes_chunks_of_split_sections(acl, rng, dtype):
    x = data(rng, (4, 7), dtype)
    expected = np.split(x, [3, 6], axis=1)                 # chunks of 3: 3, 3, 1
    outs = [np.zeros(e.shape, dtype) for e in expected]
    acl("aclnnSplitTensor", AclTensor(x), 3, -1, tensors(outs))
    for out, want in zip(outs, expected):
        np.testing.assert_array_equal(out, want)


def test_split_with_size(acl, rng):
    x = data(rng, (6, 2, 3), "float16")
    expected = np.split(x, [1, 1, 4], axis=0)             # sizes 1, 0, 3, 2
    outs = [np.zeros(e.shape, np.float16) for e in expected]
    acl("aclnnSplitWithSize", AclTensor(x), AclIntArray([1, 0, 3, 2]), 0, tensors(outs))
    for out, want in zip(outs, expected):
        np.testing.assert_array_equal(out, want)


def test_split_errors(acl):
    x = AclTensor(np.ones((4, 6), np.float32))
    with pytest.raises(AclnnError, match=r"aclnnSplitTensor: argument 3 'out': holds 1 tensor\(s\), but the split "
                                         r"makes 2"):
        acl("aclnnSplitTensor", x, 3, 1, tensors([np.zeros((4, 3), np.float32)]))
    with pytest.raises(AclnnError, match=r"aclnnSplitTensor: argument 3 'out': entry 1 has shape \[4, 2\], "
                                         r"expected \[4, 3\]"):
        acl("aclnnSplitTensor", x, 3, 1, tensors([np.zeros((4, 3), np.float32), np.zeros((4, 2), np.float32)]))
    with pytest.raises(AclnnError, match=r"aclnnSplitWithSize: argument 1 'splitSize': \[2, 2\] must be "
                                         r"non-negative sizes summing to the split dimension's 6"):
        acl("aclnnSplitWithSize", x, AclIntArray([2, 2]), 1, tensors([np.zeros((4, 2), np.float32)] * 2))
    with pytest.raises(AclnnError, match=r"aclnnSplitTensor: argument 1 'splitSections': must be positive"):
        acl("aclnnSplitTensor", x, 0, 1, tensors([np.zeros((4, 6), np.float32)]))


INDEX_CASES = [
    ([np.array([0, 4, -1])], lambda x: x[[0, 4, -1]]),
    ([None, np.array([[1, 2], [3, 5]], np.int32)], lambda x: x[:, [[1, 2], [3, 5]]]),
    ([np.array([0, 1]), None, np.array([2, 3])], lambda x: x[[0, 1], :, [2, 3]]),
    ([np.array([0, 1]), np.array([[2], [3]])], lambda x: x[[0, 1], [[2], [3]]]),
    ([np.array(2)], lambda x: x[np.array(2)]),
]


@pytest.mark.parametrize("case", range(len(INDEX_CASES)))
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_index_gathers_like_numpy_advanced_indexing(acl, rng, case, dtype):
    x = data(rng, (5, 6, 7), dtype)
    indices, reference = INDEX_CASES[case]
    expected = reference(x)
    out = np.zeros(expected.shape, dtype)
    acl("aclnnIndex", AclTensor(x), tensors(indices), AclTensor(out))
    np.testing.assert_array_equal(out, expected)


def test_index_with_a_bool_mask(acl, rng):
    x = data(rng, (6, 3), "float16")
    mask = x[:, 0] > 0
    out = np.zeros((int(mask.sum()), 3), np.float16)
    acl("aclnnIndex", AclTensor(x), tensors([mask]), AclTensor(out))
    np.testing.assert_array_equal(out, x[mask])


def test_index_errors(acl):
    x = AclTensor(np.ones((5, 6), np.float32))
    with pytest.raises(AclnnError, match=r"aclnnIndex: argument 1 'indices': index 7 is out of bounds for dimension "
                                         r"0 with size 5"):
        acl("aclnnIndex", x, tensors([np.array([7])]), AclTensor(np.zeros((1, 6), np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnIndex: argument 1 'indices': entry 0 has dtype float32"):
        acl("aclnnIndex", x, tensors([np.array([1.0], np.float32)]), AclTensor(np.zeros((1, 6), np.float32)))
    with pytest.raises(AclnnError, match=r"do not broadcast together"):
        acl("aclnnIndex", x, tensors([np.array([1, 2]), np.array([1, 2, 3])]), AclTensor(np.zeros(2, np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnIndex: argument 2 'out': shape \[2\] must be \[2, 6\]"):
        acl("aclnnIndex", x, tensors([np.array([1, 2])]), AclTensor(np.zeros(2, np.float32)))


@pytest.mark.parametrize("api, ref", [("aclnnArgMin", np.argmin), ("aclnnArgMax", np.argmax)])
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
@pytest.mark.parametrize("dim, keepdim", [(1, False), (-1, True), (0, False)])
def test_arg_reductions_find_the_first_extreme(acl, rng, api, ref, dtype, dim, keepdim):
    x = data(rng, (3, 5, 4), dtype, -3, 3)             # small ints: ties, where the first index must win
    expected = ref(x, axis=dim)
    if keepdim:
        expected = np.expand_dims(expected, dim)
    out = np.zeros(expected.shape, np.int64)
    acl(api, AclTensor(x), dim, keepdim, AclTensor(out))
    np.testing.assert_array_equal(out, expected)


def test_argmin_of_a_vector_to_a_zero_dim_int32(acl):
    x = np.array([3.0, -1.0, 2.0, -1.0], np.float32)
    out = np.zeros((), np.int32)
    acl("aclnnArgMin", AclTensor(x), 0, False, AclTensor(out))
    assert out == 1


def test_arg_reduction_errors(acl):
    x = AclTensor(np.ones((3, 4), np.float32))
    with pytest.raises(AclnnError, match=r"aclnnArgMin: argument 1 'dim': dim 2 is out of range \[-2, 1\]"):
        acl("aclnnArgMin", x, 2, False, AclTensor(np.zeros(3, np.int64)))
    with pytest.raises(AclnnError, match=r"aclnnArgMax: argument 3 'out': dtype float32 must be int64"):
        acl("aclnnArgMax", x, 1, False, AclTensor(np.zeros(3, np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnArgMax: argument 3 'out': shape \[3\] must be \[3, 1\]"):
        acl("aclnnArgMax", x, 1, True, AclTensor(np.zeros(3, np.int64)))
