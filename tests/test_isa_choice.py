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
import random
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest
from meancli.generated.tables import ISA_GROUPS, ISA_NAMES

from meancli import kernels
from meancli.kernels import isa_choice
from tests.oracles import exact_mean, same_bits

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
        ({"avx2": 1.0, "avx512": 0.98}, "avx512"),
        ({"avx2": 1.0, "avx512": 1.0}, "avx512"),  # level: the wider set
        ({"avx2": 1.0, "avx512": 1.04}, "avx512"),  # within the gain asked of the narrower set
        ({"avx2": 1.0, "avx512": 1.06}, "avx2"),  # AVX2 faster beyond it
        ({"avx2": 1.0, "avx512": 1.30}, "avx2"),
        ({"avx2": 1.0}, "avx2"),
        ({"avx512": 1.0}, "avx512"),
        ({}, "portable"),
    ],
)
def test_the_widest_set_runs_unless_a_narrower_one_is_faster_by_the_gain(seconds, expected):
    assert isa_choice.decide(seconds) == expected


def test_the_rule_compares_the_pick_with_every_narrower_level(monkeypatch):
    # three vector levels (a future one): the pick moves down past a level that does not beat it
    monkeypatch.setattr(isa_choice, "ISA_NAMES", ("portable", "avx2", "avx512", "wide"))
    assert isa_choice.decide({"avx2": 1.0, "avx512": 1.03, "wide": 1.06}) == "avx2"
    assert isa_choice.decide({"avx2": 1.0, "avx512": 0.90, "wide": 1.00}) == "avx512"
    assert isa_choice.decide({"avx2": 1.0, "avx512": 0.99, "wide": 1.03}) == "wide"


def test_paired_seconds_take_the_median_of_the_rounds_ratios():
    # the machine's speed drifts 3x over the rounds and one round is disturbed:
    # the fastest round of each level would make AVX-512 1/1.5 of AVX2's time
    speed = [1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 3.0]
    avx2 = [2.0 * s for s in speed]
    avx512 = [1.0 * s * 0.9 for s in speed]
    avx512[0] *= 0.5 / 0.9  # the AVX2 half of round 0 ran beside another process
    got = isa_choice.paired_seconds({"avx2": avx2, "avx512": avx512})
    assert got["avx2"] == pytest.approx(2.0 * 2.0)  # the median round
    assert got["avx512"] / got["avx2"] == pytest.approx(0.45)


def fake_timing(ratios: dict[str, float], seed: int, noise: float = 0.04):
    """A time_group for isa_choice.measure: each group's true time at each level
    (1 ms times ``ratios[level]``), a machine speed that drifts by up to 2x between
    rounds, and per-call noise of +-``noise`` (uniform, seeded)."""
    rng = random.Random(seed)
    calls = [0]

    def time_group(group: int, level: str) -> float:
        drift = 1 + (calls[0] // 2 % 7) / 6  # changes between rounds (two calls each), not within one
        calls[0] += 1
        return 1e-3 * ratios[level] * drift * (1 + rng.uniform(-noise, noise))

    return time_group


@pytest.mark.parametrize(
    ("ratio", "expected"),
    [
        (0.97, "avx512"),  # where the old rule (AVX-512 only at 0.97 or less) flipped between runs
        (1.00, "avx512"),  # level (memory-bound): always the same, the wider one
        (0.60, "avx512"),
        (1.10, "avx2"),  # AVX2 faster (a CPU that splits 512-bit work)
        (1.25, "avx2"),
    ],
)
def test_the_measured_choice_is_the_same_in_every_run(ratio, expected):
    # +-4% a call (uniform): the rounds' spread on a shared, busy machine
    picks = {
        isa_choice.measure(("avx2", "avx512"), fake_timing({"avx2": 1.0, "avx512": ratio}, seed)).levels
        for seed in range(40)
    }
    assert picks == {tuple(expected for _ in ISA_GROUPS)}


@pytest.mark.parametrize(
    ("before", "ratio"),
    [
        ("avx2", 1.0),
        ("avx2", 1.05),  # at the rule's threshold: a new measurement would flip it half the time
        ("avx2", 1.2),
        ("avx512", 0.8),
        ("avx512", 1.0),
    ],
)
def test_measuring_anew_keeps_the_choice_unless_beaten_by_the_gain(before, ratio):
    # a busy machine (+-4% a call): a new measurement keeps what the cache
    # held where the other set is not faster by the gain, instead of flipping on the noise
    previous = [before] * len(ISA_GROUPS)
    for seed in range(40):
        timing = fake_timing({"avx2": 1.0, "avx512": ratio}, seed, 0.04)
        assert isa_choice.measure(("avx2", "avx512"), timing, previous).levels == tuple(previous)


def test_measuring_anew_moves_where_the_other_set_is_faster_beyond_the_gain():
    timing = fake_timing({"avx2": 1.0, "avx512": 1.25}, 1)
    assert set(isa_choice.measure(("avx2", "avx512"), timing, ["avx512"] * len(ISA_GROUPS)).levels) == {
        "avx2"
    }
    timing = fake_timing({"avx2": 1.0, "avx512": 0.8}, 1)
    assert set(isa_choice.measure(("avx2", "avx512"), timing, ["avx2"] * len(ISA_GROUPS)).levels) == {
        "avx512"
    }


def test_keep_stays_unless_beaten(monkeypatch):
    assert isa_choice.decide({"avx2": 1.0, "avx512": 1.02}, keep="avx2") == "avx2"
    assert isa_choice.decide({"avx2": 1.04, "avx512": 1.0}, keep="avx2") == "avx2"
    assert isa_choice.decide({"avx2": 1.06, "avx512": 1.0}, keep="avx2") == "avx512"
    assert isa_choice.decide({"avx2": 1.0, "avx512": 1.06}, keep="avx512") == "avx2"
    assert (
        isa_choice.decide({"avx2": 1.0, "avx512": 1.06}, keep="portable") == "avx2"
    )  # not measured: the rule


def test_choose_measures_anew_from_the_cached_choice(monkeypatch, tmp_path):
    monkeypatch.setenv("MEANCLI_CACHE_DIR", str(tmp_path))
    level = {"avx2": 1.0, "avx512": 1.02}  # AVX2 a little faster: the rule takes AVX-512
    first = isa_choice.choose(("avx2", "avx512"), fake_timing(level, 1, 0.0))
    assert first.source == "measured" and set(first.levels) == {"avx512"}
    assert isa_choice.choose(("avx2", "avx512"), fake_timing(level, 2, 0.0)).source == "cache"
    write_choice(str(isa_choice.cache_path()), "avx2")  # a choice made before, on a noisier day
    again = isa_choice.choose(("avx2", "avx512"), fake_timing(level, 3, 0.0), remeasure=True)
    assert again.source == "measured" and set(again.levels) == {"avx2"}  # kept: not beaten by the gain
    assert set(isa_choice.choose(("avx2", "avx512"), fake_timing(level, 4, 0.0)).levels) == {"avx2"}


def test_the_reductions_are_measured_on_values_over_many_binades():
    # as real data (and the bench's): values in [1, 2) pass every fast exactness check
    kernels._measure_data.clear()
    try:
        x = kernels._measure_input("float32", "run")
        assert x.dtype == np.float32 and x.size == kernels._MEASURE_ELEMENTS
        exponents = np.frexp(x[x != 0])[1]
        assert np.unique(exponents).size >= 16 and (x < 0).any()
        assert float(x.mean(dtype=np.float64)) == pytest.approx(1.0, abs=0.01)
        m = kernels._measure_input("float32", "mean")
        assert m.min() >= 1.0 and m.max() < 2.0
        assert kernels._measure_data["float32 out"].size == x.size // 4
    finally:
        kernels._measure_data.clear()


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
    base = {k: v for k, v in os.environ.items() if k != "MEANCLI_ISA"}
    env = {**base, "MEANCLI_CACHE_DIR": str(tmp_path), "MEANCLI_ISA": "portable", "COLUMNS": "200"}
    text = subprocess.run(ISA_CMD[:-1], env=env, capture_output=True, text=True, timeout=120)
    # the measurement's rule decided nothing here: the text does not explain it
    assert text.returncode == 0 and text.stdout.rstrip().endswith(
        "named by MEANCLI_ISA (nothing measured)."
    ), text
    assert "widest set runs" not in text.stdout


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


@pytest.mark.parametrize("group", range(len(ISA_GROUPS)), ids=[f"{k}-{d}" for k, d in ISA_GROUPS])
def test_every_group_is_measured_on_every_level_of_this_cpu(group):
    # The measurement runs only where the CPU has two vector sets, at first use on
    # such a machine: a measurement that fails must fail here on any CPU. Its data
    # holds bfloat16 as raw bits (uint16); the kernels must still be bfloat16's.
    kind, name = ISA_GROUPS[group]
    mod = kernels._module()  # the choice applied, so it can be put back
    chosen = mod.ffi.string(mod.lib.meancli_isa(group)).decode()
    kernels._measuring.now = True
    try:
        for level in kernels.supported_isas()[1:] or ("portable",):
            assert kernels._time_group(group, level) > 0
            if kind == "mean":  # the output is the Mean of the input's four quarters
                quarters = kernels._measure_input(name, "mean").reshape(4, -1)[:, :4096]
                got = kernels._measure_data[name + " out"][:4096]
                if name == "bfloat16":
                    quarters, got = quarters.view(ml_dtypes.bfloat16), got.view(ml_dtypes.bfloat16)
                assert same_bits(got, exact_mean(list(quarters))), (level, name)
    finally:
        kernels._measuring.now = False
        kernels._measure_data.clear()
        mod.lib.meancli_use_isa(group, ISA_NAMES.index(chosen))
