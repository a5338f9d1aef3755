"""Fixtures for the AICPU tests: the test kernel library (built once per session, cached across sessions by
content hash) and a factory for AicpuBackend objects with MindSpore-style reg info."""
from __future__ import annotations

from pathlib import Path

import pytest

from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR, TEST_LIBRARY_NAME, OpRunner, reg_info
from npusim.custom.backends.aicpu import AicpuBackend
from npusim.custom.backends.base import OpDesc


@pytest.fixture(scope="session")
def test_library(tmp_path_factory) -> Path:
    """libnpusim_test_kernels.so (cann_style_kernels.cc + ms_style_kernels.cc) in a temporary directory."""
    out = tmp_path_factory.mktemp("aicpu_libs") / f"lib{TEST_LIBRARY_NAME}.so"
    sources = [KERNEL_DIR / "cann_style_kernels.cc", KERNEL_DIR / "ms_style_kernels.cc"]
    return build_kernel_library(sources, out).path


@pytest.fixture
def on_lib_path(monkeypatch, test_library):
    """NPUSIM_AICPU_LIB_PATH points at the test library's directory."""
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(test_library.parent))
    return test_library


@pytest.fixture
def make_op():
    """make_op(op_name, n_inputs, n_outputs, attrs=(), library=None) -> OpRunner.

    library: the cust_aicpu default (None: no cust_aicpu attribute, i.e. the built-in library)."""
    def factory(op_name, n_inputs, n_outputs, attrs=(), library=None, rows=()):
        attrs = list(attrs)
        if library is not None:
            attrs.append(("cust_aicpu", "str", library))
        desc = OpDesc(func=None, name=op_name, reg_info=reg_info(op_name, n_inputs, n_outputs, attrs, rows),
                      device_target="Ascend", func_type="aicpu")
        return OpRunner(AicpuBackend(desc))
    return factory
