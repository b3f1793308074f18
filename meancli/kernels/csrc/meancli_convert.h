/* meancli_convert.h: Conversions between the float formats, each rounding once.
 *
 * Static C of the kernels, included by generated/kernels.c (templates/kernels.c.j2)
 * in this order: meancli_config.h, the status codes, meancli_work.h,
 * meancli_convert.h, meancli_exact.h, meancli_plan.h, the instruction-set
 * choice, meancli_bus_error.h. Not a standalone header: one translation unit.
 * Covered by the compiled module's source hash (meancli/codegen/kernel_sources.py).
 */
#pragma once
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
