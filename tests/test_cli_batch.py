"""``meancli reduce-mean`` with several FILEs in one process (meancli/cli/batch.py).

The command runs through conftest.run_cli (in process). Values are checked
against the exact mean (oracles.exact_reduce_mean) and against the same
file reduced in a run of its own (bit-identical).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import jsonschema
import numpy as np
import pytest
from conftest import Result, run_cli
from oracles import assert_float_close, exact_reduce_mean

from meancli.cli.batch import output_paths
from meancli.errors import UsageError

MEANCLI = [sys.executable, "-m", "meancli"]
SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "schema"


def run(argv: list[str], cwd: Path, stdin: bytes = b"") -> Result:
    return run_cli(*argv, cwd=cwd, stdin=stdin, env={"NO_COLOR": "1", "TERM": "dumb", "COLUMNS": "200"})


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """in/a.npy (float32), in/b.npy (float16), in/c.npy (int32), in/sub/a.npy, in/bad.npy, out/."""
    rng = np.random.default_rng(13)
    (tmp_path / "in" / "sub").mkdir(parents=True)
    (tmp_path / "out").mkdir()
    a = (rng.standard_normal((3, 17, 29)) * 1e3).astype(np.float32)
    np.save(tmp_path / "in" / "a.npy", a)
    np.save(tmp_path / "in" / "b.npy", rng.uniform(-6e4, 6e4, (4, 8, 8)).astype(np.float16))
    np.save(tmp_path / "in" / "c.npy", rng.integers(-(2**31), 2**31, (2, 5, 7), dtype=np.int32))
    np.save(tmp_path / "in" / "sub" / "a.npy", rng.random((2, 3, 4)).astype(np.float32))
    (tmp_path / "in" / "bad.npy").write_bytes(b"not a npy file\n")
    return tmp_path


def test_each_file_gets_its_exact_mean(tree: Path) -> None:
    names = ["in/a.npy", "in/b.npy", "in/c.npy"]
    ran = run(["reduce-mean", *names, "--axes", "1", "2", "-o", "out/{stem}.npy", "--quiet"], tree)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "", "")
    for name in names:
        x = np.load(tree / name)
        got = np.load(tree / "out" / (Path(name).stem + ".npy"))
        want = exact_reduce_mean(x, [1, 2], keepdims=True)
        if x.dtype.kind == "f":
            assert_float_close(got, want, context=name)
        else:
            assert got.dtype == want.dtype and np.array_equal(got, want), name
        # the same bits as a run of its own
        alone = run(["reduce-mean", name, "--axes", "1", "2", "-o", "alone.npy", "--quiet"], tree)
        assert alone.returncode == 0, alone.stderr
        assert np.load(tree / "alone.npy").tobytes() == got.tobytes()


def test_placeholders(tree: Path) -> None:
    np.savez(tree / "in" / "pair.npz", r=np.ones((2, 2), np.float32), g=np.full((2, 2), 3, np.float32))
    files = ["in/a.npy", "in/sub/a.npy", "in/pair.npz:r", "in/pair.npz:g"]
    template = "{parent}/{index:02d}-{stem}{member}.mean.npy"
    ran = run(["reduce-mean", *files, "--axes", "0", "-o", template, "--quiet"], tree)
    assert ran.returncode == 0, ran.stderr
    written = {
        "in/00-a.mean.npy": "in/a.npy",
        "in/sub/01-a.mean.npy": "in/sub/a.npy",
        "in/02-pairr.mean.npy": ("in/pair.npz", "r"),
        "in/03-pairg.mean.npy": ("in/pair.npz", "g"),
    }
    for out, source in written.items():
        x = np.load(tree / source) if isinstance(source, str) else np.load(tree / source[0])[source[1]]
        assert_float_close(np.load(tree / out), exact_reduce_mean(x, [0], keepdims=True), context=out)
    # {name}, and stdin (its name is "stdin")
    stdin = (tree / "in" / "sub" / "a.npy").read_bytes()
    ran = run(["reduce-mean", "-", "in/a.npy", "--axes", "0", "-o", "out/{name}.npy", "--quiet"], tree, stdin)
    assert ran.returncode == 0, ran.stderr
    assert sorted(os.listdir(tree / "out")) == ["a.npy.npy", "stdin.npy"]
    assert np.load(tree / "out" / "stdin.npy").shape == (1, 3, 4)


def test_one_file_with_a_template_and_literal_braces(tree: Path) -> None:
    ran = run(["reduce-mean", "in/a.npy", "--axes", "0", "-o", "out/{{{stem}}}.npy", "--quiet"], tree)
    assert ran.returncode == 0, ran.stderr
    assert os.listdir(tree / "out") == ["{a}.npy"]


@pytest.mark.parametrize(
    ("files", "output", "message"),
    [
        (["in/a.npy", "in/b.npy"], "out/x.npy", "names one file for 2 FILEs"),
        (["in/a.npy", "in/b.npy"], "-", "stdout"),
        (["in/a.npy", "in/sub/a.npy"], "out/{stem}.npy", "would both be written to out/a.npy"),
        (["in/a.npy", "in/a.npy"], "out/{name}", "would both be written"),
        (["in/a.npy", "in/b.npy"], "out/{path}.npy", "unknown placeholder {path}"),
        (["in/a.npy", "in/b.npy"], "out/{stem.npy", "-o 'out/{stem.npy'"),
        (["in/a.npy", "in/b.npy"], "out/{stem!r}.npy", "{stem!r}: a conversion (!r) is not supported"),
        (["in/a.npy", "in/b.npy"], "out/{stem:03d}.npy", "-o 'out/{stem:03d}.npy'"),
        (["in/a.npy", "in/b.npy"], "{member}", "a template names files"),
        (["in/a.npy", "in/b.npy"], "in/b.npy{member}", "would replace the input in/b.npy"),
        (["-", "-"], "out/{index}.npy", "stdin"),
        (["in/a.npy", "in/b.npy"], "out/{index:c}.npy", "a file name with a NUL character"),
        (["in/a.npy", "in/b.npy"], "out/{index:999999999999d}.npy", "-o 'out/{index:999999999999d}.npy'"),
        (["in/a.npy", "in/b.npy"], "out/{index:5000d}.npy", "more than 4096 characters"),
        (["in/a.npy", "in/b.npy"], "out/{index}.npz", ".npz outputs are not supported"),
        (["in/a.npy"], "out/x.npz", ".npz outputs are not supported"),
        (["in/missing.npy"], "out/x.npz", ".npz outputs are not supported"),  # said before reading
        # a zipped zarr store is read, not written: refused, not a .npy under that name
        (
            ["in/missing.npy"],
            "out/x.zarr.zip",
            "zipped zarr stores are not written; write a directory store (-o out/x.zarr)",
        ),
        (["in/a.npy"], "out/x.ZARR.ZIP/", "zipped zarr stores are not written"),
        (["in/a.npy", "in/b.npy"], "out/{stem}.zarr.zip", "(-o out/{stem}.zarr)"),
        (["in/a.npy"], "out/x.zip", "zip outputs are not supported"),
    ],
)
def test_bad_output_names_are_usage_errors_before_any_file_is_read(
    tree: Path, files: list[str], output: str, message: str
) -> None:
    ran = run(["reduce-mean", *files, "--axes", "0", "-o", output], tree)
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.startswith("error: ") and message in ran.stderr, ran.stderr
    assert len(ran.stderr.splitlines()) == 1
    assert os.listdir(tree / "out") == []


def test_mean_refuses_an_npz_output_before_reading(tree: Path) -> None:
    ran = run(["mean", "in/missing.npy", "in/a.npy", "-o", "out/m.npz"], tree)
    assert ran.returncode == 2 and ".npz outputs are not supported" in ran.stderr, ran.stderr
    ran = run(["mean", "in/missing.npy", "in/a.npy", "-o", "out/m.zarr.zip"], tree)
    assert ran.returncode == 2 and "zipped zarr stores are not written" in ran.stderr, ran.stderr
    assert os.listdir(tree / "out") == []


@pytest.mark.parametrize(
    "output", ["out/{stem}.npy", "out/{index}.npy", "out/{member}x.npy", "out/{bogus}.npy"]
)
def test_mean_refuses_a_placeholder_it_cannot_fill(tree: Path, output: str) -> None:
    """mean writes one result: no FILE fills a placeholder (it was written literally)."""
    ran = run(["mean", "in/a.npy", "in/b.npy", "-o", output], tree)
    assert ran.returncode == 2, ran.stderr
    field = output[output.index("{") : output.index("}") + 1]
    assert ran.stderr.splitlines() == [
        f"error: -o {output!r}: {field}: mean writes one result, so -o names one file (placeholders fill "
        "in names for reduce-mean's FILEs; write {{ and }} for a literal brace)"
    ]
    assert os.listdir(tree / "out") == []


def test_mean_writes_a_literal_brace_written_doubled(tree: Path) -> None:
    ran = run(["mean", "in/a.npy", "in/a.npy", "-o", "out/{{m}}.npy"], tree)
    assert ran.returncode == 0, ran.stderr
    assert os.listdir(tree / "out") == ["{m}.npy"]
    np.testing.assert_array_equal(np.load(tree / "out/{m}.npy"), np.load(tree / "in/a.npy"))


def test_output_paths_of_inputs_without_a_directory(tmp_path: Path) -> None:
    os.chdir(tmp_path)
    assert output_paths(["a.npy", "b.x.npy"], "{parent}/{stem}.m.npy") == ["./a.m.npy", "./b.x.m.npy"]
    assert output_paths(["a.npy"], "a.npy") == ["a.npy"]  # its own input: replaced atomically, as ever
    assert output_paths(["a.npy", "b.npy"], None) == [None, None]
    with pytest.raises(UsageError):
        output_paths(["a.npy", "b.npy"], "b.npy{member}")


def test_stop_at_the_first_failure(tree: Path) -> None:
    files = ["in/a.npy", "in/bad.npy", "in/c.npy"]
    ran = run(["reduce-mean", *files, "--axes", "1", "-o", "out/{stem}.npy", "--quiet"], tree)
    assert ran.returncode == 1
    lines = ran.stderr.splitlines()
    assert lines[0].startswith("error: in/bad.npy: not a .npy file")
    assert lines[1] == (
        "error: 1 of 3 files failed (in/bad.npy); 1 done, 1 not run "
        "(stopped at the first failure; --keep-going runs the others)"
    )
    assert sorted(os.listdir(tree / "out")) == ["a.npy"]


def test_keep_going(tree: Path) -> None:
    files = ["in/a.npy", "in/bad.npy", "in/missing.npy", "in/c.npy"]
    ran = run(["reduce-mean", *files, "--axes", "1", "-o", "out/{stem}.npy", "-k"], tree)
    assert ran.returncode == 1
    err = ran.stderr.splitlines()
    assert err[0].startswith("error: in/bad.npy: ")
    assert err[1].startswith("error: in/missing.npy: ")
    assert err[2] == "error: 2 of 4 files failed (in/bad.npy, in/missing.npy); 2 done"
    assert sorted(os.listdir(tree / "out")) == ["a.npy", "c.npy"]
    assert ran.stdout.count("ReduceMean-18 (onnx)") == 2  # a report for each file done
    assert "files done" not in ran.stdout  # the count is an error line on stderr


def test_a_spec_violation_names_its_file(tree: Path) -> None:
    np.save(tree / "in" / "flat.npy", np.ones(4, np.float32))
    ran = run(["reduce-mean", "in/a.npy", "in/flat.npy", "--axes", "2", "-o", "out/{stem}.npy", "-k"], tree)
    assert ran.returncode == 1
    assert ran.stderr.splitlines()[0].startswith("error: in/flat.npy: "), ran.stderr
    assert os.listdir(tree / "out") == ["a.npy"]


def test_every_file_done_prints_a_count(tree: Path) -> None:
    ran = run(["reduce-mean", "in/a.npy", "in/c.npy", "--axes", "0", "-o", "out/{stem}.npy"], tree)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[-1] == "2 of 2 files done"


def test_json_lines(tree: Path) -> None:
    files = ["in/a.npy", "in/bad.npy", "in/c.npy"]
    ran = run(["reduce-mean", *files, "--axes", "1", "2", "--json", "--keep-going"], tree)
    assert ran.returncode == 1
    reports = [json.loads(line) for line in ran.stdout.splitlines()]
    assert [r["inputs"][0]["path"] for r in reports] == ["in/a.npy", "in/c.npy"]
    c = np.load(tree / "in" / "c.npy")
    assert reports[1]["result"] == exact_reduce_mean(c, [1, 2], keepdims=True).tolist()
    errors = [json.loads(line) for line in ran.stderr.splitlines()]
    for report in reports:
        jsonschema.validate(report, json.loads((SCHEMA / "report.schema.json").read_text()))
    for error in errors:
        jsonschema.validate(error, json.loads((SCHEMA / "error.schema.json").read_text()))
    assert errors[0]["path"] == "in/bad.npy" and errors[0]["kind"] == "input"
    assert errors[0]["error"].startswith("in/bad.npy: ")
    assert errors[1] == {
        "error": "1 of 3 files failed (in/bad.npy); 2 done",
        "kind": "input",
        "failed": ["in/bad.npy"],
    }


def test_a_failed_file_leaves_its_existing_output_untouched(tree: Path) -> None:
    """Outputs are written atomically: a file that fails never replaces an
    existing output, and no temporary file stays behind."""
    (tree / "out" / "bad.npy").write_bytes(b"old")
    (tree / "out" / "b.npy").write_bytes(b"old")
    ran = run(
        ["reduce-mean", "in/a.npy", "in/bad.npy", "in/b.npy", "--axes", "0", "-o", "out/{stem}.npy", "-k"],
        tree,
    )
    assert ran.returncode == 1
    assert (tree / "out" / "bad.npy").read_bytes() == b"old"
    assert np.load(tree / "out" / "b.npy").shape == (1, 8, 8)  # replaced whole
    assert sorted(os.listdir(tree / "out")) == ["a.npy", "b.npy", "bad.npy"]  # no .tmp left


def test_an_unwritable_output_is_that_files_failure(tree: Path) -> None:
    files = ["in/a.npy", "in/c.npy"]
    ran = run(["reduce-mean", *files, "--axes", "0", "-o", "out/{stem}/x.npy", "-k", "--quiet"], tree)
    assert ran.returncode == 1
    err = ran.stderr.splitlines()
    assert err[0].startswith("error: in/a.npy: cannot write out/a/x.npy: "), err
    assert err[-1] == "error: 2 of 2 files failed (in/a.npy, in/c.npy); 0 done"


def test_the_bfloat16_note_is_said_once_per_run(tree: Path) -> None:
    import ml_dtypes

    for name in ("p", "q"):
        np.save(tree / "in" / f"{name}.npy", np.arange(6, dtype=np.float32).astype(ml_dtypes.bfloat16))
    ran = run(["reduce-mean", "in/p.npy", "in/q.npy", "-o", "out/{stem}.npy"], tree)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.count("read as bfloat16") == 1, ran.stderr
    assert np.load(tree / "out" / "q.npy").view(ml_dtypes.bfloat16).astype(np.float32).tolist() == [2.5]


# Names with an escape sequence, a tab and a newline: printed raw they would recolour or
# split the terminal's lines. Each is shown as a one-file run shows it (io.messages.display).
HOSTILE_NAMES = ["b\x1b[31mred", "t\tab", "n\nl"]


@pytest.mark.parametrize("stem", HOSTILE_NAMES)
def test_control_characters_in_a_failed_file_name_are_escaped(tree: Path, stem: str) -> None:
    from meancli.io.messages import display

    bad = f"in/{stem}.npy"
    (tree / bad).write_bytes(b"not a npy file\n")
    alone = run(["reduce-mean", bad, "--axes", "0", "-o", "out/alone.npy"], tree)
    assert alone.returncode == 1
    shown = display(bad)
    assert alone.stderr == f"error: {shown}: not a .npy file (it does not start with \\x93NUMPY)\n"
    ran = run(["reduce-mean", "in/a.npy", bad, "--axes", "0", "-o", "out/{index}.npy", "-k", "-q"], tree)
    assert ran.returncode == 1
    assert ran.stderr.splitlines() == [
        alone.stderr.rstrip("\n"),  # the same line as the file's own run
        f"error: 1 of 2 files failed ({shown}); 1 done",
    ]
    assert sorted(os.listdir(tree / "out")) == ["0.npy"]


def test_control_characters_in_a_refused_dtype_file_name_are_escaped(tree: Path) -> None:
    from meancli.io.messages import display

    name = "in/i\x1b[31mint.npy"
    np.save(tree / name, np.ones((2, 3), np.int8))
    ran = run(["reduce-mean", "in/a.npy", name, "--opset", "6", "-o", "out/{index}.npy", "-k", "-q"], tree)
    assert ran.returncode == 1
    lines = ran.stderr.splitlines()
    assert lines[0].startswith(f"error: {display(name)}: ReduceMean-1 (onnx) does not accept int8 ")
    assert lines[1] == f"error: 1 of 2 files failed ({display(name)}); 1 done"
    assert all(line.isprintable() for line in lines)


def test_placeholders_of_zarr_members_shard_datasets_lists_and_globs(tree: Path) -> None:
    """Every kind of FILE fills the placeholders as an .npz member does: {stem} and
    {name} from the file, store, list or directory the data comes from (never empty,
    never a glob character), {member} the array's path in a zarr group."""
    zarr = pytest.importorskip("zarr")
    pytest.importorskip("dask")
    rng = np.random.default_rng(5)
    t2m = rng.standard_normal((4, 3))
    group = zarr.open_group(str(tree / "in" / "era5.zarr"), mode="w")
    group.create_array("t2m", shape=t2m.shape, dtype=t2m.dtype)[...] = t2m
    (tree / "in" / "shards").mkdir()
    parts = [rng.standard_normal((2, 3)) for _ in range(2)]
    for i, part in enumerate(parts):
        np.save(tree / "in" / "shards" / f"part-{i}.npy", part)
    (tree / "in" / "parts.txt").write_text("shards/part-1.npy\nshards/part-0.npy\n")
    whole = np.concatenate(parts)
    cases = {
        "in/era5.zarr:t2m": ("era5|era5.zarr|in|t2m", t2m),
        "in/shards/": ("shards|shards|in|", whole),
        "in/shards": ("shards|shards|in|", whole),
        "in/shards/part-*.npy": ("shards|shards|in|", whole),
        "@in/parts.txt": ("parts|parts.txt|in|", np.concatenate(parts[::-1])),
    }
    for file, (fields, x) in cases.items():
        out = tree / "out" / f"{fields}.npy"
        ran = run(
            ["reduce-mean", file, "--axes", "0", "-o", "out/{stem}|{name}|{parent}|{member}.npy", "-q"], tree
        )
        assert ran.returncode == 0, (file, ran.stderr)
        assert sorted(os.listdir(tree / "out")) == [out.name], file  # nothing hidden, no '*'
        assert_float_close(np.load(out), exact_reduce_mean(x, [0], keepdims=True), context=file)
        out.unlink()
