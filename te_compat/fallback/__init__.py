"""The scalar-pipe fallback: any TVM compute -> an npusim kernel of one TVM-compiled instruction.

A TBE graph the scheduler cannot map to vector instructions (``concat``, ``transpose``, a user's untagged
``tvm.compute`` ...) still runs: :func:`lower_scalar` turns it into a kernel whose single ``tvm_call``
instruction (pipe S, see :mod:`npusim.sim.isa.tvm_call`) carries the TVMScript text of
``tvm.te.create_prim_func(tensor_list)``.  The simulator compiles that text with TVM/LLVM and prices it as the
AI core's scalar unit would run it, element by element - far slower than the vector unit, which the
:class:`ScalarPipeWarning` each build emits says.
"""
from te_compat.fallback.lower import ScalarPipeWarning, lower_scalar

__all__ = ["ScalarPipeWarning", "lower_scalar"]
