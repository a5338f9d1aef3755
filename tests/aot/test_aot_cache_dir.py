"""The aot source cache under an unusable NPUSIM_CACHE_DIR (issue 11, item 14): a private temporary cache with
one warning, or a typed error naming the directory — never a raw OSError from deep inside a compile."""
import os
import shutil
import tempfile
import warnings

import numpy as np
import pytest

from mindspore import Tensor, ops
from npusim.aot import compile as aot_compile
from npusim.errors import CacheDirError, CacheWarning
from npusim.util import cachedir

from aot_test_support import KERNEL_DIR


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's directory (where the fallback cache goes) moved into the test's own tmp_path."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


def _unusable(kind, tmp_path):
    if kind == "under a regular file":
        (tmp_path / "file").write_text("not a directory")
        return tmp_path / "file" / "cache"
    if kind == "read-only directory":
        if os.geteuid() == 0:            # modes do not stop root: /proc/self is a directory nobody can write
            return "/proc/self"
        directory = tmp_path / "read_only"
        directory.mkdir()
        directory.chmod(0o555)
        return directory
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "aot").write_text("a file where the aot cache should be")
    return tmp_path / "cache"


@pytest.mark.parametrize("kind", ["under a regular file", "read-only directory", "aot is a file"])
def test_an_aot_source_compiles_into_the_private_fallback_with_one_warning(kind, tmp_path, monkeypatch,
                                                                          private_tmp):
    configured = _unusable(kind, tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(configured))
    source = tmp_path / "add.cc"
    shutil.copy(KERNEL_DIR / "seed_add.cc", source)
    with warnings.catch_warnings(record=True) as seen:
        op = ops.Custom(f"{source}:CustomAdd", out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="aot")
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        np.testing.assert_array_equal(op(Tensor(x), Tensor(x)).asnumpy(), x + x)
        library = aot_compile.compile_source(source)
        assert aot_compile.cache_dir() == cachedir.fallback_base() / "aot"
    assert library.parent == cachedir.fallback_base() / "aot" and library.is_file()
    (warning,) = [w for w in seen if issubclass(w.category, CacheWarning)]
    assert str(configured) in str(warning.message) and str(private_tmp) in str(warning.message)


def test_no_usable_directory_is_a_cache_dir_error_naming_it(tmp_path, monkeypatch, private_tmp):
    configured = _unusable("under a regular file", tmp_path)
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(configured))
    cachedir.fallback_base().write_text("the fallback is taken by a file")
    source = tmp_path / "add.cc"
    shutil.copy(KERNEL_DIR / "seed_add.cc", source)
    with pytest.raises(CacheDirError) as info:
        aot_compile.compile_source(source)
    assert str(configured) in str(info.value) and str(cachedir.fallback_base()) in str(info.value)
    assert isinstance(info.value, OSError)


def test_a_usable_directory_is_used_as_is(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "fresh" / "cache"))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        assert aot_compile.cache_dir() == tmp_path / "fresh" / "cache" / "aot"
    assert (tmp_path / "fresh" / "cache" / "aot").is_dir()
