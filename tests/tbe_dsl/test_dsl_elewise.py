"""Element-wise DSL functions against numpy (TVM/LLVM on the CPU), with their contract tags and attrs."""
import numpy as np
import pytest
from tvm import te

import te_compat.dsl as dsl
from te_compat.graph import extract

SHAPES = [(37,), (3, 45), (2, 3, 17)]


def _inputs(shape, dtype, count, seed=0, positive=False):
    rng = np.random.default_rng(seed)
    tensors, arrays = [], []
    for n in range(count):
        tensors.append(te.placeholder(shape, dtype, name=f"in{n}"))
        if dtype.startswith("int"):
            data = rng.integers(-50, 50, size=shape)
        else:
            data = rng.standard_normal(shape) * 3
            if positive:
                data = np.abs(data) + 0.25
        arrays.append(data.astype(dtype))
    return tensors, arrays


def _close(actual, expected, dtype):
    if dtype.startswith("int"):
        np.testing.assert_array_equal(actual, expected.astype(dtype))
    else:
        tol = 2e-3 if dtype == "float16" else 1e-5
        np.testing.assert_allclose(actual.astype(np.float64), expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_unary_float_ops(run, shape, dtype, chip910):
    (x,), (a,) = _inputs(shape, dtype, 1, positive=True)
    outs = [dsl.vabs(x), dsl.vexp(x), dsl.vlog(x), dsl.vrec(x), dsl.vsqrt(x), dsl.vrsqrt(x, priority_flag=1),
            dsl.vlrelu(x, 0.1)]
    results = run([x], outs, [a])
    wide = a.astype(np.float64)
    expected = [np.abs(wide), np.exp(wide), np.log(wide), 1 / wide, np.sqrt(wide), 1 / np.sqrt(wide), wide]
    for out, result, want in zip(outs, results, expected):
        assert str(out.dtype) == dtype
        _close(result, want, dtype)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_vrelu_and_leaky_relu_on_signed_data(run, dtype, chip910):
    (x,), (a,) = _inputs((5, 33), dtype, 1, seed=3)
    outs = [dsl.vrelu(x), dsl.vlrelu(x, 0.2), dsl.vlrelu(x, 2.0), dsl.vlrelu(x, 0)]
    relu, leaky, steep, zero_slope = run([x], outs, [a])
    wide = a.astype(np.float64)
    _close(relu, np.maximum(wide, 0), "float16")
    _close(leaky, np.where(wide > 0, wide, wide * float(np.dtype(dtype).type(0.2))), dtype)
    _close(steep, np.where(wide > 0, wide, 2 * wide), dtype)
    _close(zero_slope, np.maximum(wide, 0), dtype)
    assert str(outs[0].dtype) == "float16"  # vrelu is float16-only: float32 is computed in float16
    assert [n.tag for n in extract(outs[1]).nodes][1:] == ["elewise_single_VS_mul", "elewise_binary_max"]
    assert extract(outs[2]).nodes[-1].tag == "elewise_binary_min"


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_binary_ops(run, shape, dtype, chip910):
    (x, y), (a, b) = _inputs(shape, dtype, 2, seed=1)
    outs = [dsl.vadd(x, y), dsl.vsub(x, y), dsl.vmul(x, y), dsl.vmax(x, y), dsl.vmin(x, y), dsl.vaddrelu(x, y),
            dsl.vsubrelu(x, y)]
    wa, wb = a.astype(np.float64), b.astype(np.float64)
    expected = [wa + wb, wa - wb, wa * wb, np.maximum(wa, wb), np.minimum(wa, wb), np.maximum(wa + wb, 0),
                np.maximum(wa - wb, 0)]
    for out, result, want in zip(outs, run([x, y], outs, [a, b]), expected):
        assert str(out.dtype) == dtype
        _close(result, want, dtype)
    assert [extract(o).nodes[-1].tag for o in outs[:5]] == [
        "elewise_binary_add", "elewise_binary_sub", "elewise_binary_mul", "elewise_binary_max", "elewise_binary_min"]


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_vdiv_and_vmod(run, dtype, chip):
    (x, y), (a, b) = _inputs((4, 29), dtype, 2, seed=2)
    b = np.where(np.abs(b) < 0.5, 1.5, b).astype(dtype)
    import npusim.sim
    npusim.sim.set_chip(chip)
    try:
        outs = [dsl.vdiv(x, y), dsl.vmod(x, y)]
    finally:
        npusim.sim.set_chip(None)
    div, mod = run([x, y], outs, [a, b])
    wa, wb = a.astype(np.float64), b.astype(np.float64)
    _close(div, wa / wb, dtype)
    if chip == "Ascend310":  # the mini path computes in float16 (vcmp/vsel are float16-only there)
        wa, wb = (v.astype(np.float16).astype(np.float64) for v in (a, b))
    np.testing.assert_allclose(mod.astype(np.float64), np.mod(wa, wb), atol=5e-3 if dtype == "float16" or
                               chip == "Ascend310" else 1e-5)
    assert outs[0].op.tag == ("elewise_binary_div" if chip == "Ascend910" else "elewise_binary_mul")


def test_bitwise_ops_on_int16(run, chip910):
    x = te.placeholder((3, 40), "int16", name="x")
    y = te.placeholder((3, 40), "int16", name="y")
    rng = np.random.default_rng(5)
    a = rng.integers(-3000, 3000, (3, 40)).astype(np.int16)
    b = rng.integers(-3000, 3000, (3, 40)).astype(np.int16)
    outs = [dsl.vand(x, y), dsl.vor(x, y), dsl.vnot(x)]
    land, lor, lnot = run([x, y], outs, [a, b])
    np.testing.assert_array_equal(land, a & b)
    np.testing.assert_array_equal(lor, a | b)
    np.testing.assert_array_equal(lnot, ~a)
    assert [o.op.tag for o in outs] == ["elewise_binary_and", "elewise_binary_or", "elewise_single_not"]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_tensor_scalar_ops_record_the_scalar_as_the_dtype_holds_it(run, dtype, chip910):
    (x,), (a,) = _inputs((7, 19), dtype, 1, seed=4)
    outs = [dsl.vadds(x, 0.1), dsl.vmuls(x, -1.7), dsl.vmaxs(x, 0.5), dsl.vmins(x, te.const(-0.25, "float32"))]
    held = [float(np.dtype(dtype).type(v)) for v in (0.1, -1.7, 0.5, -0.25)]
    wide = a.astype(np.float64)
    expected = [wide + held[0], wide * held[1], np.maximum(wide, held[2]), np.minimum(wide, held[3])]
    for out, result, want, scalar, op in zip(outs, run([x], outs, [a]), expected, held, ("add", "mul", "max", "min")):
        _close(result, want, dtype)
        node = extract(out).nodes[-1]
        assert node.tag == f"elewise_single_VS_{op}" and node.attrs == {"scalar": scalar}


def test_tensor_scalar_promotes_int32_to_float32_on_910(run, chip910):
    x = te.placeholder((3, 9), "int32", name="x")
    out = dsl.vmuls(x, 0.5)
    a = np.arange(27, dtype=np.int32).reshape(3, 9) - 13
    result, = run([x], [out], [a])
    assert str(out.dtype) == "float32"
    np.testing.assert_array_equal(result, a * 0.5)
    assert [(n.tag, n.attrs.get("round_mode")) for n in extract(out).nodes] == [
        ("", None), ("elewise_single_cast", "none"), ("elewise_single_VS_mul", None)]


@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_ternary_ops(run, dtype, chip910):
    (x, y, z), (a, b, c) = _inputs((6, 21), dtype, 3, seed=6)
    outs = [dsl.vaxpy(x, y, 1.5), dsl.vmla(x, y, z), dsl.vmadd(x, y, z), dsl.vmaddrelu(x, y, z)]
    wa, wb, wc = (v.astype(np.float64) for v in (a, b, c))
    expected = [1.5 * wa + wb, wa * wb + wc, wa * wc + wb, np.maximum(wa * wc + wb, 0)]
    for out, result, want in zip(outs, run([x, y, z], outs, [a, b, c]), expected):
        np.testing.assert_allclose(result.astype(np.float64), want, rtol=5e-3, atol=2e-2 if dtype == "float16" else 1e-5)
    assert [o.op.tag for o in outs] == ["elewise_binary_scalar_axpy", "elewise_multiple_mla", "elewise_multiple_madd",
                                        "elewise_multiple_maddrelu"]
    assert extract(outs[0]).nodes[-1].attrs == {"scalar": 1.5}
    assert [t.name for t in outs[2].op.input_tensors] == ["in0", "in1", "in2"]


def test_vrec_has_newton_steps_two_on_cloud_one_on_mini(chip910):
    x = te.placeholder((16,), "float16", name="x")
    assert [n.tag for n in extract(dsl.vrec(x)).nodes[1:]] == ["elewise_single_rec"] + [
        "elewise_binary_mul", "elewise_single_VS_mul", "elewise_single_VS_add", "elewise_binary_mul"] * 2
    import npusim.sim
    npusim.sim.set_chip("Ascend310")
    assert len(extract(dsl.vrec(x)).nodes) == 1 + 1 + 4
