"""Calling user C/C++ kernels with MindSpore's aot C ABI.

- :mod:`npusim.aot.compile`: ``.cc``/``.cpp`` → cached ``.so`` (g++).
- :mod:`npusim.aot.library`: loading a kernel library and finding its functions and string ABI.
- :mod:`npusim.aot._bridge`: the compiled call path (Cython + C++ under ``csrc/``).
- ``include/custom_aot_extra.h``: the header kernels include for ``AotExtra``.

The ``ops.Custom`` backend built on these is :class:`npusim.custom.backends.aot.AotBackend`.
"""
from pathlib import Path

#: Directory holding ``custom_aot_extra.h``; put it on the include path of kernels (g++ ``-I``).
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
