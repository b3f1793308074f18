/* meancli_config.h: The C library, the target's vectors, and the tuning constants of every kernel.
 *
 * Static C of the kernels, included by generated/kernels.c (templates/kernels.c.j2)
 * in this order: meancli_config.h, the status codes, meancli_work.h,
 * meancli_convert.h, meancli_exact.h, meancli_plan.h, the instruction-set
 * choice, meancli_bus_error.h. Not a standalone header: one translation unit.
 * Covered by the compiled module's source hash (meancli/codegen/kernel_sources.py).
 */
#pragma once
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <signal.h>
#include <unistd.h>
#include <float.h>
/* MEANCLI_PORTABLE_ONLY builds what a CPU without x86 vectors (aarch64)
 * gets: the portable loops alone (tests/test_portable_build.py) */
#if (defined(__x86_64__) || defined(__i386__)) && !defined(MEANCLI_PORTABLE_ONLY)
#include <immintrin.h>
#define MEANCLI_X86 1
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#define MEANCLI_MAX_RANK 64
/* Elements per chunk of a contiguous reduction, rows per chunk of a row
 * reduction (the units threads share), and columns per tile. */
#define CHUNK 32768
#define ROW_CHUNK 1024 /* at least; see plan_row_chunk */
#define ROW_CHUNK_MAX 8192
#define TILE 512
/* A kernel comparing its result as it writes it (mean_compare, reduce_compare) compares
 * the outputs a thread wrote one after the other in one call per CHECK_RUN_BYTES of them:
 * few calls (a call per unit of TILE outputs: W9 compared in 1.21x / 1.56x the plain run's time,
 * identical / 1-2 ulp off, against 1.16x / 1.33x; Zen 1; on a Zen 5, 4 KiB runs 1.42x / 1.61x,
 * 128 KiB the same as 32 KiB; with the quick pass 8 KiB slower, 16 KiB the same), and the
 * outputs still in the core's L1/L2 when read back. */
#define CHECK_RUN_BYTES 32768
/* Row accumulation: float16/bfloat16/float32 rows of at most NARROW_ROW
 * columns keep their column sums in registers (panels of columns over
 * L1-resident rows); wider rows are added ROW_GROUP at a time, one from
 * each ROW_GROUP-th of a block, each read once (ROW_GROUP sequential
 * streams), their column sums in L1. */
#define NARROW_ROW 64
/* Software prefetch PREFETCH_BYTES ahead of the stream a hot loop reads.
 * The converting loops issue about twice the micro-ops per cache line of a
 * plain read, so the out-of-order window holds fewer loads in flight and a
 * core read ~15% below its bandwidth; prefetching 4 KiB ahead closes that
 * gap (measured on the bench machine, 1 and 2 threads). Mean's loops, which
 * read several streams at once, prefetch nothing: 4 KiB ahead of each input
 * (into L1) made a Mean of 4 float32 inputs 1.4x slower on 1 thread and
 * 1.15x on 2 (AMD EPYC, Zen 4), and a shorter distance or prefetching into
 * L2 only was slower than none. The address is integer arithmetic, so no
 * pointer is formed past the data; a prefetch of any address is harmless
 * (it never faults). Row reductions prefetch nothing either: whole rows
 * prefetched 4 KiB ahead made (100000, 300) float64 over axis 0 1.2-1.35x
 * slower, and no shape faster. */
#define PREFETCH_BYTES 4096
#define PREFETCH_AT(p, ahead_bytes) \
    __builtin_prefetch((const void *)((uintptr_t)(p) + (uintptr_t)(ahead_bytes)), 0, 3)
/* PREFETCH_AT for each 64-byte line of the `bytes` (a constant) one
 * iteration of a hot loop reads from p: an AVX-512 iteration of two vectors
 * reads two lines, and one prefetch per iteration left every other line to
 * the hardware (measured: float32 and float64 reductions from memory 15-20%
 * slower than the AVX2 loops, which read one line an iteration). */
#define PREFETCH_SPAN(p, bytes) \
    do { \
        for (int pl_ = 0; pl_ < (int)(bytes); pl_ += 64) PREFETCH_AT((uintptr_t)(p) + (uintptr_t)pl_, PREFETCH_BYTES); \
    } while (0)
/* Exact float sums: extraction level sums flush to the superaccumulator
 * every 2^EXTRACT_LOG2CAP values (the bound that keeps them exact), and a
 * sigma is picked 2^EXTRACT_HEADROOM above the values that chose it. */
#define EXTRACT_LOG2CAP 10
#define EXTRACT_CAP (1 << EXTRACT_LOG2CAP)
#define EXTRACT_HEADROOM 3
/* formats whose every block sum of 2^EXACT_LOG2BLOCK values is exact in double */
#define EXACT_LOG2BLOCK 13
/* after a block fails its check, the next EXACT_SKIP blocks of that run go
 * straight to the exact path (data that fails once tends to keep failing) */
#define EXACT_SKIP 7
/* rows per block of a row accumulation (its columns share one bound) */
#define ROWS_CAP 256
/* narrow exact row sums: 8-column groups per register panel, rows per pass */
#define NARROW_PANEL 8
#define NARROW_SUB 64
/* skipna: vectors a panel of the masked narrow row loop (their NaN counts
 * in as many more registers), with 32 vector registers (AVX-512) and with
 * 16 (AVX2: 4 spilled sums to the stack, their additions then waiting on
 * store forwarding: 1.5x the NaN-free loop's CPU time) */
#define NARROW_PANEL_SKIPNA_32 4
#define NARROW_PANEL_SKIPNA_16 3
/* rows per pass of the wide row loops */
#define ROW_GROUP 4
#define PANEL_ROWS_MAX NARROW_ROW
/* a row reduction of at most this many rows per output (float16, bfloat16
 * and float32; float64) is computed as their Mean (mean_unit), whose
 * per-column costs are the smaller there (measured: 1.7x at 24 float32
 * rows, even at 48, and 0.83x at 64; float64 1.3-3x up to 64) */
#define ROWS_AS_MEAN_MAX_FLT 48
#define ROWS_AS_MEAN_MAX MEAN_VEC_MAX
/* likewise a reduction of runs (the innermost dim reduced) of at most this
 * many values per output (measured: 1.2x (float32) and 1.4x (float64) at
 * 32 values, 0.64x and 0.74x at 64) */
#define INNER_AS_MEAN_MAX 32
/* Mean: rows of at most TILE / 2 outputs run several to a unit
 * (kernel_mean.c.j2, mean_rows_block) where every input is contiguous
 * across rows, one value, a bias row or strided; where one is copied anew
 * for each unit's rows (one value per row, or rows that do not follow each
 * other), only rows of at most this many: such a copy costs about what a
 * unit's fixed costs do per row (float32, 1 thread, CPU time: a value per
 * row of 3 and 16 outputs 14x and 2x faster, 32 to 64 level, 196 1.2x
 * slower than units of one row) */
#define MEAN_SHORT_ROW 32
/* Mean: contiguous inputs the vector loop reads together (more go the portable way) */
#define MEAN_VEC_MAX 64
/* Mean: inputs broadcast along every dim but the inner one (a bias row)
 * read alike by every output row: summed in double once per call, with one
 * bound per tile, where the inner dim has at most this many elements */
#define MEAN_ROWSUM_MAX 65536
/* Whether every sum of up to 4 of a block's bfloat16 values is exact in
 * float32, mx and mn1 as narrow_sum_exact takes them (float32 bit
 * patterns): the values (8-bit significands) are multiples of 2^(e_min -
 * 7), subnormals of 2^-133, such a sum is below 2^(e_max + 3), so 24 bits
 * hold it where e_max - e_min <= 14, and e_max <= 125 keeps it finite. */
static inline int quads_exact(uint32_t mx, uint32_t mn1)
{
    if (mn1 == UINT32_MAX) return mx == 0; /* zeros only */
    int emax = (int)(mx >> 23), emin = (int)((mn1 + 1u) >> 23);
    emin = emin < 1 ? 1 : emin;
    return emax <= 125 + 127 && emax - emin <= 14;
}
/* An input of a Mean plan (element strides s over nd >= 1 dims) that is a
 * bias row: contiguous along the inner dim, broadcast along every other
 * (and there is another). */
static inline int bias_row(const int64_t *s, int nd)
{
    int row = nd >= 2 && s[nd - 1] == 1;
    for (int d = 0; row && d < nd - 1; d++) row = s[d] == 0;
    return row;
}
typedef struct {
    const double *sum;      /* the unit's columns: the bias rows' sums */
    uint32_t mx, mn1;       /* their values' bound over the unit's tile (as narrow_sum_exact takes) */
    const uint8_t *taken;   /* per input: 1 where it is in sum */
} mean_rowsum;
/* Mean: where this machine's last-level cache size is unknown, outputs of
 * at least this many bytes bypass the caches (mean_stream_bytes, below) */
#define MEAN_STREAM_FALLBACK_BYTES ((int64_t)1 << 23)
/* bytes of the copy (NaN, inf as -0.0) a group of rows is read through, in
 * L1: skipna, and a rows block that holds an inf or NaN (kernel_reduce.c.j2,
 * "skipna"; kernel_exact.c.j2, rows_nonfinite) */
#define SKIP_ROWS_BYTES 32768
/* Below this many input elements a call runs on the calling thread only. */
#define PARALLEL_MIN_ELEMENTS 262144
