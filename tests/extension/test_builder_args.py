"""CustomOpBuilder's arguments, flags, build directory rules and hooks (nothing is compiled here)."""
import os
import re
import shlex

import pytest

from mindspore import ops
from npusim.errors import (ExtensionArgumentTypeError, ExtensionArgumentValueError, ExtensionUnsupportedError,
                           NinjaNotFoundError, UnsupportedError)
from npusim.extension import CustomOpBuilder, default_cflags, include_dirs
from npusim.extension import ninja_build
from npusim.extension.headers import INCLUDE_DIR


def test_mindspore_ops_exports_the_builder():
    assert ops.CustomOpBuilder is CustomOpBuilder


@pytest.mark.parametrize("kwargs, key", [
    (dict(name=3, sources="a.cpp"), "name"),
    (dict(name="m", sources=5), "sources"),
    (dict(name="m", sources=None), "sources"),
    (dict(name="m", sources=["a.cpp", 1]), "sources"),
    (dict(name="m", sources="a.cpp", backend=1), "backend"),
    (dict(name="m", sources="a.cpp", include_paths=3), "include_paths"),
    (dict(name="m", sources="a.cpp", include_paths=["inc", None]), "include_paths"),
    (dict(name="m", sources="a.cpp", cflags=["-O3"]), "cflags"),
    (dict(name="m", sources="a.cpp", ldflags=1), "ldflags"),
    (dict(name="m", sources="a.cpp", build_dir=3), "build_dir"),
    (dict(name="m", sources="a.cpp", debug_mode=1), "debug_mode"),
    (dict(name="m", sources="a.cpp", enable_atb="yes"), "enable_atb"),
    (dict(name="m", sources="a.cpp", enable_asdsip=0), "enable_asdsip"),
    (dict(name="m", sources="a.cpp", op_def=3), "op_def"),
    (dict(name="m", sources="a.cpp", op_doc=[b"x.yaml"]), "op_doc"),
])
def test_a_wrong_argument_type_is_a_type_error_naming_it(kwargs, key):
    with pytest.raises(TypeError, match=f"'{key}'") as info:
        CustomOpBuilder(**kwargs)
    assert isinstance(info.value, ExtensionArgumentTypeError)


@pytest.mark.parametrize("backend", ["GPU", "ascend", "cpu", ""])
def test_an_unsupported_backend_is_a_value_error(backend):
    with pytest.raises(ValueError, match=f"only 'CPU' or 'Ascend' are allowed, but got '{backend}'"):
        CustomOpBuilder("m", "a.cpp", backend=backend)


def test_a_name_that_cannot_be_a_module_is_a_value_error():
    with pytest.raises(ExtensionArgumentValueError, match="'my-ops'"):
        CustomOpBuilder("my-ops", "a.cpp")


def test_sources_accept_str_list_and_tuple_and_unknown_keys_are_ignored():
    assert CustomOpBuilder("m", "a.cpp").get_sources() == ["a.cpp"]
    assert CustomOpBuilder("m", ["a.cpp", "b.cpp"]).get_sources() == ["a.cpp", "b.cpp"]
    assert CustomOpBuilder("m", ("a.cpp",), some_future_option=1).get_sources() == ["a.cpp"]


@pytest.mark.parametrize("flag", ["enable_atb", "enable_asdsip"])
def test_atb_and_asdsip_are_unsupported_after_mindspores_backend_check(flag):
    with pytest.raises(ValueError, match=f"when '{flag}' is set to True, the 'backend' must be 'Ascend'"):
        CustomOpBuilder("m", "a.cpp", backend="CPU", **{flag: True})
    for backend in (None, "Ascend"):
        with pytest.raises(UnsupportedError, match=f"CustomOpBuilder 'm': '{flag}=True' needs") as info:
            CustomOpBuilder("m", "a.cpp", backend=backend, **{flag: True})
        assert isinstance(info.value, ExtensionUnsupportedError)
    CustomOpBuilder("m", "a.cpp", backend="Ascend", **{flag: False})


def test_ascend_backend_needs_no_ascend_opp_path(monkeypatch):
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    builder = CustomOpBuilder("m", "a.cpp", backend="Ascend")
    assert os.path.join(builder.ascend_cann_path, "include") == INCLUDE_DIR
    monkeypatch.setenv("ASCEND_OPP_PATH", "/usr/local/Ascend/latest/opp")
    with_env = CustomOpBuilder("m", "a.cpp", backend="Ascend")
    assert with_env.get_include_paths() == builder.get_include_paths()   # accepted and ignored
    assert with_env.get_cflags() == builder.get_cflags()


def test_default_flags_match_mindspore():
    flags = CustomOpBuilder("my_ops", "a.cpp").get_cflags()
    assert flags[0] == "-DMS_EXTENSION_NAME=my_ops"
    for flag in ("-D_GLIBCXX_USE_CXX11_ABI=0", "-std=c++17", "-fPIC", "-O2"):
        assert flag in flags
    assert default_cflags() == ["-D_GLIBCXX_USE_CXX11_ABI=0", "-std=c++17", "-fPIC"]
    assert "-DCUSTOM_ASCEND_OP" not in flags and "-g" not in flags
    ascend = CustomOpBuilder("my_ops", "a.cpp", backend="Ascend", cflags="-DX=1 -Wall").get_cflags()
    assert ascend.index("-DCUSTOM_ASCEND_OP") < ascend.index("-DX=1 -Wall") == len(ascend) - 1
    debug = CustomOpBuilder("my_ops", "a.cpp", debug_mode=True)
    assert "-g" in debug.get_cflags() and "-O2" not in debug.get_cflags()
    assert "-s" not in debug.get_ldflags() and "-s" in CustomOpBuilder("m", "a.cpp").get_ldflags()
    assert CustomOpBuilder("m", "a.cpp", ldflags="-lm").get_ldflags()[-1] == "-lm"


def test_npusim_include_dirs_come_before_the_users():
    builder = CustomOpBuilder("m", "a.cpp", include_paths=["inc1", "inc2"])
    paths = builder.get_include_paths()
    assert paths[:len(include_dirs())] == include_dirs() and paths[-2:] == ["inc1", "inc2"]
    assert include_dirs()[0] == INCLUDE_DIR
    assert os.path.isfile(os.path.join(include_dirs()[1], "pybind11", "pybind11.h"))
    assert os.path.isfile(os.path.join(include_dirs()[2], "Python.h"))
    assert CustomOpBuilder("m", "a.cpp", include_paths="inc").get_include_paths()[-1] == "inc"


def test_build_dir_rules(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MS_COMPILER_CACHE_PATH", raising=False)
    assert CustomOpBuilder("m1", "a.cpp")._get_build_directory() == os.path.join(
        os.path.realpath(tmp_path), "kernel_meta", "m1")
    monkeypatch.setenv("MS_COMPILER_CACHE_PATH", "cache/here")
    got = CustomOpBuilder("m2", "a.cpp")._get_build_directory()
    assert got == os.path.join(os.path.realpath(tmp_path), "cache", "here", "m2") and os.path.isdir(got)
    os.symlink(tmp_path / "cache", tmp_path / "link")
    assert CustomOpBuilder("m3", "a.cpp", build_dir="link/own")._get_build_directory() == os.path.join(
        os.path.realpath(tmp_path), "cache", "own")          # build_dir is used as given (made real), no <name>


def test_the_ninja_file_compiles_each_source_and_links_name_so(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CXX", "my-g++")
    builder = CustomOpBuilder("two", ["src/a.cpp", "other/a.cpp", "dir with space/b.cc"], include_paths=["inc"],
                              cflags="-DX=1")
    text = ninja_build.render(builder._plan())
    assert "cxx = my-g++" in text
    assert f"build a.o: compile {tmp_path}/src/a.cpp" in text
    assert f"build a_1.o: compile {tmp_path}/other/a.cpp" in text            # same stem: distinct objects
    assert f"build b.o: compile {tmp_path}/dir$ with$ space/b.cc" in text
    assert "build two.so: link a.o a_1.o b.o" in text and "default two.so" in text
    cflags = shlex.split(next(line for line in text.splitlines() if line.startswith("cflags = "))[9:])
    includes = [flag[2:] for flag in cflags if flag.startswith("-I")]
    assert includes == include_dirs() + [str(tmp_path / "inc")]
    assert cflags[-1] == "-DX=1" and "-MMD -MF $out.d" in text


class _Subclass(CustomOpBuilder):
    """An override that leaves out everything npusim needs: the builder adds it back."""

    def get_include_paths(self):
        return ["mine"]

    def get_cflags(self):
        return ["-O1"]

    def get_ldflags(self):
        return ["-lm"]


def test_overridden_hooks_are_used_and_required_flags_kept():
    plan = _Subclass("sub", "a.cpp")._plan()
    assert plan.include_paths[:3] == tuple(include_dirs()) and plan.include_paths[-1] == os.path.abspath("mine")
    assert plan.cflags[0] == "-DMS_EXTENSION_NAME=sub" and plan.cflags[-1] == "-O1"
    assert plan.ldflags == ("-shared", "-lm")


def test_no_ninja_is_a_runtime_error(tmp_path, monkeypatch):
    import ninja
    monkeypatch.setattr(ninja, "BIN_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "a.cpp").write_text("int x;\n")
    with pytest.raises(RuntimeError, match=re.escape("Ninja is required to load C++ extensions")) as info:
        CustomOpBuilder("m", str(tmp_path / "a.cpp"), build_dir=str(tmp_path / "b")).build()
    assert isinstance(info.value, NinjaNotFoundError)


def test_op_def_files_are_checked_like_mindspore(tmp_path):
    (tmp_path / "ops.txt").write_text("x: 1\n")
    builder = CustomOpBuilder("m", "a.cpp", op_def=str(tmp_path / "missing.yaml"), build_dir=str(tmp_path))
    with pytest.raises(FileNotFoundError, match="missing.yaml"):
        builder.build()
    with pytest.raises(ValueError, match="Invalid file extension: .txt"):
        CustomOpBuilder("m", "a.cpp", op_doc=[str(tmp_path / "ops.txt")], build_dir=str(tmp_path)).build()
