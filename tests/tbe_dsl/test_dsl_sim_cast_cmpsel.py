"""Casts, roundings, compare / select / logic through auto_schedule on the simulated device against numpy, on
Ascend910 and Ascend310 (their different vconv tables), tails and sizes far beyond UB."""
import numpy as np
import pytest

import te_compat.dsl as dsl
from dsl_on_sim import (TAIL_2D, as_computed, assert_engages_tiling_and_cores, big_shape, close, data,
                        placeholders, simulate)

TIES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, 0.49, -0.51, 3.7, -3.7, 1023.5, -1023.5, 1025.0, -1027.0, 7e-6, -7e-6]
ROUNDERS = {"floor": np.floor, "ceil": np.ceil, "round": np.round, "trunc": np.trunc,
            "round_d": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
            "round_half_up": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
            "cast_to_int32": np.trunc, "cast_to_round": np.round}
CMP = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "gt": np.greater, "ge": np.greater_equal,
       "le": np.less_equal}


def _rounder(name, x):
    if name == "cast_to_int32":
        return dsl.cast_to(x, "int32")
    if name == "cast_to_round":
        return dsl.cast_to_round(x, "int32")
    return getattr(dsl, name)(x)


@pytest.mark.parametrize("name", sorted(ROUNDERS))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("big", [False, True])
def test_rounding_to_int32(chip, name, dtype, big):
    if big and dtype == "float32" and chip == "Ascend310":
        pytest.skip("covered on tails")
    shape = big_shape(chip) if big else (len(TIES) * 3, 37)
    (x,) = placeholders(shape, [dtype])
    rng = np.random.default_rng(1)
    values = rng.uniform(-300, 300, shape)
    values[:, :len(TIES)] = TIES      # halves, near-halves, signed zeros and small magnitudes in every row
    a = values.astype(dtype)
    if chip == "Ascend310":           # no float32 -> int32 vconv: the 310 rounds the float16 value, as TBE does
        a = a.astype(np.float16).astype(dtype)
    out = _rounder(name, x)
    assert str(out.dtype) == "int32"
    result = simulate(out, [x], [a])
    close(result.outputs[0], ROUNDERS[name](a.astype(np.float64)), "int32")
    if big:
        assert_engages_tiling_and_cores(result)


CAST_PAIRS = [(s, d) for s in ("float16", "float32", "int8", "uint8", "int32")
              for d in ("float16", "float32", "int8", "uint8", "int32")
              if s != d and not (s == "int32" and d in ("int8", "uint8"))]


@pytest.mark.parametrize("src,dst", CAST_PAIRS)
def test_cast_to_every_pair(chip, src, dst):
    shape = TAIL_2D
    (x,) = placeholders(shape, [src])
    bounds = {"int8": (-128, 128), "uint8": (0, 256)}.get(dst, (-1000, 1000))
    if src in ("int8", "uint8"):
        bounds = (max(bounds[0], {"int8": -128, "uint8": 0}[src]), min(bounds[1], {"int8": 128, "uint8": 256}[src]))
    a = data(shape, src, seed=2, low=bounds[0], high=bounds[1])
    if src.startswith("float") and dst in ("int8", "uint8"):
        a = np.trunc(a)                # f1628IntegerFlag=True: the data is promised integral
    out = dsl.cast_to(x, dst)
    assert str(out.dtype) == dst
    result = simulate(out, [x], [a])
    wide = a.astype(np.float64)
    if dst == "float16" or (src == "float32" and chip == "Ascend310" and dst != "float32"):
        wide = wide.astype(np.float16).astype(np.float64)
    close(result.outputs[0], np.trunc(wide) if dst in ("int8", "uint8", "int32") else wide, dst)


@pytest.mark.parametrize("dst", ["int8", "uint8"])
def test_int32_to_byte_wraps_on_the_scalar_pipe(chip, dst):
    (x,) = placeholders(TAIL_2D, ["int32"])
    a = data(TAIL_2D, "int32", seed=3, low=-100000, high=100000)
    with pytest.warns(UserWarning, match="scalar pipe"):
        result = simulate(dsl.cast_to(x, dst), [x], [a], vector=False)
    assert result.sched.classification == "fallback"
    close(result.outputs[0], a.astype(dst), dst)


@pytest.mark.parametrize("op", sorted(CMP))
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("rhs", ["tensor", "scalar"])
def test_vcmp_to_bool(chip, op, dtype, rhs):
    x, y = placeholders(TAIL_2D, [dtype, dtype])
    a = np.round(data(TAIL_2D, dtype, seed=4), 0).astype(dtype)      # many equal pairs for eq / ne / ge / le
    b = np.round(data(TAIL_2D, dtype, seed=5), 0).astype(dtype)
    out = dsl.vcmp(x, y if rhs == "tensor" else 1.0, op)
    assert str(out.dtype) == "bool"
    result = simulate(out, [x, y] if rhs == "tensor" else [x], [a, b] if rhs == "tensor" else [a])
    computed = "float16" if chip == "Ascend310" else dtype
    other = as_computed(b, computed) if rhs == "tensor" else 1.0
    close(result.outputs[0], CMP[op](as_computed(a, computed), other), "bool")


@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("branches", ["tensors", "tensor_scalar", "scalar_tensor", "scalars"])
@pytest.mark.parametrize("big", [False, True])
def test_vsel_of_a_vcmp(chip, dtype, branches, big):
    if big and (dtype == "float32" or branches != "tensors"):
        pytest.skip("one big case per chip")
    shape = big_shape(chip) if big else TAIL_2D
    x, y = placeholders(shape, [dtype, dtype])
    a, b = data(shape, dtype, seed=6), data(shape, dtype, seed=7)
    cond = dsl.vcmp(x, y, "gt")
    lhs = x if branches in ("tensors", "tensor_scalar") else 2.5
    rhs = y if branches in ("tensors", "scalar_tensor") else -1.25
    out = dsl.vsel(cond, lhs, rhs)
    computed = str(out.dtype)
    assert computed == ("float16" if branches == "scalars" or chip == "Ascend310" else dtype)
    result = simulate(out, [x, y], [a, b])
    wa, wb = as_computed(a, computed), as_computed(b, computed)
    cond_ref = as_computed(a, "float16" if chip == "Ascend310" else dtype) > \
        as_computed(b, "float16" if chip == "Ascend310" else dtype)
    close(result.outputs[0], np.where(cond_ref, wa if not isinstance(lhs, float) else lhs,
                                      wb if not isinstance(rhs, float) else rhs), computed)
    if big:
        assert_engages_tiling_and_cores(result)


def test_vsel_with_a_bool_input_and_vcmpsel_forms(chip):
    x, y = placeholders(TAIL_2D, ["float16", "float16"])
    (cond,) = placeholders(TAIL_2D, ["bool"], ["cond"])
    a, b = data(TAIL_2D, "float16", seed=8), data(TAIL_2D, "float16", seed=9)
    c = data(TAIL_2D, "bool", seed=10)
    outs = [dsl.vsel(cond, x, y), dsl.vcmpsel(x, y, "lt"), dsl.vcmpsel(x, 0.5, "ge", 1.0, 0.0),
            dsl.vcmpsel(x, y, "eq", y, x), dsl.vcmpsel(x)]
    result = simulate(outs, [x, y, cond], [a, b, c])
    wa, wb = as_computed(a, "float16"), as_computed(b, "float16")
    close(result.outputs[0], np.where(c, wa, wb), "float16")
    close(result.outputs[1], np.where(wa < wb, wa, wb), "float16")
    close(result.outputs[2], np.where(wa >= 0.5, 1.0, 0.0), "float16")
    close(result.outputs[3], np.where(wa == wb, wb, wa), "float16")
    close(result.outputs[4], np.where(wa < 2.0, wa, 0.0), "float16")


@pytest.mark.parametrize("big", [False, True])
def test_vlogic_and_or_not(chip, big):
    shape = big_shape(chip) if big else TAIL_2D
    x, y = placeholders(shape, ["float16", "float16"])
    (flag,) = placeholders(shape, ["bool"], ["flag"])
    a, b, f = data(shape, "float16", seed=11), data(shape, "float16", seed=12), data(shape, "bool", seed=13)
    gt, lt = dsl.vcmp(x, y, "gt"), dsl.vcmp(x, 0.0, "lt")
    both = dsl.vlogic(gt, flag, "logic_and")
    either = dsl.vlogic(gt, lt, "logic_or")
    neither = dsl.vlogic(either, operation="logic_not")
    picked = dsl.vsel(neither, x, y)
    result = simulate([both, either, neither, picked], [x, y, flag], [a, b, f])
    wa, wb = as_computed(a, "float16"), as_computed(b, "float16")
    close(result.outputs[0], (wa > wb) & f, "bool")
    close(result.outputs[1], (wa > wb) | (wa < 0), "bool")
    close(result.outputs[2], ~((wa > wb) | (wa < 0)), "bool")
    close(result.outputs[3], np.where(~((wa > wb) | (wa < 0)), wa, wb), "float16")
    if big:
        assert_engages_tiling_and_cores(result)


def test_bool_result_cast_to_numbers(chip):
    x, y = placeholders(TAIL_2D, ["float16", "float16"])
    a, b = data(TAIL_2D, "float16", seed=14), data(TAIL_2D, "float16", seed=15)
    mask = dsl.vcmp(x, y, "le")
    outs = [dsl.cast_to(mask, "float16"), dsl.cast_to(mask, "float32"), dsl.vmul(dsl.cast_to(mask, "float16"), x)]
    result = simulate(outs, [x, y], [a, b])
    le = (a.astype(np.float64) <= b.astype(np.float64)).astype(np.float64)
    close(result.outputs[0], le, "float16")
    close(result.outputs[1], le, "float32")
    close(result.outputs[2], le * a.astype(np.float64), "float16")


def test_bit_mode_compare_and_select_run_on_the_scalar_pipe(chip):
    shape = (4, 64)
    x, y = placeholders(shape, ["float16", "float16"])
    a, b = data(shape, "float16", seed=16), data(shape, "float16", seed=17)
    bits = dsl.vcmp(x, y, "lt", "bit")
    with pytest.warns(UserWarning, match="scalar pipe"):
        packed = simulate(bits, [x, y], [a, b], vector=False)
    want = np.packbits(a < b, axis=-1, bitorder="little")
    close(packed.outputs[0], want, "uint8")
    (mask,) = placeholders((4, 8), ["uint8"], ["mask"])
    with pytest.warns(UserWarning, match="scalar pipe"):
        chosen = simulate(dsl.vsel(mask, x, y), [mask, x, y], [want, a, b], vector=False)
    close(chosen.outputs[0], np.where(a < b, a, b).astype(np.float64), "float16")
