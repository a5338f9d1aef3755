"""A Custom tbe build hands its kernel to the op as an object, and the kernel cache's fingerprint covers every
source that can change a built kernel (te_compat and npusim: ISA semantics, rounding, chip YAMLs ...)."""
import collections
import json
import os
import re
import shutil

import numpy as np
import pytest
from tbe_build_support import FakeSchedule, copy_graph, vadd_graph

from mindspore import Tensor, ops
from mindspore.ops import CustomRegOp, DataType
import npusim.sim.kernel_io as kernel_io
from npusim.custom.backends.tbe import BUILT_CACHE, BUILT_ENTRIES
from npusim.sim import new_runtime
from te_compat.build import BuiltKernel, build_kernel, cce_build_code, collect_builds, load_built
from te_compat.build import cache

RNG = np.random.default_rng(5)


class RecordingSchedule(FakeSchedule):
    """A FakeSchedule that keeps every kernel it lowers (the objects a handover must pass on)."""

    def __init__(self, outputs, lowered):
        super().__init__(outputs)
        self.lowered = lowered

    def lower(self, tensor_list, name, runtime=None):
        kernel = super().lower(tensor_list, name, runtime)
        self.lowered.append(kernel)
        return kernel


def recording_add(lowered, calls):
    """A Custom tbe op (a + b) whose impl records its calls and the kernels it lowers.  Both logs are deques: the
    cache key describes closure values by content, and a deque counts by its type only."""
    def add(a, b, y, kernel_name="add"):
        calls.append(kernel_name)
        data0, data1, res = vadd_graph(a["shape"], a["dtype"])
        cce_build_code(RecordingSchedule([res], lowered), {"name": kernel_name, "tensor_list": [data0, data1, res]})
    return ops.Custom(add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe")


@pytest.fixture
def reads(monkeypatch):
    """Counts kernel binaries parsed from bytes (every read of a kernel_meta .o goes through it)."""
    seen = collections.Counter()
    real = kernel_io.kernel_from_bytes

    def counting(blob):
        seen["kernel_from_bytes"] += 1
        return real(blob)
    monkeypatch.setattr(kernel_io, "kernel_from_bytes", counting)
    return seen


def _entries(tmp_path) -> set:
    return {p.name for p in (tmp_path / "cache" / "tbe").iterdir() if not p.name.startswith(".")}


def _built(runtime=None):
    from npusim.sim import current_runtime
    return (runtime or current_runtime()).cache(BUILT_CACHE, BUILT_ENTRIES).values()[-1]


# ---- the handover ---------------------------------------------------------------------------------------------
def test_a_fresh_build_hands_over_the_kernel_it_lowered_without_reading_it_back(reads, tmp_path):
    lowered, calls = collections.deque(), collections.deque()
    op = recording_add(lowered, calls)
    x, y = RNG.uniform(-4, 4, (2, 64)).astype(np.float16), RNG.uniform(-4, 4, (2, 64)).astype(np.float16)
    np.testing.assert_array_equal(op(Tensor(x), Tensor(y)).asnumpy(), x + y)
    assert reads["kernel_from_bytes"] == 0 and len(calls) == 1
    built = _built()
    assert isinstance(built, BuiltKernel) and built.kernel is lowered[-1]
    # the files are written as CANN writes them, in the published entry the BuiltKernel names
    (entry,) = _entries(tmp_path)
    meta_dir = tmp_path / "cache" / "tbe" / entry / "kernel_meta"
    assert built.json_path == meta_dir / f"{calls[0]}.json" and built.obj_path == meta_dir / f"{calls[0]}.o"
    assert json.loads(built.json_path.read_text()) == built.meta
    assert kernel_io.kernel_from_bytes(built.obj_path.read_bytes()) == built.kernel
    assert built.block_dim == built.meta["blockDim"] and [a.output for a in built.args] == [False, False, True]


def test_a_new_process_loads_the_published_kernel_from_disk(reads):
    lowered, calls = collections.deque(), collections.deque()
    op = recording_add(lowered, calls)
    x = np.arange(256, dtype=np.float32).reshape(4, 64)
    first = op(Tensor(x), Tensor(x)).asnumpy()
    handed = _built()
    fresh = new_runtime()            # a fresh store: nothing in memory, as in a new process
    with fresh.activate():
        second = op(Tensor(x), Tensor(x)).asnumpy()
    loaded = _built(fresh)
    assert len(calls) == 1 and reads["kernel_from_bytes"] == 1
    assert loaded is not handed and loaded.kernel == handed.kernel and loaded.meta == handed.meta
    assert loaded.json_path == handed.json_path
    np.testing.assert_array_equal(first, second)


def _reduce_all_impl(x, y, kernel_name="reduce_sum_all"):
    import te.lang.cce
    from te import tvm
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
    res = te.lang.cce.sum(data, axis=list(range(len(x["shape"]))), keepdims=False)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def test_a_handed_over_atomic_reduce_keeps_its_clean_flags_and_is_zeroed_per_launch(reads):
    reg = (CustomRegOp().input(0, "x").output(0, "y").dtype_format(DataType.F32_Default, DataType.F32_Default)
           .target("Ascend").get_op_info())
    op = ops.Custom(_reduce_all_impl, out_shape=lambda x: [1], out_dtype=lambda x: x, func_type="tbe",
                    reg_info=reg)
    x = RNG.standard_normal((1024, 1000)).astype(np.float32)
    outs = [op(Tensor(x)).asnumpy() for _ in range(2)]
    assert reads["kernel_from_bytes"] == 0
    built = _built()
    assert built.meta["parameters"] == [0, 1] and built.block_dim > 1
    assert [p.atomic_clean for p in built.kernel.params] == [False, True]
    np.testing.assert_allclose(outs[0], [x.astype(np.float64).sum()], rtol=1e-5, atol=1e-3)
    np.testing.assert_array_equal(outs[0], outs[1])
    assert load_built(built.json_path).meta["parameters"] == [0, 1]


def test_the_only_kernel_of_another_name_is_handed_over():
    lowered = collections.deque()

    def own_name(x, y):
        data0, res = copy_graph(x["shape"], x["dtype"], y["dtype"])
        cce_build_code(RecordingSchedule([res], lowered), {"name": "fixed_name", "tensor_list": [data0, res]})

    op = ops.Custom(own_name, out_shape=lambda s: s, out_dtype=lambda t: t, func_type="tbe")
    x = np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(op(Tensor(x)).asnumpy(), x)
    built = _built()
    assert built.name == "fixed_name" and built.kernel is lowered[-1] and built.json_path.is_file()


# ---- the collector --------------------------------------------------------------------------------------------
def _copy_config(name, need_build=True):
    data0, res = copy_graph((8,), "float32", "float32")
    return FakeSchedule([res]), {"name": name, "tensor_list": [data0, res], "need_build": need_build}


def test_collectors_see_the_builds_of_their_own_block_only():
    build_kernel(*_copy_config("outside"))                   # no collector open: reported to nobody
    with collect_builds() as outer:
        first = build_kernel(*_copy_config("k_one"))
        with collect_builds() as inner:
            nested = build_kernel(*_copy_config("k_two"))
        again = build_kernel(*_copy_config("k_one"))
        quiet = build_kernel(*_copy_config("k_quiet", need_build=False))
    assert inner.results == (nested,)
    assert outer.results == (first, again, quiet)
    assert outer.names() == ["k_one", "k_quiet"] and outer.pick("k_one") is again and outer.pick("other") is None
    assert quiet.json_path is not None and outer.pick("k_quiet") is quiet   # need_build=False builds (CANN 2020)
    assert inner.pick("k_two") is nested and inner.pick("k_two", directory="/elsewhere") is None
    with collect_builds() as two:
        build_kernel(*_copy_config("a"))
        build_kernel(*_copy_config("b"))
    assert two.pick("c") is None and two.names() == ["a", "b"]


# ---- the compiler fingerprint ---------------------------------------------------------------------------------
def _copy_tree(dest) -> list:
    """Copies of the fingerprinted packages under ``dest``; returns their roots."""
    roots = []
    for root in cache.package_roots():
        shutil.copytree(root, dest / root.name, ignore=shutil.ignore_patterns("__pycache__"))
        roots.append(dest / root.name)
    return roots


def _edit_rounding(roots) -> None:
    (rounding,) = [r / "sim" / "isa" / "rounding.py" for r in roots if (r / "sim" / "isa" / "rounding.py").exists()]
    rounding.write_text(rounding.read_text() + "\n_HALF = 0.4  # an edited rounding rule\n")


def test_the_default_roots_cover_the_compiler_the_simulator_and_the_chip_files():
    names = {name for name, _ in cache.source_files(cache.package_roots())}
    for wanted in ("npusim/sim/isa/rounding.py", "npusim/sim/isa/saturate.py", "npusim/sim/chips/Ascend910.yaml",
                   "npusim/custom/backends/tbe.py", "te_compat/build/cce.py", "te_compat/schedule/schedule.py"):
        assert wanted in names
    assert not [n for n in names if "__pycache__" in n or not re.search(r"\.(py|pyx|ya?ml)$", n)]


def test_the_fingerprint_follows_edits_to_isa_semantics_and_chip_files_not_the_location(tmp_path):
    roots = _copy_tree(tmp_path / "a")
    moved = [shutil.copytree(r, tmp_path / "b" / r.name) for r in roots]
    before = cache.source_fingerprint(roots)
    assert cache.source_fingerprint(moved) == before and cache.build_fingerprint(roots) == \
        cache.build_fingerprint(moved)
    _edit_rounding(roots)
    after_rounding = cache.source_fingerprint(roots)
    (chip,) = [r / "sim" / "chips" / "Ascend910.yaml" for r in roots if r.name == "npusim"]
    text = chip.read_text()
    edited = re.sub(r"^(\s*\w+:\s*)(\d+)\s*$", lambda m: f"{m.group(1)}{int(m.group(2)) + 1}", text, count=1,
                    flags=re.M)
    assert edited != text
    chip.write_text(edited)
    after_chip = cache.source_fingerprint(roots)
    assert len({before, after_rounding, after_chip}) == 3
    assert cache.build_fingerprint(roots) != cache.build_fingerprint(moved)


def test_the_fingerprint_is_a_runtime_resource_computed_once_per_store(monkeypatch):
    made = []
    monkeypatch.setattr(cache, "build_fingerprint", lambda roots=None: made.append(1) or f"fp{len(made)}")
    first, second = new_runtime(), new_runtime()
    assert cache.compiler_fingerprint(first) == cache.compiler_fingerprint(first) == "fp1"
    assert cache.compiler_fingerprint(second) == "fp2" and len(made) == 2
    assert first.resource(cache.FINGERPRINT_RESOURCE, lambda: "unused") == "fp1"


def test_a_kernel_cached_under_an_old_fingerprint_is_not_reused_after_an_isa_edit(tmp_path):
    roots = _copy_tree(tmp_path / "sources")
    lowered, calls = collections.deque(), collections.deque()
    op = recording_add(lowered, calls)
    x = np.arange(128, dtype=np.float16).reshape(2, 64)

    def call_in_a_new_process():
        """A fresh store (nothing in memory) whose fingerprint is that of the copied sources as they are now."""
        runtime = new_runtime()
        runtime.resource(cache.FINGERPRINT_RESOURCE, lambda: cache.build_fingerprint(roots))
        with runtime.activate():
            np.testing.assert_array_equal(op(Tensor(x), Tensor(x)).asnumpy(), x + x)
        return cache.compiler_fingerprint(runtime)

    old = call_in_a_new_process()
    assert call_in_a_new_process() == old and len(calls) == 1    # same sources: the disk entry is reused
    (old_entry,) = _entries(tmp_path)
    _edit_rounding(roots)
    new = call_in_a_new_process()
    assert new != old and len(calls) == 2                          # edited ISA semantics: built again
    (new_entry,) = _entries(tmp_path) - {old_entry}
    # the kernel keeps its name (it digests the build key, not npusim's sources); the entry holding it is new
    assert calls[0] == calls[1]
    assert os.path.isfile(tmp_path / "cache" / "tbe" / new_entry / "kernel_meta" / f"{calls[1]}.json")
    assert os.path.isfile(tmp_path / "cache" / "tbe" / old_entry / "kernel_meta" / f"{calls[0]}.json")
