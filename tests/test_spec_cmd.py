"""Tests of ``meancli spec`` (list, show, diff): content read from the generated registry."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import Result, run_cli
from meancli.generated.registry import OPS

from meancli.cli import spec_cmd
from meancli.cli.spec_cmd import op_as_dict
from meancli.cli.spec_diff import Difference, diff_ops
from meancli.errors import OpsetError
from meancli.ops.opset import find_op
from meancli.ops.schema import Attribute, OpVersion

REPO = Path(__file__).resolve().parents[1]
KNOWN_KEYS = [op.key for op in OPS]


# --------------------------------------------------------------------------- helpers


@pytest.fixture(autouse=True)
def _no_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    # piped output is not wrapped unless COLUMNS says otherwise
    monkeypatch.delenv("COLUMNS", raising=False)


def run(*args: str) -> Result:
    """``meancli spec ARGS`` in process: the Result (exit_code, stdout, stderr)."""
    return run_cli("spec", *args)


def run_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    return json.loads(result.stdout)


def op(ref: str) -> OpVersion:
    return find_op(ref)


def changed(base: OpVersion, **fields: Any) -> OpVersion:
    """A copy of ``base`` with some fields changed (a version no spec defines)."""
    return OpVersion(**{**{name: getattr(base, name) for name in OpVersion.__slots__}, **fields})


def by_field(differences: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    fields = [d["field"] for d in differences]
    assert len(fields) == len(set(fields)), fields
    return {d["field"]: d for d in differences}


# --------------------------------------------------------------------------- naming a version


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ReduceMean-18", ("onnx", "ReduceMean", 18)),
        ("onnx:ReduceMean:18", ("onnx", "ReduceMean", 18)),
        ("openvino:ReduceMean:1", ("openvino", "ReduceMean", 1)),
        ("ReduceMean-1", ("onnx", "ReduceMean", 1)),
        ("ReduceMean", ("onnx", "ReduceMean", 18)),
        ("Mean", ("onnx", "Mean", 13)),
        ("Mean-6", ("onnx", "Mean", 6)),
        ("onnx:ReduceMean-13", ("onnx", "ReduceMean", 13)),
        ("openvino:ReduceMean", ("openvino", "ReduceMean", 1)),
        ("ReduceMean:11", ("onnx", "ReduceMean", 11)),
        ("reducemean-11", ("onnx", "ReduceMean", 11)),
        ("OpenVINO:reducemean:1", ("openvino", "ReduceMean", 1)),
        ("  ReduceMean-13 ", ("onnx", "ReduceMean", 13)),
    ],
)
def test_find_op_forms(text: str, expected: tuple[str, str, int]) -> None:
    found = find_op(text)
    assert (found.domain, found.name, found.since_version) == expected
    assert any(found is o for o in OPS)  # the registry's own object


def test_every_version_is_found_by_its_key_and_ref() -> None:
    for o in OPS:
        assert find_op(f"{o.domain}:{o.name}:{o.since_version}") is o
        assert find_op(f"{o.domain}:{o.key}") is o
        if o.domain == "onnx":
            assert find_op(o.key) is o


@pytest.mark.parametrize(
    "text",
    [
        "Foo",
        "Foo-3",
        "ReduceMean-12",
        "ReduceMean-0",
        "Mean-18",
        "onnx:ReduceMean:2",
        "openvino:ReduceMean:18",
        "openvino:Mean:1",
        "tensorflow:ReduceMean:1",
        "",
        ":",
        "ReduceMean-",
        "ReduceMean-x",
        "a:b:c:d",
        "onnx:ReduceMean:1.5",
        "-1",
    ],
)
def test_find_op_unknown_lists_what_exists(text: str) -> None:
    with pytest.raises(OpsetError) as info:
        find_op(text)
    message = str(info.value)
    assert "\n" not in message
    for key in KNOWN_KEYS:
        assert key in message
    assert "openvino: ReduceMean-1" in message


def test_missing_version_names_the_one_the_opset_would_use() -> None:
    with pytest.raises(
        OpsetError, match=r"ReduceMean versions: 1, 11, 13, 18; onnx opset 12 uses ReduceMean-11"
    ):
        find_op("ReduceMean-12")


# --------------------------------------------------------------------------- list


def test_list_json_has_every_version_of_the_registry() -> None:
    obj = run_json("list")
    assert list(obj) == ["ops"]
    rows = obj["ops"]
    assert len(rows) == len(OPS) == 9
    for row, o in zip(rows, OPS, strict=True):
        assert row["domain"] == o.domain
        assert row["op"] == o.name
        assert row["version"] == o.key
        assert row["since_version"] == o.since_version
        assert row["types"] == list(o.types)
        assert row["broadcasting"] == o.broadcasting
        assert row["axes_source"] == (o.axes.source if o.axes else None)
        assert row["spec_path"] == o.spec_path
        assert row["ref"] == f"{o.domain}:{o.name}:{o.since_version}"


def test_list_json_opset_ranges() -> None:
    opsets = {row["ref"]: row["opsets"] for row in run_json("list")["ops"]}
    assert opsets["onnx:Mean:1"] == {"first": 1, "last": 5}
    assert opsets["onnx:Mean:8"] == {"first": 8, "last": 12}
    assert opsets["onnx:Mean:13"] == {"first": 13, "last": None}
    assert opsets["onnx:ReduceMean:13"] == {"first": 13, "last": 17}
    assert opsets["onnx:ReduceMean:18"] == {"first": 18, "last": None}
    assert opsets["openvino:ReduceMean:1"] == {"first": 1, "last": None}


def test_list_table_has_one_row_per_version() -> None:
    result = run("list")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    header = lines[0].split()
    assert header == ["domain", "version", "opsets", "broadcasting", "axes", "types"]
    rows = [line.split() for line in lines[1:] if line.split() and line.split()[0] in ("onnx", "openvino")]
    assert len(rows) == len(OPS) == 9
    for cells, o in zip(rows, OPS, strict=True):
        assert cells[:2] == [o.domain, o.key] and o.key == f"{o.name}-{o.since_version}"
        assert cells[3:5] == [o.broadcasting, o.axes.source if o.axes else "-"]
        line = " ".join(cells)
        assert ", ".join(o.types) in line
    assert "9 operator versions" in result.stdout


# --------------------------------------------------------------------------- show


def test_show_reduce_mean_18() -> None:
    result = run("show", "ReduceMean-18")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert out.splitlines()[0].startswith("ReduceMean-18 (onnx)")
    assert "reduce over all axes (0) or return the input unchanged (1)" in out  # the summary
    assert "data: T, required, arity 1" in out
    assert "axes: int64, optional, arity 0..1" in out
    assert "reduced: T" in out
    assert "keepdims: int, default 1, optional" in out
    assert "noop_with_empty_axes: int, default 0, optional" in out
    assert "0 reduces over all axes, 1 returns the input unchanged" in out  # its description
    assert "T: uint32, uint64, int32, int64, float16, float32, float64, bfloat16" in out
    assert "broadcasting: none" in out
    assert "axes source: input 'axes' (optional)" in out
    assert "omitted axes: noop_with_empty_axes decides" in out
    assert "empty axes: noop_with_empty_axes decides" in out
    assert "duplicate axes: an error" in out
    assert "keepdims: attribute keepdims, default 1" in out
    assert "shape inference: yes" in out
    assert "meancli_reduce_bfloat16" in out
    assert "spec file: spec/onnx/ReduceMean-18.yaml" in out


def test_show_reduce_mean_13_axes_attribute() -> None:
    out = run("show", "ReduceMean-13").stdout
    assert "axes: ints, no default, optional" in out
    assert "Accepted range is [-r, r-1] where r = rank(data)." in out  # not eaten as rich markup
    assert "axes source: attribute 'axes' (optional)" in out
    assert "omitted axes: reduce over all axes" in out
    assert "empty axes: reduce over all axes" in out
    assert "noop_with_empty_axes" not in out  # not an attribute of ReduceMean-13
    assert "bfloat16" in out


def test_show_openvino() -> None:
    result = run("show", "openvino:ReduceMean:1")
    assert result.exit_code == 0
    out = result.stdout
    assert out.splitlines()[0].startswith("ReduceMean-1 (openvino)")
    assert "axes: T_IND, required, arity 1" in out
    assert "T_IND: int32, int64" in out
    assert "keep_dims: bool, default false, optional" in out
    assert "axes source: input 'axes' (required)" in out
    assert "omitted axes: error (axes are required)" in out
    assert "empty axes: identity (return the input unchanged)" in out
    assert "keepdims: attribute keep_dims, default false (remove the reduced dimensions)" in out
    assert "spec file: spec/openvino/ReduceMean-1.yaml" in out


def test_show_plain_reduce_mean_1_is_onnx() -> None:
    out = run("show", "ReduceMean-1").stdout
    assert out.splitlines()[0].startswith("ReduceMean-1 (onnx)")
    assert "spec file: spec/onnx/ReduceMean-1.yaml" in out


def test_show_bare_name_is_newest_onnx() -> None:
    assert run("show", "ReduceMean").stdout == run("show", "ReduceMean-18").stdout
    assert run("show", "Mean").stdout == run("show", "Mean-13").stdout


def test_show_mean_1_legacy_variadic_no_axes() -> None:
    out = run("show", "Mean-1").stdout
    assert "data_0: T, variadic, arity 1..2147483647 (1 or more)" in out
    assert "consumed_inputs: ints, no default, optional, legacy" in out
    assert "axes: none (not a reduction over axes)" in out
    assert "keepdims: none" in out
    assert "shape inference: no" in out
    assert "broadcasting: none" in out
    out8 = run("show", "Mean-8").stdout
    assert "broadcasting: multidirectional" in out8
    assert "Attributes\n  none" in out8


@pytest.mark.parametrize("o", OPS, ids=[f"{o.domain}-{o.key}" for o in OPS])
def test_show_json_is_the_whole_spec(o: OpVersion) -> None:
    obj = run_json("show", f"{o.domain}:{o.name}:{o.since_version}")
    assert obj == op_as_dict(o)
    fields = set(OpVersion.__slots__)
    assert fields - {"validator"} <= set(obj)
    assert "validator" not in obj
    assert obj["ref"] == f"{o.domain}:{o.name}:{o.since_version}"
    assert obj["key"] == o.key
    assert obj["types"] == list(o.types)
    assert obj["kernels"] == o.kernels
    assert all(isinstance(symbol, str) for symbol in obj["kernels"].values())
    assert obj["spec_path"] == o.spec_path
    assert [a["name"] for a in obj["attributes"]] == [a.name for a in o.attributes]
    assert [i["name"] for i in obj["inputs"]] == [i.name for i in o.inputs]
    assert obj["type_constraints"] == [
        {"param": tc.param, "allowed": list(tc.allowed)} for tc in o.type_constraints
    ]
    assert (obj["axes"] is None) == (o.axes is None)


def test_show_json_reduce_mean_18_content() -> None:
    obj = run_json("show", "ReduceMean-18")
    attrs = {a["name"]: a for a in obj["attributes"]}
    assert attrs["noop_with_empty_axes"]["default"] == 0
    assert attrs["noop_with_empty_axes"]["type"] == "int"
    assert attrs["keepdims"]["default"] == 1
    assert obj["axes"] == {
        "source": "input",
        "negative": True,
        "duplicates": "error",
        "when_omitted": "noop_with_empty_axes",
        "when_empty": "noop_with_empty_axes",
    }
    assert obj["keepdims"] == {"attribute": "keepdims", "default": True}
    assert attrs["noop_with_empty_axes"]["values"] == [0, 1]
    assert obj["inputs"][1] == {
        "name": "axes",
        "type_param": "int64",
        "min_arity": 0,
        "max_arity": 1,
        "variadic": False,
        "optional": True,
    }
    assert obj["kernels"]["bfloat16"] == "meancli_reduce_bfloat16"


@pytest.mark.parametrize("args", [("show", "Foo"), ("show", "ReduceMean-12"), ("diff", "Mean-8", "Mean-99")])
def test_unknown_names_are_one_error_line(args: tuple[str, ...]) -> None:
    result = run(*args)
    assert result.exit_code == 2  # a name that selects nothing: a usage error
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("error: ")
    for key in KNOWN_KEYS:
        assert key in lines[0]


def test_unknown_name_json_error() -> None:
    result = run("show", "Foo-1", "--json")
    assert result.exit_code == 2
    assert result.stdout == ""
    err = json.loads(result.stderr)
    assert err["kind"] == "opset"
    assert "Foo" in err["error"]
    assert "ReduceMean-18" in err["error"]


# --------------------------------------------------------------------------- diff


def test_diff_mean_8_13_adds_bfloat16() -> None:
    result = run("diff", "Mean-8", "Mean-13")
    assert result.exit_code == 0
    assert "Mean-8 (onnx) -> Mean-13 (onnx): 1 difference" in result.stdout
    assert "- types: added bfloat16" in result.stdout
    obj = run_json("diff", "Mean-8", "Mean-13")
    assert obj["a"] == "onnx:Mean:8"
    assert obj["b"] == "onnx:Mean:13"
    assert obj["identical"] is False
    assert obj["differences"] == [
        {
            "field": "types",
            "a": ["float16", "float32", "float64"],
            "b": ["float16", "float32", "float64", "bfloat16"],
            "added": ["bfloat16"],
            "removed": [],
        }
    ]


def test_diff_reduce_mean_13_18() -> None:
    obj = run_json("diff", "ReduceMean-13", "ReduceMean-18")
    d = by_field(obj["differences"])
    assert d["axes.source"] == {"field": "axes.source", "a": "attribute", "b": "input"}
    assert d["axes.when_omitted"]["a"] == "reduce_all"
    assert d["axes.when_omitted"]["b"] == "noop_with_empty_axes"
    assert d["axes.when_empty"]["b"] == "noop_with_empty_axes"
    noop = d["attributes.noop_with_empty_axes"]
    assert noop["a"] is None
    assert noop["b"]["default"] == 0
    assert d["attributes.axes"]["b"] is None
    assert d["inputs.axes"]["a"] is None
    assert d["inputs.axes"]["b"]["type_param"] == "int64"
    assert "summary" in d
    assert "types" not in d  # both have bfloat16
    assert "attributes.keepdims" not in d and "broadcasting" not in d
    out = run("diff", "ReduceMean-13", "ReduceMean-18").stdout
    assert "- axes source: attribute -> input" in out
    assert "- attribute added: noop_with_empty_axes: int, default 0, optional" in out
    assert "- attribute removed: axes: ints, no default, optional" in out
    assert "- input added: axes: int64, optional, arity 0..1" in out
    assert "- omitted axes: reduce over all axes -> noop_with_empty_axes decides" in out


def test_diff_onnx_18_openvino_1() -> None:
    obj = run_json("diff", "onnx:ReduceMean:18", "openvino:ReduceMean:1")
    assert (obj["a"], obj["b"]) == ("onnx:ReduceMean:18", "openvino:ReduceMean:1")
    d = by_field(obj["differences"])
    assert d["keepdims.default"] == {"field": "keepdims.default", "a": True, "b": False}
    assert d["keepdims.attribute"] == {"field": "keepdims.attribute", "a": "keepdims", "b": "keep_dims"}
    assert d["types"]["added"] == ["int8", "int16", "uint8", "uint16"]
    assert d["types"]["removed"] == []
    assert d["type_constraints.T_IND"]["b"] == ["int32", "int64"]
    assert "type_constraints.T" not in d  # the same change as "types"
    assert d["axes.when_omitted"]["b"] == "error"
    assert d["axes.when_empty"]["b"] == "identity"
    assert d["attributes.keep_dims"]["b"]["default"] is False
    assert d["attributes.keepdims"]["b"] is None
    assert d["attributes.noop_with_empty_axes"]["b"] is None
    assert d["inputs.axes.type_param"] == {"field": "inputs.axes.type_param", "a": "int64", "b": "T_IND"}
    assert d["inputs.axes.optional"]["b"] is False
    assert d["outputs.0"]["b"] == {"name": "output", "type_param": "T"}
    out = run("diff", "onnx:ReduceMean:18", "openvino:ReduceMean:1").stdout
    assert "- keepdims default: true -> false" in out
    assert "- types: added int8, int16, uint8, uint16" in out
    assert "- empty axes: noop_with_empty_axes decides" in out
    assert "-> identity (return the input unchanged)" in out
    assert "- output 0: reduced (T) -> output (T)" in out


def test_diff_reduce_mean_1_11_description_only() -> None:
    obj = run_json("diff", "ReduceMean-1", "ReduceMean-11")
    assert [d["field"] for d in obj["differences"]] == ["attributes.axes.description"]
    out = run("diff", "ReduceMean-1", "ReduceMean-11").stdout
    assert "attribute axes description changed:" in out
    assert (
        "+ The axes to reduce over; the default is to reduce over all dimensions. Accepted range is [-r, r-1]"
        in out
    )


def test_diff_mean_1_6_and_6_8() -> None:
    fields = {d["field"]: d for d in run_json("diff", "Mean-1", "Mean-6")["differences"]}
    assert set(fields) == {"attributes.consumed_inputs", "shape_inference"}
    assert fields["attributes.consumed_inputs"]["a"]["legacy"] is True
    fields = {d["field"]: d for d in run_json("diff", "Mean-6", "Mean-8")["differences"]}
    assert set(fields) == {"summary", "broadcasting"}
    assert (fields["broadcasting"]["a"], fields["broadcasting"]["b"]) == ("none", "multidirectional")


def test_diff_identical() -> None:
    result = run("diff", "ReduceMean-18", "onnx:ReduceMean:18")
    assert result.exit_code == 0
    assert "the specs are identical" in result.stdout
    obj = run_json("diff", "ReduceMean", "ReduceMean-18")
    assert obj == {"a": "onnx:ReduceMean:18", "b": "onnx:ReduceMean:18", "identical": True, "differences": []}


def test_diff_across_ops() -> None:
    d = by_field(run_json("diff", "Mean-13", "ReduceMean-18")["differences"])
    assert d["kind"]["a"] == "elementwise_mean"
    assert d["axes"]["a"] is None and d["axes"]["b"]["source"] == "input"
    assert d["inputs.data_0"]["b"] is None
    assert d["types"]["added"] == ["uint32", "uint64", "int32", "int64"]
    out = run("diff", "Mean-13", "ReduceMean-18").stdout
    assert "- axes added: axes source: input 'axes' (optional)" in out


PAIRS = list(itertools.product(OPS, repeat=2))


@pytest.mark.parametrize(("a", "b"), PAIRS, ids=[f"{a.domain}-{a.key}:{b.domain}-{b.key}" for a, b in PAIRS])
def test_diff_every_pair(a: OpVersion, b: OpVersion) -> None:
    forward = diff_ops(a, b)
    backward = diff_ops(b, a)
    assert (forward == []) == (a is b)

    def canon(x: Any) -> str:
        return json.dumps(x, sort_keys=True)

    # b -> a is a -> b with the sides swapped
    assert {(d.field, canon(d.a), canon(d.b)) for d in forward} == {
        (d.field, canon(d.b), canon(d.a)) for d in backward
    }
    for d in forward:
        json.dumps(d.as_json())
        text = d.text()
        assert text.strip()
        if d.field != "summary" and not d.field.endswith(".description"):
            assert "\n" not in text, text


def test_diff_attribute_default_change() -> None:
    base = op("ReduceMean-18")
    changed_attrs = tuple(
        a._replace(default=1) if a.name == "noop_with_empty_axes" else a for a in base.attributes
    )
    (difference,) = diff_ops(base, changed(base, attributes=changed_attrs))
    assert difference == Difference("attributes.noop_with_empty_axes.default", 0, 1)
    assert difference.text() == "attribute noop_with_empty_axes default: 0 -> 1"
    assert difference.as_json() == {"field": "attributes.noop_with_empty_axes.default", "a": 0, "b": 1}


def test_diff_list_valued_default_is_not_a_type_list() -> None:
    base = op("ReduceMean-13")
    axes = Attribute("axes", "ints", [0], False, False, "x")
    a = changed(base, attributes=(axes,))
    b = changed(base, attributes=(axes._replace(default=[0, 1]),))
    (difference,) = diff_ops(a, b)
    assert difference.added is None
    assert difference.text() == "attribute axes default: [0] -> [0, 1]"


def test_diff_none_default_change_is_not_an_added_attribute() -> None:
    base = op("ReduceMean-13")
    axes = base.attributes[0]
    assert axes.default is None
    b = changed(base, attributes=(axes._replace(default=[1]), base.attributes[1]))
    (difference,) = diff_ops(base, b)
    assert difference.text() == "attribute axes default: none -> [1]"


# --------------------------------------------------------------------------- the command line


@pytest.mark.parametrize("args", [(), ("list",), ("show",), ("diff",)])
def test_help(args: tuple[str, ...]) -> None:
    result = run(*args, "--help")
    assert result.exit_code == 0
    assert "Usage" in result.stdout


def test_import_is_light() -> None:
    code = (
        "import sys, meancli.cli.spec_cmd; "
        "print(sorted(m for m in ('rich', 'numpy', 'meancli.generated.registry') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_public_functions_have_docstrings() -> None:
    for name in dir(spec_cmd):
        value = getattr(spec_cmd, name)
        if name.startswith("_") or getattr(value, "__module__", None) != spec_cmd.__name__:
            continue
        if callable(value):
            assert value.__doc__, name


@cache
def _wired() -> bool:
    return run_cli("spec", "--help", cwd=REPO).returncode == 0


def cli(*args: str) -> Result:
    """``meancli spec ARGS`` (without COLUMNS), skipped while app.py does not add spec_app."""
    if not _wired():
        pytest.skip("spec not wired")
    return run_cli("spec", *args, cwd=REPO)


def test_cli_list_json() -> None:
    proc = cli("list", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["ops"]
    assert [r["ref"] for r in rows] == [f"{o.domain}:{o.name}:{o.since_version}" for o in OPS]


def test_cli_list_table() -> None:
    proc = cli("list")
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.split()[:1] in (["onnx"], ["openvino"])]
    assert len(rows) == 9


def test_cli_show() -> None:
    proc = cli("show", "ReduceMean-18")
    assert proc.returncode == 0, proc.stderr
    assert "noop_with_empty_axes: int, default 0, optional" in proc.stdout
    assert "omitted axes: noop_with_empty_axes decides" in proc.stdout
    proc = cli("show", "openvino:ReduceMean:1", "--json")
    assert json.loads(proc.stdout)["keepdims"]["default"] is False


def test_cli_diff() -> None:
    proc = cli("diff", "Mean-8", "Mean-13")
    assert proc.returncode == 0, proc.stderr
    assert "types: added bfloat16" in proc.stdout
    obj = json.loads(cli("diff", "ReduceMean-13", "ReduceMean-18", "--json").stdout)
    assert {"field": "axes.source", "a": "attribute", "b": "input"} in obj["differences"]


def test_cli_unknown_name() -> None:
    proc = cli("show", "ReduceMean-99")
    assert proc.returncode == 2
    assert proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("error: no version ReduceMean-99 in the onnx domain")
    proc = cli("diff", "Mean-8", "Nope", "--json")
    assert proc.returncode == 2
    assert json.loads(proc.stderr)["kind"] == "opset"


def test_cli_closed_pipe_is_quiet() -> None:
    if not _wired():
        pytest.skip("spec not wired")
    proc = subprocess.run(
        f"{sys.executable} -m meancli spec show ReduceMean-18 | head -c 1",
        shell=True,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.stdout == "R"
    assert "Traceback" not in proc.stderr
