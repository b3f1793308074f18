"""URLs as FILE and as -o: zarr stores (format 2 and 3), .npy shard prefixes and globs,
.npy files and .npz members over S3 and HTTP, in this process and on 2 workers.

No test touches the internet: an S3 server (moto's ThreadedMotoServer) and an
HTTP file server (http.server, with range requests) listen on 127.0.0.1 on
ephemeral ports, started by module fixtures and stopped at the end, also when a
test fails. Results are held to the exact mean rounded once (tests/oracles.py).
"""

from __future__ import annotations

import http.server
import io
import json
import logging
import os
import pickle
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import oracles
import pytest
from conftest import run_cli

zarr = pytest.importorskip("zarr")
pytest.importorskip("dask.array")
s3fs = pytest.importorskip("s3fs")
pytest.importorskip("aiohttp")
moto_server = pytest.importorskip("moto.server")

import meancli  # noqa: E402
from meancli.io import remote, remote_output  # noqa: E402
from meancli.io.urls import masked, parse_storage_options  # noqa: E402

AXES = ("--axes", "0", "2", "--no-keep-dims")
BUCKET = "data"
#: What the S3 tests' process reads its credentials from: test values, and no
#: file of the machine's (a developer's ~/.aws stays out of it).
AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}
AWS_FILES = ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE")
#: botocore without retries and with short timeouts, for the tests of servers that fail
FAST_FAIL = 'config_kwargs={"connect_timeout": 1, "read_timeout": 1, "retries": {"max_attempts": 1}}'


def sample(seed: int, shape: tuple[int, ...] = (24, 5, 3)) -> np.ndarray:
    """float32 whose sums cancel (large values of both signs beside small ones)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    x[::3] *= np.float32(1e30)
    x[1::3] = -x[::3][: x[1::3].shape[0]]
    return x


X = sample(1)
Y = sample(2)
WANT = {"x": oracles.exact_reduce_mean(X, (0, 2)), "y": oracles.exact_reduce_mean(Y, (0, 2))}


def npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a)
    return buf.getvalue()


def npz_bytes(**arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


def write_dataset(put: Any, make_zarr: Any) -> None:
    """The inputs every protocol serves: x.npy, x.npz (members x and y), shards/part-N.npy
    (x in three pieces), z2.zarr (format 2, x), z3.zarr (format 3, a group holding grp/x)."""
    put("x.npy", npy_bytes(X))
    put("x.npz", npz_bytes(x=X, y=Y))
    for i, (a, b) in enumerate(((0, 7), (7, 15), (15, 24))):
        put(f"shards/part-{i}.npy", npy_bytes(X[a:b]))
    z2 = make_zarr("z2.zarr", 2, "")
    z2[...] = X
    z3 = make_zarr("z3.zarr", 3, "grp/x")
    z3[...] = X


def create(store: str, fmt: int, path: str, options: dict[str, Any]) -> Any:
    """A zarr array of X's shape and dtype in chunks (5, 2, 3): the store's root array, or
    the array at ``path`` in a group (its parent groups made too)."""
    spec = {"shape": X.shape, "chunks": (5, 2, 3), "dtype": X.dtype}
    if not path:
        return zarr.create_array(store=store, zarr_format=fmt, **spec, **options)
    group = zarr.open_group(store=store, mode="w", zarr_format=fmt, **options)
    return group.create_array(path, **spec)


# --------------------------------------------------------------------------- servers


@pytest.fixture(scope="module")
def aws_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Test credentials in os.environ for the module (dask workers inherit them), restored after."""
    none = tmp_path_factory.mktemp("aws") / "none"
    wanted = {**AWS_ENV, **dict.fromkeys(AWS_FILES, str(none))}
    saved = {k: os.environ.get(k) for k in wanted}
    os.environ.update(wanted)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def start_moto() -> Any:
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per request otherwise
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    return server


def endpoint(server: Any) -> str:
    host, port = server.get_host_and_port()
    return f"http://{host}:{port}"


@pytest.fixture(scope="module")
def s3(aws_env: None) -> Iterator[str]:
    """An S3 server on 127.0.0.1 holding the dataset in bucket ``data``; its endpoint URL."""
    server = start_moto()
    try:
        url = endpoint(server)
        fs = s3fs.S3FileSystem(endpoint_url=url, skip_instance_cache=True)
        fs.mkdir(BUCKET)

        def make_zarr(name: str, fmt: int, path: str) -> Any:
            options = {"storage_options": {"endpoint_url": url}}
            return create(f"s3://{BUCKET}/{name}", fmt, path, options)

        write_dataset(lambda key, data: fs.pipe_file(f"{BUCKET}/{key}", data), make_zarr)
        yield url
    finally:
        server.stop()


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """http.server's file handler, answering ``Range: bytes=A-B`` as real servers do."""

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        match = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        path = self.translate_path(self.path)
        if match is None or not os.path.isfile(path):
            super().do_GET()
            return
        size = os.path.getsize(path)
        start = int(match.group(1))
        stop = min(int(match.group(2)) + 1 if match.group(2) else size, size)
        with open(path, "rb") as fp:
            fp.seek(start)
            body = fp.read(max(0, stop - start))
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {start}-{stop - 1}/{size}")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def http_root(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An HTTP file server on 127.0.0.1 serving the dataset; its base URL."""
    root = tmp_path_factory.mktemp("www")

    def put(key: str, data: bytes) -> None:
        (root / key).parent.mkdir(parents=True, exist_ok=True)
        (root / key).write_bytes(data)

    def make_zarr(name: str, fmt: int, path: str) -> Any:
        return create(str(root / name), fmt, path, {})

    write_dataset(put, make_zarr)
    handler = lambda *a, **k: RangeHandler(*a, directory=str(root), **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A server on 127.0.0.1 that accepts connections and never answers; its URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        sock.close()


def closed_port() -> int:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return int(port)


# --------------------------------------------------------------------------- reading

#: (case, path under the bucket or server, the array it names)
CASES = [
    ("npy", "x.npy", "x"),
    ("npz-member", "x.npz:y", "y"),
    ("shard-prefix", "shards/", "x"),
    ("shard-glob", "shards/part-*.npy", "x"),
    ("zarr2", "z2.zarr", "x"),
    ("zarr3-member", "z3.zarr:grp/x", "x"),
]
CASE_IDS = [c[0] for c in CASES]


def reduce_url(url: str, tmp_path: Path, *extra: str) -> np.ndarray:
    out = tmp_path / "out.npy"
    result = run_cli("reduce-mean", url, *AXES, "-o", out, *extra)
    assert result.exit_code == 0, result.stderr
    return np.load(out)


def assert_exact(got: np.ndarray, want: np.ndarray) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize(("case", "key", "name"), CASES, ids=CASE_IDS)
def test_s3_inputs_give_the_exact_mean(s3: str, tmp_path: Path, case: str, key: str, name: str) -> None:
    got = reduce_url(f"s3://{BUCKET}/{key}", tmp_path, "--storage-option", f"endpoint_url={s3}")
    assert_exact(got, WANT[name])


@pytest.mark.parametrize(("case", "key", "name"), CASES, ids=CASE_IDS)
def test_http_inputs_give_the_exact_mean(
    http_root: str, tmp_path: Path, case: str, key: str, name: str
) -> None:
    assert_exact(reduce_url(f"{http_root}/{key}", tmp_path), WANT[name])


def test_s3_prefix_without_slash_and_mean_of_two_urls(s3: str, tmp_path: Path) -> None:
    option = ("--storage-option", f"endpoint_url={s3}")
    assert_exact(reduce_url(f"s3://{BUCKET}/shards", tmp_path, *option), WANT["x"])
    out = tmp_path / "m.npy"
    result = run_cli("mean", f"s3://{BUCKET}/x.npy", f"s3://{BUCKET}/x.npz:y", "-o", out, *option)
    assert result.exit_code == 0, result.stderr
    assert_exact(np.load(out), oracles.exact_mean([X, Y]))


def test_a_large_remote_npy_streams_in_bounded_range_reads(
    s3: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the streaming threshold, a remote .npy is read by the streamed engine in
    slabs: no read asks for more than a slab, whatever the object's size."""
    big = sample(3, (4096, 16, 2))  # 512 KiB
    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    fs.pipe_file(f"{BUCKET}/big.npy", npy_bytes(big))
    asked: list[int] = []
    read_into = remote.RemoteSource.read_into

    def spy(self: Any, offset: int, view: memoryview) -> None:
        asked.append(len(view))
        read_into(self, offset, view)

    monkeypatch.setattr(remote.RemoteSource, "read_into", spy)
    monkeypatch.setattr(remote, "RANGE_BYTES", 16 << 10)
    env = {"MEANCLI_STREAM_MIN_BYTES": "65536", "MEANCLI_SLAB_BYTES": "32768"}
    out = tmp_path / "big-out.npy"
    url = f"s3://{BUCKET}/big.npy"
    result = run_cli(
        "reduce-mean",
        url,
        "--axes",
        "0",
        "-o",
        out,
        "--json",
        "--storage-option",
        f"endpoint_url={s3}",
        env=env,
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["engine"]["name"] == "streamed"
    assert_exact(np.load(out), oracles.exact_reduce_mean(big, (0,), keepdims=True))
    assert sum(asked) == big.nbytes and max(asked) <= 32768 * 2


def test_workers_get_the_url_and_options_not_the_data(s3: str) -> None:
    """What dask ships to a worker for a remote array: its URL and options, a few hundred bytes."""
    options = {"endpoint_url": s3}
    for key in ("z3.zarr:grp/x", "shards/", "x.npy"):
        lazy = meancli.open_lazy(f"s3://{BUCKET}/{key}", storage_options=options)
        (source,) = [v for v in lazy.dask.values() if hasattr(v, "read_chunk")]
        shipped = pickle.dumps(source)
        assert len(shipped) < 4096 and X.tobytes()[:64] not in shipped
        assert s3.encode() in shipped
        assert_exact(np.asarray(meancli.reduce_mean(lazy, axes=(0, 2), keepdims=False).compute()), WANT["x"])


@pytest.mark.cluster
@pytest.mark.slow
@pytest.mark.parametrize("key", ["z3.zarr:grp/x", "z2.zarr", "shards/", "x.npy"])
def test_two_workers_read_s3_themselves(s3: str, tmp_path: Path, key: str) -> None:
    got = reduce_url(
        f"s3://{BUCKET}/{key}", tmp_path, "--workers", "2", "--storage-option", f"endpoint_url={s3}"
    )
    assert_exact(got, WANT["x"])


@pytest.mark.cluster
@pytest.mark.slow
@pytest.mark.parametrize("key", ["z3.zarr:grp/x", "shards/"])
def test_two_workers_read_http_themselves(http_root: str, tmp_path: Path, key: str) -> None:
    assert_exact(reduce_url(f"{http_root}/{key}", tmp_path, "--workers", "2"), WANT["x"])


@pytest.mark.cluster
@pytest.mark.slow
def test_two_workers_write_a_zarr_store_to_s3(s3: str) -> None:
    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    target = f"s3://{BUCKET}/workers-out.zarr"
    option = ("--storage-option", f"endpoint_url={s3}")
    result = run_cli("reduce-mean", f"s3://{BUCKET}/z2.zarr", *AXES, "-o", target, "--workers", "2", *option)
    assert result.exit_code == 0, result.stderr
    got = zarr.open_array(store=target, mode="r", storage_options={"endpoint_url": s3})[...]
    assert_exact(np.asarray(got), WANT["x"])
    assert not [p for p in fs.ls(BUCKET) if ".meancli-" in p]


# --------------------------------------------------------------------------- writing


def test_output_npy_at_a_url(s3: str, tmp_path: Path) -> None:
    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    target = f"s3://{BUCKET}/out/result.npy"
    result = run_cli(
        "reduce-mean", f"s3://{BUCKET}/x.npy", *AXES, "-o", target, "--storage-option", f"endpoint_url={s3}"
    )
    assert result.exit_code == 0, result.stderr
    assert_exact(np.load(io.BytesIO(fs.cat_file(target))), WANT["x"])


def test_output_zarr_at_a_url_and_never_over_an_existing_store(s3: str) -> None:
    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    target = f"s3://{BUCKET}/result.zarr"
    option = ("--storage-option", f"endpoint_url={s3}")
    result = run_cli("reduce-mean", f"s3://{BUCKET}/x.npy", *AXES, "-o", target, *option)
    assert result.exit_code == 0, result.stderr
    assert_exact(
        np.asarray(zarr.open_array(store=target, mode="r", storage_options={"endpoint_url": s3})[...]),
        WANT["x"],
    )
    before = sorted(fs.find(target))
    again = run_cli("reduce-mean", f"s3://{BUCKET}/x.npz:y", *AXES, "-o", target, *option)
    assert again.exit_code == 1
    assert (
        again.stderr.startswith("error: ") and "exists; -o never replaces a remote zarr store" in again.stderr
    )
    fs.invalidate_cache()
    assert sorted(fs.find(target)) == before
    assert not [p for p in fs.ls(BUCKET) if ".meancli-" in p]


def test_a_failed_publish_leaves_nothing(s3: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy that fails halfway through publishing a zarr store: nothing under the
    target name, no temporary prefix, one error line."""
    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    target = f"s3://{BUCKET}/half.zarr"
    copy = remote_output.copy_object
    calls: list[str] = []

    def failing(fs: Any, source: str, dest: str) -> None:
        calls.append(source)
        if len(calls) == 2:
            raise PermissionError("Access Denied")
        copy(fs, source, dest)

    monkeypatch.setattr(remote_output, "copy_object", failing)
    result = run_cli(
        "reduce-mean",
        f"s3://{BUCKET}/z2.zarr",
        "--axes",
        "2",
        "-o",
        target,
        "--storage-option",
        f"endpoint_url={s3}",
    )
    assert result.exit_code == 1, result.stderr
    assert result.stderr.count("\n") == 1 and "access denied" in result.stderr
    assert len(calls) == 2
    fs.invalidate_cache()
    assert not fs.exists(target)
    assert not [p for p in fs.ls(BUCKET) if ".meancli-" in p]


def test_a_run_that_fails_while_writing_a_remote_store_leaves_nothing(s3: str) -> None:
    """An input chunk that cannot be read partway through the workers' writes (format 2,
    no fill_value, one chunk object gone): no store under the name, no temporary prefix."""
    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    options = {"storage_options": {"endpoint_url": s3}}
    broken = zarr.create_array(
        store=f"s3://{BUCKET}/holey.zarr",
        shape=X.shape,
        chunks=(5, 5, 3),
        dtype=X.dtype,
        zarr_format=2,
        fill_value=None,
        **options,
    )
    broken[...] = X
    fs.rm(f"{BUCKET}/holey.zarr/3.0.0")
    target = f"s3://{BUCKET}/from-holey.zarr"
    result = run_cli(
        "reduce-mean",
        f"s3://{BUCKET}/holey.zarr",
        "--axes",
        "2",
        "-o",
        target,
        "--storage-option",
        f"endpoint_url={s3}",
    )
    err = one_error(result)
    assert "chunk (3, 0, 0): missing" in err
    fs.invalidate_cache()
    assert not fs.exists(target)
    assert not [p for p in fs.ls(BUCKET) if ".meancli-" in p]


@pytest.mark.slow
def test_ctrl_c_while_writing_a_remote_store_leaves_nothing(s3: str, tmp_path: Path) -> None:
    """SIGINT once the temporary store exists, while its blocks are written: exit 130,
    nothing under the name, the temporary prefix removed."""
    import signal
    import subprocess

    fs = s3fs.S3FileSystem(endpoint_url=s3, skip_instance_cache=True)
    many = zarr.create_array(
        store=f"s3://{BUCKET}/many.zarr",
        shape=(400, 8),
        chunks=(1, 8),
        dtype="float64",
        storage_options={"endpoint_url": s3},
    )
    many[...] = np.arange(3200, dtype=np.float64).reshape(400, 8)
    target = f"s3://{BUCKET}/interrupted.zarr"
    argv = [
        "reduce-mean",
        f"s3://{BUCKET}/many.zarr",
        "--axes",
        "1",
        "-o",
        target,
        "--storage-option",
        f"endpoint_url={s3}",
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "meancli", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            fs.invalidate_cache()
            if [p for p in fs.ls(BUCKET) if ".meancli-" in p]:
                break
            time.sleep(0.05)
        assert proc.poll() is None, "the run ended before it could be interrupted"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err.decode()
    assert err.decode() == "error: interrupted\n"
    fs.invalidate_cache()
    assert not fs.exists(target)
    assert not [p for p in fs.ls(BUCKET) if ".meancli-" in p]


def test_http_output_is_refused_before_reading(http_root: str) -> None:
    result = run_cli("reduce-mean", f"{http_root}/x.npy", "-o", f"{http_root}/out.npy")
    assert result.exit_code == 1
    assert "http:// URLs are read-only" in result.stderr


# --------------------------------------------------------------------------- errors


def one_error(result: Any) -> str:
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    return str(result.stderr)


def test_missing_bucket_and_object(s3: str, tmp_path: Path) -> None:
    option = ("--storage-option", f"endpoint_url={s3}")
    out = tmp_path / "o.npy"
    err = one_error(run_cli("reduce-mean", "s3://no-such-bucket/x.npy", "-o", out, *option))
    assert "not found" in err and "bucket" in err
    assert "not found" in one_error(run_cli("reduce-mean", f"s3://{BUCKET}/missing.npy", "-o", out, *option))
    err = one_error(run_cli("reduce-mean", f"s3://{BUCKET}/z3.zarr:nothing", "-o", out, *option))
    assert "no array or group there" in err and "grp" in err
    err = one_error(
        run_cli("reduce-mean", f"s3://{BUCKET}/x.npy", "-o", "s3://no-such-bucket/o.npy", *option)
    )
    assert "cannot write s3://no-such-bucket/o.npy" in err
    assert not out.exists()


def test_denied_access(aws_env: None, tmp_path: Path) -> None:
    """A server that checks credentials (moto with its authentication on: our test key is
    no IAM user's) refuses ours. The setting is moto's, for every server in this process:
    turned off again at the end."""
    import requests

    server = start_moto()
    url = endpoint(server)
    try:
        s3fs.S3FileSystem(endpoint_url=url, skip_instance_cache=True).mkdir("locked")
        requests.post(f"{url}/moto-api/reset-auth", data=b"0", timeout=10).raise_for_status()
        out = tmp_path / "o.npy"
        err = one_error(
            run_cli("reduce-mean", "s3://locked/x.npy", "-o", out, "--storage-option", f"endpoint_url={url}")
        )
        assert "access denied" in err
        assert not out.exists()
    finally:
        try:
            requests.post(f"{url}/moto-api/reset-auth", data=b"inf", timeout=10)
        finally:
            server.stop()


@pytest.mark.slow  # waits out timeouts: about 30 s, most of it s3fs's own retries
def test_unreachable_endpoint_and_a_server_that_never_answers(
    aws_env: None, silent_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # s3fs retries each request 5 times, a second or more each here; its class holds the
    # count (not a storage option), and one retry shows the same error
    monkeypatch.setattr("s3fs.S3FileSystem.retries", 2)
    out = tmp_path / "o.npy"
    started = time.monotonic()
    dead = f"endpoint_url=http://127.0.0.1:{closed_port()}"
    err = one_error(
        run_cli(
            "reduce-mean", "s3://b/x.npy", "-o", out, "--storage-option", dead, "--storage-option", FAST_FAIL
        )
    )
    assert "cannot connect" in err
    err = one_error(
        run_cli(
            "reduce-mean",
            "s3://b/x.npy",
            "-o",
            out,
            "--storage-option",
            f"endpoint_url={silent_server}",
            "--storage-option",
            FAST_FAIL,
        )
    )
    assert "did not answer in time" in err
    err = one_error(
        run_cli("reduce-mean", f"{silent_server}/x.npy", "-o", out, "--storage-option", "timeout=1")
    )
    assert "did not answer in time" in err
    assert time.monotonic() - started < 60
    assert not out.exists()


def test_a_missing_package_names_its_extra(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib

    registry = importlib.import_module("fsspec.registry")._registry  # the classes fsspec imported
    monkeypatch.setitem(sys.modules, "s3fs", None)
    monkeypatch.delitem(registry, "s3", raising=False)
    err = one_error(run_cli("reduce-mean", "s3://b/x.npy"))
    assert "read through s3fs, which is not installed; install the s3 extra with:" in err and "[s3]'" in err
    if "gcsfs" not in sys.modules:
        monkeypatch.setitem(sys.modules, "gcsfs", None)
        monkeypatch.delitem(registry, "gs", raising=False)
        assert "install the gcs extra with:" in one_error(run_cli("reduce-mean", "gs://b/x.npy"))
    assert "unknown URL protocol" in one_error(run_cli("reduce-mean", "nosuchproto://b/x.npy"))
    assert "names no bucket" in one_error(run_cli("reduce-mean", "memory://"))


# --------------------------------------------------------------------------- options


def test_storage_option_values_parse_as_json_or_stay_strings() -> None:
    parsed = parse_storage_options(
        ["anon=true", "endpoint_url=http://127.0.0.1:9", 'config_kwargs={"read_timeout": 5}', "n=3", "s=a=b"]
    )
    assert parsed == {
        "anon": True,
        "endpoint_url": "http://127.0.0.1:9",
        "config_kwargs": {"read_timeout": 5},
        "n": 3,
        "s": "a=b",
    }
    assert masked(
        {"key": "AKID", "secret": "s", "client_kwargs": {"aws_session_token": "t"}, "anon": False}
    ) == {
        "key": "***",
        "secret": "***",
        "client_kwargs": {"aws_session_token": "***"},
        "anon": False,
    }


def test_a_malformed_storage_option_is_a_usage_error() -> None:
    result = run_cli("reduce-mean", "s3://b/x.npy", "--storage-option", "secret")
    assert result.exit_code == 2
    assert "give KEY=VALUE" in result.stderr


def test_secret_option_values_are_never_shown(s3: str, tmp_path: Path) -> None:
    secret = "wJalrXUtnFEMI-K7MDENG-not-shown"
    args = (
        "--storage-option",
        f"endpoint_url={s3}",
        "--storage-option",
        "key=AKIDNOTSHOWN",
        "--storage-option",
        f"secret={secret}",
    )
    result = run_cli("reduce-mean", f"s3://{BUCKET}/x.npy", *AXES, "--json", *args)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["storage_options"] == {"endpoint_url": s3, "key": "***", "secret": "***"}
    failed = run_cli("reduce-mean", f"s3://{BUCKET}/missing-{secret}.npy", *args)
    for text in (result.stdout + result.stderr, failed.stdout + failed.stderr):
        assert "AKIDNOTSHOWN" not in text
    assert secret not in failed.stderr.replace(f"missing-{secret}.npy", "")
