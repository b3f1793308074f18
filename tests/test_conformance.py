"""Conformance: meancli against onnxruntime, the ONNX reference evaluator and OpenVINO.

Every operator version and every dtype its spec allows gets a property test
(hypothesis): rank 0..6, sizes including 0 and 1, every axes pattern
(omitted, single, non-adjacent, all, negative, empty, any subset), keepdims
both ways and by default, noop_with_empty_axes both ways on ReduceMean-18,
1..4 broadcasting inputs for Mean, each input in C or Fortran order, byte-swapped,
strided or with its dims permuted in memory. Each example is checked twice:

1. meancli against the exact truth (tests/oracles.py: exact rational mean
   rounded once; integers truncated toward zero), always, whatever the
   runtimes do;
2. each runtime against meancli: integers exactly, floats within
   ``oracles.tolerance`` (one ulp plus u * sum|x|, the bound of summing in
   the dtype itself). A disagreement passes only when a documented deviation
   (``oracles.DEVIATIONS``: the implementation, the mechanism, checked on the
   values) explains it; a runtime without a kernel for the version and type
   ("no-kernel") leaves meancli checked against the truth alone.

docs/conformance.md (tools/conformance.py) reports the same comparisons on a
fixed, seeded set of cases.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import oracles
import pytest
from conftest import run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from meancli.generated.registry import OPS
from oracles import BF16, DTYPES, Case

REPO = Path(__file__).resolve().parents[1]

REDUCE_PARAMS = [
    pytest.param(op.domain, op.since_version, dt, id=f"{op.domain}-ReduceMean-{op.since_version}-{dt}")
    for op in OPS
    if op.kind == "reduce"
    for dt in op.types
]
MEAN_PARAMS = [
    pytest.param(op.since_version, dt, id=f"onnx-Mean-{op.since_version}-{dt}")
    for op in OPS
    if op.kind == "elementwise_mean"
    for dt in op.types
]

# Kept below 2**990: a float64 mean beyond ~2**996 is NaN in meancli (a bug,
# test_float64_huge_mean below), which would hide everything else.
FLOAT64_LIMIT = 2.0**990

# CONFORMANCE_EXAMPLES=500 for a longer search; 14 per operator version and dtype keeps the
# suite near a minute.
PROPERTY = settings(
    max_examples=int(os.environ.get("CONFORMANCE_EXAMPLES", "14")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# --------------------------------------------------------------------------- strategies

SIZES = (0, 1, 1, 2, 2, 3, 3, 4, 5, 7)
MAX_SIZE = 400


@st.composite
def shapes(draw: Any, min_rank: int = 0, max_rank: int = 6) -> tuple[int, ...]:
    rank = draw(st.integers(min_rank, max_rank))
    dims = [draw(st.sampled_from(SIZES)) for _ in range(rank)]
    while math.prod(dims) > MAX_SIZE:
        dims[dims.index(max(dims))] -= 1
    return tuple(dims)


@st.composite
def axes_for(draw: Any, rank: int, domain: str) -> tuple[int, ...] | None:
    """One of the axes patterns the issue names, valid for ``rank``."""
    pattern = draw(st.sampled_from(oracles.axes_patterns(rank, domain)))
    if pattern == "omitted":
        return None
    if pattern == "empty":
        return ()
    if pattern == "single":
        return (draw(st.integers(-rank, rank - 1)),)
    if pattern == "all":
        axes = draw(st.permutations(range(rank)))
        return tuple(a - rank if draw(st.booleans()) else a for a in axes)
    if pattern == "non-adjacent":
        i = draw(st.integers(0, rank - 3))
        j = draw(st.integers(i + 2, rank - 1))
        return (i, j) if draw(st.booleans()) else (j - rank, i)
    chosen = draw(st.lists(st.integers(0, rank - 1), min_size=1, max_size=rank, unique=True))
    if pattern == "negative":
        return tuple(a - rank for a in chosen)
    return tuple(a - rank if draw(st.booleans()) else a for a in chosen)


def float_elements(dtype: str, mode: str) -> st.SearchStrategy[float]:
    width = {"float16": 16, "bfloat16": 32, "float32": 32, "float64": 64}[dtype]
    big = FLOAT64_LIMIT if dtype == "float64" else oracles.float_max(dtype)
    if mode == "moderate":
        return st.floats(-1000, 1000, width=width)
    if mode == "wide":
        return st.one_of(
            st.floats(-big, big, width=width),
            st.sampled_from([math.nan, math.inf, -math.inf, 0.0, -0.0]),
        )
    # "extreme": magnitudes near the top of the range (sums overflow) and the subnormals
    top = st.floats(big / 4, big, width=width).map(lambda v: v if v <= big else big)
    tiny = st.floats(0, oracles.ulp(dtype, 0.0) * 64, width=width)
    return st.one_of(top, top.map(lambda v: -v), tiny, tiny.map(lambda v: -v))


def int_elements(dtype: str, mode: str) -> st.SearchStrategy[int]:
    info = np.iinfo(DTYPES[dtype])
    lo, hi = int(info.min), int(info.max)
    if mode == "moderate":
        return st.integers(max(lo, -100), min(hi, 100))
    if mode == "wide":
        return st.integers(lo, hi)
    return st.one_of(
        st.sampled_from([lo, hi, lo + 1, hi - 1, 0]),
        st.integers(max(lo, hi // 2), hi),
        st.integers(lo, min(hi, lo // 2)) if lo < 0 else st.integers(0, 3),
    )


@st.composite
def arrays(draw: Any, dtype: str, shape: tuple[int, ...]) -> np.ndarray:
    mode = draw(st.sampled_from(["moderate", "moderate", "wide", "extreme"]))
    size = math.prod(shape)
    elements = float_elements(dtype, mode) if oracles.is_float(dtype) else int_elements(dtype, mode)
    values = draw(st.lists(elements, min_size=size, max_size=size))
    if dtype == "bfloat16":
        return np.array(values, dtype=np.float32).astype(BF16).reshape(shape)
    return np.array(values, dtype=object).astype(DTYPES[dtype]).reshape(shape)


@st.composite
def reduce_cases(draw: Any, domain: str, version: int, dtype: str) -> Case:
    shape = draw(shapes())
    x = draw(arrays(dtype, shape))
    x = oracles.with_layout(x, draw(st.sampled_from(oracles.LAYOUTS)), draw(st.integers(0, 99)))
    axes = draw(axes_for(len(shape), domain))
    keepdims = draw(st.sampled_from([None, True, False]))
    noop = domain == "onnx" and version >= 18 and draw(st.booleans())
    return Case(domain, "ReduceMean", version, dtype, (x,), axes=axes, keepdims=keepdims, noop=noop)


@st.composite
def broadcast_shapes(draw: Any, base: tuple[int, ...]) -> tuple[int, ...]:
    keep = draw(st.integers(0, len(base)))
    dims = list(base[len(base) - keep :])
    return tuple(1 if draw(st.integers(0, 3)) == 0 else d for d in dims)


@st.composite
def mean_cases(draw: Any, version: int, dtype: str) -> Case:
    base = draw(shapes(max_rank=5))
    count = draw(st.integers(1, 4))
    if version >= 8:
        shapes_ = [draw(broadcast_shapes(base)) for _ in range(count)]
        if draw(st.booleans()):
            shapes_[draw(st.integers(0, count - 1))] = base
    else:
        shapes_ = [base] * count
    inputs = tuple(
        oracles.with_layout(
            draw(arrays(dtype, s)), draw(st.sampled_from(oracles.LAYOUTS)), draw(st.integers(0, 99))
        )
        for s in shapes_
    )
    return Case("onnx", "Mean", version, dtype, inputs)


def check(case: Case) -> oracles.CaseResult:
    result = oracles.evaluate(case)
    failures = result.failures()
    assert not failures, "\n".join(failures)
    return result


# --------------------------------------------------------------------------- property tests


@pytest.mark.parametrize(("domain", "version", "dtype"), REDUCE_PARAMS)
@PROPERTY
@given(data=st.data())
def test_reduce_mean_agrees(domain: str, version: int, dtype: str, data: Any) -> None:
    check(data.draw(reduce_cases(domain, version, dtype)))


@pytest.mark.parametrize(("version", "dtype"), MEAN_PARAMS)
@PROPERTY
@given(data=st.data())
def test_mean_agrees(version: int, dtype: str, data: Any) -> None:
    check(data.draw(mean_cases(version, dtype)))


# --------------------------------------------------------------------------- runtimes without a kernel

# Verified against onnxruntime 1.32 (CPU): these calls cannot run at all.
# tools/conformance.py reports them; the property tests above then check
# meancli against the exact truth alone.
ORT_NO_KERNEL = [
    # no bfloat16 kernel for ReduceMean or Mean (13, 18: NOT_IMPLEMENTED; before 13 the type is invalid)
    *[("ReduceMean", v, "bfloat16") for v in (13, 18)],
    ("Mean", 13, "bfloat16"),
    # no uint32/uint64 ReduceMean kernel in any version
    *[("ReduceMean", v, t) for v in (1, 11, 13, 18) for t in ("uint32", "uint64")],
    # no float64 Mean kernel in any version
    *[("Mean", v, "float64") for v in (1, 6, 8, 13)],
    # no Mean-1 kernel at all
    ("Mean", 1, "float32"),
    # float16 runs through inserted Cast nodes to float32, which are invalid at opset 1
    ("ReduceMean", 1, "float16"),
    ("Mean", 1, "float16"),
]


@pytest.mark.parametrize(("op", "version", "dtype"), ORT_NO_KERNEL)
def test_onnxruntime_has_no_kernel(op: str, version: int, dtype: str) -> None:
    x = np.ones((2, 3), dtype=DTYPES[dtype])
    case = Case(
        "onnx", op, version, dtype, (x, x) if op == "Mean" else (x,), axes=(1,) if op != "Mean" else None
    )
    with pytest.raises(oracles.NoKernel):
        oracles.run_onnxruntime(case)
    check(case)  # meancli against the truth; the reference still runs


def test_onnxruntime_float16_runs_in_float32() -> None:
    """onnxruntime has no float16 ReduceMean/Mean kernel either; it inserts Casts to
    float32 around the float32 kernel, so 1000 x 60000 does not overflow there."""
    x = np.full(1000, 60000, dtype=np.float16)
    case = Case("onnx", "ReduceMean", 18, "float16", (x,))
    assert oracles.run_onnxruntime(case).tolist() == [60000.0]
    result = check(case)
    assert result.verdicts["onnx-reference"].key == "ref-float-overflow"  # the reference sums in float16: inf


# --------------------------------------------------------------------------- documented deviations, pinned

DEVIATION_CASES = [
    # (case, impl, deviation key): each documented deviation on one small input
    (
        Case("onnx", "ReduceMean", 18, "float32", (np.zeros((2, 0), np.float32),), axes=(1,)),
        "onnxruntime",
        "ort-empty-float",
    ),
    (
        Case("onnx", "ReduceMean", 13, "int32", (np.zeros((2, 0), np.int32),), axes=(1,)),
        "onnxruntime",
        "ort-empty-int",
    ),
    (
        Case("onnx", "ReduceMean", 13, "int32", (np.zeros((2, 0), np.int32),), axes=(1,)),
        "onnx-reference",
        "ref-empty-int",
    ),
    (
        Case("onnx", "ReduceMean", 18, "int64", (np.array([2**60 + 1] * 2, np.int64),)),
        "onnxruntime",
        "ort-int64-double",
    ),
    (
        Case("onnx", "ReduceMean", 18, "int64", (np.array([2**60 + 1] * 2, np.int64),)),
        "onnx-reference",
        "ref-int64-double",
    ),
    (  # one value just above 2**53 (hypothesis found it): its double sum is exactly 2**53
        Case("onnx", "ReduceMean", 18, "int64", (np.array([[0], [2**53 + 1]], np.int64),), axes=(-1,)),
        "onnxruntime",
        "ort-int64-double",
    ),
    (
        Case("onnx", "ReduceMean", 18, "int32", (np.array([2**31 - 1] * 2, np.int32),)),
        "onnx-reference",
        "ref-int-wrap",
    ),
    (
        Case("onnx", "ReduceMean", 13, "float32", (np.array([3e38, 3e38], np.float32),)),
        "onnxruntime",
        "ort-f32-overflow",
    ),
    (
        Case("onnx", "ReduceMean", 13, "float16", (np.full(1000, 60000, np.float16),)),
        "onnx-reference",
        "ref-float-overflow",
    ),
    (
        Case("onnx", "Mean", 8, "float16", (np.full(3, 6e4, np.float16), np.full(3, 6e4, np.float16))),
        "onnx-reference",
        "ref-float-overflow",
    ),
    (
        Case("onnx", "Mean", 13, "bfloat16", (np.full(2, 3e38, BF16), np.full((2, 1), 3e38, BF16))),
        "onnx-reference",
        "ref-mean-broadcast",
    ),
    (
        Case("onnx", "ReduceMean", 13, "bfloat16", (np.full(4, 3e38, BF16),)),
        "onnx-reference",
        "ref-float-overflow",
    ),
    (
        Case("openvino", "ReduceMean", 1, "float32", (np.zeros((2, 0), np.float32),), axes=(1,)),
        "openvino",
        "ov-empty-float",
    ),
    (
        Case("openvino", "ReduceMean", 1, "int16", (np.zeros((0, 3), np.int16),), axes=(0,)),
        "openvino",
        "ov-empty-int",
    ),
    (
        Case("openvino", "ReduceMean", 1, "float64", (np.array([1.0, 2.0**-40, 0.0]),), axes=(0,)),
        "openvino",
        "ov-f64-as-f32",
    ),
    (
        Case("openvino", "ReduceMean", 1, "float32", (np.ones((2, 3), np.float32),), axes=()),
        "openvino",
        "ov-empty-axes-keep-false",
    ),
    (
        Case(
            "openvino",
            "ReduceMean",
            1,
            "float32",
            (np.arange(2, dtype=np.float32).reshape(1, 1, 1, 1, 1, 2),),
            axes=(),
            keepdims=True,
        ),
        "openvino",
        "ov-identity-rank6",
    ),
    (
        Case(
            "openvino",
            "ReduceMean",
            1,
            "int32",
            (np.array([0, 3], np.int32).reshape(2, 1, 1, 1, 1, 1),),
            axes=(0, 2),
        ),
        "openvino",
        "ov-int-rank6-rounds",
    ),
    (
        Case("onnx", "ReduceMean", 13, "uint64", (np.array([1, 2**64 - 1], np.uint64),)),
        "onnx-reference",
        "ref-int-wrap",
    ),
    (
        Case("openvino", "ReduceMean", 1, "bfloat16", (np.full(3, 3e38, BF16),), axes=(0,)),
        "openvino",
        "ov-f32-overflow",
    ),
    (  # hypothesis found it: the identity of one bfloat16 subnormal
        Case("openvino", "ReduceMean", 1, "bfloat16", (np.array(1.46937e-39, BF16),), axes=()),
        "openvino",
        "ov-bf16-subnormal-flush",
    ),
    (
        Case("openvino", "ReduceMean", 1, "bfloat16", (np.full(2, 1.46937e-39, BF16),), axes=(0,)),
        "openvino",
        "ov-bf16-subnormal-flush",
    ),
    (
        Case("openvino", "ReduceMean", 1, "int8", (np.array([127, 127], np.int8),), axes=(0,)),
        "openvino",
        "ov-int8-saturate",
    ),
    (
        Case("openvino", "ReduceMean", 1, "uint8", (np.array([255, 255, 254], np.uint8),), axes=(0,)),
        "openvino",
        "ov-int8-saturate",
    ),
    (
        Case("openvino", "ReduceMean", 1, "int32", (np.array([2**24 + 1] * 3, np.int32),), axes=(0,)),
        "openvino",
        "ov-int32-path",
    ),
    (
        Case("openvino", "ReduceMean", 1, "int64", (np.array([2**40 + 1] * 2, np.int64),), axes=(0,)),
        "openvino",
        "ov-int32-path",
    ),
    (
        Case("openvino", "ReduceMean", 1, "uint32", (np.array([2**31 + 5, 1], np.uint32),), axes=(0,)),
        "openvino",
        "ov-int32-path",
    ),
]


@pytest.mark.parametrize(
    ("case", "impl", "key"), DEVIATION_CASES, ids=[f"{k}-{c.dtype}" for c, _, k in DEVIATION_CASES]
)
def test_documented_deviation(case: Case, impl: str, key: str) -> None:
    """The runtime deviates exactly as documented; meancli is held to the truth."""
    result = check(case)
    verdict = result.verdicts[impl]
    if key == "ov-bf16-subnormal-flush" and not oracles.ov_runs_bf16_natively():
        # The flush comes from native bfloat16 arithmetic; a CPU without it converts to float32.
        assert (verdict.status, verdict.key) == ("agree", "")
        return
    assert (verdict.status, verdict.key) == ("deviation", key)


def test_every_deviation_is_pinned() -> None:
    pinned = {key for _, _, key in DEVIATION_CASES}
    documented = {d.key for d in oracles.DEVIATIONS}
    assert documented == pinned


def test_integer_mean_truncates_toward_zero_everywhere() -> None:
    """-7/3 -> -2, -8/3 -> -2 (not -3), 7/3 -> 2: meancli and all three runtimes."""
    for dtype in ("int32", "int64"):
        x = np.array([[-7, 0, 0], [-8, 0, 0], [7, 0, 0], [-1, 0, 0]], dtype=DTYPES[dtype])
        for case in (
            Case("onnx", "ReduceMean", 18, dtype, (x,), axes=(1,), keepdims=False),
            Case("openvino", "ReduceMean", 1, dtype, (x,), axes=(1,)),
        ):
            result = check(case)
            assert result.meancli is not None and result.meancli.tolist() == [-2, -2, 2, 0]
            assert all(v.status == "agree" for v in result.verdicts.values())


# --------------------------------------------------------------------------- meancli bugs


@pytest.mark.parametrize("op", ["ReduceMean", "Mean"])
def test_float64_huge_mean(op: str) -> None:
    x = np.array([2.0**1000, 2.0**1000])
    case = (
        Case("onnx", "ReduceMean", 18, "float64", (x,))
        if op == "ReduceMean"
        else Case("onnx", "Mean", 13, "float64", (x[:1], x[1:]))
    )
    result = oracles.evaluate(case)
    assert result.meancli is not None and result.meancli.tolist() == [2.0**1000]


# --------------------------------------------------------------------------- ONNX's own test data


def _pytorch_operator_cases() -> list[Path]:
    import onnx

    root = Path(onnx.__file__).parent / "backend" / "test" / "data" / "pytorch-operator"
    return sorted(root.glob("test_operator_reduced_mean*"))


@pytest.mark.parametrize("case_dir", _pytorch_operator_cases(), ids=lambda p: p.name)
def test_onnx_backend_data_through_cli(case_dir: Path, tmp_path: Path) -> None:
    """ONNX's test_operator_reduced_mean* cases, through the command line."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(case_dir / "model.onnx"))
    (node,) = model.graph.node
    assert node.op_type == "ReduceMean"
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    sets = sorted(case_dir.glob("test_data_set_*"))
    assert sets
    for data_set in sets:
        x = numpy_helper.to_array(onnx.TensorProto.FromString((data_set / "input_0.pb").read_bytes()))
        want = numpy_helper.to_array(onnx.TensorProto.FromString((data_set / "output_0.pb").read_bytes()))
        np.save(tmp_path / "x.npy", x)
        argv = [
            "reduce-mean",
            str(tmp_path / "x.npy"),
            "--opset",
            str(opset),
        ]
        if "axes" in attrs:
            argv += ["--axes", ",".join(str(a) for a in attrs["axes"])]
        argv.append("--keep-dims" if attrs.get("keepdims", 1) else "--no-keep-dims")
        argv += ["-o", str(tmp_path / "y.npy"), "--quiet"]
        result = run_cli(*argv, cwd=tmp_path)
        assert result.exit_code == 0, result.stderr
        got = np.load(tmp_path / "y.npy")
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=2.0**-22, atol=0)
