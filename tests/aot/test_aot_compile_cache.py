"""The g++ compile cache: location, reuse, invalidation, atomic replacement."""
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

from npusim.aot import compile as aot_compile

from aot_test_support import KERNEL_DIR


def test_cache_dir_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path))
    assert aot_compile.cache_dir() == tmp_path / "aot"
    monkeypatch.delenv("NPUSIM_CACHE_DIR")
    assert str(aot_compile.cache_dir()).endswith(os.path.join(".cache", "npusim", "aot"))


def test_same_source_is_compiled_once(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "add.cc"
    shutil.copy(KERNEL_DIR / "seed_add.cc", source)
    first = aot_compile.compile_source(source)
    stamp = first.stat().st_mtime_ns
    again = aot_compile.compile_source(source)
    assert again == first and again.stat().st_mtime_ns == stamp
    assert first.parent == tmp_path / "cache" / "aot"
    assert not [p for p in first.parent.iterdir() if p.name.endswith(".tmp")]


def test_changed_source_or_header_gets_a_new_library(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "add.cc"
    shutil.copy(KERNEL_DIR / "seed_add.cc", source)
    first = aot_compile.compile_source(source)
    source.write_text(source.read_text() + "\n// edited\n")
    second = aot_compile.compile_source(source)
    (tmp_path / "helper.h").write_text("// a header beside the source\n")
    third = aot_compile.compile_source(source)
    assert len({first, second, third}) == 3


def test_concurrent_compiles_of_one_source(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    source = tmp_path / "add.cc"
    shutil.copy(KERNEL_DIR / "seed_add.cc", source)
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: aot_compile.compile_source(source), range(2)))
    assert results[0] == results[1] and results[0].is_file()
    assert [p.name for p in results[0].parent.iterdir()] == [results[0].name]
