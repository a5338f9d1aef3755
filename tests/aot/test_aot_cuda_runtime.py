"""Issue 11 item 13: a kernel library linked against the CUDA runtime, loaded on a machine without a GPU, is
refused with a clear error (it used to run, ignore cudaErrorNoDevice and hand back uninitialised outputs)."""
import subprocess

import numpy as np
import pytest

from npusim.custom.backends.base import CallAttrs
from npusim.errors import AotCudaUnavailableError, AotLoadError

from aot_test_support import KERNEL_DIR, make_backend


@pytest.fixture(scope="module")
def cuda_kernel(tmp_path_factory):
    """libcuda_kernel.so, linked (DT_NEEDED) against a stub libcudart.so.12 beside it that reports no device."""
    out_dir = tmp_path_factory.mktemp("cuda")
    runtime = out_dir / "libcudart.so.12"
    kernel = out_dir / "libcuda_kernel.so"
    subprocess.run(["g++", "-shared", "-fPIC", "-Wl,-soname,libcudart.so.12", "-o", str(runtime),
                    str(KERNEL_DIR / "cuda_stub_runtime.cc")], check=True, capture_output=True)
    subprocess.run(["g++", "-shared", "-fPIC", "-o", str(kernel), str(KERNEL_DIR / "cuda_linked.cc"),
                    f"-L{out_dir}", "-l:libcudart.so.12", "-Wl,-rpath,$ORIGIN"], check=True, capture_output=True)
    return kernel


def test_cuda_linked_library_is_refused_without_a_gpu(cuda_kernel):
    backend = make_backend(f"{cuda_kernel}:CustomCudaCopy", name="cuda_copy")
    x = np.ones(4, np.float32)
    with pytest.raises(AotCudaUnavailableError, match=r"'cuda_copy'.*libcudart\.so\.12.*no .*GPU") as caught:
        backend.launch([x], CallAttrs(), [x.shape], ["float32"])
    assert isinstance(caught.value, AotLoadError)
    assert str(cuda_kernel) in str(caught.value)


def test_the_refusal_is_repeated_on_every_call(cuda_kernel):
    backend = make_backend(f"{cuda_kernel}:CustomCudaCopy", name="cuda_copy")
    x = np.ones(4, np.float32)
    for _ in range(2):
        with pytest.raises(AotCudaUnavailableError):
            backend.launch([x], CallAttrs(), [x.shape], ["float32"])
