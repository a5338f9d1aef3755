"""How bad func strings, missing files/symbols, compile errors and failing kernels are reported."""
import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs
from npusim.errors import (AotFileNotFoundError, AotKernelError, AotSymbolError, KernelBuildError,
                           KernelRuntimeError, NpusimError, OpTypeError, OpValueError, UnsupportedError)

from aot_test_support import kernel_source, make_backend

X = np.ones((2, 2), np.float32)


@pytest.mark.parametrize("func", [None, 3, lambda: 0, b"add.so:CustomAdd"])
def test_func_must_be_a_str(func):
    with pytest.raises(TypeError, match="'func' must be of type str"):
        make_backend(func, name="op")


@pytest.mark.parametrize("func", ["add.so", "add.so:Custom:Add", ":CustomAdd", "add.so:", ""])
def test_func_must_be_file_colon_name(func):
    with pytest.raises(OpTypeError, match="'func' should be like 'file_name:func_name'"):
        make_backend(func)


def test_cuda_source_is_unsupported():
    with pytest.raises(UnsupportedError, match="CUDA"):
        make_backend("add.cu:CustomAdd")


def test_unknown_file_kind():
    with pytest.raises(OpValueError, match=r"\.so library or a \.cc/\.cpp source"):
        make_backend("add.py:CustomAdd")


def test_missing_library_names_the_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    backend = make_backend("./nothing_here.so:CustomAdd")
    with pytest.raises(FileNotFoundError, match="nothing_here.so") as caught:
        backend.launch([X, X], CallAttrs(), [(2, 2)], ["float32"])
    assert isinstance(caught.value, AotFileNotFoundError) and str(tmp_path) in str(caught.value)


def test_missing_source_names_the_path():
    with pytest.raises(AotFileNotFoundError, match="nothing_here.cc"):
        make_backend("/no/such/dir/nothing_here.cc:CustomAdd")


def test_path_resolves_against_cwd_at_construction(build_so, monkeypatch, tmp_path):
    library = build_so("seed_add.cc")
    monkeypatch.chdir(library.parent)
    backend = make_backend(f"{library.name}:CustomAdd")
    monkeypatch.chdir(tmp_path)
    (out,) = backend.launch([X, X], CallAttrs(), [(2, 2)], ["float32"])
    np.testing.assert_array_equal(out, 2 * X)


def test_missing_symbol_names_file_and_symbol():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomSubtract")
    with pytest.raises(AotSymbolError, match=r"seed_add.*\.so.*'CustomSubtract'"):
        backend.launch([X, X], CallAttrs(), [(2, 2)], ["float32"])


def test_not_a_library(tmp_path):
    fake = tmp_path / "fake.so"
    fake.write_text("not an ELF file")
    backend = make_backend(f"{fake}:CustomAdd")
    with pytest.raises(NpusimError, match="cannot load"):
        backend.launch([X, X], CallAttrs(), [(2, 2)], ["float32"])


def test_compile_error_carries_compiler_output():
    with pytest.raises(KernelBuildError, match=r"broken\.cc.*error") as caught:
        make_backend(kernel_source("broken.cc") + ":CustomBroken")
    assert "undeclared_name" in str(caught.value) or "expected" in str(caught.value)


def test_non_zero_return_carries_the_code_and_names_the_op():
    backend = make_backend(kernel_source("failing.cc") + ":CustomReturnSeven", name="SevenOp")
    with pytest.raises(AotKernelError, match=r"SevenOp.*CustomReturnSeven.*returned 7") as caught:
        backend.launch([X], CallAttrs(), [(2, 2)], ["float32"])
    assert caught.value.code == 7
    assert isinstance(caught.value, RuntimeError)


def test_init_non_zero_return():
    backend = make_backend(kernel_source("failing.cc") + ":CustomInitFails")
    with pytest.raises(AotKernelError, match="CustomInitFailsInit") as caught:
        backend.launch([X], CallAttrs(), [(2, 2)], ["float32"])
    assert caught.value.code == 3


def test_cpp_exception_from_kernel():
    backend = make_backend(kernel_source("failing.cc") + ":CustomThrows")
    with pytest.raises(KernelRuntimeError, match="boom from the kernel"):
        backend.launch([X], CallAttrs(), [(2, 2)], ["float32"])
    with pytest.raises(KernelRuntimeError, match="boom from the kernel"):  # and again: state stays usable
        backend.launch([X], CallAttrs(), [(2, 2)], ["float32"])


def test_output_count_mismatch():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    with pytest.raises(OpValueError, match="2 output shapes but 1 output dtypes"):
        backend.launch([X, X], CallAttrs(), [(2, 2), (2, 2)], ["float32"])


def test_negative_output_extent():
    backend = make_backend(kernel_source("seed_add.cc") + ":CustomAdd")
    with pytest.raises(OpValueError, match="negative"):
        backend.launch([X, X], CallAttrs(), [(-1, 2)], ["float32"])
