"""``ops.Custom(func_type="aot")`` on CPU: user C/C++ kernels called through MindSpore's C ABI.  (On Ascend, a func
naming an aclnn operator goes to :mod:`npusim.custom.backends.aot_aclnn` instead: see ``AotBackend.__new__``.)

``func`` is ``"path:func_name"``; the path is resolved against the working directory when the op is built.
``.so`` files are used as they are, ``.cc``/``.cpp`` sources are compiled then (cached, see
:mod:`npusim.aot.compile`), ``.cu`` needs CUDA and is refused.  The library is loaded on first use; optional
``<func>Init`` and ``<func>InferShape`` functions are found next to ``<func>``.

Kernels whose library starts threads of its own run in the aot worker process (:mod:`npusim.aot.isolated`), so
that a crash on one of their threads ends the worker, not the interpreter; the others run in-process behind the
bridge's crash guard.  ``NPUSIM_AOT_ISOLATION=always|never|auto`` overrides that choice (:mod:`npusim.aot.threads`).
"""
from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from npusim.aot.attrs import fixed_reg_info_attrs
from npusim.aot.compile import SOURCE_SUFFIXES, compile_source
from npusim.aot.isolated import WORKER_RESOURCE, AotWorker, IsolatedKernel
from npusim.aot.library import bridge, load_library
from npusim.aot.threads import ISOLATION_ENV, isolation_mode
from npusim.custom.backends.base import Backend, CallAttrs, OpDesc
from npusim.errors import OpTypeError, OpValueError, UnsupportedError

#: MindSpore's default dtype, used for outputs of an op with no inputs when out_dtype is None.
DEFAULT_DTYPE_NAME = "float32"
#: runtime caches: loaded libraries by path, and the compiler's version text (probed once)
LIBRARIES_CACHE, LIBRARIES_ENTRIES = "aot.libraries", 256
VERSIONS_CACHE, VERSIONS_ENTRIES = "aot.compiler_versions", 4


class AotBackend(Backend):
    """Runs one aot kernel function; see the module docstring for what ``desc.func`` may name."""

    can_infer = True

    def __new__(cls, desc: OpDesc = None, runtime=None):
        """On Ascend, a func naming an aclnn operator (``"aclnnMul"``, ``"Mul"``, ``"infer.cc:aclnnMul"``, the aclop
        form) builds the backend of npusim.custom.backends.aot_aclnn instead; anything else is a host kernel."""
        if cls is AotBackend and desc is not None and desc.device_target == "Ascend":
            from npusim.custom.backends import aot_aclnn_func
            if aot_aclnn_func.names_operator(desc.func):
                from npusim.custom.backends.aot_aclnn import AclnnAotBackend
                return AclnnAotBackend(desc, runtime)
        return super().__new__(cls)

    def __init__(self, desc: OpDesc, runtime=None):
        super().__init__(desc, runtime)
        file_name, self.func_name = _split_func(desc.func)
        self.library_path = _library_path(os.path.abspath(file_name), desc.name,
                                          self.runtime.cache(VERSIONS_CACHE, VERSIONS_ENTRIES))
        self._fixed_attrs = fixed_reg_info_attrs(desc.reg_info, desc.name)
        self._kernel = None  # npusim.aot._bridge.AotKernel, created on first use

    def infer(self, in_shapes: Sequence[tuple], in_dtypes: Sequence[str],
              attrs: CallAttrs) -> tuple[list[tuple], list[str]]:
        """Output shape from ``<func>InferShape``; dtype = the first input's (MindSpore's default)."""
        shape = self.kernel().infer_shape(list(in_shapes), list(in_dtypes), attrs)
        if not len(in_dtypes):
            return [shape], [DEFAULT_DTYPE_NAME]
        first = in_dtypes[0]
        return [shape], [first if isinstance(first, str) else np.dtype(first).name]

    def launch(self, inputs: list[np.ndarray], attrs: CallAttrs,
               out_shapes: list[tuple], out_dtypes: list[str], runtime=None) -> list[np.ndarray]:
        """Call the kernel on ``inputs`` (read in place when C-contiguous); returns fresh outputs
        (uninitialised, as MindSpore's device memory is, until the kernel writes them).  Raises AotKernelError
        (with ``.code``) when the kernel returns non-zero and AotKernelCrash when it crashes."""
        kernel = self._kernel if self._kernel is not None else self.kernel()
        return kernel.launch(inputs if type(inputs) is list else list(inputs), attrs,
                             out_shapes if type(out_shapes) is list else list(out_shapes),
                             out_dtypes if type(out_dtypes) is list else list(out_dtypes))

    def kernel(self):
        """The loaded kernel (library opened and functions looked up on the first call): a bridge AotKernel, or
        an IsolatedKernel run by the runtime's aot worker for libraries that start threads."""
        if self._kernel is None:
            library = load_library(self.library_path, self.desc.name,
                                   self.runtime.cache(LIBRARIES_CACHE, LIBRARIES_ENTRIES))
            mode = isolation_mode(self.desc.name)
            reason = {"always": f"{ISOLATION_ENV}=always", "never": ""}.get(mode, library.threads)
            if reason:
                library.require(self.func_name, self.desc.name)
                self._kernel = IsolatedKernel(self.runtime.resource(WORKER_RESOURCE, AotWorker), self.desc.name,
                                              library.path, self.func_name, self._fixed_attrs, reason)
                return self._kernel
            self._kernel = bridge().AotKernel(
                self.desc.name, library.path, self.func_name,
                library.require(self.func_name, self.desc.name),
                library.symbol(self.func_name + "Init"),
                library.symbol(self.func_name + "InferShape"),
                library.cxx11_abi, self._fixed_attrs)
        return self._kernel


def _split_func(func) -> tuple[str, str]:
    """("path", "func_name") from "path:func_name", with MindSpore's TypeErrors for anything else."""
    if not isinstance(func, str):
        raise OpTypeError(f"For 'Custom' (func_type='aot'), 'func' must be of type str, "
                          f"but got {type(func).__name__}")
    parts = func.split(":")
    if len(parts) != 2 or not parts[0] or not parts[1]:
        raise OpTypeError(f"For 'Custom', 'func' should be like 'file_name:func_name', but got {func!r}")
    return parts[0], parts[1]


def _library_path(path: str, op_name: str, versions) -> str:
    """The shared library to load for ``path``: itself for ``.so``, the compiled library for sources."""
    lowered = path.lower()
    if lowered.endswith(".cu"):
        raise UnsupportedError(f"Custom op '{op_name}': '{path}' is a CUDA source; npusim runs aot kernels on "
                               "the CPU and has no CUDA compiler (give a .cc/.cpp source or a .so instead)")
    if lowered.endswith(SOURCE_SUFFIXES):
        return str(compile_source(path, versions=versions))
    if lowered.endswith(".so") or ".so." in os.path.basename(lowered):
        return path
    raise OpValueError(f"Custom op '{op_name}': the aot file must be a .so library or a .cc/.cpp source, "
                       f"but got '{path}'")
