"""concat, split, transpose, slice, set_value, gather, gather_nd, segment and inplace ops against numpy."""
import numpy as np
import pytest
from tvm import te

import te_compat.dsl as dsl


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.integers(-20, 20, shape) if dtype == "int32" else rng.standard_normal(shape)).astype(dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_concat_split_transpose_slice(run, dtype):
    a, b, c = _data((2, 3, 4), dtype, 1), _data((2, 5, 4), dtype, 2), _data((2, 1, 4), dtype, 3)
    x, y, z = (te.placeholder(v.shape, dtype, name=n) for v, n in ((a, "x"), (b, "y"), (c, "z")))
    joined = dsl.concat([x, y, z], -2)
    shapes, pieces = dsl.split(x, 2, [1, 3])
    _, old_style = dsl.split_compute_com(y, 1, [2, 3])
    outs = [joined, *pieces, *old_style, dsl.transpose(x, [2, 0, 1]), dsl.slice(y, [0, 1, -3], [2, 5, 4], [1, 2, 1])]
    results = run([x, y, z], outs, [a, b, c])
    expected = [np.concatenate([a, b, c], axis=1), a[:, :, :1], a[:, :, 1:], b[:, :2], b[:, 2:],
                a.transpose(2, 0, 1), b[0:2, 1:5:2, 1:4]]
    for result, want in zip(results, expected):
        np.testing.assert_array_equal(result, want)
    assert shapes == [[2, 3, 1], [2, 3, 3]]
    assert [o.op.tag for o in (joined, pieces[0], outs[-2], outs[-1])] == ["concat", "split_com", "transpose",
                                                                            "slice"]
    assert dsl.concat([x], 0) is x


def test_set_value(run):
    a = _data((4, 6), "float32")
    x = te.placeholder(a.shape, "float32", name="x")
    outs = [dsl.set_value(x, lambda i, j: j > i, 0.0),
            dsl.set_value(x, lambda i, j: i == j, lambda i, j: x[i, j] * 2)]
    upper, doubled = run([x], outs, [a])
    np.testing.assert_array_equal(upper, np.tril(a))
    np.testing.assert_array_equal(doubled, np.where(np.eye(4, 6, dtype=bool), a * 2, a))


def test_gather_and_gather_nd(run):
    params = _data((5, 4, 3), "float32", 4)
    idx = np.array([[4, 0], [2, 2], [1, 3]], np.int32)
    nd_idx = np.array([[0, 1], [4, 3], [2, 0]], np.int32)
    batch_idx = np.array([[1, 0], [3, 3], [0, 2], [1, 1], [2, 0]], np.int32)
    p = te.placeholder(params.shape, "float32", name="p")
    i = te.placeholder(idx.shape, "int32", name="i")
    n = te.placeholder(nd_idx.shape, "int32", name="n")
    bi = te.placeholder(batch_idx.shape, "int32", name="bi")
    outs = [dsl.gather(p, i, 0), dsl.gather(p, bi, axis=1), dsl.gather_nd(p, n),
            dsl.gather(p, bi, axis=1, batch_dims=1)]
    first, second, third, fourth = run([p, i, n, bi], outs, [params, idx, nd_idx, batch_idx])
    np.testing.assert_array_equal(first, params[idx])
    np.testing.assert_array_equal(second, np.take(params, batch_idx, axis=1))
    np.testing.assert_array_equal(third, params[nd_idx[:, 0], nd_idx[:, 1]])
    np.testing.assert_array_equal(fourth, np.stack([params[k][batch_idx[k]] for k in range(5)]))


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_unsorted_segments(run, dtype):
    data = _data((7, 5), dtype, 5)
    ids = [2, 0, 2, 4, 0, 2, -1]  # segment 1 and 3 empty; -1 dropped
    x = te.placeholder(data.shape, dtype, name="x")
    outs = [dsl.unsorted_segment_sum(x, ids, 5), dsl.unsorted_segment_mean(x, ids, 5),
            dsl.unsorted_segment_prod(x, ids, 5, 1), dsl.unsorted_segment_min(x, ids, 5, 9),
            dsl.unsorted_segment_max(x, ids, 5)]
    results = run([x], outs, [data])
    wide = data.astype(np.float64)
    reducers = [np.sum, np.mean, np.prod, np.min, np.max]
    inits = [0, 0, 1, 9, 0]
    for reducer, init, result in zip(reducers, inits, results):
        expected = np.full((5, 5), init, np.float64)
        for seg in range(5):
            rows = [r for r, s in enumerate(ids) if s == seg]
            if rows:
                expected[seg] = reducer(wide[rows], axis=0)
        if dtype == "int32":
            expected = np.trunc(expected)
        np.testing.assert_allclose(result.astype(np.float64), expected, rtol=2e-3, atol=2e-3)
    assert outs[0].op.tag == "segment_sum"


@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_inplace_ops(run, dtype):
    lhs = _data((5, 3), dtype, 6)
    rhs = _data((3, 3), dtype, 7)
    ids = [1, 4, 1]
    x = te.placeholder(lhs.shape, dtype, name="x")
    y = te.placeholder(rhs.shape, dtype, name="y")
    row = te.placeholder((3,), dtype, name="row")
    outs = [dsl.inplace_add(x, ids, y), dsl.inplace_sub(x, ids, y), dsl.inplace_update(x, ids, y),
            dsl.inplace_update(x, 2, row)]
    added, subbed, updated, single = run([x, y, row], outs, [lhs, rhs, rhs[0]])
    want_add, want_sub, want_upd, want_single = lhs.copy(), lhs.copy(), lhs.copy(), lhs.copy()
    for i, r in enumerate(ids):
        want_add[r] += rhs[i]
        want_sub[r] -= rhs[i]
        want_upd[r] = rhs[i]
    want_single[2] = rhs[0]
    for result, want in zip((added, subbed, updated, single), (want_add, want_sub, want_upd, want_single)):
        np.testing.assert_allclose(result, want, rtol=1e-6)
    assert [o.op.tag for o in outs[:3]] == ["inplace_add", "inplace_sub", "inplace_update"]
