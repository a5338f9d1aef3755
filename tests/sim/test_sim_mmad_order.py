"""mmad's float accumulation is fixed by the instruction, not by the host's BLAS: per K0 chunk the exact sum of its
products rounded once to float32, the chunks added in float32 in K order (onto C's old contents with is_bias).
Checked bit for bit against a plain reference written with exact fractions."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from npusim.sim.isa.cube import _semantics
from sim_helpers import pack_a, pack_b, unpack_c


def _reference(a, b, k, c_old=None) -> np.ndarray:
    m, n = a.shape[0], b.shape[1]
    out = np.zeros((m, n), np.float32) if c_old is None else c_old.astype(np.float32).copy()
    first = c_old is None
    for start in range(0, k, 16):
        stop = min(start + 16, k)
        for i in range(m):
            for j in range(n):
                exact = sum(Fraction(float(a[i, t])) * Fraction(float(b[t, j])) for t in range(start, stop))
                chunk = np.float32(float(exact))     # float(Fraction) rounds to nearest; then to float32
                out[i, j] = chunk if first else np.float32(out[i, j] + chunk)
        first = False
    return out


@pytest.mark.parametrize("m, k, n, bias", [(16, 48, 16, False), (20, 37, 18, True), (16, 16, 32, True)])
def test_chunked_float32_accumulation_bit_for_bit(m, k, n, bias):
    rng = np.random.default_rng(k)
    a = (rng.standard_normal((m, k)) * np.exp2(rng.integers(-8, 9, (m, k)))).astype(np.float16)
    b = (rng.standard_normal((k, n)) * np.exp2(rng.integers(-8, 9, (k, n)))).astype(np.float16)
    pa, pb = pack_a(a), pack_b(b)
    m1, k1, n1 = pa.shape[0], pa.shape[1], pb.shape[1]
    c_old = rng.standard_normal((n1, m1, 16, 16)).astype(np.float32)
    got = _semantics(pa.reshape(-1), pb.reshape(-1), c_old.reshape(-1), (16, 16), (m1, k1, n1, 16), k, bias,
                     np.dtype(np.float32)).reshape(n1, m1, 16, 16)
    old = unpack_c(c_old, m, n) if bias else None
    want = _reference(a.astype(np.float64), b.astype(np.float64), k, old)
    assert unpack_c(got, m, n).tobytes() == want.tobytes()


def test_reduction_rows_past_matrix_k_take_no_part():
    """B's rows past matrix_k (old L0B contents, here inf) must not reach C (0 * inf would be NaN)."""
    m, k, n = 16, 20, 16
    rng = np.random.default_rng(3)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    pa, pb = pack_a(a), pack_b(b)
    pb_dirty = pb.copy()
    pb_dirty[1, :, :, k - 16:] = np.inf               # K chunk 1, reduction rows 20..31
    m1, k1, n1 = pa.shape[0], pa.shape[1], pb.shape[1]
    args = ((16, 16), (m1, k1, n1, 16), k, False, np.dtype(np.float32))
    clean = _semantics(pa.reshape(-1), pb.reshape(-1), None, *args)
    dirty = _semantics(pa.reshape(-1), pb_dirty.reshape(-1), None, *args)
    assert np.isfinite(dirty).all() and dirty.tobytes() == clean.tobytes()
