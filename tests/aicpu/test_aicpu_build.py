"""Building kernels: the CANN-named headers, `npusim aicpu` commands, the content-hash cache, Eigen::half, and
linking by hand with the published flags."""
import subprocess
from pathlib import Path

import numpy as np
import pytest

import aicpu_loader
from aicpu_loader import build_kernel_library
from aicpu_test_support import KERNEL_DIR
from npusim.aicpu_cli import aicpu_main
from npusim.errors import AicpuBuildError

HEADERS = ["cpu_kernel.h", "cpu_context.h", "cpu_tensor.h", "cpu_tensor_shape.h", "cpu_attr_value.h", "cpu_types.h",
           "cpu_kernel_utils.h", "cpu_kernel_register.h", "cust_cpu_utils.h", "log.h", "status.h", "securec.h",
           "utils/kernel_util.h", "inc/ms_cpu_kernel.h", "inc/kernel_log.h", "context/inc/cpu_kernel_utils.h",
           "context/common/status.h", "cpu_ops_kernel.h", "kernel_log.h", "common/kernel_errcode.h",
           "cpu_kernel/inc/cpu_ops_kernel.h", "cpu_kernel/common/status.h", "securec/include/securec.h"]

# Uses standard names that real kernels expect to arrive through the API headers alone.
TRANSITIVE_SOURCE = r"""
#include "cpu_kernel.h"
namespace {
std::unordered_map<std::string, std::vector<int64_t>> table;
std::map<int, std::function<uint32_t(aicpu::CpuKernelContext &)>> calls;
std::shared_ptr<int> pointer;
}
"""

# What MindSpore kernels use after including only "utils/kernel_util.h" (its kernel_log.h brings <iostream> etc.).
KERNEL_UTIL_SOURCE = r"""
#include "utils/kernel_util.h"
namespace aicpu {
uint32_t Check(CpuKernelContext &ctx) {
  std::cout << GetTid() << FmtToStr(kFormatNC1HWC0IndexC0) << std::endl;
  AICPU_CHK_STATUS_RET(NormalCheck(ctx, kDynamicInput, kDynamicOutput))
  KERNEL_CHECK_FALSE(FloatEqual(1.0f, 1.0f), KERNEL_STATUS_PARAM_INVALID, "%s", "never")
  CUST_KERNEL_CHECK_NULLPTR(ctx, ctx.Input(0), KERNEL_STATUS_PARAM_INVALID, "no input")
  RETURN_IF_FAILURE(CpuKernelUtils::ParallelFor(ctx, 4, 1, [](int64_t, int64_t) {}));
  return kAicpuKernelStateSucess;
}
}  // namespace aicpu
"""


def test_cann_named_headers_exist_and_compile_together(tmp_path):
    include = Path(aicpu_loader.get_include())
    assert all((include / h).is_file() for h in HEADERS)
    source = tmp_path / "all_headers.cc"
    source.write_text("".join(f'#include "{h}"\n' for h in HEADERS) + TRANSITIVE_SOURCE)
    subprocess.run(["g++", *aicpu_loader.get_compile_flags(), "-fsyntax-only", str(source)], check=True)
    util_source = tmp_path / "kernel_util_only.cc"
    util_source.write_text(KERNEL_UTIL_SOURCE)
    subprocess.run(["g++", *aicpu_loader.get_compile_flags(), "-fsyntax-only", str(util_source)], check=True)


def test_cli_prints_include_and_link_flags(capsys):
    assert aicpu_main(["include"]) == 0
    dirs = capsys.readouterr().out.split()
    assert dirs[0] == aicpu_loader.get_include() and (Path(dirs[0]) / "cpu_kernel.h").is_file()
    assert aicpu_main(["ldflags"]) == 0
    flags = capsys.readouterr().out.split()
    archive = Path(flags[flags.index("-Wl,--whole-archive") + 1])
    assert "-shared" in flags and archive.is_file() and archive.suffix == ".a"
    assert aicpu_main(["cflags"]) == 0 and "-std=c++17" in capsys.readouterr().out
    assert aicpu_main(["bogus"]) == 2


def test_cli_build_then_cache_hit(tmp_path, capsys, test_library):
    sources = [str(KERNEL_DIR / "cann_style_kernels.cc"), str(KERNEL_DIR / "ms_style_kernels.cc")]
    out = tmp_path / "libcli_kernels.so"
    assert aicpu_main(["build", *sources, "-o", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"{out} (cached)", "same sources as the session library"
    assert out.is_file()
    assert aicpu_main(["list", str(out)]) == 0
    assert {"AttrEcho", "Crash", "ParallelCover"} <= set(capsys.readouterr().out.split())


def test_header_edit_triggers_rebuild(tmp_path, make_op, monkeypatch):
    (tmp_path / "value.h").write_text("#define VALUE 3\n")
    source = tmp_path / "value_kernel.cc"
    source.write_text(r'''
#include "cpu_kernel.h"
#include "status.h"
#include "value.h"
namespace aicpu {
namespace { const char *kValue = "Value"; }
class ValueKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    *static_cast<int64_t *>(ctx.Output(0)->GetData()) = VALUE;
    return KERNEL_STATUS_OK;
  }
};
REGISTER_CPU_KERNEL(kValue, ValueKernel);
}
''')
    out = tmp_path / "lib" / "libvalue.so"
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(out.parent))
    op = make_op("Value", 1, 1, library="value")
    first = build_kernel_library([source], out)
    (tmp_path / "value.h").write_text("#define VALUE 4\n")
    second = build_kernel_library([source], out)
    third = build_kernel_library([source], out)
    assert not second.from_cache and third.from_cache
    assert op([np.zeros(1)], [(1,)], ["int64"])[0][0] == 4
    assert first.path == second.path == out


def test_build_failure_reports_compiler_output(tmp_path, capsys):
    bad = tmp_path / "bad_kernel.cc"
    bad.write_text('#include "cpu_kernel.h"\nthis is not C++;\n')
    with pytest.raises(AicpuBuildError, match="bad_kernel.cc") as info:
        build_kernel_library([bad], tmp_path / "libbad.so")
    assert "error" in str(info.value)
    assert aicpu_main(["build", str(bad), "-o", str(tmp_path / "libbad.so")]) == 1
    assert "bad_kernel.cc" in capsys.readouterr().err
    with pytest.raises(AicpuBuildError, match="not found"):
        build_kernel_library([tmp_path / "missing.cc"])


def test_link_by_hand_with_published_flags(tmp_path, make_op, monkeypatch):
    out = tmp_path / "libhand.so"
    cmd = ["g++", *aicpu_loader.get_compile_flags(), str(KERNEL_DIR / "cann_style_kernels.cc"), "-o", str(out),
           *aicpu_loader.get_link_flags()]
    subprocess.run(cmd, check=True)
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(tmp_path))
    (count,) = make_op("FreshObject", 1, 1, library="hand")([np.zeros(1)], [(1,)], ["int64"])
    assert count[0] == 1


def test_eigen_half_kernel_builds_and_runs(tmp_path, make_op, monkeypatch):
    assert aicpu_loader.eigen_include_dirs(), "Eigen 3.4 headers missing: the declared dependency cmeel-eigen"
    out = tmp_path / "libhalf_kernels.so"
    build_kernel_library([KERNEL_DIR / "eigen_half_kernel.cc"], out)
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(tmp_path))
    x = np.array([0.5, -1.25, 3.0, 100.0], np.float16)
    (y,) = make_op("HalfAffine", 1, 1, library="half_kernels")([x], [x.shape], ["float16"])
    np.testing.assert_array_equal(y, x * np.float16(2) + np.float16(1))


def test_install_build_refuses_to_ship_a_library_without_kernels(tmp_path, monkeypatch):
    from aicpu_loader import build
    monkeypatch.setattr(build, "DEFAULT_KERNEL_DIR", tmp_path / "ops" / "aicpu")  # e.g. an sdist without ops/aicpu
    with pytest.raises(AicpuBuildError, match="no kernel sources"):
        build.build_install_artifacts(tmp_path / "lib")
    assert not (tmp_path / "lib").exists()
