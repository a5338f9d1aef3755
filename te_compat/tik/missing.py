"""TIK APIs npusim's instruction set cannot run yet: each raises TikInstructionUnsupportedError naming what the
simulator lacks, instead of an AttributeError a kernel author would take for a typo."""
from __future__ import annotations

from npusim.errors.tik import TikInstructionUnsupportedError

#: TIK API -> what the simulator lacks for it
MISSING = {
    "vtranspose": "a 16x16 transpose instruction",
    "vnchwconv": "the scatter-transpose instruction (vnchwconv / vec_trans_scatter)",
    "vec_trans_scatter": "the scatter-transpose instruction (vnchwconv / vec_trans_scatter)",
    "vcgadd": "the per-block reductions (vcgadd / vcgmax / vcgmin)",
    "vcgmax": "the per-block reductions (vcgadd / vcgmax / vcgmin)",
    "vcgmin": "the per-block reductions (vcgadd / vcgmax / vcgmin)",
    "vcpadd": "the pairwise add instruction",
    "matmul": "TIK's matmul lowering (L1 [K1,M,K0] layouts to L0A/L0B fractals)",
    "fixpipe": "the L1OUT -> GM fixpipe move",
    "load2dv1": "TIK's load2d lowering",
    "load3dv1": "an img2col (load3d) move",
    "mmad": "TIK's mmad operand lowering (the ISA's mmad is there; load2dv1 is not)",
}


def _missing(name: str, lacks: str):
    def method(self, *args, **kwargs):
        raise TikInstructionUnsupportedError(f"tik_instance.{name} is not supported by npusim yet: the simulator "
                                             f"has no {lacks}")
    method.__name__ = name
    method.__doc__ = f"TIK ``{name}``: not supported yet (the simulator has no {lacks})."
    return method


class MissingMixin:
    """The TIK APIs of :data:`MISSING`, each raising TikInstructionUnsupportedError."""


for _name, _lacks in MISSING.items():
    setattr(MissingMixin, _name, _missing(_name, _lacks))

__all__ = ["MISSING", "MissingMixin"]
