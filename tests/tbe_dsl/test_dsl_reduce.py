"""Reductions on each axis with and without keepdims, and broadcast, against numpy."""
import numpy as np
import pytest
from tvm import te

import te_compat.dsl as dsl
from te_compat.graph import extract

SHAPE = (3, 5, 17)
AXES = [0, 1, 2, -1, [0, 2], [1, -1], [0, 1, 2], None]


def _axes_tuple(axis):
    if axis is None:
        return (0, 1, 2)
    items = axis if isinstance(axis, list) else [axis]
    return tuple(sorted(a % 3 for a in items))


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_reduce_sum_every_axis(run, dtype, keepdims, chip910):
    data = np.random.default_rng(9).standard_normal(SHAPE).astype(dtype)
    x = te.placeholder(SHAPE, dtype, name="x")
    outs = [dsl.sum(x, axis, keepdims) for axis in AXES]
    wide = data.astype(np.float64)
    for axis, out, result in zip(AXES, outs, run([x], outs, [data])):
        axes = _axes_tuple(axis)
        expected = wide.sum(axis=axes, keepdims=keepdims)
        if not keepdims and len(axes) == 3:
            expected = expected.reshape(1)
        assert result.shape == expected.shape, axis
        # float16 accumulates in float16: allow an eps-sized error per accumulated magnitude
        bound = np.abs(wide).sum(axis=axes, keepdims=keepdims).reshape(expected.shape)
        eps = 1e-3 if dtype == "float16" else 1e-6
        assert np.all(np.abs(result.astype(np.float64) - expected) <= eps * bound + 1e-6), axis
        node = extract(out).nodes[-1]
        assert node.tag == "reduce_sum" and node.attrs == {"axes": axes, "keepdims": keepdims}


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_reduce_max_min_prod(run, dtype, chip910):
    rng = np.random.default_rng(10)
    data = (rng.integers(-5, 6, SHAPE) if dtype == "int32" else rng.standard_normal(SHAPE)).astype(dtype)
    small = (rng.integers(1, 3, SHAPE[:2]) * rng.choice([-1, 1], SHAPE[:2])).astype(dtype)
    x = te.placeholder(SHAPE, dtype, name="x")
    y = te.placeholder(SHAPE[:2], dtype, name="y")
    outs = [dsl.reduce_max(x, 2), dsl.reduce_min(x, [0, -1], keepdims=True), dsl.reduce_max(x, None),
            dsl.reduce_prod(y, 1), dsl.reduce_prod(y, [0, 1], True)]
    results = run([x, y], outs, [data, small])
    expected = [data.max(2), data.min((0, 2), keepdims=True), data.max().reshape(1), small.prod(1),
                small.prod(keepdims=True)]
    for out, result, want in zip(outs, results, expected):
        np.testing.assert_array_equal(result, want.astype(result.dtype))
    assert [o.op.tag for o in outs] == ["reduce_max", "reduce_min", "reduce_max", "reduce_prod", "reduce_prod"]
    assert str(outs[0].dtype) == dtype  # vmax has float16, float32 and int32 on the 910


def test_reduce_sum_int32_is_promoted_to_float32(run, chip910):
    x = te.placeholder((4, 9), "int32", name="x")
    out = dsl.reduce_sum(x, -1)
    assert str(out.dtype) == "float32"
    data = np.arange(36, dtype=np.int32).reshape(4, 9)
    np.testing.assert_array_equal(run([x], [out], [data])[0], data.sum(-1).astype(np.float32))


def test_tuple_sum(run, chip910):
    x = te.placeholder((4, 6), "float32", name="x")
    y = te.placeholder((4, 6), "float32", name="y")
    outs = dsl.tuple_sum([x, y], 0, keepdims=True)
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    first, second = run([x, y], outs, [a, -a])
    np.testing.assert_array_equal(first, a.sum(0, keepdims=True))
    np.testing.assert_array_equal(second, -a.sum(0, keepdims=True))


def test_softmax_recipe(run, chip910):
    data = (np.random.default_rng(12).standard_normal((6, 40)) * 3).astype(np.float32)
    x = te.placeholder(data.shape, "float32", name="x")
    shape = list(data.shape)
    data_max = dsl.broadcast(dsl.reduce_max(x, -1, keepdims=True), shape)
    exp = dsl.vexp(dsl.vsub(x, data_max))
    res = dsl.vdiv(exp, dsl.broadcast(dsl.sum(exp, -1, keepdims=True), shape))
    result, = run([x], [res], [data])
    wide = np.exp(data - data.max(-1, keepdims=True))
    np.testing.assert_allclose(result, wide / wide.sum(-1, keepdims=True), rtol=1e-5)
    assert "broadcast_for_tensor" in [n.tag for n in extract(res).nodes]


@pytest.mark.parametrize("source,target", [((1, 5), (4, 5)), ((3, 1), (3, 7)), ((5,), (2, 3, 5)), ((1, 1), (2, 2)),
                                           ((2, 1, 3), (2, 4, 3))])
def test_broadcast_tensor(run, source, target, chip910):
    data = np.arange(np.prod(source), dtype=np.float16).reshape(source)
    x = te.placeholder(source, "float16", name="x")
    out = dsl.broadcast(x, list(target))
    assert out.op.tag == "broadcast_for_tensor"
    np.testing.assert_array_equal(run([x], [out], [data])[0], np.broadcast_to(data, target))


def test_broadcast_of_the_same_shape_returns_the_tensor(chip910):
    x = te.placeholder((2, 3), "float32", name="x")
    assert dsl.broadcast(x, (2, 3)) is x


def test_broadcast_scalars(run, chip910):
    x = te.placeholder((1,), "float16", name="x")
    outs = [dsl.broadcast(1.5, [2, 3]), dsl.broadcast(7, (4,)), dsl.broadcast(2, [3], "float32"),
            dsl.broadcast(te.const(0.25, "float32"), [2]), dsl.broadcast(0.1, [2], output_dtype="float32")]
    assert [str(o.dtype) for o in outs] == ["float16", "int32", "float32", "float32", "float32"]
    results = run([x], outs, [np.zeros(1, np.float16)])
    expected = [np.full((2, 3), 1.5, np.float16), np.full(4, 7, np.int32), np.full(3, 2, np.float32),
                np.full(2, 0.25, np.float32), np.full(2, 0.1, np.float32)]
    for result, want in zip(results, expected):
        np.testing.assert_array_equal(result, want)
    assert [extract(o).nodes[-1].attrs for o in outs] == [{"value": 1.5}, {"value": 7}, {"value": 2.0},
                                                         {"value": 0.25}, {"value": float(np.float32(0.1))}]
    assert all(o.op.tag == "broadcast" and not o.op.input_tensors for o in outs)
