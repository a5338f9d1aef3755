"""The compiled float16 mmad (npusim/sim/isa/_native.pyx ``mmad_f16_f32``, used by npusim/sim/isa/cube.py) against
the numpy form it replaces, bit for bit: per K0 chunk the exact sum of its products rounded once to float32, the
chunks added in float32 in K order.  Both forms certify the float64 chunk sums with an exponent bound and redo
the sums that bound cannot vouch for exactly (integers); a sum whose float64 evaluation rounds is checked against
a reference written with exact fractions."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from npusim.sim.isa import cube
from npusim.sim.isa.saturate import saturate
from sim_helpers import pack_a, pack_b, unpack_c

native = pytest.importorskip("npusim.sim.isa._native")
ARGS_F32 = np.dtype(np.float32)


def _numpy_form(monkeypatch, *args):
    with monkeypatch.context() as patch:
        patch.setattr(cube, "_native_mmad", None)
        return cube._semantics(*args)


def _operands(rng, m, k, n, spread: int, zeros: float = 0.0):
    """float16 A (m x k) and B (k x n) with exponents spread over +-spread, some exact zeros and negative zeros."""
    a = np.clip(rng.standard_normal((m, k)) * np.exp2(rng.integers(-spread, spread + 1, (m, k))), -6e4, 6e4)
    b = np.clip(rng.standard_normal((k, n)) * np.exp2(rng.integers(-spread, spread + 1, (k, n))), -6e4, 6e4)
    a, b = a.astype(np.float16), b.astype(np.float16)
    if zeros:
        a[rng.random(a.shape) < zeros] = 0
        b[rng.random(b.shape) < zeros] = -0.0
    return a, b


@pytest.mark.parametrize("m, k, n, bias, spread, zeros", [
    (16, 64, 16, False, 0, 0.0), (32, 48, 48, True, 4, 0.1), (20, 37, 18, True, 12, 0.0),
    (48, 16, 32, False, 14, 0.3), (16, 100, 64, True, 24, 0.05), (64, 64, 32, False, 8, 0.0)])
@pytest.mark.parametrize("out_dtype", ["float32", "float16"])
def test_compiled_mmad_matches_numpy_form(monkeypatch, m, k, n, bias, spread, zeros, out_dtype):
    rng = np.random.default_rng(m * 1000 + k * 10 + spread)
    a, b = _operands(rng, m, k, n, spread, zeros)
    pa, pb = pack_a(a), pack_b(b)
    m1, k1, n1 = pa.shape[0], pa.shape[1], pb.shape[1]
    c_old = (rng.standard_normal((n1, m1, 16, 16)) * 100).astype(out_dtype).reshape(-1)
    args = (pa.reshape(-1), pb.reshape(-1), c_old, (16, 16), (m1, k1, n1, 16), k, bias, np.dtype(out_dtype))
    fast = cube._semantics(*args)
    slow = _numpy_form(monkeypatch, *args)
    assert fast.dtype == slow.dtype == np.dtype(out_dtype)
    assert fast.tobytes() == slow.tobytes()


def _round_f32(value: Fraction) -> np.float32:
    """``value`` rounded once to float32 (round half to even), for normal-range values."""
    if value == 0:
        return np.float32(0.0)
    mag = abs(value)
    exponent = mag.numerator.bit_length() - mag.denominator.bit_length()
    while Fraction(2) ** exponent > mag:
        exponent -= 1
    while Fraction(2) ** (exponent + 1) <= mag:
        exponent += 1
    scaled = mag / Fraction(2) ** (exponent - 23)       # in [2^23, 2^24)
    q, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and q & 1):
        q += 1
    result = np.float32(float(Fraction(q) * Fraction(2) ** (exponent - 23)))
    return -result if value < 0 else result


def test_sums_float64_would_round_are_exact(monkeypatch):
    """4096 * 4096 + 1 * 1 + 2^-24 * 2^-24 = 2^24 + 1 + 2^-48: float64 drops the last product and float32 then
    ties to 2^24; the exact sum rounds up to 2^24 + 2.  Both forms must give the exact rounding."""
    a = np.zeros((16, 16), np.float16)
    b = np.zeros((16, 16), np.float16)
    a[0, :3] = [4096, 1, 2.0 ** -24]
    b[:3, 0] = [4096, 1, 2.0 ** -24]
    a[1, :3] = [-4096, -1, 2.0 ** -24]               # -(2^24 + 1) + 2^-48: rounds to -2^24
    b[:3, 1] = [4096, 1, 2.0 ** -24]
    pa, pb = pack_a(a), pack_b(b)
    args = (pa.reshape(-1), pb.reshape(-1), None, (16, 16), (1, 1, 1, 16), 16, False, ARGS_F32)
    for got in (cube._semantics(*args), _numpy_form(monkeypatch, *args)):
        c = unpack_c(got.reshape(1, 1, 16, 16), 16, 16)
        assert c[0, 0] == np.float32(2 ** 24 + 2)
        assert c[1, 1] == np.float32(-(2 ** 24))
        assert c[0, 1] == np.float32(2 ** 24 + 2) and c[1, 0] == np.float32(-(2 ** 24))


def test_wide_spans_against_exact_reference(monkeypatch):
    """Rows mixing subnormal and near-maximum halves (the integer path) against exact fractions."""
    rng = np.random.default_rng(7)
    m, k, n = 16, 32, 16
    mags = np.exp2(rng.integers(-24, 16, (m, k))) * rng.choice([-1, 1], (m, k))
    a = mags.astype(np.float16)
    b = (np.exp2(rng.integers(-24, 16, (k, n))) * rng.choice([-1, 1], (k, n)) * 0.75).astype(np.float16)
    pa, pb = pack_a(a), pack_b(b)
    args = (pa.reshape(-1), pb.reshape(-1), None, (16, 16), (1, 2, 1, 16), k, False, ARGS_F32)
    want = np.zeros((m, n), np.float32)
    for i in range(m):
        for j in range(n):
            total = None
            for start in (0, 16):
                exact = sum(Fraction(float(a[i, t])) * Fraction(float(b[t, j])) for t in range(start, start + 16))
                chunk = _round_f32(exact)
                total = chunk if total is None else np.float32(total + chunk)
            want[i, j] = total
    for got in (cube._semantics(*args), _numpy_form(monkeypatch, *args)):
        assert unpack_c(got.reshape(1, 1, 16, 16), m, n).tobytes() == want.tobytes()


def test_native_refuses_inf_or_nan_operands_and_leaves_out_alone():
    a = np.ones(256, np.float16)
    b = np.ones(256, np.float16)
    a[5] = np.inf
    out = np.full(256, 7.0, np.float32)
    assert native.mmad_f16_f32(a.view(np.uint16), b.view(np.uint16), None, out, 1, 1, 1, 16) == 1
    assert (out == 7.0).all()
    a[5] = 1
    b[17] = np.nan
    assert native.mmad_f16_f32(a.view(np.uint16), b.view(np.uint16), None, out, 1, 1, 1, 16) == 1
    assert native.mmad_f16_f32(a.view(np.uint16), b.view(np.uint16), None, out, 1, 1, 1, 0) == -1
    assert native.mmad_f16_f32(a.view(np.uint16), b.view(np.uint16), None, out, 2, 1, 1, 16) == -1


def test_in_place_form_accumulates_and_saturates_old_inf(monkeypatch):
    """The in-place form writes C in place, onto its old contents; inf already in C is saturated as the numpy form
    saturates it (and left alone without a saturator)."""
    rng = np.random.default_rng(11)
    a, b = _operands(rng, 32, 48, 32, 6)
    pa, pb = pack_a(a).reshape(-1), pack_b(b).reshape(-1)
    old = rng.standard_normal(2 * 2 * 256).astype(np.float32)
    old[3], old[700] = np.inf, np.nan
    blocks = (2, 3, 2, 16)
    want = saturate(_numpy_form(monkeypatch, pa, pb, old.copy(), (16, 16), blocks, 48, True, ARGS_F32))
    run = cube._in_place_form("float16", "float16", ARGS_F32, (16, 16, 16), saturate)
    c = old.copy()
    assert run(pa, pb, c, blocks, 48, True)
    assert c.tobytes() == want.tobytes()
    ieee = cube._in_place_form("float16", "float16", ARGS_F32, (16, 16, 16), None)
    c = old.copy()
    assert ieee(pa, pb, c, blocks, 48, True)
    assert np.isposinf(c[3]) and np.isnan(c[700])
    fresh = np.empty_like(old)
    assert run(pa, pb, fresh, blocks, 48, False)
    assert fresh.tobytes() == _numpy_form(monkeypatch, pa, pb, None, (16, 16), blocks, 48, False,
                                          ARGS_F32).tobytes()


def test_in_place_form_only_for_float16_to_float32():
    assert cube._in_place_form("int8", "int8", np.dtype(np.int32), (16, 16, 32), None) is None
    assert cube._in_place_form("float16", "float16", np.dtype(np.float16), (16, 16, 16), None) is None


def test_inf_operands_keep_the_numpy_form(monkeypatch):
    rng = np.random.default_rng(5)
    a, b = _operands(rng, 16, 32, 16, 2)
    a[3, 7], b[20, 5] = np.inf, -np.inf
    pa, pb = pack_a(a), pack_b(b)
    args = (pa.reshape(-1), pb.reshape(-1), None, (16, 16), (1, 2, 1, 16), 32, False, ARGS_F32)
    assert cube._semantics(*args).tobytes() == _numpy_form(monkeypatch, *args).tobytes()


def test_gm_read_uneven_starts_matches_a_gather():
    """GM bursts of blocks whose starts do not step evenly are copied row by row; the bytes are those of the
    per-byte gather they replace."""
    from npusim.sim.isa.batch_moves import gm_read
    rng = np.random.default_rng(2)
    view = rng.integers(0, 256, 1 << 16, dtype=np.uint8)
    starts = np.array([0, 4096, 1024, 9000, 30000], np.int64)
    geometry = (5, 64, 512)                          # nburst, burst bytes, pitch
    got = gm_read(view, starts, geometry)
    pattern = (np.arange(5)[:, None] * 512 + np.arange(64)[None, :]).reshape(-1)
    want = view[starts[:, None] + pattern[None, :]].reshape(5, 5, 64)
    assert got.shape == want.shape and got.tobytes() == want.tobytes()
    view[:] = 0                                      # a copy, not a view
    assert got.tobytes() == want.tobytes()


def test_copy_grid_matches_the_numpy_local_move():
    """The compiled copy between two scopes' arenas gives the bytes of the numpy read-then-write it replaces, and
    refuses (-1, nothing written) bursts past a row, shared memory and differing row counts."""
    from npusim.sim.isa.batch_moves import _local_get, _local_put
    rng = np.random.default_rng(4)
    src = rng.integers(0, 256, (6, 40000), dtype=np.uint8)
    for geometry, s0, d0 in (((4, 512, 8192), 1024, 0), ((1, 24576, 24576), 0, 512), ((8, 32, 96), 64, 32)):
        nburst, burst, pitch = geometry
        want = rng.integers(0, 256, (6, 30000), dtype=np.uint8)
        got = want.copy()
        _local_put(want, None, d0, (nburst, burst, pitch + 32), _local_get(src, None, s0, geometry))
        assert native.copy_grid(got, d0, pitch + 32, src, s0, pitch, nburst, burst) == 0
        assert got.tobytes() == want.tobytes()
    before = got.copy()
    assert native.copy_grid(got, 29990, 0, src, 0, 0, 1, 64) == -1
    assert native.copy_grid(got, 0, 0, got[:, 100:], 0, 0, 1, 64) == -1
    assert native.copy_grid(got[:5], 0, 0, src, 0, 0, 1, 64) == -1
    assert got.tobytes() == before.tobytes()


def test_copy_gm_rows_matches_the_numpy_gm_to_local_move():
    """GM bursts at one start per block into a local arena: the bytes of gm_read then _local_put; refused (-1,
    nothing written) for a burst past GM or past a row and for a missing start."""
    from npusim.sim.isa.batch_moves import _local_put, gm_read
    rng = np.random.default_rng(8)
    gm = rng.integers(0, 256, 1 << 17, dtype=np.uint8)
    for starts, geometry, d0 in (([0, 8192, 2048, 40000], (8, 1024, 4096), 512), ([5, 5, 5, 5], (1, 3000, 3000), 0),
                                 ([0, 100, 200, 300], (3, 32, 64), 96)):
        starts = np.array(starts, np.int64)
        nburst, burst, pitch = geometry
        want = rng.integers(0, 256, (4, 20000), dtype=np.uint8)
        got = want.copy()
        _local_put(want, None, d0, (nburst, burst, burst + 16), gm_read(gm, starts, geometry))
        assert native.copy_gm_rows(got, d0, burst + 16, gm, starts, pitch, nburst, burst) == 0
        assert got.tobytes() == want.tobytes()
    before = got.copy()
    assert native.copy_gm_rows(got, 0, 0, gm, np.array([0, 0, 0, (1 << 17) - 10], np.int64), 0, 1, 64) == -1
    assert native.copy_gm_rows(got, 19990, 0, gm, np.zeros(4, np.int64), 0, 1, 64) == -1
    assert native.copy_gm_rows(got, 0, 0, gm, np.zeros(3, np.int64), 0, 1, 64) == -1
    assert got.tobytes() == before.tobytes()
