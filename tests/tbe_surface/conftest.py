"""The compat layer (te / tbe / topi / impl served from te_compat) is installed for every test of this directory and
left as it was found afterwards (the default target is reset after each test by tests/conftest.py)."""
import pytest

from npusim.compat import aliases


@pytest.fixture(autouse=True, scope="module")
def compat_layer():
    was_installed = aliases.installed()
    aliases.install()
    yield
    if not was_installed:
        aliases.uninstall()


@pytest.fixture
def tensor_dict():
    """A CANN input/output dict."""
    def make(shape, dtype="float16", fmt="ND"):
        return {"shape": list(shape), "dtype": dtype, "format": fmt, "ori_shape": list(shape), "ori_format": fmt}
    return make
