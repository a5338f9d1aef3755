"""``lower_scalar``: a TVM TE graph -> an npusim kernel running it on the scalar pipe (one ``tvm_call``)."""
from __future__ import annotations

import warnings

from npusim.errors import SimulatorError
from npusim.errors.tbe import TbeArgumentError, TbeBuildError
from npusim.sim.dtypes import canonical_dtype
from npusim.sim.kernel import BufRef, Kernel, Param
from te_compat.objects import dtype_of, raw_tree


class ScalarPipeWarning(UserWarning):
    """A TBE compute runs on the AI core's scalar unit (no vector instructions): correct, but slow."""


def lower_scalar(outs, tensor_list, name: str, reason: str, runtime=None) -> Kernel:
    """Build ``name``: a kernel whose parameters are ``tensor_list`` (placeholders and outputs, in order, as GM
    tensors of their shapes and dtypes) and whose body is one ``tvm_call`` running the whole TE graph of ``outs``
    compiled by TVM/LLVM (into ``runtime``'s program cache; None: built, not cached — the first launch compiles
    it again).  Warns :class:`ScalarPipeWarning` naming the kernel and ``reason``.

    Raises TbeArgumentError for a tensor list that does not describe the graph (an output missing, a symbolic
    dimension, a dtype npusim has no GM tensors of) and TbeBuildError when TVM cannot build the program.
    """
    from npusim.sim.isa.tvm_call import program_kernel
    from npusim.sim.isa.tvm_call.program import load_program
    from npusim.sim.isa.tvm_call.text import program_text_and_func
    outs, tensor_list = raw_tree(outs), raw_tree(tensor_list)  # surface wrappers accepted
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    tensors = list(tensor_list) if isinstance(tensor_list, (list, tuple)) else [tensor_list]
    params = _params(name, outs, tensors)
    func = _prim_func(name, tensors)
    try:
        text, parsed = program_text_and_func(func)
        # build now: errors surface at build time; the first launch hits the cache
        load_program(text, None if runtime is None else runtime.store.sim.programs, parsed)
    except SimulatorError as exc:
        raise TbeBuildError(f"kernel '{name}': the scalar-pipe program cannot be built: {exc.cause}") from None
    kernel = program_kernel(name, text, params, tuple(BufRef(p.name) for p in params))
    warnings.warn(ScalarPipeWarning(
        f"kernel '{name}' runs on the scalar pipe: {reason}. npusim compiled its TVM compute with TVM/LLVM as one "
        f"scalar-unit program (no vector instructions); its cycle estimate counts every element's operations and "
        f"memory accesses on the scalar unit"), stacklevel=2)
    return kernel


def _params(name: str, outs: list, tensors: list) -> tuple:
    if not tensors:
        raise TbeArgumentError(f"kernel '{name}': tensor_list is empty")
    for position, tensor in enumerate(tensors):
        if any(tensor.same_as(other) for other in tensors[:position]):
            raise TbeArgumentError(f"kernel '{name}': tensor '{tensor.op.name}' appears twice in tensor_list (an "
                                   "output that is an input placeholder itself computes nothing)")
    for out in outs:
        if not any(out.same_as(t) for t in tensors):
            raise TbeArgumentError(f"kernel '{name}': output tensor '{out.op.name}' is not in tensor_list")
    from te_compat.graph import extract
    for node in extract(outs).placeholders:
        if not any(node.tensor.same_as(t) for t in tensors):
            raise TbeArgumentError(f"kernel '{name}': input placeholder '{node.name}' is not in tensor_list")
    params, used = [], set()
    for tensor in tensors:
        shape = []
        for dim in tensor.shape:
            if type(dim).__name__ != "IntImm":
                raise TbeArgumentError(f"kernel '{name}': tensor '{tensor.op.name}' has the symbolic dimension "
                                       f"{dim}; npusim compiles per concrete shape")
            shape.append(int(dim))
        try:
            dtype = canonical_dtype(dtype_of(tensor))
        except SimulatorError:
            raise TbeArgumentError(f"kernel '{name}': tensor '{tensor.op.name}' has dtype {dtype_of(tensor)}, which "
                                   "the simulated GM cannot hold") from None
        params.append(Param(_unique(str(tensor.op.name), used), "gm", dtype, tuple(shape)))
    return tuple(params)


def _unique(base: str, used: set) -> str:
    name, count = base, 1
    while name in used:
        name, count = f"{base}_{count}", count + 1
    used.add(name)
    return name


def _prim_func(name: str, tensors: list):
    from tvm import te
    try:
        return te.create_prim_func(tensors)
    except Exception as exc:  # TVM raises TVMError/ValueError for graphs it cannot turn into TIR
        raise TbeBuildError(f"kernel '{name}': TVM cannot make a prim func of the compute: {exc}") from None
