"""The element types a spec may name, and how the C kernels handle each.

``family`` picks the accumulator (see templates/kernels.c.j2, which explains
each choice where it is implemented):

- ``flt``: float16, bfloat16, float32 -> accumulate in double, round once.
- ``dd``: float64 -> double-double (error-free TwoSum), round once.
- ``int``: every integer -> exact sums of a biased unsigned value in 64-bit
  lanes, combined in 128 bits; the mean truncates toward zero.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DType:
    """One element type: its spec name, numpy name, C storage type and accumulator family."""

    name: str  # spec name, also the suffix of kernel symbols
    numpy: str  # numpy dtype name ('bfloat16' comes from ml_dtypes)
    onnx: str  # ONNX type string in schemas
    ctype: str  # C storage type
    itemsize: int  # bytes
    family: str  # flt | dd | int
    signed: bool
    bits: int

    @property
    def is_float(self) -> bool:
        return self.family != "int"


def _int(name: str, bits: int, signed: bool) -> DType:
    ctype = f"{'' if signed else 'u'}int{bits}_t"
    onnx = f"tensor({name})"
    return DType(name, name, onnx, ctype, bits // 8, "int", signed, bits)


DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType("float16", "float16", "tensor(float16)", "uint16_t", 2, "flt", True, 16),
        DType("bfloat16", "bfloat16", "tensor(bfloat16)", "uint16_t", 2, "flt", True, 16),
        DType("float32", "float32", "tensor(float)", "float", 4, "flt", True, 32),
        DType("float64", "float64", "tensor(double)", "double", 8, "dd", True, 64),
        _int("int8", 8, True),
        _int("int16", 16, True),
        _int("int32", 32, True),
        _int("int64", 64, True),
        _int("uint8", 8, False),
        _int("uint16", 16, False),
        _int("uint32", 32, False),
        _int("uint64", 64, False),
    )
}
