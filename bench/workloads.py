"""The large workloads of the benchmarks (bench/bench.py against the peers,
bench/baseline.py against earlier kernels): shapes, axes, dtypes, and the
data they run on. Imports numpy and ml_dtypes only, so a process can time
another build of meancli on the same data."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

try:
    import ml_dtypes

    BF16: Any = ml_dtypes.bfloat16
except ImportError:  # pragma: no cover
    BF16 = None


@dataclass
class Workload:
    name: str
    title: str
    kind: str  # "reduce" or "mean"
    dtype: str  # float32, float16, bfloat16, float64, int64
    shapes: list[tuple[int, ...]]  # one for reduce; the inputs for mean
    quick_shapes: list[tuple[int, ...]]
    axes: tuple[int, ...] | None = None  # reduce: None = reduce all
    limit_factor: float = 1.25

    def np_dtype(self) -> Any:
        return BF16 if self.dtype == "bfloat16" else np.dtype(self.dtype)


F32, F16, F64 = "float32", "float16", "float64"
WORKLOADS = [
    Workload(
        "W1",
        "global average pool (32,256,56,56) axes 2 3",
        "reduce",
        F32,
        [(32, 256, 56, 56)],
        [(2, 64, 56, 56)],
        (2, 3),
    ),
    Workload(
        "W1-bf16",
        "global average pool (32,256,56,56) axes 2 3, bfloat16",
        "reduce",
        "bfloat16",
        [(32, 256, 56, 56)],
        [(2, 64, 56, 56)],
        (2, 3),
        1.5,
    ),
    Workload("W2", "last axis (8192,4096) axis -1", "reduce", F32, [(8192, 4096)], [(256, 4096)], (-1,)),
    Workload("W3", "first axis (1000000,64) axis 0", "reduce", F32, [(1_000_000, 64)], [(16_384, 64)], (0,)),
    Workload("W4", "reduce all, 10^8 values", "reduce", F32, [(100_000_000,)], [(1_000_000,)], None),
    Workload(
        "W4-bf16",
        "reduce all, 10^8 values, bfloat16",
        "reduce",
        "bfloat16",
        [(100_000_000,)],
        [(1_000_000,)],
        None,
        1.5,
    ),
    Workload(
        "W4-i64", "reduce all, 10^8 values, int64", "reduce", "int64", [(100_000_000,)], [(1_000_000,)], None
    ),
    Workload(
        "W5", "middle axis (64,1024,256) axis 1", "reduce", F32, [(64, 1024, 256)], [(2, 1024, 256)], (1,)
    ),
    Workload(
        "W6",
        "global average pool (32,256,56,56) axes 2 3, float16",
        "reduce",
        F16,
        [(32, 256, 56, 56)],
        [(2, 64, 56, 56)],
        (2, 3),
        1.5,
    ),
    Workload("W6b", "reduce all, 5*10^7 values, float64", "reduce", F64, [(50_000_000,)], [(500_000,)], None),
    Workload(
        "W9",
        "short runs: channels of (4194304,3) axis -1",
        "reduce",
        F32,
        [(4_194_304, 3)],
        [(65_536, 3)],
        (-1,),
    ),
    Workload(
        "W9-f64",
        "few rows: (8,4000000) axis 0, float64",
        "reduce",
        F64,
        [(8, 4_000_000)],
        [(8, 65_536)],
        (0,),
    ),
    Workload(
        "W7", "Mean of 4 x (16,3,512,512)", "mean", F32, [(16, 3, 512, 512)] * 4, [(1, 3, 256, 256)] * 4
    ),
    Workload(
        "W7-f64",
        "Mean of 4 x (8,3,512,512), float64",
        "mean",
        F64,
        [(8, 3, 512, 512)] * 4,
        [(1, 3, 128, 128)] * 4,
    ),
    Workload(
        "W7b",
        "Mean of (16,3,512,512) + (3,1,1) + (512,)",
        "mean",
        F32,
        [(16, 3, 512, 512), (3, 1, 1), (512,)],
        [(1, 3, 512, 512), (3, 1, 1), (512,)],
    ),
]


def make_data(w: Workload, shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    """The inputs of w. Reductions: floats drawn from a normal distribution
    of mean 1 and standard deviation 1, as real data spread over many
    binades near 0, so the kernels' exactness checks face what they face in
    use (values in a narrow range would pass every fast check), while every
    mean is near 1 and a relative error stays meaningful. Mean: floats in
    [0.5, 1.5), as a mean of a few values near 0 would make every peer's
    relative error look huge (meancli's checks pass either way: a unit
    fails only when its values span more than about 2^27). int64: [0, 2e6)."""
    rng = np.random.default_rng(seed)
    out = []
    for shape in shapes:
        a: np.ndarray[Any, Any]
        if w.dtype == "int64":
            a = rng.integers(0, 2_000_000, size=shape, dtype=np.int64)
        else:
            wide = np.float64 if w.dtype == F64 else np.float32
            if w.kind == "reduce":
                a = rng.standard_normal(shape, dtype=wide)
                a += 1
            else:
                a = rng.random(shape, dtype=wide)
                a += 0.5
            if w.dtype not in (F32, F64):
                a = a.astype(w.np_dtype())
        out.append(a)
    return out


# --skipna (meancli's own extension): float32 data with 1% NaN, timed against
# the same reduction without --skipna and against np.nanmean and dask's nanmean
NAN_FRACTION = 0.01
SKIPNA_WORKLOADS = [
    Workload(
        "NAN-W1",
        "global average pool (32,256,56,56) axes 2 3, 1% NaN",
        "reduce",
        F32,
        [(32, 256, 56, 56)],
        [(2, 64, 56, 56)],
        (2, 3),
    ),
    Workload(
        "NAN-W2", "last axis (8192,4096) axis -1, 1% NaN", "reduce", F32, [(8192, 4096)], [(256, 4096)], (-1,)
    ),
    Workload(
        "NAN-W3",
        "first axis (1000000,64) axis 0, 1% NaN",
        "reduce",
        F32,
        [(1_000_000, 64)],
        [(16_384, 64)],
        (0,),
    ),
    Workload(
        "NAN-W4", "reduce all, 5*10^7 values, 1% NaN", "reduce", F32, [(50_000_000,)], [(1_000_000,)], None
    ),
    Workload(
        "NAN-W7",
        "Mean of 4 x (8,3,512,512), 1% NaN",
        "mean",
        F32,
        [(8, 3, 512, 512)] * 4,
        [(1, 3, 64, 64)] * 4,
    ),
]


def make_nan_data(w: Workload, shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    """make_data's inputs with NAN_FRACTION of their values (at random places) NaN."""
    rng = np.random.default_rng(seed + 1)
    out = make_data(w, shapes, seed)
    for a in out:
        flat = a.reshape(-1)
        flat[rng.random(flat.size) < NAN_FRACTION] = np.nan
    return out
