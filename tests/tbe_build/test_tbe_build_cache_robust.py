"""The TBE kernel cache under damage, contention and bad directories (issue 11, item 14): a kernel_meta JSON with
fields of the wrong type or value is rebuilt once (one warning), never an error on every relaunch; processes
building one kernel at once all succeed and leave one intact entry; an unusable NPUSIM_CACHE_DIR falls back to a
private temporary cache with one warning, or fails with a typed error naming the directory."""
import collections
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import textwrap
import traceback
import warnings

import numpy as np
import pytest
from tbe_build_support import FakeSchedule, vadd_graph

from mindspore import Tensor, ops
from npusim.errors import CacheDirError, CacheWarning, TbeLaunchError
from npusim.sim import KernelBuilder, new_runtime
from npusim.util import cachedir
from te_compat.build import ArgSpec, cce_build_code, load_built
from te_compat.build import cache
from te_compat.build.kernel_meta import write_kernel_files

PARALLEL_PROCESSES = 24
X = np.arange(256, dtype=np.float16).reshape(4, 64) / 8


def make_add(calls):
    """A Custom tbe op a + b (built with the fake schedule: cheap) that logs its builds in ``calls`` (a deque: the
    cache key counts a deque by its type only, so logging does not change the key)."""
    def add(a, b, y, kernel_name="add"):
        calls.append(kernel_name)
        data0, data1, res = vadd_graph(a["shape"], a["dtype"])
        cce_build_code(FakeSchedule([res]), {"name": kernel_name, "tensor_list": [data0, data1, res]})
    return ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe")


def run_in_new_process(op):
    """Call ``op`` as a new process would: a fresh runtime, nothing in memory (the disk cache is shared)."""
    with new_runtime().activate():
        return op(Tensor(X), Tensor(X)).asnumpy()


def entries() -> list:
    return sorted(p for p in cache.cache_root().iterdir())


def the_json():
    (entry,) = entries()
    (json_path,) = (entry / cache.META_SUBDIR).glob("*.json")
    return json_path


def cache_warnings(records) -> list:
    return [r for r in records if issubclass(r.category, CacheWarning)]


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """tempfile's directory (where the fallback cache goes) moved into the test's own tmp_path."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


# ---- damaged kernel_meta JSON ---------------------------------------------------------------------------------
def _set(field, value):
    def damage(meta):
        meta[field] = value
    return damage


def _set_shape(value):
    def damage(meta):
        meta["npusim"]["args"][0]["shape"] = value
    return damage


DAMAGES = {
    "blockDim 'abc'": (_set("blockDim", "abc"), '"blockDim"'),
    "blockDim null": (_set("blockDim", None), '"blockDim"'),
    "blockDim 0": (_set("blockDim", 0), '"blockDim"'),
    "blockDim true": (_set("blockDim", True), '"blockDim"'),
    "binFileName ../": (_set("binFileName", "../escaped"), '"binFileName"'),
    "binFileName ..": (_set("binFileName", ".."), '"binFileName"'),
    "binFileSuffix": (_set("binFileSuffix", "/../x.o"), '"binFileSuffix"'),
    "arg shape 'abc'": (_set_shape("abc"), "shape"),
    "arg shape [-4, 64]": (_set_shape([-4, 64]), "shape"),
    "arg shape [2.5, 64]": (_set_shape([2.5, 64]), "shape"),
    "arg shape [8, 64]": (_set_shape([8, 64]), "bytes"),
    "args not a list": (lambda meta: meta["npusim"].update(args={"x": 1}), "args"),
}


@pytest.mark.parametrize("damage, field", DAMAGES.values(), ids=list(DAMAGES))
def test_a_damaged_kernel_json_is_rebuilt_once_with_one_warning_then_reused(damage, field):
    calls = collections.deque()
    op = make_add(calls)
    np.testing.assert_array_equal(run_in_new_process(op), X + X)
    json_path = the_json()
    meta = json.loads(json_path.read_text())
    damage(meta)
    json_path.write_text(json.dumps(meta))
    with pytest.raises(TbeLaunchError, match=field):
        load_built(json_path)
    with warnings.catch_warnings(record=True) as seen:
        np.testing.assert_array_equal(run_in_new_process(op), X + X)
    assert len(calls) == 2
    (warning,) = cache_warnings(seen)
    assert str(json_path.parents[1]) in str(warning.message) and "rebuilt" in str(warning.message)
    with warnings.catch_warnings(record=True) as again:
        np.testing.assert_array_equal(run_in_new_process(op), X + X)
    assert len(calls) == 2 and not cache_warnings(again)         # the rebuilt entry is reused, silently
    assert load_built(the_json()).block_dim == 1
    assert not [p for p in cache.cache_root().iterdir() if p.name.startswith(".")]


def test_load_built_names_the_bad_field_and_the_kernel(tmp_path):
    kb = KernelBuilder("copy8")
    x = kb.tensor("float32", (8,), "GM", "x")
    y = kb.tensor("float32", (8,), "GM", "y")
    kernel = kb.build(inputs=[x], outputs=[y])
    args = (ArgSpec("x", (8,), "float32"), ArgSpec("y", (8,), "float32", output=True))
    json_path, meta = write_kernel_files(tmp_path, "copy8", kernel, args, "Ascend910", "hand")
    assert load_built(json_path).block_dim == 1
    for damage, field in DAMAGES.values():
        broken = json.loads(json.dumps(meta))
        damage(broken)
        json_path.write_text(json.dumps(broken))
        with pytest.raises(TbeLaunchError, match=field) as info:
            load_built(json_path)
        assert "copy8" in str(info.value)


# ---- publishing -----------------------------------------------------------------------------------------------
def _write_entry(meta_dir, block_dim=None):
    """Build a small copy kernel into ``meta_dir`` (its JSON's blockDim overwritten when given)."""
    kb = KernelBuilder("pub")
    x = kb.tensor("float32", (8,), "GM", "x")
    y = kb.tensor("float32", (8,), "GM", "y")
    kernel = kb.build(inputs=[x], outputs=[y])
    args = (ArgSpec("x", (8,), "float32"), ArgSpec("y", (8,), "float32", output=True))
    json_path, meta = write_kernel_files(meta_dir, "pub", kernel, args, "Ascend910", "hand")
    if block_dim is not None:
        json_path.write_text(json.dumps(dict(meta, blockDim=block_dim)))


def test_publishing_never_replaces_an_intact_entry_another_process_published():
    with cache.staging("d1") as stage:
        _write_entry(stage)
    final = cache.cache_root() / "d1"
    inode = final.stat().st_ino
    with warnings.catch_warnings(record=True) as seen:
        with cache.staging("d1") as stage:           # a second process built the same kernel meanwhile
            _write_entry(stage)
    assert final.stat().st_ino == inode and not cache_warnings(seen)
    assert [p.name for p in cache.cache_root().iterdir()] == ["d1"]
    assert load_built(final / cache.META_SUBDIR / "pub.json").name == "pub"


def test_publishing_replaces_a_damaged_entry_with_one_warning():
    with cache.staging("d2") as stage:
        _write_entry(stage, block_dim="abc")
    final = cache.cache_root() / "d2"
    assert cache.entry_problem(final) is not None
    with warnings.catch_warnings(record=True) as seen:
        with cache.staging("d2") as stage:
            _write_entry(stage)
    assert len(cache_warnings(seen)) == 1 and cache.entry_problem(final) is None
    assert [p.name for p in cache.cache_root().iterdir()] == ["d2"]


def test_a_failed_build_leaves_no_staging_directory():
    with pytest.raises(RuntimeError):
        with cache.staging("d3"):
            raise RuntimeError("the impl failed")
    assert list(cache.cache_root().iterdir()) == []


# ---- many processes building one kernel at once ---------------------------------------------------------------
def _child(op, barrier, results):
    try:
        barrier.wait(timeout=120)
        np.testing.assert_array_equal(run_in_new_process(op), X + X)
        results.put("ok")
    except BaseException:  # report anything to the parent, which asserts
        results.put(traceback.format_exc())


def _build_in_parallel(op) -> list:
    context = multiprocessing.get_context("fork")     # children share the parent's imports: a build is cheap
    barrier, results = context.Barrier(PARALLEL_PROCESSES), context.Queue()
    children = [context.Process(target=_child, args=(op, barrier, results)) for _ in range(PARALLEL_PROCESSES)]
    for child in children:
        child.start()
    reports = [results.get(timeout=300) for _ in children]
    for child in children:
        child.join(timeout=60)
    return [r for r in reports if r != "ok"]


def test_parallel_processes_building_one_kernel_all_succeed_and_leave_an_intact_entry():
    op = make_add(collections.deque())
    assert _build_in_parallel(op) == []
    json_path = the_json()
    assert cache.entry_problem(json_path.parents[1]) is None
    assert [p for p in cache.cache_root().iterdir() if p.name.startswith(".")] == []
    meta = json.loads(json_path.read_text())                # damage it: every process rebuilds at once
    json_path.write_text(json.dumps(dict(meta, blockDim="abc")))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CacheWarning)
        assert _build_in_parallel(op) == []
    assert cache.entry_problem(the_json().parents[1]) is None
    assert [p for p in cache.cache_root().iterdir() if p.name.startswith(".")] == []


# ---- unusable cache directories -------------------------------------------------------------------------------
def _read_only_dir(tmp_path):
    """A directory this process cannot write: chmod 0555, or for root (whom modes do not stop) /proc/self."""
    if os.geteuid() != 0:
        directory = tmp_path / "read_only"
        directory.mkdir()
        directory.chmod(0o555)
        return directory
    return "/proc/self"


@pytest.mark.parametrize("where", ["under a regular file", "read-only directory", "tbe is a file"])
def test_an_unusable_cache_dir_falls_back_to_a_private_temp_cache_with_one_warning(where, tmp_path, monkeypatch,
                                                                                   private_tmp):
    if where == "under a regular file":
        (tmp_path / "file").write_text("not a directory")
        configured = tmp_path / "file" / "cache"
    elif where == "read-only directory":
        configured = _read_only_dir(tmp_path)
    else:
        configured = tmp_path / "cache"
        configured.mkdir()
        (configured / "tbe").write_text("a file where the tbe cache should be")
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(configured))
    calls = collections.deque()
    op = make_add(calls)
    with warnings.catch_warnings(record=True) as seen:
        for _ in range(2):
            np.testing.assert_array_equal(run_in_new_process(op), X + X)
        root = cache.cache_root()
    assert root == cachedir.fallback_base() / "tbe" and root.parent.parent == private_tmp
    (warning,) = cache_warnings(seen)
    assert str(configured) in str(warning.message) and str(root.parent) in str(warning.message)
    assert len(calls) == 1 and len(list(root.iterdir())) == 1       # the second call reused the fallback's entry
    assert oct(root.parent.stat().st_mode & 0o777) == oct(0o700)


def test_tbe_and_aot_caches_share_one_warning_for_one_bad_directory(tmp_path, monkeypatch, private_tmp):
    from npusim.aot import compile as aot_compile
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "file" / "cache"))
    with warnings.catch_warnings(record=True) as seen:
        assert cache.cache_root().parent == aot_compile.cache_dir().parent == cachedir.fallback_base()
        cache.cache_root()
    assert len(cache_warnings(seen)) == 1


def test_a_process_reports_an_unusable_cache_dir_once(tmp_path):
    """In a real process: builds in both caches, with numpy's testing helpers (which reset Python's per-module
    warning registries) in between, give one warning."""
    (tmp_path / "file").write_text("")
    script = textwrap.dedent("""
        import numpy as np
        from npusim.aot import compile as aot_compile
        from te_compat.build import cache
        for _ in range(3):
            cache.cache_root()
            np.testing.assert_array_equal(np.ones(2), np.ones(2))
            aot_compile.cache_dir()
        print(cache.cache_root())
    """)
    env = dict(os.environ, NPUSIM_CACHE_DIR=str(tmp_path / "file" / "cache"), TMPDIR=str(tmp_path))
    env.pop("PYTHONWARNINGS", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / f"npusim-cache-{os.getuid()}" / "tbe")
    assert done.stderr.count("CacheWarning:") == 1, done.stderr


@pytest.mark.parametrize("fallback", ["a regular file", "open to other users"])
def test_an_unusable_fallback_is_a_typed_error_naming_both_directories(fallback, tmp_path, monkeypatch, private_tmp):
    (tmp_path / "file").write_text("")
    configured = tmp_path / "file" / "cache"
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(configured))
    target = cachedir.fallback_base()
    if fallback == "a regular file":
        target.write_text("")
    else:
        target.mkdir()
        target.chmod(0o777)
    with pytest.raises(CacheDirError) as info:
        cache.cache_root()
    assert isinstance(info.value, OSError)
    assert str(configured) in str(info.value) and str(target) in str(info.value)
    with pytest.raises(CacheDirError):
        make_add(collections.deque())(Tensor(X), Tensor(X))
