"""Options every data command shares (same names, same help)."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

Opset = Annotated[
    Optional[str],  # noqa: UP045 -- typer reads the annotation at run time
    typer.Option(
        "--opset",
        metavar="SPEC",
        help="N, onnx:N or openvino:N: use the highest version of the op with since_version <= N "
        "(default: the newest onnx version).",
    ),
]
Output = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "-o",
        "--output",
        metavar="OUT",
        help="Write the result as .npy to OUT ('-' for stdout), or as a zarr array when OUT ends in .zarr.",
    ),
]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print nothing but errors.")]
Json = Annotated[bool, typer.Option("--json", help="Print the report as one JSON object (errors too).")]
Threads = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--threads", metavar="N", min=1, max=1024, help="Kernel threads (default: the available cores)."
    ),
]
Debug = Annotated[bool, typer.Option("--debug", help="Show the traceback of an internal error.")]
Repeat = Annotated[
    int,
    typer.Option(
        "--repeat",
        metavar="N",
        min=1,
        max=1_000_000,
        help="Run the kernel N times and report its min and median time (for benchmarking).",
    ),
]
Workers = Annotated[
    Optional[int],  # noqa: UP045
    typer.Option(
        "--workers",
        metavar="N",
        min=1,
        max=1024,
        help="Run on a dask LocalCluster of N worker processes on 127.0.0.1, shut down after the run.",
    ),
]
Scheduler = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--scheduler",
        metavar="ADDRESS",
        help="Run on the existing dask cluster whose scheduler is at ADDRESS (tcp://HOST:PORT).",
    ),
]
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        min=0.1,
        help="Give up when the scheduler does not answer, or no worker joins it, within SECONDS.",
    ),
]
