"""Read-only memory maps of input files that hold no file descriptor.

``numpy.memmap`` and ``mmap.mmap`` keep a duplicate of the file's descriptor for
as long as the mapping lives, so every memory-mapped input held one and a
``mean`` of about a thousand files used up the usual limit of 1024 open files
(``ulimit -n``). A mapping does not need its descriptor once made: here the
file is mapped, and the caller closes its descriptor at once.

- Python 3.13 and later: ``mmap.mmap(..., trackfd=False)``.
- Earlier, on POSIX: the C library's ``mmap`` through ctypes; the mapping is
  removed (``munmap``) when the last array over it is gone.
- Elsewhere (Windows): ``mmap.mmap``, which keeps its descriptor.
"""

from __future__ import annotations

import functools
import mmap
import os
import sys
import weakref
from typing import Any

import numpy as np


def map_readonly(fd: int, offset: int, length: int) -> np.ndarray[Any, np.dtype[np.uint8]]:
    """``length`` bytes of the open file ``fd`` from byte ``offset``, memory-mapped read-only.

    Args:
        fd: a descriptor open for reading; the caller may close it as soon as this
            returns (the mapping lasts as long as the array or any view of it).
        offset: the first byte (any value; the map starts at the page below it).
        length: the number of bytes, at least 1; the file must hold them.

    Returns:
        A read-only 1-D uint8 array of ``length`` bytes whose first byte is at an
        address congruent to ``offset`` modulo the page size (so a view of it as a
        dtype whose alignment divides ``offset`` is aligned).

    Raises:
        OSError: the file cannot be mapped (a file system without mmap, no memory).
        ValueError: ``length`` < 1 or a range beyond the end of the file.
    """
    if length < 1:
        raise ValueError("nothing to map")
    start = offset - offset % mmap.ALLOCATIONGRANULARITY
    size = length + (offset - start)
    if os.fstat(fd).st_size < offset + length:
        raise ValueError("the mapped range ends after the file")
    if sys.version_info >= (3, 13):
        held: Any = mmap.mmap(fd, size, access=mmap.ACCESS_READ, offset=start, trackfd=False)
    else:
        libc = _libc()
        if libc is None:
            held = mmap.mmap(fd, size, access=mmap.ACCESS_READ, offset=start)
        else:
            held = _posix_map(libc, fd, start, size)
    array = np.frombuffer(held, dtype=np.uint8, count=length, offset=offset - start)
    array.flags.writeable = False
    return array


@functools.cache
def _libc() -> Any:
    """The C library's mmap and munmap through ctypes; None where there is none to use."""
    if os.name != "posix" or sys.maxsize <= 2**32:  # (32-bit: off_t may be 32 bits)
        return None
    import ctypes  # only where a file is mapped (a few ms to import)

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.mmap.restype = ctypes.c_void_p
        libc.mmap.argtypes = [
            ctypes.c_void_p,
            ctypes.c_size_t,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_int64,
        ]
        libc.munmap.restype = ctypes.c_int
        libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


def _posix_map(libc: Any, fd: int, start: int, size: int) -> Any:
    """A ctypes byte array over ``mmap(size, PROT_READ, MAP_SHARED, fd, start)``, unmapped
    when it is collected. Raises OSError (errno from mmap)."""
    import ctypes

    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, start)
    if address is None or address == ctypes.c_void_p(-1).value:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    held = (ctypes.c_ubyte * size).from_address(address)
    unmap = weakref.finalize(held, libc.munmap, address, size)
    # not at exit: an array still held then (a module's global) would point at nothing;
    # the process's end unmaps it anyway
    unmap.atexit = False
    return held


def is_mapped(array: Any) -> bool:
    """Whether ``array`` (an ndarray) views a file mapped by map_readonly (or any
    ``mmap.mmap``, as ``numpy.memmap`` does) rather than memory of its own."""
    ctypes = sys.modules.get("ctypes")
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return isinstance(base, mmap.mmap) or (ctypes is not None and isinstance(base, ctypes.Array))
