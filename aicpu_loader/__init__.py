"""npusim's AICPU kernel support: CANN-named headers, the kernel runtime, builds, library lookup, the worker.

Public API::

    get_include() -> str                  # directory of cpu_kernel.h, cpu_context.h, utils/kernel_util.h ...
    get_include_dirs() -> list[str]       # that directory plus Eigen's (cmeel-eigen / libeigen3-dev), if present
    get_compile_flags() -> list[str]      # C++17/-fPIC/-I flags for compiling a kernel source
    get_link_flags() -> list[str]         # -shared + the runtime archive (built on first use)
    build_kernel_library(sources, output=None, ...) -> KernelBuild
    find_library(cust_aicpu_name) -> Path # cust_aicpu X → libX.so (see lookup.py for the search order)
    default_library() -> Path             # libmindspore_aicpu_kernels.so

Modules: build (compiling and the build cache), lookup (library search), protocol (the call encoding),
worker (the simulated AI CPU process).
"""
from __future__ import annotations

from aicpu_loader.build import (  # noqa: F401
    DEFAULT_LIBRARY_NAME,
    INCLUDE_DIR,
    KernelBuild,
    build_kernel_library,
    default_library,
    eigen_include_dirs,
    runtime_archive,
)


def get_include() -> str:
    """The directory holding npusim's CANN-named AICPU headers (pass it with -I)."""
    return str(INCLUDE_DIR)


def get_include_dirs() -> list[str]:
    """The header directory plus Eigen's include directory when Eigen is installed."""
    return [str(INCLUDE_DIR)] + [str(p) for p in eigen_include_dirs()]


def get_compile_flags() -> list[str]:
    """Compiler flags for a kernel source (C++17, -fPIC, -pthread, include directories)."""
    from aicpu_loader.build import compile_flags
    return compile_flags()


def get_link_flags() -> list[str]:
    """Linker flags that make a kernel library: -shared and npusim's runtime archive (whole, so RunCpuKernel and
    the registry come along).  Builds the runtime on first use."""
    from aicpu_loader.build import link_flags
    return link_flags()


def find_library(name: str | None):
    """Path of the library ``cust_aicpu=name`` selects (see :mod:`aicpu_loader.lookup`)."""
    from aicpu_loader.lookup import find_library as _find
    return _find(name)
