"""The choice of instruction sets (meancli/kernels/isa_choice.py): measured once
per machine and kernel build, cached, and the same in every process.

The rule is checked on given timings; the cache by processes that must follow
a cache file written by hand (not what they would measure), and by two
processes started at once on an empty cache, which must measure once and
agree. Speed is not asserted here (the bench does it); results are the same
bits on every level (tests/test_kernels_oracle.py and others run every level).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from meancli.generated.tables import ISA_GROUPS

from meancli import kernels
from meancli.kernels import isa_choice

ISA_CMD = [sys.executable, "-m", "meancli", "isa", "--json"]
TWO_LEVELS = len(kernels.supported_isas()) >= 3  # portable + two vector sets: something to choose


def isa_json(cache: str, *extra: str, env: dict[str, str] | None = None) -> dict:
    """``meancli isa --json`` in a new process with the cache folder ``cache``."""
    base = {k: v for k, v in os.environ.items() if k != "MEANCLI_ISA"}
    proc = subprocess.run(
        [*ISA_CMD, *extra],
        env={**base, "MEANCLI_CACHE_DIR": cache, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def cache_file(cache: str) -> str:
    """The cache file a process with cache folder ``cache`` reads on this machine."""
    saved = os.environ.get("MEANCLI_CACHE_DIR")
    os.environ["MEANCLI_CACHE_DIR"] = cache
    try:
        return str(isa_choice.cache_path())
    finally:
        if saved is None:
            del os.environ["MEANCLI_CACHE_DIR"]
        else:
            os.environ["MEANCLI_CACHE_DIR"] = saved


def write_choice(path: str, level: str) -> None:
    """A cache file that puts every group on ``level``, with timings that say why."""
    seconds = {"avx2": 1.0, "avx512": 0.5} if level == "avx512" else {"avx2": 0.5, "avx512": 1.0}
    groups = [{"kind": k, "dtype": d, "isa": level, "seconds": seconds} for k, d in ISA_GROUPS]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"source": "measured", "cache": None, "groups": groups}, f)


# ----------------------------------------------------------------------------- the rule


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        ({"avx2": 1.0, "avx512": 0.90}, "avx512"),
        ({"avx2": 1.0, "avx512": 0.97}, "avx512"),  # exactly the gain asked
        ({"avx2": 1.0, "avx512": 0.98}, "avx2"),  # within the noise: the narrower set
        ({"avx2": 1.0, "avx512": 1.30}, "avx2"),
        ({"avx2": 1.0}, "avx2"),
        ({}, "portable"),
    ],
)
def test_the_wider_set_runs_only_where_measured_faster_by_the_gain(seconds, expected):
    assert isa_choice.decide(seconds) == expected


def test_the_cache_file_is_keyed_by_the_kernel_build(monkeypatch, tmp_path):
    monkeypatch.setenv("MEANCLI_CACHE_DIR", str(tmp_path))
    first = isa_choice.cache_path()
    monkeypatch.setattr(isa_choice, "KERNEL_SOURCE_SHA256", "0" * 64)
    assert isa_choice.cache_path() != first
    assert first.parent == tmp_path


def test_without_a_cache_folder_the_user_cache_is_used(monkeypatch, tmp_path):
    monkeypatch.delenv("MEANCLI_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert isa_choice.cache_dir() == tmp_path / "meancli"


# ----------------------------------------------------------------------------- across processes

needs_two = pytest.mark.skipif(not TWO_LEVELS, reason="this CPU has one vector set: nothing to choose")


@needs_two
@pytest.mark.parametrize("level", ["avx2", "avx512"])
def test_a_process_runs_the_cached_choice_without_measuring(tmp_path, level):
    write_choice(cache_file(str(tmp_path)), level)
    report = isa_json(str(tmp_path))
    assert report["source"] == "cache"
    assert [g["isa"] for g in report["groups"]] == [level] * len(ISA_GROUPS)


@needs_two
@pytest.mark.slow  # each process measures (about a second, more on a loaded machine)
def test_two_processes_at_once_measure_once_and_agree(tmp_path):
    base = {k: v for k, v in os.environ.items() if k != "MEANCLI_ISA"}
    env = {**base, "MEANCLI_CACHE_DIR": str(tmp_path)}
    procs = [
        subprocess.Popen(ISA_CMD, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    try:
        outs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    reports = [json.loads(out) for out, _ in outs]
    assert sorted(r["source"] for r in reports) == ["cache", "measured"]
    assert reports[0]["groups"] == reports[1]["groups"]
    # and a later process runs the same, from the cache
    later = isa_json(str(tmp_path))
    assert later["source"] == "cache" and later["groups"] == reports[0]["groups"]
    for group in later["groups"]:
        assert set(group["seconds"]) == {"avx2", "avx512"}
        assert group["isa"] == isa_choice.decide(group["seconds"])


@needs_two
@pytest.mark.slow  # each process measures (about a second, more on a loaded machine)
def test_a_damaged_cache_file_is_measured_anew_and_replaced(tmp_path):
    path = cache_file(str(tmp_path))
    os.makedirs(tmp_path, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write('{"groups": [{"kind": "run"')
    report = isa_json(str(tmp_path))
    assert report["source"] == "measured"
    with open(path, encoding="utf-8") as f:
        assert [g["isa"] for g in json.load(f)["groups"]] == [g["isa"] for g in report["groups"]]


@needs_two
@pytest.mark.slow  # each process measures (about a second, more on a loaded machine)
def test_measure_rewrites_the_cache(tmp_path):
    path = cache_file(str(tmp_path))
    write_choice(path, "avx512")
    report = isa_json(str(tmp_path), "--measure")
    assert report["source"] == "measured"
    with open(path, encoding="utf-8") as f:
        groups = json.load(f)["groups"]
    assert groups == report["groups"]
    assert all(g["seconds"] != {"avx2": 1.0, "avx512": 0.5} for g in groups)


def test_meancli_isa_names_the_level_and_measures_nothing(tmp_path):
    report = isa_json(str(tmp_path), env={"MEANCLI_ISA": "portable"})
    assert report["source"] == "MEANCLI_ISA"
    assert [g["isa"] for g in report["groups"]] == ["portable"] * len(ISA_GROUPS)
    assert not os.path.exists(cache_file(str(tmp_path)))


@needs_two
@pytest.mark.slow  # each process measures (about a second, more on a loaded machine)
def test_an_unwritable_cache_folder_still_runs(tmp_path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder would be")
    report = isa_json(str(blocked))
    assert report["source"] == "measured" and report["cache"] is None


def test_the_text_report_says_where_the_choice_came_from(tmp_path):
    base = {k: v for k, v in os.environ.items() if k != "MEANCLI_ISA"}
    proc = subprocess.run(
        [sys.executable, "-m", "meancli", "isa"],
        env={**base, "MEANCLI_CACHE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "choice:" in proc.stdout
    for kind, dtype in ISA_GROUPS:
        assert dtype in proc.stdout and kind in proc.stdout
