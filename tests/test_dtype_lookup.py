"""One dtype table at run time (meancli.dtypes, generated from the codegen's rows):
every module asks it, and a dtype it does not hold is never taken for one it does.
The bug this guards: every 1- or 2-byte void-kind dtype was read as bfloat16, so the
dask tasks' kernels.reduce_partial ran the bfloat16 kernel on float8 data (2 bytes
read per 1-byte element)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import meancli
from meancli import dtypes, kernels
from meancli.codegen.dtypes import DTYPES as CODEGEN_DTYPES
from meancli.errors import SpecViolation, UsageError

FOREIGN = [
    ml_dtypes.float8_e4m3fn,
    ml_dtypes.float8_e5m2,
    ml_dtypes.int4,
    np.dtype("V2"),
    np.dtype("V1"),
    np.complex64,
    np.longdouble,
    np.bool_,
]


def test_the_run_time_table_is_the_generators() -> None:
    assert tuple(CODEGEN_DTYPES) == dtypes.NAMES
    for name, row in CODEGEN_DTYPES.items():
        assert dtypes.itemsize(name) == row.itemsize
        assert dtypes.is_float(name) == row.is_float
        assert dtypes.onnx_enum(name) == row.onnx_enum
        assert dtypes.from_onnx_enum(row.onnx_enum) == name
        assert dtypes.spec_name(dtypes.numpy_dtype(name)) == name
        assert dtypes.spec_name(dtypes.numpy_dtype(name).newbyteorder(">")) == name


@pytest.mark.parametrize("foreign", FOREIGN, ids=lambda d: np.dtype(d).name)
def test_a_dtype_not_in_the_table_keeps_its_own_name(foreign: object) -> None:
    name = dtypes.spec_name(np.dtype(foreign))
    assert name not in dtypes.NAMES and name == np.dtype(foreign).name


@pytest.mark.parametrize("foreign", FOREIGN[:4], ids=lambda d: np.dtype(d).name)
def test_the_kernels_refuse_a_dtype_not_in_the_table(foreign: object) -> None:
    x = np.zeros((3, 4), dtype=foreign)
    with pytest.raises(UsageError, match="the kernels take"):
        kernels.reduce_partial(x, (0,))
    with pytest.raises(UsageError, match="the kernels take"):
        kernels.reduce_kept(x, (0,))
    with pytest.raises(UsageError, match="the kernels take"):
        kernels.reduce_partial(np.zeros((), dtype=foreign), ())


@pytest.mark.parametrize("foreign", FOREIGN[:2], ids=lambda d: np.dtype(d).name)
def test_the_api_refuses_float8_naming_it(foreign: object) -> None:
    x = np.ones((2, 3), dtype=foreign)
    with pytest.raises(SpecViolation, match=np.dtype(foreign).name):
        meancli.reduce_mean(x, axes=[1])
    with pytest.raises(SpecViolation, match=np.dtype(foreign).name):
        meancli.mean(x, x)


def test_bfloat16_is_still_bfloat16_everywhere() -> None:
    x = np.array([[1, 2], [3, 5]], dtype=ml_dtypes.bfloat16)
    states = kernels.reduce_partial(x, (0,))
    got = kernels.finalize_partials(kernels.combine_partials(states, (0,), "bfloat16"), "bfloat16")
    assert got.dtype == np.dtype(ml_dtypes.bfloat16)
    assert got.astype(np.float32).tolist() == [[2.0, 3.5]]


def test_raw_bfloat16_and_a_plain_v2_keep_their_own_names_in_either_order() -> None:
    """The command line's bfloat16 without ml_dtypes is a V2 dtype carrying a mark; it is
    equal to (and hashes as) a plain V2, so a cached lookup of one must not answer for
    the other: a plain V2 is never bfloat16."""
    plain = np.dtype("V2")
    for first, second in ((plain, dtypes.RAW_BFLOAT16), (dtypes.RAW_BFLOAT16, plain)):
        dtypes._plain_spec_name.cache_clear()
        names = {id(d): dtypes.spec_name(d) for d in (first, second)}
        assert names[id(plain)] == "void16" and names[id(dtypes.RAW_BFLOAT16)] == "bfloat16"
