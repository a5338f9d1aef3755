"""Helpers shared by the aot tests (a uniquely named module, so imports never meet another area's conftest)."""
import os
from pathlib import Path

from npusim.custom.backends.aot import AotBackend
from npusim.custom.backends.base import OpDesc

KERNEL_DIR = Path(__file__).resolve().parent / "kernels"


def make_backend(func, reg_info=None, name=None):
    """An AotBackend as ops.Custom would build it."""
    return AotBackend(OpDesc(func=func, name=name or str(func), reg_info=reg_info, device_target="CPU",
                             func_type="aot"))


def kernel_source(name):
    """Absolute path of a kernel source under tests/aot/kernels."""
    return os.fspath(KERNEL_DIR / name)
