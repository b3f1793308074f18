"""A toy engine: runs every call in memory and records it. It is what a new engine
module looks like: the planner's two entry points (meancli.engine.plan), and the
options it takes, which the command line makes flags of (``--record-as NAME``)."""

from __future__ import annotations

from typing import Any

from meancli.engine import EngineOption, memory
from meancli.engine.plan import Engine, Job, Outcome

CALLS: list[str] = []


def reduce(op: Any, call: Any, data: Any, job: Job) -> Outcome:
    CALLS.append(f"reduce {op.label}")
    outcome = memory.reduce(op, call, data, job)
    return outcome._replace(engine={"name": job.option("record_as")})


def mean(op: Any, shape: tuple[int, ...], items: list[Any], job: Job) -> Outcome:
    CALLS.append(f"mean {op.label}")
    outcome = memory.mean(op, shape, items, job)
    return outcome._replace(engine={"name": job.option("record_as")})


OPTIONS = (
    EngineOption("record_as", "--record-as", str, "recording", "NAME", "The name the toy engine reports."),
)
ENGINE = Engine("recording", __name__, lambda items, job: True, OPTIONS)
