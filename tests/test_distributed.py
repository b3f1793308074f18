"""The dask engine: the same bits for every chunk grid and wherever it runs.

Three places run the same graphs: this process (dask's synchronous
scheduler), a LocalCluster of two worker processes (what ``--workers 2``
starts; ``--workers 1`` runs in the command-line tests), and an external
cluster started here as ``dask scheduler`` + two ``dask worker`` processes
(what ``--scheduler`` reaches). One cluster of each kind serves the whole module;
every server listens on 127.0.0.1 and is shut down at the end, also when a
test fails. Results are held to the exact mean rounded once
(tests/oracles.py), on inputs whose sums cancel.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import dask.array as da
import numpy as np
import oracles
import pytest
from conftest import run_cli
from oracles import same_bits

import meancli
from meancli.engine import no_progress
from meancli.engine.dask.cluster import connect
from meancli.engine.dask.compute import compute
from meancli.engine.dask.graphs import as_dask, plan_chunks, reduce_graph
from meancli.engine.where import Where
from meancli.errors import UsageError, extra_hint
from meancli.io.zarr_output import temporary_store
from meancli.ops.opset import resolve
from meancli.ops.validate import validate_reduce

FLOATS = ("float16", "bfloat16", "float32", "float64")
INTS = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
SHAPE = (40, 6, 5)
# (chunks, split_every): one chunk; uneven chunks; one row per chunk (a deep tree); thin slabs across
GRIDS = [((40, 6, 5), None), ((7, 4, 3), 2), ((1, 6, 5), 3), ((13, 1, 2), None)]
AXES = [(0,), (1, 2), (0, 1, 2), (2,)]
#: On a cluster, the grids that spread one graph's tasks over the workers (uneven chunks in a
#: tree of combines), one per axes in turn; every grid runs in this process, where the chunk
#: grid is what varies. The bits do not depend on the place; checking every grid on every
#: place cost minutes of the suite's CPU.
CLUSTER_GRIDS = [((7, 4, 3), 2), ((13, 1, 2), None)]
#: Where the bit-identity tests run: this process, and the two kinds of cluster that move
#: partial states between processes (a LocalCluster of two workers, an external scheduler).
#: ``--workers 1`` runs the same code as ``--workers 2`` with one worker: the command-line
#: tests below run it.
PLACES = ("this process", "workers 2", "external")
#: The places as parameters: all but this process start clusters (marked ``cluster``).
PLACE_PARAMS = [pytest.param(p, marks=[] if p == "this process" else [pytest.mark.cluster]) for p in PLACES]


def grids_at(place: str, k: int) -> list[tuple[tuple[int, ...], int | None]]:
    """The chunk grids of the ``k``-th axes (or call) at ``place``: every one in this
    process, one of CLUSTER_GRIDS in turn on a cluster."""
    return GRIDS if place == "this process" else [CLUSTER_GRIDS[k % len(CLUSTER_GRIDS)]]


MEANCLI = [sys.executable, "-m", "meancli"]


# --------------------------------------------------------------------------- clusters


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def external(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1; yields the address."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = tmp_path_factory.mktemp("cluster")
    procs: list[subprocess.Popen[bytes]] = []
    common = {"stdout": subprocess.DEVNULL, "cwd": log}
    scheduler = ["scheduler", "--host", "127.0.0.1", "--port", str(port)]
    scheduler += ["--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    worker = ["worker", address, "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1"]
    worker += ["--no-dashboard", "--nanny-port", "0", "--worker-port", "0"]
    try:
        for k, args in enumerate([scheduler, worker, worker]):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "dask", *args],
                    stderr=open(log / f"process{k}.log", "wb"),  # noqa: SIM115 -- closed with the process
                    **common,
                )
            )
        yield address
    finally:  # the workers first: a worker whose scheduler left waits to reconnect
        for group in (procs[1:], procs[:1]):
            for p in group:
                p.terminate()
            for p in group:
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def client_for(place: str, request: pytest.FixtureRequest) -> Any:
    """The client of ``place``: None for this process (no cluster started), else
    from the module's ``clients`` (started on first use, shut down at its end)."""
    return None if place == "this process" else request.getfixturevalue("clients")[place]


@pytest.fixture(scope="module")
def clients(external: str) -> Iterator[dict[str, Any]]:
    """A client per place (None: this process), through the engine's own connect()."""
    with ExitStack() as stack:
        out: dict[str, Any] = {"this process": None}
        out["workers 2"] = stack.enter_context(connect(Where(workers=2)))
        out["external"] = stack.enter_context(connect(Where(scheduler=external, timeout=60)))
        out["external"].wait_for_workers(2, timeout=60)
        yield out


# --------------------------------------------------------------------------- inputs and truth


def cancelling(name: str, shape: tuple[int, ...], seed: int) -> np.ndarray:
    """Values whose sums cancel: large values and their negations among small ones,
    at the type's extremes (sums that overflow the type itself)."""
    rng = np.random.default_rng(seed)
    dtype = oracles.DTYPES[name]
    size = int(np.prod(shape))
    if name in FLOATS:
        big = {"float16": 6e4, "bfloat16": 1e38, "float32": 1e30, "float64": 1e300}[name]
        x = rng.standard_normal(size) * rng.choice([1e-3, 1.0, 1e3], size)
        k = size // 4
        x[:k] = big * rng.choice([-1.0, 1.0], k)
        x[k : 2 * k] = -x[:k]  # cancels exactly, in another chunk
        rng.shuffle(x)
        return x.astype(dtype).reshape(shape)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, size=size, dtype=dtype, endpoint=True)
    x[: size // 3] = info.max  # sums far beyond the type
    rng.shuffle(x)
    return x.reshape(shape)


def exact_reduce(x: np.ndarray, axes: tuple[int, ...], out_shape: tuple[int, ...]) -> np.ndarray:
    return oracles.exact_reduce_mean(x, axes).reshape(out_shape)


def exact_mean(xs: list[np.ndarray]) -> np.ndarray:
    return oracles.exact_mean(xs)


# --------------------------------------------------------------------------- bit-identity


@pytest.mark.parametrize("place", PLACE_PARAMS)
@pytest.mark.parametrize("name", FLOATS + INTS)
def test_reduce_mean_same_bits_on_every_grid_and_place(
    name: str, place: str, request: pytest.FixtureRequest
) -> None:
    op = resolve("ReduceMean", "openvino:1" if name in ("int8", "uint8", "int16", "uint16") else "18")
    x = cancelling(name, SHAPE, seed=len(name))
    graphs, truths = [], []
    for k, axes in enumerate(AXES):
        call = validate_reduce(op, x.dtype, x.shape, axes, True)
        truth = exact_reduce(x, axes, call.out_shape)
        for chunks, split_every in grids_at(place, k):  # each grid as it is
            dx = da.from_array(x, chunks=chunks)
            graphs.append(reduce_graph(dx, call, name, split_every=split_every, plan=False))
            truths.append((axes, chunks, truth))
        if place == "this process":  # and as the engine plans it (shallow chunks merged
            # along the reduced axes): planning is the same wherever the graph then runs
            graphs.append(reduce_graph(da.from_array(x, chunks=(1, 2, 5)), call, name))
            truths.append((axes, "planned", truth))
    results = compute(graphs, client_for(place, request), no_progress)
    for got, (axes, chunks, truth) in zip(results, truths, strict=True):
        assert same_bits(got, truth), (axes, chunks)
        in_memory = meancli.reduce_mean(x, axes=axes, keepdims=True, opset=f"{op.domain}:{op.since_version}")
        assert same_bits(got, in_memory), (axes, chunks)  # one machine's bits


@pytest.mark.parametrize("place", PLACE_PARAMS)
@pytest.mark.parametrize("name", FLOATS)
def test_mean_same_bits_on_every_grid_and_place(
    name: str, place: str, request: pytest.FixtureRequest
) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal(SHAPE).astype(oracles.DTYPES[name])
    b = (-a[:, :1, :] + rng.standard_normal((40, 1, 5)).astype(a.dtype) * np.array(1e-2, a.dtype)).astype(
        a.dtype
    )  # cancels a's first column
    c = rng.standard_normal((6, 1)).astype(a.dtype)
    truth = exact_mean([a, b, c])
    graphs = []
    for chunks, _ in GRIDS if place == "this process" else CLUSTER_GRIDS:  # Mean: few tasks
        xs = [da.from_array(a, chunks=chunks), da.from_array(b, chunks=(chunks[0], 1, chunks[2])), c]
        graphs.append(meancli.mean(*xs, opset=13))
    for got in compute(graphs, client_for(place, request), no_progress):
        assert same_bits(got, truth)
        assert same_bits(got, meancli.mean(a, b, c))  # and the in-memory kernel's bits


def test_float16_count_beyond_float16_range() -> None:
    """70,000 float16 values: the count itself is beyond float16 (dask's own mean gives inf/NaN)."""
    x = np.full((70_000,), 3.0, dtype=np.float16)
    lazy = meancli.reduce_mean(da.from_array(x, chunks=999), axes=0, keepdims=False)
    assert lazy.compute().tobytes() == np.float16(3.0).tobytes()


# --------------------------------------------------------------------------- the command line


def write_zarr_stores(tmp_path: Path, x: np.ndarray, chunks: tuple[int, ...]) -> dict[str, str]:
    """The same array as zarr format 2 and 3 (default codecs), a group member, a zip store."""
    import zarr

    v3 = zarr.create_array(str(tmp_path / "a3.zarr"), shape=x.shape, chunks=chunks, dtype=x.dtype)
    v3[...] = x
    v2 = zarr.create_array(
        str(tmp_path / "a2.zarr"), shape=x.shape, chunks=chunks, dtype=x.dtype, zarr_format=2
    )
    v2[...] = x
    group = zarr.open_group(str(tmp_path / "g.zarr"), mode="w")
    member = group.create_array("fields/t", shape=x.shape, chunks=chunks, dtype=x.dtype)
    member[...] = x
    store = zarr.storage.ZipStore(str(tmp_path / "z.zarr.zip"), mode="w")
    zipped = zarr.create_array(store, shape=x.shape, chunks=chunks, dtype=x.dtype)
    zipped[...] = x
    store.close()
    return {
        "v3": "a3.zarr",
        "v2": "a2.zarr",
        "group": "g.zarr:fields/t",
        "zip": "z.zarr.zip",
    }


def cli(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[bytes]:
    """``meancli ARGS`` through conftest.run_cli: in process, or a real process when
    the run starts or reaches a cluster (its workers must not inherit the test's descriptors)."""
    real = any(a.split("=")[0] in ("--workers", "--scheduler") for a in args)
    r = run_cli(*args, cwd=cwd, subprocess=real, timeout=timeout)
    return subprocess.CompletedProcess(args, r.exit_code, r.stdout_bytes, r.stderr.encode())


def load(path: Path) -> np.ndarray:
    from meancli.io.npy_read import read_npy

    return read_npy(str(path), mmap=False)[0]  # bfloat16 too


@pytest.mark.parametrize("name", ["float32", "float64", "int64", "uint64", "float16"])
def test_cli_zarr_in_process_every_store_kind(name: str, tmp_path: Path) -> None:
    x = cancelling(name, (30, 4, 6), seed=3)
    stores = write_zarr_stores(tmp_path, x, (7, 3, 4))
    call_truth = exact_reduce(x, (0, 2), (1, 4, 1))
    for kind, arg in stores.items():
        proc = cli(["reduce-mean", arg, "--axes", "0", "2", "-o", f"{kind}.npy", "--quiet"], tmp_path)
        assert proc.returncode == 0, proc.stderr.decode()
        assert same_bits(load(tmp_path / f"{kind}.npy"), call_truth), kind


def test_a_missing_path_in_a_store_lists_what_the_store_holds(tmp_path: Path) -> None:
    """A store that is one array says so (the store's name reads it), zipped or not;
    a group lists its paths."""
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    stores = write_zarr_stores(tmp_path, x, (2, 3))
    for store in (stores["zip"], stores["v3"], stores["v2"]):
        proc = cli(["reduce-mean", f"{store}:nope"], tmp_path)
        assert proc.returncode == 1
        assert proc.stderr.decode().splitlines() == [
            f"error: {store}:nope: no array or group there (the store holds: one array at its root, "
            f"of shape (4, 6) and dtype float32: give {store} alone)"
        ]
        proc = cli(["reduce-mean", store, "--no-keep-dims", "-o", "r.npy", "-q"], tmp_path)
        assert proc.returncode == 0 and same_bits(load(tmp_path / "r.npy"), exact_reduce(x, (0, 1), ()))
    proc = cli(["reduce-mean", "g.zarr:nope"], tmp_path)
    assert proc.stderr.decode().splitlines() == [
        "error: g.zarr:nope: no array or group there (the store holds: fields, fields/t)"
    ]


@pytest.mark.cluster
def test_cli_workers_and_scheduler_same_bits(tmp_path: Path, external: str, clients: dict[str, Any]) -> None:
    x = cancelling("float32", (50, 8, 3), seed=5)
    write_zarr_stores(tmp_path, x, (9, 5, 3))
    truth = exact_reduce(x, (0,), (8, 3))
    for where in (["--workers", "1"], ["--workers", "2"], ["--scheduler", external]):
        proc = cli(
            ["reduce-mean", "a3.zarr", "--axes", "0", "--no-keep-dims", "-o", "r.npy", "--json", *where],
            tmp_path,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert same_bits(load(tmp_path / "r.npy"), truth), where
        import json

        engine_info = json.loads(proc.stdout)["engine"]
        assert engine_info["name"] == "dask" and engine_info["chunks"] == [
            {"chunk_shape": [9, 5, 3], "grid": [6, 2, 1]}
        ]
        assert engine_info["workers"] == (2 if where[0] == "--scheduler" else int(where[1]))


@pytest.mark.cluster
def test_cli_mean_of_zarr_stores_to_zarr_on_workers(tmp_path: Path) -> None:
    import zarr

    rng = np.random.default_rng(1)
    a = rng.standard_normal((30, 20)).astype(np.float32)
    b = rng.standard_normal((20,)).astype(np.float32)
    za = zarr.create_array(str(tmp_path / "a.zarr"), shape=a.shape, chunks=(7, 6), dtype=a.dtype)
    za[...] = a
    np.save(tmp_path / "b.npy", b)
    proc = cli(["mean", "a.zarr", "b.npy", "-o", "m.zarr", "--workers", "2", "--quiet"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    got = zarr.open_array(str(tmp_path / "m.zarr"), mode="r")[...]
    assert same_bits(got, exact_mean([a, b]))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "a.zarr",
        "b.npy",
        "m.zarr",
    ]  # no temporary store left


@pytest.mark.parametrize("name", ["bfloat16", "float16", "int32"])
def test_cli_shard_dataset_forms(name: str, tmp_path: Path) -> None:
    x = cancelling(name, (45, 3, 2), seed=9)
    shards = tmp_path / "shards"
    shards.mkdir()
    cuts = [0, 4, 4, 19, 30, 45]  # an empty shard too
    for k, (a, b) in enumerate(itertools.pairwise(cuts)):
        np.save(shards / f"part-{k:03d}.npy", x[a:b])
    (tmp_path / "list.txt").write_text(
        "# in order\n" + "".join(f"shards/part-{k:03d}.npy\n" for k in range(5))
    )
    op = "openvino:1" if name == "int32" else "18"
    truth = exact_reduce(x, (0, 2), (1, 3, 1))
    for arg in ("shards", "shards/part-*.npy", "@list.txt"):
        proc = cli(
            ["reduce-mean", arg, "--axes", "0", "2", "--keep-dims", "--opset", op, "-o", "r.npy", "-q"],
            tmp_path,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert same_bits(load(tmp_path / "r.npy"), truth), arg
    # axis 1: the output keeps the dataset's rows in shard order
    proc = cli(
        ["reduce-mean", "@list.txt", "--axes", "1", "--keep-dims", "--opset", op, "-o", "r1.npy", "-q"],
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert same_bits(load(tmp_path / "r1.npy"), exact_reduce(x, (1,), (45, 1, 2)))


# --------------------------------------------------------------------------- faults


@pytest.mark.cluster
def test_worker_killed_mid_run_gives_the_same_bits(clients: dict[str, Any]) -> None:
    client = clients["workers 2"]
    x = cancelling("float64", (64, 50), seed=11)
    slow = da.from_array(x, chunks=(4, 50)).map_blocks(lambda b: (time.sleep(0.25), b)[1], dtype=x.dtype)
    call = validate_reduce(resolve("ReduceMean"), x.dtype, x.shape, (0,), False)
    future = client.compute(reduce_graph(slow, call, "float64", split_every=4, plan=False))
    time.sleep(1.0)  # some chunks done, some running
    pids = client.run(os.getpid)
    os.kill(next(iter(pids.values())), signal.SIGKILL)
    got = future.result(timeout=120)
    assert same_bits(got, exact_reduce(x, (0,), (50,)))
    client.wait_for_workers(2, timeout=60)  # the nanny restarted it for the next tests


@pytest.mark.slow  # waits for --timeout 2
def test_unreachable_scheduler_is_one_line_within_timeout(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    started = time.monotonic()
    proc = cli(
        ["reduce-mean", "x.npy", "--scheduler", f"tcp://127.0.0.1:{_free_port()}", "--timeout", "2"], tmp_path
    )
    assert time.monotonic() - started < 30
    assert proc.returncode == 1
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: cannot reach the dask scheduler at tcp://127.0.0.1:"
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("bogus", "missing port number in address 'bogus'"),
        ("tcp://[::1", "invalid address '[::1'; maybe: ipv6 needs brackets like [::1]"),
        ("tcp://127.0.0.1:99999", "port 99999 is not from 1 to 65535"),
        ("tcp://:8786", "no host"),
        ("nope://127.0.0.1:8786", "unknown address scheme 'nope'"),
    ],
)
def test_a_malformed_scheduler_address_is_an_immediate_usage_error(
    tmp_path: Path, address: str, why: str
) -> None:
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    for command in (["reduce-mean", "x.npy"], ["mean", "x.npy"]):
        started = time.monotonic()
        proc = cli([*command, "--scheduler", address, "--timeout", "60", "-o", "r.npy"], tmp_path)
        assert time.monotonic() - started < 20  # not the 60 s timeout, nor twice it
        assert proc.returncode == 2
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1, lines  # no traceback from Client.__del__
        assert lines[0].startswith(f"error: --scheduler {address!r}: {why}")
        assert lines[0].endswith("(give an address such as tcp://HOST:8786)")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scheme", "config", "why"),
    [
        ("tls", {}, "tls:// needs certificates, and dask's configuration names none"),
        (
            "tls",
            {"CA_FILE": "missing.pem", "CLIENT__CERT": "missing.pem"},
            "dask's TLS configuration cannot be used: [Errno 2] No such file or directory",
        ),
        ("ucx", {}, "this installation of dask has no ucx:// transport (install distributed-ucxx)"),
    ],
)
def test_a_transport_this_installation_cannot_use_is_one_line_exit_1(
    tmp_path: Path, scheme: str, config: dict[str, str], why: str
) -> None:
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    address = f"{scheme}://127.0.0.1:{_free_port()}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    env.update({f"DASK_DISTRIBUTED__COMM__TLS__{k}": v for k, v in config.items()})
    for command in (["reduce-mean", "x.npy"], ["mean", "x.npy"]):
        proc = subprocess.run(
            [*MEANCLI, *command, "--scheduler", address, "--timeout", "60", "-o", "r.npy"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert proc.returncode == 1, proc.stderr.decode()
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith(f"error: cannot reach the dask scheduler at {address}: {why}")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]


@pytest.mark.cluster
def test_a_tls_scheduler_is_reached_with_the_certificates_dask_is_configured_with(tmp_path: Path) -> None:
    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a certificate")
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "key.pem",
            "-out",
            "cert.pem",
            "-subj",
            "/CN=127.0.0.1",
            "-days",
            "1",
        ],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )
    tls = ["--tls-ca-file", "cert.pem", "--tls-cert", "cert.pem", "--tls-key", "key.pem"]
    address = f"tls://127.0.0.1:{_free_port()}"
    x = cancelling("float32", (20, 3), seed=2)
    np.save(tmp_path / "x.npy", x)
    env = dict(os.environ)
    env["DASK_DISTRIBUTED__COMM__TLS__CA_FILE"] = "cert.pem"
    env["DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT"] = "cert.pem"
    env["DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY"] = "key.pem"
    scheduler = ["scheduler", "--protocol", "tls", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1]]
    worker = ["worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--nanny-port", "0"]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for args in (scheduler, worker):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "dask", *args, "--no-dashboard", *tls],
                    cwd=tmp_path,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        proc = subprocess.run(
            [
                *MEANCLI,
                "reduce-mean",
                "x.npy",
                "--axes",
                "0",
                "--scheduler",
                address,
                "--timeout",
                "60",
                "-o",
                "r.npy",
                "-q",
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            timeout=180,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert same_bits(load(tmp_path / "r.npy"), exact_reduce(x, (0,), (1, 3)))
    finally:
        for p in procs[::-1]:
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "1e308", "604801", "0"])
def test_a_timeout_that_is_not_a_sane_number_of_seconds_is_a_usage_error(tmp_path: Path, value: str) -> None:
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    for command in (["reduce-mean", "x.npy"], ["mean", "x.npy"]):
        proc = cli([*command, "--workers", "1", "--timeout", value], tmp_path, timeout=60)
        assert proc.returncode == 2, proc.stderr.decode()
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].startswith("error: Invalid value for '--timeout': ")


@pytest.mark.cluster
def test_corrupt_chunk_named_and_nothing_written(tmp_path: Path) -> None:
    x = np.arange(60, dtype=np.float32).reshape(10, 6)
    write_zarr_stores(tmp_path, x, (4, 3))
    (tmp_path / "a3.zarr" / "c" / "1" / "1").write_bytes(b"not zstd at all")
    for extra in ([], ["--workers", "1"]):
        proc = cli(["mean", "a3.zarr", "-o", "out.zarr", *extra], tmp_path)
        assert proc.returncode == 1, proc.stderr.decode()
        lines = proc.stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: a3.zarr: chunk (1, 1): cannot be read"), lines
        assert not [p.name for p in tmp_path.iterdir() if p.name.startswith((".meancli-", "out"))]


def test_wrongly_sized_chunk_named(tmp_path: Path) -> None:
    import zarr

    x = np.arange(60, dtype=np.float64).reshape(10, 6)
    raw = zarr.create_array(
        str(tmp_path / "raw.zarr"),
        shape=x.shape,
        chunks=(4, 3),
        dtype=x.dtype,
        zarr_format=2,
        compressors=None,
    )
    raw[...] = x
    chunk = tmp_path / "raw.zarr" / "2.0"
    chunk.write_bytes(chunk.read_bytes()[:-8])
    proc = cli(["reduce-mean", "raw.zarr", "-o", "r.npy"], tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: raw.zarr: chunk (2, 0): "), lines
    assert not (tmp_path / "r.npy").exists()


def test_missing_chunk(tmp_path: Path) -> None:
    """Missing with a fill_value: the fill_value (the zarr specification); with none: an error."""
    import zarr

    x = np.arange(1, 61, dtype=np.float32).reshape(10, 6)
    null = zarr.create_array(
        str(tmp_path / "null.zarr"),
        shape=x.shape,
        chunks=(4, 3),
        dtype=x.dtype,
        zarr_format=2,
        fill_value=None,
    )
    null[...] = x
    (tmp_path / "null.zarr" / "0.1").unlink()
    proc = cli(["reduce-mean", "null.zarr", "-o", "r.npy"], tmp_path)
    assert proc.returncode == 1
    assert (
        proc.stderr.decode()
        == "error: null.zarr: chunk (0, 1): missing, and the array has no fill_value to stand for it\n"
    )
    assert not (tmp_path / "r.npy").exists()
    filled = zarr.create_array(
        str(tmp_path / "f.zarr"), shape=x.shape, chunks=(4, 3), dtype=x.dtype, fill_value=0.5
    )
    filled[...] = x
    (tmp_path / "f.zarr" / "c" / "0" / "1").unlink()
    proc = cli(["reduce-mean", "f.zarr", "-o", "r.npy", "-q"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    y = x.copy()
    y[0:4, 3:6] = 0.5
    assert same_bits(load(tmp_path / "r.npy"), exact_reduce(y, (0, 1), (1, 1)))


def test_mismatched_shards_name_the_first(tmp_path: Path) -> None:
    d = tmp_path / "ds"
    d.mkdir()
    np.save(d / "a.npy", np.zeros((3, 4), np.float32))
    np.save(d / "b.npy", np.zeros((2, 4), np.float32))
    np.save(d / "c.npy", np.zeros((2, 5), np.float32))  # trailing shape differs
    np.save(d / "d.npy", np.zeros((2, 4), np.float64))
    proc = cli(["reduce-mean", "ds"], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.decode().splitlines() == [
        "error: ds/c.npy: the shard does not match ds/a.npy: dtype float32, trailing shape (5,) "
        "(expected float32, (4,))"
    ]
    (d / "c.npy").unlink()
    proc = cli(["reduce-mean", "ds"], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.decode().startswith(
        "error: ds/d.npy: the shard does not match ds/a.npy: dtype float64"
    )


def test_missing_extra_is_one_line(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.ones(4, np.float32))
    code = (
        "import sys; sys.modules['distributed'] = None; from meancli.cli.entry import main; sys.exit(main())"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "reduce-mean", "x.npy", "--workers", "1"],
        cwd=tmp_path,
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        "error: distributed is needed for zarr arrays, .npy shard datasets, --workers and --scheduler; "
        f"{extra_hint('dask')}\n"
    )


def _group_alive(pgid: int) -> list[str]:
    """The processes of group ``pgid`` that are not zombies (already dead)."""
    out = subprocess.run(
        ["ps", "-o", "pid=,stat=", "-g", str(pgid)], capture_output=True, text=True, check=False
    )
    return [line for line in out.stdout.splitlines() if line.split()[1:2] != ["Z"]]


@contextmanager
def _own_session(args: list[str], cwd: Path, env: dict[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """meancli ``args`` in a process group of its own; whatever is left of
    the group is killed when the block ends, also when it fails."""
    proc = subprocess.Popen(
        [*MEANCLI, *args],
        cwd=cwd,
        env=env,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _group_ends(pid: int) -> None:
    """Within 30 s no process of the group ``pid`` is left (zombies aside)."""
    deadline = time.monotonic() + 30
    while _group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _group_alive(pid)


@pytest.mark.cluster
def test_ctrl_c_shuts_the_local_cluster_down(tmp_path: Path) -> None:
    np.save(tmp_path / "x.npy", np.random.default_rng(0).random((4000, 1000)))
    env = {**os.environ, "MEANCLI_PIECE_BYTES": "40000"}  # 200 pieces: a run long enough to interrupt
    with _own_session(["reduce-mean", "x.npy", "--workers", "1", "--axes", "0"], tmp_path, env) as proc:
        deadline = time.monotonic() + 120
        while len(_group_alive(proc.pid)) < 3 and time.monotonic() < deadline:  # meancli, nanny, worker
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode()
        assert err.decode() == "error: interrupted\n"
        _group_ends(proc.pid)


@pytest.mark.cluster
@pytest.mark.parametrize("delay", [0.0, 0.3, 1.0])
def test_ctrl_c_to_the_whole_group_while_the_cluster_starts(tmp_path: Path, delay: float) -> None:
    """A terminal's Ctrl-C reaches every process of the group: meancli and its
    workers as they start (`delay` seconds after the first worker process
    appears). One line, exit 130, no worker's traceback, no output file,
    nothing left (it was a cluster error or a lost interrupt, after
    tracebacks of the workers)."""
    np.save(tmp_path / "x.npy", np.random.default_rng(0).random((2000, 500)))
    env = {**os.environ, "MEANCLI_PIECE_BYTES": "4000"}  # 2000 pieces: still running at `delay`
    args = ["reduce-mean", "x.npy", "--workers", "2", "--axes", "0", "-o", "r.npy"]
    with _own_session(args, tmp_path, env) as proc:
        deadline = time.monotonic() + 120
        while not _workers_of(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 130, err.decode()
        assert err.decode() == "error: interrupted\n"
        assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]
        _group_ends(proc.pid)


def _workers_of(pid: int) -> list[int]:
    """The dask worker processes a meancli process ``pid`` spawned (its nannies run inside it)."""
    out = subprocess.run(["pgrep", "-P", str(pid), "-f", "spawn_main"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


@pytest.mark.cluster
@pytest.mark.parametrize("sig", [signal.SIGINT])
def test_workers_stopped_by_a_signal_fail_the_run_within_the_timeout(tmp_path: Path, sig: int) -> None:
    """A signal to the workers alone (not meancli): a worker closes itself and its nanny
    starts none, so the tasks would wait forever. One line, exit 1, nothing left.
    On a loaded machine the signal can land while the cluster still starts (a one-line
    "cannot start a local cluster" error, exit 1, nothing left): then again, waiting longer."""
    np.save(tmp_path / "x.npy", np.random.default_rng(0).random((8000, 500)))
    env = {**os.environ, "MEANCLI_PIECE_BYTES": "4000"}  # 8000 pieces: a run of many seconds
    args = ["reduce-mean", "x.npy", "--workers", "2", "--axes", "0", "--timeout", "3", "-o", "r.npy"]
    for settle in (2.5, 6.0, 12.0):
        with _own_session(args, tmp_path, env) as proc:
            deadline = time.monotonic() + 120
            while len(_workers_of(proc.pid)) < 2 and time.monotonic() < deadline:
                time.sleep(0.1)
            time.sleep(settle)  # started, joined, running tasks
            workers = _workers_of(proc.pid)
            assert len(workers) == 2 and proc.poll() is None
            for pid in workers:
                os.kill(pid, sig)
            started = time.monotonic()
            _, err = proc.communicate(timeout=60)
            lines = err.decode().splitlines()
            assert proc.returncode == 1, err.decode()
            assert sorted(p.name for p in tmp_path.iterdir()) == ["x.npy"]
            _group_ends(proc.pid)
            if len(lines) == 1 and lines[0].startswith("error: cannot start a local cluster of 2 workers"):
                continue  # the signal came before the cluster was up
            assert time.monotonic() - started < 3 + 10  # the timeout, and the cluster's shutdown
            assert lines == [
                "error: the dask cluster has had no worker for 3 s (its workers stopped), "
                "with tasks left to run"
            ]
            return
    pytest.fail("the local cluster never started before the signal, after waiting 12 s")


@pytest.mark.cluster
def test_a_run_longer_than_the_timeout_with_its_workers_succeeds(tmp_path: Path) -> None:
    """--timeout bounds a wait for workers, not the run: tasks of 4 s in all, timeout 1 s."""
    x = cancelling("float64", (16, 50), seed=12)
    own_stderr = os.readlink("/proc/self/fd/2")
    with connect(Where(workers=1, timeout=1)) as client:
        assert os.readlink("/proc/self/fd/2") == own_stderr  # meancli's own stderr is back
        slow = da.from_array(x, chunks=(1, 50)).map_blocks(lambda b: (time.sleep(0.25), b)[1], dtype=x.dtype)
        call = validate_reduce(resolve("ReduceMean"), x.dtype, x.shape, (0,), False)
        graph = reduce_graph(slow, call, "float64", plan=False)
        (got,) = compute([graph], client, no_progress, timeout=1)
        assert same_bits(got, exact_reduce(x, (0,), (50,)))
        # the local cluster's workers print nothing: meancli reports their errors;
        # their file descriptor 2 is /dev/null from birth (a Ctrl-C in their first
        # moments, before their preload runs, prints nothing either)
        assert set(client.run(lambda: sys.stderr.name).values()) == {os.devnull}
        assert set(client.run(lambda: os.readlink("/proc/self/fd/2")).values()) == {os.devnull}


@pytest.mark.cluster
def test_plain_npy_files_on_workers_broadcast_a_scalar(tmp_path: Path) -> None:
    """.npy files given to a cluster are read by the workers, rank 0 included."""
    v = np.array([1e8, 1.0, -1e8, 3.5], dtype=np.float32)
    np.save(tmp_path / "s.npy", np.float32(3))
    np.save(tmp_path / "v.npy", v)
    proc = cli(["mean", "s.npy", "v.npy", "--workers", "1", "-q", "-o", "m.npy"], tmp_path)
    assert proc.returncode == 0, proc.stderr.decode()
    assert same_bits(load(tmp_path / "m.npy"), exact_mean([np.float32(3) * np.ones(1, np.float32), v]))


@pytest.mark.cluster
def test_a_rank_0_result_is_written_as_a_rank_0_zarr_array(tmp_path: Path, external: str) -> None:
    """Every way to a 0-d result (all axes dropped, a rank-0 .npy or zarr input, Mean of
    scalars) written to -o OUT.zarr, here, on local workers and on a scheduler."""
    import zarr

    x = cancelling("float32", (6, 5), seed=4)
    np.save(tmp_path / "a.npy", x)
    np.save(tmp_path / "s.npy", np.float64(2.5))
    np.save(tmp_path / "t.npy", np.float64(-0.75))
    zs = zarr.create_array(str(tmp_path / "s0.zarr"), shape=(), chunks=(), dtype=np.float64)
    zs[...] = 1.5
    runs = {
        "reduce-mean a.npy --no-keep-dims": exact_reduce(x, (0, 1), ()),
        "reduce-mean s.npy": np.float64(2.5),
        "reduce-mean s0.zarr": np.float64(1.5),
        "mean s.npy t.npy": np.float64(0.875),
    }
    # every way here and on the scheduler; one on local workers (each run starts a cluster
    # of its own there, and writes through the same code as on the scheduler)
    places = (([], list(runs)), (["--scheduler", external], list(runs)), (["--workers", "1"], list(runs)[:1]))
    for where, commands in places:
        for k, command in enumerate(commands):
            truth = runs[command]
            proc = cli([*command.split(), "-o", f"r{k}.zarr", "-q", *where], tmp_path)
            assert proc.returncode == 0, (command, where, proc.stderr.decode())
            got = zarr.open_array(str(tmp_path / f"r{k}.zarr"), mode="r")
            assert got.shape == () and same_bits(np.asarray(got[...]), np.asarray(truth)), (
                command,
                where,
            )


def test_shard_truncated_after_opening_names_dataset_and_chunk(tmp_path: Path) -> None:
    from meancli.errors import InputFileError
    from meancli.io.registry import open_input

    (tmp_path / "ds").mkdir()
    np.save(tmp_path / "ds" / "a.npy", np.ones((3, 2), np.float32))
    np.save(tmp_path / "ds" / "b.npy", np.ones((5, 2), np.float32))
    ((_, dataset, _),) = open_input(str(tmp_path / "ds"))
    call = validate_reduce(resolve("ReduceMean"), dataset.dtype, dataset.shape, (0,), False)
    graph = reduce_graph(as_dask(dataset, cluster=False), call, "float32", plan=False)
    with open(tmp_path / "ds" / "b.npy", "r+b") as fp:
        fp.truncate(150)  # 128 header bytes and 22 of its 40 data bytes
    with pytest.raises(InputFileError, match=r"ds: chunk \(1\) \(.*b\.npy, rows 0 to 5\): .*truncated data"):
        compute([graph], None, no_progress)


def test_plan_bounds_the_partial_states() -> None:
    """One time step per chunk, reduced over time: merged along time, cut across
    (about the chunk's size), so a chunk's states take at most 1/8 of its bytes."""
    x = da.zeros((1000, 4096, 4096), chunks=(1, 4096, 4096), dtype=np.float32)
    planned, split_every = plan_chunks(x, (0,), 64)
    depth, rows, cols = planned.chunksize
    assert depth * 4 >= 8 * 64 and rows * cols * 64 <= depth * rows * cols * 4 / 8
    assert depth * rows * cols * 4 <= 64 << 20
    assert 2 <= split_every <= 32
    untouched, _ = plan_chunks(da.zeros((8192, 2048), chunks=(4096, 1024), dtype=np.float32), (0,), 64)
    assert untouched.chunksize == (4096, 1024)


@pytest.mark.parametrize(
    ("shape", "chunks", "axes"),
    [
        ((1, 4000), (1, 4000), (0,)),
        ((3, 4000), (3, 1000), (0,)),
        ((3, 4000), (1, 1000), (0,)),
        ((3, 4000), (3, 4000), (0, 1)),
        ((3, 4000), (2, 4000), (1,)),
    ],
)
def test_chunks_that_span_the_reduced_axes_go_straight_to_their_means(
    shape: tuple[int, ...], chunks: tuple[int, ...], axes: tuple[int, ...]
) -> None:
    """A chunk holding every reduced element of its outputs (as given, or once
    planned: (1, 1000) merges along axis 0) is reduced to their means without
    partial states, which take 16 times a float32 chunk: (1, 5e6) reduced over
    axis 0 into zarr once took 1 GB and 2.9 s."""
    from dask.callbacks import Callback
    from dask.local import get_sync

    x = cancelling("float32", shape, seed=5)
    call = validate_reduce(resolve("ReduceMean"), x.dtype, x.shape, axes, False)
    graph = reduce_graph(da.from_array(x, chunks=chunks), call, "float32")
    dtypes: set[Any] = set()

    def posttask(key: Any, result: Any, dsk: Any, state: Any, worker_id: Any) -> None:
        dtypes.add(getattr(result, "dtype", None))

    with Callback(posttask=posttask):  # type: ignore[no-untyped-call]
        got = graph.compute(scheduler=get_sync, optimize_graph=False)
    assert same_bits(got, exact_reduce(x, axes, call.out_shape))
    assert not any(d is not None and d.kind == "V" for d in dtypes), dtypes  # no states


@pytest.mark.parametrize("byteorder", ["<", ">"])
def test_a_lazy_identity_gives_the_default_nan_and_native_byte_order(byteorder: str) -> None:
    """ReduceMean with no axes (openvino's empty axes, noop_with_empty_axes) on
    dask runs the kernel, as in memory: NaN payloads become the default NaN
    and the result is in native byte order, declared and computed (dask
    returned the input itself, payloads and byte order kept)."""
    bits = np.array([0xFFC00001, 0x7F800001, 0x3F800000, 0x80000000], np.uint32)
    x = bits.view(np.float32).astype(byteorder + "f4").reshape(2, 2)
    for opset, attributes in [("openvino:1", {}), ("18", {"noop_with_empty_axes": True})]:
        in_memory = meancli.reduce_mean(x, axes=[], opset=opset, **attributes)
        lazy = meancli.reduce_mean(da.from_array(x, chunks=(1, 2)), axes=[], opset=opset, **attributes)
        got = lazy.compute()
        assert lazy.dtype == got.dtype == np.dtype(np.float32)
        assert got.view(np.uint32).tolist() == in_memory.view(np.uint32).tolist()
        assert got.view(np.uint32).tolist() == [[0x7FC00000, 0x7FC00000], [0x3F800000, 0x80000000]]


def test_lazy_calls_refuse_masked_arrays_and_bad_threads() -> None:
    """What the Python API refuses for numpy inputs it refuses with a dask
    array among them too (a masked input's mask was ignored, threads=-5 taken)."""
    x = np.arange(4, dtype=np.float32)
    masked = np.ma.array(x, mask=[1, 1, 0, 0])
    calls = [
        lambda: meancli.mean(da.from_array(x), masked),
        lambda: meancli.reduce_mean(da.from_array(masked, asarray=False)),
        lambda: meancli.reduce_mean(da.from_array(x), threads=-5),
        lambda: meancli.mean(da.from_array(x), x, threads=0),
    ]
    for call in calls:
        with pytest.raises(UsageError):
            call()


def test_a_second_interrupt_waits_for_the_temporary_store_to_be_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C that comes while the temporary zarr store of an interrupted run
    is removed (a second Ctrl-C; `timeout` signals the process, then its
    group) left the store half removed: it is raised after the removal."""
    target = str(tmp_path / "out.zarr")
    real_rmtree = shutil.rmtree

    def rmtree_signalled_midway(path: str, *args: Any, **kwargs: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # the second interrupt, as the removal starts
        time.sleep(0.01)  # where Python would run its handler
        real_rmtree(path, *args, **kwargs)

    monkeypatch.setattr(shutil, "rmtree", rmtree_signalled_midway)
    with pytest.raises(KeyboardInterrupt), temporary_store(target) as tmp:
        for k in range(20):
            os.makedirs(os.path.join(tmp, "c", str(k)))
            Path(tmp, "c", str(k), "0").write_bytes(b"chunk")
        raise KeyboardInterrupt  # the first
    assert os.listdir(tmp_path) == []


def test_zarr_metadata_with_too_many_chunks_is_refused(tmp_path: Path) -> None:
    import json

    store = tmp_path / "huge.zarr"
    store.mkdir()
    meta = {"zarr_format": 2, "shape": [1 << 60], "chunks": [1], "dtype": "<f4", "compressor": None}
    meta |= {"fill_value": 0.0, "order": "C", "filters": None}
    (store / ".zarray").write_text(json.dumps(meta))
    proc = cli(["reduce-mean", "huge.zarr"], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.decode() == (
        f"error: huge.zarr: {1 << 60} chunks of (1,); meancli takes at most {1 << 22} (rechunk the array)\n"
    )


def test_a_zero_chunk_dimension_and_a_damaged_zipped_store_are_named(tmp_path: Path) -> None:
    """One line each that says what is wrong (they were "division by zero" and
    "not a readable .npz archive")."""
    import json

    store = tmp_path / "c0.zarr"
    store.mkdir()
    meta = {"zarr_format": 2, "shape": [3, 2], "chunks": [0, 2], "dtype": "<f4", "compressor": None}
    meta |= {"fill_value": 0.0, "order": "C", "filters": None}
    (store / ".zarray").write_text(json.dumps(meta))
    (tmp_path / "t.zarr.zip").write_bytes(b"PK\x03\x04 a damaged zip")
    proc = cli(["reduce-mean", "c0.zarr", "--axes", "0"], tmp_path)
    assert (proc.returncode, proc.stderr.decode()) == (
        1,
        "error: c0.zarr: chunk shape (0, 2) has a dimension of 0 (malformed zarr metadata)\n",
    )
    proc = cli(["reduce-mean", "t.zarr.zip"], tmp_path)
    assert (proc.returncode, proc.stderr.decode()) == (
        1,
        "error: t.zarr.zip: not a readable zipped zarr store (a damaged zip file)\n",
    )


def test_open_lazy_takes_path_objects_and_names_what_it_cannot_open(tmp_path: Path) -> None:
    """A pathlib.Path opens as its str does (an AttributeError before); a
    missing file, stdin and a non-path are one clear error each (a missing
    .npy was "cannot read the shard")."""
    from meancli.errors import InputFileError

    x = np.arange(12.0).reshape(3, 4)
    np.save(tmp_path / "x.npy", x)
    got = meancli.reduce_mean(meancli.open_lazy(tmp_path / "x.npy"), axes=0, keepdims=False).compute()
    assert got.tolist() == [4.0, 5.0, 6.0, 7.0]
    with pytest.raises(InputFileError, match=r"missing\.npy: no such file"):
        meancli.open_lazy(tmp_path / "missing.npy")
    for bad in ["-", "", 5, None]:
        with pytest.raises(UsageError):
            meancli.open_lazy(bad)  # type: ignore[arg-type]


def test_open_lazy_reads_what_the_command_line_reads(tmp_path: Path) -> None:
    from meancli.errors import InputFileError

    x = cancelling("bfloat16", (20, 3), seed=4)
    (tmp_path / "ds").mkdir()
    np.save(tmp_path / "ds" / "0.npy", x[:7])
    np.save(tmp_path / "ds" / "1.npy", x[7:])
    np.save(tmp_path / "whole.npy", x)
    for arg in ("ds", "whole.npy"):
        lazy = meancli.reduce_mean(meancli.open_lazy(str(tmp_path / arg)), axes=0)
        assert same_bits(lazy.compute(), exact_reduce(x, (0,), (1, 3)))
    group = zarr_group_with_two(tmp_path)
    with pytest.raises(InputFileError, match=r"holds 2 arrays .*; name one as"):
        meancli.open_lazy(group)


def zarr_group_with_two(tmp_path: Path) -> str:
    import zarr

    group = zarr.open_group(str(tmp_path / "two.zarr"), mode="w")
    for name in ("a", "b"):
        group.create_array(name, shape=(2,), dtype="f4")[...] = np.ones(2, np.float32)
    return str(tmp_path / "two.zarr")


@pytest.mark.parametrize("place", [p for p in PLACE_PARAMS if p.values[0] in ("this process", "workers 2")])
def test_progress_counts_every_task(place: str, request: pytest.FixtureRequest) -> None:
    """The bar's total is the graph's tasks, and it is fed up to that total (a dask
    callback in this process; a scheduler plugin on a cluster)."""
    from contextlib import contextmanager

    seen: dict[str, int] = {"total": 0, "done": 0}

    @contextmanager
    def factory(total: int, label: str, unit: str) -> Iterator[Any]:
        assert unit == "tasks"
        seen["total"] = total
        yield lambda n: seen.__setitem__("done", seen["done"] + n)

    x = cancelling("float32", (64, 10), seed=2)
    call = validate_reduce(resolve("ReduceMean"), x.dtype, x.shape, (0,), False)
    graph = reduce_graph(da.from_array(x, chunks=(4, 5)), call, "float32", plan=False)
    (got,) = compute([graph], client_for(place, request), factory)
    assert same_bits(got, exact_reduce(x, (0,), (10,)))
    assert seen["total"] >= 32 and seen["done"] >= seen["total"]  # 32 chunks, then the tree


@pytest.mark.cluster
def test_stdin_on_workers_prints_nothing_with_quiet(tmp_path: Path) -> None:
    """stdin is shipped to the workers inside the graph (docs/distributed.md); dask's
    several-line warning about a large graph (over 10 MiB here) is not printed."""
    x = np.random.default_rng(3).random((1600, 1000))  # 12.8 MB
    np.save(tmp_path / "x.npy", x)
    with open(tmp_path / "x.npy", "rb") as stdin:
        out = subprocess.run(
            [*MEANCLI, "reduce-mean", "-", "--axes", "1", "--workers", "1", "--quiet", "-o", "r.npy"],
            cwd=tmp_path,
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    assert same_bits(np.load(tmp_path / "r.npy"), exact_reduce(x, (1,), (1600, 1)))
