/* The memory-bandwidth limit that bench/bench.py compares the kernels with.
 *
 * bench.py compiles this file at run time into a temporary directory
 * (gcc -O3 -march=native -fopenmp -shared) and loads it with cffi's ABI
 * mode; no binary is committed. The loops are as simple as a memory-bound
 * loop gets: the sum of a buffer's 64-bit words (vectorised by the
 * compiler), and memset, each split evenly over `nthreads` OpenMP threads.
 */
#include <stdint.h>
#include <string.h>
#include <omp.h>

/* Sum of the 64-bit words of nbytes at p (trailing bytes added one by one),
 * read by nthreads threads; returned so the loop cannot be optimised away. */
uint64_t probe_read(const void *p, int64_t nbytes, int nthreads)
{
    const uint64_t *w = (const uint64_t *)p;
    int64_t n = nbytes / 8;
    uint64_t s = 0;
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(+ : s)
    for (int64_t i = 0; i < n; i++) s += w[i];
    const unsigned char *b = (const unsigned char *)p + n * 8;
    for (int64_t i = 0; i < nbytes - n * 8; i++) s += b[i];
    return s;
}

/* memset of nbytes at p by nthreads threads, each its own contiguous part. */
void probe_write(void *p, int64_t nbytes, int nthreads)
{
#pragma omp parallel num_threads(nthreads)
    {
        int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        int64_t per = (nbytes + nt - 1) / nt;
        int64_t lo = t * per < nbytes ? t * per : nbytes;
        int64_t hi = lo + per < nbytes ? lo + per : nbytes;
        if (hi > lo) memset((char *)p + lo, (int)(t + 1), (size_t)(hi - lo));
    }
}

/* The limit of a workload: read every input once (2-thread read each),
 * then write the output once (2-thread memset). */
uint64_t probe_read_write(int ninputs, const void *const *inputs, const int64_t *nbytes,
                          void *out, int64_t outbytes, int nthreads)
{
    uint64_t s = 0;
    for (int i = 0; i < ninputs; i++) s += probe_read(inputs[i], nbytes[i], nthreads);
    probe_write(out, outbytes, nthreads);
    return s;
}
