"""The machine a benchmark ran on, for every table's machine line (bench.py,
adversarial.py, cluster.py)."""

from __future__ import annotations

import platform
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
    """The CPU model and which of FLAGS_THAT_MATTER it has (/proc/cpuinfo)."""
    model, flags = platform.processor() or platform.machine() or "?", set[str]()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key in ("model name", "Model") and model in ("?", platform.processor(), platform.machine()):
                model = value.strip()
            elif key in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        pass
    return model, [f for f in FLAGS_THAT_MATTER if f in flags]
