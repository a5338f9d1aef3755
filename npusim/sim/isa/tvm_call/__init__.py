"""The ``tvm_call`` instruction (pipe S): a whole TVM-compiled program run by the AI core's scalar unit.

This is how npusim runs computations it cannot map to vector instructions (a TBE ``tvm.compute`` the scheduler
does not recognise, an akg/hybrid kernel on device_target "Ascend"): the program is TIR, carried in the kernel
as TVMScript text, compiled once per text with TVM/LLVM (:mod:`.program`), and priced as the scalar unit would
run it element by element (:mod:`.pricing`).

Operands:
  ``program``  the TVMScript text of one ``T.prim_func`` (see :func:`.text.program_text`);
  ``args``     a tuple with one entry per prim-func parameter, in order: a GM tensor operand (BufRef) for a
               buffer parameter, a scalar expression for a number parameter.

Semantics: the function runs on numpy views of the GM tensors (no copies unless a tensor is less aligned than
the compiled code assumes).  Each view starts at the operand's element offset and holds exactly the buffer's
elements; the view must lie inside the GM argument (checked at every run) and the buffer's dtype must match the
operand's.  Indices inside the program that TVM cannot prove in bounds are checked at run time (:mod:`.guards`).
Every block of a launch runs the whole program; the kernels npusim builds around it have one block.  On a chip in
saturation mode the float buffers the program writes are saturated after it runs (inf -> ±max, NaN -> 0); values
inside the program stay IEEE.

Cost: ``alu_ops * alu_cycles + mem_accesses * mem_cycles`` on pipe S (chip ``scalar_costs``), counts from
:mod:`.pricing`; the trace record's units are the pair ``(alu_ops, mem_accesses)``.

Only the compile step imports TVM: importing the ISA table stays cheap.
"""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError, OutOfBoundsError, SimulatorError
from npusim.sim.checks import Site, check_access
from npusim.sim.dtypes import NUMPY_DTYPES, cast_scalar
from npusim.sim.expr import Const, evaluator
from npusim.sim.isa.context import CompileContext
from npusim.sim.isa.saturate import saturate, saturator_for
from npusim.sim.isa.spec import CompiledInstr, InstrSpec, InstrStatic, OperandSpec
from npusim.sim.isa.tvm_call.text import OPCODE, program_kernel, program_text
from npusim.sim.kernel import BufRef

COST_KIND = "scalar_program"
# "args" is a tuple of tensor operands and scalar expressions: its own kind ("args"), which the KernelBuilder
# passes through unchecked (the compile step checks each entry against the program's parameters).
OPERANDS = (OperandSpec("program", "name"), OperandSpec("args", "args"))


def short_text(text, args) -> str:
    """How the instruction is shown in traces and messages (the program itself is too long)."""
    from npusim.sim.isa.tvm_call.program import text_sha256
    lines = text.count("\n") + 1 if isinstance(text, str) else 0
    sha = text_sha256(text)[:12] if isinstance(text, str) else "?"
    names = ", ".join(a.buffer if isinstance(a, BufRef) else repr(a) for a in args) if isinstance(args, tuple) \
        else repr(args)
    return f"tvm_call(program=<TVMScript {sha}, {lines} lines>, args=[{names}])"


def compile_tvm_call(instr, spec, kc: CompileContext) -> CompiledInstr:
    from npusim.sim.isa.tvm_call.program import load_program
    text, args = instr.arg("program"), instr.arg("args")
    site = Site(kc.kernel.name, kc.site.instr_index, short_text(text, args))
    kc.at(site)
    try:
        program = load_program(text, kc.caches.programs)
    except SimulatorError as exc:
        raise exc.locate(kernel=site.kernel, instr_index=site.instr_index, operands=site.text)
    if not isinstance(args, tuple) or len(args) != len(program.params):
        given = len(args) if isinstance(args, tuple) else repr(args)
        raise kc.fail(InvalidOperandError, f"the program takes {len(program.params)} argument(s) "
                                           f"({', '.join(p.name for p in program.params)}), got {given}")
    binders = tuple(_tensor_binder(kc, p, a, i) if p.kind == "buffer" else _scalar_binder(kc, p, a)
                    for i, (p, a) in enumerate(zip(program.params, args)))
    static = InstrStatic(site.instr_index, spec.opcode, "S", spec.cost_kind, spec.cost_key, text=site.text)
    record = (site.instr_index, (program.alu_ops, program.mem_accesses))
    function = program.function
    saturated = tuple(i for i in sorted(program.written) if saturator_for(kc.chip, program.params[i].dtype))

    def run(ctx):
        values, copies = [], []
        for binder in binders:
            binder(ctx, values, copies)
        _call(function, values, site)
        for position in saturated:  # the chip's overflow mode applies to what the program wrote
            written = values[position]
            fixed = saturate(written)
            if fixed is not written:  # saturate returns its input when all is finite: nothing to copy back
                written[...] = fixed
        for copy, view in copies:
            if not np.array_equal(copy, view):
                view[...] = copy
        ctx.append(record)

    return CompiledInstr(static, run)


def _tensor_binder(kc: CompileContext, param, arg, position: int):
    op = kc.tensor(f"args[{position}]", arg, ("GM",))
    if op.dtype != param.dtype:
        raise kc.fail(InvalidOperandError, f"args[{position}] {op.buffer} is {op.dtype} but the program's "
                                           f"{param.name} is {param.dtype}")
    _check_declared_shape(kc, param, arg, op, position)
    shape, size, align, site, key, base = param.shape, param.size_elems, param.align_bytes, kc.site, op.key, op.base
    start = evaluator(base)

    def bind(ctx, values, copies):
        first = start(ctx.env)
        high = ctx.gm_hi[key]
        if first < 0 or first + size > high:
            check_access(site, f"args[{position}]", op.buffer, first, first + size - 1, 0, high)
        view = ctx.views[key][first:first + size].reshape(shape)
        if view.ctypes.data % align:
            copy = _aligned_copy(view, align)
            copies.append((copy, view))
            view = copy
        values.append(view)

    return bind


def _check_declared_shape(kc: CompileContext, param, arg: BufRef, op, position: int) -> None:
    """A whole GM tensor (offset 0, no reinterpretation) must have the program's shape; a part of one must fit."""
    declared = kc.kernel.param(op.buffer)
    if not declared.shape:
        return
    offset = op.base.value if isinstance(op.base, Const) else None
    if offset == 0 and arg.dtype is None:
        if tuple(declared.shape) != param.shape:
            raise kc.fail(InvalidOperandError, f"args[{position}] {op.buffer} has shape {tuple(declared.shape)} "
                                               f"but the program's {param.name} has shape {param.shape}")
        return
    elems = declared.size_elems * np.dtype(NUMPY_DTYPES[declared.dtype]).itemsize // op.isz
    if offset is not None and not 0 <= offset <= elems - param.size_elems:
        raise kc.fail(OutOfBoundsError, f"args[{position}] {op.buffer} holds {elems} {op.dtype} elements; the "
                                        f"program's {param.name} needs {param.size_elems} from element {offset}")


def _scalar_binder(kc: CompileContext, param, arg):
    if isinstance(arg, BufRef):
        raise kc.fail(InvalidOperandError, f"the program's {param.name} is a {param.dtype} number, got tensor "
                                           f"{arg.buffer}")
    value = evaluator(kc.expr(arg))
    dtype = param.dtype if param.dtype in NUMPY_DTYPES else None

    def bind(ctx, values, copies):
        number = value(ctx.env)
        values.append(cast_scalar(number, dtype) if dtype else number)

    return bind


def _aligned_copy(array: np.ndarray, align: int) -> np.ndarray:
    raw = np.empty(array.nbytes + align, dtype=np.uint8)
    start = (-raw.ctypes.data) % align
    copy = raw[start:start + array.nbytes].view(array.dtype).reshape(array.shape)
    copy[...] = array
    return copy


def _call(function, values: list, site: Site) -> None:
    from npusim.sim.isa.tvm_call.guards import INDEX_MESSAGE
    try:
        function(*values)
    except IndexError as exc:
        raise site.error(OutOfBoundsError, str(exc).strip()) from None
    except Exception as exc:  # TVM reports argument and guard failures as its own error classes
        message = str(exc).strip()
        cls = OutOfBoundsError if INDEX_MESSAGE in message else SimulatorError
        raise site.error(cls, f"the TVM program failed: {message}") from None


ROWS = (
    InstrSpec(OPCODE, "tvm_call", OPERANDS, compile_tvm_call, None, COST_KIND, OPCODE,
              "run a TVM-compiled scalar program (TVMScript text) over whole GM tensors on the scalar unit"),
)

__all__ = ["ROWS", "OPCODE", "program_text", "program_kernel", "short_text"]
