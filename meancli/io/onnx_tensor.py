"""ONNX tensor files (``.pb``): one serialized ``onnx.TensorProto``.

This is the layout of ONNX's own test data (``test_data_set_0/input_0.pb``) and of
tensors dumped by onnx tooling.  Reading and writing go through the ``onnx``
package (meancli's ``onnx`` extra), imported only when such a file is used.

Read: every dtype meancli's operators take (float16, bfloat16, float32, float64,
int8..int64, uint8..uint64), from ``raw_data`` (little-endian bytes) or from the
typed field ONNX stores that dtype in (``float_data``, ``int32_data``,
``int64_data``, ``double_data``, ``uint64_data``).  Refused, each with one line:
external data (``data_location: EXTERNAL``: meancli never opens the other files a
tensor names), segments, other data types, data whose size does not match
``dims``, values out of range for the dtype in ``int32_data``, and files over
protobuf's 2 GiB limit.

Written: ``raw_data`` (as ``onnx.numpy_helper.from_array`` writes it), atomically.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from ..dtypes import as_ml_dtypes, native_dtype
from ..errors import InputFileError, OutputFileError, UnsupportedDtypeFile, extra_hint
from .atomic_write import write_atomically
from .messages import display, reason
from .npy_format import MAX_DATA_BYTES, MAX_NDIM
from .npy_read import open_for_reading

if TYPE_CHECKING:
    from types import ModuleType

    import numpy.typing as npt

#: protobuf refuses to parse or serialize a message larger than this.
PROTOBUF_LIMIT = (1 << 31) - 1
# TensorProto.DataType values meancli reads, and the typed field each is stored in
# when there is no raw_data (ONNX's rule: narrow ints, float16 and bfloat16 bits in int32_data).
_FIELDS = {
    1: "float_data",  # FLOAT
    2: "int32_data",  # UINT8
    3: "int32_data",  # INT8
    4: "int32_data",  # UINT16
    5: "int32_data",  # INT16
    6: "int32_data",  # INT32
    7: "int64_data",  # INT64
    10: "int32_data",  # FLOAT16 (its bits, as uint16)
    11: "double_data",  # DOUBLE
    12: "uint64_data",  # UINT32
    13: "uint64_data",  # UINT64
    16: "int32_data",  # BFLOAT16 (its bits, as uint16)
}
# The range the typed field may hold for each type stored in a wider one.
_FIELD_RANGES = {
    2: (0, 255),
    3: (-128, 127),
    4: (0, 65535),
    5: (-32768, 32767),
    6: (-(1 << 31), (1 << 31) - 1),
    10: (0, 65535),
    12: (0, (1 << 32) - 1),  # uint64_data
    16: (0, 65535),
}
# Every field a TensorProto may hold values in.
_VALUE_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")
_EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def _onnx(where: str, doing: str) -> ModuleType:
    try:
        import onnx
    except ImportError:
        msg = f"{doing} ONNX tensor files (.pb) needs the onnx package; {extra_hint('onnx')}"
        raise InputFileError(f"{where}: {msg}") from None
    return onnx


def import_onnx() -> bool:
    """Import the onnx package (and its numpy_helper) now, so that its cost (about a
    second) can be timed as a stage of its own; False when it is missing (the reader or
    writer then says how to install it)."""
    try:
        import onnx  # noqa: F401
        from onnx import numpy_helper  # noqa: F401
    except ImportError:
        return False
    return True


def _type_name(onnx: ModuleType, data_type: int) -> str:
    try:
        return str(onnx.TensorProto.DataType.Name(data_type))
    except ValueError:
        return "unknown"


def read_tensor_file(path: str) -> npt.NDArray[Any]:
    """Read a ``.pb`` file holding one ``TensorProto``.

    Returns:
        The tensor as a numpy array of its dtype (``ml_dtypes.bfloat16`` for BFLOAT16),
        shape ``dims`` (``()`` when there are none), C order.

    Raises:
        InputFileError: one line naming the file: the onnx package is missing, the file
            cannot be read or is larger than 2 GiB, is not a TensorProto, uses external
            data or segments, or its data does not match its dims and data_type.
        UnsupportedDtypeFile: a data_type meancli's operators do not take.
    """
    where = display(path)
    onnx = _onnx(where, "reading")
    with open_for_reading(path, where) as fp:
        try:
            size = os.fstat(fp.fileno()).st_size
            if size > PROTOBUF_LIMIT:
                raise InputFileError(
                    f"{where}: {size} bytes is more than protobuf's 2 GiB limit for a TensorProto file"
                )
            data = fp.read(PROTOBUF_LIMIT + 1)
        except OSError as exc:
            raise InputFileError(f"{where}: read error: {reason(exc)}") from None
    tensor = onnx.TensorProto()
    try:
        tensor.ParseFromString(data)
    except Exception as exc:  # protobuf's DecodeError and the C++ backend's errors vary by version
        raise InputFileError(f"{where}: not an ONNX TensorProto file ({reason(exc)})") from None
    return tensor_to_array(tensor, where)


def tensor_to_array(tensor: Any, where: str) -> npt.NDArray[Any]:
    """A parsed ``TensorProto`` as an array, checked as :func:`read_tensor_file` describes."""
    from onnx import numpy_helper

    if tensor.data_location == _EXTERNAL or len(tensor.external_data):
        raise InputFileError(
            f"{where}: the tensor's data is stored in another file (external data), "
            "which meancli does not read; save it with its data inside"
        )
    if tensor.HasField("segment"):
        raise InputFileError(f"{where}: tensors in segments are not supported")
    data_type = int(tensor.data_type)
    if data_type == 0:
        raise InputFileError(f"{where}: not an ONNX TensorProto file (no data_type set)")
    field = _FIELDS.get(data_type)
    if field is None:
        import onnx

        raise UnsupportedDtypeFile(
            f"{where}: data_type {data_type} ({_type_name(onnx, data_type)}) is not supported"
        )
    dims = tuple(int(d) for d in tensor.dims)
    if any(d < 0 for d in dims):
        raise InputFileError(f"{where}: dims {list(dims)} has a negative dimension")
    if len(dims) > MAX_NDIM:
        raise InputFileError(f"{where}: {len(dims)} dimensions; at most {MAX_NDIM} are supported")
    from onnx import helper

    dtype = np.dtype(helper.tensor_dtype_to_np_dtype(data_type))
    count = 1
    for d in dims:
        count *= d
    if count * dtype.itemsize > MAX_DATA_BYTES:
        raise InputFileError(f"{where}: dims {list(dims)} are too large")
    holding = [f for f in _VALUE_FIELDS if len(getattr(tensor, f))]
    holding += ["raw_data"] if tensor.HasField("raw_data") else []
    if len(holding) > 1 or (holding and holding[0] not in (field, "raw_data")):
        raise InputFileError(
            f"{where}: the values are in {' and '.join(holding)}; a {dtype} tensor holds them "
            f"in raw_data or {field} alone"
        )
    if tensor.HasField("raw_data"):
        held, need = len(tensor.raw_data), count * dtype.itemsize
        if held != need:
            msg = f"raw_data holds {held} bytes; dims {list(dims)} of {dtype} need {need}"
            raise InputFileError(f"{where}: {msg}")
    else:
        values = getattr(tensor, field)
        if len(values) != count:
            msg = f"{field} holds {len(values)} values; dims {list(dims)} need {count}"
            raise InputFileError(f"{where}: {msg}")
        limits = _FIELD_RANGES.get(data_type)
        if limits is not None and count and not (limits[0] <= min(values) and max(values) <= limits[1]):
            raise InputFileError(f"{where}: {field} holds a value out of the range {list(limits)} of {dtype}")
    try:
        array = numpy_helper.to_array(tensor)
    except (ValueError, TypeError) as exc:
        raise InputFileError(f"{where}: cannot convert the tensor: {reason(exc)}") from None
    return np.asarray(array).reshape(dims)


def write_tensor_file(path: str, array: npt.NDArray[Any], name: str = "") -> int:
    """Write ``array`` as a ``.pb`` file holding one ``TensorProto`` (``raw_data``), atomically.

    Args:
        path: the destination (a file; replaced whole or not at all).
        array: any dtype ``onnx.numpy_helper.from_array`` maps (every dtype meancli computes);
            written in C order, little-endian as ONNX requires.
        name: the tensor's ``name`` field.

    Returns:
        The number of bytes written.

    Raises:
        OutputFileError: ``cannot write PATH: ...`` when the onnx package is missing, the
            tensor exceeds protobuf's 2 GiB limit, or on any OS error.
    """
    where = display(path)
    _onnx(f"cannot write {where}", "writing")
    from onnx import numpy_helper

    # (np.ascontiguousarray would make a rank-0 result rank 1)
    data = as_ml_dtypes(np.asarray(array, dtype=native_dtype(array.dtype), order="C"))
    if data.nbytes > PROTOBUF_LIMIT - (1 << 16):
        msg = f"{data.nbytes} bytes is more than a TensorProto holds (2 GiB)"
        raise OutputFileError(f"cannot write {where}: {msg}")
    try:
        tensor = numpy_helper.from_array(data, name)
        payload = tensor.SerializeToString()
    except (ValueError, TypeError) as exc:
        raise OutputFileError(f"cannot write {where}: {reason(exc)}") from None
    return write_atomically(path, where, [payload])
