"""Adversarial float data for exactness tests: cancelling pairs at random
positions, exponent spread, near-ties, sums beyond the format's maximum with
a finite mean, subnormals, signed zeros, NaN and infinities, and benign
values with a few far smaller ones among them.

``values(rng, dtype, n, kind)`` returns n values of the spec dtype ``dtype``
(a numpy array of that dtype); every kind is reproducible from the rng.
"""

from __future__ import annotations

import math

import numpy as np
from oracles import DTYPES, FLOAT_FORMATS, float_max

KINDS = ("cancel", "spread", "tie", "overflow", "subnormal", "zeros", "special", "benign", "sparse_tiny")

_UINT = {2: np.uint16, 4: np.uint32, 8: np.uint64}


def _as(dtype: str, v: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(v, dtype=np.float64).astype(DTYPES[dtype])


def next_up(dtype: str, x: np.ndarray) -> np.ndarray:
    """The next value of the format above each positive finite x (by its bits)."""
    u = _UINT[DTYPES[dtype].itemsize]
    return (x.view(u) + u(1)).view(DTYPES[dtype])


def _spread(rng: np.random.Generator, dtype: str, n: int) -> np.ndarray:
    _, emin, emax = FLOAT_FORMATS[dtype]
    width = {"float32": 60, "float64": 500}.get(dtype, (emax - emin) // 2)
    e = rng.integers(-width, width + 1, n)
    mant = rng.uniform(1.0, 2.0, n) * rng.choice([-1.0, 1.0], n)
    return np.ldexp(mant, e)


def values(rng: np.random.Generator, dtype: str, n: int, kind: str) -> np.ndarray:
    """n values (n >= 1) of ``dtype`` of the given kind."""
    p, emin, emax = FLOAT_FORMATS[dtype]
    big = float_max(dtype)
    tiny = math.ldexp(1.0, emin - p + 1)  # the smallest subnormal
    if kind == "benign":
        return _as(dtype, rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4))
    if kind == "spread":
        return _as(dtype, _spread(rng, dtype, n))
    if kind == "sparse_tiny":
        # benign values and, at random positions, a few far smaller ones: blocks
        # that fail the one-sum check and are summed as a large and a small part
        v = rng.standard_normal(n)
        k = max(1, n // int(rng.choice([30, 300, 3000])))
        pos = rng.choice(n, k, replace=False)
        lo = 14 if dtype == "float16" else 40
        v[pos] *= np.ldexp(1.0, -rng.integers(lo // 2, lo + 1, k))
        return _as(dtype, v)
    if kind == "cancel":
        # pairs x, -x of huge magnitude around a few small values, shuffled
        small = _as(dtype, rng.standard_normal(n) * rng.choice([1.0, 1e-3, 1e3]))
        k = n // 2
        half = _as(dtype, np.ldexp(rng.uniform(1, 2, k), rng.integers(emax - 30, emax, k)))
        v = small.copy()
        pos = rng.permutation(n)
        v[pos[: k // 2 * 2 : 2]] = half[: k // 2]
        v[pos[1 : k // 2 * 2 : 2]] = -half[: k // 2]
        return v
    if kind == "tie":
        # a and its neighbour b: their mean is a midpoint of the format; extra
        # cancelling pairs keep it there; a tiny value moves it just off
        a = _as(dtype, np.ldexp(rng.uniform(1, 2, 1), rng.integers(emin, emax, 1)))
        a = np.abs(a)
        b = next_up(dtype, a)
        if not np.isfinite(b).all():
            a, b = a / 2, next_up(dtype, a / 2)
        m = max(2, n - n % 2)
        v = np.zeros(m, dtype=DTYPES[dtype])
        v[0], v[1] = a[0], b[0]
        if m >= 4:
            c = _as(dtype, np.ldexp(rng.uniform(1, 2, (m - 2) // 2), rng.integers(emin, emax, (m - 2) // 2)))
            v[2 : 2 + c.size] = c
            v[2 + c.size : 2 + 2 * c.size] = -c
        mode = rng.integers(0, 3)
        if mode and m >= 3:
            v[-1] = _as(dtype, np.array([tiny if mode == 1 else -tiny]))[0]
        if rng.integers(0, 2):
            v = -v
        return v[rng.permutation(m)]
    if kind == "overflow":
        # many values near the maximum of one sign, fewer of the other: the
        # sum leaves the format's range, the mean does not
        v = _as(dtype, big * rng.uniform(0.5, 1.0, n))
        v[rng.random(n) < 0.3] *= -1
        return v
    if kind == "subnormal":
        k = rng.integers(1, 2 ** min(p - 1, 20), n)
        return _as(dtype, k * tiny * rng.choice([-1.0, 1.0], n))
    if kind == "zeros":
        v = np.where(rng.random(n) < 0.5, -0.0, 0.0)
        if rng.integers(0, 2):
            v[:] = -0.0
        return _as(dtype, v)
    if kind == "special":
        v = rng.standard_normal(n)
        k = rng.integers(1, 3)
        for _ in range(int(k)):
            v[rng.integers(0, n)] = rng.choice([math.inf, -math.inf, math.nan])
        return _as(dtype, v)
    raise ValueError(kind)
