"""Every reduction (sum, reduce_sum, reduce_max, reduce_min, reduce_prod, tuple_sum) through auto_schedule on the
simulated device: each axis of a 3-d tensor, axis lists (contiguous and separated, as BatchNorm's [0, 2, 3]),
all axes, negative axes, with and without keepdims, tails, sizes far beyond UB, on Ascend910 and Ascend310."""
import numpy as np
import pytest

import npusim.sim
import te_compat.dsl as dsl
from dsl_on_sim import assert_engages_tiling_and_cores, close, data, placeholders, simulate

AXES = [0, 1, 2, -1, [0, 1], [1, 2], [0, 2], None]
TAIL_3D = (5, 7, 37)
BIG_3D = {"Ascend910": (35, 129, 517), "Ascend310": (33, 61, 517)}   # 33 outputs: two blocks of >= 32 bytes


def _numpy_axes(axis, rank):
    if axis is None:
        return tuple(range(rank))
    return tuple(a % rank for a in (axis if isinstance(axis, list) else [axis]))


def _expected(op, wide, axis, keepdims):
    axes = _numpy_axes(axis, wide.ndim)
    func = {"sum": np.sum, "reduce_sum": np.sum, "reduce_max": np.max, "reduce_min": np.min,
            "reduce_prod": np.prod}[op]
    result = func(wide, axis=axes, keepdims=keepdims)
    return result.reshape(1) if result.ndim == 0 else result


def _reduce(op, x, axis, keepdims):
    return getattr(dsl, op)(x, axis if axis is not None else list(range(len(x.shape))), keepdims)


def _check(op, dtype, shape, axis, keepdims, seed=0):
    (x,) = placeholders(shape, [dtype])
    low, high = (0.9, 1.1) if op == "reduce_prod" else (-2.0, 2.0)
    a = data(shape, dtype, seed=seed, low=low if dtype != "int32" else -500, high=high if dtype != "int32" else 500)
    out = _reduce(op, x, axis, keepdims)
    if dtype == "int32" and op in ("sum", "reduce_sum"):
        dtype = "float32"         # vcadd has no int32 form: auto-cast to float32 (one vconv s322f32 on the 910)
    assert str(out.dtype) == dtype
    result = simulate(out, [x], [a])
    wide = a.astype(np.float64)
    want = _expected(op, wide, axis, keepdims)
    assert result.outputs[0].shape == want.shape
    if op in ("sum", "reduce_sum"):
        count = wide.size // want.size
        bound = np.sum(np.abs(wide), axis=_numpy_axes(axis, wide.ndim), keepdims=keepdims).reshape(want.shape)
        eps = 2.0 ** -10 if dtype == "float16" else 2.0 ** -23
        np.testing.assert_array_less(np.abs(result.outputs[0].astype(np.float64) - want),
                                     bound * eps * max(8, np.log2(count) + 4) + 1e-3)
    elif op == "reduce_prod":
        close(result.outputs[0], want, dtype, 25 if dtype == "float16" else 10)
    else:
        close(result.outputs[0], want, dtype)
    return result


@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("op", ["sum", "reduce_max", "reduce_min", "reduce_prod"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_each_axis_on_a_tail_shape(chip, op, dtype, axis, keepdims):
    result = _check(op, dtype, TAIL_3D, axis, keepdims)
    assert result.sched.classification.startswith("reduce_")


@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("op", ["reduce_sum", "reduce_max"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_far_beyond_ub(chip, op, dtype, axis):
    if chip == "Ascend310" and dtype == "float32" and op == "reduce_max":
        pytest.skip("covered on tails")
    result = _check(op, dtype, BIG_3D[chip], axis, keepdims=axis in (1, [0, 2]))
    assert result.tiles > 1
    if axis is not None:          # reducing everything leaves nothing to split across cores
        assert_engages_tiling_and_cores(result)


@pytest.mark.parametrize("op", ["sum", "reduce_max", "reduce_min"])
@pytest.mark.parametrize("axis", [0, 2, [0, 2]], ids=str)
def test_int32(op, axis):
    npusim.sim.set_chip("Ascend910")
    try:
        _check(op, "int32", TAIL_3D, axis, keepdims=False)
    finally:
        npusim.sim.set_chip(None)


@pytest.mark.parametrize("axis,keepdims", [([0, 2, 3], True), ([0, 2, 3], False), ([1, 3], False)])
def test_batchnorm_style_4d_reductions(chip, axis, keepdims):
    shape = (3, 17, 5, 29)
    x = placeholders(shape, ["float16"])[0]
    a = data(shape, "float16", seed=4)
    as32 = dsl.cast_to(x, "float32")
    count = int(np.prod([shape[i] for i in axis]))
    mean = dsl.vmuls(dsl.sum(as32, axis, keepdims), 1.0 / count)
    square_mean = dsl.vmuls(dsl.sum(dsl.vmul(as32, as32), axis, keepdims), 1.0 / count)
    if axis == [1, 3]:           # (K, R, K, R): four axes left after fusion — no vector mapping
        with pytest.warns(UserWarning, match="scalar pipe"):
            result = simulate([mean, square_mean], [x], [a], vector=False)
        assert result.sched.classification == "fallback"
    else:
        result = simulate([mean, square_mean], [x], [a])
        assert result.sched.classification == "reduce_last" and result.block_dim > 1
    wide = a.astype(np.float64)
    close(result.outputs[0], wide.mean(axis=tuple(axis), keepdims=keepdims), "float32", 50)
    close(result.outputs[1], (wide * wide).mean(axis=tuple(axis), keepdims=keepdims), "float32", 50)


@pytest.mark.parametrize("axis", [1, [0, 2]], ids=str)
def test_tuple_sum_of_several_tensors(chip, axis):
    shape = (6, 33, 70)
    tensors = placeholders(shape, ["float32"] * 3)
    arrays = [data(shape, "float32", seed=s) for s in range(3)]
    outs = dsl.tuple_sum(tensors, axis, keepdims=True)
    result = simulate(outs, tensors, arrays)
    for out, array in zip(result.outputs, arrays):
        want = array.astype(np.float64).sum(axis=_numpy_axes(axis, 3), keepdims=True)
        close(out, want, "float32", 20)
