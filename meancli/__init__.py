"""meancli: the mean operators of ONNX and OpenVINO on numpy arrays and .npy files.

    >>> import numpy as np, meancli
    >>> meancli.reduce_mean(np.arange(6, dtype=np.float32).reshape(2, 3), axes=[1])
    array([[1.], [4.]], dtype=float32)

``mean`` and ``reduce_mean`` are imported on first use, so ``meancli
--version`` and the CLI's help do not pay for numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["__version__", "mean", "open_lazy", "reduce_mean"]

if TYPE_CHECKING:
    from .api import mean, reduce_mean
    from .engine.distributed import open_lazy


def __getattr__(name: str) -> Any:
    if name in ("mean", "reduce_mean"):
        from . import api

        value = getattr(api, name)
        globals()[name] = value  # later lookups skip this hook
        return value
    if name == "open_lazy":  # zarr arrays, shard datasets, large .npy files as dask arrays
        from .engine.distributed import open_lazy

        globals()[name] = open_lazy
        return open_lazy
    raise AttributeError(f"module 'meancli' has no attribute {name!r}")
