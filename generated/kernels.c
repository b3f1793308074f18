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
 * Numerics: every float result is the exact mean of its inputs rounded once
 * to the output type (round half to even, subnormals, overflow to inf only
 * when the rounded mean overflows); NaN/inf per IEEE; a mean of -0.0s is
 * -0.0, an exact cancellation +0.0. Integers: the exact sum divided by the
 * count, truncated toward zero (C division).
 *  - Each output owns a superaccumulator ("Exact sums" below): a fixed-point
 *    two's-complement integer wide enough for any sum of the format's
 *    values, plus NaN/inf/signed-zero flags. Adding to it is exact, so the
 *    order of additions (threads, slabs, chunks, ISAs) cannot change a bit.
 *  - Speed comes from blocks (up to EXTRACT_CAP values): float16, bfloat16
 *    and float32 blocks are summed in plain double and kept when the block's
 *    largest and smallest nonzero magnitudes prove that sum exact
 *    (narrow_sum_exact); float64 blocks by two levels of error-free
 *    extraction against a sigma from the previous block (kernel_exact.c.j2).
 *    A float16/bfloat16/float32 block that fails its check is first split
 *    at the lowest exponent its largest value allows (split_block,
 *    rows_split): the part above and the part below, each with its own
 *    check, which keeps a few far smaller values off the exact path.
 *    A block that fails that too is summed again exactly by exponent
 *    windows: float16/bfloat16/float32 values add in double to one bin per
 *    16 exponents, float64 values split against one sigma per 32 exponents
 *    into two bins (chunk_block); after two failed blocks in a row (one in a
 *    row accumulation) the next EXACT_SKIP go there straight. A kept block
 *    costs the superaccumulator one or two additions; in a row
 *    accumulation, a column's kept float16/bfloat16/float32 block sums are
 *    first added on in double while TwoSum shows that exact.
 *  - The mean: where |sum| is a double and the format at least two bits
 *    narrower, that double divided and rounded to odd (div_odd), then
 *    rounded once to the format. Otherwise the top 128 bits of |sum| (and a
 *    sticky bit for the rest) divided by the count in one 128/64-bit
 *    division, rounded by round_quotient, one routine parameterised by
 *    precision and exponent range. Mean of N inputs: an exact double sum divided and rounded to odd
 *    (div_odd), then rounded once to the format; the float32 vector loop
 *    multiplies by 1/N instead and corrects the product q by the exact
 *    remainder S - q * N (the unit's exactness check keeps every float32
 *    midpoint either hit exactly or a double's ulp away). float64
 *    Mean: each output's values split in two levels against sigmas of its
 *    own largest |x| (the vector loop) or the unit's (the portable one),
 *    two exact double sums s1, s2; RN(s1 + s2) / N for N a power of two,
 *    else the rounding of (s1 + s2) / N decided in double (dd_mean).
 *    float32 Mean runs in one pass where the output overlaps no input (the
 *    unit's check at its end, the unit again when it fails); inputs
 *    broadcast along all but the inner dim are summed once per call.
 *  - Few rows and short runs: a reduction of at most ROWS_AS_MEAN_MAX rows
 *    per output (float16/bfloat16/float32: _FLT), or of runs of at most
 *    INNER_AS_MEAN_MAX values, is the Mean of those rows or values
 *    (mean_unit, mean_runs), without a row accumulation's per-column costs.
 *  - integers: each value is biased to unsigned (x + 2^(bits-1) for signed
 *    types) and split into 32-bit halves; the halves are summed in 64-bit
 *    lanes, which cannot overflow within one chunk (< 2^32 values of
 *    < 2^32), and chunks combine in 128 bits.
 *  - NaN and infinities: a block holding one is summed again from a copy
 *    in L1 with those as -0.0 and their flags in the state (clean_block,
 *    clean_rows), so it stays on the fast path.
 *  - skipna (meancli's own extension): every NaN is read as -0.0 (which
 *    adds nothing and sets no flag) and counted in the count word of its
 *    output's exact state (float32 runs mask NaN lanes in the vector loop,
 *    others read through copies in L1); the output divides by the values
 *    kept (kernel_reduce.c.j2, "skipna").
 *  - Partial states (meancli_reduce_partial_*, _combine_*, _finalize_*):
 *    the same superaccumulator as bytes, so parts of a reduction computed
 *    anywhere combine exactly.
 *
 * Sizes: every product of dimensions is computed with overflow checks;
 * strides must be non-negative multiples of the item size.
 */
#include "meancli_config.h"

/* status codes: meancli/codegen/statuses.py, rendered into generated/tables.py for Python too */
enum {
    MEANCLI_OK = 0, /* success */
    MEANCLI_E_RANK = 1, /* rank outside [0, 64] */
    MEANCLI_E_SHAPE = 2, /* a negative dimension or a size that overflows int64 */
    MEANCLI_E_STRIDE = 3, /* a stride that is negative or not a multiple of the item size */
    MEANCLI_E_NOMEM = 4, /* out of memory for the kernel's scratch buffers */
    MEANCLI_E_EMPTY_INT = 5, /* integer mean over an empty set */
    MEANCLI_E_ARG = 6, /* a null pointer or no inputs */
};

/* The build (meancli/_ffi_build.py) defines this as the sha256 of this file,
 * kernels_cdef.h and the headers of meancli/kernels/csrc/; generated/tables.py
 * holds the value the generator computed. */
#ifndef MEANCLI_SOURCE_SHA256
#define MEANCLI_SOURCE_SHA256 "unknown"
#endif
const char *meancli_source_sha256(void) { return MEANCLI_SOURCE_SHA256; }
int meancli_max_rank(void) { return MEANCLI_MAX_RANK; }

#include "meancli_work.h"

#include "meancli_convert.h"

#include "meancli_exact.h"

#include "meancli_plan.h"

/* The instruction set of the vector kernels: when the module loads, the
 * highest level of meancli/codegen/isas.py the CPU supports (level 0 is the
 * portable loops), or a lower one MEANCLI_ISA names, so the tests run every
 * path; then, without MEANCLI_ISA, the level meancli/kernels/isa_choice.py
 * measured fastest on this machine, set through meancli_use_isa before any
 * kernel runs. The built module runs on any x86-64 (no -march); every sum
 * is exact, so every level gives the same bits. */
#ifdef MEANCLI_X86
static const char *const ISA_NAMES[] = {"portable", "avx2", "avx512"};
/* isa_level[g]: the level the pair g of ISA_GROUPS (meancli/codegen/isas.py:
 * a kind of kernel, a dtype) runs, each chosen on its own */
#define ISA_NGROUPS 8
static int isa_level[ISA_NGROUPS], isa_best;
__attribute__((constructor(201))) static void meancli_pick_isa(void)
{
    __builtin_cpu_init();
    int best = 0;
    if (best == 0 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) best = 1;
    if (best == 1 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c")) best = 2;
    isa_best = best;
    const char *want = getenv("MEANCLI_ISA");
    for (int k = 0; want && k < best; k++)
        if (strcmp(want, ISA_NAMES[k]) == 0) best = k;
    for (int g = 0; g < ISA_NGROUPS; g++) isa_level[g] = best;
}
/* Mean writes an output of at least mean_stream_bytes with non-temporal
 * stores (the float32 vector loops): larger than the last-level cache, its
 * lines would only evict the inputs' on their way to memory. The size is
 * this machine's, read when the module loads, as C libraries pick the
 * non-temporal threshold of their memcpy: the largest data cache Linux
 * lists (the C library's figure is wrong in some virtual machines). */
static int64_t mean_stream_bytes = MEAN_STREAM_FALLBACK_BYTES;
__attribute__((constructor)) static void meancli_read_cache_size(void)
{
    int64_t best = 0;
    for (int k = 0; k < 8; k++) {
        char path[64], type[16] = "", size[32] = "";
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", k);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int ok = fscanf(f, "%15s", type) == 1;
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", k);
        f = ok && strcmp(type, "Instruction") != 0 ? fopen(path, "r") : NULL;
        if (!f) continue;
        char unit = 0;
        long long v = 0;
        if (fscanf(f, "%31s", size) == 1 && sscanf(size, "%lld%c", &v, &unit) >= 1 && v > 0 && v < (1LL << 40)) {
            int64_t bytes = unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
            best = bytes > best ? bytes : best;
        }
        fclose(f);
    }
    if (best > 0) mean_stream_bytes = best;
}
/* the portable loops the compiler vectorizes on its own, cloned for AVX2 */
#define CLONES __attribute__((target_clones("avx2", "default")))
#else
static const char *const ISA_NAMES[] = {"portable"};
#define ISA_NGROUPS 8
static const int isa_level[ISA_NGROUPS] = {0}, isa_best = 0;
#define CLONES
#endif

/* The name of the instruction set the pair `group` of ISA_GROUPS runs:
 * "portable", "avx2" or "avx512" (NULL: no such pair). */
const char *meancli_isa(int group) { return group >= 0 && group < ISA_NGROUPS ? ISA_NAMES[isa_level[group]] : NULL; }

/* The highest level (an index of ISA_NAMES) this CPU runs. */
int meancli_isa_best(void) { return isa_best; }

/* Run the instruction set of level `level` (an index of ISA_NAMES), or the
 * highest the CPU has below it, from now on for the pair `group` of
 * ISA_GROUPS (a kind of kernel, a dtype; negative: every pair); returns the
 * level in effect (-1: no such pair). For comparisons in one process (the bench, the
 * tests); call it before any kernel runs. */
int meancli_use_isa(int group, int level)
{
    if (group >= ISA_NGROUPS) return -1;
#ifdef MEANCLI_X86
    level = level < 0 ? 0 : (level > isa_best ? isa_best : level);
    for (int g = 0; g < ISA_NGROUPS; g++)
        if (group < 0 || g == group) isa_level[g] = level;
#else
    (void)level;
#endif
    return isa_level[group < 0 ? 0 : group];
}

#include "meancli_bus_error.h"

/* The output size (bytes) from which Mean writes with non-temporal stores
 * (x86-64 only; 0 elsewhere). bytes > 0 sets it first (the bench measures
 * both sides of it); call it before any kernel runs. */
int64_t meancli_mean_stream_bytes(int64_t bytes)
{
#ifdef MEANCLI_X86
    if (bytes > 0) mean_stream_bytes = bytes;
    return mean_stream_bytes;
#else
    (void)bytes;
    return 0;
#endif
}

/* ======================================================================
 * float16: exact sum, the mean rounded once
 * ==================================================================== */
typedef uint16_t T_float16;
#define LOAD_float16(x) ((double)f16_to_f32(x))
/* v holds a value of the format exactly, or is rounded here once */
static inline T_float16 store_float16(double v) { return f64_to_f16(v); }
#define SACC_NL_float16 6
#define SACC_LSB_float16 (-149)
static const float_format FORMAT_float16 = { 11, -14, 15 };
typedef struct { uint64_t w[SACC_HEADER + SACC_NL_float16]; } acc_float16; /* count unused (0), flags, limbs */
#define PREC_float16 11
#define LSB_MIN_float16 (-24) /* the smallest subnormal's exponent */
/* every block sum of the format is exact in double (float16: values are
 * multiples of 2^-24 below 2^16): no check needed but for inf and NaN */
#define ALWAYS_EXACT_float16 (16 - LSB_MIN_float16 + EXACT_LOG2BLOCK <= 53)
/* values per block of a run: such formats take longer blocks (fewer flushes) */
#define RUN_BLOCK_float16 (ALWAYS_EXACT_float16 ? (1 << EXACT_LOG2BLOCK) : EXTRACT_CAP)
#define LANES_float16 1 /* exact sums: which lane a value goes to does not matter */
/* chunks of a chunk accumulator: the top value's significand, shifted by
 * up to 31 bits, spans three chunks from its lowest */
#define NCH_float16 (((15 - 11 + 1 - SACC_LSB_float16) >> 5) + 3)

/* NaN and infinities as a block is read: dst[i] := src[i * s] (i < n), every
 * NaN and inf as -0.0, which adds nothing and sets no flag, so the state of
 * dst's values with the flags returned is that of src's values: NaN set
 * SACC_NAN (with skipna: are counted in *nan and set nothing, skipped),
 * +inf and -inf SACC_PINF and SACC_NINF, and each of them SACC_NONNEGZERO,
 * as sacc_flags_of. Branch-free on the values' bits, for the compiler to
 * vectorize (a block with an inf or NaN then stays on the vector path).
 * n < 2^16. */
typedef uint16_t __attribute__((may_alias)) fbits_float16;
#define FB_SIGN_float16 ((uint16_t)((uint16_t)1 << 15))
#define FB_ABS_float16 ((uint16_t)(FB_SIGN_float16 - 1))
#define FB_INF_float16 ((uint16_t)(FB_ABS_float16 ^ (((uint16_t)1 << 10) - 1)))
#define FB_CLEAN_float16(b, y, isn, pin, nin) do { \
        uint16_t a_ = (uint16_t)((b) & FB_ABS_float16), n_ = (uint16_t)(a_ > FB_INF_float16), i_ = (uint16_t)(a_ == FB_INF_float16); \
        uint16_t g_ = (uint16_t)((b) >> 15); \
        (y) = (n_ | i_) ? FB_SIGN_float16 : (b); \
        (isn) = (uint16_t)((isn) + n_); \
        (pin) |= (uint16_t)(i_ & (g_ ^ 1u)); \
        (nin) |= (uint16_t)(i_ & g_); \
    } while (0)

/* Where a copy of the values at src starts in raw (4096 bytes longer than
 * the copy): 2 KiB off src's place in a 4 KiB page, so the copy's stores
 * never alias its loads (4K aliasing: a load whose address matches an
 * earlier store's in its low 12 bits waits for it; measured: a copy of
 * float32 rows in a fixed stack buffer took 3x the reduction of the copy). */
static inline T_float16 *copy_at_float16(T_float16 *raw, const T_float16 *src)
{
    return (T_float16 *)((uintptr_t)raw + (((uintptr_t)src + 2048u - (uintptr_t)raw) & 4095u));
}

CLONES static uint64_t clean_block_float16(const T_float16 *src, int64_t s, int64_t n, T_float16 *dst, int skipna, int64_t *nan)
{
    const fbits_float16 *x = (const fbits_float16 *)src;
    fbits_float16 *y = (fbits_float16 *)dst;
    uint16_t cnt = 0, pin = 0, nin = 0;
    if (s == 1)
        for (int64_t i0 = 0; i0 < n; i0 += 256 / (int64_t)sizeof(T_float16)) { /* the first reader: prefetch, as the blocks */
            int64_t i1 = n - i0 < 256 / (int64_t)sizeof(T_float16) ? n : i0 + 256 / (int64_t)sizeof(T_float16);
            PREFETCH_SPAN(x + i0, 256);
            for (int64_t i = i0; i < i1; i++) FB_CLEAN_float16(x[i], y[i], cnt, pin, nin);
        }
    else
        for (int64_t i = 0; i < n; i++) FB_CLEAN_float16(x[i * s], y[i], cnt, pin, nin);
    uint64_t f = (pin ? SACC_PINF : 0u) | (nin ? SACC_NINF : 0u);
    if (skipna) *nan += (int64_t)cnt;
    else if (cnt) f |= SACC_NAN;
    return f ? f | SACC_NONNEGZERO : 0u;
}

/* Blocks: plain double sums, exact when the values' exponents are close
 * enough (narrow_sum_exact); no setup, nothing carried between blocks. */
typedef struct {
    int64_t skip, fails; /* blocks to send straight to the exact path; failed blocks in a row */
    int skipna; /* NaN skipped, counted in acc's count word (kernel_reduce.c.j2, "skipna") */
    int masknan; /* a block held NaN: the next are read masking NaN lanes (as skipna, flagged) */
    double t; /* kept block sums, added on in double while exact (lanes_keep) */
    acc_float16 acc;
} lanes_float16;

static inline acc_float16 acc_add_float16(acc_float16 a, acc_float16 b)
{
    sacc_combine(a.w, b.w, SACC_NL_float16);
    return a;
}

static inline T_float16 finalize_float16(acc_float16 s, int64_t count)
{
    s.w[0] = (uint64_t)count;
    return store_float16(sacc_mean(s.w, SACC_NL_float16, SACC_LSB_float16, FORMAT_float16));
}

static inline void lanes_init_float16(lanes_float16 *l) { memset(l, 0, sizeof *l); }

static inline acc_float16 lanes_sum_float16(lanes_float16 *l, int64_t count)
{
    acc_float16 a = l->acc;
    (void)count;
    if (l->t != 0.0) sacc_add_f64(a.w + SACC_HEADER, SACC_NL_float16, SACC_LSB_float16, l->t);
    return a;
}

/* Does acc hold nothing (no limb, no NaN or infinity) while count is exact
 * in double? Then the kept sums are the whole exact sum. */
static inline int only_kept_float16(const acc_float16 *acc, int64_t count)
{
    uint64_t limbs = 0;
    for (int k = 0; k < SACC_NL_float16; k++) limbs |= acc->w[SACC_HEADER + k];
    return !limbs && !(acc->w[1] & (SACC_NAN | SACC_PINF | SACC_NINF)) && count < ((int64_t)1 << 53);
}

/* The mean of `count` values whose exact sum is the kept double t plus acc
 * (nz: a kept block sum was nonzero), when acc holds nothing (else 0):
 * float64 divides t once (IEEE division rounds the exact quotient), the
 * narrower formats divide it rounding to odd (div_odd), then round once. */
static inline int kept_mean_float16(const acc_float16 *acc, double t, int nz, int64_t count, T_float16 *mean)
{
    if (!only_kept_float16(acc, count)) return 0;
    if (t == 0.0)
        *mean = store_float16(nz || (acc->w[1] & SACC_NONNEGZERO) ? 0.0 : -0.0);
    else
        *mean = store_float16(div_odd(t, (double)count));
    return 1;
}


/* The mean of an output whose `count` values all went through these lanes. */
static inline T_float16 lanes_mean_float16(lanes_float16 *l, int64_t count)
{
    T_float16 mean;
    if (kept_mean_float16(&l->acc, l->t, 0, count, &mean)) return mean;
    return finalize_float16(lanes_sum_float16(l, count), count);
}

/* Flags of a block whose values are all zeros: is one of them +0.0? */
static void zero_block_flags_float16(const T_float16 *x, int64_t s, int64_t n, acc_float16 *acc)
{
    for (int64_t i = 0; i < n; i++)
        if (f64_to_bits(LOAD_float16(x[i * s])) != 0x8000000000000000ull) {
            acc->w[1] |= SACC_NONNEGZERO;
            return;
        }
}

/* n values at stride s into *acc exactly, whatever their range: each adds
 * in double to the bin of its window of 16 float32 exponents (the top 4
 * bits of the exponent field e). Window k's values are multiples of
 * 2^(16k - 150) (2^-149 for k = 0) below 2^(16k - 111), so up to 2^14 of
 * them add exactly; each bin goes to the superaccumulator every
 * EXTRACT_CAP values. Two sets of bins, for alternate values, halve the
 * chains of additions to one bin. Returns 0 (float16, bfloat16, float32
 * blocks need no sigma). */
static inline void win_add_float16(double *bin, double v, uint32_t *nz, acc_float16 *acc)
{
    uint32_t b = f32_to_bits((float)v);
    if (((b >> 23) & 0xffu) == 0xffu) {
        acc->w[1] |= sacc_flags_of(v);
        return;
    }
    *nz |= b ^ 0x80000000u;
    bin[(b >> 27) & 0xfu] += v;
}

static double chunk_block_float16(const T_float16 *x, int64_t s, int64_t n, acc_float16 *acc)
{
    uint32_t nz = 0;
    for (int64_t i0 = 0; i0 < n; i0 += EXTRACT_CAP) {
        int64_t i1 = n - i0 < EXTRACT_CAP ? n : i0 + EXTRACT_CAP, i = i0;
        double b0[16] = {0.0}, b1[16] = {0.0};
        for (; i + 2 <= i1; i += 2) {
            win_add_float16(b0, LOAD_float16(x[i * s]), &nz, acc);
            win_add_float16(b1, LOAD_float16(x[(i + 1) * s]), &nz, acc);
        }
        if (i < i1) win_add_float16(b0, LOAD_float16(x[i * s]), &nz, acc);
        for (int k = 0; k < 16; k++) {
            double t = b0[k] + b1[k]; /* exact: EXTRACT_CAP values at most */
            if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_float16, SACC_LSB_float16, t);
        }
    }
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
    return 0.0;
}

/* A kept block's exact sums into the lanes: added on to t in double while
 * TwoSum shows that exact, so the superaccumulator takes one addition per
 * run of blocks rather than one or two per block. */
static inline void lanes_keep_float16(lanes_float16 *l, const T_float16 *x, int64_t s, int64_t n, const double *sums,
                                      int nsums, int any_nonzero)
{
    for (int k = 0; k < nsums; k++) {
        double *kept = &l->t;
        double a = *kept, b = sums[k], sum = a + b, bv = sum - a;
        if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
            if (a != 0.0) sacc_add_f64(l->acc.w + SACC_HEADER, SACC_NL_float16, SACC_LSB_float16, a);
            sum = b;
        }
        *kept = sum;
    }
    if (any_nonzero) l->acc.w[1] |= SACC_NONNEGZERO;
    else zero_block_flags_float16(x, s, n, &l->acc);
}

/* clean_block for nrows rows (row stride rs) of w <= TILE columns (stride
 * s), to dst as rows of w contiguous values; column j's flags into acc[j]
 * (skipna: its NaN counted into acc[j]'s count word). nrows < 2^16. */
CLONES static void clean_rows_float16(const T_float16 *src, int64_t rs, int64_t nrows, int64_t s, int64_t w, T_float16 *dst,
                                      int skipna, acc_float16 *acc)
{
    uint16_t cnt[TILE], pin[TILE], nin[TILE], pany = 0, nany = 0;
    memset(cnt, 0, (size_t)w * sizeof cnt[0]);
    memset(pin, 0, (size_t)w * sizeof pin[0]);
    memset(nin, 0, (size_t)w * sizeof nin[0]);
    for (int64_t i = 0; i < nrows; i++) { /* NaN per column; whether an inf at all */
        const fbits_float16 *x = (const fbits_float16 *)(src + i * rs);
        fbits_float16 *y = (fbits_float16 *)(dst + i * w);
        PREFETCH_SPAN(x, w * (int64_t)sizeof(T_float16)); /* the first reader: prefetch, as the row kernels */
        if (s == 1)
            for (int64_t j = 0; j < w; j++) FB_CLEAN_float16(x[j], y[j], cnt[j], pany, nany);
        else
            for (int64_t j = 0; j < w; j++) FB_CLEAN_float16(x[j * s], y[j], cnt[j], pany, nany);
    }
    for (int64_t i = 0; (pany | nany) && i < nrows; i++) { /* rare: the infinities' columns */
        const fbits_float16 *x = (const fbits_float16 *)(src + i * rs);
        uint16_t c = 0, y;
        for (int64_t j = 0; j < w; j++) FB_CLEAN_float16(x[j * s], y, c, pin[j], nin[j]);
        (void)y;
    }
    for (int64_t j = 0; j < w; j++) {
        uint64_t f = (pin[j] ? SACC_PINF : 0u) | (nin[j] ? SACC_NINF : 0u);
        if (skipna) acc[j].w[0] += (uint64_t)cnt[j];
        else if (cnt[j]) f |= SACC_NAN;
        if (f) acc[j].w[1] |= f | SACC_NONNEGZERO;
    }
}

/* The scalar blocks below, declared for block_nonfinite. */
static void block_float16(const T_float16 *x, int64_t s, int64_t n, lanes_float16 *l);

/* A block (n <= EXTRACT_CAP) with an inf or NaN among its values (or, in
 * skipna lanes, any block): the block again from a copy with those as -0.0
 * (clean_block), their flags (skipna: the NaN count) into the state. 0
 * when it holds none (a failure was another). */
static __attribute__((noinline)) int block_nonfinite_float16(const T_float16 *x, int64_t s, int64_t n, lanes_float16 *l)
{
    T_float16 raw[EXTRACT_CAP + 4096 / sizeof(T_float16)], *buf = copy_at_float16(raw, x);
    int64_t nan = 0;
    uint64_t f = clean_block_float16(x, s, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float16(buf, 1, n, l);
    l->skipna = skipna;
    return 1;
}

/* A block that failed narrow_sum_exact for a few small values, summed in
 * two parts: the values of at least 2^T (thr, as float32 bits), T the lowest
 * exponent that keeps every partial sum of n values below 2^(m + 1) exact
 * (so their sum is exact whatever the small ones), and the values below,
 * with a check of their own. 1 when both sums are exact (kept), else 0. */
static inline uint32_t split_threshold_float16(uint32_t mx, int64_t n)
{
    if (mx >= 0x7f800000u || n < 2) return 0;
    int m = (int)(mx >> 23) - 127, cl = 64 - __builtin_clzll((uint64_t)(n - 1));
    int t = cl + (m < -126 ? -126 : m) + PREC_float16 - 53;
    if (t <= -126 || t > 127) return 0;
    uint32_t thr = (uint32_t)(t + 127) << 23;
    return narrow_sum_exact(mx, thr - 1u, n, PREC_float16, LSB_MIN_float16) ? thr : 0;
}

/* One value of a split block into its part's sum: at or above thr into *big,
 * below into *small with the small part's bounds (largest |x| and smallest
 * nonzero |x| - 1, as float32 bits). */
static inline void split_add_float16(double v, uint32_t thr, double *big, double *small, uint32_t *smx, uint32_t *smn1)
{
    uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
    if (a >= thr) {
        *big += v;
    } else {
        *smx = a > *smx ? a : *smx;
        *smn1 = a - 1u < *smn1 ? a - 1u : *smn1;
        *small += v;
    }
}

static int split_block_float16(const T_float16 *x, int64_t s, int64_t n, uint32_t mx, lanes_float16 *l)
{
    uint32_t thr = split_threshold_float16(mx, n), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double sums[2] = {0.0, 0.0};
    for (int64_t i = 0; i < n; i++) split_add_float16(LOAD_float16(x[i * s]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_float16, LSB_MIN_float16)) return 0;
    lanes_keep_float16(l, x, s, n, sums, 2, mx != 0);
    return 1;
}

/* Up to EXTRACT_CAP values at stride s: the scalar form of the vector block. */
static void block_float16(const T_float16 *x, int64_t s, int64_t n, lanes_float16 *l)
{
    if (l->skipna && block_nonfinite_float16(x, s, n, l)) return;
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    uint32_t mx = 0, mn1 = UINT32_MAX;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) {
            double v = LOAD_float16(x[(i + k) * s]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            sum[k] += v;
        }
    for (; i < n; i++) {
        double v = LOAD_float16(x[i * s]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        sum[0] += v;
    }
    if (mx >= 0x7f800000u && block_nonfinite_float16(x, s, n, l)) return;
    if (narrow_sum_exact(mx, mn1, n, PREC_float16, LSB_MIN_float16)) {
        double total = (sum[0] + sum[1]) + (sum[2] + sum[3]); /* exact, as every partial sum */
        lanes_keep_float16(l, x, s, n, &total, 1, mx != 0);
    } else if (!split_block_float16(x, s, n, mx, l)) {
        (void)chunk_block_float16(x, s, n, &l->acc);
    }
}

/* Sum n elements at stride s into the lanes, block by block. */
static void run_float16(const T_float16 *x, int64_t s, int64_t n, lanes_float16 *l, int k0)
{
    (void)k0;
    for (int64_t i = 0; i < n; i += EXTRACT_CAP) block_float16(x + i * s, s, n - i < EXTRACT_CAP ? n - i : EXTRACT_CAP, l);
}

/* Row accumulation: the same per column, over blocks of a call's rows
 * (EXTRACT_CAP at a time). One check covers the whole block (a bound shared
 * by its columns); when it fails, each column is checked on its own and
 * only those that fail are summed again. */
typedef struct {
    double s[TILE];
    uint32_t bmx, bmn1; /* the block's largest |x| and smallest nonzero |x| - 1 (float32 bits) */
    /* each column's kept block sums, added on in double while that is exact
     * (TwoSum's error is zero): the superaccumulator sees the column only
     * when an addition would round, or when a block fails its check */
    double t[TILE];
    double tnz[TILE]; /* the largest |kept block sum| of the column: nonzero when one was */
    int64_t skip; /* blocks to send straight to the exact path */
    int nonfinite; /* a block held an inf or NaN: the next ones go through copies (rows_nonfinite) */
    acc_float16 acc[TILE];
} rowacc_float16;

static inline void rowacc_init_float16(rowacc_float16 *r, int64_t w)
{
    r->skip = 0;
    r->nonfinite = 0;
    for (int64_t j = 0; j < w; j++) {
        r->t[j] = 0.0;
        r->tnz[j] = 0.0;
        memset(&r->acc[j], 0, sizeof r->acc[j]);
    }
}

/* Column j's kept double sum into acc (its nonzero flag with it). */
static inline void t_into_float16(double t, uint8_t nz, acc_float16 *acc)
{
    if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_float16, SACC_LSB_float16, t);
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
}

/* Column j's exact block sum b on into its kept sum: in double when that is
 * exact, else the kept sum goes to the superaccumulator and b starts anew. */
static inline void t_keep_in_float16(rowacc_float16 *r, double *t, int64_t j, double b)
{
    double a = t[j], sum = a + b, bv = sum - a;
    if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
        t_into_float16(a, 0, &r->acc[j]);
        sum = b;
    }
    t[j] = sum;
    r->tnz[j] = fabs(b) > r->tnz[j] ? fabs(b) : r->tnz[j];
}

static inline void t_keep_float16(rowacc_float16 *r, int64_t j, double b) { t_keep_in_float16(r, r->t, j, b); }

static inline void rowacc_take_float16(const rowacc_float16 *r, int64_t w, int64_t count, acc_float16 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) {
        part[j] = r->acc[j];
        t_into_float16(r->t[j], r->tnz[j] != 0.0, &part[j]);
    }
}

/* The mean of column j when the accumulator holds all `count` of its rows.
 * While no block went to the superaccumulator, the kept double sum is the
 * exact sum (kept_mean): float16/bfloat16/float32 divide it and round to
 * odd (div_odd), then once to the format; float64 divides its two levels'
 * kept sums once (kept_dd_mean). */
static inline T_float16 rowacc_mean_float16(const rowacc_float16 *r, int64_t j, int64_t count)
{
    T_float16 mean;
    if (kept_mean_float16(&r->acc[j], r->t[j], r->tnz[j] != 0.0, count, &mean)) return mean;
    acc_float16 s = r->acc[j];
    t_into_float16(r->t[j], r->tnz[j] != 0.0, &s);
    return finalize_float16(s, count);
}

static inline void rows_block_begin_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    (void)x; (void)rs; (void)nrows; (void)s;
    r->bmx = 0;
    r->bmn1 = UINT32_MAX;
    for (int64_t j = 0; j < w; j++) r->s[j] = 0.0;
}

/* One value of column j, the scalar form of the vector loops. */
static inline void col_add_float16(rowacc_float16 *r, int64_t j, double v)
{
    uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
    r->bmx = a > r->bmx ? a : r->bmx;
    r->bmn1 = a - 1u < r->bmn1 ? a - 1u : r->bmn1;
    r->s[j] += v;
}

/* Does column j's block (n values at stride rs) pass its own check? */
static int column_ok_float16(const rowacc_float16 *r, int64_t j, const T_float16 *x, int64_t rs, int64_t n)
{
    uint32_t mx = 0, mn1 = UINT32_MAX;
    (void)r; (void)j;
    for (int64_t i = 0; i < n; i++) {
        uint32_t a = f32_to_bits((float)LOAD_float16(x[i * rs])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    return narrow_sum_exact(mx, mn1, n, PREC_float16, LSB_MIN_float16);
}

/* Did the block pass the check shared by its columns? */
static inline int rows_block_ok_float16(const rowacc_float16 *r, int64_t nrows)
{
    return narrow_sum_exact(r->bmx, r->bmn1, nrows, PREC_float16, LSB_MIN_float16);
}

/* Rows of at most NARROW_ROW columns through the exact path row by row
 * (each row read once, in order): every value adds to its column's bin of
 * its window, as in chunk_block; the bins go to the superaccumulators
 * every EXTRACT_CAP rows. */
static void rows_bins_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    double bin[NARROW_ROW][16];
    uint32_t nz[NARROW_ROW];
    memset(nz, 0, sizeof nz);
    for (int64_t i0 = 0; i0 < nrows; i0 += EXTRACT_CAP) {
        int64_t i1 = nrows - i0 < EXTRACT_CAP ? nrows : i0 + EXTRACT_CAP;
        memset(bin, 0, (size_t)w * sizeof bin[0]);
        for (int64_t i = i0; i < i1; i++) {
            const T_float16 *p = x + i * rs;
            for (int64_t j = 0; j < w; j++) {
                double v = LOAD_float16(p[j * s]);
                uint32_t b = f32_to_bits((float)v);
                if (((b >> 23) & 0xffu) == 0xffu) {
                    r->acc[j].w[1] |= sacc_flags_of(v);
                    continue;
                }
                nz[j] |= b ^ 0x80000000u;
                bin[j][(b >> 27) & 0xfu] += v;
            }
        }
        for (int64_t j = 0; j < w; j++)
            for (int k = 0; k < 16; k++)
                if (bin[j][k] != 0.0) sacc_add_f64(r->acc[j].w + SACC_HEADER, SACC_NL_float16, SACC_LSB_float16, bin[j][k]);
    }
    for (int64_t j = 0; j < w; j++)
        if (nz[j]) r->acc[j].w[1] |= SACC_NONNEGZERO;
}

/* Rows straight through the exact path, row by row when they are narrow
 * (rows_bins), else column by column: returns how many of the `avail` rows
 * it took. */
static int64_t rows_block_exact_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t avail, int64_t s, int64_t w)
{
    int64_t nrows = avail < 16 * EXTRACT_CAP ? avail : 16 * EXTRACT_CAP;
    r->skip--;
    if (w <= NARROW_ROW) {
        rows_bins_float16(r, x, rs, nrows, s, w);
        return nrows;
    }
    for (int64_t j = 0; j < w; j++) {
        (void)chunk_block_float16(x + j * s, rs, nrows, &r->acc[j]);
    }
    return nrows;
}

/* A rows block split as split_block does a run (large and small parts
 * per column, the small ones' check shared by the block): each column's two
 * sums on into its kept sum. */
static void rows_keep_split_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                    const double *big, const double *small)
{
    for (int64_t j = 0; j < w; j++) {
        t_keep_float16(r, j, big[j]);
        t_keep_float16(r, j, small[j]);
        if (big[j] == 0.0 && small[j] == 0.0) zero_block_flags_float16(x + j * s, rs, nrows, &r->acc[j]);
    }
}

/* A rows block where the shared check and some column's own failed, split
 * (the scalar form of the vector one): 1 when both parts of every column
 * are proven exact and kept. */
static int rows_split_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    uint32_t thr = split_threshold_float16(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    for (int64_t j = 0; j < w; j++) big[j] = small[j] = 0.0;
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = 0; j < w; j++) split_add_float16(LOAD_float16(x[i * rs + j * s]), thr, &big[j], &small[j], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_float16, LSB_MIN_float16)) return 0;
    rows_keep_split_float16(r, x, rs, nrows, s, w, big, small);
    return 1;
}

/* Column j's block (x: its first value) passed: its sum on into the kept one. */
static inline void keep_column_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t j)
{
    t_keep_float16(r, j, r->s[j]);
    if (r->s[j] == 0.0) zero_block_flags_float16(x, rs, nrows, &r->acc[j]);
}

/* Keep each column's block sums, or sum its block again exactly. ok:
 * NULL when the block passed its shared check, else each column's own. */
static void rows_block_end_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                   const uint8_t *ok)
{
    int64_t failed = 0;
    for (int64_t j = 0; j < w; j++) failed += ok && !ok[j];
    /* a rows accumulator lives a chunk of rows (a few blocks): skip after the first such block */
    if (2 * failed > w) r->skip = EXACT_SKIP;
    for (int64_t j = 0; j < w; j++) {
        const T_float16 *c = x + j * s;
        if (!ok || ok[j]) {
            keep_column_float16(r, c, rs, nrows, j);
        } else {
            (void)chunk_block_float16(c, rs, nrows, &r->acc[j]);
        }
    }
}

static void add_rows_float16_generic(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w);

/* A rows block that holds an inf or NaN (its sums not kept): its rows again
 * in groups, each from a copy with those as -0.0 and their flags into
 * their columns' states (clean_rows); those blocks then pass their checks. */
static __attribute__((noinline)) void rows_nonfinite_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows,
                                                            int64_t s, int64_t w)
{
    T_float16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_float16 *buf = copy_at_float16(raw, x + i * rs);
        clean_rows_float16(x + i * rs, rs, m, s, w, buf, 0, r->acc);
        add_rows_float16_generic(r, buf, w, m, 1, w);
    }
}


/* Rows [0, nrows) at row stride rs, each adding w columns at stride s (s == 0 broadcasts one value). */
static void add_rows_float16_generic(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float16 *b = x + i0 * rs;
        if (r->skip > 0) {
            nb = rows_block_exact_float16(r, b, rs, nrows - i0, s, w);
            continue;
        }
        rows_block_begin_float16(r, b, rs, nb, s, w);
        for (int64_t i = 0; i < nb; i++)
            for (int64_t j = 0; j < w; j++) col_add_float16(r, j, LOAD_float16(b[i * rs + j * s]));
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_float16(r, b, rs, nb, s, w);
            continue;
        }
        if (rows_block_ok_float16(r, nb)) {
            rows_block_end_float16(r, b, rs, nb, s, w, NULL);
        } else {
            uint8_t ok[TILE];
            for (int64_t j = 0; j < w; j++) ok[j] = (uint8_t)column_ok_float16(r, j, b + j * s, rs, nb);
            if (!split_pays(ok, w) || !rows_split_float16(r, b, rs, nb, s, w))
                rows_block_end_float16(r, b, rs, nb, s, w, ok);
        }
    }
}


/* ---- Mean of N inputs, element by element --------------------------- */

/* Output j's mean over the inputs (input i's value at src[i][j * sinner[i]]),
 * exactly, through a superaccumulator. */
static T_float16 mean_exact_float16(int ninputs, const T_float16 *const *src, const int64_t *sinner, int64_t j)
{
    acc_float16 a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < ninputs; i++) sacc_take(a.w, SACC_NL_float16, SACC_LSB_float16, LOAD_float16(src[i][j * sinner[i]]));
    return finalize_float16(a, ninputs);
}

/* w outputs: dst[j] = the mean over inputs i of src[i][j * sinner[i]].
 * Each output's values sum in plain double from -0.0 (a sum of -0.0s stays
 * -0.0, an exact cancellation gives +0.0); the sums are exact when all the
 * unit's values pass narrow_sum_exact with count ninputs, else each output
 * is checked, and those that fail are summed exactly one by one. */
static void mean_unit_float16(int ninputs, const T_float16 *const *src, const int64_t *sinner, int64_t w, T_float16 *dst)
{
    double S[TILE];
    uint32_t mx = 0, mn1 = UINT32_MAX;
    for (int64_t j = 0; j < w; j++) S[j] = -0.0;
    for (int i = 0; i < ninputs; i++)
        for (int64_t j = 0; j < w; j++) {
            double v = LOAD_float16(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    int all_ok = narrow_sum_exact(mx, mn1, ninputs, PREC_float16, LSB_MIN_float16);
    for (int64_t j = 0; j < w; j++) {
        int ok = all_ok;
        if (!ok) {
            uint32_t cx = 0, cn1 = UINT32_MAX;
            for (int i = 0; i < ninputs; i++) {
                uint32_t a = f32_to_bits((float)LOAD_float16(src[i][j * sinner[i]])) & 0x7fffffffu;
                cx = a > cx ? a : cx;
                cn1 = a - 1u < cn1 ? a - 1u : cn1;
            }
            ok = narrow_sum_exact(cx, cn1, ninputs, PREC_float16, LSB_MIN_float16);
        }
        dst[j] = ok ? store_float16(div_odd(S[j], (double)ninputs)) : mean_exact_float16(ninputs, src, sinner, j);
    }
}
/* ======================================================================
 * bfloat16: exact sum, the mean rounded once
 * ==================================================================== */
typedef uint16_t T_bfloat16;
#define LOAD_bfloat16(x) bf16_to_f64(x)
/* v holds a value of the format exactly, or is rounded here once */
static inline T_bfloat16 store_bfloat16(double v) { return f64_to_bf16(v); }
#define SACC_NL_bfloat16 6
#define SACC_LSB_bfloat16 (-149)
static const float_format FORMAT_bfloat16 = { 8, -126, 127 };
typedef struct { uint64_t w[SACC_HEADER + SACC_NL_bfloat16]; } acc_bfloat16; /* count unused (0), flags, limbs */
#define PREC_bfloat16 8
#define LSB_MIN_bfloat16 (-133) /* the smallest subnormal's exponent */
/* every block sum of the format is exact in double (float16: values are
 * multiples of 2^-24 below 2^16): no check needed but for inf and NaN */
#define ALWAYS_EXACT_bfloat16 (128 - LSB_MIN_bfloat16 + EXACT_LOG2BLOCK <= 53)
/* values per block of a run: such formats take longer blocks (fewer flushes) */
#define RUN_BLOCK_bfloat16 (ALWAYS_EXACT_bfloat16 ? (1 << EXACT_LOG2BLOCK) : EXTRACT_CAP)
#define LANES_bfloat16 1 /* exact sums: which lane a value goes to does not matter */
/* chunks of a chunk accumulator: the top value's significand, shifted by
 * up to 31 bits, spans three chunks from its lowest */
#define NCH_bfloat16 (((127 - 8 + 1 - SACC_LSB_bfloat16) >> 5) + 3)

/* NaN and infinities as a block is read: dst[i] := src[i * s] (i < n), every
 * NaN and inf as -0.0, which adds nothing and sets no flag, so the state of
 * dst's values with the flags returned is that of src's values: NaN set
 * SACC_NAN (with skipna: are counted in *nan and set nothing, skipped),
 * +inf and -inf SACC_PINF and SACC_NINF, and each of them SACC_NONNEGZERO,
 * as sacc_flags_of. Branch-free on the values' bits, for the compiler to
 * vectorize (a block with an inf or NaN then stays on the vector path).
 * n < 2^16. */
typedef uint16_t __attribute__((may_alias)) fbits_bfloat16;
#define FB_SIGN_bfloat16 ((uint16_t)((uint16_t)1 << 15))
#define FB_ABS_bfloat16 ((uint16_t)(FB_SIGN_bfloat16 - 1))
#define FB_INF_bfloat16 ((uint16_t)(FB_ABS_bfloat16 ^ (((uint16_t)1 << 7) - 1)))
#define FB_CLEAN_bfloat16(b, y, isn, pin, nin) do { \
        uint16_t a_ = (uint16_t)((b) & FB_ABS_bfloat16), n_ = (uint16_t)(a_ > FB_INF_bfloat16), i_ = (uint16_t)(a_ == FB_INF_bfloat16); \
        uint16_t g_ = (uint16_t)((b) >> 15); \
        (y) = (n_ | i_) ? FB_SIGN_bfloat16 : (b); \
        (isn) = (uint16_t)((isn) + n_); \
        (pin) |= (uint16_t)(i_ & (g_ ^ 1u)); \
        (nin) |= (uint16_t)(i_ & g_); \
    } while (0)

/* Where a copy of the values at src starts in raw (4096 bytes longer than
 * the copy): 2 KiB off src's place in a 4 KiB page, so the copy's stores
 * never alias its loads (4K aliasing: a load whose address matches an
 * earlier store's in its low 12 bits waits for it; measured: a copy of
 * float32 rows in a fixed stack buffer took 3x the reduction of the copy). */
static inline T_bfloat16 *copy_at_bfloat16(T_bfloat16 *raw, const T_bfloat16 *src)
{
    return (T_bfloat16 *)((uintptr_t)raw + (((uintptr_t)src + 2048u - (uintptr_t)raw) & 4095u));
}

CLONES static uint64_t clean_block_bfloat16(const T_bfloat16 *src, int64_t s, int64_t n, T_bfloat16 *dst, int skipna, int64_t *nan)
{
    const fbits_bfloat16 *x = (const fbits_bfloat16 *)src;
    fbits_bfloat16 *y = (fbits_bfloat16 *)dst;
    uint16_t cnt = 0, pin = 0, nin = 0;
    if (s == 1)
        for (int64_t i0 = 0; i0 < n; i0 += 256 / (int64_t)sizeof(T_bfloat16)) { /* the first reader: prefetch, as the blocks */
            int64_t i1 = n - i0 < 256 / (int64_t)sizeof(T_bfloat16) ? n : i0 + 256 / (int64_t)sizeof(T_bfloat16);
            PREFETCH_SPAN(x + i0, 256);
            for (int64_t i = i0; i < i1; i++) FB_CLEAN_bfloat16(x[i], y[i], cnt, pin, nin);
        }
    else
        for (int64_t i = 0; i < n; i++) FB_CLEAN_bfloat16(x[i * s], y[i], cnt, pin, nin);
    uint64_t f = (pin ? SACC_PINF : 0u) | (nin ? SACC_NINF : 0u);
    if (skipna) *nan += (int64_t)cnt;
    else if (cnt) f |= SACC_NAN;
    return f ? f | SACC_NONNEGZERO : 0u;
}

/* Blocks: plain double sums, exact when the values' exponents are close
 * enough (narrow_sum_exact); no setup, nothing carried between blocks. */
typedef struct {
    int64_t skip, fails; /* blocks to send straight to the exact path; failed blocks in a row */
    int skipna; /* NaN skipped, counted in acc's count word (kernel_reduce.c.j2, "skipna") */
    int masknan; /* a block held NaN: the next are read masking NaN lanes (as skipna, flagged) */
    double t; /* kept block sums, added on in double while exact (lanes_keep) */
    acc_bfloat16 acc;
} lanes_bfloat16;

static inline acc_bfloat16 acc_add_bfloat16(acc_bfloat16 a, acc_bfloat16 b)
{
    sacc_combine(a.w, b.w, SACC_NL_bfloat16);
    return a;
}

static inline T_bfloat16 finalize_bfloat16(acc_bfloat16 s, int64_t count)
{
    s.w[0] = (uint64_t)count;
    return store_bfloat16(sacc_mean(s.w, SACC_NL_bfloat16, SACC_LSB_bfloat16, FORMAT_bfloat16));
}

static inline void lanes_init_bfloat16(lanes_bfloat16 *l) { memset(l, 0, sizeof *l); }

static inline acc_bfloat16 lanes_sum_bfloat16(lanes_bfloat16 *l, int64_t count)
{
    acc_bfloat16 a = l->acc;
    (void)count;
    if (l->t != 0.0) sacc_add_f64(a.w + SACC_HEADER, SACC_NL_bfloat16, SACC_LSB_bfloat16, l->t);
    return a;
}

/* Does acc hold nothing (no limb, no NaN or infinity) while count is exact
 * in double? Then the kept sums are the whole exact sum. */
static inline int only_kept_bfloat16(const acc_bfloat16 *acc, int64_t count)
{
    uint64_t limbs = 0;
    for (int k = 0; k < SACC_NL_bfloat16; k++) limbs |= acc->w[SACC_HEADER + k];
    return !limbs && !(acc->w[1] & (SACC_NAN | SACC_PINF | SACC_NINF)) && count < ((int64_t)1 << 53);
}

/* The mean of `count` values whose exact sum is the kept double t plus acc
 * (nz: a kept block sum was nonzero), when acc holds nothing (else 0):
 * float64 divides t once (IEEE division rounds the exact quotient), the
 * narrower formats divide it rounding to odd (div_odd), then round once. */
static inline int kept_mean_bfloat16(const acc_bfloat16 *acc, double t, int nz, int64_t count, T_bfloat16 *mean)
{
    if (!only_kept_bfloat16(acc, count)) return 0;
    if (t == 0.0)
        *mean = store_bfloat16(nz || (acc->w[1] & SACC_NONNEGZERO) ? 0.0 : -0.0);
    else
        *mean = store_bfloat16(div_odd(t, (double)count));
    return 1;
}


/* The mean of an output whose `count` values all went through these lanes. */
static inline T_bfloat16 lanes_mean_bfloat16(lanes_bfloat16 *l, int64_t count)
{
    T_bfloat16 mean;
    if (kept_mean_bfloat16(&l->acc, l->t, 0, count, &mean)) return mean;
    return finalize_bfloat16(lanes_sum_bfloat16(l, count), count);
}

/* Flags of a block whose values are all zeros: is one of them +0.0? */
static void zero_block_flags_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, acc_bfloat16 *acc)
{
    for (int64_t i = 0; i < n; i++)
        if (f64_to_bits(LOAD_bfloat16(x[i * s])) != 0x8000000000000000ull) {
            acc->w[1] |= SACC_NONNEGZERO;
            return;
        }
}

/* n values at stride s into *acc exactly, whatever their range: each adds
 * in double to the bin of its window of 16 float32 exponents (the top 4
 * bits of the exponent field e). Window k's values are multiples of
 * 2^(16k - 150) (2^-149 for k = 0) below 2^(16k - 111), so up to 2^14 of
 * them add exactly; each bin goes to the superaccumulator every
 * EXTRACT_CAP values. Two sets of bins, for alternate values, halve the
 * chains of additions to one bin. Returns 0 (float16, bfloat16, float32
 * blocks need no sigma). */
static inline void win_add_bfloat16(double *bin, double v, uint32_t *nz, acc_bfloat16 *acc)
{
    uint32_t b = f32_to_bits((float)v);
    if (((b >> 23) & 0xffu) == 0xffu) {
        acc->w[1] |= sacc_flags_of(v);
        return;
    }
    *nz |= b ^ 0x80000000u;
    bin[(b >> 27) & 0xfu] += v;
}

static double chunk_block_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, acc_bfloat16 *acc)
{
    uint32_t nz = 0;
    for (int64_t i0 = 0; i0 < n; i0 += EXTRACT_CAP) {
        int64_t i1 = n - i0 < EXTRACT_CAP ? n : i0 + EXTRACT_CAP, i = i0;
        double b0[16] = {0.0}, b1[16] = {0.0};
        for (; i + 2 <= i1; i += 2) {
            win_add_bfloat16(b0, LOAD_bfloat16(x[i * s]), &nz, acc);
            win_add_bfloat16(b1, LOAD_bfloat16(x[(i + 1) * s]), &nz, acc);
        }
        if (i < i1) win_add_bfloat16(b0, LOAD_bfloat16(x[i * s]), &nz, acc);
        for (int k = 0; k < 16; k++) {
            double t = b0[k] + b1[k]; /* exact: EXTRACT_CAP values at most */
            if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_bfloat16, SACC_LSB_bfloat16, t);
        }
    }
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
    return 0.0;
}

/* A kept block's exact sums into the lanes: added on to t in double while
 * TwoSum shows that exact, so the superaccumulator takes one addition per
 * run of blocks rather than one or two per block. */
static inline void lanes_keep_bfloat16(lanes_bfloat16 *l, const T_bfloat16 *x, int64_t s, int64_t n, const double *sums,
                                      int nsums, int any_nonzero)
{
    for (int k = 0; k < nsums; k++) {
        double *kept = &l->t;
        double a = *kept, b = sums[k], sum = a + b, bv = sum - a;
        if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
            if (a != 0.0) sacc_add_f64(l->acc.w + SACC_HEADER, SACC_NL_bfloat16, SACC_LSB_bfloat16, a);
            sum = b;
        }
        *kept = sum;
    }
    if (any_nonzero) l->acc.w[1] |= SACC_NONNEGZERO;
    else zero_block_flags_bfloat16(x, s, n, &l->acc);
}

/* clean_block for nrows rows (row stride rs) of w <= TILE columns (stride
 * s), to dst as rows of w contiguous values; column j's flags into acc[j]
 * (skipna: its NaN counted into acc[j]'s count word). nrows < 2^16. */
CLONES static void clean_rows_bfloat16(const T_bfloat16 *src, int64_t rs, int64_t nrows, int64_t s, int64_t w, T_bfloat16 *dst,
                                      int skipna, acc_bfloat16 *acc)
{
    uint16_t cnt[TILE], pin[TILE], nin[TILE], pany = 0, nany = 0;
    memset(cnt, 0, (size_t)w * sizeof cnt[0]);
    memset(pin, 0, (size_t)w * sizeof pin[0]);
    memset(nin, 0, (size_t)w * sizeof nin[0]);
    for (int64_t i = 0; i < nrows; i++) { /* NaN per column; whether an inf at all */
        const fbits_bfloat16 *x = (const fbits_bfloat16 *)(src + i * rs);
        fbits_bfloat16 *y = (fbits_bfloat16 *)(dst + i * w);
        PREFETCH_SPAN(x, w * (int64_t)sizeof(T_bfloat16)); /* the first reader: prefetch, as the row kernels */
        if (s == 1)
            for (int64_t j = 0; j < w; j++) FB_CLEAN_bfloat16(x[j], y[j], cnt[j], pany, nany);
        else
            for (int64_t j = 0; j < w; j++) FB_CLEAN_bfloat16(x[j * s], y[j], cnt[j], pany, nany);
    }
    for (int64_t i = 0; (pany | nany) && i < nrows; i++) { /* rare: the infinities' columns */
        const fbits_bfloat16 *x = (const fbits_bfloat16 *)(src + i * rs);
        uint16_t c = 0, y;
        for (int64_t j = 0; j < w; j++) FB_CLEAN_bfloat16(x[j * s], y, c, pin[j], nin[j]);
        (void)y;
    }
    for (int64_t j = 0; j < w; j++) {
        uint64_t f = (pin[j] ? SACC_PINF : 0u) | (nin[j] ? SACC_NINF : 0u);
        if (skipna) acc[j].w[0] += (uint64_t)cnt[j];
        else if (cnt[j]) f |= SACC_NAN;
        if (f) acc[j].w[1] |= f | SACC_NONNEGZERO;
    }
}

/* The scalar blocks below, declared for block_nonfinite. */
static void block_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, lanes_bfloat16 *l);

/* A block (n <= EXTRACT_CAP) with an inf or NaN among its values (or, in
 * skipna lanes, any block): the block again from a copy with those as -0.0
 * (clean_block), their flags (skipna: the NaN count) into the state. 0
 * when it holds none (a failure was another). */
static __attribute__((noinline)) int block_nonfinite_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, lanes_bfloat16 *l)
{
    T_bfloat16 raw[EXTRACT_CAP + 4096 / sizeof(T_bfloat16)], *buf = copy_at_bfloat16(raw, x);
    int64_t nan = 0;
    uint64_t f = clean_block_bfloat16(x, s, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_bfloat16(buf, 1, n, l);
    l->skipna = skipna;
    return 1;
}

/* A block that failed narrow_sum_exact for a few small values, summed in
 * two parts: the values of at least 2^T (thr, as float32 bits), T the lowest
 * exponent that keeps every partial sum of n values below 2^(m + 1) exact
 * (so their sum is exact whatever the small ones), and the values below,
 * with a check of their own. 1 when both sums are exact (kept), else 0. */
static inline uint32_t split_threshold_bfloat16(uint32_t mx, int64_t n)
{
    if (mx >= 0x7f800000u || n < 2) return 0;
    int m = (int)(mx >> 23) - 127, cl = 64 - __builtin_clzll((uint64_t)(n - 1));
    int t = cl + (m < -126 ? -126 : m) + PREC_bfloat16 - 53;
    if (t <= -126 || t > 127) return 0;
    uint32_t thr = (uint32_t)(t + 127) << 23;
    return narrow_sum_exact(mx, thr - 1u, n, PREC_bfloat16, LSB_MIN_bfloat16) ? thr : 0;
}

/* One value of a split block into its part's sum: at or above thr into *big,
 * below into *small with the small part's bounds (largest |x| and smallest
 * nonzero |x| - 1, as float32 bits). */
static inline void split_add_bfloat16(double v, uint32_t thr, double *big, double *small, uint32_t *smx, uint32_t *smn1)
{
    uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
    if (a >= thr) {
        *big += v;
    } else {
        *smx = a > *smx ? a : *smx;
        *smn1 = a - 1u < *smn1 ? a - 1u : *smn1;
        *small += v;
    }
}

static int split_block_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, uint32_t mx, lanes_bfloat16 *l)
{
    uint32_t thr = split_threshold_bfloat16(mx, n), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double sums[2] = {0.0, 0.0};
    for (int64_t i = 0; i < n; i++) split_add_bfloat16(LOAD_bfloat16(x[i * s]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_bfloat16, LSB_MIN_bfloat16)) return 0;
    lanes_keep_bfloat16(l, x, s, n, sums, 2, mx != 0);
    return 1;
}

/* Up to EXTRACT_CAP values at stride s: the scalar form of the vector block. */
static void block_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, lanes_bfloat16 *l)
{
    if (l->skipna && block_nonfinite_bfloat16(x, s, n, l)) return;
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    uint32_t mx = 0, mn1 = UINT32_MAX;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) {
            double v = LOAD_bfloat16(x[(i + k) * s]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            sum[k] += v;
        }
    for (; i < n; i++) {
        double v = LOAD_bfloat16(x[i * s]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        sum[0] += v;
    }
    if (mx >= 0x7f800000u && block_nonfinite_bfloat16(x, s, n, l)) return;
    if (narrow_sum_exact(mx, mn1, n, PREC_bfloat16, LSB_MIN_bfloat16)) {
        double total = (sum[0] + sum[1]) + (sum[2] + sum[3]); /* exact, as every partial sum */
        lanes_keep_bfloat16(l, x, s, n, &total, 1, mx != 0);
    } else if (!split_block_bfloat16(x, s, n, mx, l)) {
        (void)chunk_block_bfloat16(x, s, n, &l->acc);
    }
}

/* Sum n elements at stride s into the lanes, block by block. */
static void run_bfloat16(const T_bfloat16 *x, int64_t s, int64_t n, lanes_bfloat16 *l, int k0)
{
    (void)k0;
    for (int64_t i = 0; i < n; i += EXTRACT_CAP) block_bfloat16(x + i * s, s, n - i < EXTRACT_CAP ? n - i : EXTRACT_CAP, l);
}

/* Row accumulation: the same per column, over blocks of a call's rows
 * (EXTRACT_CAP at a time). One check covers the whole block (a bound shared
 * by its columns); when it fails, each column is checked on its own and
 * only those that fail are summed again. */
typedef struct {
    double s[TILE];
    uint32_t bmx, bmn1; /* the block's largest |x| and smallest nonzero |x| - 1 (float32 bits) */
    /* each column's kept block sums, added on in double while that is exact
     * (TwoSum's error is zero): the superaccumulator sees the column only
     * when an addition would round, or when a block fails its check */
    double t[TILE];
    double tnz[TILE]; /* the largest |kept block sum| of the column: nonzero when one was */
    int64_t skip; /* blocks to send straight to the exact path */
    int nonfinite; /* a block held an inf or NaN: the next ones go through copies (rows_nonfinite) */
    acc_bfloat16 acc[TILE];
} rowacc_bfloat16;

static inline void rowacc_init_bfloat16(rowacc_bfloat16 *r, int64_t w)
{
    r->skip = 0;
    r->nonfinite = 0;
    for (int64_t j = 0; j < w; j++) {
        r->t[j] = 0.0;
        r->tnz[j] = 0.0;
        memset(&r->acc[j], 0, sizeof r->acc[j]);
    }
}

/* Column j's kept double sum into acc (its nonzero flag with it). */
static inline void t_into_bfloat16(double t, uint8_t nz, acc_bfloat16 *acc)
{
    if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_bfloat16, SACC_LSB_bfloat16, t);
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
}

/* Column j's exact block sum b on into its kept sum: in double when that is
 * exact, else the kept sum goes to the superaccumulator and b starts anew. */
static inline void t_keep_in_bfloat16(rowacc_bfloat16 *r, double *t, int64_t j, double b)
{
    double a = t[j], sum = a + b, bv = sum - a;
    if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
        t_into_bfloat16(a, 0, &r->acc[j]);
        sum = b;
    }
    t[j] = sum;
    r->tnz[j] = fabs(b) > r->tnz[j] ? fabs(b) : r->tnz[j];
}

static inline void t_keep_bfloat16(rowacc_bfloat16 *r, int64_t j, double b) { t_keep_in_bfloat16(r, r->t, j, b); }

static inline void rowacc_take_bfloat16(const rowacc_bfloat16 *r, int64_t w, int64_t count, acc_bfloat16 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) {
        part[j] = r->acc[j];
        t_into_bfloat16(r->t[j], r->tnz[j] != 0.0, &part[j]);
    }
}

/* The mean of column j when the accumulator holds all `count` of its rows.
 * While no block went to the superaccumulator, the kept double sum is the
 * exact sum (kept_mean): float16/bfloat16/float32 divide it and round to
 * odd (div_odd), then once to the format; float64 divides its two levels'
 * kept sums once (kept_dd_mean). */
static inline T_bfloat16 rowacc_mean_bfloat16(const rowacc_bfloat16 *r, int64_t j, int64_t count)
{
    T_bfloat16 mean;
    if (kept_mean_bfloat16(&r->acc[j], r->t[j], r->tnz[j] != 0.0, count, &mean)) return mean;
    acc_bfloat16 s = r->acc[j];
    t_into_bfloat16(r->t[j], r->tnz[j] != 0.0, &s);
    return finalize_bfloat16(s, count);
}

static inline void rows_block_begin_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    (void)x; (void)rs; (void)nrows; (void)s;
    r->bmx = 0;
    r->bmn1 = UINT32_MAX;
    for (int64_t j = 0; j < w; j++) r->s[j] = 0.0;
}

/* One value of column j, the scalar form of the vector loops. */
static inline void col_add_bfloat16(rowacc_bfloat16 *r, int64_t j, double v)
{
    uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
    r->bmx = a > r->bmx ? a : r->bmx;
    r->bmn1 = a - 1u < r->bmn1 ? a - 1u : r->bmn1;
    r->s[j] += v;
}

/* Does column j's block (n values at stride rs) pass its own check? */
static int column_ok_bfloat16(const rowacc_bfloat16 *r, int64_t j, const T_bfloat16 *x, int64_t rs, int64_t n)
{
    uint32_t mx = 0, mn1 = UINT32_MAX;
    (void)r; (void)j;
    for (int64_t i = 0; i < n; i++) {
        uint32_t a = f32_to_bits((float)LOAD_bfloat16(x[i * rs])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    return narrow_sum_exact(mx, mn1, n, PREC_bfloat16, LSB_MIN_bfloat16);
}

/* Did the block pass the check shared by its columns? */
static inline int rows_block_ok_bfloat16(const rowacc_bfloat16 *r, int64_t nrows)
{
    return narrow_sum_exact(r->bmx, r->bmn1, nrows, PREC_bfloat16, LSB_MIN_bfloat16);
}

/* Rows of at most NARROW_ROW columns through the exact path row by row
 * (each row read once, in order): every value adds to its column's bin of
 * its window, as in chunk_block; the bins go to the superaccumulators
 * every EXTRACT_CAP rows. */
static void rows_bins_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    double bin[NARROW_ROW][16];
    uint32_t nz[NARROW_ROW];
    memset(nz, 0, sizeof nz);
    for (int64_t i0 = 0; i0 < nrows; i0 += EXTRACT_CAP) {
        int64_t i1 = nrows - i0 < EXTRACT_CAP ? nrows : i0 + EXTRACT_CAP;
        memset(bin, 0, (size_t)w * sizeof bin[0]);
        for (int64_t i = i0; i < i1; i++) {
            const T_bfloat16 *p = x + i * rs;
            for (int64_t j = 0; j < w; j++) {
                double v = LOAD_bfloat16(p[j * s]);
                uint32_t b = f32_to_bits((float)v);
                if (((b >> 23) & 0xffu) == 0xffu) {
                    r->acc[j].w[1] |= sacc_flags_of(v);
                    continue;
                }
                nz[j] |= b ^ 0x80000000u;
                bin[j][(b >> 27) & 0xfu] += v;
            }
        }
        for (int64_t j = 0; j < w; j++)
            for (int k = 0; k < 16; k++)
                if (bin[j][k] != 0.0) sacc_add_f64(r->acc[j].w + SACC_HEADER, SACC_NL_bfloat16, SACC_LSB_bfloat16, bin[j][k]);
    }
    for (int64_t j = 0; j < w; j++)
        if (nz[j]) r->acc[j].w[1] |= SACC_NONNEGZERO;
}

/* Rows straight through the exact path, row by row when they are narrow
 * (rows_bins), else column by column: returns how many of the `avail` rows
 * it took. */
static int64_t rows_block_exact_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t avail, int64_t s, int64_t w)
{
    int64_t nrows = avail < 16 * EXTRACT_CAP ? avail : 16 * EXTRACT_CAP;
    r->skip--;
    if (w <= NARROW_ROW) {
        rows_bins_bfloat16(r, x, rs, nrows, s, w);
        return nrows;
    }
    for (int64_t j = 0; j < w; j++) {
        (void)chunk_block_bfloat16(x + j * s, rs, nrows, &r->acc[j]);
    }
    return nrows;
}

/* A rows block split as split_block does a run (large and small parts
 * per column, the small ones' check shared by the block): each column's two
 * sums on into its kept sum. */
static void rows_keep_split_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                    const double *big, const double *small)
{
    for (int64_t j = 0; j < w; j++) {
        t_keep_bfloat16(r, j, big[j]);
        t_keep_bfloat16(r, j, small[j]);
        if (big[j] == 0.0 && small[j] == 0.0) zero_block_flags_bfloat16(x + j * s, rs, nrows, &r->acc[j]);
    }
}

/* A rows block where the shared check and some column's own failed, split
 * (the scalar form of the vector one): 1 when both parts of every column
 * are proven exact and kept. */
static int rows_split_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    uint32_t thr = split_threshold_bfloat16(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    for (int64_t j = 0; j < w; j++) big[j] = small[j] = 0.0;
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = 0; j < w; j++) split_add_bfloat16(LOAD_bfloat16(x[i * rs + j * s]), thr, &big[j], &small[j], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_bfloat16, LSB_MIN_bfloat16)) return 0;
    rows_keep_split_bfloat16(r, x, rs, nrows, s, w, big, small);
    return 1;
}

/* Column j's block (x: its first value) passed: its sum on into the kept one. */
static inline void keep_column_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t j)
{
    t_keep_bfloat16(r, j, r->s[j]);
    if (r->s[j] == 0.0) zero_block_flags_bfloat16(x, rs, nrows, &r->acc[j]);
}

/* Keep each column's block sums, or sum its block again exactly. ok:
 * NULL when the block passed its shared check, else each column's own. */
static void rows_block_end_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                   const uint8_t *ok)
{
    int64_t failed = 0;
    for (int64_t j = 0; j < w; j++) failed += ok && !ok[j];
    /* a rows accumulator lives a chunk of rows (a few blocks): skip after the first such block */
    if (2 * failed > w) r->skip = EXACT_SKIP;
    for (int64_t j = 0; j < w; j++) {
        const T_bfloat16 *c = x + j * s;
        if (!ok || ok[j]) {
            keep_column_bfloat16(r, c, rs, nrows, j);
        } else {
            (void)chunk_block_bfloat16(c, rs, nrows, &r->acc[j]);
        }
    }
}

static void add_rows_bfloat16_generic(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w);

/* A rows block that holds an inf or NaN (its sums not kept): its rows again
 * in groups, each from a copy with those as -0.0 and their flags into
 * their columns' states (clean_rows); those blocks then pass their checks. */
static __attribute__((noinline)) void rows_nonfinite_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows,
                                                            int64_t s, int64_t w)
{
    T_bfloat16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_bfloat16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_bfloat16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_bfloat16 *buf = copy_at_bfloat16(raw, x + i * rs);
        clean_rows_bfloat16(x + i * rs, rs, m, s, w, buf, 0, r->acc);
        add_rows_bfloat16_generic(r, buf, w, m, 1, w);
    }
}


/* Rows [0, nrows) at row stride rs, each adding w columns at stride s (s == 0 broadcasts one value). */
static void add_rows_bfloat16_generic(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_bfloat16 *b = x + i0 * rs;
        if (r->skip > 0) {
            nb = rows_block_exact_bfloat16(r, b, rs, nrows - i0, s, w);
            continue;
        }
        rows_block_begin_bfloat16(r, b, rs, nb, s, w);
        for (int64_t i = 0; i < nb; i++)
            for (int64_t j = 0; j < w; j++) col_add_bfloat16(r, j, LOAD_bfloat16(b[i * rs + j * s]));
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_bfloat16(r, b, rs, nb, s, w);
            continue;
        }
        if (rows_block_ok_bfloat16(r, nb)) {
            rows_block_end_bfloat16(r, b, rs, nb, s, w, NULL);
        } else {
            uint8_t ok[TILE];
            for (int64_t j = 0; j < w; j++) ok[j] = (uint8_t)column_ok_bfloat16(r, j, b + j * s, rs, nb);
            if (!split_pays(ok, w) || !rows_split_bfloat16(r, b, rs, nb, s, w))
                rows_block_end_bfloat16(r, b, rs, nb, s, w, ok);
        }
    }
}


/* ---- Mean of N inputs, element by element --------------------------- */

/* Output j's mean over the inputs (input i's value at src[i][j * sinner[i]]),
 * exactly, through a superaccumulator. */
static T_bfloat16 mean_exact_bfloat16(int ninputs, const T_bfloat16 *const *src, const int64_t *sinner, int64_t j)
{
    acc_bfloat16 a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < ninputs; i++) sacc_take(a.w, SACC_NL_bfloat16, SACC_LSB_bfloat16, LOAD_bfloat16(src[i][j * sinner[i]]));
    return finalize_bfloat16(a, ninputs);
}

/* w outputs: dst[j] = the mean over inputs i of src[i][j * sinner[i]].
 * Each output's values sum in plain double from -0.0 (a sum of -0.0s stays
 * -0.0, an exact cancellation gives +0.0); the sums are exact when all the
 * unit's values pass narrow_sum_exact with count ninputs, else each output
 * is checked, and those that fail are summed exactly one by one. */
static void mean_unit_bfloat16(int ninputs, const T_bfloat16 *const *src, const int64_t *sinner, int64_t w, T_bfloat16 *dst)
{
    double S[TILE];
    uint32_t mx = 0, mn1 = UINT32_MAX;
    for (int64_t j = 0; j < w; j++) S[j] = -0.0;
    for (int i = 0; i < ninputs; i++)
        for (int64_t j = 0; j < w; j++) {
            double v = LOAD_bfloat16(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    int all_ok = narrow_sum_exact(mx, mn1, ninputs, PREC_bfloat16, LSB_MIN_bfloat16);
    for (int64_t j = 0; j < w; j++) {
        int ok = all_ok;
        if (!ok) {
            uint32_t cx = 0, cn1 = UINT32_MAX;
            for (int i = 0; i < ninputs; i++) {
                uint32_t a = f32_to_bits((float)LOAD_bfloat16(src[i][j * sinner[i]])) & 0x7fffffffu;
                cx = a > cx ? a : cx;
                cn1 = a - 1u < cn1 ? a - 1u : cn1;
            }
            ok = narrow_sum_exact(cx, cn1, ninputs, PREC_bfloat16, LSB_MIN_bfloat16);
        }
        dst[j] = ok ? store_bfloat16(div_odd(S[j], (double)ninputs)) : mean_exact_bfloat16(ninputs, src, sinner, j);
    }
}
/* ======================================================================
 * float32: exact sum, the mean rounded once
 * ==================================================================== */
typedef float T_float32;
#define LOAD_float32(x) ((double)(x))
/* v holds a value of the format exactly, or is rounded here once */
static inline T_float32 store_float32(double v) { return (float)(v); }
#define SACC_NL_float32 6
#define SACC_LSB_float32 (-149)
static const float_format FORMAT_float32 = { 24, -126, 127 };
typedef struct { uint64_t w[SACC_HEADER + SACC_NL_float32]; } acc_float32; /* count unused (0), flags, limbs */
#define PREC_float32 24
#define LSB_MIN_float32 (-149) /* the smallest subnormal's exponent */
/* every block sum of the format is exact in double (float16: values are
 * multiples of 2^-24 below 2^16): no check needed but for inf and NaN */
#define ALWAYS_EXACT_float32 (128 - LSB_MIN_float32 + EXACT_LOG2BLOCK <= 53)
/* values per block of a run: such formats take longer blocks (fewer flushes) */
#define RUN_BLOCK_float32 (ALWAYS_EXACT_float32 ? (1 << EXACT_LOG2BLOCK) : EXTRACT_CAP)
#define LANES_float32 1 /* exact sums: which lane a value goes to does not matter */
/* chunks of a chunk accumulator: the top value's significand, shifted by
 * up to 31 bits, spans three chunks from its lowest */
#define NCH_float32 (((127 - 24 + 1 - SACC_LSB_float32) >> 5) + 3)

/* NaN and infinities as a block is read: dst[i] := src[i * s] (i < n), every
 * NaN and inf as -0.0, which adds nothing and sets no flag, so the state of
 * dst's values with the flags returned is that of src's values: NaN set
 * SACC_NAN (with skipna: are counted in *nan and set nothing, skipped),
 * +inf and -inf SACC_PINF and SACC_NINF, and each of them SACC_NONNEGZERO,
 * as sacc_flags_of. Branch-free on the values' bits, for the compiler to
 * vectorize (a block with an inf or NaN then stays on the vector path).
 * n < 2^16. */
typedef uint32_t __attribute__((may_alias)) fbits_float32;
#define FB_SIGN_float32 ((uint32_t)((uint32_t)1 << 31))
#define FB_ABS_float32 ((uint32_t)(FB_SIGN_float32 - 1))
#define FB_INF_float32 ((uint32_t)(FB_ABS_float32 ^ (((uint32_t)1 << 23) - 1)))
#define FB_CLEAN_float32(b, y, isn, pin, nin) do { \
        uint32_t a_ = (uint32_t)((b) & FB_ABS_float32), n_ = (uint32_t)(a_ > FB_INF_float32), i_ = (uint32_t)(a_ == FB_INF_float32); \
        uint32_t g_ = (uint32_t)((b) >> 31); \
        (y) = (n_ | i_) ? FB_SIGN_float32 : (b); \
        (isn) = (uint32_t)((isn) + n_); \
        (pin) |= (uint32_t)(i_ & (g_ ^ 1u)); \
        (nin) |= (uint32_t)(i_ & g_); \
    } while (0)

/* Where a copy of the values at src starts in raw (4096 bytes longer than
 * the copy): 2 KiB off src's place in a 4 KiB page, so the copy's stores
 * never alias its loads (4K aliasing: a load whose address matches an
 * earlier store's in its low 12 bits waits for it; measured: a copy of
 * float32 rows in a fixed stack buffer took 3x the reduction of the copy). */
static inline T_float32 *copy_at_float32(T_float32 *raw, const T_float32 *src)
{
    return (T_float32 *)((uintptr_t)raw + (((uintptr_t)src + 2048u - (uintptr_t)raw) & 4095u));
}

CLONES static uint64_t clean_block_float32(const T_float32 *src, int64_t s, int64_t n, T_float32 *dst, int skipna, int64_t *nan)
{
    const fbits_float32 *x = (const fbits_float32 *)src;
    fbits_float32 *y = (fbits_float32 *)dst;
    uint32_t cnt = 0, pin = 0, nin = 0;
    if (s == 1)
        for (int64_t i0 = 0; i0 < n; i0 += 256 / (int64_t)sizeof(T_float32)) { /* the first reader: prefetch, as the blocks */
            int64_t i1 = n - i0 < 256 / (int64_t)sizeof(T_float32) ? n : i0 + 256 / (int64_t)sizeof(T_float32);
            PREFETCH_SPAN(x + i0, 256);
            for (int64_t i = i0; i < i1; i++) FB_CLEAN_float32(x[i], y[i], cnt, pin, nin);
        }
    else
        for (int64_t i = 0; i < n; i++) FB_CLEAN_float32(x[i * s], y[i], cnt, pin, nin);
    uint64_t f = (pin ? SACC_PINF : 0u) | (nin ? SACC_NINF : 0u);
    if (skipna) *nan += (int64_t)cnt;
    else if (cnt) f |= SACC_NAN;
    return f ? f | SACC_NONNEGZERO : 0u;
}

/* Blocks: plain double sums, exact when the values' exponents are close
 * enough (narrow_sum_exact); no setup, nothing carried between blocks. */
typedef struct {
    int64_t skip, fails; /* blocks to send straight to the exact path; failed blocks in a row */
    int skipna; /* NaN skipped, counted in acc's count word (kernel_reduce.c.j2, "skipna") */
    int masknan; /* a block held NaN: the next are read masking NaN lanes (as skipna, flagged) */
    double t; /* kept block sums, added on in double while exact (lanes_keep) */
    acc_float32 acc;
} lanes_float32;

static inline acc_float32 acc_add_float32(acc_float32 a, acc_float32 b)
{
    sacc_combine(a.w, b.w, SACC_NL_float32);
    return a;
}

static inline T_float32 finalize_float32(acc_float32 s, int64_t count)
{
    s.w[0] = (uint64_t)count;
    return store_float32(sacc_mean(s.w, SACC_NL_float32, SACC_LSB_float32, FORMAT_float32));
}

static inline void lanes_init_float32(lanes_float32 *l) { memset(l, 0, sizeof *l); }

static inline acc_float32 lanes_sum_float32(lanes_float32 *l, int64_t count)
{
    acc_float32 a = l->acc;
    (void)count;
    if (l->t != 0.0) sacc_add_f64(a.w + SACC_HEADER, SACC_NL_float32, SACC_LSB_float32, l->t);
    return a;
}

/* Does acc hold nothing (no limb, no NaN or infinity) while count is exact
 * in double? Then the kept sums are the whole exact sum. */
static inline int only_kept_float32(const acc_float32 *acc, int64_t count)
{
    uint64_t limbs = 0;
    for (int k = 0; k < SACC_NL_float32; k++) limbs |= acc->w[SACC_HEADER + k];
    return !limbs && !(acc->w[1] & (SACC_NAN | SACC_PINF | SACC_NINF)) && count < ((int64_t)1 << 53);
}

/* The mean of `count` values whose exact sum is the kept double t plus acc
 * (nz: a kept block sum was nonzero), when acc holds nothing (else 0):
 * float64 divides t once (IEEE division rounds the exact quotient), the
 * narrower formats divide it rounding to odd (div_odd), then round once. */
static inline int kept_mean_float32(const acc_float32 *acc, double t, int nz, int64_t count, T_float32 *mean)
{
    if (!only_kept_float32(acc, count)) return 0;
    if (t == 0.0)
        *mean = store_float32(nz || (acc->w[1] & SACC_NONNEGZERO) ? 0.0 : -0.0);
    else
        *mean = store_float32(div_odd(t, (double)count));
    return 1;
}


/* The mean of an output whose `count` values all went through these lanes. */
static inline T_float32 lanes_mean_float32(lanes_float32 *l, int64_t count)
{
    T_float32 mean;
    if (kept_mean_float32(&l->acc, l->t, 0, count, &mean)) return mean;
    return finalize_float32(lanes_sum_float32(l, count), count);
}

/* Flags of a block whose values are all zeros: is one of them +0.0? */
static void zero_block_flags_float32(const T_float32 *x, int64_t s, int64_t n, acc_float32 *acc)
{
    for (int64_t i = 0; i < n; i++)
        if (f64_to_bits(LOAD_float32(x[i * s])) != 0x8000000000000000ull) {
            acc->w[1] |= SACC_NONNEGZERO;
            return;
        }
}

/* n values at stride s into *acc exactly, whatever their range: each adds
 * in double to the bin of its window of 16 float32 exponents (the top 4
 * bits of the exponent field e). Window k's values are multiples of
 * 2^(16k - 150) (2^-149 for k = 0) below 2^(16k - 111), so up to 2^14 of
 * them add exactly; each bin goes to the superaccumulator every
 * EXTRACT_CAP values. Two sets of bins, for alternate values, halve the
 * chains of additions to one bin. Returns 0 (float16, bfloat16, float32
 * blocks need no sigma). */
static inline void win_add_float32(double *bin, double v, uint32_t *nz, acc_float32 *acc)
{
    uint32_t b = f32_to_bits((float)v);
    if (((b >> 23) & 0xffu) == 0xffu) {
        acc->w[1] |= sacc_flags_of(v);
        return;
    }
    *nz |= b ^ 0x80000000u;
    bin[(b >> 27) & 0xfu] += v;
}

static double chunk_block_float32(const T_float32 *x, int64_t s, int64_t n, acc_float32 *acc)
{
    uint32_t nz = 0;
    for (int64_t i0 = 0; i0 < n; i0 += EXTRACT_CAP) {
        int64_t i1 = n - i0 < EXTRACT_CAP ? n : i0 + EXTRACT_CAP, i = i0;
        double b0[16] = {0.0}, b1[16] = {0.0};
        for (; i + 2 <= i1; i += 2) {
            win_add_float32(b0, LOAD_float32(x[i * s]), &nz, acc);
            win_add_float32(b1, LOAD_float32(x[(i + 1) * s]), &nz, acc);
        }
        if (i < i1) win_add_float32(b0, LOAD_float32(x[i * s]), &nz, acc);
        for (int k = 0; k < 16; k++) {
            double t = b0[k] + b1[k]; /* exact: EXTRACT_CAP values at most */
            if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_float32, SACC_LSB_float32, t);
        }
    }
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
    return 0.0;
}

/* A kept block's exact sums into the lanes: added on to t in double while
 * TwoSum shows that exact, so the superaccumulator takes one addition per
 * run of blocks rather than one or two per block. */
static inline void lanes_keep_float32(lanes_float32 *l, const T_float32 *x, int64_t s, int64_t n, const double *sums,
                                      int nsums, int any_nonzero)
{
    for (int k = 0; k < nsums; k++) {
        double *kept = &l->t;
        double a = *kept, b = sums[k], sum = a + b, bv = sum - a;
        if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
            if (a != 0.0) sacc_add_f64(l->acc.w + SACC_HEADER, SACC_NL_float32, SACC_LSB_float32, a);
            sum = b;
        }
        *kept = sum;
    }
    if (any_nonzero) l->acc.w[1] |= SACC_NONNEGZERO;
    else zero_block_flags_float32(x, s, n, &l->acc);
}

/* clean_block for nrows rows (row stride rs) of w <= TILE columns (stride
 * s), to dst as rows of w contiguous values; column j's flags into acc[j]
 * (skipna: its NaN counted into acc[j]'s count word). nrows < 2^16. */
CLONES static void clean_rows_float32(const T_float32 *src, int64_t rs, int64_t nrows, int64_t s, int64_t w, T_float32 *dst,
                                      int skipna, acc_float32 *acc)
{
    uint32_t cnt[TILE], pin[TILE], nin[TILE], pany = 0, nany = 0;
    memset(cnt, 0, (size_t)w * sizeof cnt[0]);
    memset(pin, 0, (size_t)w * sizeof pin[0]);
    memset(nin, 0, (size_t)w * sizeof nin[0]);
    for (int64_t i = 0; i < nrows; i++) { /* NaN per column; whether an inf at all */
        const fbits_float32 *x = (const fbits_float32 *)(src + i * rs);
        fbits_float32 *y = (fbits_float32 *)(dst + i * w);
        PREFETCH_SPAN(x, w * (int64_t)sizeof(T_float32)); /* the first reader: prefetch, as the row kernels */
        if (s == 1)
            for (int64_t j = 0; j < w; j++) FB_CLEAN_float32(x[j], y[j], cnt[j], pany, nany);
        else
            for (int64_t j = 0; j < w; j++) FB_CLEAN_float32(x[j * s], y[j], cnt[j], pany, nany);
    }
    for (int64_t i = 0; (pany | nany) && i < nrows; i++) { /* rare: the infinities' columns */
        const fbits_float32 *x = (const fbits_float32 *)(src + i * rs);
        uint32_t c = 0, y;
        for (int64_t j = 0; j < w; j++) FB_CLEAN_float32(x[j * s], y, c, pin[j], nin[j]);
        (void)y;
    }
    for (int64_t j = 0; j < w; j++) {
        uint64_t f = (pin[j] ? SACC_PINF : 0u) | (nin[j] ? SACC_NINF : 0u);
        if (skipna) acc[j].w[0] += (uint64_t)cnt[j];
        else if (cnt[j]) f |= SACC_NAN;
        if (f) acc[j].w[1] |= f | SACC_NONNEGZERO;
    }
}

/* The scalar blocks below, declared for block_nonfinite. */
static void block_float32(const T_float32 *x, int64_t s, int64_t n, lanes_float32 *l);

/* A block (n <= EXTRACT_CAP) with an inf or NaN among its values (or, in
 * skipna lanes, any block): the block again from a copy with those as -0.0
 * (clean_block), their flags (skipna: the NaN count) into the state. 0
 * when it holds none (a failure was another). */
static __attribute__((noinline)) int block_nonfinite_float32(const T_float32 *x, int64_t s, int64_t n, lanes_float32 *l)
{
    T_float32 raw[EXTRACT_CAP + 4096 / sizeof(T_float32)], *buf = copy_at_float32(raw, x);
    int64_t nan = 0;
    uint64_t f = clean_block_float32(x, s, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float32(buf, 1, n, l);
    l->skipna = skipna;
    return 1;
}

/* A block that failed narrow_sum_exact for a few small values, summed in
 * two parts: the values of at least 2^T (thr, as float32 bits), T the lowest
 * exponent that keeps every partial sum of n values below 2^(m + 1) exact
 * (so their sum is exact whatever the small ones), and the values below,
 * with a check of their own. 1 when both sums are exact (kept), else 0. */
static inline uint32_t split_threshold_float32(uint32_t mx, int64_t n)
{
    if (mx >= 0x7f800000u || n < 2) return 0;
    int m = (int)(mx >> 23) - 127, cl = 64 - __builtin_clzll((uint64_t)(n - 1));
    int t = cl + (m < -126 ? -126 : m) + PREC_float32 - 53;
    if (t <= -126 || t > 127) return 0;
    uint32_t thr = (uint32_t)(t + 127) << 23;
    return narrow_sum_exact(mx, thr - 1u, n, PREC_float32, LSB_MIN_float32) ? thr : 0;
}

/* One value of a split block into its part's sum: at or above thr into *big,
 * below into *small with the small part's bounds (largest |x| and smallest
 * nonzero |x| - 1, as float32 bits). */
static inline void split_add_float32(double v, uint32_t thr, double *big, double *small, uint32_t *smx, uint32_t *smn1)
{
    uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
    if (a >= thr) {
        *big += v;
    } else {
        *smx = a > *smx ? a : *smx;
        *smn1 = a - 1u < *smn1 ? a - 1u : *smn1;
        *small += v;
    }
}

static int split_block_float32(const T_float32 *x, int64_t s, int64_t n, uint32_t mx, lanes_float32 *l)
{
    uint32_t thr = split_threshold_float32(mx, n), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double sums[2] = {0.0, 0.0};
    for (int64_t i = 0; i < n; i++) split_add_float32(LOAD_float32(x[i * s]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_float32, LSB_MIN_float32)) return 0;
    lanes_keep_float32(l, x, s, n, sums, 2, mx != 0);
    return 1;
}

/* Up to EXTRACT_CAP values at stride s: the scalar form of the vector block. */
static void block_float32(const T_float32 *x, int64_t s, int64_t n, lanes_float32 *l)
{
    if (l->skipna && block_nonfinite_float32(x, s, n, l)) return;
    double sum[4] = {0.0, 0.0, 0.0, 0.0};
    uint32_t mx = 0, mn1 = UINT32_MAX;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) {
            double v = LOAD_float32(x[(i + k) * s]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            sum[k] += v;
        }
    for (; i < n; i++) {
        double v = LOAD_float32(x[i * s]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        sum[0] += v;
    }
    if (mx >= 0x7f800000u && block_nonfinite_float32(x, s, n, l)) return;
    if (narrow_sum_exact(mx, mn1, n, PREC_float32, LSB_MIN_float32)) {
        double total = (sum[0] + sum[1]) + (sum[2] + sum[3]); /* exact, as every partial sum */
        lanes_keep_float32(l, x, s, n, &total, 1, mx != 0);
    } else if (!split_block_float32(x, s, n, mx, l)) {
        (void)chunk_block_float32(x, s, n, &l->acc);
    }
}

/* Sum n elements at stride s into the lanes, block by block. */
static void run_float32(const T_float32 *x, int64_t s, int64_t n, lanes_float32 *l, int k0)
{
    (void)k0;
    for (int64_t i = 0; i < n; i += EXTRACT_CAP) block_float32(x + i * s, s, n - i < EXTRACT_CAP ? n - i : EXTRACT_CAP, l);
}

/* Row accumulation: the same per column, over blocks of a call's rows
 * (EXTRACT_CAP at a time). One check covers the whole block (a bound shared
 * by its columns); when it fails, each column is checked on its own and
 * only those that fail are summed again. */
typedef struct {
    double s[TILE];
    uint32_t bmx, bmn1; /* the block's largest |x| and smallest nonzero |x| - 1 (float32 bits) */
    /* each column's kept block sums, added on in double while that is exact
     * (TwoSum's error is zero): the superaccumulator sees the column only
     * when an addition would round, or when a block fails its check */
    double t[TILE];
    double tnz[TILE]; /* the largest |kept block sum| of the column: nonzero when one was */
    int64_t skip; /* blocks to send straight to the exact path */
    int nonfinite; /* a block held an inf or NaN: the next ones go through copies (rows_nonfinite) */
    acc_float32 acc[TILE];
} rowacc_float32;

static inline void rowacc_init_float32(rowacc_float32 *r, int64_t w)
{
    r->skip = 0;
    r->nonfinite = 0;
    for (int64_t j = 0; j < w; j++) {
        r->t[j] = 0.0;
        r->tnz[j] = 0.0;
        memset(&r->acc[j], 0, sizeof r->acc[j]);
    }
}

/* Column j's kept double sum into acc (its nonzero flag with it). */
static inline void t_into_float32(double t, uint8_t nz, acc_float32 *acc)
{
    if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_float32, SACC_LSB_float32, t);
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
}

/* Column j's exact block sum b on into its kept sum: in double when that is
 * exact, else the kept sum goes to the superaccumulator and b starts anew. */
static inline void t_keep_in_float32(rowacc_float32 *r, double *t, int64_t j, double b)
{
    double a = t[j], sum = a + b, bv = sum - a;
    if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
        t_into_float32(a, 0, &r->acc[j]);
        sum = b;
    }
    t[j] = sum;
    r->tnz[j] = fabs(b) > r->tnz[j] ? fabs(b) : r->tnz[j];
}

static inline void t_keep_float32(rowacc_float32 *r, int64_t j, double b) { t_keep_in_float32(r, r->t, j, b); }

static inline void rowacc_take_float32(const rowacc_float32 *r, int64_t w, int64_t count, acc_float32 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) {
        part[j] = r->acc[j];
        t_into_float32(r->t[j], r->tnz[j] != 0.0, &part[j]);
    }
}

/* The mean of column j when the accumulator holds all `count` of its rows.
 * While no block went to the superaccumulator, the kept double sum is the
 * exact sum (kept_mean): float16/bfloat16/float32 divide it and round to
 * odd (div_odd), then once to the format; float64 divides its two levels'
 * kept sums once (kept_dd_mean). */
static inline T_float32 rowacc_mean_float32(const rowacc_float32 *r, int64_t j, int64_t count)
{
    T_float32 mean;
    if (kept_mean_float32(&r->acc[j], r->t[j], r->tnz[j] != 0.0, count, &mean)) return mean;
    acc_float32 s = r->acc[j];
    t_into_float32(r->t[j], r->tnz[j] != 0.0, &s);
    return finalize_float32(s, count);
}

static inline void rows_block_begin_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    (void)x; (void)rs; (void)nrows; (void)s;
    r->bmx = 0;
    r->bmn1 = UINT32_MAX;
    for (int64_t j = 0; j < w; j++) r->s[j] = 0.0;
}

/* One value of column j, the scalar form of the vector loops. */
static inline void col_add_float32(rowacc_float32 *r, int64_t j, double v)
{
    uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
    r->bmx = a > r->bmx ? a : r->bmx;
    r->bmn1 = a - 1u < r->bmn1 ? a - 1u : r->bmn1;
    r->s[j] += v;
}

/* Does column j's block (n values at stride rs) pass its own check? */
static int column_ok_float32(const rowacc_float32 *r, int64_t j, const T_float32 *x, int64_t rs, int64_t n)
{
    uint32_t mx = 0, mn1 = UINT32_MAX;
    (void)r; (void)j;
    for (int64_t i = 0; i < n; i++) {
        uint32_t a = f32_to_bits((float)LOAD_float32(x[i * rs])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    return narrow_sum_exact(mx, mn1, n, PREC_float32, LSB_MIN_float32);
}

/* Did the block pass the check shared by its columns? */
static inline int rows_block_ok_float32(const rowacc_float32 *r, int64_t nrows)
{
    return narrow_sum_exact(r->bmx, r->bmn1, nrows, PREC_float32, LSB_MIN_float32);
}

/* Rows of at most NARROW_ROW columns through the exact path row by row
 * (each row read once, in order): every value adds to its column's bin of
 * its window, as in chunk_block; the bins go to the superaccumulators
 * every EXTRACT_CAP rows. */
static void rows_bins_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    double bin[NARROW_ROW][16];
    uint32_t nz[NARROW_ROW];
    memset(nz, 0, sizeof nz);
    for (int64_t i0 = 0; i0 < nrows; i0 += EXTRACT_CAP) {
        int64_t i1 = nrows - i0 < EXTRACT_CAP ? nrows : i0 + EXTRACT_CAP;
        memset(bin, 0, (size_t)w * sizeof bin[0]);
        for (int64_t i = i0; i < i1; i++) {
            const T_float32 *p = x + i * rs;
            for (int64_t j = 0; j < w; j++) {
                double v = LOAD_float32(p[j * s]);
                uint32_t b = f32_to_bits((float)v);
                if (((b >> 23) & 0xffu) == 0xffu) {
                    r->acc[j].w[1] |= sacc_flags_of(v);
                    continue;
                }
                nz[j] |= b ^ 0x80000000u;
                bin[j][(b >> 27) & 0xfu] += v;
            }
        }
        for (int64_t j = 0; j < w; j++)
            for (int k = 0; k < 16; k++)
                if (bin[j][k] != 0.0) sacc_add_f64(r->acc[j].w + SACC_HEADER, SACC_NL_float32, SACC_LSB_float32, bin[j][k]);
    }
    for (int64_t j = 0; j < w; j++)
        if (nz[j]) r->acc[j].w[1] |= SACC_NONNEGZERO;
}

/* Rows straight through the exact path, row by row when they are narrow
 * (rows_bins), else column by column: returns how many of the `avail` rows
 * it took. */
static int64_t rows_block_exact_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t avail, int64_t s, int64_t w)
{
    int64_t nrows = avail < 16 * EXTRACT_CAP ? avail : 16 * EXTRACT_CAP;
    r->skip--;
    if (w <= NARROW_ROW) {
        rows_bins_float32(r, x, rs, nrows, s, w);
        return nrows;
    }
    for (int64_t j = 0; j < w; j++) {
        (void)chunk_block_float32(x + j * s, rs, nrows, &r->acc[j]);
    }
    return nrows;
}

/* A rows block split as split_block does a run (large and small parts
 * per column, the small ones' check shared by the block): each column's two
 * sums on into its kept sum. */
static void rows_keep_split_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                    const double *big, const double *small)
{
    for (int64_t j = 0; j < w; j++) {
        t_keep_float32(r, j, big[j]);
        t_keep_float32(r, j, small[j]);
        if (big[j] == 0.0 && small[j] == 0.0) zero_block_flags_float32(x + j * s, rs, nrows, &r->acc[j]);
    }
}

/* A rows block where the shared check and some column's own failed, split
 * (the scalar form of the vector one): 1 when both parts of every column
 * are proven exact and kept. */
static int rows_split_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    uint32_t thr = split_threshold_float32(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    for (int64_t j = 0; j < w; j++) big[j] = small[j] = 0.0;
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = 0; j < w; j++) split_add_float32(LOAD_float32(x[i * rs + j * s]), thr, &big[j], &small[j], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_float32, LSB_MIN_float32)) return 0;
    rows_keep_split_float32(r, x, rs, nrows, s, w, big, small);
    return 1;
}

/* Column j's block (x: its first value) passed: its sum on into the kept one. */
static inline void keep_column_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t j)
{
    t_keep_float32(r, j, r->s[j]);
    if (r->s[j] == 0.0) zero_block_flags_float32(x, rs, nrows, &r->acc[j]);
}

/* Keep each column's block sums, or sum its block again exactly. ok:
 * NULL when the block passed its shared check, else each column's own. */
static void rows_block_end_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                   const uint8_t *ok)
{
    int64_t failed = 0;
    for (int64_t j = 0; j < w; j++) failed += ok && !ok[j];
    /* a rows accumulator lives a chunk of rows (a few blocks): skip after the first such block */
    if (2 * failed > w) r->skip = EXACT_SKIP;
    for (int64_t j = 0; j < w; j++) {
        const T_float32 *c = x + j * s;
        if (!ok || ok[j]) {
            keep_column_float32(r, c, rs, nrows, j);
        } else {
            (void)chunk_block_float32(c, rs, nrows, &r->acc[j]);
        }
    }
}

static void add_rows_float32_generic(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w);

/* A rows block that holds an inf or NaN (its sums not kept): its rows again
 * in groups, each from a copy with those as -0.0 and their flags into
 * their columns' states (clean_rows); those blocks then pass their checks. */
static __attribute__((noinline)) void rows_nonfinite_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows,
                                                            int64_t s, int64_t w)
{
    T_float32 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float32)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float32)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_float32 *buf = copy_at_float32(raw, x + i * rs);
        clean_rows_float32(x + i * rs, rs, m, s, w, buf, 0, r->acc);
        add_rows_float32_generic(r, buf, w, m, 1, w);
    }
}


/* Rows [0, nrows) at row stride rs, each adding w columns at stride s (s == 0 broadcasts one value). */
static void add_rows_float32_generic(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float32 *b = x + i0 * rs;
        if (r->skip > 0) {
            nb = rows_block_exact_float32(r, b, rs, nrows - i0, s, w);
            continue;
        }
        rows_block_begin_float32(r, b, rs, nb, s, w);
        for (int64_t i = 0; i < nb; i++)
            for (int64_t j = 0; j < w; j++) col_add_float32(r, j, LOAD_float32(b[i * rs + j * s]));
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_float32(r, b, rs, nb, s, w);
            continue;
        }
        if (rows_block_ok_float32(r, nb)) {
            rows_block_end_float32(r, b, rs, nb, s, w, NULL);
        } else {
            uint8_t ok[TILE];
            for (int64_t j = 0; j < w; j++) ok[j] = (uint8_t)column_ok_float32(r, j, b + j * s, rs, nb);
            if (!split_pays(ok, w) || !rows_split_float32(r, b, rs, nb, s, w))
                rows_block_end_float32(r, b, rs, nb, s, w, ok);
        }
    }
}


/* ---- Mean of N inputs, element by element --------------------------- */

/* Output j's mean over the inputs (input i's value at src[i][j * sinner[i]]),
 * exactly, through a superaccumulator. */
static T_float32 mean_exact_float32(int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t j)
{
    acc_float32 a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < ninputs; i++) sacc_take(a.w, SACC_NL_float32, SACC_LSB_float32, LOAD_float32(src[i][j * sinner[i]]));
    return finalize_float32(a, ninputs);
}

/* w outputs: dst[j] = the mean over inputs i of src[i][j * sinner[i]].
 * Each output's values sum in plain double from -0.0 (a sum of -0.0s stays
 * -0.0, an exact cancellation gives +0.0); the sums are exact when all the
 * unit's values pass narrow_sum_exact with count ninputs, else each output
 * is checked, and those that fail are summed exactly one by one. */
static void mean_unit_float32(int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t w, T_float32 *dst)
{
    double S[TILE];
    uint32_t mx = 0, mn1 = UINT32_MAX;
    for (int64_t j = 0; j < w; j++) S[j] = -0.0;
    for (int i = 0; i < ninputs; i++)
        for (int64_t j = 0; j < w; j++) {
            double v = LOAD_float32(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    int all_ok = narrow_sum_exact(mx, mn1, ninputs, PREC_float32, LSB_MIN_float32);
    for (int64_t j = 0; j < w; j++) {
        int ok = all_ok;
        if (!ok) {
            uint32_t cx = 0, cn1 = UINT32_MAX;
            for (int i = 0; i < ninputs; i++) {
                uint32_t a = f32_to_bits((float)LOAD_float32(src[i][j * sinner[i]])) & 0x7fffffffu;
                cx = a > cx ? a : cx;
                cn1 = a - 1u < cn1 ? a - 1u : cn1;
            }
            ok = narrow_sum_exact(cx, cn1, ninputs, PREC_float32, LSB_MIN_float32);
        }
        dst[j] = ok ? store_float32(div_odd(S[j], (double)ninputs)) : mean_exact_float32(ninputs, src, sinner, j);
    }
}
/* ======================================================================
 * float64: exact sum, the mean rounded once
 * ==================================================================== */
typedef double T_float64;
#define LOAD_float64(x) (x)
/* v holds a value of the format exactly, or is rounded here once */
static inline T_float64 store_float64(double v) { return (double)(v); }
#define SACC_NL_float64 34
#define SACC_LSB_float64 (-1074)
static const float_format FORMAT_float64 = { 53, -1022, 1023 };
typedef struct { uint64_t w[SACC_HEADER + SACC_NL_float64]; } acc_float64; /* count unused (0), flags, limbs */
#define PREC_float64 53
#define LSB_MIN_float64 (-1074) /* the smallest subnormal's exponent */
/* every block sum of the format is exact in double (float16: values are
 * multiples of 2^-24 below 2^16): no check needed but for inf and NaN */
#define ALWAYS_EXACT_float64 (1024 - LSB_MIN_float64 + EXACT_LOG2BLOCK <= 53)
/* values per block of a run: such formats take longer blocks (fewer flushes) */
#define RUN_BLOCK_float64 (ALWAYS_EXACT_float64 ? (1 << EXACT_LOG2BLOCK) : EXTRACT_CAP)
#define LANES_float64 1 /* exact sums: which lane a value goes to does not matter */
/* chunks of a chunk accumulator: the top value's significand, shifted by
 * up to 31 bits, spans three chunks from its lowest */
#define NCH_float64 (((1023 - 53 + 1 - SACC_LSB_float64) >> 5) + 3)

/* NaN and infinities as a block is read: dst[i] := src[i * s] (i < n), every
 * NaN and inf as -0.0, which adds nothing and sets no flag, so the state of
 * dst's values with the flags returned is that of src's values: NaN set
 * SACC_NAN (with skipna: are counted in *nan and set nothing, skipped),
 * +inf and -inf SACC_PINF and SACC_NINF, and each of them SACC_NONNEGZERO,
 * as sacc_flags_of. Branch-free on the values' bits, for the compiler to
 * vectorize (a block with an inf or NaN then stays on the vector path).
 * n < 2^16. */
typedef uint64_t __attribute__((may_alias)) fbits_float64;
#define FB_SIGN_float64 ((uint64_t)((uint64_t)1 << 63))
#define FB_ABS_float64 ((uint64_t)(FB_SIGN_float64 - 1))
#define FB_INF_float64 ((uint64_t)(FB_ABS_float64 ^ (((uint64_t)1 << 52) - 1)))
#define FB_CLEAN_float64(b, y, isn, pin, nin) do { \
        uint64_t a_ = (uint64_t)((b) & FB_ABS_float64), n_ = (uint64_t)(a_ > FB_INF_float64), i_ = (uint64_t)(a_ == FB_INF_float64); \
        uint64_t g_ = (uint64_t)((b) >> 63); \
        (y) = (n_ | i_) ? FB_SIGN_float64 : (b); \
        (isn) = (uint64_t)((isn) + n_); \
        (pin) |= (uint64_t)(i_ & (g_ ^ 1u)); \
        (nin) |= (uint64_t)(i_ & g_); \
    } while (0)

/* Where a copy of the values at src starts in raw (4096 bytes longer than
 * the copy): 2 KiB off src's place in a 4 KiB page, so the copy's stores
 * never alias its loads (4K aliasing: a load whose address matches an
 * earlier store's in its low 12 bits waits for it; measured: a copy of
 * float32 rows in a fixed stack buffer took 3x the reduction of the copy). */
static inline T_float64 *copy_at_float64(T_float64 *raw, const T_float64 *src)
{
    return (T_float64 *)((uintptr_t)raw + (((uintptr_t)src + 2048u - (uintptr_t)raw) & 4095u));
}

CLONES static uint64_t clean_block_float64(const T_float64 *src, int64_t s, int64_t n, T_float64 *dst, int skipna, int64_t *nan)
{
    const fbits_float64 *x = (const fbits_float64 *)src;
    fbits_float64 *y = (fbits_float64 *)dst;
    uint64_t cnt = 0, pin = 0, nin = 0;
    if (s == 1)
        for (int64_t i0 = 0; i0 < n; i0 += 256 / (int64_t)sizeof(T_float64)) { /* the first reader: prefetch, as the blocks */
            int64_t i1 = n - i0 < 256 / (int64_t)sizeof(T_float64) ? n : i0 + 256 / (int64_t)sizeof(T_float64);
            PREFETCH_SPAN(x + i0, 256);
            for (int64_t i = i0; i < i1; i++) FB_CLEAN_float64(x[i], y[i], cnt, pin, nin);
        }
    else
        for (int64_t i = 0; i < n; i++) FB_CLEAN_float64(x[i * s], y[i], cnt, pin, nin);
    uint64_t f = (pin ? SACC_PINF : 0u) | (nin ? SACC_NINF : 0u);
    if (skipna) *nan += (int64_t)cnt;
    else if (cnt) f |= SACC_NAN;
    return f ? f | SACC_NONNEGZERO : 0u;
}

/* Blocks: two levels of extraction (Rump, Ogita, Oishi, "Accurate
 * floating-point summation", ExtractScalar): with sigma_1 = A *
 * 2^(EXTRACT_LOG2CAP + 1) and |x| <= A, q1 = (sigma_1 + x) - sigma_1 and r1 =
 * x - q1 are exact, q1 is a multiple of sigma_1 * 2^-53, and the q1 of up to
 * EXTRACT_CAP values add exactly in double; r1 (|r1| <= sigma_1 * 2^-53) is
 * split the same way against sigma_2. The block is kept when every value was
 * at most A, the sums are finite and every r2 is zero (values at most about
 * 2^30 below A); A comes from the previous block (the first block's first
 * values), and a failed block picks it again from its own largest value. */
typedef struct {
    double A, sigma1, sigma2;
    double t, t2; /* the kept first- and second-level block sums (lanes_keep) */
    int64_t skip, fails;
    int skipna; /* NaN skipped, counted in acc's count word (kernel_reduce.c.j2, "skipna") */
    acc_float64 acc;
} lanes_float64;

/* 2^k as a double (ldexp(1.0, k)) for k <= 1023: subnormal below 2^-1022, 0 below 2^-1074 */
static inline double pow2_float64(int k)
{
    if (k >= -1022) return bits_to_f64((uint64_t)(k + 1023) << 52);
    return k >= -1074 ? bits_to_f64((uint64_t)1 << (k + 1074)) : 0.0;
}

/* A = 2^(e(m) + 1 + EXTRACT_HEADROOM) >= m, kept below what keeps sigma_1 finite */
static inline void pick_sigma_float64(double m, double *A, double *sigma1, double *sigma2)
{
    /* m < 2^e, as frexp gives it, from the exponent bits (frexp and ldexp
     * were 4% of float64 runs of 300); an infinite m takes the top */
    int e = (int)((f64_to_bits(m > 0x1p-1022 ? m : 0x1p-1022) >> 52) & 0x7ff) - 1022;
    e += EXTRACT_HEADROOM;
    if (e > 1023 - EXTRACT_LOG2CAP - 1) e = 1023 - EXTRACT_LOG2CAP - 1;
    *A = pow2_float64(e);
    *sigma1 = pow2_float64(e + EXTRACT_LOG2CAP + 1);
    *sigma2 = pow2_float64(e + 2 * (EXTRACT_LOG2CAP + 1) - 53); /* 0 far below 2^-1074: then q2 = r1 */
}

/* The sign of |d + e| - h, exactly, for TwoSum's d and e (|e| <= ulp(d) / 2)
 * and h > 0 a double: |d| on either side of h decides it, |d| == h leaves
 * it to e. */
static inline int cmp_abs_dd(double d, double e, double h)
{
    double ad = fabs(d);
    int tie_side = (e != 0.0) * (((e > 0.0) == (d > 0.0)) ? 1 : -1);
    return ad > h ? 1 : (ad < h ? -1 : tie_side);
}

/* RN((s1 + s2) / n) into *q, ties to even, when double arithmetic decides
 * it; 0 when the exact sum must (mean_unit says how). Branch-free. */
static inline int dd_mean(double s1, double s2, double nd, double *q)
{
    double H = s1 + s2, bv = H - s1, L = (s1 - (H - bv)) + (s2 - bv);
    double q0 = H / nd, rem = fma(-q0, nd, H), d = rem + L, dv = d - rem, e = (rem - (d - dv)) + (L - dv);
    uint64_t b = f64_to_bits(q0);
    int down = (d < 0.0) != (q0 < 0.0); /* D moves the quotient toward zero */
    double h = nd * bits_to_f64((((b >> 52) & 0x7ff) - 53) << 52) * (down && (b & 0xfffffffffffffull) == 0 ? 0.5 : 1.0);
    uint64_t next = down ? b - 1 : b + 1;
    int c1 = cmp_abs_dd(d, e, h), c3 = cmp_abs_dd(d, e, 3.0 * h);
    int keep = c1 < 0 || (c1 == 0 && (b & 1) == 0);
    int step = c3 < 0 || (c3 == 0 && (next & 1) == 0);
    *q = bits_to_f64(keep ? b : next);
    return fabs(H) > 0x1p-900 && fabs(H) < 0x1p1000 && (keep || step);
}

static inline acc_float64 acc_add_float64(acc_float64 a, acc_float64 b)
{
    sacc_combine(a.w, b.w, SACC_NL_float64);
    return a;
}

static inline T_float64 finalize_float64(acc_float64 s, int64_t count)
{
    s.w[0] = (uint64_t)count;
    return store_float64(sacc_mean(s.w, SACC_NL_float64, SACC_LSB_float64, FORMAT_float64));
}

static inline void lanes_init_float64(lanes_float64 *l) { memset(l, 0, sizeof *l); }

static inline acc_float64 lanes_sum_float64(lanes_float64 *l, int64_t count)
{
    acc_float64 a = l->acc;
    (void)count;
    if (l->t != 0.0) sacc_add_f64(a.w + SACC_HEADER, SACC_NL_float64, SACC_LSB_float64, l->t);
    if (l->t2 != 0.0) sacc_add_f64(a.w + SACC_HEADER, SACC_NL_float64, SACC_LSB_float64, l->t2);
    return a;
}

/* Does acc hold nothing (no limb, no NaN or infinity) while count is exact
 * in double? Then the kept sums are the whole exact sum. */
static inline int only_kept_float64(const acc_float64 *acc, int64_t count)
{
    uint64_t limbs = 0;
    for (int k = 0; k < SACC_NL_float64; k++) limbs |= acc->w[SACC_HEADER + k];
    return !limbs && !(acc->w[1] & (SACC_NAN | SACC_PINF | SACC_NINF)) && count < ((int64_t)1 << 53);
}

/* The mean of `count` values whose exact sum is the kept double t plus acc
 * (nz: a kept block sum was nonzero), when acc holds nothing (else 0):
 * float64 divides t once (IEEE division rounds the exact quotient), the
 * narrower formats divide it rounding to odd (div_odd), then round once. */
static inline int kept_mean_float64(const acc_float64 *acc, double t, int nz, int64_t count, T_float64 *mean)
{
    if (!only_kept_float64(acc, count)) return 0;
    if (t == 0.0)
        *mean = store_float64(nz || (acc->w[1] & SACC_NONNEGZERO) ? 0.0 : -0.0);
    else
        *mean = store_float64(t / (double)count);
    return 1;
}

/* kept_mean of the two levels' kept sums t + t2: with t2 zero, t alone;
 * else dd_mean, when it decides (else 0). Benign data never reach the
 * superaccumulator. */
static inline int kept_dd_mean_float64(const acc_float64 *acc, double t, double t2, int nz, int64_t count, T_float64 *mean)
{
    if (t2 == 0.0) return kept_mean_float64(acc, t, nz, count, mean);
    return only_kept_float64(acc, count) && dd_mean(t, t2, (double)count, mean);
}

/* The mean of an output whose `count` values all went through these lanes. */
static inline T_float64 lanes_mean_float64(lanes_float64 *l, int64_t count)
{
    T_float64 mean;
    if (kept_dd_mean_float64(&l->acc, l->t, l->t2, 0, count, &mean)) return mean;
    return finalize_float64(lanes_sum_float64(l, count), count);
}

/* Flags of a block whose values are all zeros: is one of them +0.0? */
static void zero_block_flags_float64(const T_float64 *x, int64_t s, int64_t n, acc_float64 *acc)
{
    for (int64_t i = 0; i < n; i++)
        if (f64_to_bits(LOAD_float64(x[i * s])) != 0x8000000000000000ull) {
            acc->w[1] |= SACC_NONNEGZERO;
            return;
        }
}

/* n values at stride s into *acc exactly, by exponent windows: window k
 * takes the values whose exponent field e has e >> 5 == k, so |x| < A_k =
 * 2^(32k - 991). Against sigma_k = A_k 2^(EXTRACT_LOG2CAP + 1) each splits
 * exactly into q = (sigma_k + x) - sigma_k and r = x - q, as in the blocks:
 * the q of up to EXTRACT_CAP values add exactly, and the r are multiples of
 * the window's grid 2^(32k - 1075) (2^-1074 for k = 0) of at most
 * sigma_k 2^-53 = 2^(32k - 1033), so EXTRACT_CAP of them stay below
 * 2^(32k - 1023): exact too. Each window's q and r sums go to a chunk
 * accumulator every EXTRACT_CAP values, and that to *acc at the end. sigma_k's exponent field is
 * (e & ~31) + 43, finite up to window 62; window 63 (|x| >= 2^993, inf,
 * NaN) is taken value by value. Two sets of bins, for alternate values,
 * halve the chains of additions to one bin. Returns the largest finite
 * |x| (a failed block's next A comes from it). */
static inline void win_add_float64(double *bin, double v, uint64_t a)
{
    double sg = bits_to_f64((a & 0x7e00000000000000ull) + (43ull << 52)), q = (sg + v) - sg;
    double *w = bin + 2 * (a >> 57);
    w[0] += q;
    w[1] += v - q;
}

/* The slow side of win_add: window 63 (|x| >= 2^993, inf, NaN). */
static void win_big_float64(double v, uint64_t a, uint64_t *amx, int64_t *ch, acc_float64 *acc)
{
    acc->w[1] |= sacc_flags_of(v);
    if (a < 0x7ff0000000000000ull) {
        chunk_add(ch, SACC_LSB_float64, v);
        *amx = a > *amx ? a : *amx;
    }
}

/* The bins' sums into the chunks, the bins zeroed. */
static void win_flush_float64(double *b0, double *b1, int64_t *ch)
{
    for (int k = 0; k < 128; k++) {
        double t = b0[k] + b1[k]; /* exact: EXTRACT_CAP values at most */
        if (t != 0.0) chunk_add(ch, SACC_LSB_float64, t);
        b0[k] = b1[k] = 0.0;
    }
}

static double chunk_block_float64(const T_float64 *x, int64_t s, int64_t n, acc_float64 *acc)
{
    double b0[128], b1[128]; /* [2k]: window k's q sum, [2k + 1]: its r sum */
    int64_t ch[NCH_float64] = {0};
    uint64_t amx = 0;
    memset(b0, 0, sizeof b0);
    memset(b1, 0, sizeof b1);
    for (int64_t i0 = 0; i0 < n; i0 += EXTRACT_CAP) {
        int64_t i1 = n - i0 < EXTRACT_CAP ? n : i0 + EXTRACT_CAP, i = i0;
        for (; i + 2 <= i1; i += 2) {
            double u = x[i * s], v = x[(i + 1) * s];
            uint64_t au = f64_to_bits(u) & 0x7fffffffffffffffull, av = f64_to_bits(v) & 0x7fffffffffffffffull;
            if (au >= 0x7e00000000000000ull) win_big_float64(u, au, &amx, ch, acc);
            else {
                amx = au > amx ? au : amx;
                win_add_float64(b0, u, au);
            }
            if (av >= 0x7e00000000000000ull) win_big_float64(v, av, &amx, ch, acc);
            else {
                amx = av > amx ? av : amx;
                win_add_float64(b1, v, av);
            }
        }
        for (; i < i1; i++) {
            double v = x[i * s];
            uint64_t a = f64_to_bits(v) & 0x7fffffffffffffffull;
            if (a >= 0x7e00000000000000ull) win_big_float64(v, a, &amx, ch, acc);
            else {
                amx = a > amx ? a : amx;
                win_add_float64(b0, v, a);
            }
        }
        win_flush_float64(b0, b1, ch);
    }
    chunk_fold(acc->w + SACC_HEADER, SACC_NL_float64, ch, NCH_float64);
    if (amx) acc->w[1] |= SACC_NONNEGZERO;
    else zero_block_flags_float64(x, s, n, acc);
    return bits_to_f64(amx);
}

/* A kept block's exact sums into the lanes: added on to t in double while
 * TwoSum shows that exact, so the superaccumulator takes one addition per
 * run of blocks rather than one or two per block. */
static inline void lanes_keep_float64(lanes_float64 *l, const T_float64 *x, int64_t s, int64_t n, const double *sums,
                                      int nsums, int any_nonzero)
{
    for (int k = 0; k < nsums; k++) {
        double *kept = k == 0 ? &l->t : &l->t2; /* each level on its own grid: kept far longer */
        double a = *kept, b = sums[k], sum = a + b, bv = sum - a;
        if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
            if (a != 0.0) sacc_add_f64(l->acc.w + SACC_HEADER, SACC_NL_float64, SACC_LSB_float64, a);
            sum = b;
        }
        *kept = sum;
    }
    if (any_nonzero) l->acc.w[1] |= SACC_NONNEGZERO;
    else zero_block_flags_float64(x, s, n, &l->acc);
}

/* clean_block for nrows rows (row stride rs) of w <= TILE columns (stride
 * s), to dst as rows of w contiguous values; column j's flags into acc[j]
 * (skipna: its NaN counted into acc[j]'s count word). nrows < 2^16. */
CLONES static void clean_rows_float64(const T_float64 *src, int64_t rs, int64_t nrows, int64_t s, int64_t w, T_float64 *dst,
                                      int skipna, acc_float64 *acc)
{
    uint64_t cnt[TILE], pin[TILE], nin[TILE], pany = 0, nany = 0;
    memset(cnt, 0, (size_t)w * sizeof cnt[0]);
    memset(pin, 0, (size_t)w * sizeof pin[0]);
    memset(nin, 0, (size_t)w * sizeof nin[0]);
    for (int64_t i = 0; i < nrows; i++) { /* NaN per column; whether an inf at all */
        const fbits_float64 *x = (const fbits_float64 *)(src + i * rs);
        fbits_float64 *y = (fbits_float64 *)(dst + i * w);
        PREFETCH_SPAN(x, w * (int64_t)sizeof(T_float64)); /* the first reader: prefetch, as the row kernels */
        if (s == 1)
            for (int64_t j = 0; j < w; j++) FB_CLEAN_float64(x[j], y[j], cnt[j], pany, nany);
        else
            for (int64_t j = 0; j < w; j++) FB_CLEAN_float64(x[j * s], y[j], cnt[j], pany, nany);
    }
    for (int64_t i = 0; (pany | nany) && i < nrows; i++) { /* rare: the infinities' columns */
        const fbits_float64 *x = (const fbits_float64 *)(src + i * rs);
        uint64_t c = 0, y;
        for (int64_t j = 0; j < w; j++) FB_CLEAN_float64(x[j * s], y, c, pin[j], nin[j]);
        (void)y;
    }
    for (int64_t j = 0; j < w; j++) {
        uint64_t f = (pin[j] ? SACC_PINF : 0u) | (nin[j] ? SACC_NINF : 0u);
        if (skipna) acc[j].w[0] += (uint64_t)cnt[j];
        else if (cnt[j]) f |= SACC_NAN;
        if (f) acc[j].w[1] |= f | SACC_NONNEGZERO;
    }
}

/* The scalar blocks below, declared for block_nonfinite. */
static void block_float64(const T_float64 *x, int64_t s, int64_t n, lanes_float64 *l);

/* A block (n <= EXTRACT_CAP) with an inf or NaN among its values (or, in
 * skipna lanes, any block): the block again from a copy with those as -0.0
 * (clean_block), their flags (skipna: the NaN count) into the state. 0
 * when it holds none (a failure was another). */
static __attribute__((noinline)) int block_nonfinite_float64(const T_float64 *x, int64_t s, int64_t n, lanes_float64 *l)
{
    T_float64 raw[EXTRACT_CAP + 4096 / sizeof(T_float64)], *buf = copy_at_float64(raw, x);
    int64_t nan = 0;
    uint64_t f = clean_block_float64(x, s, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float64(buf, 1, n, l);
    l->skipna = skipna;
    return 1;
}

static void block_float64(const T_float64 *x, int64_t s, int64_t n, lanes_float64 *l)
{
    if (l->skipna && block_nonfinite_float64(x, s, n, l)) return;
    if (l->A == 0.0) {
        double m = 0.0;
        for (int64_t i = 0; i < n && i < 16; i++)
            if (fabs(x[i * s]) > m && fabs(x[i * s]) <= DBL_MAX) m = fabs(x[i * s]);
        pick_sigma_float64(m, &l->A, &l->sigma1, &l->sigma2);
    }
    const double A = l->A, g1 = l->sigma1, g2 = l->sigma2;
    double s1[4] = {0.0, 0.0, 0.0, 0.0}, s2[4] = {0.0, 0.0, 0.0, 0.0}, mx = 0.0;
    uint64_t ro = 0;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i * s], q1 = (g1 + v) - g1, r1 = v - q1, q2 = (g2 + r1) - g2;
        mx = fabs(v) > mx ? fabs(v) : mx;
        s1[i & 3] += q1;
        s2[i & 3] += q2;
        ro |= f64_to_bits(r1 - q2);
    }
    double sums[2] = {(s1[0] + s1[1]) + (s1[2] + s1[3]), (s2[0] + s2[1]) + (s2[2] + s2[3])};
    if (mx <= A && ro == 0 && isfinite(sums[0])) {
        lanes_keep_float64(l, x, s, n, sums, 2, mx != 0.0);
    } else if (!isfinite(sums[0]) && block_nonfinite_float64(x, s, n, l)) {
        /* an inf or NaN among them: kept from the copy without them */
    } else {
        double m = chunk_block_float64(x, s, n, &l->acc);
        pick_sigma_float64(m, &l->A, &l->sigma1, &l->sigma2);
    }
}

/* Sum n elements at stride s into the lanes, block by block. */
static void run_float64(const T_float64 *x, int64_t s, int64_t n, lanes_float64 *l, int k0)
{
    (void)k0;
    for (int64_t i = 0; i < n; i += EXTRACT_CAP) block_float64(x + i * s, s, n - i < EXTRACT_CAP ? n - i : EXTRACT_CAP, l);
}

/* Row accumulation: the same per column, over blocks of a call's rows
 * (EXTRACT_CAP at a time). One check covers the whole block (a bound shared
 * by its columns); when it fails, each column is checked on its own and
 * only those that fail are summed again. */
typedef struct {
    double A[TILE], sigma1[TILE], sigma2[TILE];
    double s1[TILE], s2[TILE];
    uint64_t bad; /* the block has a value above its column's A, or a nonzero r2 */
    /* each column's kept block sums, added on in double while that is exact
     * (TwoSum's error is zero): the superaccumulator sees the column only
     * when an addition would round, or when a block fails its check */
    double t[TILE];
    double t2[TILE]; /* the same for the second-level block sums */
    double tnz[TILE]; /* the largest |kept block sum| of the column: nonzero when one was */
    int64_t skip; /* blocks to send straight to the exact path */
    int nonfinite; /* a block held an inf or NaN: the next ones go through copies (rows_nonfinite) */
    acc_float64 acc[TILE];
} rowacc_float64;

static inline void rowacc_init_float64(rowacc_float64 *r, int64_t w)
{
    r->skip = 0;
    r->nonfinite = 0;
    for (int64_t j = 0; j < w; j++) {
        r->A[j] = 0.0;
        r->t[j] = 0.0;
        r->t2[j] = 0.0;
        r->tnz[j] = 0.0;
        memset(&r->acc[j], 0, sizeof r->acc[j]);
    }
}

/* Column j's kept double sum into acc (its nonzero flag with it). */
static inline void t_into_float64(double t, uint8_t nz, acc_float64 *acc)
{
    if (t != 0.0) sacc_add_f64(acc->w + SACC_HEADER, SACC_NL_float64, SACC_LSB_float64, t);
    if (nz) acc->w[1] |= SACC_NONNEGZERO;
}

/* Column j's exact block sum b on into its kept sum: in double when that is
 * exact, else the kept sum goes to the superaccumulator and b starts anew. */
static inline void t_keep_in_float64(rowacc_float64 *r, double *t, int64_t j, double b)
{
    double a = t[j], sum = a + b, bv = sum - a;
    if (((a - (sum - bv)) + (b - bv)) != 0.0 || !isfinite(sum)) {
        t_into_float64(a, 0, &r->acc[j]);
        sum = b;
    }
    t[j] = sum;
    r->tnz[j] = fabs(b) > r->tnz[j] ? fabs(b) : r->tnz[j];
}

static inline void t_keep_float64(rowacc_float64 *r, int64_t j, double b) { t_keep_in_float64(r, r->t, j, b); }

static inline void rowacc_take_float64(const rowacc_float64 *r, int64_t w, int64_t count, acc_float64 *part)
{
    (void)count;
    for (int64_t j = 0; j < w; j++) {
        part[j] = r->acc[j];
        t_into_float64(r->t[j], r->tnz[j] != 0.0, &part[j]);
        t_into_float64(r->t2[j], 0, &part[j]);
    }
}

/* The mean of column j when the accumulator holds all `count` of its rows.
 * While no block went to the superaccumulator, the kept double sum is the
 * exact sum (kept_mean): float16/bfloat16/float32 divide it and round to
 * odd (div_odd), then once to the format; float64 divides its two levels'
 * kept sums once (kept_dd_mean). */
static inline T_float64 rowacc_mean_float64(const rowacc_float64 *r, int64_t j, int64_t count)
{
    T_float64 mean;
    if (kept_dd_mean_float64(&r->acc[j], r->t[j], r->t2[j], r->tnz[j] != 0.0, count, &mean)) return mean;
    acc_float64 s = r->acc[j];
    t_into_float64(r->t[j], r->tnz[j] != 0.0, &s);
    t_into_float64(r->t2[j], 0, &s);
    return finalize_float64(s, count);
}

static inline void rows_block_begin_float64(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    r->bad = 0;
    for (int64_t j = 0; j < w; j++) {
        if (r->A[j] == 0.0) {
            double m = 0.0;
            for (int64_t i = 0; i < nrows && i < 16; i++) {
                double a = fabs(x[i * rs + j * s]);
                if (a > m && a <= DBL_MAX) m = a;
            }
            pick_sigma_float64(m, &r->A[j], &r->sigma1[j], &r->sigma2[j]);
        }
        r->s1[j] = r->s2[j] = 0.0;
    }
}

/* One value of column j, the scalar form of the vector loops. */
static inline void col_add_float64(rowacc_float64 *r, int64_t j, double v)
{
    double g1 = r->sigma1[j], g2 = r->sigma2[j];
    double q1 = (g1 + v) - g1, r1 = v - q1, q2 = (g2 + r1) - g2;
    r->bad |= f64_to_bits(r1 - q2) | (uint64_t)!(fabs(v) <= r->A[j]);
    r->s1[j] += q1;
    r->s2[j] += q2;
}

/* Does column j's block (n values at stride rs) pass its own check? */
static int column_ok_float64(const rowacc_float64 *r, int64_t j, const T_float64 *x, int64_t rs, int64_t n)
{
    double g1 = r->sigma1[j], g2 = r->sigma2[j], A = r->A[j];
    if (!isfinite(r->s1[j])) return 0;
    for (int64_t i = 0; i < n; i++) {
        double v = x[i * rs], q1 = (g1 + v) - g1, r1 = v - q1, q2 = (g2 + r1) - g2;
        if (!(fabs(v) <= A) || f64_to_bits(r1 - q2) != 0) return 0;
    }
    return 1;
}

/* Did the block pass the check shared by its columns? */
static inline int rows_block_ok_float64(const rowacc_float64 *r, int64_t nrows)
{
    (void)nrows;
    return r->bad == 0;
}

/* Rows of at most NARROW_ROW columns through the exact path row by row
 * (each row read once, in order): every value splits against its window's
 * sigma into its column's bins, as in chunk_block. */
static void rows_bins_float64(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    double bin[NARROW_ROW][128];
    int64_t ch[NCH_float64];
    uint64_t amx[NARROW_ROW];
    memset(amx, 0, sizeof amx);
    for (int64_t i0 = 0; i0 < nrows; i0 += EXTRACT_CAP) {
        int64_t i1 = nrows - i0 < EXTRACT_CAP ? nrows : i0 + EXTRACT_CAP;
        memset(bin, 0, (size_t)w * sizeof bin[0]);
        for (int64_t i = i0; i < i1; i++) {
            const T_float64 *p = x + i * rs;
            for (int64_t j = 0; j < w; j++) {
                double v = p[j * s];
                uint64_t a = f64_to_bits(v) & 0x7fffffffffffffffull;
                if (a >= 0x7e00000000000000ull) { /* window 63: into the column's accumulator as is */
                    r->acc[j].w[1] |= sacc_flags_of(v);
                    if (a < 0x7ff0000000000000ull) {
                        sacc_add_f64(r->acc[j].w + SACC_HEADER, SACC_NL_float64, SACC_LSB_float64, v);
                        amx[j] = a > amx[j] ? a : amx[j];
                    }
                    continue;
                }
                amx[j] = a > amx[j] ? a : amx[j];
                win_add_float64(bin[j], v, a);
            }
        }
        for (int64_t j = 0; j < w; j++) {
            memset(ch, 0, sizeof ch);
            for (int k = 0; k < 128; k++)
                if (bin[j][k] != 0.0) chunk_add(ch, SACC_LSB_float64, bin[j][k]);
            chunk_fold(r->acc[j].w + SACC_HEADER, SACC_NL_float64, ch, NCH_float64);
        }
    }
    for (int64_t j = 0; j < w; j++) {
        if (amx[j]) r->acc[j].w[1] |= SACC_NONNEGZERO;
        else zero_block_flags_float64(x + j * s, rs, nrows, &r->acc[j]);
        pick_sigma_float64(bits_to_f64(amx[j]), &r->A[j], &r->sigma1[j], &r->sigma2[j]);
    }
}

/* Rows straight through the exact path, row by row when they are narrow
 * (rows_bins), else column by column: returns how many of the `avail` rows
 * it took. */
static int64_t rows_block_exact_float64(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t avail, int64_t s, int64_t w)
{
    int64_t nrows = avail < 16 * EXTRACT_CAP ? avail : 16 * EXTRACT_CAP;
    r->skip--;
    if (w <= NARROW_ROW) {
        rows_bins_float64(r, x, rs, nrows, s, w);
        return nrows;
    }
    for (int64_t j = 0; j < w; j++) {
        double m = chunk_block_float64(x + j * s, rs, nrows, &r->acc[j]);
        pick_sigma_float64(m, &r->A[j], &r->sigma1[j], &r->sigma2[j]);
    }
    return nrows;
}



/* Keep each column's block sums, or sum its block again exactly. ok:
 * NULL when the block passed its shared check, else each column's own. */
static void rows_block_end_float64(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w,
                                   const uint8_t *ok)
{
    int64_t failed = 0;
    for (int64_t j = 0; j < w; j++) failed += ok && !ok[j];
    /* a rows accumulator lives a chunk of rows (a few blocks): skip after the first such block */
    if (2 * failed > w) r->skip = EXACT_SKIP;
    for (int64_t j = 0; j < w; j++) {
        const T_float64 *c = x + j * s;
        if (!ok || ok[j]) {
            /* the two level sums on into the column's kept sums, one a level (t_keep_in) */
            if (r->s1[j] != 0.0) t_keep_float64(r, j, r->s1[j]);
            if (r->s2[j] != 0.0) t_keep_in_float64(r, r->t2, j, r->s2[j]);
            if (r->s1[j] == 0.0 && r->s2[j] == 0.0) zero_block_flags_float64(c, rs, nrows, &r->acc[j]);
        } else {
            double m = chunk_block_float64(c, rs, nrows, &r->acc[j]);
            pick_sigma_float64(m, &r->A[j], &r->sigma1[j], &r->sigma2[j]);
        }
    }
}


/* Rows [0, nrows) at row stride rs, each adding w columns at stride s (s == 0 broadcasts one value). */
static void add_rows_float64_generic(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float64 *b = x + i0 * rs;
        if (r->skip > 0) {
            nb = rows_block_exact_float64(r, b, rs, nrows - i0, s, w);
            continue;
        }
        rows_block_begin_float64(r, b, rs, nb, s, w);
        for (int64_t i = 0; i < nb; i++)
            for (int64_t j = 0; j < w; j++) col_add_float64(r, j, LOAD_float64(b[i * rs + j * s]));
        if (rows_block_ok_float64(r, nb)) {
            rows_block_end_float64(r, b, rs, nb, s, w, NULL);
        } else {
            uint8_t ok[TILE];
            for (int64_t j = 0; j < w; j++) ok[j] = (uint8_t)column_ok_float64(r, j, b + j * s, rs, nb);
                rows_block_end_float64(r, b, rs, nb, s, w, ok);
        }
    }
}


/* ---- Mean of N inputs, element by element --------------------------- */

/* Output j's mean over the inputs (input i's value at src[i][j * sinner[i]]),
 * exactly, through a superaccumulator. */
static T_float64 mean_exact_float64(int ninputs, const T_float64 *const *src, const int64_t *sinner, int64_t j)
{
    acc_float64 a;
    memset(&a, 0, sizeof a);
    for (int i = 0; i < ninputs; i++) sacc_take(a.w, SACC_NL_float64, SACC_LSB_float64, LOAD_float64(src[i][j * sinner[i]]));
    return finalize_float64(a, ninputs);
}

/* Extraction of one input's values into the outputs' sums (see mean_unit):
 * its own loop for contiguous and broadcast inputs, which vectorize. */
#define EXTRACT_INTO_float64(V) do { \
        double v = (V), q1 = (g1 + v) - g1, r1 = v - q1, q2 = (g2 + r1) - g2; \
        s1[j] += q1; \
        s2[j] += q2; \
        bad[j] |= (uint8_t)(r1 - q2 != 0.0 || v != v); /* a lost bit, or NaN */ \
    } while (0)

/* w outputs: dst[j] = the mean over inputs i of src[i][j * sinner[i]].
 * Each output's values are split against the unit's sigmas (two levels of
 * extraction, as the blocks of a reduction, A from the unit's largest |x|),
 * so their two sums s1, s2 are exact when every second remainder is zero.
 * Then RN((s1 + s2) / n), ties to even, from double arithmetic alone:
 * H + L = s1 + s2 exactly (TwoSum); q0 = RN(H / n) and rem = H - q0 * n
 * exactly (the remainder of a rounded quotient, by fma), so the quotient is
 * q0 + D / n with D = rem + L = d + e exactly (TwoSum again). Against
 * h = n * ulp(q0) / 2 (half that toward zero from a power of two, where the
 * gap below is half as wide): |D| below h keeps q0, between h and 3h gives
 * its neighbour toward the quotient, equal to either is a tie (to even).
 * Left to the exact sum, output by output: a lost bit, an inf or NaN, a
 * zero sum (its sign), |D| beyond 3h, H outside (2^-900, 2^1000) (so q0 and
 * h are normal and nothing overflows). The loops are branch-free
 * element-wise arithmetic, for the compiler to vectorize. */
CLONES static void mean_unit_float64(int ninputs, const T_float64 *const *src, const int64_t *sinner, int64_t w, T_float64 *dst)
{
    double m = 0.0;
    for (int i = 0; i < ninputs; i++)
        for (int64_t j = 0; j < w; j++) {
            double a = fabs(src[i][j * sinner[i]]);
            m = a > m ? a : m; /* a NaN never wins: caught below */
        }
    double A, g1, g2;
    pick_sigma_float64(m, &A, &g1, &g2);
    if (!(m <= A) || ninputs > EXTRACT_CAP) {
        for (int64_t j = 0; j < w; j++) dst[j] = mean_exact_float64(ninputs, src, sinner, j);
        return;
    }
    double s1[TILE], s2[TILE];
    uint8_t bad[TILE];
    for (int64_t j = 0; j < w; j++) {
        s1[j] = s2[j] = 0.0;
        bad[j] = 0;
    }
    for (int i = 0; i < ninputs; i++) {
        const T_float64 *x = src[i];
        const int64_t si = sinner[i];
        if (si == 1)
            for (int64_t j = 0; j < w; j++) EXTRACT_INTO_float64(x[j]);
        else if (si == 0)
            for (int64_t j = 0; j < w; j++) EXTRACT_INTO_float64(x[0]);
        else
            for (int64_t j = 0; j < w; j++) EXTRACT_INTO_float64(x[j * si]);
    }
    const double nd = (double)ninputs;
    double q[TILE];
    for (int64_t j = 0; j < w; j++) bad[j] |= (uint8_t)!dd_mean(s1[j], s2[j], nd, &q[j]);
    /* output j's values read before dst[j] is written: out may be an input */
    for (int64_t j = 0; j < w; j++) dst[j] = bad[j] ? mean_exact_float64(ninputs, src, sinner, j) : q[j];
}
#undef EXTRACT_INTO_float64
/* ======================================================================
 * int8: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef int8_t T_int8;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^8 */
#define BIAS_int8 ((uint64_t)1 << 7)
#define BIASED_int8(x) ((uint64_t)(uint8_t)(((uint8_t)(x)) ^ (uint8_t)BIAS_int8))
typedef __int128 acc_int8;
#define LANES_int8 8
typedef struct { uint64_t lo[LANES_int8], hi[LANES_int8]; } lanes_int8;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int8;

static inline void lanes_init_int8(lanes_int8 *l) { memset(l, 0, sizeof *l); }

static inline acc_int8 unbias_int8(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_int8;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_int8(const T_int8 *x, int64_t s, int64_t n, lanes_int8 *l, int k0)
{
    uint64_t lo[LANES_int8], hi[LANES_int8];
    (void)k0;
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
static void add_rows_int8_generic(rowacc_int8 *r, const T_int8 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_int8(r, x + i * rs, s, w);
}
/* ======================================================================
 * int16: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef int16_t T_int16;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^16 */
#define BIAS_int16 ((uint64_t)1 << 15)
#define BIASED_int16(x) ((uint64_t)(uint16_t)(((uint16_t)(x)) ^ (uint16_t)BIAS_int16))
typedef __int128 acc_int16;
#define LANES_int16 8
typedef struct { uint64_t lo[LANES_int16], hi[LANES_int16]; } lanes_int16;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int16;

static inline void lanes_init_int16(lanes_int16 *l) { memset(l, 0, sizeof *l); }

static inline acc_int16 unbias_int16(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_int16;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_int16(const T_int16 *x, int64_t s, int64_t n, lanes_int16 *l, int k0)
{
    uint64_t lo[LANES_int16], hi[LANES_int16];
    (void)k0;
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
static void add_rows_int16_generic(rowacc_int16 *r, const T_int16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_int16(r, x + i * rs, s, w);
}
/* ======================================================================
 * int32: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef int32_t T_int32;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^32 */
#define BIAS_int32 ((uint64_t)1 << 31)
#define BIASED_int32(x) ((uint64_t)(uint32_t)(((uint32_t)(x)) ^ (uint32_t)BIAS_int32))
typedef __int128 acc_int32;
#define LANES_int32 8
typedef struct { uint64_t lo[LANES_int32], hi[LANES_int32]; } lanes_int32;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int32;

static inline void lanes_init_int32(lanes_int32 *l) { memset(l, 0, sizeof *l); }

static inline acc_int32 unbias_int32(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_int32;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_int32(const T_int32 *x, int64_t s, int64_t n, lanes_int32 *l, int k0)
{
    uint64_t lo[LANES_int32], hi[LANES_int32];
    (void)k0;
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
static void add_rows_int32_generic(rowacc_int32 *r, const T_int32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_int32(r, x + i * rs, s, w);
}
/* ======================================================================
 * int64: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef int64_t T_int64;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^64 */
#define BIAS_int64 ((uint64_t)1 << 63)
#define BIASED_int64(x) ((uint64_t)(uint64_t)(((uint64_t)(x)) ^ (uint64_t)BIAS_int64))
typedef __int128 acc_int64;
#define LANES_int64 8
typedef struct { uint64_t lo[LANES_int64], hi[LANES_int64]; } lanes_int64;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_int64;

static inline void lanes_init_int64(lanes_int64 *l) { memset(l, 0, sizeof *l); }

static inline acc_int64 unbias_int64(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_int64;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_int64(const T_int64 *x, int64_t s, int64_t n, lanes_int64 *l, int k0)
{
    uint64_t lo[LANES_int64], hi[LANES_int64];
    (void)k0;
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
static void add_rows_int64_generic(rowacc_int64 *r, const T_int64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_int64(r, x + i * rs, s, w);
}
/* ======================================================================
 * uint8: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef uint8_t T_uint8;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^8 */
#define BIAS_uint8 0
#define BIASED_uint8(x) ((uint64_t)(uint8_t)(((uint8_t)(x)) ^ (uint8_t)BIAS_uint8))
typedef __int128 acc_uint8;
#define LANES_uint8 8
typedef struct { uint64_t lo[LANES_uint8], hi[LANES_uint8]; } lanes_uint8;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint8;

static inline void lanes_init_uint8(lanes_uint8 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint8 unbias_uint8(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_uint8;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_uint8(const T_uint8 *x, int64_t s, int64_t n, lanes_uint8 *l, int k0)
{
    uint64_t lo[LANES_uint8], hi[LANES_uint8];
    (void)k0;
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
static void add_rows_uint8_generic(rowacc_uint8 *r, const T_uint8 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_uint8(r, x + i * rs, s, w);
}
/* ======================================================================
 * uint16: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef uint16_t T_uint16;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^16 */
#define BIAS_uint16 0
#define BIASED_uint16(x) ((uint64_t)(uint16_t)(((uint16_t)(x)) ^ (uint16_t)BIAS_uint16))
typedef __int128 acc_uint16;
#define LANES_uint16 8
typedef struct { uint64_t lo[LANES_uint16], hi[LANES_uint16]; } lanes_uint16;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint16;

static inline void lanes_init_uint16(lanes_uint16 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint16 unbias_uint16(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_uint16;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_uint16(const T_uint16 *x, int64_t s, int64_t n, lanes_uint16 *l, int k0)
{
    uint64_t lo[LANES_uint16], hi[LANES_uint16];
    (void)k0;
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
static void add_rows_uint16_generic(rowacc_uint16 *r, const T_uint16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_uint16(r, x + i * rs, s, w);
}
/* ======================================================================
 * uint32: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef uint32_t T_uint32;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^32 */
#define BIAS_uint32 0
#define BIASED_uint32(x) ((uint64_t)(uint32_t)(((uint32_t)(x)) ^ (uint32_t)BIAS_uint32))
typedef __int128 acc_uint32;
#define LANES_uint32 8
typedef struct { uint64_t lo[LANES_uint32], hi[LANES_uint32]; } lanes_uint32;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint32;

static inline void lanes_init_uint32(lanes_uint32 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint32 unbias_uint32(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_uint32;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_uint32(const T_uint32 *x, int64_t s, int64_t n, lanes_uint32 *l, int k0)
{
    uint64_t lo[LANES_uint32], hi[LANES_uint32];
    (void)k0;
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
static void add_rows_uint32_generic(rowacc_uint32 *r, const T_uint32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_uint32(r, x + i * rs, s, w);
}
/* ======================================================================
 * uint64: exact sum (biased 32-bit halves, 128-bit totals), the mean truncated toward zero
 * ==================================================================== */
typedef uint64_t T_uint64;
/* biased value: x + 2^(bits-1) for signed types, so every value is an unsigned < 2^64 */
#define BIAS_uint64 0
#define BIASED_uint64(x) ((uint64_t)(uint64_t)(((uint64_t)(x)) ^ (uint64_t)BIAS_uint64))
typedef __int128 acc_uint64;
#define LANES_uint64 8
typedef struct { uint64_t lo[LANES_uint64], hi[LANES_uint64]; } lanes_uint64;
typedef struct { uint64_t lo[TILE], hi[TILE]; } rowacc_uint64;

static inline void lanes_init_uint64(lanes_uint64 *l) { memset(l, 0, sizeof *l); }

static inline acc_uint64 unbias_uint64(unsigned __int128 u, int64_t count)
{
    return (__int128)u - (__int128)count * (__int128)BIAS_uint64;
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

/* Integer sums are exact: lanes only help vectorize, k0 is irrelevant. */
CLONES static void run_uint64(const T_uint64 *x, int64_t s, int64_t n, lanes_uint64 *l, int k0)
{
    uint64_t lo[LANES_uint64], hi[LANES_uint64];
    (void)k0;
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
static void add_rows_uint64_generic(rowacc_uint64 *r, const T_uint64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    for (int64_t i = 0; i < nrows; i++) add_row_uint64(r, x + i * rs, s, w);
}

/* ======================================================================
 * The comparison of another result with the correctly rounded one
 * (meancli.engine.compare), one per dtype.
 * ==================================================================== */
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_float16. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_float16;

static void compare_range_float16(const T_float16 *a, const T_float16 *b, int64_t lo, int64_t hi,
                                 compare_part_float16 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint16_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)f16_to_f32(a[i]));
            double xb = ((double)f16_to_f32(b[i]));
            if (__builtin_expect((xa != xa) | (xb != xb), 0)) {
                if ((xa != xa) & (xb != xb)) { bucket[0]++; continue; }  /* NaN for NaN: a match */
                nan_mismatch++;
                if (first_nan < 0) first_nan = i;
                continue;
            }
            /* sign-magnitude to an integer in the values' order (+0 and -0 both 0), branch-free */
            const uint16_t magnitude = (uint16_t)~((uint16_t)1 << 15);
            int64_t sa = -(int64_t)(ua >> 15), sb = -(int64_t)(ub >> 15);
            int64_t oa = ((int64_t)(ua & magnitude) ^ sa) - sa;
            int64_t ob = ((int64_t)(ub & magnitude) ^ sb) - sb;
            uint64_t up = (uint64_t)oa - (uint64_t)ob;  /* mod 2^64: right for |oa - ob| < 2^64 */
            uint64_t d = oa < ob ? (uint64_t)0 - up : up;
            double err = fabs(xb - xa);  /* equal infinities never get here as a difference */
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_float16(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_float16 *a = (const T_float16 *)pa, *b = (const T_float16 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_float16 *parts = (compare_part_float16 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_float16(a, b, lo, hi, &parts[t]);
    }
    compare_part_float16 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_float16 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_bfloat16. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_bfloat16;

static void compare_range_bfloat16(const T_bfloat16 *a, const T_bfloat16 *b, int64_t lo, int64_t hi,
                                 compare_part_bfloat16 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint16_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = bf16_to_f64(a[i]);
            double xb = bf16_to_f64(b[i]);
            if (__builtin_expect((xa != xa) | (xb != xb), 0)) {
                if ((xa != xa) & (xb != xb)) { bucket[0]++; continue; }  /* NaN for NaN: a match */
                nan_mismatch++;
                if (first_nan < 0) first_nan = i;
                continue;
            }
            /* sign-magnitude to an integer in the values' order (+0 and -0 both 0), branch-free */
            const uint16_t magnitude = (uint16_t)~((uint16_t)1 << 15);
            int64_t sa = -(int64_t)(ua >> 15), sb = -(int64_t)(ub >> 15);
            int64_t oa = ((int64_t)(ua & magnitude) ^ sa) - sa;
            int64_t ob = ((int64_t)(ub & magnitude) ^ sb) - sb;
            uint64_t up = (uint64_t)oa - (uint64_t)ob;  /* mod 2^64: right for |oa - ob| < 2^64 */
            uint64_t d = oa < ob ? (uint64_t)0 - up : up;
            double err = fabs(xb - xa);  /* equal infinities never get here as a difference */
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_bfloat16(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_bfloat16 *a = (const T_bfloat16 *)pa, *b = (const T_bfloat16 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_bfloat16 *parts = (compare_part_bfloat16 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_bfloat16(a, b, lo, hi, &parts[t]);
    }
    compare_part_bfloat16 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_bfloat16 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_float32. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_float32;

static void compare_range_float32(const T_float32 *a, const T_float32 *b, int64_t lo, int64_t hi,
                                 compare_part_float32 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint32_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            double xb = ((double)(b[i]));
            if (__builtin_expect((xa != xa) | (xb != xb), 0)) {
                if ((xa != xa) & (xb != xb)) { bucket[0]++; continue; }  /* NaN for NaN: a match */
                nan_mismatch++;
                if (first_nan < 0) first_nan = i;
                continue;
            }
            /* sign-magnitude to an integer in the values' order (+0 and -0 both 0), branch-free */
            const uint32_t magnitude = (uint32_t)~((uint32_t)1 << 31);
            int64_t sa = -(int64_t)(ua >> 31), sb = -(int64_t)(ub >> 31);
            int64_t oa = ((int64_t)(ua & magnitude) ^ sa) - sa;
            int64_t ob = ((int64_t)(ub & magnitude) ^ sb) - sb;
            uint64_t up = (uint64_t)oa - (uint64_t)ob;  /* mod 2^64: right for |oa - ob| < 2^64 */
            uint64_t d = oa < ob ? (uint64_t)0 - up : up;
            double err = fabs(xb - xa);  /* equal infinities never get here as a difference */
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_float32(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_float32 *a = (const T_float32 *)pa, *b = (const T_float32 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_float32 *parts = (compare_part_float32 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_float32(a, b, lo, hi, &parts[t]);
    }
    compare_part_float32 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_float32 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_float64. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_float64;

static void compare_range_float64(const T_float64 *a, const T_float64 *b, int64_t lo, int64_t hi,
                                 compare_part_float64 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint64_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = (a[i]);
            double xb = (b[i]);
            if (__builtin_expect((xa != xa) | (xb != xb), 0)) {
                if ((xa != xa) & (xb != xb)) { bucket[0]++; continue; }  /* NaN for NaN: a match */
                nan_mismatch++;
                if (first_nan < 0) first_nan = i;
                continue;
            }
            /* sign-magnitude to an integer in the values' order (+0 and -0 both 0), branch-free */
            const uint64_t magnitude = (uint64_t)~((uint64_t)1 << 63);
            int64_t sa = -(int64_t)(ua >> 63), sb = -(int64_t)(ub >> 63);
            int64_t oa = ((int64_t)(ua & magnitude) ^ sa) - sa;
            int64_t ob = ((int64_t)(ub & magnitude) ^ sb) - sb;
            uint64_t up = (uint64_t)oa - (uint64_t)ob;  /* mod 2^64: right for |oa - ob| < 2^64 */
            uint64_t d = oa < ob ? (uint64_t)0 - up : up;
            double err = fabs(xb - xa);  /* equal infinities never get here as a difference */
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_float64(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_float64 *a = (const T_float64 *)pa, *b = (const T_float64 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_float64 *parts = (compare_part_float64 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_float64(a, b, lo, hi, &parts[t]);
    }
    compare_part_float64 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_float64 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_int8. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_int8;

static void compare_range_int8(const T_int8 *a, const T_int8 *b, int64_t lo, int64_t hi,
                                 compare_part_int8 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint8_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_int8(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_int8 *a = (const T_int8 *)pa, *b = (const T_int8 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_int8 *parts = (compare_part_int8 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_int8(a, b, lo, hi, &parts[t]);
    }
    compare_part_int8 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_int8 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_int16. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_int16;

static void compare_range_int16(const T_int16 *a, const T_int16 *b, int64_t lo, int64_t hi,
                                 compare_part_int16 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint16_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_int16(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_int16 *a = (const T_int16 *)pa, *b = (const T_int16 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_int16 *parts = (compare_part_int16 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_int16(a, b, lo, hi, &parts[t]);
    }
    compare_part_int16 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_int16 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_int32. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_int32;

static void compare_range_int32(const T_int32 *a, const T_int32 *b, int64_t lo, int64_t hi,
                                 compare_part_int32 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint32_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_int32(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_int32 *a = (const T_int32 *)pa, *b = (const T_int32 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_int32 *parts = (compare_part_int32 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_int32(a, b, lo, hi, &parts[t]);
    }
    compare_part_int32 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_int32 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_int64. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_int64;

static void compare_range_int64(const T_int64 *a, const T_int64 *b, int64_t lo, int64_t hi,
                                 compare_part_int64 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint64_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_int64(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_int64 *a = (const T_int64 *)pa, *b = (const T_int64 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_int64 *parts = (compare_part_int64 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_int64(a, b, lo, hi, &parts[t]);
    }
    compare_part_int64 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_int64 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_uint8. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_uint8;

static void compare_range_uint8(const T_uint8 *a, const T_uint8 *b, int64_t lo, int64_t hi,
                                 compare_part_uint8 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint8_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_uint8(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_uint8 *a = (const T_uint8 *)pa, *b = (const T_uint8 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_uint8 *parts = (compare_part_uint8 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_uint8(a, b, lo, hi, &parts[t]);
    }
    compare_part_uint8 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_uint8 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_uint16. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_uint16;

static void compare_range_uint16(const T_uint16 *a, const T_uint16 *b, int64_t lo, int64_t hi,
                                 compare_part_uint16 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint16_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_uint16(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_uint16 *a = (const T_uint16 *)pa, *b = (const T_uint16 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_uint16 *parts = (compare_part_uint16 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_uint16(a, b, lo, hi, &parts[t]);
    }
    compare_part_uint16 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_uint16 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_uint32. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_uint32;

static void compare_range_uint32(const T_uint32 *a, const T_uint32 *b, int64_t lo, int64_t hi,
                                 compare_part_uint32 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint32_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_uint32(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_uint32 *a = (const T_uint32 *)pa, *b = (const T_uint32 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_uint32 *parts = (compare_part_uint32 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_uint32(a, b, lo, hi, &parts[t]);
    }
    compare_part_uint32 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_uint32 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}
/* Elements per memcmp before the element loop: equal chunks are skipped whole. */
#ifndef COMPARE_CHUNK
#define COMPARE_CHUNK 256
#endif
/* The statistics of a part of the elements: see meancli_compare_uint64. */
typedef struct {
    int64_t count[7];  /* examined (in chunks that differ), distance 0, 1, 2-4, 5-16, >16, NaN mismatches */
    int64_t first_nan, at_max;
    uint64_t max;
    unsigned __int128 sum;
    double max_abs, max_rel;
} compare_part_uint64;

static void compare_range_uint64(const T_uint64 *a, const T_uint64 *b, int64_t lo, int64_t hi,
                                 compare_part_uint64 *p)
{
    /* locals, not p's fields: the loads of a and b through memcpy may alias anything */
    int64_t examined = 0, nan_mismatch = 0, first_nan = -1, first_differ = -1, at_max = -1;
    int64_t bucket[5] = {0, 0, 0, 0, 0};
    uint64_t max = 0;
    unsigned __int128 sum = 0;
    double max_abs = 0.0, max_rel = 0.0;
    for (int64_t c0 = lo; c0 < hi; c0 += COMPARE_CHUNK) {
        int64_t c1 = c0 + COMPARE_CHUNK < hi ? c0 + COMPARE_CHUNK : hi;
        /* the common case of a good result: whole chunks of equal bits, at memcmp's speed */
        if (memcmp(a + c0, b + c0, (size_t)(c1 - c0) * sizeof *a) == 0) continue;
        examined += c1 - c0;
        for (int64_t i = c0; i < c1; i++) {
            uint64_t ua, ub;
            memcpy(&ua, a + i, sizeof ua);
            memcpy(&ub, b + i, sizeof ub);
            if (first_differ < 0 && ua != ub) first_differ = i;
            double xa = ((double)(a[i]));
            uint64_t up = (uint64_t)a[i] - (uint64_t)b[i];
            uint64_t d = a[i] < b[i] ? (uint64_t)0 - up : up;
            double err = (double)d;
            bucket[(d > 0) + (d > 1) + (d > 4) + (d > 16)]++;
            sum += d;
            if (__builtin_expect(d > max, 0)) { max = d; at_max = i; }
            double rel = err / fabs(xa);  /* 0 expected: inf; 0 / 0 (equal zeros): NaN */
            max_abs = err > max_abs ? err : max_abs;  /* a NaN is left out (maxsd, not a call of fmax) */
            max_rel = rel > max_rel ? rel : max_rel;
        }
    }
    memset(p->count, 0, sizeof p->count);
    p->count[0] = examined;
    for (int k = 0; k < 5; k++) p->count[1 + k] = bucket[k];
    p->count[6] = nan_mismatch;
    p->first_nan = first_nan;
    p->at_max = at_max >= 0 ? at_max : first_differ;  /* all 0 apart (-0 for +0): the first that differs */
    p->max = max;
    p->sum = sum;
    p->max_abs = max_abs;
    p->max_rel = isinf(max_abs) ? INFINITY : max_rel;
}

/* Compare b with the correctly rounded a, elements [0, n) (contiguous, native order),
 * on up to nthreads threads. Out: count[7] (elements examined: those of the chunks of
 * COMPARE_CHUNK that hold a difference; of those: at
 * distance 0 (NaN for NaN, -0 for +0), 1, 2-4, 5-16, > 16; NaN mismatches: exactly one
 * is NaN), index[2] (the first NaN mismatch, the first element of the largest distance
 * among the others; -1 for none), dist[3] (the largest distance; the sum of the
 * distances, low and high 64 bits), err[2] (the largest absolute and relative error,
 * NaN mismatches left out). Returns 0, or MEANCLI_E_NOMEM. */
int meancli_compare_uint64(const void *pa, const void *pb, int64_t n, int nthreads, int64_t *count,
                               int64_t *index, uint64_t *dist, double *err)
{
    const T_uint64 *a = (const T_uint64 *)pa, *b = (const T_uint64 *)pb;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (n < ((int64_t)1 << 20)) nt = 1;
    compare_part_uint64 *parts = (compare_part_uint64 *)calloc((size_t)nt, sizeof *parts);
    if (parts == NULL) return MEANCLI_E_NOMEM;
#pragma omp parallel for num_threads(nt) schedule(static, 1) if (nt > 1)
    for (int t = 0; t < nt; t++) {
        int64_t lo = n / nt * t + (t < n % nt ? t : n % nt);
        int64_t hi = lo + n / nt + (t < n % nt ? 1 : 0);
        compare_range_uint64(a, b, lo, hi, &parts[t]);
    }
    compare_part_uint64 all = parts[0];
    for (int t = 1; t < nt; t++) {  /* in order: the first indices stay the first */
        const compare_part_uint64 *p = &parts[t];
        for (int k = 0; k < 7; k++) all.count[k] += p->count[k];
        if (all.first_nan < 0) all.first_nan = p->first_nan;
        if (p->at_max >= 0 && (all.at_max < 0 || p->max > all.max)) {
            all.max = p->max;
            all.at_max = p->at_max;
        }
        all.sum += p->sum;
        if (p->max_abs > all.max_abs) all.max_abs = p->max_abs;
        if (p->max_rel > all.max_rel) all.max_rel = p->max_rel;
    }
    free(parts);
    for (int k = 0; k < 7; k++) count[k] = all.count[k];
    index[0] = all.first_nan;
    index[1] = all.at_max;
    dist[0] = all.max;
    dist[1] = (uint64_t)all.sum;
    dist[2] = (uint64_t)(all.sum >> 64);
    err[0] = all.max_abs;
    err[1] = all.max_rel;
    return 0;
}

/* ======================================================================
 * The vector kernels, once per instruction set: each ISA layer defines the
 * primitives, kernel_vec.c.j2 is written on them, and the layer's names are
 * undefined after it. The dispatchers below call the highest level the
 * module picked whose vectors fit the row.
 * ==================================================================== */
#ifdef MEANCLI_X86
/* ---- ISA layer: AVX2 with FMA and F16C (256-bit vectors) ----
 * The primitives the vector kernels (kernel_vec.c.j2) are written on; each
 * ISA layer defines the same names, and simd_undef.h.j2 removes them.
 *   vd: VD_N doubles          vq: the same bits as 64-bit integers
 *   vf: VF_N = 2 * VD_N floats vi: the same bits as 32-bit unsigned integers
 *   vw: 2 * VF_N 16-bit lanes  vh: VD_N floats (a vd rounded, to store) */
#define VEC_TARGET __attribute__((target("avx2,fma,f16c")))
/* Before the vector kernels call scalar code compiled for plain x86-64 (the
 * exact path, libm, the portable loops) and before they return: legacy-SSE
 * instructions run far slower while the upper halves of the vector
 * registers hold data (measured: the exact path at under half speed), and
 * GCC leaves vzeroupper out before such calls. */
#define vec_zeroupper _mm256_zeroupper
#define VD_N 4
#define VF_N 8
#define vd __m256d
#define vq __m256i
#define vf __m256
#define vi __m256i
#define vw __m256i
#define vh __m128
#define vd_set1 _mm256_set1_pd
#define vd_load _mm256_loadu_pd
#define vd_store _mm256_storeu_pd
#define vd_add _mm256_add_pd
#define vd_sub _mm256_sub_pd
#define vd_mul _mm256_mul_pd
#define vd_div _mm256_div_pd
#define vd_max _mm256_max_pd
#define vd_or _mm256_or_pd
#define vd_and _mm256_and_pd
#define vd_xor _mm256_xor_pd
#define vd_fmadd _mm256_fmadd_pd
#define vd_fmsub _mm256_fmsub_pd
#define vd_fnmadd _mm256_fnmadd_pd
#define vd_abs(a) _mm256_andnot_pd(_mm256_set1_pd(-0.0), (a))
/* all-ones lanes where !(|a| <= b): above the bound, or NaN */
#define vd_above(a, b) _mm256_cmp_pd(vd_abs(a), (b), _CMP_NLE_UQ)
#define vd_anybits(a) (!_mm256_testz_si256(_mm256_castpd_si256(a), _mm256_castpd_si256(a)))
/* all-ones 64-bit lanes where a != 0, a > 0, a < 0 (false for NaN) */
#define vd_ne0(a) _mm256_castpd_si256(_mm256_cmp_pd((a), _mm256_setzero_pd(), _CMP_NEQ_OQ))
#define vd_gt0(a) _mm256_castpd_si256(_mm256_cmp_pd((a), _mm256_setzero_pd(), _CMP_GT_OQ))
#define vd_lt0(a) _mm256_castpd_si256(_mm256_cmp_pd((a), _mm256_setzero_pd(), _CMP_LT_OQ))
/* all-ones 64-bit lanes where a > b, a < b (false for NaN); where a == b (integers) */
#define vd_gt(a, b) _mm256_castpd_si256(_mm256_cmp_pd((a), (b), _CMP_GT_OQ))
#define vd_lt(a, b) _mm256_castpd_si256(_mm256_cmp_pd((a), (b), _CMP_LT_OQ))
#define vq_eq _mm256_cmpeq_epi64
#define vq_slli _mm256_slli_epi64
#define vd_bits _mm256_castpd_si256
#define vd_from_bits _mm256_castsi256_pd
#define vq_set1(x) _mm256_set1_epi64x((long long)(x))
#define vq_load(p) _mm256_loadu_si256((const __m256i *)(p))
#define vq_store(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define vq_add _mm256_add_epi64
#define vq_sub _mm256_sub_epi64
#define vq_and _mm256_and_si256
#define vq_or _mm256_or_si256
#define vq_xor _mm256_xor_si256
#define vq_andnot _mm256_andnot_si256 /* ~a & b */
#define vq_srli _mm256_srli_epi64
/* VF_N values of a format at p as floats (exact) */
#define vf_load_f32(p) _mm256_loadu_ps(p)
#define vf_load_f16(p) _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p)))
#define vf_load_bf16(p) \
    _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p))), 16))
/* the low and high VD_N floats of a vf as doubles (exact); VD_N values at p
 * as doubles, for the formats where that beats widening a loaded vf (a layer
 * without vd_load_<format> widens through vf_lo and vf_hi) */
#define vf_lo(f) _mm256_cvtps_pd(_mm256_castps256_ps128(f))
#define vf_hi(f) _mm256_cvtps_pd(_mm256_extractf128_ps((f), 1))
#define vd_load_f32(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#define vi_zero _mm256_setzero_si256
#define vi_ones() _mm256_set1_epi32(-1)
#define vi_set1 _mm256_set1_epi32
#define vi_absbits(f) _mm256_and_si256(_mm256_castps_si256(f), _mm256_set1_epi32(0x7fffffff))
#define vi_max_u32 _mm256_max_epu32
#define vi_min_u32 _mm256_min_epu32
#define vi_dec(a) _mm256_sub_epi32((a), _mm256_set1_epi32(1))
#define vi_store(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define vi_gt_s32 _mm256_cmpgt_epi32 /* lanes of ones where a > b (signed) */
#define vi_and _mm256_and_si256
#define vi_andnot _mm256_andnot_si256 /* ~a & b */
#define vf_bits _mm256_castps_si256
#define vf_from_bits _mm256_castsi256_ps
#define vf_add _mm256_add_ps
#define vw_load(p) _mm256_loadu_si256((const __m256i *)(p))
#define vw_zero _mm256_setzero_si256
#define vw_ones() _mm256_set1_epi16(-1)
#define vw_absbits(a) _mm256_and_si256((a), _mm256_set1_epi16(0x7fff))
#define vw_max_u16 _mm256_max_epu16
#define vw_min_u16 _mm256_min_epu16
#define vw_dec(a) _mm256_sub_epi16((a), _mm256_set1_epi16(1))
/* 16-bit lanes as the top halves of float32 lanes (zeros below): VF_N of
 * them each, in an order of their own (exact sums do not mind) */
#define vw_lo_f32(w) _mm256_castsi256_ps(_mm256_unpacklo_epi16(_mm256_setzero_si256(), (w)))
#define vw_hi_f32(w) _mm256_castsi256_ps(_mm256_unpackhi_epi16(_mm256_setzero_si256(), (w)))
#define vh_from_vd _mm256_cvtpd_ps
/* two vh as one vf (lo first), to store or stream a full vector */
#define vf_join(lo, hi) _mm256_set_m128((hi), (lo))
#define vf_store(p, f) _mm256_storeu_ps((p), (f))
#define vf_stream(p, f) _mm256_stream_ps((p), (f))
#define vf_stream_quarters vf_stream_quarters_avx2

/* the 16-byte quarters [lo, hi) of f, as f would be streamed to p (p + 4 lo 16-byte aligned) */
VEC_TARGET static inline void vf_stream_quarters_avx2(float *p, __m256 f, int lo, int hi)
{
    if (lo <= 0 && 0 < hi) _mm_stream_ps(p, _mm256_castps256_ps128(f));
    if (lo <= 1 && 1 < hi) _mm_stream_ps(p + 4, _mm256_extractf128_ps(f, 1));
}

VEC_TARGET static inline uint32_t vi_hmax_u32_avx2(__m256i v)
{
    __m128i m = _mm_max_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_max_epu32(m, _mm_shuffle_epi32(m, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(m);
}

VEC_TARGET static inline uint32_t vi_hmin_u32_avx2(__m256i v)
{
    __m128i m = _mm_min_epu32(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0x4e));
    m = _mm_min_epu32(m, _mm_shuffle_epi32(m, 0xb1));
    return (uint32_t)_mm_cvtsi128_si32(m);
}

/* the largest and smallest of the 16-bit lanes (phminposuw finds the smallest of 8) */
VEC_TARGET static inline uint32_t vw_hmax_u16_avx2(__m256i v)
{
    __m128i m = _mm_max_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return 0xffffu - ((uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, _mm_set1_epi32(-1)))) & 0xffffu);
}

VEC_TARGET static inline uint32_t vw_hmin_u16_avx2(__m256i v)
{
    __m128i m = _mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(m)) & 0xffffu;
}
#define vi_hmax_u32 vi_hmax_u32_avx2
#define vi_hmin_u32 vi_hmin_u32_avx2
#define vw_hmax_u16 vw_hmax_u16_avx2
#define vw_hmin_u16 vw_hmin_u16_avx2
/* skipna (kernel_vec.c.j2, block): lanes masked, counted */
#define vi_or _mm256_or_si256
#define vi_sub _mm256_sub_epi32

/* float16, avx2: VD_N values at p (a vf f already loaded from p) as a vd */
#ifdef vd_load_f16
#define VF_LO_float16(f, p) vd_load_f16(p)
#define VF_HI_float16(f, p) vd_load_f16((p) + VD_N)
#endif
#ifndef VF_LO_float16
#define VF_LO_float16(f, p) vf_lo(f)
#define VF_HI_float16(f, p) vf_hi(f)
#endif
/* 2 * VF_N values at p: their |x| bit patterns folded into the running max
 * and min - 1 (unsigned), and the values as 4 vd of doubles. */
#define LOAD2_float16(p, d, mx, mn1) do { \
        vf f0_ = vf_load_f16(p), f1_ = vf_load_f16((p) + VF_N); \
        vi a0_ = vi_absbits(f0_), a1_ = vi_absbits(f1_); \
        (mx) = vi_max_u32((mx), vi_max_u32(a0_, a1_)); \
        (mn1) = vi_min_u32((mn1), vi_min_u32(vi_dec(a0_), vi_dec(a1_))); \
        (d)[0] = VF_LO_float16(f0_, (p)); (d)[1] = VF_HI_float16(f0_, (p)); \
        (d)[2] = VF_LO_float16(f1_, (p) + VF_N); (d)[3] = VF_HI_float16(f1_, (p) + VF_N); \
    } while (0)

/* split_block of kernel_exact.c.j2 (a block in L1 that failed its check),
 * VF_N values at a time: the lanes of at least 2^T and those below, apart. */
VEC_TARGET __attribute__((noinline)) static int split_block_float16_avx2(const T_float16 *x, int64_t n, uint32_t mx, lanes_float16 *l)
{
    uint32_t thr = split_threshold_float16(mx, n);
    if (!thr) return 0;
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vd b0 = vd_set1(0.0), b1 = b0, s0 = b0, s1 = b0;
    vi smxv = vi_zero(), smnv = vi_ones();
    int64_t i = 0;
    for (; i + VF_N <= n; i += VF_N) {
        vf f = vf_load_f16(x + i);
        vi a = vi_absbits(f), big = vi_gt_s32(a, below), as = vi_andnot(big, a);
        smxv = vi_max_u32(smxv, as);
        smnv = vi_min_u32(smnv, vi_dec(as));
        vf fb = vf_from_bits(vi_and(big, vf_bits(f))), fs = vf_from_bits(vi_andnot(big, vf_bits(f)));
        b0 = vd_add(b0, vf_lo(fb));
        b1 = vd_add(b1, vf_hi(fb));
        s0 = vd_add(s0, vf_lo(fs));
        s1 = vd_add(s1, vf_hi(fs));
    }
    double pb[VD_N], ps[VD_N], sums[2] = {0.0, 0.0};
    vd_store(pb, vd_add(b0, b1));
    vd_store(ps, vd_add(s0, s1));
    uint32_t smx = vi_hmax_u32(smxv), smn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int k = 0; k < VD_N; k++) {
        sums[0] += pb[k];
        sums[1] += ps[k];
    }
    for (; i < n; i++) split_add_float16(LOAD_float16(x[i]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_float16, LSB_MIN_float16)) return 0;
    lanes_keep_float16(l, x, 1, n, sums, 2, mx != 0);
    return 1;
}

VEC_TARGET static void block_float16_avx2(const T_float16 *x, int64_t n, lanes_float16 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_float16_avx2(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    T_float16 raw[RUN_BLOCK_float16 + 4096 / sizeof(T_float16)], *buf = copy_at_float16(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_float16(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    if (f & SACC_NAN) l->masknan = 1;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float16_avx2(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_float16_avx2(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    /* skipna: float32 masks NaN lanes as it reads them (below); the others,
     * and blocks sent to the exact path, through a copy without them */
    const int masked = 1 && !ALWAYS_EXACT_float16 && l->skip <= 0;
    if (l->skipna && !masked && block_nonfinite_float16_avx2(x, n, l)) return;
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        (void)chunk_block_float16(x, 1, n, &l->acc);
        return;
    }
    vd s[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    int64_t i = 0;
    if (ALWAYS_EXACT_float16) {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float16));
            vf f0 = vf_load_f16(x + i), f1 = vf_load_f16(x + i + VF_N);
            (void)f0, (void)f1; /* unread where the values widen from memory */
            s[0] = vd_add(s[0], VF_LO_float16(f0, x + i));
            s[1] = vd_add(s[1], VF_HI_float16(f0, x + i));
            s[2] = vd_add(s[2], VF_LO_float16(f1, x + i + VF_N));
            s[3] = vd_add(s[3], VF_HI_float16(f1, x + i + VF_N));
        }
        double part[VD_N], total = 0.0;
        vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
        for (; i < n; i++) part[0] += LOAD_float16(x[i]);
        for (int k = 0; k < VD_N; k++) total += part[k];
        vec_zeroupper();
        if (isfinite(total)) lanes_keep_float16(l, x, 1, n, &total, 1, total != 0.0);
        else if (!block_nonfinite_float16_avx2(x, n, l)) (void)chunk_block_float16(x, 1, n, &l->acc);
        return;
    }
    vi mxv = vi_zero(), mnv = vi_ones();
    int64_t nan = 0; /* skipna (and after a block with NaN): NaN read as -0.0 (their |x| bits as 0) */
    if (l->skipna || l->masknan) {
        const vi inf = vi_set1(0x7f800000), sign = vi_set1((int32_t)0x80000000u);
        vi cnt = vi_zero();
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float16));
            vf f0 = vf_load_f16(x + i), f1 = vf_load_f16(x + i + VF_N);
            vi a0 = vi_absbits(f0), a1 = vi_absbits(f1), m0 = vi_gt_s32(a0, inf), m1 = vi_gt_s32(a1, inf);
            cnt = vi_sub(vi_sub(cnt, m0), m1); /* a NaN lane is -1 */
            a0 = vi_andnot(m0, a0);
            a1 = vi_andnot(m1, a1);
            f0 = vf_from_bits(vi_or(vi_andnot(m0, vf_bits(f0)), vi_and(m0, sign)));
            f1 = vf_from_bits(vi_or(vi_andnot(m1, vf_bits(f1)), vi_and(m1, sign)));
            mxv = vi_max_u32(mxv, vi_max_u32(a0, a1));
            mnv = vi_min_u32(mnv, vi_min_u32(vi_dec(a0), vi_dec(a1)));
            s[0] = vd_add(s[0], vf_lo(f0));
            s[1] = vd_add(s[1], vf_hi(f0));
            s[2] = vd_add(s[2], vf_lo(f1));
            s[3] = vd_add(s[3], vf_hi(f1));
        }
        int32_t c[VF_N];
        vi_store(c, cnt);
        for (int k = 0; k < VF_N; k++) nan += c[k];
    } else {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            vd d[4];
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float16));
            LOAD2_float16(x + i, d, mxv, mnv);
            for (int k = 0; k < 4; k++) s[k] = vd_add(s[k], d[k]);
        }
    }
    /* the four sums in a tree: when the block passes its check, every
     * partial sum is exact, so no order of the additions changes a bit */
    double part[VD_N], total = 0.0;
    vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    for (; i < n; i++) {
        double v = LOAD_float16(x[i]);
        if ((l->skipna || l->masknan) && v != v) { /* as -0.0: nothing to add, no bound */
            nan++;
            continue;
        }
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        part[0] += v;
    }
    vec_zeroupper();
    /* an inf or NaN among them; or NaN skipped where a fallback below would
     * read them (the exact paths, the sign of a zero sum) */
    const int ok = narrow_sum_exact(mx, mn1, n, PREC_float16, LSB_MIN_float16);
    if ((mx >= 0x7f800000u || (nan && (!ok || mx == 0))) && block_nonfinite_float16_avx2(x, n, l)) return;
    if (l->skipna) l->acc.w[0] += (uint64_t)nan;
    else if (nan) l->acc.w[1] |= SACC_NAN | SACC_NONNEGZERO;
    if (ok) {
        for (int k = 0; k < VD_N; k++) total += part[k]; /* exact, as every partial sum */
        lanes_keep_float16(l, x, 1, n, &total, 1, mx != 0);
        l->fails = 0;
    } else if (split_block_float16_avx2(x, n, mx, l)) {
        l->fails = 0;
    } else {
        (void)chunk_block_float16(x, 1, n, &l->acc);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* div_odd on VD_N lanes: q = RN(S / n), e = S - q * n exactly; an inexact
 * lane steps toward zero when |q| is above |S / n|, then sets its last bit. */
VEC_TARGET static inline vd div_odd_float16_avx2(vd S, vd nv)
{
    vd q = vd_div(S, nv), e = vd_fnmadd(q, nv, S);
    vq inexact = vd_ne0(e);
    vq toward = vq_srli(vd_bits(vd_xor(e, q)), 63); /* signs differ */
    vq b = vd_bits(q);
    b = vq_sub(b, vq_and(inexact, toward));
    b = vq_or(b, vq_and(inexact, vq_set1(1)));
    return vd_from_bits(b);
}

/* The sums of the VF_N outputs at j as two vd: bsum (+ rsum[j] where hr)
 * + the nc contiguous inputs at j; their values' |x| bit patterns folded
 * into *mxv (max) and *mnv (min of |x| - 1). Inlined with constant nc, hr. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_vsum_float16_avx2(
    const T_float16 *const *cont, const int nc, const int hr, const double *rsum, vd b, int64_t j, vd *s0, vd *s1,
    vi *mxv, vi *mnv)
{
    vd a0 = b, a1 = b;
    if (hr) {
        a0 = vd_add(a0, vd_load(rsum + j));
        a1 = vd_add(a1, vd_load(rsum + j + VD_N));
    }
    for (int i = 0; i < nc; i++) { /* no software prefetch: see PREFETCH_BYTES */
        vf f = vf_load_f16(cont[i] + j);
        vi a = vi_absbits(f);
        *mxv = vi_max_u32(*mxv, a);
        *mnv = vi_min_u32(*mnv, vi_dec(a));
        a0 = vd_add(a0, VF_LO_float16(f, cont[i] + j));
        a1 = vd_add(a1, VF_HI_float16(f, cont[i] + j));
    }
    *s0 = a0;
    *s1 = a1;
}

/* S[j] for j < wv (a multiple of VF_N) by mean_vsum. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_sums_float16_avx2(
    const T_float16 *const *cont, const int nc, const int hr, const double *rsum, int64_t wv, double bsum, double *S,
    vi *mxp, vi *mnp)
{
    vi mxv = *mxp, mnv = *mnp;
    const vd b = vd_set1(bsum);
    for (int64_t j = 0; j < wv; j += VF_N) {
        vd s0, s1;
        mean_vsum_float16_avx2(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vd_store(S + j, s0);
        vd_store(S + j + VD_N, s1);
    }
    *mxp = mxv;
    *mnp = mnv;
}

/* dst[j] = S[j] / n rounded once to the format, for j < w: S exact sums of
 * a unit that passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. */
VEC_TARGET static void mean_finish_float16_avx2(const double *S, int ninputs, uint32_t mn1, int64_t w, T_float16 *dst,
                                               int stream)
{
    const vd nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    int64_t j = 0;
    (void)stream;
    (void)mn1; /* the multiply path is float32's */
    for (; j + VD_N <= w; j += VD_N) {
        /* n a power of two: S / n = S * (1 / n) exactly (S is a multiple of the
         * format's smallest subnormal, far above double's), so no rounding to odd */
        vd Sv = vd_load(S + j), q = pow2 ? vd_mul(Sv, rn) : div_odd_float16_avx2(Sv, nv);
        double t[VD_N];
        vd_store(t, q);
        for (int k = 0; k < VD_N; k++) dst[j + k] = store_float16(t[k]);
    }
    for (; j < w; j++) dst[j] = store_float16(div_odd(S[j], (double)ninputs));
    vec_zeroupper();
}

/* The vector form of mean_unit when every input is read contiguously or
 * broadcast along the inner dim (sinner 1 or 0): the same sums, check and
 * rounding, VF_N outputs at a time. */
VEC_TARGET static void mean_unit_float16_avx2(int ninputs, const T_float16 *const *src, const int64_t *sinner, int64_t w,
                                              T_float16 *dst, int stream, const mean_rowsum *rows)
{
    double S[TILE];
    vi mxv = vi_zero(), mnv = vi_ones();
    /* broadcast inputs once: their sum starts every output's sum (when the
     * check passes, every order of the additions gives the same exact sum) */
    const T_float16 *cont[MEAN_VEC_MAX];
    int ncont = 0;
    double bsum = -0.0;
    uint32_t bmx = 0, bmn1 = UINT32_MAX;
    for (int i = 0; i < ninputs; i++) {
        if (rows && rows->taken[i]) continue; /* in rows->sum */
        if (sinner[i] && ncont < MEAN_VEC_MAX) {
            cont[ncont++] = src[i];
            continue;
        }
        if (sinner[i]) { /* more contiguous inputs than the vector loop takes */
            vec_zeroupper();
            mean_unit_float16(ninputs, src, sinner, w, dst);
            return;
        }
        double v = LOAD_float16(src[i][0]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        bmx = a > bmx ? a : bmx;
        bmn1 = a - 1u < bmn1 ? a - 1u : bmn1;
        bsum += v;
    }
    const double *rsum = NULL;
    if (rows) {
        rsum = rows->sum;
        bmx = rows->mx > bmx ? rows->mx : bmx;
        bmn1 = rows->mn1 < bmn1 ? rows->mn1 : bmn1;
    }
    int64_t j = w / VF_N * VF_N;
    switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
    case 1: mean_sums_float16_avx2(cont, 0, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 2: mean_sums_float16_avx2(cont, 1, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 3: mean_sums_float16_avx2(cont, 1, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 4: mean_sums_float16_avx2(cont, 2, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 5: mean_sums_float16_avx2(cont, 2, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 6: mean_sums_float16_avx2(cont, 3, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 7: mean_sums_float16_avx2(cont, 3, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 8: mean_sums_float16_avx2(cont, 4, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 9: mean_sums_float16_avx2(cont, 4, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    default: mean_sums_float16_avx2(cont, ncont, rsum != NULL, rsum, j, bsum, S, &mxv, &mnv); break;
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    mx = bmx > mx ? bmx : mx;
    mn1 = bmn1 < mn1 ? bmn1 : mn1;
    for (; j < w; j++) {
        S[j] = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_float16(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_float16, LSB_MIN_float16)) { /* rare: the portable unit checks output by output */
        vec_zeroupper();
        mean_unit_float16(ninputs, src, sinner, w, dst);
        return;
    }
    mean_finish_float16_avx2(S, ninputs, mn1, w, dst, stream);
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w
 * (mean_unit's results): the unit's check over its w * k contiguous values
 * in vectors, the sums in scalar double (a constant k each, for the
 * compiler), the division in vectors (mean_finish). A unit that fails the
 * check goes to mean_unit. */
VEC_TARGET __attribute__((always_inline)) static inline void run_sums_float16_avx2(const T_float16 *x, const int k,
                                                                                     int64_t w, double *S)
{
    for (int64_t j = 0; j < w; j++) {
        double s = -0.0;
        for (int i = 0; i < k; i++) s += LOAD_float16(x[j * k + i]);
        S[j] = s;
    }
}

VEC_TARGET static void mean_runs_float16_avx2(const T_float16 *x, int k, int64_t w, T_float16 *dst)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    const int64_t nv = w * k;
    int64_t i = 0;
    for (; i + VF_N <= nv; i += VF_N) {
        vi a = vi_absbits(vf_load_f16(x + i));
        mxv = vi_max_u32(mxv, a);
        mnv = vi_min_u32(mnv, vi_dec(a));
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    for (; i < nv; i++) {
        uint32_t a = f32_to_bits((float)LOAD_float16(x[i])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    if (!narrow_sum_exact(mx, mn1, k, PREC_float16, LSB_MIN_float16)) {
        const T_float16 *src[INNER_AS_MEAN_MAX];
        int64_t sinner[INNER_AS_MEAN_MAX];
        for (int f = 0; f < k; f++) {
            src[f] = x + f;
            sinner[f] = k;
        }
        mean_unit_float16(k, src, sinner, w, dst);
        return;
    }
    double S[TILE];
    switch (k) { /* a constant k each */
    case 1: run_sums_float16_avx2(x, 1, w, S); break;
    case 2: run_sums_float16_avx2(x, 2, w, S); break;
    case 3: run_sums_float16_avx2(x, 3, w, S); break;
    case 4: run_sums_float16_avx2(x, 4, w, S); break;
    case 5: run_sums_float16_avx2(x, 5, w, S); break;
    case 6: run_sums_float16_avx2(x, 6, w, S); break;
    case 7: run_sums_float16_avx2(x, 7, w, S); break;
    case 8: run_sums_float16_avx2(x, 8, w, S); break;
    case 12: run_sums_float16_avx2(x, 12, w, S); break;
    case 16: run_sums_float16_avx2(x, 16, w, S); break;
    case 24: run_sums_float16_avx2(x, 24, w, S); break;
    case 32: run_sums_float16_avx2(x, 32, w, S); break;
    default: run_sums_float16_avx2(x, k, w, S); break;
    }
    mean_finish_float16_avx2(S, k, mn1, w, dst, 0);
}

/* rows_split of kernel_exact.c.j2, VF_N columns at a time (the block is in
 * L1 or L2: it was just read). */
VEC_TARGET __attribute__((noinline)) static int rows_split_float16_avx2(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    uint32_t thr = split_threshold_float16(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    memset(big, 0, (size_t)w * sizeof *big);
    memset(small, 0, (size_t)w * sizeof *small);
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vi smxv = vi_zero(), smnv = vi_ones();
    const int64_t wv = w / VF_N * VF_N;
    for (int64_t i = 0; i < nrows; i++) {
        const T_float16 *p = x + i * rs;
        for (int64_t j = 0; j < wv; j += VF_N) {
            vf f = vf_load_f16(p + j);
            vi a = vi_absbits(f), bg = vi_gt_s32(a, below), as = vi_andnot(bg, a);
            smxv = vi_max_u32(smxv, as);
            smnv = vi_min_u32(smnv, vi_dec(as));
            vf fb = vf_from_bits(vi_and(bg, vf_bits(f))), fs = vf_from_bits(vi_andnot(bg, vf_bits(f)));
            vd_store(big + j, vd_add(vd_load(big + j), vf_lo(fb)));
            vd_store(big + j + VD_N, vd_add(vd_load(big + j + VD_N), vf_hi(fb)));
            vd_store(small + j, vd_add(vd_load(small + j), vf_lo(fs)));
            vd_store(small + j + VD_N, vd_add(vd_load(small + j + VD_N), vf_hi(fs)));
        }
    }
    uint32_t vmx = vi_hmax_u32(smxv), vmn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = wv; j < w; j++) split_add_float16(LOAD_float16(x[i * rs + j]), thr, &big[j], &small[j], &smx, &smn1);
    smx = vmx > smx ? vmx : smx;
    smn1 = vmn1 < smn1 ? vmn1 : smn1;
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_float16, LSB_MIN_float16)) return 0;
    rows_keep_split_float16(r, x, rs, nrows, 1, w, big, small);
    return 1;
}

/* rows_block_end of a block that passed its shared check, VD_N columns at a
 * time: the block sums on into the kept sums where TwoSum shows each lane's
 * addition exact and no block sum is zero; other lanes one by one. */
VEC_TARGET static void rows_block_keep_float16_avx2(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows,
                                                     int64_t w)
{
    const vd zero = vd_set1(0.0);
    const vq ones = vq_set1(-1);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        vd a = vd_load(r->t + j), b = vd_load(r->s + j);
        vd sum = vd_add(a, b), bv = vd_sub(sum, a);
        vd err = vd_add(vd_sub(a, vd_sub(sum, bv)), vd_sub(b, bv)); /* NaN where sum overflowed */
        vq slow = vq_or(vd_bits(vd_above(err, zero)), vq_andnot(vd_bits(vd_above(b, zero)), ones));
        if (vd_anybits(vd_from_bits(slow))) {
            vec_zeroupper();
            for (int k = 0; k < VD_N; k++) keep_column_float16(r, x + j + k, rs, nrows, j + k);
            continue;
        }
        vd_store(r->t + j, sum);
        vd_store(r->tnz + j, vd_max(vd_load(r->tnz + j), vd_abs(b)));
    }
    vec_zeroupper();
    for (; j < w; j++) keep_column_float16(r, x + j, rs, nrows, j);
}

/* Each column's own check of a block (VF_N columns at a time, the bounds in registers). */
VEC_TARGET static void columns_ok_float16_avx2(const T_float16 *b, int64_t rs, int64_t nb, int64_t w, uint8_t *ok)
{
    int64_t j = 0;
    for (; j + VF_N <= w; j += VF_N) {
        vi mxv = vi_zero(), mnv = vi_ones();
        for (int64_t i = 0; i < nb; i++) {
            vi a = vi_absbits(vf_load_f16(b + i * rs + j));
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
        }
        uint32_t mx[VF_N], mn1[VF_N];
        vi_store(mx, mxv);
        vi_store(mn1, mnv);
        for (int k = 0; k < VF_N; k++) ok[j + k] = (uint8_t)narrow_sum_exact(mx[k], mn1[k], nb, PREC_float16, LSB_MIN_float16);
    }
    vec_zeroupper();
    for (; j < w; j++) ok[j] = (uint8_t)column_ok_float16(NULL, j, b + j, rs, nb);
}

/* Narrow rows (w <= NARROW_ROW): the first ng * VF_N column sums in 2 * ng
 * registers across the block's rows (each read once, in order), the
 * block's shared bound in two more. Inlined with a
 * constant ng, so the sums stay in registers. */
VEC_TARGET __attribute__((always_inline)) static inline void narrow_rows_float16_avx2(
    rowacc_float16 *r, int64_t j0, const T_float16 *x, int64_t rs, int64_t nrows, const int ng)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    vd c[2 * NARROW_PANEL];
    for (int q = 0; q < 2 * ng; q++) c[q] = vd_load(r->s + j0 + VD_N * q);
    for (int64_t i = 0; i < nrows; i++) {
        const T_float16 *p = x + i * rs;
        for (int q = 0; q < ng; q++) {
            vf f = vf_load_f16(p + VF_N * q);
            vi a = vi_absbits(f);
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
            c[2 * q] = vd_add(c[2 * q], VF_LO_float16(f, p + VF_N * q));
            c[2 * q + 1] = vd_add(c[2 * q + 1], VF_HI_float16(f, p + VF_N * q));
        }
    }
    for (int q = 0; q < 2 * ng; q++) vd_store(r->s + j0 + VD_N * q, c[q]);
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    r->bmx = mx > r->bmx ? mx : r->bmx;
    r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
}

/* Each row read once: narrow ones one after the other, as above; wide
 * ones ROW_GROUP at a time (below), the column sums in L1; the block's
 * shared bound in registers. */
VEC_TARGET static void add_rows_float16_avx2(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t w);

/* rows_nonfinite of kernel_exact.c.j2 on this ISA's row kernels. */
VEC_TARGET __attribute__((noinline)) static void rows_nonfinite_float16_avx2(rowacc_float16 *r, const T_float16 *x, int64_t rs,
                                                                             int64_t nrows, int64_t w)
{
    T_float16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    vec_zeroupper();
    r->nonfinite = 0; /* the copies hold none */
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_float16 *buf = copy_at_float16(raw, x + i * rs);
        clean_rows_float16(x + i * rs, rs, m, 1, w, buf, 0, r->acc);
        add_rows_float16_avx2(r, buf, w, m, w);
    }
    r->nonfinite = 1; /* the next blocks straight here (data with NaN tends to keep them) */
}

VEC_TARGET static void add_rows_float16_avx2(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    if (w <= PANEL_ROWS_MAX) {
        const int64_t row_bytes = w * (int64_t)sizeof(T_float16);
        int64_t sub = row_bytes ? 16384 / row_bytes : NARROW_SUB;
        sub = sub < 1 ? 1 : (sub > NARROW_SUB ? NARROW_SUB : sub);
        for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
            nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
            const T_float16 *b = x + i0 * rs;
            if (r->skip > 0) {
                vec_zeroupper();
                nb = rows_block_exact_float16(r, b, rs, nrows - i0, 1, w);
                continue;
            }
            if (r->nonfinite) {
                rows_nonfinite_float16_avx2(r, b, rs, nb, w);
                continue;
            }
            rows_block_begin_float16(r, b, rs, nb, 1, w);
            /* panels of NARROW_PANEL * VF_N columns over sub-blocks of NARROW_SUB
             * rows (in L1 after the first panel) */
            for (int64_t k0 = 0; k0 < nb; k0 += sub) {
                int64_t k1 = k0 + sub < nb ? k0 + sub : nb;
                for (int64_t j0 = 0; j0 + VF_N <= w; j0 += VF_N * NARROW_PANEL) {
                    const T_float16 *src = b + k0 * rs + j0;
                    switch ((w - j0) / VF_N < NARROW_PANEL ? (w - j0) / VF_N : NARROW_PANEL) { /* a constant ng each: its own loop */
                    case 1: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 1); break;
                    case 2: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 2); break;
                    case 3: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 3); break;
                    case 4: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 4); break;
                    case 5: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 5); break;
                    case 6: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 6); break;
                    case 7: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 7); break;
                    case 8: narrow_rows_float16_avx2(r, j0, src, rs, k1 - k0, 8); break;
                    default: break;
                    }
                }
            }
            if (w % VF_N != 0) /* else an empty loop over the rows: 10% of (1000000, 64) float32 */
                for (int64_t i = 0; i < nb; i++)
                    for (int64_t j = w / VF_N * VF_N; j < w; j++) col_add_float16(r, j, LOAD_float16(b[i * rs + j]));
            vec_zeroupper();
            if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
                rows_nonfinite_float16_avx2(r, b, rs, nb, w);
                continue;
            }
            if (rows_block_ok_float16(r, nb)) {
                rows_block_keep_float16_avx2(r, b, rs, nb, w);
            } else {
                uint8_t ok[TILE];
                columns_ok_float16_avx2(b, rs, nb, w, ok);
                if (!split_pays(ok, w) || !rows_split_float16_avx2(r, b, rs, nb, w)) rows_block_end_float16(r, b, rs, nb, 1, w, ok);
            }
        }
        return;
    }
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float16 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_float16(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        if (r->nonfinite) {
            rows_nonfinite_float16_avx2(r, b, rs, nb, w);
            continue;
        }
        rows_block_begin_float16(r, b, rs, nb, 1, w);
        vi mxv = vi_zero(), mnv = vi_ones();
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * so each column sum is loaded and stored once per group and the
         * block is read as ROW_GROUP sequential streams. With a load and a
         * store per value the loop was bound by the load/store ports (W5
         * 1.2x the kernels before exactness); adjacent rows as the group
         * halved the read bandwidth from memory (the hardware prefetchers
         * lose streams of a row each). When the block passes its check its
         * sums are exact in any order; when not, they are summed again. */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_float16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vd lo = vd_load(r->s + j), hi = vd_load(r->s + j + VD_N);
                for (int k = 0; k < ROW_GROUP; k++) {
                    const T_float16 *e = p + k * q * rs + j;
                    vf f = vf_load_f16(e);
                    vi a = vi_absbits(f);
                    mxv = vi_max_u32(mxv, a);
                    mnv = vi_min_u32(mnv, vi_dec(a));
                    lo = vd_add(lo, VF_LO_float16(f, e));
                    hi = vd_add(hi, VF_HI_float16(f, e));
                }
                vd_store(r->s + j, lo);
                vd_store(r->s + j + VD_N, hi);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_float16(r, jj, LOAD_float16(p[k * q * rs + jj]));
        }
        int64_t i = ROW_GROUP * q;
        for (; i < nb; i++) {
            const T_float16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vf f = vf_load_f16(p + j);
                vi a = vi_absbits(f);
                mxv = vi_max_u32(mxv, a);
                mnv = vi_min_u32(mnv, vi_dec(a));
                vd_store(r->s + j, vd_add(vd_load(r->s + j), VF_LO_float16(f, p + j)));
                vd_store(r->s + j + VD_N, vd_add(vd_load(r->s + j + VD_N), VF_HI_float16(f, p + j)));
            }
            for (; j < w; j++) col_add_float16(r, j, LOAD_float16(p[j]));
        }
        uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
        r->bmx = mx > r->bmx ? mx : r->bmx;
        r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
        vec_zeroupper();
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_float16_avx2(r, b, rs, nb, w);
            continue;
        }
        if (rows_block_ok_float16(r, nb)) {
            rows_block_keep_float16_avx2(r, b, rs, nb, w);
        } else {
            uint8_t ok[TILE];
            columns_ok_float16_avx2(b, rs, nb, w, ok);
            if (!split_pays(ok, w) || !rows_split_float16_avx2(r, b, rs, nb, w)) rows_block_end_float16(r, b, rs, nb, 1, w, ok);
        }
    }
}
#undef VF_LO_float16
#undef VF_HI_float16
#undef LOAD2_float16

VEC_TARGET static void run_float16_avx2(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_float16)
        block_float16_avx2(x + i, n - i < RUN_BLOCK_float16 ? n - i : RUN_BLOCK_float16, l);
}
/* bfloat16, avx2: VD_N values at p (a vf f already loaded from p) as a vd */
#ifndef VF_LO_bfloat16
#define VF_LO_bfloat16(f, p) vf_lo(f)
#define VF_HI_bfloat16(f, p) vf_hi(f)
#endif
/* 2 * VF_N values at p: their |x| bit patterns folded into the running max
 * and min - 1 (unsigned), and the values as 4 vd of doubles. */
#define LOAD2_bfloat16(p, d, mx, mn1) do { \
        vf f0_ = vf_load_bf16(p), f1_ = vf_load_bf16((p) + VF_N); \
        vi a0_ = vi_absbits(f0_), a1_ = vi_absbits(f1_); \
        (mx) = vi_max_u32((mx), vi_max_u32(a0_, a1_)); \
        (mn1) = vi_min_u32((mn1), vi_min_u32(vi_dec(a0_), vi_dec(a1_))); \
        (d)[0] = VF_LO_bfloat16(f0_, (p)); (d)[1] = VF_HI_bfloat16(f0_, (p)); \
        (d)[2] = VF_LO_bfloat16(f1_, (p) + VF_N); (d)[3] = VF_HI_bfloat16(f1_, (p) + VF_N); \
    } while (0)

/* split_block of kernel_exact.c.j2 (a block in L1 that failed its check),
 * VF_N values at a time: the lanes of at least 2^T and those below, apart. */
VEC_TARGET __attribute__((noinline)) static int split_block_bfloat16_avx2(const T_bfloat16 *x, int64_t n, uint32_t mx, lanes_bfloat16 *l)
{
    uint32_t thr = split_threshold_bfloat16(mx, n);
    if (!thr) return 0;
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vd b0 = vd_set1(0.0), b1 = b0, s0 = b0, s1 = b0;
    vi smxv = vi_zero(), smnv = vi_ones();
    int64_t i = 0;
    for (; i + VF_N <= n; i += VF_N) {
        vf f = vf_load_bf16(x + i);
        vi a = vi_absbits(f), big = vi_gt_s32(a, below), as = vi_andnot(big, a);
        smxv = vi_max_u32(smxv, as);
        smnv = vi_min_u32(smnv, vi_dec(as));
        vf fb = vf_from_bits(vi_and(big, vf_bits(f))), fs = vf_from_bits(vi_andnot(big, vf_bits(f)));
        b0 = vd_add(b0, vf_lo(fb));
        b1 = vd_add(b1, vf_hi(fb));
        s0 = vd_add(s0, vf_lo(fs));
        s1 = vd_add(s1, vf_hi(fs));
    }
    double pb[VD_N], ps[VD_N], sums[2] = {0.0, 0.0};
    vd_store(pb, vd_add(b0, b1));
    vd_store(ps, vd_add(s0, s1));
    uint32_t smx = vi_hmax_u32(smxv), smn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int k = 0; k < VD_N; k++) {
        sums[0] += pb[k];
        sums[1] += ps[k];
    }
    for (; i < n; i++) split_add_bfloat16(LOAD_bfloat16(x[i]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_bfloat16, LSB_MIN_bfloat16)) return 0;
    lanes_keep_bfloat16(l, x, 1, n, sums, 2, mx != 0);
    return 1;
}

VEC_TARGET static void block_bfloat16_avx2(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_bfloat16_avx2(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l)
{
    T_bfloat16 raw[RUN_BLOCK_bfloat16 + 4096 / sizeof(T_bfloat16)], *buf = copy_at_bfloat16(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_bfloat16(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    if (f & SACC_NAN) l->masknan = 1;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_bfloat16_avx2(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_bfloat16_avx2(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l)
{
    /* skipna: float32 masks NaN lanes as it reads them (below); the others,
     * and blocks sent to the exact path, through a copy without them */
    const int masked = 0 && !ALWAYS_EXACT_bfloat16 && l->skip <= 0;
    if (l->skipna && !masked && block_nonfinite_bfloat16_avx2(x, n, l)) return;
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        (void)chunk_block_bfloat16(x, 1, n, &l->acc);
        return;
    }
    vd s[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    int64_t i = 0;
    if (ALWAYS_EXACT_bfloat16) {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_bfloat16));
            vf f0 = vf_load_bf16(x + i), f1 = vf_load_bf16(x + i + VF_N);
            (void)f0, (void)f1; /* unread where the values widen from memory */
            s[0] = vd_add(s[0], VF_LO_bfloat16(f0, x + i));
            s[1] = vd_add(s[1], VF_HI_bfloat16(f0, x + i));
            s[2] = vd_add(s[2], VF_LO_bfloat16(f1, x + i + VF_N));
            s[3] = vd_add(s[3], VF_HI_bfloat16(f1, x + i + VF_N));
        }
        double part[VD_N], total = 0.0;
        vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
        for (; i < n; i++) part[0] += LOAD_bfloat16(x[i]);
        for (int k = 0; k < VD_N; k++) total += part[k];
        vec_zeroupper();
        if (isfinite(total)) lanes_keep_bfloat16(l, x, 1, n, &total, 1, total != 0.0);
        else if (!block_nonfinite_bfloat16_avx2(x, n, l)) (void)chunk_block_bfloat16(x, 1, n, &l->acc);
        return;
    }
    /* the check on the 16-bit patterns (the float32 ones are them << 16);
     * sums of 4 values in float32 first, kept where quads_exact shows them
     * exact (most blocks of data that is not spread wide), else the block
     * is summed again value by value in double */
    vw mxv = vw_zero(), mnv = vw_ones();
    for (; i + 4 * VF_N <= n; i += 4 * VF_N) {
        PREFETCH_SPAN(x + i, 4 * VF_N * sizeof(T_bfloat16));
        vw r0 = vw_load(x + i), r1 = vw_load(x + i + 2 * VF_N), a0 = vw_absbits(r0), a1 = vw_absbits(r1);
        mxv = vw_max_u16(mxv, vw_max_u16(a0, a1));
        mnv = vw_min_u16(mnv, vw_min_u16(vw_dec(a0), vw_dec(a1)));
        vf f = vf_add(vf_add(vw_lo_f32(r0), vw_hi_f32(r0)), vf_add(vw_lo_f32(r1), vw_hi_f32(r1)));
        s[0] = vd_add(s[0], vf_lo(f));
        s[1] = vd_add(s[1], vf_hi(f));
    }
    if (i > 0) {
        uint32_t qmx = vw_hmax_u16(mxv) << 16, qmn16 = vw_hmin_u16(mnv);
        if (!quads_exact(qmx, qmn16 == 0xffffu ? UINT32_MAX : ((qmn16 + 1u) << 16) - 1u)) {
            s[0] = s[1] = vd_set1(0.0);
            i = 0;
        }
    }
    for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
        PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_bfloat16));
        vw raw = vw_load(x + i), a = vw_absbits(raw);
        mxv = vw_max_u16(mxv, a);
        mnv = vw_min_u16(mnv, vw_dec(a));
        vf f0 = vw_lo_f32(raw), f1 = vw_hi_f32(raw);
        s[0] = vd_add(s[0], vf_lo(f0));
        s[1] = vd_add(s[1], vf_hi(f0));
        s[2] = vd_add(s[2], vf_lo(f1));
        s[3] = vd_add(s[3], vf_hi(f1));
    }
    /* the four sums in a tree: when the block passes its check, every
     * partial sum is exact, so no order of the additions changes a bit */
    double part[VD_N], total = 0.0;
    vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
    uint32_t mx = vw_hmax_u16(mxv) << 16, mn16 = vw_hmin_u16(mnv);
    uint32_t mn1 = mn16 == 0xffffu ? UINT32_MAX : ((mn16 + 1u) << 16) - 1u;
    int64_t nan = 0; /* (skipna went through block_nonfinite) */
    for (; i < n; i++) {
        double v = LOAD_bfloat16(x[i]);
        if ((l->skipna || l->masknan) && v != v) { /* as -0.0: nothing to add, no bound */
            nan++;
            continue;
        }
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        part[0] += v;
    }
    vec_zeroupper();
    /* an inf or NaN among them; or NaN skipped where a fallback below would
     * read them (the exact paths, the sign of a zero sum) */
    const int ok = narrow_sum_exact(mx, mn1, n, PREC_bfloat16, LSB_MIN_bfloat16);
    if ((mx >= 0x7f800000u || (nan && (!ok || mx == 0))) && block_nonfinite_bfloat16_avx2(x, n, l)) return;
    if (l->skipna) l->acc.w[0] += (uint64_t)nan;
    else if (nan) l->acc.w[1] |= SACC_NAN | SACC_NONNEGZERO;
    if (ok) {
        for (int k = 0; k < VD_N; k++) total += part[k]; /* exact, as every partial sum */
        lanes_keep_bfloat16(l, x, 1, n, &total, 1, mx != 0);
        l->fails = 0;
    } else if (split_block_bfloat16_avx2(x, n, mx, l)) {
        l->fails = 0;
    } else {
        (void)chunk_block_bfloat16(x, 1, n, &l->acc);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* div_odd on VD_N lanes: q = RN(S / n), e = S - q * n exactly; an inexact
 * lane steps toward zero when |q| is above |S / n|, then sets its last bit. */
VEC_TARGET static inline vd div_odd_bfloat16_avx2(vd S, vd nv)
{
    vd q = vd_div(S, nv), e = vd_fnmadd(q, nv, S);
    vq inexact = vd_ne0(e);
    vq toward = vq_srli(vd_bits(vd_xor(e, q)), 63); /* signs differ */
    vq b = vd_bits(q);
    b = vq_sub(b, vq_and(inexact, toward));
    b = vq_or(b, vq_and(inexact, vq_set1(1)));
    return vd_from_bits(b);
}

/* The sums of the VF_N outputs at j as two vd: bsum (+ rsum[j] where hr)
 * + the nc contiguous inputs at j; their values' |x| bit patterns folded
 * into *mxv (max) and *mnv (min of |x| - 1). Inlined with constant nc, hr. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_vsum_bfloat16_avx2(
    const T_bfloat16 *const *cont, const int nc, const int hr, const double *rsum, vd b, int64_t j, vd *s0, vd *s1,
    vi *mxv, vi *mnv)
{
    vd a0 = b, a1 = b;
    if (hr) {
        a0 = vd_add(a0, vd_load(rsum + j));
        a1 = vd_add(a1, vd_load(rsum + j + VD_N));
    }
    for (int i = 0; i < nc; i++) { /* no software prefetch: see PREFETCH_BYTES */
        vf f = vf_load_bf16(cont[i] + j);
        vi a = vi_absbits(f);
        *mxv = vi_max_u32(*mxv, a);
        *mnv = vi_min_u32(*mnv, vi_dec(a));
        a0 = vd_add(a0, VF_LO_bfloat16(f, cont[i] + j));
        a1 = vd_add(a1, VF_HI_bfloat16(f, cont[i] + j));
    }
    *s0 = a0;
    *s1 = a1;
}

/* S[j] for j < wv (a multiple of VF_N) by mean_vsum. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_sums_bfloat16_avx2(
    const T_bfloat16 *const *cont, const int nc, const int hr, const double *rsum, int64_t wv, double bsum, double *S,
    vi *mxp, vi *mnp)
{
    vi mxv = *mxp, mnv = *mnp;
    const vd b = vd_set1(bsum);
    for (int64_t j = 0; j < wv; j += VF_N) {
        vd s0, s1;
        mean_vsum_bfloat16_avx2(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vd_store(S + j, s0);
        vd_store(S + j + VD_N, s1);
    }
    *mxp = mxv;
    *mnp = mnv;
}

/* dst[j] = S[j] / n rounded once to the format, for j < w: S exact sums of
 * a unit that passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. */
VEC_TARGET static void mean_finish_bfloat16_avx2(const double *S, int ninputs, uint32_t mn1, int64_t w, T_bfloat16 *dst,
                                               int stream)
{
    const vd nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    int64_t j = 0;
    (void)stream;
    (void)mn1; /* the multiply path is float32's */
    for (; j + VD_N <= w; j += VD_N) {
        /* n a power of two: S / n = S * (1 / n) exactly (S is a multiple of the
         * format's smallest subnormal, far above double's), so no rounding to odd */
        vd Sv = vd_load(S + j), q = pow2 ? vd_mul(Sv, rn) : div_odd_bfloat16_avx2(Sv, nv);
        double t[VD_N];
        vd_store(t, q);
        for (int k = 0; k < VD_N; k++) dst[j + k] = store_bfloat16(t[k]);
    }
    for (; j < w; j++) dst[j] = store_bfloat16(div_odd(S[j], (double)ninputs));
    vec_zeroupper();
}

/* The vector form of mean_unit when every input is read contiguously or
 * broadcast along the inner dim (sinner 1 or 0): the same sums, check and
 * rounding, VF_N outputs at a time. */
VEC_TARGET static void mean_unit_bfloat16_avx2(int ninputs, const T_bfloat16 *const *src, const int64_t *sinner, int64_t w,
                                              T_bfloat16 *dst, int stream, const mean_rowsum *rows)
{
    double S[TILE];
    vi mxv = vi_zero(), mnv = vi_ones();
    /* broadcast inputs once: their sum starts every output's sum (when the
     * check passes, every order of the additions gives the same exact sum) */
    const T_bfloat16 *cont[MEAN_VEC_MAX];
    int ncont = 0;
    double bsum = -0.0;
    uint32_t bmx = 0, bmn1 = UINT32_MAX;
    for (int i = 0; i < ninputs; i++) {
        if (rows && rows->taken[i]) continue; /* in rows->sum */
        if (sinner[i] && ncont < MEAN_VEC_MAX) {
            cont[ncont++] = src[i];
            continue;
        }
        if (sinner[i]) { /* more contiguous inputs than the vector loop takes */
            vec_zeroupper();
            mean_unit_bfloat16(ninputs, src, sinner, w, dst);
            return;
        }
        double v = LOAD_bfloat16(src[i][0]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        bmx = a > bmx ? a : bmx;
        bmn1 = a - 1u < bmn1 ? a - 1u : bmn1;
        bsum += v;
    }
    const double *rsum = NULL;
    if (rows) {
        rsum = rows->sum;
        bmx = rows->mx > bmx ? rows->mx : bmx;
        bmn1 = rows->mn1 < bmn1 ? rows->mn1 : bmn1;
    }
    int64_t j = w / VF_N * VF_N;
    switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
    case 1: mean_sums_bfloat16_avx2(cont, 0, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 2: mean_sums_bfloat16_avx2(cont, 1, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 3: mean_sums_bfloat16_avx2(cont, 1, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 4: mean_sums_bfloat16_avx2(cont, 2, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 5: mean_sums_bfloat16_avx2(cont, 2, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 6: mean_sums_bfloat16_avx2(cont, 3, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 7: mean_sums_bfloat16_avx2(cont, 3, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 8: mean_sums_bfloat16_avx2(cont, 4, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 9: mean_sums_bfloat16_avx2(cont, 4, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    default: mean_sums_bfloat16_avx2(cont, ncont, rsum != NULL, rsum, j, bsum, S, &mxv, &mnv); break;
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    mx = bmx > mx ? bmx : mx;
    mn1 = bmn1 < mn1 ? bmn1 : mn1;
    for (; j < w; j++) {
        S[j] = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_bfloat16(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_bfloat16, LSB_MIN_bfloat16)) { /* rare: the portable unit checks output by output */
        vec_zeroupper();
        mean_unit_bfloat16(ninputs, src, sinner, w, dst);
        return;
    }
    mean_finish_bfloat16_avx2(S, ninputs, mn1, w, dst, stream);
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w
 * (mean_unit's results): the unit's check over its w * k contiguous values
 * in vectors, the sums in scalar double (a constant k each, for the
 * compiler), the division in vectors (mean_finish). A unit that fails the
 * check goes to mean_unit. */
VEC_TARGET __attribute__((always_inline)) static inline void run_sums_bfloat16_avx2(const T_bfloat16 *x, const int k,
                                                                                     int64_t w, double *S)
{
    for (int64_t j = 0; j < w; j++) {
        double s = -0.0;
        for (int i = 0; i < k; i++) s += LOAD_bfloat16(x[j * k + i]);
        S[j] = s;
    }
}

VEC_TARGET static void mean_runs_bfloat16_avx2(const T_bfloat16 *x, int k, int64_t w, T_bfloat16 *dst)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    const int64_t nv = w * k;
    int64_t i = 0;
    for (; i + VF_N <= nv; i += VF_N) {
        vi a = vi_absbits(vf_load_bf16(x + i));
        mxv = vi_max_u32(mxv, a);
        mnv = vi_min_u32(mnv, vi_dec(a));
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    for (; i < nv; i++) {
        uint32_t a = f32_to_bits((float)LOAD_bfloat16(x[i])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    if (!narrow_sum_exact(mx, mn1, k, PREC_bfloat16, LSB_MIN_bfloat16)) {
        const T_bfloat16 *src[INNER_AS_MEAN_MAX];
        int64_t sinner[INNER_AS_MEAN_MAX];
        for (int f = 0; f < k; f++) {
            src[f] = x + f;
            sinner[f] = k;
        }
        mean_unit_bfloat16(k, src, sinner, w, dst);
        return;
    }
    double S[TILE];
    switch (k) { /* a constant k each */
    case 1: run_sums_bfloat16_avx2(x, 1, w, S); break;
    case 2: run_sums_bfloat16_avx2(x, 2, w, S); break;
    case 3: run_sums_bfloat16_avx2(x, 3, w, S); break;
    case 4: run_sums_bfloat16_avx2(x, 4, w, S); break;
    case 5: run_sums_bfloat16_avx2(x, 5, w, S); break;
    case 6: run_sums_bfloat16_avx2(x, 6, w, S); break;
    case 7: run_sums_bfloat16_avx2(x, 7, w, S); break;
    case 8: run_sums_bfloat16_avx2(x, 8, w, S); break;
    case 12: run_sums_bfloat16_avx2(x, 12, w, S); break;
    case 16: run_sums_bfloat16_avx2(x, 16, w, S); break;
    case 24: run_sums_bfloat16_avx2(x, 24, w, S); break;
    case 32: run_sums_bfloat16_avx2(x, 32, w, S); break;
    default: run_sums_bfloat16_avx2(x, k, w, S); break;
    }
    mean_finish_bfloat16_avx2(S, k, mn1, w, dst, 0);
}

/* rows_split of kernel_exact.c.j2, VF_N columns at a time (the block is in
 * L1 or L2: it was just read). */
VEC_TARGET __attribute__((noinline)) static int rows_split_bfloat16_avx2(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    uint32_t thr = split_threshold_bfloat16(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    memset(big, 0, (size_t)w * sizeof *big);
    memset(small, 0, (size_t)w * sizeof *small);
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vi smxv = vi_zero(), smnv = vi_ones();
    const int64_t wv = w / VF_N * VF_N;
    for (int64_t i = 0; i < nrows; i++) {
        const T_bfloat16 *p = x + i * rs;
        for (int64_t j = 0; j < wv; j += VF_N) {
            vf f = vf_load_bf16(p + j);
            vi a = vi_absbits(f), bg = vi_gt_s32(a, below), as = vi_andnot(bg, a);
            smxv = vi_max_u32(smxv, as);
            smnv = vi_min_u32(smnv, vi_dec(as));
            vf fb = vf_from_bits(vi_and(bg, vf_bits(f))), fs = vf_from_bits(vi_andnot(bg, vf_bits(f)));
            vd_store(big + j, vd_add(vd_load(big + j), vf_lo(fb)));
            vd_store(big + j + VD_N, vd_add(vd_load(big + j + VD_N), vf_hi(fb)));
            vd_store(small + j, vd_add(vd_load(small + j), vf_lo(fs)));
            vd_store(small + j + VD_N, vd_add(vd_load(small + j + VD_N), vf_hi(fs)));
        }
    }
    uint32_t vmx = vi_hmax_u32(smxv), vmn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = wv; j < w; j++) split_add_bfloat16(LOAD_bfloat16(x[i * rs + j]), thr, &big[j], &small[j], &smx, &smn1);
    smx = vmx > smx ? vmx : smx;
    smn1 = vmn1 < smn1 ? vmn1 : smn1;
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_bfloat16, LSB_MIN_bfloat16)) return 0;
    rows_keep_split_bfloat16(r, x, rs, nrows, 1, w, big, small);
    return 1;
}

/* rows_block_end of a block that passed its shared check, VD_N columns at a
 * time: the block sums on into the kept sums where TwoSum shows each lane's
 * addition exact and no block sum is zero; other lanes one by one. */
VEC_TARGET static void rows_block_keep_bfloat16_avx2(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows,
                                                     int64_t w)
{
    const vd zero = vd_set1(0.0);
    const vq ones = vq_set1(-1);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        vd a = vd_load(r->t + j), b = vd_load(r->s + j);
        vd sum = vd_add(a, b), bv = vd_sub(sum, a);
        vd err = vd_add(vd_sub(a, vd_sub(sum, bv)), vd_sub(b, bv)); /* NaN where sum overflowed */
        vq slow = vq_or(vd_bits(vd_above(err, zero)), vq_andnot(vd_bits(vd_above(b, zero)), ones));
        if (vd_anybits(vd_from_bits(slow))) {
            vec_zeroupper();
            for (int k = 0; k < VD_N; k++) keep_column_bfloat16(r, x + j + k, rs, nrows, j + k);
            continue;
        }
        vd_store(r->t + j, sum);
        vd_store(r->tnz + j, vd_max(vd_load(r->tnz + j), vd_abs(b)));
    }
    vec_zeroupper();
    for (; j < w; j++) keep_column_bfloat16(r, x + j, rs, nrows, j);
}

/* Each column's own check of a block (VF_N columns at a time, the bounds in registers). */
VEC_TARGET static void columns_ok_bfloat16_avx2(const T_bfloat16 *b, int64_t rs, int64_t nb, int64_t w, uint8_t *ok)
{
    int64_t j = 0;
    for (; j + VF_N <= w; j += VF_N) {
        vi mxv = vi_zero(), mnv = vi_ones();
        for (int64_t i = 0; i < nb; i++) {
            vi a = vi_absbits(vf_load_bf16(b + i * rs + j));
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
        }
        uint32_t mx[VF_N], mn1[VF_N];
        vi_store(mx, mxv);
        vi_store(mn1, mnv);
        for (int k = 0; k < VF_N; k++) ok[j + k] = (uint8_t)narrow_sum_exact(mx[k], mn1[k], nb, PREC_bfloat16, LSB_MIN_bfloat16);
    }
    vec_zeroupper();
    for (; j < w; j++) ok[j] = (uint8_t)column_ok_bfloat16(NULL, j, b + j, rs, nb);
}

/* Narrow rows (w <= NARROW_ROW): the first ng * VF_N column sums in 2 * ng
 * registers across the block's rows (each read once, in order), the
 * block's shared bound in two more. Inlined with a
 * constant ng, so the sums stay in registers. */
VEC_TARGET __attribute__((always_inline)) static inline void narrow_rows_bfloat16_avx2(
    rowacc_bfloat16 *r, int64_t j0, const T_bfloat16 *x, int64_t rs, int64_t nrows, const int ng)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    vd c[2 * NARROW_PANEL];
    for (int q = 0; q < 2 * ng; q++) c[q] = vd_load(r->s + j0 + VD_N * q);
    for (int64_t i = 0; i < nrows; i++) {
        const T_bfloat16 *p = x + i * rs;
        for (int q = 0; q < ng; q++) {
            vf f = vf_load_bf16(p + VF_N * q);
            vi a = vi_absbits(f);
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
            c[2 * q] = vd_add(c[2 * q], VF_LO_bfloat16(f, p + VF_N * q));
            c[2 * q + 1] = vd_add(c[2 * q + 1], VF_HI_bfloat16(f, p + VF_N * q));
        }
    }
    for (int q = 0; q < 2 * ng; q++) vd_store(r->s + j0 + VD_N * q, c[q]);
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    r->bmx = mx > r->bmx ? mx : r->bmx;
    r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
}

/* Each row read once: narrow ones one after the other, as above; wide
 * ones ROW_GROUP at a time (below), the column sums in L1; the block's
 * shared bound in registers. */
VEC_TARGET static void add_rows_bfloat16_avx2(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t w);

/* rows_nonfinite of kernel_exact.c.j2 on this ISA's row kernels. */
VEC_TARGET __attribute__((noinline)) static void rows_nonfinite_bfloat16_avx2(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs,
                                                                             int64_t nrows, int64_t w)
{
    T_bfloat16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_bfloat16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_bfloat16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    vec_zeroupper();
    r->nonfinite = 0; /* the copies hold none */
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_bfloat16 *buf = copy_at_bfloat16(raw, x + i * rs);
        clean_rows_bfloat16(x + i * rs, rs, m, 1, w, buf, 0, r->acc);
        add_rows_bfloat16_avx2(r, buf, w, m, w);
    }
    r->nonfinite = 1; /* the next blocks straight here (data with NaN tends to keep them) */
}

VEC_TARGET static void add_rows_bfloat16_avx2(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    if (w <= PANEL_ROWS_MAX) {
        const int64_t row_bytes = w * (int64_t)sizeof(T_bfloat16);
        int64_t sub = row_bytes ? 16384 / row_bytes : NARROW_SUB;
        sub = sub < 1 ? 1 : (sub > NARROW_SUB ? NARROW_SUB : sub);
        for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
            nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
            const T_bfloat16 *b = x + i0 * rs;
            if (r->skip > 0) {
                vec_zeroupper();
                nb = rows_block_exact_bfloat16(r, b, rs, nrows - i0, 1, w);
                continue;
            }
            if (r->nonfinite) {
                rows_nonfinite_bfloat16_avx2(r, b, rs, nb, w);
                continue;
            }
            rows_block_begin_bfloat16(r, b, rs, nb, 1, w);
            /* panels of NARROW_PANEL * VF_N columns over sub-blocks of NARROW_SUB
             * rows (in L1 after the first panel) */
            for (int64_t k0 = 0; k0 < nb; k0 += sub) {
                int64_t k1 = k0 + sub < nb ? k0 + sub : nb;
                for (int64_t j0 = 0; j0 + VF_N <= w; j0 += VF_N * NARROW_PANEL) {
                    const T_bfloat16 *src = b + k0 * rs + j0;
                    switch ((w - j0) / VF_N < NARROW_PANEL ? (w - j0) / VF_N : NARROW_PANEL) { /* a constant ng each: its own loop */
                    case 1: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 1); break;
                    case 2: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 2); break;
                    case 3: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 3); break;
                    case 4: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 4); break;
                    case 5: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 5); break;
                    case 6: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 6); break;
                    case 7: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 7); break;
                    case 8: narrow_rows_bfloat16_avx2(r, j0, src, rs, k1 - k0, 8); break;
                    default: break;
                    }
                }
            }
            if (w % VF_N != 0) /* else an empty loop over the rows: 10% of (1000000, 64) float32 */
                for (int64_t i = 0; i < nb; i++)
                    for (int64_t j = w / VF_N * VF_N; j < w; j++) col_add_bfloat16(r, j, LOAD_bfloat16(b[i * rs + j]));
            vec_zeroupper();
            if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
                rows_nonfinite_bfloat16_avx2(r, b, rs, nb, w);
                continue;
            }
            if (rows_block_ok_bfloat16(r, nb)) {
                rows_block_keep_bfloat16_avx2(r, b, rs, nb, w);
            } else {
                uint8_t ok[TILE];
                columns_ok_bfloat16_avx2(b, rs, nb, w, ok);
                if (!split_pays(ok, w) || !rows_split_bfloat16_avx2(r, b, rs, nb, w)) rows_block_end_bfloat16(r, b, rs, nb, 1, w, ok);
            }
        }
        return;
    }
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_bfloat16 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_bfloat16(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        if (r->nonfinite) {
            rows_nonfinite_bfloat16_avx2(r, b, rs, nb, w);
            continue;
        }
        rows_block_begin_bfloat16(r, b, rs, nb, 1, w);
        vi mxv = vi_zero(), mnv = vi_ones();
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * so each column sum is loaded and stored once per group and the
         * block is read as ROW_GROUP sequential streams. With a load and a
         * store per value the loop was bound by the load/store ports (W5
         * 1.2x the kernels before exactness); adjacent rows as the group
         * halved the read bandwidth from memory (the hardware prefetchers
         * lose streams of a row each). When the block passes its check its
         * sums are exact in any order; when not, they are summed again. */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_bfloat16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vd lo = vd_load(r->s + j), hi = vd_load(r->s + j + VD_N);
                for (int k = 0; k < ROW_GROUP; k++) {
                    const T_bfloat16 *e = p + k * q * rs + j;
                    vf f = vf_load_bf16(e);
                    vi a = vi_absbits(f);
                    mxv = vi_max_u32(mxv, a);
                    mnv = vi_min_u32(mnv, vi_dec(a));
                    lo = vd_add(lo, VF_LO_bfloat16(f, e));
                    hi = vd_add(hi, VF_HI_bfloat16(f, e));
                }
                vd_store(r->s + j, lo);
                vd_store(r->s + j + VD_N, hi);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_bfloat16(r, jj, LOAD_bfloat16(p[k * q * rs + jj]));
        }
        int64_t i = ROW_GROUP * q;
        for (; i < nb; i++) {
            const T_bfloat16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vf f = vf_load_bf16(p + j);
                vi a = vi_absbits(f);
                mxv = vi_max_u32(mxv, a);
                mnv = vi_min_u32(mnv, vi_dec(a));
                vd_store(r->s + j, vd_add(vd_load(r->s + j), VF_LO_bfloat16(f, p + j)));
                vd_store(r->s + j + VD_N, vd_add(vd_load(r->s + j + VD_N), VF_HI_bfloat16(f, p + j)));
            }
            for (; j < w; j++) col_add_bfloat16(r, j, LOAD_bfloat16(p[j]));
        }
        uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
        r->bmx = mx > r->bmx ? mx : r->bmx;
        r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
        vec_zeroupper();
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_bfloat16_avx2(r, b, rs, nb, w);
            continue;
        }
        if (rows_block_ok_bfloat16(r, nb)) {
            rows_block_keep_bfloat16_avx2(r, b, rs, nb, w);
        } else {
            uint8_t ok[TILE];
            columns_ok_bfloat16_avx2(b, rs, nb, w, ok);
            if (!split_pays(ok, w) || !rows_split_bfloat16_avx2(r, b, rs, nb, w)) rows_block_end_bfloat16(r, b, rs, nb, 1, w, ok);
        }
    }
}
#undef VF_LO_bfloat16
#undef VF_HI_bfloat16
#undef LOAD2_bfloat16

VEC_TARGET static void run_bfloat16_avx2(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_bfloat16)
        block_bfloat16_avx2(x + i, n - i < RUN_BLOCK_bfloat16 ? n - i : RUN_BLOCK_bfloat16, l);
}
/* float32, avx2: VD_N values at p (a vf f already loaded from p) as a vd */
#ifdef vd_load_f32
#define VF_LO_float32(f, p) vd_load_f32(p)
#define VF_HI_float32(f, p) vd_load_f32((p) + VD_N)
#endif
#ifndef VF_LO_float32
#define VF_LO_float32(f, p) vf_lo(f)
#define VF_HI_float32(f, p) vf_hi(f)
#endif
/* 2 * VF_N values at p: their |x| bit patterns folded into the running max
 * and min - 1 (unsigned), and the values as 4 vd of doubles. */
#define LOAD2_float32(p, d, mx, mn1) do { \
        vf f0_ = vf_load_f32(p), f1_ = vf_load_f32((p) + VF_N); \
        vi a0_ = vi_absbits(f0_), a1_ = vi_absbits(f1_); \
        (mx) = vi_max_u32((mx), vi_max_u32(a0_, a1_)); \
        (mn1) = vi_min_u32((mn1), vi_min_u32(vi_dec(a0_), vi_dec(a1_))); \
        (d)[0] = VF_LO_float32(f0_, (p)); (d)[1] = VF_HI_float32(f0_, (p)); \
        (d)[2] = VF_LO_float32(f1_, (p) + VF_N); (d)[3] = VF_HI_float32(f1_, (p) + VF_N); \
    } while (0)

/* split_block of kernel_exact.c.j2 (a block in L1 that failed its check),
 * VF_N values at a time: the lanes of at least 2^T and those below, apart. */
VEC_TARGET __attribute__((noinline)) static int split_block_float32_avx2(const T_float32 *x, int64_t n, uint32_t mx, lanes_float32 *l)
{
    uint32_t thr = split_threshold_float32(mx, n);
    if (!thr) return 0;
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vd b0 = vd_set1(0.0), b1 = b0, s0 = b0, s1 = b0;
    vi smxv = vi_zero(), smnv = vi_ones();
    int64_t i = 0;
    for (; i + VF_N <= n; i += VF_N) {
        vf f = vf_load_f32(x + i);
        vi a = vi_absbits(f), big = vi_gt_s32(a, below), as = vi_andnot(big, a);
        smxv = vi_max_u32(smxv, as);
        smnv = vi_min_u32(smnv, vi_dec(as));
        vf fb = vf_from_bits(vi_and(big, vf_bits(f))), fs = vf_from_bits(vi_andnot(big, vf_bits(f)));
        b0 = vd_add(b0, vf_lo(fb));
        b1 = vd_add(b1, vf_hi(fb));
        s0 = vd_add(s0, vf_lo(fs));
        s1 = vd_add(s1, vf_hi(fs));
    }
    double pb[VD_N], ps[VD_N], sums[2] = {0.0, 0.0};
    vd_store(pb, vd_add(b0, b1));
    vd_store(ps, vd_add(s0, s1));
    uint32_t smx = vi_hmax_u32(smxv), smn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int k = 0; k < VD_N; k++) {
        sums[0] += pb[k];
        sums[1] += ps[k];
    }
    for (; i < n; i++) split_add_float32(LOAD_float32(x[i]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_float32, LSB_MIN_float32)) return 0;
    lanes_keep_float32(l, x, 1, n, sums, 2, mx != 0);
    return 1;
}

VEC_TARGET static void block_float32_avx2(const T_float32 *x, int64_t n, lanes_float32 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_float32_avx2(const T_float32 *x, int64_t n, lanes_float32 *l)
{
    T_float32 raw[RUN_BLOCK_float32 + 4096 / sizeof(T_float32)], *buf = copy_at_float32(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_float32(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    if (f & SACC_NAN) l->masknan = 1;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float32_avx2(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_float32_avx2(const T_float32 *x, int64_t n, lanes_float32 *l)
{
    /* skipna: float32 masks NaN lanes as it reads them (below); the others,
     * and blocks sent to the exact path, through a copy without them */
    const int masked = 1 && !ALWAYS_EXACT_float32 && l->skip <= 0;
    if (l->skipna && !masked && block_nonfinite_float32_avx2(x, n, l)) return;
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        (void)chunk_block_float32(x, 1, n, &l->acc);
        return;
    }
    vd s[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    int64_t i = 0;
    if (ALWAYS_EXACT_float32) {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float32));
            vf f0 = vf_load_f32(x + i), f1 = vf_load_f32(x + i + VF_N);
            (void)f0, (void)f1; /* unread where the values widen from memory */
            s[0] = vd_add(s[0], VF_LO_float32(f0, x + i));
            s[1] = vd_add(s[1], VF_HI_float32(f0, x + i));
            s[2] = vd_add(s[2], VF_LO_float32(f1, x + i + VF_N));
            s[3] = vd_add(s[3], VF_HI_float32(f1, x + i + VF_N));
        }
        double part[VD_N], total = 0.0;
        vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
        for (; i < n; i++) part[0] += LOAD_float32(x[i]);
        for (int k = 0; k < VD_N; k++) total += part[k];
        vec_zeroupper();
        if (isfinite(total)) lanes_keep_float32(l, x, 1, n, &total, 1, total != 0.0);
        else if (!block_nonfinite_float32_avx2(x, n, l)) (void)chunk_block_float32(x, 1, n, &l->acc);
        return;
    }
    vi mxv = vi_zero(), mnv = vi_ones();
    int64_t nan = 0; /* skipna (and after a block with NaN): NaN read as -0.0 (their |x| bits as 0) */
    if (l->skipna || l->masknan) {
        const vi inf = vi_set1(0x7f800000), sign = vi_set1((int32_t)0x80000000u);
        vi cnt = vi_zero();
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float32));
            vf f0 = vf_load_f32(x + i), f1 = vf_load_f32(x + i + VF_N);
            vi a0 = vi_absbits(f0), a1 = vi_absbits(f1), m0 = vi_gt_s32(a0, inf), m1 = vi_gt_s32(a1, inf);
            cnt = vi_sub(vi_sub(cnt, m0), m1); /* a NaN lane is -1 */
            a0 = vi_andnot(m0, a0);
            a1 = vi_andnot(m1, a1);
            f0 = vf_from_bits(vi_or(vi_andnot(m0, vf_bits(f0)), vi_and(m0, sign)));
            f1 = vf_from_bits(vi_or(vi_andnot(m1, vf_bits(f1)), vi_and(m1, sign)));
            mxv = vi_max_u32(mxv, vi_max_u32(a0, a1));
            mnv = vi_min_u32(mnv, vi_min_u32(vi_dec(a0), vi_dec(a1)));
            s[0] = vd_add(s[0], vf_lo(f0));
            s[1] = vd_add(s[1], vf_hi(f0));
            s[2] = vd_add(s[2], vf_lo(f1));
            s[3] = vd_add(s[3], vf_hi(f1));
        }
        int32_t c[VF_N];
        vi_store(c, cnt);
        for (int k = 0; k < VF_N; k++) nan += c[k];
    } else {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            vd d[4];
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float32));
            LOAD2_float32(x + i, d, mxv, mnv);
            for (int k = 0; k < 4; k++) s[k] = vd_add(s[k], d[k]);
        }
    }
    /* the four sums in a tree: when the block passes its check, every
     * partial sum is exact, so no order of the additions changes a bit */
    double part[VD_N], total = 0.0;
    vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    for (; i < n; i++) {
        double v = LOAD_float32(x[i]);
        if ((l->skipna || l->masknan) && v != v) { /* as -0.0: nothing to add, no bound */
            nan++;
            continue;
        }
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        part[0] += v;
    }
    vec_zeroupper();
    /* an inf or NaN among them; or NaN skipped where a fallback below would
     * read them (the exact paths, the sign of a zero sum) */
    const int ok = narrow_sum_exact(mx, mn1, n, PREC_float32, LSB_MIN_float32);
    if ((mx >= 0x7f800000u || (nan && (!ok || mx == 0))) && block_nonfinite_float32_avx2(x, n, l)) return;
    if (l->skipna) l->acc.w[0] += (uint64_t)nan;
    else if (nan) l->acc.w[1] |= SACC_NAN | SACC_NONNEGZERO;
    if (ok) {
        for (int k = 0; k < VD_N; k++) total += part[k]; /* exact, as every partial sum */
        lanes_keep_float32(l, x, 1, n, &total, 1, mx != 0);
        l->fails = 0;
    } else if (split_block_float32_avx2(x, n, mx, l)) {
        l->fails = 0;
    } else {
        (void)chunk_block_float32(x, 1, n, &l->acc);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* div_odd on VD_N lanes: q = RN(S / n), e = S - q * n exactly; an inexact
 * lane steps toward zero when |q| is above |S / n|, then sets its last bit. */
VEC_TARGET static inline vd div_odd_float32_avx2(vd S, vd nv)
{
    vd q = vd_div(S, nv), e = vd_fnmadd(q, nv, S);
    vq inexact = vd_ne0(e);
    vq toward = vq_srli(vd_bits(vd_xor(e, q)), 63); /* signs differ */
    vq b = vd_bits(q);
    b = vq_sub(b, vq_and(inexact, toward));
    b = vq_or(b, vq_and(inexact, vq_set1(1)));
    return vd_from_bits(b);
}

/* The sums of the VF_N outputs at j as two vd: bsum (+ rsum[j] where hr)
 * + the nc contiguous inputs at j; their values' |x| bit patterns folded
 * into *mxv (max) and *mnv (min of |x| - 1). Inlined with constant nc, hr. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_vsum_float32_avx2(
    const T_float32 *const *cont, const int nc, const int hr, const double *rsum, vd b, int64_t j, vd *s0, vd *s1,
    vi *mxv, vi *mnv)
{
    vd a0 = b, a1 = b;
    if (hr) {
        a0 = vd_add(a0, vd_load(rsum + j));
        a1 = vd_add(a1, vd_load(rsum + j + VD_N));
    }
    for (int i = 0; i < nc; i++) { /* no software prefetch: see PREFETCH_BYTES */
        vf f = vf_load_f32(cont[i] + j);
        vi a = vi_absbits(f);
        *mxv = vi_max_u32(*mxv, a);
        *mnv = vi_min_u32(*mnv, vi_dec(a));
        a0 = vd_add(a0, VF_LO_float32(f, cont[i] + j));
        a1 = vd_add(a1, VF_HI_float32(f, cont[i] + j));
    }
    *s0 = a0;
    *s1 = a1;
}

/* S[j] for j < wv (a multiple of VF_N) by mean_vsum. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_sums_float32_avx2(
    const T_float32 *const *cont, const int nc, const int hr, const double *rsum, int64_t wv, double bsum, double *S,
    vi *mxp, vi *mnp)
{
    vi mxv = *mxp, mnv = *mnp;
    const vd b = vd_set1(bsum);
    for (int64_t j = 0; j < wv; j += VF_N) {
        vd s0, s1;
        mean_vsum_float32_avx2(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vd_store(S + j, s0);
        vd_store(S + j + VD_N, s1);
    }
    *mxp = mxv;
    *mnp = mnv;
}

/* Whether mean_bymul rounds as S / n does, for a unit of n inputs that
 * passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. For n a
 * power of two, S * (1 / n) is exact. Not a power of two (n >= 3): q = RN(S * RN(1 / n)) is within 1.6 of
 * its ulps of S / n, so r = q * n - S is a multiple of ulp(q) (n is an
 * integer, |S| > |q|) below 2^53 of them: fma(q, n, -S) is exact, and
 * q' = fma(-r, rn, q) is RN(S / n + e), |e| < 2^-51 ulp(q). The unit
 * passed narrow_sum_exact, so its values are multiples of 2^g >= n *
 * 2^(m - 52), |S / n| < 2^(m + 1) (m the largest value's exponent); S - n
 * * M, for M a float32 midpoint (or FLT_MAX's upper one, the overflow
 * threshold) next to S / n, is a multiple of min(2^g, ulp32(M) / 2): when
 * it is not zero, |S / n - M| >= ulp(M) (the double's: ulp32(M) =
 * 2^29 ulp(M) <= 2^(m - 23), n < 2^28), so q' is on S / n's side of every
 * midpoint, and when it is zero q' = M, a tie (to even): q' rounds to
 * float32 as S / n does. A zero S makes r +0.0 and -r * rn -0.0, which
 * leaves either zero q as it is (-0.0 for a mean of -0.0s). That holds
 * while S / n and q are in float32's normal range: every nonzero S is at
 * least 2^g (the grid of the unit's values, below), so |S / n| >= 2^(g -
 * cl); a unit where that can fall below 2^-125 takes the division and
 * rounding to odd. */
static inline int mean_bymul_ok_float32_avx2(int ninputs, uint32_t mn1)
{
    if ((ninputs & (ninputs - 1)) == 0) return 1;
    int cl = 64 - __builtin_clzll((uint64_t)(ninputs - 1)), g = -149; /* n <= 2^cl */
    if (mn1 != UINT32_MAX) {
        int t = (int)((mn1 + 1) >> 23) - 127;
        g = t - 23 < -149 ? -149 : t - 23;
    }
    return ninputs < (1 << 28) && g - cl >= -125;
}

/* RN(S / n) as float32 will round it, from an exact S (mean_bymul_ok). */
VEC_TARGET __attribute__((always_inline)) static inline vd mean_bymul_float32_avx2(vd Sv, vd nv, vd rn, const int pow2)
{
    vd q = vd_mul(Sv, rn);
    return pow2 ? q : vd_fnmadd(vd_fmsub(q, nv, Sv), rn, q);
}

/* VF_N outputs of a unit that passed narrow_sum_exact from its exact sums S
 * (mean_bymul where mean_bymul_ok, else rounded to odd and then to float32). */
VEC_TARGET __attribute__((always_inline)) static inline vf mean_vf_float32_avx2(vd s0, vd s1, vd nv, vd rn, const int pow2,
                                                                             const int bymul)
{
    if (bymul)
        return vf_join(vh_from_vd(mean_bymul_float32_avx2(s0, nv, rn, pow2)),
                       vh_from_vd(mean_bymul_float32_avx2(s1, nv, rn, pow2)));
    return vf_join(vh_from_vd(div_odd_float32_avx2(s0, nv)), vh_from_vd(div_odd_float32_avx2(s1, nv)));
}

/* Streamed stores (stream set): meancli_mean sets it only where every
 * unit's dst is 16-byte aligned and its w a multiple of 4, and then every
 * output goes out in streamed whole vectors or 16-byte quarters of one. A
 * line written partly by cached stores costs a read of it and a partial
 * write: 2.4x (AVX-512) to 3.6x (AVX2) the time, measured. MEAN_LEAD: the
 * outputs before dst's first whole-vector alignment (a multiple of 4). */
#define MEAN_LEAD(dst) ((int64_t)(((sizeof(vf) - ((uintptr_t)(dst) & (sizeof(vf) - 1))) & (sizeof(vf) - 1)) / 4))

/* dst[0, w) from the float32 values in v, by streamed 16-byte stores (w a multiple of 4, dst 16-byte aligned) */
VEC_TARGET static inline void mean_stream_floats_float32_avx2(float *dst, const float *v, int64_t w)
{
    for (int64_t j = 0; j < w; j += 4) _mm_stream_ps(dst + j, _mm_loadu_ps(v + j));
}

/* mean_unit in one pass, for a unit whose output overlaps none of its
 * inputs: each vector of outputs summed (mean_vsum), divided (mean_bymul)
 * and stored at once, the unit's bound folded on the way and checked at the
 * end; the outputs after the last whole vector are summed aside and written
 * once it passed (streamed: the first and last vector's quarters that are
 * not whole vectors of dst, and a unit narrower than a vector aside).
 * Returns 0 when the check or the multiply's range fails: the outputs
 * written are then wrong, and the caller computes the unit again (its
 * inputs are intact). Inlined with constant nc and hr. */
VEC_TARGET __attribute__((always_inline)) static inline int mean_fused_float32_avx2(
    const T_float32 *const *cont, const int nc, const int hr, const double *rsum, double bsum, uint32_t mx,
    uint32_t mn1, int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t w, T_float32 *dst, int stream)
{
    const vd b = vd_set1(bsum), nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    vi mxv = vi_zero(), mnv = vi_ones();
    vd s0, s1;
    const int nt = stream && w >= VF_N;
    int64_t j = 0;
    if (nt && MEAN_LEAD(dst)) { /* quarters on to a whole vector's alignment */
        mean_vsum_float32_avx2(cont, nc, hr, rsum, b, 0, &s0, &s1, &mxv, &mnv);
        vf_stream_quarters((float *)dst, mean_vf_float32_avx2(s0, s1, nv, rn, pow2, 1), 0, (int)MEAN_LEAD(dst) / 4);
        j = MEAN_LEAD(dst);
    }
    for (; j + VF_N <= w; j += VF_N) {
        mean_vsum_float32_avx2(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vf f = mean_vf_float32_avx2(s0, s1, nv, rn, pow2, 1);
        if (nt) vf_stream((float *)dst + j, f);
        else vf_store((float *)dst + j, f);
    }
    if (nt && j < w) { /* the last quarters: of the vector ending at w */
        mean_vsum_float32_avx2(cont, nc, hr, rsum, b, w - VF_N, &s0, &s1, &mxv, &mnv);
        vf_stream_quarters((float *)dst + w - VF_N, mean_vf_float32_avx2(s0, s1, nv, rn, pow2, 1),
                           (int)(j - (w - VF_N)) / 4, VF_N / 4);
        j = w;
    }
    const int64_t j1 = j;
    uint32_t vmx = vi_hmax_u32(mxv), vmn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    mx = vmx > mx ? vmx : mx;
    mn1 = vmn1 < mn1 ? vmn1 : mn1;
    double side[VF_N]; /* the sums of outputs [j1, w) */
    for (int64_t j = j1; j < w; j++) {
        double sj = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_float32(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            sj += v;
        }
        side[j - j1] = sj;
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_float32, LSB_MIN_float32) || !mean_bymul_ok_float32_avx2(ninputs, mn1))
        return 0;
    float f[VF_N];
    for (int64_t j = j1; j < w; j++) f[j - j1] = store_float32(div_odd(side[j - j1], (double)ninputs));
    if (stream)
        mean_stream_floats_float32_avx2((float *)dst + j1, f, w - j1);
    else
        memcpy(dst + j1, f, (size_t)(w - j1) * sizeof *f);
    return 1;
}

/* dst[j] = S[j] / n rounded once to the format, for j < w: S exact sums of
 * a unit that passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. */
VEC_TARGET static void mean_finish_float32_avx2(const double *S, int ninputs, uint32_t mn1, int64_t w, T_float32 *dst,
                                               int stream)
{
    const vd nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    int64_t j = 0;
    const int bymul = mean_bymul_ok_float32_avx2(ninputs, mn1);
    const int nt = stream && w >= VF_N; /* streamed: as mean_fused */
    if (nt && MEAN_LEAD(dst)) {
        vf_stream_quarters((float *)dst, mean_vf_float32_avx2(vd_load(S), vd_load(S + VD_N), nv, rn, pow2, bymul), 0,
                           (int)MEAN_LEAD(dst) / 4);
        j = MEAN_LEAD(dst);
    }
    for (; j + VF_N <= w; j += VF_N) {
        vf f = mean_vf_float32_avx2(vd_load(S + j), vd_load(S + j + VD_N), nv, rn, pow2, bymul);
        if (nt) vf_stream((float *)dst + j, f);
        else vf_store((float *)dst + j, f);
    }
    if (j < w && w >= VF_N) { /* the vector ending at w (cached: rewrites outputs with their own values) */
        vf f = mean_vf_float32_avx2(vd_load(S + w - VF_N), vd_load(S + w - VD_N), nv, rn, pow2, bymul);
        if (nt) vf_stream_quarters((float *)dst + w - VF_N, f, (int)(j - (w - VF_N)) / 4, VF_N / 4);
        else vf_store((float *)dst + w - VF_N, f);
        j = w;
    }
    float f[VF_N];
    for (int64_t i = j; i < w; i++) f[i - j] = store_float32(div_odd(S[i], (double)ninputs));
    if (stream)
        mean_stream_floats_float32_avx2((float *)dst + j, f, w - j);
    else
        memcpy(dst + j, f, (size_t)(w - j) * sizeof *f);
    j = w;
    for (; j < w; j++) dst[j] = store_float32(div_odd(S[j], (double)ninputs));
    vec_zeroupper();
}

/* The vector form of mean_unit when every input is read contiguously or
 * broadcast along the inner dim (sinner 1 or 0): the same sums, check and
 * rounding, VF_N outputs at a time. */
VEC_TARGET static void mean_unit_float32_avx2(int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t w,
                                              T_float32 *dst, int stream, const mean_rowsum *rows)
{
    double S[TILE];
    vi mxv = vi_zero(), mnv = vi_ones();
    /* broadcast inputs once: their sum starts every output's sum (when the
     * check passes, every order of the additions gives the same exact sum) */
    const T_float32 *cont[MEAN_VEC_MAX];
    int ncont = 0;
    double bsum = -0.0;
    uint32_t bmx = 0, bmn1 = UINT32_MAX;
    for (int i = 0; i < ninputs; i++) {
        if (rows && rows->taken[i]) continue; /* in rows->sum */
        if (sinner[i] && ncont < MEAN_VEC_MAX) {
            cont[ncont++] = src[i];
            continue;
        }
        if (sinner[i]) { /* more contiguous inputs than the vector loop takes */
            vec_zeroupper();
            mean_unit_float32(ninputs, src, sinner, w, dst);
            return;
        }
        double v = LOAD_float32(src[i][0]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        bmx = a > bmx ? a : bmx;
        bmn1 = a - 1u < bmn1 ? a - 1u : bmn1;
        bsum += v;
    }
    const double *rsum = NULL;
    if (rows) {
        rsum = rows->sum;
        bmx = rows->mx > bmx ? rows->mx : bmx;
        bmn1 = rows->mn1 < bmn1 ? rows->mn1 : bmn1;
    }
    int apart = 1; /* the output overlaps no input: one pass */
    for (int i = 0; apart && i < ninputs; i++) {
        uintptr_t lo = (uintptr_t)src[i], hi = (uintptr_t)(src[i] + (sinner[i] ? w : 1));
        apart = hi <= (uintptr_t)dst || (uintptr_t)(dst + w) <= lo;
    }
    if (apart) {
        int done;
        switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
        case 1:
            done = mean_fused_float32_avx2(cont, 0, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 2:
            done = mean_fused_float32_avx2(cont, 1, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 3:
            done = mean_fused_float32_avx2(cont, 1, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 4:
            done = mean_fused_float32_avx2(cont, 2, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 5:
            done = mean_fused_float32_avx2(cont, 2, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 6:
            done = mean_fused_float32_avx2(cont, 3, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 7:
            done = mean_fused_float32_avx2(cont, 3, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 8:
            done = mean_fused_float32_avx2(cont, 4, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 9:
            done = mean_fused_float32_avx2(cont, 4, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        default:
            done = mean_fused_float32_avx2(cont, ncont, rsum != NULL, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst,
                                             stream);
            break;
        }
        if (done) return;
        if (stream) _mm_sfence(); /* the streamed stores land before those that redo them */
    }
    int64_t j = w / VF_N * VF_N;
    switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
    case 1: mean_sums_float32_avx2(cont, 0, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 2: mean_sums_float32_avx2(cont, 1, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 3: mean_sums_float32_avx2(cont, 1, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 4: mean_sums_float32_avx2(cont, 2, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 5: mean_sums_float32_avx2(cont, 2, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 6: mean_sums_float32_avx2(cont, 3, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 7: mean_sums_float32_avx2(cont, 3, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 8: mean_sums_float32_avx2(cont, 4, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 9: mean_sums_float32_avx2(cont, 4, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    default: mean_sums_float32_avx2(cont, ncont, rsum != NULL, rsum, j, bsum, S, &mxv, &mnv); break;
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    mx = bmx > mx ? bmx : mx;
    mn1 = bmn1 < mn1 ? bmn1 : mn1;
    for (; j < w; j++) {
        S[j] = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_float32(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_float32, LSB_MIN_float32)) { /* rare: the portable unit checks output by output */
        vec_zeroupper();
        mean_unit_float32(ninputs, src, sinner, w, dst);
        return;
    }
    mean_finish_float32_avx2(S, ninputs, mn1, w, dst, stream);
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w
 * (mean_unit's results): the unit's check over its w * k contiguous values
 * in vectors, the sums in scalar double (a constant k each, for the
 * compiler), the division in vectors (mean_finish). A unit that fails the
 * check goes to mean_unit. */
VEC_TARGET __attribute__((always_inline)) static inline void run_sums_float32_avx2(const T_float32 *x, const int k,
                                                                                     int64_t w, double *S)
{
    for (int64_t j = 0; j < w; j++) {
        double s = -0.0;
        for (int i = 0; i < k; i++) s += LOAD_float32(x[j * k + i]);
        S[j] = s;
    }
}

VEC_TARGET static void mean_runs_float32_avx2(const T_float32 *x, int k, int64_t w, T_float32 *dst)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    const int64_t nv = w * k;
    int64_t i = 0;
    for (; i + VF_N <= nv; i += VF_N) {
        vi a = vi_absbits(vf_load_f32(x + i));
        mxv = vi_max_u32(mxv, a);
        mnv = vi_min_u32(mnv, vi_dec(a));
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    for (; i < nv; i++) {
        uint32_t a = f32_to_bits((float)LOAD_float32(x[i])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    if (!narrow_sum_exact(mx, mn1, k, PREC_float32, LSB_MIN_float32)) {
        const T_float32 *src[INNER_AS_MEAN_MAX];
        int64_t sinner[INNER_AS_MEAN_MAX];
        for (int f = 0; f < k; f++) {
            src[f] = x + f;
            sinner[f] = k;
        }
        mean_unit_float32(k, src, sinner, w, dst);
        return;
    }
    double S[TILE];
    switch (k) { /* a constant k each */
    case 1: run_sums_float32_avx2(x, 1, w, S); break;
    case 2: run_sums_float32_avx2(x, 2, w, S); break;
    case 3: run_sums_float32_avx2(x, 3, w, S); break;
    case 4: run_sums_float32_avx2(x, 4, w, S); break;
    case 5: run_sums_float32_avx2(x, 5, w, S); break;
    case 6: run_sums_float32_avx2(x, 6, w, S); break;
    case 7: run_sums_float32_avx2(x, 7, w, S); break;
    case 8: run_sums_float32_avx2(x, 8, w, S); break;
    case 12: run_sums_float32_avx2(x, 12, w, S); break;
    case 16: run_sums_float32_avx2(x, 16, w, S); break;
    case 24: run_sums_float32_avx2(x, 24, w, S); break;
    case 32: run_sums_float32_avx2(x, 32, w, S); break;
    default: run_sums_float32_avx2(x, k, w, S); break;
    }
    mean_finish_float32_avx2(S, k, mn1, w, dst, 0);
}

/* rows_split of kernel_exact.c.j2, VF_N columns at a time (the block is in
 * L1 or L2: it was just read). */
VEC_TARGET __attribute__((noinline)) static int rows_split_float32_avx2(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t w)
{
    uint32_t thr = split_threshold_float32(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    memset(big, 0, (size_t)w * sizeof *big);
    memset(small, 0, (size_t)w * sizeof *small);
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vi smxv = vi_zero(), smnv = vi_ones();
    const int64_t wv = w / VF_N * VF_N;
    for (int64_t i = 0; i < nrows; i++) {
        const T_float32 *p = x + i * rs;
        for (int64_t j = 0; j < wv; j += VF_N) {
            vf f = vf_load_f32(p + j);
            vi a = vi_absbits(f), bg = vi_gt_s32(a, below), as = vi_andnot(bg, a);
            smxv = vi_max_u32(smxv, as);
            smnv = vi_min_u32(smnv, vi_dec(as));
            vf fb = vf_from_bits(vi_and(bg, vf_bits(f))), fs = vf_from_bits(vi_andnot(bg, vf_bits(f)));
            vd_store(big + j, vd_add(vd_load(big + j), vf_lo(fb)));
            vd_store(big + j + VD_N, vd_add(vd_load(big + j + VD_N), vf_hi(fb)));
            vd_store(small + j, vd_add(vd_load(small + j), vf_lo(fs)));
            vd_store(small + j + VD_N, vd_add(vd_load(small + j + VD_N), vf_hi(fs)));
        }
    }
    uint32_t vmx = vi_hmax_u32(smxv), vmn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = wv; j < w; j++) split_add_float32(LOAD_float32(x[i * rs + j]), thr, &big[j], &small[j], &smx, &smn1);
    smx = vmx > smx ? vmx : smx;
    smn1 = vmn1 < smn1 ? vmn1 : smn1;
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_float32, LSB_MIN_float32)) return 0;
    rows_keep_split_float32(r, x, rs, nrows, 1, w, big, small);
    return 1;
}

/* rows_block_end of a block that passed its shared check, VD_N columns at a
 * time: the block sums on into the kept sums where TwoSum shows each lane's
 * addition exact and no block sum is zero; other lanes one by one. */
VEC_TARGET static void rows_block_keep_float32_avx2(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows,
                                                     int64_t w)
{
    const vd zero = vd_set1(0.0);
    const vq ones = vq_set1(-1);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        vd a = vd_load(r->t + j), b = vd_load(r->s + j);
        vd sum = vd_add(a, b), bv = vd_sub(sum, a);
        vd err = vd_add(vd_sub(a, vd_sub(sum, bv)), vd_sub(b, bv)); /* NaN where sum overflowed */
        vq slow = vq_or(vd_bits(vd_above(err, zero)), vq_andnot(vd_bits(vd_above(b, zero)), ones));
        if (vd_anybits(vd_from_bits(slow))) {
            vec_zeroupper();
            for (int k = 0; k < VD_N; k++) keep_column_float32(r, x + j + k, rs, nrows, j + k);
            continue;
        }
        vd_store(r->t + j, sum);
        vd_store(r->tnz + j, vd_max(vd_load(r->tnz + j), vd_abs(b)));
    }
    vec_zeroupper();
    for (; j < w; j++) keep_column_float32(r, x + j, rs, nrows, j);
}

/* Each column's own check of a block (VF_N columns at a time, the bounds in registers). */
VEC_TARGET static void columns_ok_float32_avx2(const T_float32 *b, int64_t rs, int64_t nb, int64_t w, uint8_t *ok)
{
    int64_t j = 0;
    for (; j + VF_N <= w; j += VF_N) {
        vi mxv = vi_zero(), mnv = vi_ones();
        for (int64_t i = 0; i < nb; i++) {
            vi a = vi_absbits(vf_load_f32(b + i * rs + j));
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
        }
        uint32_t mx[VF_N], mn1[VF_N];
        vi_store(mx, mxv);
        vi_store(mn1, mnv);
        for (int k = 0; k < VF_N; k++) ok[j + k] = (uint8_t)narrow_sum_exact(mx[k], mn1[k], nb, PREC_float32, LSB_MIN_float32);
    }
    vec_zeroupper();
    for (; j < w; j++) ok[j] = (uint8_t)column_ok_float32(NULL, j, b + j, rs, nb);
}

/* Narrow rows (w <= NARROW_ROW): the first ng * VF_N column sums in 2 * ng
 * registers across the block's rows (each read once, in order), the
 * block's shared bound in two more. Inlined with a
 * constant ng, so the sums stay in registers. */
VEC_TARGET __attribute__((always_inline)) static inline void narrow_rows_float32_avx2(
    rowacc_float32 *r, int64_t j0, const T_float32 *x, int64_t rs, int64_t nrows, const int ng)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    vd c[2 * NARROW_PANEL];
    for (int q = 0; q < 2 * ng; q++) c[q] = vd_load(r->s + j0 + VD_N * q);
    for (int64_t i = 0; i < nrows; i++) {
        const T_float32 *p = x + i * rs;
        for (int q = 0; q < ng; q++) {
            vf f = vf_load_f32(p + VF_N * q);
            vi a = vi_absbits(f);
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
            c[2 * q] = vd_add(c[2 * q], VF_LO_float32(f, p + VF_N * q));
            c[2 * q + 1] = vd_add(c[2 * q + 1], VF_HI_float32(f, p + VF_N * q));
        }
    }
    for (int q = 0; q < 2 * ng; q++) vd_store(r->s + j0 + VD_N * q, c[q]);
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    r->bmx = mx > r->bmx ? mx : r->bmx;
    r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
}

/* Each row read once: narrow ones one after the other, as above; wide
 * ones ROW_GROUP at a time (below), the column sums in L1; the block's
 * shared bound in registers. */
VEC_TARGET static void add_rows_float32_avx2(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t w);

/* rows_nonfinite of kernel_exact.c.j2 on this ISA's row kernels. */
VEC_TARGET __attribute__((noinline)) static void rows_nonfinite_float32_avx2(rowacc_float32 *r, const T_float32 *x, int64_t rs,
                                                                             int64_t nrows, int64_t w)
{
    T_float32 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float32)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float32)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    vec_zeroupper();
    r->nonfinite = 0; /* the copies hold none */
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_float32 *buf = copy_at_float32(raw, x + i * rs);
        clean_rows_float32(x + i * rs, rs, m, 1, w, buf, 0, r->acc);
        add_rows_float32_avx2(r, buf, w, m, w);
    }
    r->nonfinite = 1; /* the next blocks straight here (data with NaN tends to keep them) */
}

VEC_TARGET static void add_rows_float32_avx2(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t w)
{
    if (w <= PANEL_ROWS_MAX) {
        const int64_t row_bytes = w * (int64_t)sizeof(T_float32);
        int64_t sub = row_bytes ? 16384 / row_bytes : NARROW_SUB;
        sub = sub < 1 ? 1 : (sub > NARROW_SUB ? NARROW_SUB : sub);
        for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
            nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
            const T_float32 *b = x + i0 * rs;
            if (r->skip > 0) {
                vec_zeroupper();
                nb = rows_block_exact_float32(r, b, rs, nrows - i0, 1, w);
                continue;
            }
            if (r->nonfinite) {
                rows_nonfinite_float32_avx2(r, b, rs, nb, w);
                continue;
            }
            rows_block_begin_float32(r, b, rs, nb, 1, w);
            /* panels of NARROW_PANEL * VF_N columns over sub-blocks of NARROW_SUB
             * rows (in L1 after the first panel) */
            for (int64_t k0 = 0; k0 < nb; k0 += sub) {
                int64_t k1 = k0 + sub < nb ? k0 + sub : nb;
                for (int64_t j0 = 0; j0 + VF_N <= w; j0 += VF_N * NARROW_PANEL) {
                    const T_float32 *src = b + k0 * rs + j0;
                    switch ((w - j0) / VF_N < NARROW_PANEL ? (w - j0) / VF_N : NARROW_PANEL) { /* a constant ng each: its own loop */
                    case 1: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 1); break;
                    case 2: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 2); break;
                    case 3: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 3); break;
                    case 4: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 4); break;
                    case 5: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 5); break;
                    case 6: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 6); break;
                    case 7: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 7); break;
                    case 8: narrow_rows_float32_avx2(r, j0, src, rs, k1 - k0, 8); break;
                    default: break;
                    }
                }
            }
            if (w % VF_N != 0) /* else an empty loop over the rows: 10% of (1000000, 64) float32 */
                for (int64_t i = 0; i < nb; i++)
                    for (int64_t j = w / VF_N * VF_N; j < w; j++) col_add_float32(r, j, LOAD_float32(b[i * rs + j]));
            vec_zeroupper();
            if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
                rows_nonfinite_float32_avx2(r, b, rs, nb, w);
                continue;
            }
            if (rows_block_ok_float32(r, nb)) {
                rows_block_keep_float32_avx2(r, b, rs, nb, w);
            } else {
                uint8_t ok[TILE];
                columns_ok_float32_avx2(b, rs, nb, w, ok);
                if (!split_pays(ok, w) || !rows_split_float32_avx2(r, b, rs, nb, w)) rows_block_end_float32(r, b, rs, nb, 1, w, ok);
            }
        }
        return;
    }
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float32 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_float32(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        if (r->nonfinite) {
            rows_nonfinite_float32_avx2(r, b, rs, nb, w);
            continue;
        }
        rows_block_begin_float32(r, b, rs, nb, 1, w);
        vi mxv = vi_zero(), mnv = vi_ones();
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * so each column sum is loaded and stored once per group and the
         * block is read as ROW_GROUP sequential streams. With a load and a
         * store per value the loop was bound by the load/store ports (W5
         * 1.2x the kernels before exactness); adjacent rows as the group
         * halved the read bandwidth from memory (the hardware prefetchers
         * lose streams of a row each). When the block passes its check its
         * sums are exact in any order; when not, they are summed again. */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_float32 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vd lo = vd_load(r->s + j), hi = vd_load(r->s + j + VD_N);
                for (int k = 0; k < ROW_GROUP; k++) {
                    const T_float32 *e = p + k * q * rs + j;
                    vf f = vf_load_f32(e);
                    vi a = vi_absbits(f);
                    mxv = vi_max_u32(mxv, a);
                    mnv = vi_min_u32(mnv, vi_dec(a));
                    lo = vd_add(lo, VF_LO_float32(f, e));
                    hi = vd_add(hi, VF_HI_float32(f, e));
                }
                vd_store(r->s + j, lo);
                vd_store(r->s + j + VD_N, hi);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_float32(r, jj, LOAD_float32(p[k * q * rs + jj]));
        }
        int64_t i = ROW_GROUP * q;
        for (; i < nb; i++) {
            const T_float32 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vf f = vf_load_f32(p + j);
                vi a = vi_absbits(f);
                mxv = vi_max_u32(mxv, a);
                mnv = vi_min_u32(mnv, vi_dec(a));
                vd_store(r->s + j, vd_add(vd_load(r->s + j), VF_LO_float32(f, p + j)));
                vd_store(r->s + j + VD_N, vd_add(vd_load(r->s + j + VD_N), VF_HI_float32(f, p + j)));
            }
            for (; j < w; j++) col_add_float32(r, j, LOAD_float32(p[j]));
        }
        uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
        r->bmx = mx > r->bmx ? mx : r->bmx;
        r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
        vec_zeroupper();
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_float32_avx2(r, b, rs, nb, w);
            continue;
        }
        if (rows_block_ok_float32(r, nb)) {
            rows_block_keep_float32_avx2(r, b, rs, nb, w);
        } else {
            uint8_t ok[TILE];
            columns_ok_float32_avx2(b, rs, nb, w, ok);
            if (!split_pays(ok, w) || !rows_split_float32_avx2(r, b, rs, nb, w)) rows_block_end_float32(r, b, rs, nb, 1, w, ok);
        }
    }
}
#undef VF_LO_float32
#undef VF_HI_float32
#undef LOAD2_float32

VEC_TARGET static void run_float32_avx2(const T_float32 *x, int64_t n, lanes_float32 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_float32)
        block_float32_avx2(x + i, n - i < RUN_BLOCK_float32 ? n - i : RUN_BLOCK_float32, l);
}
/* (x + g) - g, each rounded, on the FMA units as x * 1 + g and t * 1 - g
 * (the same two roundings): the adders are the bound of the reduction
 * loops (not of Mean's, which measured 3% slower with it). */
#ifndef VD_EXTRACT
#define VD_EXTRACT(x, g) vd_fmsub(vd_fmadd((x), vd_set1(1.0), (g)), vd_set1(1.0), (g))
#endif
VEC_TARGET static void block_float64_avx2(const T_float64 *x, int64_t n, lanes_float64 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_float64_avx2(const T_float64 *x, int64_t n, lanes_float64 *l)
{
    T_float64 raw[RUN_BLOCK_float64 + 4096 / sizeof(T_float64)], *buf = copy_at_float64(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_float64(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float64_avx2(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_float64_avx2(const T_float64 *x, int64_t n, lanes_float64 *l)
{
    if (l->skipna && block_nonfinite_float64_avx2(x, n, l)) return; /* skipna: through a copy without NaN */
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        double m = chunk_block_float64(x, 1, n, &l->acc);
        pick_sigma_float64(m, &l->A, &l->sigma1, &l->sigma2);
        return;
    }
    if (n < 2 * VD_N) {
        vec_zeroupper();
        block_float64(x, 1, n, l);
        return;
    }
    if (l->A == 0.0) { /* a run's first block: the sigmas of its first values, as block_ picks them */
        double m = 0.0;
        for (int64_t i = 0; i < 16; i++)
            if (fabs(x[i]) > m && fabs(x[i]) <= DBL_MAX) m = fabs(x[i]);
        pick_sigma_float64(m, &l->A, &l->sigma1, &l->sigma2);
    }
    const vd g1 = vd_set1(l->sigma1), g2 = vd_set1(l->sigma2);
    vd s1a = vd_set1(0.0), s1b = s1a, s2a = s1a, s2b = s1a, mxv = s1a, ro = s1a;
    int64_t i = 0;
    for (; i + 2 * VD_N <= n; i += 2 * VD_N) {
        PREFETCH_SPAN(x + i, 2 * VD_N * sizeof(T_float64));
        vd d0 = vd_load(x + i), d1 = vd_load(x + i + VD_N);
        mxv = vd_max(mxv, vd_max(vd_abs(d0), vd_abs(d1)));
        vd q0 = VD_EXTRACT(d0, g1), q1 = VD_EXTRACT(d1, g1);
        s1a = vd_add(s1a, q0);
        s1b = vd_add(s1b, q1);
        vd r0 = vd_sub(d0, q0), r1 = vd_sub(d1, q1);
        vd p0 = VD_EXTRACT(r0, g2), p1 = VD_EXTRACT(r1, g2);
        s2a = vd_add(s2a, p0);
        s2b = vd_add(s2b, p1);
        ro = vd_or(ro, vd_or(vd_sub(r0, p0), vd_sub(r1, p1)));
    }
    double a[VD_N], b[VD_N], m[VD_N], sums[2] = {0.0, 0.0}, mx = 0.0;
    vd_store(a, vd_add(s1a, s1b));
    vd_store(b, vd_add(s2a, s2b));
    vd_store(m, mxv);
    for (int k = 0; k < VD_N; k++) {
        sums[0] += a[k];
        sums[1] += b[k];
        mx = m[k] > mx ? m[k] : mx;
    }
    int clean = !vd_anybits(ro);
    const double sg1 = l->sigma1, sg2 = l->sigma2;
    for (; i < n; i++) {
        double v = x[i], q1 = (sg1 + v) - sg1, r1 = v - q1, q2 = (sg2 + r1) - sg2;
        mx = fabs(v) > mx ? fabs(v) : mx;
        sums[0] += q1;
        sums[1] += q2;
        clean &= f64_to_bits(r1 - q2) == 0;
    }
    vec_zeroupper();
    if (mx <= l->A && clean && isfinite(sums[0])) {
        lanes_keep_float64(l, x, 1, n, sums, 2, mx != 0.0);
        l->fails = 0;
    } else if (!isfinite(sums[0]) && block_nonfinite_float64_avx2(x, n, l)) {
        /* an inf or NaN among them: kept from the copy without them */
    } else {
        double mm = chunk_block_float64(x, 1, n, &l->acc);
        pick_sigma_float64(mm, &l->A, &l->sigma1, &l->sigma2);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* dd_mean of kernel_exact.c.j2 on VD_N lanes: RN((a + c) / n), ties to
 * even, as lane masks; the lanes it leaves to the exact sum (and those
 * outside (2^-900, 2^1000), and NaN) get all ones in *bad. */
VEC_TARGET __attribute__((always_inline)) static inline vd dd_mean_float64_avx2(vd a, vd c, vd nv, vq *bad)
{
    const vd lo = vd_set1(0x1p-900), hi = vd_set1(0x1p1000);
    const vq one = vq_set1(1), mant = vq_set1(0xfffffffffffffull), expo = vq_set1(0x7ff), e53 = vq_set1(53);
    const vq half = vq_set1((uint64_t)1 << 52), ones = vq_set1(-1);
    vd H = vd_add(a, c), bv = vd_sub(H, a);
    vd L = vd_add(vd_sub(a, vd_sub(H, bv)), vd_sub(c, bv));
    vd q0 = vd_div(H, nv), rem = vd_fnmadd(q0, nv, H);
    vd d = vd_add(rem, L), dv = vd_sub(d, rem);
    vd e = vd_add(vd_sub(rem, vd_sub(d, dv)), vd_sub(L, dv));
    vq b = vd_bits(q0);
    vq down = vq_sub(vq_set1(0), vq_srli(vd_bits(vd_xor(d, q0)), 63)); /* all ones where d moves q0 toward zero */
    vd h = vd_mul(nv, vd_from_bits(vq_slli(vq_sub(vq_and(vq_srli(b, 52), expo), e53), 52)));
    vq pow2 = vq_eq(vq_and(b, mant), vq_set1(0));
    h = vd_from_bits(vq_sub(vd_bits(h), vq_and(vq_and(down, pow2), half))); /* halved below a power of two */
    vd h3 = vd_mul(h, vd_set1(3.0)), ad = vd_abs(d);
    /* all ones where e is nonzero, and where it moves |D| below |d| (signs differ) */
    vq enz = vd_ne0(e), edown = vq_and(enz, vq_sub(vq_set1(0), vq_srli(vd_bits(vd_xor(e, d)), 63)));
    vq eq1 = vq_andnot(vq_or(vd_gt(ad, h), vd_lt(ad, h)), ones), eq3 = vq_andnot(vq_or(vd_gt(ad, h3), vd_lt(ad, h3)), ones);
    vq below1 = vq_or(vd_lt(ad, h), vq_and(eq1, edown)), tie1 = vq_andnot(enz, eq1);
    vq below3 = vq_or(vd_lt(ad, h3), vq_and(eq3, edown)), tie3 = vq_andnot(enz, eq3);
    vq next = vq_add(b, vq_or(down, one));
    vq b_even = vq_eq(vq_and(b, one), vq_set1(0)), next_even = vq_eq(vq_and(next, one), vq_set1(0));
    vq keep = vq_or(below1, vq_and(tie1, b_even));
    vq step = vq_or(below3, vq_and(tie3, next_even));
    vd aH = vd_abs(H);
    vq ok = vq_and(vq_and(vd_gt(aH, lo), vd_lt(aH, hi)), vq_or(keep, step)); /* false for NaN */
    *bad = vq_or(*bad, vq_andnot(ok, ones));
    return vd_from_bits(vq_or(vq_and(keep, b), vq_andnot(keep, next)));
}

/* Stores q (VD_N means) at dst + j, the lanes of bad summed exactly first
 * (before the store: out may be an input). */
VEC_TARGET __attribute__((always_inline)) static inline void mean_store_float64_avx2(
    vd q, vq bad, const T_float64 *const *x, const int64_t *si, int k, int64_t j, T_float64 *dst)
{
    if (vd_anybits(vd_from_bits(bad))) { /* rare on benign data */
        double ql[VD_N];
        uint64_t lane[VD_N];
        vd_store(ql, q);
        vq_store(lane, bad);
        vec_zeroupper();
        for (int l = 0; l < VD_N; l++)
            if (lane[l]) ql[l] = mean_exact_float64(k, x, si, j + l);
        q = vd_load(ql);
    }
    vd_store(dst + j, q);
}

/* Outputs [0, wv) of a unit (wv a multiple of VD_N, at most TILE), VD_N at
 * a time with each output's values in registers. Each lane splits its k
 * values against sigmas of its own: with m its largest |x| (at least
 * 2^-900), 2^E <= m < 2^e, e = E + 1, and 2^c >= k, sigma_1 = 2^(e + c + 1)
 * and sigma_2 = 2^(e + 2c + 2 - 53), so the k parts of each level add
 * exactly (as a reduction's block with EXTRACT_LOG2CAP = c), and the lane's
 * sum is s1 + s2 exactly when every second remainder is zero (its values
 * at most about 2^(50 - 2c) below m). Then n a power of two: RN(s1 + s2)
 * (one IEEE addition of two doubles) times 1 / n is the mean (s1 + s2 is 0
 * or at least sigma_2's ulp, 2^-1002 or more: the product is normal);
 * otherwise dd_mean decides, in a second pass over the unit (its long
 * chain of dependent steps would stall the first). A lane left undecided
 * (a lost bit, so also a -0.0; m >= 2^1000; an inf or NaN; and for dd_mean
 * |s1 + s2| outside (2^-900, 2^1000)) is summed exactly. Inlined with a
 * constant k. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_lanes_float64_avx2(
    const T_float64 *const *x, const int64_t *si, const int k, int c, int64_t wv, T_float64 *dst)
{
    const vd lo = vd_set1(0x1p-900), hi = vd_set1(0x1p1000), zero = vd_set1(0.0);
    const vd nv = vd_set1((double)k), rn = vd_set1(1.0 / (double)k);
    const vq expmask = vq_set1(0x7ff0000000000000ull), ones = vq_set1(-1);
    const vq sh1 = vq_set1((uint64_t)(c + 2) << 52), sh2 = vq_set1((uint64_t)(int64_t)(2 * c - 50) << 52);
    const int pow2 = (k & (k - 1)) == 0;
    double S1[TILE], S2[TILE];
    uint64_t B[TILE];
    for (int64_t j = 0; j < wv; j += VD_N) {
        vd m = lo;
        for (int i = 0; i < k; i++) { /* no software prefetch: see PREFETCH_BYTES */
            m = vd_max(m, vd_abs(si[i] ? vd_load(x[i] + j) : vd_set1(x[i][0])));
        }
        vq eb = vq_and(vd_bits(m), expmask); /* 2^E */
        vd g1 = vd_from_bits(vq_add(eb, sh1)), g2 = vd_from_bits(vq_add(eb, sh2));
        vd s1 = zero, s2 = zero, ro = zero;
        for (int i = 0; i < k; i++) {
            vd v = si[i] ? vd_load(x[i] + j) : vd_set1(x[i][0]);
            vd q1 = vd_sub(vd_add(g1, v), g1), r1 = vd_sub(v, q1), q2 = vd_sub(vd_add(g2, r1), g2);
            s1 = vd_add(s1, q1);
            s2 = vd_add(s2, q2);
            ro = vd_or(ro, vd_sub(r1, q2));
        }
        /* all ones where a bit was lost (or NaN), or m is too large for the sigmas */
        vq bad = vq_or(vq_andnot(vq_eq(vd_bits(ro), vq_set1(0)), ones), vq_andnot(vd_lt(m, hi), ones));
        if (pow2) {
            mean_store_float64_avx2(vd_mul(vd_add(s1, s2), rn), bad, x, si, k, j, dst);
        } else {
            vd_store(S1 + j, s1);
            vd_store(S2 + j, s2);
            vq_store(B + j, bad);
        }
    }
    for (int64_t j = 0; !pow2 && j < wv; j += VD_N) {
        vq bad = vq_load(B + j);
        vd q = dd_mean_float64_avx2(vd_load(S1 + j), vd_load(S2 + j), nv, &bad);
        mean_store_float64_avx2(q, bad, x, si, k, j, dst);
    }
}

/* Outputs [j, j + cnt) of a unit, cnt < VD_N, by mean_lanes on a copy of
 * their values (the first output's values fill the unused lanes). */
VEC_TARGET __attribute__((noinline)) static void mean_part_float64_avx2(int ninputs, int c, const T_float64 *const *src,
                                                                        const int64_t *sinner, int64_t j, int64_t cnt, T_float64 *dst)
{
    double buf[MEAN_VEC_MAX][VD_N], q[VD_N];
    const double *bp[MEAN_VEC_MAX];
    int64_t one[MEAN_VEC_MAX];
    for (int i = 0; i < ninputs; i++) {
        for (int l = 0; l < VD_N; l++) buf[i][l] = src[i][(j + (l < cnt ? l : 0)) * sinner[i]];
        bp[i] = buf[i];
        one[i] = 1;
    }
    mean_lanes_float64_avx2(bp, one, ninputs, c, VD_N, q);
    for (int64_t l = 0; l < cnt; l++) dst[j + l] = q[l];
}

/* A unit's outputs: mean_lanes on the whole vectors, mean_part on
 * the outputs after them. Inlined with a constant k. (float64 outputs are
 * not streamed: numpy's large arrays are 16-byte aligned, and the partial
 * vectors around aligned streamed ones cost more than streaming saved.) */
VEC_TARGET __attribute__((always_inline)) static inline void mean_span_float64_avx2(
    const T_float64 *const *src, const int64_t *sinner, const int k, int c, int64_t w, T_float64 *dst)
{
    const int64_t wv = w / VD_N * VD_N;
    mean_lanes_float64_avx2(src, sinner, k, c, wv, dst);
    if (wv < w) mean_part_float64_avx2(k, c, src, sinner, wv, w - wv, dst);
}

/* mean_unit of kernel_exact.c.j2 (the same results), every input read
 * contiguously or broadcast: mean_span. */
VEC_TARGET static void mean_unit_float64_avx2(int ninputs, const T_float64 *const *src, const int64_t *sinner, int64_t w,
                                              T_float64 *dst, int stream, const mean_rowsum *rows)
{
    (void)stream;
    (void)rows; /* never given: float64 sums are not summed ahead */
    if (ninputs > MEAN_VEC_MAX) {
        vec_zeroupper();
        mean_unit_float64(ninputs, src, sinner, w, dst);
        return;
    }
    int c = 0;
    while ((1 << c) < ninputs) c++;
    switch (ninputs) { /* a constant count each: the loops over the inputs unrolled */
    case 1: mean_span_float64_avx2(src, sinner, 1, c, w, dst); break;
    case 2: mean_span_float64_avx2(src, sinner, 2, c, w, dst); break;
    case 3: mean_span_float64_avx2(src, sinner, 3, c, w, dst); break;
    case 4: mean_span_float64_avx2(src, sinner, 4, c, w, dst); break;
    default: mean_span_float64_avx2(src, sinner, ninputs, c, w, dst); break;
    }
    vec_zeroupper();
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w,
 * as mean_unit computes it (the unit's sigmas from its largest |x|, two
 * exact level sums per output, dd_mean), with the runs read as they lie
 * and a constant k each, for the compiler to vectorize over the outputs. */
VEC_TARGET __attribute__((always_inline)) static inline void run_extract_float64_avx2(
    const T_float64 *x, const int k, int64_t w, double g1, double g2, double *s1, double *s2, uint8_t *bad)
{
    for (int64_t j = 0; j < w; j++) {
        double a = 0.0, b = 0.0;
        uint8_t lost = 0;
        for (int i = 0; i < k; i++) {
            double v = x[j * k + i], q1 = (g1 + v) - g1, r1 = v - q1, q2 = (g2 + r1) - g2;
            a += q1;
            b += q2;
            lost |= (uint8_t)(r1 - q2 != 0.0 || v != v); /* a lost bit, or NaN */
        }
        s1[j] = a;
        s2[j] = b;
        bad[j] = lost;
    }
}

/* run_extract for k a multiple of VD_N: each run's values VD_N at a time
 * in vectors (at least two a run), the lanes then added in any order (the level sums are exact
 * when no bit was lost). A -0.0 value counts as a lost bit here (its
 * r1 - q2 is -0.0): such outputs take the exact path, as in the blocks. */
VEC_TARGET __attribute__((always_inline)) static inline void run_extract_vec_float64_avx2(
    const T_float64 *x, const int k, int64_t w, double g1, double g2, double *s1, double *s2, uint8_t *bad)
{
    const vd G1 = vd_set1(g1), G2 = vd_set1(g2);
    for (int64_t j = 0; j < w; j++) {
        const T_float64 *p = x + j * k;
        vd a = vd_set1(0.0), b = a, lost = a;
        for (int i = 0; i < k; i += VD_N) {
            vd v = vd_load(p + i), q1 = VD_EXTRACT(v, G1), r1 = vd_sub(v, q1), q2 = VD_EXTRACT(r1, G2);
            a = vd_add(a, q1);
            b = vd_add(b, q2);
            lost = vd_or(lost, vd_sub(r1, q2)); /* NaN too */
        }
        double pa[VD_N], pb[VD_N], sa = 0.0, sb = 0.0;
        vd_store(pa, a);
        vd_store(pb, b);
        for (int l = 0; l < VD_N; l++) {
            sa += pa[l];
            sb += pb[l];
        }
        s1[j] = sa;
        s2[j] = sb;
        bad[j] = (uint8_t)vd_anybits(lost);
    }
}

VEC_TARGET static void mean_runs_float64_avx2(const T_float64 *x, int k, int64_t w, T_float64 *dst)
{
    const int64_t nv = w * k;
    vd mxv = vd_set1(0.0);
    int64_t i = 0;
    for (; i + VD_N <= nv; i += VD_N) mxv = vd_max(mxv, vd_abs(vd_load(x + i))); /* a NaN never wins: caught below */
    double mm[VD_N], m = 0.0;
    vd_store(mm, mxv);
    vec_zeroupper();
    for (int q = 0; q < VD_N; q++) m = mm[q] > m ? mm[q] : m;
    for (; i < nv; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
    double A, g1, g2;
    pick_sigma_float64(m, &A, &g1, &g2);
    const T_float64 *src[INNER_AS_MEAN_MAX];
    int64_t sinner[INNER_AS_MEAN_MAX];
    for (int f = 0; f < k; f++) {
        src[f] = x + f;
        sinner[f] = k;
    }
    if (!(m <= A)) { /* inf: the portable unit takes every output exactly */
        mean_unit_float64(k, src, sinner, w, dst);
        return;
    }
    double s1[TILE], s2[TILE], q[TILE];
    uint8_t bad[TILE];
    switch (k) { /* a constant k each */
    case 1:
        if (1 % VD_N == 0 && 1 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 1, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 1, w, g1, g2, s1, s2, bad);
        break;
    case 2:
        if (2 % VD_N == 0 && 2 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 2, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 2, w, g1, g2, s1, s2, bad);
        break;
    case 3:
        if (3 % VD_N == 0 && 3 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 3, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 3, w, g1, g2, s1, s2, bad);
        break;
    case 4:
        if (4 % VD_N == 0 && 4 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 4, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 4, w, g1, g2, s1, s2, bad);
        break;
    case 5:
        if (5 % VD_N == 0 && 5 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 5, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 5, w, g1, g2, s1, s2, bad);
        break;
    case 6:
        if (6 % VD_N == 0 && 6 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 6, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 6, w, g1, g2, s1, s2, bad);
        break;
    case 7:
        if (7 % VD_N == 0 && 7 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 7, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 7, w, g1, g2, s1, s2, bad);
        break;
    case 8:
        if (8 % VD_N == 0 && 8 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 8, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 8, w, g1, g2, s1, s2, bad);
        break;
    case 12:
        if (12 % VD_N == 0 && 12 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 12, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 12, w, g1, g2, s1, s2, bad);
        break;
    case 16:
        if (16 % VD_N == 0 && 16 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 16, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 16, w, g1, g2, s1, s2, bad);
        break;
    case 24:
        if (24 % VD_N == 0 && 24 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 24, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 24, w, g1, g2, s1, s2, bad);
        break;
    case 32:
        if (32 % VD_N == 0 && 32 >= 2 * VD_N) run_extract_vec_float64_avx2(x, 32, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx2(x, 32, w, g1, g2, s1, s2, bad);
        break;
    default: run_extract_float64_avx2(x, k, w, g1, g2, s1, s2, bad); break;
    }
    const double nd = (double)k;
    const vd nvv = vd_set1(nd);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        int64_t lanes[VD_N];
        vq b = vq_set1(0);
        vd_store(q + j, dd_mean_float64_avx2(vd_load(s1 + j), vd_load(s2 + j), nvv, &b));
        vq_store(lanes, b);
        for (int l = 0; l < VD_N; l++) bad[j + l] |= (uint8_t)(lanes[l] != 0);
    }
    vec_zeroupper();
    for (; j < w; j++) bad[j] |= (uint8_t)!dd_mean(s1[j], s2[j], nd, &q[j]);
    for (j = 0; j < w; j++) dst[j] = bad[j] ? mean_exact_float64(k, src, sinner, j) : q[j];
}

VEC_TARGET static void add_rows_float64_avx2(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t w)
{
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float64 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_float64(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        rows_block_begin_float64(r, b, rs, nb, 1, w);
        vd bad = vd_set1(0.0);
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * as in the float32 loop: each column's sigmas, bound and sums are
         * loaded and stored once per group */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_float64 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VD_N <= w; j += VD_N) {
                vd g1 = vd_load(r->sigma1 + j), g2 = vd_load(r->sigma2 + j), A = vd_load(r->A + j);
                vd s1 = vd_load(r->s1 + j), s2 = vd_load(r->s2 + j);
                for (int k = 0; k < ROW_GROUP; k++) {
                    vd d = vd_load(p + k * q * rs + j);
                    vd qq = VD_EXTRACT(d, g1);
                    vd r1 = vd_sub(d, qq);
                    vd pp = VD_EXTRACT(r1, g2);
                    bad = vd_or(bad, vd_or(vd_above(d, A), vd_sub(r1, pp)));
                    s1 = vd_add(s1, qq);
                    s2 = vd_add(s2, pp);
                }
                vd_store(r->s1 + j, s1);
                vd_store(r->s2 + j, s2);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_float64(r, jj, p[k * q * rs + jj]);
        }
        for (int64_t i = ROW_GROUP * q; i < nb; i++) {
            const T_float64 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VD_N <= w; j += VD_N) {
                vd d = vd_load(p + j), g1 = vd_load(r->sigma1 + j), g2 = vd_load(r->sigma2 + j);
                vd q = VD_EXTRACT(d, g1);
                vd r1 = vd_sub(d, q);
                vd pp = VD_EXTRACT(r1, g2);
                bad = vd_or(bad, vd_or(vd_above(d, vd_load(r->A + j)), vd_sub(r1, pp)));
                vd_store(r->s1 + j, vd_add(vd_load(r->s1 + j), q));
                vd_store(r->s2 + j, vd_add(vd_load(r->s2 + j), pp));
            }
            for (; j < w; j++) col_add_float64(r, j, p[j]);
        }
        r->bad |= (uint64_t)vd_anybits(bad);
        vec_zeroupper();
        if (rows_block_ok_float64(r, nb)) {
            rows_block_end_float64(r, b, rs, nb, 1, w, NULL);
        } else {
            uint8_t ok[TILE];
            for (int64_t j = 0; j < w; j++) ok[j] = (uint8_t)column_ok_float64(r, j, b + j, rs, nb);
            rows_block_end_float64(r, b, rs, nb, 1, w, ok);
        }
    }
}

VEC_TARGET static void run_float64_avx2(const T_float64 *x, int64_t n, lanes_float64 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_float64)
        block_float64_avx2(x + i, n - i < RUN_BLOCK_float64 ? n - i : RUN_BLOCK_float64, l);
}
/* int64, avx2: bias and split into 32-bit halves, LANES_int64 lanes at a time. */
VEC_TARGET static void run_int64_avx2(const T_int64 *x, int64_t n, lanes_int64 *l)
{
    enum { NV = LANES_int64 / VD_N }; /* vectors of lanes */
    const vq bias = vq_set1(BIAS_int64), low = vq_set1(0xffffffffLL);
    vq lo[NV], hi[NV];
    for (int k = 0; k < NV; k++) {
        lo[k] = vq_load(l->lo + VD_N * k);
        hi[k] = vq_load(l->hi + VD_N * k);
    }
    int64_t i = 0;
    for (; i + LANES_int64 <= n; i += LANES_int64) {
        PREFETCH_SPAN(x + i, LANES_int64 * sizeof(T_int64));
        for (int k = 0; k < NV; k++) {
            vq u = vq_xor(vq_load(x + i + VD_N * k), bias);
            lo[k] = vq_add(lo[k], vq_and(u, low));
            hi[k] = vq_add(hi[k], vq_srli(u, 32));
        }
    }
    for (int k = 0; k < NV; k++) {
        vq_store(l->lo + VD_N * k, lo[k]);
        vq_store(l->hi + VD_N * k, hi[k]);
    }
    for (int k = 0; i < n; i++, k++) ADD_BIASED_int64(l->lo[k], l->hi[k], BIASED_int64(x[i]));
    vec_zeroupper();
}
/* uint64, avx2: bias and split into 32-bit halves, LANES_uint64 lanes at a time. */
VEC_TARGET static void run_uint64_avx2(const T_uint64 *x, int64_t n, lanes_uint64 *l)
{
    enum { NV = LANES_uint64 / VD_N }; /* vectors of lanes */
    const vq bias = vq_set1(BIAS_uint64), low = vq_set1(0xffffffffLL);
    vq lo[NV], hi[NV];
    for (int k = 0; k < NV; k++) {
        lo[k] = vq_load(l->lo + VD_N * k);
        hi[k] = vq_load(l->hi + VD_N * k);
    }
    int64_t i = 0;
    for (; i + LANES_uint64 <= n; i += LANES_uint64) {
        PREFETCH_SPAN(x + i, LANES_uint64 * sizeof(T_uint64));
        for (int k = 0; k < NV; k++) {
            vq u = vq_xor(vq_load(x + i + VD_N * k), bias);
            lo[k] = vq_add(lo[k], vq_and(u, low));
            hi[k] = vq_add(hi[k], vq_srli(u, 32));
        }
    }
    for (int k = 0; k < NV; k++) {
        vq_store(l->lo + VD_N * k, lo[k]);
        vq_store(l->hi + VD_N * k, hi[k]);
    }
    for (int k = 0; i < n; i++, k++) ADD_BIASED_uint64(l->lo[k], l->hi[k], BIASED_uint64(x[i]));
    vec_zeroupper();
}
/* ---- end of the avx2 layer ---- */
#undef VEC_TARGET
#undef vec_zeroupper
#undef VD_N
#undef VF_N
#undef vd
#undef vq
#undef vf
#undef vi
#undef vw
#undef vh
#undef vd_set1
#undef vd_load
#undef vd_store
#undef vd_add
#undef vd_sub
#undef vd_mul
#undef vd_div
#undef vd_max
#undef vd_or
#undef vd_and
#undef vd_xor
#undef vd_fmadd
#undef vd_fmsub
#undef vd_fnmadd
#undef vd_abs
#undef vd_above
#undef vd_anybits
#undef vd_ne0
#undef vd_gt0
#undef vd_lt0
#undef vd_gt
#undef vd_lt
#undef vq_eq
#undef vq_slli
#undef vd_bits
#undef vd_from_bits
#undef vq_set1
#undef vq_load
#undef vq_store
#undef vq_add
#undef vq_sub
#undef vq_and
#undef vq_or
#undef vq_xor
#undef vq_andnot
#undef vq_srli
#undef vf_load_f32
#undef vf_load_f16
#undef vf_load_bf16
#undef vf_lo
#undef vf_hi
#undef vd_load_f32
#undef vi_zero
#undef vi_ones
#undef vi_set1
#undef vi_absbits
#undef vi_max_u32
#undef vi_min_u32
#undef vi_dec
#undef vi_store
#undef vi_gt_s32
#undef vi_and
#undef vi_andnot
#undef vf_bits
#undef vf_from_bits
#undef vf_add
#undef vw_load
#undef vw_zero
#undef vw_ones
#undef vw_absbits
#undef vw_max_u16
#undef vw_min_u16
#undef vw_dec
#undef vw_lo_f32
#undef vw_hi_f32
#undef vh_from_vd
#undef vf_join
#undef vf_store
#undef vf_stream
#undef vf_stream_quarters
#undef vi_hmax_u32
#undef vi_hmin_u32
#undef vw_hmax_u16
#undef vw_hmin_u16
#undef vi_or
#undef vi_sub
/* ---- ISA layer: AVX-512 F, BW, VL, DQ (512-bit vectors) ----
 * The same primitives as simd_avx2.h.j2, twice as wide. Comparisons give
 * mask registers here; the primitives that return lanes of ones turn them
 * into vectors, so the kernels read the same on every ISA. */
#define VEC_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,fma,f16c")))
#define vec_zeroupper _mm256_zeroupper /* clears the upper bits of zmm0-15 too */
#define VD_N 8
#define VF_N 16
#define vd __m512d
#define vq __m512i
#define vf __m512
#define vi __m512i
#define vw __m512i
#define vh __m256
#define vd_set1 _mm512_set1_pd
#define vd_load _mm512_loadu_pd
#define vd_store _mm512_storeu_pd
#define vd_add _mm512_add_pd
#define vd_sub _mm512_sub_pd
#define vd_mul _mm512_mul_pd
#define vd_div _mm512_div_pd
#define vd_max _mm512_max_pd
#define vd_or _mm512_or_pd
#define vd_and _mm512_and_pd
#define vd_xor _mm512_xor_pd
#define vd_fmadd _mm512_fmadd_pd
#define vd_fmsub _mm512_fmsub_pd
#define vd_fnmadd _mm512_fnmadd_pd
#define vd_abs(a) _mm512_abs_pd(a)
#define vd_above(a, b) _mm512_castsi512_pd(_mm512_movm_epi64(_mm512_cmp_pd_mask(vd_abs(a), (b), _CMP_NLE_UQ)))
#define vd_anybits(a) (_mm512_test_epi64_mask(_mm512_castpd_si512(a), _mm512_castpd_si512(a)) != 0)
#define vd_ne0(a) _mm512_movm_epi64(_mm512_cmp_pd_mask((a), _mm512_setzero_pd(), _CMP_NEQ_OQ))
#define vd_gt0(a) _mm512_movm_epi64(_mm512_cmp_pd_mask((a), _mm512_setzero_pd(), _CMP_GT_OQ))
#define vd_lt0(a) _mm512_movm_epi64(_mm512_cmp_pd_mask((a), _mm512_setzero_pd(), _CMP_LT_OQ))
#define vd_gt(a, b) _mm512_movm_epi64(_mm512_cmp_pd_mask((a), (b), _CMP_GT_OQ))
#define vd_lt(a, b) _mm512_movm_epi64(_mm512_cmp_pd_mask((a), (b), _CMP_LT_OQ))
#define vq_eq(a, b) _mm512_movm_epi64(_mm512_cmpeq_epi64_mask((a), (b)))
#define vq_slli _mm512_slli_epi64
#define vd_bits _mm512_castpd_si512
#define vd_from_bits _mm512_castsi512_pd
#define vq_set1(x) _mm512_set1_epi64((long long)(x))
#define vq_load(p) _mm512_loadu_si512((const void *)(p))
#define vq_store(p, v) _mm512_storeu_si512((void *)(p), (v))
#define vq_add _mm512_add_epi64
#define vq_sub _mm512_sub_epi64
#define vq_and _mm512_and_si512
#define vq_or _mm512_or_si512
#define vq_xor _mm512_xor_si512
#define vq_andnot _mm512_andnot_si512
#define vq_srli _mm512_srli_epi64
#define vf_load_f32(p) _mm512_loadu_ps(p)
#define vf_load_f16(p) _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p)))
#define vf_load_bf16(p) \
    _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p))), 16))
#define vf_lo(f) _mm512_cvtps_pd(_mm512_castps512_ps256(f))
#define vf_hi(f) _mm512_cvtps_pd(_mm512_extractf32x8_ps((f), 1))
#define vd_load_f32(p) _mm512_cvtps_pd(_mm256_loadu_ps(p))
/* float16: two 256-bit conversions instead of one 512-bit one and an extract */
#define vd_load_f16(p) _mm512_cvtps_pd(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p))))
#define vi_zero _mm512_setzero_si512
#define vi_ones() _mm512_set1_epi32(-1)
#define vi_set1 _mm512_set1_epi32
#define vi_absbits(f) _mm512_and_si512(_mm512_castps_si512(f), _mm512_set1_epi32(0x7fffffff))
#define vi_max_u32 _mm512_max_epu32
#define vi_min_u32 _mm512_min_epu32
#define vi_dec(a) _mm512_sub_epi32((a), _mm512_set1_epi32(1))
#define vi_store(p, v) _mm512_storeu_si512((void *)(p), (v))
#define vi_gt_s32(a, b) _mm512_movm_epi32(_mm512_cmpgt_epi32_mask((a), (b)))
#define vi_and _mm512_and_si512
#define vi_andnot _mm512_andnot_si512
#define vf_bits _mm512_castps_si512
#define vf_from_bits _mm512_castsi512_ps
#define vf_add _mm512_add_ps
#define vw_load(p) _mm512_loadu_si512((const void *)(p))
#define vw_zero _mm512_setzero_si512
#define vw_ones() _mm512_set1_epi16(-1)
#define vw_absbits(a) _mm512_and_si512((a), _mm512_set1_epi16(0x7fff))
#define vw_max_u16 _mm512_max_epu16
#define vw_min_u16 _mm512_min_epu16
#define vw_dec(a) _mm512_sub_epi16((a), _mm512_set1_epi16(1))
#define vw_lo_f32(w) _mm512_castsi512_ps(_mm512_unpacklo_epi16(_mm512_setzero_si512(), (w)))
#define vw_hi_f32(w) _mm512_castsi512_ps(_mm512_unpackhi_epi16(_mm512_setzero_si512(), (w)))
#define vh_from_vd _mm512_cvtpd_ps
#define vf_join(lo, hi) _mm512_insertf32x8(_mm512_castps256_ps512(lo), (hi), 1)
#define vf_store(p, f) _mm512_storeu_ps((p), (f))
#define vf_stream(p, f) _mm512_stream_ps((p), (f))
#define vf_stream_quarters vf_stream_quarters_avx512
#define vi_hmax_u32 _mm512_reduce_max_epu32
#define vi_hmin_u32 _mm512_reduce_min_epu32

/* the 16-byte quarters [lo, hi) of f, as f would be streamed to p (p + 4 lo 16-byte aligned) */
VEC_TARGET static inline void vf_stream_quarters_avx512(float *p, __m512 f, int lo, int hi)
{
    if (lo <= 0 && 0 < hi) _mm_stream_ps(p, _mm512_castps512_ps128(f));
    if (lo <= 1 && 1 < hi) _mm_stream_ps(p + 4, _mm512_extractf32x4_ps(f, 1));
    if (lo <= 2 && 2 < hi) _mm_stream_ps(p + 8, _mm512_extractf32x4_ps(f, 2));
    if (lo <= 3 && 3 < hi) _mm_stream_ps(p + 12, _mm512_extractf32x4_ps(f, 3));
}

VEC_TARGET static inline uint32_t vw_hmax_u16_avx512(__m512i v)
{
    __m256i h = _mm256_max_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i m = _mm_max_epu16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return 0xffffu - ((uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(_mm_xor_si128(m, _mm_set1_epi32(-1)))) & 0xffffu);
}

VEC_TARGET static inline uint32_t vw_hmin_u16_avx512(__m512i v)
{
    __m256i h = _mm256_min_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    __m128i m = _mm_min_epu16(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    return (uint32_t)_mm_cvtsi128_si32(_mm_minpos_epu16(m)) & 0xffffu;
}
#define vw_hmax_u16 vw_hmax_u16_avx512
#define vw_hmin_u16 vw_hmin_u16_avx512
/* skipna (kernel_vec.c.j2, block): lanes masked, counted */
#define vi_or _mm512_or_si512
#define vi_sub _mm512_sub_epi32

/* float16, avx512: VD_N values at p (a vf f already loaded from p) as a vd */
#ifdef vd_load_f16
#define VF_LO_float16(f, p) vd_load_f16(p)
#define VF_HI_float16(f, p) vd_load_f16((p) + VD_N)
#endif
#ifndef VF_LO_float16
#define VF_LO_float16(f, p) vf_lo(f)
#define VF_HI_float16(f, p) vf_hi(f)
#endif
/* 2 * VF_N values at p: their |x| bit patterns folded into the running max
 * and min - 1 (unsigned), and the values as 4 vd of doubles. */
#define LOAD2_float16(p, d, mx, mn1) do { \
        vf f0_ = vf_load_f16(p), f1_ = vf_load_f16((p) + VF_N); \
        vi a0_ = vi_absbits(f0_), a1_ = vi_absbits(f1_); \
        (mx) = vi_max_u32((mx), vi_max_u32(a0_, a1_)); \
        (mn1) = vi_min_u32((mn1), vi_min_u32(vi_dec(a0_), vi_dec(a1_))); \
        (d)[0] = VF_LO_float16(f0_, (p)); (d)[1] = VF_HI_float16(f0_, (p)); \
        (d)[2] = VF_LO_float16(f1_, (p) + VF_N); (d)[3] = VF_HI_float16(f1_, (p) + VF_N); \
    } while (0)

/* split_block of kernel_exact.c.j2 (a block in L1 that failed its check),
 * VF_N values at a time: the lanes of at least 2^T and those below, apart. */
VEC_TARGET __attribute__((noinline)) static int split_block_float16_avx512(const T_float16 *x, int64_t n, uint32_t mx, lanes_float16 *l)
{
    uint32_t thr = split_threshold_float16(mx, n);
    if (!thr) return 0;
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vd b0 = vd_set1(0.0), b1 = b0, s0 = b0, s1 = b0;
    vi smxv = vi_zero(), smnv = vi_ones();
    int64_t i = 0;
    for (; i + VF_N <= n; i += VF_N) {
        vf f = vf_load_f16(x + i);
        vi a = vi_absbits(f), big = vi_gt_s32(a, below), as = vi_andnot(big, a);
        smxv = vi_max_u32(smxv, as);
        smnv = vi_min_u32(smnv, vi_dec(as));
        vf fb = vf_from_bits(vi_and(big, vf_bits(f))), fs = vf_from_bits(vi_andnot(big, vf_bits(f)));
        b0 = vd_add(b0, vf_lo(fb));
        b1 = vd_add(b1, vf_hi(fb));
        s0 = vd_add(s0, vf_lo(fs));
        s1 = vd_add(s1, vf_hi(fs));
    }
    double pb[VD_N], ps[VD_N], sums[2] = {0.0, 0.0};
    vd_store(pb, vd_add(b0, b1));
    vd_store(ps, vd_add(s0, s1));
    uint32_t smx = vi_hmax_u32(smxv), smn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int k = 0; k < VD_N; k++) {
        sums[0] += pb[k];
        sums[1] += ps[k];
    }
    for (; i < n; i++) split_add_float16(LOAD_float16(x[i]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_float16, LSB_MIN_float16)) return 0;
    lanes_keep_float16(l, x, 1, n, sums, 2, mx != 0);
    return 1;
}

VEC_TARGET static void block_float16_avx512(const T_float16 *x, int64_t n, lanes_float16 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_float16_avx512(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    T_float16 raw[RUN_BLOCK_float16 + 4096 / sizeof(T_float16)], *buf = copy_at_float16(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_float16(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    if (f & SACC_NAN) l->masknan = 1;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float16_avx512(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_float16_avx512(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    /* skipna: float32 masks NaN lanes as it reads them (below); the others,
     * and blocks sent to the exact path, through a copy without them */
    const int masked = 1 && !ALWAYS_EXACT_float16 && l->skip <= 0;
    if (l->skipna && !masked && block_nonfinite_float16_avx512(x, n, l)) return;
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        (void)chunk_block_float16(x, 1, n, &l->acc);
        return;
    }
    vd s[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    int64_t i = 0;
    if (ALWAYS_EXACT_float16) {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float16));
            vf f0 = vf_load_f16(x + i), f1 = vf_load_f16(x + i + VF_N);
            (void)f0, (void)f1; /* unread where the values widen from memory */
            s[0] = vd_add(s[0], VF_LO_float16(f0, x + i));
            s[1] = vd_add(s[1], VF_HI_float16(f0, x + i));
            s[2] = vd_add(s[2], VF_LO_float16(f1, x + i + VF_N));
            s[3] = vd_add(s[3], VF_HI_float16(f1, x + i + VF_N));
        }
        double part[VD_N], total = 0.0;
        vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
        for (; i < n; i++) part[0] += LOAD_float16(x[i]);
        for (int k = 0; k < VD_N; k++) total += part[k];
        vec_zeroupper();
        if (isfinite(total)) lanes_keep_float16(l, x, 1, n, &total, 1, total != 0.0);
        else if (!block_nonfinite_float16_avx512(x, n, l)) (void)chunk_block_float16(x, 1, n, &l->acc);
        return;
    }
    vi mxv = vi_zero(), mnv = vi_ones();
    int64_t nan = 0; /* skipna (and after a block with NaN): NaN read as -0.0 (their |x| bits as 0) */
    if (l->skipna || l->masknan) {
        const vi inf = vi_set1(0x7f800000), sign = vi_set1((int32_t)0x80000000u);
        vi cnt = vi_zero();
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float16));
            vf f0 = vf_load_f16(x + i), f1 = vf_load_f16(x + i + VF_N);
            vi a0 = vi_absbits(f0), a1 = vi_absbits(f1), m0 = vi_gt_s32(a0, inf), m1 = vi_gt_s32(a1, inf);
            cnt = vi_sub(vi_sub(cnt, m0), m1); /* a NaN lane is -1 */
            a0 = vi_andnot(m0, a0);
            a1 = vi_andnot(m1, a1);
            f0 = vf_from_bits(vi_or(vi_andnot(m0, vf_bits(f0)), vi_and(m0, sign)));
            f1 = vf_from_bits(vi_or(vi_andnot(m1, vf_bits(f1)), vi_and(m1, sign)));
            mxv = vi_max_u32(mxv, vi_max_u32(a0, a1));
            mnv = vi_min_u32(mnv, vi_min_u32(vi_dec(a0), vi_dec(a1)));
            s[0] = vd_add(s[0], vf_lo(f0));
            s[1] = vd_add(s[1], vf_hi(f0));
            s[2] = vd_add(s[2], vf_lo(f1));
            s[3] = vd_add(s[3], vf_hi(f1));
        }
        int32_t c[VF_N];
        vi_store(c, cnt);
        for (int k = 0; k < VF_N; k++) nan += c[k];
    } else {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            vd d[4];
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float16));
            LOAD2_float16(x + i, d, mxv, mnv);
            for (int k = 0; k < 4; k++) s[k] = vd_add(s[k], d[k]);
        }
    }
    /* the four sums in a tree: when the block passes its check, every
     * partial sum is exact, so no order of the additions changes a bit */
    double part[VD_N], total = 0.0;
    vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    for (; i < n; i++) {
        double v = LOAD_float16(x[i]);
        if ((l->skipna || l->masknan) && v != v) { /* as -0.0: nothing to add, no bound */
            nan++;
            continue;
        }
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        part[0] += v;
    }
    vec_zeroupper();
    /* an inf or NaN among them; or NaN skipped where a fallback below would
     * read them (the exact paths, the sign of a zero sum) */
    const int ok = narrow_sum_exact(mx, mn1, n, PREC_float16, LSB_MIN_float16);
    if ((mx >= 0x7f800000u || (nan && (!ok || mx == 0))) && block_nonfinite_float16_avx512(x, n, l)) return;
    if (l->skipna) l->acc.w[0] += (uint64_t)nan;
    else if (nan) l->acc.w[1] |= SACC_NAN | SACC_NONNEGZERO;
    if (ok) {
        for (int k = 0; k < VD_N; k++) total += part[k]; /* exact, as every partial sum */
        lanes_keep_float16(l, x, 1, n, &total, 1, mx != 0);
        l->fails = 0;
    } else if (split_block_float16_avx512(x, n, mx, l)) {
        l->fails = 0;
    } else {
        (void)chunk_block_float16(x, 1, n, &l->acc);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* div_odd on VD_N lanes: q = RN(S / n), e = S - q * n exactly; an inexact
 * lane steps toward zero when |q| is above |S / n|, then sets its last bit. */
VEC_TARGET static inline vd div_odd_float16_avx512(vd S, vd nv)
{
    vd q = vd_div(S, nv), e = vd_fnmadd(q, nv, S);
    vq inexact = vd_ne0(e);
    vq toward = vq_srli(vd_bits(vd_xor(e, q)), 63); /* signs differ */
    vq b = vd_bits(q);
    b = vq_sub(b, vq_and(inexact, toward));
    b = vq_or(b, vq_and(inexact, vq_set1(1)));
    return vd_from_bits(b);
}

/* The sums of the VF_N outputs at j as two vd: bsum (+ rsum[j] where hr)
 * + the nc contiguous inputs at j; their values' |x| bit patterns folded
 * into *mxv (max) and *mnv (min of |x| - 1). Inlined with constant nc, hr. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_vsum_float16_avx512(
    const T_float16 *const *cont, const int nc, const int hr, const double *rsum, vd b, int64_t j, vd *s0, vd *s1,
    vi *mxv, vi *mnv)
{
    vd a0 = b, a1 = b;
    if (hr) {
        a0 = vd_add(a0, vd_load(rsum + j));
        a1 = vd_add(a1, vd_load(rsum + j + VD_N));
    }
    for (int i = 0; i < nc; i++) { /* no software prefetch: see PREFETCH_BYTES */
        vf f = vf_load_f16(cont[i] + j);
        vi a = vi_absbits(f);
        *mxv = vi_max_u32(*mxv, a);
        *mnv = vi_min_u32(*mnv, vi_dec(a));
        a0 = vd_add(a0, VF_LO_float16(f, cont[i] + j));
        a1 = vd_add(a1, VF_HI_float16(f, cont[i] + j));
    }
    *s0 = a0;
    *s1 = a1;
}

/* S[j] for j < wv (a multiple of VF_N) by mean_vsum. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_sums_float16_avx512(
    const T_float16 *const *cont, const int nc, const int hr, const double *rsum, int64_t wv, double bsum, double *S,
    vi *mxp, vi *mnp)
{
    vi mxv = *mxp, mnv = *mnp;
    const vd b = vd_set1(bsum);
    for (int64_t j = 0; j < wv; j += VF_N) {
        vd s0, s1;
        mean_vsum_float16_avx512(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vd_store(S + j, s0);
        vd_store(S + j + VD_N, s1);
    }
    *mxp = mxv;
    *mnp = mnv;
}

/* dst[j] = S[j] / n rounded once to the format, for j < w: S exact sums of
 * a unit that passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. */
VEC_TARGET static void mean_finish_float16_avx512(const double *S, int ninputs, uint32_t mn1, int64_t w, T_float16 *dst,
                                               int stream)
{
    const vd nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    int64_t j = 0;
    (void)stream;
    (void)mn1; /* the multiply path is float32's */
    for (; j + VD_N <= w; j += VD_N) {
        /* n a power of two: S / n = S * (1 / n) exactly (S is a multiple of the
         * format's smallest subnormal, far above double's), so no rounding to odd */
        vd Sv = vd_load(S + j), q = pow2 ? vd_mul(Sv, rn) : div_odd_float16_avx512(Sv, nv);
        double t[VD_N];
        vd_store(t, q);
        for (int k = 0; k < VD_N; k++) dst[j + k] = store_float16(t[k]);
    }
    for (; j < w; j++) dst[j] = store_float16(div_odd(S[j], (double)ninputs));
    vec_zeroupper();
}

/* The vector form of mean_unit when every input is read contiguously or
 * broadcast along the inner dim (sinner 1 or 0): the same sums, check and
 * rounding, VF_N outputs at a time. */
VEC_TARGET static void mean_unit_float16_avx512(int ninputs, const T_float16 *const *src, const int64_t *sinner, int64_t w,
                                              T_float16 *dst, int stream, const mean_rowsum *rows)
{
    double S[TILE];
    vi mxv = vi_zero(), mnv = vi_ones();
    /* broadcast inputs once: their sum starts every output's sum (when the
     * check passes, every order of the additions gives the same exact sum) */
    const T_float16 *cont[MEAN_VEC_MAX];
    int ncont = 0;
    double bsum = -0.0;
    uint32_t bmx = 0, bmn1 = UINT32_MAX;
    for (int i = 0; i < ninputs; i++) {
        if (rows && rows->taken[i]) continue; /* in rows->sum */
        if (sinner[i] && ncont < MEAN_VEC_MAX) {
            cont[ncont++] = src[i];
            continue;
        }
        if (sinner[i]) { /* more contiguous inputs than the vector loop takes */
            vec_zeroupper();
            mean_unit_float16(ninputs, src, sinner, w, dst);
            return;
        }
        double v = LOAD_float16(src[i][0]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        bmx = a > bmx ? a : bmx;
        bmn1 = a - 1u < bmn1 ? a - 1u : bmn1;
        bsum += v;
    }
    const double *rsum = NULL;
    if (rows) {
        rsum = rows->sum;
        bmx = rows->mx > bmx ? rows->mx : bmx;
        bmn1 = rows->mn1 < bmn1 ? rows->mn1 : bmn1;
    }
    int64_t j = w / VF_N * VF_N;
    switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
    case 1: mean_sums_float16_avx512(cont, 0, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 2: mean_sums_float16_avx512(cont, 1, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 3: mean_sums_float16_avx512(cont, 1, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 4: mean_sums_float16_avx512(cont, 2, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 5: mean_sums_float16_avx512(cont, 2, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 6: mean_sums_float16_avx512(cont, 3, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 7: mean_sums_float16_avx512(cont, 3, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 8: mean_sums_float16_avx512(cont, 4, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 9: mean_sums_float16_avx512(cont, 4, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    default: mean_sums_float16_avx512(cont, ncont, rsum != NULL, rsum, j, bsum, S, &mxv, &mnv); break;
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    mx = bmx > mx ? bmx : mx;
    mn1 = bmn1 < mn1 ? bmn1 : mn1;
    for (; j < w; j++) {
        S[j] = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_float16(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_float16, LSB_MIN_float16)) { /* rare: the portable unit checks output by output */
        vec_zeroupper();
        mean_unit_float16(ninputs, src, sinner, w, dst);
        return;
    }
    mean_finish_float16_avx512(S, ninputs, mn1, w, dst, stream);
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w
 * (mean_unit's results): the unit's check over its w * k contiguous values
 * in vectors, the sums in scalar double (a constant k each, for the
 * compiler), the division in vectors (mean_finish). A unit that fails the
 * check goes to mean_unit. */
VEC_TARGET __attribute__((always_inline)) static inline void run_sums_float16_avx512(const T_float16 *x, const int k,
                                                                                     int64_t w, double *S)
{
    for (int64_t j = 0; j < w; j++) {
        double s = -0.0;
        for (int i = 0; i < k; i++) s += LOAD_float16(x[j * k + i]);
        S[j] = s;
    }
}

VEC_TARGET static void mean_runs_float16_avx512(const T_float16 *x, int k, int64_t w, T_float16 *dst)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    const int64_t nv = w * k;
    int64_t i = 0;
    for (; i + VF_N <= nv; i += VF_N) {
        vi a = vi_absbits(vf_load_f16(x + i));
        mxv = vi_max_u32(mxv, a);
        mnv = vi_min_u32(mnv, vi_dec(a));
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    for (; i < nv; i++) {
        uint32_t a = f32_to_bits((float)LOAD_float16(x[i])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    if (!narrow_sum_exact(mx, mn1, k, PREC_float16, LSB_MIN_float16)) {
        const T_float16 *src[INNER_AS_MEAN_MAX];
        int64_t sinner[INNER_AS_MEAN_MAX];
        for (int f = 0; f < k; f++) {
            src[f] = x + f;
            sinner[f] = k;
        }
        mean_unit_float16(k, src, sinner, w, dst);
        return;
    }
    double S[TILE];
    switch (k) { /* a constant k each */
    case 1: run_sums_float16_avx512(x, 1, w, S); break;
    case 2: run_sums_float16_avx512(x, 2, w, S); break;
    case 3: run_sums_float16_avx512(x, 3, w, S); break;
    case 4: run_sums_float16_avx512(x, 4, w, S); break;
    case 5: run_sums_float16_avx512(x, 5, w, S); break;
    case 6: run_sums_float16_avx512(x, 6, w, S); break;
    case 7: run_sums_float16_avx512(x, 7, w, S); break;
    case 8: run_sums_float16_avx512(x, 8, w, S); break;
    case 12: run_sums_float16_avx512(x, 12, w, S); break;
    case 16: run_sums_float16_avx512(x, 16, w, S); break;
    case 24: run_sums_float16_avx512(x, 24, w, S); break;
    case 32: run_sums_float16_avx512(x, 32, w, S); break;
    default: run_sums_float16_avx512(x, k, w, S); break;
    }
    mean_finish_float16_avx512(S, k, mn1, w, dst, 0);
}

/* rows_split of kernel_exact.c.j2, VF_N columns at a time (the block is in
 * L1 or L2: it was just read). */
VEC_TARGET __attribute__((noinline)) static int rows_split_float16_avx512(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    uint32_t thr = split_threshold_float16(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    memset(big, 0, (size_t)w * sizeof *big);
    memset(small, 0, (size_t)w * sizeof *small);
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vi smxv = vi_zero(), smnv = vi_ones();
    const int64_t wv = w / VF_N * VF_N;
    for (int64_t i = 0; i < nrows; i++) {
        const T_float16 *p = x + i * rs;
        for (int64_t j = 0; j < wv; j += VF_N) {
            vf f = vf_load_f16(p + j);
            vi a = vi_absbits(f), bg = vi_gt_s32(a, below), as = vi_andnot(bg, a);
            smxv = vi_max_u32(smxv, as);
            smnv = vi_min_u32(smnv, vi_dec(as));
            vf fb = vf_from_bits(vi_and(bg, vf_bits(f))), fs = vf_from_bits(vi_andnot(bg, vf_bits(f)));
            vd_store(big + j, vd_add(vd_load(big + j), vf_lo(fb)));
            vd_store(big + j + VD_N, vd_add(vd_load(big + j + VD_N), vf_hi(fb)));
            vd_store(small + j, vd_add(vd_load(small + j), vf_lo(fs)));
            vd_store(small + j + VD_N, vd_add(vd_load(small + j + VD_N), vf_hi(fs)));
        }
    }
    uint32_t vmx = vi_hmax_u32(smxv), vmn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = wv; j < w; j++) split_add_float16(LOAD_float16(x[i * rs + j]), thr, &big[j], &small[j], &smx, &smn1);
    smx = vmx > smx ? vmx : smx;
    smn1 = vmn1 < smn1 ? vmn1 : smn1;
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_float16, LSB_MIN_float16)) return 0;
    rows_keep_split_float16(r, x, rs, nrows, 1, w, big, small);
    return 1;
}

/* rows_block_end of a block that passed its shared check, VD_N columns at a
 * time: the block sums on into the kept sums where TwoSum shows each lane's
 * addition exact and no block sum is zero; other lanes one by one. */
VEC_TARGET static void rows_block_keep_float16_avx512(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows,
                                                     int64_t w)
{
    const vd zero = vd_set1(0.0);
    const vq ones = vq_set1(-1);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        vd a = vd_load(r->t + j), b = vd_load(r->s + j);
        vd sum = vd_add(a, b), bv = vd_sub(sum, a);
        vd err = vd_add(vd_sub(a, vd_sub(sum, bv)), vd_sub(b, bv)); /* NaN where sum overflowed */
        vq slow = vq_or(vd_bits(vd_above(err, zero)), vq_andnot(vd_bits(vd_above(b, zero)), ones));
        if (vd_anybits(vd_from_bits(slow))) {
            vec_zeroupper();
            for (int k = 0; k < VD_N; k++) keep_column_float16(r, x + j + k, rs, nrows, j + k);
            continue;
        }
        vd_store(r->t + j, sum);
        vd_store(r->tnz + j, vd_max(vd_load(r->tnz + j), vd_abs(b)));
    }
    vec_zeroupper();
    for (; j < w; j++) keep_column_float16(r, x + j, rs, nrows, j);
}

/* Each column's own check of a block (VF_N columns at a time, the bounds in registers). */
VEC_TARGET static void columns_ok_float16_avx512(const T_float16 *b, int64_t rs, int64_t nb, int64_t w, uint8_t *ok)
{
    int64_t j = 0;
    for (; j + VF_N <= w; j += VF_N) {
        vi mxv = vi_zero(), mnv = vi_ones();
        for (int64_t i = 0; i < nb; i++) {
            vi a = vi_absbits(vf_load_f16(b + i * rs + j));
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
        }
        uint32_t mx[VF_N], mn1[VF_N];
        vi_store(mx, mxv);
        vi_store(mn1, mnv);
        for (int k = 0; k < VF_N; k++) ok[j + k] = (uint8_t)narrow_sum_exact(mx[k], mn1[k], nb, PREC_float16, LSB_MIN_float16);
    }
    vec_zeroupper();
    for (; j < w; j++) ok[j] = (uint8_t)column_ok_float16(NULL, j, b + j, rs, nb);
}

/* Narrow rows (w <= NARROW_ROW): the first ng * VF_N column sums in 2 * ng
 * registers across the block's rows (each read once, in order), the
 * block's shared bound in two more. Inlined with a
 * constant ng, so the sums stay in registers. */
VEC_TARGET __attribute__((always_inline)) static inline void narrow_rows_float16_avx512(
    rowacc_float16 *r, int64_t j0, const T_float16 *x, int64_t rs, int64_t nrows, const int ng)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    vd c[2 * NARROW_PANEL];
    for (int q = 0; q < 2 * ng; q++) c[q] = vd_load(r->s + j0 + VD_N * q);
    for (int64_t i = 0; i < nrows; i++) {
        const T_float16 *p = x + i * rs;
        for (int q = 0; q < ng; q++) {
            vf f = vf_load_f16(p + VF_N * q);
            vi a = vi_absbits(f);
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
            c[2 * q] = vd_add(c[2 * q], VF_LO_float16(f, p + VF_N * q));
            c[2 * q + 1] = vd_add(c[2 * q + 1], VF_HI_float16(f, p + VF_N * q));
        }
    }
    for (int q = 0; q < 2 * ng; q++) vd_store(r->s + j0 + VD_N * q, c[q]);
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    r->bmx = mx > r->bmx ? mx : r->bmx;
    r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
}

/* Each row read once: narrow ones one after the other, as above; wide
 * ones ROW_GROUP at a time (below), the column sums in L1; the block's
 * shared bound in registers. */
VEC_TARGET static void add_rows_float16_avx512(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t w);

/* rows_nonfinite of kernel_exact.c.j2 on this ISA's row kernels. */
VEC_TARGET __attribute__((noinline)) static void rows_nonfinite_float16_avx512(rowacc_float16 *r, const T_float16 *x, int64_t rs,
                                                                             int64_t nrows, int64_t w)
{
    T_float16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    vec_zeroupper();
    r->nonfinite = 0; /* the copies hold none */
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_float16 *buf = copy_at_float16(raw, x + i * rs);
        clean_rows_float16(x + i * rs, rs, m, 1, w, buf, 0, r->acc);
        add_rows_float16_avx512(r, buf, w, m, w);
    }
    r->nonfinite = 1; /* the next blocks straight here (data with NaN tends to keep them) */
}

VEC_TARGET static void add_rows_float16_avx512(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    if (w <= PANEL_ROWS_MAX) {
        const int64_t row_bytes = w * (int64_t)sizeof(T_float16);
        int64_t sub = row_bytes ? 16384 / row_bytes : NARROW_SUB;
        sub = sub < 1 ? 1 : (sub > NARROW_SUB ? NARROW_SUB : sub);
        for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
            nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
            const T_float16 *b = x + i0 * rs;
            if (r->skip > 0) {
                vec_zeroupper();
                nb = rows_block_exact_float16(r, b, rs, nrows - i0, 1, w);
                continue;
            }
            if (r->nonfinite) {
                rows_nonfinite_float16_avx512(r, b, rs, nb, w);
                continue;
            }
            rows_block_begin_float16(r, b, rs, nb, 1, w);
            /* panels of NARROW_PANEL * VF_N columns over sub-blocks of NARROW_SUB
             * rows (in L1 after the first panel) */
            for (int64_t k0 = 0; k0 < nb; k0 += sub) {
                int64_t k1 = k0 + sub < nb ? k0 + sub : nb;
                for (int64_t j0 = 0; j0 + VF_N <= w; j0 += VF_N * NARROW_PANEL) {
                    const T_float16 *src = b + k0 * rs + j0;
                    switch ((w - j0) / VF_N < NARROW_PANEL ? (w - j0) / VF_N : NARROW_PANEL) { /* a constant ng each: its own loop */
                    case 1: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 1); break;
                    case 2: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 2); break;
                    case 3: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 3); break;
                    case 4: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 4); break;
                    case 5: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 5); break;
                    case 6: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 6); break;
                    case 7: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 7); break;
                    case 8: narrow_rows_float16_avx512(r, j0, src, rs, k1 - k0, 8); break;
                    default: break;
                    }
                }
            }
            if (w % VF_N != 0) /* else an empty loop over the rows: 10% of (1000000, 64) float32 */
                for (int64_t i = 0; i < nb; i++)
                    for (int64_t j = w / VF_N * VF_N; j < w; j++) col_add_float16(r, j, LOAD_float16(b[i * rs + j]));
            vec_zeroupper();
            if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
                rows_nonfinite_float16_avx512(r, b, rs, nb, w);
                continue;
            }
            if (rows_block_ok_float16(r, nb)) {
                rows_block_keep_float16_avx512(r, b, rs, nb, w);
            } else {
                uint8_t ok[TILE];
                columns_ok_float16_avx512(b, rs, nb, w, ok);
                if (!split_pays(ok, w) || !rows_split_float16_avx512(r, b, rs, nb, w)) rows_block_end_float16(r, b, rs, nb, 1, w, ok);
            }
        }
        return;
    }
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float16 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_float16(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        if (r->nonfinite) {
            rows_nonfinite_float16_avx512(r, b, rs, nb, w);
            continue;
        }
        rows_block_begin_float16(r, b, rs, nb, 1, w);
        vi mxv = vi_zero(), mnv = vi_ones();
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * so each column sum is loaded and stored once per group and the
         * block is read as ROW_GROUP sequential streams. With a load and a
         * store per value the loop was bound by the load/store ports (W5
         * 1.2x the kernels before exactness); adjacent rows as the group
         * halved the read bandwidth from memory (the hardware prefetchers
         * lose streams of a row each). When the block passes its check its
         * sums are exact in any order; when not, they are summed again. */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_float16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vd lo = vd_load(r->s + j), hi = vd_load(r->s + j + VD_N);
                for (int k = 0; k < ROW_GROUP; k++) {
                    const T_float16 *e = p + k * q * rs + j;
                    vf f = vf_load_f16(e);
                    vi a = vi_absbits(f);
                    mxv = vi_max_u32(mxv, a);
                    mnv = vi_min_u32(mnv, vi_dec(a));
                    lo = vd_add(lo, VF_LO_float16(f, e));
                    hi = vd_add(hi, VF_HI_float16(f, e));
                }
                vd_store(r->s + j, lo);
                vd_store(r->s + j + VD_N, hi);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_float16(r, jj, LOAD_float16(p[k * q * rs + jj]));
        }
        int64_t i = ROW_GROUP * q;
        for (; i < nb; i++) {
            const T_float16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vf f = vf_load_f16(p + j);
                vi a = vi_absbits(f);
                mxv = vi_max_u32(mxv, a);
                mnv = vi_min_u32(mnv, vi_dec(a));
                vd_store(r->s + j, vd_add(vd_load(r->s + j), VF_LO_float16(f, p + j)));
                vd_store(r->s + j + VD_N, vd_add(vd_load(r->s + j + VD_N), VF_HI_float16(f, p + j)));
            }
            for (; j < w; j++) col_add_float16(r, j, LOAD_float16(p[j]));
        }
        uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
        r->bmx = mx > r->bmx ? mx : r->bmx;
        r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
        vec_zeroupper();
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_float16_avx512(r, b, rs, nb, w);
            continue;
        }
        if (rows_block_ok_float16(r, nb)) {
            rows_block_keep_float16_avx512(r, b, rs, nb, w);
        } else {
            uint8_t ok[TILE];
            columns_ok_float16_avx512(b, rs, nb, w, ok);
            if (!split_pays(ok, w) || !rows_split_float16_avx512(r, b, rs, nb, w)) rows_block_end_float16(r, b, rs, nb, 1, w, ok);
        }
    }
}
#undef VF_LO_float16
#undef VF_HI_float16
#undef LOAD2_float16

VEC_TARGET static void run_float16_avx512(const T_float16 *x, int64_t n, lanes_float16 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_float16)
        block_float16_avx512(x + i, n - i < RUN_BLOCK_float16 ? n - i : RUN_BLOCK_float16, l);
}
/* bfloat16, avx512: VD_N values at p (a vf f already loaded from p) as a vd */
#ifndef VF_LO_bfloat16
#define VF_LO_bfloat16(f, p) vf_lo(f)
#define VF_HI_bfloat16(f, p) vf_hi(f)
#endif
/* 2 * VF_N values at p: their |x| bit patterns folded into the running max
 * and min - 1 (unsigned), and the values as 4 vd of doubles. */
#define LOAD2_bfloat16(p, d, mx, mn1) do { \
        vf f0_ = vf_load_bf16(p), f1_ = vf_load_bf16((p) + VF_N); \
        vi a0_ = vi_absbits(f0_), a1_ = vi_absbits(f1_); \
        (mx) = vi_max_u32((mx), vi_max_u32(a0_, a1_)); \
        (mn1) = vi_min_u32((mn1), vi_min_u32(vi_dec(a0_), vi_dec(a1_))); \
        (d)[0] = VF_LO_bfloat16(f0_, (p)); (d)[1] = VF_HI_bfloat16(f0_, (p)); \
        (d)[2] = VF_LO_bfloat16(f1_, (p) + VF_N); (d)[3] = VF_HI_bfloat16(f1_, (p) + VF_N); \
    } while (0)

/* split_block of kernel_exact.c.j2 (a block in L1 that failed its check),
 * VF_N values at a time: the lanes of at least 2^T and those below, apart. */
VEC_TARGET __attribute__((noinline)) static int split_block_bfloat16_avx512(const T_bfloat16 *x, int64_t n, uint32_t mx, lanes_bfloat16 *l)
{
    uint32_t thr = split_threshold_bfloat16(mx, n);
    if (!thr) return 0;
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vd b0 = vd_set1(0.0), b1 = b0, s0 = b0, s1 = b0;
    vi smxv = vi_zero(), smnv = vi_ones();
    int64_t i = 0;
    for (; i + VF_N <= n; i += VF_N) {
        vf f = vf_load_bf16(x + i);
        vi a = vi_absbits(f), big = vi_gt_s32(a, below), as = vi_andnot(big, a);
        smxv = vi_max_u32(smxv, as);
        smnv = vi_min_u32(smnv, vi_dec(as));
        vf fb = vf_from_bits(vi_and(big, vf_bits(f))), fs = vf_from_bits(vi_andnot(big, vf_bits(f)));
        b0 = vd_add(b0, vf_lo(fb));
        b1 = vd_add(b1, vf_hi(fb));
        s0 = vd_add(s0, vf_lo(fs));
        s1 = vd_add(s1, vf_hi(fs));
    }
    double pb[VD_N], ps[VD_N], sums[2] = {0.0, 0.0};
    vd_store(pb, vd_add(b0, b1));
    vd_store(ps, vd_add(s0, s1));
    uint32_t smx = vi_hmax_u32(smxv), smn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int k = 0; k < VD_N; k++) {
        sums[0] += pb[k];
        sums[1] += ps[k];
    }
    for (; i < n; i++) split_add_bfloat16(LOAD_bfloat16(x[i]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_bfloat16, LSB_MIN_bfloat16)) return 0;
    lanes_keep_bfloat16(l, x, 1, n, sums, 2, mx != 0);
    return 1;
}

VEC_TARGET static void block_bfloat16_avx512(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_bfloat16_avx512(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l)
{
    T_bfloat16 raw[RUN_BLOCK_bfloat16 + 4096 / sizeof(T_bfloat16)], *buf = copy_at_bfloat16(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_bfloat16(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    if (f & SACC_NAN) l->masknan = 1;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_bfloat16_avx512(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_bfloat16_avx512(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l)
{
    /* skipna: float32 masks NaN lanes as it reads them (below); the others,
     * and blocks sent to the exact path, through a copy without them */
    const int masked = 0 && !ALWAYS_EXACT_bfloat16 && l->skip <= 0;
    if (l->skipna && !masked && block_nonfinite_bfloat16_avx512(x, n, l)) return;
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        (void)chunk_block_bfloat16(x, 1, n, &l->acc);
        return;
    }
    vd s[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    int64_t i = 0;
    if (ALWAYS_EXACT_bfloat16) {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_bfloat16));
            vf f0 = vf_load_bf16(x + i), f1 = vf_load_bf16(x + i + VF_N);
            (void)f0, (void)f1; /* unread where the values widen from memory */
            s[0] = vd_add(s[0], VF_LO_bfloat16(f0, x + i));
            s[1] = vd_add(s[1], VF_HI_bfloat16(f0, x + i));
            s[2] = vd_add(s[2], VF_LO_bfloat16(f1, x + i + VF_N));
            s[3] = vd_add(s[3], VF_HI_bfloat16(f1, x + i + VF_N));
        }
        double part[VD_N], total = 0.0;
        vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
        for (; i < n; i++) part[0] += LOAD_bfloat16(x[i]);
        for (int k = 0; k < VD_N; k++) total += part[k];
        vec_zeroupper();
        if (isfinite(total)) lanes_keep_bfloat16(l, x, 1, n, &total, 1, total != 0.0);
        else if (!block_nonfinite_bfloat16_avx512(x, n, l)) (void)chunk_block_bfloat16(x, 1, n, &l->acc);
        return;
    }
    /* the check on the 16-bit patterns (the float32 ones are them << 16);
     * sums of 4 values in float32 first, kept where quads_exact shows them
     * exact (most blocks of data that is not spread wide), else the block
     * is summed again value by value in double */
    vw mxv = vw_zero(), mnv = vw_ones();
    for (; i + 4 * VF_N <= n; i += 4 * VF_N) {
        PREFETCH_SPAN(x + i, 4 * VF_N * sizeof(T_bfloat16));
        vw r0 = vw_load(x + i), r1 = vw_load(x + i + 2 * VF_N), a0 = vw_absbits(r0), a1 = vw_absbits(r1);
        mxv = vw_max_u16(mxv, vw_max_u16(a0, a1));
        mnv = vw_min_u16(mnv, vw_min_u16(vw_dec(a0), vw_dec(a1)));
        vf f = vf_add(vf_add(vw_lo_f32(r0), vw_hi_f32(r0)), vf_add(vw_lo_f32(r1), vw_hi_f32(r1)));
        s[0] = vd_add(s[0], vf_lo(f));
        s[1] = vd_add(s[1], vf_hi(f));
    }
    if (i > 0) {
        uint32_t qmx = vw_hmax_u16(mxv) << 16, qmn16 = vw_hmin_u16(mnv);
        if (!quads_exact(qmx, qmn16 == 0xffffu ? UINT32_MAX : ((qmn16 + 1u) << 16) - 1u)) {
            s[0] = s[1] = vd_set1(0.0);
            i = 0;
        }
    }
    for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
        PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_bfloat16));
        vw raw = vw_load(x + i), a = vw_absbits(raw);
        mxv = vw_max_u16(mxv, a);
        mnv = vw_min_u16(mnv, vw_dec(a));
        vf f0 = vw_lo_f32(raw), f1 = vw_hi_f32(raw);
        s[0] = vd_add(s[0], vf_lo(f0));
        s[1] = vd_add(s[1], vf_hi(f0));
        s[2] = vd_add(s[2], vf_lo(f1));
        s[3] = vd_add(s[3], vf_hi(f1));
    }
    /* the four sums in a tree: when the block passes its check, every
     * partial sum is exact, so no order of the additions changes a bit */
    double part[VD_N], total = 0.0;
    vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
    uint32_t mx = vw_hmax_u16(mxv) << 16, mn16 = vw_hmin_u16(mnv);
    uint32_t mn1 = mn16 == 0xffffu ? UINT32_MAX : ((mn16 + 1u) << 16) - 1u;
    int64_t nan = 0; /* (skipna went through block_nonfinite) */
    for (; i < n; i++) {
        double v = LOAD_bfloat16(x[i]);
        if ((l->skipna || l->masknan) && v != v) { /* as -0.0: nothing to add, no bound */
            nan++;
            continue;
        }
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        part[0] += v;
    }
    vec_zeroupper();
    /* an inf or NaN among them; or NaN skipped where a fallback below would
     * read them (the exact paths, the sign of a zero sum) */
    const int ok = narrow_sum_exact(mx, mn1, n, PREC_bfloat16, LSB_MIN_bfloat16);
    if ((mx >= 0x7f800000u || (nan && (!ok || mx == 0))) && block_nonfinite_bfloat16_avx512(x, n, l)) return;
    if (l->skipna) l->acc.w[0] += (uint64_t)nan;
    else if (nan) l->acc.w[1] |= SACC_NAN | SACC_NONNEGZERO;
    if (ok) {
        for (int k = 0; k < VD_N; k++) total += part[k]; /* exact, as every partial sum */
        lanes_keep_bfloat16(l, x, 1, n, &total, 1, mx != 0);
        l->fails = 0;
    } else if (split_block_bfloat16_avx512(x, n, mx, l)) {
        l->fails = 0;
    } else {
        (void)chunk_block_bfloat16(x, 1, n, &l->acc);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* div_odd on VD_N lanes: q = RN(S / n), e = S - q * n exactly; an inexact
 * lane steps toward zero when |q| is above |S / n|, then sets its last bit. */
VEC_TARGET static inline vd div_odd_bfloat16_avx512(vd S, vd nv)
{
    vd q = vd_div(S, nv), e = vd_fnmadd(q, nv, S);
    vq inexact = vd_ne0(e);
    vq toward = vq_srli(vd_bits(vd_xor(e, q)), 63); /* signs differ */
    vq b = vd_bits(q);
    b = vq_sub(b, vq_and(inexact, toward));
    b = vq_or(b, vq_and(inexact, vq_set1(1)));
    return vd_from_bits(b);
}

/* The sums of the VF_N outputs at j as two vd: bsum (+ rsum[j] where hr)
 * + the nc contiguous inputs at j; their values' |x| bit patterns folded
 * into *mxv (max) and *mnv (min of |x| - 1). Inlined with constant nc, hr. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_vsum_bfloat16_avx512(
    const T_bfloat16 *const *cont, const int nc, const int hr, const double *rsum, vd b, int64_t j, vd *s0, vd *s1,
    vi *mxv, vi *mnv)
{
    vd a0 = b, a1 = b;
    if (hr) {
        a0 = vd_add(a0, vd_load(rsum + j));
        a1 = vd_add(a1, vd_load(rsum + j + VD_N));
    }
    for (int i = 0; i < nc; i++) { /* no software prefetch: see PREFETCH_BYTES */
        vf f = vf_load_bf16(cont[i] + j);
        vi a = vi_absbits(f);
        *mxv = vi_max_u32(*mxv, a);
        *mnv = vi_min_u32(*mnv, vi_dec(a));
        a0 = vd_add(a0, VF_LO_bfloat16(f, cont[i] + j));
        a1 = vd_add(a1, VF_HI_bfloat16(f, cont[i] + j));
    }
    *s0 = a0;
    *s1 = a1;
}

/* S[j] for j < wv (a multiple of VF_N) by mean_vsum. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_sums_bfloat16_avx512(
    const T_bfloat16 *const *cont, const int nc, const int hr, const double *rsum, int64_t wv, double bsum, double *S,
    vi *mxp, vi *mnp)
{
    vi mxv = *mxp, mnv = *mnp;
    const vd b = vd_set1(bsum);
    for (int64_t j = 0; j < wv; j += VF_N) {
        vd s0, s1;
        mean_vsum_bfloat16_avx512(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vd_store(S + j, s0);
        vd_store(S + j + VD_N, s1);
    }
    *mxp = mxv;
    *mnp = mnv;
}

/* dst[j] = S[j] / n rounded once to the format, for j < w: S exact sums of
 * a unit that passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. */
VEC_TARGET static void mean_finish_bfloat16_avx512(const double *S, int ninputs, uint32_t mn1, int64_t w, T_bfloat16 *dst,
                                               int stream)
{
    const vd nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    int64_t j = 0;
    (void)stream;
    (void)mn1; /* the multiply path is float32's */
    for (; j + VD_N <= w; j += VD_N) {
        /* n a power of two: S / n = S * (1 / n) exactly (S is a multiple of the
         * format's smallest subnormal, far above double's), so no rounding to odd */
        vd Sv = vd_load(S + j), q = pow2 ? vd_mul(Sv, rn) : div_odd_bfloat16_avx512(Sv, nv);
        double t[VD_N];
        vd_store(t, q);
        for (int k = 0; k < VD_N; k++) dst[j + k] = store_bfloat16(t[k]);
    }
    for (; j < w; j++) dst[j] = store_bfloat16(div_odd(S[j], (double)ninputs));
    vec_zeroupper();
}

/* The vector form of mean_unit when every input is read contiguously or
 * broadcast along the inner dim (sinner 1 or 0): the same sums, check and
 * rounding, VF_N outputs at a time. */
VEC_TARGET static void mean_unit_bfloat16_avx512(int ninputs, const T_bfloat16 *const *src, const int64_t *sinner, int64_t w,
                                              T_bfloat16 *dst, int stream, const mean_rowsum *rows)
{
    double S[TILE];
    vi mxv = vi_zero(), mnv = vi_ones();
    /* broadcast inputs once: their sum starts every output's sum (when the
     * check passes, every order of the additions gives the same exact sum) */
    const T_bfloat16 *cont[MEAN_VEC_MAX];
    int ncont = 0;
    double bsum = -0.0;
    uint32_t bmx = 0, bmn1 = UINT32_MAX;
    for (int i = 0; i < ninputs; i++) {
        if (rows && rows->taken[i]) continue; /* in rows->sum */
        if (sinner[i] && ncont < MEAN_VEC_MAX) {
            cont[ncont++] = src[i];
            continue;
        }
        if (sinner[i]) { /* more contiguous inputs than the vector loop takes */
            vec_zeroupper();
            mean_unit_bfloat16(ninputs, src, sinner, w, dst);
            return;
        }
        double v = LOAD_bfloat16(src[i][0]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        bmx = a > bmx ? a : bmx;
        bmn1 = a - 1u < bmn1 ? a - 1u : bmn1;
        bsum += v;
    }
    const double *rsum = NULL;
    if (rows) {
        rsum = rows->sum;
        bmx = rows->mx > bmx ? rows->mx : bmx;
        bmn1 = rows->mn1 < bmn1 ? rows->mn1 : bmn1;
    }
    int64_t j = w / VF_N * VF_N;
    switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
    case 1: mean_sums_bfloat16_avx512(cont, 0, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 2: mean_sums_bfloat16_avx512(cont, 1, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 3: mean_sums_bfloat16_avx512(cont, 1, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 4: mean_sums_bfloat16_avx512(cont, 2, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 5: mean_sums_bfloat16_avx512(cont, 2, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 6: mean_sums_bfloat16_avx512(cont, 3, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 7: mean_sums_bfloat16_avx512(cont, 3, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 8: mean_sums_bfloat16_avx512(cont, 4, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 9: mean_sums_bfloat16_avx512(cont, 4, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    default: mean_sums_bfloat16_avx512(cont, ncont, rsum != NULL, rsum, j, bsum, S, &mxv, &mnv); break;
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    mx = bmx > mx ? bmx : mx;
    mn1 = bmn1 < mn1 ? bmn1 : mn1;
    for (; j < w; j++) {
        S[j] = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_bfloat16(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_bfloat16, LSB_MIN_bfloat16)) { /* rare: the portable unit checks output by output */
        vec_zeroupper();
        mean_unit_bfloat16(ninputs, src, sinner, w, dst);
        return;
    }
    mean_finish_bfloat16_avx512(S, ninputs, mn1, w, dst, stream);
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w
 * (mean_unit's results): the unit's check over its w * k contiguous values
 * in vectors, the sums in scalar double (a constant k each, for the
 * compiler), the division in vectors (mean_finish). A unit that fails the
 * check goes to mean_unit. */
VEC_TARGET __attribute__((always_inline)) static inline void run_sums_bfloat16_avx512(const T_bfloat16 *x, const int k,
                                                                                     int64_t w, double *S)
{
    for (int64_t j = 0; j < w; j++) {
        double s = -0.0;
        for (int i = 0; i < k; i++) s += LOAD_bfloat16(x[j * k + i]);
        S[j] = s;
    }
}

VEC_TARGET static void mean_runs_bfloat16_avx512(const T_bfloat16 *x, int k, int64_t w, T_bfloat16 *dst)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    const int64_t nv = w * k;
    int64_t i = 0;
    for (; i + VF_N <= nv; i += VF_N) {
        vi a = vi_absbits(vf_load_bf16(x + i));
        mxv = vi_max_u32(mxv, a);
        mnv = vi_min_u32(mnv, vi_dec(a));
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    for (; i < nv; i++) {
        uint32_t a = f32_to_bits((float)LOAD_bfloat16(x[i])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    if (!narrow_sum_exact(mx, mn1, k, PREC_bfloat16, LSB_MIN_bfloat16)) {
        const T_bfloat16 *src[INNER_AS_MEAN_MAX];
        int64_t sinner[INNER_AS_MEAN_MAX];
        for (int f = 0; f < k; f++) {
            src[f] = x + f;
            sinner[f] = k;
        }
        mean_unit_bfloat16(k, src, sinner, w, dst);
        return;
    }
    double S[TILE];
    switch (k) { /* a constant k each */
    case 1: run_sums_bfloat16_avx512(x, 1, w, S); break;
    case 2: run_sums_bfloat16_avx512(x, 2, w, S); break;
    case 3: run_sums_bfloat16_avx512(x, 3, w, S); break;
    case 4: run_sums_bfloat16_avx512(x, 4, w, S); break;
    case 5: run_sums_bfloat16_avx512(x, 5, w, S); break;
    case 6: run_sums_bfloat16_avx512(x, 6, w, S); break;
    case 7: run_sums_bfloat16_avx512(x, 7, w, S); break;
    case 8: run_sums_bfloat16_avx512(x, 8, w, S); break;
    case 12: run_sums_bfloat16_avx512(x, 12, w, S); break;
    case 16: run_sums_bfloat16_avx512(x, 16, w, S); break;
    case 24: run_sums_bfloat16_avx512(x, 24, w, S); break;
    case 32: run_sums_bfloat16_avx512(x, 32, w, S); break;
    default: run_sums_bfloat16_avx512(x, k, w, S); break;
    }
    mean_finish_bfloat16_avx512(S, k, mn1, w, dst, 0);
}

/* rows_split of kernel_exact.c.j2, VF_N columns at a time (the block is in
 * L1 or L2: it was just read). */
VEC_TARGET __attribute__((noinline)) static int rows_split_bfloat16_avx512(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    uint32_t thr = split_threshold_bfloat16(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    memset(big, 0, (size_t)w * sizeof *big);
    memset(small, 0, (size_t)w * sizeof *small);
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vi smxv = vi_zero(), smnv = vi_ones();
    const int64_t wv = w / VF_N * VF_N;
    for (int64_t i = 0; i < nrows; i++) {
        const T_bfloat16 *p = x + i * rs;
        for (int64_t j = 0; j < wv; j += VF_N) {
            vf f = vf_load_bf16(p + j);
            vi a = vi_absbits(f), bg = vi_gt_s32(a, below), as = vi_andnot(bg, a);
            smxv = vi_max_u32(smxv, as);
            smnv = vi_min_u32(smnv, vi_dec(as));
            vf fb = vf_from_bits(vi_and(bg, vf_bits(f))), fs = vf_from_bits(vi_andnot(bg, vf_bits(f)));
            vd_store(big + j, vd_add(vd_load(big + j), vf_lo(fb)));
            vd_store(big + j + VD_N, vd_add(vd_load(big + j + VD_N), vf_hi(fb)));
            vd_store(small + j, vd_add(vd_load(small + j), vf_lo(fs)));
            vd_store(small + j + VD_N, vd_add(vd_load(small + j + VD_N), vf_hi(fs)));
        }
    }
    uint32_t vmx = vi_hmax_u32(smxv), vmn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = wv; j < w; j++) split_add_bfloat16(LOAD_bfloat16(x[i * rs + j]), thr, &big[j], &small[j], &smx, &smn1);
    smx = vmx > smx ? vmx : smx;
    smn1 = vmn1 < smn1 ? vmn1 : smn1;
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_bfloat16, LSB_MIN_bfloat16)) return 0;
    rows_keep_split_bfloat16(r, x, rs, nrows, 1, w, big, small);
    return 1;
}

/* rows_block_end of a block that passed its shared check, VD_N columns at a
 * time: the block sums on into the kept sums where TwoSum shows each lane's
 * addition exact and no block sum is zero; other lanes one by one. */
VEC_TARGET static void rows_block_keep_bfloat16_avx512(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows,
                                                     int64_t w)
{
    const vd zero = vd_set1(0.0);
    const vq ones = vq_set1(-1);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        vd a = vd_load(r->t + j), b = vd_load(r->s + j);
        vd sum = vd_add(a, b), bv = vd_sub(sum, a);
        vd err = vd_add(vd_sub(a, vd_sub(sum, bv)), vd_sub(b, bv)); /* NaN where sum overflowed */
        vq slow = vq_or(vd_bits(vd_above(err, zero)), vq_andnot(vd_bits(vd_above(b, zero)), ones));
        if (vd_anybits(vd_from_bits(slow))) {
            vec_zeroupper();
            for (int k = 0; k < VD_N; k++) keep_column_bfloat16(r, x + j + k, rs, nrows, j + k);
            continue;
        }
        vd_store(r->t + j, sum);
        vd_store(r->tnz + j, vd_max(vd_load(r->tnz + j), vd_abs(b)));
    }
    vec_zeroupper();
    for (; j < w; j++) keep_column_bfloat16(r, x + j, rs, nrows, j);
}

/* Each column's own check of a block (VF_N columns at a time, the bounds in registers). */
VEC_TARGET static void columns_ok_bfloat16_avx512(const T_bfloat16 *b, int64_t rs, int64_t nb, int64_t w, uint8_t *ok)
{
    int64_t j = 0;
    for (; j + VF_N <= w; j += VF_N) {
        vi mxv = vi_zero(), mnv = vi_ones();
        for (int64_t i = 0; i < nb; i++) {
            vi a = vi_absbits(vf_load_bf16(b + i * rs + j));
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
        }
        uint32_t mx[VF_N], mn1[VF_N];
        vi_store(mx, mxv);
        vi_store(mn1, mnv);
        for (int k = 0; k < VF_N; k++) ok[j + k] = (uint8_t)narrow_sum_exact(mx[k], mn1[k], nb, PREC_bfloat16, LSB_MIN_bfloat16);
    }
    vec_zeroupper();
    for (; j < w; j++) ok[j] = (uint8_t)column_ok_bfloat16(NULL, j, b + j, rs, nb);
}

/* Narrow rows (w <= NARROW_ROW): the first ng * VF_N column sums in 2 * ng
 * registers across the block's rows (each read once, in order), the
 * block's shared bound in two more. Inlined with a
 * constant ng, so the sums stay in registers. */
VEC_TARGET __attribute__((always_inline)) static inline void narrow_rows_bfloat16_avx512(
    rowacc_bfloat16 *r, int64_t j0, const T_bfloat16 *x, int64_t rs, int64_t nrows, const int ng)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    vd c[2 * NARROW_PANEL];
    for (int q = 0; q < 2 * ng; q++) c[q] = vd_load(r->s + j0 + VD_N * q);
    for (int64_t i = 0; i < nrows; i++) {
        const T_bfloat16 *p = x + i * rs;
        for (int q = 0; q < ng; q++) {
            vf f = vf_load_bf16(p + VF_N * q);
            vi a = vi_absbits(f);
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
            c[2 * q] = vd_add(c[2 * q], VF_LO_bfloat16(f, p + VF_N * q));
            c[2 * q + 1] = vd_add(c[2 * q + 1], VF_HI_bfloat16(f, p + VF_N * q));
        }
    }
    for (int q = 0; q < 2 * ng; q++) vd_store(r->s + j0 + VD_N * q, c[q]);
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    r->bmx = mx > r->bmx ? mx : r->bmx;
    r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
}

/* Each row read once: narrow ones one after the other, as above; wide
 * ones ROW_GROUP at a time (below), the column sums in L1; the block's
 * shared bound in registers. */
VEC_TARGET static void add_rows_bfloat16_avx512(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t w);

/* rows_nonfinite of kernel_exact.c.j2 on this ISA's row kernels. */
VEC_TARGET __attribute__((noinline)) static void rows_nonfinite_bfloat16_avx512(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs,
                                                                             int64_t nrows, int64_t w)
{
    T_bfloat16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_bfloat16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_bfloat16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    vec_zeroupper();
    r->nonfinite = 0; /* the copies hold none */
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_bfloat16 *buf = copy_at_bfloat16(raw, x + i * rs);
        clean_rows_bfloat16(x + i * rs, rs, m, 1, w, buf, 0, r->acc);
        add_rows_bfloat16_avx512(r, buf, w, m, w);
    }
    r->nonfinite = 1; /* the next blocks straight here (data with NaN tends to keep them) */
}

VEC_TARGET static void add_rows_bfloat16_avx512(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t w)
{
    if (w <= PANEL_ROWS_MAX) {
        const int64_t row_bytes = w * (int64_t)sizeof(T_bfloat16);
        int64_t sub = row_bytes ? 16384 / row_bytes : NARROW_SUB;
        sub = sub < 1 ? 1 : (sub > NARROW_SUB ? NARROW_SUB : sub);
        for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
            nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
            const T_bfloat16 *b = x + i0 * rs;
            if (r->skip > 0) {
                vec_zeroupper();
                nb = rows_block_exact_bfloat16(r, b, rs, nrows - i0, 1, w);
                continue;
            }
            if (r->nonfinite) {
                rows_nonfinite_bfloat16_avx512(r, b, rs, nb, w);
                continue;
            }
            rows_block_begin_bfloat16(r, b, rs, nb, 1, w);
            /* panels of NARROW_PANEL * VF_N columns over sub-blocks of NARROW_SUB
             * rows (in L1 after the first panel) */
            for (int64_t k0 = 0; k0 < nb; k0 += sub) {
                int64_t k1 = k0 + sub < nb ? k0 + sub : nb;
                for (int64_t j0 = 0; j0 + VF_N <= w; j0 += VF_N * NARROW_PANEL) {
                    const T_bfloat16 *src = b + k0 * rs + j0;
                    switch ((w - j0) / VF_N < NARROW_PANEL ? (w - j0) / VF_N : NARROW_PANEL) { /* a constant ng each: its own loop */
                    case 1: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 1); break;
                    case 2: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 2); break;
                    case 3: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 3); break;
                    case 4: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 4); break;
                    case 5: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 5); break;
                    case 6: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 6); break;
                    case 7: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 7); break;
                    case 8: narrow_rows_bfloat16_avx512(r, j0, src, rs, k1 - k0, 8); break;
                    default: break;
                    }
                }
            }
            if (w % VF_N != 0) /* else an empty loop over the rows: 10% of (1000000, 64) float32 */
                for (int64_t i = 0; i < nb; i++)
                    for (int64_t j = w / VF_N * VF_N; j < w; j++) col_add_bfloat16(r, j, LOAD_bfloat16(b[i * rs + j]));
            vec_zeroupper();
            if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
                rows_nonfinite_bfloat16_avx512(r, b, rs, nb, w);
                continue;
            }
            if (rows_block_ok_bfloat16(r, nb)) {
                rows_block_keep_bfloat16_avx512(r, b, rs, nb, w);
            } else {
                uint8_t ok[TILE];
                columns_ok_bfloat16_avx512(b, rs, nb, w, ok);
                if (!split_pays(ok, w) || !rows_split_bfloat16_avx512(r, b, rs, nb, w)) rows_block_end_bfloat16(r, b, rs, nb, 1, w, ok);
            }
        }
        return;
    }
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_bfloat16 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_bfloat16(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        if (r->nonfinite) {
            rows_nonfinite_bfloat16_avx512(r, b, rs, nb, w);
            continue;
        }
        rows_block_begin_bfloat16(r, b, rs, nb, 1, w);
        vi mxv = vi_zero(), mnv = vi_ones();
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * so each column sum is loaded and stored once per group and the
         * block is read as ROW_GROUP sequential streams. With a load and a
         * store per value the loop was bound by the load/store ports (W5
         * 1.2x the kernels before exactness); adjacent rows as the group
         * halved the read bandwidth from memory (the hardware prefetchers
         * lose streams of a row each). When the block passes its check its
         * sums are exact in any order; when not, they are summed again. */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_bfloat16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vd lo = vd_load(r->s + j), hi = vd_load(r->s + j + VD_N);
                for (int k = 0; k < ROW_GROUP; k++) {
                    const T_bfloat16 *e = p + k * q * rs + j;
                    vf f = vf_load_bf16(e);
                    vi a = vi_absbits(f);
                    mxv = vi_max_u32(mxv, a);
                    mnv = vi_min_u32(mnv, vi_dec(a));
                    lo = vd_add(lo, VF_LO_bfloat16(f, e));
                    hi = vd_add(hi, VF_HI_bfloat16(f, e));
                }
                vd_store(r->s + j, lo);
                vd_store(r->s + j + VD_N, hi);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_bfloat16(r, jj, LOAD_bfloat16(p[k * q * rs + jj]));
        }
        int64_t i = ROW_GROUP * q;
        for (; i < nb; i++) {
            const T_bfloat16 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vf f = vf_load_bf16(p + j);
                vi a = vi_absbits(f);
                mxv = vi_max_u32(mxv, a);
                mnv = vi_min_u32(mnv, vi_dec(a));
                vd_store(r->s + j, vd_add(vd_load(r->s + j), VF_LO_bfloat16(f, p + j)));
                vd_store(r->s + j + VD_N, vd_add(vd_load(r->s + j + VD_N), VF_HI_bfloat16(f, p + j)));
            }
            for (; j < w; j++) col_add_bfloat16(r, j, LOAD_bfloat16(p[j]));
        }
        uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
        r->bmx = mx > r->bmx ? mx : r->bmx;
        r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
        vec_zeroupper();
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_bfloat16_avx512(r, b, rs, nb, w);
            continue;
        }
        if (rows_block_ok_bfloat16(r, nb)) {
            rows_block_keep_bfloat16_avx512(r, b, rs, nb, w);
        } else {
            uint8_t ok[TILE];
            columns_ok_bfloat16_avx512(b, rs, nb, w, ok);
            if (!split_pays(ok, w) || !rows_split_bfloat16_avx512(r, b, rs, nb, w)) rows_block_end_bfloat16(r, b, rs, nb, 1, w, ok);
        }
    }
}
#undef VF_LO_bfloat16
#undef VF_HI_bfloat16
#undef LOAD2_bfloat16

VEC_TARGET static void run_bfloat16_avx512(const T_bfloat16 *x, int64_t n, lanes_bfloat16 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_bfloat16)
        block_bfloat16_avx512(x + i, n - i < RUN_BLOCK_bfloat16 ? n - i : RUN_BLOCK_bfloat16, l);
}
/* float32, avx512: VD_N values at p (a vf f already loaded from p) as a vd */
#ifdef vd_load_f32
#define VF_LO_float32(f, p) vd_load_f32(p)
#define VF_HI_float32(f, p) vd_load_f32((p) + VD_N)
#endif
#ifndef VF_LO_float32
#define VF_LO_float32(f, p) vf_lo(f)
#define VF_HI_float32(f, p) vf_hi(f)
#endif
/* 2 * VF_N values at p: their |x| bit patterns folded into the running max
 * and min - 1 (unsigned), and the values as 4 vd of doubles. */
#define LOAD2_float32(p, d, mx, mn1) do { \
        vf f0_ = vf_load_f32(p), f1_ = vf_load_f32((p) + VF_N); \
        vi a0_ = vi_absbits(f0_), a1_ = vi_absbits(f1_); \
        (mx) = vi_max_u32((mx), vi_max_u32(a0_, a1_)); \
        (mn1) = vi_min_u32((mn1), vi_min_u32(vi_dec(a0_), vi_dec(a1_))); \
        (d)[0] = VF_LO_float32(f0_, (p)); (d)[1] = VF_HI_float32(f0_, (p)); \
        (d)[2] = VF_LO_float32(f1_, (p) + VF_N); (d)[3] = VF_HI_float32(f1_, (p) + VF_N); \
    } while (0)

/* split_block of kernel_exact.c.j2 (a block in L1 that failed its check),
 * VF_N values at a time: the lanes of at least 2^T and those below, apart. */
VEC_TARGET __attribute__((noinline)) static int split_block_float32_avx512(const T_float32 *x, int64_t n, uint32_t mx, lanes_float32 *l)
{
    uint32_t thr = split_threshold_float32(mx, n);
    if (!thr) return 0;
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vd b0 = vd_set1(0.0), b1 = b0, s0 = b0, s1 = b0;
    vi smxv = vi_zero(), smnv = vi_ones();
    int64_t i = 0;
    for (; i + VF_N <= n; i += VF_N) {
        vf f = vf_load_f32(x + i);
        vi a = vi_absbits(f), big = vi_gt_s32(a, below), as = vi_andnot(big, a);
        smxv = vi_max_u32(smxv, as);
        smnv = vi_min_u32(smnv, vi_dec(as));
        vf fb = vf_from_bits(vi_and(big, vf_bits(f))), fs = vf_from_bits(vi_andnot(big, vf_bits(f)));
        b0 = vd_add(b0, vf_lo(fb));
        b1 = vd_add(b1, vf_hi(fb));
        s0 = vd_add(s0, vf_lo(fs));
        s1 = vd_add(s1, vf_hi(fs));
    }
    double pb[VD_N], ps[VD_N], sums[2] = {0.0, 0.0};
    vd_store(pb, vd_add(b0, b1));
    vd_store(ps, vd_add(s0, s1));
    uint32_t smx = vi_hmax_u32(smxv), smn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int k = 0; k < VD_N; k++) {
        sums[0] += pb[k];
        sums[1] += ps[k];
    }
    for (; i < n; i++) split_add_float32(LOAD_float32(x[i]), thr, &sums[0], &sums[1], &smx, &smn1);
    if (!narrow_sum_exact(smx, smn1, n, PREC_float32, LSB_MIN_float32)) return 0;
    lanes_keep_float32(l, x, 1, n, sums, 2, mx != 0);
    return 1;
}

VEC_TARGET static void block_float32_avx512(const T_float32 *x, int64_t n, lanes_float32 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_float32_avx512(const T_float32 *x, int64_t n, lanes_float32 *l)
{
    T_float32 raw[RUN_BLOCK_float32 + 4096 / sizeof(T_float32)], *buf = copy_at_float32(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_float32(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    if (f & SACC_NAN) l->masknan = 1;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float32_avx512(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_float32_avx512(const T_float32 *x, int64_t n, lanes_float32 *l)
{
    /* skipna: float32 masks NaN lanes as it reads them (below); the others,
     * and blocks sent to the exact path, through a copy without them */
    const int masked = 1 && !ALWAYS_EXACT_float32 && l->skip <= 0;
    if (l->skipna && !masked && block_nonfinite_float32_avx512(x, n, l)) return;
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        (void)chunk_block_float32(x, 1, n, &l->acc);
        return;
    }
    vd s[4] = {vd_set1(0.0), vd_set1(0.0), vd_set1(0.0), vd_set1(0.0)};
    int64_t i = 0;
    if (ALWAYS_EXACT_float32) {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float32));
            vf f0 = vf_load_f32(x + i), f1 = vf_load_f32(x + i + VF_N);
            (void)f0, (void)f1; /* unread where the values widen from memory */
            s[0] = vd_add(s[0], VF_LO_float32(f0, x + i));
            s[1] = vd_add(s[1], VF_HI_float32(f0, x + i));
            s[2] = vd_add(s[2], VF_LO_float32(f1, x + i + VF_N));
            s[3] = vd_add(s[3], VF_HI_float32(f1, x + i + VF_N));
        }
        double part[VD_N], total = 0.0;
        vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
        for (; i < n; i++) part[0] += LOAD_float32(x[i]);
        for (int k = 0; k < VD_N; k++) total += part[k];
        vec_zeroupper();
        if (isfinite(total)) lanes_keep_float32(l, x, 1, n, &total, 1, total != 0.0);
        else if (!block_nonfinite_float32_avx512(x, n, l)) (void)chunk_block_float32(x, 1, n, &l->acc);
        return;
    }
    vi mxv = vi_zero(), mnv = vi_ones();
    int64_t nan = 0; /* skipna (and after a block with NaN): NaN read as -0.0 (their |x| bits as 0) */
    if (l->skipna || l->masknan) {
        const vi inf = vi_set1(0x7f800000), sign = vi_set1((int32_t)0x80000000u);
        vi cnt = vi_zero();
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float32));
            vf f0 = vf_load_f32(x + i), f1 = vf_load_f32(x + i + VF_N);
            vi a0 = vi_absbits(f0), a1 = vi_absbits(f1), m0 = vi_gt_s32(a0, inf), m1 = vi_gt_s32(a1, inf);
            cnt = vi_sub(vi_sub(cnt, m0), m1); /* a NaN lane is -1 */
            a0 = vi_andnot(m0, a0);
            a1 = vi_andnot(m1, a1);
            f0 = vf_from_bits(vi_or(vi_andnot(m0, vf_bits(f0)), vi_and(m0, sign)));
            f1 = vf_from_bits(vi_or(vi_andnot(m1, vf_bits(f1)), vi_and(m1, sign)));
            mxv = vi_max_u32(mxv, vi_max_u32(a0, a1));
            mnv = vi_min_u32(mnv, vi_min_u32(vi_dec(a0), vi_dec(a1)));
            s[0] = vd_add(s[0], vf_lo(f0));
            s[1] = vd_add(s[1], vf_hi(f0));
            s[2] = vd_add(s[2], vf_lo(f1));
            s[3] = vd_add(s[3], vf_hi(f1));
        }
        int32_t c[VF_N];
        vi_store(c, cnt);
        for (int k = 0; k < VF_N; k++) nan += c[k];
    } else {
        for (; i + 2 * VF_N <= n; i += 2 * VF_N) {
            vd d[4];
            PREFETCH_SPAN(x + i, 2 * VF_N * sizeof(T_float32));
            LOAD2_float32(x + i, d, mxv, mnv);
            for (int k = 0; k < 4; k++) s[k] = vd_add(s[k], d[k]);
        }
    }
    /* the four sums in a tree: when the block passes its check, every
     * partial sum is exact, so no order of the additions changes a bit */
    double part[VD_N], total = 0.0;
    vd_store(part, vd_add(vd_add(s[0], s[1]), vd_add(s[2], s[3])));
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    for (; i < n; i++) {
        double v = LOAD_float32(x[i]);
        if ((l->skipna || l->masknan) && v != v) { /* as -0.0: nothing to add, no bound */
            nan++;
            continue;
        }
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
        part[0] += v;
    }
    vec_zeroupper();
    /* an inf or NaN among them; or NaN skipped where a fallback below would
     * read them (the exact paths, the sign of a zero sum) */
    const int ok = narrow_sum_exact(mx, mn1, n, PREC_float32, LSB_MIN_float32);
    if ((mx >= 0x7f800000u || (nan && (!ok || mx == 0))) && block_nonfinite_float32_avx512(x, n, l)) return;
    if (l->skipna) l->acc.w[0] += (uint64_t)nan;
    else if (nan) l->acc.w[1] |= SACC_NAN | SACC_NONNEGZERO;
    if (ok) {
        for (int k = 0; k < VD_N; k++) total += part[k]; /* exact, as every partial sum */
        lanes_keep_float32(l, x, 1, n, &total, 1, mx != 0);
        l->fails = 0;
    } else if (split_block_float32_avx512(x, n, mx, l)) {
        l->fails = 0;
    } else {
        (void)chunk_block_float32(x, 1, n, &l->acc);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* div_odd on VD_N lanes: q = RN(S / n), e = S - q * n exactly; an inexact
 * lane steps toward zero when |q| is above |S / n|, then sets its last bit. */
VEC_TARGET static inline vd div_odd_float32_avx512(vd S, vd nv)
{
    vd q = vd_div(S, nv), e = vd_fnmadd(q, nv, S);
    vq inexact = vd_ne0(e);
    vq toward = vq_srli(vd_bits(vd_xor(e, q)), 63); /* signs differ */
    vq b = vd_bits(q);
    b = vq_sub(b, vq_and(inexact, toward));
    b = vq_or(b, vq_and(inexact, vq_set1(1)));
    return vd_from_bits(b);
}

/* The sums of the VF_N outputs at j as two vd: bsum (+ rsum[j] where hr)
 * + the nc contiguous inputs at j; their values' |x| bit patterns folded
 * into *mxv (max) and *mnv (min of |x| - 1). Inlined with constant nc, hr. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_vsum_float32_avx512(
    const T_float32 *const *cont, const int nc, const int hr, const double *rsum, vd b, int64_t j, vd *s0, vd *s1,
    vi *mxv, vi *mnv)
{
    vd a0 = b, a1 = b;
    if (hr) {
        a0 = vd_add(a0, vd_load(rsum + j));
        a1 = vd_add(a1, vd_load(rsum + j + VD_N));
    }
    for (int i = 0; i < nc; i++) { /* no software prefetch: see PREFETCH_BYTES */
        vf f = vf_load_f32(cont[i] + j);
        vi a = vi_absbits(f);
        *mxv = vi_max_u32(*mxv, a);
        *mnv = vi_min_u32(*mnv, vi_dec(a));
        a0 = vd_add(a0, VF_LO_float32(f, cont[i] + j));
        a1 = vd_add(a1, VF_HI_float32(f, cont[i] + j));
    }
    *s0 = a0;
    *s1 = a1;
}

/* S[j] for j < wv (a multiple of VF_N) by mean_vsum. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_sums_float32_avx512(
    const T_float32 *const *cont, const int nc, const int hr, const double *rsum, int64_t wv, double bsum, double *S,
    vi *mxp, vi *mnp)
{
    vi mxv = *mxp, mnv = *mnp;
    const vd b = vd_set1(bsum);
    for (int64_t j = 0; j < wv; j += VF_N) {
        vd s0, s1;
        mean_vsum_float32_avx512(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vd_store(S + j, s0);
        vd_store(S + j + VD_N, s1);
    }
    *mxp = mxv;
    *mnp = mnv;
}

/* Whether mean_bymul rounds as S / n does, for a unit of n inputs that
 * passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. For n a
 * power of two, S * (1 / n) is exact. Not a power of two (n >= 3): q = RN(S * RN(1 / n)) is within 1.6 of
 * its ulps of S / n, so r = q * n - S is a multiple of ulp(q) (n is an
 * integer, |S| > |q|) below 2^53 of them: fma(q, n, -S) is exact, and
 * q' = fma(-r, rn, q) is RN(S / n + e), |e| < 2^-51 ulp(q). The unit
 * passed narrow_sum_exact, so its values are multiples of 2^g >= n *
 * 2^(m - 52), |S / n| < 2^(m + 1) (m the largest value's exponent); S - n
 * * M, for M a float32 midpoint (or FLT_MAX's upper one, the overflow
 * threshold) next to S / n, is a multiple of min(2^g, ulp32(M) / 2): when
 * it is not zero, |S / n - M| >= ulp(M) (the double's: ulp32(M) =
 * 2^29 ulp(M) <= 2^(m - 23), n < 2^28), so q' is on S / n's side of every
 * midpoint, and when it is zero q' = M, a tie (to even): q' rounds to
 * float32 as S / n does. A zero S makes r +0.0 and -r * rn -0.0, which
 * leaves either zero q as it is (-0.0 for a mean of -0.0s). That holds
 * while S / n and q are in float32's normal range: every nonzero S is at
 * least 2^g (the grid of the unit's values, below), so |S / n| >= 2^(g -
 * cl); a unit where that can fall below 2^-125 takes the division and
 * rounding to odd. */
static inline int mean_bymul_ok_float32_avx512(int ninputs, uint32_t mn1)
{
    if ((ninputs & (ninputs - 1)) == 0) return 1;
    int cl = 64 - __builtin_clzll((uint64_t)(ninputs - 1)), g = -149; /* n <= 2^cl */
    if (mn1 != UINT32_MAX) {
        int t = (int)((mn1 + 1) >> 23) - 127;
        g = t - 23 < -149 ? -149 : t - 23;
    }
    return ninputs < (1 << 28) && g - cl >= -125;
}

/* RN(S / n) as float32 will round it, from an exact S (mean_bymul_ok). */
VEC_TARGET __attribute__((always_inline)) static inline vd mean_bymul_float32_avx512(vd Sv, vd nv, vd rn, const int pow2)
{
    vd q = vd_mul(Sv, rn);
    return pow2 ? q : vd_fnmadd(vd_fmsub(q, nv, Sv), rn, q);
}

/* VF_N outputs of a unit that passed narrow_sum_exact from its exact sums S
 * (mean_bymul where mean_bymul_ok, else rounded to odd and then to float32). */
VEC_TARGET __attribute__((always_inline)) static inline vf mean_vf_float32_avx512(vd s0, vd s1, vd nv, vd rn, const int pow2,
                                                                             const int bymul)
{
    if (bymul)
        return vf_join(vh_from_vd(mean_bymul_float32_avx512(s0, nv, rn, pow2)),
                       vh_from_vd(mean_bymul_float32_avx512(s1, nv, rn, pow2)));
    return vf_join(vh_from_vd(div_odd_float32_avx512(s0, nv)), vh_from_vd(div_odd_float32_avx512(s1, nv)));
}

/* Streamed stores (stream set): meancli_mean sets it only where every
 * unit's dst is 16-byte aligned and its w a multiple of 4, and then every
 * output goes out in streamed whole vectors or 16-byte quarters of one. A
 * line written partly by cached stores costs a read of it and a partial
 * write: 2.4x (AVX-512) to 3.6x (AVX2) the time, measured. MEAN_LEAD: the
 * outputs before dst's first whole-vector alignment (a multiple of 4). */
#define MEAN_LEAD(dst) ((int64_t)(((sizeof(vf) - ((uintptr_t)(dst) & (sizeof(vf) - 1))) & (sizeof(vf) - 1)) / 4))

/* dst[0, w) from the float32 values in v, by streamed 16-byte stores (w a multiple of 4, dst 16-byte aligned) */
VEC_TARGET static inline void mean_stream_floats_float32_avx512(float *dst, const float *v, int64_t w)
{
    for (int64_t j = 0; j < w; j += 4) _mm_stream_ps(dst + j, _mm_loadu_ps(v + j));
}

/* mean_unit in one pass, for a unit whose output overlaps none of its
 * inputs: each vector of outputs summed (mean_vsum), divided (mean_bymul)
 * and stored at once, the unit's bound folded on the way and checked at the
 * end; the outputs after the last whole vector are summed aside and written
 * once it passed (streamed: the first and last vector's quarters that are
 * not whole vectors of dst, and a unit narrower than a vector aside).
 * Returns 0 when the check or the multiply's range fails: the outputs
 * written are then wrong, and the caller computes the unit again (its
 * inputs are intact). Inlined with constant nc and hr. */
VEC_TARGET __attribute__((always_inline)) static inline int mean_fused_float32_avx512(
    const T_float32 *const *cont, const int nc, const int hr, const double *rsum, double bsum, uint32_t mx,
    uint32_t mn1, int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t w, T_float32 *dst, int stream)
{
    const vd b = vd_set1(bsum), nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    vi mxv = vi_zero(), mnv = vi_ones();
    vd s0, s1;
    const int nt = stream && w >= VF_N;
    int64_t j = 0;
    if (nt && MEAN_LEAD(dst)) { /* quarters on to a whole vector's alignment */
        mean_vsum_float32_avx512(cont, nc, hr, rsum, b, 0, &s0, &s1, &mxv, &mnv);
        vf_stream_quarters((float *)dst, mean_vf_float32_avx512(s0, s1, nv, rn, pow2, 1), 0, (int)MEAN_LEAD(dst) / 4);
        j = MEAN_LEAD(dst);
    }
    for (; j + VF_N <= w; j += VF_N) {
        mean_vsum_float32_avx512(cont, nc, hr, rsum, b, j, &s0, &s1, &mxv, &mnv);
        vf f = mean_vf_float32_avx512(s0, s1, nv, rn, pow2, 1);
        if (nt) vf_stream((float *)dst + j, f);
        else vf_store((float *)dst + j, f);
    }
    if (nt && j < w) { /* the last quarters: of the vector ending at w */
        mean_vsum_float32_avx512(cont, nc, hr, rsum, b, w - VF_N, &s0, &s1, &mxv, &mnv);
        vf_stream_quarters((float *)dst + w - VF_N, mean_vf_float32_avx512(s0, s1, nv, rn, pow2, 1),
                           (int)(j - (w - VF_N)) / 4, VF_N / 4);
        j = w;
    }
    const int64_t j1 = j;
    uint32_t vmx = vi_hmax_u32(mxv), vmn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    mx = vmx > mx ? vmx : mx;
    mn1 = vmn1 < mn1 ? vmn1 : mn1;
    double side[VF_N]; /* the sums of outputs [j1, w) */
    for (int64_t j = j1; j < w; j++) {
        double sj = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_float32(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            sj += v;
        }
        side[j - j1] = sj;
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_float32, LSB_MIN_float32) || !mean_bymul_ok_float32_avx512(ninputs, mn1))
        return 0;
    float f[VF_N];
    for (int64_t j = j1; j < w; j++) f[j - j1] = store_float32(div_odd(side[j - j1], (double)ninputs));
    if (stream)
        mean_stream_floats_float32_avx512((float *)dst + j1, f, w - j1);
    else
        memcpy(dst + j1, f, (size_t)(w - j1) * sizeof *f);
    return 1;
}

/* dst[j] = S[j] / n rounded once to the format, for j < w: S exact sums of
 * a unit that passed narrow_sum_exact, mn1 its smallest nonzero |x| bits - 1. */
VEC_TARGET static void mean_finish_float32_avx512(const double *S, int ninputs, uint32_t mn1, int64_t w, T_float32 *dst,
                                               int stream)
{
    const vd nv = vd_set1((double)ninputs), rn = vd_set1(1.0 / (double)ninputs);
    const int pow2 = (ninputs & (ninputs - 1)) == 0;
    int64_t j = 0;
    const int bymul = mean_bymul_ok_float32_avx512(ninputs, mn1);
    const int nt = stream && w >= VF_N; /* streamed: as mean_fused */
    if (nt && MEAN_LEAD(dst)) {
        vf_stream_quarters((float *)dst, mean_vf_float32_avx512(vd_load(S), vd_load(S + VD_N), nv, rn, pow2, bymul), 0,
                           (int)MEAN_LEAD(dst) / 4);
        j = MEAN_LEAD(dst);
    }
    for (; j + VF_N <= w; j += VF_N) {
        vf f = mean_vf_float32_avx512(vd_load(S + j), vd_load(S + j + VD_N), nv, rn, pow2, bymul);
        if (nt) vf_stream((float *)dst + j, f);
        else vf_store((float *)dst + j, f);
    }
    if (j < w && w >= VF_N) { /* the vector ending at w (cached: rewrites outputs with their own values) */
        vf f = mean_vf_float32_avx512(vd_load(S + w - VF_N), vd_load(S + w - VD_N), nv, rn, pow2, bymul);
        if (nt) vf_stream_quarters((float *)dst + w - VF_N, f, (int)(j - (w - VF_N)) / 4, VF_N / 4);
        else vf_store((float *)dst + w - VF_N, f);
        j = w;
    }
    float f[VF_N];
    for (int64_t i = j; i < w; i++) f[i - j] = store_float32(div_odd(S[i], (double)ninputs));
    if (stream)
        mean_stream_floats_float32_avx512((float *)dst + j, f, w - j);
    else
        memcpy(dst + j, f, (size_t)(w - j) * sizeof *f);
    j = w;
    for (; j < w; j++) dst[j] = store_float32(div_odd(S[j], (double)ninputs));
    vec_zeroupper();
}

/* The vector form of mean_unit when every input is read contiguously or
 * broadcast along the inner dim (sinner 1 or 0): the same sums, check and
 * rounding, VF_N outputs at a time. */
VEC_TARGET static void mean_unit_float32_avx512(int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t w,
                                              T_float32 *dst, int stream, const mean_rowsum *rows)
{
    double S[TILE];
    vi mxv = vi_zero(), mnv = vi_ones();
    /* broadcast inputs once: their sum starts every output's sum (when the
     * check passes, every order of the additions gives the same exact sum) */
    const T_float32 *cont[MEAN_VEC_MAX];
    int ncont = 0;
    double bsum = -0.0;
    uint32_t bmx = 0, bmn1 = UINT32_MAX;
    for (int i = 0; i < ninputs; i++) {
        if (rows && rows->taken[i]) continue; /* in rows->sum */
        if (sinner[i] && ncont < MEAN_VEC_MAX) {
            cont[ncont++] = src[i];
            continue;
        }
        if (sinner[i]) { /* more contiguous inputs than the vector loop takes */
            vec_zeroupper();
            mean_unit_float32(ninputs, src, sinner, w, dst);
            return;
        }
        double v = LOAD_float32(src[i][0]);
        uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
        bmx = a > bmx ? a : bmx;
        bmn1 = a - 1u < bmn1 ? a - 1u : bmn1;
        bsum += v;
    }
    const double *rsum = NULL;
    if (rows) {
        rsum = rows->sum;
        bmx = rows->mx > bmx ? rows->mx : bmx;
        bmn1 = rows->mn1 < bmn1 ? rows->mn1 : bmn1;
    }
    int apart = 1; /* the output overlaps no input: one pass */
    for (int i = 0; apart && i < ninputs; i++) {
        uintptr_t lo = (uintptr_t)src[i], hi = (uintptr_t)(src[i] + (sinner[i] ? w : 1));
        apart = hi <= (uintptr_t)dst || (uintptr_t)(dst + w) <= lo;
    }
    if (apart) {
        int done;
        switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
        case 1:
            done = mean_fused_float32_avx512(cont, 0, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 2:
            done = mean_fused_float32_avx512(cont, 1, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 3:
            done = mean_fused_float32_avx512(cont, 1, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 4:
            done = mean_fused_float32_avx512(cont, 2, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 5:
            done = mean_fused_float32_avx512(cont, 2, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 6:
            done = mean_fused_float32_avx512(cont, 3, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 7:
            done = mean_fused_float32_avx512(cont, 3, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 8:
            done = mean_fused_float32_avx512(cont, 4, 0, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        case 9:
            done = mean_fused_float32_avx512(cont, 4, 1, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst, stream);
            break;
        default:
            done = mean_fused_float32_avx512(cont, ncont, rsum != NULL, rsum, bsum, bmx, bmn1, ninputs, src, sinner, w, dst,
                                             stream);
            break;
        }
        if (done) return;
        if (stream) _mm_sfence(); /* the streamed stores land before those that redo them */
    }
    int64_t j = w / VF_N * VF_N;
    switch (ncont * 2 + (rsum != NULL)) { /* constants each: the loop over the inputs unrolled */
    case 1: mean_sums_float32_avx512(cont, 0, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 2: mean_sums_float32_avx512(cont, 1, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 3: mean_sums_float32_avx512(cont, 1, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 4: mean_sums_float32_avx512(cont, 2, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 5: mean_sums_float32_avx512(cont, 2, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 6: mean_sums_float32_avx512(cont, 3, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 7: mean_sums_float32_avx512(cont, 3, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    case 8: mean_sums_float32_avx512(cont, 4, 0, rsum, j, bsum, S, &mxv, &mnv); break;
    case 9: mean_sums_float32_avx512(cont, 4, 1, rsum, j, bsum, S, &mxv, &mnv); break;
    default: mean_sums_float32_avx512(cont, ncont, rsum != NULL, rsum, j, bsum, S, &mxv, &mnv); break;
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    mx = bmx > mx ? bmx : mx;
    mn1 = bmn1 < mn1 ? bmn1 : mn1;
    for (; j < w; j++) {
        S[j] = -0.0;
        for (int i = 0; i < ninputs; i++) {
            double v = LOAD_float32(src[i][j * sinner[i]]);
            uint32_t a = f32_to_bits((float)v) & 0x7fffffffu;
            mx = a > mx ? a : mx;
            mn1 = a - 1u < mn1 ? a - 1u : mn1;
            S[j] += v;
        }
    }
    if (!narrow_sum_exact(mx, mn1, ninputs, PREC_float32, LSB_MIN_float32)) { /* rare: the portable unit checks output by output */
        vec_zeroupper();
        mean_unit_float32(ninputs, src, sinner, w, dst);
        return;
    }
    mean_finish_float32_avx512(S, ninputs, mn1, w, dst, stream);
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w
 * (mean_unit's results): the unit's check over its w * k contiguous values
 * in vectors, the sums in scalar double (a constant k each, for the
 * compiler), the division in vectors (mean_finish). A unit that fails the
 * check goes to mean_unit. */
VEC_TARGET __attribute__((always_inline)) static inline void run_sums_float32_avx512(const T_float32 *x, const int k,
                                                                                     int64_t w, double *S)
{
    for (int64_t j = 0; j < w; j++) {
        double s = -0.0;
        for (int i = 0; i < k; i++) s += LOAD_float32(x[j * k + i]);
        S[j] = s;
    }
}

VEC_TARGET static void mean_runs_float32_avx512(const T_float32 *x, int k, int64_t w, T_float32 *dst)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    const int64_t nv = w * k;
    int64_t i = 0;
    for (; i + VF_N <= nv; i += VF_N) {
        vi a = vi_absbits(vf_load_f32(x + i));
        mxv = vi_max_u32(mxv, a);
        mnv = vi_min_u32(mnv, vi_dec(a));
    }
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    vec_zeroupper();
    for (; i < nv; i++) {
        uint32_t a = f32_to_bits((float)LOAD_float32(x[i])) & 0x7fffffffu;
        mx = a > mx ? a : mx;
        mn1 = a - 1u < mn1 ? a - 1u : mn1;
    }
    if (!narrow_sum_exact(mx, mn1, k, PREC_float32, LSB_MIN_float32)) {
        const T_float32 *src[INNER_AS_MEAN_MAX];
        int64_t sinner[INNER_AS_MEAN_MAX];
        for (int f = 0; f < k; f++) {
            src[f] = x + f;
            sinner[f] = k;
        }
        mean_unit_float32(k, src, sinner, w, dst);
        return;
    }
    double S[TILE];
    switch (k) { /* a constant k each */
    case 1: run_sums_float32_avx512(x, 1, w, S); break;
    case 2: run_sums_float32_avx512(x, 2, w, S); break;
    case 3: run_sums_float32_avx512(x, 3, w, S); break;
    case 4: run_sums_float32_avx512(x, 4, w, S); break;
    case 5: run_sums_float32_avx512(x, 5, w, S); break;
    case 6: run_sums_float32_avx512(x, 6, w, S); break;
    case 7: run_sums_float32_avx512(x, 7, w, S); break;
    case 8: run_sums_float32_avx512(x, 8, w, S); break;
    case 12: run_sums_float32_avx512(x, 12, w, S); break;
    case 16: run_sums_float32_avx512(x, 16, w, S); break;
    case 24: run_sums_float32_avx512(x, 24, w, S); break;
    case 32: run_sums_float32_avx512(x, 32, w, S); break;
    default: run_sums_float32_avx512(x, k, w, S); break;
    }
    mean_finish_float32_avx512(S, k, mn1, w, dst, 0);
}

/* rows_split of kernel_exact.c.j2, VF_N columns at a time (the block is in
 * L1 or L2: it was just read). */
VEC_TARGET __attribute__((noinline)) static int rows_split_float32_avx512(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t w)
{
    uint32_t thr = split_threshold_float32(r->bmx, nrows), smx = 0, smn1 = UINT32_MAX;
    if (!thr) return 0;
    double big[TILE], small[TILE];
    memset(big, 0, (size_t)w * sizeof *big);
    memset(small, 0, (size_t)w * sizeof *small);
    const vi below = vi_set1((int32_t)thr - 1); /* a > below: a >= thr */
    vi smxv = vi_zero(), smnv = vi_ones();
    const int64_t wv = w / VF_N * VF_N;
    for (int64_t i = 0; i < nrows; i++) {
        const T_float32 *p = x + i * rs;
        for (int64_t j = 0; j < wv; j += VF_N) {
            vf f = vf_load_f32(p + j);
            vi a = vi_absbits(f), bg = vi_gt_s32(a, below), as = vi_andnot(bg, a);
            smxv = vi_max_u32(smxv, as);
            smnv = vi_min_u32(smnv, vi_dec(as));
            vf fb = vf_from_bits(vi_and(bg, vf_bits(f))), fs = vf_from_bits(vi_andnot(bg, vf_bits(f)));
            vd_store(big + j, vd_add(vd_load(big + j), vf_lo(fb)));
            vd_store(big + j + VD_N, vd_add(vd_load(big + j + VD_N), vf_hi(fb)));
            vd_store(small + j, vd_add(vd_load(small + j), vf_lo(fs)));
            vd_store(small + j + VD_N, vd_add(vd_load(small + j + VD_N), vf_hi(fs)));
        }
    }
    uint32_t vmx = vi_hmax_u32(smxv), vmn1 = vi_hmin_u32(smnv);
    vec_zeroupper();
    for (int64_t i = 0; i < nrows; i++)
        for (int64_t j = wv; j < w; j++) split_add_float32(LOAD_float32(x[i * rs + j]), thr, &big[j], &small[j], &smx, &smn1);
    smx = vmx > smx ? vmx : smx;
    smn1 = vmn1 < smn1 ? vmn1 : smn1;
    if (!narrow_sum_exact(smx, smn1, nrows, PREC_float32, LSB_MIN_float32)) return 0;
    rows_keep_split_float32(r, x, rs, nrows, 1, w, big, small);
    return 1;
}

/* rows_block_end of a block that passed its shared check, VD_N columns at a
 * time: the block sums on into the kept sums where TwoSum shows each lane's
 * addition exact and no block sum is zero; other lanes one by one. */
VEC_TARGET static void rows_block_keep_float32_avx512(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows,
                                                     int64_t w)
{
    const vd zero = vd_set1(0.0);
    const vq ones = vq_set1(-1);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        vd a = vd_load(r->t + j), b = vd_load(r->s + j);
        vd sum = vd_add(a, b), bv = vd_sub(sum, a);
        vd err = vd_add(vd_sub(a, vd_sub(sum, bv)), vd_sub(b, bv)); /* NaN where sum overflowed */
        vq slow = vq_or(vd_bits(vd_above(err, zero)), vq_andnot(vd_bits(vd_above(b, zero)), ones));
        if (vd_anybits(vd_from_bits(slow))) {
            vec_zeroupper();
            for (int k = 0; k < VD_N; k++) keep_column_float32(r, x + j + k, rs, nrows, j + k);
            continue;
        }
        vd_store(r->t + j, sum);
        vd_store(r->tnz + j, vd_max(vd_load(r->tnz + j), vd_abs(b)));
    }
    vec_zeroupper();
    for (; j < w; j++) keep_column_float32(r, x + j, rs, nrows, j);
}

/* Each column's own check of a block (VF_N columns at a time, the bounds in registers). */
VEC_TARGET static void columns_ok_float32_avx512(const T_float32 *b, int64_t rs, int64_t nb, int64_t w, uint8_t *ok)
{
    int64_t j = 0;
    for (; j + VF_N <= w; j += VF_N) {
        vi mxv = vi_zero(), mnv = vi_ones();
        for (int64_t i = 0; i < nb; i++) {
            vi a = vi_absbits(vf_load_f32(b + i * rs + j));
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
        }
        uint32_t mx[VF_N], mn1[VF_N];
        vi_store(mx, mxv);
        vi_store(mn1, mnv);
        for (int k = 0; k < VF_N; k++) ok[j + k] = (uint8_t)narrow_sum_exact(mx[k], mn1[k], nb, PREC_float32, LSB_MIN_float32);
    }
    vec_zeroupper();
    for (; j < w; j++) ok[j] = (uint8_t)column_ok_float32(NULL, j, b + j, rs, nb);
}

/* Narrow rows (w <= NARROW_ROW): the first ng * VF_N column sums in 2 * ng
 * registers across the block's rows (each read once, in order), the
 * block's shared bound in two more. Inlined with a
 * constant ng, so the sums stay in registers. */
VEC_TARGET __attribute__((always_inline)) static inline void narrow_rows_float32_avx512(
    rowacc_float32 *r, int64_t j0, const T_float32 *x, int64_t rs, int64_t nrows, const int ng)
{
    vi mxv = vi_zero(), mnv = vi_ones();
    vd c[2 * NARROW_PANEL];
    for (int q = 0; q < 2 * ng; q++) c[q] = vd_load(r->s + j0 + VD_N * q);
    for (int64_t i = 0; i < nrows; i++) {
        const T_float32 *p = x + i * rs;
        for (int q = 0; q < ng; q++) {
            vf f = vf_load_f32(p + VF_N * q);
            vi a = vi_absbits(f);
            mxv = vi_max_u32(mxv, a);
            mnv = vi_min_u32(mnv, vi_dec(a));
            c[2 * q] = vd_add(c[2 * q], VF_LO_float32(f, p + VF_N * q));
            c[2 * q + 1] = vd_add(c[2 * q + 1], VF_HI_float32(f, p + VF_N * q));
        }
    }
    for (int q = 0; q < 2 * ng; q++) vd_store(r->s + j0 + VD_N * q, c[q]);
    uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
    r->bmx = mx > r->bmx ? mx : r->bmx;
    r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
}

/* Each row read once: narrow ones one after the other, as above; wide
 * ones ROW_GROUP at a time (below), the column sums in L1; the block's
 * shared bound in registers. */
VEC_TARGET static void add_rows_float32_avx512(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t w);

/* rows_nonfinite of kernel_exact.c.j2 on this ISA's row kernels. */
VEC_TARGET __attribute__((noinline)) static void rows_nonfinite_float32_avx512(rowacc_float32 *r, const T_float32 *x, int64_t rs,
                                                                             int64_t nrows, int64_t w)
{
    T_float32 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float32)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float32)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    vec_zeroupper();
    r->nonfinite = 0; /* the copies hold none */
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = nrows - i < g ? nrows - i : g;
        T_float32 *buf = copy_at_float32(raw, x + i * rs);
        clean_rows_float32(x + i * rs, rs, m, 1, w, buf, 0, r->acc);
        add_rows_float32_avx512(r, buf, w, m, w);
    }
    r->nonfinite = 1; /* the next blocks straight here (data with NaN tends to keep them) */
}

VEC_TARGET static void add_rows_float32_avx512(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t w)
{
    if (w <= PANEL_ROWS_MAX) {
        const int64_t row_bytes = w * (int64_t)sizeof(T_float32);
        int64_t sub = row_bytes ? 16384 / row_bytes : NARROW_SUB;
        sub = sub < 1 ? 1 : (sub > NARROW_SUB ? NARROW_SUB : sub);
        for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
            nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
            const T_float32 *b = x + i0 * rs;
            if (r->skip > 0) {
                vec_zeroupper();
                nb = rows_block_exact_float32(r, b, rs, nrows - i0, 1, w);
                continue;
            }
            if (r->nonfinite) {
                rows_nonfinite_float32_avx512(r, b, rs, nb, w);
                continue;
            }
            rows_block_begin_float32(r, b, rs, nb, 1, w);
            /* panels of NARROW_PANEL * VF_N columns over sub-blocks of NARROW_SUB
             * rows (in L1 after the first panel) */
            for (int64_t k0 = 0; k0 < nb; k0 += sub) {
                int64_t k1 = k0 + sub < nb ? k0 + sub : nb;
                for (int64_t j0 = 0; j0 + VF_N <= w; j0 += VF_N * NARROW_PANEL) {
                    const T_float32 *src = b + k0 * rs + j0;
                    switch ((w - j0) / VF_N < NARROW_PANEL ? (w - j0) / VF_N : NARROW_PANEL) { /* a constant ng each: its own loop */
                    case 1: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 1); break;
                    case 2: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 2); break;
                    case 3: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 3); break;
                    case 4: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 4); break;
                    case 5: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 5); break;
                    case 6: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 6); break;
                    case 7: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 7); break;
                    case 8: narrow_rows_float32_avx512(r, j0, src, rs, k1 - k0, 8); break;
                    default: break;
                    }
                }
            }
            if (w % VF_N != 0) /* else an empty loop over the rows: 10% of (1000000, 64) float32 */
                for (int64_t i = 0; i < nb; i++)
                    for (int64_t j = w / VF_N * VF_N; j < w; j++) col_add_float32(r, j, LOAD_float32(b[i * rs + j]));
            vec_zeroupper();
            if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
                rows_nonfinite_float32_avx512(r, b, rs, nb, w);
                continue;
            }
            if (rows_block_ok_float32(r, nb)) {
                rows_block_keep_float32_avx512(r, b, rs, nb, w);
            } else {
                uint8_t ok[TILE];
                columns_ok_float32_avx512(b, rs, nb, w, ok);
                if (!split_pays(ok, w) || !rows_split_float32_avx512(r, b, rs, nb, w)) rows_block_end_float32(r, b, rs, nb, 1, w, ok);
            }
        }
        return;
    }
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float32 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_float32(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        if (r->nonfinite) {
            rows_nonfinite_float32_avx512(r, b, rs, nb, w);
            continue;
        }
        rows_block_begin_float32(r, b, rs, nb, 1, w);
        vi mxv = vi_zero(), mnv = vi_ones();
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * so each column sum is loaded and stored once per group and the
         * block is read as ROW_GROUP sequential streams. With a load and a
         * store per value the loop was bound by the load/store ports (W5
         * 1.2x the kernels before exactness); adjacent rows as the group
         * halved the read bandwidth from memory (the hardware prefetchers
         * lose streams of a row each). When the block passes its check its
         * sums are exact in any order; when not, they are summed again. */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_float32 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vd lo = vd_load(r->s + j), hi = vd_load(r->s + j + VD_N);
                for (int k = 0; k < ROW_GROUP; k++) {
                    const T_float32 *e = p + k * q * rs + j;
                    vf f = vf_load_f32(e);
                    vi a = vi_absbits(f);
                    mxv = vi_max_u32(mxv, a);
                    mnv = vi_min_u32(mnv, vi_dec(a));
                    lo = vd_add(lo, VF_LO_float32(f, e));
                    hi = vd_add(hi, VF_HI_float32(f, e));
                }
                vd_store(r->s + j, lo);
                vd_store(r->s + j + VD_N, hi);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_float32(r, jj, LOAD_float32(p[k * q * rs + jj]));
        }
        int64_t i = ROW_GROUP * q;
        for (; i < nb; i++) {
            const T_float32 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VF_N <= w; j += VF_N) {
                vf f = vf_load_f32(p + j);
                vi a = vi_absbits(f);
                mxv = vi_max_u32(mxv, a);
                mnv = vi_min_u32(mnv, vi_dec(a));
                vd_store(r->s + j, vd_add(vd_load(r->s + j), VF_LO_float32(f, p + j)));
                vd_store(r->s + j + VD_N, vd_add(vd_load(r->s + j + VD_N), VF_HI_float32(f, p + j)));
            }
            for (; j < w; j++) col_add_float32(r, j, LOAD_float32(p[j]));
        }
        uint32_t mx = vi_hmax_u32(mxv), mn1 = vi_hmin_u32(mnv);
        r->bmx = mx > r->bmx ? mx : r->bmx;
        r->bmn1 = mn1 < r->bmn1 ? mn1 : r->bmn1;
        vec_zeroupper();
        if (r->bmx >= 0x7f800000u) { /* an inf or NaN: the block again from copies without them */
            rows_nonfinite_float32_avx512(r, b, rs, nb, w);
            continue;
        }
        if (rows_block_ok_float32(r, nb)) {
            rows_block_keep_float32_avx512(r, b, rs, nb, w);
        } else {
            uint8_t ok[TILE];
            columns_ok_float32_avx512(b, rs, nb, w, ok);
            if (!split_pays(ok, w) || !rows_split_float32_avx512(r, b, rs, nb, w)) rows_block_end_float32(r, b, rs, nb, 1, w, ok);
        }
    }
}
#undef VF_LO_float32
#undef VF_HI_float32
#undef LOAD2_float32

VEC_TARGET static void run_float32_avx512(const T_float32 *x, int64_t n, lanes_float32 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_float32)
        block_float32_avx512(x + i, n - i < RUN_BLOCK_float32 ? n - i : RUN_BLOCK_float32, l);
}
/* (x + g) - g, each rounded, on the FMA units as x * 1 + g and t * 1 - g
 * (the same two roundings): the adders are the bound of the reduction
 * loops (not of Mean's, which measured 3% slower with it). */
#ifndef VD_EXTRACT
#define VD_EXTRACT(x, g) vd_fmsub(vd_fmadd((x), vd_set1(1.0), (g)), vd_set1(1.0), (g))
#endif
VEC_TARGET static void block_float64_avx512(const T_float64 *x, int64_t n, lanes_float64 *l);

/* block_nonfinite of kernel_exact.c.j2 on this ISA's blocks (n <= RUN_BLOCK):
 * a block with an inf or NaN (skipna: any block not masked as it is read)
 * again from a copy with those as -0.0, their flags (skipna: the NaN
 * count) into the state, on the vector path. 0 when it holds none. */
VEC_TARGET __attribute__((noinline)) static int block_nonfinite_float64_avx512(const T_float64 *x, int64_t n, lanes_float64 *l)
{
    T_float64 raw[RUN_BLOCK_float64 + 4096 / sizeof(T_float64)], *buf = copy_at_float64(raw, x);
    int64_t nan = 0;
    vec_zeroupper();
    uint64_t f = clean_block_float64(x, 1, n, buf, l->skipna, &nan);
    if (!f && !nan) return 0;
    l->acc.w[0] += (uint64_t)nan;
    l->acc.w[1] |= f;
    int skipna = l->skipna;
    l->skipna = 0; /* the copy holds no NaN */
    block_float64_avx512(buf, n, l);
    l->skipna = skipna;
    return 1;
}

VEC_TARGET static void block_float64_avx512(const T_float64 *x, int64_t n, lanes_float64 *l)
{
    if (l->skipna && block_nonfinite_float64_avx512(x, n, l)) return; /* skipna: through a copy without NaN */
    if (l->skip > 0) {
        l->skip--;
        vec_zeroupper();
        double m = chunk_block_float64(x, 1, n, &l->acc);
        pick_sigma_float64(m, &l->A, &l->sigma1, &l->sigma2);
        return;
    }
    if (n < 2 * VD_N) {
        vec_zeroupper();
        block_float64(x, 1, n, l);
        return;
    }
    if (l->A == 0.0) { /* a run's first block: the sigmas of its first values, as block_ picks them */
        double m = 0.0;
        for (int64_t i = 0; i < 16; i++)
            if (fabs(x[i]) > m && fabs(x[i]) <= DBL_MAX) m = fabs(x[i]);
        pick_sigma_float64(m, &l->A, &l->sigma1, &l->sigma2);
    }
    const vd g1 = vd_set1(l->sigma1), g2 = vd_set1(l->sigma2);
    vd s1a = vd_set1(0.0), s1b = s1a, s2a = s1a, s2b = s1a, mxv = s1a, ro = s1a;
    int64_t i = 0;
    for (; i + 2 * VD_N <= n; i += 2 * VD_N) {
        PREFETCH_SPAN(x + i, 2 * VD_N * sizeof(T_float64));
        vd d0 = vd_load(x + i), d1 = vd_load(x + i + VD_N);
        mxv = vd_max(mxv, vd_max(vd_abs(d0), vd_abs(d1)));
        vd q0 = VD_EXTRACT(d0, g1), q1 = VD_EXTRACT(d1, g1);
        s1a = vd_add(s1a, q0);
        s1b = vd_add(s1b, q1);
        vd r0 = vd_sub(d0, q0), r1 = vd_sub(d1, q1);
        vd p0 = VD_EXTRACT(r0, g2), p1 = VD_EXTRACT(r1, g2);
        s2a = vd_add(s2a, p0);
        s2b = vd_add(s2b, p1);
        ro = vd_or(ro, vd_or(vd_sub(r0, p0), vd_sub(r1, p1)));
    }
    double a[VD_N], b[VD_N], m[VD_N], sums[2] = {0.0, 0.0}, mx = 0.0;
    vd_store(a, vd_add(s1a, s1b));
    vd_store(b, vd_add(s2a, s2b));
    vd_store(m, mxv);
    for (int k = 0; k < VD_N; k++) {
        sums[0] += a[k];
        sums[1] += b[k];
        mx = m[k] > mx ? m[k] : mx;
    }
    int clean = !vd_anybits(ro);
    const double sg1 = l->sigma1, sg2 = l->sigma2;
    for (; i < n; i++) {
        double v = x[i], q1 = (sg1 + v) - sg1, r1 = v - q1, q2 = (sg2 + r1) - sg2;
        mx = fabs(v) > mx ? fabs(v) : mx;
        sums[0] += q1;
        sums[1] += q2;
        clean &= f64_to_bits(r1 - q2) == 0;
    }
    vec_zeroupper();
    if (mx <= l->A && clean && isfinite(sums[0])) {
        lanes_keep_float64(l, x, 1, n, sums, 2, mx != 0.0);
        l->fails = 0;
    } else if (!isfinite(sums[0]) && block_nonfinite_float64_avx512(x, n, l)) {
        /* an inf or NaN among them: kept from the copy without them */
    } else {
        double mm = chunk_block_float64(x, 1, n, &l->acc);
        pick_sigma_float64(mm, &l->A, &l->sigma1, &l->sigma2);
        if (++l->fails >= 2) l->skip = EXACT_SKIP;
    }
}

/* dd_mean of kernel_exact.c.j2 on VD_N lanes: RN((a + c) / n), ties to
 * even, as lane masks; the lanes it leaves to the exact sum (and those
 * outside (2^-900, 2^1000), and NaN) get all ones in *bad. */
VEC_TARGET __attribute__((always_inline)) static inline vd dd_mean_float64_avx512(vd a, vd c, vd nv, vq *bad)
{
    const vd lo = vd_set1(0x1p-900), hi = vd_set1(0x1p1000);
    const vq one = vq_set1(1), mant = vq_set1(0xfffffffffffffull), expo = vq_set1(0x7ff), e53 = vq_set1(53);
    const vq half = vq_set1((uint64_t)1 << 52), ones = vq_set1(-1);
    vd H = vd_add(a, c), bv = vd_sub(H, a);
    vd L = vd_add(vd_sub(a, vd_sub(H, bv)), vd_sub(c, bv));
    vd q0 = vd_div(H, nv), rem = vd_fnmadd(q0, nv, H);
    vd d = vd_add(rem, L), dv = vd_sub(d, rem);
    vd e = vd_add(vd_sub(rem, vd_sub(d, dv)), vd_sub(L, dv));
    vq b = vd_bits(q0);
    vq down = vq_sub(vq_set1(0), vq_srli(vd_bits(vd_xor(d, q0)), 63)); /* all ones where d moves q0 toward zero */
    vd h = vd_mul(nv, vd_from_bits(vq_slli(vq_sub(vq_and(vq_srli(b, 52), expo), e53), 52)));
    vq pow2 = vq_eq(vq_and(b, mant), vq_set1(0));
    h = vd_from_bits(vq_sub(vd_bits(h), vq_and(vq_and(down, pow2), half))); /* halved below a power of two */
    vd h3 = vd_mul(h, vd_set1(3.0)), ad = vd_abs(d);
    /* all ones where e is nonzero, and where it moves |D| below |d| (signs differ) */
    vq enz = vd_ne0(e), edown = vq_and(enz, vq_sub(vq_set1(0), vq_srli(vd_bits(vd_xor(e, d)), 63)));
    vq eq1 = vq_andnot(vq_or(vd_gt(ad, h), vd_lt(ad, h)), ones), eq3 = vq_andnot(vq_or(vd_gt(ad, h3), vd_lt(ad, h3)), ones);
    vq below1 = vq_or(vd_lt(ad, h), vq_and(eq1, edown)), tie1 = vq_andnot(enz, eq1);
    vq below3 = vq_or(vd_lt(ad, h3), vq_and(eq3, edown)), tie3 = vq_andnot(enz, eq3);
    vq next = vq_add(b, vq_or(down, one));
    vq b_even = vq_eq(vq_and(b, one), vq_set1(0)), next_even = vq_eq(vq_and(next, one), vq_set1(0));
    vq keep = vq_or(below1, vq_and(tie1, b_even));
    vq step = vq_or(below3, vq_and(tie3, next_even));
    vd aH = vd_abs(H);
    vq ok = vq_and(vq_and(vd_gt(aH, lo), vd_lt(aH, hi)), vq_or(keep, step)); /* false for NaN */
    *bad = vq_or(*bad, vq_andnot(ok, ones));
    return vd_from_bits(vq_or(vq_and(keep, b), vq_andnot(keep, next)));
}

/* Stores q (VD_N means) at dst + j, the lanes of bad summed exactly first
 * (before the store: out may be an input). */
VEC_TARGET __attribute__((always_inline)) static inline void mean_store_float64_avx512(
    vd q, vq bad, const T_float64 *const *x, const int64_t *si, int k, int64_t j, T_float64 *dst)
{
    if (vd_anybits(vd_from_bits(bad))) { /* rare on benign data */
        double ql[VD_N];
        uint64_t lane[VD_N];
        vd_store(ql, q);
        vq_store(lane, bad);
        vec_zeroupper();
        for (int l = 0; l < VD_N; l++)
            if (lane[l]) ql[l] = mean_exact_float64(k, x, si, j + l);
        q = vd_load(ql);
    }
    vd_store(dst + j, q);
}

/* Outputs [0, wv) of a unit (wv a multiple of VD_N, at most TILE), VD_N at
 * a time with each output's values in registers. Each lane splits its k
 * values against sigmas of its own: with m its largest |x| (at least
 * 2^-900), 2^E <= m < 2^e, e = E + 1, and 2^c >= k, sigma_1 = 2^(e + c + 1)
 * and sigma_2 = 2^(e + 2c + 2 - 53), so the k parts of each level add
 * exactly (as a reduction's block with EXTRACT_LOG2CAP = c), and the lane's
 * sum is s1 + s2 exactly when every second remainder is zero (its values
 * at most about 2^(50 - 2c) below m). Then n a power of two: RN(s1 + s2)
 * (one IEEE addition of two doubles) times 1 / n is the mean (s1 + s2 is 0
 * or at least sigma_2's ulp, 2^-1002 or more: the product is normal);
 * otherwise dd_mean decides, in a second pass over the unit (its long
 * chain of dependent steps would stall the first). A lane left undecided
 * (a lost bit, so also a -0.0; m >= 2^1000; an inf or NaN; and for dd_mean
 * |s1 + s2| outside (2^-900, 2^1000)) is summed exactly. Inlined with a
 * constant k. */
VEC_TARGET __attribute__((always_inline)) static inline void mean_lanes_float64_avx512(
    const T_float64 *const *x, const int64_t *si, const int k, int c, int64_t wv, T_float64 *dst)
{
    const vd lo = vd_set1(0x1p-900), hi = vd_set1(0x1p1000), zero = vd_set1(0.0);
    const vd nv = vd_set1((double)k), rn = vd_set1(1.0 / (double)k);
    const vq expmask = vq_set1(0x7ff0000000000000ull), ones = vq_set1(-1);
    const vq sh1 = vq_set1((uint64_t)(c + 2) << 52), sh2 = vq_set1((uint64_t)(int64_t)(2 * c - 50) << 52);
    const int pow2 = (k & (k - 1)) == 0;
    double S1[TILE], S2[TILE];
    uint64_t B[TILE];
    for (int64_t j = 0; j < wv; j += VD_N) {
        vd m = lo;
        for (int i = 0; i < k; i++) { /* no software prefetch: see PREFETCH_BYTES */
            m = vd_max(m, vd_abs(si[i] ? vd_load(x[i] + j) : vd_set1(x[i][0])));
        }
        vq eb = vq_and(vd_bits(m), expmask); /* 2^E */
        vd g1 = vd_from_bits(vq_add(eb, sh1)), g2 = vd_from_bits(vq_add(eb, sh2));
        vd s1 = zero, s2 = zero, ro = zero;
        for (int i = 0; i < k; i++) {
            vd v = si[i] ? vd_load(x[i] + j) : vd_set1(x[i][0]);
            vd q1 = vd_sub(vd_add(g1, v), g1), r1 = vd_sub(v, q1), q2 = vd_sub(vd_add(g2, r1), g2);
            s1 = vd_add(s1, q1);
            s2 = vd_add(s2, q2);
            ro = vd_or(ro, vd_sub(r1, q2));
        }
        /* all ones where a bit was lost (or NaN), or m is too large for the sigmas */
        vq bad = vq_or(vq_andnot(vq_eq(vd_bits(ro), vq_set1(0)), ones), vq_andnot(vd_lt(m, hi), ones));
        if (pow2) {
            mean_store_float64_avx512(vd_mul(vd_add(s1, s2), rn), bad, x, si, k, j, dst);
        } else {
            vd_store(S1 + j, s1);
            vd_store(S2 + j, s2);
            vq_store(B + j, bad);
        }
    }
    for (int64_t j = 0; !pow2 && j < wv; j += VD_N) {
        vq bad = vq_load(B + j);
        vd q = dd_mean_float64_avx512(vd_load(S1 + j), vd_load(S2 + j), nv, &bad);
        mean_store_float64_avx512(q, bad, x, si, k, j, dst);
    }
}

/* Outputs [j, j + cnt) of a unit, cnt < VD_N, by mean_lanes on a copy of
 * their values (the first output's values fill the unused lanes). */
VEC_TARGET __attribute__((noinline)) static void mean_part_float64_avx512(int ninputs, int c, const T_float64 *const *src,
                                                                        const int64_t *sinner, int64_t j, int64_t cnt, T_float64 *dst)
{
    double buf[MEAN_VEC_MAX][VD_N], q[VD_N];
    const double *bp[MEAN_VEC_MAX];
    int64_t one[MEAN_VEC_MAX];
    for (int i = 0; i < ninputs; i++) {
        for (int l = 0; l < VD_N; l++) buf[i][l] = src[i][(j + (l < cnt ? l : 0)) * sinner[i]];
        bp[i] = buf[i];
        one[i] = 1;
    }
    mean_lanes_float64_avx512(bp, one, ninputs, c, VD_N, q);
    for (int64_t l = 0; l < cnt; l++) dst[j + l] = q[l];
}

/* A unit's outputs: mean_lanes on the whole vectors, mean_part on
 * the outputs after them. Inlined with a constant k. (float64 outputs are
 * not streamed: numpy's large arrays are 16-byte aligned, and the partial
 * vectors around aligned streamed ones cost more than streaming saved.) */
VEC_TARGET __attribute__((always_inline)) static inline void mean_span_float64_avx512(
    const T_float64 *const *src, const int64_t *sinner, const int k, int c, int64_t w, T_float64 *dst)
{
    const int64_t wv = w / VD_N * VD_N;
    mean_lanes_float64_avx512(src, sinner, k, c, wv, dst);
    if (wv < w) mean_part_float64_avx512(k, c, src, sinner, wv, w - wv, dst);
}

/* mean_unit of kernel_exact.c.j2 (the same results), every input read
 * contiguously or broadcast: mean_span. */
VEC_TARGET static void mean_unit_float64_avx512(int ninputs, const T_float64 *const *src, const int64_t *sinner, int64_t w,
                                              T_float64 *dst, int stream, const mean_rowsum *rows)
{
    (void)stream;
    (void)rows; /* never given: float64 sums are not summed ahead */
    if (ninputs > MEAN_VEC_MAX) {
        vec_zeroupper();
        mean_unit_float64(ninputs, src, sinner, w, dst);
        return;
    }
    int c = 0;
    while ((1 << c) < ninputs) c++;
    switch (ninputs) { /* a constant count each: the loops over the inputs unrolled */
    case 1: mean_span_float64_avx512(src, sinner, 1, c, w, dst); break;
    case 2: mean_span_float64_avx512(src, sinner, 2, c, w, dst); break;
    case 3: mean_span_float64_avx512(src, sinner, 3, c, w, dst); break;
    case 4: mean_span_float64_avx512(src, sinner, 4, c, w, dst); break;
    default: mean_span_float64_avx512(src, sinner, ninputs, c, w, dst); break;
    }
    vec_zeroupper();
}

/* Short runs: dst[j] = the mean of the k values x[j * k + i] (i < k), j < w,
 * as mean_unit computes it (the unit's sigmas from its largest |x|, two
 * exact level sums per output, dd_mean), with the runs read as they lie
 * and a constant k each, for the compiler to vectorize over the outputs. */
VEC_TARGET __attribute__((always_inline)) static inline void run_extract_float64_avx512(
    const T_float64 *x, const int k, int64_t w, double g1, double g2, double *s1, double *s2, uint8_t *bad)
{
    for (int64_t j = 0; j < w; j++) {
        double a = 0.0, b = 0.0;
        uint8_t lost = 0;
        for (int i = 0; i < k; i++) {
            double v = x[j * k + i], q1 = (g1 + v) - g1, r1 = v - q1, q2 = (g2 + r1) - g2;
            a += q1;
            b += q2;
            lost |= (uint8_t)(r1 - q2 != 0.0 || v != v); /* a lost bit, or NaN */
        }
        s1[j] = a;
        s2[j] = b;
        bad[j] = lost;
    }
}

/* run_extract for k a multiple of VD_N: each run's values VD_N at a time
 * in vectors (at least two a run), the lanes then added in any order (the level sums are exact
 * when no bit was lost). A -0.0 value counts as a lost bit here (its
 * r1 - q2 is -0.0): such outputs take the exact path, as in the blocks. */
VEC_TARGET __attribute__((always_inline)) static inline void run_extract_vec_float64_avx512(
    const T_float64 *x, const int k, int64_t w, double g1, double g2, double *s1, double *s2, uint8_t *bad)
{
    const vd G1 = vd_set1(g1), G2 = vd_set1(g2);
    for (int64_t j = 0; j < w; j++) {
        const T_float64 *p = x + j * k;
        vd a = vd_set1(0.0), b = a, lost = a;
        for (int i = 0; i < k; i += VD_N) {
            vd v = vd_load(p + i), q1 = VD_EXTRACT(v, G1), r1 = vd_sub(v, q1), q2 = VD_EXTRACT(r1, G2);
            a = vd_add(a, q1);
            b = vd_add(b, q2);
            lost = vd_or(lost, vd_sub(r1, q2)); /* NaN too */
        }
        double pa[VD_N], pb[VD_N], sa = 0.0, sb = 0.0;
        vd_store(pa, a);
        vd_store(pb, b);
        for (int l = 0; l < VD_N; l++) {
            sa += pa[l];
            sb += pb[l];
        }
        s1[j] = sa;
        s2[j] = sb;
        bad[j] = (uint8_t)vd_anybits(lost);
    }
}

VEC_TARGET static void mean_runs_float64_avx512(const T_float64 *x, int k, int64_t w, T_float64 *dst)
{
    const int64_t nv = w * k;
    vd mxv = vd_set1(0.0);
    int64_t i = 0;
    for (; i + VD_N <= nv; i += VD_N) mxv = vd_max(mxv, vd_abs(vd_load(x + i))); /* a NaN never wins: caught below */
    double mm[VD_N], m = 0.0;
    vd_store(mm, mxv);
    vec_zeroupper();
    for (int q = 0; q < VD_N; q++) m = mm[q] > m ? mm[q] : m;
    for (; i < nv; i++) m = fabs(x[i]) > m ? fabs(x[i]) : m;
    double A, g1, g2;
    pick_sigma_float64(m, &A, &g1, &g2);
    const T_float64 *src[INNER_AS_MEAN_MAX];
    int64_t sinner[INNER_AS_MEAN_MAX];
    for (int f = 0; f < k; f++) {
        src[f] = x + f;
        sinner[f] = k;
    }
    if (!(m <= A)) { /* inf: the portable unit takes every output exactly */
        mean_unit_float64(k, src, sinner, w, dst);
        return;
    }
    double s1[TILE], s2[TILE], q[TILE];
    uint8_t bad[TILE];
    switch (k) { /* a constant k each */
    case 1:
        if (1 % VD_N == 0 && 1 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 1, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 1, w, g1, g2, s1, s2, bad);
        break;
    case 2:
        if (2 % VD_N == 0 && 2 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 2, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 2, w, g1, g2, s1, s2, bad);
        break;
    case 3:
        if (3 % VD_N == 0 && 3 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 3, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 3, w, g1, g2, s1, s2, bad);
        break;
    case 4:
        if (4 % VD_N == 0 && 4 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 4, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 4, w, g1, g2, s1, s2, bad);
        break;
    case 5:
        if (5 % VD_N == 0 && 5 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 5, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 5, w, g1, g2, s1, s2, bad);
        break;
    case 6:
        if (6 % VD_N == 0 && 6 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 6, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 6, w, g1, g2, s1, s2, bad);
        break;
    case 7:
        if (7 % VD_N == 0 && 7 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 7, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 7, w, g1, g2, s1, s2, bad);
        break;
    case 8:
        if (8 % VD_N == 0 && 8 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 8, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 8, w, g1, g2, s1, s2, bad);
        break;
    case 12:
        if (12 % VD_N == 0 && 12 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 12, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 12, w, g1, g2, s1, s2, bad);
        break;
    case 16:
        if (16 % VD_N == 0 && 16 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 16, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 16, w, g1, g2, s1, s2, bad);
        break;
    case 24:
        if (24 % VD_N == 0 && 24 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 24, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 24, w, g1, g2, s1, s2, bad);
        break;
    case 32:
        if (32 % VD_N == 0 && 32 >= 2 * VD_N) run_extract_vec_float64_avx512(x, 32, w, g1, g2, s1, s2, bad);
        else run_extract_float64_avx512(x, 32, w, g1, g2, s1, s2, bad);
        break;
    default: run_extract_float64_avx512(x, k, w, g1, g2, s1, s2, bad); break;
    }
    const double nd = (double)k;
    const vd nvv = vd_set1(nd);
    int64_t j = 0;
    for (; j + VD_N <= w; j += VD_N) {
        int64_t lanes[VD_N];
        vq b = vq_set1(0);
        vd_store(q + j, dd_mean_float64_avx512(vd_load(s1 + j), vd_load(s2 + j), nvv, &b));
        vq_store(lanes, b);
        for (int l = 0; l < VD_N; l++) bad[j + l] |= (uint8_t)(lanes[l] != 0);
    }
    vec_zeroupper();
    for (; j < w; j++) bad[j] |= (uint8_t)!dd_mean(s1[j], s2[j], nd, &q[j]);
    for (j = 0; j < w; j++) dst[j] = bad[j] ? mean_exact_float64(k, src, sinner, j) : q[j];
}

VEC_TARGET static void add_rows_float64_avx512(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t w)
{
    for (int64_t i0 = 0, nb; i0 < nrows; i0 += nb) {
        nb = nrows - i0 < ROWS_CAP ? nrows - i0 : ROWS_CAP;
        const T_float64 *b = x + i0 * rs;
        if (r->skip > 0) {
            vec_zeroupper();
            nb = rows_block_exact_float64(r, b, rs, nrows - i0, 1, w);
            continue;
        }
        rows_block_begin_float64(r, b, rs, nb, 1, w);
        vd bad = vd_set1(0.0);
        /* ROW_GROUP rows at a time, one from each ROW_GROUP-th of the block,
         * as in the float32 loop: each column's sigmas, bound and sums are
         * loaded and stored once per group */
        const int64_t q = nb / ROW_GROUP;
        for (int64_t i = 0; i < q; i++) {
            const T_float64 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VD_N <= w; j += VD_N) {
                vd g1 = vd_load(r->sigma1 + j), g2 = vd_load(r->sigma2 + j), A = vd_load(r->A + j);
                vd s1 = vd_load(r->s1 + j), s2 = vd_load(r->s2 + j);
                for (int k = 0; k < ROW_GROUP; k++) {
                    vd d = vd_load(p + k * q * rs + j);
                    vd qq = VD_EXTRACT(d, g1);
                    vd r1 = vd_sub(d, qq);
                    vd pp = VD_EXTRACT(r1, g2);
                    bad = vd_or(bad, vd_or(vd_above(d, A), vd_sub(r1, pp)));
                    s1 = vd_add(s1, qq);
                    s2 = vd_add(s2, pp);
                }
                vd_store(r->s1 + j, s1);
                vd_store(r->s2 + j, s2);
            }
            for (int k = 0; k < ROW_GROUP; k++)
                for (int64_t jj = j; jj < w; jj++) col_add_float64(r, jj, p[k * q * rs + jj]);
        }
        for (int64_t i = ROW_GROUP * q; i < nb; i++) {
            const T_float64 *p = b + i * rs;
            int64_t j = 0;
            for (; j + VD_N <= w; j += VD_N) {
                vd d = vd_load(p + j), g1 = vd_load(r->sigma1 + j), g2 = vd_load(r->sigma2 + j);
                vd q = VD_EXTRACT(d, g1);
                vd r1 = vd_sub(d, q);
                vd pp = VD_EXTRACT(r1, g2);
                bad = vd_or(bad, vd_or(vd_above(d, vd_load(r->A + j)), vd_sub(r1, pp)));
                vd_store(r->s1 + j, vd_add(vd_load(r->s1 + j), q));
                vd_store(r->s2 + j, vd_add(vd_load(r->s2 + j), pp));
            }
            for (; j < w; j++) col_add_float64(r, j, p[j]);
        }
        r->bad |= (uint64_t)vd_anybits(bad);
        vec_zeroupper();
        if (rows_block_ok_float64(r, nb)) {
            rows_block_end_float64(r, b, rs, nb, 1, w, NULL);
        } else {
            uint8_t ok[TILE];
            for (int64_t j = 0; j < w; j++) ok[j] = (uint8_t)column_ok_float64(r, j, b + j, rs, nb);
            rows_block_end_float64(r, b, rs, nb, 1, w, ok);
        }
    }
}

VEC_TARGET static void run_float64_avx512(const T_float64 *x, int64_t n, lanes_float64 *l)
{
    for (int64_t i = 0; i < n; i += RUN_BLOCK_float64)
        block_float64_avx512(x + i, n - i < RUN_BLOCK_float64 ? n - i : RUN_BLOCK_float64, l);
}
/* int64, avx512: bias and split into 32-bit halves, LANES_int64 lanes at a time. */
VEC_TARGET static void run_int64_avx512(const T_int64 *x, int64_t n, lanes_int64 *l)
{
    enum { NV = LANES_int64 / VD_N }; /* vectors of lanes */
    const vq bias = vq_set1(BIAS_int64), low = vq_set1(0xffffffffLL);
    vq lo[NV], hi[NV];
    for (int k = 0; k < NV; k++) {
        lo[k] = vq_load(l->lo + VD_N * k);
        hi[k] = vq_load(l->hi + VD_N * k);
    }
    int64_t i = 0;
    for (; i + LANES_int64 <= n; i += LANES_int64) {
        PREFETCH_SPAN(x + i, LANES_int64 * sizeof(T_int64));
        for (int k = 0; k < NV; k++) {
            vq u = vq_xor(vq_load(x + i + VD_N * k), bias);
            lo[k] = vq_add(lo[k], vq_and(u, low));
            hi[k] = vq_add(hi[k], vq_srli(u, 32));
        }
    }
    for (int k = 0; k < NV; k++) {
        vq_store(l->lo + VD_N * k, lo[k]);
        vq_store(l->hi + VD_N * k, hi[k]);
    }
    for (int k = 0; i < n; i++, k++) ADD_BIASED_int64(l->lo[k], l->hi[k], BIASED_int64(x[i]));
    vec_zeroupper();
}
/* uint64, avx512: bias and split into 32-bit halves, LANES_uint64 lanes at a time. */
VEC_TARGET static void run_uint64_avx512(const T_uint64 *x, int64_t n, lanes_uint64 *l)
{
    enum { NV = LANES_uint64 / VD_N }; /* vectors of lanes */
    const vq bias = vq_set1(BIAS_uint64), low = vq_set1(0xffffffffLL);
    vq lo[NV], hi[NV];
    for (int k = 0; k < NV; k++) {
        lo[k] = vq_load(l->lo + VD_N * k);
        hi[k] = vq_load(l->hi + VD_N * k);
    }
    int64_t i = 0;
    for (; i + LANES_uint64 <= n; i += LANES_uint64) {
        PREFETCH_SPAN(x + i, LANES_uint64 * sizeof(T_uint64));
        for (int k = 0; k < NV; k++) {
            vq u = vq_xor(vq_load(x + i + VD_N * k), bias);
            lo[k] = vq_add(lo[k], vq_and(u, low));
            hi[k] = vq_add(hi[k], vq_srli(u, 32));
        }
    }
    for (int k = 0; k < NV; k++) {
        vq_store(l->lo + VD_N * k, lo[k]);
        vq_store(l->hi + VD_N * k, hi[k]);
    }
    for (int k = 0; i < n; i++, k++) ADD_BIASED_uint64(l->lo[k], l->hi[k], BIASED_uint64(x[i]));
    vec_zeroupper();
}
/* ---- end of the avx512 layer ---- */
#undef VEC_TARGET
#undef vec_zeroupper
#undef VD_N
#undef VF_N
#undef vd
#undef vq
#undef vf
#undef vi
#undef vw
#undef vh
#undef vd_set1
#undef vd_load
#undef vd_store
#undef vd_add
#undef vd_sub
#undef vd_mul
#undef vd_div
#undef vd_max
#undef vd_or
#undef vd_and
#undef vd_xor
#undef vd_fmadd
#undef vd_fmsub
#undef vd_fnmadd
#undef vd_abs
#undef vd_above
#undef vd_anybits
#undef vd_ne0
#undef vd_gt0
#undef vd_lt0
#undef vd_gt
#undef vd_lt
#undef vq_eq
#undef vq_slli
#undef vd_bits
#undef vd_from_bits
#undef vq_set1
#undef vq_load
#undef vq_store
#undef vq_add
#undef vq_sub
#undef vq_and
#undef vq_or
#undef vq_xor
#undef vq_andnot
#undef vq_srli
#undef vf_load_f32
#undef vf_load_f16
#undef vf_load_bf16
#undef vf_lo
#undef vf_hi
#undef vd_load_f32
#undef vd_load_f16
#undef vi_zero
#undef vi_ones
#undef vi_set1
#undef vi_absbits
#undef vi_max_u32
#undef vi_min_u32
#undef vi_dec
#undef vi_store
#undef vi_gt_s32
#undef vi_and
#undef vi_andnot
#undef vf_bits
#undef vf_from_bits
#undef vf_add
#undef vw_load
#undef vw_zero
#undef vw_ones
#undef vw_absbits
#undef vw_max_u16
#undef vw_min_u16
#undef vw_dec
#undef vw_lo_f32
#undef vw_hi_f32
#undef vh_from_vd
#undef vf_join
#undef vf_store
#undef vf_stream
#undef vf_stream_quarters
#undef vi_hmax_u32
#undef vi_hmin_u32
#undef vw_hmax_u16
#undef vw_hmin_u16
#undef vi_or
#undef vi_sub
#define ISA_LEVEL_float16 isa_level[1]
#define ISA_MEAN_LEVEL_float16 isa_level[5]

/* float16: contiguous runs and rows to the picked ISA's kernels; rows
 * narrower than its vectors to the next lower ISA */
static void run_float16_dispatch(const T_float16 *x, int64_t s, int64_t n, lanes_float16 *l, int k0)
{
    if (s == 1) switch (ISA_LEVEL_float16) {
    case 2: run_float16_avx512(x, n, l); return;
    case 1: run_float16_avx2(x, n, l); return;
    default: break;
    }
    run_float16(x, s, n, l, k0);
}
#define RUN_float16 run_float16_dispatch

static void add_rows_float16_dispatch(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    if (s == 1) switch (ISA_LEVEL_float16) {
    case 2:
        if (w >= 16) {
            add_rows_float16_avx512(r, x, rs, nrows, w);
            return;
        }
        /* fall through */
    case 1:
        add_rows_float16_avx2(r, x, rs, nrows, w);
        return;
    default: break;
    }
    add_rows_float16_generic(r, x, rs, nrows, s, w);
}
#define ADD_ROWS_float16 add_rows_float16_dispatch

/* only when ISA_MEAN_LEVEL_float16 > 0 */
static void mean_unit_float16_dispatch(int ninputs, const T_float16 *const *src, const int64_t *sinner, int64_t w,
                                      T_float16 *dst, int stream, const mean_rowsum *rows)
{
    switch (ISA_MEAN_LEVEL_float16) {
    case 2:
        if (w >= 16) {
            mean_unit_float16_avx512(ninputs, src, sinner, w, dst, stream, rows);
            return;
        }
        /* fall through */
    default: mean_unit_float16_avx2(ninputs, src, sinner, w, dst, stream, rows); return;
    }
}
#define MEAN_UNIT_VEC_float16 mean_unit_float16_dispatch

/* mean_runs (contiguous short runs) on the CPU's vectors; only when ISA_MEAN_LEVEL_float16 > 0 */
static void mean_runs_float16_dispatch(const T_float16 *x, int k, int64_t w, T_float16 *dst)
{
    switch (ISA_MEAN_LEVEL_float16) {
    case 2: mean_runs_float16_avx512(x, k, w, dst); return;
    default: mean_runs_float16_avx2(x, k, w, dst); return;
    }
}
#define MEAN_RUNS_VEC_float16 mean_runs_float16_dispatch
#define ISA_LEVEL_bfloat16 isa_level[2]
#define ISA_MEAN_LEVEL_bfloat16 isa_level[6]

/* bfloat16: contiguous runs and rows to the picked ISA's kernels; rows
 * narrower than its vectors to the next lower ISA */
static void run_bfloat16_dispatch(const T_bfloat16 *x, int64_t s, int64_t n, lanes_bfloat16 *l, int k0)
{
    if (s == 1) switch (ISA_LEVEL_bfloat16) {
    case 2: run_bfloat16_avx512(x, n, l); return;
    case 1: run_bfloat16_avx2(x, n, l); return;
    default: break;
    }
    run_bfloat16(x, s, n, l, k0);
}
#define RUN_bfloat16 run_bfloat16_dispatch

static void add_rows_bfloat16_dispatch(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    if (s == 1) switch (ISA_LEVEL_bfloat16) {
    case 2:
        if (w >= 16) {
            add_rows_bfloat16_avx512(r, x, rs, nrows, w);
            return;
        }
        /* fall through */
    case 1:
        add_rows_bfloat16_avx2(r, x, rs, nrows, w);
        return;
    default: break;
    }
    add_rows_bfloat16_generic(r, x, rs, nrows, s, w);
}
#define ADD_ROWS_bfloat16 add_rows_bfloat16_dispatch

/* only when ISA_MEAN_LEVEL_bfloat16 > 0 */
static void mean_unit_bfloat16_dispatch(int ninputs, const T_bfloat16 *const *src, const int64_t *sinner, int64_t w,
                                      T_bfloat16 *dst, int stream, const mean_rowsum *rows)
{
    switch (ISA_MEAN_LEVEL_bfloat16) {
    case 2:
        if (w >= 16) {
            mean_unit_bfloat16_avx512(ninputs, src, sinner, w, dst, stream, rows);
            return;
        }
        /* fall through */
    default: mean_unit_bfloat16_avx2(ninputs, src, sinner, w, dst, stream, rows); return;
    }
}
#define MEAN_UNIT_VEC_bfloat16 mean_unit_bfloat16_dispatch

/* mean_runs (contiguous short runs) on the CPU's vectors; only when ISA_MEAN_LEVEL_bfloat16 > 0 */
static void mean_runs_bfloat16_dispatch(const T_bfloat16 *x, int k, int64_t w, T_bfloat16 *dst)
{
    switch (ISA_MEAN_LEVEL_bfloat16) {
    case 2: mean_runs_bfloat16_avx512(x, k, w, dst); return;
    default: mean_runs_bfloat16_avx2(x, k, w, dst); return;
    }
}
#define MEAN_RUNS_VEC_bfloat16 mean_runs_bfloat16_dispatch
#define ISA_LEVEL_float32 isa_level[0]
#define ISA_MEAN_LEVEL_float32 isa_level[4]

/* float32: contiguous runs and rows to the picked ISA's kernels; rows
 * narrower than its vectors to the next lower ISA */
static void run_float32_dispatch(const T_float32 *x, int64_t s, int64_t n, lanes_float32 *l, int k0)
{
    if (s == 1) switch (ISA_LEVEL_float32) {
    case 2: run_float32_avx512(x, n, l); return;
    case 1: run_float32_avx2(x, n, l); return;
    default: break;
    }
    run_float32(x, s, n, l, k0);
}
#define RUN_float32 run_float32_dispatch

static void add_rows_float32_dispatch(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    if (s == 1) switch (ISA_LEVEL_float32) {
    case 2:
        if (w >= 16) {
            add_rows_float32_avx512(r, x, rs, nrows, w);
            return;
        }
        /* fall through */
    case 1:
        add_rows_float32_avx2(r, x, rs, nrows, w);
        return;
    default: break;
    }
    add_rows_float32_generic(r, x, rs, nrows, s, w);
}
#define ADD_ROWS_float32 add_rows_float32_dispatch

/* only when ISA_MEAN_LEVEL_float32 > 0 */
static void mean_unit_float32_dispatch(int ninputs, const T_float32 *const *src, const int64_t *sinner, int64_t w,
                                      T_float32 *dst, int stream, const mean_rowsum *rows)
{
    switch (ISA_MEAN_LEVEL_float32) {
    case 2:
        if (w >= 16) {
            mean_unit_float32_avx512(ninputs, src, sinner, w, dst, stream, rows);
            return;
        }
        /* fall through */
    default: mean_unit_float32_avx2(ninputs, src, sinner, w, dst, stream, rows); return;
    }
}
#define MEAN_UNIT_VEC_float32 mean_unit_float32_dispatch

/* mean_runs (contiguous short runs) on the CPU's vectors; only when ISA_MEAN_LEVEL_float32 > 0 */
static void mean_runs_float32_dispatch(const T_float32 *x, int k, int64_t w, T_float32 *dst)
{
    switch (ISA_MEAN_LEVEL_float32) {
    case 2: mean_runs_float32_avx512(x, k, w, dst); return;
    default: mean_runs_float32_avx2(x, k, w, dst); return;
    }
}
#define MEAN_RUNS_VEC_float32 mean_runs_float32_dispatch
#define ISA_LEVEL_float64 isa_level[3]
#define ISA_MEAN_LEVEL_float64 isa_level[7]

/* float64: contiguous runs and rows to the picked ISA's kernels; rows
 * narrower than its vectors to the next lower ISA */
static void run_float64_dispatch(const T_float64 *x, int64_t s, int64_t n, lanes_float64 *l, int k0)
{
    if (s == 1) switch (ISA_LEVEL_float64) {
    case 2: run_float64_avx512(x, n, l); return;
    case 1: run_float64_avx2(x, n, l); return;
    default: break;
    }
    run_float64(x, s, n, l, k0);
}
#define RUN_float64 run_float64_dispatch

static void add_rows_float64_dispatch(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    if (s == 1) switch (ISA_LEVEL_float64) {
    case 2:
        if (w >= 8) {
            add_rows_float64_avx512(r, x, rs, nrows, w);
            return;
        }
        /* fall through */
    case 1:
        add_rows_float64_avx2(r, x, rs, nrows, w);
        return;
    default: break;
    }
    add_rows_float64_generic(r, x, rs, nrows, s, w);
}
#define ADD_ROWS_float64 add_rows_float64_dispatch

/* only when ISA_MEAN_LEVEL_float64 > 0 */
static void mean_unit_float64_dispatch(int ninputs, const T_float64 *const *src, const int64_t *sinner, int64_t w,
                                      T_float64 *dst, int stream, const mean_rowsum *rows)
{
    switch (ISA_MEAN_LEVEL_float64) {
    case 2:
        if (w >= 8) {
            mean_unit_float64_avx512(ninputs, src, sinner, w, dst, stream, rows);
            return;
        }
        /* fall through */
    default: mean_unit_float64_avx2(ninputs, src, sinner, w, dst, stream, rows); return;
    }
}
#define MEAN_UNIT_VEC_float64 mean_unit_float64_dispatch

/* mean_runs (contiguous short runs) on the CPU's vectors; only when ISA_MEAN_LEVEL_float64 > 0 */
static void mean_runs_float64_dispatch(const T_float64 *x, int k, int64_t w, T_float64 *dst)
{
    switch (ISA_MEAN_LEVEL_float64) {
    case 2: mean_runs_float64_avx512(x, k, w, dst); return;
    default: mean_runs_float64_avx2(x, k, w, dst); return;
    }
}
#define MEAN_RUNS_VEC_float64 mean_runs_float64_dispatch
#define ISA_LEVEL_int64 isa_level[0]
#define ISA_MEAN_LEVEL_int64 isa_level[4]

/* int64: contiguous runs and rows to the picked ISA's kernels; rows
 * narrower than its vectors to the next lower ISA */
static void run_int64_dispatch(const T_int64 *x, int64_t s, int64_t n, lanes_int64 *l, int k0)
{
    if (s == 1) switch (ISA_LEVEL_int64) {
    case 2: run_int64_avx512(x, n, l); return;
    case 1: run_int64_avx2(x, n, l); return;
    default: break;
    }
    run_int64(x, s, n, l, k0);
}
#define RUN_int64 run_int64_dispatch
#define ADD_ROWS_int64 add_rows_int64_generic
#define ISA_LEVEL_uint64 isa_level[0]
#define ISA_MEAN_LEVEL_uint64 isa_level[4]

/* uint64: contiguous runs and rows to the picked ISA's kernels; rows
 * narrower than its vectors to the next lower ISA */
static void run_uint64_dispatch(const T_uint64 *x, int64_t s, int64_t n, lanes_uint64 *l, int k0)
{
    if (s == 1) switch (ISA_LEVEL_uint64) {
    case 2: run_uint64_avx512(x, n, l); return;
    case 1: run_uint64_avx2(x, n, l); return;
    default: break;
    }
    run_uint64(x, s, n, l, k0);
}
#define RUN_uint64 run_uint64_dispatch
#define ADD_ROWS_uint64 add_rows_uint64_generic

#endif
#ifndef RUN_float16
#define RUN_float16 run_float16
#endif
#ifndef ADD_ROWS_float16
#define ADD_ROWS_float16 add_rows_float16_generic
#endif
#ifndef RUN_bfloat16
#define RUN_bfloat16 run_bfloat16
#endif
#ifndef ADD_ROWS_bfloat16
#define ADD_ROWS_bfloat16 add_rows_bfloat16_generic
#endif
#ifndef RUN_float32
#define RUN_float32 run_float32
#endif
#ifndef ADD_ROWS_float32
#define ADD_ROWS_float32 add_rows_float32_generic
#endif
#ifndef RUN_float64
#define RUN_float64 run_float64
#endif
#ifndef ADD_ROWS_float64
#define ADD_ROWS_float64 add_rows_float64_generic
#endif
#ifndef RUN_int8
#define RUN_int8 run_int8
#endif
#ifndef ADD_ROWS_int8
#define ADD_ROWS_int8 add_rows_int8_generic
#endif
#ifndef RUN_int16
#define RUN_int16 run_int16
#endif
#ifndef ADD_ROWS_int16
#define ADD_ROWS_int16 add_rows_int16_generic
#endif
#ifndef RUN_int32
#define RUN_int32 run_int32
#endif
#ifndef ADD_ROWS_int32
#define ADD_ROWS_int32 add_rows_int32_generic
#endif
#ifndef RUN_int64
#define RUN_int64 run_int64
#endif
#ifndef ADD_ROWS_int64
#define ADD_ROWS_int64 add_rows_int64_generic
#endif
#ifndef RUN_uint8
#define RUN_uint8 run_uint8
#endif
#ifndef ADD_ROWS_uint8
#define ADD_ROWS_uint8 add_rows_uint8_generic
#endif
#ifndef RUN_uint16
#define RUN_uint16 run_uint16
#endif
#ifndef ADD_ROWS_uint16
#define ADD_ROWS_uint16 add_rows_uint16_generic
#endif
#ifndef RUN_uint32
#define RUN_uint32 run_uint32
#endif
#ifndef ADD_ROWS_uint32
#define ADD_ROWS_uint32 add_rows_uint32_generic
#endif
#ifndef RUN_uint64
#define RUN_uint64 run_uint64
#endif
#ifndef ADD_ROWS_uint64
#define ADD_ROWS_uint64 add_rows_uint64_generic
#endif
/* ---- ReduceMean, float16 ------------------------------------------------ */

static inline int64_t min64_float16(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_float16(const meancli_reduce_job *job, void *out, int64_t off, acc_float16 total, int64_t count)
{
    count -= (int64_t)total.w[0]; /* skipna: the NaN skipped (zero otherwise) */
    if (!job->states) {
        ((T_float16 *)out)[off] = finalize_float16(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * (int64_t)(sizeof total / 8);
    memcpy(st, total.w, sizeof total.w);
    st[0] = (uint64_t)count;
}

/* ---- skipna, float16 -------------------------------------------------------
 * meancli's own extension: each output is the exact mean of its non-NaN
 * values. Every NaN is read as -0.0 and counted in the count word (w[0])
 * of its output's exact state, which the kernels leave zero otherwise:
 * float32 runs mask NaN lanes in their vector loop; other runs, and every
 * group of rows, are read through a copy in L1 (clean_block, clean_rows of
 * kernel_exact.c.j2; SKIP_ROWS_BYTES for rows) with NaN as -0.0, counted,
 * and infinities as -0.0 with their flags. -0.0 adds nothing to an exact
 * sum and sets no flag (the mean of -0.0s alone is -0.0), so each output's
 * state is exactly that of its non-NaN values; states combine
 * (sacc_combine adds the counts), and emit divides by nred minus the
 * count: the same bits on any thread count, chunk grid, slab and ISA.
 * Infinities are values: +inf with -inf is NaN. */
/* ADD_ROWS of nrows rows, skipping NaN: groups of rows through a copy. */
static void skip_rows_float16(rowacc_float16 *r, const T_float16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    T_float16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = min64_float16(nrows - i, g);
        T_float16 *buf = copy_at_float16(raw, x + i * rs);
        clean_rows_float16(x + i * rs, rs, m, s, w, buf, 1, r->acc);
        ADD_ROWS_float16(r, buf, w, m, 1, w);
    }
}

/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_float16(const T_float16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_float16 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_float16(len - i0, remaining);
        l->skipna = p->skipna;
        RUN_float16(base + off, s, take, l, (int)(f % LANES_float16));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_float16 inner_chunk_float16(const T_float16 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_float16(start + CHUNK, p->nred);
    lanes_float16 l;
    lanes_init_float16(&l);
    inner_piece_float16(base, p, start, end, &l);
    return lanes_sum_float16(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_float16(const T_float16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_float16 *total, lanes_float16 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_float16(cstart + CHUNK, p->nred);
        int64_t e = min64_float16(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_float16(*total, inner_chunk_float16(base, p, c));
        } else {
            if (f == cstart) lanes_init_float16(open);
            inner_piece_float16(base, p, f, e, open);
            if (e == cend) *total = acc_add_float16(*total, lanes_sum_float16(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_float16(const T_float16 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_float16 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
        if (p->skipna) skip_rows_float16(r, base, 0, 1, s, w);
        else
            ADD_ROWS_float16(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_float16(len - i0, end - f);
        if (p->skipna) skip_rows_float16(r, base + off, rs, take, s, w);
        else
            ADD_ROWS_float16(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_float16(const T_float16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_float16 *total, rowacc_float16 *open)
{
    acc_float16 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_float16(cstart + p->row_chunk, p->nred);
        int64_t e = min64_float16(cend, f1);
        if (f == cstart) rowacc_init_float16(open, w);
        rows_piece_float16(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_float16(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_float16(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_float16 *rebase_float16(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_float16 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_float16));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */
/* Whether a step over D0 rows [a, b) computes each output as the Mean of
 * its values (mean_unit or mean_runs, the Mean unit kernels): few rows, or
 * short runs, summed whole (not a slab of the reduced outermost dim, not
 * partial states). */
static inline int as_mean_float16(const meancli_reduce_job *job, int whole)
{
    const reduce_plan *p = &job->p;
    if ((p->d0_reduced && !whole) || job->states || job->skipna) return 0;
    if (p->inner_reduced) return p->nk > 0 && p->nred <= INNER_AS_MEAN_MAX;
    return p->nred <= ROWS_AS_MEAN_MAX_FLT;
}

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_float16(const meancli_reduce_job *job, int whole)
{
    return as_mean_float16(job, whole);
}

static int inner_step_float16(meancli_reduce_job *job, const T_float16 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_float16 *totals = (acc_float16 *)job->totals;
    lanes_float16 *open = (lanes_float16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_float16 *)alloc_array(p->nout, (int64_t)sizeof(acc_float16));
        open = (lanes_float16 *)alloc_array(p->nout, (int64_t)sizeof(lanes_float16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_float16){ {0} };
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (as_mean_float16(job, whole)) {
        /* short runs: each output is the Mean of its run's values (mean_unit,
         * the same rounding), up to TILE outputs along the innermost kept
         * dim at a time; roff holds the run's offsets from its first value */
        int64_t roff[INNER_AS_MEAN_MAX], rsin[INNER_AS_MEAN_MAX];
        const int64_t K = p->ksize[p->nk - 1], ntiles = (K + TILE - 1) / TILE, o0 = u0 / K, o1 = (u1 + K - 1) / K;
        int contiguous = p->kin[p->nk - 1] == p->nred; /* run after run, each of nred values in order */
        for (int64_t f = 0; f < p->nred; f++) {
            int64_t ridx[MEANCLI_MAX_RANK];
            unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
            rsin[f] = p->kin[p->nk - 1];
            contiguous &= roff[f] == f;
        }
        (void)contiguous;
        const int64_t ngroups = (o1 - o0) * ntiles, grab = grab_of(ngroups, nt, 16); /* units a thread takes at once */
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
        for (int64_t g = 0; g < ngroups; g++) {
            int64_t o = o0 + g / ntiles, t = g % ntiles;
            int64_t lo = o * K + t * TILE, hi = min64_float16(lo + TILE, (o + 1) * K);
            lo = lo > u0 ? lo : u0;
            hi = hi < u1 ? hi : u1;
            if (lo >= hi) continue;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off, sout = p->kout[p->nk - 1];
            const T_float16 *runs[INNER_AS_MEAN_MAX];
            T_float16 buf[TILE];
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t f = 0; f < p->nred; f++) runs[f] = base + in_off + roff[f];
            T_float16 *dst = (T_float16 *)out + out_off, *d = sout == 1 ? dst : buf;
#ifdef MEAN_RUNS_VEC_float16
            if (contiguous && ISA_MEAN_LEVEL_float16 > 0)
                MEAN_RUNS_VEC_float16(runs[0], (int)p->nred, hi - lo, d);
            else
#endif
                mean_unit_float16((int)p->nred, runs, rsin, hi - lo, d);
            for (int64_t j = 0; d == buf && j < hi - lo; j++) dst[j * sout] = buf[j];
        }
        return MEANCLI_OK;
    }
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_float16(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_float16 local;
                if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= CHUNK) {
                    /* one chunk holds every value: the mean straight from its lanes */
                    lanes_init_float16(&local);
                    inner_piece_float16(base + in_off, p, 0, p->nred, &local);
                    ((T_float16 *)out)[out_off] = lanes_mean_float16(&local, p->nred);
                } else {
                    acc_float16 total = (acc_float16){ {0} };
                    lanes_float16 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_float16(&local);
                    }
                    inner_span_float16(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_float16(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_float16 *parts = (acc_float16 *)alloc_array(nparts, (int64_t)sizeof(acc_float16));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_float16(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_float16 total = (acc_float16){ {0} };
        lanes_float16 local;
        lanes_float16 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_float16(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_float16(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_float16(lanes);
            inner_piece_float16(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_float16(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_float16(meancli_reduce_job *job, const T_float16 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_float16 *totals = (acc_float16 *)job->totals;
    rowacc_float16 *open = (rowacc_float16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_float16 *)alloc_array(slots, (int64_t)sizeof(acc_float16));
        open = (rowacc_float16 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_float16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_float16){ {0} };
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_float16 *parts = NULL;
    const int64_t pw = min64_float16(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_float16 *)alloc_array(slots, (int64_t)sizeof(acc_float16));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_float16 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_float16 *mine = parts;
#endif
            acc_float16 part[TILE];
            rowacc_float16 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_float16(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_float16(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_float16(&r, w);
                rows_piece_float16(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_float16(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_float16(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* few rows: each output is the Mean of its column's values, which
     * mean_unit computes with the same rounding, without the per-column
     * costs of a row accumulation (sigmas, blocks, an exact finish); roff
     * holds the rows' offsets from a unit's first element */
    int64_t roff[ROWS_AS_MEAN_MAX];
    const int as_mean = !parts && as_mean_float16(job, whole);
    for (int64_t f = 0; as_mean && f < p->nred; f++) {
        int64_t ridx[MEANCLI_MAX_RANK];
        unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = as_mean ? grab_of(nunits, nt, 16) : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_float16(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_float16 local_total[TILE];
        rowacc_float16 local_open;
        acc_float16 *total = local_total;
        rowacc_float16 *r = &local_open;
        const T_float16 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (as_mean) {
            const T_float16 *rows[ROWS_AS_MEAN_MAX];
            int64_t rsin[ROWS_AS_MEAN_MAX];
            T_float16 buf[TILE];
            for (int64_t f = 0; f < p->nred; f++) {
                rows[f] = src + roff[f];
                rsin[f] = sin;
            }
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            T_float16 *dst = (T_float16 *)out + out_off + t * TILE * sout, *d = sout == 1 ? dst : buf;
#ifdef MEAN_UNIT_VEC_float16
            if (sin == 1 && ISA_MEAN_LEVEL_float16 > 0)
                MEAN_UNIT_VEC_float16((int)p->nred, rows, rsin, w, d, 0, NULL);
            else
#endif
                mean_unit_float16((int)p->nred, rows, rsin, w, d);
            for (int64_t j = 0; d == buf && j < w; j++) dst[j * sout] = buf[j];
            continue;
        }
        if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= p->row_chunk) {
            /* one chunk holds every row: the means straight from it */
            rowacc_init_float16(r, w);
            rows_piece_float16(src, p, 0, p->nred, sin, w, r);
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++)
                ((T_float16 *)out)[out_off + (t * TILE + j) * sout] = rowacc_mean_float16(r, j, p->nred);
            continue;
        }
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_float16){ {0} };
        }
        if (parts) {
            rows_span_float16(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_float16 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_float16(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_float16(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_float16(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_float16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_float16(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    job->skipna = 1;
    job->p.skipna = 1;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_float16(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float16), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    job->itemsize = (int64_t)sizeof(T_float16);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_float16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_float16 *base = rebase_float16(slab, p, a);
    if (p->inner_reduced) return inner_step_float16(job, base, a, b, out, nthreads);
    return rows_step_float16(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_float16(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p->nout; i++) emit_float16(job, out, i, ((acc_float16){ {0} }), 0);
        return MEANCLI_OK;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_float16 *totals = (acc_float16 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_float16(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_float16(K - t * TILE, TILE);
            const acc_float16 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_float16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_float16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_float16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_float16(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_float16(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, bfloat16 ------------------------------------------------ */

static inline int64_t min64_bfloat16(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_bfloat16(const meancli_reduce_job *job, void *out, int64_t off, acc_bfloat16 total, int64_t count)
{
    count -= (int64_t)total.w[0]; /* skipna: the NaN skipped (zero otherwise) */
    if (!job->states) {
        ((T_bfloat16 *)out)[off] = finalize_bfloat16(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * (int64_t)(sizeof total / 8);
    memcpy(st, total.w, sizeof total.w);
    st[0] = (uint64_t)count;
}

/* ---- skipna, bfloat16 -------------------------------------------------------
 * meancli's own extension: each output is the exact mean of its non-NaN
 * values. Every NaN is read as -0.0 and counted in the count word (w[0])
 * of its output's exact state, which the kernels leave zero otherwise:
 * float32 runs mask NaN lanes in their vector loop; other runs, and every
 * group of rows, are read through a copy in L1 (clean_block, clean_rows of
 * kernel_exact.c.j2; SKIP_ROWS_BYTES for rows) with NaN as -0.0, counted,
 * and infinities as -0.0 with their flags. -0.0 adds nothing to an exact
 * sum and sets no flag (the mean of -0.0s alone is -0.0), so each output's
 * state is exactly that of its non-NaN values; states combine
 * (sacc_combine adds the counts), and emit divides by nred minus the
 * count: the same bits on any thread count, chunk grid, slab and ISA.
 * Infinities are values: +inf with -inf is NaN. */
/* ADD_ROWS of nrows rows, skipping NaN: groups of rows through a copy. */
static void skip_rows_bfloat16(rowacc_bfloat16 *r, const T_bfloat16 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    T_bfloat16 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_bfloat16)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_bfloat16)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = min64_bfloat16(nrows - i, g);
        T_bfloat16 *buf = copy_at_bfloat16(raw, x + i * rs);
        clean_rows_bfloat16(x + i * rs, rs, m, s, w, buf, 1, r->acc);
        ADD_ROWS_bfloat16(r, buf, w, m, 1, w);
    }
}

/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_bfloat16 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_bfloat16(len - i0, remaining);
        l->skipna = p->skipna;
        RUN_bfloat16(base + off, s, take, l, (int)(f % LANES_bfloat16));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_bfloat16 inner_chunk_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_bfloat16(start + CHUNK, p->nred);
    lanes_bfloat16 l;
    lanes_init_bfloat16(&l);
    inner_piece_bfloat16(base, p, start, end, &l);
    return lanes_sum_bfloat16(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_bfloat16 *total, lanes_bfloat16 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_bfloat16(cstart + CHUNK, p->nred);
        int64_t e = min64_bfloat16(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_bfloat16(*total, inner_chunk_bfloat16(base, p, c));
        } else {
            if (f == cstart) lanes_init_bfloat16(open);
            inner_piece_bfloat16(base, p, f, e, open);
            if (e == cend) *total = acc_add_bfloat16(*total, lanes_sum_bfloat16(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_bfloat16 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
        if (p->skipna) skip_rows_bfloat16(r, base, 0, 1, s, w);
        else
            ADD_ROWS_bfloat16(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_bfloat16(len - i0, end - f);
        if (p->skipna) skip_rows_bfloat16(r, base + off, rs, take, s, w);
        else
            ADD_ROWS_bfloat16(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_bfloat16(const T_bfloat16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_bfloat16 *total, rowacc_bfloat16 *open)
{
    acc_bfloat16 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_bfloat16(cstart + p->row_chunk, p->nred);
        int64_t e = min64_bfloat16(cend, f1);
        if (f == cstart) rowacc_init_bfloat16(open, w);
        rows_piece_bfloat16(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_bfloat16(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_bfloat16(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_bfloat16 *rebase_bfloat16(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_bfloat16 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_bfloat16));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */
/* Whether a step over D0 rows [a, b) computes each output as the Mean of
 * its values (mean_unit or mean_runs, the Mean unit kernels): few rows, or
 * short runs, summed whole (not a slab of the reduced outermost dim, not
 * partial states). */
static inline int as_mean_bfloat16(const meancli_reduce_job *job, int whole)
{
    const reduce_plan *p = &job->p;
    if ((p->d0_reduced && !whole) || job->states || job->skipna) return 0;
    if (p->inner_reduced) return p->nk > 0 && p->nred <= INNER_AS_MEAN_MAX;
    return p->nred <= ROWS_AS_MEAN_MAX_FLT;
}

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_bfloat16(const meancli_reduce_job *job, int whole)
{
    return as_mean_bfloat16(job, whole);
}

static int inner_step_bfloat16(meancli_reduce_job *job, const T_bfloat16 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_bfloat16 *totals = (acc_bfloat16 *)job->totals;
    lanes_bfloat16 *open = (lanes_bfloat16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_bfloat16 *)alloc_array(p->nout, (int64_t)sizeof(acc_bfloat16));
        open = (lanes_bfloat16 *)alloc_array(p->nout, (int64_t)sizeof(lanes_bfloat16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_bfloat16){ {0} };
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (as_mean_bfloat16(job, whole)) {
        /* short runs: each output is the Mean of its run's values (mean_unit,
         * the same rounding), up to TILE outputs along the innermost kept
         * dim at a time; roff holds the run's offsets from its first value */
        int64_t roff[INNER_AS_MEAN_MAX], rsin[INNER_AS_MEAN_MAX];
        const int64_t K = p->ksize[p->nk - 1], ntiles = (K + TILE - 1) / TILE, o0 = u0 / K, o1 = (u1 + K - 1) / K;
        int contiguous = p->kin[p->nk - 1] == p->nred; /* run after run, each of nred values in order */
        for (int64_t f = 0; f < p->nred; f++) {
            int64_t ridx[MEANCLI_MAX_RANK];
            unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
            rsin[f] = p->kin[p->nk - 1];
            contiguous &= roff[f] == f;
        }
        (void)contiguous;
        const int64_t ngroups = (o1 - o0) * ntiles, grab = grab_of(ngroups, nt, 16); /* units a thread takes at once */
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
        for (int64_t g = 0; g < ngroups; g++) {
            int64_t o = o0 + g / ntiles, t = g % ntiles;
            int64_t lo = o * K + t * TILE, hi = min64_bfloat16(lo + TILE, (o + 1) * K);
            lo = lo > u0 ? lo : u0;
            hi = hi < u1 ? hi : u1;
            if (lo >= hi) continue;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off, sout = p->kout[p->nk - 1];
            const T_bfloat16 *runs[INNER_AS_MEAN_MAX];
            T_bfloat16 buf[TILE];
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t f = 0; f < p->nred; f++) runs[f] = base + in_off + roff[f];
            T_bfloat16 *dst = (T_bfloat16 *)out + out_off, *d = sout == 1 ? dst : buf;
#ifdef MEAN_RUNS_VEC_bfloat16
            if (contiguous && ISA_MEAN_LEVEL_bfloat16 > 0)
                MEAN_RUNS_VEC_bfloat16(runs[0], (int)p->nred, hi - lo, d);
            else
#endif
                mean_unit_bfloat16((int)p->nred, runs, rsin, hi - lo, d);
            for (int64_t j = 0; d == buf && j < hi - lo; j++) dst[j * sout] = buf[j];
        }
        return MEANCLI_OK;
    }
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_bfloat16(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_bfloat16 local;
                if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= CHUNK) {
                    /* one chunk holds every value: the mean straight from its lanes */
                    lanes_init_bfloat16(&local);
                    inner_piece_bfloat16(base + in_off, p, 0, p->nred, &local);
                    ((T_bfloat16 *)out)[out_off] = lanes_mean_bfloat16(&local, p->nred);
                } else {
                    acc_bfloat16 total = (acc_bfloat16){ {0} };
                    lanes_bfloat16 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_bfloat16(&local);
                    }
                    inner_span_bfloat16(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_bfloat16(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_bfloat16 *parts = (acc_bfloat16 *)alloc_array(nparts, (int64_t)sizeof(acc_bfloat16));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_bfloat16(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_bfloat16 total = (acc_bfloat16){ {0} };
        lanes_bfloat16 local;
        lanes_bfloat16 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_bfloat16(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_bfloat16(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_bfloat16(lanes);
            inner_piece_bfloat16(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_bfloat16(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_bfloat16(meancli_reduce_job *job, const T_bfloat16 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_bfloat16 *totals = (acc_bfloat16 *)job->totals;
    rowacc_bfloat16 *open = (rowacc_bfloat16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_bfloat16 *)alloc_array(slots, (int64_t)sizeof(acc_bfloat16));
        open = (rowacc_bfloat16 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_bfloat16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_bfloat16){ {0} };
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_bfloat16 *parts = NULL;
    const int64_t pw = min64_bfloat16(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_bfloat16 *)alloc_array(slots, (int64_t)sizeof(acc_bfloat16));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_bfloat16 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_bfloat16 *mine = parts;
#endif
            acc_bfloat16 part[TILE];
            rowacc_bfloat16 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_bfloat16(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_bfloat16(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_bfloat16(&r, w);
                rows_piece_bfloat16(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_bfloat16(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_bfloat16(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* few rows: each output is the Mean of its column's values, which
     * mean_unit computes with the same rounding, without the per-column
     * costs of a row accumulation (sigmas, blocks, an exact finish); roff
     * holds the rows' offsets from a unit's first element */
    int64_t roff[ROWS_AS_MEAN_MAX];
    const int as_mean = !parts && as_mean_bfloat16(job, whole);
    for (int64_t f = 0; as_mean && f < p->nred; f++) {
        int64_t ridx[MEANCLI_MAX_RANK];
        unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = as_mean ? grab_of(nunits, nt, 16) : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_bfloat16(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_bfloat16 local_total[TILE];
        rowacc_bfloat16 local_open;
        acc_bfloat16 *total = local_total;
        rowacc_bfloat16 *r = &local_open;
        const T_bfloat16 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (as_mean) {
            const T_bfloat16 *rows[ROWS_AS_MEAN_MAX];
            int64_t rsin[ROWS_AS_MEAN_MAX];
            T_bfloat16 buf[TILE];
            for (int64_t f = 0; f < p->nred; f++) {
                rows[f] = src + roff[f];
                rsin[f] = sin;
            }
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            T_bfloat16 *dst = (T_bfloat16 *)out + out_off + t * TILE * sout, *d = sout == 1 ? dst : buf;
#ifdef MEAN_UNIT_VEC_bfloat16
            if (sin == 1 && ISA_MEAN_LEVEL_bfloat16 > 0)
                MEAN_UNIT_VEC_bfloat16((int)p->nred, rows, rsin, w, d, 0, NULL);
            else
#endif
                mean_unit_bfloat16((int)p->nred, rows, rsin, w, d);
            for (int64_t j = 0; d == buf && j < w; j++) dst[j * sout] = buf[j];
            continue;
        }
        if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= p->row_chunk) {
            /* one chunk holds every row: the means straight from it */
            rowacc_init_bfloat16(r, w);
            rows_piece_bfloat16(src, p, 0, p->nred, sin, w, r);
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++)
                ((T_bfloat16 *)out)[out_off + (t * TILE + j) * sout] = rowacc_mean_bfloat16(r, j, p->nred);
            continue;
        }
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_bfloat16){ {0} };
        }
        if (parts) {
            rows_span_bfloat16(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_bfloat16 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_bfloat16(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_bfloat16(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_bfloat16(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_bfloat16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_bfloat16(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    job->skipna = 1;
    job->p.skipna = 1;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_bfloat16(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_bfloat16), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    job->itemsize = (int64_t)sizeof(T_bfloat16);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_bfloat16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_bfloat16 *base = rebase_bfloat16(slab, p, a);
    if (p->inner_reduced) return inner_step_bfloat16(job, base, a, b, out, nthreads);
    return rows_step_bfloat16(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_bfloat16(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p->nout; i++) emit_bfloat16(job, out, i, ((acc_bfloat16){ {0} }), 0);
        return MEANCLI_OK;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_bfloat16 *totals = (acc_bfloat16 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_bfloat16(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_bfloat16(K - t * TILE, TILE);
            const acc_bfloat16 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_bfloat16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_bfloat16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_bfloat16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_bfloat16(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_bfloat16(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, float32 ------------------------------------------------ */

static inline int64_t min64_float32(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_float32(const meancli_reduce_job *job, void *out, int64_t off, acc_float32 total, int64_t count)
{
    count -= (int64_t)total.w[0]; /* skipna: the NaN skipped (zero otherwise) */
    if (!job->states) {
        ((T_float32 *)out)[off] = finalize_float32(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * (int64_t)(sizeof total / 8);
    memcpy(st, total.w, sizeof total.w);
    st[0] = (uint64_t)count;
}

/* ---- skipna, float32 -------------------------------------------------------
 * meancli's own extension: each output is the exact mean of its non-NaN
 * values. Every NaN is read as -0.0 and counted in the count word (w[0])
 * of its output's exact state, which the kernels leave zero otherwise:
 * float32 runs mask NaN lanes in their vector loop; other runs, and every
 * group of rows, are read through a copy in L1 (clean_block, clean_rows of
 * kernel_exact.c.j2; SKIP_ROWS_BYTES for rows) with NaN as -0.0, counted,
 * and infinities as -0.0 with their flags. -0.0 adds nothing to an exact
 * sum and sets no flag (the mean of -0.0s alone is -0.0), so each output's
 * state is exactly that of its non-NaN values; states combine
 * (sacc_combine adds the counts), and emit divides by nred minus the
 * count: the same bits on any thread count, chunk grid, slab and ISA.
 * Infinities are values: +inf with -inf is NaN. */
/* ADD_ROWS of nrows rows, skipping NaN: groups of rows through a copy. */
static void skip_rows_float32(rowacc_float32 *r, const T_float32 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    T_float32 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float32)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float32)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = min64_float32(nrows - i, g);
        T_float32 *buf = copy_at_float32(raw, x + i * rs);
        clean_rows_float32(x + i * rs, rs, m, s, w, buf, 1, r->acc);
        ADD_ROWS_float32(r, buf, w, m, 1, w);
    }
}

/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_float32(const T_float32 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_float32 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_float32(len - i0, remaining);
        l->skipna = p->skipna;
        RUN_float32(base + off, s, take, l, (int)(f % LANES_float32));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_float32 inner_chunk_float32(const T_float32 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_float32(start + CHUNK, p->nred);
    lanes_float32 l;
    lanes_init_float32(&l);
    inner_piece_float32(base, p, start, end, &l);
    return lanes_sum_float32(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_float32(const T_float32 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_float32 *total, lanes_float32 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_float32(cstart + CHUNK, p->nred);
        int64_t e = min64_float32(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_float32(*total, inner_chunk_float32(base, p, c));
        } else {
            if (f == cstart) lanes_init_float32(open);
            inner_piece_float32(base, p, f, e, open);
            if (e == cend) *total = acc_add_float32(*total, lanes_sum_float32(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_float32(const T_float32 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_float32 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
        if (p->skipna) skip_rows_float32(r, base, 0, 1, s, w);
        else
            ADD_ROWS_float32(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_float32(len - i0, end - f);
        if (p->skipna) skip_rows_float32(r, base + off, rs, take, s, w);
        else
            ADD_ROWS_float32(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_float32(const T_float32 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_float32 *total, rowacc_float32 *open)
{
    acc_float32 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_float32(cstart + p->row_chunk, p->nred);
        int64_t e = min64_float32(cend, f1);
        if (f == cstart) rowacc_init_float32(open, w);
        rows_piece_float32(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_float32(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_float32(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_float32 *rebase_float32(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_float32 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_float32));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */
/* Whether a step over D0 rows [a, b) computes each output as the Mean of
 * its values (mean_unit or mean_runs, the Mean unit kernels): few rows, or
 * short runs, summed whole (not a slab of the reduced outermost dim, not
 * partial states). */
static inline int as_mean_float32(const meancli_reduce_job *job, int whole)
{
    const reduce_plan *p = &job->p;
    if ((p->d0_reduced && !whole) || job->states || job->skipna) return 0;
    if (p->inner_reduced) return p->nk > 0 && p->nred <= INNER_AS_MEAN_MAX;
    return p->nred <= ROWS_AS_MEAN_MAX_FLT;
}

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_float32(const meancli_reduce_job *job, int whole)
{
    return as_mean_float32(job, whole);
}

static int inner_step_float32(meancli_reduce_job *job, const T_float32 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_float32 *totals = (acc_float32 *)job->totals;
    lanes_float32 *open = (lanes_float32 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_float32 *)alloc_array(p->nout, (int64_t)sizeof(acc_float32));
        open = (lanes_float32 *)alloc_array(p->nout, (int64_t)sizeof(lanes_float32));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_float32){ {0} };
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (as_mean_float32(job, whole)) {
        /* short runs: each output is the Mean of its run's values (mean_unit,
         * the same rounding), up to TILE outputs along the innermost kept
         * dim at a time; roff holds the run's offsets from its first value */
        int64_t roff[INNER_AS_MEAN_MAX], rsin[INNER_AS_MEAN_MAX];
        const int64_t K = p->ksize[p->nk - 1], ntiles = (K + TILE - 1) / TILE, o0 = u0 / K, o1 = (u1 + K - 1) / K;
        int contiguous = p->kin[p->nk - 1] == p->nred; /* run after run, each of nred values in order */
        for (int64_t f = 0; f < p->nred; f++) {
            int64_t ridx[MEANCLI_MAX_RANK];
            unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
            rsin[f] = p->kin[p->nk - 1];
            contiguous &= roff[f] == f;
        }
        (void)contiguous;
        const int64_t ngroups = (o1 - o0) * ntiles, grab = grab_of(ngroups, nt, 16); /* units a thread takes at once */
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
        for (int64_t g = 0; g < ngroups; g++) {
            int64_t o = o0 + g / ntiles, t = g % ntiles;
            int64_t lo = o * K + t * TILE, hi = min64_float32(lo + TILE, (o + 1) * K);
            lo = lo > u0 ? lo : u0;
            hi = hi < u1 ? hi : u1;
            if (lo >= hi) continue;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off, sout = p->kout[p->nk - 1];
            const T_float32 *runs[INNER_AS_MEAN_MAX];
            T_float32 buf[TILE];
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t f = 0; f < p->nred; f++) runs[f] = base + in_off + roff[f];
            T_float32 *dst = (T_float32 *)out + out_off, *d = sout == 1 ? dst : buf;
#ifdef MEAN_RUNS_VEC_float32
            if (contiguous && ISA_MEAN_LEVEL_float32 > 0)
                MEAN_RUNS_VEC_float32(runs[0], (int)p->nred, hi - lo, d);
            else
#endif
                mean_unit_float32((int)p->nred, runs, rsin, hi - lo, d);
            for (int64_t j = 0; d == buf && j < hi - lo; j++) dst[j * sout] = buf[j];
        }
        return MEANCLI_OK;
    }
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_float32(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_float32 local;
                if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= CHUNK) {
                    /* one chunk holds every value: the mean straight from its lanes */
                    lanes_init_float32(&local);
                    inner_piece_float32(base + in_off, p, 0, p->nred, &local);
                    ((T_float32 *)out)[out_off] = lanes_mean_float32(&local, p->nred);
                } else {
                    acc_float32 total = (acc_float32){ {0} };
                    lanes_float32 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_float32(&local);
                    }
                    inner_span_float32(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_float32(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_float32 *parts = (acc_float32 *)alloc_array(nparts, (int64_t)sizeof(acc_float32));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_float32(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_float32 total = (acc_float32){ {0} };
        lanes_float32 local;
        lanes_float32 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_float32(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_float32(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_float32(lanes);
            inner_piece_float32(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_float32(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_float32(meancli_reduce_job *job, const T_float32 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_float32 *totals = (acc_float32 *)job->totals;
    rowacc_float32 *open = (rowacc_float32 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_float32 *)alloc_array(slots, (int64_t)sizeof(acc_float32));
        open = (rowacc_float32 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_float32));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_float32){ {0} };
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_float32 *parts = NULL;
    const int64_t pw = min64_float32(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_float32 *)alloc_array(slots, (int64_t)sizeof(acc_float32));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_float32 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_float32 *mine = parts;
#endif
            acc_float32 part[TILE];
            rowacc_float32 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_float32(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_float32(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_float32(&r, w);
                rows_piece_float32(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_float32(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_float32(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* few rows: each output is the Mean of its column's values, which
     * mean_unit computes with the same rounding, without the per-column
     * costs of a row accumulation (sigmas, blocks, an exact finish); roff
     * holds the rows' offsets from a unit's first element */
    int64_t roff[ROWS_AS_MEAN_MAX];
    const int as_mean = !parts && as_mean_float32(job, whole);
    for (int64_t f = 0; as_mean && f < p->nred; f++) {
        int64_t ridx[MEANCLI_MAX_RANK];
        unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = as_mean ? grab_of(nunits, nt, 16) : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_float32(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_float32 local_total[TILE];
        rowacc_float32 local_open;
        acc_float32 *total = local_total;
        rowacc_float32 *r = &local_open;
        const T_float32 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (as_mean) {
            const T_float32 *rows[ROWS_AS_MEAN_MAX];
            int64_t rsin[ROWS_AS_MEAN_MAX];
            T_float32 buf[TILE];
            for (int64_t f = 0; f < p->nred; f++) {
                rows[f] = src + roff[f];
                rsin[f] = sin;
            }
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            T_float32 *dst = (T_float32 *)out + out_off + t * TILE * sout, *d = sout == 1 ? dst : buf;
#ifdef MEAN_UNIT_VEC_float32
            if (sin == 1 && ISA_MEAN_LEVEL_float32 > 0)
                MEAN_UNIT_VEC_float32((int)p->nred, rows, rsin, w, d, 0, NULL);
            else
#endif
                mean_unit_float32((int)p->nred, rows, rsin, w, d);
            for (int64_t j = 0; d == buf && j < w; j++) dst[j * sout] = buf[j];
            continue;
        }
        if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= p->row_chunk) {
            /* one chunk holds every row: the means straight from it */
            rowacc_init_float32(r, w);
            rows_piece_float32(src, p, 0, p->nred, sin, w, r);
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++)
                ((T_float32 *)out)[out_off + (t * TILE + j) * sout] = rowacc_mean_float32(r, j, p->nred);
            continue;
        }
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_float32){ {0} };
        }
        if (parts) {
            rows_span_float32(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_float32 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_float32(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_float32(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_float32(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_float32(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_float32(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    job->skipna = 1;
    job->p.skipna = 1;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_float32(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float32), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    job->itemsize = (int64_t)sizeof(T_float32);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_float32(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_float32 *base = rebase_float32(slab, p, a);
    if (p->inner_reduced) return inner_step_float32(job, base, a, b, out, nthreads);
    return rows_step_float32(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_float32(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p->nout; i++) emit_float32(job, out, i, ((acc_float32){ {0} }), 0);
        return MEANCLI_OK;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_float32 *totals = (acc_float32 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_float32(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_float32(K - t * TILE, TILE);
            const acc_float32 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_float32(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_float32(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_float32(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_float32(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_float32(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, float64 ------------------------------------------------ */

static inline int64_t min64_float64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_float64(const meancli_reduce_job *job, void *out, int64_t off, acc_float64 total, int64_t count)
{
    count -= (int64_t)total.w[0]; /* skipna: the NaN skipped (zero otherwise) */
    if (!job->states) {
        ((T_float64 *)out)[off] = finalize_float64(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * (int64_t)(sizeof total / 8);
    memcpy(st, total.w, sizeof total.w);
    st[0] = (uint64_t)count;
}

/* ---- skipna, float64 -------------------------------------------------------
 * meancli's own extension: each output is the exact mean of its non-NaN
 * values. Every NaN is read as -0.0 and counted in the count word (w[0])
 * of its output's exact state, which the kernels leave zero otherwise:
 * float32 runs mask NaN lanes in their vector loop; other runs, and every
 * group of rows, are read through a copy in L1 (clean_block, clean_rows of
 * kernel_exact.c.j2; SKIP_ROWS_BYTES for rows) with NaN as -0.0, counted,
 * and infinities as -0.0 with their flags. -0.0 adds nothing to an exact
 * sum and sets no flag (the mean of -0.0s alone is -0.0), so each output's
 * state is exactly that of its non-NaN values; states combine
 * (sacc_combine adds the counts), and emit divides by nred minus the
 * count: the same bits on any thread count, chunk grid, slab and ISA.
 * Infinities are values: +inf with -inf is NaN. */
/* ADD_ROWS of nrows rows, skipping NaN: groups of rows through a copy. */
static void skip_rows_float64(rowacc_float64 *r, const T_float64 *x, int64_t rs, int64_t nrows, int64_t s, int64_t w)
{
    T_float64 raw[(SKIP_ROWS_BYTES + 4096) / sizeof(T_float64)];
    int64_t g = (int64_t)(SKIP_ROWS_BYTES / sizeof(T_float64)) / w;
    g = g > ROWS_CAP ? ROWS_CAP : (g < 1 ? 1 : g);
    for (int64_t i = 0; i < nrows; i += g) {
        int64_t m = min64_float64(nrows - i, g);
        T_float64 *buf = copy_at_float64(raw, x + i * rs);
        clean_rows_float64(x + i * rs, rs, m, s, w, buf, 1, r->acc);
        ADD_ROWS_float64(r, buf, w, m, 1, w);
    }
}

/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_float64(const T_float64 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_float64 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_float64(len - i0, remaining);
        l->skipna = p->skipna;
        RUN_float64(base + off, s, take, l, (int)(f % LANES_float64));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_float64 inner_chunk_float64(const T_float64 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_float64(start + CHUNK, p->nred);
    lanes_float64 l;
    lanes_init_float64(&l);
    inner_piece_float64(base, p, start, end, &l);
    return lanes_sum_float64(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_float64(const T_float64 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_float64 *total, lanes_float64 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_float64(cstart + CHUNK, p->nred);
        int64_t e = min64_float64(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_float64(*total, inner_chunk_float64(base, p, c));
        } else {
            if (f == cstart) lanes_init_float64(open);
            inner_piece_float64(base, p, f, e, open);
            if (e == cend) *total = acc_add_float64(*total, lanes_sum_float64(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_float64(const T_float64 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_float64 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
        if (p->skipna) skip_rows_float64(r, base, 0, 1, s, w);
        else
            ADD_ROWS_float64(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_float64(len - i0, end - f);
        if (p->skipna) skip_rows_float64(r, base + off, rs, take, s, w);
        else
            ADD_ROWS_float64(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_float64(const T_float64 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_float64 *total, rowacc_float64 *open)
{
    acc_float64 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_float64(cstart + p->row_chunk, p->nred);
        int64_t e = min64_float64(cend, f1);
        if (f == cstart) rowacc_init_float64(open, w);
        rows_piece_float64(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_float64(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_float64(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_float64 *rebase_float64(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_float64 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_float64));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */
/* Whether a step over D0 rows [a, b) computes each output as the Mean of
 * its values (mean_unit or mean_runs, the Mean unit kernels): few rows, or
 * short runs, summed whole (not a slab of the reduced outermost dim, not
 * partial states). */
static inline int as_mean_float64(const meancli_reduce_job *job, int whole)
{
    const reduce_plan *p = &job->p;
    if ((p->d0_reduced && !whole) || job->states || job->skipna) return 0;
    if (p->inner_reduced) return p->nk > 0 && p->nred <= INNER_AS_MEAN_MAX;
    return p->nred <= ROWS_AS_MEAN_MAX;
}

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_float64(const meancli_reduce_job *job, int whole)
{
    return as_mean_float64(job, whole);
}

static int inner_step_float64(meancli_reduce_job *job, const T_float64 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_float64 *totals = (acc_float64 *)job->totals;
    lanes_float64 *open = (lanes_float64 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_float64 *)alloc_array(p->nout, (int64_t)sizeof(acc_float64));
        open = (lanes_float64 *)alloc_array(p->nout, (int64_t)sizeof(lanes_float64));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_float64){ {0} };
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (as_mean_float64(job, whole)) {
        /* short runs: each output is the Mean of its run's values (mean_unit,
         * the same rounding), up to TILE outputs along the innermost kept
         * dim at a time; roff holds the run's offsets from its first value */
        int64_t roff[INNER_AS_MEAN_MAX], rsin[INNER_AS_MEAN_MAX];
        const int64_t K = p->ksize[p->nk - 1], ntiles = (K + TILE - 1) / TILE, o0 = u0 / K, o1 = (u1 + K - 1) / K;
        int contiguous = p->kin[p->nk - 1] == p->nred; /* run after run, each of nred values in order */
        for (int64_t f = 0; f < p->nred; f++) {
            int64_t ridx[MEANCLI_MAX_RANK];
            unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
            rsin[f] = p->kin[p->nk - 1];
            contiguous &= roff[f] == f;
        }
        (void)contiguous;
        const int64_t ngroups = (o1 - o0) * ntiles, grab = grab_of(ngroups, nt, 16); /* units a thread takes at once */
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
        for (int64_t g = 0; g < ngroups; g++) {
            int64_t o = o0 + g / ntiles, t = g % ntiles;
            int64_t lo = o * K + t * TILE, hi = min64_float64(lo + TILE, (o + 1) * K);
            lo = lo > u0 ? lo : u0;
            hi = hi < u1 ? hi : u1;
            if (lo >= hi) continue;
            int64_t idx[MEANCLI_MAX_RANK], in_off, out_off, sout = p->kout[p->nk - 1];
            const T_float64 *runs[INNER_AS_MEAN_MAX];
            T_float64 buf[TILE];
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t f = 0; f < p->nred; f++) runs[f] = base + in_off + roff[f];
            T_float64 *dst = (T_float64 *)out + out_off, *d = sout == 1 ? dst : buf;
#ifdef MEAN_RUNS_VEC_float64
            if (contiguous && ISA_MEAN_LEVEL_float64 > 0)
                MEAN_RUNS_VEC_float64(runs[0], (int)p->nred, hi - lo, d);
            else
#endif
                mean_unit_float64((int)p->nred, runs, rsin, hi - lo, d);
            for (int64_t j = 0; d == buf && j < hi - lo; j++) dst[j * sout] = buf[j];
        }
        return MEANCLI_OK;
    }
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_float64(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_float64 local;
                if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= CHUNK) {
                    /* one chunk holds every value: the mean straight from its lanes */
                    lanes_init_float64(&local);
                    inner_piece_float64(base + in_off, p, 0, p->nred, &local);
                    ((T_float64 *)out)[out_off] = lanes_mean_float64(&local, p->nred);
                } else {
                    acc_float64 total = (acc_float64){ {0} };
                    lanes_float64 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_float64(&local);
                    }
                    inner_span_float64(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_float64(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_float64 *parts = (acc_float64 *)alloc_array(nparts, (int64_t)sizeof(acc_float64));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_float64(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_float64 total = (acc_float64){ {0} };
        lanes_float64 local;
        lanes_float64 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_float64(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_float64(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_float64(lanes);
            inner_piece_float64(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_float64(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_float64(meancli_reduce_job *job, const T_float64 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_float64 *totals = (acc_float64 *)job->totals;
    rowacc_float64 *open = (rowacc_float64 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_float64 *)alloc_array(slots, (int64_t)sizeof(acc_float64));
        open = (rowacc_float64 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_float64));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_float64){ {0} };
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_float64 *parts = NULL;
    const int64_t pw = min64_float64(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_float64 *)alloc_array(slots, (int64_t)sizeof(acc_float64));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_float64 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_float64 *mine = parts;
#endif
            acc_float64 part[TILE];
            rowacc_float64 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_float64(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_float64(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_float64(&r, w);
                rows_piece_float64(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_float64(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_float64(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* few rows: each output is the Mean of its column's values, which
     * mean_unit computes with the same rounding, without the per-column
     * costs of a row accumulation (sigmas, blocks, an exact finish); roff
     * holds the rows' offsets from a unit's first element */
    int64_t roff[ROWS_AS_MEAN_MAX];
    const int as_mean = !parts && as_mean_float64(job, whole);
    for (int64_t f = 0; as_mean && f < p->nred; f++) {
        int64_t ridx[MEANCLI_MAX_RANK];
        unflatten(f, p->nr, p->rsize, p->rin, ridx, &roff[f]);
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = as_mean ? grab_of(nunits, nt, 16) : 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_float64(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_float64 local_total[TILE];
        rowacc_float64 local_open;
        acc_float64 *total = local_total;
        rowacc_float64 *r = &local_open;
        const T_float64 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (as_mean) {
            const T_float64 *rows[ROWS_AS_MEAN_MAX];
            int64_t rsin[ROWS_AS_MEAN_MAX];
            T_float64 buf[TILE];
            for (int64_t f = 0; f < p->nred; f++) {
                rows[f] = src + roff[f];
                rsin[f] = sin;
            }
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            T_float64 *dst = (T_float64 *)out + out_off + t * TILE * sout, *d = sout == 1 ? dst : buf;
#ifdef MEAN_UNIT_VEC_float64
            if (sin == 1 && ISA_MEAN_LEVEL_float64 > 0)
                MEAN_UNIT_VEC_float64((int)p->nred, rows, rsin, w, d, 0, NULL);
            else
#endif
                mean_unit_float64((int)p->nred, rows, rsin, w, d);
            for (int64_t j = 0; d == buf && j < w; j++) dst[j * sout] = buf[j];
            continue;
        }
        if (!(p->d0_reduced && !whole) && !job->states && !job->skipna && p->nred <= p->row_chunk) {
            /* one chunk holds every row: the means straight from it */
            rowacc_init_float64(r, w);
            rows_piece_float64(src, p, 0, p->nred, sin, w, r);
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++)
                ((T_float64 *)out)[out_off + (t * TILE + j) * sout] = rowacc_mean_float64(r, j, p->nred);
            continue;
        }
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_float64){ {0} };
        }
        if (parts) {
            rows_span_float64(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_float64 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_float64(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_float64(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_float64(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_float64(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_float64(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    job->skipna = 1;
    job->p.skipna = 1;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_float64(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float64), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    job->itemsize = (int64_t)sizeof(T_float64);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_float64(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_float64 *base = rebase_float64(slab, p, a);
    if (p->inner_reduced) return inner_step_float64(job, base, a, b, out, nthreads);
    return rows_step_float64(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_float64(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        /* the mean of an empty set is NaN (0/0), as in numpy and the ONNX reference */
        for (int64_t i = 0; i < p->nout; i++) emit_float64(job, out, i, ((acc_float64){ {0} }), 0);
        return MEANCLI_OK;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_float64 *totals = (acc_float64 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_float64(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_float64(K - t * TILE, TILE);
            const acc_float64 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_float64(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_float64(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_float64(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_float64(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_float64(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, int8 ------------------------------------------------ */

static inline int64_t min64_int8(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_int8(const meancli_reduce_job *job, void *out, int64_t off, acc_int8 total, int64_t count)
{
    if (!job->states) {
        ((T_int8 *)out)[off] = finalize_int8(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_int8(const T_int8 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_int8 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int8(len - i0, remaining);
        RUN_int8(base + off, s, take, l, (int)(f % LANES_int8));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_int8 inner_chunk_int8(const T_int8 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_int8(start + CHUNK, p->nred);
    lanes_int8 l;
    lanes_init_int8(&l);
    inner_piece_int8(base, p, start, end, &l);
    return lanes_sum_int8(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_int8(const T_int8 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_int8 *total, lanes_int8 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_int8(cstart + CHUNK, p->nred);
        int64_t e = min64_int8(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_int8(*total, inner_chunk_int8(base, p, c));
        } else {
            if (f == cstart) lanes_init_int8(open);
            inner_piece_int8(base, p, f, e, open);
            if (e == cend) *total = acc_add_int8(*total, lanes_sum_int8(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_int8(const T_int8 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_int8 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_int8(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int8(len - i0, end - f);
            ADD_ROWS_int8(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_int8(const T_int8 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_int8 *total, rowacc_int8 *open)
{
    acc_int8 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_int8(cstart + p->row_chunk, p->nred);
        int64_t e = min64_int8(cend, f1);
        if (f == cstart) rowacc_init_int8(open, w);
        rows_piece_int8(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_int8(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_int8(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_int8 *rebase_int8(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_int8 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_int8));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_int8(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_int8(meancli_reduce_job *job, const T_int8 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_int8 *totals = (acc_int8 *)job->totals;
    lanes_int8 *open = (lanes_int8 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_int8 *)alloc_array(p->nout, (int64_t)sizeof(acc_int8));
        open = (lanes_int8 *)alloc_array(p->nout, (int64_t)sizeof(lanes_int8));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_int8)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_int8(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_int8 local;
                {
                    acc_int8 total = (acc_int8)0;
                    lanes_int8 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_int8(&local);
                    }
                    inner_span_int8(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_int8(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_int8 *parts = (acc_int8 *)alloc_array(nparts, (int64_t)sizeof(acc_int8));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int8(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_int8 total = (acc_int8)0;
        lanes_int8 local;
        lanes_int8 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_int8(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_int8(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_int8(lanes);
            inner_piece_int8(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int8(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_int8(meancli_reduce_job *job, const T_int8 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_int8 *totals = (acc_int8 *)job->totals;
    rowacc_int8 *open = (rowacc_int8 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_int8 *)alloc_array(slots, (int64_t)sizeof(acc_int8));
        open = (rowacc_int8 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_int8));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_int8)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_int8 *parts = NULL;
    const int64_t pw = min64_int8(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_int8 *)alloc_array(slots, (int64_t)sizeof(acc_int8));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_int8 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_int8 *mine = parts;
#endif
            acc_int8 part[TILE];
            rowacc_int8 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_int8(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_int8(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_int8(&r, w);
                rows_piece_int8(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_int8(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_int8(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_int8(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_int8 local_total[TILE];
        rowacc_int8 local_open;
        acc_int8 *total = local_total;
        rowacc_int8 *r = &local_open;
        const T_int8 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_int8)0;
        }
        if (parts) {
            rows_span_int8(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_int8 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_int8(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_int8(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_int8(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_int8(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_int8(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_int8(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int8), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_int8);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_int8(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_int8 *base = rebase_int8(slab, p, a);
    if (p->inner_reduced) return inner_step_int8(job, base, a, b, out, nthreads);
    return rows_step_int8(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_int8(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_int8 *totals = (acc_int8 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int8(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_int8(K - t * TILE, TILE);
            const acc_int8 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_int8(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_int8(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_int8(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_int8(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int8(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, int16 ------------------------------------------------ */

static inline int64_t min64_int16(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_int16(const meancli_reduce_job *job, void *out, int64_t off, acc_int16 total, int64_t count)
{
    if (!job->states) {
        ((T_int16 *)out)[off] = finalize_int16(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_int16(const T_int16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_int16 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int16(len - i0, remaining);
        RUN_int16(base + off, s, take, l, (int)(f % LANES_int16));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_int16 inner_chunk_int16(const T_int16 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_int16(start + CHUNK, p->nred);
    lanes_int16 l;
    lanes_init_int16(&l);
    inner_piece_int16(base, p, start, end, &l);
    return lanes_sum_int16(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_int16(const T_int16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_int16 *total, lanes_int16 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_int16(cstart + CHUNK, p->nred);
        int64_t e = min64_int16(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_int16(*total, inner_chunk_int16(base, p, c));
        } else {
            if (f == cstart) lanes_init_int16(open);
            inner_piece_int16(base, p, f, e, open);
            if (e == cend) *total = acc_add_int16(*total, lanes_sum_int16(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_int16(const T_int16 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_int16 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_int16(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int16(len - i0, end - f);
            ADD_ROWS_int16(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_int16(const T_int16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_int16 *total, rowacc_int16 *open)
{
    acc_int16 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_int16(cstart + p->row_chunk, p->nred);
        int64_t e = min64_int16(cend, f1);
        if (f == cstart) rowacc_init_int16(open, w);
        rows_piece_int16(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_int16(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_int16(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_int16 *rebase_int16(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_int16 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_int16));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_int16(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_int16(meancli_reduce_job *job, const T_int16 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_int16 *totals = (acc_int16 *)job->totals;
    lanes_int16 *open = (lanes_int16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_int16 *)alloc_array(p->nout, (int64_t)sizeof(acc_int16));
        open = (lanes_int16 *)alloc_array(p->nout, (int64_t)sizeof(lanes_int16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_int16)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_int16(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_int16 local;
                {
                    acc_int16 total = (acc_int16)0;
                    lanes_int16 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_int16(&local);
                    }
                    inner_span_int16(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_int16(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_int16 *parts = (acc_int16 *)alloc_array(nparts, (int64_t)sizeof(acc_int16));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int16(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_int16 total = (acc_int16)0;
        lanes_int16 local;
        lanes_int16 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_int16(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_int16(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_int16(lanes);
            inner_piece_int16(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int16(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_int16(meancli_reduce_job *job, const T_int16 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_int16 *totals = (acc_int16 *)job->totals;
    rowacc_int16 *open = (rowacc_int16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_int16 *)alloc_array(slots, (int64_t)sizeof(acc_int16));
        open = (rowacc_int16 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_int16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_int16)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_int16 *parts = NULL;
    const int64_t pw = min64_int16(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_int16 *)alloc_array(slots, (int64_t)sizeof(acc_int16));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_int16 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_int16 *mine = parts;
#endif
            acc_int16 part[TILE];
            rowacc_int16 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_int16(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_int16(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_int16(&r, w);
                rows_piece_int16(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_int16(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_int16(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_int16(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_int16 local_total[TILE];
        rowacc_int16 local_open;
        acc_int16 *total = local_total;
        rowacc_int16 *r = &local_open;
        const T_int16 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_int16)0;
        }
        if (parts) {
            rows_span_int16(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_int16 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_int16(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_int16(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_int16(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_int16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_int16(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_int16(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int16), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_int16);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_int16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_int16 *base = rebase_int16(slab, p, a);
    if (p->inner_reduced) return inner_step_int16(job, base, a, b, out, nthreads);
    return rows_step_int16(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_int16(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_int16 *totals = (acc_int16 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int16(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_int16(K - t * TILE, TILE);
            const acc_int16 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_int16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_int16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_int16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_int16(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int16(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, int32 ------------------------------------------------ */

static inline int64_t min64_int32(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_int32(const meancli_reduce_job *job, void *out, int64_t off, acc_int32 total, int64_t count)
{
    if (!job->states) {
        ((T_int32 *)out)[off] = finalize_int32(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_int32(const T_int32 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_int32 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int32(len - i0, remaining);
        RUN_int32(base + off, s, take, l, (int)(f % LANES_int32));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_int32 inner_chunk_int32(const T_int32 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_int32(start + CHUNK, p->nred);
    lanes_int32 l;
    lanes_init_int32(&l);
    inner_piece_int32(base, p, start, end, &l);
    return lanes_sum_int32(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_int32(const T_int32 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_int32 *total, lanes_int32 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_int32(cstart + CHUNK, p->nred);
        int64_t e = min64_int32(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_int32(*total, inner_chunk_int32(base, p, c));
        } else {
            if (f == cstart) lanes_init_int32(open);
            inner_piece_int32(base, p, f, e, open);
            if (e == cend) *total = acc_add_int32(*total, lanes_sum_int32(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_int32(const T_int32 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_int32 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_int32(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int32(len - i0, end - f);
            ADD_ROWS_int32(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_int32(const T_int32 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_int32 *total, rowacc_int32 *open)
{
    acc_int32 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_int32(cstart + p->row_chunk, p->nred);
        int64_t e = min64_int32(cend, f1);
        if (f == cstart) rowacc_init_int32(open, w);
        rows_piece_int32(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_int32(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_int32(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_int32 *rebase_int32(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_int32 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_int32));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_int32(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_int32(meancli_reduce_job *job, const T_int32 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_int32 *totals = (acc_int32 *)job->totals;
    lanes_int32 *open = (lanes_int32 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_int32 *)alloc_array(p->nout, (int64_t)sizeof(acc_int32));
        open = (lanes_int32 *)alloc_array(p->nout, (int64_t)sizeof(lanes_int32));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_int32)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_int32(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_int32 local;
                {
                    acc_int32 total = (acc_int32)0;
                    lanes_int32 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_int32(&local);
                    }
                    inner_span_int32(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_int32(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_int32 *parts = (acc_int32 *)alloc_array(nparts, (int64_t)sizeof(acc_int32));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int32(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_int32 total = (acc_int32)0;
        lanes_int32 local;
        lanes_int32 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_int32(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_int32(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_int32(lanes);
            inner_piece_int32(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int32(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_int32(meancli_reduce_job *job, const T_int32 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_int32 *totals = (acc_int32 *)job->totals;
    rowacc_int32 *open = (rowacc_int32 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_int32 *)alloc_array(slots, (int64_t)sizeof(acc_int32));
        open = (rowacc_int32 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_int32));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_int32)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_int32 *parts = NULL;
    const int64_t pw = min64_int32(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_int32 *)alloc_array(slots, (int64_t)sizeof(acc_int32));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_int32 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_int32 *mine = parts;
#endif
            acc_int32 part[TILE];
            rowacc_int32 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_int32(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_int32(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_int32(&r, w);
                rows_piece_int32(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_int32(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_int32(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_int32(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_int32 local_total[TILE];
        rowacc_int32 local_open;
        acc_int32 *total = local_total;
        rowacc_int32 *r = &local_open;
        const T_int32 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_int32)0;
        }
        if (parts) {
            rows_span_int32(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_int32 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_int32(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_int32(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_int32(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_int32(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_int32(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_int32(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int32), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_int32);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_int32(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_int32 *base = rebase_int32(slab, p, a);
    if (p->inner_reduced) return inner_step_int32(job, base, a, b, out, nthreads);
    return rows_step_int32(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_int32(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_int32 *totals = (acc_int32 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int32(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_int32(K - t * TILE, TILE);
            const acc_int32 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_int32(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_int32(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_int32(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_int32(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int32(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, int64 ------------------------------------------------ */

static inline int64_t min64_int64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_int64(const meancli_reduce_job *job, void *out, int64_t off, acc_int64 total, int64_t count)
{
    if (!job->states) {
        ((T_int64 *)out)[off] = finalize_int64(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_int64(const T_int64 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_int64 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int64(len - i0, remaining);
        RUN_int64(base + off, s, take, l, (int)(f % LANES_int64));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_int64 inner_chunk_int64(const T_int64 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_int64(start + CHUNK, p->nred);
    lanes_int64 l;
    lanes_init_int64(&l);
    inner_piece_int64(base, p, start, end, &l);
    return lanes_sum_int64(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_int64(const T_int64 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_int64 *total, lanes_int64 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_int64(cstart + CHUNK, p->nred);
        int64_t e = min64_int64(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_int64(*total, inner_chunk_int64(base, p, c));
        } else {
            if (f == cstart) lanes_init_int64(open);
            inner_piece_int64(base, p, f, e, open);
            if (e == cend) *total = acc_add_int64(*total, lanes_sum_int64(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_int64(const T_int64 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_int64 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_int64(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_int64(len - i0, end - f);
            ADD_ROWS_int64(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_int64(const T_int64 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_int64 *total, rowacc_int64 *open)
{
    acc_int64 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_int64(cstart + p->row_chunk, p->nred);
        int64_t e = min64_int64(cend, f1);
        if (f == cstart) rowacc_init_int64(open, w);
        rows_piece_int64(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_int64(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_int64(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_int64 *rebase_int64(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_int64 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_int64));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_int64(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_int64(meancli_reduce_job *job, const T_int64 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_int64 *totals = (acc_int64 *)job->totals;
    lanes_int64 *open = (lanes_int64 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_int64 *)alloc_array(p->nout, (int64_t)sizeof(acc_int64));
        open = (lanes_int64 *)alloc_array(p->nout, (int64_t)sizeof(lanes_int64));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_int64)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_int64(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_int64 local;
                {
                    acc_int64 total = (acc_int64)0;
                    lanes_int64 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_int64(&local);
                    }
                    inner_span_int64(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_int64(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_int64 *parts = (acc_int64 *)alloc_array(nparts, (int64_t)sizeof(acc_int64));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_int64(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_int64 total = (acc_int64)0;
        lanes_int64 local;
        lanes_int64 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_int64(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_int64(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_int64(lanes);
            inner_piece_int64(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int64(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_int64(meancli_reduce_job *job, const T_int64 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_int64 *totals = (acc_int64 *)job->totals;
    rowacc_int64 *open = (rowacc_int64 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_int64 *)alloc_array(slots, (int64_t)sizeof(acc_int64));
        open = (rowacc_int64 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_int64));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_int64)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_int64 *parts = NULL;
    const int64_t pw = min64_int64(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_int64 *)alloc_array(slots, (int64_t)sizeof(acc_int64));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_int64 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_int64 *mine = parts;
#endif
            acc_int64 part[TILE];
            rowacc_int64 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_int64(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_int64(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_int64(&r, w);
                rows_piece_int64(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_int64(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_int64(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_int64(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_int64 local_total[TILE];
        rowacc_int64 local_open;
        acc_int64 *total = local_total;
        rowacc_int64 *r = &local_open;
        const T_int64 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_int64)0;
        }
        if (parts) {
            rows_span_int64(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_int64 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_int64(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_int64(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_int64(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_int64(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_int64(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_int64(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int64), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_int64);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_int64(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_int64 *base = rebase_int64(slab, p, a);
    if (p->inner_reduced) return inner_step_int64(job, base, a, b, out, nthreads);
    return rows_step_int64(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_int64(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_int64 *totals = (acc_int64 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_int64(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_int64(K - t * TILE, TILE);
            const acc_int64 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_int64(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_int64(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_int64(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_int64(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int64(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, uint8 ------------------------------------------------ */

static inline int64_t min64_uint8(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_uint8(const meancli_reduce_job *job, void *out, int64_t off, acc_uint8 total, int64_t count)
{
    if (!job->states) {
        ((T_uint8 *)out)[off] = finalize_uint8(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_uint8(const T_uint8 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_uint8 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint8(len - i0, remaining);
        RUN_uint8(base + off, s, take, l, (int)(f % LANES_uint8));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_uint8 inner_chunk_uint8(const T_uint8 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_uint8(start + CHUNK, p->nred);
    lanes_uint8 l;
    lanes_init_uint8(&l);
    inner_piece_uint8(base, p, start, end, &l);
    return lanes_sum_uint8(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_uint8(const T_uint8 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_uint8 *total, lanes_uint8 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_uint8(cstart + CHUNK, p->nred);
        int64_t e = min64_uint8(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_uint8(*total, inner_chunk_uint8(base, p, c));
        } else {
            if (f == cstart) lanes_init_uint8(open);
            inner_piece_uint8(base, p, f, e, open);
            if (e == cend) *total = acc_add_uint8(*total, lanes_sum_uint8(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_uint8(const T_uint8 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_uint8 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_uint8(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint8(len - i0, end - f);
            ADD_ROWS_uint8(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_uint8(const T_uint8 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_uint8 *total, rowacc_uint8 *open)
{
    acc_uint8 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_uint8(cstart + p->row_chunk, p->nred);
        int64_t e = min64_uint8(cend, f1);
        if (f == cstart) rowacc_init_uint8(open, w);
        rows_piece_uint8(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_uint8(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint8(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_uint8 *rebase_uint8(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_uint8 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_uint8));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_uint8(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_uint8(meancli_reduce_job *job, const T_uint8 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_uint8 *totals = (acc_uint8 *)job->totals;
    lanes_uint8 *open = (lanes_uint8 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_uint8 *)alloc_array(p->nout, (int64_t)sizeof(acc_uint8));
        open = (lanes_uint8 *)alloc_array(p->nout, (int64_t)sizeof(lanes_uint8));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_uint8)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_uint8(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_uint8 local;
                {
                    acc_uint8 total = (acc_uint8)0;
                    lanes_uint8 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_uint8(&local);
                    }
                    inner_span_uint8(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_uint8(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_uint8 *parts = (acc_uint8 *)alloc_array(nparts, (int64_t)sizeof(acc_uint8));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint8(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_uint8 total = (acc_uint8)0;
        lanes_uint8 local;
        lanes_uint8 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_uint8(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_uint8(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_uint8(lanes);
            inner_piece_uint8(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint8(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_uint8(meancli_reduce_job *job, const T_uint8 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_uint8 *totals = (acc_uint8 *)job->totals;
    rowacc_uint8 *open = (rowacc_uint8 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_uint8 *)alloc_array(slots, (int64_t)sizeof(acc_uint8));
        open = (rowacc_uint8 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_uint8));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_uint8)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_uint8 *parts = NULL;
    const int64_t pw = min64_uint8(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_uint8 *)alloc_array(slots, (int64_t)sizeof(acc_uint8));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_uint8 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_uint8 *mine = parts;
#endif
            acc_uint8 part[TILE];
            rowacc_uint8 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_uint8(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_uint8(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_uint8(&r, w);
                rows_piece_uint8(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_uint8(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_uint8(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_uint8(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_uint8 local_total[TILE];
        rowacc_uint8 local_open;
        acc_uint8 *total = local_total;
        rowacc_uint8 *r = &local_open;
        const T_uint8 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_uint8)0;
        }
        if (parts) {
            rows_span_uint8(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_uint8 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint8(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_uint8(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_uint8(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_uint8(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_uint8(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_uint8(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint8), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_uint8);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_uint8(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_uint8 *base = rebase_uint8(slab, p, a);
    if (p->inner_reduced) return inner_step_uint8(job, base, a, b, out, nthreads);
    return rows_step_uint8(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_uint8(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_uint8 *totals = (acc_uint8 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint8(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_uint8(K - t * TILE, TILE);
            const acc_uint8 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_uint8(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_uint8(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_uint8(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_uint8(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint8(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, uint16 ------------------------------------------------ */

static inline int64_t min64_uint16(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_uint16(const meancli_reduce_job *job, void *out, int64_t off, acc_uint16 total, int64_t count)
{
    if (!job->states) {
        ((T_uint16 *)out)[off] = finalize_uint16(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_uint16(const T_uint16 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_uint16 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint16(len - i0, remaining);
        RUN_uint16(base + off, s, take, l, (int)(f % LANES_uint16));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_uint16 inner_chunk_uint16(const T_uint16 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_uint16(start + CHUNK, p->nred);
    lanes_uint16 l;
    lanes_init_uint16(&l);
    inner_piece_uint16(base, p, start, end, &l);
    return lanes_sum_uint16(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_uint16(const T_uint16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_uint16 *total, lanes_uint16 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_uint16(cstart + CHUNK, p->nred);
        int64_t e = min64_uint16(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_uint16(*total, inner_chunk_uint16(base, p, c));
        } else {
            if (f == cstart) lanes_init_uint16(open);
            inner_piece_uint16(base, p, f, e, open);
            if (e == cend) *total = acc_add_uint16(*total, lanes_sum_uint16(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_uint16(const T_uint16 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_uint16 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_uint16(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint16(len - i0, end - f);
            ADD_ROWS_uint16(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_uint16(const T_uint16 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_uint16 *total, rowacc_uint16 *open)
{
    acc_uint16 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_uint16(cstart + p->row_chunk, p->nred);
        int64_t e = min64_uint16(cend, f1);
        if (f == cstart) rowacc_init_uint16(open, w);
        rows_piece_uint16(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_uint16(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint16(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_uint16 *rebase_uint16(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_uint16 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_uint16));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_uint16(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_uint16(meancli_reduce_job *job, const T_uint16 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_uint16 *totals = (acc_uint16 *)job->totals;
    lanes_uint16 *open = (lanes_uint16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_uint16 *)alloc_array(p->nout, (int64_t)sizeof(acc_uint16));
        open = (lanes_uint16 *)alloc_array(p->nout, (int64_t)sizeof(lanes_uint16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_uint16)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_uint16(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_uint16 local;
                {
                    acc_uint16 total = (acc_uint16)0;
                    lanes_uint16 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_uint16(&local);
                    }
                    inner_span_uint16(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_uint16(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_uint16 *parts = (acc_uint16 *)alloc_array(nparts, (int64_t)sizeof(acc_uint16));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint16(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_uint16 total = (acc_uint16)0;
        lanes_uint16 local;
        lanes_uint16 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_uint16(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_uint16(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_uint16(lanes);
            inner_piece_uint16(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint16(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_uint16(meancli_reduce_job *job, const T_uint16 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_uint16 *totals = (acc_uint16 *)job->totals;
    rowacc_uint16 *open = (rowacc_uint16 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_uint16 *)alloc_array(slots, (int64_t)sizeof(acc_uint16));
        open = (rowacc_uint16 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_uint16));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_uint16)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_uint16 *parts = NULL;
    const int64_t pw = min64_uint16(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_uint16 *)alloc_array(slots, (int64_t)sizeof(acc_uint16));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_uint16 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_uint16 *mine = parts;
#endif
            acc_uint16 part[TILE];
            rowacc_uint16 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_uint16(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_uint16(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_uint16(&r, w);
                rows_piece_uint16(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_uint16(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_uint16(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_uint16(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_uint16 local_total[TILE];
        rowacc_uint16 local_open;
        acc_uint16 *total = local_total;
        rowacc_uint16 *r = &local_open;
        const T_uint16 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_uint16)0;
        }
        if (parts) {
            rows_span_uint16(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_uint16 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint16(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_uint16(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_uint16(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_uint16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_uint16(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_uint16(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint16), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_uint16);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_uint16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_uint16 *base = rebase_uint16(slab, p, a);
    if (p->inner_reduced) return inner_step_uint16(job, base, a, b, out, nthreads);
    return rows_step_uint16(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_uint16(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_uint16 *totals = (acc_uint16 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint16(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_uint16(K - t * TILE, TILE);
            const acc_uint16 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_uint16(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_uint16(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_uint16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_uint16(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint16(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, uint32 ------------------------------------------------ */

static inline int64_t min64_uint32(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_uint32(const meancli_reduce_job *job, void *out, int64_t off, acc_uint32 total, int64_t count)
{
    if (!job->states) {
        ((T_uint32 *)out)[off] = finalize_uint32(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_uint32(const T_uint32 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_uint32 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint32(len - i0, remaining);
        RUN_uint32(base + off, s, take, l, (int)(f % LANES_uint32));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_uint32 inner_chunk_uint32(const T_uint32 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_uint32(start + CHUNK, p->nred);
    lanes_uint32 l;
    lanes_init_uint32(&l);
    inner_piece_uint32(base, p, start, end, &l);
    return lanes_sum_uint32(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_uint32(const T_uint32 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_uint32 *total, lanes_uint32 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_uint32(cstart + CHUNK, p->nred);
        int64_t e = min64_uint32(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_uint32(*total, inner_chunk_uint32(base, p, c));
        } else {
            if (f == cstart) lanes_init_uint32(open);
            inner_piece_uint32(base, p, f, e, open);
            if (e == cend) *total = acc_add_uint32(*total, lanes_sum_uint32(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_uint32(const T_uint32 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_uint32 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_uint32(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint32(len - i0, end - f);
            ADD_ROWS_uint32(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_uint32(const T_uint32 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_uint32 *total, rowacc_uint32 *open)
{
    acc_uint32 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_uint32(cstart + p->row_chunk, p->nred);
        int64_t e = min64_uint32(cend, f1);
        if (f == cstart) rowacc_init_uint32(open, w);
        rows_piece_uint32(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_uint32(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint32(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_uint32 *rebase_uint32(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_uint32 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_uint32));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_uint32(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_uint32(meancli_reduce_job *job, const T_uint32 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_uint32 *totals = (acc_uint32 *)job->totals;
    lanes_uint32 *open = (lanes_uint32 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_uint32 *)alloc_array(p->nout, (int64_t)sizeof(acc_uint32));
        open = (lanes_uint32 *)alloc_array(p->nout, (int64_t)sizeof(lanes_uint32));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_uint32)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_uint32(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_uint32 local;
                {
                    acc_uint32 total = (acc_uint32)0;
                    lanes_uint32 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_uint32(&local);
                    }
                    inner_span_uint32(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_uint32(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_uint32 *parts = (acc_uint32 *)alloc_array(nparts, (int64_t)sizeof(acc_uint32));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint32(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_uint32 total = (acc_uint32)0;
        lanes_uint32 local;
        lanes_uint32 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_uint32(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_uint32(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_uint32(lanes);
            inner_piece_uint32(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint32(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_uint32(meancli_reduce_job *job, const T_uint32 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_uint32 *totals = (acc_uint32 *)job->totals;
    rowacc_uint32 *open = (rowacc_uint32 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_uint32 *)alloc_array(slots, (int64_t)sizeof(acc_uint32));
        open = (rowacc_uint32 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_uint32));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_uint32)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_uint32 *parts = NULL;
    const int64_t pw = min64_uint32(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_uint32 *)alloc_array(slots, (int64_t)sizeof(acc_uint32));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_uint32 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_uint32 *mine = parts;
#endif
            acc_uint32 part[TILE];
            rowacc_uint32 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_uint32(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_uint32(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_uint32(&r, w);
                rows_piece_uint32(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_uint32(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_uint32(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_uint32(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_uint32 local_total[TILE];
        rowacc_uint32 local_open;
        acc_uint32 *total = local_total;
        rowacc_uint32 *r = &local_open;
        const T_uint32 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_uint32)0;
        }
        if (parts) {
            rows_span_uint32(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_uint32 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint32(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_uint32(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_uint32(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_uint32(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_uint32(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_uint32(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint32), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_uint32);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_uint32(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_uint32 *base = rebase_uint32(slab, p, a);
    if (p->inner_reduced) return inner_step_uint32(job, base, a, b, out, nthreads);
    return rows_step_uint32(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_uint32(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_uint32 *totals = (acc_uint32 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint32(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_uint32(K - t * TILE, TILE);
            const acc_uint32 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_uint32(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_uint32(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_uint32(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_uint32(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint32(job, out);
    meancli_reduce_free(job);
    return rc;
}
/* ---- ReduceMean, uint64 ------------------------------------------------ */

static inline int64_t min64_uint64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Output off of a finished reduction: its mean, or (partial reductions) its
 * exact state (layout: kernels.c.j2, "Exact sums"; integers: count, 0, sum). */
static inline void emit_uint64(const meancli_reduce_job *job, void *out, int64_t off, acc_uint64 total, int64_t count)
{
    if (!job->states) {
        ((T_uint64 *)out)[off] = finalize_uint64(total, count);
        return;
    }
    uint64_t *st = (uint64_t *)out + off * 4;
    st[0] = (uint64_t)count;
    st[1] = 0;
    st[2] = (uint64_t)(unsigned __int128)total;
    st[3] = (uint64_t)((unsigned __int128)total >> 64);
}


/* Add reduced flat indices [start, end) of one output into open lanes:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void inner_piece_uint64(const T_uint64 *base, const reduce_plan *p, int64_t start, int64_t end,
                               lanes_uint64 *l)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    int64_t len = p->rsize[nr - 1], s = p->rin[nr - 1], remaining = end - start, f = start;
    if (remaining <= 0) return;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint64(len - i0, remaining);
        RUN_uint64(base + off, s, take, l, (int)(f % LANES_uint64));
        remaining -= take;
        f += take;
        if (remaining == 0) break;
        off -= i0 * s;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* The partial sum of chunk c of one output. */
static acc_uint64 inner_chunk_uint64(const T_uint64 *base, const reduce_plan *p, int64_t c)
{
    int64_t start = c * CHUNK, end = min64_uint64(start + CHUNK, p->nred);
    lanes_uint64 l;
    lanes_init_uint64(&l);
    inner_piece_uint64(base, p, start, end, &l);
    return lanes_sum_uint64(&l, end - start);
}

/* Reduced flat indices [f0, f1) of one output: continue the open chunk,
 * fold every chunk that completes into *total, leave an incomplete one open. */
static void inner_span_uint64(const T_uint64 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                              acc_uint64 *total, lanes_uint64 *open)
{
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / CHUNK, cstart = c * CHUNK, cend = min64_uint64(cstart + CHUNK, p->nred);
        int64_t e = min64_uint64(cend, f1);
        if (f == cstart && e == cend) {
            *total = acc_add_uint64(*total, inner_chunk_uint64(base, p, c));
        } else {
            if (f == cstart) lanes_init_uint64(open);
            inner_piece_uint64(base, p, f, e, open);
            if (e == cend) *total = acc_add_uint64(*total, lanes_sum_uint64(open, cend - cstart));
        }
        f = e;
    }
}

/* Rows [start, end) of the reduced index space added column-wise into r:
 * runs along the innermost reduced dim, an odometer over the outer ones. */
static void rows_piece_uint64(const T_uint64 *base, const reduce_plan *p, int64_t start, int64_t end,
                              int64_t s, int64_t w, rowacc_uint64 *r)
{
    int64_t idx[MEANCLI_MAX_RANK], off;
    int nr = p->nr;
    if (end <= start) return;
    if (nr == 0) { /* nothing reduced: the one row */
            ADD_ROWS_uint64(r, base, 0, 1, s, w);
        return;
    }
    int64_t len = p->rsize[nr - 1], rs = p->rin[nr - 1], f = start;
    unflatten(start, nr, p->rsize, p->rin, idx, &off);
    for (;;) {
        int64_t i0 = idx[nr - 1], take = min64_uint64(len - i0, end - f);
            ADD_ROWS_uint64(r, base + off, rs, take, s, w);
        f += take;
        if (f >= end) break;
        off -= i0 * rs;
        idx[nr - 1] = 0;
        odometer_next(nr - 1, p->rsize, p->rin, idx, &off);
    }
}

/* Rows [f0, f1) of one (outer index, column tile) unit: as inner_span. */
static void rows_span_uint64(const T_uint64 *base, const reduce_plan *p, int64_t f0, int64_t f1,
                             int64_t s, int64_t w, acc_uint64 *total, rowacc_uint64 *open)
{
    acc_uint64 part[TILE];
    int64_t f = f0;
    while (f < f1) {
        int64_t c = f / p->row_chunk, cstart = c * p->row_chunk, cend = min64_uint64(cstart + p->row_chunk, p->nred);
        int64_t e = min64_uint64(cend, f1);
        if (f == cstart) rowacc_init_uint64(open, w);
        rows_piece_uint64(base, p, f, e, s, w, open);
        if (e == cend) {
            rowacc_take_uint64(open, w, cend - cstart, part);
            for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint64(total[j], part[j]);
        }
        f = e;
    }
}

/* Where a slab's rows sit: offsets are relative to the full array, the slab
 * holds D0 rows [a, b), so its data starts a * d0_stride elements in. The
 * shift is integer arithmetic: no pointer is formed outside the slab. */
static const T_uint64 *rebase_uint64(const void *slab, const reduce_plan *p, int64_t a)
{
    return (const T_uint64 *)((uintptr_t)slab - (uintptr_t)(a * p->d0_stride) * sizeof(T_uint64));
}

/* Innermost dim reduced. D0 kept: outputs of rows [a, b) complete here.
 * D0 reduced: every output takes reduced indices [a, b) * R', continuing
 * its running total and open chunk from the previous slab. */

/* Which kind of vector kernel the job runs (1: the Mean unit kernels, 0:
 * the run and row kernels), fed whole (whole != 0) or in slabs: what the
 * report names the instruction set of. */
int meancli_reduce_kind_uint64(const meancli_reduce_job *job, int whole)
{
    (void)job;
    (void)whole;
    return 0;
}

static int inner_step_uint64(meancli_reduce_job *job, const T_uint64 *base, int64_t a, int64_t b,
                             void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int64_t nchunks = (p->nred + CHUNK - 1) / CHUNK;
    int64_t u0 = 0, u1 = p->nout, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else {
        int64_t per_row = p->nout / p->d0_size;
        u0 = a * per_row;
        u1 = b * per_row;
    }
    acc_uint64 *totals = (acc_uint64 *)job->totals;
    lanes_uint64 *open = (lanes_uint64 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        totals = (acc_uint64 *)alloc_array(p->nout, (int64_t)sizeof(acc_uint64));
        open = (lanes_uint64 *)alloc_array(p->nout, (int64_t)sizeof(lanes_uint64));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t u = 0; u < p->nout; u++) totals[u] = (acc_uint64)0;
    }
    int64_t c_first = (f0 + CHUNK - 1) / CHUNK, c_end = f1 == p->nred ? nchunks : f1 / CHUNK;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0; /* chunks wholly inside this slab */
    int64_t nunits = u1 - u0;
    int nt = clamp_threads(nthreads, mul_sat(nunits, f1 - f0));
    if (nfull <= 1 || nunits >= 4 * (int64_t)nt) {
        /* threads take blocks of outputs as they free up (a busy core slows
         * one block, not half the work) */
        int64_t block = grab_of(nunits, nt, 16), nblocks = (nunits + block - 1) / block;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
        for (int64_t bi = 0; bi < nblocks; bi++) {
            int64_t lo = u0 + bi * block, hi = min64_uint64(lo + block, u1);
            int64_t idx[MEANCLI_MAX_RANK], in_off = 0, out_off = 0;
            unflatten(lo, p->nk, p->ksize, p->kin, idx, &in_off);
            unflatten(lo, p->nk, p->ksize, p->kout, idx, &out_off);
            for (int64_t u = lo; u < hi; u++) {
                lanes_uint64 local;
                {
                    acc_uint64 total = (acc_uint64)0;
                    lanes_uint64 *lanes = &local;
                    if (p->d0_reduced && !whole) {
                        total = totals[u];
                        lanes = &open[u];
                    } else {
                        lanes_init_uint64(&local);
                    }
                    inner_span_uint64(base + in_off, p, f0, f1, &total, lanes);
                    if (p->d0_reduced && !whole)
                        totals[u] = total;
                    else
                        emit_uint64(job, out, out_off, total, p->nred);
                }
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
    /* Few outputs, many chunks: threads split the whole chunks; the pieces
     * at the slab's edges run on this thread; all fold in chunk order. */
    int64_t nparts;
    if (!mul_ok(nunits, nfull, &nparts)) return MEANCLI_E_SHAPE;
    acc_uint64 *parts = (acc_uint64 *)alloc_array(nparts, (int64_t)sizeof(acc_uint64));
    if (!parts) return MEANCLI_E_NOMEM;
    /* chunks a thread takes at once, in order (long runs of memory) */
    const int64_t grab = grab_of(nparts, nt, 32);
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t w = 0; w < nparts; w++) {
        int64_t u = u0 + w / nfull, c = c_first + w % nfull, idx[MEANCLI_MAX_RANK], in_off;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        parts[w] = inner_chunk_uint64(base + in_off, p, c);
    }
    for (int64_t u = u0; u < u1; u++) {
        int64_t idx[MEANCLI_MAX_RANK], in_off, out_off;
        acc_uint64 total = (acc_uint64)0;
        lanes_uint64 local;
        lanes_uint64 *lanes = &local;
        unflatten(u, p->nk, p->ksize, p->kin, idx, &in_off);
        if (p->d0_reduced && !whole) {
            total = totals[u];
            lanes = &open[u];
        }
        inner_span_uint64(base + in_off, p, f0, c_first * CHUNK, &total, lanes);
        for (int64_t c = 0; c < nfull; c++) total = acc_add_uint64(total, parts[(u - u0) * nfull + c]);
        if (c_end * CHUNK < f1) {
            lanes_init_uint64(lanes);
            inner_piece_uint64(base + in_off, p, c_end * CHUNK, f1, lanes);
        }
        if (p->d0_reduced && !whole) {
            totals[u] = total;
        } else {
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint64(job, out, out_off, total, p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Innermost dim kept: accumulate whole rows of up to TILE columns. Units are
 * (outer output index, column tile); with few units, threads also split
 * the rows into whole chunks, folded in order. D0 as in inner_step. */
static int rows_step_uint64(meancli_reduce_job *job, const T_uint64 *base, int64_t a, int64_t b,
                            void *out, int nthreads)
{
    const reduce_plan *p = &job->p;
    int nko = p->nk > 0 ? p->nk - 1 : 0; /* kept dims outside the column dim */
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1;
    int64_t sin = p->nk > 0 ? p->kin[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t nouter = p->nout / K, ntiles = (K + TILE - 1) / TILE;
    int64_t o0 = 0, o1 = nouter, t0 = 0, t1 = ntiles, f0 = 0, f1 = p->nred;
    int whole = a == 0 && b == p->d0_size;
    if (p->d0_reduced) {
        int64_t per_row = p->nred / p->d0_size;
        f0 = a * per_row;
        f1 = b * per_row;
    } else if (nko > 0) {
        int64_t per_row = nouter / p->d0_size;
        o0 = a * per_row;
        o1 = b * per_row;
    } else if (p->nk > 0) {
        /* D0 is the column dim itself (a single kept dim and no reduced one):
         * slabs hold whole tiles (meancli_reduce_job_info) */
        if (a % TILE != 0 || (b % TILE != 0 && b != p->d0_size)) return MEANCLI_E_ARG;
        t0 = a / TILE;
        t1 = (b + TILE - 1) / TILE;
    }
    int64_t nunits_all = nouter * ntiles;
    acc_uint64 *totals = (acc_uint64 *)job->totals;
    rowacc_uint64 *open = (rowacc_uint64 *)job->open;
    if (p->d0_reduced && !whole && (!totals || !open)) {
        int64_t slots;
        if (!mul_ok(nunits_all, TILE, &slots)) return MEANCLI_E_SHAPE;
        totals = (acc_uint64 *)alloc_array(slots, (int64_t)sizeof(acc_uint64));
        open = (rowacc_uint64 *)alloc_array(nunits_all, (int64_t)sizeof(rowacc_uint64));
        job->totals = totals;
        job->open = open;
        if (!totals || !open) return MEANCLI_E_NOMEM;
        for (int64_t i = 0; i < slots; i++) totals[i] = (acc_uint64)0;
    }
    int64_t nrc = (p->nred + p->row_chunk - 1) / p->row_chunk;
    int64_t c_first = (f0 + p->row_chunk - 1) / p->row_chunk, c_end = f1 == p->nred ? nrc : f1 / p->row_chunk;
    int64_t nfull = c_end > c_first ? c_end - c_first : 0;
    int64_t ntl = t1 - t0, nunits = (o1 - o0) * ntl;
    int nt = clamp_threads(nthreads, mul_sat(mul_sat(nunits, TILE), f1 - f0));
    /* few units: threads share their whole chunks, each summing into its own
     * totals per unit (exact, so which thread took which chunk cannot show) */
    acc_uint64 *parts = NULL;
    const int64_t pw = min64_uint64(K, TILE); /* the widest unit: the stride of parts */
    if (!(nfull <= 1 || nunits >= 4 * (int64_t)nt)) {
        int64_t nparts, slots;
        if (!mul_ok(nunits, nfull, &nparts) || !mul_ok(nunits * nt, pw, &slots)) return MEANCLI_E_SHAPE;
        parts = (acc_uint64 *)alloc_array(slots, (int64_t)sizeof(acc_uint64));
        if (!parts) return MEANCLI_E_NOMEM;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#ifdef _OPENMP
            acc_uint64 *mine = parts + (int64_t)omp_get_thread_num() * nunits * pw;
#else
            acc_uint64 *mine = parts;
#endif
            acc_uint64 part[TILE];
            rowacc_uint64 r;
#pragma omp for schedule(dynamic, 1)
            for (int64_t wi = 0; wi < nparts; wi++) {
                int64_t unit = wi / nfull, c = c_first + wi % nfull;
                int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off;
                int64_t w = min64_uint64(K - t * TILE, TILE), cstart = c * p->row_chunk;
                int64_t cend = min64_uint64(cstart + p->row_chunk, p->nred);
                unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
                rowacc_init_uint64(&r, w);
                rows_piece_uint64(base + in_off + t * TILE * sin, p, cstart, cend, sin, w, &r);
                rowacc_take_uint64(&r, w, cend - cstart, part);
                for (int64_t j = 0; j < w; j++) mine[unit * pw + j] = acc_add_uint64(mine[unit * pw + j], part[j]);
            }
        }
    }
    /* units a thread takes at once: short ones (a Mean of few rows) by the dozen */
    const int64_t grab = 1;
#pragma omp parallel for num_threads(nt) schedule(dynamic, grab) if (nt > 1)
    for (int64_t unit = 0; unit < nunits; unit++) {
        int64_t o = o0 + unit / ntl, t = t0 + unit % ntl, idx[MEANCLI_MAX_RANK], in_off, out_off;
        int64_t w = min64_uint64(K - t * TILE, TILE), slot = o * ntiles + t;
        acc_uint64 local_total[TILE];
        rowacc_uint64 local_open;
        acc_uint64 *total = local_total;
        rowacc_uint64 *r = &local_open;
        const T_uint64 *src;
        unflatten(o, nko, p->ksize, p->kin, idx, &in_off);
        src = base + in_off + t * TILE * sin;
        if (p->d0_reduced && !whole) {
            total = totals + slot * TILE;
            r = &open[slot];
        } else {
            for (int64_t j = 0; j < w; j++) total[j] = (acc_uint64)0;
        }
        if (parts) {
            rows_span_uint64(src, p, f0, c_first * p->row_chunk, sin, w, total, r);
            for (int k = 0; k < nt; k++) {
                const acc_uint64 *part = parts + (k * nunits + unit) * pw;
                for (int64_t j = 0; j < w; j++) total[j] = acc_add_uint64(total[j], part[j]);
            }
            if (c_end * p->row_chunk < f1) rows_span_uint64(src, p, c_end * p->row_chunk, f1, sin, w, total, r);
        } else {
            rows_span_uint64(src, p, f0, f1, sin, w, total, r);
        }
        if (!(p->d0_reduced && !whole)) {
            unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
            for (int64_t j = 0; j < w; j++) emit_uint64(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    free(parts);
    return MEANCLI_OK;
}

/* Make a job (before its first slab) skip NaN: each output the exact mean
 * of its non-NaN values, NaN where none is left ("skipna" above). Integer
 * types have no NaN: nothing changes. */
int meancli_reduce_skipna_uint64(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    return MEANCLI_OK;
}

/* Start a streamed ReduceMean of an input described by shape and byte
 * strides (the whole input, even though it will arrive in slabs). */
int meancli_reduce_begin_uint64(int rank, const int64_t *shape, const int64_t *strides_bytes,
                                 const uint8_t *reduce_mask, meancli_reduce_job **job_out)
{
    if (!job_out) return MEANCLI_E_ARG;
    *job_out = NULL;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    meancli_reduce_job *job = (meancli_reduce_job *)calloc(1, sizeof *job);
    if (!job) return MEANCLI_E_NOMEM;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint64), &job->p);
    if (rc != MEANCLI_OK) {
        free(job);
        return rc;
    }
    if (job->p.nred == 0 && job->p.nout > 0) {
        free(job);
        return MEANCLI_E_EMPTY_INT;
    }
    job->itemsize = (int64_t)sizeof(T_uint64);
    *job_out = job;
    return MEANCLI_OK;
}

/* Feed D0 rows [a, b) (slab points at row a's first element); slabs must
 * arrive in order. Outputs finished by this slab are written to out (the
 * whole C-contiguous output). */
int meancli_reduce_step_uint64(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out,
                                int nthreads)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (a != job->next_row || b < a || b > p->d0_size) return MEANCLI_E_ARG;
    job->next_row = b;
    if (p->nout == 0 || p->nred == 0 || a == b) return MEANCLI_OK;
    if (!slab || !out) return MEANCLI_E_ARG;
    const T_uint64 *base = rebase_uint64(slab, p, a);
    if (p->inner_reduced) return inner_step_uint64(job, base, a, b, out, nthreads);
    return rows_step_uint64(job, base, a, b, out, nthreads);
}

/* After the last slab: write the outputs that collected from every slab. */
int meancli_reduce_end_uint64(meancli_reduce_job *job, void *out)
{
    if (!job) return MEANCLI_E_ARG;
    const reduce_plan *p = &job->p;
    if (job->next_row != p->d0_size && p->nout > 0) return MEANCLI_E_ARG;
    if (p->nout == 0) return MEANCLI_OK;
    if (!out) return MEANCLI_E_ARG;
    if (p->nred == 0) {
        return MEANCLI_E_EMPTY_INT;
    }
    if (!p->d0_reduced || !job->totals) return MEANCLI_OK; /* finished slab by slab */
    acc_uint64 *totals = (acc_uint64 *)job->totals;
    if (p->inner_reduced) {
        for (int64_t u = 0; u < p->nout; u++) {
            int64_t idx[MEANCLI_MAX_RANK], out_off;
            unflatten(u, p->nk, p->ksize, p->kout, idx, &out_off);
            emit_uint64(job, out, out_off, totals[u], p->nred);
        }
        return MEANCLI_OK;
    }
    int nko = p->nk > 0 ? p->nk - 1 : 0;
    int64_t K = p->nk > 0 ? p->ksize[p->nk - 1] : 1, sout = p->nk > 0 ? p->kout[p->nk - 1] : 1;
    int64_t ntiles = (K + TILE - 1) / TILE, nouter = p->nout / K;
    for (int64_t o = 0; o < nouter; o++) {
        int64_t idx[MEANCLI_MAX_RANK], out_off;
        unflatten(o, nko, p->ksize, p->kout, idx, &out_off);
        for (int64_t t = 0; t < ntiles; t++) {
            int64_t w = min64_uint64(K - t * TILE, TILE);
            const acc_uint64 *total = totals + (o * ntiles + t) * TILE;
            for (int64_t j = 0; j < w; j++) emit_uint64(job, out, out_off + (t * TILE + j) * sout, total[j], p->nred);
        }
    }
    return MEANCLI_OK;
}

/* ReduceMean of `in` (rank dims `shape`, byte strides `strides_bytes`) over
 * the dims with reduce_mask[d] != 0 into C-contiguous `out` (the kept dims,
 * in order): one slab holding every row. Returns MEANCLI_OK or MEANCLI_E_*. */
int meancli_reduce_uint64(const void *in, void *out, int rank, const int64_t *shape,
                           const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    meancli_reduce_job *job;
    int rc = meancli_reduce_begin_uint64(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    rc = meancli_reduce_step_uint64(job, in, 0, job->p.d0_size, out, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint64(job, out);
    meancli_reduce_free(job);
    return rc;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_float16) != 0)) return MEANCLI_E_STRIDE;
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
    int vec = 0;
    int stream = 0;
#ifdef MEANCLI_X86
    /* an output larger than the last-level cache is written with non-temporal
     * stores, where every unit's outputs start 16-byte aligned (dst aligned,
     * rows a multiple of 16 bytes): the vector units then stream every line
     * whole (mean_fused), never a line also written by cached stores */
    stream = nout >= mean_stream_bytes / (int64_t)sizeof(T_float16) && ((uintptr_t)y & 15) == 0 &&
             (L * (int64_t)sizeof(T_float16)) % 16 == 0;
#endif
#ifdef MEAN_UNIT_VEC_float16
    vec = ISA_MEAN_LEVEL_float16 > 0;
    for (int i = 0; vec && i < ninputs; i++) {
        int64_t sinner = nd > 0 ? strides[(int64_t)i * nd + nd - 1] : 0;
        vec = sinner == 0 || sinner == 1;
    }
#endif
    /* bias rows: inputs broadcast along every dim but the inner one, read
     * alike by every output row, summed once here (mean_rowsum) */
    double *rowsum = NULL;
    uint32_t *rowbound = NULL; /* per tile: max |x| bits, min |x| bits - 1 */
    uint8_t *taken = NULL;
    int nrow = 0;
    for (int i = 0; vec && nouter >= 2 && L <= MEAN_ROWSUM_MAX && i < ninputs; i++)
        nrow += bias_row(strides + (int64_t)i * nd, nd);
    if (nrow > 0) {
        rowsum = (double *)malloc((size_t)L * sizeof *rowsum);
        rowbound = (uint32_t *)malloc((size_t)ntiles * 2 * sizeof *rowbound);
        taken = (uint8_t *)calloc((size_t)ninputs, 1);
        if (!rowsum || !rowbound || !taken) {
            free(rowsum);
            free(rowbound);
            free(taken);
            free(strides);
            return MEANCLI_E_NOMEM;
        }
        for (int64_t j = 0; j < L; j++) rowsum[j] = -0.0;
        for (int64_t t = 0; t < ntiles; t++) {
            rowbound[2 * t] = 0;
            rowbound[2 * t + 1] = UINT32_MAX;
        }
        for (int i = 0; i < ninputs; i++) {
            if (!bias_row(strides + (int64_t)i * nd, nd)) continue;
            taken[i] = 1;
            for (int64_t j = 0; j < L; j++) {
                double v = LOAD_float16(x[i][j]);
                uint32_t a = f32_to_bits((float)v) & 0x7fffffffu, *b = rowbound + 2 * (j / TILE);
                b[0] = a > b[0] ? a : b[0];
                b[1] = a - 1u < b[1] ? a - 1u : b[1];
                rowsum[j] += v;
            }
        }
    }
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        /* each thread's pointers to the unit's first element of every input, and their inner strides */
        const T_float16 **src = (const T_float16 **)malloc((size_t)ninputs * sizeof *src);
        int64_t *sin = (int64_t *)malloc((size_t)ninputs * sizeof *sin);
        if (!src || !sin) {
#pragma omp atomic write
            failed = 1;
        }
        /* threads take `per` units at a time (at least 8; a 32nd of a
         * thread's share): a unit's output row o and tile t (and o's index)
         * are divided out once per group, then stepped */
        const int64_t per = grab_of(nunits, nt, 32) > 8 ? grab_of(nunits, nt, 32) : 8;
        const int64_t ngroups = (nunits + per - 1) / per;
#pragma omp for schedule(dynamic, 1)
        for (int64_t g = 0; g < ngroups; g++) {
            if (!src || !sin) continue;
            int64_t unit = g * per, uend = unit + per < nunits ? unit + per : nunits;
            int64_t o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK];
            {
                int64_t rem = o;
                for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
            }
            for (; unit < uend; unit++) {
                int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
                for (int i = 0; i < ninputs; i++) {
                    const int64_t *s = strides + (int64_t)i * nd;
                    int64_t off = 0;
                    sin[i] = nd > 0 ? s[nd - 1] : 0;
                    for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
                    src[i] = x[i] + off + t * TILE * sin[i];
                }
#ifdef MEAN_UNIT_VEC_float16
                if (vec) {
                    mean_rowsum rt = {rowsum ? rowsum + t * TILE : NULL, rowsum ? rowbound[2 * t] : 0,
                                      rowsum ? rowbound[2 * t + 1] : 0, taken};
                    MEAN_UNIT_VEC_float16(ninputs, src, sin, w, y + o * L + t * TILE, stream, rowsum ? &rt : NULL);
                } else
#endif
                    mean_unit_float16(ninputs, src, sin, w, y + o * L + t * TILE);
                if (++t == ntiles) { /* the next output row */
                    t = 0;
                    o++;
                    for (int d = nd - 2; d >= 0; d--) {
                        if (++idx[d] < size[d]) break;
                        idx[d] = 0;
                    }
                }
            }
        }
#ifdef MEAN_UNIT_VEC_float16
        if (vec && stream) _mm_sfence(); /* this thread's non-temporal stores drained before the region ends */
#endif
        free(src);
        free(sin);
    }
    (void)vec;
    (void)stream;
    free(rowsum);
    free(rowbound);
    free(taken);
    free(strides);
    return failed ? MEANCLI_E_NOMEM : MEANCLI_OK;
}

/* Mean skipping NaN (meancli's own extension, --skipna): out[i] := the exact
 * mean of the values of the inputs at i that are not NaN, rounded once; NaN
 * where every one is NaN; infinities are values. Arguments as the Mean's.
 * Per output: the values kept summed in double where narrow_sum_exact proves
 * that exact (float16/bfloat16/float32), divided by their count rounded to
 * odd and rounded once to the format; otherwise (float64, infinities, wide
 * spreads) taken into a superaccumulator of their own. */
int meancli_mean_skipna_float16(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                                void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_float16) != 0)) return MEANCLI_E_STRIDE;
        }
    }
    int64_t bytes;
    if (!mul_ok((int64_t)ninputs, (int64_t)(rank > 0 ? rank : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *st = (int64_t *)malloc((size_t)bytes); /* element strides, per input */
    if (!st) return MEANCLI_E_NOMEM;
    for (int64_t k = 0; k < (int64_t)ninputs * rank; k++) st[k] = strides_bytes[k] / (int64_t)sizeof(T_float16);
    const T_float16 *const *x = (const T_float16 *const *)inputs;
    T_float16 *y = (T_float16 *)out;
    const int64_t per = 4096; /* outputs per piece the threads share */
    int64_t npieces = (nout + per - 1) / per;
    int nt = clamp_threads(nthreads, work);
    int rc = MEANCLI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t *off = (int64_t *)malloc((size_t)ninputs * sizeof(int64_t));
        if (!off) {
#pragma omp atomic write
            rc = MEANCLI_E_NOMEM;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t piece = 0; piece < npieces; piece++) {
            if (!off) continue;
            int64_t f0 = piece * per, f1 = f0 + per < nout ? f0 + per : nout;
            int64_t idx[MEANCLI_MAX_RANK], f = f0;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d] = f % shape[d];
                f /= shape[d];
            }
            for (int i = 0; i < ninputs; i++) {
                off[i] = 0;
                for (int d = 0; d < rank; d++) off[i] += idx[d] * st[(int64_t)i * rank + d];
            }
            for (int64_t o = f0; o < f1; o++) {
                int64_t kept = 0;
                double sum = -0.0; /* the identity of +: a sum of -0.0s stays -0.0 */
                uint32_t mx = 0, mn1 = UINT32_MAX;
                for (int i = 0; i < ninputs; i++) {
                    double v = LOAD_float16(x[i][off[i]]);
                    if (isnan(v)) continue;
                    kept++;
                    sum += v;
                    uint32_t b = f32_to_bits((float)fabs(v));
                    mx = b > mx ? b : mx;
                    if (b && b - 1 < mn1) mn1 = b - 1;
                }
                if (kept && narrow_sum_exact(mx, mn1, kept, 11, SACC_LSB_float16)) {
                    y[o] = store_float16(div_odd(sum, (double)kept));
                } else
                {
                    uint64_t s[SACC_HEADER + SACC_NL_float16] = {0};
                    kept = 0;
                    for (int i = 0; i < ninputs; i++) {
                        double v = LOAD_float16(x[i][off[i]]);
                        if (isnan(v)) continue;
                        kept++;
                        sacc_take(s, SACC_NL_float16, SACC_LSB_float16, v);
                    }
                    s[0] = (uint64_t)kept;
                    y[o] = store_float16(sacc_mean(s, SACC_NL_float16, SACC_LSB_float16, FORMAT_float16));
                }
                /* the next output: the odometer over the output's dims */
                for (int d = rank - 1; d >= 0; d--) {
                    idx[d]++;
                    for (int i = 0; i < ninputs; i++) off[i] += st[(int64_t)i * rank + d];
                    if (idx[d] < shape[d]) break;
                    for (int i = 0; i < ninputs; i++) off[i] -= idx[d] * st[(int64_t)i * rank + d];
                    idx[d] = 0;
                }
            }
        }
        free(off);
    }
    free(st);
    return rc;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_bfloat16) != 0)) return MEANCLI_E_STRIDE;
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
    int vec = 0;
    int stream = 0;
#ifdef MEANCLI_X86
    /* an output larger than the last-level cache is written with non-temporal
     * stores, where every unit's outputs start 16-byte aligned (dst aligned,
     * rows a multiple of 16 bytes): the vector units then stream every line
     * whole (mean_fused), never a line also written by cached stores */
    stream = nout >= mean_stream_bytes / (int64_t)sizeof(T_bfloat16) && ((uintptr_t)y & 15) == 0 &&
             (L * (int64_t)sizeof(T_bfloat16)) % 16 == 0;
#endif
#ifdef MEAN_UNIT_VEC_bfloat16
    vec = ISA_MEAN_LEVEL_bfloat16 > 0;
    for (int i = 0; vec && i < ninputs; i++) {
        int64_t sinner = nd > 0 ? strides[(int64_t)i * nd + nd - 1] : 0;
        vec = sinner == 0 || sinner == 1;
    }
#endif
    /* bias rows: inputs broadcast along every dim but the inner one, read
     * alike by every output row, summed once here (mean_rowsum) */
    double *rowsum = NULL;
    uint32_t *rowbound = NULL; /* per tile: max |x| bits, min |x| bits - 1 */
    uint8_t *taken = NULL;
    int nrow = 0;
    for (int i = 0; vec && nouter >= 2 && L <= MEAN_ROWSUM_MAX && i < ninputs; i++)
        nrow += bias_row(strides + (int64_t)i * nd, nd);
    if (nrow > 0) {
        rowsum = (double *)malloc((size_t)L * sizeof *rowsum);
        rowbound = (uint32_t *)malloc((size_t)ntiles * 2 * sizeof *rowbound);
        taken = (uint8_t *)calloc((size_t)ninputs, 1);
        if (!rowsum || !rowbound || !taken) {
            free(rowsum);
            free(rowbound);
            free(taken);
            free(strides);
            return MEANCLI_E_NOMEM;
        }
        for (int64_t j = 0; j < L; j++) rowsum[j] = -0.0;
        for (int64_t t = 0; t < ntiles; t++) {
            rowbound[2 * t] = 0;
            rowbound[2 * t + 1] = UINT32_MAX;
        }
        for (int i = 0; i < ninputs; i++) {
            if (!bias_row(strides + (int64_t)i * nd, nd)) continue;
            taken[i] = 1;
            for (int64_t j = 0; j < L; j++) {
                double v = LOAD_bfloat16(x[i][j]);
                uint32_t a = f32_to_bits((float)v) & 0x7fffffffu, *b = rowbound + 2 * (j / TILE);
                b[0] = a > b[0] ? a : b[0];
                b[1] = a - 1u < b[1] ? a - 1u : b[1];
                rowsum[j] += v;
            }
        }
    }
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        /* each thread's pointers to the unit's first element of every input, and their inner strides */
        const T_bfloat16 **src = (const T_bfloat16 **)malloc((size_t)ninputs * sizeof *src);
        int64_t *sin = (int64_t *)malloc((size_t)ninputs * sizeof *sin);
        if (!src || !sin) {
#pragma omp atomic write
            failed = 1;
        }
        /* threads take `per` units at a time (at least 8; a 32nd of a
         * thread's share): a unit's output row o and tile t (and o's index)
         * are divided out once per group, then stepped */
        const int64_t per = grab_of(nunits, nt, 32) > 8 ? grab_of(nunits, nt, 32) : 8;
        const int64_t ngroups = (nunits + per - 1) / per;
#pragma omp for schedule(dynamic, 1)
        for (int64_t g = 0; g < ngroups; g++) {
            if (!src || !sin) continue;
            int64_t unit = g * per, uend = unit + per < nunits ? unit + per : nunits;
            int64_t o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK];
            {
                int64_t rem = o;
                for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
            }
            for (; unit < uend; unit++) {
                int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
                for (int i = 0; i < ninputs; i++) {
                    const int64_t *s = strides + (int64_t)i * nd;
                    int64_t off = 0;
                    sin[i] = nd > 0 ? s[nd - 1] : 0;
                    for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
                    src[i] = x[i] + off + t * TILE * sin[i];
                }
#ifdef MEAN_UNIT_VEC_bfloat16
                if (vec) {
                    mean_rowsum rt = {rowsum ? rowsum + t * TILE : NULL, rowsum ? rowbound[2 * t] : 0,
                                      rowsum ? rowbound[2 * t + 1] : 0, taken};
                    MEAN_UNIT_VEC_bfloat16(ninputs, src, sin, w, y + o * L + t * TILE, stream, rowsum ? &rt : NULL);
                } else
#endif
                    mean_unit_bfloat16(ninputs, src, sin, w, y + o * L + t * TILE);
                if (++t == ntiles) { /* the next output row */
                    t = 0;
                    o++;
                    for (int d = nd - 2; d >= 0; d--) {
                        if (++idx[d] < size[d]) break;
                        idx[d] = 0;
                    }
                }
            }
        }
#ifdef MEAN_UNIT_VEC_bfloat16
        if (vec && stream) _mm_sfence(); /* this thread's non-temporal stores drained before the region ends */
#endif
        free(src);
        free(sin);
    }
    (void)vec;
    (void)stream;
    free(rowsum);
    free(rowbound);
    free(taken);
    free(strides);
    return failed ? MEANCLI_E_NOMEM : MEANCLI_OK;
}

/* Mean skipping NaN (meancli's own extension, --skipna): out[i] := the exact
 * mean of the values of the inputs at i that are not NaN, rounded once; NaN
 * where every one is NaN; infinities are values. Arguments as the Mean's.
 * Per output: the values kept summed in double where narrow_sum_exact proves
 * that exact (float16/bfloat16/float32), divided by their count rounded to
 * odd and rounded once to the format; otherwise (float64, infinities, wide
 * spreads) taken into a superaccumulator of their own. */
int meancli_mean_skipna_bfloat16(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                                void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_bfloat16) != 0)) return MEANCLI_E_STRIDE;
        }
    }
    int64_t bytes;
    if (!mul_ok((int64_t)ninputs, (int64_t)(rank > 0 ? rank : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *st = (int64_t *)malloc((size_t)bytes); /* element strides, per input */
    if (!st) return MEANCLI_E_NOMEM;
    for (int64_t k = 0; k < (int64_t)ninputs * rank; k++) st[k] = strides_bytes[k] / (int64_t)sizeof(T_bfloat16);
    const T_bfloat16 *const *x = (const T_bfloat16 *const *)inputs;
    T_bfloat16 *y = (T_bfloat16 *)out;
    const int64_t per = 4096; /* outputs per piece the threads share */
    int64_t npieces = (nout + per - 1) / per;
    int nt = clamp_threads(nthreads, work);
    int rc = MEANCLI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t *off = (int64_t *)malloc((size_t)ninputs * sizeof(int64_t));
        if (!off) {
#pragma omp atomic write
            rc = MEANCLI_E_NOMEM;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t piece = 0; piece < npieces; piece++) {
            if (!off) continue;
            int64_t f0 = piece * per, f1 = f0 + per < nout ? f0 + per : nout;
            int64_t idx[MEANCLI_MAX_RANK], f = f0;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d] = f % shape[d];
                f /= shape[d];
            }
            for (int i = 0; i < ninputs; i++) {
                off[i] = 0;
                for (int d = 0; d < rank; d++) off[i] += idx[d] * st[(int64_t)i * rank + d];
            }
            for (int64_t o = f0; o < f1; o++) {
                int64_t kept = 0;
                double sum = -0.0; /* the identity of +: a sum of -0.0s stays -0.0 */
                uint32_t mx = 0, mn1 = UINT32_MAX;
                for (int i = 0; i < ninputs; i++) {
                    double v = LOAD_bfloat16(x[i][off[i]]);
                    if (isnan(v)) continue;
                    kept++;
                    sum += v;
                    uint32_t b = f32_to_bits((float)fabs(v));
                    mx = b > mx ? b : mx;
                    if (b && b - 1 < mn1) mn1 = b - 1;
                }
                if (kept && narrow_sum_exact(mx, mn1, kept, 8, SACC_LSB_bfloat16)) {
                    y[o] = store_bfloat16(div_odd(sum, (double)kept));
                } else
                {
                    uint64_t s[SACC_HEADER + SACC_NL_bfloat16] = {0};
                    kept = 0;
                    for (int i = 0; i < ninputs; i++) {
                        double v = LOAD_bfloat16(x[i][off[i]]);
                        if (isnan(v)) continue;
                        kept++;
                        sacc_take(s, SACC_NL_bfloat16, SACC_LSB_bfloat16, v);
                    }
                    s[0] = (uint64_t)kept;
                    y[o] = store_bfloat16(sacc_mean(s, SACC_NL_bfloat16, SACC_LSB_bfloat16, FORMAT_bfloat16));
                }
                /* the next output: the odometer over the output's dims */
                for (int d = rank - 1; d >= 0; d--) {
                    idx[d]++;
                    for (int i = 0; i < ninputs; i++) off[i] += st[(int64_t)i * rank + d];
                    if (idx[d] < shape[d]) break;
                    for (int i = 0; i < ninputs; i++) off[i] -= idx[d] * st[(int64_t)i * rank + d];
                    idx[d] = 0;
                }
            }
        }
        free(off);
    }
    free(st);
    return rc;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_float32) != 0)) return MEANCLI_E_STRIDE;
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
    int vec = 0;
    int stream = 0;
#ifdef MEANCLI_X86
    /* an output larger than the last-level cache is written with non-temporal
     * stores, where every unit's outputs start 16-byte aligned (dst aligned,
     * rows a multiple of 16 bytes): the vector units then stream every line
     * whole (mean_fused), never a line also written by cached stores */
    stream = nout >= mean_stream_bytes / (int64_t)sizeof(T_float32) && ((uintptr_t)y & 15) == 0 &&
             (L * (int64_t)sizeof(T_float32)) % 16 == 0;
#endif
#ifdef MEAN_UNIT_VEC_float32
    vec = ISA_MEAN_LEVEL_float32 > 0;
    for (int i = 0; vec && i < ninputs; i++) {
        int64_t sinner = nd > 0 ? strides[(int64_t)i * nd + nd - 1] : 0;
        vec = sinner == 0 || sinner == 1;
    }
#endif
    /* bias rows: inputs broadcast along every dim but the inner one, read
     * alike by every output row, summed once here (mean_rowsum) */
    double *rowsum = NULL;
    uint32_t *rowbound = NULL; /* per tile: max |x| bits, min |x| bits - 1 */
    uint8_t *taken = NULL;
    int nrow = 0;
    for (int i = 0; vec && nouter >= 2 && L <= MEAN_ROWSUM_MAX && i < ninputs; i++)
        nrow += bias_row(strides + (int64_t)i * nd, nd);
    if (nrow > 0) {
        rowsum = (double *)malloc((size_t)L * sizeof *rowsum);
        rowbound = (uint32_t *)malloc((size_t)ntiles * 2 * sizeof *rowbound);
        taken = (uint8_t *)calloc((size_t)ninputs, 1);
        if (!rowsum || !rowbound || !taken) {
            free(rowsum);
            free(rowbound);
            free(taken);
            free(strides);
            return MEANCLI_E_NOMEM;
        }
        for (int64_t j = 0; j < L; j++) rowsum[j] = -0.0;
        for (int64_t t = 0; t < ntiles; t++) {
            rowbound[2 * t] = 0;
            rowbound[2 * t + 1] = UINT32_MAX;
        }
        for (int i = 0; i < ninputs; i++) {
            if (!bias_row(strides + (int64_t)i * nd, nd)) continue;
            taken[i] = 1;
            for (int64_t j = 0; j < L; j++) {
                double v = LOAD_float32(x[i][j]);
                uint32_t a = f32_to_bits((float)v) & 0x7fffffffu, *b = rowbound + 2 * (j / TILE);
                b[0] = a > b[0] ? a : b[0];
                b[1] = a - 1u < b[1] ? a - 1u : b[1];
                rowsum[j] += v;
            }
        }
    }
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        /* each thread's pointers to the unit's first element of every input, and their inner strides */
        const T_float32 **src = (const T_float32 **)malloc((size_t)ninputs * sizeof *src);
        int64_t *sin = (int64_t *)malloc((size_t)ninputs * sizeof *sin);
        if (!src || !sin) {
#pragma omp atomic write
            failed = 1;
        }
        /* threads take `per` units at a time (at least 8; a 32nd of a
         * thread's share): a unit's output row o and tile t (and o's index)
         * are divided out once per group, then stepped */
        const int64_t per = grab_of(nunits, nt, 32) > 8 ? grab_of(nunits, nt, 32) : 8;
        const int64_t ngroups = (nunits + per - 1) / per;
#pragma omp for schedule(dynamic, 1)
        for (int64_t g = 0; g < ngroups; g++) {
            if (!src || !sin) continue;
            int64_t unit = g * per, uend = unit + per < nunits ? unit + per : nunits;
            int64_t o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK];
            {
                int64_t rem = o;
                for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
            }
            for (; unit < uend; unit++) {
                int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
                for (int i = 0; i < ninputs; i++) {
                    const int64_t *s = strides + (int64_t)i * nd;
                    int64_t off = 0;
                    sin[i] = nd > 0 ? s[nd - 1] : 0;
                    for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
                    src[i] = x[i] + off + t * TILE * sin[i];
                }
#ifdef MEAN_UNIT_VEC_float32
                if (vec) {
                    mean_rowsum rt = {rowsum ? rowsum + t * TILE : NULL, rowsum ? rowbound[2 * t] : 0,
                                      rowsum ? rowbound[2 * t + 1] : 0, taken};
                    MEAN_UNIT_VEC_float32(ninputs, src, sin, w, y + o * L + t * TILE, stream, rowsum ? &rt : NULL);
                } else
#endif
                    mean_unit_float32(ninputs, src, sin, w, y + o * L + t * TILE);
                if (++t == ntiles) { /* the next output row */
                    t = 0;
                    o++;
                    for (int d = nd - 2; d >= 0; d--) {
                        if (++idx[d] < size[d]) break;
                        idx[d] = 0;
                    }
                }
            }
        }
#ifdef MEAN_UNIT_VEC_float32
        if (vec && stream) _mm_sfence(); /* this thread's non-temporal stores drained before the region ends */
#endif
        free(src);
        free(sin);
    }
    (void)vec;
    (void)stream;
    free(rowsum);
    free(rowbound);
    free(taken);
    free(strides);
    return failed ? MEANCLI_E_NOMEM : MEANCLI_OK;
}

/* Mean skipping NaN (meancli's own extension, --skipna): out[i] := the exact
 * mean of the values of the inputs at i that are not NaN, rounded once; NaN
 * where every one is NaN; infinities are values. Arguments as the Mean's.
 * Per output: the values kept summed in double where narrow_sum_exact proves
 * that exact (float16/bfloat16/float32), divided by their count rounded to
 * odd and rounded once to the format; otherwise (float64, infinities, wide
 * spreads) taken into a superaccumulator of their own. */
int meancli_mean_skipna_float32(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                                void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_float32) != 0)) return MEANCLI_E_STRIDE;
        }
    }
    int64_t bytes;
    if (!mul_ok((int64_t)ninputs, (int64_t)(rank > 0 ? rank : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *st = (int64_t *)malloc((size_t)bytes); /* element strides, per input */
    if (!st) return MEANCLI_E_NOMEM;
    for (int64_t k = 0; k < (int64_t)ninputs * rank; k++) st[k] = strides_bytes[k] / (int64_t)sizeof(T_float32);
    const T_float32 *const *x = (const T_float32 *const *)inputs;
    T_float32 *y = (T_float32 *)out;
    const int64_t per = 4096; /* outputs per piece the threads share */
    int64_t npieces = (nout + per - 1) / per;
    int nt = clamp_threads(nthreads, work);
    int rc = MEANCLI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t *off = (int64_t *)malloc((size_t)ninputs * sizeof(int64_t));
        if (!off) {
#pragma omp atomic write
            rc = MEANCLI_E_NOMEM;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t piece = 0; piece < npieces; piece++) {
            if (!off) continue;
            int64_t f0 = piece * per, f1 = f0 + per < nout ? f0 + per : nout;
            int64_t idx[MEANCLI_MAX_RANK], f = f0;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d] = f % shape[d];
                f /= shape[d];
            }
            for (int i = 0; i < ninputs; i++) {
                off[i] = 0;
                for (int d = 0; d < rank; d++) off[i] += idx[d] * st[(int64_t)i * rank + d];
            }
            for (int64_t o = f0; o < f1; o++) {
                int64_t kept = 0;
                double sum = -0.0; /* the identity of +: a sum of -0.0s stays -0.0 */
                uint32_t mx = 0, mn1 = UINT32_MAX;
                for (int i = 0; i < ninputs; i++) {
                    double v = LOAD_float32(x[i][off[i]]);
                    if (isnan(v)) continue;
                    kept++;
                    sum += v;
                    uint32_t b = f32_to_bits((float)fabs(v));
                    mx = b > mx ? b : mx;
                    if (b && b - 1 < mn1) mn1 = b - 1;
                }
                if (kept && narrow_sum_exact(mx, mn1, kept, 24, SACC_LSB_float32)) {
                    y[o] = store_float32(div_odd(sum, (double)kept));
                } else
                {
                    uint64_t s[SACC_HEADER + SACC_NL_float32] = {0};
                    kept = 0;
                    for (int i = 0; i < ninputs; i++) {
                        double v = LOAD_float32(x[i][off[i]]);
                        if (isnan(v)) continue;
                        kept++;
                        sacc_take(s, SACC_NL_float32, SACC_LSB_float32, v);
                    }
                    s[0] = (uint64_t)kept;
                    y[o] = store_float32(sacc_mean(s, SACC_NL_float32, SACC_LSB_float32, FORMAT_float32));
                }
                /* the next output: the odometer over the output's dims */
                for (int d = rank - 1; d >= 0; d--) {
                    idx[d]++;
                    for (int i = 0; i < ninputs; i++) off[i] += st[(int64_t)i * rank + d];
                    if (idx[d] < shape[d]) break;
                    for (int i = 0; i < ninputs; i++) off[i] -= idx[d] * st[(int64_t)i * rank + d];
                    idx[d] = 0;
                }
            }
        }
        free(off);
    }
    free(st);
    return rc;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_float64) != 0)) return MEANCLI_E_STRIDE;
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
    int vec = 0;
    int stream = 0;
#ifdef MEANCLI_X86
    /* an output larger than the last-level cache is written with non-temporal
     * stores, where every unit's outputs start 16-byte aligned (dst aligned,
     * rows a multiple of 16 bytes): the vector units then stream every line
     * whole (mean_fused), never a line also written by cached stores */
    stream = nout >= mean_stream_bytes / (int64_t)sizeof(T_float64) && ((uintptr_t)y & 15) == 0 &&
             (L * (int64_t)sizeof(T_float64)) % 16 == 0;
#endif
#ifdef MEAN_UNIT_VEC_float64
    vec = ISA_MEAN_LEVEL_float64 > 0;
    for (int i = 0; vec && i < ninputs; i++) {
        int64_t sinner = nd > 0 ? strides[(int64_t)i * nd + nd - 1] : 0;
        vec = sinner == 0 || sinner == 1;
    }
#endif
    /* bias rows: inputs broadcast along every dim but the inner one, read
     * alike by every output row, summed once here (mean_rowsum) */
    double *rowsum = NULL;
    uint32_t *rowbound = NULL; /* per tile: max |x| bits, min |x| bits - 1 */
    uint8_t *taken = NULL;
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        /* each thread's pointers to the unit's first element of every input, and their inner strides */
        const T_float64 **src = (const T_float64 **)malloc((size_t)ninputs * sizeof *src);
        int64_t *sin = (int64_t *)malloc((size_t)ninputs * sizeof *sin);
        if (!src || !sin) {
#pragma omp atomic write
            failed = 1;
        }
        /* threads take `per` units at a time (at least 8; a 32nd of a
         * thread's share): a unit's output row o and tile t (and o's index)
         * are divided out once per group, then stepped */
        const int64_t per = grab_of(nunits, nt, 32) > 8 ? grab_of(nunits, nt, 32) : 8;
        const int64_t ngroups = (nunits + per - 1) / per;
#pragma omp for schedule(dynamic, 1)
        for (int64_t g = 0; g < ngroups; g++) {
            if (!src || !sin) continue;
            int64_t unit = g * per, uend = unit + per < nunits ? unit + per : nunits;
            int64_t o = unit / ntiles, t = unit % ntiles;
            int64_t idx[MEANCLI_MAX_RANK];
            {
                int64_t rem = o;
                for (int d = nd - 2; d >= 0; d--) { idx[d] = rem % size[d]; rem /= size[d]; }
            }
            for (; unit < uend; unit++) {
                int64_t w = L - t * TILE < TILE ? L - t * TILE : TILE;
                for (int i = 0; i < ninputs; i++) {
                    const int64_t *s = strides + (int64_t)i * nd;
                    int64_t off = 0;
                    sin[i] = nd > 0 ? s[nd - 1] : 0;
                    for (int d = 0; d < nd - 1; d++) off += idx[d] * s[d];
                    src[i] = x[i] + off + t * TILE * sin[i];
                }
#ifdef MEAN_UNIT_VEC_float64
                if (vec) {
                    mean_rowsum rt = {rowsum ? rowsum + t * TILE : NULL, rowsum ? rowbound[2 * t] : 0,
                                      rowsum ? rowbound[2 * t + 1] : 0, taken};
                    MEAN_UNIT_VEC_float64(ninputs, src, sin, w, y + o * L + t * TILE, stream, rowsum ? &rt : NULL);
                } else
#endif
                    mean_unit_float64(ninputs, src, sin, w, y + o * L + t * TILE);
                if (++t == ntiles) { /* the next output row */
                    t = 0;
                    o++;
                    for (int d = nd - 2; d >= 0; d--) {
                        if (++idx[d] < size[d]) break;
                        idx[d] = 0;
                    }
                }
            }
        }
#ifdef MEAN_UNIT_VEC_float64
        if (vec && stream) _mm_sfence(); /* this thread's non-temporal stores drained before the region ends */
#endif
        free(src);
        free(sin);
    }
    (void)vec;
    (void)stream;
    free(rowsum);
    free(rowbound);
    free(taken);
    free(strides);
    return failed ? MEANCLI_E_NOMEM : MEANCLI_OK;
}

/* Mean skipping NaN (meancli's own extension, --skipna): out[i] := the exact
 * mean of the values of the inputs at i that are not NaN, rounded once; NaN
 * where every one is NaN; infinities are values. Arguments as the Mean's.
 * Per output: the values kept summed in double where narrow_sum_exact proves
 * that exact (float16/bfloat16/float32), divided by their count rounded to
 * odd and rounded once to the format; otherwise (float64, infinities, wide
 * spreads) taken into a superaccumulator of their own. */
int meancli_mean_skipna_float64(int ninputs, const void *const *inputs, const int64_t *strides_bytes,
                                void *out, int rank, const int64_t *shape, int nthreads)
{
    int64_t nout = 1, work;
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
            if (shape[d] > 1 && (s < 0 || s % (int64_t)sizeof(T_float64) != 0)) return MEANCLI_E_STRIDE;
        }
    }
    int64_t bytes;
    if (!mul_ok((int64_t)ninputs, (int64_t)(rank > 0 ? rank : 1) * (int64_t)sizeof(int64_t), &bytes)) return MEANCLI_E_SHAPE;
    int64_t *st = (int64_t *)malloc((size_t)bytes); /* element strides, per input */
    if (!st) return MEANCLI_E_NOMEM;
    for (int64_t k = 0; k < (int64_t)ninputs * rank; k++) st[k] = strides_bytes[k] / (int64_t)sizeof(T_float64);
    const T_float64 *const *x = (const T_float64 *const *)inputs;
    T_float64 *y = (T_float64 *)out;
    const int64_t per = 4096; /* outputs per piece the threads share */
    int64_t npieces = (nout + per - 1) / per;
    int nt = clamp_threads(nthreads, work);
    int rc = MEANCLI_OK;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int64_t *off = (int64_t *)malloc((size_t)ninputs * sizeof(int64_t));
        if (!off) {
#pragma omp atomic write
            rc = MEANCLI_E_NOMEM;
        }
#pragma omp for schedule(dynamic, 1)
        for (int64_t piece = 0; piece < npieces; piece++) {
            if (!off) continue;
            int64_t f0 = piece * per, f1 = f0 + per < nout ? f0 + per : nout;
            int64_t idx[MEANCLI_MAX_RANK], f = f0;
            for (int d = rank - 1; d >= 0; d--) {
                idx[d] = f % shape[d];
                f /= shape[d];
            }
            for (int i = 0; i < ninputs; i++) {
                off[i] = 0;
                for (int d = 0; d < rank; d++) off[i] += idx[d] * st[(int64_t)i * rank + d];
            }
            for (int64_t o = f0; o < f1; o++) {
                int64_t kept = 0;
                {
                    uint64_t s[SACC_HEADER + SACC_NL_float64] = {0};
                    kept = 0;
                    for (int i = 0; i < ninputs; i++) {
                        double v = LOAD_float64(x[i][off[i]]);
                        if (isnan(v)) continue;
                        kept++;
                        sacc_take(s, SACC_NL_float64, SACC_LSB_float64, v);
                    }
                    s[0] = (uint64_t)kept;
                    y[o] = store_float64(sacc_mean(s, SACC_NL_float64, SACC_LSB_float64, FORMAT_float64));
                }
                /* the next output: the odometer over the output's dims */
                for (int d = rank - 1; d >= 0; d--) {
                    idx[d]++;
                    for (int i = 0; i < ninputs; i++) off[i] += st[(int64_t)i * rank + d];
                    if (idx[d] < shape[d]) break;
                    for (int i = 0; i < ninputs; i++) off[i] -= idx[d] * st[(int64_t)i * rank + d];
                    idx[d] = 0;
                }
            }
        }
        free(off);
    }
    free(st);
    return rc;
}
/* ---- Partial states, float16 ------------------------------------------ */
#define PSTATE_WORDS_float16 (SACC_HEADER + SACC_NL_float16)

static inline void pstate_combine_float16(uint64_t *dst, const uint64_t *src)
{
    sacc_combine(dst, src, SACC_NL_float16);
}

static inline T_float16 pstate_mean_float16(const uint64_t *s)
{
    return store_float16(sacc_mean(s, SACC_NL_float16, SACC_LSB_float16, FORMAT_float16));
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_float16(void) { return 8 * PSTATE_WORDS_float16; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_float16(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_float16);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_float16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_float16(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_float16(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_float16(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_float16((uint64_t *)dst + i * PSTATE_WORDS_float16, (const uint64_t *)src + i * PSTATE_WORDS_float16);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_float16(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_float16 *y = (T_float16 *)out;
    for (int64_t i = 0; i < nout; i++) y[i] = pstate_mean_float16(st + i * PSTATE_WORDS_float16);
    return MEANCLI_OK;
}
/* ---- Partial states, bfloat16 ------------------------------------------ */
#define PSTATE_WORDS_bfloat16 (SACC_HEADER + SACC_NL_bfloat16)

static inline void pstate_combine_bfloat16(uint64_t *dst, const uint64_t *src)
{
    sacc_combine(dst, src, SACC_NL_bfloat16);
}

static inline T_bfloat16 pstate_mean_bfloat16(const uint64_t *s)
{
    return store_bfloat16(sacc_mean(s, SACC_NL_bfloat16, SACC_LSB_bfloat16, FORMAT_bfloat16));
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_bfloat16(void) { return 8 * PSTATE_WORDS_bfloat16; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_bfloat16(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_bfloat16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_bfloat16);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_bfloat16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_bfloat16(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_bfloat16(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_bfloat16(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_bfloat16((uint64_t *)dst + i * PSTATE_WORDS_bfloat16, (const uint64_t *)src + i * PSTATE_WORDS_bfloat16);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_bfloat16(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_bfloat16 *y = (T_bfloat16 *)out;
    for (int64_t i = 0; i < nout; i++) y[i] = pstate_mean_bfloat16(st + i * PSTATE_WORDS_bfloat16);
    return MEANCLI_OK;
}
/* ---- Partial states, float32 ------------------------------------------ */
#define PSTATE_WORDS_float32 (SACC_HEADER + SACC_NL_float32)

static inline void pstate_combine_float32(uint64_t *dst, const uint64_t *src)
{
    sacc_combine(dst, src, SACC_NL_float32);
}

static inline T_float32 pstate_mean_float32(const uint64_t *s)
{
    return store_float32(sacc_mean(s, SACC_NL_float32, SACC_LSB_float32, FORMAT_float32));
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_float32(void) { return 8 * PSTATE_WORDS_float32; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_float32(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float32), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_float32);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_float32(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_float32(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_float32(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_float32(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_float32((uint64_t *)dst + i * PSTATE_WORDS_float32, (const uint64_t *)src + i * PSTATE_WORDS_float32);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_float32(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_float32 *y = (T_float32 *)out;
    for (int64_t i = 0; i < nout; i++) y[i] = pstate_mean_float32(st + i * PSTATE_WORDS_float32);
    return MEANCLI_OK;
}
/* ---- Partial states, float64 ------------------------------------------ */
#define PSTATE_WORDS_float64 (SACC_HEADER + SACC_NL_float64)

static inline void pstate_combine_float64(uint64_t *dst, const uint64_t *src)
{
    sacc_combine(dst, src, SACC_NL_float64);
}

static inline T_float64 pstate_mean_float64(const uint64_t *s)
{
    return store_float64(sacc_mean(s, SACC_NL_float64, SACC_LSB_float64, FORMAT_float64));
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_float64(void) { return 8 * PSTATE_WORDS_float64; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_float64(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_float64), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_float64);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_float64(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_float64(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_float64(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_float64(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_float64((uint64_t *)dst + i * PSTATE_WORDS_float64, (const uint64_t *)src + i * PSTATE_WORDS_float64);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_float64(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_float64 *y = (T_float64 *)out;
    for (int64_t i = 0; i < nout; i++) y[i] = pstate_mean_float64(st + i * PSTATE_WORDS_float64);
    return MEANCLI_OK;
}
/* ---- Partial states, int8 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_int8 4

static inline void pstate_combine_int8(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_int8(void) { return 8 * PSTATE_WORDS_int8; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_int8(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int8), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_int8);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_int8(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_int8(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int8(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_int8(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_int8((uint64_t *)dst + i * PSTATE_WORDS_int8, (const uint64_t *)src + i * PSTATE_WORDS_int8);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_int8(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_int8 *y = (T_int8 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_int8;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_int8)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, int16 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_int16 4

static inline void pstate_combine_int16(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_int16(void) { return 8 * PSTATE_WORDS_int16; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_int16(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_int16);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_int16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_int16(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int16(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_int16(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_int16((uint64_t *)dst + i * PSTATE_WORDS_int16, (const uint64_t *)src + i * PSTATE_WORDS_int16);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_int16(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_int16 *y = (T_int16 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_int16;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_int16)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, int32 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_int32 4

static inline void pstate_combine_int32(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_int32(void) { return 8 * PSTATE_WORDS_int32; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_int32(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int32), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_int32);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_int32(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_int32(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int32(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_int32(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_int32((uint64_t *)dst + i * PSTATE_WORDS_int32, (const uint64_t *)src + i * PSTATE_WORDS_int32);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_int32(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_int32 *y = (T_int32 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_int32;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_int32)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, int64 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_int64 4

static inline void pstate_combine_int64(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_int64(void) { return 8 * PSTATE_WORDS_int64; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_int64(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_int64), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_int64);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_int64(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_int64(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_int64(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_int64(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_int64((uint64_t *)dst + i * PSTATE_WORDS_int64, (const uint64_t *)src + i * PSTATE_WORDS_int64);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_int64(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_int64 *y = (T_int64 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_int64;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_int64)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, uint8 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_uint8 4

static inline void pstate_combine_uint8(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_uint8(void) { return 8 * PSTATE_WORDS_uint8; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_uint8(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint8), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_uint8);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_uint8(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_uint8(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint8(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_uint8(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_uint8((uint64_t *)dst + i * PSTATE_WORDS_uint8, (const uint64_t *)src + i * PSTATE_WORDS_uint8);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_uint8(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_uint8 *y = (T_uint8 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_uint8;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_uint8)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, uint16 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_uint16 4

static inline void pstate_combine_uint16(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_uint16(void) { return 8 * PSTATE_WORDS_uint16; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_uint16(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint16), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_uint16);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_uint16(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_uint16(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint16(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_uint16(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_uint16((uint64_t *)dst + i * PSTATE_WORDS_uint16, (const uint64_t *)src + i * PSTATE_WORDS_uint16);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_uint16(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_uint16 *y = (T_uint16 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_uint16;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_uint16)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, uint32 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_uint32 4

static inline void pstate_combine_uint32(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_uint32(void) { return 8 * PSTATE_WORDS_uint32; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_uint32(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint32), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_uint32);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_uint32(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_uint32(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint32(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_uint32(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_uint32((uint64_t *)dst + i * PSTATE_WORDS_uint32, (const uint64_t *)src + i * PSTATE_WORDS_uint32);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_uint32(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_uint32 *y = (T_uint32 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_uint32;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_uint32)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
/* ---- Partial states, uint64 ------------------------------------------ */
/* count, 0, then the exact sum as a little-endian two's-complement 128-bit integer */
#define PSTATE_WORDS_uint64 4

static inline void pstate_combine_uint64(uint64_t *dst, const uint64_t *src)
{
    unsigned __int128 t = ((unsigned __int128)dst[3] << 64 | dst[2]) + ((unsigned __int128)src[3] << 64 | src[2]);
    dst[0] += src[0];
    dst[2] = (uint64_t)t;
    dst[3] = (uint64_t)(t >> 64);
}

/* Bytes of one output's partial state. */
int64_t meancli_partial_size_uint64(void) { return 8 * PSTATE_WORDS_uint64; }

/* states[nout] := the exact partial of reducing `in` over the dims with
 * reduce_mask[d] != 0 (C order of the kept dims). A size-0 reduction gives
 * the empty state (count 0). */
int meancli_reduce_partial_uint64(const void *in, void *states, int rank, const int64_t *shape,
                                   const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads)
{
    reduce_plan p;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    if (rank > 0 && (!shape || !strides_bytes || !reduce_mask)) return MEANCLI_E_ARG;
    int rc = plan_reduce(rank, shape, strides_bytes, reduce_mask, (int64_t)sizeof(T_uint64), &p);
    if (rc != MEANCLI_OK) return rc;
    if (p.nout == 0) return MEANCLI_OK;
    if (!states) return MEANCLI_E_ARG;
    if (p.nred == 0) { /* the empty state: all zero bytes (nout * state size fits: the caller allocated it) */
        memset(states, 0, (size_t)p.nout * 8 * PSTATE_WORDS_uint64);
        return MEANCLI_OK;
    }
    /* the ReduceMean kernel itself, writing states instead of means */
    meancli_reduce_job *job;
    rc = meancli_reduce_begin_uint64(rank, shape, strides_bytes, reduce_mask, &job);
    if (rc != MEANCLI_OK) return rc;
    job->states = 1;
    rc = meancli_reduce_step_uint64(job, in, 0, job->p.d0_size, states, nthreads);
    if (rc == MEANCLI_OK) rc = meancli_reduce_end_uint64(job, states);
    meancli_reduce_free(job);
    return rc;
}

/* dst[i] := dst[i] (+) src[i] for i < nout: exact, associative and commutative. */
int meancli_partial_combine_uint64(void *dst, const void *src, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!dst || !src)) return MEANCLI_E_ARG;
    for (int64_t i = 0; i < nout; i++)
        pstate_combine_uint64((uint64_t *)dst + i * PSTATE_WORDS_uint64, (const uint64_t *)src + i * PSTATE_WORDS_uint64);
    return MEANCLI_OK;
}

/* out[i] := the mean of state i for i < nout. */
int meancli_partial_finalize_uint64(const void *states, void *out, int64_t nout)
{
    if (nout < 0) return MEANCLI_E_SHAPE;
    if (nout > 0 && (!states || !out)) return MEANCLI_E_ARG;
    const uint64_t *st = (const uint64_t *)states;
    T_uint64 *y = (T_uint64 *)out;
    for (int64_t i = 0; i < nout; i++) {
        const uint64_t *s = st + i * PSTATE_WORDS_uint64;
        if ((int64_t)s[0] <= 0) return MEANCLI_E_EMPTY_INT;
        __int128 sum = (__int128)(((unsigned __int128)s[3] << 64) | s[2]);
        y[i] = (T_uint64)(sum / (__int128)(int64_t)s[0]); /* C division truncates toward zero */
    }
    return MEANCLI_OK;
}
