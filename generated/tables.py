# GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
# `make generate` (python -m meancli.codegen).
# Template: templates/tables.py.j2
# Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
"""The run-time tables of facts the generator knows: element types, kernel
statuses, instruction sets, the kernel sources' fingerprint. Plain data, no
imports: meancli.dtypes and meancli.kernels read them, so nothing at run time
maps a dtype or a status by hand."""

# sha256 of generated/kernels.c and generated/kernels_cdef.h: the compiled
# module must carry the same value, or it was built from other sources.
KERNEL_SOURCE_SHA256 = "87fa17a653d9ba0b3e606cb4a437d0472288e40fce04736f6677238cde46037f"

# How every C kernel is named: KERNEL_SYMBOL.format(entry="reduce", dtype="float32").
KERNEL_SYMBOL = 'meancli_{entry}_{dtype}'

# Every element type a spec may name (meancli/codegen/dtypes.py), in table order:
# (spec name = kernel symbol suffix, numpy name, numpy kind, itemsize in bytes, ONNX TensorProto.DataType).
# numpy kind: "f" float, "i" signed, "u" unsigned integer; bfloat16 is ml_dtypes' (numpy kind "V").
DTYPES = (
    ('float16', 'float16', 'f', 2, 10),
    ('bfloat16', 'bfloat16', 'f', 2, 16),
    ('float32', 'float32', 'f', 4, 1),
    ('float64', 'float64', 'f', 8, 11),
    ('int8', 'int8', 'i', 1, 3),
    ('int16', 'int16', 'i', 2, 5),
    ('int32', 'int32', 'i', 4, 6),
    ('int64', 'int64', 'i', 8, 7),
    ('uint8', 'uint8', 'u', 1, 2),
    ('uint16', 'uint16', 'u', 2, 4),
    ('uint32', 'uint32', 'u', 4, 12),
    ('uint64', 'uint64', 'u', 8, 13),
)

# The status codes the C kernels return (meancli/codegen/statuses.py): (C name after MEANCLI_, value, meaning).
STATUSES = (
    ('OK', 0, 'success'),
    ('E_RANK', 1, 'rank outside [0, 64]'),
    ('E_SHAPE', 2, 'a negative dimension or a size that overflows int64'),
    ('E_STRIDE', 3, 'a stride that is negative or not a multiple of the item size'),
    ('E_NOMEM', 4, "out of memory for the kernel's scratch buffers"),
    ('E_EMPTY_INT', 5, 'integer mean over an empty set'),
    ('E_ARG', 6, 'a null pointer or no inputs'),
)

# The instruction sets of the vector kernels by level (meancli/codegen/isas.py);
# MEANCLI_ISA names one to run below the highest the CPU supports.
ISA_NAMES = ('portable', 'avx2', 'avx512')
# The (kind of vector kernel, dtype) pairs that run a level of their own
# (meancli/codegen/isas.py; the integer types follow float32):
# meancli_isa(group) names the level in effect for ISA_GROUPS[group].
ISA_KINDS = ('run', 'mean', 'compare')
ISA_DTYPES = ('float32', 'float16', 'bfloat16', 'float64')
ISA_GROUPS = (('run', 'float32'), ('run', 'float16'), ('run', 'bfloat16'), ('run', 'float64'), ('mean', 'float32'), ('mean', 'float16'), ('mean', 'bfloat16'), ('mean', 'float64'), ('compare', 'float32'), ('compare', 'float16'), ('compare', 'bfloat16'), ('compare', 'float64'))
