"""Dynamic-shape ops called with unknown dims: the build is deferred and made per concrete shape at launch.

A 2021+ op entry (``@register_operator``) may be called as CANN's compiler calls it for a dynamic kernel: input
dicts with ``-1`` dims (``-2`` for an unknown rank) and a ``range``.  npusim compiles each op for concrete shapes,
so instead of rejecting the call, :func:`defer_build` records it: ``kernel_meta/<kernel_name>.json`` carries CANN's
fields and an ``npusim.deferred`` section naming the entry function (module, qualified name, file) and its JSON'd
arguments; no binary is written.  :func:`te_compat.build.load_built` returns a :class:`DeferredKernel` for such a
file, whose ``run(*arrays)`` calls the entry again with the input dicts made concrete from the arrays (shape,
``ori_shape`` and a pinned ``range``; output dicts as recorded), builds that kernel into a private directory and
runs it.  Every run builds for the arrays it is given (a chip switch between runs is honoured).

Which dict arguments are inputs: the first tensor arguments (a dict with a ``shape``, or a list/tuple of them for a
dynamic input) covering the arrays given to ``run``, in order — CANN's convention (inputs, outputs, attributes).
"""
from __future__ import annotations

import contextvars
import importlib
import importlib.util
import inspect
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from npusim.errors import TbeBuildError, TbeLaunchError
from te_compat.build.kernel_meta import BIN_SUFFIX, MAGIC, META_FORMAT, kernel_meta_dir

DEFERRED_KEY = "deferred"
#: set while a deferred call runs again with concrete inputs (its output dicts may keep unknown dims)
_concrete_run: contextvars.ContextVar = contextvars.ContextVar("npusim_deferred_concrete_run", default=False)


def is_tensor_dict(value) -> bool:
    """A TBE tensor dict (has a ``shape``)."""
    return isinstance(value, dict) and "shape" in value


def _dicts_in(value) -> list:
    if is_tensor_dict(value):
        return [value]
    if isinstance(value, (list, tuple)) and value and all(is_tensor_dict(v) for v in value):
        return list(value)
    return []


def has_unknown_dims(args, kwargs) -> bool:
    """Whether any tensor dict among the arguments has an unknown (negative) dim whose range does not pin it (never
    while a deferred build runs for concrete inputs)."""
    if _concrete_run.get():
        return False
    for value in list(args) + list(kwargs.values()):
        for item in _dicts_in(value):
            shape, ranges = item.get("shape") or (), item.get("range") or ()
            for axis, dim in enumerate(shape):
                if isinstance(dim, int) and dim < 0:
                    bounds = ranges[axis] if axis < len(ranges) else None
                    if dim != -1 or not bounds or bounds[0] is None or bounds[0] != bounds[1]:
                        return True
    return False


def _kernel_name(func, args, kwargs) -> str:
    try:
        bound = inspect.signature(func).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return str(kwargs.get("kernel_name", getattr(func, "__name__", "cce_op")))
    if "kernel_name" in bound.arguments:
        return str(bound.arguments["kernel_name"])
    param = inspect.signature(func).parameters.get("kernel_name")
    default = param.default if param is not None and param.default is not inspect.Parameter.empty else None
    return str(default or getattr(func, "__name__", "cce_op"))


def _jsonable(value):
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def defer_build(op_type: str, func, args: tuple, kwargs: dict) -> None:
    """Record the call of op entry ``func`` (with unknown dims) as ``kernel_meta/<kernel_name>.json``."""
    name = _kernel_name(func, args, kwargs)
    try:
        call = json.loads(json.dumps({"args": list(args), "kwargs": kwargs}, default=_jsonable))
    except (TypeError, ValueError) as exc:
        raise TbeBuildError(f"op '{op_type}' ({name}) has unknown dims, so npusim defers its build to launch, but "
                            f"its arguments cannot be recorded: {exc}") from exc
    source = inspect.getsourcefile(func) if inspect.isfunction(inspect.unwrap(func)) else None
    # CANN's fields with valid values (blockDim 1, an empty sha256: there is no binary until a launch builds one)
    meta = {"binFileName": name, "binFileSuffix": BIN_SUFFIX, "blockDim": 1, "kernelName": f"{name}__kernel0",
            "magic": MAGIC, "opParaSize": 0, "parameters": [], "sha256": "",
            "npusim": {"format": META_FORMAT, DEFERRED_KEY: {
                "op_type": op_type, "module": func.__module__, "qualname": func.__qualname__,
                "file": None if source is None else str(Path(source).resolve()), **call}}}
    directory = kernel_meta_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise TbeBuildError(f"op '{op_type}' ({name}): cannot write '{directory}': {exc}") from exc


def _resolve(section: dict, label: str):
    """The op entry function a deferred JSON names: its module by name, else its file."""
    module = sys.modules.get(section["module"])
    if module is None:
        try:
            module = importlib.import_module(section["module"])
        except ImportError:
            module = _module_from_file(section.get("file"), label)
    target = module
    for part in str(section["qualname"]).split("."):
        target = getattr(target, part, None)
        if target is None:
            raise TbeLaunchError(f"kernel '{label}': {section['module']} has no op entry {section['qualname']!r}")
    return target


def _module_from_file(file, label: str):
    if not file or not Path(file).is_file():
        raise TbeLaunchError(f"kernel '{label}': its op entry's module cannot be imported and its file {file!r} "
                             f"is gone (the deferred build needs the op's source)")
    spec = importlib.util.spec_from_file_location(f"npusim_deferred_{Path(file).stem}", file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _concrete(item: dict, shape) -> dict:
    dims = [int(d) for d in shape]
    return dict(item, shape=dims, ori_shape=dims, range=[[d, d] for d in dims])


def concrete_arguments(args: list, arrays: list) -> list:
    """``args`` with the input dicts covering ``arrays`` made concrete from the arrays' shapes, in order."""
    out, feed = [], list(arrays)
    for value in args:
        dicts = _dicts_in(value)
        if not dicts or not feed:
            out.append(value)
            continue
        if len(dicts) > len(feed):
            raise TbeLaunchError(f"{len(arrays)} array(s) do not cover the op's input {len(out)} "
                                 f"({len(dicts)} tensors)")
        made = [_concrete(d, feed.pop(0).shape) for d in dicts]
        out.append(made[0] if is_tensor_dict(value) else made)
    if feed:
        raise TbeLaunchError(f"the op takes fewer tensor inputs than the {len(arrays)} array(s) given")
    return out


class DeferredKernel:
    """A kernel_meta JSON written by :func:`defer_build`: ``run(*arrays)`` builds for the arrays' shapes and runs."""

    def __init__(self, json_path: Path, meta: dict):
        self.json_path, self.meta = Path(json_path), meta
        self.name = str(meta["binFileName"])
        self.section = meta["npusim"][DEFERRED_KEY]

    def __repr__(self) -> str:
        return f"DeferredKernel({self.name!r}, op={self.section.get('op_type')!r})"

    def build_for(self, arrays: list):
        """Call the op entry with concrete input dicts (into a private kernel_meta) and return its BuiltKernel."""
        from te_compat.build.collect import collect_builds
        from te_compat.build.kernel_meta import kernel_meta_override
        from te_compat.build.launch import BuiltKernel
        entry = _resolve(self.section, self.name)
        try:
            args = concrete_arguments(self.section["args"], [np.asarray(a) for a in arrays])
        except TbeLaunchError as exc:
            raise TbeLaunchError(f"kernel '{self.name}': {exc}") from None
        token = _concrete_run.set(True)
        try:
            with tempfile.TemporaryDirectory(prefix="npusim_deferred_") as stage, kernel_meta_override(stage), \
                    collect_builds() as builds:
                entry(*args, **self.section["kwargs"])
                result = builds.pick(self.name, Path(stage))
        finally:
            _concrete_run.reset(token)
        if result is None:
            raise TbeLaunchError(f"kernel '{self.name}': the op entry built no kernel named '{self.name}' for "
                                 f"shapes {[list(np.shape(a)) for a in arrays]}")
        return BuiltKernel.from_result(result)

    def run(self, *arrays, device=None, runtime=None) -> list:
        """Build for the arrays' shapes, then run (see :meth:`te_compat.build.launch.BuiltKernel.run`); an array is
        reshaped to its placeholder when only the shape differs (ops fuse dims).  Outputs come in the kernel's
        shapes."""
        built = self.build_for(list(arrays))
        fitted = []
        for array, spec in zip(arrays, built.inputs):
            array = np.asarray(array)
            if spec.kind == "gm" and array.shape != spec.shape and array.size == int(np.prod(spec.shape)):
                array = array.reshape(spec.shape)
            fitted.append(array)
        return built.run(*fitted, *arrays[len(fitted):], device=device, runtime=runtime)


__all__ = ["DEFERRED_KEY", "DeferredKernel", "concrete_arguments", "defer_build", "has_unknown_dims",
           "is_tensor_dict"]
