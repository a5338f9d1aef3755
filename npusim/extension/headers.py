"""Where the compiler finds the headers a ``CustomOpBuilder`` source includes, and npusim's default flags.

npusim ships MindSpore's extension headers (``ms_extension.h``, ``ms_extension/api.h``, ``custom_op_api.h`` ...)
in ``npusim/extension/include``; they use pybind11 (the PyPI ``pybind11`` package's headers) and Python's C API.
"""
from __future__ import annotations

import os
import sysconfig

#: npusim's copy of MindSpore's extension headers (``ms_extension.h`` and friends)
INCLUDE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "include")

#: the flags every extension is compiled with, before the backend's and the user's (MindSpore's defaults)
DEFAULT_CFLAGS = ("-D_GLIBCXX_USE_CXX11_ABI=0", "-std=c++17", "-fPIC")


def pybind11_include_dir() -> str:
    """The ``pybind11`` package's header directory."""
    import pybind11
    return pybind11.get_include()


def python_include_dir() -> str:
    """Python's C API header directory (``Python.h``)."""
    return sysconfig.get_paths()["include"]


def include_dirs() -> list[str]:
    """The include directories of every extension, searched in this order before the user's ``include_paths``:
    npusim's extension headers, pybind11's, Python's."""
    return [INCLUDE_DIR, pybind11_include_dir(), python_include_dir()]


def default_cflags() -> list[str]:
    """MindSpore's default compiler flags: the pre-C++11 libstdc++ ABI, C++17, position-independent code."""
    return list(DEFAULT_CFLAGS)


__all__ = ["INCLUDE_DIR", "DEFAULT_CFLAGS", "include_dirs", "default_cflags", "pybind11_include_dir",
           "python_include_dir"]
