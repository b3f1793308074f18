"""Every instruction set's kernels give the portable loops' bits.

MEANCLI_ISA names the level the compiled module runs (read once when it
loads), so each ISA runs in its own process; the levels this CPU lacks are
skipped, and say so.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
from functools import cache

import pytest
from meancli.generated.tables import ISA_NAMES

from meancli import kernels

SCRIPT = r"""
import hashlib, itertools, sys
import ml_dtypes, numpy as np, meancli
sys.path.insert(0, sys.argv[1])
from adversarial import KINDS, values
rng = np.random.default_rng(7)
h = hashlib.sha256()
# adversarial data (the exact fallbacks, skips and checks): long runs, rows
# of every register layout, Mean units
for dt in ["float32", "float64", "float16", "bfloat16"]:
    for kind in KINDS:
        v = values(rng, dt, 70001, kind)
        h.update(meancli.reduce_mean(v, axes=[0]).tobytes())
        for w in [5, 16, 37, 64, 300]:
            x = v[: 70001 // w * w].reshape(-1, w)
            h.update(meancli.reduce_mean(x, axes=[0]).tobytes())
            h.update(meancli.reduce_mean(x, axes=[1]).tobytes())
        m = v[: 3 * 7001].reshape(3, 7001)
        h.update(meancli.mean(m[0], m[1], m[2], m[0, :1]).tobytes())
# --skipna: the same adversarial values with NaN at random places (the copy
# that reads them as -0.0, then every register layout of the reductions)
for dt in ["float32", "float64", "float16", "bfloat16"]:
    for kind in KINDS:
        v = np.array(values(rng, dt, 70001, kind))
        v[rng.random(v.size) < 0.05] = np.nan
        h.update(meancli.reduce_mean(v, axes=[0], skipna=True).tobytes())
        for w in [5, 37, 300]:
            x = v[: 70001 // w * w].reshape(-1, w)
            h.update(meancli.reduce_mean(x, axes=[0], skipna=True).tobytes())
            h.update(meancli.reduce_mean(x, axes=[1], skipna=True).tobytes())
        m = v[: 3 * 7001].reshape(3, 7001)
        h.update(meancli.mean(m[0], m[1], m[2], m[0, :1], skipna=True).tobytes())
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
# row accumulation: every narrow width (registers per 8 or 16 columns, a tail) and a wide one
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
    for w in [1, 7, 15, 16, 17, 31, 32, 33, 47, 63, 513, 1100]:
        b = rng.standard_normal((6, w)).astype(dt)
        c = rng.standard_normal((w,)).astype(dt)
        d = rng.standard_normal((6, 1)).astype(dt)
        for k in [1, 2, 3, 16, 17]:
            h.update(meancli.mean(*([b, c, d] * 6)[:k]).tobytes())
        h.update(meancli.mean(b, np.asfortranarray(b), c).tobytes())
    # Mean outputs streamed with non-temporal stores (threshold lowered), at
    # offsets that leave them unaligned for every vector width
    meancli.kernels.mean_stream_bytes(1 << 20)
    big = rng.standard_normal((3, 1 << 21)).astype(dt)
    for off in [0, 1, 4]:
        h.update(meancli.mean(big[0, off:], big[1, off:], big[2, off:]).tobytes())
    h.update(meancli.mean(big[0, : 19 * 110000].reshape(-1, 19), big[1, :19]).tobytes())
# float64 Mean near its rounding boundaries (ties, a power of two's edge)
for k in (2, 3, 4, 7):
    x = (2.0**53 + rng.integers(-40, 41, size=(k, 203))).astype(np.float64)
    h.update(meancli.mean(*x).tobytes())
    h.update(meancli.mean(*x[:-1], x[-1][:1]).tobytes())
print(meancli.kernels.isa(), h.hexdigest())
"""


@cache
def run(isa: str) -> tuple[str, str]:
    """(the ISA the module ran, the digest of every result) with MEANCLI_ISA=isa."""
    env = {**os.environ, "MEANCLI_ISA": isa}
    tests = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, tests], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    ran, digest = proc.stdout.split()
    return ran, digest


@pytest.mark.slow
@pytest.mark.parametrize("isa", ISA_NAMES[1:])
def test_isa_gives_the_portable_bits(isa: str) -> None:
    if isa not in kernels.supported_isas():
        pytest.skip(f"this CPU runs at most {kernels.supported_isas()[-1]}")
    ran, digest = run(isa)
    assert ran == isa  # the path asked for is the path measured
    assert run("portable") == ("portable", digest)


def _largest_data_cache() -> int | None:
    """The largest data or unified cache Linux lists for cpu0, in bytes."""
    from pathlib import Path

    sizes = []
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        if (index / "type").read_text().strip() == "Instruction":
            continue
        text = (index / "size").read_text().strip()
        scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1], 1)
        sizes.append(int(text.rstrip("KMG")) * scale)
    return max(sizes) if sizes else None


@pytest.mark.skipif(kernels.isa() == "portable", reason="non-temporal stores are in the vector loops only")
def test_stream_threshold_is_this_machines_last_level_cache() -> None:
    assert kernels.mean_stream_bytes() == (_largest_data_cache() or 1 << 23)


@pytest.mark.skipif(kernels.isa() == "portable", reason="non-temporal stores are in the vector loops only")
def test_streamed_and_cached_stores_give_the_same_bits() -> None:
    import ml_dtypes
    import numpy as np

    import meancli

    rng = np.random.default_rng(3)
    cases = []
    for dt in (np.float32, np.float16, ml_dtypes.bfloat16, np.float64):
        a = rng.standard_normal((5, 3001)).astype(dt)
        cases += [(a[0], a[1], a[2]), (a[0, 1:], a[1, 1:], a[2, :1]), (a[:, 3:], a[0, 3:], a[:1, 3:])]
    threshold = kernels.mean_stream_bytes()
    try:
        kernels.mean_stream_bytes(1)  # every output streamed where it is aligned
        streamed = [meancli.mean(*c) for c in cases]
        kernels.mean_stream_bytes(2**62)  # none
        cached = [meancli.mean(*c) for c in cases]
    finally:
        kernels.mean_stream_bytes(threshold)
    for s, c in zip(streamed, cached, strict=True):
        assert s.tobytes() == c.tobytes()


def test_use_isa_switches_in_process_and_refuses_unknown_names() -> None:
    """use_isa and supported_isas, in one process: every set the CPU has gives the same bits."""
    import numpy as np

    import meancli
    from meancli.errors import UsageError

    saved = kernels.isas_in_use()
    supported = kernels.supported_isas()
    assert supported[0] == "portable" and set(saved.values()) <= set(supported)
    assert supported == ISA_NAMES[: len(supported)]
    x = np.random.default_rng(5).standard_normal((300, 77)).astype(np.float32)
    want = meancli.reduce_mean(x, axes=[0]).tobytes()
    try:
        for name in supported:
            assert kernels.use_isa(name) == name
            assert set(kernels.isas_in_use().values()) == {name}
            assert meancli.reduce_mean(x, axes=[0]).tobytes() == want
        assert kernels.use_isa(ISA_NAMES[-1]) == supported[-1]  # never above what the CPU has
        with pytest.raises(UsageError, match="expected one of"):
            kernels.use_isa("sse9")
    finally:
        for (kind, dtype), name in saved.items():
            kernels.use_isa(name, dtype, kind)
    assert kernels.isas_in_use() == saved


@pytest.mark.parametrize("kind", ["run", "mean"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64"])
def test_each_kind_of_kernel_of_each_dtype_has_a_level_of_its_own(dtype: str, kind: str) -> None:
    """The run kernels and the Mean unit kernels of each float dtype run the
    set measured fastest for them, which may differ from float32's and from
    each other's; use_isa sets every one, or one on its own, and the bits of
    ReduceMean (runs, rows, few rows as a Mean) and Mean are the same on
    every combination."""
    import ml_dtypes
    import numpy as np

    import meancli
    from meancli.errors import UsageError

    saved = kernels.isas_in_use()
    supported = kernels.supported_isas()
    assert kernels.isa(dtype, kind) in supported
    assert kernels.isa(dtype, kind) != "portable" or supported == ("portable",)
    with pytest.raises(UsageError, match="kernel kind"):
        kernels.isa(dtype, "sums")
    rng = np.random.default_rng(6)
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else np.dtype(dtype)
    x = rng.standard_normal((40, 300)).astype(np_dtype)
    y = rng.standard_normal((300,)).astype(np_dtype)

    def results() -> tuple[bytes, ...]:
        return (
            meancli.reduce_mean(x, axes=[1]).tobytes(),  # runs
            meancli.reduce_mean(x, axes=[0]).tobytes(),  # rows as a Mean (40 rows)
            meancli.reduce_mean(np.concatenate([x] * 3), axes=[0]).tobytes(),  # rows
            meancli.mean(x, y, x).tobytes(),
        )

    want = results()
    other = "mean" if kind == "run" else "run"
    try:
        for name in supported:
            for own in supported:
                kernels.use_isa(name)
                assert kernels.use_isa(own, dtype, kind) == own
                assert kernels.isa(dtype, kind) == own
                assert kernels.isa(dtype, other) == name and kernels.isa("float32", kind) == name
                assert results() == want
    finally:
        for (k, d), name in saved.items():
            kernels.use_isa(name, d, k)


def test_without_meancli_isa_a_vector_set_the_cpu_has_runs() -> None:
    """The load-time pick: the widest set measured faster, never the portable loops
    on a CPU with vectors, never a set the CPU lacks."""
    env = {k: v for k, v in os.environ.items() if k != "MEANCLI_ISA"}
    code = "import meancli.kernels as k; print(k.isa(), *k.supported_isas())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    picked, *supported = out.stdout.split()
    assert picked in supported
    assert picked != "portable" or supported == ["portable"]


def test_isa_takes_numpy_dtypes_and_refuses_others_changing_nothing() -> None:
    """isa and use_isa take a dtype as numpy does (dtype objects, scalar types,
    aliases); a dtype the kernels do not take, or a bad kind, is a UsageError
    that leaves every pick as it was (np.dtype("float64") == None is True in
    numpy: it once matched every dtype)."""
    import ml_dtypes
    import numpy as np

    from meancli.errors import UsageError

    saved = kernels.isas_in_use()
    for spelling in (np.dtype("float64"), np.float64, "f8", "<f8", "double", "float64"):
        assert kernels.isa(spelling, "run") == saved[("run", "float64")]
        assert kernels.isa(spelling, "mean") == saved[("mean", "float64")]
    assert (
        kernels.isa(ml_dtypes.bfloat16, "mean")
        == kernels.isa("bfloat16", "mean")
        == saved[("mean", "bfloat16")]
    )
    assert kernels.isa(np.int64) == kernels.isa("uint8") == kernels.isa(None) == saved[("run", "float32")]
    assert kernels.isa("float32", None) == saved[("run", "float32")]
    for bad in ("bogus", "complex64", np.complex128, 5, ["float32"], np.dtype("U3")):
        with pytest.raises(UsageError, match="the kernels take"):
            kernels.isa(bad)
        with pytest.raises(UsageError, match="the kernels take"):
            kernels.use_isa("portable", bad)
    with pytest.raises(UsageError, match="kernel kind"):
        kernels.use_isa("portable", np.dtype("float64"), "rows")
    assert kernels.isas_in_use() == saved


@pytest.mark.parametrize(
    ("shape", "axes", "kind"),
    [
        ((3, 1000), [0], "mean"),  # few rows
        ((200, 1000), [0], "run"),
        ((1000, 8), [1], "mean"),  # short runs
        ((10, 100), [1], "run"),
        ((4, 5, 6), [0, 2], "mean"),  # 24 values an output, over two dims
        ((40, 5, 60), [0, 2], "run"),
    ],
)
@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_the_report_names_the_kind_of_kernel_that_ran(
    tmp_path: pathlib.Path, shape: tuple[int, ...], axes: list[int], kind: str, dtype: str
) -> None:
    """A ReduceMean of few rows or short runs runs the Mean unit kernels: the
    JSON's isa names their set, which may differ from the run kernels' (here
    made to differ, in the process that runs the command)."""
    import json

    import numpy as np

    supported = kernels.supported_isas()
    if len(supported) < 2:
        pytest.skip("one instruction set only")
    np.save(tmp_path / "x.npy", np.random.default_rng(1).random(shape).astype(dtype))
    code = (
        "import sys, meancli.kernels as k; from meancli.cli.entry import main;"
        f"k.use_isa({supported[0]!r}, {dtype!r}, 'run'); k.use_isa({supported[-1]!r}, {dtype!r}, 'mean');"
        f"sys.exit(main(['reduce-mean', 'x.npy', '--axes', *{[str(a) for a in axes]!r}, '--json']))"
    )
    env = {k: v for k, v in os.environ.items() if k != "MEANCLI_ISA"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    want = supported[-1] if kind == "mean" else supported[0]
    assert json.loads(out.stdout)["isa"] == want
