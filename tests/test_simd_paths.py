"""The AVX2 loops and the portable loops give bit-identical results.

MEANCLI_NO_SIMD=1 makes the kernels skip their intrinsics paths (read once
when the compiled module loads), so each side runs in its own process.
"""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = r"""
import hashlib, itertools
import ml_dtypes, numpy as np, meancli
rng = np.random.default_rng(7)
h = hashlib.sha256()
dtypes = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16, np.int64, np.uint64, np.int32]
for shape in [(70001,), (3, 40000), (4000, 37), (5, 7, 9, 11), (200, 600), (7, 300, 50), (1000, 64)]:
    x = rng.standard_normal(shape) * 1000
    for order in "CF":
        xx = np.asarray(x, order=order)
        r = len(shape)
        for k in range(1, r + 1):
            for axes in itertools.combinations(range(r), k):
                for dt in dtypes:
                    y = np.abs(xx).astype(dt) if dt == np.uint64 else xx.astype(dt)
                    h.update(meancli.reduce_mean(y, axes=list(axes)).tobytes())
# row accumulation: every narrow width (registers per 8 columns, a tail) and a wide one
for w in [*range(1, 66), 300]:
    x = rng.standard_normal((1100, w)) * 1000
    for dt in dtypes:
        y = np.abs(x).astype(dt) if dt == np.uint64 else x.astype(dt)
        h.update(meancli.reduce_mean(y, axes=[0]).tobytes())
        h.update(meancli.reduce_mean(y[::3, : max(1, w - 1)], axes=[0]).tobytes())
for dt in [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]:
    a = rng.standard_normal((30, 100, 37)).astype(dt)
    h.update(meancli.mean(a, a[0], a[:, :1], a[::-1]).tobytes())
    # Mean: contiguous and broadcast inputs (the fused path), widths with
    # tails, up to and past the fused path's input count, a strided input
    for w in [1, 7, 15, 16, 17, 33, 513, 1100]:
        b = rng.standard_normal((6, w)).astype(dt)
        c = rng.standard_normal((w,)).astype(dt)
        d = rng.standard_normal((6, 1)).astype(dt)
        for k in [1, 2, 3, 16, 17]:
            h.update(meancli.mean(*([b, c, d] * 6)[:k]).tobytes())
        h.update(meancli.mean(b, np.asfortranarray(b), c).tobytes())
print(h.hexdigest())
"""


def digest(no_simd: bool) -> str:
    env = {**os.environ, "MEANCLI_NO_SIMD": "1" if no_simd else "0"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True)
    return proc.stdout.strip()


def test_vector_and_portable_paths_agree() -> None:
    assert digest(no_simd=False) == digest(no_simd=True)
