"""cce_build_code / tbe.dsl.build: config handling, kernel_meta files (.o + .json fields), print_ir."""
import hashlib
import json
import sys
import types

import numpy as np
import pytest
from tbe_build_support import FakeSchedule, build_vadd, vadd_graph
from tvm import te

from npusim.errors import TbeBuildError
from npusim.sim import KernelBuilder, load_kernel
from npusim.sim.kernel import Instr, Kernel, Param
from te_compat.build import build, build_kernel, cce_build_code, kernel_meta_dir, kernel_text


def read_meta(name, directory=None):
    directory = kernel_meta_dir() if directory is None else directory
    return json.loads((directory / f"{name}.json").read_text())


def test_files_and_cann_fields(_isolated_build_env):
    build_vadd("myadd", (4, 64), "float16", blocks=2)
    meta_dir = _isolated_build_env / "kernel_meta"
    blob = (meta_dir / "myadd.o").read_bytes()
    meta = read_meta("myadd", meta_dir)
    assert list(meta)[:8] == ["binFileName", "binFileSuffix", "blockDim", "kernelName", "magic", "opParaSize",
                              "parameters", "sha256"]
    assert meta["binFileName"] == "myadd" and meta["binFileSuffix"] == ".o"
    assert meta["blockDim"] == 2 and meta["kernelName"] == "myadd__kernel0"
    assert meta["magic"] == "RT_DEV_BINARY_MAGIC_ELF" and meta["opParaSize"] == 0
    assert meta["parameters"] == [0, 0, 0]
    assert meta["sha256"] == hashlib.sha256(blob).hexdigest()
    assert "workspace" not in meta


def test_npusim_section_describes_the_arguments():
    build_vadd("add32", (3, 8), "float32")
    section = read_meta("add32")["npusim"]
    assert section["format"] == 1 and section["chip"] == "Ascend910" and section["classification"] == "elewise"
    assert section["args"] == [
        {"name": "data0", "shape": [3, 8], "dtype": "float32", "kind": "gm", "output": False},
        {"name": "data1", "shape": [3, 8], "dtype": "float32", "kind": "gm", "output": False},
        {"name": "res", "shape": [3, 8], "dtype": "float32", "kind": "gm", "output": True},
    ]


def test_o_file_is_the_lowered_kernel():
    a, b, c = vadd_graph((2, 128), "float16")
    sch = FakeSchedule([c])
    result = build_kernel(sch, {"name": "k1", "tensor_list": [a, b, c]})
    assert load_kernel(kernel_meta_dir() / "k1.o") == result.kernel
    assert result.json_path == kernel_meta_dir() / "k1.json" and sch.lower_calls == 1


def test_workspace_field_when_the_kernel_has_workspaces():
    build_vadd("addws", (2, 64), "float16", workspace=True)
    meta = read_meta("addws")
    assert meta["workspace"] == {"num": 1, "size": [64 * 4], "type": [0]}
    assert meta["parameters"] == [0, 0, 0, 0]


def test_default_name_and_return_value():
    a, b, c = vadd_graph((16,), "float16")
    assert cce_build_code(FakeSchedule([c]), {"tensor_list": [a, b, c]}) is None
    assert read_meta("cce_op")["kernelName"] == "cce_op__kernel0"


def test_kernel_meta_follows_the_working_directory(tmp_path, monkeypatch):
    for sub in ("one", "two"):
        (tmp_path / sub).mkdir()
        monkeypatch.chdir(tmp_path / sub)
        assert kernel_meta_dir() == tmp_path / sub / "kernel_meta"
        build_vadd(f"k_{sub}")
        assert (tmp_path / sub / "kernel_meta" / f"k_{sub}.o").is_file()
    assert not (tmp_path / "two" / "kernel_meta" / "k_one.json").exists()


def test_env_var_overrides_kernel_meta(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_KERNEL_META", str(tmp_path / "elsewhere"))
    assert kernel_meta_dir() == tmp_path / "elsewhere"
    build_vadd("kenv")
    assert (tmp_path / "elsewhere" / "kenv.json").is_file()
    assert not (tmp_path / "work" / "kernel_meta").exists()


def test_print_ir_prints_the_program(capsys):
    build_vadd("printed", (2, 64), "float16", print_ir=True)
    out = capsys.readouterr().out
    assert out.startswith("kernel printed  block_dim=1")
    for text in ("data0  gm", "res    gm", "ua     UB @0x0", "vadd(mask=128, dst=ua[0]",
                 "data_move(dst=res[(block_idx * 128)], src=ua[0]"):
        assert text in out, out


def test_need_build_false_still_builds_as_cann_2020(capsys):
    sch, _ = build_vadd("nobuild", need_build=False, print_ir=True)
    assert sch.lower_calls == 1 and "kernel nobuild" in capsys.readouterr().out
    assert (kernel_meta_dir() / "nobuild.json").exists()     # CANN 2020 ignores need_build (mat_mul passes False)


def test_passthrough_keys_are_accepted():
    build_vadd("passthru", dump_cce_code=True, sync_mode=2, bool_storage_as_1bit=False,
               fusion_build_config={"x": 1}, double_buffer_non_reuse=True)
    assert read_meta("passthru")["binFileName"] == "passthru"


@pytest.mark.parametrize("name, why", [
    ("a" * 201, "at most 200"), ("bad-name", "invalid"), ("名字", "invalid"), ("", "invalid"), (7, "must be a str"),
])
def test_bad_kernel_names(name, why):
    with pytest.raises(TbeBuildError, match=why):
        build_vadd(name)
    build_vadd("a" * 200)  # the longest valid name
    assert (kernel_meta_dir() / ("a" * 200 + ".o")).is_file()


def test_config_errors():
    a, b, c = vadd_graph((16,), "float16")
    sch = FakeSchedule([c])
    with pytest.raises(TbeBuildError, match="'tensor_list' is mandatory"):
        cce_build_code(sch, {"name": "x"})
    with pytest.raises(RuntimeError, match="non-empty list"):
        cce_build_code(sch, {"name": "x", "tensor_list": []})
    with pytest.raises(TbeBuildError, match="'config' must be a dict"):
        cce_build_code(sch, [a, b, c])
    with pytest.raises(TbeBuildError, match="'print_ir' must be a bool"):
        cce_build_code(sch, {"name": "x", "tensor_list": [a, b, c], "print_ir": "yes"})
    with pytest.raises(TbeBuildError, match="has no output"):
        cce_build_code(sch, {"name": "x", "tensor_list": [a, b]})
    with pytest.raises(TbeBuildError, match="is not a tensor"):
        cce_build_code(sch, {"name": "x", "tensor_list": [a, b, 3]})
    assert sch.lower_calls == 0 and not kernel_meta_dir().exists()


def test_symbolic_dimension_is_rejected():
    n = te.var("n")
    a = te.placeholder((n,), name="a", dtype="float16")
    c = te.compute((n,), lambda i: a[i], name="c")
    with pytest.raises(TbeBuildError, match="symbolic dimension .* concrete shape"):
        cce_build_code(FakeSchedule([c]), {"name": "dyn", "tensor_list": [a, c]})


class _WrongSchedule:
    """Lowers to something that does not match the tensor_list."""

    outputs = ()

    def __init__(self, result):
        self.result = result

    def lower(self, tensor_list, name, runtime=None):
        return self.result


def _kernel_with(params):
    return Kernel("bad", tuple(params), (), (), ())


@pytest.mark.parametrize("result, why", [
    ("not a kernel", "not an npusim Kernel"),
    (_kernel_with([Param("x", "gm", "float16", (16,))]), "takes 1 argument"),
    (_kernel_with([Param("x", "gm", "float16", (16,)), Param("y", "gm", "float16", (8,)),
                   Param("z", "gm", "float16", (16,))]), "'data1' is float16\\[16\\]"),
    (_kernel_with([Param("x", "gm", "float16", (16,)), Param("y", "gm", "float32", (16,)),
                   Param("z", "gm", "float16", (16,))]), "parameter 'y' is float32"),
])
def test_lowered_kernel_must_match_tensor_list(result, why):
    a, b, c = vadd_graph((16,), "float16")
    with pytest.raises(TbeBuildError, match=why):
        cce_build_code(_WrongSchedule(result), {"name": "bad", "tensor_list": [a, b, c]})


def test_tbe_dsl_build_with_a_list_of_schedules():
    first, second = vadd_graph((32,), "float16"), vadd_graph((32,), "float16")
    schedules = [FakeSchedule([first[2]]), FakeSchedule([second[2]])]
    assert build(schedules, {"name": "dyn_add", "tensor_list": [list(first), list(second)]}) is None
    assert schedules[0].lower_calls == 1 and schedules[1].lower_calls == 0
    assert read_meta("dyn_add")["npusim"]["args"][2]["output"] is True
    with pytest.raises(TbeBuildError, match="2 schedules but 1 tensor lists"):
        build(schedules, {"name": "dyn_add", "tensor_list": [list(first)]})


def test_plain_schedule_goes_to_the_scalar_fallback(monkeypatch):
    a, b, c = vadd_graph((64,), "float16")
    seen = {}

    def lower_scalar(outs, tensor_list, name, reason, runtime=None):
        seen.update(outs=outs, names=[t.name for t in tensor_list], name=name, reason=reason)
        return FakeSchedule(outs).lower(tensor_list, name)

    monkeypatch.setitem(sys.modules, "te_compat.fallback", types.SimpleNamespace(lower_scalar=lower_scalar))
    cce_build_code(object(), {"name": "fb", "tensor_list": [a, b, c]})
    assert seen["names"] == ["data0", "data1", "res"] and seen["name"] == "fb"
    assert len(seen["outs"]) == 1 and seen["outs"][0].same_as(c) and "not one made by auto_schedule" in seen["reason"]
    assert read_meta("fb")["npusim"]["classification"] == "fallback"


def test_plain_schedule_without_fallback_is_a_clear_error(monkeypatch):
    a, b, c = vadd_graph((64,), "float16")
    monkeypatch.setitem(sys.modules, "te_compat.fallback", None)  # makes the import fail
    with pytest.raises(TbeBuildError, match="scalar-pipe fallback is not available"):
        cce_build_code(object(), {"name": "fb", "tensor_list": [a, b, c]})


def test_printer_lists_loops_branches_and_long_text():
    kb = KernelBuilder("ctl")
    ub = kb.tensor("float16", (128,), "UB", "ub")
    r = kb.scalar("int32", "r0")
    with kb.for_range(0, 4, name="i") as i:
        with kb.if_scope(i < 2):
            kb.vadds(128, ub, ub, 1.0, 1)
        with kb.else_scope():
            kb.vmuls(128, ub, ub, 2.0, 1)
    kernel = kb.build(check=False)
    text = kernel_text(kernel)
    assert "  scalars: r0: int32" in text
    assert "    for i in range(0, 4):\n      if (i < 2):\n        vadds(mask=128, dst=ub[0]" in text
    assert "      else:\n        vmuls(" in text
    script = "# from tvm.script import tir as T\n@T.prim_func\ndef main(a: T.handle):\n    T.evaluate(0)"
    tvm_call = Kernel("tc", (Param("a", "gm", "float32", (4,)),), (), (), (Instr("tvm_call", (("text", script),)),))
    lines = kernel_text(tvm_call).splitlines()
    start = lines.index("    tvm_call(text=<text below>)")
    assert lines[start + 1] == "      # text:" and lines[start + 3] == "        @T.prim_func"
    assert np.all([line.startswith("        ") for line in lines[start + 2:start + 6]])


def test_plain_schedule_through_the_real_fallback(capsys):
    pytest.importorskip("te_compat.fallback")
    a = te.placeholder((3, 5), name="a", dtype="float32")
    b = te.compute((3, 5), lambda i, j: a[i, j] * 2.0 + 1.0, name="b")
    with pytest.warns(UserWarning, match="fb_real"):
        cce_build_code(object(), {"name": "fb_real", "tensor_list": [a, b], "print_ir": True})
    assert "tvm_call(" in capsys.readouterr().out
    from te_compat.build import load_built
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    np.testing.assert_allclose(load_built("fb_real").run(x)[0], x * 2 + 1)
