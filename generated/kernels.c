/*
 * GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
 * `make generate` (python -m meancli.codegen).
 * Template: templates/kernels.c.j2
 * Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
 */
/*
 * Mean kernels: ReduceMean (any rank, any set of axes, C or Fortran order,
 * no transposing copies) and the element-wise Mean of N inputs with
 * multidirectional broadcasting, for every element type the specs allow.
 *
 * Numerics (DESIGN.md, "Semantics that every path must share"):
 *  - float16, bfloat16, float32 accumulate in double and round once at the
 *    end: a double holds any float32 exactly, so the only error is the
 *    accumulation's (about n * 2^-53 relative in the worst case, far below
 *    float32's 2^-24), and 1000 float16 values of 60000 cannot overflow.
 *  - float64 accumulates in double-double: Knuth's TwoSum carries each
 *    addition's rounding error exactly, so the sum is good to about 2^-106
 *    relative and the mean is the correctly rounded value in all but
 *    pathological cancellations -- never worse than numpy's pairwise sum.
 *  - integers: each value is biased to unsigned (x + 2^(bits-1) for signed
 *    types) and split into 32-bit halves; the halves are summed in 64-bit
 *    lanes, which cannot overflow within one chunk (< 2^32 values of
 *    < 2^32), and chunks combine in 128 bits. The sum is exact; the mean is
 *    that sum divided by the count, truncated toward zero (C division).
 *  - Determinism: a reduction is cut into chunks of a fixed number of
 *    elements (rows), each summed in a fixed lane order, and chunk partials
 *    combine in chunk order. Threads only decide who computes which chunk,
 *    so the result is bit-identical for any thread count.
 *
 * Sizes: every product of dimensions is computed with overflow checks;
 * strides must be non-negative multiples of the item size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MEANCLI_X86 1
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define MEANCLI_MAX_RANK 64
/* Elements per chunk of a contiguous reduction, rows per chunk of a row
 * reduction, and columns per tile: fixed, so the summation order is too. */
#define CHUNK 32768
#define ROW_CHUNK 1024
#define TILE 512
/* Below this many input elements a call runs on the calling thread only. */
#define PARALLEL_MIN_ELEMENTS 262144

enum {
    MEANCLI_OK = 0,
    MEANCLI_E_RANK = 1,      /* rank outside [0, MEANCLI_MAX_RANK] */
    MEANCLI_E_SHAPE = 2,     /* a negative dimension, or a size that overflows int64 */
    MEANCLI_E_STRIDE = 3,    /* a stride that is negative or not a multiple of the item size */
    MEANCLI_E_NOMEM = 4,     /* a scratch allocation failed */
    MEANCLI_E_EMPTY_INT = 5, /* integer mean over an empty set */
    MEANCLI_E_ARG = 6        /* a null pointer or an input count below 1 */
};

/* The build (meancli/_ffi_build.py) defines this as the sha256 of this file
 * and kernels_cdef.h; the registry holds the value the generator computed. */
#ifndef MEANCLI_SOURCE_SHA256
#define MEANCLI_SOURCE_SHA256 "unknown"
#endif
const char *meancli_source_sha256(void) { return MEANCLI_SOURCE_SHA256; }
int meancli_max_rank(void) { return MEANCLI_MAX_RANK; }

static int clamp_threads(int nthreads, int64_t work_elements)
{
#ifdef _OPENMP
    if (nthreads < 1 || work_elements < PARALLEL_MIN_ELEMENTS) return 1;
    return nthreads;
#else
    (void)nthreads; (void)work_elements;
    return 1;
#endif
}

static int mul_ok(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* ------------------------------------------------------------------------
 * Conversions. Hand-written so the results do not depend on the compiler's
 * _Float16 support; each rounds to nearest-even exactly once.
 * --------------------------------------------------------------------- */

static inline float bits_to_f32(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline uint32_t f32_to_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }

static inline float f16_to_f32(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    if (exp == 0x1f) return bits_to_f32(sign | 0x7f800000u | (man << 13));       /* inf, nan */
    if (exp != 0) return bits_to_f32(sign | ((exp + 112u) << 23) | (man << 13)); /* normal */
    /* zero or subnormal: man * 2^-24, exact in float */
    float v = (float)man * 5.9604644775390625e-08f;
    return sign ? -v : v;
}

static inline double bf16_to_f64(uint16_t h) { return (double)bits_to_f32((uint32_t)h << 16); }

/* double -> float rounding to odd: the float nearest toward zero, with its
 * last bit forced to 1 when inexact. Rounding that value once more to a
 * format at least two bits narrower gives the correctly rounded result
 * (Boldo & Melquiond), which is how both 16-bit stores below avoid double
 * rounding. */
static inline float f64_to_f32_odd(double v)
{
    float f = (float)v;
    if (isnan(v)) return f;
    if (fabs((double)f) > fabs(v)) f = nextafterf(f, 0.0f);
    if ((double)f != v) f = bits_to_f32(f32_to_bits(f) | 1u);
    return f;
}

static inline uint16_t f64_to_bf16(double v)
{
    if (isnan(v)) return (uint16_t)(((f32_to_bits((float)v) >> 16) & 0x8000u) | 0x7fc0u);
    uint32_t b = f32_to_bits(f64_to_f32_odd(v));
    b += 0x7fffu + ((b >> 16) & 1u); /* round to nearest even at bit 16 */
    return (uint16_t)(b >> 16);
}

static inline uint16_t f64_to_f16(double v)
{
    uint32_t b = f32_to_bits(f64_to_f32_odd(v));
    uint16_t sign = (uint16_t)((b >> 16) & 0x8000u);
    uint32_t ab = b & 0x7fffffffu;
    if (ab > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);     /* nan */
    if (ab >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);    /* >= 65520: rounds to inf */
    if (ab >= 0x38800000u) {                                     /* normal half */
        uint32_t r = ab - 0x38000000u;                           /* rebias 127 -> 15 */
        r += 0xfffu + ((r >> 13) & 1u);
        return (uint16_t)(sign | (r >> 13));
    }
    if (ab < 0x33000000u) return sign;                           /* < 2^-25: rounds to zero */
    /* subnormal half: shift the full significand, round to nearest even */
    uint32_t e = ab >> 23, man = (ab & 0x7fffffu) | 0x800000u;
    uint32_t shift = 126u - e;                                   /* 14 .. 24 */
    uint32_t q = man >> shift, rem = man & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (q & 1u))) q++;
    return (uint16_t)(sign | q);
}

/* ------------------------------------------------------------------------
 * Double-double arithmetic (float64 accumulation).
 * --------------------------------------------------------------------- */

typedef struct { double hi, lo; } dd_t;

static inline void two_sum(double a, double b, double *s, double *e)
{
    double t = a + b, bp = t - a;
    *e = (a - (t - bp)) + (b - bp);
    *s = t;
}

static inline dd_t dd_add(dd_t a, dd_t b)
{
    double s, e;
    two_sum(a.hi, b.hi, &s, &e);
    e += a.lo + b.lo;
    dd_t r;
    two_sum(s, e, &r.hi, &r.lo);
    return r;
}

/* Dekker's exact product a*b = p + e without relying on hardware FMA. */
static inline void two_prod(double a, double b, double *p, double *e)
{
    const double split = 134217729.0; /* 2^27 + 1 */
    double t = split * a, ah = t - (t - a), al = a - ah;
    t = split * b;
    double bh = t - (t - b), bl = b - bh;
    *p = a * b;
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* (a.hi + a.lo) / n, rounded once (up to the tiny error of the correction). */
static inline double dd_div(dd_t a, double n)
{
    if (!isfinite(a.hi)) return a.hi / n;
    double q = a.hi / n, p, e;
    two_prod(q, n, &p, &e);
    double r = ((a.hi - p) - e) + a.lo;
    return q + r / n;
}

/* ------------------------------------------------------------------------
 * Planning: drop size-1 dimensions, order the rest by input stride (memory
 * order, so Fortran-order input needs no copy), and merge neighbours that
 * are both reduced or both kept and contiguous with each other.
 * --------------------------------------------------------------------- */

typedef struct {
    int nk, nr;                         /* kept / reduced dims, outer -> inner */
    int64_t ksize[MEANCLI_MAX_RANK], kin[MEANCLI_MAX_RANK], kout[MEANCLI_MAX_RANK];
    int64_t rsize[MEANCLI_MAX_RANK], rin[MEANCLI_MAX_RANK];
    int64_t nout, nred;                 /* output elements, elements per output */
    int inner_reduced;                  /* smallest-stride dim is reduced */
} reduce_plan;

static int plan_reduce(int rank, const int64_t *shape, const int64_t *strides_bytes,
                       const uint8_t *reduce_mask, int64_t itemsize, reduce_plan *p)
{
    int64_t size[MEANCLI_MAX_RANK], in[MEANCLI_MAX_RANK], out[MEANCLI_MAX_RANK];
    int red[MEANCLI_MAX_RANK];
    int n = 0;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    p->nout = 1;
    p->nred = 1;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0) return MEANCLI_E_SHAPE;
        if (strides_bytes[d] < 0 || strides_bytes[d] % itemsize != 0) return MEANCLI_E_STRIDE;
        int64_t *count = reduce_mask[d] ? &p->nred : &p->nout;
        if (!mul_ok(*count, shape[d], count)) return MEANCLI_E_SHAPE;
    }
    int64_t total;
    if (!mul_ok(p->nout, p->nred, &total)) return MEANCLI_E_SHAPE;
    /* output strides: the output is C-contiguous over the kept dims in order */
    int64_t ostride = 1, kout_logical[MEANCLI_MAX_RANK];
    for (int d = rank - 1; d >= 0; d--) {
        kout_logical[d] = 0;
        if (!reduce_mask[d]) {
            kout_logical[d] = ostride;
            ostride *= shape[d] ? shape[d] : 1; /* bounded by nout, already checked */
        }
    }
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        size[n] = shape[d];
        in[n] = strides_bytes[d] / itemsize;
        out[n] = kout_logical[d];
        red[n] = reduce_mask[d] != 0;
        n++;
    }
    /* stable insertion sort by input stride, largest first */
    for (int i = 1; i < n; i++) {
        int64_t s = size[i], a = in[i], o = out[i];
        int r = red[i], j = i - 1;
        while (j >= 0 && in[j] < a) {
            size[j + 1] = size[j]; in[j + 1] = in[j]; out[j + 1] = out[j]; red[j + 1] = red[j];
            j--;
        }
        size[j + 1] = s; in[j + 1] = a; out[j + 1] = o; red[j + 1] = r;
    }
    p->nk = p->nr = 0;
    p->inner_reduced = n > 0 && red[n - 1];
    for (int i = 0; i < n; i++) {
        if (red[i]) {
            int m = p->nr;
            if (m > 0 && i > 0 && red[i - 1] && p->rin[m - 1] == in[i] * size[i]) {
                p->rsize[m - 1] *= size[i];
                p->rin[m - 1] = in[i];
            } else {
                p->rsize[m] = size[i]; p->rin[m] = in[i]; p->nr++;
            }
        } else {
            int m = p->nk;
            if (m > 0 && i > 0 && !red[i - 1] && p->kin[m - 1] == in[i] * size[i]
                && p->kout[m - 1] == out[i] * size[i]) {
                p->ksize[m - 1] *= size[i];
                p->kin[m - 1] = in[i];
                p->kout[m - 1] = out[i];
            } else {
                p->ksize[m] = size[i]; p->kin[m] = in[i]; p->kout[m] = out[i]; p->nk++;
            }
        }
    }
    return MEANCLI_OK;
}

/* Offsets of flat index f over dims (size, stride) outer -> inner. */
static inline void unflatten(int64_t f, int nd, const int64_t *size, const int64_t *stride,
                             int64_t *idx, int64_t *off)
{
    int64_t o = 0;
    for (int d = nd - 1; d >= 0; d--) {
        idx[d] = f % size[d];
        f /= size[d];
        o += idx[d] * stride[d];
    }
    *off = o;
}

/* Advance a multi-index over dims [0, nd) by one, updating the offset. */
static inline void odometer_next(int nd, const int64_t *size, const int64_t *stride,
                                 int64_t *idx, int64_t *off)
{
    for (int d = nd - 1; d >= 0; d--) {
        idx[d]++;
        *off += stride[d];
        if (idx[d] < size[d]) return;
        *off -= idx[d] * stride[d];
        idx[d] = 0;
    }
}

#ifdef MEANCLI_X86
static int have_avx2_f16c(void)
{
    static int cached = -1;
    if (cached < 0) {
        __builtin_cpu_init();
        cached = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    }
    return cached;
}
#define CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define CLONES
#endif

/* ======================================================================
 * float16: accumulate in double, round once
 * ==================================================================== */
typedef uint16_t T_float16;
#define LOAD_float16(x) ((double)f16_to_f32(x))
static inline T_float16 store_float16(double v) { return f64_to_f16(v); }
typedef double acc_float16;
#define LANES_float16 16
typedef struct { double a[LANES_float16]; } lanes_float16;
typedef struct { double a[TILE]; } rowacc_float16;

static inline void lanes_init_float16(lanes_float16 *l)
{
    /* -0.0 is the additive identity: -0.0 + x == x for every x, signed zeros included */
    for (int k = 0; k < LANES_float16; k++) l->a[k] = -0.0;
}

/* Lanes combine pairwise in a fixed order. */
static inline acc_float16 lanes_sum_float16(const lanes_float16 *l, int64_t count)
{
    double a[LANES_float16];
    (void)count;
    memcpy(a, l->a, sizeof a);
    for (int w = LANES_float16 / 2; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) a[k] += a[k + w];
    return a[0];
}

static inline acc_float16 acc_add_float16(acc_float16 a, acc_float16 b) { return a + b; }

static inline T_float16 finalize_float16(acc_float16 s, int64_t count)
{
    return store_float16(count ? s / (double)count : NAN);
}

static inline void rowacc_init_float16(rowacc_float16 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) r->a[j] = -0.0;
}

static inline void rowacc_take_float16(const rowacc_float16 *r, int64_t w, int64_t count, acc_float16 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) part[j] = r->a[j];
}

/* Sum n elements at stride s (elements) into the lanes: element i of a
 * contiguous run goes to lane i % 16, so vector code and scalar tail agree. */
CLONES static void run_float16(const T_float16 *x, int64_t s, int64_t n, lanes_float16 *l)
{
    double a[LANES_float16];
    memcpy(a, l->a, sizeof a);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_float16 <= n; i += LANES_float16)
            for (int k = 0; k < LANES_float16; k++) a[k] += LOAD_float16(x[i + k]);
        for (int k = 0; i < n; i++, k++) a[k] += LOAD_float16(x[i]);
    } else {
        for (; i < n; i++) a[0] += LOAD_float16(x[i * s]);
    }
    memcpy(l->a, a, sizeof a);
}

/* acc[j] += x[j * s] for j < w (s == 0 broadcasts one value). */
CLONES static void add_row_float16(rowacc_float16 *r, const T_float16 *x, int64_t s, int64_t w)
{
    double *a = r->a;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) a[j] += LOAD_float16(x[j]);
    } else if (s == 0) {
        double v = LOAD_float16(x[0]);
        for (int64_t j = 0; j < w; j++) a[j] += v;
    } else {
        for (int64_t j = 0; j < w; j++) a[j] += LOAD_float16(x[j * s]);
    }
}

#ifdef MEANCLI_X86
/* float16 has no scalar hardware conversion before AVX-512 FP16; F16C
 * converts 8 values per instruction. Same lanes and order as run_float16. */
__attribute__((target("avx2,f16c"))) static void run_float16_f16c(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    __m256d a0 = _mm256_loadu_pd(l->a), a1 = _mm256_loadu_pd(l->a + 4);
    __m256d a2 = _mm256_loadu_pd(l->a + 8), a3 = _mm256_loadu_pd(l->a + 12);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 f0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i)));
        __m256 f1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + i + 8)));
        a0 = _mm256_add_pd(a0, _mm256_cvtps_pd(_mm256_castps256_ps128(f0)));
        a1 = _mm256_add_pd(a1, _mm256_cvtps_pd(_mm256_extractf128_ps(f0, 1)));
        a2 = _mm256_add_pd(a2, _mm256_cvtps_pd(_mm256_castps256_ps128(f1)));
        a3 = _mm256_add_pd(a3, _mm256_cvtps_pd(_mm256_extractf128_ps(f1, 1)));
    }
    _mm256_storeu_pd(l->a, a0); _mm256_storeu_pd(l->a + 4, a1);
    _mm256_storeu_pd(l->a + 8, a2); _mm256_storeu_pd(l->a + 12, a3);
    for (int k = 0; i < n; i++, k++) l->a[k] += LOAD_float16(x[i]);
}

__attribute__((target("avx2,f16c"))) static void add_row_float16_f16c(rowacc_float16 *r, const T_float16 *x, int64_t w)
{
    int64_t j = 0;
    for (; j + 8 <= w; j += 8) {
        __m256 f = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(x + j)));
        _mm256_storeu_pd(r->a + j, _mm256_add_pd(_mm256_loadu_pd(r->a + j), _mm256_cvtps_pd(_mm256_castps256_ps128(f))));
        _mm256_storeu_pd(r->a + j + 4, _mm256_add_pd(_mm256_loadu_pd(r->a + j + 4), _mm256_cvtps_pd(_mm256_extractf128_ps(f, 1))));
    }
    for (; j < w; j++) r->a[j] += LOAD_float16(x[j]);
}
#define RUN_float16(x, s, n, l) \
    ((s) == 1 && have_avx2_f16c() ? run_float16_f16c((x), (n), (l)) : run_float16((x), (s), (n), (l)))
#define ADD_ROW_float16(r, x, s, w) \
    ((s) == 1 && have_avx2_f16c() ? add_row_float16_f16c((r), (x), (w)) : add_row_float16((r), (x), (s), (w)))
#else
#define RUN_float16 run_float16
#define ADD_ROW_float16 add_row_float16
#endif
/* ======================================================================
 * bfloat16: accumulate in double, round once
 * ==================================================================== */
typedef uint16_t T_bfloat16;
#define LOAD_bfloat16(x) bf16_to_f64(x)
static inline T_bfloat16 store_bfloat16(double v) { return f64_to_bf16(v); }
typedef double acc_bfloat16;
#define LANES_bfloat16 16
typedef struct { double a[LANES_bfloat16]; } lanes_bfloat16;
typedef struct { double a[TILE]; } rowacc_bfloat16;

static inline void lanes_init_bfloat16(lanes_bfloat16 *l)
{
    /* -0.0 is the additive identity: -0.0 + x == x for every x, signed zeros included */
    for (int k = 0; k < LANES_bfloat16; k++) l->a[k] = -0.0;
}

/* Lanes combine pairwise in a fixed order. */
static inline acc_bfloat16 lanes_sum_bfloat16(const lanes_bfloat16 *l, int64_t count)
{
    double a[LANES_bfloat16];
    (void)count;
    memcpy(a, l->a, sizeof a);
    for (int w = LANES_bfloat16 / 2; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) a[k] += a[k + w];
    return a[0];
}

static inline acc_bfloat16 acc_add_bfloat16(acc_bfloat16 a, acc_bfloat16 b) { return a + b; }

static inline T_bfloat16 finalize_bfloat16(acc_bfloat16 s, int64_t count)
{
    return store_bfloat16(count ? s / (double)count : NAN);
}

static inline void rowacc_init_bfloat16(rowacc_bfloat16 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) r->a[j] = -0.0;
}

static inline void rowacc_take_bfloat16(const rowacc_bfloat16 *r, int64_t w, int64_t count, acc_bfloat16 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) part[j] = r->a[j];
}

/* Sum n elements at stride s (elements) into the lanes: element i of a
 * contiguous run goes to lane i % 16, so vector code and scalar tail agree. */
CLONES static void run_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, lanes_bfloat16 *l)
{
    double a[LANES_bfloat16];
    memcpy(a, l->a, sizeof a);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_bfloat16 <= n; i += LANES_bfloat16)
            for (int k = 0; k < LANES_bfloat16; k++) a[k] += LOAD_bfloat16(x[i + k]);
        for (int k = 0; i < n; i++, k++) a[k] += LOAD_bfloat16(x[i]);
    } else {
        for (; i < n; i++) a[0] += LOAD_bfloat16(x[i * s]);
    }
    memcpy(l->a, a, sizeof a);
}

/* acc[j] += x[j * s] for j < w (s == 0 broadcasts one value). */
CLONES static void add_row_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t s, int64_t w)
{
    double *a = r->a;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) a[j] += LOAD_bfloat16(x[j]);
    } else if (s == 0) {
        double v = LOAD_bfloat16(x[0]);
        for (int64_t j = 0; j < w; j++) a[j] += v;
    } else {
        for (int64_t j = 0; j < w; j++) a[j] += LOAD_bfloat16(x[j * s]);
    }
}
#define RUN_bfloat16 run_bfloat16
#define ADD_ROW_bfloat16 add_row_bfloat16
/* ======================================================================
 * float32: accumulate in double, round once
 * ==================================================================== */
typedef float T_float32;
#define LOAD_float32(x) ((double)(x))
static inline T_float32 store_float32(double v) { return (T_float32)v; }
typedef double acc_float32;
#define LANES_float32 16
typedef struct { double a[LANES_float32]; } lanes_float32;
typedef struct { double a[TILE]; } rowacc_float32;

static inline void lanes_init_float32(lanes_float32 *l)
{
    /* -0.0 is the additive identity: -0.0 + x == x for every x, signed zeros included */
    for (int k = 0; k < LANES_float32; k++) l->a[k] = -0.0;
}

/* Lanes combine pairwise in a fixed order. */
static inline acc_float32 lanes_sum_float32(const lanes_float32 *l, int64_t count)
{
    double a[LANES_float32];
    (void)count;
    memcpy(a, l->a, sizeof a);
    for (int w = LANES_float32 / 2; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) a[k] += a[k + w];
    return a[0];
}

static inline acc_float32 acc_add_float32(acc_float32 a, acc_float32 b) { return a + b; }

static inline T_float32 finalize_float32(acc_float32 s, int64_t count)
{
    return store_float32(count ? s / (double)count : NAN);
}

static inline void rowacc_init_float32(rowacc_float32 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) r->a[j] = -0.0;
}

static inline void rowacc_take_float32(const rowacc_float32 *r, int64_t w, int64_t count, acc_float32 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) part[j] = r->a[j];
}

/* Sum n elements at stride s (elements) into the lanes: element i of a
 * contiguous run goes to lane i % 16, so vector code and scalar tail agree. */
CLONES static void run_float32(const T_float32 *x, int64_t s, int64_t n, lanes_float32 *l)
{
    double a[LANES_float32];
    memcpy(a, l->a, sizeof a);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_float32 <= n; i += LANES_float32)
            for (int k = 0; k < LANES_float32; k++) a[k] += LOAD_float32(x[i + k]);
        for (int k = 0; i < n; i++, k++) a[k] += LOAD_float32(x[i]);
    } else {
        for (; i < n; i++) a[0] += LOAD_float32(x[i * s]);
    }
    memcpy(l->a, a, sizeof a);
}

/* acc[j] += x[j * s] for j < w (s == 0 broadcasts one value). */
CLONES static void add_row_float32(rowacc_float32 *r, const T_float32 *x, int64_t s, int64_t w)
{
    double *a = r->a;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) a[j] += LOAD_float32(x[j]);
    } else if (s == 0) {
        double v = LOAD_float32(x[0]);
        for (int64_t j = 0; j < w; j++) a[j] += v;
    } else {
        for (int64_t j = 0; j < w; j++) a[j] += LOAD_float32(x[j * s]);
    }
}
#define RUN_float32 run_float32
#define ADD_ROW_float32 add_row_float32
/* ======================================================================
 * float64: accumulate in double-double (TwoSum), round once
 * ==================================================================== */
typedef double T_float64;
typedef dd_t acc_float64;
#define LANES_float64 8
typedef struct { double hi[LANES_float64], lo[LANES_float64]; } lanes_float64;
typedef struct { double hi[TILE], lo[TILE]; } rowacc_float64;

static inline void lanes_init_float64(lanes_float64 *l)
{
    for (int k = 0; k < LANES_float64; k++) { l->hi[k] = -0.0; l->lo[k] = 0.0; }
}

/* An infinity or NaN makes TwoSum's error term NaN; the plain sum is then the answer. */
static inline acc_float64 acc_add_float64(acc_float64 a, acc_float64 b)
{
    double s = a.hi + b.hi;
    if (!isfinite(s)) { dd_t r = {s, 0.0}; return r; }
    return dd_add(a, b);
}

static inline acc_float64 lanes_sum_float64(const lanes_float64 *l, int64_t count)
{
    (void)count;
    dd_t r = {l->hi[0], isfinite(l->hi[0]) ? l->lo[0] : 0.0};
    for (int k = 1; k < LANES_float64; k++) {
        dd_t x = {l->hi[k], isfinite(l->hi[k]) ? l->lo[k] : 0.0};
        r = acc_add_float64(r, x);
    }
    return r;
}

static inline T_float64 finalize_float64(acc_float64 s, int64_t count)
{
    return count ? dd_div(s, (double)count) : NAN;
}

static inline void rowacc_init_float64(rowacc_float64 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->hi[j] = -0.0; r->lo[j] = 0.0; }
}

static inline void rowacc_take_float64(const rowacc_float64 *r, int64_t w, int64_t count, acc_float64 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) {
        part[j].hi = r->hi[j];
        part[j].lo = isfinite(r->hi[j]) ? r->lo[j] : 0.0;
    }
}

#define TWO_SUM_INTO(hi, lo, v) do { \
        double t_ = (hi) + (v), bp_ = t_ - (hi); \
        (lo) += ((hi) - (t_ - bp_)) + ((v) - bp_); \
        (hi) = t_; \
    } while (0)

CLONES static void run_float64(const T_float64 *x, int64_t s, int64_t n, lanes_float64 *l)
{
    double hi[LANES_float64], lo[LANES_float64];
    memcpy(hi, l->hi, sizeof hi);
    memcpy(lo, l->lo, sizeof lo);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_float64 <= n; i += LANES_float64)
            for (int k = 0; k < LANES_float64; k++) TWO_SUM_INTO(hi[k], lo[k], x[i + k]);
        for (int k = 0; i < n; i++, k++) TWO_SUM_INTO(hi[k], lo[k], x[i]);
    } else {
        for (; i < n; i++) TWO_SUM_INTO(hi[0], lo[0], x[i * s]);
    }
    memcpy(l->hi, hi, sizeof hi);
    memcpy(l->lo, lo, sizeof lo);
}

CLONES static void add_row_float64(rowacc_float64 *r, const T_float64 *x, int64_t s, int64_t w)
{
    double *hi = r->hi, *lo = r->lo;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) TWO_SUM_INTO(hi[j], lo[j], x[j]);
    } else {
        for (int64_t j = 0; j < w; j++) TWO_SUM_INTO(hi[j], lo[j], x[j * s]);
    }
}
#undef TWO_SUM_INTO
#define RUN_float64 run_float64
#define ADD_ROW_float64 add_row_float64
/* ======================================================================
 * int8: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef int8_t T_int8;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^8 */
#define BIASED_int8(x) ((uint64_t)(uint8_t)(((uint8_t)(x)) ^ (uint8_t)((uint64_t)1 << 7)))
typedef __int128 acc_int8;
#define LANES_int8 8
typedef struct { uint64_t lo[LANES_int8], hi[LANES_int8]; } lanes_int8;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int8;

static inline void lanes_init_int8(lanes_int8 *l) { memset(l, 0, sizeof *l); }

static inline acc_int8 unbias_int8(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)((uint64_t)1 << 7);
}

static inline acc_int8 lanes_sum_int8(const lanes_int8 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_int8; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_int8(u, count);
}

static inline acc_int8 acc_add_int8(acc_int8 a, acc_int8 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_int8. */
static inline T_int8 finalize_int8(acc_int8 s, int64_t count)
{
    return (T_int8)(s / (__int128)count);
}

static inline void rowacc_init_int8(rowacc_int8 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_int8(const rowacc_int8 *r, int64_t w, int64_t count, acc_int8 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_int8((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_int8(lo, hi, u) do { (lo) += (u); } while (0)

CLONES static void run_int8(const T_int8 *x, int64_t s, int64_t n, lanes_int8 *l)
{
    uint64_t lo[LANES_int8], hi[LANES_int8];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_int8 <= n; i += LANES_int8)
            for (int k = 0; k < LANES_int8; k++) ADD_BIASED_int8(lo[k], hi[k], BIASED_int8(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_int8(lo[k], hi[k], BIASED_int8(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_int8(lo[0], hi[0], BIASED_int8(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_int8(rowacc_int8 *r, const T_int8 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int8(lo[j], hi[j], BIASED_int8(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int8(lo[j], hi[j], BIASED_int8(x[j * s]));
    }
}
#define RUN_int8 run_int8
#define ADD_ROW_int8 add_row_int8
/* ======================================================================
 * int16: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef int16_t T_int16;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^16 */
#define BIASED_int16(x) ((uint64_t)(uint16_t)(((uint16_t)(x)) ^ (uint16_t)((uint64_t)1 << 15)))
typedef __int128 acc_int16;
#define LANES_int16 8
typedef struct { uint64_t lo[LANES_int16], hi[LANES_int16]; } lanes_int16;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int16;

static inline void lanes_init_int16(lanes_int16 *l) { memset(l, 0, sizeof *l); }

static inline acc_int16 unbias_int16(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)((uint64_t)1 << 15);
}

static inline acc_int16 lanes_sum_int16(const lanes_int16 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_int16; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_int16(u, count);
}

static inline acc_int16 acc_add_int16(acc_int16 a, acc_int16 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_int16. */
static inline T_int16 finalize_int16(acc_int16 s, int64_t count)
{
    return (T_int16)(s / (__int128)count);
}

static inline void rowacc_init_int16(rowacc_int16 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_int16(const rowacc_int16 *r, int64_t w, int64_t count, acc_int16 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_int16((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_int16(lo, hi, u) do { (lo) += (u); } while (0)

CLONES static void run_int16(const T_int16 *x, int64_t s, int64_t n, lanes_int16 *l)
{
    uint64_t lo[LANES_int16], hi[LANES_int16];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_int16 <= n; i += LANES_int16)
            for (int k = 0; k < LANES_int16; k++) ADD_BIASED_int16(lo[k], hi[k], BIASED_int16(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_int16(lo[k], hi[k], BIASED_int16(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_int16(lo[0], hi[0], BIASED_int16(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_int16(rowacc_int16 *r, const T_int16 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int16(lo[j], hi[j], BIASED_int16(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int16(lo[j], hi[j], BIASED_int16(x[j * s]));
    }
}
#define RUN_int16 run_int16
#define ADD_ROW_int16 add_row_int16
/* ======================================================================
 * int32: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef int32_t T_int32;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^32 */
#define BIASED_int32(x) ((uint64_t)(uint32_t)(((uint32_t)(x)) ^ (uint32_t)((uint64_t)1 << 31)))
typedef __int128 acc_int32;
#define LANES_int32 8
typedef struct { uint64_t lo[LANES_int32], hi[LANES_int32]; } lanes_int32;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int32;

static inline void lanes_init_int32(lanes_int32 *l) { memset(l, 0, sizeof *l); }

static inline acc_int32 unbias_int32(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)((uint64_t)1 << 31);
}

static inline acc_int32 lanes_sum_int32(const lanes_int32 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_int32; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_int32(u, count);
}

static inline acc_int32 acc_add_int32(acc_int32 a, acc_int32 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_int32. */
static inline T_int32 finalize_int32(acc_int32 s, int64_t count)
{
    return (T_int32)(s / (__int128)count);
}

static inline void rowacc_init_int32(rowacc_int32 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_int32(const rowacc_int32 *r, int64_t w, int64_t count, acc_int32 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_int32((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_int32(lo, hi, u) do { (lo) += (u); } while (0)

CLONES static void run_int32(const T_int32 *x, int64_t s, int64_t n, lanes_int32 *l)
{
    uint64_t lo[LANES_int32], hi[LANES_int32];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_int32 <= n; i += LANES_int32)
            for (int k = 0; k < LANES_int32; k++) ADD_BIASED_int32(lo[k], hi[k], BIASED_int32(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_int32(lo[k], hi[k], BIASED_int32(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_int32(lo[0], hi[0], BIASED_int32(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_int32(rowacc_int32 *r, const T_int32 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int32(lo[j], hi[j], BIASED_int32(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int32(lo[j], hi[j], BIASED_int32(x[j * s]));
    }
}
#define RUN_int32 run_int32
#define ADD_ROW_int32 add_row_int32
/* ======================================================================
 * int64: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef int64_t T_int64;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^64 */
#define BIASED_int64(x) ((uint64_t)(uint64_t)(((uint64_t)(x)) ^ (uint64_t)((uint64_t)1 << 63)))
typedef __int128 acc_int64;
#define LANES_int64 8
typedef struct { uint64_t lo[LANES_int64], hi[LANES_int64]; } lanes_int64;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int64;

static inline void lanes_init_int64(lanes_int64 *l) { memset(l, 0, sizeof *l); }

static inline acc_int64 unbias_int64(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)((uint64_t)1 << 63);
}

static inline acc_int64 lanes_sum_int64(const lanes_int64 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_int64; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_int64(u, count);
}

static inline acc_int64 acc_add_int64(acc_int64 a, acc_int64 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_int64. */
static inline T_int64 finalize_int64(acc_int64 s, int64_t count)
{
    return (T_int64)(s / (__int128)count);
}

static inline void rowacc_init_int64(rowacc_int64 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_int64(const rowacc_int64 *r, int64_t w, int64_t count, acc_int64 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_int64((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_int64(lo, hi, u) do { uint64_t u_ = (u); (lo) += u_ & 0xffffffffu; (hi) += u_ >> 32; } while (0)

CLONES static void run_int64(const T_int64 *x, int64_t s, int64_t n, lanes_int64 *l)
{
    uint64_t lo[LANES_int64], hi[LANES_int64];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_int64 <= n; i += LANES_int64)
            for (int k = 0; k < LANES_int64; k++) ADD_BIASED_int64(lo[k], hi[k], BIASED_int64(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_int64(lo[k], hi[k], BIASED_int64(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_int64(lo[0], hi[0], BIASED_int64(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_int64(rowacc_int64 *r, const T_int64 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int64(lo[j], hi[j], BIASED_int64(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_int64(lo[j], hi[j], BIASED_int64(x[j * s]));
    }
}
#define RUN_int64 run_int64
#define ADD_ROW_int64 add_row_int64
/* ======================================================================
 * uint8: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef uint8_t T_uint8;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^8 */
#define BIASED_uint8(x) ((uint64_t)(uint8_t)(((uint8_t)(x)) ^ (uint8_t)0))
typedef __int128 acc_uint8;
#define LANES_uint8 8
typedef struct { uint64_t lo[LANES_uint8], hi[LANES_uint8]; } lanes_uint8;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint8;

static inline void lanes_init_uint8(lanes_uint8 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint8 unbias_uint8(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)0;
}

static inline acc_uint8 lanes_sum_uint8(const lanes_uint8 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_uint8; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_uint8(u, count);
}

static inline acc_uint8 acc_add_uint8(acc_uint8 a, acc_uint8 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_uint8. */
static inline T_uint8 finalize_uint8(acc_uint8 s, int64_t count)
{
    return (T_uint8)(s / (__int128)count);
}

static inline void rowacc_init_uint8(rowacc_uint8 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_uint8(const rowacc_uint8 *r, int64_t w, int64_t count, acc_uint8 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_uint8((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_uint8(lo, hi, u) do { (lo) += (u); } while (0)

CLONES static void run_uint8(const T_uint8 *x, int64_t s, int64_t n, lanes_uint8 *l)
{
    uint64_t lo[LANES_uint8], hi[LANES_uint8];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_uint8 <= n; i += LANES_uint8)
            for (int k = 0; k < LANES_uint8; k++) ADD_BIASED_uint8(lo[k], hi[k], BIASED_uint8(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_uint8(lo[k], hi[k], BIASED_uint8(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_uint8(lo[0], hi[0], BIASED_uint8(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_uint8(rowacc_uint8 *r, const T_uint8 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint8(lo[j], hi[j], BIASED_uint8(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint8(lo[j], hi[j], BIASED_uint8(x[j * s]));
    }
}
#define RUN_uint8 run_uint8
#define ADD_ROW_uint8 add_row_uint8
/* ======================================================================
 * uint16: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef uint16_t T_uint16;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^16 */
#define BIASED_uint16(x) ((uint64_t)(uint16_t)(((uint16_t)(x)) ^ (uint16_t)0))
typedef __int128 acc_uint16;
#define LANES_uint16 8
typedef struct { uint64_t lo[LANES_uint16], hi[LANES_uint16]; } lanes_uint16;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint16;

static inline void lanes_init_uint16(lanes_uint16 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint16 unbias_uint16(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)0;
}

static inline acc_uint16 lanes_sum_uint16(const lanes_uint16 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_uint16; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_uint16(u, count);
}

static inline acc_uint16 acc_add_uint16(acc_uint16 a, acc_uint16 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_uint16. */
static inline T_uint16 finalize_uint16(acc_uint16 s, int64_t count)
{
    return (T_uint16)(s / (__int128)count);
}

static inline void rowacc_init_uint16(rowacc_uint16 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_uint16(const rowacc_uint16 *r, int64_t w, int64_t count, acc_uint16 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_uint16((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_uint16(lo, hi, u) do { (lo) += (u); } while (0)

CLONES static void run_uint16(const T_uint16 *x, int64_t s, int64_t n, lanes_uint16 *l)
{
    uint64_t lo[LANES_uint16], hi[LANES_uint16];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_uint16 <= n; i += LANES_uint16)
            for (int k = 0; k < LANES_uint16; k++) ADD_BIASED_uint16(lo[k], hi[k], BIASED_uint16(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_uint16(lo[k], hi[k], BIASED_uint16(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_uint16(lo[0], hi[0], BIASED_uint16(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_uint16(rowacc_uint16 *r, const T_uint16 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint16(lo[j], hi[j], BIASED_uint16(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint16(lo[j], hi[j], BIASED_uint16(x[j * s]));
    }
}
#define RUN_uint16 run_uint16
#define ADD_ROW_uint16 add_row_uint16
/* ======================================================================
 * uint32: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef uint32_t T_uint32;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^32 */
#define BIASED_uint32(x) ((uint64_t)(uint32_t)(((uint32_t)(x)) ^ (uint32_t)0))
typedef __int128 acc_uint32;
#define LANES_uint32 8
typedef struct { uint64_t lo[LANES_uint32], hi[LANES_uint32]; } lanes_uint32;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint32;

static inline void lanes_init_uint32(lanes_uint32 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint32 unbias_uint32(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)0;
}

static inline acc_uint32 lanes_sum_uint32(const lanes_uint32 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_uint32; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_uint32(u, count);
}

static inline acc_uint32 acc_add_uint32(acc_uint32 a, acc_uint32 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_uint32. */
static inline T_uint32 finalize_uint32(acc_uint32 s, int64_t count)
{
    return (T_uint32)(s / (__int128)count);
}

static inline void rowacc_init_uint32(rowacc_uint32 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_uint32(const rowacc_uint32 *r, int64_t w, int64_t count, acc_uint32 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_uint32((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_uint32(lo, hi, u) do { (lo) += (u); } while (0)

CLONES static void run_uint32(const T_uint32 *x, int64_t s, int64_t n, lanes_uint32 *l)
{
    uint64_t lo[LANES_uint32], hi[LANES_uint32];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_uint32 <= n; i += LANES_uint32)
            for (int k = 0; k < LANES_uint32; k++) ADD_BIASED_uint32(lo[k], hi[k], BIASED_uint32(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_uint32(lo[k], hi[k], BIASED_uint32(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_uint32(lo[0], hi[0], BIASED_uint32(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_uint32(rowacc_uint32 *r, const T_uint32 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint32(lo[j], hi[j], BIASED_uint32(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint32(lo[j], hi[j], BIASED_uint32(x[j * s]));
    }
}
#define RUN_uint32 run_uint32
#define ADD_ROW_uint32 add_row_uint32
/* ======================================================================
 * uint64: exact sum (biased 32-bit halves, 128-bit totals), truncate toward zero
 * ==================================================================== */
typedef uint64_t T_uint64;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^64 */
#define BIASED_uint64(x) ((uint64_t)(uint64_t)(((uint64_t)(x)) ^ (uint64_t)0))
typedef __int128 acc_uint64;
#define LANES_uint64 8
typedef struct { uint64_t lo[LANES_uint64], hi[LANES_uint64]; } lanes_uint64;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint64;

static inline void lanes_init_uint64(lanes_uint64 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint64 unbias_uint64(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)0;
}

static inline acc_uint64 lanes_sum_uint64(const lanes_uint64 *l, int64_t count)
{
    unsigned __int128 u = 0;
    for (int k = 0; k < LANES_uint64; k++) u += (unsigned __int128)l->lo[k] + ((unsigned __int128)l->hi[k] << 32);
    return unbias_uint64(u, count);
}

static inline acc_uint64 acc_add_uint64(acc_uint64 a, acc_uint64 b) { return a + b; }

/* C division truncates toward zero; |mean| <= max |x|, so it fits T_uint64. */
static inline T_uint64 finalize_uint64(acc_uint64 s, int64_t count)
{
    return (T_uint64)(s / (__int128)count);
}

static inline void rowacc_init_uint64(rowacc_uint64 *r, int64_t w)
{
    for (int64_t j = 0; j < w; j++) { r->lo[j] = 0; r->hi[j] = 0; }
}

static inline void rowacc_take_uint64(const rowacc_uint64 *r, int64_t w, int64_t count, acc_uint64 *part)
{
    for (int64_t j = 0; j < w; j++)
        part[j] = unbias_uint64((unsigned __int128)r->lo[j] + ((unsigned __int128)r->hi[j] << 32), count);
}
#define ADD_BIASED_uint64(lo, hi, u) do { uint64_t u_ = (u); (lo) += u_ & 0xffffffffu; (hi) += u_ >> 32; } while (0)

CLONES static void run_uint64(const T_uint64 *x, int64_t s, int64_t n, lanes_uint64 *l)
{
    uint64_t lo[LANES_uint64], hi[LANES_uint64];
    memcpy(lo, l->lo, sizeof lo);
    memcpy(hi, l->hi, sizeof hi);
    int64_t i = 0;
    if (s == 1) {
        for (; i + LANES_uint64 <= n; i += LANES_uint64)
            for (int k = 0; k < LANES_uint64; k++) ADD_BIASED_uint64(lo[k], hi[k], BIASED_uint64(x[i + k]));
        for (int k = 0; i < n; i++, k++) ADD_BIASED_uint64(lo[k], hi[k], BIASED_uint64(x[i]));
    } else {
        for (; i < n; i++) ADD_BIASED_uint64(lo[0], hi[0], BIASED_uint64(x[i * s]));
    }
    memcpy(l->lo, lo, sizeof lo);
    memcpy(l->hi, hi, sizeof hi);
}

CLONES static void add_row_uint64(rowacc_uint64 *r, const T_uint64 *x, int64_t s, int64_t w)
{
    uint64_t *lo = r->lo, *hi = r->hi;
    (void)hi;
    if (s == 1) {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint64(lo[j], hi[j], BIASED_uint64(x[j]));
    } else {
        for (int64_t j = 0; j < w; j++) ADD_BIASED_uint64(lo[j], hi[j], BIASED_uint64(x[j * s]));
    }
}
#define RUN_uint64 run_uint64
#define ADD_ROW_uint64 add_row_uint64
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_float16 inner_chunk_float16(const T_float16 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_float16 l;
    lanes_init_float16(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_float16(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_float16(&l, end - start);
}

static T_float16 inner_one_float16(const T_float16 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_float16 total = inner_chunk_float16(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_float16(total, inner_chunk_float16(base, p, c * CHUNK, end));
    }
    return finalize_float16(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_float16(const reduce_plan *p, const T_float16 *in, T_float16 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_float16(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_float16), &bytes))
        return MEANCLI_E_SHAPE;
    acc_float16 *parts = (acc_float16 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_float16(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_float16 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_float16(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_float16(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_float16(const T_float16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_float16 *part)
{
    rowacc_float16 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_float16(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_float16(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_float16(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_float16(const reduce_plan *p, const T_float16 *in, T_float16 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_float16 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_float16), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_float16 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_float16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_float16 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_float16 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_float16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_float16(total[j], src[j]) : src[j];
        }
        T_float16 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_float16(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_float16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p.nout; i++) ((T_float16 *)out)[i] = finalize_float16((acc_float16)0.0, 0);
        return MEANCLI_OK;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_float16(&p, (const T_float16 *)in, (T_float16 *)out, nthreads);
    return reduce_rows_float16(&p, (const T_float16 *)in, (T_float16 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_bfloat16 inner_chunk_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_bfloat16 l;
    lanes_init_bfloat16(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_bfloat16(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_bfloat16(&l, end - start);
}

static T_bfloat16 inner_one_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_bfloat16 total = inner_chunk_bfloat16(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_bfloat16(total, inner_chunk_bfloat16(base, p, c * CHUNK, end));
    }
    return finalize_bfloat16(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_bfloat16(const reduce_plan *p, const T_bfloat16 *in, T_bfloat16 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_bfloat16(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_bfloat16), &bytes))
        return MEANCLI_E_SHAPE;
    acc_bfloat16 *parts = (acc_bfloat16 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_bfloat16(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_bfloat16 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_bfloat16(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_bfloat16(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_bfloat16 *part)
{
    rowacc_bfloat16 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_bfloat16(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_bfloat16(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_bfloat16(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_bfloat16(const reduce_plan *p, const T_bfloat16 *in, T_bfloat16 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_bfloat16 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_bfloat16), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_bfloat16 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_bfloat16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_bfloat16 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_bfloat16 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_bfloat16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_bfloat16(total[j], src[j]) : src[j];
        }
        T_bfloat16 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_bfloat16(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_bfloat16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_bfloat16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p.nout; i++) ((T_bfloat16 *)out)[i] = finalize_bfloat16((acc_bfloat16)0.0, 0);
        return MEANCLI_OK;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_bfloat16(&p, (const T_bfloat16 *)in, (T_bfloat16 *)out, nthreads);
    return reduce_rows_bfloat16(&p, (const T_bfloat16 *)in, (T_bfloat16 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_float32 inner_chunk_float32(const T_float32 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_float32 l;
    lanes_init_float32(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_float32(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_float32(&l, end - start);
}

static T_float32 inner_one_float32(const T_float32 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_float32 total = inner_chunk_float32(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_float32(total, inner_chunk_float32(base, p, c * CHUNK, end));
    }
    return finalize_float32(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_float32(const reduce_plan *p, const T_float32 *in, T_float32 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_float32(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_float32), &bytes))
        return MEANCLI_E_SHAPE;
    acc_float32 *parts = (acc_float32 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_float32(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_float32 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_float32(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_float32(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_float32(const T_float32 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_float32 *part)
{
    rowacc_float32 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_float32(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_float32(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_float32(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_float32(const reduce_plan *p, const T_float32 *in, T_float32 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_float32 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_float32), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_float32 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_float32(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_float32 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_float32 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_float32(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_float32(total[j], src[j]) : src[j];
        }
        T_float32 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_float32(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_float32(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float32), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p.nout; i++) ((T_float32 *)out)[i] = finalize_float32((acc_float32)0.0, 0);
        return MEANCLI_OK;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_float32(&p, (const T_float32 *)in, (T_float32 *)out, nthreads);
    return reduce_rows_float32(&p, (const T_float32 *)in, (T_float32 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_float64 inner_chunk_float64(const T_float64 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_float64 l;
    lanes_init_float64(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_float64(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_float64(&l, end - start);
}

static T_float64 inner_one_float64(const T_float64 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_float64 total = inner_chunk_float64(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_float64(total, inner_chunk_float64(base, p, c * CHUNK, end));
    }
    return finalize_float64(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_float64(const reduce_plan *p, const T_float64 *in, T_float64 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_float64(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_float64), &bytes))
        return MEANCLI_E_SHAPE;
    acc_float64 *parts = (acc_float64 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_float64(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_float64 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_float64(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_float64(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_float64(const T_float64 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_float64 *part)
{
    rowacc_float64 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_float64(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_float64(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_float64(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_float64(const reduce_plan *p, const T_float64 *in, T_float64 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_float64 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_float64), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_float64 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_float64(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_float64 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_float64 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_float64(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_float64(total[j], src[j]) : src[j];
        }
        T_float64 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_float64(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_float64(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float64), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p.nout; i++) ((T_float64 *)out)[i] = finalize_float64((acc_float64){0.0, 0.0}, 0);
        return MEANCLI_OK;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_float64(&p, (const T_float64 *)in, (T_float64 *)out, nthreads);
    return reduce_rows_float64(&p, (const T_float64 *)in, (T_float64 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_int8 inner_chunk_int8(const T_int8 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_int8 l;
    lanes_init_int8(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_int8(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_int8(&l, end - start);
}

static T_int8 inner_one_int8(const T_int8 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_int8 total = inner_chunk_int8(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_int8(total, inner_chunk_int8(base, p, c * CHUNK, end));
    }
    return finalize_int8(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_int8(const reduce_plan *p, const T_int8 *in, T_int8 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_int8(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_int8), &bytes))
        return MEANCLI_E_SHAPE;
    acc_int8 *parts = (acc_int8 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int8(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_int8 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_int8(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_int8(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_int8(const T_int8 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_int8 *part)
{
    rowacc_int8 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_int8(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_int8(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_int8(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_int8(const reduce_plan *p, const T_int8 *in, T_int8 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_int8 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_int8), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_int8 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_int8(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_int8 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_int8 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_int8(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_int8(total[j], src[j]) : src[j];
        }
        T_int8 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_int8(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_int8(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int8), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_int8(&p, (const T_int8 *)in, (T_int8 *)out, nthreads);
    return reduce_rows_int8(&p, (const T_int8 *)in, (T_int8 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_int16 inner_chunk_int16(const T_int16 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_int16 l;
    lanes_init_int16(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_int16(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_int16(&l, end - start);
}

static T_int16 inner_one_int16(const T_int16 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_int16 total = inner_chunk_int16(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_int16(total, inner_chunk_int16(base, p, c * CHUNK, end));
    }
    return finalize_int16(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_int16(const reduce_plan *p, const T_int16 *in, T_int16 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_int16(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_int16), &bytes))
        return MEANCLI_E_SHAPE;
    acc_int16 *parts = (acc_int16 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int16(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_int16 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_int16(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_int16(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_int16(const T_int16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_int16 *part)
{
    rowacc_int16 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_int16(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_int16(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_int16(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_int16(const reduce_plan *p, const T_int16 *in, T_int16 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_int16 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_int16), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_int16 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_int16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_int16 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_int16 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_int16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_int16(total[j], src[j]) : src[j];
        }
        T_int16 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_int16(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_int16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_int16(&p, (const T_int16 *)in, (T_int16 *)out, nthreads);
    return reduce_rows_int16(&p, (const T_int16 *)in, (T_int16 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_int32 inner_chunk_int32(const T_int32 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_int32 l;
    lanes_init_int32(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_int32(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_int32(&l, end - start);
}

static T_int32 inner_one_int32(const T_int32 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_int32 total = inner_chunk_int32(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_int32(total, inner_chunk_int32(base, p, c * CHUNK, end));
    }
    return finalize_int32(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_int32(const reduce_plan *p, const T_int32 *in, T_int32 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_int32(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_int32), &bytes))
        return MEANCLI_E_SHAPE;
    acc_int32 *parts = (acc_int32 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int32(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_int32 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_int32(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_int32(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_int32(const T_int32 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_int32 *part)
{
    rowacc_int32 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_int32(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_int32(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_int32(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_int32(const reduce_plan *p, const T_int32 *in, T_int32 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_int32 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_int32), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_int32 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_int32(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_int32 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_int32 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_int32(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_int32(total[j], src[j]) : src[j];
        }
        T_int32 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_int32(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_int32(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int32), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_int32(&p, (const T_int32 *)in, (T_int32 *)out, nthreads);
    return reduce_rows_int32(&p, (const T_int32 *)in, (T_int32 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_int64 inner_chunk_int64(const T_int64 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_int64 l;
    lanes_init_int64(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_int64(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_int64(&l, end - start);
}

static T_int64 inner_one_int64(const T_int64 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_int64 total = inner_chunk_int64(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_int64(total, inner_chunk_int64(base, p, c * CHUNK, end));
    }
    return finalize_int64(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_int64(const reduce_plan *p, const T_int64 *in, T_int64 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_int64(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_int64), &bytes))
        return MEANCLI_E_SHAPE;
    acc_int64 *parts = (acc_int64 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int64(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_int64 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_int64(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_int64(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_int64(const T_int64 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_int64 *part)
{
    rowacc_int64 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_int64(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_int64(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_int64(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_int64(const reduce_plan *p, const T_int64 *in, T_int64 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_int64 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_int64), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_int64 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_int64(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_int64 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_int64 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_int64(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_int64(total[j], src[j]) : src[j];
        }
        T_int64 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_int64(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_int64(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int64), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_int64(&p, (const T_int64 *)in, (T_int64 *)out, nthreads);
    return reduce_rows_int64(&p, (const T_int64 *)in, (T_int64 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_uint8 inner_chunk_uint8(const T_uint8 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_uint8 l;
    lanes_init_uint8(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_uint8(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_uint8(&l, end - start);
}

static T_uint8 inner_one_uint8(const T_uint8 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_uint8 total = inner_chunk_uint8(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_uint8(total, inner_chunk_uint8(base, p, c * CHUNK, end));
    }
    return finalize_uint8(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_uint8(const reduce_plan *p, const T_uint8 *in, T_uint8 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_uint8(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_uint8), &bytes))
        return MEANCLI_E_SHAPE;
    acc_uint8 *parts = (acc_uint8 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint8(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_uint8 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_uint8(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_uint8(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_uint8(const T_uint8 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_uint8 *part)
{
    rowacc_uint8 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_uint8(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_uint8(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_uint8(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_uint8(const reduce_plan *p, const T_uint8 *in, T_uint8 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_uint8 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_uint8), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_uint8 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_uint8(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_uint8 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_uint8 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_uint8(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_uint8(total[j], src[j]) : src[j];
        }
        T_uint8 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_uint8(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_uint8(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint8), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_uint8(&p, (const T_uint8 *)in, (T_uint8 *)out, nthreads);
    return reduce_rows_uint8(&p, (const T_uint8 *)in, (T_uint8 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_uint16 inner_chunk_uint16(const T_uint16 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_uint16 l;
    lanes_init_uint16(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_uint16(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_uint16(&l, end - start);
}

static T_uint16 inner_one_uint16(const T_uint16 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_uint16 total = inner_chunk_uint16(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_uint16(total, inner_chunk_uint16(base, p, c * CHUNK, end));
    }
    return finalize_uint16(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_uint16(const reduce_plan *p, const T_uint16 *in, T_uint16 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_uint16(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_uint16), &bytes))
        return MEANCLI_E_SHAPE;
    acc_uint16 *parts = (acc_uint16 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint16(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_uint16 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_uint16(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_uint16(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_uint16(const T_uint16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_uint16 *part)
{
    rowacc_uint16 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_uint16(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_uint16(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_uint16(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_uint16(const reduce_plan *p, const T_uint16 *in, T_uint16 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_uint16 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_uint16), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_uint16 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_uint16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_uint16 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_uint16 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_uint16(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_uint16(total[j], src[j]) : src[j];
        }
        T_uint16 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_uint16(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_uint16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_uint16(&p, (const T_uint16 *)in, (T_uint16 *)out, nthreads);
    return reduce_rows_uint16(&p, (const T_uint16 *)in, (T_uint16 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_uint32 inner_chunk_uint32(const T_uint32 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_uint32 l;
    lanes_init_uint32(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_uint32(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_uint32(&l, end - start);
}

static T_uint32 inner_one_uint32(const T_uint32 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_uint32 total = inner_chunk_uint32(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_uint32(total, inner_chunk_uint32(base, p, c * CHUNK, end));
    }
    return finalize_uint32(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_uint32(const reduce_plan *p, const T_uint32 *in, T_uint32 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_uint32(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_uint32), &bytes))
        return MEANCLI_E_SHAPE;
    acc_uint32 *parts = (acc_uint32 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint32(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_uint32 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_uint32(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_uint32(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_uint32(const T_uint32 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_uint32 *part)
{
    rowacc_uint32 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_uint32(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_uint32(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_uint32(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_uint32(const reduce_plan *p, const T_uint32 *in, T_uint32 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_uint32 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_uint32), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_uint32 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_uint32(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_uint32 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_uint32 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_uint32(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_uint32(total[j], src[j]) : src[j];
        }
        T_uint32 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_uint32(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_uint32(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint32), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_uint32(&p, (const T_uint32 *)in, (T_uint32 *)out, nthreads);
    return reduce_rows_uint32(&p, (const T_uint32 *)in, (T_uint32 *)out, nthreads);
}
/* Sum of reduced flat indices [start, end) for one output: runs along the
 * innermost reduced dim, an odometer over the outer ones. */
static acc_uint64 inner_chunk_uint64(const T_uint64 *base, const reduce_plan *p, int64_t start, int64_t end)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start;
    lanes_uint64 l;
    lanes_init_uint64(&l);
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = len - i0 < remaining ? len - i0 : remaining;
        RUN_uint64(base + off, s, take, &l);
        remaining -= take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
    return lanes_sum_uint64(&l, end - start);
}

static T_uint64 inner_one_uint64(const T_uint64 *base, const reduce_plan *p, int64_t nchunks)
{
    acc_uint64 total = inner_chunk_uint64(base, p, 0, p->nred < CHUNK ? p->nred : CHUNK);
    for (int64_t c = 1; c < nchunks; c++) {
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        total = acc_add_uint64(total, inner_chunk_uint64(base, p, c * CHUNK, end));
    }
    return finalize_uint64(total, p->nred);
}

/* The innermost (smallest-stride) dimension is reduced: each output is a
 * contiguous-run reduction. Many outputs: threads split the outputs. Few
 * outputs: threads split the chunks, and partials combine in chunk order. */
static int reduce_inner_uint64(const reduce_plan *p, const T_uint64 *in, T_uint64 *out, int nthreads)
{
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    if (nchunks == 1 || p->nout >= 4 * (int64_t)nt) {
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            int64_t tid = 0, nth = 1;
#ifdef _OPENMP
            tid = omp_get_thread_num();
            nth = omp_get_num_threads();
#endif
            int64_t per = (p->nout + nth - 1) / nth;
            int64_t lo = tid * per < p->nout ? tid * per : p->nout;
            int64_t hi = lo + per < p->nout ? lo + per : p->nout;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
            if (lo < hi) {
                unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
                unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            }
            for (int64_t u = lo; u < hi; u++) {
                out[out_off] = inner_one_uint64(in + in_off, p, nchunks);
                for (int d = p->nk - 1; d >= 0; d--) {
                    idx[d]++;
                    in_off += p->kin[d];
                    out_off += p->kout[d];
                    if (idx[d] < p->ksize[d]) break;
                    in_off -= idx[d] * p->kin[d];
                    out_off -= idx[d] * p->kout[d];
                    idx[d] = 0;
                }
            }
        }
        return MEANCLI_OK;
    }
    int64_t nparts, bytes;
    if (!mul_ok(p->nout, nchunks, &nparts) || !mul_ok(nparts, (int64_t)sizeof(acc_uint64), &bytes))
        return MEANCLI_E_SHAPE;
    acc_uint64 *parts = (acc_uint64 *)malloc((size_t)bytes);
    if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = w / nchunks, c = w % nchunks, idx[MEANCLI_MAX_RANK], in_off;
        int64_t end = (c + 1) * CHUNK < p->nred ? (c + 1) * CHUNK : p->nred;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint64(in + in_off, p, c * CHUNK, end);
    }
    for (int64_t u = 0; u < p->nout; u++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        acc_uint64 total = parts[u * nchunks];
        for (int64_t c = 1; c < nchunks; c++) total = acc_add_uint64(total, parts[u * nchunks + c]);
        unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
        out[out_off] = finalize_uint64(total, p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* Rows [start, end) of the reduced index space, added column-wise into a tile. */
static void rows_chunk_uint64(const T_uint64 *base, const reduce_plan *p, int64_t start, int64_t end,
                               int64_t s, int64_t w, acc_uint64 *part)
{
    rowacc_uint64 r;
    int64_t idx[MEANCLI_MAX_RANK], off;
    rowacc_init_uint64(&r, w);
    unflatten(start, p->nr, p->rsize, p->rin, idx, &off);
    for (int64_t f = start; f < end; f++) {
        ADD_ROW_uint64(&r, base + off, s, w);
        odometer_next(p->nr, p->rsize, p->rin, idx, &off);
    }
    rowacc_take_uint64(&r, w, end - start, part);
}

/* The innermost dimension is kept: accumulate whole rows of up to TILE
 * columns. Units are (outer output index, column tile); with few units,
 * threads also split the rows into fixed chunks combined in order. */
static int reduce_rows_uint64(const reduce_plan *p, const T_uint64 *in, T_uint64 *out, int nthreads)
{
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE, nunits = nouter * ntiles;
    int64_t nrc = (p->nred + ROW_CHUNK - 1) / ROW_CHUNK;
    int nt = clamp_threads(nthreads, p->nout * p->nred);
    acc_uint64 *parts = NULL;
    if (!(nrc == 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, bytes;
        if (!mul_ok(nunits, nrc, &nparts) || !mul_ok(nparts, TILE * (int64_t)sizeof(acc_uint64), &bytes))
            return MEANCLI_E_SHAPE;
        parts = (acc_uint64 *)malloc((size_t)bytes);
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
        for (int64_t wi = 0; wi < nparts; wi++) {
            int64_t unit = wi / nrc, c = wi % nrc, o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK], in_off;
            int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
            int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
            unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
            rows_chunk_uint64(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, parts + wi * TILE);
        }
    }
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = K - t * TILE < TILE ? K - t * TILE : TILE;
        acc_uint64 total[TILE], part[TILE];
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t c = 0; c < nrc; c++) {
            acc_uint64 *src = part;
            if (parts) {
                src = parts + (unit * nrc + c) * TILE;
            } else {
                int64_t end = (c + 1) * ROW_CHUNK < p->nred ? (c + 1) * ROW_CHUNK : p->nred;
                rows_chunk_uint64(in + in_off + t * TILE * sin, p, c * ROW_CHUNK, end, sin, w, part);
            }
            for (int64_t j = 0; j < w; j++) total[j] = c ? acc_add_uint64(total[j], src[j]) : src[j];
        }
        T_uint64 *dst = out + out_off + t * TILE * sout;
        for (int64_t j = 0; j < w; j++) dst[j * sout] = finalize_uint64(total[j], p->nred);
    }
    free(parts);
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order). Returns MEANCLI_OK or an MEANCLI_E_* code; writes nothing on error. */
int meancli_reduce_uint64(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint64), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p.nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!in) return MEANCLI_E_ARG;
    if (p.inner_reduced) return reduce_inner_uint64(&p, (const T_uint64 *)in, (T_uint64 *)out, nthreads);
    return reduce_rows_uint64(&p, (const T_uint64 *)in, (T_uint64 *)out, nthreads);
}
/* Mean of `ninputs` tensors broadcast to `shape` (rank dims) into the
 * C-contiguous `out`. strides_bytes holds ninputs rows of rank byte strides,
 * 0 where an input is broadcast. Each output element adds its inputs in
 * input order in the accumulator type and rounds once, so the result does
 * not depend on threads. Returns MEANCLI_OK or an MEANCLI_E_* code. */
int meancli_mean_float16(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                         void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work, bytes;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (ninputs < 1 || !inputs || (rank > 0 && (!shape || !strides_bytes))) return MEANCLI_E_ARG;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0) return MEANCLI_E_SHAPE;
        if (!mul_ok(nout, shape[d], &nout)) return MEANCLI_E_SHAPE;
    }
    if (!mul_ok(nout, ninputs, &work)) return MEANCLI_E_SHAPE;
    if (nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    for (int i = 0; i < ninputs; i++) {
        if (!inputs[i]) return MEANCLI_E_ARG;
        for (int d = 0; d < rank; d++) {
            int64_t s = strides_bytes[(int64_t)i * rank + d];
            if (s < 0 || s % (int64_t)sizeof(T_float16) != 0) return MEANCLI_E_STRIDE;
        }
    }
    /* Plan: drop size-1 dims; merge neighbours contiguous in every input. */
    int64_t size[MEANCLI_MAX_RANK];
    int keep[MEANCLI_MAX_RANK], nd = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        int merge = nd > 0;
        for (int i = 0; merge && i < ninputs; i++) {
            const int64_t *s = strides_bytes + (int64_t)i * rank;
            merge = s[keep[nd - 1]] == s[d] * shape[d];
        }
        if (merge) {
            size[nd - 1] *= shape[d];
            keep[nd - 1] = d; /* the merged dim takes the inner dim's strides */
        } else {
            size[nd] = shape[d];
            keep[nd] = d;
            nd++;
        }
    }
    if (!mul_ok((int64_t)ninputs, (int64_t)(nd > 0 ? nd : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *strides = (int64_t *)malloc((size_t)bytes);
    if (!strides) return MEANCLI_E_NOMEM;
    for (int i = 0; i < ninputs; i++)
        for (int d = 0; d < nd; d++)
            strides[(int64_t)i * nd + d] = strides_bytes[(int64_t)i * rank + keep[d]] / (int64_t)sizeof(T_float16);
    int64_t L = nd > 0 ? size[nd - 1] : 1, nouter = nout / L, ntiles = (L + TILE - 1) / TILE;
    int64_t nunits = nouter * ntiles;
    int nt = clamp_threads(nthreads, work);
    const T_float16 *const *x = (const T_float16 *const *)inputs;
    T_float16 *y = (T_float16 *)out;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles;
        int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
        int64_t idx[MEANCLI_MAX_RANK];
        rowacc_float16 r;
        rowacc_init_float16(&r, w);
        {
            int64_t rem = o;
            for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
        }
        for (int i = 0; i < ninputs; i++) {
            const int64_t *s = strides + (int64_t)i * nd;
            int64_t off = 0, sinner = nd > 0 ? s[nd - 1] : 0;
            for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
            ADD_ROW_float16(&r, x[i] + off + t * TILE * sinner, sinner, w);
        }
        acc_float16 part[TILE];
        rowacc_take_float16(&r, w, ninputs, part);
        T_float16 *dst = y + o * L + t * TILE;
        for (int64_t j = 0; j < w; j++) dst[j] = finalize_float16(part[j], ninputs);
    }
    free(strides);
    return MEANCLI_OK;
}
/* Mean of `ninputs` tensors broadcast to `shape` (rank dims) into the
 * C-contiguous `out`. strides_bytes holds ninputs rows of rank byte strides,
 * 0 where an input is broadcast. Each output element adds its inputs in
 * input order in the accumulator type and rounds once, so the result does
 * not depend on threads. Returns MEANCLI_OK or an MEANCLI_E_* code. */
int meancli_mean_bfloat16(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                         void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work, bytes;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (ninputs < 1 || !inputs || (rank > 0 && (!shape || !strides_bytes))) return MEANCLI_E_ARG;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0) return MEANCLI_E_SHAPE;
        if (!mul_ok(nout, shape[d], &nout)) return MEANCLI_E_SHAPE;
    }
    if (!mul_ok(nout, ninputs, &work)) return MEANCLI_E_SHAPE;
    if (nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    for (int i = 0; i < ninputs; i++) {
        if (!inputs[i]) return MEANCLI_E_ARG;
        for (int d = 0; d < rank; d++) {
            int64_t s = strides_bytes[(int64_t)i * rank + d];
            if (s < 0 || s % (int64_t)sizeof(T_bfloat16) != 0) return MEANCLI_E_STRIDE;
        }
    }
    /* Plan: drop size-1 dims; merge neighbours contiguous in every input. */
    int64_t size[MEANCLI_MAX_RANK];
    int keep[MEANCLI_MAX_RANK], nd = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        int merge = nd > 0;
        for (int i = 0; merge && i < ninputs; i++) {
            const int64_t *s = strides_bytes + (int64_t)i * rank;
            merge = s[keep[nd - 1]] == s[d] * shape[d];
        }
        if (merge) {
            size[nd - 1] *= shape[d];
            keep[nd - 1] = d; /* the merged dim takes the inner dim's strides */
        } else {
            size[nd] = shape[d];
            keep[nd] = d;
            nd++;
        }
    }
    if (!mul_ok((int64_t)ninputs, (int64_t)(nd > 0 ? nd : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *strides = (int64_t *)malloc((size_t)bytes);
    if (!strides) return MEANCLI_E_NOMEM;
    for (int i = 0; i < ninputs; i++)
        for (int d = 0; d < nd; d++)
            strides[(int64_t)i * nd + d] = strides_bytes[(int64_t)i * rank + keep[d]] / (int64_t)sizeof(T_bfloat16);
    int64_t L = nd > 0 ? size[nd - 1] : 1, nouter = nout / L, ntiles = (L + TILE - 1) / TILE;
    int64_t nunits = nouter * ntiles;
    int nt = clamp_threads(nthreads, work);
    const T_bfloat16 *const *x = (const T_bfloat16 *const *)inputs;
    T_bfloat16 *y = (T_bfloat16 *)out;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles;
        int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
        int64_t idx[MEANCLI_MAX_RANK];
        rowacc_bfloat16 r;
        rowacc_init_bfloat16(&r, w);
        {
            int64_t rem = o;
            for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
        }
        for (int i = 0; i < ninputs; i++) {
            const int64_t *s = strides + (int64_t)i * nd;
            int64_t off = 0, sinner = nd > 0 ? s[nd - 1] : 0;
            for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
            ADD_ROW_bfloat16(&r, x[i] + off + t * TILE * sinner, sinner, w);
        }
        acc_bfloat16 part[TILE];
        rowacc_take_bfloat16(&r, w, ninputs, part);
        T_bfloat16 *dst = y + o * L + t * TILE;
        for (int64_t j = 0; j < w; j++) dst[j] = finalize_bfloat16(part[j], ninputs);
    }
    free(strides);
    return MEANCLI_OK;
}
/* Mean of `ninputs` tensors broadcast to `shape` (rank dims) into the
 * C-contiguous `out`. strides_bytes holds ninputs rows of rank byte strides,
 * 0 where an input is broadcast. Each output element adds its inputs in
 * input order in the accumulator type and rounds once, so the result does
 * not depend on threads. Returns MEANCLI_OK or an MEANCLI_E_* code. */
int meancli_mean_float32(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                         void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work, bytes;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (ninputs < 1 || !inputs || (rank > 0 && (!shape || !strides_bytes))) return MEANCLI_E_ARG;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0) return MEANCLI_E_SHAPE;
        if (!mul_ok(nout, shape[d], &nout)) return MEANCLI_E_SHAPE;
    }
    if (!mul_ok(nout, ninputs, &work)) return MEANCLI_E_SHAPE;
    if (nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    for (int i = 0; i < ninputs; i++) {
        if (!inputs[i]) return MEANCLI_E_ARG;
        for (int d = 0; d < rank; d++) {
            int64_t s = strides_bytes[(int64_t)i * rank + d];
            if (s < 0 || s % (int64_t)sizeof(T_float32) != 0) return MEANCLI_E_STRIDE;
        }
    }
    /* Plan: drop size-1 dims; merge neighbours contiguous in every input. */
    int64_t size[MEANCLI_MAX_RANK];
    int keep[MEANCLI_MAX_RANK], nd = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        int merge = nd > 0;
        for (int i = 0; merge && i < ninputs; i++) {
            const int64_t *s = strides_bytes + (int64_t)i * rank;
            merge = s[keep[nd - 1]] == s[d] * shape[d];
        }
        if (merge) {
            size[nd - 1] *= shape[d];
            keep[nd - 1] = d; /* the merged dim takes the inner dim's strides */
        } else {
            size[nd] = shape[d];
            keep[nd] = d;
            nd++;
        }
    }
    if (!mul_ok((int64_t)ninputs, (int64_t)(nd > 0 ? nd : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *strides = (int64_t *)malloc((size_t)bytes);
    if (!strides) return MEANCLI_E_NOMEM;
    for (int i = 0; i < ninputs; i++)
        for (int d = 0; d < nd; d++)
            strides[(int64_t)i * nd + d] = strides_bytes[(int64_t)i * rank + keep[d]] / (int64_t)sizeof(T_float32);
    int64_t L = nd > 0 ? size[nd - 1] : 1, nouter = nout / L, ntiles = (L + TILE - 1) / TILE;
    int64_t nunits = nouter * ntiles;
    int nt = clamp_threads(nthreads, work);
    const T_float32 *const *x = (const T_float32 *const *)inputs;
    T_float32 *y = (T_float32 *)out;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles;
        int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
        int64_t idx[MEANCLI_MAX_RANK];
        rowacc_float32 r;
        rowacc_init_float32(&r, w);
        {
            int64_t rem = o;
            for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
        }
        for (int i = 0; i < ninputs; i++) {
            const int64_t *s = strides + (int64_t)i * nd;
            int64_t off = 0, sinner = nd > 0 ? s[nd - 1] : 0;
            for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
            ADD_ROW_float32(&r, x[i] + off + t * TILE * sinner, sinner, w);
        }
        acc_float32 part[TILE];
        rowacc_take_float32(&r, w, ninputs, part);
        T_float32 *dst = y + o * L + t * TILE;
        for (int64_t j = 0; j < w; j++) dst[j] = finalize_float32(part[j], ninputs);
    }
    free(strides);
    return MEANCLI_OK;
}
/* Mean of `ninputs` tensors broadcast to `shape` (rank dims) into the
 * C-contiguous `out`. strides_bytes holds ninputs rows of rank byte strides,
 * 0 where an input is broadcast. Each output element adds its inputs in
 * input order in the accumulator type and rounds once, so the result does
 * not depend on threads. Returns MEANCLI_OK or an MEANCLI_E_* code. */
int meancli_mean_float64(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                         void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work, bytes;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (ninputs < 1 || !inputs || (rank > 0 && (!shape || !strides_bytes))) return MEANCLI_E_ARG;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0) return MEANCLI_E_SHAPE;
        if (!mul_ok(nout, shape[d], &nout)) return MEANCLI_E_SHAPE;
    }
    if (!mul_ok(nout, ninputs, &work)) return MEANCLI_E_SHAPE;
    if (nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    for (int i = 0; i < ninputs; i++) {
        if (!inputs[i]) return MEANCLI_E_ARG;
        for (int d = 0; d < rank; d++) {
            int64_t s = strides_bytes[(int64_t)i * rank + d];
            if (s < 0 || s % (int64_t)sizeof(T_float64) != 0) return MEANCLI_E_STRIDE;
        }
    }
    /* Plan: drop size-1 dims; merge neighbours contiguous in every input. */
    int64_t size[MEANCLI_MAX_RANK];
    int keep[MEANCLI_MAX_RANK], nd = 0;
    for (int d = 0; d < rank; d++) {
        if (shape[d] == 1) continue;
        int merge = nd > 0;
        for (int i = 0; merge && i < ninputs; i++) {
            const int64_t *s = strides_bytes + (int64_t)i * rank;
            merge = s[keep[nd - 1]] == s[d] * shape[d];
        }
        if (merge) {
            size[nd - 1] *= shape[d];
            keep[nd - 1] = d; /* the merged dim takes the inner dim's strides */
        } else {
            size[nd] = shape[d];
            keep[nd] = d;
            nd++;
        }
    }
    if (!mul_ok((int64_t)ninputs, (int64_t)(nd > 0 ? nd : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *strides = (int64_t *)malloc((size_t)bytes);
    if (!strides) return MEANCLI_E_NOMEM;
    for (int i = 0; i < ninputs; i++)
        for (int d = 0; d < nd; d++)
            strides[(int64_t)i * nd + d] = strides_bytes[(int64_t)i * rank + keep[d]] / (int64_t)sizeof(T_float64);
    int64_t L = nd > 0 ? size[nd - 1] : 1, nouter = nout / L, ntiles = (L + TILE - 1) / TILE;
    int64_t nunits = nouter * ntiles;
    int nt = clamp_threads(nthreads, work);
    const T_float64 *const *x = (const T_float64 *const *)inputs;
    T_float64 *y = (T_float64 *)out;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = unit / ntiles, t = unit % ntiles;
        int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
        int64_t idx[MEANCLI_MAX_RANK];
        rowacc_float64 r;
        rowacc_init_float64(&r, w);
        {
            int64_t rem = o;
            for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
        }
        for (int i = 0; i < ninputs; i++) {
            const int64_t *s = strides + (int64_t)i * nd;
            int64_t off = 0, sinner = nd > 0 ? s[nd - 1] : 0;
            for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
            ADD_ROW_float64(&r, x[i] + off + t * TILE * sinner, sinner, w);
        }
        acc_float64 part[TILE];
        rowacc_take_float64(&r, w, ninputs, part);
        T_float64 *dst = y + o * L + t * TILE;
        for (int64_t j = 0; j < w; j++) dst[j] = finalize_float64(part[j], ninputs);
    }
    free(strides);
    return MEANCLI_OK;
}
