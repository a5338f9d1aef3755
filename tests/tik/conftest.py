"""Every TIK test runs in its own working directory (kernel_meta lands there) with its own kernel cache."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_tik_env(isolated_kernel_env):
    """tests/conftest.py's isolated_kernel_env for every test here."""
    return isolated_kernel_env


@pytest.fixture(params=["Ascend910", "Ascend310"])
def soc(request):
    """Each test using it runs on both SoCs real TIK kernels are written for (set as a TIK kernel sets it)."""
    from tbe.common.platform import set_current_compile_soc_info
    assert set_current_compile_soc_info(request.param) == "success"
    return request.param
