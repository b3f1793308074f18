/*
 * GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
 * `make generate` (python -m meancli.codegen).
 * Template: templates/kernels_cdef.h.j2
 * Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
 */
/* cffi declarations of generated/kernels.c (read by meancli/_ffi_build.py). */
const char *meancli_source_sha256(void);
int meancli_max_rank(void);
int meancli_reduce_float16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_bfloat16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_float32(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_float64(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_int8(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_int16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_int32(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_int64(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_uint8(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_uint16(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_uint32(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_reduce_uint64(const void *in, void *out, int rank, const int64_t *shape, const int64_t *strides_bytes, const uint8_t *reduce_mask, int nthreads);
int meancli_mean_float16(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
int meancli_mean_bfloat16(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
int meancli_mean_float32(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
int meancli_mean_float64(int ninputs, const void *const *inputs, const int64_t *strides_bytes, void *out, int rank, const int64_t *shape, int nthreads);
