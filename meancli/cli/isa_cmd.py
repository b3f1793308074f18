"""``meancli isa``: the instruction set each kind of kernel runs on this
machine, and why (meancli.kernels.isa_choice: measured once, cached per CPU
and kernel build); ``--measure`` measures anew and rewrites the cache.

No ``from __future__ import annotations`` (see app.py).
"""

import json
import sys
from typing import Annotated

import typer

from . import options

Measure = Annotated[
    bool,
    typer.Option(
        "--measure",
        help="Measure the instruction sets anew (about a second) and rewrite this machine's cache.",
    ),
]


def isa(measure: Measure = False, json_mode: options.Json = False, debug: options.Debug = False) -> None:
    """Show the instruction set (portable, avx2, avx512) each kind of kernel runs
    on this machine, each level's measured time, and where the choice came from.
    Every level gives the same bits; the choice only changes speed."""
    from .run import session

    with session(json_mode=json_mode, debug=debug, quiet=False):
        from .. import kernels

        choice = kernels.remeasure_isas() if measure else kernels.isa_report()
        if json_mode:
            sys.stdout.write(json.dumps(choice.as_json()) + "\n")
            return
        from rich.console import Console
        from rich.table import Table

        levels = sorted({name for seconds in choice.seconds for name in seconds})
        table = Table(box=None, pad_edge=False)
        for column in ("kernels", "dtype", "runs", *(f"{name} ms" for name in levels)):
            table.add_column(column, justify="right" if column.endswith("ms") else "left")
        for row in choice.as_json()["groups"]:
            times = [f"{row['seconds'][n] * 1e3:.2f}" if n in row["seconds"] else "" for n in levels]
            table.add_row(row["kind"], row["dtype"], row["isa"], *times)
        console = Console(highlight=False, soft_wrap=True)
        console.print(table)
        source = {
            "measured": "measured now",
            "cache": "measured earlier",
            "MEANCLI_ISA": "named by MEANCLI_ISA (nothing measured)",
            "cpu": "the only vector set this CPU has (nothing to measure)",
        }[choice.source]
        where = f"; cached in {choice.path}" if choice.path else ""
        rule = (
            f" The widest set runs unless a narrower one took less than "
            f"1/{1 + kernels.isa_choice.NARROWER_GAIN:.2f} of its time (ms: one thread's CPU time "
            "over the measured workloads: the narrowest set's median round, a wider one's that "
            "times the median of the rounds' ratios)."
            if choice.source in ("measured", "cache")  # the rule decided only a measured choice
            else ""
        )
        console.print(f"choice: {source}{where}.{rule}")
