"""meancli on dask.distributed against dask's and xarray's own mean, on one cluster.

    .venv/bin/python bench/distributed.py                 # 4 GiB float32 zarr store, --workers 2
    .venv/bin/python bench/distributed.py --gib 0.25      # a smoke run (or MEANCLI_BENCH_GIB=0.25)

A float32 zarr array (format 3, zarr's default codecs: bytes + zstd) of
--gib GiB is written once into --dir (kept for later runs), then reduced
over axis 0 and over all axes on a LocalCluster of --workers worker
processes (one thread each) by:

- meancli: dask.array.reduction with meancli's exact partial states (what
  ``meancli reduce-mean STORE --workers N`` runs);
- dask: ``dask.array.from_zarr(STORE).mean(axis)``;
- xarray: ``xarray.DataArray(dask array).mean(dim)`` (skipna, its default for floats);
- read+decode: every chunk read and decoded, nothing computed (the floor).

Each contender runs on freshly restarted workers, so the peak RSS of a worker
(``VmHWM``) is its own. The error is measured against the exact mean
(the exact sum of the float32 values in integers, tests/oracles.py, rounded
once), in units in the last place of the exact result. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import logging
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the exact oracle

from machine import cpu_info  # noqa: E402  (bench/, this script's directory)

COLS = 2048
CHUNK = (4096, 1024)  # 16 MiB float32 chunks


def make_store(path: Path, gib: float) -> Any:
    """A float32 array of about ``gib`` GiB: normal values with large cancelling pairs."""
    import zarr

    rows = max(CHUNK[0], int(gib * (1 << 30)) // (4 * COLS) // CHUNK[0] * CHUNK[0])
    if path.exists():
        array = zarr.open_array(str(path), mode="r")
        if array.shape == (rows, COLS):
            return array
    array = zarr.create_array(str(path), shape=(rows, COLS), chunks=CHUNK, dtype="float32", overwrite=True)
    rng = np.random.default_rng(2024)
    for a in range(0, rows, CHUNK[0]):
        block = rng.standard_normal((CHUNK[0], COLS), dtype=np.float32) * np.float32(100)
        block[0] = np.float32(3e37)  # a large value in every block...
        block[1] = np.float32(-3e37)  # ...cancelled in the same column
        array[a : a + CHUNK[0]] = block
    return array


def exact_means(array: Any) -> dict[str, np.ndarray]:
    """The exact means over axis 0 and over all axes, rounded once to float32."""
    import oracles

    rows, cols = array.shape
    sums = [0] * cols
    for a in range(0, rows, CHUNK[0]):
        block = np.asarray(array[a : a + CHUNK[0]], dtype=np.float64)
        for c, s in enumerate(oracles._exact_float_sums(np.ascontiguousarray(block.T), 24)):
            sums[c] += s
    den = 1 << oracles.SHIFT
    axis0 = np.array([oracles.round_rational(s, rows * den, "float32") for s in sums], dtype=np.float32)
    total = np.float32(oracles.round_rational(sum(sums), rows * cols * den, "float32"))
    return {"axis 0": axis0, "all axes": np.array(total, dtype=np.float32)}


def ulps(got: np.ndarray, exact: np.ndarray) -> float:
    got = np.asarray(got, dtype=np.float32).reshape(exact.shape)
    spacing = np.spacing(np.abs(exact)).astype(np.float64)
    with np.errstate(invalid="ignore"):
        return float(np.max(np.abs(got.astype(np.float64) - exact.astype(np.float64)) / spacing))


def _touch(block: np.ndarray) -> np.ndarray:
    return np.zeros((1, 1), dtype=block.dtype)


def contenders(store: str, axes: tuple[int, ...]) -> dict[str, Any]:
    """name -> a function building the dask collection to compute."""
    import dask.array as da

    import meancli

    def meancli_graph() -> Any:  # the public API: a lazy result of the store's own chunk grid
        return meancli.reduce_mean(meancli.open_lazy(store), axes=axes, keepdims=False)

    def dask_graph() -> Any:
        return da.from_zarr(store).mean(axis=axes)

    def xarray_graph() -> Any:
        import xarray as xr

        dims = ("row", "col")
        return xr.DataArray(da.from_zarr(store), dims=dims).mean(dim=[dims[d] for d in axes]).data

    def read_decode_graph() -> Any:
        x = da.from_zarr(store)
        return x.map_blocks(_touch, chunks=tuple((1,) * len(c) for c in x.chunks), dtype=x.dtype)

    return {
        "meancli": meancli_graph,
        "dask .mean()": dask_graph,
        "xarray .mean()": xarray_graph,
        "read+decode": read_decode_graph,
    }


def _vm_hwm_kib() -> int:
    # VmHWM, not ru_maxrss: the latter survives fork+exec, so a spawned worker would
    # report its parent's peak.
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def peak_rss_mib(client: Any) -> float:
    peaks = client.run(_vm_hwm_kib)
    return max(peaks.values()) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=float(os.environ.get("MEANCLI_BENCH_GIB", "4")))
    parser.add_argument("--dir", default=os.environ.get("MEANCLI_BENCH_DIR", str(ROOT / "bench" / "data")))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--reps", type=int, default=3, help="timed runs of each contender (median shown)")
    parser.add_argument("--warmup", type=int, default=1, help="untimed runs first (imports, kernel loading)")
    args = parser.parse_args()

    import distributed

    Path(args.dir).mkdir(parents=True, exist_ok=True)
    store = str(Path(args.dir) / f"bench-f32-{args.gib:g}gib.zarr")
    started = time.perf_counter()
    array = make_store(Path(store), args.gib)
    nbytes = array.nbytes
    print(
        f"store {store}: {array.shape} float32, {nbytes / (1 << 30):.2f} GiB, chunks {CHUNK}", file=sys.stderr
    )
    truth = exact_means(array)
    print(f"data and exact means ready in {time.perf_counter() - started:.0f} s", file=sys.stderr)

    rows = []
    for label, axes in (("axis 0", (0,)), ("all axes", (0, 1))):
        for name, build in contenders(store, axes).items():
            # a fresh cluster per contender: its workers' peak RSS is its own
            with (
                distributed.LocalCluster(
                    n_workers=args.workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                    silence_logs=logging.ERROR,
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                times, value = [], None
                for rep in range(args.warmup + args.reps):
                    graph = build()
                    t0 = time.perf_counter()
                    value = client.compute(graph).result()
                    if rep >= args.warmup:
                        times.append(time.perf_counter() - t0)
                rss = peak_rss_mib(client)
            error = "" if name == "read+decode" else f"{ulps(value, truth[label]):.3g}"
            rows.append((label, name, statistics.median(times), min(times), rss, error))
            print(
                f"{label:9} {name:15} {statistics.median(times):8.2f} s  error {error or '-'} ulp",
                file=sys.stderr,
            )

    print(
        f"\nmeancli on dask.distributed: {nbytes / (1 << 30):.2f} GiB float32 zarr (zstd), chunks {CHUNK}, "
        f"LocalCluster {args.workers} workers x 1 thread; CPU: {cpu_info()[0]}; median of {args.reps}\n"
    )
    print(
        "| reduce | contender | wall s (median) | wall s (min) | GiB/s | vs dask .mean() | vs read+decode "
        "| peak RSS per worker MiB | max error (ulp) |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, name, med, best, rss, error in rows:
        dask_med = next(r[2] for r in rows if r[0] == label and r[1] == "dask .mean()")
        floor = next(r[2] for r in rows if r[0] == label and r[1] == "read+decode")
        print(
            f"| {label} | {name} | {med:.2f} | {best:.2f} | {nbytes / med / (1 << 30):.2f} | "
            f"{med / dask_med:.2f}x | {med / floor:.2f}x | {rss:.0f} | {error} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
