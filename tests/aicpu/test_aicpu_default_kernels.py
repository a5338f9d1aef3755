"""npusim's default kernels (libmindspore_aicpu_kernels.so) against numpy, through AicpuBackend."""
import numpy as np
import pytest

from npusim.errors import AicpuParamInvalidError

DEFAULT = "mindspore_aicpu_kernels"
ALL_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
              "float32", "float64"]


def _dropout(make_op, op_name):
    return make_op(op_name, 1, 2, attrs=[("keep_prob", "float")], library=DEFAULT)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_dropout2d_channels_dropped_or_scaled(make_op, dtype):
    op = _dropout(make_op, "Dropout2D")
    x = np.ones((4, 16, 2, 3), dtype=dtype)
    y, mask = op([x], [x.shape, x.shape], [dtype, "bool"], keep_prob=0.5)
    assert y.dtype == np.dtype(dtype) and mask.dtype == np.bool_ and y.shape == x.shape == mask.shape
    per_channel = mask.reshape(4, 16, -1)
    assert (per_channel.all(axis=2) | ~per_channel.any(axis=2)).all(), "mask must be constant per (N, C) channel"
    kept_value = np.ones((), dtype=dtype) if dtype == "bool" else np.asarray(2, dtype=dtype)
    np.testing.assert_array_equal(y[mask], np.full(mask.sum(), kept_value, dtype=dtype))
    np.testing.assert_array_equal(y[~mask], np.zeros((~mask).sum(), dtype=dtype))
    assert 0 < per_channel.all(axis=2).sum() < 64, "64 fair draws all alike is (nearly) impossible"


def test_dropout3d_over_ncdhw_and_values(make_op):
    op = _dropout(make_op, "Dropout3D")
    x = np.random.default_rng(0).standard_normal((2, 32, 2, 2, 3)).astype(np.float32)
    y, mask = op([x], [x.shape, x.shape], ["float32", "bool"], keep_prob=0.25)
    channels = mask.reshape(2, 32, -1)
    assert (channels.all(axis=2) | ~channels.any(axis=2)).all()
    np.testing.assert_allclose(y[mask], x[mask] / np.float32(0.25), rtol=1e-6)
    assert (y[~mask] == 0).all()


@pytest.mark.parametrize("keep_prob, kept", [(1.0, True), (0.0, False)])
def test_dropout_edge_probabilities(make_op, keep_prob, kept):
    op = _dropout(make_op, "Dropout2D")
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    y, mask = op([x], [x.shape, x.shape], ["float32", "bool"], keep_prob=keep_prob)
    assert mask.all() if kept else not mask.any()
    np.testing.assert_array_equal(y, x if kept else np.zeros_like(x))


def test_dropout_rejects_probability_outside_unit_interval(make_op):
    op = _dropout(make_op, "Dropout2D")
    x = np.ones((1, 1, 2, 2), np.float32)
    with pytest.raises(AicpuParamInvalidError) as info:
        op([x], [x.shape, x.shape], ["float32", "bool"], keep_prob=1.5)
    assert any("between 0 and 1" in line for line in info.value.log_lines)
    assert info.value.op_type == "Dropout2D" and info.value.library.endswith("libmindspore_aicpu_kernels.so")


def test_dropout2d_float16_scaling(make_op):
    op = _dropout(make_op, "Dropout2D")
    x = np.linspace(-3, 3, 64 * 4, dtype=np.float16).reshape(1, 64, 2, 2)
    y, mask = op([x], [x.shape, x.shape], ["float16", "bool"], keep_prob=0.8)
    expected = (x.astype(np.float32) / np.float32(np.float16(0.8))).astype(np.float16)
    np.testing.assert_array_equal(y[mask], expected[mask])


@pytest.mark.parametrize("src, dst", [("float32", "float16"), ("float16", "float32"), ("float64", "int32"),
                                      ("int32", "float64"), ("float32", "bool"), ("bool", "int8"),
                                      ("uint8", "int64"), ("int64", "uint16"), ("float16", "int16")])
def test_cast_matches_numpy(make_op, src, dst):
    op = make_op("Cast", 1, 1, library=DEFAULT)
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((3, 5)) * 50).astype(src) if src != "bool" else rng.random((3, 5)) > 0.5
    if np.issubdtype(np.dtype(dst), np.unsignedinteger) or dst == "bool":
        x = np.abs(x)
    (y,) = op([x], [x.shape], [dst])
    np.testing.assert_array_equal(y, x.astype(dst))


def test_cast_float16_rounding_and_specials(make_op):
    op = make_op("Cast", 1, 1, library=DEFAULT)
    x = np.array([0.0, -0.0, 1e-8, 6e-8, 1.0 + 2 ** -11, 65504.0, 65520.0, np.inf, -np.inf, 3.14159, 1e-5],
                 np.float32)
    (y,) = op([x], [x.shape], ["float16"])
    with np.errstate(over="ignore"):
        expected = x.astype(np.float16)
    np.testing.assert_array_equal(y.view(np.uint16), expected.view(np.uint16))


@pytest.mark.parametrize("shape_a, shape_b", [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (1, 5, 1)),
                                              ((), (2, 2)), ((5, 1), ()), ((1,), (1,))])
@pytest.mark.parametrize("dtype", ["float32", "int8", "float16", "uint64"])
def test_add_broadcasts_like_numpy(make_op, shape_a, shape_b, dtype):
    op = make_op("Add", 2, 1, library=DEFAULT)
    rng = np.random.default_rng(2)
    a = (rng.standard_normal(shape_a) * 40).astype(dtype)
    b = (rng.standard_normal(shape_b) * 40).astype(dtype)
    expected = a + b
    (y,) = op([a, b], [expected.shape], [dtype])
    np.testing.assert_array_equal(y, expected)


def test_add_large_uses_parallel_for(make_op):
    op = make_op("Add", 2, 1, library=DEFAULT)
    a = np.arange(300_000, dtype=np.int64).reshape(600, 500)
    b = np.arange(500, dtype=np.int64)
    (y,) = op([a, b], [a.shape], ["int64"])
    np.testing.assert_array_equal(y, a + b)


def test_add_bool_is_logical_or_and_bad_shapes_fail(make_op):
    op = make_op("Add", 2, 1, library=DEFAULT)
    a = np.array([True, False, False])
    b = np.array([False, False, True])
    (y,) = op([a, b], [(3,)], ["bool"])
    np.testing.assert_array_equal(y, a | b)
    with pytest.raises(AicpuParamInvalidError, match="Add"):
        op([np.ones(3, np.float32), np.ones(4, np.float32)], [(4,)], ["float32"])


def test_reshape_copies_into_declared_and_attr_shapes(make_op):
    x = np.arange(12, dtype=np.int16).reshape(3, 4)
    (y,) = make_op("Reshape", 1, 1, library=DEFAULT)([x], [(2, 6)], ["int16"])
    np.testing.assert_array_equal(y, x.reshape(2, 6))
    op = make_op("Reshape", 1, 1, attrs=[("shape", "listInt")], library=DEFAULT)
    (y,) = op([x], [(12,)], ["int16"], shape=[4, -1])
    np.testing.assert_array_equal(y, x.reshape(4, 3))
    (y,) = make_op("Reshape", 2, 1, library=DEFAULT)([x, np.array([-1, 2], np.int32)], [(12,)], ["int16"])
    np.testing.assert_array_equal(y, x.reshape(6, 2))


def test_unique_sets_dynamic_output_shape(make_op):
    op = make_op("Unique", 1, 2, library=DEFAULT)
    x = np.array([5, 3, 5, 7, 3, 3, 9], np.int32)
    y, idx = op([x], [x.shape, x.shape], ["int32", "int32"])
    assert y.shape == (4,)
    np.testing.assert_array_equal(y, [5, 3, 7, 9])
    np.testing.assert_array_equal(y[idx], x)


def test_unique_with_unknown_dims_and_float16(make_op):
    op = make_op("Unique", 1, 2, library=DEFAULT)
    x = np.array([1.5, -2.0, 1.5, 0.0, -0.0], np.float16)
    y, idx = op([x], [(-1,), x.shape], ["float16", "int64"])
    np.testing.assert_array_equal(y, np.array([1.5, -2.0, 0.0], np.float16))
    np.testing.assert_array_equal(idx, [0, 1, 0, 2, 2])
    (empty_y, empty_idx) = op([np.zeros(0, np.float16)], [(-2,), (0,)], ["float16", "int64"])
    assert empty_y.shape == (0,) and empty_idx.shape == (0,)


def test_cust_prefixed_names_are_registered(make_op):
    x = np.arange(4, dtype=np.float32)
    (y,) = make_op("CustCast", 1, 1, library=DEFAULT)([x], [x.shape], ["int32"])
    np.testing.assert_array_equal(y, x.astype(np.int32))


def test_builtin_library_names_fall_back_to_default(make_op):
    x = np.arange(4, dtype=np.float32)
    for library in (None, "aicpu_kernels", "cpu_kernels"):
        (y,) = make_op("Cast", 1, 1, library=library)([x], [x.shape], ["float64"])
        np.testing.assert_array_equal(y, x.astype(np.float64))
