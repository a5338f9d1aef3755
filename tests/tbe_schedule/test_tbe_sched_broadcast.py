"""auto_schedule on broadcast_for_tensor: along the last axis, along outer axes, scalars, 3-D/4-D, beyond UB."""
import numpy as np
import pytest

from tbe_sched_support import bcast, binary, const, ph, run, ub_bytes

RNG = np.random.default_rng(7)


def _bcast_add(in_shape, out_shape, dtype="float16", op="add"):
    x, y = ph(in_shape, dtype, "x"), ph(out_shape, dtype, "y")
    if np.dtype(dtype).kind == "i":
        xa, ya = RNG.integers(-50, 50, in_shape).astype(dtype), RNG.integers(-50, 50, out_shape).astype(dtype)
    else:
        xa, ya = RNG.standard_normal(in_shape).astype(dtype), RNG.standard_normal(out_shape).astype(dtype)
    result = run(binary(op, bcast(x, out_shape), y), [x, y], [xa, ya])
    expected = xa + ya if op == "add" else xa * ya
    return result, expected


@pytest.mark.parametrize("in_shape,out_shape", [
    ((37, 1), (37, 100)), ((1000, 1), (1000, 37)), ((64, 1), (64, 128)),          # along the last axis
    ((1, 37), (1000, 37)), ((37,), (1000, 37)), ((1, 128), (64, 128)),            # along the outer axis
    ((1,), (1234,)),                                                               # a one-element tensor
    ((4, 1, 20), (4, 5, 20)), ((1, 5, 1), (4, 5, 20)), ((4, 5, 1), (4, 5, 20)),   # 3-D patterns
    ((1, 3, 1, 1), (2, 3, 4, 5)), ((2, 3, 1, 1), (2, 3, 4, 5)), ((1, 1, 4, 5), (2, 3, 4, 5)),
])
def test_broadcast_patterns(in_shape, out_shape):
    result, expected = _bcast_add(in_shape, out_shape)
    assert result.sched.classification == "broadcast"
    assert np.array_equal(result.outputs[0], expected)


@pytest.mark.parametrize("dtype,in_shape,out_shape", [("float32", (100, 1), (100, 33)),
                                                      ("int32", (1, 33), (100, 33))])
def test_broadcast_other_dtypes(dtype, in_shape, out_shape):
    result, expected = _bcast_add(in_shape, out_shape, dtype)
    assert np.array_equal(result.outputs[0], expected)


@pytest.mark.parametrize("in_shape,out_shape", [((1, 200000), (4, 200000)), ((4, 1), (4, 200000)),
                                                ((3000, 1), (3000, 1000)), ((1, 1000), (3000, 1000))])
def test_broadcast_beyond_ub_tiles_and_uses_cores(in_shape, out_shape):
    result, expected = _bcast_add(in_shape, out_shape, op="mul")
    assert np.array_equal(result.outputs[0], expected)
    assert result.kernel.block_dim > 1
    assert result.ub_high_water <= ub_bytes()


def test_scalar_constant_broadcast_in_a_graph():
    shape = (50, 70)
    x = ph(shape, "float32", "x")
    xa = RNG.standard_normal(shape).astype(np.float32)
    result = run(binary("max", x, const(0.25, shape, "float32")), [x], [xa])
    assert np.array_equal(result.outputs[0], np.maximum(xa, np.float32(0.25)))
