"""``from te import tik`` / ``from tbe import tik`` / ``te.tik`` / ``tbe.tik``: TIK is served (it used to raise
TikUnsupportedError); the same module whichever way it is imported."""
import importlib

import pytest

import te_compat.tik


@pytest.mark.parametrize("package", ["te", "tbe"])
def test_importing_tik_gives_the_tik_surface(package):
    module = importlib.import_module(f"{package}.tik")
    assert module.Tik is te_compat.tik.Tik
    assert module.scope_ubuf == "local.UB" and module.scope_gm == "global"
    for name in ("Tik", "Dprofile", "all", "any", "scope_cbuf", "scope_ca", "scope_cb", "scope_cc"):
        assert hasattr(module, name), name


def test_from_package_import_tik_and_the_rest_of_the_surface_still_imports():
    from tbe import tik as tbe_tik
    from te import tik as te_tik
    assert tbe_tik.Tik is te_tik.Tik
    import tbe.dsl
    assert callable(tbe.dsl.vadd)


def test_tik_unsupported_error_is_still_exported_for_old_callers():
    from npusim.errors import TikUnsupportedError, UnsupportedError
    assert issubclass(TikUnsupportedError, ImportError) and issubclass(TikUnsupportedError, UnsupportedError)
