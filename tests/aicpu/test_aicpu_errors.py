"""Every failure path: crashes (the test process survives, the next call works), timeouts, status codes with the
kernel's log lines, runtime rejections, missing libraries and ops."""
import os

import numpy as np
import pytest

from aicpu_loader import worker as worker_module
from aicpu_test_support import TEST_LIBRARY_NAME
from npusim.errors import (
    AicpuInnerError, AicpuKernelCrashError, AicpuKernelError, AicpuLibraryLoadError, AicpuLibraryNotFoundError,
    AicpuOpNotFoundError, AicpuParamInvalidError, AicpuRuntimeError, AicpuStatusError, AicpuTimeoutError,
)


def _assert_next_call_works(make_op):
    op = make_op("FreshObject", 1, 1, library=TEST_LIBRARY_NAME)
    (count,) = op([np.zeros(1)], [(1,)], ["int64"])
    assert count[0] == 1


@pytest.mark.parametrize("how, signal_name, exit_status", [
    ("segv", "SIGSEGV", None), ("abort", "SIGABRT", None), ("exit", None, 7), ("thread_segv", "SIGSEGV", None)])
def test_crash_names_op_library_and_signal(make_op, on_lib_path, how, signal_name, exit_status):
    op = make_op("Crash", 1, 1, attrs=[("how", "str")], library=TEST_LIBRARY_NAME)
    pid_before = worker_module.default_worker().pid
    with pytest.raises(AicpuKernelCrashError) as info:
        op([np.zeros(1)], [(1,)], ["float32"], how=how)
    err = info.value
    assert isinstance(err, AicpuKernelError) and isinstance(err, RuntimeError)
    assert err.op_type == "Crash" and err.library == str(on_lib_path)
    assert err.signal_name == signal_name and err.exit_status == exit_status
    assert "'Crash'" in str(err) and str(on_lib_path) in str(err)
    assert (signal_name or f"status {exit_status}") in str(err)
    assert any(f"about to crash by {how}" in line for line in err.log_lines), "logs written before the crash"
    _assert_next_call_works(make_op)
    assert worker_module.default_worker().pid not in (None, pid_before)


def test_timeout_kills_worker_and_next_call_works(make_op, on_lib_path):
    op = make_op("Sleep", 1, 1, attrs=[("ms", "int")], library=TEST_LIBRARY_NAME)
    op.backend.timeout_s = 0.3
    with pytest.raises(AicpuTimeoutError, match="did not finish within 0.3 s") as info:
        op([np.zeros(1)], [(1,)], ["float32"], ms=20_000)
    assert info.value.op_type == "Sleep" and any("sleeping 20000 ms" in line for line in info.value.log_lines)
    (out,) = op([np.zeros(1)], [(1,)], ["float32"], ms=1)
    assert out.shape == (1,)


@pytest.mark.parametrize("status, error_type, name", [
    (1, AicpuParamInvalidError, "KERNEL_STATUS_PARAM_INVALID"), (2, AicpuInnerError, "KERNEL_STATUS_INNER_ERROR"),
    (5, AicpuStatusError, "KERNEL_STATUS_SHARDER_ERROR"), (77, AicpuStatusError, "status 77")])
def test_status_codes_map_to_typed_errors_with_log(make_op, on_lib_path, status, error_type, name):
    op = make_op("Fail", 1, 1, attrs=[("status", "int")], library=TEST_LIBRARY_NAME)
    with pytest.raises(error_type) as info:
        op([np.zeros(1)], [(1,)], ["float32"], status=status)
    err = info.value
    assert err.status == status and err.status_name == name and name in str(err)
    assert [line.split("]")[0] for line in err.log_lines] == ["[WARN", "[ERROR"]
    assert f"failing on purpose with status {status}" in str(err)


def test_cxx_exception_and_output_overflow_are_runtime_errors(make_op, on_lib_path):
    with pytest.raises(AicpuRuntimeError, match="thrown on purpose"):
        make_op("Throw", 1, 1, library=TEST_LIBRARY_NAME)([np.zeros(1)], [(1,)], ["float32"])
    with pytest.raises(AicpuRuntimeError, match=r"shape \[5\], which needs 20 bytes, but its buffer holds 16"):
        make_op("Overflow", 1, 1, library=TEST_LIBRARY_NAME)([np.zeros(1)], [(4,)], ["float32"])
    _assert_next_call_works(make_op)


def test_dynamic_output_left_unset_is_an_error(make_op, on_lib_path):
    op = make_op("Introspect", 1, 1, library=TEST_LIBRARY_NAME)  # writes output 0 but never sets its shape
    with pytest.raises(AicpuRuntimeError, match=r"output 0 still has shape \[-1\].*must set the shape"):
        op([np.zeros(1)], [(-1,)], ["int64"])


def test_missing_library_lists_directories_in_order(make_op, monkeypatch, tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", f"{first}{os.pathsep}{second}")
    op = make_op("Cast", 1, 1, library="no_such_kernels")
    with pytest.raises(AicpuLibraryNotFoundError) as info:
        op([np.zeros(1)], [(1,)], ["float32"])
    searched = [str(p) for p in info.value.searched]
    assert searched[:2] == [str(first), str(second)] and len(searched) >= 4
    assert searched[-1].endswith(os.path.join("lib", "ascend"))
    assert "libno_such_kernels.so" in str(info.value) and all(d in str(info.value) for d in searched)
    assert isinstance(info.value, RuntimeError)


def test_op_missing_from_library_lists_registered_ops(make_op, on_lib_path):
    op = make_op("NoSuchOp", 1, 1, library=TEST_LIBRARY_NAME)
    with pytest.raises(AicpuOpNotFoundError) as info:
        op([np.zeros(1)], [(1,)], ["float32"])
    assert {"AttrEcho", "CustAttrEcho", "Crash", "Introspect"} <= set(info.value.registered)
    assert "NoSuchOp" in str(info.value) and "AttrEcho" in str(info.value)


def test_library_without_runtime_entry_or_not_loadable(make_op, monkeypatch, tmp_path):
    (tmp_path / "libbroken.so").write_bytes(b"not an ELF file")
    monkeypatch.setenv("NPUSIM_AICPU_LIB_PATH", str(tmp_path))
    with pytest.raises(AicpuLibraryLoadError, match="libbroken.so"):
        make_op("Cast", 1, 1, library="broken")([np.zeros(1)], [(1,)], ["float32"])


def test_cust_aicpu_must_be_a_name(make_op):
    with pytest.raises(AicpuLibraryNotFoundError, match="not a path"):
        make_op("Cast", 1, 1, library="/tmp/libx")([np.zeros(1)], [(1,)], ["float32"])
