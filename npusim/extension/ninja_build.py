"""Write ``build.ninja`` for one extension and run ``ninja -v`` in its build directory.

The ninja file compiles every source to an object (``-MMD -MF`` depfiles, so touching an included header rebuilds
what includes it and nothing else) and links them into ``<name>.so``.  The link writes ``<name>.so.tmp`` and
renames it over ``<name>.so``: a process that loads the library while another rebuilds it sees the old file or the
new one, never half of one.  ``build.ninja`` is rewritten only when its text changes; ninja also remembers each
command line, so changed flags rebuild too.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass

from npusim.errors.extension_build import ExtensionBuildError, NinjaNotFoundError

NINJA_FILE_NAME = "build.ninja"
NINJA_MISSING = "Ninja is required to load C++ extensions. You can install it with: pip install ninja"


@dataclass(frozen=True)
class BuildPlan:
    """Everything one extension build needs: the module ``name`` (the library is ``<name>.so``), absolute
    ``sources``, ``include_paths`` (searched in order), compiler flags ``cflags`` and linker flags ``ldflags``
    (each entry may hold several shell words, as MindSpore's ``cflags`` string does) and the ``compiler``
    command (``$CXX`` or g++)."""

    name: str
    sources: tuple
    include_paths: tuple
    cflags: tuple
    ldflags: tuple
    compiler: str

    @property
    def library_file_name(self) -> str:
        return f"{self.name}.so"


def _escape_path(path: str) -> str:
    """A path as a ninja build-line token."""
    return path.replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _escape_value(text: str) -> str:
    """Text as a ninja variable value (the shell still splits it)."""
    if "\n" in text:
        raise ExtensionBuildError(f"a build flag or path contains a newline: {text!r}")
    return text.replace("$", "$$")


def object_names(sources) -> list[str]:
    """One object file name per source: ``<stem>.o``, with ``_<n>`` added when two sources share a stem."""
    names, used = [], set()
    for source in sources:
        stem = os.path.splitext(os.path.basename(source))[0]
        name, n = f"{stem}.o", 1
        while name in used:
            name, n = f"{stem}_{n}.o", n + 1
        used.add(name)
        names.append(name)
    return names


def render(plan: BuildPlan) -> str:
    """The text of ``build.ninja`` for ``plan``."""
    includes = [f"-I{shlex.quote(path)}" for path in plan.include_paths]
    cflags = " ".join(_escape_value(flag) for flag in [*includes, *plan.cflags] if flag)
    ldflags = " ".join(_escape_value(flag) for flag in plan.ldflags if flag)
    objects = object_names(plan.sources)
    lines = [
        "ninja_required_version = 1.3",
        f"cxx = {_escape_value(plan.compiler)}",
        f"cflags = {cflags}",
        f"ldflags = {ldflags}",
        "",
        "rule compile",
        "  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = compile $in",
        "",
        "rule link",
        "  command = $cxx $in $ldflags -o $out.tmp && mv -f $out.tmp $out",
        "  description = link $out",
        "",
    ]
    lines += [f"build {obj}: compile {_escape_path(src)}" for src, obj in zip(plan.sources, objects)]
    target = _escape_path(plan.library_file_name)
    lines += ["", f"build {target}: link {' '.join(objects)}", "", f"default {target}", ""]
    return "\n".join(lines)


def write_ninja_file(build_dir: str, plan: BuildPlan) -> str:
    """Write ``<build_dir>/build.ninja`` for ``plan`` unless it already has that text; returns its path."""
    path = os.path.join(build_dir, NINJA_FILE_NAME)
    text = render(plan)
    try:
        with open(path, encoding="utf-8") as existing:
            if existing.read() == text:
                return path
    except FileNotFoundError:
        pass
    temp = f"{path}.{os.getpid()}.tmp"
    with open(temp, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(temp, path)
    return path


def find_ninja() -> str:
    """The ninja executable: the ``ninja`` Python package's binary, else ``ninja`` on PATH; NinjaNotFoundError
    ("Ninja is required to load C++ extensions ...") when there is neither."""
    try:
        import ninja
        candidate = os.path.join(ninja.BIN_DIR, "ninja")
        if os.access(candidate, os.X_OK):
            return candidate
    except (ImportError, AttributeError):
        pass
    found = shutil.which("ninja")
    if found is None:
        raise NinjaNotFoundError(NINJA_MISSING)
    return found


def run_ninja(build_dir: str, plan: BuildPlan, ninja: str) -> str:
    """Run ``ninja -v`` in ``build_dir``; returns its output.  On failure removes ``<name>.so`` (so no process
    loads a library older than its sources, as MindSpore does) and raises ExtensionBuildError
    "Error building extension '<name>': <output>"."""
    try:
        done = subprocess.run([ninja, "-v"], cwd=build_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              check=False)
    except OSError as exc:
        raise NinjaNotFoundError(f"{NINJA_MISSING} ({ninja}: {exc})") from exc
    output = done.stdout.decode(errors="replace")
    if done.returncode != 0:
        library = os.path.join(build_dir, plan.library_file_name)
        if os.path.exists(library):
            os.remove(library)
        raise ExtensionBuildError(f"Error building extension '{plan.name}': {output}")
    return output


__all__ = ["BuildPlan", "NINJA_FILE_NAME", "NINJA_MISSING", "render", "write_ninja_file", "find_ninja",
           "run_ninja", "object_names"]
