"""auto_schedule on element-wise graphs: tails, dtypes, constants, chains, tiling and multi-core."""
import numpy as np
import pytest

from tbe_sched_support import (axpy, binary, const, madd, mla, ph, run, ub_bytes, unary, vs)

RNG = np.random.default_rng(1234)


def _rand(shape, dtype, scale=10.0):
    if np.dtype(dtype).kind == "i":
        return RNG.integers(-1000, 1000, shape).astype(dtype)
    return (RNG.standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize("n", [1, 7, 15, 16, 17, 100, 1000, 33333])
def test_vadd_fp16_tails_are_exact(n):
    a, b = ph((n,), "float16", "a"), ph((n,), "float16", "b")
    x, y = _rand(n, "float16"), _rand(n, "float16")
    result = run(binary("add", a, b), [a, b], [x, y])
    assert result.sched.classification == "elewise"
    assert np.array_equal(result.outputs[0], x + y)


@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "max", "min"])
def test_binary_ops_match_numpy(dtype, op):
    n = 1003
    a, b = ph((n,), dtype, "a"), ph((n,), dtype, "b")
    x, y = _rand(n, dtype), _rand(n, dtype)
    expected = {"add": x + y, "sub": x - y, "mul": x * y, "max": np.maximum(x, y), "min": np.minimum(x, y)}[op]
    assert np.array_equal(run(binary(op, a, b), [a, b], [x, y]).outputs[0], expected)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_division_is_ieee(dtype):
    n = 777
    a, b = ph((n,), dtype, "a"), ph((n,), dtype, "b")
    x, y = _rand(n, dtype), _rand(n, dtype) + np.array(30, dtype)
    assert np.array_equal(run(binary("div", a, b), [a, b], [x, y]).outputs[0], x / y)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "rsqrt", "rec", "abs", "relu"])
def test_unary_ops(dtype, op):
    n = 555
    a = ph((n,), dtype, "a")
    x = (RNG.random(n) * 4 + 0.05).astype(dtype) if op in ("log", "sqrt", "rsqrt", "rec", "exp") else \
        _rand(n, dtype)
    ref = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v),
           "rec": lambda v: 1 / v, "abs": np.abs, "relu": lambda v: np.maximum(v, 0)}[op](x.astype(np.float64))
    out = run(unary(op, a), [a], [x]).outputs[0]
    np.testing.assert_allclose(out.astype(np.float64), ref.astype(dtype).astype(np.float64), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
@pytest.mark.parametrize("op", ["add", "mul", "max", "min"])
def test_tensor_scalar_ops_including_int32_without_vs_instruction(dtype, op):
    n = 300
    a = ph((n,), dtype, "a")
    x = _rand(n, dtype)
    s = np.array(3, dtype)
    expected = {"add": x + s, "mul": x * s, "max": np.maximum(x, s), "min": np.minimum(x, s)}[op]
    assert np.array_equal(run(vs(op, a, 3), [a], [x]).outputs[0], expected)


def test_bitwise_ops_on_int16():
    n = 1000
    a, b = ph((n,), "int16", "a"), ph((n,), "int16", "b")
    x, y = _rand(n, "int16"), _rand(n, "int16")
    assert np.array_equal(run(binary("and", a, b), [a, b], [x, y]).outputs[0], x & y)
    assert np.array_equal(run(binary("or", a, b), [a, b], [x, y]).outputs[0], x | y)
    assert np.array_equal(run(unary("not", a), [a], [x]).outputs[0], ~x)


def test_same_operand_twice_and_constant_operands():
    n = 999
    a = ph((n,), "float16", "a")
    x = _rand(n, "float16", 3.0)
    c = const(2.5, (n,), "float16")
    two = np.float16(2.5)
    assert np.array_equal(run(binary("mul", a, a), [a], [x]).outputs[0], x * x)
    assert np.array_equal(run(binary("sub", a, c), [a], [x]).outputs[0], x - two)
    assert np.array_equal(run(binary("sub", c, a), [a], [x]).outputs[0], two - x)
    assert np.array_equal(run(binary("div", a, c), [a], [x]).outputs[0], x / two)


def test_multiply_add_family_and_axpy():
    n = 640
    a, b, c = ph((n,), "float32", "a"), ph((n,), "float32", "b"), ph((n,), "float32", "c")
    x, y, z = _rand(n, "float32"), _rand(n, "float32"), _rand(n, "float32")
    x64, y64, z64 = (v.astype(np.float64) for v in (x, y, z))
    fused = lambda v: v.astype(np.float32)       # the vector unit's multiply-add rounds once
    assert np.array_equal(run(mla(a, b, c), [a, b, c], [x, y, z]).outputs[0], fused(x64 * y64 + z64))
    assert np.array_equal(run(madd(a, b, c), [a, b, c], [x, y, z]).outputs[0], fused(x64 * z64 + y64))
    assert np.array_equal(run(axpy(a, b, 1.5), [a, b], [x, y]).outputs[0], fused(x64 * 1.5 + y64))


def test_chain_keeps_intermediates_in_ub():
    n = 4321
    a, b = ph((n,), "float16", "a"), ph((n,), "float16", "b")
    x, y = _rand(n, "float16", 1.0), _rand(n, "float16", 1.0)
    out = vs("mul", binary("add", unary("exp", binary("sub", a, b)), a), 0.5)
    result = run(out, [a, b], [x, y])
    expected = (np.exp((x - y).astype(np.float64)).astype(np.float16) + x) * np.float16(0.5)
    np.testing.assert_allclose(result.outputs[0].astype(np.float64), expected.astype(np.float64), rtol=2e-3)
    moves = [ins for _, ins in result.kernel.instructions() if ins.opcode == "data_move"]
    params = {ins.arg("src").buffer for ins in moves} | {ins.arg("dst").buffer for ins in moves}
    assert params <= {"a", "b", "vmuls", "ub_tile0", "ub_tile1", "ub_misc"}


def test_three_million_fp16_tiles_uses_many_cores_and_fits_ub():
    n = 3 * 1024 * 1024 + 5
    a, b = ph((n,), "float16", "a"), ph((n,), "float16", "b")
    x, y = _rand(n, "float16", 1.0), _rand(n, "float16", 1.0)
    result = run(binary("add", a, b), [a, b], [x, y])
    assert np.array_equal(result.outputs[0], x + y)
    assert result.kernel.block_dim > 1
    assert 0 < result.ub_high_water <= ub_bytes()
    assert {"ub_tile0", "ub_tile1"} <= result.buffers_used()
    tile = result.sched.plan.tile
    assert tile.tc * 2 * 2 * 2 <= ub_bytes()          # two double-buffered fp16 tiles per slot fit UB


def test_three_dimensional_elementwise_is_flattened():
    shape = (7, 33, 65)
    a, b = ph(shape, "float32", "a"), ph(shape, "float32", "b")
    x, y = _rand(shape, "float32"), _rand(shape, "float32")
    result = run(binary("max", a, b), [a, b], [x, y])
    assert result.sched.classification == "elewise"
    assert np.array_equal(result.outputs[0], np.maximum(x, y))
