"""The machine a benchmark ran on, for every table's machine line (bench.py,
adversarial.py, cluster.py)."""

from __future__ import annotations

import platform
import re
from pathlib import Path

# The CPU features the kernels' speed depends on (x86 names as /proc/cpuinfo spells them).
FLAGS_THAT_MATTER = (
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512dq",
    "avx512_bf16",
    "avx512_fp16",
    "asimd",
    "sve",
)


def cpu_info() -> tuple[str, list[str]]:
    """The CPU model and which of FLAGS_THAT_MATTER it has (/proc/cpuinfo). An x86
    model is followed by its family and model numbers: a virtual machine often
    names only the maker and line ("AMD EPYC" for Zen 1 to Zen 5)."""
    model, flags = platform.processor() or platform.machine() or "?", set[str]()
    numbers: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "Model") and model in ("?", platform.processor(), platform.machine()):
                model = value.strip()
            elif key in ("cpu family", "model") and key not in numbers:
                numbers[key] = value.strip()
            elif key in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        pass
    if len(numbers) == 2:
        model += f" (family {numbers['cpu family']} model {numbers['model']})"
    return model, [f for f in FLAGS_THAT_MATTER if f in flags]


def last_level_cache_bytes() -> int:
    """The largest data or unified cache Linux lists for cpu0 (bytes; 0 where none is listed)."""
    best = 0
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (index / "type").read_text().strip() == "Instruction":
                continue
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        found = re.fullmatch(r"(\d+)([KMG]?)", size)
        if found:
            best = max(best, int(found.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[found.group(2)])
    return best


def machine_slug() -> str:
    """A file name for this kind of machine's bench tables: the CPU model (with
    its family and model numbers), its widest vector set and its last-level
    cache (``intel-xeon-processor-family-6-model-167-avx512-l3-105mib``)."""
    model, flags = cpu_info()
    vectors = (
        "avx512"
        if "avx512f" in flags
        else "avx2"
        if "avx2" in flags
        else "sve"
        if "sve" in flags
        else "novec"
    )
    words = re.sub(r"\(r\)|\(tm\)|cpu|@[^(]*", "", model.lower())
    name = "-".join(re.findall(r"[a-z0-9]+", words)) or "unknown-cpu"
    llc = last_level_cache_bytes()
    return f"{name}-{vectors}" + (f"-l3-{llc >> 20}mib" if llc else "")
