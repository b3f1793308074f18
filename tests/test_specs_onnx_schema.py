"""Every onnx spec against ONNX's own operator schema (onnx.defs).

The YAML specs are the source of truth for meancli; these tests make sure
they say what ONNX says: since_version, attributes (names, types, defaults,
required flags), type constraints, input/output arity and options. They also
fail when onnx knows a newer (or an intermediate) version of Mean/ReduceMean
than spec/ holds, so that a new version is not silently missed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

onnx = pytest.importorskip("onnx")
from onnx import defs, helper  # noqa: E402

from meancli.codegen.model import OpSpec, load_specs  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SPECS = load_specs(ROOT / "spec", ROOT)
ONNX_SPECS = [s for s in SPECS if s.domain == "onnx"]
ONNX_OPS = sorted({s.name for s in ONNX_SPECS})

# ONNX type strings -> spec dtype names; written out here, independent of meancli.codegen.dtypes.
ONNX_TYPES = {
    "tensor(float16)": "float16",
    "tensor(bfloat16)": "bfloat16",
    "tensor(float)": "float32",
    "tensor(double)": "float64",
    "tensor(int8)": "int8",
    "tensor(int16)": "int16",
    "tensor(int32)": "int32",
    "tensor(int64)": "int64",
    "tensor(uint8)": "uint8",
    "tensor(uint16)": "uint16",
    "tensor(uint32)": "uint32",
    "tensor(uint64)": "uint64",
}
ATTR_TYPES = {
    defs.OpSchema.AttrType.INT: "int",
    defs.OpSchema.AttrType.INTS: "ints",
}
OPTION = defs.OpSchema.FormalParameterOption


def _schema(spec: OpSpec) -> Any:
    return defs.get_schema(spec.name, spec.since_version, "")


def _dtype(onnx_type: str) -> str:
    assert onnx_type in ONNX_TYPES, f"ONNX type {onnx_type} has no spec dtype name in this test's map"
    return ONNX_TYPES[onnx_type]


def _type_param(spec: OpSpec, onnx_type_str: str) -> str:
    """An input's ONNX type string as the spec writes it: a constraint param or a dtype name."""
    return _dtype(onnx_type_str) if onnx_type_str.startswith("tensor(") else onnx_type_str


def test_onnx_specs_are_present() -> None:
    keys = {s.key for s in ONNX_SPECS}
    assert {"Mean-1", "Mean-6", "Mean-8", "Mean-13"} <= keys
    assert {"ReduceMean-1", "ReduceMean-11", "ReduceMean-13", "ReduceMean-18"} <= keys


@pytest.mark.parametrize("spec", ONNX_SPECS, ids=lambda s: s.key)
class TestAgainstSchema:
    def test_since_version(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        assert schema.name == spec.name
        assert schema.domain == ""
        assert schema.since_version == spec.since_version, (
            f"{spec.path}: onnx resolves {spec.name} at opset {spec.since_version} "
            f"to since_version {schema.since_version}"
        )

    def test_attribute_names_defaults_required(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        expected = {}
        for name, attr in schema.attributes.items():
            default = helper.get_attribute_value(attr.default_value) if attr.default_value.name else None
            expected[name] = (default, bool(attr.required))
        got = {a.name: (a.default, a.required) for a in spec.attributes}
        assert got == expected, f"{spec.path}: attributes (default, required) differ from onnx"

    def test_attribute_types(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        for a in spec.attributes:
            onnx_type = schema.attributes[a.name].type
            assert onnx_type in ATTR_TYPES, f"{a.name}: unexpected onnx attribute type {onnx_type}"
            assert a.type == ATTR_TYPES[onnx_type], f"{spec.path}: attribute {a.name}"

    def test_type_constraints(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        expected = {
            tc.type_param_str: {_dtype(t) for t in tc.allowed_type_strs} for tc in schema.type_constraints
        }
        got = {tc.param: set(tc.allowed) for tc in spec.type_constraints}
        assert got == expected, f"{spec.path}: type constraints differ from onnx"

    def test_data_types_are_the_first_inputs_constraint(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        first = schema.inputs[0].type_str
        allowed = next(tc.allowed_type_strs for tc in schema.type_constraints if tc.type_param_str == first)
        assert {d.name for d in spec.data_types} == {_dtype(t) for t in allowed}

    def test_input_arity_and_options(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        assert [i.name for i in spec.inputs] == [i.name for i in schema.inputs]
        assert sum(i.min_arity for i in spec.inputs) == schema.min_input
        assert min(sum(i.max_arity for i in spec.inputs), 2147483647) == schema.max_input
        for mine, theirs in zip(spec.inputs, schema.inputs, strict=True):
            if theirs.option == OPTION.Variadic:
                expected = (True, False)
            elif theirs.option == OPTION.Optional:
                expected = (False, True)
            else:
                assert theirs.option == OPTION.Single
                expected = (False, False)
            assert (mine.variadic, mine.optional) == expected, f"{spec.path}: input {mine.name} option"
            assert mine.type_param == _type_param(spec, theirs.type_str), (
                f"{spec.path}: input {mine.name} type"
            )
            if mine.optional:
                assert mine.min_arity == 0
            else:
                assert mine.min_arity >= 1

    def test_outputs(self, spec: OpSpec) -> None:
        schema = _schema(spec)
        assert schema.min_output == schema.max_output == len(spec.outputs)
        got = [(o.name, o.type_param) for o in spec.outputs]
        assert got == [(o.name, _type_param(spec, o.type_str)) for o in schema.outputs]


REDUCE_SPECS = [s for s in ONNX_SPECS if s.kind == "reduce"]


@pytest.mark.parametrize("spec", REDUCE_SPECS, ids=lambda s: s.key)
def test_keepdims_rule_matches_onnx_default(spec: OpSpec) -> None:
    assert spec.keepdims is not None
    attr = _schema(spec).attributes[spec.keepdims.attribute]
    assert spec.keepdims.default == bool(helper.get_attribute_value(attr.default_value))


@pytest.mark.parametrize("spec", REDUCE_SPECS, ids=lambda s: s.key)
def test_axes_source(spec: OpSpec) -> None:
    assert spec.axes is not None
    schema = _schema(spec)
    has_input = any(i.name == "axes" for i in schema.inputs)
    assert spec.axes.source == ("input" if has_input else "attribute")
    assert spec.axes.when_omitted != "error"  # optional in every onnx version
    # from 18 on, an empty or omitted axes list follows noop_with_empty_axes
    if "noop_with_empty_axes" in schema.attributes:
        assert spec.axes.when_omitted == spec.axes.when_empty == "noop_with_empty_axes"
    else:
        assert spec.axes.when_omitted == "reduce_all"


@pytest.mark.parametrize("name", ONNX_OPS)
def test_no_newer_onnx_version_than_our_specs(name: str) -> None:
    newest_onnx = defs.get_schema(name, "").since_version
    newest_spec = max(s.since_version for s in ONNX_SPECS if s.name == name)
    assert newest_onnx <= newest_spec, (
        f"onnx {onnx.__version__} defines {name}-{newest_onnx} but the newest spec is {name}-{newest_spec}: "
        f"add spec/onnx/{name}-{newest_onnx}.yaml and run `make generate`"
    )


@pytest.mark.parametrize("name", ONNX_OPS)
def test_every_onnx_version_has_a_spec(name: str) -> None:
    onnx_versions = {
        s.since_version for s in defs.get_all_schemas_with_history() if s.name == name and s.domain == ""
    }
    spec_versions = {s.since_version for s in ONNX_SPECS if s.name == name}
    missing = sorted(onnx_versions - spec_versions)
    extra = sorted(spec_versions - onnx_versions)
    assert not missing, f"onnx defines {name} versions {missing} that spec/onnx lacks: add a spec for each"
    assert not extra, f"spec/onnx defines {name} versions {extra} that onnx does not know"
