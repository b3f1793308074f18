/* meancli_exact.h: Exact sums: double-double, the superaccumulator, rounding a quotient once.
 *
 * Static C of the kernels, included by generated/kernels.c (templates/kernels.c.j2)
 * in this order: meancli_config.h, the status codes, meancli_work.h,
 * meancli_convert.h, meancli_exact.h, meancli_plan.h, the instruction-set
 * choice, meancli_bus_error.h. Not a standalone header: one translation unit.
 * Covered by the compiled module's source hash (meancli/codegen/kernel_sources.py).
 */
#pragma once
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
    if (r.hi == 0.0 && r.lo == 0.0) r.hi = a.hi + b.hi; /* a zero sum takes IEEE's sign: -0 + -0 is -0 */
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
    if (!isfinite(a.hi) || (a.hi == 0.0 && a.lo == 0.0)) return a.hi / n; /* keeps -0's sign */
    /* Dekker's split multiplies q by 2^27 + 1: scale huge sums down by an
     * exact power of two first, so it cannot overflow to inf (and inf - inf
     * to NaN), and scale the quotient back. */
    double scale = 1.0;
    if (fabs(a.hi) > 0x1p995) {
        a.hi *= 0x1p-64;
        a.lo *= 0x1p-64;
        scale = 0x1p64;
    }
    double q = a.hi / n, p, e;
    two_prod(q, n, &p, &e);
    double r = ((a.hi - p) - e) + a.lo;
    return (q + r / n) * scale;
}

/* ------------------------------------------------------------------------
 * Exact sums (every float type). A superaccumulator is a two's-complement
 * fixed-point integer of `nl` 64-bit limbs (limb 0 least significant) whose
 * least significant bit weighs 2^lsb: every finite value of the format is an
 * integer multiple of 2^lsb, so any sum of them is held exactly as long as it
 * fits. float16/bfloat16/float32 values are multiples of 2^-149 below 2^128:
 * 6 limbs hold the sum of fewer than 2^63 of them (below 2^191); float64
 * values are multiples of 2^-1074 below 2^1024: 34 limbs hold sums below
 * 2^1101.
 *
 * A partial state (what meancli_reduce_partial_* produces and a distributed
 * reduction ships between machines) is, little-endian on every machine:
 *   int64  count      values taken
 *   uint64 flags      SACC_NAN | SACC_PINF | SACC_NINF | SACC_NONNEGZERO
 *   uint64 limb[nl]   the exact sum of the finite values
 * SACC_NONNEGZERO: a value other than -0.0 was taken (the mean of -0.0s
 * alone is -0.0; an exact zero from cancellation is +0.0).
 * --------------------------------------------------------------------- */

#define SACC_NAN 1u
#define SACC_PINF 2u
#define SACC_NINF 4u
#define SACC_NONNEGZERO 8u
#define SACC_HEADER 2 /* count and flags, in 64-bit words */

static inline uint64_t f64_to_bits(double v) { uint64_t b; memcpy(&b, &v, 8); return b; }
static inline double bits_to_f64(uint64_t b) { double v; memcpy(&v, &b, 8); return v; }

/* limb[i..] += v (unsigned, may carry on up to the top limb) */
static inline void sacc_add_at(uint64_t *limb, int nl, int i, unsigned __int128 v)
{
    unsigned __int128 t = (unsigned __int128)limb[i] + (uint64_t)v;
    limb[i] = (uint64_t)t;
    uint64_t carry = (uint64_t)(t >> 64) + (uint64_t)(v >> 64); /* cannot wrap: v >> 64 < 2^63 */
    for (int k = i + 1; carry && k < nl; k++) {
        t = (unsigned __int128)limb[k] + carry;
        limb[k] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
}

/* limb[i..] -= v, borrowing up to the top limb */
static inline void sacc_sub_at(uint64_t *limb, int nl, int i, unsigned __int128 v)
{
    uint64_t lo = (uint64_t)v, hi = (uint64_t)(v >> 64);
    uint64_t old = limb[i];
    limb[i] = old - lo;
    uint64_t borrow = hi + (old < lo);
    for (int k = i + 1; borrow && k < nl; k++) {
        old = limb[k];
        limb[k] = old - borrow;
        borrow = old < borrow;
    }
}

/* Add a finite double that is a multiple of 2^lsb (every value of the state's
 * format is, and so is every block sum of them). */
static inline void sacc_add_f64(uint64_t *limb, int nl, int lsb, double x)
{
    uint64_t b = f64_to_bits(x);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffull;
    if (e) m |= 1ull << 52; else e = 1;
    if (!m) return;
    int pos = e - 1075 - lsb; /* bit position of m's lowest bit in the accumulator */
    if (pos < 0) { m >>= -pos; pos = 0; } /* only zero bits go: x is a multiple of 2^lsb */
    unsigned __int128 v = (unsigned __int128)m << (pos & 63);
    if (b >> 63) sacc_sub_at(limb, nl, pos >> 6, v);
    else sacc_add_at(limb, nl, pos >> 6, v);
}

/* The flags a single value sets. */
static inline uint64_t sacc_flags_of(double x)
{
    uint64_t b = f64_to_bits(x);
    if (b == 0x8000000000000000ull) return 0;
    if ((b & 0x7ff0000000000000ull) != 0x7ff0000000000000ull) return SACC_NONNEGZERO;
    if (b & 0xfffffffffffffull) return SACC_NAN | SACC_NONNEGZERO;
    return ((b >> 63) ? SACC_NINF : SACC_PINF) | SACC_NONNEGZERO;
}

/* Take one value into a state (s: header then limbs). */
static inline void sacc_take(uint64_t *s, int nl, int lsb, double x)
{
    uint64_t f = sacc_flags_of(x);
    s[1] |= f;
    if (!(f & (SACC_NAN | SACC_PINF | SACC_NINF))) sacc_add_f64(s + SACC_HEADER, nl, lsb, x);
}

/* dst := dst (+) src, exact */
static inline void sacc_combine(uint64_t *dst, const uint64_t *src, int nl)
{
    dst[0] += src[0];
    dst[1] |= src[1];
    uint64_t carry = 0;
    for (int k = 0; k < nl; k++) {
        unsigned __int128 t = (unsigned __int128)dst[SACC_HEADER + k] + src[SACC_HEADER + k] + carry;
        dst[SACC_HEADER + k] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
}

/* A chunk accumulator (Neal's "small superaccumulator") gathers many
 * additions for one pass over a superaccumulator: signed 64-bit chunks of
 * 32-bit digits, chunk i weighing 2^(32 i) * 2^lsb. A double adds its (at
 * most 84-bit) shifted significand to three chunks without carries,
 * branch-free, so a chunk takes 2^31 additions before it could overflow.
 * (Adding straight to the superaccumulator can carry or borrow through
 * every limb each time a sum that hovers near zero changes sign.) */
static inline void chunk_add(int64_t *ch, int lsb, double x)
{
    uint64_t b = f64_to_bits(x);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & 0xfffffffffffffull;
    if (e) m |= 1ull << 52; else e = 1;
    int pos = e - 1075 - lsb;
    if (pos < 0) { m >>= -pos; pos = 0; } /* only zero bits go: x is a multiple of 2^lsb */
    unsigned __int128 v = (unsigned __int128)m << (pos & 31);
    int64_t neg = -(int64_t)(b >> 63); /* 0 or -1: (d ^ neg) - neg negates when negative */
    int64_t *c = ch + (pos >> 5);
    c[0] += ((int64_t)((uint64_t)v & 0xffffffffu) ^ neg) - neg;
    c[1] += ((int64_t)((uint64_t)(v >> 32) & 0xffffffffu) ^ neg) - neg;
    c[2] += ((int64_t)(uint64_t)(v >> 64) ^ neg) - neg;
}

/* limbs += the chunks' value, in one pass from the lowest limb (limb k
 * takes chunks 2k and 2k + 1) with a signed carry; nch <= 2 * nl */
static void chunk_fold(uint64_t *limb, int nl, const int64_t *ch, int nch)
{
    __int128 carry = 0;
    for (int k = 0; k < nl && (2 * k < nch || carry != 0); k++) {
        __int128 v = carry + (__int128)limb[k];
        if (2 * k < nch) v += (__int128)ch[2 * k];
        if (2 * k + 1 < nch) v += (__int128)ch[2 * k + 1] * ((__int128)1 << 32);
        limb[k] = (uint64_t)v;
        carry = v >> 64; /* arithmetic: a negative carry borrows from the limbs above */
    }
}

/* float16/bfloat16/float32 blocks are summed in plain doubles and kept when
 * that was exact: mx = the largest |x| and mn1 = the smallest nonzero |x|,
 * minus one (both as float32 bit patterns; mn1 = UINT32_MAX: no nonzero
 * value). With p the format's precision and 2^lsb its smallest subnormal,
 * every value is a multiple of 2^g (g = max(t - p + 1, lsb), t the smallest
 * nonzero value's exponent) below 2^(m + 1), so every partial sum of `count`
 * of them is a multiple of 2^g below count * 2^(m + 1): exact in a double
 * when that is at most 2^(53 + g). inf or NaN fails. */
static inline int narrow_sum_exact(uint32_t mx, uint32_t mn1, int64_t count, int p, int lsb)
{
    if (mx >= 0x7f800000u) return 0;
    if (mn1 == UINT32_MAX || count < 2) return 1;
    int m = (int)(mx >> 23) - 127, t = (int)((mn1 + 1) >> 23) - 127;
    if (m < -126) m = -126;
    if (t < -126) t = -126; /* a float32 subnormal: its last bit is 2^-149 <= 2^lsb's grid */
    int g = t - p + 1 < lsb ? lsb : t - p + 1;
    int cl = 64 - __builtin_clzll((uint64_t)(count - 1)); /* ceil(log2 count) */
    return cl + m + 1 <= 53 + g;
}

/* S / n rounded to odd at double's precision (n >= 1; S an exact sum of
 * values of the format, so S / n neither overflows nor underflows a
 * double): q = RN(S / n), e = S - q * n exactly (fma); when e != 0 take
 * the neighbour of q toward zero if q is above the quotient in magnitude,
 * then set the last bit. Rounding that once more to the format (at least
 * two bits narrower) is the correctly rounded mean (Boldo, Melquiond). */
static inline double div_odd(double S, double n)
{
    double q = S / n, e = fma(-q, n, S);
    if (e == 0.0) return q;
    uint64_t b = f64_to_bits(q);
    if ((e < 0.0) != (q < 0.0)) b -= 1; /* |q| > |S / n|: one step toward zero */
    return bits_to_f64(b | 1u);
}

/* floor(hi:lo / d) and the remainder; hi < d. One divq on x86-64. */
static inline uint64_t div_128_64(uint64_t hi, uint64_t lo, uint64_t d, uint64_t *rem)
{
#if defined(__x86_64__)
    uint64_t q, r;
    __asm__("divq %4" : "=a"(q), "=d"(r) : "a"(lo), "d"(hi), "rm"(d));
    *rem = r;
    return q;
#else
    unsigned __int128 n = ((unsigned __int128)hi << 64) | lo;
    *rem = (uint64_t)(n % d);
    return (uint64_t)(n / d);
#endif
}

static inline int bitlen128(unsigned __int128 a)
{
    uint64_t hi = (uint64_t)(a >> 64), lo = (uint64_t)a;
    return hi ? 128 - __builtin_clzll(hi) : (lo ? 64 - __builtin_clzll(lo) : 0);
}

/* The target format of a rounding: precision p (bits, with the leading one),
 * normal exponents emin .. emax. */
typedef struct { int p, emin, emax; } float_format;

/* (a + frac) * 2^scale / n rounded once to `fmt` (to nearest, ties to even;
 * subnormals; overflow to inf), with frac in [0, 1) and nonzero iff sticky;
 * a > 0, 1 <= n < 2^63. The result is returned as a double, which holds
 * every value of the formats used exactly. */
static double round_quotient(unsigned __int128 a, int64_t scale, uint64_t n, int sticky, float_format fmt, int neg)
{
    /* Shift the dividend so its high word is below n with as many bits as
     * possible: the quotient then has 63 or 64 bits. */
    int bn = 64 - __builtin_clzll(n);
    int shift = 63 + bn - bitlen128(a);
    if (shift >= 0) {
        a <<= shift;
    } else {
        sticky |= (a & (((unsigned __int128)1 << -shift) - 1)) != 0;
        a >>= -shift;
    }
    scale -= shift;
    uint64_t r, q = div_128_64((uint64_t)(a >> 64), (uint64_t)a, n, &r);
    sticky |= r != 0;
    int t = 63 - __builtin_clzll(q);
    int64_t e = t + scale; /* the exponent of the quotient's leading bit */
    int64_t d = e >= fmt.emin ? t + 1 - fmt.p : (int64_t)(fmt.emin - fmt.p + 1) - scale; /* bits dropped, >= 10 */
    uint64_t kept, rem, half;
    if (d >= 64) {
        kept = 0;
        int above_half = d == 64 && (q > (1ull << 63) || (q == (1ull << 63) && sticky));
        /* exactly half (kept 0 is even) or less rounds to zero */
        if (above_half) kept = 1;
    } else {
        kept = q >> d;
        rem = q & ((1ull << d) - 1);
        half = 1ull << (d - 1);
        if (rem > half || (rem == half && (sticky || (kept & 1)))) kept++;
    }
    double v;
    int64_t k = scale + d;
    if (k >= -1022 && k <= 1023)
        v = (double)kept * bits_to_f64((uint64_t)(k + 1023) << 52); /* exact: kept < 2^54 */
    else
        v = ldexp((double)kept, (int)(k < -2000 ? -2000 : (k > 2000 ? 2000 : k)));
    if (e > fmt.emax || v >= ldexp(1.0, fmt.emax) * 2.0) v = INFINITY;
    return neg ? -v : v;
}

/* The mean of a state as a double that store_<format> rounds to the
 * correctly rounded mean: the mean rounded to fmt itself, or, for formats at
 * least two bits narrower than double, the mean rounded to odd at double's
 * precision (div_odd) when |sum| is a double (the common case: a sum of few
 * blocks), which saves the 128-bit division. */
static double sacc_mean(const uint64_t *s, int nl, int lsb, float_format fmt)
{
    int64_t count = (int64_t)s[0];
    uint64_t flags = s[1];
    if (count <= 0 || (flags & SACC_NAN) || ((flags & SACC_PINF) && (flags & SACC_NINF))) return NAN;
    if (flags & SACC_PINF) return INFINITY;
    if (flags & SACC_NINF) return -INFINITY;
    const uint64_t *limb = s + SACC_HEADER;
    uint64_t mag[64];
    int neg = (int)(limb[nl - 1] >> 63);
    if (neg) { /* |A| = ~A + 1 */
        uint64_t carry = 1;
        for (int k = 0; k < nl; k++) {
            mag[k] = ~limb[k] + carry;
            carry = carry && mag[k] == 0;
        }
    } else {
        memcpy(mag, limb, (size_t)nl * 8);
    }
    int top = nl - 1;
    while (top >= 0 && mag[top] == 0) top--;
    if (top < 0) return (flags & SACC_NONNEGZERO) ? 0.0 : -0.0;
    unsigned __int128 a;
    int64_t scale;
    int sticky = 0;
    if (top == 0) {
        a = mag[0];
        scale = lsb;
    } else {
        a = ((unsigned __int128)mag[top] << 64) | mag[top - 1];
        scale = (int64_t)lsb + 64 * (int64_t)(top - 1);
        for (int k = 0; k < top - 1; k++) sticky |= mag[k] != 0;
    }
    if (fmt.p <= 51 && !sticky && count < ((int64_t)1 << 53)) {
        uint64_t lo = (uint64_t)a, hi = (uint64_t)(a >> 64);
        int tz = lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll(hi);
        int64_t e = scale + tz;
        if (bitlen128(a) - tz <= 53 && e >= -1022 && e <= 1023 - 53) {
            double S = (double)(uint64_t)(a >> tz) * bits_to_f64((uint64_t)(e + 1023) << 52); /* exact */
            double v = div_odd(S, (double)count);
            return neg ? -v : v;
        }
    }
    return round_quotient(a, scale, (uint64_t)count, sticky, fmt, neg);
}
