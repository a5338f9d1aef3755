"""The compat layer (te / tbe / topi / impl served from te_compat) is installed for every test of this directory and
left as it was found afterwards; the chip selection is reset after each test."""
import pytest

from npusim.compat import aliases


@pytest.fixture(autouse=True, scope="module")
def compat_layer():
    was_installed = aliases.installed()
    aliases.install()
    yield
    if not was_installed:
        aliases.uninstall()


@pytest.fixture(autouse=True)
def default_chip():
    from npusim.sim import set_chip
    from te_compat.surface.platform import compile_soc_info
    set_chip(None)
    yield
    set_chip(None)
    compile_soc_info.core_type = compile_soc_info.aicore_num = compile_soc_info.l1_fusion = None


@pytest.fixture
def tensor_dict():
    """A CANN input/output dict."""
    def make(shape, dtype="float16", fmt="ND"):
        return {"shape": list(shape), "dtype": dtype, "format": fmt, "ori_shape": list(shape), "ori_format": fmt}
    return make
