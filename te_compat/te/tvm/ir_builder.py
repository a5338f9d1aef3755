"""``tvm.ir_builder`` of CANN's TVM is not available: TVM 0.27 has no IR builder to map it onto, and npusim's TBE
path lowers DSL graphs, not hand-built IR.  ``create()`` says so."""
from npusim.errors import UnsupportedError


def create():
    """Always raises :class:`~npusim.errors.UnsupportedError` (see the module docstring)."""
    raise UnsupportedError("tvm.ir_builder.create(): hand-written TVM IR (ir_builder) is not supported by npusim; "
                           "write the op with the DSL (te.lang.cce / tbe.dsl) or tvm.compute")


__all__ = ["create"]
