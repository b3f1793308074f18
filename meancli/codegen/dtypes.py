"""The element types a spec may name: every per-dtype fact the kernel templates use.

The templates read these fields and never branch on a dtype's name, so a new
type is one row here. ``family`` picks the accumulator (templates/kernels.c.j2
explains each where it is implemented):

- ``flt``: float16, bfloat16, float32 -> exact sums in double blocks and a
  superaccumulator with least significant bit 2^-149, one rounding.
- ``dbl``: float64 -> the same with least significant bit 2^-1074.
- ``int``: every integer -> exact sums in 128 bits; the mean truncates toward zero.

A template meeting a family it does not know calls ``unknown_family``, which
stops generation naming the template and line.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

FAMILIES = ("flt", "dbl", "int")


@dataclass(frozen=True)
class FloatFacts:
    """A float type's format and how the C kernels load, store and vectorize it."""

    precision: int  # significant bits, the leading one included
    emin: int  # smallest normal exponent
    emax: int  # largest exponent
    load: str  # C expression: the storage value {x} as an exact double
    store: str  # C function: a double holding a value of the format -> storage
    sacc_limbs: int  # 64-bit limbs of the superaccumulator
    sacc_lsb: int  # weight of its least significant bit: 2^sacc_lsb
    # ISA-layer primitive (templates/simd_*.h.j2): VF_N values at a pointer as a vf
    # of floats ("" for float64, whose vector loops read doubles)
    simd_load: str
    # the storage is a float32's top 16 bits: exponent checks run on the raw 16-bit
    # lanes, and values widen to floats by interleaving them with zeros
    top_half_of_float32: bool = False
    # ISA-layer primitive: VD_N values at a pointer widened to a vd straight from
    # memory, used where the layer defines it (else the widening goes through floats)
    simd_widen: str = ""


@dataclass(frozen=True)
class DType:
    """One element type: its spec name, numpy name, C storage type and accumulator family."""

    name: str  # spec name, also the suffix of kernel symbols
    numpy: str  # numpy dtype name ('bfloat16' comes from ml_dtypes)
    onnx: str  # ONNX type string in schemas
    onnx_enum: int  # its TensorProto.DataType value (.pb files)
    ctype: str  # C storage type
    itemsize: int  # bytes
    family: str  # one of FAMILIES
    signed: bool
    bits: int
    flt: FloatFacts | None = None  # float types only

    @property
    def is_float(self) -> bool:
        return self.flt is not None

    @property
    def vector_kernels(self) -> tuple[str, ...]:
        """The kernels templates/kernel_vec.c.j2 writes for it, per ISA: contiguous
        runs, rows, Mean units (the rest of its loops are portable C)."""
        if self.family == "flt":
            return ("run", "rows", "mean")
        if self.family == "dbl":
            return ("run", "rows", "mean")
        return ("run",) if self.bits == 64 else ()

    def load(self, expr: str) -> str:
        """C expression converting the storage value ``expr`` to double (exact for floats)."""
        if self.flt is None:
            return f"((double)({expr}))"
        return self.flt.load.format(x=expr)

    def unknown_family(self) -> str:
        """Stop generation: the calling template has no branch for this dtype's family."""
        import jinja2

        frame = sys._getframe(1)
        while frame is not None and "__jinja_template__" not in frame.f_globals:
            frame = frame.f_back  # type: ignore[assignment]
        if frame is None:
            raise jinja2.TemplateRuntimeError(f"{self.name}: unknown dtype family {self.family!r}")
        template = frame.f_globals["__jinja_template__"]
        raise jinja2.TemplateAssertionError(
            f"{self.name}: no branch for dtype family {self.family!r} (known: {', '.join(FAMILIES)})",
            template.get_corresponding_lineno(frame.f_lineno),
            template.name,
        )


def _int(name: str, bits: int, signed: bool) -> DType:
    ctype = f"{'' if signed else 'u'}int{bits}_t"
    return DType(name, name, f"tensor({name})", ONNX_ENUMS[name], ctype, bits // 8, "int", signed, bits)


# TensorProto.DataType (onnx/onnx.proto) of each type a spec may name.
ONNX_ENUMS = {
    "float32": 1,
    "uint8": 2,
    "int8": 3,
    "uint16": 4,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "float16": 10,
    "float64": 11,
    "uint32": 12,
    "uint64": 13,
    "bfloat16": 16,
}

# float16/bfloat16/float32: every value is a multiple of 2^-149 below 2^128.
SINGLE_SACC_LIMBS, SINGLE_SACC_LSB = 6, -149

DTYPES: dict[str, DType] = {
    d.name: d
    for d in (
        DType(
            "float16",
            "float16",
            "tensor(float16)",
            ONNX_ENUMS["float16"],
            "uint16_t",
            2,
            "flt",
            True,
            16,
            FloatFacts(
                11,
                -14,
                15,
                "((double)f16_to_f32({x}))",
                "f64_to_f16",
                sacc_limbs=SINGLE_SACC_LIMBS,
                sacc_lsb=SINGLE_SACC_LSB,
                simd_load="vf_load_f16",
                simd_widen="vd_load_f16",
            ),
        ),
        DType(
            "bfloat16",
            "bfloat16",
            "tensor(bfloat16)",
            ONNX_ENUMS["bfloat16"],
            "uint16_t",
            2,
            "flt",
            True,
            16,
            FloatFacts(
                8,
                -126,
                127,
                "bf16_to_f64({x})",
                "f64_to_bf16",
                sacc_limbs=SINGLE_SACC_LIMBS,
                sacc_lsb=SINGLE_SACC_LSB,
                simd_load="vf_load_bf16",
                top_half_of_float32=True,
            ),
        ),
        DType(
            "float32",
            "float32",
            "tensor(float)",
            ONNX_ENUMS["float32"],
            "float",
            4,
            "flt",
            True,
            32,
            FloatFacts(
                24,
                -126,
                127,
                "((double)({x}))",
                "(float)",
                sacc_limbs=SINGLE_SACC_LIMBS,
                sacc_lsb=SINGLE_SACC_LSB,
                simd_load="vf_load_f32",
                simd_widen="vd_load_f32",
            ),
        ),
        DType(
            "float64",
            "float64",
            "tensor(double)",
            ONNX_ENUMS["float64"],
            "double",
            8,
            "dbl",
            True,
            64,
            FloatFacts(
                53,
                -1022,
                1023,
                "({x})",
                "(double)",
                sacc_limbs=34,
                sacc_lsb=-1074,
                simd_load="",
            ),
        ),
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
