"""The instruction sets the vector kernels are compiled for, lowest first.

Every vector kernel (templates/kernel_vec.c.j2) is one source written on the
primitives of an ISA layer (templates/simd_<name>.h.j2); the generator emits
it once per ISA here, each copy compiled for its target by a function
attribute; the run time picks, per kind of kernel and dtype, the level
measured fastest on the machine among those the CPU supports (level 0 is the
portable C loops). ``MEANCLI_ISA`` asks for a lower
level, which is how the tests run every path the CPU has.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Isa:
    """One x86-64 instruction set: its name (symbol suffix, ``MEANCLI_ISA`` value) and CPU features."""

    name: str
    vector_bytes: int  # width of its vectors
    features: tuple[str, ...]  # __builtin_cpu_supports names, all required; also the target() list

    @property
    def target(self) -> str:
        """The GCC/Clang ``target`` attribute string of its functions."""
        return ",".join(self.features)

    @property
    def layer(self) -> str:
        """The template defining its primitives."""
        return f"simd_{self.name}.h.j2"


ISAS = (
    Isa("avx2", 32, ("avx2", "fma", "f16c")),
    Isa("avx512", 64, ("avx512f", "avx512bw", "avx512vl", "avx512dq", "avx2", "fma", "f16c")),
)
# The names MEANCLI_ISA takes, by level.
ISA_NAMES = ("portable", *(isa.name for isa in ISAS))

# Each kind of vector kernel of each float dtype runs the level measured
# fastest for it on this machine (meancli/kernels/isa_choice.py: measured
# once, cached per CPU and kernel build).
# The kinds: "run", the run and row kernels of ReduceMean; "mean", the Mean
# unit kernels (Mean, and ReduceMean of few rows or short runs); "compare",
# the comparison with the correctly rounded result (--compare). The
# integer types follow float32. Measured here (AMD Zen 4): AVX-512 made
# float64 Mean 0.83x the time and float16 Mean 1.25x, bfloat16 Mean 0.85x,
# float16 reductions 0.87x, float32 ones 1.0-1.4x.
ISA_KINDS = ("run", "mean", "compare")
ISA_DTYPES = ("float32", "float16", "bfloat16", "float64")
ISA_GROUPS = tuple((kind, dtype) for kind in ISA_KINDS for dtype in ISA_DTYPES)


def isa_group(kind: str, dtype: str) -> int:
    """The index in ISA_GROUPS of the level ``dtype``'s ``kind`` kernels run."""
    return ISA_GROUPS.index((kind, dtype if dtype in ISA_DTYPES else ISA_DTYPES[0]))
