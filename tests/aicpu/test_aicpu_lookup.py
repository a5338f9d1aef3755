"""cust_aicpu X → libX.so: NPUSIM_AICPU_LIB_PATH in order, npusim's lib directory, MindSpore-style lib/ and
lib/ascend/ of the compatibility package; never the working directory; a rebuilt library is picked up."""
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from aicpu_loader import build, build_kernel_library, lookup
from npusim.errors import AicpuLibraryNotFoundError

ANSWER_SOURCE = r"""
#include "cpu_kernel.h"
#include "status.h"
namespace aicpu {
namespace { const char *kAnswer = "Answer"; }
class AnswerKernel : public CpuKernel {
 public:
  uint32_t Compute(CpuKernelContext &ctx) override {
    *static_cast<int64_t *>(ctx.Output(0)->GetData()) = ANSWER;
    return KERNEL_STATUS_OK;
  }
};
REGISTER_CPU_KERNEL(kAnswer, AnswerKernel);
}  // namespace aicpu
"""


def _copy(library: Path, directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / f"lib{name}.so"
    shutil.copy2(library, target)
    return target


def test_env_directories_are_searched_in_order(test_library, monkeypatch, tmp_path):
    a = _copy(test_library, tmp_path / "a", "foo")
    b = _copy(test_library, tmp_path / "b", "foo")
    monkeypatch.setenv(lookup.ENV_VAR, f"{a.parent}{os.pathsep}{b.parent}")
    assert lookup.find_library("foo") == a
    monkeypatch.setenv(lookup.ENV_VAR, f"{os.pathsep}{b.parent}{os.pathsep}{a.parent}")
    assert lookup.find_library("foo") == b


def test_env_directory_overrides_npusim_default_library(test_library, monkeypatch, tmp_path):
    override = _copy(test_library, tmp_path / "override", lookup.DEFAULT_NAME)
    monkeypatch.setenv(lookup.ENV_VAR, str(override.parent))
    assert lookup.find_library(lookup.DEFAULT_NAME) == override
    monkeypatch.delenv(lookup.ENV_VAR)
    assert lookup.find_library(lookup.DEFAULT_NAME) == build.default_library().resolve()


def test_working_directory_is_never_searched(test_library, monkeypatch, tmp_path):
    _copy(test_library, tmp_path, "in_cwd")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(lookup.ENV_VAR, os.pathsep)  # empty entries must not mean "."
    with pytest.raises(AicpuLibraryNotFoundError) as info:
        lookup.find_library("in_cwd")
    assert str(tmp_path) not in [str(p) for p in info.value.searched]


def test_mindspore_style_lib_and_ascend_dirs(test_library, monkeypatch, tmp_path):
    package = tmp_path / "mindspore"
    monkeypatch.setattr(lookup, "compat_lib_dirs", lambda: [package / "lib", package / "lib" / "ascend"])
    monkeypatch.delenv(lookup.ENV_VAR, raising=False)
    in_ascend = _copy(test_library, package / "lib" / "ascend", "bar")
    assert lookup.find_library("bar") == in_ascend
    in_lib = _copy(test_library, package / "lib", "bar")
    assert lookup.find_library("bar") == in_lib


def test_compat_dirs_are_inside_the_mindspore_package():
    import npusim.ms
    package = Path(npusim.ms.__file__).parent
    dirs = lookup.compat_lib_dirs()
    assert dirs[:2] == [package / "lib", package / "lib" / "ascend"]


def test_user_library_in_temp_dir_is_found_and_rebuilds_are_reloaded(make_op, monkeypatch, tmp_path):
    source = tmp_path / "answer_kernel.cc"
    source.write_text(ANSWER_SOURCE)
    out = tmp_path / "libs" / "libanswer.so"
    monkeypatch.setenv(lookup.ENV_VAR, str(out.parent))
    op = make_op("Answer", 1, 1, library="answer")
    for answer in (41, 42):
        build_kernel_library([source], out, defines=[f"ANSWER={answer}"])
        (y,) = op([np.zeros(1)], [(1,)], ["int64"])
        assert y[0] == answer, "the worker must not keep serving the library it loaded before the rebuild"
