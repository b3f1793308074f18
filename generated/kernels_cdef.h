/*
 * GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
 * `make generate` (python -m meancli.codegen).
 * Template: templates/kernels_cdef.h.j2
 * Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
 */
/* cffi declarations of generated/kernels.c (read by meancli/_ffi_build.py). */
const char *meancli_source_sha256(void);
int meancli_max_rank(void);
typedef struct meancli_reduce_job meancli_reduce_job;
void meancli_reduce_free(meancli_reduce_job *job);
void meancli_reduce_job_info(const meancli_reduce_job *job, int64_t *info);
int meancli_reduce_float16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_float16(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_float16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_float16(meancli_reduce_job *job, void *out);
int meancli_reduce_bfloat16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_bfloat16(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_bfloat16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_bfloat16(meancli_reduce_job *job, void *out);
int meancli_reduce_float32(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_float32(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_float32(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_float32(meancli_reduce_job *job, void *out);
int meancli_reduce_float64(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_float64(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_float64(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_float64(meancli_reduce_job *job, void *out);
int meancli_reduce_int8(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_int8(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_int8(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_int8(meancli_reduce_job *job, void *out);
int meancli_reduce_int16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_int16(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_int16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_int16(meancli_reduce_job *job, void *out);
int meancli_reduce_int32(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_int32(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_int32(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_int32(meancli_reduce_job *job, void *out);
int meancli_reduce_int64(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_int64(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_int64(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_int64(meancli_reduce_job *job, void *out);
int meancli_reduce_uint8(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_uint8(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_uint8(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_uint8(meancli_reduce_job *job, void *out);
int meancli_reduce_uint16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_uint16(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_uint16(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_uint16(meancli_reduce_job *job, void *out);
int meancli_reduce_uint32(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_uint32(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_uint32(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_uint32(meancli_reduce_job *job, void *out);
int meancli_reduce_uint64(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_begin_uint64(int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, meancli_reduce_job **job_out);
int meancli_reduce_step_uint64(meancli_reduce_job *job, const void *slab, int64_t a, int64_t b, void *out, int nthreads);
int meancli_reduce_end_uint64(meancli_reduce_job *job, void *out);
int meancli_mean_float16(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
int meancli_mean_bfloat16(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
int meancli_mean_float32(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
int meancli_mean_float64(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
