"""The operator tests build into a private kernel cache and working directory (a kernel cached by an earlier run
must not hide a build problem), on the default chip."""
import pytest


@pytest.fixture(autouse=True)
def _isolated_build_env(isolated_kernel_env):
    """tests/conftest.py's isolated_kernel_env for every test here."""
    return isolated_kernel_env
