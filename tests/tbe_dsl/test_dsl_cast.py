"""cast_to and the rounding functions against numpy on both chips (TBE's chains through float16/float32)."""
import numpy as np
import pytest
from tvm import te

import npusim.sim
import te_compat.dsl as dsl
from te_compat.graph import extract

TIES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, 0.49, -0.51, 3.7, -3.7, 1023.5, -1023.5, 1025.0, -1027.0,
        7e-6, -7e-6]


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
def test_rounding_functions(run, chip, dtype):
    data = np.array(TIES * 3, dtype=dtype)
    npusim.sim.set_chip(chip)
    try:
        x = te.placeholder(data.shape, dtype, name="x")
        outs = [dsl.floor(x), dsl.ceil(x), dsl.round(x), dsl.round_d(x), dsl.round_half_up(x), dsl.trunc(x),
                dsl.cast_to(x, "int32")]
    finally:
        npusim.sim.set_chip(None)
    exact = data.astype(np.float64)
    expected = [np.floor(exact), np.ceil(exact), np.round(exact), _round_half_away(exact), _round_half_away(exact),
                np.trunc(exact), np.trunc(exact)]
    for out, result, want in zip(outs, run([x], outs, [data]), expected):
        assert str(out.dtype) == "int32"
        np.testing.assert_array_equal(result, want.astype(np.int32), err_msg=f"{out.op.tag} on {chip}")


def test_single_step_tags_on_910(chip910):
    x = te.placeholder((8,), "float32", name="x")
    tags = {name: [(n.tag, n.attrs) for n in extract(getattr(dsl, name)(x)).nodes[1:]]
            for name in ("floor", "ceil", "round", "round_d", "trunc")}
    assert tags == {"floor": [("elewise_single_floor", {"round_mode": "f"})],
                    "ceil": [("elewise_single_ceil", {"round_mode": "c"})],
                    "round": [("elewise_single_round", {"round_mode": "r"})],
                    "round_d": [("elewise_single_round_d", {"round_mode": "a"})],
                    "trunc": [("elewise_single_trunc", {"round_mode": "z"})]}
    cast = extract(dsl.cast_to(x, "int32")).nodes[-1]
    assert (cast.tag, cast.attrs, cast.dtype) == ("elewise_single_cast", {"round_mode": "z"}, "int32")


def test_310_float32_floor_goes_through_float16(chip310):
    x = te.placeholder((8,), "float32", name="x")
    assert [(n.tag, n.dtype) for n in extract(dsl.floor(x)).nodes[1:]] == [
        ("elewise_single_cast", "float16"), ("elewise_single_floor", "int32")]


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
def test_value_conversions(run, chip):
    rng = np.random.default_rng(11)
    f32 = (rng.standard_normal(40) * 100).astype(np.float32)
    i32 = rng.integers(-2000, 2000, 40).astype(np.int32)
    i8 = rng.integers(-128, 128, 40).astype(np.int8)
    u8 = rng.integers(0, 256, 40).astype(np.uint8)
    npusim.sim.set_chip(chip)
    try:
        xs = [te.placeholder((40,), d, name=d) for d in ("float32", "int32", "int8", "uint8")]
        outs = [dsl.cast_to(xs[0], "float16"), dsl.cast_to(dsl.cast_to(xs[0], "float16"), "float32"),
                dsl.cast_to(xs[1], "float32"), dsl.cast_to(xs[1], "float16"), dsl.cast_to(xs[2], "float32"),
                dsl.cast_to(xs[3], "int32"), dsl.cast_to(xs[2], "float16")]
        assert dsl.cast_to(xs[1], "int32") is xs[1]  # same dtype: the tensor itself
    finally:
        npusim.sim.set_chip(None)
    expected = [f32.astype(np.float16), f32.astype(np.float16).astype(np.float32), i32.astype(np.float32),
                i32.astype(np.float16), i8.astype(np.float32), u8.astype(np.int32), i8.astype(np.float16)]
    for out, result, want in zip(outs, run(xs, outs, [f32, i32, i8, u8]), expected):
        assert result.dtype == want.dtype
        np.testing.assert_array_equal(result, want, err_msg=f"{out.name} on {chip}")


def test_int32_to_int8_and_uint8_wrap(run, chip910):
    data = np.array([0, 1, 127, 128, 255, 256, -1, -128, -129, 1000, -1000, 70000], np.int32)
    x = te.placeholder(data.shape, "int32", name="x")
    outs = [dsl.cast_to(x, "int8"), dsl.cast_to(x, "uint8")]
    to_i8, to_u8 = run([x], outs, [data])
    np.testing.assert_array_equal(to_i8, data.astype(np.int8))
    np.testing.assert_array_equal(to_u8, data.astype(np.uint8))
    assert outs[0].op.tag == "cast_wrap"


@pytest.mark.parametrize("chip", ["Ascend910", "Ascend310"])
def test_float_to_int8_truncates(run, chip):
    integral = np.array([-128, -3, 0, 5, 127, 64, -64, 1], np.float16)
    fractional = np.array([2.7, -2.7, 0.5, -0.5, 126.9, -127.9, 3.0, 1.2], np.float16)
    npusim.sim.set_chip(chip)
    try:
        x = te.placeholder((8,), "float16", name="x")
        y = te.placeholder((8,), "float16", name="y")
        outs = [dsl.cast_to(x, "int8"), dsl.cast_to(y, "int8", f1628IntegerFlag=False),
                dsl.cast_to(dsl.vabs(y), "uint8", False)]
    finally:
        npusim.sim.set_chip(None)
    exact, frac, absolute = run([x, y], outs, [integral, fractional])
    np.testing.assert_array_equal(exact, integral.astype(np.int8))
    np.testing.assert_array_equal(frac, np.trunc(fractional.astype(np.float64)).astype(np.int8))
    np.testing.assert_array_equal(absolute, np.trunc(np.abs(fractional.astype(np.float64))).astype(np.uint8))


def test_cast_round_trip_as_op_code_writes_it(run, chip910):
    data = np.array([0.5, 1.5, 2.5, -0.5, -1.5, 1.7, -2.2, 1000.25] * 3, np.float32)
    x = te.placeholder(data.shape, "float32", name="x")
    out = dsl.cast_to(dsl.round(dsl.cast_to(x, "float16")), "float32")
    result, = run([x], [out], [data])
    np.testing.assert_array_equal(result, np.round(data.astype(np.float16)).astype(np.float32))
    assert [n.tag for n in extract(out).nodes[1:]] == ["elewise_single_cast", "elewise_single_round",
                                                       "elewise_single_cast"]


def test_cast_to_round_and_bool_source(run, chip910):
    data = np.array([0.5, 1.5, -2.5, 3.2], np.float16)
    x = te.placeholder((4,), "float16", name="x")
    rounded = dsl.cast_to_round(x, "float32")
    as_float = dsl.cast_to(dsl.vcmp(x, 1.0, "gt"), "float16")
    first, second = run([x], [rounded, as_float], [data])
    np.testing.assert_array_equal(first, np.round(data).astype(np.float32))
    np.testing.assert_array_equal(second, (data > 1).astype(np.float16))
