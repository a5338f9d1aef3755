"""The cube tests build into a private kernel cache and working directory, on the chip each test selects."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_cube_env(isolated_kernel_env):
    """tests/conftest.py's isolated_kernel_env, on the Ascend target."""
    from mindspore import context
    context.set_context(device_target="Ascend")
    return isolated_kernel_env
