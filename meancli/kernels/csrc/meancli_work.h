/* meancli_work.h: How threads share work, and checked size arithmetic.
 *
 * Static C of the kernels, included by generated/kernels.c (templates/kernels.c.j2)
 * in this order: meancli_config.h, the status codes, meancli_work.h,
 * meancli_convert.h, meancli_exact.h, meancli_plan.h, the instruction-set
 * choice, meancli_bus_error.h. Not a standalone header: one translation unit.
 * Covered by the compiled module's source hash (meancli/codegen/kernel_sources.py).
 */
#pragma once
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

/* Of n work items shared by nt threads under schedule(dynamic), how many a
 * thread takes at once: a `parts`-th of its share, at least one. Longer
 * grabs read longer runs of memory (the prefetchers' streams survive); more
 * grabs even out a core another process slows. */
static inline int64_t grab_of(int64_t n, int nt, int parts) { return n / ((int64_t)parts * nt) + 1; }

/* A rows block that failed its shared check, with each column's own check
 * in ok: is splitting the whole block (rows_split, a second pass over every
 * column) worth it? Not while at most an eighth of the columns failed:
 * those are summed exactly on their own (chunk_block, several times a
 * column's share of that pass). Normal data fails the shared check for one
 * tiny value in one column (a block in ten: (100000, 300) float32 0.93x the
 * time of splitting); at a quarter, data with 0.1% tiny values took 1.13x. */
static inline int split_pays(const uint8_t *ok, int64_t w)
{
    int64_t failed = 0;
    for (int64_t j = 0; j < w; j++) failed += !ok[j];
    return 8 * failed > w;
}

static int mul_ok(int64_t a, int64_t b, int64_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}

/* a * b, or INT64_MAX when that overflows: for work estimates only */
static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return mul_ok(a, b, &r) ? r : INT64_MAX;
}
