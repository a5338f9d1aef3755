"""Every te_compat.build test runs in its own working directory with its own kernel cache, on the default chip."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_build_env(isolated_kernel_env):
    """tests/conftest.py's isolated_kernel_env for every test here."""
    return isolated_kernel_env
