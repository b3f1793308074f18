"""Write docs/conformance.md: meancli against onnxruntime, the ONNX reference and OpenVINO.

Run by ``make conformance``. For every operator version and every dtype its
spec allows, a fixed, seeded set of cases (random shapes of rank 0..6 with
sizes 0 and 1, every axes pattern, keepdims both ways, special and extreme
values, C/Fortran/byte-swapped/strided/permuted memory layouts) plus
hand-picked edge cases goes through tests/oracles.py:
meancli against the exact truth, then each runtime against meancli, and every
disagreement is either explained by a documented deviation or reported as
unexplained. The output depends only on the seeds, the installed versions
and whether OpenVINO runs bfloat16 natively: run it twice, get the same file.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))  # tests/oracles.py
sys.path.append(str(REPO))  # meancli itself, when it is not installed

import oracles  # noqa: E402
from meancli.generated.registry import OPS  # noqa: E402
from oracles import BF16, DTYPES, Case  # noqa: E402

SEED = 20240607
SIZES = (0, 1, 1, 2, 2, 3, 3, 4, 5, 7)
MAX_SIZE = 400
REDUCE_CASES = 60  # random cases per ReduceMean version and dtype
MEAN_CASES = 40  # random cases per Mean version and dtype
FLOAT64_LIMIT = 2.0**990  # beyond: the float64 NaN bug (reported separately)
IMPL_TITLES = {"onnxruntime": "onnxruntime", "onnx-reference": "ONNX reference", "openvino": "OpenVINO"}


# --------------------------------------------------------------------------- case generation


def rng_for(*parts: object) -> np.random.Generator:
    return np.random.default_rng([SEED, zlib.crc32(repr(parts).encode())])


def random_shape(rng: np.random.Generator, max_rank: int = 6) -> tuple[int, ...]:
    rank = int(rng.integers(0, max_rank + 1))
    dims = [int(d) for d in rng.choice(SIZES, rank)]
    while math.prod(dims) > MAX_SIZE:
        dims[dims.index(max(dims))] -= 1
    return tuple(dims)


def random_axes(rng: np.random.Generator, rank: int, domain: str) -> tuple[str, tuple[int, ...] | None]:
    pattern = str(rng.choice(oracles.axes_patterns(rank, domain)))
    if pattern == "omitted":
        return pattern, None
    if pattern == "empty":
        return pattern, ()
    if pattern == "single":
        return pattern, (int(rng.integers(-rank, rank)),)
    if pattern == "all":
        return pattern, tuple(int(a) - rank if rng.random() < 0.5 else int(a) for a in rng.permutation(rank))
    if pattern == "non-adjacent":
        i = int(rng.integers(0, rank - 2))
        j = int(rng.integers(i + 2, rank))
        return pattern, (i, j - rank)
    k = int(rng.integers(1, rank + 1))
    chosen = [int(a) for a in rng.choice(rank, k, replace=False)]
    if pattern == "negative":
        return pattern, tuple(a - rank for a in chosen)
    return pattern, tuple(a - rank if rng.random() < 0.5 else a for a in chosen)


def random_values(rng: np.random.Generator, dtype: str, shape: tuple[int, ...]) -> tuple[str, np.ndarray]:
    mode = str(rng.choice(["moderate", "moderate", "moderate", "wide", "extreme"]))
    size = math.prod(shape)
    if oracles.is_float(dtype):
        top = FLOAT64_LIMIT if dtype == "float64" else oracles.float_max(dtype)
        if mode == "moderate":
            v = rng.uniform(-1000, 1000, size)
        elif mode == "wide":
            v = rng.choice([-1.0, 1.0], size) * np.exp2(rng.uniform(-30, math.log2(top), size))
            special = rng.random(size) < 0.1
            v[special] = rng.choice([math.nan, math.inf, -math.inf, 0.0, -0.0], int(special.sum()))
        else:
            v = rng.choice([-1.0, 1.0], size) * rng.uniform(top / 4, top, size)
            tiny = rng.random(size) < 0.3
            v[tiny] = rng.uniform(-64, 64, int(tiny.sum())) * oracles.ulp(dtype, 0.0)
        with np.errstate(over="ignore"):
            x = v.astype(np.float32).astype(BF16) if dtype == "bfloat16" else v.astype(DTYPES[dtype])
        return mode, x.reshape(shape)
    info = np.iinfo(DTYPES[dtype])
    lo, hi = int(info.min), int(info.max)
    if mode == "moderate":
        vals = rng.integers(max(lo, -100), min(hi, 100), size, endpoint=True)
        return mode, vals.astype(DTYPES[dtype]).reshape(shape)
    if mode == "wide":
        return mode, rng.integers(lo, hi, size, dtype=DTYPES[dtype], endpoint=True).reshape(shape)
    edges = np.array([lo, hi, lo + 1, hi - 1, 0, hi // 2 + 1], dtype=object)
    vals = edges[rng.integers(0, len(edges), size)]
    return mode, np.array(vals.tolist(), dtype=object).astype(DTYPES[dtype]).reshape(shape)


@dataclass
class Tagged:
    case: Case
    tags: tuple[str, ...]  # coverage: axes pattern, value mode, rank, size-0...


def random_reduce_cases(domain: str, version: int, dtype: str, count: int) -> Iterator[Tagged]:
    rng = rng_for("ReduceMean", domain, version, dtype)
    for _ in range(count):
        shape = random_shape(rng)
        mode, x = random_values(rng, dtype, shape)
        pattern, axes = random_axes(rng, len(shape), domain)
        keepdims = [None, True, False][int(rng.integers(0, 3))]
        noop = domain == "onnx" and version >= 18 and bool(rng.random() < 0.5)
        layout = str(rng.choice(oracles.LAYOUTS))
        x = oracles.with_layout(x, layout, int(rng.integers(0, 100)))
        case = Case(domain, "ReduceMean", version, dtype, (x,), axes=axes, keepdims=keepdims, noop=noop)
        tags = (f"axes:{pattern}", f"values:{mode}", f"rank:{len(shape)}", f"layout:{layout}")
        yield Tagged(case, (*tags, *_size_tags(shape)))


def random_mean_cases(version: int, dtype: str, count: int) -> Iterator[Tagged]:
    rng = rng_for("Mean", version, dtype)
    for _ in range(count):
        base = random_shape(rng, max_rank=5)
        k = int(rng.integers(1, 5))
        if version >= 8:
            shapes = []
            for _ in range(k):
                keep = int(rng.integers(0, len(base) + 1))
                dims = base[len(base) - keep :]
                shapes.append(tuple(1 if rng.random() < 0.25 else d for d in dims))
            if rng.random() < 0.5:
                shapes[int(rng.integers(0, k))] = base
        else:
            shapes = [base] * k
        modes, inputs = zip(*(random_values(rng, dtype, s) for s in shapes), strict=True)
        layout = str(rng.choice(oracles.LAYOUTS))
        inputs = tuple(oracles.with_layout(x, layout, int(rng.integers(0, 100))) for x in inputs)
        case = Case("onnx", "Mean", version, dtype, inputs)
        out = np.broadcast_shapes(*shapes)
        tags = (f"inputs:{k}", f"values:{modes[0]}", f"rank:{len(out)}", f"layout:{layout}")
        yield Tagged(case, (*tags, *_size_tags(out)))


def _size_tags(shape: tuple[int, ...]) -> tuple[str, ...]:
    tags = []
    if 0 in shape:
        tags.append("size-0 dim")
    if 1 in shape:
        tags.append("size-1 dim")
    return tuple(tags)


def edge_cases(domain: str, op: str, version: int, dtype: str) -> Iterator[Tagged]:
    """Hand-picked: empty groups, scalars, NaN/inf, overflow-prone sums, the runtimes' weak spots."""
    dt = DTYPES[dtype]

    def arr(values: object, shape: tuple[int, ...] | None = None) -> np.ndarray:
        with np.errstate(over="ignore"):
            a = np.array(values, dtype=np.float64 if oracles.is_float(dtype) else object)
            a = a.astype(np.float32).astype(BF16) if dtype == "bfloat16" else a.astype(dt)
        return a.reshape(shape) if shape is not None else a

    def tagged(case: Case, *tags: str) -> Tagged:
        return Tagged(case, ("edge", *tags))

    if op == "Mean":
        yield tagged(Case("onnx", op, version, dtype, (arr(1.5, ()), arr(2.5, ()))), "rank:0")
        yield tagged(Case("onnx", op, version, dtype, (arr([], (2, 0)), arr([], (2, 0)))), "size-0 dim")
        yield tagged(
            Case("onnx", op, version, dtype, (arr([math.nan, math.inf, math.inf]), arr([1, -math.inf, 1])))
        )
        top = FLOAT64_LIMIT if dtype == "float64" else oracles.float_max(dtype)
        yield tagged(Case("onnx", op, version, dtype, (arr([top, -top]), arr([top, -top]))), "overflow")
        if version >= 8:
            yield tagged(Case("onnx", op, version, dtype, (arr([1, 2, 3]), arr([[1], [2]]))), "broadcast")
            yield tagged(Case("onnx", op, version, dtype, (arr([], (0, 3)), arr([1], (1,)))), "size-0 dim")
        return
    axes_all: tuple[int, ...] | None = (0,) if domain == "openvino" else None
    yield tagged(Case(domain, op, version, dtype, (arr([], (2, 0)),), axes=(1,)), "size-0 dim", "empty group")
    yield tagged(
        Case(domain, op, version, dtype, (arr(5, ()),), axes=() if domain == "openvino" else None), "rank:0"
    )
    yield tagged(Case(domain, op, version, dtype, (arr(range(24), (2, 3, 4)),), axes=(0, -1), keepdims=False))
    if oracles.is_float(dtype):
        yield tagged(
            Case(
                domain,
                op,
                version,
                dtype,
                (arr([[math.nan, 1], [math.inf, -math.inf], [math.inf, 1]]),),
                axes=(1,),
            ),
            "specials",
        )
        top = FLOAT64_LIMIT if dtype == "float64" else oracles.float_max(dtype)
        yield tagged(
            Case(domain, op, version, dtype, (arr([top, top * 0.9, top * 0.8]),), axes=axes_all), "overflow"
        )
        if dtype == "float16":
            yield tagged(
                Case(domain, op, version, dtype, (arr([60000.0] * 1000),), axes=axes_all), "overflow"
            )
        if dtype == "float64":
            yield tagged(Case(domain, op, version, dtype, (arr([1.0, 2.0**-40, 0.0]),), axes=axes_all))
    else:
        info = np.iinfo(dt)
        lo, hi = int(info.min), int(info.max)
        yield tagged(
            Case(domain, op, version, dtype, (arr([[hi, hi], [lo, lo], [lo, hi], [hi, hi - 1]]),), axes=(1,)),
            "limits",
        )
        if lo < 0:
            yield tagged(
                Case(domain, op, version, dtype, (arr([[-7, 0, 0], [-8, 0, 0], [-1, 0, 0]]),), axes=(1,)),
                "truncation",
            )
        if dt.itemsize >= 4:
            yield tagged(Case(domain, op, version, dtype, (arr([2**24 + 1] * 3),), axes=axes_all), "2**24")
        if dt.itemsize == 8:
            yield tagged(Case(domain, op, version, dtype, (arr([2**60 + 1] * 2),), axes=axes_all), "2**53")
        if dt.itemsize == 1:
            yield tagged(
                Case(domain, op, version, dtype, (arr([[0, 0, 0], [0, 0, 0], [28, 100, 2]]),), axes=(0, 1))
            )
    if domain == "openvino":
        yield tagged(Case(domain, op, version, dtype, (arr(range(6), (2, 3)),), axes=()), "identity")
        yield tagged(
            Case(domain, op, version, dtype, (arr([0, 1], (1, 1, 1, 1, 1, 2)),), axes=(), keepdims=True),
            "identity",
            "rank:6",
        )
        yield tagged(
            Case(domain, op, version, dtype, (arr([0, 3, 1, 1, 0, 2], (3, 1, 1, 1, 1, 2)),), axes=(0, 2)),
            "rank:6",
        )
    if domain == "onnx" and version >= 18:
        yield tagged(Case(domain, op, version, dtype, (arr(range(6), (2, 3)),), axes=(), noop=True), "noop")
        yield tagged(Case(domain, op, version, dtype, (arr(range(6), (2, 3)),), axes=None, noop=True), "noop")


def all_cases() -> Iterator[tuple[str, str, Tagged]]:
    for op in OPS:
        label = f"{op.name}-{op.since_version} ({op.domain})"
        for dtype in op.types:
            if op.kind == "reduce":
                yield from (
                    (label, dtype, t) for t in edge_cases(op.domain, op.name, op.since_version, dtype)
                )
                yield from (
                    (label, dtype, t)
                    for t in random_reduce_cases(op.domain, op.since_version, dtype, REDUCE_CASES)
                )
            else:
                yield from ((label, dtype, t) for t in edge_cases("onnx", "Mean", op.since_version, dtype))
                yield from ((label, dtype, t) for t in random_mean_cases(op.since_version, dtype, MEAN_CASES))


# --------------------------------------------------------------------------- tallying


@dataclass
class Row:
    cases: int = 0
    meancli_ok: int = 0
    meancli_rejects: int = 0  # integer mean over an empty set: rejected, as the README's Semantics say
    impls: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    no_kernel: dict[str, str] = field(default_factory=dict)


@dataclass
class Example:
    case: Case
    impl: str
    got: object
    want: object
    keys: int = 1  # documented differences the runtime's result needed (examples prefer 1)


def fmt_values(a: object, limit: int = 6) -> str:
    if a is None:
        return "(rejected)"
    arr = np.asarray(a)
    flat = arr.ravel()
    body = ", ".join(_fmt_scalar(v) for v in flat[:limit].tolist())
    more = ", ..." if flat.size > limit else ""
    return f"[{body}{more}]" if arr.ndim else body


def _fmt_scalar(v: object) -> str:
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(v)]
    return str(v)


def run(
    verbose: bool,
) -> tuple[dict[tuple[str, str], Row], dict[str, list[Example]], list[Example], Counter[str], int]:
    rows: dict[tuple[str, str], Row] = defaultdict(Row)
    deviations: dict[str, list[Example]] = defaultdict(list)
    unexplained: list[Example] = []
    coverage: Counter[str] = Counter()
    total = 0
    for label, dtype, tagged in all_cases():
        case = tagged.case
        total += 1
        coverage.update(tagged.tags)
        result = oracles.evaluate(case)
        row = rows[(label, dtype)]
        row.cases += 1
        row.meancli_ok += result.meancli_ok
        row.meancli_rejects += result.meancli_ok and result.truth.value is None
        if not result.meancli_ok:
            unexplained.append(Example(case, "meancli", result.meancli, result.truth.value))
        for impl, verdict in result.verdicts.items():
            row.impls[impl][verdict.status] += 1
            if verdict.status == "no-kernel":
                row.no_kernel[impl] = verdict.key
            elif verdict.status == "deviation":
                keys = verdict.key.split("+")
                for key in keys:
                    deviations[key].append(Example(case, impl, verdict.got, result.truth.value, len(keys)))
            elif verdict.status == "mismatch":
                unexplained.append(
                    Example(
                        case,
                        impl,
                        verdict.got if verdict.got is not None else verdict.key,
                        result.truth.value,
                    )
                )
        if verbose and total % 250 == 0:
            print(f"{total} cases", file=sys.stderr)
    return rows, deviations, unexplained, coverage, total


# --------------------------------------------------------------------------- the report

_TRUNC = np.array([[-7, 0, 0], [-8, 0, 0], [7, 0, 0], [-1, 0, 0]], dtype=np.int32)
_F16 = np.full(1000, 60000.0, dtype=np.float16)
OBSERVATIONS = [
    (
        "Integer means truncate toward zero everywhere (rows [-7,0,0], [-8,0,0], [7,0,0], [-1,0,0])",
        [
            Case("onnx", "ReduceMean", 18, "int32", (_TRUNC,), axes=(1,), keepdims=False),
            Case("openvino", "ReduceMean", 1, "int32", (_TRUNC,), axes=(1,)),
        ],
    ),
    (
        "float16: onnxruntime has no float16 kernel and inserts Casts to float32, OpenVINO's CPU plugin "
        "computes in float32, the ONNX reference sums in float16 (1000 x 60000.0)",
        [
            Case("onnx", "ReduceMean", 18, "float16", (_F16,)),
            Case("openvino", "ReduceMean", 1, "float16", (_F16,), axes=(0,)),
        ],
    ),
]

# (title, case, "bug" or "within design"); each entry's note in KNOWN_NOTES. Empty:
# the two it held (float64 means above 2^996 were NaN; float32 was not always
# correctly rounded) are fixed, and tests/test_correctly_rounded.py keeps their inputs.
KNOWN_ISSUES: list[tuple[str, Case, str]] = []
KNOWN_NOTES: dict[str, str] = {}


def versions() -> list[str]:
    import onnx
    import onnxruntime
    import openvino

    import meancli

    return [
        f"meancli {meancli.__version__}",
        f"numpy {np.__version__}",
        f"onnx {onnx.__version__} (reference evaluator)",
        f"onnxruntime {onnxruntime.__version__} (CPUExecutionProvider)",
        f"openvino {openvino.get_version().split('-')[0]} (CPU plugin, INFERENCE_PRECISION_HINT=f32; "
        f"bfloat16 {'native' if oracles.ov_runs_bf16_natively() else 'as float32'} on this CPU)",
    ]


def cell(row: Row, impl: str) -> str:
    c = row.impls.get(impl)
    if not c:
        return "-"
    if c["no-kernel"] == row.cases:
        return "no kernel"
    parts = [f"{c['agree']}/{row.cases}"]
    if c["deviation"]:
        parts.append(f"{c['deviation']} dev")
    if c["no-kernel"]:
        parts.append(f"{c['no-kernel']} no kernel")
    if c["mismatch"]:
        parts.append(f"**{c['mismatch']} unexplained**")
    return ", ".join(parts)


def tolerance_lines() -> list[str]:
    lines = []
    for name in oracles.FLOAT_FORMATS:
        p = oracles.FLOAT_FORMATS[name][0]
        lines.append(f"| {name} | 2^-{p} | 1 ulp(exact) + 2^-{p} * sum(abs(x)) |")
    lines.append("| int8 .. uint64 | - | exact |")
    return lines


def write_report(
    path: Path,
    rows: dict[tuple[str, str], Row],
    deviations: dict[str, list[Example]],
    unexplained: list[Example],
    coverage: Counter[str],
    total: int,
) -> None:
    out: list[str] = []
    w = out.append
    w("# Conformance: meancli against onnxruntime, the ONNX reference and OpenVINO")
    w("")
    w("<!-- GENERATED FILE -- DO NOT EDIT. `make conformance` (tools/conformance.py) writes it. -->")
    w("")
    w(
        f"Generated by `tools/conformance.py` (seed {SEED}; the same versions and bfloat16 support "
        "give the same file) with:"
    )
    w("")
    for v in versions():
        w(f"- {v}")
    w("")
    w("## How the cases are judged")
    w("")
    w("Every case runs through `tests/oracles.py`, which `tests/test_conformance.py` uses too:")
    w("")
    w("1. **meancli against the exact truth.** The truth is the exact mean: sums in integer arithmetic")
    w("   (every float is an integer multiple of 2^-1074), divided by the count and rounded once to the")
    w("   output dtype; integers truncated toward zero; NaN for a float mean over an empty set; an")
    w("   integer mean over an empty set is undefined and meancli must reject it (README). meancli")
    w("   must be within half an ulp of it (plus the double-rounding slack of accumulating in double);")
    w("   float64 within half an ulp or no worse than numpy's pairwise mean.")
    w("2. **Each runtime against meancli.** Each runtime runs a one-node model of the same operator")
    w("   version: onnxruntime and the ONNX reference on an ONNX model built with `onnx.helper` at the")
    w("   operator's own opset, OpenVINO on an `openvino.opset1` model (Parameter -> ReduceMean-1 with a")
    w("   Constant axes input). meancli gets each input in a seeded memory layout (C or Fortran order,")
    w("   byte-swapped, strided, dims permuted); the runtimes get C-order native copies. Integers must")
    w("   agree exactly; floats within:")
    w("")
    w("   | dtype | u | tolerance |")
    w("   |---|---|---|")
    for line in tolerance_lines():
        w("   " + line)
    w("")
    w("   (u * sum(abs(x)) is the error bound of summing in the dtype itself, so any implementation that")
    w("   accumulates in the dtype or wider and divides once agrees; NaN agrees with NaN, an infinity")
    w("   with the same infinity.)")
    w("3. A disagreement counts as a **documented difference** only when the mechanism written down")
    w("   for it (below) accounts for every disagreeing element; anything else is **unexplained**.")
    w("   A runtime that cannot run the version and dtype at all is **no kernel**: meancli is then")
    w("   checked against the truth alone.")
    w("")
    w("## Results")
    w("")
    w(f"{total} cases. Cells: cases where the runtime agrees / cases; `dev`: documented differences.")
    w("")
    w("| operator version | dtype | cases | meancli = truth | onnxruntime | ONNX reference | OpenVINO |")
    w("|---|---|---:|---:|---|---|---|")
    for (label, dtype), row in rows.items():
        truth = f"{row.meancli_ok}/{row.cases}"
        if row.meancli_rejects:
            truth += f" ({row.meancli_rejects} rejected)"
        if row.meancli_ok != row.cases:
            truth = f"**{truth}**"
        w(
            f"| {label} | {dtype} | {row.cases} | {truth} | {cell(row, 'onnxruntime')} | "
            f"{cell(row, 'onnx-reference')} | {cell(row, 'openvino')} |"
        )
    w("")
    w("`(n rejected)`: integer means over a size-0 axis, which meancli rejects as the README requires.")
    w("")
    w("### Coverage")
    w("")
    cov = sorted(coverage.items(), key=lambda kv: (kv[0].split(":")[0], _natural(kv[0])))
    w(", ".join(f"{k}: {v}" for k, v in cov) + ".")
    w("")
    w("## Runtimes without a kernel")
    w("")
    w("| runtime | operator version | dtypes | error |")
    w("|---|---|---|---|")
    nk: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for (label, dtype), row in rows.items():
        for impl, msg in row.no_kernel.items():
            nk[(impl, label, _short(msg))].append(dtype)
    for (impl, label, msg), dts in nk.items():
        w(f"| {IMPL_TITLES[impl]} | {label} | {', '.join(dts)} | {msg} |")
    w("")
    w("## Documented differences")
    w("")
    w("Each one: the runtime, what differs and why, how many cases showed it, and one of them")
    w("(meancli's value is the exact truth in every case listed).")
    w("")
    for dev in oracles.DEVIATIONS:
        examples = deviations.get(dev.key, [])
        w(f"- **{dev.key}** ({IMPL_TITLES[dev.impl]}): {dev.summary}.")
        if examples:
            ops = sorted({f"{e.case.op}-{e.case.version} {e.case.dtype}" for e in examples})
            shown = ", ".join(ops[:6]) + (f" and {len(ops) - 6} more" if len(ops) > 6 else "")
            ex = min(examples, key=lambda e: (e.keys, sum(x.size for x in e.case.inputs), e.case.describe()))
            w(
                f"  Seen in {len(examples)} case(s): {shown}. Example: `{ex.case.describe(200)}`: "
                f"{IMPL_TITLES[dev.impl]} gives `{fmt_values(ex.got)}`, exact `{fmt_values(ex.want)}`."
            )
        else:
            w("  Not triggered by this run's cases.")
    w("")
    w("## Observations")
    w("")
    for title, cases in OBSERVATIONS:
        parts = []
        for case in cases:
            for impl in ("meancli", *oracles.impls_for(case)):
                try:
                    got = oracles.run_meancli(case) if impl == "meancli" else oracles.RUNNERS[impl](case)
                    text = fmt_values(got)
                except oracles.NoKernel:
                    text = "no kernel"
                name = impl if impl == "meancli" else IMPL_TITLES[impl]
                parts.append(f"{name} ({case.label}) `{text}`")
        w(f"- {title}: " + "; ".join(parts) + ".")
    w("")
    w("## Known meancli issues (found by these checks)")
    w("")
    if not KNOWN_ISSUES:
        w("None: every float result is the exact mean rounded once.")
    for title, case, note in KNOWN_ISSUES:
        result = oracles.evaluate(case, impls=())
        same = result.meancli is not None and result.meancli.tobytes() == result.truth.value.tobytes()
        status = f"{note}, not reproduced" if same else note
        w(
            f"- **{title}** ({status}): `{case.describe(200)}` gives `{fmt_values(result.meancli)}`, "
            f"exact `{fmt_values(result.truth.value)}`. {KNOWN_NOTES[title]}"
        )
    w("")
    w("## Unexplained")
    w("")
    if not unexplained:
        w("None: every disagreement above is a documented difference, and meancli matched the truth in")
        w("every case.")
    else:
        for e in unexplained[:50]:
            got, want = fmt_values(e.got), fmt_values(e.want)
            w(f"- {e.impl}: `{e.case.describe(200)}` gives `{got}`, exact `{want}`")
        if len(unexplained) > 50:
            w(f"- ... and {len(unexplained) - 50} more")
    w("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out))


def _natural(tag: str) -> tuple[int, str]:
    tail = tag.split(":")[-1]
    return (int(tail), "") if tail.isdigit() else (10**9, tag)


def _short(msg: str) -> str:
    text = msg.replace("|", "/")
    for marker in ("NOT_IMPLEMENTED : ", "INVALID_GRAPH : "):
        if marker in text:
            text = text.split(marker, 1)[1]
    return text[:140]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, default=REPO / "docs" / "conformance.md")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    start = time.perf_counter()
    rows, deviations, unexplained, coverage, total = run(args.verbose)
    write_report(args.output, rows, deviations, unexplained, coverage, total)
    elapsed = time.perf_counter() - start
    print(f"{args.output}: {total} cases, {len(unexplained)} unexplained, {elapsed:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
