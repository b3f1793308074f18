"""meancli: the mean operators of ONNX and OpenVINO on numpy arrays and .npy files.

    >>> import numpy as np, meancli
    >>> meancli.reduce_mean(np.arange(6, dtype=np.float32).reshape(2, 3), axes=[1])
    array([[1.], [4.]], dtype=float32)

``mean``, ``reduce_mean``, ``compare`` and ``open_lazy`` are imported on first use, so ``meancli
--version`` and the CLI's help do not pay for numpy.
"""

from __future__ import annotations

# Not ``from typing import TYPE_CHECKING``: this is the first of meancli's code
# every run executes, and importing typing here would widen the start-up window
# in which a Ctrl-C can only end in a traceback (the command line reports it as
# ``error: interrupted`` from cli/entry.py's main on). Type checkers read the
# name as typing's.
TYPE_CHECKING = False

__version__ = "0.1.0"
__all__ = ["__version__", "compare", "mean", "open_lazy", "reduce_mean"]

if TYPE_CHECKING:
    from typing import Any

    from .api import compare, mean, open_lazy, reduce_mean


def __getattr__(name: str) -> Any:
    if name in __all__ and name != "__version__":
        from . import api

        value = getattr(api, name)
        globals()[name] = value  # later lookups skip this hook
        return value
    raise AttributeError(f"module 'meancli' has no attribute {name!r}")
