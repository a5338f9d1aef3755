"""``from te import tik`` / ``from tbe import tik``: TIK is not provided yet, and says so with a typed ImportError."""
import sys

import pytest

from npusim.errors import TikUnsupportedError, UnsupportedError


@pytest.mark.parametrize("package", ["te", "tbe"])
def test_importing_tik_raises_a_typed_import_error(package):
    sys.modules.pop(f"{package}.tik", None)
    with pytest.raises(TikUnsupportedError, match=rf"{package}\.tik: TIK kernels are not supported yet") as info:
        __import__(f"{package}.tik")
    assert isinstance(info.value, ImportError) and isinstance(info.value, UnsupportedError)


def test_the_rest_of_the_surface_still_imports_after_a_failed_tik_import():
    with pytest.raises(ImportError):
        from tbe import tik  # noqa: F401
    import tbe.dsl
    assert callable(tbe.dsl.vadd)
