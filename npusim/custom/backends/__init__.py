"""The one place func_types map to backend classes.

Values are "module:Class" strings so a backend's heavy imports (TVM, compilers) only happen when it is used.
"""
import importlib

BACKENDS = {
    "pyfunc": "npusim.custom.backends.pyfunc:PyfuncBackend",
    "aot": "npusim.custom.backends.aot:AotBackend",
    "hybrid": "npusim.custom.backends.hybrid:HybridBackend",
    "akg": "npusim.custom.backends.hybrid:AkgBackend",
    "tbe": "npusim.custom.backends.tbe:TbeBackend",
    "aicpu": "npusim.custom.backends.aicpu:AicpuBackend",
    "julia": "npusim.custom.backends.unsupported:JuliaBackend",
}


def backend_class(func_type: str):
    """The backend class registered for ``func_type`` (which must be a key of BACKENDS)."""
    module_name, class_name = BACKENDS[func_type].split(":")
    return getattr(importlib.import_module(module_name), class_name)
