"""Kernels written the way public MindSpore / canndev AICPU kernels are (a class header including
"cpu_ops_kernel.h", "kernel_log.h", <securec.h>, Eigen::half and Eigen::TensorMap, the inc/ context/ cpu_kernel/
include paths, AICPU_* / CUST_KERNEL_* macros) compile unmodified against npusim's headers and run correctly."""
import numpy as np
import pytest

import aicpu_loader
from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR
from npusim.errors import AicpuParamInvalidError

LIBRARY = "real_style_kernels"


@pytest.fixture(scope="module")
def real_style_library(tmp_path_factory):
    assert aicpu_loader.eigen_include_dirs(), "Eigen 3.4 headers missing: the declared dependency cmeel-eigen"
    out = tmp_path_factory.mktemp("real_style") / f"lib{LIBRARY}.so"
    return build_kernel_library([KERNEL_DIR / "scale_shift_kernel.cc", KERNEL_DIR / "neg_ms_kernel.cc"], out).path


@pytest.fixture
def real_style_op(make_op, monkeypatch, real_style_library):
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(real_style_library.parent))
    return lambda name, n_in, n_out, attrs=(): make_op(name, n_in, n_out, attrs=attrs, library=LIBRARY)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("size", [10, 4096])
def test_scale_shift_matches_numpy(real_style_op, dtype, size):
    op = real_style_op("ScaleShift", 1, 1, [("scale", "float"), ("shift", "listFloat")])
    x = np.linspace(-3, 3, size).astype(dtype).reshape(-1, 2)
    (y,) = op([x], [x.shape], [dtype], scale=1.5, shift=[0.25, -0.5, 2.0])
    shift = np.resize(np.array([0.25, -0.5, 2.0], np.float32), size).reshape(x.shape)
    expected = (x.astype(np.float32) * np.float32(1.5) + shift).astype(dtype)
    assert y.shape == x.shape and y.dtype == x.dtype
    np.testing.assert_array_equal(y, expected)


def test_scale_shift_rejects_other_types_with_its_log(real_style_op):
    op = real_style_op("ScaleShift", 1, 1, [("scale", "float"), ("shift", "listFloat")])
    with pytest.raises(AicpuParamInvalidError) as info:
        op([np.ones(3, np.int32)], [(3,)], ["int32"], scale=1.0, shift=[0.0])
    assert any("unsupported data type [DT_INT32]" in line for line in info.value.log_lines)
    with pytest.raises(AicpuParamInvalidError) as info:
        op([np.ones(3, np.float32)], [(3,)], ["float32"], shift=[0.0])  # "scale" missing: NormalCheck fails
    assert any("attribute 'scale'" in line for line in info.value.log_lines)


def test_ms_style_kernel_under_both_names(real_style_op):
    x = np.arange(-5, 300, dtype=np.float32)
    for name in ("NegMs", "CustNegMs"):
        op = real_style_op(name, 1, 1)
        (y,) = op([x], [x.shape], ["float32"])
        np.testing.assert_array_equal(y, -x)
        (line,) = op.backend.last_log_lines
        assert line.startswith("[INFO] neg_ms_kernel.cc:") and line.endswith("negated 305 values")
