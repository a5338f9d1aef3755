# cython: boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Compiled host loops for the simulator's hottest paths; each has a numpy form that gives the same bytes, used
when this extension is not built (setup.py builds it) or an operand does not fit the loop.

``pair_tree_f32``: vcadd's adjacent-pair tree in one pass over float32 data (see npusim/sim/isa/dup_reduce.py).
Each row of ``lanes`` values is summed as the hardware's vcadd does and as dup_reduce's numpy levels do: level by
level, lane 2i + lane 2i+1, an odd count padded with +0.0, every sum rounded to float32.  IEEE float32 addition is
exact-then-rounded and commutative for finite values, so the results equal the numpy levels' bit for bit whenever
they are finite; the caller redoes rows with a non-finite result in numpy (NaN payloads and the chip's saturation
are decided there).

``copy_bursts``: a data_move's (rows x nburst x burst) byte grid copied burst by burst with memcpy (see
npusim/sim/isa/batch_moves.py), for operands that do not overlap; ``copy_grid`` / ``copy_gm_rows``: every block's
copy of one move between two scopes, or from GM, in one call (npusim/sim/isa/batch_cube_moves.py).

``binary_f32`` / ``binary_f16``: element-wise add, sub, mul (and for float16 div, max, min) as numpy's ufuncs give
them, with the non-finite check in the same pass (npusim/sim/isa/batch_vector.py); the float16 ones are in
_native_half.pxi.  ``mmad_f16_f32``: the cube's chunked exact accumulation (_native_mmad.pxi,
npusim/sim/isa/cube.py).
"""
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

cdef enum:
    _MAX_LANES = 1024

#: the longest row summed here (a repeat has at most 256 bytes of lanes); longer rows go to numpy
MAX_LANES = _MAX_LANES


def pair_tree_f32(const float[:, :, :, :] values, float[::1] out) -> None:
    """Write the pair-tree sum of every row values[a, b, c, :] to out[(a * B + b) * C + c] (C order); the lanes
    must be contiguous, the other axes may have any strides."""
    cdef Py_ssize_t size_a = values.shape[0], size_b = values.shape[1], size_c = values.shape[2]
    cdef Py_ssize_t lanes = values.shape[3]
    cdef Py_ssize_t a, b, c, k = 0
    if lanes < 1 or lanes > _MAX_LANES:
        raise ValueError(f"pair_tree_f32 sums rows of 1..{_MAX_LANES} lanes, not {lanes}")
    if out.shape[0] != size_a * size_b * size_c:
        raise ValueError(f"pair_tree_f32 writes {size_a * size_b * size_c} sums, out holds {out.shape[0]}")
    if lanes > 1 and values.strides[3] != sizeof(float):
        raise ValueError("pair_tree_f32 needs contiguous lanes")
    with nogil:
        for a in range(size_a):
            for b in range(size_b):
                for c in range(size_c):
                    if lanes == 64:
                        out[k] = _row_sum_64(&values[a, b, c, 0])
                    else:
                        out[k] = _row_sum(&values[a, b, c, 0], lanes)
                    k += 1


cdef inline float _row_sum_64(const float *src) noexcept nogil:
    """A full float32 repeat (64 lanes): the same levels with fixed trip counts, which the C compiler vectorises."""
    cdef float buf[32]
    cdef int i
    for i in range(32):
        buf[i] = src[2 * i] + src[2 * i + 1]
    for i in range(16):
        buf[i] = buf[2 * i] + buf[2 * i + 1]
    for i in range(8):
        buf[i] = buf[2 * i] + buf[2 * i + 1]
    for i in range(4):
        buf[i] = buf[2 * i] + buf[2 * i + 1]
    for i in range(2):
        buf[i] = buf[2 * i] + buf[2 * i + 1]
    return buf[0] + buf[1]


cdef inline float _row_sum(const float *src, Py_ssize_t lanes) noexcept nogil:
    """One row's tree: the first level reads the source, the others work in place in a local buffer."""
    cdef float buf[_MAX_LANES]
    cdef Py_ssize_t i, n, half
    if lanes == 1:
        return src[0]
    half = lanes // 2
    for i in range(half):
        buf[i] = src[2 * i] + src[2 * i + 1]
    if lanes & 1:
        buf[half] = src[lanes - 1] + <float>0.0
        half += 1
    n = half
    while n > 1:
        half = n // 2
        for i in range(half):
            buf[i] = buf[2 * i] + buf[2 * i + 1]
        if n & 1:
            buf[half] = buf[n - 1] + <float>0.0
            half += 1
        n = half
    return buf[0]


def copy_bursts(unsigned char[:, :, :] dst, const unsigned char[:, :, :] src) -> None:
    """``dst[...] = src`` for (rows x nburst x burst) byte grids whose bursts are contiguous and that do not
    overlap; rows and bursts may have any strides (a zero stride broadcasts ``src``).  The loop visits burst n
    of every row before burst n+1, the order in which a strided move's bursts of all blocks lie side by side in GM."""
    cdef Py_ssize_t rows = dst.shape[0], nburst = dst.shape[1], burst = dst.shape[2]
    cdef Py_ssize_t r, n
    cdef Py_ssize_t d_row = dst.strides[0], d_burst = dst.strides[1], s_row = src.strides[0], s_burst = src.strides[1]
    cdef char *d0
    cdef const char *s0
    if src.shape[0] != rows or src.shape[1] != nburst or src.shape[2] != burst:
        raise ValueError("copy_bursts: dst and src grids differ in shape")
    if rows == 0 or nburst == 0 or burst == 0:
        return
    if (burst > 1 and (dst.strides[2] != 1 or src.strides[2] != 1)):
        raise ValueError("copy_bursts needs contiguous bursts")
    d0 = <char *> &dst[0, 0, 0]
    s0 = <const char *> &src[0, 0, 0]
    with nogil:
        for n in range(nburst):
            for r in range(rows):
                memcpy(d0 + r * d_row + n * d_burst, s0 + r * s_row + n * s_burst, burst)


cdef enum:
    _EXPONENT_F32 = 0x7f800000


def binary_f32(int op, const float[:, :] a, const float[:, :] b, float[:, :] out) -> int:
    """``out = a + b`` (op 0), ``a - b`` (op 1) or ``a * b`` (op 2) on (rows x span) float32 operands with
    contiguous rows, IEEE float32 arithmetic as numpy's ufuncs do it.  Returns 1 when a result is inf or NaN, 0
    when all are finite, and -1 without writing anything when it cannot run as numpy would: shapes differ, a row
    is not contiguous, or a source overlaps ``out`` other than element for element (numpy then computes as if
    from a copy).  NaN payloads may differ from numpy's; callers that keep NaNs must not use it."""
    cdef Py_ssize_t rows = out.shape[0], span = out.shape[1], r, i
    cdef const float *pa
    cdef const float *pb
    cdef float *po
    cdef float v
    cdef unsigned int bits, bad = 0
    if a.shape[0] != rows or b.shape[0] != rows or a.shape[1] != span or b.shape[1] != span or op < 0 or op > 2:
        return -1
    if rows == 0 or span == 0:
        return 0
    if (span > 1 and (a.strides[1] != sizeof(float) or b.strides[1] != sizeof(float)
                      or out.strides[1] != sizeof(float))):
        return -1
    if not (_apart(<const char *> &a[0, 0], a.strides[0], <const char *> &out[0, 0], out.strides[0], rows, span,
                   sizeof(float))
            and _apart(<const char *> &b[0, 0], b.strides[0], <const char *> &out[0, 0], out.strides[0], rows,
                       span, sizeof(float))):
        return -1
    with nogil:
        for r in range(rows):
            pa = <const float *> (<const char *> &a[0, 0] + r * a.strides[0])
            pb = <const float *> (<const char *> &b[0, 0] + r * b.strides[0])
            po = <float *> (<char *> &out[0, 0] + r * out.strides[0])
            if op == 0:
                for i in range(span):
                    v = pa[i] + pb[i]
                    po[i] = v
                    memcpy(&bits, &v, 4)
                    bad |= (bits & _EXPONENT_F32) == _EXPONENT_F32
            elif op == 1:
                for i in range(span):
                    v = pa[i] - pb[i]
                    po[i] = v
                    memcpy(&bits, &v, 4)
                    bad |= (bits & _EXPONENT_F32) == _EXPONENT_F32
            else:
                for i in range(span):
                    v = pa[i] * pb[i]
                    po[i] = v
                    memcpy(&bits, &v, 4)
                    bad |= (bits & _EXPONENT_F32) == _EXPONENT_F32
    return 1 if bad else 0


# starts, pitches and burst sizes past _INDEX_LIMIT, burst counts past _COUNT_LIMIT, are declined: no product in
# the bounds checks can overflow (data_move's nburst is 12 bits)
cdef Py_ssize_t _INDEX_LIMIT = (<Py_ssize_t> 1) << 40
cdef Py_ssize_t _COUNT_LIMIT = (<Py_ssize_t> 1) << 20


cdef bint _apart(const char *src, Py_ssize_t src_row, const char *dst, Py_ssize_t dst_row, Py_ssize_t rows,
                 Py_ssize_t span, Py_ssize_t itemsize) noexcept:
    """Whether a (rows x span elements of itemsize bytes) source is the destination itself or shares no byte
    with it, for destinations with contiguous rows and a non-negative row stride."""
    cdef Py_ssize_t length = span * itemsize, offset, src_lo, src_hi
    if src == dst and (src_row == dst_row or rows == 1):
        return True
    if src_row < 0 or dst_row < 0:
        return False
    src_lo, src_hi = <Py_ssize_t> src, <Py_ssize_t> src + (rows - 1) * src_row + length
    if src_hi <= <Py_ssize_t> dst or <Py_ssize_t> dst + (rows - 1) * dst_row + length <= src_lo:
        return True
    if src_row != dst_row or src_row < 2 * length:
        return False
    offset = ((<Py_ssize_t> src - <Py_ssize_t> dst) % src_row + src_row) % src_row
    return length <= offset <= src_row - length


def copy_grid(unsigned char[:, :] dst, Py_ssize_t dst_start, Py_ssize_t dst_pitch,
              const unsigned char[:, :] src, Py_ssize_t src_start, Py_ssize_t src_pitch,
              Py_ssize_t nburst, Py_ssize_t burst) -> int:
    """Every row r of two different 2-D byte arenas (one row per block): ``nburst`` bursts of ``burst`` bytes from
    src[r, src_start + n * src_pitch] to dst[r, dst_start + n * dst_pitch] (a data_move between two local scopes,
    see npusim/sim/isa/batch_moves.py), burst by burst with memcpy.  Returns 0 when copied, -1 without copying
    when it does not fit: row counts differ, a row's bytes are not contiguous, a burst leaves its row, or the
    arenas share memory."""
    cdef Py_ssize_t rows = dst.shape[0], r, n
    cdef const unsigned char *s_lo
    cdef const unsigned char *s_hi
    cdef unsigned char *d_lo
    cdef unsigned char *d_hi
    if src.shape[0] != rows or nburst < 0 or burst < 0 or dst_start < 0 or src_start < 0:
        return -1
    if rows == 0 or nburst == 0 or burst == 0:
        return 0
    if (dst_pitch < 0 or src_pitch < 0 or nburst > _COUNT_LIMIT or burst > _INDEX_LIMIT or dst_start > _INDEX_LIMIT
            or src_start > _INDEX_LIMIT or dst_pitch > _INDEX_LIMIT or src_pitch > _INDEX_LIMIT):
        return -1
    if (dst_start + (nburst - 1) * dst_pitch + burst > dst.shape[1]
            or src_start + (nburst - 1) * src_pitch + burst > src.shape[1]):
        return -1
    if dst.strides[1] != 1 or src.strides[1] != 1 or dst.strides[0] < 0 or src.strides[0] < 0:
        return -1
    d_lo, s_lo = &dst[0, 0], &src[0, 0]
    d_hi = d_lo + (rows - 1) * dst.strides[0] + dst.shape[1]
    s_hi = s_lo + (rows - 1) * src.strides[0] + src.shape[1]
    if not (<const unsigned char *> d_hi <= s_lo or s_hi <= <const unsigned char *> d_lo):
        return -1
    with nogil:
        for r in range(rows):
            for n in range(nburst):
                memcpy(d_lo + r * dst.strides[0] + dst_start + n * dst_pitch,
                       s_lo + r * src.strides[0] + src_start + n * src_pitch, burst)
    return 0


def copy_gm_rows(unsigned char[:, :] dst, Py_ssize_t dst_start, Py_ssize_t dst_pitch,
                 const unsigned char[:] src, const long long[:] starts, Py_ssize_t src_pitch,
                 Py_ssize_t nburst, Py_ssize_t burst) -> int:
    """Row r of a 2-D byte arena (one row per block) takes ``nburst`` bursts of ``burst`` bytes from 1-D GM at
    starts[r] + n * src_pitch, written at dst_start + n * dst_pitch (a data_move GM -> a local scope, see
    npusim/sim/isa/batch_moves.py), burst by burst with memcpy.  Returns 0 when copied, -1 without copying when it
    does not fit: one start per row is missing, a burst leaves GM or its row, a row is not contiguous, or the
    arena and GM share memory."""
    cdef Py_ssize_t rows = dst.shape[0], r, n, last
    cdef const unsigned char *s0
    cdef unsigned char *d0
    cdef unsigned char *d_hi
    if starts.shape[0] != rows or nburst < 0 or burst < 0 or dst_start < 0:
        return -1
    if rows == 0 or nburst == 0 or burst == 0:
        return 0
    if (dst_pitch < 0 or src_pitch < 0 or nburst > _COUNT_LIMIT or burst > _INDEX_LIMIT or dst_start > _INDEX_LIMIT
            or dst_pitch > _INDEX_LIMIT or src_pitch > _INDEX_LIMIT):
        return -1
    if dst_start + (nburst - 1) * dst_pitch + burst > dst.shape[1]:
        return -1
    if dst.strides[1] != 1 or src.strides[0] != 1 or dst.strides[0] < 0:
        return -1
    last = (nburst - 1) * src_pitch + burst
    for r in range(rows):
        if starts[r] < 0 or starts[r] > _INDEX_LIMIT or starts[r] + last > src.shape[0]:
            return -1
    d0, s0 = &dst[0, 0], &src[0]
    d_hi = d0 + (rows - 1) * dst.strides[0] + dst.shape[1]
    if not (<const unsigned char *> d_hi <= s0 or s0 + src.shape[0] <= <const unsigned char *> d0):
        return -1
    with nogil:     # burst n of every row before burst n+1: where the blocks' bursts lie side by side in GM
        for n in range(nburst):
            for r in range(rows):
                memcpy(d0 + r * dst.strides[0] + dst_start + n * dst_pitch, s0 + starts[r] + n * src_pitch, burst)
    return 0


include "_native_mmad.pxi"
include "_native_half.pxi"
