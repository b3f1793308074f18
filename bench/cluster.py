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

Then the same reduction over axis 0 reads a copy of a smaller store
(--s3-gib, default 0.5 GiB: the S3 server holds it in memory) from a local
S3 server (moto's ThreadedMotoServer on 127.0.0.1, an ephemeral port, stopped
at the end): meancli's workers each open the store themselves from its URL
(``meancli reduce-mean s3://... --workers N``), against dask's
``from_zarr(URL).mean()`` on the same cluster (--s3-gib 0 skips it).

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


def s3_contenders(url: str, options: dict[str, Any], axes: tuple[int, ...]) -> dict[str, Any]:
    """name -> a function building the dask collection to compute, reading the store at ``url``."""
    import dask.array as da

    import meancli

    def meancli_graph() -> Any:  # each worker opens the store from its URL and options
        return meancli.reduce_mean(meancli.open_lazy(url, storage_options=options), axes=axes, keepdims=False)

    def dask_graph() -> Any:
        return da.from_zarr(url, storage_options=options).mean(axis=axes)

    return {"meancli (S3)": meancli_graph, "dask .mean() (S3)": dask_graph}


def start_s3(store: str, bucket: str) -> tuple[Any, str, dict[str, Any]]:
    """A moto S3 server on 127.0.0.1 holding a copy of the zarr directory ``store``:
    (the server, the store's URL, the storage options to reach it). Test credentials go
    to os.environ, so the workers (spawned after) read them as from a real deployment."""
    import s3fs
    from moto.server import ThreadedMotoServer

    os.environ.update(
        AWS_ACCESS_KEY_ID="bench", AWS_SECRET_ACCESS_KEY="bench", AWS_DEFAULT_REGION="us-east-1"
    )
    logging.getLogger("werkzeug").setLevel(logging.WARNING)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    options = {"endpoint_url": f"http://{host}:{port}"}
    fs = s3fs.S3FileSystem(**options)
    fs.mkdir(bucket)
    name = Path(store).name
    fs.put(store, f"{bucket}/{name}", recursive=True)
    return server, f"s3://{bucket}/{name}", options


def _cluster(workers: int) -> Any:
    import distributed

    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    )


def _timed(client: Any, build: Any, warmup: int, reps: int) -> tuple[list[float], Any]:
    times, value = [], None
    for rep in range(warmup + reps):
        graph = build()
        t0 = time.perf_counter()
        value = client.compute(graph).result()
        if rep >= warmup:
            times.append(time.perf_counter() - t0)
    return times, value


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
    parser.add_argument(
        "--s3-gib",
        type=float,
        default=float(os.environ.get("MEANCLI_BENCH_S3_GIB", "0.5")),
        help="GiB of the store read from a local S3 server (0: no S3 run)",
    )
    args = parser.parse_args()

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
            with _cluster(args.workers) as cluster, distributed_client(cluster) as client:
                times, value = _timed(client, build, args.warmup, args.reps)
                rss = peak_rss_mib(client)
            error = "" if name == "read+decode" else f"{ulps(value, truth[label]):.3g}"
            rows.append((label, name, statistics.median(times), min(times), rss, error))
            print(
                f"{label:9} {name:15} {statistics.median(times):8.2f} s  error {error or '-'} ulp",
                file=sys.stderr,
            )

    s3_rows = s3_run(args) if args.s3_gib > 0 else []

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
    if s3_rows:
        s3_bytes = s3_rows[0][-1]
        print(
            f"\nThe same over axis 0, read from a local S3 server (moto, 127.0.0.1): "
            f"{s3_bytes / (1 << 30):.2f} GiB float32 zarr; each worker opens the store from its URL\n"
        )
        print(
            "| reduce | contender | wall s (median) | wall s (min) | GiB/s "
            "| peak RSS per worker MiB | max error (ulp) |"
        )
        print("|---|---|---:|---:|---:|---:|---:|")
        for label, name, med, best, rss, error, nb in s3_rows:
            speed = nb / med / (1 << 30)
            print(f"| {label} | {name} | {med:.2f} | {best:.2f} | {speed:.2f} | {rss:.0f} | {error} |")
    return 0


def distributed_client(cluster: Any) -> Any:
    import distributed

    return distributed.Client(cluster)


def s3_run(args: Any) -> list[tuple[Any, ...]]:
    """Axis 0 of a --s3-gib store read from a local S3 server by meancli and by dask."""
    store = str(Path(args.dir) / f"bench-f32-{args.s3_gib:g}gib.zarr")
    array = make_store(Path(store), args.s3_gib)
    truth = exact_means(array)["axis 0"]
    server, url, options = start_s3(store, "bench")
    rows: list[tuple[Any, ...]] = []
    try:
        print(f"S3 store {url} at {options['endpoint_url']}", file=sys.stderr)
        for name, build in s3_contenders(url, options, (0,)).items():
            with _cluster(args.workers) as cluster, distributed_client(cluster) as client:
                times, value = _timed(client, build, args.warmup, args.reps)
                rss = peak_rss_mib(client)
            error = f"{ulps(value, truth):.3g}"
            med = statistics.median(times)
            rows.append(("axis 0", name, med, min(times), rss, error, array.nbytes))
            print(f"axis 0    {name:18} {med:8.2f} s  error {error} ulp", file=sys.stderr)
    finally:
        server.stop()
    return rows


if __name__ == "__main__":
    sys.exit(main())
