"""The element-wise Mean over short rows (issue 29): where the plan's inner
dim has at most TILE / 2 outputs, meancli_mean gives the vector unit several
output rows at once (kernel_mean.c.j2, mean_rows_block), each input read
contiguously across them, as one broadcast value, or copied row by row into
a buffer (a bias row kept there from one unit to the next). Every result is
judged bit for bit against the exact rational oracle (tests/oracles.py):
stride-0 inputs in each position, rows shorter than a vector, units whose
last rows are a tail, index wraps inside a unit, strided inputs, NaN and
infinities in a broadcast input, every instruction set, 1 and 2 threads,
streamed and cached stores."""

from __future__ import annotations

import functools

import ml_dtypes
import numpy as np
import oracles
import pytest

import meancli
from meancli import kernels

# signalling NaN inputs make numpy's casts in the oracle warn
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")

DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}

#: Bit-identical, NaN payloads and signs of zero included.
exact_bits = functools.partial(oracles.same_bits, nan_payloads=True)


def check(arrays: list[np.ndarray], isas: tuple[str, ...], threads: tuple[int, ...] = (1, 2)) -> None:
    want = oracles.exact_mean(arrays)
    for isa in isas:
        kernels.use_isa(isa)
        for t in threads:
            got = meancli.mean(*arrays, threads=t)
            assert exact_bits(got, want), (
                isa,
                t,
                arrays[0].dtype,
                [a.shape for a in arrays],
            )


def narrow(rng: np.random.Generator, shape: tuple[int, ...], dt: type) -> np.ndarray:
    """Values a few binades apart (the vector unit's exact sums), with small integers (ties)."""
    v = np.asarray(rng.standard_normal(shape) * 2.0 ** rng.integers(-3, 4, shape))
    v = np.where(rng.random(shape) < 0.2, rng.integers(-4, 5, shape), v)
    return np.asarray(v.astype(dt))


# rows shorter than one vector of any set, a vector, around it, and up to TILE / 2
# (and past it: the units of one row)
INNER = [2, 3, 5, 7, 8, 15, 16, 17, 31, 100, 255, 256, 257]
TILE = 512


def row_counts(inner: int) -> list[int]:
    """One row, two, and two whole units of TILE // inner rows (at most) and a tail row."""
    return [1, 2, 2 * max(1, TILE // inner) + 1]


@pytest.mark.parametrize("name", list(DTYPES))
@pytest.mark.parametrize("inner", INNER)
def test_rows_with_broadcast_inputs_in_each_position(
    every_isa: tuple[str, ...], name: str, inner: int
) -> None:
    rng = np.random.default_rng(inner)
    dt = DTYPES[name]
    for rows in row_counts(inner):
        full = narrow(rng, (rows, inner), dt)
        row = narrow(rng, (inner,), dt)
        col = narrow(rng, (rows, 1), dt)
        one = narrow(rng, (), dt)
        for arrays in (
            [full, row],
            [row, full],
            [full, col],
            [col, full, row],
            [one, full],
            [row, col],  # no input spans the output: every one copied or broadcast
            [full, row, col, one, full[::-1]],
        ):
            check(arrays, every_isa, threads=(1,))


@pytest.mark.parametrize("name", list(DTYPES))
def test_index_wraps_inside_a_unit_and_strided_inputs(every_isa: tuple[str, ...], name: str) -> None:
    """Rank 3 with a middle dim that ends inside a unit (7 and 37 rows of 5 or
    9), inputs broadcast along the outer or middle dim, and inputs whose
    inner stride is neither 0 nor 1 (a sliced and a transposed view)."""
    rng = np.random.default_rng(11)
    dt = DTYPES[name]
    # units that end where the middle dim does (100, 102 and 96 rows of 5: float32, float64, 16-bit)
    for a, b, c in ((3, 7, 5), (11, 37, 9), (2, 300, 3), (3, 200, 5), (2, 204, 5), (3, 192, 5)):
        x = narrow(rng, (a, b, c), dt)
        wide = narrow(rng, (a, b, 2 * c), dt)
        tr = np.swapaxes(narrow(rng, (a, c, b), dt), 1, 2)
        check(
            [
                x,
                narrow(rng, (b, c), dt),  # the same plane for every outer index
                narrow(rng, (a, 1, 1), dt),  # one value per outer index
                narrow(rng, (a, b, 1), dt),  # one value per row
                narrow(rng, (1, b, 1), dt),
                wide[:, :, ::2],  # inner stride 2
                tr,  # inner stride b
            ],
            every_isa,
        )
        check([x, narrow(rng, (a, 1, c), dt)], every_isa)  # a row per outer index


@pytest.mark.parametrize("name", list(DTYPES))
def test_nan_and_inf_in_a_broadcast_input(every_isa: tuple[str, ...], name: str) -> None:
    rng = np.random.default_rng(5)
    dt = DTYPES[name]
    rows, inner = 400, 6
    full = narrow(rng, (rows, inner), dt)
    for special in (np.nan, np.inf, -np.inf):
        row = narrow(rng, (inner,), dt)
        row[2] = special
        col = narrow(rng, (rows, 1), dt)
        col[171, 0] = special  # in the second unit
        col[3, 0] = -special if special == special else special
        check([full, row], every_isa)
        check([col, full], every_isa)
        check([full, col, row], every_isa)
        check([full, np.array(special, dt)], every_isa)
    e = 14 if name == "float16" else 60
    spread = 2.0 ** rng.integers(-e, e, (rows, inner))
    wide = np.asarray((rng.standard_normal((rows, inner)) * spread).astype(dt))
    # units that fail the vector check
    check([wide, narrow(rng, (inner,), dt), narrow(rng, (rows, 1), dt)], every_isa)


@pytest.mark.parametrize("name", ["float32", "float64"])
def test_two_threads_share_the_units(every_isa: tuple[str, ...], name: str) -> None:
    """Enough work for both threads (kernels run one thread below 262144 input elements)."""
    rng = np.random.default_rng(9)
    dt = DTYPES[name]
    rows, inner = 30011, 3
    arrays = [narrow(rng, (rows, inner), dt), narrow(rng, (inner,), dt), narrow(rng, (rows, 1), dt)]
    arrays += [narrow(rng, (rows, inner), dt)]
    check(arrays, every_isa)


@pytest.mark.skipif(kernels.isa() == "portable", reason="non-temporal stores are in the vector loops only")
def test_short_rows_streamed_and_cached_give_the_exact_bits() -> None:
    """Units of 168 rows of 3 (a whole number of 16-byte quarters) streamed,
    and 5 rows of 101 (not: cached), against the oracle."""
    rng = np.random.default_rng(4)
    threshold = kernels.mean_stream_bytes()
    cases = []
    for rows, inner in ((1000, 3), (4000, 4), (505, 101)):
        cases.append([narrow(rng, (rows, inner), np.float32), narrow(rng, (inner,), np.float32)])
        cases.append([narrow(rng, (rows, 1), np.float32), narrow(rng, (rows, inner), np.float32)])
    try:
        for stream in (1, 2**62):
            kernels.mean_stream_bytes(stream)
            for arrays in cases:
                want = oracles.exact_mean(arrays)
                for t in (1, 2):
                    out = np.empty(want.shape, np.float32)
                    meancli.mean(*arrays, threads=t, out=out)
                    assert exact_bits(out, want), (
                        stream,
                        t,
                        [a.shape for a in arrays],
                    )
    finally:
        kernels.mean_stream_bytes(threshold)


def test_more_inputs_than_the_vector_unit_takes() -> None:
    """65 inputs (MEAN_VEC_MAX is 64): short rows go the units of one row."""
    rng = np.random.default_rng(8)
    arrays = [narrow(rng, (40, 5), np.float32) for _ in range(33)]
    arrays += [narrow(rng, (5,), np.float32) for _ in range(32)]
    check(arrays, kernels.supported_isas())


def test_output_into_an_input_of_short_rows(every_isa: tuple[str, ...]) -> None:
    """out= the input of the output's shape (allowed by meancli.mean): each
    unit reads its rows before it writes them."""
    rng = np.random.default_rng(12)
    for rows, inner in ((700, 3), (301, 16)):
        a, row = narrow(rng, (rows, inner), np.float32), narrow(rng, (inner,), np.float32)
        col = narrow(rng, (rows, 1), np.float32)
        want = oracles.exact_mean([a, row, col])
        for isa in every_isa:
            kernels.use_isa(isa)
            for t in (1, 2):
                x = a.copy()
                meancli.mean(x, row, col, out=x, threads=t)
                assert exact_bits(x, want), (isa, t, rows, inner)
