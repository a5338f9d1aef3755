"""Finding a case's implementation, as msopst finds a deployed op: by op type, in CANN's op project layout.

Search roots, in order: the ``--impl-dir`` directories, then the case file's directory.  In each root:

* **TBE / TIK** (Python op files): an ``impl/`` package at ``ROOT/impl``, ``ROOT/tbe/impl`` or ROOT itself when it
  is named ``impl`` (CANN's custom op project keeps ``tbe/impl/<op>.py``; the OPP keeps ``.../tbe/impl``).  The op
  file is ``impl/<op_type in snake_case>.py`` (``ScaledAdd`` → ``scaled_add.py``, the op info library's default
  ``opFile``), else the ``impl/*.py`` whose text registers the op type (``@register_operator("ScaledAdd")``).  The
  entry function is the one the file registers for the op type (``tbe.common.register``), else the function named
  like the file.  The ``impl`` package is imported through npusim's compatibility layer (:mod:`npusim.compat`):
  the project's own ``impl`` wins and npusim fills in ``impl.util.platform_adapter`` and friends.  A case's
  ``impl_file`` ("op.py[:function]") skips the search.  A TIK op file (``tik_instance.BuildCCE``) goes the same way,
  through the same backend as ``ops.Custom(func_type="tbe")``: its kernel is collected like cce_build_code's.
* **AICPU** (C++ kernels): kernel sources at ``ROOT/cpukernel/impl/*.cc`` (CANN's AI CPU project layout; built by
  npusim into its build cache, see :func:`aicpu_loader.build_kernel_library`), libraries ``ROOT/lib/lib*.so`` and,
  when the case has a ``cust_aicpu`` attribute, the library it names as npusim's AICPU backend finds it
  (``$NPUSIM_AICPU_LIB_PATH`` ...).  The library that registers the op type runs it.

``imply_type`` in a case picks the kind; without it TBE/TIK is tried first, then AICPU.
"""
from __future__ import annotations

import contextlib
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from npusim.errors import ImplNotFoundError, NpusimError

_SNAKE = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SOURCE_SUFFIXES = (".cc", ".cpp", ".cxx")


@dataclass(frozen=True)
class ResolvedOp:
    """Where a case's op comes from: kind "tbe" (a Python entry function; TIK ops too) or "aicpu" (a library)."""

    kind: str
    op: str
    origin: str                      # the file or library, for messages and the report
    func: Any = None
    library: Optional[str] = None


def snake_case(op_type: str) -> str:
    """CANN's op file name of an op type: ``LeakyRelu`` → ``leaky_relu``."""
    return _SNAKE.sub("_", op_type).lower()


@contextlib.contextmanager
def compat_active():
    """npusim's compatibility layer on inside the block (switched off again after, if it was off before)."""
    from npusim.compat import aliases
    was_on = aliases.installed()
    aliases.install()
    try:
        yield
    finally:
        if not was_on:
            aliases.uninstall()


def _forget_other_impl(parent: Path) -> None:
    """Drop ``impl*`` modules that are not from ``parent``'s tree (what a runner does between op trees)."""
    root = str(parent.resolve()) + "/"
    for name in [n for n in sys.modules if n == "impl" or n.startswith("impl.")]:
        module = sys.modules[name]
        files = [getattr(module, "__file__", None) or ""] + list(getattr(module, "__path__", []) or [])
        if not any(str(f).startswith(root) for f in files if f):
            del sys.modules[name]


@contextlib.contextmanager
def op_tree(parent: Path):
    """``parent`` (the directory holding ``impl/``) first on sys.path, other trees' ``impl`` forgotten."""
    _forget_other_impl(parent)
    sys.path.insert(0, str(parent))
    importlib.invalidate_caches()
    try:
        yield
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(parent))


def _impl_parents(root: Path) -> list:
    parents = [root] if (root / "impl").is_dir() else []
    if (root / "tbe" / "impl").is_dir():
        parents.append(root / "tbe")
    if root.name == "impl" and root.is_dir():
        parents.append(root.parent)
    return parents


def _op_file(impl_dir: Path, op_type: str) -> Optional[Path]:
    for stem in dict.fromkeys((snake_case(op_type), op_type.lower())):
        if (impl_dir / f"{stem}.py").is_file():
            return impl_dir / f"{stem}.py"
    pattern = re.compile(r"register_operator\(\s*['\"]" + re.escape(op_type) + r"['\"]")
    for path in sorted(impl_dir.glob("*.py")):
        try:
            if pattern.search(path.read_text(encoding="utf-8", errors="replace")):
                return path
        except OSError:
            continue
    return None


def _entry_function(module, op_type: str, stem: str):
    """The function ``module`` registers for ``op_type`` (register_operator), else the one named ``stem``."""
    from te_compat.surface.register import registered_operators
    entry = registered_operators().get(op_type)
    if entry is not None:
        for value in vars(module).values():
            if callable(value) and (value is entry or getattr(value, "__wrapped__", None) is entry):
                return value
    func = getattr(module, stem, None)
    return func if callable(func) else None


def _load_file_module(path: Path):
    """A standalone op file (``impl_file``) as its own module, its directory importable while it loads."""
    name = f"npusim_optest_impl_{abs(hash(str(path))):x}"
    found = sys.modules.get(name)
    if found is not None:
        return found
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        with contextlib.suppress(ValueError):
            sys.path.remove(str(path.parent))
    sys.modules[name] = module
    return module


class ImplFinder:
    """Resolves cases to implementations; remembers what it found for the run it belongs to (explicit state of
    one :class:`~npusim.optest.runner.OpTestSession`).  ``runtime``: whose AICPU worker lists the libraries' kernels."""

    def __init__(self, runtime, impl_dirs=()):
        self.impl_dirs = tuple(Path(d).resolve() for d in impl_dirs)
        self.runtime = runtime
        self._found: dict = {}
        self._kernels: dict = {}   # library path -> op types it registers

    def roots(self, case) -> list:
        return list(dict.fromkeys(self.impl_dirs + (case.base_dir,)))

    def resolve(self, case) -> ResolvedOp:
        """The implementation of ``case`` (ImplNotFoundError listing where it looked)."""
        key = (case.op, case.imply_type, case.impl_file, tuple(self.roots(case)), _cust_aicpu(case))
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = self._resolve(case)
        return found

    def _resolve(self, case) -> ResolvedOp:
        if case.impl_file is not None:
            return self._from_file(case)
        searched: list = []
        kinds = [case.imply_type] if case.imply_type else ["tbe", "aicpu"]
        for kind in kinds:
            found = self._find_aicpu(case, searched) if kind == "aicpu" else self._find_tbe(case, kind, searched)
            if found is not None:
                return found
        listing = "\n".join(f"  {i}. {s}" for i, s in enumerate(searched, 1)) or "  (nothing to search)"
        raise ImplNotFoundError(f"case '{case.name}': no implementation of op '{case.op}' "
                                f"({'/'.join(kinds)}) found; searched, in order:\n{listing}\n"
                                f"Give --impl-dir DIR (holding impl/, tbe/impl/, cpukernel/impl/ or lib/) or the "
                                f"case's impl_file.")

    def _from_file(self, case) -> ResolvedOp:
        path, func_name = Path(case.impl_file[0]), case.impl_file[1]
        with compat_active():
            module = _load_file_module(path)
        func = getattr(module, func_name, None) if func_name else _entry_function(module, case.op, path.stem)
        if not callable(func):
            raise ImplNotFoundError(f"case '{case.name}': {path} has no function "
                                    f"'{func_name or path.stem}' for op '{case.op}'")
        return ResolvedOp(case.imply_type or "tbe", case.op, str(path), func=func)

    def _find_tbe(self, case, kind: str, searched: list) -> Optional[ResolvedOp]:
        for root in self.roots(case):
            for parent in _impl_parents(root):
                searched.append(f"{parent / 'impl'} ({kind} op file for '{case.op}')")
                op_file = _op_file(parent / "impl", case.op)
                if op_file is None:
                    continue
                with compat_active(), op_tree(parent):
                    module = importlib.import_module(f"impl.{op_file.stem}")
                    func = _entry_function(module, case.op, op_file.stem)
                if func is not None:
                    return ResolvedOp(kind, case.op, str(op_file), func=func)
            if not _impl_parents(root):
                searched.append(f"{root} (no impl/ or tbe/impl/ package)")
        return None

    def _find_aicpu(self, case, searched: list) -> Optional[ResolvedOp]:
        for library in self._libraries(case, searched):
            if case.op in self._registered(library):
                return ResolvedOp("aicpu", case.op, str(library), library=str(library))
        return None

    def _libraries(self, case, searched: list) -> list:
        from aicpu_loader import build_kernel_library, lookup
        found = []
        for root in self.roots(case):
            source_dir = root / "cpukernel" / "impl"
            sources = sorted(p for p in source_dir.glob("*") if p.suffix in _SOURCE_SUFFIXES)
            searched.append(f"{source_dir} (AICPU kernel sources)")
            if sources:
                found.append(build_kernel_library(sources, include_dirs=[source_dir]).path)
            searched.append(f"{root / 'lib'} (AICPU kernel libraries lib*.so)")
            found += sorted((root / "lib").glob("lib*.so"))
        name = _cust_aicpu(case)
        if name:
            searched.append(f"cust_aicpu={name!r}: {', '.join(map(str, lookup.search_dirs()))}")
            with contextlib.suppress(NpusimError):
                found.append(lookup.find_library(name))
        return list(dict.fromkeys(Path(p).resolve() for p in found))

    def _registered(self, library: Path) -> frozenset:
        kernels = self._kernels.get(library)
        if kernels is None:
            from aicpu_loader.worker import WORKER_RESOURCE, AicpuWorker
            worker = self.runtime.resource(WORKER_RESOURCE, AicpuWorker)
            kernels = self._kernels[library] = frozenset(worker.list_kernels(str(library)))
        return kernels


def _cust_aicpu(case) -> Optional[str]:
    for attr in case.attrs:
        if attr.name == "cust_aicpu" and isinstance(attr.value, str):
            return attr.value
    return None


__all__ = ["ImplFinder", "ResolvedOp", "compat_active", "op_tree", "snake_case"]
