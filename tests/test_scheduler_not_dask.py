"""--scheduler pointed at a server that is not dask's: one line saying so (exit 1),
not "the input or its result does not fit in memory" (dask read the other
protocol's greeting as a frame length of exabytes)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("distributed")

from conftest import run_cli


@pytest.fixture
def other_protocol() -> Iterator[int]:
    """A server on 127.0.0.1 that greets every connection as an SSH server would; always closed."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.sendall(b"SSH-2.0-OpenSSH_9.2p1\r\n" + b"\xff" * 64)
                stop.wait(0.5)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        server.close()


def test_a_server_that_is_not_dask_is_named_as_such(tmp_path: Path, other_protocol: int) -> None:
    np.save(tmp_path / "x.npy", np.ones(3, np.float32))
    result = run_cli(
        "reduce-mean",
        str(tmp_path / "x.npy"),
        "--scheduler",
        f"tcp://127.0.0.1:{other_protocol}",
        "--timeout",
        "5",
    )
    assert result.exit_code == 1, result.stderr
    assert result.stderr.startswith(
        f"error: cannot reach the dask scheduler at tcp://127.0.0.1:{other_protocol}"
    )
    assert "fit in memory" not in result.stderr and "Traceback" not in result.stderr
