"""--skipna / skipna=True (meancli's own extension): each output is the exact
mean of its non-NaN values, rounded once, judged against the exact rational
oracle (oracles.exact_reduce_mean / exact_mean with skipna=True) for every
float dtype, layout, thread count, instruction set, chunk grid and engine
(in memory, streamed, dask in this process and on a 2-worker cluster)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ml_dtypes
import numpy as np
import oracles
import pytest
from conftest import run_cli
from oracles import same_bits

import meancli
from meancli import kernels
from meancli.errors import SpecViolation

FLOATS = ("float16", "bfloat16", "float32", "float64")
STREAMED = {"MEANCLI_STREAM_MIN_BYTES": "1", "MEANCLI_SLAB_BYTES": "4096"}
IN_MEMORY = {"MEANCLI_STREAM_MIN_BYTES": str(1 << 60)}


def with_nan(
    name: str, shape: tuple[int, ...], seed: int, frac: float = 0.1, specials: bool = True
) -> np.ndarray:
    """Values of dtype ``name`` (wide magnitudes, cancellation, ties) with a
    ``frac`` of NaN, a few infinities, and (rank >= 2) a row that is all NaN."""
    rng = np.random.default_rng(seed)
    dtype = oracles.DTYPES[name]
    size = int(np.prod(shape))
    e = 14 if name == "float16" else 40
    v = rng.standard_normal(size) * 2.0 ** rng.integers(-e, e, size)
    small = rng.random(size) < 0.2  # small integers: ties and exact cancellations
    v[small] = rng.integers(-4, 5, int(small.sum()))
    x = v.astype(dtype)
    x[rng.random(size) < frac] = np.nan
    if specials and size > 8:
        x[rng.integers(0, size, 2)] = np.array([np.inf, -np.inf]).astype(dtype)
    x = x.reshape(shape)
    if len(shape) >= 2 and shape[0] > 1:
        x[1] = np.nan
    return x


# --------------------------------------------------------------------------- in memory, every layout

LAYOUTS = [
    ((7, 300), (0,), False),  # first axis
    ((7, 300), (1,), False),  # last axis
    ((5, 9, 40), (1,), True),  # middle axis, keepdims
    ((5, 9, 40), None, False),  # all
    ((5, 9, 40), (0, 2), True),
    ((3, 4, 5, 6), (-1, 1), False),
    ((1000,), (0,), False),
    ((), None, False),
]


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize(("shape", "axes", "keepdims"), LAYOUTS)
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_reduce_skipna_is_the_exact_mean_of_the_values_kept(
    name: str, shape: tuple[int, ...], axes: Any, keepdims: bool, threads: int, layout: str
) -> None:
    x = with_nan(name, shape, seed=len(shape) + threads)
    want = oracles.exact_reduce_mean(x, axes, keepdims, skipna=True)
    data = oracles.with_layout(x, layout) if shape else x
    got = meancli.reduce_mean(data, axes, keepdims, skipna=True, threads=threads)
    assert same_bits(got, want)
    plain = meancli.reduce_mean(x, axes, keepdims, threads=threads)
    assert same_bits(plain, oracles.exact_reduce_mean(x, axes, keepdims))  # unchanged without it


@pytest.mark.slow
@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16"])
@pytest.mark.parametrize(
    ("shape", "axes"),
    [
        ((2100, 600), (0,)),  # several copies of a slab, rows reduced: counts shared by the threads
        ((2100, 600), (1,)),
        ((3, (1 << 19) + 5), (1,)),  # one row larger than a copy
        ((3, 70001), (0,)),  # one row larger than a copy on one thread
        (((1 << 20) + 77,), (0,)),
    ],
)
def test_reduce_skipna_large_inputs(name: str, shape: tuple[int, ...], axes: tuple[int, ...]) -> None:
    x = with_nan(name, shape, seed=3, frac=0.01)
    want = oracles.exact_reduce_mean(x, axes, skipna=True)
    for threads in (1, 2):
        assert same_bits(meancli.reduce_mean(x, axes, False, skipna=True, threads=threads), want)


def _row(name: str, values: list[float]) -> np.ndarray:
    return np.array([values], dtype=np.float64).astype(oracles.DTYPES[name])


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([np.nan, np.nan, np.nan], np.nan),  # no value kept
        ([np.inf, -np.inf, np.nan, 1.0], np.nan),  # infinities are values
        ([np.inf, np.nan, 1.0], np.inf),
        ([-np.inf, np.nan], -np.inf),
        ([-0.0, np.nan, -0.0], -0.0),  # the mean of -0.0s
        ([1.0, -1.0, np.nan], 0.0),  # an exact cancellation
        ([1.0, np.nan, 2.0, np.nan], 1.5),  # divided by the count kept
        ([3.0, np.nan], 3.0),
    ],
)
def test_skipna_edge_cases(name: str, values: list[float], expected: float) -> None:
    x = _row(name, values)
    got = meancli.reduce_mean(x, [1], False, skipna=True)
    want = np.array([expected]).astype(oracles.DTYPES[name])
    assert same_bits(got, want)
    assert same_bits(got, oracles.exact_reduce_mean(x, [1], skipna=True))


def test_skipna_float16_does_not_overflow() -> None:
    """numpy's float16 nanmean overflows (numpy#23075); the exact mean does not."""
    x = np.array([60000, 60000, np.nan, 60000], dtype=np.float16)
    assert meancli.reduce_mean(x, skipna=True) == np.float16(60000)
    assert same_bits(
        meancli.reduce_mean(x, skipna=True), oracles.exact_reduce_mean(x, None, True, skipna=True)
    )


@pytest.mark.parametrize("name", FLOATS)
def test_skipna_empty_reductions_are_nan(name: str) -> None:
    x = np.zeros((3, 0), oracles.DTYPES[name])
    got = meancli.reduce_mean(x, [1], False, skipna=True)
    assert got.shape == (3,) and np.isnan(got.astype(np.float64)).all()
    assert meancli.reduce_mean(np.zeros((0, 4), oracles.DTYPES[name]), [1], skipna=True).shape == (0, 1)


@pytest.mark.parametrize("name", ["int32", "int64", "uint8", "int8"])
def test_skipna_changes_nothing_for_integers(name: str) -> None:
    rng = np.random.default_rng(5)
    info = np.iinfo(oracles.DTYPES[name])
    x = rng.integers(info.min, info.max, (9, 33), endpoint=True, dtype=oracles.DTYPES[name])
    opset = "openvino:1" if name in ("uint8", "int8") else None
    for axes in ([0], [1]):
        got = meancli.reduce_mean(x, axes, skipna=True, opset=opset)
        assert same_bits(got, meancli.reduce_mean(x, axes, opset=opset))
        assert same_bits(got, oracles.exact_reduce_mean(x, axes, opset is None, skipna=True))
    with pytest.raises(SpecViolation):
        meancli.reduce_mean(np.zeros((2, 0), np.int32), [1], skipna=True)


def test_skipna_noop_with_empty_axes_is_the_identity() -> None:
    x = with_nan("float32", (4, 6), seed=1)
    got = meancli.reduce_mean(x, [], skipna=True, noop_with_empty_axes=True)
    assert same_bits(got, x)


@pytest.mark.parametrize("opset", ["onnx:1", "onnx:11", "onnx:13", "onnx:18", "openvino:1"])
def test_skipna_every_reduce_version(opset: str) -> None:
    x = with_nan("float32", (6, 50), seed=2)
    got = meancli.reduce_mean(x, [1], True, opset=opset, skipna=True)
    assert same_bits(got, oracles.exact_reduce_mean(x, [1], True, skipna=True))


def test_skipna_must_be_a_bool() -> None:
    with pytest.raises(meancli.errors.UsageError, match="skipna"):
        meancli.reduce_mean(np.zeros(3, np.float32), skipna="yes")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- every instruction set


@pytest.fixture
def isas() -> Any:
    saved = kernels.isas_in_use()
    yield kernels.supported_isas()
    for (kind, dtype), name in saved.items():
        kernels.use_isa(name, dtype, kind)


@pytest.mark.parametrize("name", FLOATS)
def test_skipna_exact_on_every_instruction_set(name: str, isas: tuple[str, ...]) -> None:
    cases = [((40, 700), (0,)), ((40, 700), (1,)), ((6, 30), (0,)), ((700, 20), (1,)), ((5, 9, 40), (0, 2))]
    for isa in isas:
        kernels.use_isa(isa)
        for shape, axes in cases:
            x = with_nan(name, shape, seed=sum(shape))
            want = oracles.exact_reduce_mean(x, axes, skipna=True)
            assert same_bits(meancli.reduce_mean(x, axes, False, skipna=True, threads=2), want), (
                isa,
                shape,
                axes,
            )
        a, b = with_nan(name, (30, 17), 1), with_nan(name, (17,), 2)
        assert same_bits(meancli.mean(a, b, skipna=True), oracles.exact_mean([a, b], skipna=True)), isa


# --------------------------------------------------------------------------- Mean


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize(
    "shapes",
    [[(4, 5), (4, 5), (4, 5)], [(3, 1, 6), (7, 1), (6,)], [(), (2, 3)], [(50, 40), (50, 40)], [(0, 3), (3,)]],
)
def test_mean_skipna_is_the_exact_mean_of_the_values_kept(name: str, shapes: list[tuple[int, ...]]) -> None:
    arrays = [with_nan(name, s, seed=k, frac=0.3) for k, s in enumerate(shapes)]
    want = oracles.exact_mean(arrays, skipna=True)
    for threads in (1, 2):
        assert same_bits(meancli.mean(*arrays, skipna=True, threads=threads), want)


def test_mean_skipna_edge_cases_and_versions() -> None:
    a = np.array([np.nan, np.inf, np.nan, 1.0, -0.0], np.float32)
    b = np.array([np.nan, -np.inf, 2.0, np.nan, np.nan], np.float32)
    want = np.array([np.nan, np.nan, 2.0, 1.0, -0.0], np.float32)
    for opset in ("onnx:1", "onnx:6", "onnx:8", "onnx:13"):
        assert same_bits(meancli.mean(a, b, skipna=True, opset=opset), want)
    ints = np.arange(6, dtype=np.int32)
    with pytest.raises(SpecViolation):  # Mean takes no integers: unchanged by skipna
        meancli.mean(ints, ints, skipna=True)


# --------------------------------------------------------------------------- partial states, chunk grids


@pytest.mark.parametrize("name", FLOATS)
def test_skipna_partial_states_combine_to_the_same_bits(name: str) -> None:
    x = with_nan(name, (40, 33), seed=9, frac=0.3)
    x[:20, 5] = np.nan  # one part of a column all NaN, the other not
    x[:, 7] = np.nan  # a column all NaN in every part
    want = oracles.exact_reduce_mean(x, [0], True, skipna=True)
    whole = kernels.reduce_kept(x, (0,), threads=1, skipna=True)
    assert same_bits(whole, want)
    for cuts in ([20], [1, 7, 30], [13, 14]):
        parts = np.split(x, cuts, axis=0)
        states = np.concatenate(
            [kernels.reduce_partial(p, (0,), threads=2, skipna=True) for p in parts], axis=0
        )
        got = kernels.finalize_partials(kernels.combine_partials(states, (0,), name), name)
        assert same_bits(got, want), cuts


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("chunks", [(5, 7, 11), (24, 3, 7), (1, 9, 20), (17, 9, 8)])
def test_skipna_same_bits_on_any_chunk_grid(name: str, chunks: tuple[int, ...]) -> None:
    da = pytest.importorskip("dask.array")
    x = with_nan(name, (24, 9, 20), seed=4, frac=0.2)
    dx = da.from_array(x, chunks=chunks)
    for axes in ([0], [2], [0, 2], [1]):
        want = oracles.exact_reduce_mean(x, axes, skipna=True)
        got = meancli.reduce_mean(dx, axes, False, skipna=True).compute(scheduler="threads")
        assert same_bits(got, want), axes
    a = with_nan(name, (24, 9, 20), seed=5, frac=0.5)
    got = meancli.mean(dx, da.from_array(a, chunks=chunks[::-1]), skipna=True).compute(scheduler="threads")
    assert same_bits(got, oracles.exact_mean([x, a], skipna=True))


# --------------------------------------------------------------------------- the command line, every engine


def _save(path: Path, x: np.ndarray) -> None:
    np.save(path, x)


def _load(path: Path, name: str) -> np.ndarray:
    y = np.load(path)
    return y.view(ml_dtypes.bfloat16) if name == "bfloat16" else y


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("env", [IN_MEMORY, STREAMED], ids=["memory", "streamed"])
def test_cli_skipna_memory_and_streamed(tmp_path: Path, name: str, env: dict[str, str]) -> None:
    x = with_nan(name, (60, 50), seed=6, frac=0.2)
    _save(tmp_path / "x.npy", x)
    for axes in ("0", "1"):
        out = tmp_path / f"r{axes}.npy"
        proc = run_cli(
            "reduce-mean",
            "x.npy",
            "--axes",
            axes,
            "--no-keep-dims",
            "--skipna",
            "-o",
            out.name,
            "--quiet",
            env=env,
            cwd=tmp_path,
        )
        assert proc.exit_code == 0, proc.stderr
        assert same_bits(_load(out, name), oracles.exact_reduce_mean(x, [int(axes)], skipna=True))
    a = with_nan(name, (60, 50), seed=7, frac=0.5)
    _save(tmp_path / "a.npy", a)
    proc = run_cli("mean", "x.npy", "a.npy", "--skipna", "-o", "m.npy", "--quiet", env=env, cwd=tmp_path)
    assert proc.exit_code == 0, proc.stderr
    assert same_bits(_load(tmp_path / "m.npy", name), oracles.exact_mean([x, a], skipna=True))


def test_cli_skipna_is_named_in_the_report_and_json(tmp_path: Path) -> None:
    _save(tmp_path / "x.npy", np.array([[1.0, np.nan, 2.0]], np.float32))
    proc = run_cli("reduce-mean", "x.npy", "--axes", "1", "--skipna", "--json", cwd=tmp_path)
    assert proc.exit_code == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["skipna"] is True and "meancli's own extension" in report["skipna_extension"]
    assert report["result"] == [[1.5]]
    text = run_cli("reduce-mean", "x.npy", "--axes", "1", "--skipna", "-o", "r.npy", cwd=tmp_path)
    assert text.exit_code == 0 and "skipna (meancli's own extension" in text.stdout
    plain = run_cli("reduce-mean", "x.npy", "--axes", "1", "--json", cwd=tmp_path)
    assert "skipna" not in json.loads(plain.stdout)  # ONNX semantics without it
    mean = run_cli("mean", "x.npy", "x.npy", "--skipna", "--json", cwd=tmp_path)
    assert json.loads(mean.stdout)["skipna"] is True


@pytest.mark.parametrize("grid", [(7, 50), (60, 3), (13, 17)])
def test_cli_skipna_zarr_and_shards_in_this_process(tmp_path: Path, grid: tuple[int, int]) -> None:
    zarr = pytest.importorskip("zarr")
    x = with_nan("float32", (60, 50), seed=8, frac=0.2)
    store = zarr.create_array(str(tmp_path / "x.zarr"), shape=x.shape, chunks=grid, dtype=x.dtype)
    store[...] = x
    (tmp_path / "shards").mkdir()
    for k, part in enumerate(np.split(x, [grid[0], 2 * grid[0]] if 2 * grid[0] < 60 else [grid[0]])):
        np.save(tmp_path / "shards" / f"part{k:03d}.npy", part)
    for src in ("x.zarr", "shards"):
        for axes in ("0", "1"):
            proc = run_cli(
                "reduce-mean",
                src,
                "--axes",
                axes,
                "--no-keep-dims",
                "--skipna",
                "-o",
                "r.npy",
                "--quiet",
                cwd=tmp_path,
            )
            assert proc.exit_code == 0, proc.stderr
            assert same_bits(
                np.load(tmp_path / "r.npy"), oracles.exact_reduce_mean(x, [int(axes)], skipna=True)
            )


@pytest.mark.cluster
@pytest.mark.slow
def test_cli_skipna_on_two_workers(tmp_path: Path) -> None:
    """--workers 2: a LocalCluster on 127.0.0.1 for the run, closed by the run."""
    zarr = pytest.importorskip("zarr")
    x = with_nan("float64", (90, 40), seed=10, frac=0.3)
    store = zarr.create_array(str(tmp_path / "x.zarr"), shape=x.shape, chunks=(13, 7), dtype=x.dtype)
    store[...] = x
    a = with_nan("float64", (90, 40), seed=11, frac=0.3)
    np.save(tmp_path / "a.npy", a)
    args = ["--skipna", "--workers", "2", "--quiet"]
    proc = run_cli(
        "reduce-mean",
        "x.zarr",
        "--axes",
        "0",
        "--no-keep-dims",
        "-o",
        "r.npy",
        *args,
        cwd=tmp_path,
        subprocess=True,
    )
    assert proc.exit_code == 0, proc.stderr
    assert same_bits(np.load(tmp_path / "r.npy"), oracles.exact_reduce_mean(x, [0], skipna=True))
    proc = run_cli("mean", "x.zarr", "a.npy", "-o", "m.npy", *args, cwd=tmp_path, subprocess=True)
    assert proc.exit_code == 0, proc.stderr
    assert same_bits(np.load(tmp_path / "m.npy"), oracles.exact_mean([x, a], skipna=True))


@pytest.mark.parametrize("name", FLOATS)
def test_mean_skipna_on_threads(name: str) -> None:
    """Enough outputs for the threads to share (pieces of 4096 outputs); broadcast
    and Fortran-order inputs."""
    a = with_nan(name, (300, 400), seed=12, frac=0.3)
    b = np.asfortranarray(with_nan(name, (300, 400), seed=13, frac=0.3))
    c = with_nan(name, (400,), seed=14, frac=0.3)
    d = with_nan(name, (300, 1), seed=15, frac=0.3)
    want = oracles.exact_mean([a, b, c, d], skipna=True)
    for threads in (1, 2):
        assert same_bits(meancli.mean(a, b, c, d, skipna=True, threads=threads), want)
