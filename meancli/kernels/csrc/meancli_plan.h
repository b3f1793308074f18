/* meancli_plan.h: Planning a reduction: dims dropped, ordered, merged; index arithmetic.
 *
 * Static C of the kernels, included by generated/kernels.c (templates/kernels.c.j2)
 * in this order: meancli_config.h, the status codes, meancli_work.h,
 * meancli_convert.h, meancli_exact.h, meancli_plan.h, the instruction-set
 * choice, meancli_bus_error.h. Not a standalone header: one translation unit.
 * Covered by the compiled module's source hash (meancli/codegen/kernel_sources.py).
 */
#pragma once
/* ------------------------------------------------------------------------
 * Planning: drop size-1 dimensions, order the rest by input stride (memory
 * order, so Fortran-order input needs no copy), and merge neighbours that
 * are both reduced or both kept and contiguous with each other.
 *
 * The outermost dimension in memory order (D0) is never merged: input can
 * arrive in slabs of D0 rows (streamed from a file larger than memory).
 * --------------------------------------------------------------------- */

typedef struct {
    int nk, nr;                         /* kept / reduced dims, outer -> inner */
    int64_t ksize[MEANCLI_MAX_RANK], kin[MEANCLI_MAX_RANK], kout[MEANCLI_MAX_RANK];
    int64_t rsize[MEANCLI_MAX_RANK], rin[MEANCLI_MAX_RANK];
    int64_t nout, nred;                 /* output elements, elements per output */
    int inner_reduced;                  /* smallest-stride dim is reduced */
    int d0_logical;                     /* D0's index in the caller's shape; -1: no dim > 1 */
    int d0_reduced;                     /* D0 is ksize[0] (0) or rsize[0] (1) */
    int64_t d0_size, d0_stride;         /* rows of D0 and elements per row */
    int64_t row_chunk;                  /* rows per chunk of a row reduction (plan_row_chunk) */
    int skipna;                         /* NaN skipped as they are read (kernel_reduce.c.j2, "skipna") */
} reduce_plan;

/* Rows per chunk of a row reduction of nred rows: ROW_CHUNK, doubled up to
 * ROW_CHUNK_MAX while at least 64 chunks remain for the threads to share.
 * Each chunk's end costs every column a superaccumulator step (measured:
 * 4-5% of (1000000, 64) float32 at 1024 rows). Any chunking gives the same
 * bits (every sum is exact); a job keeps one, as its slabs continue it. */
static int64_t plan_row_chunk(int64_t nred)
{
    int64_t rc = ROW_CHUNK;
    while (rc < ROW_CHUNK_MAX && nred / rc >= 128) rc *= 2;
    return rc;
}

static int plan_reduce(int rank, const int64_t *shape, const int64_t *strides_bytes,
                       const uint8_t *reduce_mask, int64_t itemsize, reduce_plan *p)
{
    int64_t size[MEANCLI_MAX_RANK], in[MEANCLI_MAX_RANK], out[MEANCLI_MAX_RANK];
    int red[MEANCLI_MAX_RANK], logical[MEANCLI_MAX_RANK];
    int n = 0;
    if (rank < 0 || rank > MEANCLI_MAX_RANK) return MEANCLI_E_RANK;
    p->skipna = 0;
    p->nout = 1;
    p->nred = 1;
    for (int d = 0; d < rank; d++) {
        if (shape[d] < 0) return MEANCLI_E_SHAPE;
        /* a dim of size 0 or 1 is never stepped along: its stride is irrelevant
         * (numpy leaves any value there, negative ones included) */
        if (shape[d] > 1 && (strides_bytes[d] < 0 || strides_bytes[d] % itemsize != 0)) return MEANCLI_E_STRIDE;
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
        logical[n] = d;
        n++;
    }
    /* stable insertion sort by input stride, largest first */
    for (int i = 1; i < n; i++) {
        int64_t s = size[i], a = in[i], o = out[i];
        int r = red[i], l = logical[i], j = i - 1;
        while (j >= 0 && in[j] < a) {
            size[j + 1] = size[j]; in[j + 1] = in[j]; out[j + 1] = out[j];
            red[j + 1] = red[j]; logical[j + 1] = logical[j];
            j--;
        }
        size[j + 1] = s; in[j + 1] = a; out[j + 1] = o; red[j + 1] = r; logical[j + 1] = l;
    }
    p->nk = p->nr = 0;
    p->inner_reduced = n > 0 && red[n - 1];
    p->d0_logical = n > 0 ? logical[0] : -1;
    p->d0_reduced = n > 0 && red[0];
    p->d0_size = n > 0 ? size[0] : 1;
    p->d0_stride = n > 0 ? in[0] : 0;
    for (int i = 0; i < n; i++) {
        int mergeable = i > 1 && red[i - 1] == red[i]; /* i == 1 would merge into D0 */
        if (red[i]) {
            int m = p->nr;
            if (mergeable && m > 0 && p->rin[m - 1] == in[i] * size[i]) {
                p->rsize[m - 1] *= size[i];
                p->rin[m - 1] = in[i];
            } else {
                p->rsize[m] = size[i]; p->rin[m] = in[i]; p->nr++;
            }
        } else {
            int m = p->nk;
            if (mergeable && m > 0 && p->kin[m - 1] == in[i] * size[i]
                && p->kout[m - 1] == out[i] * size[i]) {
                p->ksize[m - 1] *= size[i];
                p->kin[m - 1] = in[i];
                p->kout[m - 1] = out[i];
            } else {
                p->ksize[m] = size[i]; p->kin[m] = in[i]; p->kout[m] = out[i]; p->nk++;
            }
        }
    }
    p->row_chunk = plan_row_chunk(p->nred);
    return MEANCLI_OK;
}

/* What a kernel compares its result with as it writes it (mean_compare, reduce_compare):
 * got, the compared array, C-contiguous like the result, in native byte order; parts,
 * one compare_part of the result's dtype per thread of the kernel (kernel_compare.c.j2). */
typedef struct {
    const void *got;
    void *parts;
} meancli_check;

/* The outputs [lo, hi) a thread wrote and has not compared yet (check_wrote_*); stage,
 * CHECK_RUN_BYTES where a result streamed past the caches is written first, compared,
 * then streamed out (check_dst_*; NULL: the outputs are written in place). */
typedef struct {
    int64_t lo, hi;
    void *stage;
} check_run;

/* A streamed ReduceMean: the plan, and (when D0 is reduced, so every output
 * collects from every slab) each output's running total and open chunk. */
typedef struct meancli_reduce_job {
    reduce_plan p;
    int64_t next_row;   /* slabs must arrive in D0 order */
    void *totals;       /* acc per output, D0 reduced only */
    void *open;         /* lanes per output (inner mode) or row accumulators per unit (rows mode) */
    int64_t itemsize;
    int states;         /* write each output's exact partial state instead of its mean */
    /* skipna (meancli's own extension, float types): every NaN is read as
     * -0.0 (which adds nothing, not even a sign) and counted in the count
     * word of its output's exact state; the output's count is then nred
     * minus that (kernel_reduce.c.j2, "skipna"; p.skipna set too) */
    int skipna;
    /* compare the outputs as they are written (reduce_compare; NULL: no); checked: every
     * output was (the paths that write outputs in runs of the C-contiguous output do it) */
    const meancli_check *check;
    int checked;
} meancli_reduce_job;

void meancli_reduce_free(meancli_reduce_job *job)
{
    if (!job) return;
    free(job->totals);
    free(job->open);
    free(job);
}

/* From now on the job writes each output's exact partial state (layout:
 * "Exact sums") instead of its mean; call it before the first slab. */
int meancli_reduce_states(meancli_reduce_job *job)
{
    if (!job || job->next_row != 0) return MEANCLI_E_ARG;
    job->states = 1;
    return MEANCLI_OK;
}

/* What a caller streaming the input needs: info[0] = D0's logical dim (-1
 * when the input is one element), info[1] = D0's size in rows, info[2] =
 * bytes per row, info[3] = slabs other than the last must hold a multiple
 * of this many rows. */
void meancli_reduce_job_info(const meancli_reduce_job *job, int64_t *info)
{
    const reduce_plan *p = &job->p;
    info[0] = p->d0_logical;
    info[1] = p->d0_size;
    info[2] = p->d0_stride * job->itemsize;
    /* a lone kept dim is streamed in whole column tiles */
    info[3] = !p->inner_reduced && !p->d0_reduced && p->nk == 1 ? TILE : 1;
}

static void *alloc_array(int64_t count, int64_t elem_bytes)
{
    int64_t bytes;
    if (count < 1) count = 1;
    if (!mul_ok(count, elem_bytes, &bytes)) return NULL;
    return calloc(1, (size_t)bytes);
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
