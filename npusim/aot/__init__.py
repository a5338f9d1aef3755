"""Calling user C/C++ kernels with MindSpore's aot C ABI.

- :mod:`npusim.aot.compile`: ``.cc``/``.cpp`` → cached ``.so`` (g++).
- :mod:`npusim.aot.library`: loading a kernel library and finding its functions and string ABI.
- :mod:`npusim.aot._bridge`: the compiled call path (Cython + C++ under ``csrc/``): crash guard, guard bytes
  around outputs, crash notes.
- :mod:`npusim.aot.elf` / :mod:`npusim.aot.threads`: what a library links against; whether it starts threads.
- :mod:`npusim.aot.isolated` (host) / :mod:`npusim.aot.worker_main` (worker) / :mod:`npusim.aot.wire`
  (protocol): the aot worker process that runs kernels which start threads, so their crashes end only it.
- ``include/custom_aot_extra.h``: the header kernels include for ``AotExtra``.

The ``ops.Custom`` backend built on these is :class:`npusim.custom.backends.aot.AotBackend`.
"""
from pathlib import Path

#: Directory holding ``custom_aot_extra.h``; put it on the include path of kernels (g++ ``-I``).
INCLUDE_DIR = Path(__file__).resolve().parent / "include"
