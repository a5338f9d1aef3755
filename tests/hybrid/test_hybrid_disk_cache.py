"""Issue 11 item 20: compiled hybrid kernels are kept on disk ($NPUSIM_CACHE_DIR/hybrid), so a new process loads
them instead of compiling again; entries survive concurrent writers, and a corrupt entry is rebuilt."""
import os
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from npusim.errors.cache import CacheWarning
from npusim.hybrid import kernel
from npusim.hybrid.compile import TARGET, KernelCache
from npusim.hybrid.disk_cache import FOOTER_BYTES, DiskCache, entry_is_sound
from npusim.hybrid.source import load_source

USER_SCRIPT = Path(__file__).resolve().parent / "kernels" / "cached_user_script.py"


@kernel
def scale_add(a, b):
    c = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        c[i] = a[i] * 2.0 + b[i]
    return c


def _run_script(cache_root):
    env = dict(os.environ, NPUSIM_CACHE_DIR=str(cache_root))
    result = subprocess.run([sys.executable, str(USER_SCRIPT)], env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


def _compile(directory, shape=(8,)):
    cache = KernelCache(disk=DiskCache(TARGET, directory))
    compiled = cache.get_compiled(load_source(scale_add), [shape, shape], ["float32", "float32"])
    a, b = np.arange(shape[0], dtype=np.float32), np.ones(shape, np.float32)
    np.testing.assert_allclose(compiled.run([a, b])[0], a * 2 + b)
    return cache.disk


def _entries(directory):
    return sorted(p for p in Path(directory).iterdir() if p.suffix == ".so" and not p.name.startswith("."))


def test_a_second_process_loads_the_kernel_instead_of_compiling(tmp_path):
    assert _run_script(tmp_path) == "compiles=1 loads=0"
    assert len(_entries(tmp_path / "hybrid")) == 1
    assert _run_script(tmp_path) == "compiles=0 loads=1"


def test_a_new_signature_is_a_new_entry(tmp_path):
    first = _compile(tmp_path)
    second = _compile(tmp_path, shape=(16,))
    assert (first.compiles, second.compiles, second.loads) == (1, 1, 0)
    assert len(_entries(tmp_path)) == 2


@pytest.mark.parametrize("damage", ["truncated", "flipped byte", "empty", "garbage"])
def test_a_corrupt_entry_is_rebuilt(tmp_path, damage):
    _compile(tmp_path)
    (entry,) = _entries(tmp_path)
    data = entry.read_bytes()
    corrupt = {"truncated": data[:len(data) // 2],
               "flipped byte": data[:100] + bytes([data[100] ^ 0xFF]) + data[101:],
               "empty": b"",
               "garbage": b"not a shared library" * 10}[damage]
    entry.write_bytes(corrupt)
    rebuilt = _compile(tmp_path)
    assert (rebuilt.compiles, rebuilt.loads) == (1, 0)
    assert entry.read_bytes() != corrupt and len(entry.read_bytes()) > FOOTER_BYTES
    reloaded = _compile(tmp_path)
    assert (reloaded.compiles, reloaded.loads) == (0, 1)


def test_concurrent_writers_of_one_kernel(tmp_path):
    with ThreadPoolExecutor(max_workers=2) as pool:
        lines = list(pool.map(lambda _: _run_script(tmp_path), range(2)))
    assert all(line in ("compiles=1 loads=0", "compiles=0 loads=1") for line in lines), lines
    (entry,) = _entries(tmp_path / "hybrid")
    assert entry_is_sound(entry)
    assert not [p for p in entry.parent.iterdir() if p.name.startswith(".")]   # no temporary files left


def test_an_unwritable_cache_keeps_the_kernel_in_memory_with_one_warning(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a regular file where the cache directory should go")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        disk = _compile(blocker / "hybrid")
        _compile(blocker / "hybrid", shape=(4,))
    assert disk.compiles == 1
    messages = [str(w.message) for w in caught if issubclass(w.category, CacheWarning)]
    assert len(messages) == 2 and "compiled again in every process" in messages[0]
