# ---- float16 arithmetic (included by _native.pyx) -----------------------------------------------------------------------------------------
cdef extern from *:
    """
    #include <stdint.h>
    #include <string.h>
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    #include <immintrin.h>
    #define NPUSIM_HAVE_F16C_PATH 1
    #endif
    /* float16 bits -> float (exact) */
    static inline float npusim_h2f(uint16_t h) {
        uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu, bits;
        float f;
        if (exp == 0) {                       /* zero or subnormal: mant x 2^-24, exact in float */
            f = (float)mant * 5.9604644775390625e-08f;
            memcpy(&bits, &f, 4);
            bits |= sign;
        } else if (exp == 31) {
            bits = sign | 0x7f800000u | (mant << 13);
        } else {
            bits = sign | ((exp + 112u) << 23) | (mant << 13);
        }
        memcpy(&f, &bits, 4);
        return f;
    }
    /* float (not NaN) -> float16 bits, round to nearest even */
    static inline uint16_t npusim_f2h(float f) {
        uint32_t x, ax, m, h, rem;
        uint16_t sign;
        memcpy(&x, &f, 4);
        sign = (uint16_t)((x >> 16) & 0x8000u);
        ax = x & 0x7fffffffu;
        if (ax >= 0x477ff000u)                /* 65520 and up (the tie goes to even, up) and inf */
            return sign | 0x7c00u;
        if (ax < 0x38800000u) {               /* below 2^-14: a subnormal half or zero */
            float scaled, frac;
            memcpy(&f, &ax, 4);
            scaled = f * 16777216.0f;         /* in units of 2^-24: exact */
            m = (uint32_t)scaled;
            frac = scaled - (float)m;         /* exact: scaled < 1024 */
            if (frac > 0.5f || (frac == 0.5f && (m & 1u)))
                m += 1;
            return sign | (uint16_t)m;        /* 1024 is the smallest normal's bit pattern */
        }
        h = (((ax >> 23) - 112u) << 10) | ((ax & 0x7fffffu) >> 13);
        rem = ax & 0x1fffu;
        h += (rem > 0x1000u) | ((rem == 0x1000u) & h & 1u);   /* ties to even; a carry into the exponent is right */
        return sign | (uint16_t)h;
    }
    static inline float npusim_f16_op(int op, float x, float y) {
        switch (op) {
        case 0: return x + y;
        case 1: return x - y;
        case 2: return x * y;
        case 3: return x / y;
        case 4: return x >= y ? x : y;        /* numpy's float16 max / min: the first operand on a tie */
        default: return x <= y ? x : y;
        }
    }
    /* elements [start, n) of one row in software; same flags as npusim_row_f16 */
    static int npusim_row_f16_soft(int op, const uint16_t *a, const uint16_t *b, uint16_t *o, Py_ssize_t start,
                                   Py_ssize_t n) {
        uint32_t nan = 0, inf = 0;
        for (Py_ssize_t i = start; i < n; ++i) {
            float x = npusim_h2f(a[i]), y = npusim_h2f(b[i]), v = npusim_f16_op(op, x, y);
            uint16_t h;
            nan |= (uint32_t)((x != x) | (y != y) | (v != v));
            h = npusim_f2h(v != v ? 0.0f : v);
            inf |= (uint32_t)((h & 0x7fffu) == 0x7c00u);
            o[i] = h;
        }
        return nan ? -1 : (inf ? 1 : 0);
    }
    #ifdef NPUSIM_HAVE_F16C_PATH
    #define NPUSIM_F16C_LOOP(COMPUTE)                                                            \\
        for (; i + 8 <= n; i += 8) {                                                             \\
            __m256 x = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(a + i)));               \\
            __m256 y = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(b + i)));               \\
            __m256 v = COMPUTE;                                                                  \\
            __m128i h;                                                                           \\
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, y, _CMP_UNORD_Q));                          \\
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));                          \\
            h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);                                   \\
            inf = _mm_or_si128(inf, _mm_cmpeq_epi16(_mm_and_si128(h, mag), infbits));            \\
            _mm_storeu_si128((__m128i *)(o + i), h);                                             \\
        }
    /* the hardware half <-> float conversions (F16C), 8 lanes at a time; max_ps(y, x) returns x on a tie, as
       numpy's float16 maximum; NaNs are only detected (the caller falls back) */
    __attribute__((target("avx,f16c")))
    static int npusim_row_f16c(int op, const uint16_t *a, const uint16_t *b, uint16_t *o, Py_ssize_t n) {
        __m256 nan = _mm256_setzero_ps();
        __m128i inf = _mm_setzero_si128();
        const __m128i mag = _mm_set1_epi16(0x7fff), infbits = _mm_set1_epi16(0x7c00);
        Py_ssize_t i = 0;
        int tail;
        switch (op) {
        case 0: NPUSIM_F16C_LOOP(_mm256_add_ps(x, y)) break;
        case 1: NPUSIM_F16C_LOOP(_mm256_sub_ps(x, y)) break;
        case 2: NPUSIM_F16C_LOOP(_mm256_mul_ps(x, y)) break;
        case 3: NPUSIM_F16C_LOOP(_mm256_div_ps(x, y)) break;
        case 4: NPUSIM_F16C_LOOP(_mm256_max_ps(y, x)) break;
        default: NPUSIM_F16C_LOOP(_mm256_min_ps(y, x)) break;
        }
        tail = npusim_row_f16_soft(op, a, b, o, i, n);
        if (tail < 0 || _mm256_movemask_ps(nan))
            return -1;
        return (tail > 0 || _mm_movemask_epi8(inf)) ? 1 : 0;
    }
    static int npusim_has_f16c(void) { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c"); }
    #else
    static int npusim_row_f16c(int op, const uint16_t *a, const uint16_t *b, uint16_t *o, Py_ssize_t n) {
        return npusim_row_f16_soft(op, a, b, o, 0, n);
    }
    static int npusim_has_f16c(void) { return 0; }
    #endif
    /* one row: -1 when an operand or a result is NaN, 1 when a result is infinite, else 0 */
    static int npusim_row_f16(int op, const uint16_t *a, const uint16_t *b, uint16_t *o, Py_ssize_t n,
                              int hardware) {
        return hardware ? npusim_row_f16c(op, a, b, o, n) : npusim_row_f16_soft(op, a, b, o, 0, n);
    }
    """
    unsigned short npusim_f2h(float f) noexcept nogil
    int npusim_has_f16c() noexcept nogil
    int npusim_row_f16(int op, const unsigned short *a, const unsigned short *b, unsigned short *o, Py_ssize_t n,
                       int hardware) noexcept nogil

#: whether this host converts float16 in hardware (F16C); without it binary_f16 converts in software
HAS_F16C = bool(npusim_has_f16c())


def half_round_bits(const float[::1] values, unsigned short[::1] out) -> None:
    """out[i] = the float16 bits nearest values[i] (ties to even), the software conversion binary_f16 uses without
    F16C; a test hook (values must not be NaN)."""
    cdef Py_ssize_t i
    for i in range(values.shape[0]):
        out[i] = npusim_f2h(values[i])


def binary_f16(int op, const unsigned short[:, :] a, const unsigned short[:, :] b, unsigned short[:, :] out,
               bint hardware=True) -> int:
    """``out = a op b`` on (rows x span) float16 operands given as their uint16 bits, with contiguous rows: op 0
    add, 1 sub, 2 mul, 3 div, 4 max, 5 min, as numpy's float16 loops compute them (each result from the exact
    float values of the halves, rounded once to float16; max / min keep the first operand on a tie, so
    max(-0, +0) is -0).  ``hardware``: convert with F16C where the host has it (False: in software).  Returns 1
    when a result is infinite, 0 when all are finite, and -1 when it cannot give numpy's bits (``out`` is then
    unchanged, or to be recomputed by the caller when no source is ``out`` itself): a NaN operand or result
    (numpy's NaN bits depend on how it was built), mismatched shapes, a row that is not contiguous, a source
    overlapping ``out`` other than element for element."""
    cdef Py_ssize_t rows = out.shape[0], span = out.shape[1], r
    cdef const unsigned short *pa
    cdef const unsigned short *pb
    cdef unsigned short *po
    cdef unsigned short *scratch = NULL
    cdef int status = 0, row, aliased, use_f16c = hardware and npusim_has_f16c()
    if a.shape[0] != rows or b.shape[0] != rows or a.shape[1] != span or b.shape[1] != span or op < 0 or op > 5:
        return -1
    if rows == 0 or span == 0:
        return 0
    if span > 1 and (a.strides[1] != 2 or b.strides[1] != 2 or out.strides[1] != 2):
        return -1
    if not (_apart(<const char *> &a[0, 0], a.strides[0], <const char *> &out[0, 0], out.strides[0], rows, span, 2)
            and _apart(<const char *> &b[0, 0], b.strides[0], <const char *> &out[0, 0], out.strides[0], rows,
                       span, 2)):
        return -1
    aliased = (<const char *> &a[0, 0] == <const char *> &out[0, 0]
               or <const char *> &b[0, 0] == <const char *> &out[0, 0])
    if aliased:                 # results go to a scratch copy first: a NaN found late must leave the sources whole
        scratch = <unsigned short *> malloc(rows * span * sizeof(unsigned short))
        if scratch == NULL:
            return -1
    with nogil:
        for r in range(rows):
            pa = <const unsigned short *> (<const char *> &a[0, 0] + r * a.strides[0])
            pb = <const unsigned short *> (<const char *> &b[0, 0] + r * b.strides[0])
            po = (scratch + r * span) if aliased else <unsigned short *> (<char *> &out[0, 0] + r * out.strides[0])
            row = npusim_row_f16(op, pa, pb, po, span, use_f16c)
            if row < 0:
                status = -1
                break
            if row > 0:
                status = 1
        if aliased and status >= 0:
            for r in range(rows):
                memcpy(<char *> &out[0, 0] + r * out.strides[0], scratch + r * span, span * sizeof(unsigned short))
    free(scratch)
    return status
