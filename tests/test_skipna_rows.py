"""skipna on column reductions (the reduced axis outer, the outputs contiguous
columns): the row kernels mask each NaN lane as they read it and count it
per column (templates/kernel_vec.c.j2, add_rows_body with skipna), with no
copy of the rows. The edges of that path, on every instruction set, every
float dtype, 1 and 2 threads, whole and fed in slabs (exact partial states),
judged bit for bit against the exact rational oracle (tests/oracles.py):
NaN in the columns past the last whole vector (the scalar tail), columns of
NaN only, NaN only in the last row of each block of rows, the sign of a zero
mean beside NaN, +inf with -inf, blocks that fail their check while holding
NaN, and runs of blocks on the exact path (r->skip) with NaN in them."""

from __future__ import annotations

from typing import Any

import numpy as np
import oracles
import pytest
from oracles import same_bits

import meancli
from meancli import kernels

FLOATS = ("float16", "bfloat16", "float32", "float64")
ROWS_CAP = 256  # rows per block of a row accumulation (meancli_config.h)
# narrow (w <= 64: register panels) and wide (ROW_GROUP) row loops; widths
# that leave a scalar tail after AVX2's 8 and AVX-512's 16 lanes, and not
WIDTHS = (1, 7, 16, 23, 64, 65, 77, 300)
# make test-fast keeps one width of each kind of loop: a scalar tail alone (7), a
# register panel with a tail (23), the wide loop with a tail (77); make test runs all
FAST_WIDTHS = (7, 23, 77)
EDGE_WIDTHS = [w if w in FAST_WIDTHS else pytest.param(w, marks=pytest.mark.slow) for w in WIDTHS]


def _nan(name: str) -> Any:
    """A NaN of dtype ``name`` with a payload and the sign bit (not the C NAN)."""
    u = oracles.UINT[oracles.DTYPES[name].itemsize]
    return np.array(oracles.NAN_BITS[name][-1], dtype=u).view(oracles.DTYPES[name])


def columns(name: str, nrows: int, w: int, seed: int, kind: str) -> np.ndarray:
    """(nrows, w) values of ``name`` with 1% NaN, the edge columns first
    (as many as w holds) and the last column (the scalar tail) with NaN:

    - "edges": all NaN; NaN only in the last row of each block of rows;
      -0.0s and NaN (mean -0.0); -0.0s, one +0.0 and NaN (+0.0); a first
      block of NaN, then -0.0s and NaN (-0.0);
    - "inf": +inf and -inf with NaN (NaN); +inf alone with NaN (+inf);
    - "plain": no edge column;
    - "spread": values 2^-60 to 2^60 with NaN, so blocks fail their check
      (split, or summed again exactly; the next blocks straight to the exact path).
    """
    rng = np.random.default_rng(seed)
    dt = oracles.DTYPES[name]
    if kind == "spread":
        e = 12 if name == "float16" else 60
        v = rng.standard_normal((nrows, w)) * 2.0 ** rng.integers(-e, e, (nrows, w))
    else:  # a few binades: the blocks pass their check and are kept from the masked loop
        v = rng.uniform(0.5, 1.5, (nrows, w)) * 2.0 ** rng.integers(-3, 3, (nrows, w))
        v[rng.random((nrows, w)) < 0.5] *= -1
    small = rng.random((nrows, w)) < 0.3
    v[small] = rng.integers(-4, 5, int(small.sum()))
    x = v.astype(dt)
    x[rng.random((nrows, w)) < 0.01] = _nan(name)
    last_rows = np.arange(ROWS_CAP - 1, nrows, ROWS_CAP)
    edges: list[np.ndarray] = []
    if kind == "edges":
        nan_last = x[:, 0].copy()
        nan_last[last_rows] = np.nan
        nan_last[-1] = np.nan
        nan_last[np.isnan(nan_last) & ~np.isin(np.arange(nrows), [*last_rows, nrows - 1])] = 1
        negz = np.full(nrows, -0.0, dt)
        negz[::5] = np.nan
        posz = negz.copy()
        posz[nrows // 2 + 1] = 0.0
        nan_block = negz.copy()  # a first block of NaN only (its sum zero): no +0.0 from it
        nan_block[:ROWS_CAP] = np.nan
        edges = [np.full(nrows, np.nan, dt), nan_last, negz, posz, nan_block]
    elif kind == "inf":
        both = x[:, 0].copy()
        both[3], both[nrows - 2] = np.inf, -np.inf
        pinf = np.full(nrows, np.nan, dt)
        pinf[nrows // 3] = np.inf
        edges = [both, pinf]
    for j, col in enumerate(edges[:w]):
        x[:, j] = col.astype(dt)
    x[rng.random(nrows) < 0.05, w - 1] = np.nan
    x[-1, w - 1] = np.nan
    return x


def _slabs(x: np.ndarray, skipna: bool, states: bool, threads: int, cut: int) -> np.ndarray:
    """The reduction over axis 0 fed in slabs of about ``cut`` rows (the streamed engine's job)."""
    name = oracles.spec_name(x.dtype)
    out = np.empty((1, x.shape[1]), dtype=kernels.partial_dtype(name) if states else x.dtype)
    with kernels.ReduceJob(name, x.shape, x.strides, [True, False], skipna=skipna, states=states) as job:
        _, rows, _, granule = job.info()
        step = max(granule, (cut + granule - 1) // granule * granule)
        for a in range(0, rows, step):
            b = min(rows, a + step)
            job.step(x[a:b], a, b, out, threads)
        job.end(out)
    return kernels.finalize_partials(out, name) if states else out


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("w", EDGE_WIDTHS)
@pytest.mark.parametrize("kind", ["edges", "inf", "spread"])
def test_column_skipna_edges(isa: str, name: str, w: int, kind: str) -> None:
    nrows = 3 * ROWS_CAP + 37 if kind != "spread" else 12 * ROWS_CAP + 5
    x = columns(name, nrows, w, seed=w * 7 + len(kind), kind=kind)
    for skipna in (True, False):
        want = oracles.exact_reduce_mean(x, (0,), True, skipna=skipna)
        for threads in (1, 2):
            got = meancli.reduce_mean(x, [0], True, skipna=skipna, threads=threads)
            assert same_bits(got, want), (isa, name, w, kind, skipna, threads)


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("w", [23, 64, 77])
def test_column_skipna_in_slabs_and_states(isa: str, name: str, w: int) -> None:
    """Slabs that end inside blocks of rows, as a running reduction and as
    exact partial states: the NaN counts ride in the states' count words."""
    x = columns(name, 3 * ROWS_CAP + 37, w, seed=5, kind="edges")
    want = oracles.exact_reduce_mean(x, (0,), True, skipna=True)
    for cut, threads in ((100, 1), (300, 2)):
        assert same_bits(_slabs(x, True, False, threads, cut), want), (isa, name, w, cut)
        assert same_bits(_slabs(x, True, True, threads, cut), want), (isa, name, w, cut, "states")


@pytest.mark.parametrize("name", ["float32", "bfloat16"])
def test_column_skipna_strided_and_middle_axes(isa: str, name: str) -> None:
    """Columns with a row stride other than their width (a slice, a kept
    outer axis) and a reduced axis between kept ones."""
    x = columns(name, 2 * ROWS_CAP + 9, 80, seed=3, kind="edges")
    view = x[:, 5:69]  # 64 columns, row stride 80
    want = oracles.exact_reduce_mean(view, (0,), False, skipna=True)
    assert same_bits(meancli.reduce_mean(view, [0], False, skipna=True, threads=2), want), isa
    cube = x.reshape(2 * ROWS_CAP + 9, 4, 20).transpose(1, 0, 2)  # (4, rows, 20): axis 1
    cube = np.ascontiguousarray(cube)
    want = oracles.exact_reduce_mean(cube, (1,), False, skipna=True)
    assert same_bits(meancli.reduce_mean(cube, [1], False, skipna=True, threads=2), want), isa


@pytest.mark.parametrize("name", FLOATS)
@pytest.mark.parametrize("w", [8, 64, 77])
def test_column_skipna_zero_sign_after_a_block_of_nan(isa: str, name: str, w: int) -> None:
    """A column whose first block of rows is NaN only (its sum zero, the block
    kept, the other columns' values ordinary) and whose later values are all
    -0.0 or NaN: its mean is -0.0, so the kept all-NaN block must add no +0.0
    (float64's -0.0 fails its block check; only an ordinary block is kept)."""
    x = columns(name, 3 * ROWS_CAP + 37, w, seed=17, kind="plain")  # 1% NaN, no inf, no -0.0
    x[:ROWS_CAP, 0] = np.nan
    x[ROWS_CAP:, 0] = -0.0
    x[ROWS_CAP + 40 :: 7, 0] = np.nan
    want = oracles.exact_reduce_mean(x, (0,), True, skipna=True)
    assert np.signbit(np.asarray(want, dtype=np.float64)[0, 0]) and want[0, 0] == 0
    for threads in (1, 2):
        got = meancli.reduce_mean(x, [0], True, skipna=True, threads=threads)
        assert same_bits(got, want), (isa, name, w, threads)
