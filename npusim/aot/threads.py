"""Which aot kernels run in a separate process: those whose library starts threads of its own.

A crash on a thread the kernel started cannot be turned into an error in-process (the guard of
``csrc/fault_guard.h`` can only unwind the thread that called the kernel; the other threads, an OpenMP team for
instance, would keep running on freed memory).  So a library that can start threads is run by the aot worker
(:mod:`npusim.aot.isolated`): a crash there ends only the worker.

A library "starts threads" when it, or a library it names that is not part of the C/C++ runtime, imports one of
the thread-creating entry points below or links an OpenMP/TBB runtime.  ``NPUSIM_AOT_ISOLATION`` overrides the
decision for every kernel: ``always`` (every aot kernel runs in the worker), ``never`` (none does), ``auto``
(the default).
"""
from __future__ import annotations

import os

from npusim.aot.elf import read_dynamic_info
from npusim.errors import OpValueError

ISOLATION_ENV = "NPUSIM_AOT_ISOLATION"
ISOLATION_MODES = ("auto", "always", "never")

#: imported symbols (exact names or prefixes ending in "*") that start threads
THREAD_ENTRY_POINTS = (
    "pthread_create", "thrd_create", "clone", "clone3",
    "_ZNSt6thread15_M_start_thread*",     # std::thread (and std::jthread, std::async's launch::async)
    "GOMP_parallel*", "GOMP_task*", "GOMP_teams*",   # GCC OpenMP
    "__kmpc_fork_call", "__kmpc_fork_teams",          # LLVM / Intel OpenMP
    "_ZN3tbb*", "_ZN5tbb*",               # oneTBB / TBB
)
#: libraries whose presence among DT_NEEDED means a threading runtime
THREAD_RUNTIME_LIBRARIES = ("libgomp", "libomp", "libiomp5", "libtbb")
#: the C/C++ runtime: they import pthread_create themselves, but call it only on the kernel's request
SYSTEM_LIBRARIES = ("libc.so", "libm.so", "libstdc++", "libgcc_s", "ld-linux", "libpthread", "libdl.so",
                    "librt.so", "libc++", "libc++abi", "libunwind", "libatomic")


def isolation_mode(op_name: str) -> str:
    """``$NPUSIM_AOT_ISOLATION`` (default "auto"); OpValueError naming the variable for anything else."""
    mode = os.environ.get(ISOLATION_ENV, "auto").strip().lower() or "auto"
    if mode not in ISOLATION_MODES:
        raise OpValueError(f"Custom op '{op_name}': {ISOLATION_ENV}={mode!r} is not one of "
                           f"{', '.join(ISOLATION_MODES)}")
    return mode


def thread_reason(path: str, loaded_paths=()) -> str:
    """Why the library at ``path`` can start threads ("" if it cannot, as far as its ELF files tell).

    ``loaded_paths``: paths of the shared objects loaded in this process, used to find the files of the
    libraries ``path`` names (DT_NEEDED); those that are not the C/C++ runtime are read too, transitively.
    """
    by_name = {os.path.basename(p): p for p in loaded_paths if p}
    pending, seen = [path], set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        info = read_dynamic_info(current)
        label = os.path.basename(current)
        for name in info.imports:
            if _matches(name):
                return f"{label} imports {_demangled_hint(name)}"
        for needed in info.needed:
            if needed.startswith(THREAD_RUNTIME_LIBRARIES):
                return f"{label} links the threading runtime {needed}"
            if not needed.startswith(SYSTEM_LIBRARIES) and needed in by_name:
                pending.append(by_name[needed])
    return ""


def _matches(symbol: str) -> bool:
    for entry in THREAD_ENTRY_POINTS:
        if entry.endswith("*") and symbol.startswith(entry[:-1]) or symbol == entry:
            return True
    return False


def _demangled_hint(symbol: str) -> str:
    if symbol.startswith("_ZNSt6thread"):
        return "std::thread"
    if symbol.startswith(("GOMP_", "__kmpc_")):
        return f"OpenMP ({symbol})"
    if symbol.startswith(("_ZN3tbb", "_ZN5tbb")):
        return "TBB"
    return symbol
