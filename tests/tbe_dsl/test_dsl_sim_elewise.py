"""Every element-wise DSL function through auto_schedule on the simulated device (vector instructions only),
against numpy: tail shapes (rows not whole 32-byte blocks), a size far beyond UB (multi-core + several tiles),
float16 / float32 / int dtypes, with the Ascend910 and Ascend310 auto-cast rules."""
import numpy as np
import pytest

import npusim.sim
import te_compat.dsl as dsl
from dsl_on_sim import (BIG_2D, TAIL_1D, TAIL_2D, as_computed, assert_engages_tiling_and_cores, big_shape, close,
                        data, placeholders, simulate)



def computed_dtype(rule: str, chip: str, dtype: str) -> str:
    """The dtype an op computes in and returns, per the chip tables (the test's own statement of TBE's rule)."""
    if rule == "same":
        return dtype
    if rule == "fp16":                      # vrelu: float16 only on both chips
        return "float16"
    if rule == "cloud_fp32":                # vexp / vln / vsqrt / vrsqrt: float32 only on the cloud chip
        return dtype if chip == "Ascend910" or dtype == "float16" else "float16"
    if rule == "float":                     # int inputs promoted: float32 where int32 -> float32 is one vconv
        if dtype in ("float16", "float32"):
            return dtype
        return "float32" if chip == "Ascend910" else "float16"
    if rule == "max_min":                   # vmaxs/vmins: TBE checks vmax/vmin on chips without them (int32 kept)
        return dtype
    raise ValueError(rule)


UNARY = {
    "vabs": (dsl.vabs, np.abs, "same", {}),
    "vexp": (dsl.vexp, np.exp, "cloud_fp32", {"low": -3, "high": 3}),
    "vlog": (dsl.vlog, np.log, "cloud_fp32", {"low": 0.1, "high": 9}),
    "vrec": (dsl.vrec, lambda v: 1 / v, "same", {"away_from_zero": 0.3}),
    "vrelu": (dsl.vrelu, lambda v: np.maximum(v, 0), "fp16", {}),
    "vsqrt": (dsl.vsqrt, np.sqrt, "cloud_fp32", {"low": 0.01, "high": 9}),
    "vrsqrt": (dsl.vrsqrt, lambda v: 1 / np.sqrt(v), "cloud_fp32", {"low": 0.05, "high": 9}),
    "vlrelu_0.1": (lambda x: dsl.vlrelu(x, 0.1), lambda v: np.where(v > 0, v, v * 0.1), "same", {}),
    "vlrelu_2": (lambda x: dsl.vlrelu(x, 2.0), lambda v: np.where(v > 0, v, 2 * v), "same", {}),
    "vadds": (lambda x: dsl.vadds(x, 1.25), lambda v: v + 1.25, "float", {}),
    "vmuls": (lambda x: dsl.vmuls(x, -0.75), lambda v: v * -0.75, "float", {}),
    # the scalar in the computed dtype (an int32 tensor gets int32(0.5) == 0, as tvm.const(0.5, "int32") in TBE)
    "vmaxs": (lambda x: dsl.vmaxs(x, 0.5), lambda v: np.maximum(v, v.dtype.type(0.5)), "max_min", {}),
    "vmins": (lambda x: dsl.vmins(x, -0.5), lambda v: np.minimum(v, v.dtype.type(-0.5)), "max_min", {}),
    "clip": (lambda x: dsl.clip(x, 1.5, -0.25), lambda v: np.clip(v, -0.25, 1.5), "same", {}),
    "round_to": (lambda x: dsl.round_to(x, 2.0, -1.0), lambda v: np.clip(v, -1.0, 2.0), "same", {}),
}
BINARY = {
    "vadd": (dsl.vadd, np.add, ("float16", "float32", "int32")),
    "vsub": (dsl.vsub, np.subtract, ("float16", "float32", "int32")),
    "vmul": (dsl.vmul, np.multiply, ("float16", "float32", "int32")),
    "vmax": (dsl.vmax, np.maximum, ("float16", "float32", "int32")),
    "vmin": (dsl.vmin, np.minimum, ("float16", "float32", "int32")),
    "vaddrelu": (dsl.vaddrelu, lambda a, b: np.maximum(a + b, 0), ("float16", "float32", "int32")),
    "vsubrelu": (dsl.vsubrelu, lambda a, b: np.maximum(a - b, 0), ("float16", "float32", "int32")),
    "vdiv": (dsl.vdiv, np.divide, ("float16", "float32")),
}
TERNARY = {
    "vaxpy": (lambda a, b, c: dsl.vaxpy(a, b, 1.5), lambda a, b, c: 1.5 * a + b),
    "vmla": (dsl.vmla, lambda a, b, c: a * b + c),
    "vmadd": (dsl.vmadd, lambda a, b, c: a * c + b),
    "vmaddrelu": (dsl.vmaddrelu, lambda a, b, c: np.maximum(a * c + b, 0)),
}


def _int_range(dtype):
    return {"low": -1000, "high": 1000} if dtype == "int32" else {}


def _run_unary(name, dtype, shape, chip):
    func, ref, rule, kwargs = UNARY[name]
    (x,) = placeholders(shape, [dtype])
    a = data(shape, dtype, **(kwargs or _int_range(dtype)))
    out = func(x)
    want = computed_dtype(rule, chip, dtype)
    assert str(out.dtype) == want
    result = simulate(out, [x], [a])
    close(result.outputs[0], ref(as_computed(a, want)), want, 3)
    return result


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("shape", [TAIL_2D, TAIL_1D])
def test_unary_and_tensor_scalar_on_tails(chip, name, dtype, shape):
    _run_unary(name, dtype, shape, chip)


@pytest.mark.parametrize("name", ["vadds", "vmuls", "vmaxs", "vmins"])
def test_tensor_scalar_promotes_int32(chip, name):
    """int32 vadds/vmuls are computed in a float dtype; int32 vmaxs/vmins stay int32 (TBE's vmax fallback)."""
    _run_unary(name, "int32", TAIL_2D, chip)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_unary_far_beyond_ub(chip, name, dtype):
    if chip == "Ascend310" and dtype == "float32":
        pytest.skip("covered on tails; float32 on the 310 is the float16 path after one vconv")
    assert_engages_tiling_and_cores(_run_unary(name, dtype, big_shape(chip), chip))


def _run_binary(name, dtype, shape):
    func, ref, _ = BINARY[name]
    x, y = placeholders(shape, [dtype, dtype])
    kwargs = _int_range(dtype) if dtype == "int32" else {}
    a = data(shape, dtype, seed=1, **kwargs)
    b = data(shape, dtype, seed=2, away_from_zero=0.5 if name == "vdiv" else 0.0, **kwargs)
    out = func(x, y)
    assert str(out.dtype) == dtype
    result = simulate(out, [x, y], [a, b])
    close(result.outputs[0], ref(as_computed(a, dtype), as_computed(b, dtype)), dtype, 3)
    return result


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float16", "float32", "int32"])
def test_binary_on_tails(chip, name, dtype):
    if dtype not in BINARY[name][2]:
        pytest.skip(f"{name} has no {dtype} form")
    _run_binary(name, dtype, TAIL_2D)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_binary_far_beyond_ub(chip, name, dtype):
    if chip == "Ascend310" and dtype == "float32":
        pytest.skip("covered on tails")
    assert_engages_tiling_and_cores(_run_binary(name, dtype, big_shape(chip)))


def test_int32_binary_far_beyond_ub():
    npusim.sim.set_chip("Ascend910")
    try:
        assert_engages_tiling_and_cores(_run_binary("vmul", "int32", BIG_2D))
    finally:
        npusim.sim.set_chip(None)


@pytest.mark.parametrize("name", sorted(TERNARY))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("big", [False, True])
def test_ternary(chip, name, dtype, big):
    if big and (chip, dtype) == ("Ascend310", "float32"):
        pytest.skip("covered on tails")
    shape = big_shape(chip) if big else TAIL_2D
    func, ref = TERNARY[name]
    tensors = placeholders(shape, [dtype] * 3)
    arrays = [data(shape, dtype, seed=s, low=-2, high=2) for s in (3, 4, 5)]
    out = func(*tensors)
    assert str(out.dtype) == dtype
    result = simulate(out, tensors, arrays)
    close(result.outputs[0], ref(*(as_computed(a, dtype) for a in arrays)), dtype, 5)
    if big:
        assert_engages_tiling_and_cores(result)


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("big", [False, True])
def test_vmod(chip, dtype, big):
    if big and (chip, dtype) == ("Ascend310", "float32"):
        pytest.skip("covered on tails")
    shape = big_shape(chip) if big else TAIL_2D
    x, y = placeholders(shape, [dtype, dtype])
    rng = np.random.default_rng(6)
    rhs = np.where(rng.random(shape) < 0.5, -1, 1) * rng.uniform(0.5, 3, shape)
    quotient = rng.integers(-6, 6, shape) + rng.uniform(0.15, 0.85, shape)   # away from integer boundaries
    b = rhs.astype(dtype)
    a = (quotient * b.astype(np.float64)).astype(dtype)
    out = dsl.vmod(x, y)
    want = computed_dtype("cloud_fp32", chip, dtype)     # the mini path compares and selects in float16
    assert str(out.dtype) == want
    result = simulate(out, [x, y], [a, b])
    wa, wb = as_computed(a, want), as_computed(b, want)
    close(result.outputs[0], wa - np.floor(wa / wb) * wb, want, 10)
    if big:
        assert_engages_tiling_and_cores(result)


@pytest.mark.parametrize("name", ["vand", "vor", "vnot"])
@pytest.mark.parametrize("dtype", ["int16", "uint16"])
@pytest.mark.parametrize("big", [False, True])
def test_bitwise(chip, name, dtype, big):
    shape = big_shape(chip) if big else TAIL_2D
    x, y = placeholders(shape, [dtype, dtype])
    bounds = {"low": -30000, "high": 30000} if dtype == "int16" else {"low": 0, "high": 65535}
    a, b = data(shape, dtype, seed=7, **bounds), data(shape, dtype, seed=8, **bounds)
    out = {"vand": lambda: dsl.vand(x, y), "vor": lambda: dsl.vor(x, y), "vnot": lambda: dsl.vnot(x)}[name]()
    expected = {"vand": a & b, "vor": a | b, "vnot": ~a}[name]
    result = simulate(out, [x, y] if name != "vnot" else [x], [a, b] if name != "vnot" else [a])
    close(result.outputs[0], expected, dtype)
    if big:
        assert_engages_tiling_and_cores(result)


def test_same_tensor_as_both_operands(chip):
    (x,) = placeholders(TAIL_2D, ["float16"])
    a = data(TAIL_2D, "float16")
    result = simulate([dsl.vmul(x, x), dsl.vmla(x, x, x)], [x], [a])
    wide = as_computed(a, "float16")
    close(result.outputs[0], wide * wide, "float16", 3)
    close(result.outputs[1], wide * wide + wide, "float16", 5)
