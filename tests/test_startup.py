"""What a run of the command line loads and sets: only what the command it runs needs.

Each case runs the entry point in a fresh interpreter and lists the modules
loaded once the command has finished. A data command does not load the other
commands, and with ``--quiet`` (nothing printed) it does not load rich.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from oracles import exact_reduce_mean

# Runs meancli as the console script does, then prints its exit status and the
# names of the modules it loaded.
PROBE = """
import sys
from meancli.cli.entry import main

status = main(sys.argv[1:])
loaded = sorted(sys.modules)
print(status)
print(" ".join(loaded))
"""
COMMAND_MODULES = {
    "reduce-mean": "meancli.cli.reduce_mean_cmd",
    "mean": "meancli.cli.mean_cmd",
    "spec": "meancli.cli.spec_cmd",
}


def loaded_by(argv: list[str], cwd: Path) -> tuple[int, set[str], str]:
    """Exit status, loaded modules and stderr of one run of ``meancli argv``."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    status, modules = proc.stdout.splitlines()[-2:]
    return int(status), set(modules.split()), proc.stderr


@pytest.fixture
def x(tmp_path: Path) -> Path:
    path = tmp_path / "x.npy"
    np.save(path, np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5))
    return path


#: Standard modules taken off every run's start-up: hashlib (with OpenSSL's _hashlib;
#: the instruction-set cache's file name is keyed by zlib checksums) and glob (imported
#: only to expand a shard pattern, io/registry.py).
NOT_AT_START_UP = {"hashlib", "_hashlib", "glob"}


@pytest.mark.parametrize("quiet", [["--quiet"], []], ids=["quiet", "report"])
def test_a_one_file_run_loads_neither_hashlib_nor_glob(x: Path, quiet: list[str]) -> None:
    argv = ["reduce-mean", str(x), "--axes", "2", "3", "--keep-dims", "-o", "out.npy", *quiet]
    status, modules, stderr = loaded_by(argv, x.parent)
    assert (status, stderr) == (0, "")
    assert "meancli.kernels" in modules  # the kernels ran, with their choice of instruction set
    assert modules.isdisjoint(NOT_AT_START_UP), modules & NOT_AT_START_UP
    expected = exact_reduce_mean(np.load(x), (2, 3), keepdims=True)
    np.testing.assert_array_equal(np.load(x.parent / "out.npy"), expected)


def test_a_shard_pattern_loads_glob(x: Path) -> None:
    np.save(x.parent / "y.npy", np.ones((1, 3, 4, 5), np.float32))
    status, modules, stderr = loaded_by(
        ["reduce-mean", str(x.parent / "[xy].npy"), "--axes", "0", "-o", "out.npy"], x.parent
    )
    assert (status, stderr) == (0, "") and "glob" in modules
    shards = np.concatenate([np.load(x), np.ones((1, 3, 4, 5), np.float32)])
    np.testing.assert_array_equal(
        np.load(x.parent / "out.npy"), exact_reduce_mean(shards, (0,), keepdims=True)
    )


def test_quiet_reduce_mean_loads_neither_rich_nor_other_commands(x: Path) -> None:
    argv = ["reduce-mean", str(x), "--axes", "2", "3", "--keep-dims", "-o", "out.npy", "--quiet"]
    status, modules, stderr = loaded_by(argv, x.parent)
    assert (status, stderr) == (0, "")
    assert np.load(x.parent / "out.npy").shape == (2, 3, 1, 1)
    assert "meancli.cli.reduce_mean_cmd" in modules
    assert "meancli.cli.mean_cmd" not in modules
    assert "meancli.cli.spec_cmd" not in modules
    assert not {m for m in modules if m == "rich" or m.startswith("rich.")}


# What a run of one small .npy file into a .npy file never needs: the dask engine
# (and logging, which it loads), streaming in slabs, zarr arrays and shard
# datasets, .npz archives (zipfile), tempfile (with random) for the output, and
# rich (and dataclasses, which it loads) for a report that does not go to a terminal.
NOT_FOR_ONE_FILE = (
    "rich",
    "meancli.engine.dask.graphs",
    "meancli.io.source",
    "meancli.io.chunked",
    "meancli.io.npz",
    "zipfile",
    "tempfile",
    "random",
    "logging",
    "dataclasses",
)


@pytest.mark.parametrize("quiet", [["--quiet"], []], ids=["quiet", "report"])
def test_one_file_loads_no_engine_it_does_not_use(x: Path, quiet: list[str]) -> None:
    argv = ["reduce-mean", str(x), "--axes", "2", "3", "--keep-dims", "-o", "out.npy", *quiet]
    status, modules, stderr = loaded_by(argv, x.parent)
    assert (status, stderr) == (0, "")
    np.testing.assert_array_equal(np.load(x.parent / "out.npy"), np.load(x).mean(axis=(2, 3), keepdims=True))
    assert "meancli.engine.where" in modules  # the probe sees the modules the run imported
    assert sorted(set(NOT_FOR_ONE_FILE) & modules) == []


def test_quiet_mean_loads_neither_rich_nor_other_commands(x: Path) -> None:
    status, modules, stderr = loaded_by(["mean", str(x), str(x), "-o", "out.npy", "--quiet"], x.parent)
    assert (status, stderr) == (0, "")
    assert "meancli.cli.mean_cmd" in modules
    assert "meancli.cli.reduce_mean_cmd" not in modules
    assert "meancli.cli.spec_cmd" not in modules
    assert "rich" not in modules


def test_shown_report_loads_rich(x: Path) -> None:
    status, modules, _ = loaded_by(["reduce-mean", str(x), "--axes", "0"], x.parent)
    assert status == 0
    assert "rich" in modules


def test_spec_loads_no_data_command(tmp_path: Path) -> None:
    status, modules, _ = loaded_by(["spec", "list"], tmp_path)
    assert status == 0
    assert "meancli.cli.spec_cmd" in modules
    assert "meancli.cli.reduce_mean_cmd" not in modules
    assert "meancli.cli.mean_cmd" not in modules
    assert "numpy" not in modules


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["reduce-men", "x.npy"],  # a misspelled command: the suggestion needs every name
    ],
)
def test_without_a_command_name_every_command_is_registered(argv: list[str], tmp_path: Path) -> None:
    status, modules, _ = loaded_by(argv, tmp_path)
    assert status in (0, 2)
    assert set(COMMAND_MODULES.values()) <= modules


def test_a_command_alone_parses_as_in_the_whole_application() -> None:
    """The help and the usage errors of a command do not depend on its siblings."""
    from typer.testing import CliRunner

    from meancli.cli.app import build_app

    for name in COMMAND_MODULES:
        for args in (["--help"], ["--no-such-option"]):
            alone = CliRunner().invoke(build_app([name]), [name, *args])
            whole = CliRunner().invoke(build_app(), [name, *args])
            assert alone.exit_code == whole.exit_code == (0 if args == ["--help"] else 2)
            assert alone.output == whole.output


# Runs the entry point as the console script does (argv from the command line)
# and reports what it leaves behind for the process: the collector's state and
# the OpenBLAS thread setting numpy was imported with.
STATE_PROBE = """
import gc, os, sys
from meancli.cli.entry import main

status = main()
print(status, gc.isenabled(), os.environ.get("OPENBLAS_NUM_THREADS"))
"""


def run_state_probe(argv: list[str], cwd: Path, env: dict[str, str]) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", STATE_PROBE, *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )
    assert proc.stderr == "", proc.stderr
    return proc.stdout.split()


def test_a_run_starts_numpy_without_blas_threads_unless_told(x: Path) -> None:
    """meancli never calls BLAS: numpy's OpenBLAS is told to start no threads,
    unless the user set OPENBLAS_NUM_THREADS."""
    import os

    argv = ["reduce-mean", str(x), "--axes", "0", "-o", "out.npy", "--quiet"]
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    assert run_state_probe(argv, x.parent, env) == ["0", "False", "1"]  # collector off to the end
    assert run_state_probe(argv, x.parent, {**env, "OPENBLAS_NUM_THREADS": "3"}) == ["0", "False", "3"]


def test_a_run_over_several_files_collects_garbage(x: Path) -> None:
    """Start-up runs without the cyclic collector; a run over several files turns it on."""
    import os

    argv = ["reduce-mean", str(x), str(x), "--axes", "0", "-o", "{index}.npy", "--quiet"]
    assert run_state_probe(argv, x.parent, dict(os.environ)) == ["0", "True", "1"]


def test_an_in_process_caller_gets_the_collector_back(x: Path) -> None:
    import gc

    from meancli.cli.entry import main

    assert gc.isenabled()
    assert main(["reduce-mean", str(x), "--axes", "0", "-o", str(x.parent / "o.npy"), "--quiet"]) == 0
    assert gc.isenabled()


def _report(paths: list[str], out: str, attributes: dict[str, object], engine: dict[str, object]) -> object:
    from meancli.cli.report import Report, TensorInfo
    from meancli.ops.opset import resolve

    op = resolve("Mean" if len(paths) > 1 else "ReduceMean")
    report = Report("mean" if len(paths) > 1 else "reduce-mean", 1 if len(paths) == 3 else 2, op)
    report.inputs = [TensorInfo(p, (2, 3, 1000)[: i + 1], "float32") for i, p in enumerate(paths)]
    report.output = TensorInfo(out, (), "bfloat16")
    report.attributes = attributes
    report.engine = engine
    report.timings_ms = {"read": 0.5, "validate": 0.0123, "kernel": 1234.5, "kernel_min": 1.0, "write": 3.25}
    return report


MEMORY = {"name": "memory"}
DASK = {
    "name": "dask",
    "scheduler": "synchronous",
    "workers": 0,
    "chunks": [{"chunk_shape": [2], "grid": [3]}],
}


@pytest.mark.parametrize(
    ("paths", "out", "attributes", "engine", "plain"),
    [
        (["x.npy"], "out.npy", {"axes": [2, 3], "keepdims": 1}, MEMORY, True),
        (["a b/x.npy", "y.npy", "z.npy"], "o.npy", {}, {"name": "streamed"}, True),
        (["d/" + "long" * 300 + ".npy"], "-", {"axes": []}, DASK, True),
        (["[bold]x[/bold].npy"], "o[1].npy", {"axes": [-1]}, MEMORY, True),  # markup shown as written
        (["data.npz:a"], "o.npy", {}, MEMORY, False),  # ':' -- rich would read :name: as an emoji
        (["x\tt.npy"], "o.npy", {}, MEMORY, False),
        (["naïve.npy"], "o.npy", {}, MEMORY, False),
        (["x.npy"], "时.npy", {}, MEMORY, False),
    ],
)
def test_a_written_output_is_reported_as_rich_would_without_loading_it(
    paths: list[str],
    out: str,
    attributes: dict[str, object],
    engine: dict[str, object],
    plain: bool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Off a terminal, the report of a written output is rendered without rich,
    to the byte what rich renders; text rich would change goes to rich."""
    import io

    from meancli.cli import report as report_module

    report = _report(paths, out, attributes, engine)
    assert (report_module.plain_report(report) is not None) == plain  # type: ignore[arg-type]
    ours = io.StringIO()
    report_module.emit(report, None, json_mode=False, quiet=False, stream=ours)  # type: ignore[arg-type]
    monkeypatch.setattr(report_module, "plain_report", lambda report: None)
    by_rich = io.StringIO()
    report_module.emit(report, None, json_mode=False, quiet=False, stream=by_rich)  # type: ignore[arg-type]
    assert ours.getvalue() == by_rich.getvalue()
    if plain:
        assert all(p in ours.getvalue() for p in [*paths, out])
