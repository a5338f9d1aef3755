"""Every vconv conversion every chip model lists, bit-exact against a reference written independently of the
simulator's rounding code: directed float rounding picks between the two neighbouring float16 values found in a
table of all of them, integer rounding uses Python's math, int->float32 uses C's double->float conversion.  Float
results are IEEE, then saturated (inf -> +-max, NaN -> 0) when the chip runs in saturation mode."""
import bisect
import math
import re
import struct

import numpy as np
import pytest

from npusim.sim import chip_names, get_chip
from sim_helpers import run_on_ub

RNG = np.random.default_rng(5)
SHORT = {"f16": "float16", "f32": "float32", "s8": "int8", "u8": "uint8", "s16": "int16", "s32": "int32"}
KEY = re.compile(r"^(f16|f32|s8|u8|s16|s32)2(f16|f32|s8|u8|s16|s32)([razfco]?)$")
F16_MAGNITUDES = sorted({float(v) for v in np.arange(0x7C00, dtype=np.uint16).view(np.float16)})  # 0 .. 65504
F16_MAX = 65504.0

SPECIAL = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49, 3.7, -3.7, 127.5, 128.0, -128.5, -129.0, 255.5, 256.0,
           300.0, -300.0, 1 + 2**-11, 1 + 3 * 2**-11, -(1 + 2**-11), 2049.0, 2051.0, 32767.5, -32768.5, 65504.0,
           65519.0, 65520.0, 1e6, -1e6, 3e9, -3e9, 2147483520.0, 2**-30, -2**-30, 6e-8, -6e-8,
           math.inf, -math.inf, math.nan]


def source_values(src: str, count: int) -> np.ndarray:
    dt = np.dtype(src)
    if dt.kind == "f":
        special = np.array(SPECIAL, dtype=np.float64)
        spread = RNG.standard_normal(count) * np.exp2(RNG.integers(-12, 20, count))
        with np.errstate(over="ignore"):                 # 1e6 and beyond become +-inf in float16: wanted
            return np.concatenate([special, spread])[:count].astype(dt)
    info = np.iinfo(dt)
    edges = np.array([info.min, info.max, 0, 1, -1 if info.min < 0 else 2, 2049, 16777217, -16777217, 2**30 + 65],
                     dtype=np.int64)
    edges = np.clip(edges, info.min, info.max)
    return np.concatenate([edges, RNG.integers(info.min, info.max, count, endpoint=True)])[:count].astype(dt)


def _nearest(x: float, lo: float, hi: float, odd_lo: bool, ties: str) -> float:
    if x - lo < hi - x:
        return lo
    if hi - x < x - lo:
        return hi
    if ties == "away":
        return hi
    return hi if odd_lo else lo              # ties to even: the even neighbour


def ref_f16_overflow(magnitude: float, negative: bool, mode: str) -> float:
    """IEEE float16 magnitude for a value above 65504: the nearest modes overflow from 65520 (the midpoint to
    2**16) on; a directed mode overflows only when it rounds away from zero; round-to-odd keeps 65504 (odd)."""
    if mode in ("", "r", "a"):
        return math.inf if magnitude >= 65520 else F16_MAX
    away_from_zero = {"f": negative, "c": not negative, "z": False, "o": False}[mode]
    return math.inf if away_from_zero else F16_MAX


def ref_to_f16(x: float, mode: str) -> float:
    """float -> float16 by mode, IEEE 754."""
    if math.isnan(x) or math.isinf(x):
        return x
    magnitude, negative = abs(x), math.copysign(1.0, x) < 0
    i = bisect.bisect_left(F16_MAGNITUDES, magnitude)
    if i == len(F16_MAGNITUDES):
        result = ref_f16_overflow(magnitude, negative, mode)
    elif F16_MAGNITUDES[i] == magnitude:
        result = magnitude
    else:
        lo, hi = F16_MAGNITUDES[i - 1], F16_MAGNITUDES[i]
        odd_lo = (i - 1) % 2 == 1           # bit patterns count up with the magnitude
        toward_zero = {"f": not negative, "c": negative, "z": True}     # directed modes, on the magnitude
        if mode in toward_zero:
            result = lo if toward_zero[mode] else hi
        elif mode == "o":
            result = lo if odd_lo else hi
        else:
            result = _nearest(magnitude, lo, hi, odd_lo, "away" if mode == "a" else "even")
    return -result if negative else result


def ref_round_integral(x: float, mode: str) -> float:
    if mode in ("", "r"):
        return float(round(x))              # Python rounds half to even
    if mode == "a":
        return math.copysign(math.floor(abs(x) + 0.5), x)
    return float({"f": math.floor, "c": math.ceil, "z": math.trunc}[mode](x))


def ref_to_int(x: float, dst: np.dtype, mode: str) -> int:
    info = np.iinfo(dst)
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return info.max if x > 0 else info.min
    return int(min(max(ref_round_integral(x, mode), info.min), info.max))


def ref_to_f32(x) -> float:
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def ref_saturate(out: np.ndarray) -> np.ndarray:
    big = np.finfo(out.dtype).max
    return np.where(np.isnan(out), 0, np.where(np.isinf(out), np.where(out > 0, big, -big), out)).astype(out.dtype)


def reference(values: np.ndarray, src: np.dtype, dst: np.dtype, mode: str, saturates: bool) -> np.ndarray:
    out = np.empty(values.size, dtype=dst)
    for i, value in enumerate(values.tolist()):
        if dst.kind in "iu":
            out[i] = ref_to_int(value, dst, mode)
        elif dst == np.float16:
            out[i] = np.float16(ref_to_f16(float(value), mode))     # exact: the reference picked an f16 value
        elif src == np.float32 and dst == np.float32:
            out[i] = value if not math.isfinite(value) else math.copysign(ref_round_integral(value, mode), value)
        else:
            out[i] = ref_to_f32(value)
    return ref_saturate(out) if saturates and dst.kind == "f" else out


CASES = sorted({(name, key, overflow) for name in chip_names() for key in get_chip(name).isa["vconv"]
                for overflow in get_chip(name).overflow_modes if key != "deq"})


@pytest.mark.parametrize("chip_name,key,overflow", CASES, ids=[f"{c}-{k}-{o}" for c, k, o in CASES])
def test_every_conversion_bit_exact(chip_name, key, overflow):
    src_short, dst_short, mode = KEY.match(key).groups()
    src, dst = np.dtype(SHORT[src_short]), np.dtype(SHORT[dst_short])
    lanes = 256 // max(src.itemsize, dst.itemsize)
    repeat = 3
    values = source_values(src.name, lanes * repeat)
    img = np.zeros(32768, np.uint8)
    img[:values.nbytes] = values.view(np.uint8)
    dst_start = 16384 // dst.itemsize
    ops = dict(mask=lanes, round_mode=mode, dst=(dst_start, dst.name), src=(0, src.name), repeat_times=repeat,
               dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=lanes * dst.itemsize // 32,
               src_rep_stride=lanes * src.itemsize // 32)
    out, _ = run_on_ub("vconv", img, ops, chip=chip_name, overflow_mode=overflow)
    got = out[16384:16384 + values.size * dst.itemsize].view(dst)
    want = reference(values, src, dst, mode, overflow == "saturation")
    if dst.kind == "f":
        nan = np.isnan(want)
        assert np.array_equal(np.isnan(got), nan)
        got, want = got[~nan], want[~nan]
    assert np.array_equal(got.view(f"u{dst.itemsize}"), want.view(f"u{dst.itemsize}")), (
        [(v, g, w) for v, g, w in zip(values[:got.size], got, want) if g != w][:5])


def test_the_issue_modes_exist_for_float_to_int32():
    for name in ("Ascend910", "Ascend910B1", "Ascend310P3"):
        keys = get_chip(name).isa["vconv"]
        assert {f"f162s32{m}" for m in "razfc"} <= keys and {f"f322s32{m}" for m in "razfc"} <= keys
    assert "s322f32" in get_chip("Ascend910").isa["vconv"]
