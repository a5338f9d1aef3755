"""Compiling the C++ test extensions of tests/extension/test_cxx_*.py (npusim's ms_extension headers).

Each source in ``cxx_src/`` is compiled once per test session (``-O0``: the tests check behaviour, not speed)
with g++, npusim's include directories and MindSpore's default flags, then imported under a unique name.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig

from npusim.extension.headers import default_cflags, include_dirs

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCES = os.path.join(HERE, "cxx_src")


def compile_extension(source: str, name: str, build_dir: str, backend: str = "Ascend"):
    """Compile ``cxx_src/<source>`` into ``build_dir/<name>.so`` and import it."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    target = os.path.join(build_dir, name + suffix)
    flags = default_cflags() + ["-O0", "-shared", f"-DMS_EXTENSION_NAME={name}"]
    if backend == "Ascend":
        flags.append("-DCUSTOM_ASCEND_OP")
    command = [os.environ.get("CXX", "g++"), *flags, *[f"-I{d}" for d in include_dirs()],
               os.path.join(SOURCES, source), "-o", target]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"compiling {source} failed:\n{done.stderr[-4000:]}")
    spec = importlib.util.spec_from_file_location(name, target)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    return module


_BUILT: dict = {}


def extension(source: str, tmp_path_factory, backend: str = "Ascend"):
    """The module compiled from ``cxx_src/<source>`` (compiled at the first request of the session)."""
    key = (source, backend)
    if key not in _BUILT:
        stem = os.path.splitext(source)[0]
        build_dir = tmp_path_factory.mktemp(f"cxx_{stem}")
        _BUILT[key] = compile_extension(source, f"cxx_{stem}_{os.getpid()}", str(build_dir), backend)
    return _BUILT[key]
