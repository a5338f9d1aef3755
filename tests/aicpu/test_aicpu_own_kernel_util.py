"""A kernel library that ships its own copy of canndev's utils/kernel_util.cc (FormatToSerialString, IsEmptyTensor,
DTypeStr, NormalCheck ...) links with npusim's runtime, loads, and its kernels run its copies; also when it ships
its own utils/kernel_util.h next to its kernels (issue 11, item 8)."""
import shutil
import subprocess

import numpy as np
import pytest

import aicpu_loader
from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR
from npusim.errors import AicpuParamInvalidError

OWN_DIR = KERNEL_DIR / "own_kernel_util"
LIBRARY = "own_kernel_util"
HELPERS = ["FormatToSerialString", "IsEmptyTensor", "DTypeStr", "DType", "NormalCheck", "NormalMathCheck",
           "IsScalar", "IsSquareMatrix", "AddrAlignedCheck", "CheckTensorTypeSame", "CheckTensorShapeSame"]


def _library_with_own_util(directory):
    return build_kernel_library([directory / "own_util_kernels.cc", directory / "utils" / "kernel_util.cc"],
                                directory / "lib" / f"lib{LIBRARY}.so").path


@pytest.fixture(scope="module", params=["own_source", "own_source_and_header"])
def own_util_library(request, tmp_path_factory):
    """The library built from the checked-in sources (its kernel_util.cc compiled against npusim's header), or
    from a copy that also has its own utils/kernel_util.h beside the kernels."""
    tree = tmp_path_factory.mktemp(request.param)
    shutil.copytree(OWN_DIR / "utils", tree / "utils", ignore=shutil.ignore_patterns("*.h"))
    shutil.copy(OWN_DIR / "own_util_kernels.cc", tree)
    if request.param == "own_source_and_header":
        shutil.copy(OWN_DIR / "shipped_header" / "utils" / "kernel_util.h", tree / "utils")
    return _library_with_own_util(tree)


@pytest.fixture
def own_op(make_op, monkeypatch, own_util_library):
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(own_util_library.parent))
    return lambda name, n_in, n_out, rows=(): make_op(name, n_in, n_out, library=LIBRARY, rows=rows)


def _describe(op, *inputs) -> str:
    (text,) = op(list(inputs), [(-1,)], ["uint8"])
    return text.tobytes().decode()


def test_runtime_helpers_are_weak_symbols():
    """What makes the link work: the runtime archive's copies of the helpers yield to a library's own."""
    archive = aicpu_loader.build.runtime_archive()
    listing = subprocess.run(["nm", "-C", "-g", "--defined-only", str(archive)], check=True, capture_output=True,
                             text=True).stdout
    for name in HELPERS:
        kinds = {line.split()[1] for line in listing.splitlines()
                 if f"aicpu::{name}(" in line or f"aicpu::{name}[" in line}
        assert kinds == {"W"}, (name, kinds)


def test_kernels_run_the_library_copies(own_op):
    op = own_op("DescribeTensor", 1, 1)
    assert _describe(op, np.ones((3, 3), np.float32)) == "DT_FLOAT|ND|data|square|round-trips"
    assert _describe(op, np.array(7, np.int64)) == "DT_INT64|ND|data|scalar|round-trips"
    assert _describe(op, np.ones((2, 5), np.uint16)) == "DT_UINT16|ND|data|matrix|round-trips"
    # the library's DTypeStr has no name for complex64 (npusim's does): its copy is the one that ran
    assert _describe(op, np.ones(4, np.complex64)) == "DT_UNDEFINED|ND|data|vector|one-way"


def test_format_from_reg_info_reaches_the_library_copy(own_op):
    op = own_op("DescribeTensor", 1, 1, rows=[(("float32", "NCHW"), ("uint8", "DefaultFormat"))])
    assert _describe(op, np.ones((1, 2, 3, 4), np.float32)) == "DT_FLOAT|NCHW|data|higher|round-trips"


def test_library_normal_check_semantics_apply(own_op):
    """The library's NormalCheck wants at least one input (npusim's own wants exactly one)."""
    op = own_op("DescribeTensor", 2, 1)
    assert _describe(op, np.zeros(2, np.int8), np.zeros(3, np.float32)) == "DT_INT8|ND|data|vector|round-trips"
    with pytest.raises(AicpuParamInvalidError) as info:
        own_op("DescribeTensor", 0, 1)([], [(-1,)], ["uint8"])
    assert "own kernel_util: [DescribeTensor] needs at least 1 inputs, got 0." in info.value.log_lines[0]


def test_library_type_and_shape_checks(own_op):
    op = own_op("SameShapeSum", 2, 1)
    a, b = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)
    (y,) = op([a, b], [(4,)], ["float32"])
    np.testing.assert_array_equal(y, a + b)
    with pytest.raises(AicpuParamInvalidError) as info:
        op([a.astype(np.int32), b], [(4,)], ["float32"])
    assert info.value.log_lines[0].endswith("own kernel_util: SameShapeSum: x0 is DT_INT32, not DT_FLOAT.")
    assert info.value.log_lines[1].endswith("[SameShapeSum] type check failed.")
    with pytest.raises(AicpuParamInvalidError) as info:
        op([a, b[:3]], [(4,)], ["float32"])
    assert info.value.log_lines[0].endswith("own kernel_util: SameShapeSum: x1 is shaped (3), not (4).")
