"""A toy input format: ``FILE.csv`` of comma-separated numbers, one row a line, as float64.

It is what a new format module looks like: how to recognise an argument, and how
to open it as NamedArrays (meancli.io.registry.InputFormat).
"""

from __future__ import annotations

import numpy as np

from meancli.errors import InputFileError
from meancli.io.inputs import NamedArray
from meancli.io.registry import InputFormat, Opening


def recognise(arg: str) -> bool:
    return arg.endswith(".csv")


def open_csv(arg: str, how: Opening) -> list[NamedArray]:
    try:
        with open(arg, encoding="ascii") as fp:
            rows = [[float(v) for v in line.split(",")] for line in fp if line.strip()]
    except (OSError, ValueError) as exc:
        raise InputFileError(f"{arg}: not a readable csv of numbers ({exc})") from None
    return [NamedArray(arg, np.array(rows, dtype=np.float64), None)]


FORMAT = InputFormat("csv", recognise, open_csv)
