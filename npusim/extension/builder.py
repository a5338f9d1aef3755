"""``CustomOpBuilder``: compile a MindSpore C++ extension (pybind11 + ``ms_extension.h``) and load it.

    my_ops = CustomOpBuilder("my_ops", ["./custom_src/function_ops.cpp"], backend="Ascend").load()
    my_ops.mul(x, y)

As MindSpore 2.6–2.8: ``name`` is the module (``-DMS_EXTENSION_NAME=<name>``, library ``<build_dir>/<name>.so``);
sources are resolved against the current directory; the build directory is ``build_dir`` or
``realpath($MS_COMPILER_CACHE_PATH or "./kernel_meta")/<name>``; ``build.ninja`` + ``ninja -v`` build
incrementally under an exclusive ``build.lock``; ``load()`` returns the first module loaded under a name for the
rest of the process.  npusim differs where MindSpore needs CANN: ``ASCEND_OPP_PATH`` is not required (npusim ships
the headers it would locate; when set it is accepted and ignored), nothing links against MindSpore or CANN
libraries, and ATB / ASDSIP are not provided (``enable_atb`` / ``enable_asdsip`` raise ExtensionUnsupportedError).
"""
from __future__ import annotations

import importlib.util
import os
import sys
from typing import Optional

from npusim.errors.extension_build import ExtensionUnsupportedError
from npusim.extension import headers
from npusim.extension.args import check_accelerator_backend, check_args
from npusim.extension.build_lock import BuildLock
from npusim.extension.ninja_build import BuildPlan, find_ninja, run_ninja, write_ninja_file
from npusim.extension.op_def import OpDefModule, check_yaml_files, declared_ops
from npusim.sim.runtime import process_store

#: the process-wide cache of loaded extension modules (by name), as MindSpore's ``CustomOpBuilder._loaded_ops``
LOADED_CACHE = "extension.loaded"
LOADED_CACHE_SIZE = 4096
BUILD_ROOT_ENV = "MS_COMPILER_CACHE_PATH"
DEFAULT_BUILD_ROOT = "./kernel_meta"


class CustomOpBuilder:
    """Build and load a C++ extension written against MindSpore's ``ms_extension.h`` API.

    Args:
        name (str): the module's name (``PYBIND11_MODULE(MS_EXTENSION_NAME, m)`` defines it).
        sources (str | list[str] | tuple[str]): C++ sources, relative to the current directory.
        backend (str | None): None, "CPU" or "Ascend" ("Ascend" adds ``-DCUSTOM_ASCEND_OP``; its aclnn calls run
            on npusim's simulated Ascend device).
        include_paths (str | list[str] | tuple[str] | None): extra include directories, searched after npusim's.
        cflags (str | None), ldflags (str | None): extra compiler / linker flags, appended after the defaults.
        kwargs: ``build_dir`` (str), ``debug_mode`` (bool: ``-g``, no ``-O2``, no strip), ``enable_atb`` /
            ``enable_asdsip`` (bool: not provided by npusim), ``op_def`` / ``op_doc`` (YAML paths: checked;
            nothing is generated from them — see :mod:`npusim.extension.op_def`).  Other keys are ignored.

    Subclasses may override :meth:`get_sources`, :meth:`get_include_paths`, :meth:`get_cflags` and
    :meth:`get_ldflags`; npusim's include directories and the flags the module needs (``MS_EXTENSION_NAME``,
    C++17, the ABI, ``-fPIC``, ``-shared``) are added even when an override leaves them out.
    """

    def __init__(self, name, sources, backend=None, include_paths=None, cflags=None, ldflags=None, **kwargs):
        args = check_args(name, sources, backend, include_paths, cflags, ldflags, kwargs)
        self.name, self.source, self.backend = args.name, args.sources, args.backend
        self.include_paths, self.cflags, self.ldflags = args.include_paths, args.cflags, args.ldflags
        self.build_dir = None if args.build_dir is None else os.fspath(args.build_dir)
        self.debug_mode, self.enable_atb, self.enable_asdsip = args.debug_mode, args.enable_atb, args.enable_asdsip
        self.yaml, self.doc = args.op_def, args.op_doc
        self.build_log = ""
        for flag, wanted, missing in (("enable_atb", self.enable_atb, "ATB (Ascend Transformer Boost)"),
                                      ("enable_asdsip", self.enable_asdsip, "ASDSIP (Ascend SiP Boost)")):
            if wanted:
                check_accelerator_backend(flag, backend)
                raise ExtensionUnsupportedError(
                    f"CustomOpBuilder '{self.name}': '{flag}=True' needs {missing}, which npusim does not provide: "
                    f"its operators (RunAtbOp / RunAsdSipFFTOp) have no simulated implementation")
        # MindSpore derives the CANN root from ASCEND_OPP_PATH (".../opp" -> "..."); npusim's headers stand in
        # for CANN's, so "<ascend_cann_path>/include" names them whether or not the variable is set.
        self.ascend_cann_path = os.path.dirname(headers.INCLUDE_DIR) if self.backend == "Ascend" else None

    # -- hooks (MindSpore's names; subclasses override them) ------------------------------------------------

    def get_sources(self):
        """The source files to compile (a list of paths, relative to the current directory or absolute)."""
        return list(self.source)

    def get_include_paths(self):
        """Include directories: npusim's (its ``ms_extension.h`` and friends, pybind11, Python), then the user's
        ``include_paths``."""
        return headers.include_dirs() + list(self.include_paths or [])

    def get_cflags(self):
        """Compiler flags: ``-DMS_EXTENSION_NAME=<name>``, MindSpore's defaults, ``-O2`` (``-g`` in debug mode),
        ``-DCUSTOM_ASCEND_OP`` for the Ascend backend, then the user's ``cflags``."""
        flags = [f"-DMS_EXTENSION_NAME={self.name}", *headers.default_cflags()]
        flags.append("-g" if self.debug_mode else "-O2")
        if self.backend == "Ascend":
            flags.append("-DCUSTOM_ASCEND_OP")
        if self.cflags is not None:
            flags.append(self.cflags)
        return flags

    def get_ldflags(self):
        """Linker flags: ``-shared`` (stripped with ``-s`` unless in debug mode), then the user's ``ldflags``."""
        flags = ["-shared"]
        if not self.debug_mode:
            flags.append("-s")
        if self.ldflags is not None:
            flags.append(self.ldflags)
        return flags

    # -- building and loading ---------------------------------------------------------------------------------

    def build(self) -> str:
        """Compile the extension (incrementally) and return the path of ``<build_dir>/<name>.so``.

        Raises RuntimeError subclasses: NinjaNotFoundError "Ninja is required to load C++ extensions" and
        ExtensionBuildError "Error building extension '<name>': <compiler output>"."""
        if self.yaml is not None:
            check_yaml_files("op_def", self.yaml)
        if self.doc is not None:
            check_yaml_files("op_doc", self.doc)
        build_dir = self._get_build_directory()
        plan = self._plan()
        ninja = find_ninja()
        with BuildLock(build_dir):
            write_ninja_file(build_dir, plan)
            self.build_log = run_ninja(build_dir, plan, ninja)
        return os.path.join(build_dir, plan.library_file_name)

    def load(self):
        """Build the extension and import it as module ``name``; the first module loaded under a name is
        returned for every later ``load()`` of that name in this process (even if the sources changed)."""
        loaded = process_store().cache(LOADED_CACHE, LOADED_CACHE_SIZE)
        return loaded.get_or_create(self.name, self._build_and_import)

    def _build_and_import(self):
        module = self._import_module(self.build(), self.name)
        if self.yaml is None:
            return module
        return OpDefModule(self.name, module, declared_ops(self.yaml))

    @staticmethod
    def _import_module(path: str, name: str):
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    def _get_build_directory(self) -> str:
        """``build_dir`` (made absolute), else ``realpath($MS_COMPILER_CACHE_PATH or ./kernel_meta)/<name>``;
        created if missing."""
        if self.build_dir is None:
            self.build_dir = os.path.join(extension_build_root(), self.name)
        else:
            self.build_dir = os.path.realpath(self.build_dir)
        os.makedirs(self.build_dir, exist_ok=True)
        return self.build_dir

    def _plan(self) -> BuildPlan:
        sources = self.get_sources()
        sources = [sources] if isinstance(sources, str) else list(sources)
        includes = _unique([*headers.include_dirs(), *self.get_include_paths()])
        cflags = _merge([f"-DMS_EXTENSION_NAME={self.name}", *headers.default_cflags()], self.get_cflags())
        ldflags = _merge(["-shared"], self.get_ldflags())
        return BuildPlan(name=self.name, sources=tuple(os.path.abspath(s) for s in sources),
                         include_paths=tuple(os.path.abspath(p.strip()) for p in includes),
                         cflags=tuple(cflags), ldflags=tuple(ldflags), compiler=_compiler())


def _compiler() -> str:
    return os.environ.get("CXX") or "g++"


def _unique(items: list) -> list:
    seen, kept = set(), []
    for item in items:
        key = os.path.abspath(item.strip())
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def _merge(required: list, given) -> list:
    """``required`` flags the hook's list lacks, then the hook's flags in order."""
    given = [given] if isinstance(given, str) else [str(flag) for flag in given]
    return [flag for flag in required if flag not in given] + given


def extension_build_root(environ: Optional[dict] = None) -> str:
    """The directory default build directories live in: ``realpath($MS_COMPILER_CACHE_PATH or ./kernel_meta)``."""
    environ = os.environ if environ is None else environ
    return os.path.realpath(environ.get(BUILD_ROOT_ENV) or DEFAULT_BUILD_ROOT)


__all__ = ["CustomOpBuilder", "extension_build_root", "LOADED_CACHE"]
