# ---- mmad (issue 15): float16 x float16 -> float32 cube multiply-accumulate, see npusim/sim/isa/cube.py --------
# Every chunk of K0 = 16 reduction columns is summed exactly and rounded once to float32; the chunks are added in
# float32 in K order.  The chunk sums run in float64 (products of two halves are exact there); a per row/column
# exponent bound certifies that no float64 step rounds (the sum then is exact in any order), and the sums it cannot
# certify are redone in 128-bit integers (every half is an integer multiple of 2^-24 below 2^16).  Inputs with inf
# or NaN are refused (return 1): the caller keeps numpy's IEEE results for them.
cdef extern from *:
    """
    #include <stdint.h>
    #include <stdlib.h>
    #include <string.h>
    #include <math.h>

    #define NPUSIM_SPAN_LIMIT 49       /* spanA + spanB <= 49: every partial sum of 16 products fits 53 bits */
    #define NPUSIM_NO_SPAN (-10000)    /* a row or column of zeros: nothing to round */

    /* span of one row of halves (its first n): with e' = max(exponent field, 1) over the nonzero ones, every
       value is below 2^(e'max - 14) and a multiple of 2^(e'min - 25), so span = e'max - e'min + 11 bounds the bits
       between them; NPUSIM_NO_SPAN for a row of zeros; *bad set when a half is inf or NaN */
    static int npusim_row_span(const uint16_t *h, int n, int *bad) {
        int hi = -1, lo = 99, i, inf = 0;
        for (i = 0; i < n; i++) {
            int e = (h[i] >> 10) & 31, f = e | (e == 0), nonzero = (h[i] & 0x7fff) != 0;
            inf |= e == 31;
            hi = nonzero && f > hi ? f : hi;
            lo = nonzero && f < lo ? f : lo;
        }
        *bad |= inf;
        return hi < 0 ? NPUSIM_NO_SPAN : hi - lo + 11;
    }

    static void npusim_halves_plain(const uint16_t *h, double *x) {
        int i;
        for (i = 0; i < 16; i++) {
            int e = (h[i] >> 10) & 31, m = h[i] & 1023;
            double v;
            if (e == 0) v = (double) m * 5.9604644775390625e-08;                  /* m * 2^-24, exact */
            else { uint64_t bits = ((uint64_t) (e - 15 + 1023) << 52) | ((uint64_t) m << 42); memcpy(&v, &bits, 8); }
            x[i] = (h[i] & 0x8000) ? -v : v;
        }
    }

    /* round-half-even of a 128-bit integer count of 2^-48 to float32 (never underflows: |sum| >= 2^-48). */
    static float npusim_round_i128(__int128 sum) {
        unsigned __int128 mag = sum < 0 ? (unsigned __int128) (-sum) : (unsigned __int128) sum;
        int bits = 0, shift;
        unsigned __int128 t = mag, q, r, half;
        float f;
        if (mag == 0) return 0.0f;
        while (t) { bits++; t >>= 1; }
        shift = bits > 24 ? bits - 24 : 0;
        q = mag >> shift;
        if (shift) {
            r = mag & ((((unsigned __int128) 1) << shift) - 1);
            half = ((unsigned __int128) 1) << (shift - 1);
            if (r > half || (r == half && (q & 1))) q++;
        }
        f = ldexpf((float) (uint32_t) q, shift - 48);
        return sum < 0 ? -f : f;
    }

    static float npusim_exact_chunk(const double *a_row, const double *b, int col) {
        __int128 sum = 0;
        int k;
        for (k = 0; k < 16; k++) {
            int64_t x = (int64_t) (a_row[k] * 16777216.0), y = (int64_t) (b[k * 16 + col] * 16777216.0);
            sum += (__int128) x * y;
        }
        return npusim_round_i128(sum);
    }

    /* one 16 x 16 tile, one chunk: A [16 rows][16 k], B [16 k][16 cols]; out[r][c] = the chunk's float32 sum */
    static inline __attribute__((always_inline)) void npusim_tile_body(const double *A, const double *B,
                                                                       float *out) {
        int r, k, j;
        for (r = 0; r < 16; r += 2) {
            double acc0[16], acc1[16];
            for (j = 0; j < 16; j++) { acc0[j] = 0.0; acc1[j] = 0.0; }
            for (k = 0; k < 16; k++) {
                double x0 = A[r * 16 + k], x1 = A[(r + 1) * 16 + k];
                const double *br = B + k * 16;
                for (j = 0; j < 16; j++) { acc0[j] += x0 * br[j]; acc1[j] += x1 * br[j]; }
            }
            for (j = 0; j < 16; j++) { out[r * 16 + j] = (float) acc0[j]; out[(r + 1) * 16 + j] = (float) acc1[j]; }
        }
    }

    #if defined(__x86_64__) || defined(__i386__)
    #define NPUSIM_X86 1
    #include <immintrin.h>

    /* npusim_row_span for a full row of 16 halves, in 16-bit lanes */
    __attribute__((target("avx2"))) static int npusim_row_span16_avx2(const uint16_t *h, int *bad) {
        __m256i v = _mm256_loadu_si256((const __m256i *) h);
        __m256i e = _mm256_and_si256(_mm256_srli_epi16(v, 10), _mm256_set1_epi16(31));
        __m256i f = _mm256_max_epu16(e, _mm256_set1_epi16(1));
        __m256i zero = _mm256_cmpeq_epi16(_mm256_and_si256(v, _mm256_set1_epi16(0x7fff)), _mm256_setzero_si256());
        __m256i hi = _mm256_andnot_si256(zero, f);                                   /* zeros: 0 */
        __m256i lo = _mm256_or_si256(_mm256_and_si256(zero, _mm256_set1_epi16(99)), hi);  /* zeros: 99 */
        __m128i hi8 = _mm_max_epu16(_mm256_castsi256_si128(hi), _mm256_extracti128_si256(hi, 1));
        __m128i lo8 = _mm_min_epu16(_mm256_castsi256_si128(lo), _mm256_extracti128_si256(lo, 1));
        int top = 0xffff - (_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(hi8, _mm_set1_epi16(-1)))) & 0xffff);
        int low = _mm_cvtsi128_si32(_mm_minpos_epu16(lo8)) & 0xffff;
        if (_mm256_movemask_epi8(_mm256_cmpeq_epi16(e, _mm256_set1_epi16(31)))) *bad = 1;
        return top == 0 ? NPUSIM_NO_SPAN : top - low + 11;
    }

    __attribute__((target("avx,f16c"))) static void npusim_halves_f16c(const uint16_t *h, double *x) {
        __m256 lo = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) h));
        __m256 hi = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *) (h + 8)));
        _mm256_storeu_pd(x, _mm256_cvtps_pd(_mm256_castps256_ps128(lo)));
        _mm256_storeu_pd(x + 4, _mm256_cvtps_pd(_mm256_extractf128_ps(lo, 1)));
        _mm256_storeu_pd(x + 8, _mm256_cvtps_pd(_mm256_castps256_ps128(hi)));
        _mm256_storeu_pd(x + 12, _mm256_cvtps_pd(_mm256_extractf128_ps(hi, 1)));
    }

    /* rows x 8 columns of a tile with AVX2 FMA (a product of two halves is exact, so a fused add rounds as add
       would); 12 accumulators keep both FMA pipes busy.  add: out += the float32 sums (else out = them). */
    static inline __attribute__((always_inline, target("avx2,fma"))) void npusim_rows_avx2(
            const double *A, const double *B, float *out, int add, const int rows) {
        __m256d acc[6][2];
        int r, k;
        for (r = 0; r < rows; r++) { acc[r][0] = _mm256_setzero_pd(); acc[r][1] = _mm256_setzero_pd(); }
        for (k = 0; k < 16; k++) {
            __m256d b0 = _mm256_loadu_pd(B + k * 16), b1 = _mm256_loadu_pd(B + k * 16 + 4);
            for (r = 0; r < rows; r++) {
                __m256d x = _mm256_broadcast_sd(A + r * 16 + k);
                acc[r][0] = _mm256_fmadd_pd(x, b0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_pd(x, b1, acc[r][1]);
            }
        }
        for (r = 0; r < rows; r++) {
            float *o = out + r * 16;
            __m128 s0 = _mm256_cvtpd_ps(acc[r][0]), s1 = _mm256_cvtpd_ps(acc[r][1]);
            if (add) { s0 = _mm_add_ps(_mm_loadu_ps(o), s0); s1 = _mm_add_ps(_mm_loadu_ps(o + 4), s1); }
            _mm_storeu_ps(o, s0);
            _mm_storeu_ps(o + 4, s1);
        }
    }

    __attribute__((target("avx2,fma"))) static void npusim_tile_avx2(const double *A, const double *B, float *out,
                                                                      int add) {
        int c;
        for (c = 0; c < 16; c += 8) {
            npusim_rows_avx2(A, B + c, out + c, add, 6);
            npusim_rows_avx2(A + 6 * 16, B + c, out + 6 * 16 + c, add, 6);
            npusim_rows_avx2(A + 12 * 16, B + c, out + 12 * 16 + c, add, 4);
        }
    }

    #endif  /* x86 */

    static int npusim_span(const uint16_t *h, int used, int fast, int *bad) {
    #ifdef NPUSIM_X86
        if (used == 16 && fast) return npusim_row_span16_avx2(h, bad);
    #endif
        (void) fast;
        return npusim_row_span(h, used, bad);
    }

    static void npusim_tile_plain(const double *A, const double *B, float *out, int add) {
        float part[256];
        int i;
        if (!add) { npusim_tile_body(A, B, out); return; }
        npusim_tile_body(A, B, part);
        for (i = 0; i < 256; i++) out[i] += part[i];
    }

    /* a: [m1][k1][16][16] halves, b: [k1][n1][16][16] halves, out (and c_old) [n1][m1][16][16] float32. */
    static int npusim_mmad_f16(const uint16_t *a, const uint16_t *b, const float *c_old, float *out,
                               int m1, int k1, int n1, int k) {
        int chunks = (k + 15) / 16, cut = k % 16, i, mi, ni, c, r, j, kk;
        size_t na = (size_t) m1 * chunks * 256, nb = (size_t) chunks * n1 * 256;
        double *ad = (double *) malloc(sizeof(double) * (na + nb));
        double *bd = ad + na;
        int *span_a = (int *) malloc(sizeof(int) * ((size_t) m1 * chunks * 16 + (size_t) chunks * n1 * 16
                                                     + (size_t) m1 * chunks + (size_t) chunks * n1));
        int *span_b = span_a + (size_t) m1 * chunks * 16;
        int *max_a = span_b + (size_t) chunks * n1 * 16, *max_b = max_a + (size_t) m1 * chunks;
        void (*tile)(const double *, const double *, float *, int) = npusim_tile_plain;
        void (*halves)(const uint16_t *, double *) = npusim_halves_plain;
        float part[256];
        int status = 0, fast_span;
        if (!ad || !span_a) { free(ad); free(span_a); return -1; }
        fast_span = 0;
    #ifdef NPUSIM_X86
        __builtin_cpu_init();
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) tile = npusim_tile_avx2;
        if (__builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c")) halves = npusim_halves_f16c;
        fast_span = __builtin_cpu_supports("avx2");
    #endif
        /* A rows: [m1][chunk][row][k]; B: [chunk][n1][k][col] (transposed from nZ's [col][k]) */
        for (mi = 0; mi < m1; mi++)
            for (c = 0; c < chunks; c++) {
                int tile_max = NPUSIM_NO_SPAN, used = (cut && c == chunks - 1) ? cut : 16;
                for (r = 0; r < 16; r++) {
                    const uint16_t *src = a + (((size_t) mi * k1 + c) * 16 + r) * 16;
                    double *dst = ad + (((size_t) mi * chunks + c) * 16 + r) * 16;
                    i = npusim_span(src, used, fast_span, &status);
                    halves(src, dst);
                    for (kk = used; kk < 16; kk++) dst[kk] = 0.0;
                    span_a[((size_t) mi * chunks + c) * 16 + r] = i;
                    if (i > tile_max) tile_max = i;
                }
                max_a[(size_t) mi * chunks + c] = tile_max;
            }
        for (c = 0; c < chunks; c++)
            for (ni = 0; ni < n1; ni++) {
                int tile_max = NPUSIM_NO_SPAN, used = (cut && c == chunks - 1) ? cut : 16;
                double *dst = bd + ((size_t) c * n1 + ni) * 256, col[16];
                for (j = 0; j < 16; j++) {
                    const uint16_t *src = b + (((size_t) c * n1 + ni) * 16 + j) * 16;
                    i = npusim_span(src, used, fast_span, &status);
                    halves(src, col);
                    for (kk = 0; kk < 16; kk++) dst[kk * 16 + j] = kk < used ? col[kk] : 0.0;
                    span_b[((size_t) c * n1 + ni) * 16 + j] = i;
                    if (i > tile_max) tile_max = i;
                }
                max_b[(size_t) c * n1 + ni] = tile_max;
            }
        if (!status) {
            /* per column of C tiles, chunk by chunk, every row tile: a B tile stays in the host's L1 while the A
               tiles stream past; each C tile still takes its chunks in K order */
            for (ni = 0; ni < n1; ni++)
                for (c = 0; c < chunks; c++)
                    for (mi = 0; mi < m1; mi++) {
                        float *o = out + ((size_t) ni * m1 + mi) * 256;
                        const double *A = ad + ((size_t) mi * chunks + c) * 256;
                        const double *B = bd + ((size_t) c * n1 + ni) * 256;
                        const int *sa = span_a + ((size_t) mi * chunks + c) * 16;
                        const int *sb = span_b + ((size_t) c * n1 + ni) * 16;
                        int add = c > 0 || c_old != NULL;
                        if (c == 0 && c_old && c_old != out)
                            memcpy(o, c_old + ((size_t) ni * m1 + mi) * 256, sizeof(float) * 256);
                        if (max_a[(size_t) mi * chunks + c] + max_b[(size_t) c * n1 + ni] <= NPUSIM_SPAN_LIMIT) {
                            tile(A, B, o, add);
                            continue;
                        }
                        tile(A, B, part, 0);          /* sums float64 may round: redone exactly */
                        for (r = 0; r < 16; r++)
                            for (j = 0; j < 16; j++)
                                if (sa[r] + sb[j] > NPUSIM_SPAN_LIMIT)
                                    part[r * 16 + j] = npusim_exact_chunk(A + r * 16, B, j);
                        if (add) for (i = 0; i < 256; i++) o[i] += part[i];
                        else memcpy(o, part, sizeof(float) * 256);
                    }
        }
        if (!status && c_old)       /* old contents may hold inf or NaN; the new sums are finite */
            for (i = 0; i < n1 * m1 * 256; i++) {
                uint32_t bits;
                memcpy(&bits, out + i, 4);
                if ((bits & 0x7f800000u) == 0x7f800000u) { status = 2; break; }
            }
        free(ad);
        free(span_a);
        return status;
    }
    """
    int npusim_mmad_f16(const unsigned short *a, const unsigned short *b, const float *c_old, float *out,
                        int m1, int k1, int n1, int k) nogil


def mmad_f16_f32(const unsigned short[::1] a, const unsigned short[::1] b, c_old, float[::1] out,
                 int m1, int k1, int n1, int k) -> int:
    """C [N1, M1, 16, 16] float32 (+)= A [M1, K1, 16, 16] x B [K1, N1, 16, 16] float16 (raw bits; zZ x nZ -> zN,
    K0 = 16) over the first ``k`` reduction columns, the chunked exact accumulation of npusim/sim/isa/cube.py,
    into ``out`` (``c_old``: C's old contents to start from, or None; it may be ``out`` itself).  Returns 0 when
    written, all finite; 2 when written with an inf or NaN (from ``c_old``); 1 (out untouched) when A or B holds
    inf or NaN; -1 (out untouched) when memory ran out or the shapes do not fit."""
    cdef const float[::1] old
    cdef const float *old_ptr = NULL
    cdef int status
    if m1 <= 0 or k1 <= 0 or n1 <= 0 or k <= 0 or k > k1 * 16:
        return -1
    if a.shape[0] != m1 * k1 * 256 or b.shape[0] != k1 * n1 * 256 or out.shape[0] != n1 * m1 * 256:
        return -1
    if c_old is not None:
        old = c_old
        if old.shape[0] != out.shape[0]:
            return -1
        old_ptr = &old[0]
    with nogil:
        status = npusim_mmad_f16(&a[0], &b[0], old_ptr, &out[0], m1, k1, n1, k)
    return status
