"""The compiled C kernels (``meancli._kernels``, built by cffi at install time).

Loading checks that the module was built from the generated sources the
registry describes; a missing or stale module is a one-line error that says
how to build it.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

import numpy as np

from ..dtypes import NAMES as DTYPE_NAMES
from ..dtypes import is_float, numpy_dtype, spec_name
from ..errors import InternalError, KernelBuildError, NotEnoughMemory, SpecViolation, UsageError
from ..generated.tables import (
    ISA_DTYPES,
    ISA_GROUPS,
    ISA_KINDS,
    ISA_NAMES,
    KERNEL_SOURCE_SHA256,
    KERNEL_SYMBOL,
    STATUSES,
)
from . import isa_choice

# the kernels' status codes by value: (C name, value, meaning) (generated/tables.py)
BY_VALUE = {value: (name, value, message) for name, value, message in STATUSES}
BY_NAME = {name: value for name, value, _ in STATUSES}
EMPTY_INT = next(value for name, value, _ in STATUSES if name == "E_EMPTY_INT")

BUILD_HINT = "build it with `pip install -e .` (or `make install`) from the meancli source tree"


def symbol(entry: str, dtype_name: str) -> str:
    """The C symbol of kernel ``entry`` (``reduce``, ``mean``, ``reduce_partial``,
    ``partial_combine``, ...) for spec dtype ``dtype_name``: the one place
    (with the generator, from the same format string) that names kernels."""
    return str(KERNEL_SYMBOL.format(entry=entry, dtype=dtype_name))


@lru_cache(maxsize=1)
def _loaded() -> Any:
    """The compiled module, loaded and checked against the generated sources (once)."""
    wanted = os.environ.get(isa_choice.ISA_ENV, "")
    if wanted and wanted not in ISA_NAMES:  # read by the module as it loads
        raise UsageError(f"MEANCLI_ISA={wanted!r}: expected one of {', '.join(ISA_NAMES)}")
    try:
        import importlib

        _kernels: Any = importlib.import_module("meancli._kernels")
    except ImportError as exc:
        raise KernelBuildError(
            f"the compiled kernel module meancli._kernels is missing ({exc}); {BUILD_HINT}"
        ) from None
    built = _kernels.ffi.string(_kernels.lib.meancli_source_sha256()).decode()
    if built != KERNEL_SOURCE_SHA256:
        raise KernelBuildError(
            f"the compiled kernel module {_kernels.__file__} was built from other sources "
            f"(sha256 {built[:12]}, expected {KERNEL_SOURCE_SHA256[:12]}); {BUILD_HINT}"
        )
    return _kernels


# The instruction set choice (isa_choice.py), made on first use of the
# kernels; the thread measuring runs kernels itself, others wait for it.
_choice: isa_choice.Choice | None = None
_choice_lock = threading.Lock()
_measuring = threading.local()


def _module() -> Any:
    """The compiled module, with each kind of kernel on the instruction set chosen for this machine."""
    global _choice
    mod = _loaded()
    if _choice is None and not getattr(_measuring, "now", False):
        with _choice_lock:
            if _choice is None:
                _choice = _choose(mod, remeasure=False)
    return mod


def _choose(mod: Any, remeasure: bool) -> isa_choice.Choice:
    """Apply this machine's choice (cached, or measured now) to ``mod``, or MEANCLI_ISA's level."""
    best = int(mod.lib.meancli_isa_best())
    if os.environ.get(isa_choice.ISA_ENV):  # the module took it as it loaded
        return isa_choice.bypassed(str(mod.ffi.string(mod.lib.meancli_isa(0)).decode()))
    _measuring.now = True
    try:
        choice = isa_choice.choose(ISA_NAMES[1 : best + 1], _time_group, remeasure=remeasure)
    except MemoryError:  # no room for the measurement's data: the widest set, unmeasured
        choice = isa_choice.Choice(
            tuple(ISA_NAMES[best] for _ in ISA_GROUPS), tuple({} for _ in ISA_GROUPS), "cpu", None
        )
    finally:
        _measuring.now = False
        _measure_data.clear()
    for group, level in enumerate(choice.levels):
        mod.lib.meancli_use_isa(group, ISA_NAMES.index(level))
    return choice


def isa_report() -> isa_choice.Choice:
    """The instruction set each of ISA_GROUPS runs in this process, where the
    choice came from and each level's measured time (s) (isa_choice.Choice).

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
        UsageError: ``MEANCLI_ISA`` names no level.
    """
    _module()
    assert _choice is not None
    return _choice


def remeasure_isas() -> isa_choice.Choice:
    """Measure the instruction sets anew, rewrite this machine's cache file and
    run the new choice from now on (``meancli isa --measure``). Not for use
    while kernels run; with ``MEANCLI_ISA`` set nothing is measured.

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
    """
    global _choice
    mod = _module()
    with _choice_lock:
        _choice = _choose(mod, remeasure=True)
    return _choice


# The measurement's workloads (isa_choice.py says why this size): 4 Mi
# elements of each float dtype; bfloat16 as its bits (the kernels read bytes,
# and ml_dtypes is optional). The reductions read values of a normal
# distribution of mean 1, spread over many binades near 0 as real data is
# (the bench's too), so the exactness checks take the paths they take in use
# (values in [1, 2) pass every fast check); Mean reads values in [1, 2).
_MEASURE_ELEMENTS = 4 << 20
_measure_data: dict[str, np.ndarray] = {}


def _as_measured(x: np.ndarray, dtype_name: str) -> np.ndarray:
    """float32 ``x`` in ``dtype_name`` (bfloat16: its bits, truncated)."""
    if dtype_name == "bfloat16":
        return (x.view(np.uint32) >> 16).astype(np.uint16)
    return x.astype(dtype_name)


def _measure_input(dtype_name: str, kind: str = "mean") -> np.ndarray:
    """The measurement's input of ``kind`` ("run": normal values of mean 1;
    else values in [1, 2)) in ``dtype_name``, made once; with it an output
    array ``_measure_data[dtype_name + " out"]`` of a quarter of its size."""
    key = f"{dtype_name} {kind}"
    if key not in _measure_data:
        if kind == "run":
            x = _measure_normal() + np.float32(1)
        else:
            x = np.linspace(1.0, 2.0, _MEASURE_ELEMENTS, endpoint=False, dtype=np.float32)
        _measure_data[key] = _as_measured(x, dtype_name)
    if dtype_name + " out" not in _measure_data:
        # the outputs, written once now so no timed call meets a page fault
        _measure_data[dtype_name + " out"] = np.ones(_MEASURE_ELEMENTS // 4, _measure_data[key].dtype)
    return _measure_data[key]


def _measure_normal() -> np.ndarray:
    """4 Mi float32 values of a standard normal distribution (a fixed seed), made once for every dtype."""
    if "normal" not in _measure_data:
        rng = np.random.default_rng(27)
        _measure_data["normal"] = rng.standard_normal(_MEASURE_ELEMENTS, dtype=np.float32)
    return _measure_data["normal"]


def _measure_near(dtype_name: str) -> tuple[np.ndarray, np.ndarray]:
    """The compare kernel's workload: values of a normal distribution in ``dtype_name``,
    and a copy with two thirds of them 1 or 2 representable values off (bfloat16 as bits)."""
    if dtype_name + " near" not in _measure_data:
        if "moved" not in _measure_data:  # once for every dtype
            steps = np.tile(np.arange(3, dtype=np.uint8), _MEASURE_ELEMENTS // 3 + 1)
            _measure_data["moved"] = steps[:_MEASURE_ELEMENTS]
        exact = _as_measured(_measure_normal(), dtype_name)
        bits = exact.view(f"u{exact.itemsize}")
        _measure_data[dtype_name + " exact"] = exact
        _measure_data[dtype_name + " near"] = (bits + _measure_data["moved"]).view(exact.dtype)
    return _measure_data[dtype_name + " exact"], _measure_data[dtype_name + " near"]


def _time_group(group: int, level: str) -> float:
    """CPU seconds of one thread to run ISA_GROUPS[group]'s workloads once at
    ``level``: "run", a row reduction (rows of 4096) and a column
    reduction (64 columns) of 4 Mi normal values of mean 1; "mean", the Mean
    of 4 inputs of 1 Mi elements; "compare", the comparison of 4 Mi elements
    with a copy 0 to 2 ulp off."""
    mod = _loaded()
    kind, name = ISA_GROUPS[group]
    mod.lib.meancli_use_isa(group, ISA_NAMES.index(level))
    threads = 1  # in this thread, so its CPU time is the measure: other processes' load does not count
    if kind == "compare":
        exact, near = _measure_near(name)
        start = time.thread_time()
        run_compare(name, exact, near, threads)
        return time.thread_time() - start
    x = _measure_input(name, kind)
    out = _measure_data[name + " out"]
    if kind == "run":
        rows, cols = x.reshape(-1, 4096), x.reshape(-1, 64)
        start = time.thread_time()
        run_reduce(name, rows, [False, True], out[: rows.shape[0]], threads)
        run_reduce(name, cols, [True, False], out[:64], threads)
    else:
        quarters = x.reshape(4, -1)
        start = time.thread_time()
        run_mean(name, list(quarters), out, threads)
    return time.thread_time() - start


def load() -> None:
    """Load and check the compiled module now (the CLI does so before timing stages).

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
    """
    _module()


def _dtype_name(dtype: Any) -> str:
    """The spec name of ``dtype`` (a numpy dtype, scalar type or name; None: float32).

    Raises:
        UsageError: not a dtype the kernels take.
    """
    if dtype is None:
        return "float32"
    if isinstance(dtype, str) and dtype in DTYPE_NAMES:  # bfloat16: a name numpy learns only from ml_dtypes
        return dtype
    try:
        name = spec_name(np.dtype(dtype))
    except (TypeError, ValueError):
        name = None
    if name not in DTYPE_NAMES:
        raise UsageError(f"dtype {dtype!r}: the kernels take {', '.join(sorted(DTYPE_NAMES))}")
    return name


def _isa_groups(dtype: Any, kind: str | None) -> list[int]:
    """The indices in ISA_GROUPS of ``dtype``'s ``kind`` kernels (either None: every one).

    Raises:
        UsageError: ``dtype`` is no dtype the kernels take, or ``kind`` no kind.
    """
    if kind is not None and kind not in ISA_KINDS:
        raise UsageError(f"kernel kind {kind!r}: expected one of {', '.join(ISA_KINDS)}")
    own = None if dtype is None else _dtype_name(dtype)
    own = own if own is None or own in ISA_DTYPES else ISA_DTYPES[0]
    return [g for g, (k, d) in enumerate(ISA_GROUPS) if kind in (None, k) and own in (None, d)]


def isa(dtype: Any = None, kind: str | None = "run") -> str:
    """The instruction set ``dtype``'s ``kind`` kernels run: ``"avx512"``,
    ``"avx2"`` or ``"portable"``. The kinds: ``"run"``, the run and row
    kernels of ReduceMean; ``"mean"``, the Mean unit kernels (Mean, and
    ReduceMean over few rows or short runs); ``"compare"``, the comparison
    with the correctly rounded result (meancli.engine.compare).

    Chosen on the kernels' first use: AVX2 (with FMA and F16C) where the CPU
    has it, AVX-512 (F/BW/VL/DQ) where the CPU has it too unless AVX2
    measured more than 5% faster on this machine (measured once and cached:
    see isa_choice.py and ``isa_report``); or the one the environment variable
    ``MEANCLI_ISA`` names (at most what the CPU has). Each kind is measured
    for each float dtype on its own (the integer types follow float32).
    ``dtype``: a numpy dtype, scalar type or name (None: float32); ``kind``
    None: ``"run"``. Every one gives the same bits.

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
        UsageError: ``MEANCLI_ISA`` names no level, ``dtype`` is no dtype the
            kernels take, or ``kind`` no kind.
    """
    module = _module()
    (group,) = _isa_groups("float32" if dtype is None else dtype, kind or "run")
    return str(module.ffi.string(module.lib.meancli_isa(group)).decode())


def isas_in_use() -> dict[tuple[str, str], str]:
    """The instruction set each kind of kernel of each float dtype runs
    (``{("run", "float32"): "avx2", ("mean", "float64"): "avx512", ...}``):
    what ``use_isa(name, dtype, kind)`` for each item restores.

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
    """
    return {(kind, dtype): isa(dtype, kind) for kind, dtype in ISA_GROUPS}


def supported_isas() -> tuple[str, ...]:
    """The instruction sets this CPU can run the kernels on, lowest first
    (``("portable", "avx2", "avx512")`` on an AVX-512 machine).

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
    """
    module = _module()
    return tuple(ISA_NAMES[: int(module.lib.meancli_isa_best()) + 1])


def use_isa(name: str, dtype: Any = None, kind: str | None = None) -> str:
    """Run the kernels of instruction set ``name`` (``"portable"``, ``"avx2"``,
    ``"avx512"``), or the highest the CPU has below it, from now on, for the
    whole process: for ``dtype`` (as ``isa`` takes it; the integer types go
    with float32) and ``kind`` (``"run"``, ``"mean"``, ``"compare"``), None: every one.
    Returns the one in effect for ``dtype`` (None: float32) and ``kind``
    (None: ``"run"``). Nothing changes when an argument is refused. The
    results are the same bits; the bench compares speeds with it, switching
    between calls: safe, as each kernel call reads its level from a table
    (``isa_level`` in templates/kernels.c.j2) as it dispatches and keeps
    nothing of it past the call. Not for use while kernels run in another
    thread (a call could then run part of its work on each set, and the
    table is written without synchronization).

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
        UsageError: ``name`` is not an instruction set, ``dtype`` no dtype the
            kernels take, or ``kind`` no kind.
    """
    if name not in ISA_NAMES:
        raise UsageError(f"instruction set {name!r}: expected one of {', '.join(ISA_NAMES)}")
    module = _module()
    for group in _isa_groups(dtype, kind):
        module.lib.meancli_use_isa(group, ISA_NAMES.index(name))
    return isa(dtype, kind or "run")


def mean_stream_bytes(set_to: int = 0) -> int:
    """The output size (bytes) from which Mean writes with non-temporal stores.

    This machine's last-level cache size, read when the module loads (8 MiB
    where Linux does not list it; 0 off x86-64, where there are none).
    ``set_to > 0`` sets it first, for the whole process: the bench measures
    both sides. Results are the same bits either way.

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
    """
    return int(_module().lib.meancli_mean_stream_bytes(int(set_to)))


def handle_bus_errors() -> bool:
    """From now on, a bus error (SIGBUS: a memory-mapped input truncated by
    another process while it is read) ends the process with one error line
    on stderr and exit status 1, having removed the file bus_error_removes
    last named, instead of a crash. For the command line: it ends the whole
    process. Calling it again changes nothing. Returns whether the handler is
    installed (False where the platform has none).

    Raises:
        KernelBuildError: the module is missing or was built from other sources.
    """
    return bool(_module().lib.meancli_handle_bus_errors() == 0)


def bus_error_removes(path: str | None) -> None:
    """The temporary file the bus error handler removes (None: none; a path too long: none)."""
    mod = _module()
    if path is None or mod.lib.meancli_bus_error_removes(os.fsencode(path)) != 0:
        mod.lib.meancli_bus_error_removes(mod.ffi.NULL)


def max_rank() -> int:
    """The highest rank the kernels accept (64, numpy's maximum)."""
    return int(_module().lib.meancli_max_rank())


def threads_of(threads: int | None) -> int:
    """Kernel threads for ``threads`` (None: the cores this process may run on).

    Raises:
        UsageError: not an integer from 1 to 1024.
    """
    if threads is None:
        return default_threads()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 1024:
        raise UsageError(f"threads must be an integer from 1 to 1024, got {threads!r}")
    return int(threads)


@lru_cache(maxsize=1)
def default_threads() -> int:
    """Threads a kernel uses when the caller names none: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _check(status: int, what: str) -> None:
    if status == EMPTY_INT:
        raise SpecViolation(f"{what}: integer mean over an empty set (a reduced dimension has size 0)")
    if status != 0:
        meaning = BY_VALUE[status][2] if status in BY_VALUE else f"status {status}"
        raise InternalError(f"{what}: kernel rejected its arguments: {meaning}")


def _pointer(ffi: Any, array: np.ndarray) -> Any:
    # from_buffer is the cheapest way to a data pointer; a Fortran-order
    # array exports its buffer through its (C-contiguous) transpose.
    if not array.size:
        return ffi.NULL
    if array.flags.c_contiguous:
        return ffi.from_buffer(array)
    if array.flags.f_contiguous:
        return ffi.from_buffer(array.T)
    return ffi.cast("void *", array.ctypes.data)  # a strided or broadcast view


def skips_nan(dtype: Any, skipna: bool) -> bool:
    """Whether ``skipna`` changes a call on ``dtype`` (as ``isa`` takes it): only
    float types have NaN to skip."""
    return bool(skipna) and is_float(_dtype_name(dtype))


class ReduceKernel:
    """The ReduceMean kernel of spec dtype ``dtype_name`` (plain and comparing
    entries alike) for inputs of one shape and strides: the
    shape, strides and reduce mask converted for C once, then called on any
    number of such inputs (``kernel(data, out)``). run_reduce makes one per call;
    the memory engine keeps one for calls that repeat (engine.memory.prepare_reduce).

    ``data`` must be in native byte order with non-negative strides that are
    multiples of its item size (C or Fortran order qualifies); ``out``
    C-contiguous, the kept dims of ``data`` in order.

    Raises (on call):
        SpecViolation: integer mean over an empty set.
        InternalError: any other refusal by the kernel (a bug in validation).
    """

    __slots__ = ("_compare", "_ffi", "_fn", "_mask", "_rank", "_shape", "_strides", "_symbol", "_threads")

    def __init__(self, dtype_name: str, data: np.ndarray, reduce_mask: Sequence[bool], threads: int) -> None:
        mod = _module()
        self._symbol = symbol("reduce", dtype_name)
        self._fn = getattr(mod.lib, self._symbol)
        self._compare = getattr(mod.lib, symbol("reduce_compare", dtype_name))
        self._ffi = mod.ffi
        self._rank = data.ndim
        self._shape = mod.ffi.new("int64_t[]", list(data.shape))
        self._strides = mod.ffi.new("int64_t[]", list(data.strides))
        self._mask = mod.ffi.new("uint8_t[]", [bool(m) for m in reduce_mask])
        self._threads = threads

    def __call__(
        self, data: np.ndarray, out: np.ndarray, got: np.ndarray | None = None
    ) -> CompareStats | None:
        """Write the mean of ``data`` (the shape, strides and dtype this kernel was made for)
        into ``out``; with ``got`` (``out``'s size and dtype, C-contiguous, native order),
        also compare ``out`` with it as the outputs are written (templates/kernel_reduce.c.j2,
        reduce_compare) and return what the comparison found."""
        ffi = self._ffi
        args = (_pointer(ffi, data), _pointer(ffi, out), self._rank, self._shape, self._strides, self._mask)
        if got is None:
            _check(self._fn(*args, self._threads), self._symbol)
            return None
        found = _CompareOut(ffi)
        _check(self._compare(*args, self._threads, _pointer(ffi, got), *found.args), self._symbol)
        return found.stats()


def run_reduce(
    dtype_name: str,
    data: np.ndarray,
    reduce_mask: Sequence[bool],
    out: np.ndarray,
    threads: int,
    skipna: bool = False,
) -> None:
    """Run the ReduceMean kernel of spec dtype ``dtype_name`` (the one name of
    every kernel entry it uses; bfloat16 for its raw bits as uint16): ``out``
    (C-contiguous, the kept dims of ``data`` in order) receives the mean of
    ``data`` over the dims where reduce_mask is True.

    ``data`` must be in native byte order with non-negative strides that are
    multiples of its item size (C or Fortran order qualifies). ``skipna``
    (meancli's own extension, docs/semantics.md): each output is the exact
    mean of its non-NaN values (NaN where none is left); no change for
    integer types.

    Raises:
        SpecViolation: integer mean over an empty set.
        InternalError: any other refusal by the kernel (a bug in validation).
    """
    if skips_nan(dtype_name, skipna):
        with ReduceJob(dtype_name, data.shape, data.strides, reduce_mask, skipna=True) as job:
            job.step(data, 0, job.info()[1], out, threads)
            job.end(out)
        return
    ReduceKernel(dtype_name, data, reduce_mask, threads)(data, out)


def broadcast_strides(x: np.ndarray, shape: tuple[int, ...]) -> list[int]:
    """The byte strides of ``x`` read as an array of ``shape`` (multidirectional
    broadcasting: 0 along a dim ``x`` lacks or has as 1 where ``shape`` does not);
    what np.broadcast_to(x, shape).strides gives, without making the view."""
    lead = len(shape) - x.ndim
    strides = [0] * lead
    for n, size, stride in zip(shape[lead:], x.shape, x.strides, strict=False):
        strides.append(0 if size == 1 and n != 1 else stride)
    return strides


class MeanKernel:
    """The Mean kernel of spec dtype ``dtype_name`` (plain, comparing and skipna
    entries alike) for inputs of given shapes and strides and an
    output shape: the strides converted for C once, then called on any number
    of such inputs (``kernel(inputs, out)``). run_mean makes one per call; the
    memory engine keeps one for calls that repeat (engine.memory.prepare_mean).

    ``inputs`` in native byte order, any non-negative strides; ``out``
    C-contiguous, the broadcast shape. ``skipna`` (meancli's own extension;
    float types, no change for integers): each output is the exact mean of the
    non-NaN values among the inputs at its position (NaN where every one is
    NaN), by the kernel ``mean_skipna`` of ``out``'s dtype.

    Raises (on call):
        InternalError: the kernel refused its arguments (a bug in validation).
    """

    __slots__ = ("_compare", "_count", "_ffi", "_fn", "_rank", "_shape", "_strides", "_symbol", "_threads")

    def __init__(
        self,
        dtype_name: str,
        inputs: Sequence[np.ndarray],
        shape: tuple[int, ...],
        threads: int,
        skipna: bool = False,
    ) -> None:
        mod = _module()
        skips = skips_nan(dtype_name, skipna)
        self._symbol = symbol("mean_skipna" if skips else "mean", dtype_name)
        self._fn = getattr(mod.lib, self._symbol)
        # the Mean that compares as it writes (None: skipna, which compares after)
        self._compare = None if skips else getattr(mod.lib, symbol("mean_compare", dtype_name))
        self._ffi = mod.ffi
        self._count = len(inputs)
        self._strides = mod.ffi.new("int64_t[]", [s for x in inputs for s in broadcast_strides(x, shape)])
        self._rank = len(shape)
        self._shape = mod.ffi.new("int64_t[]", list(shape))
        self._threads = threads

    @property
    def compares(self) -> bool:
        """Whether a call with ``got`` compares as it writes (not for skipna)."""
        return self._compare is not None

    def __call__(
        self, inputs: Sequence[np.ndarray], out: np.ndarray, got: np.ndarray | None = None
    ) -> CompareStats | None:
        """Write the mean of ``inputs`` (those this kernel was made for) into ``out``; with
        ``got`` (``out``'s size and dtype, C-contiguous, native order; only where
        ``compares``), also compare ``out`` with it as each unit of outputs is written
        (templates/kernel_mean.c.j2, mean_compare) and return what the comparison found."""
        ffi = self._ffi
        pointers = ffi.new("void *[]", [_pointer(ffi, x) for x in inputs])
        args = (
            self._count,
            pointers,
            self._strides,
            _pointer(ffi, out),
            self._rank,
            self._shape,
            self._threads,
        )
        if got is None:
            _check(self._fn(*args), self._symbol)
            return None
        assert self._compare is not None, "a skipna Mean compares after it runs"
        found = _CompareOut(ffi)
        _check(self._compare(*args, _pointer(ffi, got), *found.args), self._symbol)
        return found.stats()


def run_mean(
    dtype_name: str, inputs: Sequence[np.ndarray], out: np.ndarray, threads: int, skipna: bool = False
) -> None:
    """Run the Mean kernel of spec dtype ``dtype_name`` (MeanKernel, made for this one call): ``out``
    (C-contiguous, the broadcast shape) receives the element-wise mean of
    ``inputs`` (native byte order, any non-negative strides).

    Raises:
        InternalError: the kernel refused its arguments (a bug in validation).
    """
    MeanKernel(dtype_name, inputs, out.shape, threads, skipna)(inputs, out)


class CompareStats(NamedTuple):
    """What the compare kernel found over a block (templates/kernel_compare.c.j2).

    Attributes:
        examined: elements examined one by one (those of the kernel's chunks of 256 that
            hold a difference: a chunk of equal bits is skipped by one memcmp); the
            others are exact.
        buckets: of the examined ones not NaN mismatches, how many at distance 0 (equal
            bits, NaN for NaN, -0.0 for +0.0), 1, 2-4, 5-16, > 16.
        nan_mismatch: elements where exactly one of the two is NaN.
        first_nan: the block index of the first NaN mismatch (-1: none).
        at_max: the block index of the first element of the largest distance > 0, else
            the first whose bits differ and that is no NaN mismatch (-1: none).
        max_ulp: the largest distance (uint64 range; integers: absolute difference).
        ulp_sum: the sum of the distances (exact, a Python int).
        max_abs, max_rel: the largest absolute and relative errors (NaN mismatches left out).
    """

    examined: int
    buckets: tuple[int, int, int, int, int]
    nan_mismatch: int
    first_nan: int
    at_max: int
    max_ulp: int
    ulp_sum: int
    max_abs: float
    max_rel: float


def run_compare(dtype_name: str, expected: np.ndarray, got: np.ndarray, threads: int = 1) -> CompareStats:
    """One pass of the compare kernel over two C-contiguous, native-order 1-D arrays of
    one dtype (``dtype_name``, a spec name): the distances' statistics.

    Raises:
        InternalError: the kernel could not allocate its per-thread parts.
    """
    mod = _module()
    ffi = mod.ffi
    found = _CompareOut(ffi)
    name = symbol("compare", dtype_name)
    status = getattr(mod.lib, name)(
        _pointer(ffi, expected), _pointer(ffi, got), int(expected.size), threads, *found.args
    )
    _check(status, name)
    return found.stats()


class _CompareOut:
    """The output arrays of the comparing kernels (compare, mean_compare, reduce_compare:
    count, index, dist, err), and the CompareStats they hold once a kernel filled them."""

    __slots__ = ("args",)

    def __init__(self, ffi: Any) -> None:
        self.args = (
            ffi.new("int64_t[7]"),
            ffi.new("int64_t[2]"),
            ffi.new("uint64_t[3]"),
            ffi.new("double[2]"),
        )

    def stats(self) -> CompareStats:
        count, index, dist, err = self.args
        return CompareStats(
            examined=int(count[0]),
            buckets=(int(count[1]), int(count[2]), int(count[3]), int(count[4]), int(count[5])),
            nan_mismatch=int(count[6]),
            first_nan=int(index[0]),
            at_max=int(index[1]),
            max_ulp=int(dist[0]),
            ulp_sum=int(dist[1]) + (int(dist[2]) << 64),
            max_abs=float(err[0]),
            max_rel=float(err[1]),
        )


class ReduceJob:
    """A ReduceMean fed in slabs of rows of the input's outermost memory
    dimension (templates/kernel_reduce.c.j2, meancli_reduce_begin/step/end).
    Use as a context manager; the C state is freed on exit. ``dtype_name``: the
    input's spec dtype (its kernels: reduce_begin/kind/step/end, see symbol()).
    ``skipna``: each output the exact mean of its non-NaN values (float types;
    no change for integers); ``states``: ``out`` receives each output's exact
    partial state (``partial_dtype``) instead of its mean."""

    def __init__(
        self,
        dtype_name: str,
        shape: Sequence[int],
        strides: Sequence[int],
        reduce_mask: Sequence[bool],
        skipna: bool = False,
        states: bool = False,
    ):
        mod = _module()
        self._ffi, self._lib = mod.ffi, mod.lib
        self._dtype = _dtype_name(dtype_name)
        self._symbol = symbol("reduce", self._dtype)
        handle = self._ffi.new("meancli_reduce_job **")
        status = getattr(self._lib, symbol("reduce_begin", self._dtype))(
            len(shape), list(shape), list(strides), list(reduce_mask), handle
        )
        _check(status, self._symbol)
        self._job = handle[0]
        try:
            if states:
                _check(self._lib.meancli_reduce_states(self._job), self._symbol)
            if skipna:
                status = getattr(self._lib, symbol("reduce_skipna", self._dtype))(self._job)
                if status == BY_NAME["E_NOMEM"]:
                    raise NotEnoughMemory("--skipna: not enough memory")
                _check(status, self._symbol)
        except BaseException:
            self._lib.meancli_reduce_free(self._job)
            self._job = self._ffi.NULL
            raise

    def info(self) -> tuple[int, int, int, int]:
        """(outermost dim's logical index or -1, its rows, bytes per row, row granule of a slab)."""
        info = self._ffi.new("int64_t[4]")
        self._lib.meancli_reduce_job_info(self._job, info)
        return int(info[0]), int(info[1]), int(info[2]), int(info[3])

    def kind(self, whole: bool) -> str:
        """The kind of vector kernel it runs (``"mean"``: the Mean unit kernels,
        for few rows or short runs; else ``"run"``), fed whole or in slabs."""
        uses_mean = getattr(self._lib, symbol("reduce_kind", self._dtype))(self._job, int(whole))
        return "mean" if uses_mean else "run"

    def step(self, slab: np.ndarray, a: int, b: int, out: np.ndarray, threads: int) -> None:
        """Feed rows [a, b) held at the start of ``slab`` (bytes in native order)."""
        status = getattr(self._lib, symbol("reduce_step", self._dtype))(
            self._job, _pointer(self._ffi, slab), a, b, _pointer(self._ffi, out), threads
        )
        _check(status, self._symbol)

    def end(self, out: np.ndarray) -> None:
        """Write the outputs that collected from every slab."""
        status = getattr(self._lib, symbol("reduce_end", self._dtype))(self._job, _pointer(self._ffi, out))
        _check(status, self._symbol)

    def __enter__(self) -> ReduceJob:
        return self

    def __exit__(self, *exc: object) -> None:
        self._lib.meancli_reduce_free(self._job)
        self._job = self._ffi.NULL


# --------------------------------------------------------------------------- exact partial states
# A partial state is one output's exact reduction in progress: the count, the
# exact sum and (floats) NaN/inf/signed-zero flags, as fixed little-endian
# bytes (templates/kernels.c.j2, "Exact sums"). States of disjoint parts
# combine exactly, in any order; finalizing gives the correctly rounded mean.


def _native(x: np.ndarray) -> np.ndarray:
    """``x`` as the kernels read it: native byte order, non-negative item-multiple strides."""
    if not x.dtype.isnative:
        x = x.astype(x.dtype.newbyteorder("="))
    if any(s < 0 or s % x.itemsize for s in x.strides):
        x = np.asarray(x, order="C")
    return x


def partial_dtype(dtype_name: str) -> np.dtype[Any]:
    """The numpy dtype of one output's partial state for element type ``dtype_name``
    (a spec name: 'float32', 'bfloat16', 'int64', ...): raw bytes, ``np.dtype(('V', size))``."""
    size = int(getattr(_module().lib, symbol("partial_size", _dtype_name(dtype_name)))())
    return np.dtype(("V", size))


def _reduce_kept_axes(
    x: np.ndarray, axes: tuple[int, ...]
) -> tuple[str, np.ndarray, list[bool], tuple[int, ...]]:
    """``x``'s spec dtype name, ``x`` in native byte order, the reduce mask of
    ``axes`` and ``x``'s shape with those axes set to 1."""
    if any(not 0 <= a < x.ndim for a in axes) or len(set(axes)) != len(axes):
        raise ValueError(f"axes {axes} are not distinct axes of a rank-{x.ndim} array")
    mask = [d in axes for d in range(x.ndim)]
    shape = tuple(1 if m else n for n, m in zip(x.shape, mask, strict=True))
    return _dtype_name(x.dtype), _native(x), mask, shape


def reduce_partial(
    x: np.ndarray, axes: tuple[int, ...], threads: int | None = None, skipna: bool = False
) -> np.ndarray:
    """The exact partial states of ReduceMean of ``x`` over ``axes`` (non-negative,
    distinct): shape ``x.shape`` with those axes set to 1, dtype ``partial_dtype``.
    ``skipna``: the states of the non-NaN values (their count is the values
    kept, so states combine as any others).

    Raises:
        InternalError: the kernel refused its arguments (an axis out of range is a ValueError).
    """
    name, data, mask, shape = _reduce_kept_axes(x, axes)
    states = np.empty(shape, dtype=partial_dtype(name))
    if skips_nan(name, skipna) and data.size:
        with ReduceJob(name, data.shape, data.strides, mask, skipna=True, states=True) as job:
            nthreads = default_threads() if threads is None else threads
            job.step(data, 0, job.info()[1], states, nthreads)
            job.end(states)
        return states
    mod = _module()
    kernel = symbol("reduce_partial", name)
    status = getattr(mod.lib, kernel)(
        _pointer(mod.ffi, data),
        _pointer(mod.ffi, states),
        data.ndim,
        list(data.shape),
        list(data.strides),
        mask,
        default_threads() if threads is None else threads,
    )
    _check(status, kernel)
    return states


def reduce_kept(
    x: np.ndarray, axes: tuple[int, ...], threads: int | None = None, skipna: bool = False
) -> np.ndarray:
    """ReduceMean of ``x`` over ``axes`` (non-negative, distinct) with those axes
    kept as size 1 (ONNX ReduceMean, keepdims=1): dtype ``x.dtype``, the same
    bits as ``finalize_partials(reduce_partial(x, axes, skipna=skipna))``
    without the states.

    Raises:
        SpecViolation: integer mean over an empty set.
        InternalError: the kernel refused its arguments (an axis out of range is a ValueError).
    """
    name, data, mask, shape = _reduce_kept_axes(x, axes)
    out = np.empty(tuple(n for n, m in zip(shape, mask, strict=True) if not m), dtype=data.dtype)
    run_reduce(name, data, mask, out, default_threads() if threads is None else threads, skipna)
    return out.reshape(shape)


def combine_partials(states: np.ndarray, axes: tuple[int, ...], dtype_name: str) -> np.ndarray:
    """The exact combination of ``states`` along ``axes``: the same shape with
    those axes set to 1 (an axis of length 0 gives empty states)."""
    dt = partial_dtype(dtype_name)
    if states.dtype != dt:
        raise ValueError(f"states of dtype {states.dtype} are not {dtype_name} partial states ({dt})")
    kept = [d for d in range(states.ndim) if d not in axes]
    moved = np.transpose(states, kept + list(axes))
    rows = int(np.prod([states.shape[d] for d in kept], dtype=np.int64))
    parts = moved.reshape(rows, -1) if rows else moved.reshape(0, 1)
    total = np.zeros(rows, dtype=dt)  # the empty state is all zero bytes
    mod = _module()
    combine = getattr(mod.lib, symbol("partial_combine", dtype_name))
    for k in range(parts.shape[1]):
        part = np.asarray(parts[:, k], order="C")
        _check(combine(_pointer(mod.ffi, total), _pointer(mod.ffi, part), rows), "combine")
    shape = tuple(1 if d in axes else n for d, n in enumerate(states.shape))
    return total.reshape(shape)


def finalize_partials(states: np.ndarray, dtype_name: str) -> np.ndarray:
    """The means of ``states``: the same shape, dtype ``dtype_name`` (bfloat16 as
    ``ml_dtypes.bfloat16``); floats correctly rounded, integers truncated toward zero.

    Raises:
        SpecViolation: an integer state of count 0 (integer mean over an empty set).
    """
    dt = partial_dtype(dtype_name)
    if states.dtype != dt:
        raise ValueError(f"states of dtype {states.dtype} are not {dtype_name} partial states ({dt})")
    src = np.asarray(states, order="C")
    out = np.empty(states.shape, dtype=numpy_dtype(dtype_name))
    mod = _module()
    kernel = symbol("partial_finalize", dtype_name)
    status = getattr(mod.lib, kernel)(_pointer(mod.ffi, src), _pointer(mod.ffi, out), states.size)
    _check(status, kernel)
    return out
