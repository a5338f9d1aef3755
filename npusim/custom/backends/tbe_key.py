"""What a Custom tbe kernel's cache key covers of the impl function: everything its build can depend on.

* the function's own source (or bytecode) and the source file of its module;
* its defaults and closure values, described by content (numbers, strings, lists, dicts, arrays, nested functions),
  so two closures of one factory that capture different axis lists build different kernels;
* the source files of the user modules it reaches through its globals (``from helper import my_compute``), followed
  transitively, so editing a helper module rebuilds the kernel.  "User" means outside the Python installation
  (stdlib, site-packages) and outside npusim's own packages.

``functools.partial`` arguments, a bound method's ``self`` and plain objects (by their attributes) count by content
too.  Objects without attributes to read (open files, device handles ...) count by their type only.  The values are
read when the Custom op is created: mutating a captured list afterwards does not rebuild the op's kernel.
"""
from __future__ import annotations

import functools
import hashlib
import importlib.util
import inspect
import marshal
import os
import sys
import sysconfig
import types
from pathlib import Path

import numpy as np

_MAX_DEPTH = 4
_MAX_MODULES = 64


#: the runtime resource holding :func:`system_roots` (fixed for a process; computing it takes ~1 ms)
ROOTS_RESOURCE = "custom.system_roots"


def system_roots() -> tuple[str, ...]:
    """Directories whose modules are not the user's (the Python installation, npusim's own packages)."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(path)
    for package in ("npusim", "te_compat", "aicpu_loader"):
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.origin:
            roots.add(str(Path(spec.origin).resolve().parent))
    return tuple(os.path.realpath(r) + os.sep for r in roots)


def _is_user_file(path: str | None, system_roots: tuple[str, ...]) -> bool:
    if not path or not path.endswith(".py") or not os.path.isfile(path):
        return False
    real = os.path.realpath(path)
    return not any(real.startswith(root) for root in system_roots)


def _function_text(func, depth: int) -> str:
    target = inspect.unwrap(func)
    try:
        body = inspect.getsource(target)
    except (OSError, TypeError):
        code = getattr(target, "__code__", None)
        body = marshal.dumps(code).hex() if code is not None else type(target).__qualname__
    return f"fn {getattr(target, '__qualname__', '')}:{body}:{captured_values(target, depth + 1)}"


def describe(value, depth: int = 0) -> str:
    """A text that changes when ``value``'s content changes and never holds a memory address."""
    if depth > _MAX_DEPTH:
        return f"<{type(value).__qualname__}>"
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__}(" + ",".join(describe(v, depth + 1) for v in value) + ")"
    if isinstance(value, (set, frozenset)):
        return "set(" + ",".join(sorted(describe(v, depth + 1) for v in value)) + ")"
    if isinstance(value, dict):
        items = sorted((describe(k, depth + 1), describe(v, depth + 1)) for k, v in value.items())
        return "dict(" + ",".join(f"{k}:{v}" for k, v in items) + ")"
    if isinstance(value, np.ndarray):
        return f"ndarray({value.dtype.str},{value.shape},{hashlib.sha256(value.tobytes()).hexdigest()})"
    if isinstance(value, np.generic):
        return f"{value.dtype.str}:{value.item()!r}"
    if isinstance(value, types.FunctionType):
        return _function_text(value, depth)
    if isinstance(value, types.MethodType):
        return f"method({_function_text(value.__func__, depth)},{describe(value.__self__, depth + 1)})"
    if isinstance(value, functools.partial):
        return (f"partial({describe(value.func, depth + 1)},{describe(value.args, depth + 1)},"
                f"{describe(value.keywords, depth + 1)})")
    if isinstance(value, types.ModuleType):
        return f"module {value.__name__}"
    return _object_text(value, depth)


def _attributes(value) -> dict:
    """``value``'s ``__dict__`` entries and filled ``__slots__``."""
    state = dict(vars(value)) if isinstance(getattr(value, "__dict__", None), dict) else {}
    for klass in type(value).__mro__:
        slots = getattr(klass, "__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            if slot not in ("__dict__", "__weakref__") and hasattr(value, slot):
                state.setdefault(slot, getattr(value, slot))
    return state


def _object_text(value, depth: int) -> str:
    """An object by its type and its attributes, so two configuration objects with different fields differ;
    objects without attributes count by type."""
    state = _attributes(value)
    name = f"<{type(value).__module__}.{type(value).__qualname__}>"
    return name + describe(state, depth + 1) if state else name


def captured_values(func, depth: int = 0) -> str:
    """Defaults, keyword defaults and closure values of ``func``, by content."""
    kwdefaults = getattr(func, "__kwdefaults__", None) or {}
    parts = [describe(getattr(func, "__defaults__", None), depth), describe(kwdefaults, depth)]
    for cell in getattr(func, "__closure__", None) or ():
        try:
            parts.append(describe(cell.cell_contents, depth))
        except ValueError:  # an empty cell
            parts.append("<empty>")
    return "|".join(parts)


def _modules_reached(namespace: dict) -> list[types.ModuleType]:
    found = []
    for value in list(namespace.values()):
        if isinstance(value, types.ModuleType):
            found.append(value)
        else:
            name = getattr(value, "__module__", None)
            module = sys.modules.get(name) if isinstance(name, str) else None
            if module is not None:
                found.append(module)
    return found


def user_module_files(func, roots: tuple = None) -> list[str]:
    """Source files of the user modules reachable, transitively, from ``func``'s globals (``roots``: the
    :func:`system_roots`, computed when not given)."""
    roots = system_roots() if roots is None else roots
    start = getattr(inspect.unwrap(func), "__globals__", {}) or {}
    files, seen, queue = [], set(), [start]
    while queue and len(seen) < _MAX_MODULES:
        namespace = queue.pop(0)
        for module in _modules_reached(namespace):
            path = getattr(module, "__file__", None)
            if id(module) in seen or not _is_user_file(path, roots):
                continue
            seen.add(id(module))
            files.append(os.path.realpath(path))
            queue.append(vars(module))
    return sorted(files)


def _own_file(func) -> str | None:
    try:
        return inspect.getsourcefile(inspect.unwrap(func))
    except (OSError, TypeError):
        return None


def source_digest(func, roots: tuple = None) -> str:
    """sha256 over everything of ``func`` that a kernel build can depend on (see the module docstring);
    ``roots``: the :func:`system_roots` (computed when not given)."""
    bound = ""
    while isinstance(func, (functools.partial, types.MethodType)):  # the values bound around the function count
        if isinstance(func, functools.partial):
            bound += f"partial({describe(func.args)},{describe(func.keywords)})"
            func = func.func
        else:
            bound += f"self({describe(func.__self__)})"
            func = func.__func__
    target = inspect.unwrap(func)
    digest = hashlib.sha256(f"{getattr(target, '__module__', '')}:{getattr(target, '__qualname__', '')}".encode())
    digest.update(bound.encode())
    digest.update(_function_text(target, 0).encode())
    own = _own_file(target)
    own_files = {os.path.realpath(own)} if own and os.path.isfile(own) else set()  # the same spelling as modules'
    for path in sorted(set(user_module_files(target, roots)) | own_files):
        digest.update(os.path.basename(path).encode())  # content, not location: a moved project keeps its cache
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()
