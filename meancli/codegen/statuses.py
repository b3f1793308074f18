"""The status codes the C kernels return: one table, rendered into the C enum
(templates/kernels.c.j2, MEANCLI_*) and into generated/tables.py, which
meancli.kernels reads at run time, so the two cannot drift apart."""

from __future__ import annotations

from typing import NamedTuple


class Status(NamedTuple):
    """One kernel status: its C name (after MEANCLI_), value and meaning."""

    name: str
    value: int
    message: str


STATUSES: tuple[Status, ...] = (
    Status("OK", 0, "success"),
    Status("E_RANK", 1, "rank outside [0, 64]"),
    Status("E_SHAPE", 2, "a negative dimension or a size that overflows int64"),
    Status("E_STRIDE", 3, "a stride that is negative or not a multiple of the item size"),
    Status("E_NOMEM", 4, "out of memory for the kernel's scratch buffers"),
    Status("E_EMPTY_INT", 5, "integer mean over an empty set"),
    Status("E_ARG", 6, "a null pointer or no inputs"),
)
