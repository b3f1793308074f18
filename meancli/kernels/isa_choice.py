"""Which instruction set each kind of kernel runs on this machine: measured
once over data the size of a large call, and cached per CPU and kernel build.

Why not decide as the module loads: a measurement short enough for every
start (microseconds over data in L1) flips from one process to the next and
is not where large calls run. Here each kind of kernel of each float dtype
is timed at each vector level over 4 Mi elements (16 MiB of float32: beyond
L2 on every x86-64 CPU, where large calls run), the levels alternated in
each round, so each round gives a ratio of their times taken milliseconds
apart; the median of ``ROUNDS`` rounds' ratios counts (a drift of the
machine's speed between rounds, or one disturbed round, does not move it).
The widest level runs unless a narrower one beats it by ``NARROWER_GAIN``:
where the levels are level (memory-bound work), the choice does not hang on
the noise of a threshold the measured ratio sits at, and a narrower set runs
only where the wider one is measurably slower (some CPUs split 512-bit work
into two 256-bit halves). The result is written to
``<cache>/isa-<key>.json`` (key: CPU model, flags, kernel source hash), so
every later process on the machine, the dask workers included, runs the same
choice without measuring. The choice never changes a result: every level
gives the same bits; it only changes speed.

This module holds the policy (the cache, the rule, the report) and measures
through a timing function the kernel module gives it, so it imports no kernel
code itself.
"""

# No ``from __future__ import annotations`` here: typing.NamedTuple compiles each
# string annotation of its fields, in every run that imports this module (about
# 0.2 M instructions a class; docs/speed.md, "Start-up and quick runs").

import contextlib
import fcntl
import json
import os
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from ..generated.tables import ISA_GROUPS, ISA_NAMES, KERNEL_SOURCE_SHA256

# a narrower set runs where the wider one took more than 105% of its time: the
# bench's tolerance (the set not picked at least 0.95 of the picked one's time),
# and beyond the noise of the median of ROUNDS ratios (about 2% on a busy machine)
NARROWER_GAIN = 0.05
ROUNDS = 11  # rounds of every level, alternated; the median of the rounds' ratios counts
CACHE_FORMAT = 3  # bump when the file's fields, the measured workloads or the rule change

# the environment variables: the cache folder, and a level that bypasses the choice
CACHE_ENV = "MEANCLI_CACHE_DIR"
ISA_ENV = "MEANCLI_ISA"


class Choice(NamedTuple):
    """The level each of ISA_GROUPS runs, and why.

    ``levels``: ISA_NAMES names, one per ISA_GROUPS entry; ``seconds``: for
    each group, each measured level's time (s) over its workloads (empty
    where nothing was measured): the narrowest level's median round, and each
    wider level's that times the median of the rounds' ratios of the two;
    ``source``: ``"measured"`` (now, by this process), ``"cache"``,
    ``"MEANCLI_ISA"``, or ``"cpu"`` (one vector level or none: nothing to
    choose); ``path``: the cache file (None: none used).
    """

    levels: tuple[str, ...]
    seconds: tuple[dict[str, float], ...]
    source: str
    path: Path | None

    def as_json(self) -> dict[str, Any]:
        """The choice as JSON: ``groups`` (kind, dtype, isa, seconds per level), ``source``, ``cache``."""
        return {
            "source": self.source,
            "cache": None if self.path is None else str(self.path),
            "groups": [
                {"kind": kind, "dtype": dtype, "isa": level, "seconds": seconds}
                for (kind, dtype), level, seconds in zip(ISA_GROUPS, self.levels, self.seconds, strict=True)
            ],
        }


def cache_dir() -> Path:
    """The folder of meancli's cache: ``$MEANCLI_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/meancli``, else ``~/.cache/meancli`` (not created here)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "meancli"


def _cpu_identity() -> str:
    """The CPU's model name and flags (Linux /proc/cpuinfo; elsewhere empty: the key is the build's)."""
    model = flags = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and not model:
                    model = value.strip()
                elif key == "flags" and not flags:
                    flags = " ".join(sorted(value.split()))
                if model and flags:
                    break
    except OSError:
        pass
    return f"{model}\n{flags}"


def cache_path() -> Path:
    """The cache file of this CPU and kernel build: ``isa-<key>.json``, the key 16
    hex digits of two checksums (CRC-32 and Adler-32) of the CPU's identity and the
    kernel build. A name, not a guard: a clash with another machine's or build's
    file could only pick a slower set, never another result (every set gives the
    same bits). Not hashlib: it loads OpenSSL, some 4 ms of every run that uses
    the kernels."""
    ident = f"{CACHE_FORMAT}\n{_cpu_identity()}\n{KERNEL_SOURCE_SHA256}".encode()
    return cache_dir() / f"isa-{zlib.crc32(ident):08x}{zlib.adler32(ident):08x}.json"


def decide(seconds: dict[str, float], keep: str | None = None) -> str:
    """The level to run from each vector level's time (s): the widest one no
    narrower one beats by ``NARROWER_GAIN`` (the pick so far moves to a
    narrower level that took less than 1 / (1 + NARROWER_GAIN) of its time);
    ``"portable"`` when nothing was measured. ``keep``: the level chosen
    before (a cache file measured anew): it stays unless another level beats
    it by ``NARROWER_GAIN``, the fastest such one then, so that a ratio near
    the rule's threshold does not flip the choice from one measurement to the
    next."""
    names = [name for name in ISA_NAMES[1:] if name in seconds]
    if not names:
        return str(ISA_NAMES[0])
    if keep is not None and keep in names:
        best = min(names, key=lambda name: seconds[name])
        return str(best if seconds[keep] > (1 + NARROWER_GAIN) * seconds[best] else keep)
    pick = names[-1]
    for name in reversed(names[:-1]):
        if seconds[pick] > (1 + NARROWER_GAIN) * seconds[name]:
            pick = name
    return str(pick)


def _median(values: Sequence[float]) -> float:
    """The median of ``values`` (not empty); not statistics: its import costs every start."""
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def paired_seconds(times: dict[str, list[float]]) -> dict[str, float]:
    """Each level's time (s) from its times in alternated rounds (``times``:
    level name -> one time a round, the rounds in the same order for every
    level, the narrowest level first in the dict): the narrowest level's
    median, and each wider level's that times the median over the rounds of
    its time / the narrowest one's in the same round. A round's ratio is taken
    milliseconds apart, so a drift of the machine's speed between rounds falls
    on both levels; the median leaves out a round another process disturbed."""
    names = list(times)
    base = times[names[0]]
    out = {names[0]: _median(base)}
    for name in names[1:]:
        ratios = [t / b if b > 0 else float("inf") for t, b in zip(times[name], base, strict=True)]
        out[name] = out[names[0]] * _median(ratios)
    return out


def _read(path: Path) -> Choice | None:
    """The cached choice at ``path``; None where there is none or it is not
    one of ours (then it is measured anew)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        groups = data["groups"]
        if [(g["kind"], g["dtype"]) for g in groups] != list(ISA_GROUPS):
            return None  # another build's groups
        levels = tuple(str(g["isa"]) for g in groups)
        if any(level not in ISA_NAMES for level in levels):
            return None
        seconds = tuple({str(k): float(v) for k, v in g["seconds"].items()} for g in groups)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return Choice(levels, seconds, "cache", path)


def _write(path: Path, choice: Choice) -> bool:
    """Write ``choice`` to ``path`` whole or not at all (a temporary file
    renamed); False, and no temporary file left, where it cannot be written
    (a folder that is not writable, ``path`` a directory)."""
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # a name of this process's own (not tempfile: it costs every start its import)
        name = path.parent / f".isa-{os.getpid()}-{os.urandom(4).hex()}.tmp"
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        tmp = str(name)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({**choice.as_json(), "cache": None}, f, indent=1)
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        if isinstance(exc, OSError):
            return False
        raise
    return True


def measure(
    vector_levels: Sequence[str],
    time_group: Callable[[int, str], float],
    previous: Sequence[str] | None = None,
) -> Choice:
    """Measure every ISA_GROUPS entry at every level of ``vector_levels``
    (lowest first): ``time_group(group, level)`` runs that group's workloads
    once at that level and returns the seconds; the levels alternate within
    each of ``ROUNDS`` rounds (the order reversed every other round), and
    ``paired_seconds`` makes the rounds one time per level. ``previous``: the
    levels chosen before, one per group, each kept unless beaten by the gain
    (``decide``'s ``keep``)."""
    seconds: list[dict[str, float]] = []
    for group in range(len(ISA_GROUPS)):
        times: dict[str, list[float]] = {name: [] for name in vector_levels}
        for r in range(ROUNDS):
            order = vector_levels if r % 2 == 0 else tuple(reversed(vector_levels))
            for name in order:
                times[name].append(time_group(group, name))
        seconds.append(paired_seconds(times))
    keep = list(previous) if previous is not None else [None] * len(seconds)
    levels = tuple(decide(s, k) for s, k in zip(seconds, keep, strict=True))
    return Choice(levels, tuple(seconds), "measured", None)


def choose(
    vector_levels: Sequence[str], time_group: Callable[[int, str], float], *, remeasure: bool = False
) -> Choice:
    """The choice for this machine: from the cache file, else measured (and
    cached). ``vector_levels``: the vector levels the CPU has (ISA_NAMES
    names, lowest first); with fewer than two there is nothing to choose.
    ``remeasure``: measure even when a cache file exists, and rewrite it;
    its choice is kept where the measurement does not beat it by the gain.

    Two processes that find no cache at once do not both measure: the second
    waits on a lock beside the cache file and reads the first one's result.
    A cache folder that cannot be written costs a measurement per process.
    """
    if len(vector_levels) < 2:
        level = vector_levels[-1] if vector_levels else ISA_NAMES[0]
        return Choice(tuple(level for _ in ISA_GROUPS), tuple({} for _ in ISA_GROUPS), "cpu", None)
    path = cache_path()
    cached = _read(path)
    if not remeasure and cached is not None:
        return cached
    lock = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_suffix(".lock"), "w")  # noqa: SIM115 (held until the cache is written)
        fcntl.flock(lock, fcntl.LOCK_EX)
    except OSError:
        lock = None
    try:
        if not remeasure and (cached := _read(path)) is not None:
            return cached  # measured by another process while this one waited
        choice = measure(vector_levels, time_group, cached.levels if cached is not None else None)
        written = _write(path, choice)
        return Choice(choice.levels, choice.seconds, "measured", path if written else None)
    finally:
        if lock is not None:
            lock.close()


def bypassed(level: str) -> Choice:
    """The choice when ``MEANCLI_ISA`` names ``level`` (or the highest the
    CPU has below it): nothing measured."""
    return Choice(tuple(level for _ in ISA_GROUPS), tuple({} for _ in ISA_GROUPS), ISA_ENV, None)
