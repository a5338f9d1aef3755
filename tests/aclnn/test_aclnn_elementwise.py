"""Element-wise aclnn operators against numpy: dtypes, broadcasting, promotion, alpha, Inplace forms, errors."""
import numpy as np
import pytest

from aclnn_data import assert_close, data
from npusim.aclnn import AclnnError, AclScalar, AclTensor

BINARY = {
    "aclnnMul": lambda a, b: a * b,
    "aclnnMaximum": np.maximum,
    "aclnnMinimum": np.minimum,
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "int8", "int64", "float64"])
@pytest.mark.parametrize("api", sorted(BINARY))
def test_binary_operators_match_numpy_per_dtype(acl, rng, api, dtype):
    x, y = data(rng, (3, 17), dtype), data(rng, (3, 17), dtype)
    out = np.zeros((3, 17), dtype)
    acl(api, AclTensor(x), AclTensor(y), AclTensor(out))
    assert_close(out, BINARY[api](x, y))           # int8 products wrap, as aclnn's do


@pytest.mark.parametrize("shapes", [((4, 1), (1, 5)), ((2, 3, 4), (4,)), ((1,), (6, 2)), ((), (2, 3)),
                                    ((5, 1, 3), (1, 4, 1))])
def test_mul_broadcasts_numpy_style(acl, rng, shapes):
    x, y = data(rng, shapes[0], "float32"), data(rng, shapes[1], "float32")
    expected = x * y
    out = np.zeros(expected.shape, np.float32)
    acl("aclnnMul", AclTensor(x), AclTensor(y), AclTensor(out))
    assert_close(out, expected)


@pytest.mark.parametrize("a, b, promoted", [("float16", "float32", "float32"), ("int32", "float16", "float16"),
                                            ("bool", "int32", "int32"), ("uint8", "int8", "int16"),
                                            ("int32", "int64", "int64")])
def test_mixed_dtypes_promote_as_aclnn_does(acl, rng, a, b, promoted):
    x, y = data(rng, (2, 9), a), data(rng, (2, 9), b)
    out = np.zeros((2, 9), promoted)
    acl("aclnnMul", AclTensor(x), AclTensor(y), AclTensor(out))
    assert_close(out, x.astype(promoted) * y.astype(promoted))


def test_a_result_may_be_written_to_a_wider_output_dtype(acl, rng):
    x = data(rng, (8,), "int32")
    out = np.zeros(8, np.float32)
    acl("aclnnMul", AclTensor(x), AclTensor(x), AclTensor(out))
    assert_close(out, (x * x).astype(np.float32))


@pytest.mark.parametrize("dtype, alpha", [("float32", 1.0), ("float16", 0.5), ("int32", 3), ("float32", -2.0)])
def test_add_and_sub_scale_other_by_alpha(acl, rng, dtype, alpha):
    x, y = data(rng, (4, 6), dtype), data(rng, (6,), dtype)
    scalar = AclScalar(alpha, "int32" if dtype == "int32" else "float32")
    added, subbed = np.zeros((4, 6), dtype), np.zeros((4, 6), dtype)
    acl("aclnnAdd", AclTensor(x), AclTensor(y), scalar, AclTensor(added))
    acl("aclnnSub", AclTensor(x), AclTensor(y), scalar, AclTensor(subbed))
    wide = x.astype(np.float64), y.astype(np.float64)
    assert_close(added, wide[0] + alpha * wide[1])
    assert_close(subbed, wide[0] - alpha * wide[1])


def test_add_of_bools_is_logical_or(acl):
    x, y = np.array([True, True, False, False]), np.array([True, False, True, False])
    out = np.zeros(4, bool)
    acl("aclnnAdd", AclTensor(x), AclTensor(y), AclScalar(1, "bool"), AclTensor(out))
    np.testing.assert_array_equal(out, [True, True, True, False])


def test_div_is_true_division_even_for_integers(acl, rng):
    x = np.array([7, -7, 9, 1], np.int32)
    y = np.array([2, 2, 4, 3], np.int32)
    out = np.zeros(4, np.float32)
    acl("aclnnDiv", AclTensor(x), AclTensor(y), AclTensor(out))
    assert_close(out, x / y)
    a, b = data(rng, (3, 5), "float16"), data(rng, (3, 5), "float16", 0.5, 3.0)
    half = np.zeros((3, 5), np.float16)
    acl("aclnnDiv", AclTensor(a), AclTensor(b), AclTensor(half))
    assert_close(half, (a.astype(np.float32) / b.astype(np.float32)))


def test_inplace_forms_write_self(acl, rng):
    x = data(rng, (3, 4), "float32")
    y = data(rng, (4,), "float32", 0.5, 2.0)
    expected = x * y / y - 2 * y
    acl("aclnnInplaceMul", AclTensor(x), AclTensor(y))
    acl("aclnnInplaceDiv", AclTensor(x), AclTensor(y))
    acl("aclnnInplaceSub", AclTensor(x), AclTensor(y), AclScalar(2, "float32"))
    assert_close(x, expected)


@pytest.mark.parametrize("dtype, value, scalar_dtype, result", [
    ("float32", 2.5, "float32", "float32"), ("float16", -1.5, "float32", "float16"),
    ("int32", 3, "int32", "int32"), ("int32", 1.5, "float32", "float32"), ("int64", 7, "int64", "int64")])
def test_muls_and_adds_follow_scalar_promotion(acl, rng, dtype, value, scalar_dtype, result):
    x = data(rng, (5, 7), dtype)
    scaled, shifted = np.zeros((5, 7), result), np.zeros((5, 7), result)
    acl("aclnnMuls", AclTensor(x), AclScalar(value, scalar_dtype), AclTensor(scaled))
    acl("aclnnAdds", AclTensor(x), AclScalar(value, scalar_dtype), AclScalar(2, "int32"), AclTensor(shifted))
    assert_close(scaled, x.astype(np.float64) * value)
    assert_close(shifted, x.astype(np.float64) + 2 * value)


def test_inplace_muls_and_subs(acl):
    x = np.arange(6, dtype=np.float32)
    acl("aclnnInplaceMuls", AclTensor(x), AclScalar(3, "float32"))
    acl("aclnnInplaceSubs", AclTensor(x), AclScalar(1, "float32"), AclScalar(2, "float32"))
    np.testing.assert_array_equal(x, np.arange(6) * 3 - 2)


UNARY = {
    "aclnnNeg": (np.negative, (-4, 4)), "aclnnAbs": (np.abs, (-4, 4)),
    "aclnnRelu": (lambda v: np.maximum(v, 0), (-4, 4)),
    "aclnnExp": (np.exp, (-3, 3)), "aclnnLog": (np.log, (0.1, 5)), "aclnnSqrt": (np.sqrt, (0, 9)),
    "aclnnRsqrt": (lambda v: 1 / np.sqrt(v), (0.2, 9)), "aclnnReciprocal": (lambda v: 1 / v, (0.5, 4)),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("api", sorted(UNARY))
def test_unary_operators_match_numpy(acl, rng, api, dtype):
    func, (low, high) = UNARY[api]
    x = data(rng, (2, 33), dtype, low, high)
    out = np.zeros_like(x)
    acl(api, AclTensor(x), AclTensor(out))
    assert_close(out, func(x.astype(np.float64)), dtype)


@pytest.mark.parametrize("api", ["aclnnNeg", "aclnnAbs", "aclnnRelu"])
def test_integer_unary_operators_keep_the_dtype(acl, rng, api):
    x = data(rng, (40,), "int32", -100, 100)
    out = np.zeros_like(x)
    acl(api, AclTensor(x), AclTensor(out))
    assert_close(out, UNARY[api][0](x))


def test_exp_of_integers_computes_in_float32(acl):
    x = np.array([0, 1, 2, -1], np.int32)
    out = np.zeros(4, np.float32)
    acl("aclnnExp", AclTensor(x), AclTensor(out))
    assert_close(out, np.exp(x.astype(np.float64)))
    with pytest.raises(AclnnError, match=r"aclnnExp: argument 1 'out': dtype int32 cannot hold the result, of "
                                         r"dtype float32"):
        acl("aclnnExp", AclTensor(x), AclTensor(np.zeros(4, np.int32)))


def test_inplace_unary_forms(acl):
    x = np.array([1.0, 4.0, 9.0], np.float32)
    acl("aclnnInplaceSqrt", AclTensor(x))
    acl("aclnnInplaceNeg", AclTensor(x))
    acl("aclnnInplaceRelu", AclTensor(x))
    np.testing.assert_array_equal(x, [0.0, 0.0, 0.0])


def test_shape_errors_name_the_argument(acl):
    x = AclTensor(np.ones((2, 3), np.float32))
    with pytest.raises(AclnnError, match=r"aclnnMul: argument 1 'other': shape \[4\] does not broadcast with "
                                         r"self's shape \[2, 3\]"):
        acl("aclnnMul", x, AclTensor(np.ones(4, np.float32)), x)
    with pytest.raises(AclnnError, match=r"aclnnAdd: argument 3 'out': shape \[3\] must be \[2, 3\]"):
        acl("aclnnAdd", x, x, AclScalar(1, "float32"), AclTensor(np.zeros(3, np.float32)))
    with pytest.raises(AclnnError, match=r"aclnnInplaceMul: argument 0 'selfRef': shape \[3\] must be \[2, 3\]"):
        acl("aclnnInplaceMul", AclTensor(np.ones(3, np.float32)), x)
    with pytest.raises(AclnnError, match=r"aclnnNeg: argument 1 'out': shape \[3, 2\] must be \[2, 3\]"):
        acl("aclnnNeg", x, AclTensor(np.zeros((3, 2), np.float32)))


def test_dtype_errors_name_the_argument(acl):
    f, i = AclTensor(np.ones(3, np.float32)), AclTensor(np.ones(3, np.int32))
    with pytest.raises(AclnnError, match=r"aclnnMul: argument 2 'out': dtype int32 cannot hold the result, of "
                                         r"dtype float32"):
        acl("aclnnMul", f, i, i)
    with pytest.raises(AclnnError, match=r"aclnnAdd: argument 2 'alpha': dtype float32 cannot be converted to the "
                                         r"promoted dtype int32"):
        acl("aclnnAdd", i, i, AclScalar(0.5, "float32"), i)
    with pytest.raises(AclnnError, match=r"aclnnMuls: argument 2 'out': dtype int32 cannot hold the result, of "
                                         r"dtype float32"):
        acl("aclnnMuls", i, AclScalar(0.5, "float32"), i)
    b = AclTensor(np.ones(3, bool))
    with pytest.raises(AclnnError, match="aclnnSub: argument 1 'other': aclnnSub of two bool tensors"):
        acl("aclnnSub", b, b, AclScalar(1, "bool"), b)
    with pytest.raises(AclnnError, match=r"aclnnNeg: argument 0 'self': dtype bool is not supported"):
        acl("aclnnNeg", b, b)


def test_empty_tensors_run_nothing_and_succeed(acl):
    x = np.zeros((0, 3), np.float32)
    out = np.zeros((0, 3), np.float32)
    acl("aclnnMul", AclTensor(x), AclTensor(x), AclTensor(out))
    assert out.shape == (0, 3)
