"""CustomOpBuilder builds for real: multi-file sources with include paths and flags, incremental rebuilds,
compile errors, load() caching."""
import os
import re
import time

import pytest

from npusim.errors import ExtensionBuildError
from npusim.extension import CustomOpBuilder
from builder_testkit import (FAST_CFLAGS, c_api_module_source, compile_commands, multi_file_project, unique_name,
                             write)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The multi-file project, built once into $MS_COMPILER_CACHE_PATH/<name> from its own directory."""
    root = tmp_path_factory.mktemp("multi")
    multi_file_project(root)
    name = unique_name("multi")
    saved_cwd, saved_env = os.getcwd(), os.environ.get("MS_COMPILER_CACHE_PATH")
    os.chdir(root)
    os.environ["MS_COMPILER_CACHE_PATH"] = "cache"
    try:
        builder = CustomOpBuilder(name, ["src/module.cpp", "src/value.cpp"], include_paths=["inc"],
                                  cflags=f"-DOFFSET=2 {FAST_CFLAGS}")
        path = builder.build()
        first_log = builder.build_log
        module = builder.load()
    finally:
        os.chdir(saved_cwd)
        if saved_env is None:
            del os.environ["MS_COMPILER_CACHE_PATH"]
        else:
            os.environ["MS_COMPILER_CACHE_PATH"] = saved_env
    return dict(root=root, name=name, path=path, first_log=first_log, module=module, builder=builder)


def _rebuild(project, **changes):
    args = dict(include_paths=[str(project["root"] / "inc")], cflags=f"-DOFFSET=2 {FAST_CFLAGS}")
    args.update(changes)
    builder = CustomOpBuilder(project["name"], [str(project["root"] / "src" / f) for f in ("module.cpp", "value.cpp")],
                              build_dir=os.path.dirname(project["path"]), **args)
    builder.build()
    return builder.build_log


def test_multi_file_sources_with_include_paths_and_flags(project):
    assert project["module"].value() == 42                                # BASE_VALUE from inc/defs.h + OFFSET
    assert project["path"] == os.path.join(os.path.realpath(project["root"]), "cache", project["name"],
                                           project["name"] + ".so")
    assert project["module"].__file__ == project["path"] and project["module"].__name__ == project["name"]
    assert len(compile_commands(project["first_log"])) == 2
    build_dir = os.path.dirname(project["path"])
    assert {"build.ninja", "build.lock", "module.o", "value.o"} <= set(os.listdir(build_dir))


def test_nothing_changed_compiles_nothing(project):
    log = _rebuild(project)
    assert compile_commands(log) == [] and "no work to do" in log


def test_touching_a_header_recompiles_what_includes_it(project):
    header = project["root"] / "inc" / "defs.h"
    stat = header.stat()
    os.utime(header, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000_000))
    log = _rebuild(project)
    compiled = compile_commands(log)
    assert len(compiled) == 1 and compiled[0].rstrip().endswith("-o value.o"), log
    assert re.search(r"-o \S+\.so\.tmp", log)                             # relinked
    assert compile_commands(_rebuild(project)) == []


def test_changed_flags_recompile(project):
    log = _rebuild(project, cflags=f"-DOFFSET=3 {FAST_CFLAGS}")
    assert len(compile_commands(log)) == 2
    assert compile_commands(_rebuild(project, cflags=f"-DOFFSET=3 {FAST_CFLAGS}")) == []


def test_load_caches_per_name_first_module_wins(project, tmp_path):
    again = CustomOpBuilder(project["name"], str(tmp_path / "does_not_exist.cpp"))
    assert again.load() is project["module"]          # no build at all: the source does not even exist


def test_a_compile_error_names_the_extension_and_shows_the_compiler_output(tmp_path):
    source = write(tmp_path / "broken.cpp", "int f() { return undefined_thing_42; }\n")
    builder = CustomOpBuilder("broken_ext", str(source), build_dir=str(tmp_path / "build"))
    with pytest.raises(RuntimeError) as info:
        builder.build()
    assert isinstance(info.value, ExtensionBuildError)
    message = str(info.value)
    assert message.startswith("Error building extension 'broken_ext': ")
    assert "undefined_thing_42" in message and "broken.cpp" in message
    assert not os.path.exists(tmp_path / "build" / "broken_ext.so")


def test_a_failed_rebuild_removes_the_old_library(tmp_path):
    source = write(tmp_path / "plain.cpp", "int f() { return 1; }\n")
    builder = CustomOpBuilder("plain_ext", str(source), build_dir=str(tmp_path / "build"), cflags=FAST_CFLAGS)
    library = builder.build()
    assert os.path.isfile(library)
    write(source, "int f() { return oops; }\n")
    os.utime(source, ns=(time.time_ns(), os.stat(library).st_mtime_ns + 2_000_000_000))
    with pytest.raises(ExtensionBuildError, match="oops"):
        builder.build()
    assert not os.path.exists(library)


def test_relative_sources_resolve_against_the_current_directory(tmp_path, monkeypatch):
    write(tmp_path / "work" / "rel.cpp", "int g() { return 2; }\n")
    monkeypatch.chdir(tmp_path / "work")
    builder = CustomOpBuilder("rel_ext", "rel.cpp", build_dir="../out", cflags=FAST_CFLAGS)
    assert builder.build() == os.path.join(os.path.realpath(tmp_path), "out", "rel_ext.so")
    assert f"{os.path.realpath(tmp_path / 'work')}/rel.cpp" in builder.build_log or \
        f"{tmp_path / 'work'}/rel.cpp" in builder.build_log


OP_DEF = """
value:
  args: {}
  returns:
    out: {dtype: int}
add4:
  args:
    x: {dtype: tensor}
  returns:
    out: {dtype: tensor}
  function:
    name: add_four
"""


def test_op_def_ops_are_the_modules_own_and_yaml_only_ops_say_so(tmp_path, monkeypatch):
    from npusim.errors import ExtensionOpNotGeneratedError
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "module.cpp", c_api_module_source())
    write(tmp_path / "value.cpp", "int value() { return 5; }\n")
    write(tmp_path / "ops.yaml", OP_DEF)
    write(tmp_path / "ops_doc.yml", "value:\n  description: five\n")
    name = unique_name("opdef")
    module = CustomOpBuilder(name, ["module.cpp", "value.cpp"], op_def="ops.yaml", op_doc=["ops_doc.yml"],
                             cflags=FAST_CFLAGS).load()
    assert module.value() == 5 and "value" in dir(module) and module.so_module.__name__ == name
    for yaml_only in ("add4", "add_four"):
        with pytest.raises(AttributeError, match=f"'{yaml_only}' .* declared only in its op_def YAML") as info:
            getattr(module, yaml_only)
        assert isinstance(info.value, ExtensionOpNotGeneratedError)
    with pytest.raises(AttributeError, match="'nothing' is neither in func_module nor in so_module"):
        module.nothing
