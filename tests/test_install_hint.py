"""An error that names a missing extra says a command that installs it (meancli is on
no package index: ``pip install 'meancli[dask]'`` finds nothing)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from meancli import errors
from meancli.errors import InputFileError
from meancli.io import chunked
from meancli.io.onnx_tensor import read_tensor_file, write_tensor_file

ROOT = Path(__file__).resolve().parent.parent  # the checkout these tests run from


def _extras() -> dict[str, list[str]]:
    tomllib = pytest.importorskip("tomllib")
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras: dict[str, list[str]] = tomllib.load(f)["project"]["optional-dependencies"]
    return extras


def _checkout_command(extra: str) -> str:
    return f"{shlex.quote(sys.executable)} -m pip install -e {shlex.quote(f'{ROOT}[{extra}]')}"


@pytest.mark.parametrize(
    ("module", "requirement"),
    [("zarr", "zarr"), ("dask.array", "dask"), ("distributed", "dask[distributed]")],
)
def test_missing_dask_extra_names_the_checkout_command(
    module: str, requirement: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if not installed
    with pytest.raises(InputFileError) as info:
        chunked.require(module)
    message = str(info.value)
    assert message.endswith(f"install the dask extra with: {_checkout_command('dask')}"), message
    assert "'meancli[" not in message
    assert any(r.startswith(requirement) for r in _extras()["dask"])  # that extra installs the module


def test_missing_onnx_extra_names_the_checkout_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "x.pb"
    write_tensor_file(str(path), np.ones(2, np.float32))
    monkeypatch.setitem(sys.modules, "onnx", None)
    for call in (lambda: read_tensor_file(str(path)), lambda: write_tensor_file(str(path), np.ones(2))):
        with pytest.raises(InputFileError) as info:
            call()
        assert str(info.value).endswith(f"install the onnx extra with: {_checkout_command('onnx')}")
    assert any(r.startswith("onnx") for r in _extras()["onnx"])


def test_the_command_parses_as_one_pip_call() -> None:
    words = shlex.split(errors.install_command("dask"))
    assert words == [sys.executable, "-m", "pip", "install", "-e", f"{ROOT}[dask]"]


def test_regular_install_uses_the_recorded_source(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Installed with ``pip install /path/to/checkout``: the path pip recorded (PEP 610)."""
    source = tmp_path / "my src"
    source.mkdir()

    class Dist:
        requires = ('onnx>=1.16; extra == "onnx"',)

        def read_text(self, name: str) -> str | None:
            assert name == "direct_url.json"
            return json.dumps({"url": source.as_uri(), "dir_info": {}})

    monkeypatch.setattr(errors, "_running_tree", lambda: None)  # not run from a source tree
    monkeypatch.setattr("importlib.metadata.distribution", lambda name: Dist())
    words = shlex.split(errors.install_command("onnx"))
    assert words == [sys.executable, "-m", "pip", "install", f"{source}[onnx]"]
    source.rmdir()  # the checkout is gone: the extra's packages instead
    assert shlex.split(errors.install_command("onnx"))[4:] == ["onnx>=1.16"]


def test_no_source_tree_names_the_extras_packages(monkeypatch: pytest.MonkeyPatch) -> None:
    """Installed from a wheel: the extra's own requirements (an extra naming meancli's
    other extras expanded), as the metadata lists them."""
    extras = _extras()
    requires = [f'{r}; extra == "{name}"' for name, rs in extras.items() for r in rs]
    monkeypatch.setattr(errors, "_source_tree", lambda: None)
    monkeypatch.setattr("importlib.metadata.requires", lambda name: ["numpy>=1.26", *requires])
    for extra in ("dask", "onnx", "test"):
        words = shlex.split(errors.install_command(extra))
        assert words[:4] == [sys.executable, "-m", "pip", "install"]
        expected: list[str] = []
        for r in extras[extra]:
            if r.startswith("meancli["):
                for other in r[len("meancli[") : -1].split(","):
                    expected += extras[other]
            else:
                expected.append(r)
        assert sorted(words[4:]) == sorted(expected), extra
        assert not any("meancli" in w for w in words[4:])


def cli_hiding(modules: list[str], argv: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command line run in a new process that cannot import ``modules``."""
    hidden = "".join(f"sys.modules[{m!r}] = None; " for m in modules)
    code = f"import sys; {hidden}from meancli.cli.entry import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
    )


def test_cli_message_for_a_missing_extra(tmp_path: Path) -> None:
    """The command line's one line, with zarr hidden, for a zarr store."""
    (tmp_path / "a.zarr").mkdir()
    (tmp_path / "a.zarr" / "zarr.json").write_text('{"zarr_format": 3, "node_type": "group"}')
    proc = cli_hiding(["zarr"], ["reduce-mean", "a.zarr"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.count("\n") == 1
    assert proc.stderr.rstrip("\n").endswith(f"install the dask extra with: {_checkout_command('dask')}")


def test_a_shard_dataset_without_dask_says_so_before_reading_a_shard(tmp_path: Path) -> None:
    """A directory of shards, one of them malformed, with dask hidden: the error named the
    bad shard, and only once it was mended that dask is needed."""
    (tmp_path / "d").mkdir()
    np.save(tmp_path / "d" / "a.npy", np.ones((2, 3), np.float32))
    (tmp_path / "d" / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr':'<f9'}\n")
    proc = cli_hiding(["dask", "dask.array"], ["mean", "d"], tmp_path)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("error: d: dask is needed for zarr arrays, .npy shard datasets")
