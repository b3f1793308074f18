"""meancli check-model: every Mean and ReduceMean node of a whole ONNX model, run by a
runtime, against the correctly rounded mean of the inputs that runtime gave the node.

- A small model built here (Add -> ReduceMean -> Mul -> Mean, a dynamic batch dim) on
  the real runtimes: each node's reported distances equal the ones computed here from
  the runtime's own intermediate values (the model run here with them as outputs) and
  the exact oracle (tests/oracles.py).
- KNOWN distances: the runtime (meancli.engine.check_model.run_model) replaced by one
  returning each node's exact output stepped by a known number of values.
- What is not handled is named: another domain's node, nodes inside an If's branches
  and a model-local function; missing and extra --input names are one-line errors.
- The onnx package's own Mean/ReduceMean node test models (and its pytorch-operator
  ReduceMean models, where installed) run through check-model on onnxruntime.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
import referencing
from conftest import run_cli
from onnx_cases import node_cases, write_test_dir
from oracles import exact_mean, exact_reduce_mean, ulp_distance
from test_compare import step

import meancli.engine.check_model as check_model

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = {
    name: json.loads((ROOT / "docs/schema" / name).read_text())
    for name in ("report.schema.json", "check-model.schema.json")
}
REGISTRY = referencing.Registry().with_resources(
    (s["$id"], referencing.Resource.from_contents(s)) for s in SCHEMAS.values()
)
HAVE = {name: importlib.util.find_spec(name) is not None for name in ("onnxruntime", "openvino")}


def validate(obj: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(SCHEMAS["check-model.schema.json"], registry=REGISTRY).validate(obj)


def small_model(path: Path, opset: int = 18) -> Path:
    """x (N, 3, 4) + b (3, 4) -> s; ReduceMean(s, axes=[2]) -> r; r * 3 -> m; Mean(s, m, x) -> y."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 4])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, 4])
    if opset >= 18:
        reduce = helper.make_node("ReduceMean", ["s", "axes"], ["r"], name="pool", keepdims=1)
        init = [helper.make_tensor("axes", TensorProto.INT64, [1], [-1])]
    else:
        reduce = helper.make_node("ReduceMean", ["s"], ["r"], name="pool", axes=[-1], keepdims=1)
        init = []
    nodes = [
        helper.make_node("Add", ["x", "b"], ["s"], name="add"),
        reduce,
        helper.make_node("Mul", ["r", "three"], ["m"], name="scale"),
        helper.make_node("Mean", ["s", "m", "x"], ["y"]),  # unnamed: #3
    ]
    init.append(helper.make_tensor("three", TensorProto.FLOAT, [], [3.0]))
    graph = helper.make_graph(nodes, "small", [x, b], [y], initializer=init)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    onnx.checker.check_model(model)
    onnx.save(model, path)
    return path


@pytest.fixture
def small(tmp_path: Path) -> dict[str, Any]:
    rng = np.random.default_rng(27)
    x = (rng.standard_normal((5, 3, 4)) * 10).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    onnx.save_tensor(numpy_helper.from_array(b, "b"), str(tmp_path / "b.pb"))
    np.savez(tmp_path / "both.npz", x=x, b=b)
    return {"model": small_model(tmp_path / "small.onnx"), "x": x, "b": b, "dir": tmp_path}


def exposed_values(model_path: Path, runtime: str, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """s, r, m, y as the runtime computes them, from a copy of the model with them as
    outputs (built here, independently of meancli)."""
    model = onnx.load(model_path)
    for name in ("s", "r", "m"):
        model.graph.output.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    names = ["s", "r", "m", "y"]
    if runtime == "onnxruntime":
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return dict(zip(names, session.run(names, feeds), strict=True))
    from onnx.reference import ReferenceEvaluator

    return dict(zip(names, ReferenceEvaluator(model).run(names, feeds), strict=True))


@pytest.mark.parametrize("runtime", ["onnxruntime", "onnx-reference"])
def test_small_model_on_a_real_runtime(small: dict[str, Any], runtime: str) -> None:
    if runtime == "onnxruntime" and not HAVE["onnxruntime"]:
        pytest.skip("onnxruntime is not installed")
    d = small["dir"]
    r = run_cli(
        "check-model", small["model"], "--input", f"x={d / 'x.npy'}", "--input", f"b={d / 'b.pb'}",
        "--runtime", runtime, "--threads", "1", "--max-ulp", "1000", "--json",
    )  # fmt: skip
    assert r.exit_code in (0, 4), r.stderr
    report = json.loads(r.stdout)
    validate(report)
    pool, mean = report["comparisons"]
    assert pool["node"]["name"] == "pool" and mean["node"]["name"] == "#3"
    assert (pool["node"]["op"], pool["node"]["version"], mean["node"]["op"], mean["node"]["version"]) == (
        "ReduceMean", 18, "Mean", 13,
    )  # fmt: skip
    assert pool["node"]["attributes"] == {"axes": [2], "keepdims": 1, "noop_with_empty_axes": 0}
    assert (pool["node"]["shape"], mean["node"]["shape"]) == ([5, 3, 1], [5, 3, 4])
    assert report["opset_import"] == {"ai.onnx": 18} and report["skipped"] == []
    v = exposed_values(small["model"], runtime, {"x": small["x"], "b": small["b"]})
    want_pool = ulp_distance(v["r"], exact_reduce_mean(v["s"], [2], keepdims=True))
    want_mean = ulp_distance(v["y"], exact_mean([v["s"], v["m"], small["x"]]))
    assert (pool["max_ulp"], pool["inexact"], pool["total"]) == (
        int(want_pool.max()),
        int((want_pool > 0).sum()),
        15,
    )
    assert (mean["max_ulp"], mean["inexact"], mean["total"]) == (
        int(want_mean.max()),
        int((want_mean > 0).sum()),
        60,
    )
    assert r.exit_code == 0  # --max-ulp 1000
    # --max-ulp 0: 4 when any node is off by one or more
    r0 = run_cli(
        "check-model", small["model"], "-i", f"x={d / 'x.npy'}", "-i", f"b={d / 'b.pb'}", "--runtime", runtime
    )
    off = max(pool["max_ulp"], mean["max_ulp"]) > 0
    assert r0.exit_code == (4 if off else 0), r0.stderr
    assert "pool  ReduceMean-18 axes=[2] keepdims=1 noop_with_empty_axes=0  (5, 3, 1) float32" in r0.stdout
    assert "#3 (unnamed)  Mean-13  (5, 3, 4) float32" in r0.stdout


@pytest.mark.skipif(not HAVE["openvino"], reason="openvino is not installed")
def test_small_model_on_openvino_and_the_npz_members(small: dict[str, Any]) -> None:
    d = small["dir"]
    r = run_cli(
        "check-model", small["model"], "--input", f"x={d / 'both.npz'}:x", "--input", f"b={d / 'both.npz'}:b",
        "--runtime", "openvino", "--json", "--max-ulp", "1000",
    )  # fmt: skip
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)
    validate(report)
    assert [c["node"]["name"] for c in report["comparisons"]] == ["pool", "#3"]
    assert all(c["against"].startswith("openvino ") and c["total"] for c in report["comparisons"])


def fake_runtime(monkeypatch: pytest.MonkeyPatch, offsets: dict[str, int]) -> None:
    """The runtime: the onnx reference evaluator's values, with each named output then
    replaced by the EXACT mean of the inputs it was given, stepped by offsets[name]
    values."""
    real = check_model.run_model

    def run_model(
        name: str, model: bytes, feeds: Any, outputs: Any, threads: int = 1
    ) -> dict[str, np.ndarray]:
        values = real("onnx-reference", model, feeds, outputs, threads)
        if "r" in offsets:
            values["r"] = step(exact_reduce_mean(values["s"], [2], keepdims=True), offsets["r"])
        if "y" in offsets:
            values["y"] = step(exact_mean([values["s"], values["m"], feeds["x"]]), offsets["y"])
        return values

    monkeypatch.setattr(check_model, "run_model", run_model)


def test_known_offsets_per_node(small: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    fake_runtime(monkeypatch, {"r": 0, "y": 3})
    d = small["dir"]
    args = [
        "check-model",
        small["model"],
        "-i",
        f"x={d / 'x.npy'}",
        "-i",
        f"b={d / 'b.pb'}",
        "--runtime",
        "onnx-reference",
    ]
    r = run_cli(*args, "--json", "--max-ulp", "2")
    assert r.exit_code == 4, r.stderr
    report = json.loads(r.stdout)
    validate(report)
    pool, mean = report["comparisons"]
    assert (pool["max_ulp"], pool["inexact"], pool["within"]) == (0, 0, True)
    assert (mean["max_ulp"], mean["inexact"], mean["total"], mean["within"]) == (3, 60, 60, False)
    assert mean["histogram"]["2-4"] == 60 and mean["worst"]["ulp"] == 3
    assert report["within"] is False
    assert run_cli(*args, "--max-ulp", "3", "-q").exit_code == 0
    # the rich report names the node that is off
    r = run_cli(*args)
    assert r.exit_code == 4 and "worst of #3: index [0, 0, 0]" in r.stdout and "BEYOND 0" in r.stdout


def test_a_big_endian_input_is_fed_in_the_runtime_s_byte_order(small: dict[str, Any]) -> None:
    """A big-endian .npy was handed to the runtimes as it was: onnxruntime read its bytes
    as little-endian (NaN mismatches, exit status 4), the reference refused its type."""
    d = small["dir"]
    np.save(d / "x_be.npy", small["x"].astype(">f4"))
    np.save(d / "x_f.npy", np.asfortranarray(small["x"]))
    runtimes = [
        a
        for r in ("onnx-reference", "onnxruntime")
        if r != "onnxruntime" or HAVE[r]
        for a in ("--runtime", r)
    ]
    reports = []
    for x in ("x.npy", "x_be.npy", "x_f.npy"):
        r = run_cli(
            "check-model", small["model"], "-i", f"x={d / x}", "-i", f"b={d / 'b.pb'}",
            *runtimes, "--max-ulp", "1000", "--json",
        )  # fmt: skip
        assert r.exit_code == 0, r.stderr
        reports.append(
            [
                {k: c[k] for k in ("max_ulp", "inexact", "total", "worst")}
                for c in json.loads(r.stdout)["comparisons"]
            ]
        )
    assert reports[0] == reports[1] == reports[2]
    assert [c["total"] for c in reports[0]] == [15, 60] * (len(runtimes) // 2)


def test_inputs_missing_extra_and_malformed(small: dict[str, Any]) -> None:
    d = small["dir"]
    m = small["model"]
    for args, code, says in (
        (
            [f"x={d / 'x.npy'}"],
            1,
            "no --input for the graph input 'b' (give each as --input NAME=FILE; its inputs: x, b)",
        ),
        (
            [f"x={d / 'x.npy'}", f"b={d / 'b.pb'}", f"z={d / 'x.npy'}"],
            1,
            "--input z: the graph has no input z (its inputs: x, b)",
        ),
        (["x"], 2, "--input 'x': give NAME=FILE"),
        ([f"x={d / 'x.npy'}", f"x={d / 'x.npy'}"], 2, "--input x is given twice"),
        ([f"x={d / 'both.npz'}", f"b={d / 'b.pb'}"], 1, "both.npz: holds 2 arrays ("),
    ):
        argv = [a for v in args for a in ("--input", v)]
        r = run_cli("check-model", m, *argv, "--runtime", "onnx-reference")
        assert r.exit_code == code and says in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
    r = run_cli("check-model", d / "nothing.onnx", "--runtime", "onnx-reference")
    assert r.exit_code == 1 and r.stderr.startswith("error: ") and "nothing.onnx" in r.stderr


def test_a_model_no_runtime_can_run_is_an_error(small: dict[str, Any]) -> None:
    np.save(small["dir"] / "x2.npy", np.ones((5, 2), np.float32))  # rank 2 where the graph says 3
    d = small["dir"]
    r = run_cli(
        "check-model",
        small["model"],
        "-i",
        f"x={d / 'x2.npy'}",
        "-i",
        f"b={d / 'b.pb'}",
        "--runtime",
        "onnx-reference",
    )
    assert (
        r.exit_code == 1 and "the model did not run: onnx-reference" in r.stderr and r.stderr.count("\n") == 1
    )


def test_a_refusal_keeps_the_runtime_s_details(small: dict[str, Any]) -> None:
    """onnxruntime names the input on its message's first line and the dimension that
    does not match on the next: the one error line keeps both."""
    pytest.importorskip("onnxruntime")
    np.save(small["dir"] / "x4.npy", np.ones((5, 3, 5), np.float32))  # 5 where the graph says 4
    d = small["dir"]
    r = run_cli("check-model", small["model"], "-i", f"x={d / 'x4.npy'}", "-i", f"b={d / 'b.pb'}")
    assert r.exit_code == 1 and r.stderr.count("\n") == 1, r.stderr
    assert "invalid dimensions for input: x" in r.stderr and "Got: 5 Expected: 4" in r.stderr, r.stderr


def test_other_domains_subgraphs_and_functions_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Mean of another domain, ReduceMeans inside an If's branches and a Mean inside a
    model-local function are each one line 'not handled'; the main graph's ReduceMean
    is checked."""
    f = TensorProto.FLOAT
    branch = [
        helper.make_graph(
            [helper.make_node("ReduceMean", ["x"], [f"o{k}"], name=f"inner{k}", keepdims=0)],
            f"branch{k}",
            [],
            [helper.make_tensor_value_info(f"o{k}", f, None)],
        )
        for k in (0, 1)
    ]
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["r"], name="outer", keepdims=0),
        helper.make_node("Mean", ["x"], ["c"], name="custom", domain="my.domain"),
        helper.make_node("If", ["cond"], ["i"], name="choose", then_branch=branch[0], else_branch=branch[1]),
        helper.make_node("Twice", ["x"], ["t"], name="call", domain="local"),
    ]
    function = helper.make_function(
        "local", "Twice", ["a"], ["b"], [helper.make_node("Mean", ["a", "a"], ["b"], name="in_function")],
        [helper.make_opsetid("", 13)],
    )  # fmt: skip
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", f, [2, 3]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info(n, f, None) for n in ("r", "i")],
    )
    model = helper.make_model(
        graph,
        opset_imports=[
            helper.make_opsetid("", 13),
            helper.make_opsetid("my.domain", 1),
            helper.make_opsetid("local", 1),
        ],
        functions=[function],
        ir_version=8,
    )
    onnx.save(model, tmp_path / "m.onnx")
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 7
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "cond.npy", np.array(True))

    def run_model(
        name: str, model: bytes, feeds: Any, outputs: Any, threads: int = 1
    ) -> dict[str, np.ndarray]:
        assert list(outputs) == ["r"]  # only the main graph's ONNX node is exposed
        return {"r": exact_reduce_mean(feeds["x"], None, keepdims=False)}

    monkeypatch.setattr(check_model, "run_model", run_model)
    args = [
        "check-model",
        tmp_path / "m.onnx",
        "-i",
        f"x={tmp_path / 'x.npy'}",
        "-i",
        f"cond={tmp_path / 'cond.npy'}",
    ]
    r = run_cli(*args, "--runtime", "onnx-reference", "--json")
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)
    validate(report)
    (c,) = report["comparisons"]
    assert c["node"]["name"] == "outer" and c["node"]["version"] == 13 and c["max_ulp"] == 0
    assert report["opset_import"] == {"ai.onnx": 13, "my.domain": 1, "local": 1}
    assert report["skipped"] == [
        {
            "node": "custom",
            "op": "Mean",
            "reason": "domain 'my.domain': only ONNX's own Mean and ReduceMean are checked",
        },
        {
            "node": "inner1",
            "op": "ReduceMean",
            "reason": "inside If 'choose' (else_branch): subgraphs are not handled",
        },
        {
            "node": "inner0",
            "op": "ReduceMean",
            "reason": "inside If 'choose' (then_branch): subgraphs are not handled",
        },
        {
            "node": "in_function",
            "op": "Mean",
            "reason": "inside the model-local function 'Twice': functions are not handled",
        },
    ]
    r = run_cli(*args, "--runtime", "onnx-reference")
    lines = [line for line in r.stdout.splitlines() if line.startswith("not handled: ")]
    assert (
        len(lines) == 4
        and lines[2]
        == "not handled: inner0 (ReduceMean): inside If 'choose' (then_branch): subgraphs are not handled"
    )


# --------------------------------------------------------------------------- the onnx package's models


@pytest.fixture(scope="module")
def node_dirs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("node")
    return [write_test_dir(case, root) for case in node_cases()]


def _inputs(test_dir: Path) -> list[str]:
    model = onnx.load(test_dir / "model.onnx")
    initialized = {t.name for t in model.graph.initializer}
    names = [i.name for i in model.graph.input if i.name not in initialized]
    return [
        a
        for k, n in enumerate(names)
        for a in ("--input", f"{n}={test_dir / 'test_data_set_0' / f'input_{k}.pb'}")
    ]


@pytest.mark.skipif(not HAVE["onnxruntime"], reason="onnxruntime is not installed")
def test_onnx_node_test_models_on_onnxruntime(node_dirs: list[Path]) -> None:
    """The onnx package's Mean/ReduceMean node test models: one node each, checked; the
    distance reported is the one between onnxruntime's output and meancli's exact one."""
    import onnxruntime as ort

    assert len(node_dirs) >= 11
    for d in node_dirs:
        r = run_cli(
            "check-model", d / "model.onnx", *_inputs(d), "--json", "--max-ulp", "100", "--threads", "1"
        )
        assert r.exit_code == 0, (d.name, r.stderr)
        report = json.loads(r.stdout)
        validate(report)
        (c,) = report["comparisons"]
        assert c["against"].startswith("onnxruntime ") and c["node"]["op"] in ("Mean", "ReduceMean")
        # the same node on onnxruntime here, against check-onnx's exact output of the data set
        session = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
        feeds = {}
        for k, i in enumerate(session.get_inputs()):
            tensor = onnx.load_tensor(str(d / "test_data_set_0" / f"input_{k}.pb"))
            feeds[i.name] = numpy_helper.to_array(tensor)
        got = session.run(None, feeds)[0]
        from test_compare import exact_output

        exact = exact_output(d, d / "test_data_set_0")
        want = ulp_distance(got, exact) if exact.size else np.zeros(1, np.int64)
        assert c["max_ulp"] == int(want.max()), d.name


PYTORCH = Path(onnx.__file__).parent / "backend/test/data/pytorch-operator"


@pytest.mark.skipif(not HAVE["onnxruntime"], reason="onnxruntime is not installed")
@pytest.mark.parametrize("name", ["test_operator_reduced_mean", "test_operator_reduced_mean_keepdim"])
def test_pytorch_operator_models(name: str) -> None:
    """The onnx package's pytorch-exported ReduceMean models (opset 6: ReduceMean-1, a
    graph input named '0'), with their own input file."""
    d = PYTORCH / name
    if not d.is_dir():
        pytest.skip(f"the onnx package holds no {d}")
    r = run_cli(
        "check-model",
        d / "model.onnx",
        "--input",
        f"0={d / 'test_data_set_0' / 'input_0.pb'}",
        "--json",
        "--max-ulp",
        "4",
    )
    assert r.exit_code == 0, r.stderr
    report = json.loads(r.stdout)
    validate(report)
    (c,) = report["comparisons"]
    assert (c["node"]["name"], c["node"]["op"], c["node"]["version"]) == ("#0", "ReduceMean", 1)
    assert report["opset_import"] == {"ai.onnx": 6}
