"""Loading aot kernel libraries: ``dlopen``, symbol lookup, the library's std::string ABI, whether it starts
threads (:mod:`npusim.aot.threads`) and whether it needs a GPU this machine lacks.

Libraries are opened ``RTLD_NOW | RTLD_LOCAL`` once per process and never closed: kernels' AotKernelData
objects keep pointers into them.  Note that, as with ``dlopen`` itself, rebuilding a library in place under the
same path is not seen by a process that already loaded it; auto-compiled kernels get a new path per content.

A library linked (directly or through its dependencies) against the CUDA runtime is refused with
AotCudaUnavailableError unless the runtime reports a device: without one its CUDA calls fail, and kernels that
ignore the error codes hand back uninitialised outputs.
"""
from __future__ import annotations

import glob
import mmap
import os
from dataclasses import dataclass
from pathlib import Path

from npusim.aot.elf import read_dynamic_info
from npusim.aot.threads import thread_reason
from npusim.errors import (AotCudaUnavailableError, AotFileNotFoundError, AotLoadError, AotSymbolError,
                           UnsupportedError)

try:
    from npusim.aot import _bridge
except ImportError as _import_error:  # the Cython extension was not built
    _bridge = None
    _BRIDGE_IMPORT_ERROR = _import_error

#: Weak variable defined by npusim's custom_aot_extra.h: the value of _GLIBCXX_USE_CXX11_ABI of the library.
ABI_MARKER_SYMBOL = "npusim_aot_cxx11_abi"
#: Mangled-name prefixes of the old (copy-on-write) std::string's members; a library built with
#: _GLIBCXX_USE_CXX11_ABI=0 that uses std::string imports some of them (e.g. ``_ZNSs4_Rep10_M_destroy``).
COW_STRING_SYMBOL_PREFIXES = (b"_ZNSs", b"_ZNKSs")
#: CUDA libraries (DT_NEEDED name prefixes) and entry points that make a library a CUDA one
CUDA_LIBRARY_PREFIXES = ("libcudart", "libcuda.", "libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse",
                         "libnvrtc")
CUDA_ENTRY_POINTS = ("cudaGetDeviceCount", "cudaMalloc", "cudaLaunchKernel", "cuInit")
#: device nodes of the NVIDIA driver (used when the library has no cudaGetDeviceCount to ask)
NVIDIA_DEVICE_GLOB = "/dev/nvidia[0-9]*"


@dataclass(frozen=True)
class KernelLibrary:
    """One loaded kernel library.

    path: resolved file path.  handle: the dlopen handle.  cxx11_abi: whether its std::string is the C++11
    one (False: the copy-on-write one of -D_GLIBCXX_USE_CXX11_ABI=0).  threads: why it can start threads of
    its own ("" if it cannot).
    """

    path: str
    handle: int
    cxx11_abi: bool
    threads: str = ""

    def symbol(self, name: str) -> int:
        """Address of the function ``name``, or 0 if the library does not define it."""
        return _bridge.find_symbol(self.handle, name)

    def require(self, name: str, op_name: str) -> int:
        """Address of the function ``name``; AotSymbolError naming the file and symbol if absent."""
        address = self.symbol(name)
        if address == 0:
            raise AotSymbolError(f"Custom op '{op_name}': the aot library '{self.path}' has no function "
                                 f"'{name}' (is it declared extern \"C\" and exported?)")
        return address


def bridge():
    """The compiled call bridge (npusim.aot._bridge); UnsupportedError if it was not built."""
    if _bridge is None:
        from npusim.util.checkout import unbuilt_advice  # says which npusim was imported and what to do (issue 11)
        raise UnsupportedError(f"npusim's aot call bridge (npusim.aot._bridge) is not built: {unbuilt_advice()} "
                               f"({_BRIDGE_IMPORT_ERROR})")
    return _bridge


def load_library(path, op_name: str, loaded=None) -> KernelLibrary:
    """The library at ``path``, loaded on first use; AotFileNotFoundError / AotLoadError on failure.  ``loaded``:
    a cache (a runtime's BoundedCache) of libraries by resolved path; None loads (dlopen shares the handle)."""
    resolved = Path(path).resolve()
    key = str(resolved)
    library = None if loaded is None else loaded.get(key)
    if library is not None:
        return library
    if not resolved.is_file():
        raise AotFileNotFoundError(f"Custom op '{op_name}': the aot library '{resolved}' does not exist")
    try:
        handle = bridge().open_library(key)
    except OSError as error:
        raise AotLoadError(f"Custom op '{op_name}': cannot load the aot library '{resolved}': {error}") from error
    _refuse_cuda_without_gpu(handle, key, op_name)
    library = KernelLibrary(path=key, handle=handle, cxx11_abi=_detect_cxx11_abi(handle, resolved),
                            threads=thread_reason(key, bridge().loaded_object_paths()))
    return library if loaded is None else loaded.put(key, library)


def _refuse_cuda_without_gpu(handle: int, path: str, op_name: str) -> None:
    """AotCudaUnavailableError when the library uses the CUDA runtime and no GPU answers."""
    needed = [name for name in read_dynamic_info(path).needed if name.startswith(CUDA_LIBRARY_PREFIXES)]
    entry = next((name for name in CUDA_ENTRY_POINTS if _bridge.find_symbol(handle, name)), None)
    if not needed and entry is None:
        return
    provider = (os.path.basename(_bridge.symbol_origin(_bridge.find_symbol(handle, entry))) if entry
                else needed[0])
    count_fn = _bridge.find_symbol(handle, "cudaGetDeviceCount")
    if count_fn:
        status, count = _bridge.cuda_device_count(count_fn)
        if status == 0 and count > 0:
            return
        detail = f"cudaGetDeviceCount returned error {status} and {count} devices"
    else:
        if glob.glob(NVIDIA_DEVICE_GLOB):
            return
        detail = "no /dev/nvidia* device"
    raise AotCudaUnavailableError(
        f"Custom op '{op_name}': the aot library '{path}' is linked against the CUDA runtime ({provider}), but "
        f"this machine has no usable NVIDIA GPU ({detail}); its CUDA calls would fail and leave the outputs "
        "uninitialised. npusim runs aot kernels on the CPU: build the kernel without CUDA (a .cc/.cpp source or "
        "a CPU .so), or run it where a GPU is available")


def _detect_cxx11_abi(handle: int, path: Path) -> bool:
    """The library's std::string ABI: the header's marker if present, else whether it imports COW symbols.

    Libraries that use no std::string at all are reported as C++11 ABI, which is then irrelevant: only
    ``Attr<std::string>`` moves a string across the boundary in a layout that depends on the ABI.
    """
    marker = _bridge.find_symbol(handle, ABI_MARKER_SYMBOL)
    if marker:
        return _bridge.read_c_int(marker) != 0
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as image:
        return not any(image.find(prefix) >= 0 for prefix in COW_STRING_SYMBOL_PREFIXES)
