"""ONNX's own Mean and ReduceMean node test cases, computed once per test run.

``onnx.backend.test.case.node.collect_testcases()`` imports every operator's
case module, and each import runs that operator's exporters: ~1900 cases, all
their expected outputs computed (13 s on 2 cores, 30 s on a busy machine),
for the 11 that are one Mean or ReduceMean node. Importing only the two
modules that define those cases (``mean`` and ``reducemean``) runs only their
exporters (~0.1 s); each exporter's ``expect`` appends its cases to the
package's case list, which is what ``collect_testcases`` returns too.
``test_onnx_node_cases.test_the_two_modules_hold_every_mean_case`` (slow)
checks against the full collection that no case is left out.

``node_cases()`` is cached: every test file that asks gets the same cases,
computed on the first call, once per test run.
"""

from __future__ import annotations

import importlib
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Any

ONNX_DOMAINS = ("", "ai.onnx")
#: The onnx modules (under onnx.backend.test.case.node) whose exporters define the cases.
CASE_MODULES = ("mean", "reducemean")
NODE_PACKAGE = "onnx.backend.test.case.node"


def is_mean_case(case: Any) -> bool:
    """A case whose model is one Mean or ReduceMean node of the ONNX domain, with data."""
    if case.model is None or not case.data_sets:
        return False
    nodes = case.model.graph.node
    return len(nodes) == 1 and nodes[0].op_type in ("Mean", "ReduceMean") and nodes[0].domain in ONNX_DOMAINS


@lru_cache(maxsize=1)
def node_cases() -> tuple[Any, ...]:
    """The onnx package's test cases (``onnx.backend.test.case.test_case.TestCase``) whose
    model is one Mean or ReduceMean node, in the order onnx defines them."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporters compute their outputs, noisily
        package = importlib.import_module(NODE_PACKAGE)
        for name in CASE_MODULES:
            importlib.import_module(f"{NODE_PACKAGE}.{name}")
    # The list every exporter's expect() appends to (collect_testcases returns it).
    return tuple(case for case in package._NodeTestCases if is_mean_case(case))


def every_collected_case() -> tuple[Any, ...]:
    """The same cases from onnx's full ``collect_testcases()`` (every operator: slow)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from onnx.backend.test.case.node import collect_testcases

        return tuple(case for case in collect_testcases() if is_mean_case(case))


def write_test_dir(case: Any, root: Path) -> Path:
    """``case`` in ONNX's node test layout under ``root/case.name``: ``model.onnx`` and
    ``test_data_set_N/input_K.pb``, ``output_K.pb`` (the graph's inputs that are no
    initializer, in order)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    d = root / case.name
    d.mkdir()
    onnx.save(case.model, d / "model.onnx")
    graph = case.model.graph
    inputs = [i.name for i in graph.input if i.name not in {t.name for t in graph.initializer}]
    outputs = [o.name for o in graph.output]
    for n, (ins, outs) in enumerate(case.data_sets):
        ds = d / f"test_data_set_{n}"
        ds.mkdir()
        for kind, names, arrays in (("input", inputs, ins), ("output", outputs, outs)):
            for k, (name, x) in enumerate(zip(names, arrays, strict=True)):
                tensor = numpy_helper.from_array(np.asarray(x), name)
                (ds / f"{kind}_{k}.pb").write_bytes(tensor.SerializeToString())
    return d
