"""Seeded random graphs (reduce / broadcast / softmax / mean over random shapes, both float dtypes) against numpy,
with the output guard bytes checked by the runner."""
import numpy as np
import pytest

from tbe_sched_support import bcast, binary, ph, reduce, run, unary, vs

DIMS = [1, 2, 3, 5, 7, 8, 16, 17, 31, 33, 64, 100, 129, 300, 1000, 2049, 5000]


def _case(seed: int):
    rng = np.random.default_rng(seed)
    while True:
        shape = tuple(int(rng.choice(DIMS)) for _ in range(int(rng.integers(1, 4))))
        if np.prod(shape) <= 400_000:
            break
    dtype = str(rng.choice(["float16", "float32"]))
    kind = str(rng.choice(["reduce", "bcast", "softmax", "mean"]))
    return rng, shape, dtype, kind


def _graph(rng, shape, dtype, kind):
    x = ph(shape, dtype, "x")
    xa = rng.standard_normal(shape).astype(dtype)
    a64 = xa.astype(np.float64)
    axis = int(rng.integers(0, len(shape)))
    if kind == "reduce":
        op = str(rng.choice(["sum", "max", "min"]))
        keep = bool(rng.integers(0, 2))
        ref = {"sum": np.sum, "max": np.max, "min": np.min}[op](a64, axis=axis, keepdims=keep)
        tol = 3e-3 * np.sqrt(shape[axis]) + 1e-2 if dtype == "float16" else 1e-4
        return reduce(op, x, [axis], keep), [x], [xa], ref.reshape(ref.shape or (1,)), tol
    if kind == "bcast":
        small = tuple(d if rng.random() < 0.5 else 1 for d in shape)
        y = ph(small, dtype, "y")
        ya = rng.standard_normal(small).astype(dtype)
        return binary("sub", x, bcast(y, shape)), [x, y], [xa, ya], (xa - ya).astype(np.float64), 0
    if kind == "softmax":
        e = unary("exp", binary("sub", x, bcast(reduce("max", x, [axis], True), shape)))
        out = binary("div", e, bcast(reduce("sum", e, [axis], True), shape))
        ee = np.exp(a64 - a64.max(axis, keepdims=True))
        return out, [x], [xa], ee / ee.sum(axis, keepdims=True), 6e-3 if dtype == "float16" else 1e-5
    out = vs("mul", reduce("sum", x, [axis], True), 1.0 / shape[axis])
    return out, [x], [xa], a64.mean(axis, keepdims=True), 5e-3 if dtype == "float16" else 1e-5


@pytest.mark.parametrize("seed", range(24))
def test_random_graph(seed):
    rng, shape, dtype, kind = _case(seed)
    out, inputs, arrays, expected, tol = _graph(rng, shape, dtype, kind)
    got = run(out, inputs, arrays).outputs[0].astype(np.float64)
    assert got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, err_msg=f"{kind} {shape} {dtype}")
