"""``tvm_call`` programs: TVMScript text -> a guarded, priced, LLVM-compiled function, cached per text.

:func:`load_program` parses the text (``tvm.script.from_source``), lowers it to flat loops, prices it
(:mod:`.pricing`), inserts bounds guards (:mod:`.guards`) and compiles it with ``tvm.compile(target="llvm")``.
Programs are cached in memory by the sha256 of their text (in the runtime's ``SimCaches.programs``) and,
when the environment variable ``NPUSIM_CACHE_DIR`` names a directory, as shared libraries under
``$NPUSIM_CACHE_DIR/tvm_call/`` so another process skips the LLVM build.

Parsing TVMScript evaluates the text's Python expressions: load kernel files only from sources you trust.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from npusim.errors.sim import InvalidOperandError

SYMBOL = "npusim_tvm_call"
TARGET = "llvm"
#: bump when lowering, guards or pricing change, so stale on-disk builds are not reused
PROGRAM_VERSION = 1
CACHE_DIR_ENV = "NPUSIM_CACHE_DIR"


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of the prim func: a tensor ("buffer": shape, dtype, the data alignment the compiled code
    assumes) or a number ("scalar": dtype)."""

    name: str
    kind: str
    dtype: str
    shape: tuple = ()
    align_bytes: int = 1

    @property
    def size_elems(self) -> int:
        size = 1
        for dim in self.shape:
            size *= dim
        return size


@dataclass(frozen=True)
class TvmProgram:
    """A compiled program: its parameters, its price per run (see :mod:`.pricing`), how many run-time guards
    it carries, ``function(*arrays_and_scalars)`` and which buffer parameters it writes."""

    sha256: str
    params: tuple
    alu_ops: int
    mem_accesses: int
    guards: int
    function: Callable = field(compare=False, repr=False)
    written: frozenset = frozenset()   # positions of the buffer parameters the program stores to


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_program(text: str, cache, parsed=None) -> TvmProgram:
    """The compiled program of ``text``, from ``cache`` (a BoundedCache keyed by the text's sha256, e.g. a runtime's
    ``SimCaches.programs``; None: compile without caching).  ``parsed``: the PrimFunc of ``text`` when the caller
    already has it (saves parsing again).  Raises InvalidOperandError naming what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidOperandError(f"tvm_call: program must be TVMScript text, got {type(text).__name__}")
    sha = text_sha256(text)
    program = None if cache is None else cache.get(sha)
    if program is None:
        program = build_program(text, sha, parsed)
        if cache is not None:
            program = cache.put(sha, program)
    return program


def parse_text(text: str):
    """The PrimFunc of a TVMScript text."""
    import tvm
    try:
        func = tvm.script.from_source(text)
    except Exception as exc:  # the parser reports through several error classes (DiagnosticError, TVMError ...)
        raise InvalidOperandError(f"tvm_call: the program does not parse as TVMScript: {exc}") from None
    if type(func).__name__ != "PrimFunc":
        raise InvalidOperandError(f"tvm_call: the program must be one T.prim_func, got {type(func).__name__}")
    return func


def param_specs(func) -> tuple:
    """The prim func's parameters as :class:`ParamSpec` (concrete shapes, compact buffers only)."""
    specs = []
    for param in func.params:
        kind = type(param.ty).__name__
        if kind == "BufferType":
            if any(type(d).__name__ != "IntImm" for d in param.shape) or len(param.strides):
                raise InvalidOperandError(f"tvm_call: parameter {param.name} must be a compact buffer of a "
                                          f"concrete shape, got shape {list(param.shape)}")
            specs.append(ParamSpec(str(param.name), "buffer", str(param.dtype),
                                   tuple(int(d) for d in param.shape), max(1, int(param.data_alignment))))
        elif kind == "PrimType":
            specs.append(ParamSpec(str(param.name), "scalar", str(param.ty)))
        else:
            raise InvalidOperandError(f"tvm_call: parameter {param.name} is a {kind}; only buffers and numbers "
                                      "can be passed")
    return tuple(specs)


def build_program(text: str, sha: str, parsed=None) -> TvmProgram:
    """Parse, price, guard and compile ``text`` (uncached; use :func:`load_program`)."""
    from npusim.sim.isa.tvm_call import guards, pricing, tir_walk
    func = parse_text(text) if parsed is None else parsed
    specs = param_specs(func)
    try:
        flat = tir_walk.flatten(func)
    except Exception as exc:  # TVM pass errors come as TVMError/ValueError/RuntimeError
        raise InvalidOperandError(f"tvm_call: TVM cannot lower the program: {exc}") from None
    cost = pricing.price(flat)
    guarded, count = guards.guard(flat)
    function = _compiled_function(guarded.with_attr("global_symbol", SYMBOL), sha)
    return TvmProgram(sha, specs, int(round(cost.alu_ops)), int(round(cost.mem_accesses)), count, function,
                      tir_walk.stored_params(flat))


def _disk_path(sha: str):
    root = os.environ.get(CACHE_DIR_ENV)
    if not root:
        return None
    return Path(root) / "tvm_call" / f"{sha}-v{PROGRAM_VERSION}.so"


def _compiled_function(func, sha: str) -> Callable:
    import tvm
    path = _disk_path(sha)
    if path is not None and path.is_file():
        try:
            return tvm.runtime.load_module(str(path))[SYMBOL]
        except Exception:  # a truncated or foreign file: rebuild it below
            path.unlink(missing_ok=True)
    try:
        executable = tvm.compile(tvm.IRModule({SYMBOL: func}), target=TARGET)
        function = executable[SYMBOL]
    except Exception as exc:  # TVM raises TVMError/RuntimeError/ValueError depending on the pass
        raise InvalidOperandError(f"tvm_call: compiling the program with TVM/LLVM failed: {exc}") from None
    if path is not None:
        _save(executable, path)
    return function


def _save(executable, path: Path) -> None:
    """Write the shared library atomically; a cache directory that cannot be written is simply not used."""
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        executable.export_library(str(partial))
        os.replace(partial, path)
    except (OSError, RuntimeError):  # no writable directory or no C toolchain to link with
        partial.unlink(missing_ok=True)
