# GENERATED FILE -- DO NOT EDIT. Change the spec or the template, then run
# `make generate` (python -m meancli.codegen).
# Template: templates/registry.py.j2
# Specs: spec/onnx/Mean-1.yaml, spec/onnx/Mean-6.yaml, spec/onnx/Mean-8.yaml, spec/onnx/Mean-13.yaml, spec/onnx/ReduceMean-1.yaml, spec/onnx/ReduceMean-11.yaml, spec/onnx/ReduceMean-13.yaml, spec/onnx/ReduceMean-18.yaml, spec/openvino/ReduceMean-1.yaml
"""Every operator version the specs define, for the CLI and the API (no YAML at run time)."""

from __future__ import annotations

from meancli.ops.schema import Attribute, AxesRule, Input, KeepdimsRule, OpVersion, Output, TypeConstraint

from . import validators

OPS: tuple[OpVersion, ...] = (
    OpVersion(
        name='Mean',
        domain='onnx',
        since_version=1,
        kind='elementwise_mean',
        summary=(
            'Element-wise mean of each of the input tensors. All inputs and the output must '
            'have the same shape and data type.'
        ),
        inputs=(
            Input(
                name='data_0',
                type_param='T',
                min_arity=1,
                max_arity=2147483647,
                variadic=True,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='mean',
                type_param='T',
            ),
        ),
        attributes=(
            Attribute(
                name='consumed_inputs',
                type='ints',
                default=None,
                required=False,
                legacy=True,
                description=(
                    'Legacy optimization attribute of opset 1; it has no effect on the result and '
                    'meancli neither needs nor exposes it.'
                ),
                values=None,
            ),
        ),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('float16', 'float32', 'float64'),
            ),
        ),
        broadcasting='none',
        axes=None,
        keepdims=None,
        shape_inference=False,
        spec_path='spec/onnx/Mean-1.yaml',
        types=('float16', 'float32', 'float64'),
        validator=validators.validate_mean_1,
        kernels={
            'float16': "meancli_mean_float16",
            'float32': "meancli_mean_float32",
            'float64': "meancli_mean_float64",
        },
    ),
    OpVersion(
        name='Mean',
        domain='onnx',
        since_version=6,
        kind='elementwise_mean',
        summary=(
            'Element-wise mean of each of the input tensors. All inputs and the output must '
            'have the same shape and data type.'
        ),
        inputs=(
            Input(
                name='data_0',
                type_param='T',
                min_arity=1,
                max_arity=2147483647,
                variadic=True,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='mean',
                type_param='T',
            ),
        ),
        attributes=(),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('float16', 'float32', 'float64'),
            ),
        ),
        broadcasting='none',
        axes=None,
        keepdims=None,
        shape_inference=True,
        spec_path='spec/onnx/Mean-6.yaml',
        types=('float16', 'float32', 'float64'),
        validator=validators.validate_mean_1,
        kernels={
            'float16': "meancli_mean_float16",
            'float32': "meancli_mean_float32",
            'float64': "meancli_mean_float64",
        },
    ),
    OpVersion(
        name='Mean',
        domain='onnx',
        since_version=8,
        kind='elementwise_mean',
        summary=(
            'Element-wise mean of each of the input tensors, with multidirectional '
            '(numpy-style) broadcasting. All inputs and the output must have the same data '
            'type.'
        ),
        inputs=(
            Input(
                name='data_0',
                type_param='T',
                min_arity=1,
                max_arity=2147483647,
                variadic=True,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='mean',
                type_param='T',
            ),
        ),
        attributes=(),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('float16', 'float32', 'float64'),
            ),
        ),
        broadcasting='multidirectional',
        axes=None,
        keepdims=None,
        shape_inference=True,
        spec_path='spec/onnx/Mean-8.yaml',
        types=('float16', 'float32', 'float64'),
        validator=validators.validate_mean_2,
        kernels={
            'float16': "meancli_mean_float16",
            'float32': "meancli_mean_float32",
            'float64': "meancli_mean_float64",
        },
    ),
    OpVersion(
        name='Mean',
        domain='onnx',
        since_version=13,
        kind='elementwise_mean',
        summary=(
            'Element-wise mean of each of the input tensors, with multidirectional '
            '(numpy-style) broadcasting. All inputs and the output must have the same data '
            'type.'
        ),
        inputs=(
            Input(
                name='data_0',
                type_param='T',
                min_arity=1,
                max_arity=2147483647,
                variadic=True,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='mean',
                type_param='T',
            ),
        ),
        attributes=(),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('float16', 'float32', 'float64', 'bfloat16'),
            ),
        ),
        broadcasting='multidirectional',
        axes=None,
        keepdims=None,
        shape_inference=True,
        spec_path='spec/onnx/Mean-13.yaml',
        types=('float16', 'float32', 'float64', 'bfloat16'),
        validator=validators.validate_mean_2,
        kernels={
            'float16': "meancli_mean_float16",
            'float32': "meancli_mean_float32",
            'float64': "meancli_mean_float64",
            'bfloat16': "meancli_mean_bfloat16",
        },
    ),
    OpVersion(
        name='ReduceMean',
        domain='onnx',
        since_version=1,
        kind='reduce',
        summary=(
            "Computes the mean of the input tensor's elements along the provided axes. The "
            'resulting tensor has the same rank as the input if keepdims equals 1; if '
            'keepdims equals 0, the reduced dimensions are pruned. Input tensors of rank zero '
            'are valid.'
        ),
        inputs=(
            Input(
                name='data',
                type_param='T',
                min_arity=1,
                max_arity=1,
                variadic=False,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='reduced',
                type_param='T',
            ),
        ),
        attributes=(
            Attribute(
                name='axes',
                type='ints',
                default=None,
                required=False,
                legacy=False,
                description=(
                    'The axes to reduce over; the default is to reduce over all dimensions. (The text '
                    'of version 1 states no range; negative axes are accepted as in every later '
                    'version, ONNX shape inference and every runtime.)'
                ),
                values=None,
            ),
            Attribute(
                name='keepdims',
                type='int',
                default=1,
                required=False,
                legacy=False,
                description='Keep the reduced dimensions (as size 1) or not.',
                values=(0, 1),
            ),
        ),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64'),
            ),
        ),
        broadcasting='none',
        axes=AxesRule(
            source='attribute',
            negative=True,
            duplicates='error',
            when_omitted='reduce_all',
            when_empty='reduce_all',
        ),
        keepdims=KeepdimsRule(
            attribute='keepdims',
            default=True,
        ),
        shape_inference=True,
        spec_path='spec/onnx/ReduceMean-1.yaml',
        types=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64'),
        validator=validators.validate_reduce_1,
        kernels={
            'uint32': "meancli_reduce_uint32",
            'uint64': "meancli_reduce_uint64",
            'int32': "meancli_reduce_int32",
            'int64': "meancli_reduce_int64",
            'float16': "meancli_reduce_float16",
            'float32': "meancli_reduce_float32",
            'float64': "meancli_reduce_float64",
        },
    ),
    OpVersion(
        name='ReduceMean',
        domain='onnx',
        since_version=11,
        kind='reduce',
        summary=(
            "Computes the mean of the input tensor's elements along the provided axes. The "
            'resulting tensor has the same rank as the input if keepdims equals 1; if '
            'keepdims equals 0, the reduced dimensions are pruned. Input tensors of rank zero '
            'are valid.'
        ),
        inputs=(
            Input(
                name='data',
                type_param='T',
                min_arity=1,
                max_arity=1,
                variadic=False,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='reduced',
                type_param='T',
            ),
        ),
        attributes=(
            Attribute(
                name='axes',
                type='ints',
                default=None,
                required=False,
                legacy=False,
                description=(
                    'The axes to reduce over; the default is to reduce over all dimensions. Accepted '
                    'range is [-r, r-1] where r = rank(data).'
                ),
                values=None,
            ),
            Attribute(
                name='keepdims',
                type='int',
                default=1,
                required=False,
                legacy=False,
                description='Keep the reduced dimensions (as size 1) or not.',
                values=(0, 1),
            ),
        ),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64'),
            ),
        ),
        broadcasting='none',
        axes=AxesRule(
            source='attribute',
            negative=True,
            duplicates='error',
            when_omitted='reduce_all',
            when_empty='reduce_all',
        ),
        keepdims=KeepdimsRule(
            attribute='keepdims',
            default=True,
        ),
        shape_inference=True,
        spec_path='spec/onnx/ReduceMean-11.yaml',
        types=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64'),
        validator=validators.validate_reduce_1,
        kernels={
            'uint32': "meancli_reduce_uint32",
            'uint64': "meancli_reduce_uint64",
            'int32': "meancli_reduce_int32",
            'int64': "meancli_reduce_int64",
            'float16': "meancli_reduce_float16",
            'float32': "meancli_reduce_float32",
            'float64': "meancli_reduce_float64",
        },
    ),
    OpVersion(
        name='ReduceMean',
        domain='onnx',
        since_version=13,
        kind='reduce',
        summary=(
            "Computes the mean of the input tensor's elements along the provided axes. The "
            'resulting tensor has the same rank as the input if keepdims equals 1; if '
            'keepdims equals 0, the reduced dimensions are pruned. Input tensors of rank zero '
            'are valid.'
        ),
        inputs=(
            Input(
                name='data',
                type_param='T',
                min_arity=1,
                max_arity=1,
                variadic=False,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='reduced',
                type_param='T',
            ),
        ),
        attributes=(
            Attribute(
                name='axes',
                type='ints',
                default=None,
                required=False,
                legacy=False,
                description=(
                    'The axes to reduce over; the default is to reduce over all dimensions. Accepted '
                    'range is [-r, r-1] where r = rank(data).'
                ),
                values=None,
            ),
            Attribute(
                name='keepdims',
                type='int',
                default=1,
                required=False,
                legacy=False,
                description='Keep the reduced dimensions (as size 1) or not.',
                values=(0, 1),
            ),
        ),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'),
            ),
        ),
        broadcasting='none',
        axes=AxesRule(
            source='attribute',
            negative=True,
            duplicates='error',
            when_omitted='reduce_all',
            when_empty='reduce_all',
        ),
        keepdims=KeepdimsRule(
            attribute='keepdims',
            default=True,
        ),
        shape_inference=True,
        spec_path='spec/onnx/ReduceMean-13.yaml',
        types=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'),
        validator=validators.validate_reduce_1,
        kernels={
            'uint32': "meancli_reduce_uint32",
            'uint64': "meancli_reduce_uint64",
            'int32': "meancli_reduce_int32",
            'int64': "meancli_reduce_int64",
            'float16': "meancli_reduce_float16",
            'float32': "meancli_reduce_float32",
            'float64': "meancli_reduce_float64",
            'bfloat16': "meancli_reduce_bfloat16",
        },
    ),
    OpVersion(
        name='ReduceMean',
        domain='onnx',
        since_version=18,
        kind='reduce',
        summary=(
            "Computes the mean of the input tensor's elements along the provided axes. The "
            'resulting tensor has the same rank as the input if keepdims equals 1; if '
            'keepdims equals 0, the reduced dimensions are pruned. Input tensors of rank zero '
            'are valid. When axes is empty (not provided or explicitly empty) the behaviour '
            'depends on noop_with_empty_axes: reduce over all axes (0) or return the input '
            'unchanged (1).'
        ),
        inputs=(
            Input(
                name='data',
                type_param='T',
                min_arity=1,
                max_arity=1,
                variadic=False,
                optional=False,
            ),
            Input(
                name='axes',
                type_param='int64',
                min_arity=0,
                max_arity=1,
                variadic=False,
                optional=True,
            ),
        ),
        outputs=(
            Output(
                name='reduced',
                type_param='T',
            ),
        ),
        attributes=(
            Attribute(
                name='keepdims',
                type='int',
                default=1,
                required=False,
                legacy=False,
                description='Keep the reduced dimensions (as size 1) or not.',
                values=(0, 1),
            ),
            Attribute(
                name='noop_with_empty_axes',
                type='int',
                default=0,
                required=False,
                legacy=False,
                description=(
                    'When axes is empty (not provided or explicitly empty): 0 reduces over all axes, '
                    '1 returns the input unchanged.'
                ),
                values=(0, 1),
            ),
        ),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'),
            ),
        ),
        broadcasting='none',
        axes=AxesRule(
            source='input',
            negative=True,
            duplicates='error',
            when_omitted='noop_with_empty_axes',
            when_empty='noop_with_empty_axes',
        ),
        keepdims=KeepdimsRule(
            attribute='keepdims',
            default=True,
        ),
        shape_inference=True,
        spec_path='spec/onnx/ReduceMean-18.yaml',
        types=('uint32', 'uint64', 'int32', 'int64', 'float16', 'float32', 'float64', 'bfloat16'),
        validator=validators.validate_reduce_2,
        kernels={
            'uint32': "meancli_reduce_uint32",
            'uint64': "meancli_reduce_uint64",
            'int32': "meancli_reduce_int32",
            'int64': "meancli_reduce_int64",
            'float16': "meancli_reduce_float16",
            'float32': "meancli_reduce_float32",
            'float64': "meancli_reduce_float64",
            'bfloat16': "meancli_reduce_bfloat16",
        },
    ),
    OpVersion(
        name='ReduceMean',
        domain='openvino',
        since_version=1,
        kind='reduce',
        summary=(
            'Computes the arithmetic mean of the elements of the data input along the '
            'dimensions listed in the axes input. keep_dims decides whether the reduced '
            'dimensions are kept with size 1 or removed. An empty axes input leaves the data '
            'unchanged.'
        ),
        inputs=(
            Input(
                name='data',
                type_param='T',
                min_arity=1,
                max_arity=1,
                variadic=False,
                optional=False,
            ),
            Input(
                name='axes',
                type_param='T_IND',
                min_arity=1,
                max_arity=1,
                variadic=False,
                optional=False,
            ),
        ),
        outputs=(
            Output(
                name='output',
                type_param='T',
            ),
        ),
        attributes=(
            Attribute(
                name='keep_dims',
                type='bool',
                default=False,
                required=False,
                legacy=False,
                description='Keep the reduced dimensions (as size 1) or not.',
                values=None,
            ),
        ),
        type_constraints=(
            TypeConstraint(
                param='T',
                allowed=('float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'),
            ),
            TypeConstraint(
                param='T_IND',
                allowed=('int32', 'int64'),
            ),
        ),
        broadcasting='none',
        axes=AxesRule(
            source='input',
            negative=True,
            duplicates='error',
            when_omitted='error',
            when_empty='identity',
        ),
        keepdims=KeepdimsRule(
            attribute='keep_dims',
            default=False,
        ),
        shape_inference=True,
        spec_path='spec/openvino/ReduceMean-1.yaml',
        types=('float16', 'bfloat16', 'float32', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64'),
        validator=validators.validate_reduce_3,
        kernels={
            'float16': "meancli_reduce_float16",
            'bfloat16': "meancli_reduce_bfloat16",
            'float32': "meancli_reduce_float32",
            'float64': "meancli_reduce_float64",
            'int8': "meancli_reduce_int8",
            'int16': "meancli_reduce_int16",
            'int32': "meancli_reduce_int32",
            'int64': "meancli_reduce_int64",
            'uint8': "meancli_reduce_uint8",
            'uint16': "meancli_reduce_uint16",
            'uint32': "meancli_reduce_uint32",
            'uint64': "meancli_reduce_uint64",
        },
    ),
)
