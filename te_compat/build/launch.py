"""Launching a built kernel from its kernel_meta files.

    built = load_built("add_2x2")              # kernel_meta_dir()/add_2x2.json, or a path to the .json / .o
    z, = built.run(x, y)                      # inputs in tensor_list order -> outputs in tensor_list order

``run`` copies the inputs to a runtime's simulated device, launches with the JSON's blockDim, synchronizes and
copies the outputs back (the launch is recorded by an active ``npusim.sim.profile()``).  Output buffers start
filled with the device's poison byte, except the atomic-clean ones (a 1 in the JSON's "parameters"), which the
runtime zeroes before the kernel runs: a kernel that leaves part of a plain output unwritten shows it.  Loading
checks the .o's sha256 against the JSON and that "parameters" matches the kernel's atomic-clean flags; any
problem with the files or the arrays raises TbeLaunchError naming the kernel, and so does a JSON field of the
wrong type or value (a blockDim that is not an integer in [1, 65535], a binFileName that is not a plain file
name, an argument whose shape is not a list of sizes or disagrees with the binary's parameter).  Code that has
just built a kernel (ops.Custom func_type="tbe") makes its BuiltKernel from the build's result with
:meth:`BuiltKernel.from_result` instead of reading the files back.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Sequence

import numpy as np

from npusim.errors import KernelFormatError, TbeLaunchError
from te_compat.build.kernel_meta import (BIN_SUFFIX, MAGIC, META_FORMAT, ArgSpec, atomic_clean_flags, kernel_meta_dir,
                                        sha256_hex)

_REQUIRED_FIELDS = ("binFileName", "binFileSuffix", "blockDim", "kernelName", "magic", "sha256")
#: a binFileName: one plain file name (no directory part, no "..")
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_ARG_KINDS = ("gm", "scalar")


class BuiltKernel:
    """A kernel read back from kernel_meta: ``kernel`` (npusim Kernel), ``args`` (ArgSpec per tensor_list
    entry), ``block_dim``, the file paths and the raw JSON ``meta``."""

    def __init__(self, name: str, json_path: Path, obj_path: Path, kernel, args: tuple, meta: dict):
        self.name, self.json_path, self.obj_path = name, json_path, obj_path
        self.kernel, self.args, self.meta = kernel, args, meta
        self.block_dim = int(meta["blockDim"])
        self.inputs = tuple(a for a in args if not a.output)
        self.outputs = tuple(a for a in args if a.output)

    @classmethod
    def from_result(cls, result, directory=None) -> "BuiltKernel":
        """The kernel a build just wrote, from its :class:`~te_compat.build.cce.BuildResult` (no file is read):
        the lowered kernel itself, with the file paths in ``directory`` (where the kernel_meta files now are, e.g.
        a published cache entry; None: where they were written).  TbeLaunchError if the build wrote no files."""
        if result.json_path is None or result.meta is None:
            raise TbeLaunchError(f"kernel '{result.name}': the build wrote no kernel_meta files (need_build=False)")
        meta = result.meta
        json_path = result.json_path if directory is None else Path(directory) / result.json_path.name
        obj_path = json_path.with_name(f"{meta['binFileName']}{meta['binFileSuffix']}")
        return cls(str(meta["binFileName"]), json_path, obj_path, result.kernel, tuple(result.args), meta)

    def __repr__(self) -> str:
        return f"BuiltKernel({self.name!r}, inputs={len(self.inputs)}, outputs={len(self.outputs)})"

    def run(self, *arrays, device=None, runtime=None) -> list:
        """Run on ``device`` (default: ``runtime``'s device; no runtime: the current runtime's, read here at the
        API edge) with one array (or number, for scalar arguments) per input; returns one numpy array per output,
        shaped and typed as the tensor_list says."""
        values = self._check_inputs(arrays)
        if device is None:
            if runtime is None:
                from npusim.sim.runtime import current_runtime
                runtime = current_runtime()
            device = runtime.device
        allocated, launch_args, out_ptrs = [], [], []
        try:
            feed = iter(values)
            for spec, param in zip(self.args, self.kernel.params):
                if spec.kind == "scalar":
                    launch_args.append(next(feed))
                    continue
                if spec.output:
                    nbytes = max(_nbytes(spec), 1)
                    ptr = device.malloc(nbytes)
                    if not param.atomic_clean:     # the launch zeroes atomic-clean outputs; others start poisoned
                        device.memset(ptr, device.fill_byte, nbytes)
                    out_ptrs.append((ptr, spec))
                else:
                    ptr = device.to_device(next(feed))
                allocated.append(ptr)
                launch_args.append(ptr)
            device.launch(self.kernel, launch_args, block_dim=self.block_dim)
            device.synchronize()
            return [device.from_device(ptr, spec.shape, spec.dtype) for ptr, spec in out_ptrs]
        finally:
            for ptr in allocated:
                device.free(ptr)

    def _check_inputs(self, arrays: Sequence) -> list:
        if len(arrays) != len(self.inputs):
            names = ", ".join(a.name for a in self.inputs)
            raise TbeLaunchError(f"kernel '{self.name}' takes {len(self.inputs)} input(s) ({names}), "
                                 f"got {len(arrays)}")
        values = []
        for index, (spec, value) in enumerate(zip(self.inputs, arrays)):
            if spec.kind == "scalar":
                if isinstance(value, np.ndarray) and value.ndim > 0:
                    raise TbeLaunchError(f"kernel '{self.name}': input {index} ('{spec.name}') is a scalar, "
                                         f"got an array of shape {value.shape}")
                values.append(value.item() if isinstance(value, np.generic | np.ndarray) else value)
                continue
            array = np.asarray(value)
            if array.dtype.name != spec.dtype:
                raise TbeLaunchError(f"kernel '{self.name}': input {index} ('{spec.name}') must be {spec.dtype}, "
                                     f"got {array.dtype.name}")
            if tuple(array.shape) != spec.shape:
                raise TbeLaunchError(f"kernel '{self.name}': input {index} ('{spec.name}') must have shape "
                                     f"{list(spec.shape)}, got {list(array.shape)}")
            values.append(array)
        return values


def _nbytes(spec: ArgSpec) -> int:
    return int(np.prod(spec.shape, dtype=np.int64)) * np.dtype(spec.dtype).itemsize


def _json_path(name_or_path) -> Path:
    text = os.fspath(name_or_path)
    path = Path(text)
    if path.suffix == ".json":
        return path
    if path.suffix == BIN_SUFFIX:
        return path.with_suffix(".json")
    if os.sep in text or (os.altsep and os.altsep in text):
        return path.with_name(path.name + ".json")
    return kernel_meta_dir() / f"{text}.json"


def _read_meta(json_path: Path, label: str) -> dict:
    if not json_path.is_file():
        raise TbeLaunchError(f"kernel '{label}': {json_path} does not exist (build it with cce_build_code first)")
    try:
        meta = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TbeLaunchError(f"kernel '{label}': cannot read {json_path}: {exc}") from exc
    missing = [key for key in _REQUIRED_FIELDS if not isinstance(meta, dict) or key not in meta]
    if missing:
        raise TbeLaunchError(f"kernel '{label}': {json_path} lacks field(s) {', '.join(missing)}")
    if meta["magic"] != MAGIC:
        raise TbeLaunchError(f"kernel '{label}': {json_path} has magic {meta['magic']!r}, expected {MAGIC!r}")
    section = meta.get("npusim")
    if not isinstance(section, dict) or section.get("format") != META_FORMAT:
        raise TbeLaunchError(f"kernel '{label}': {json_path} was not written by npusim (no 'npusim' section of "
                             f"format {META_FORMAT}); a CANN-built .o cannot run on the simulator")
    problem = _field_problem(meta)
    if problem is not None:
        raise TbeLaunchError(f"kernel '{label}': {json_path} is malformed: {problem}")
    return meta


def _field_problem(meta: dict):
    """What is wrong with the types or values of the JSON fields a launch relies on, or None."""
    from npusim.sim.geometry import BLOCK_DIM_MAX
    name, suffix, block_dim = meta["binFileName"], meta["binFileSuffix"], meta["blockDim"]
    if not isinstance(name, str) or not _PLAIN_NAME.fullmatch(name) or ".." in name:
        return f'"binFileName" {name!r} is not a plain file name'
    if suffix != BIN_SUFFIX:
        return f'"binFileSuffix" {suffix!r} is not {BIN_SUFFIX!r}'
    if type(block_dim) is not int or not 1 <= block_dim <= BLOCK_DIM_MAX:
        return f'"blockDim" {block_dim!r} is not an integer in [1, {BLOCK_DIM_MAX}]'
    if not isinstance(meta["sha256"], str) or not isinstance(meta["kernelName"], str):
        return '"sha256" and "kernelName" must be strings'
    return None


def _arg_from_json(entry) -> ArgSpec:
    """One "args" entry as an ArgSpec; ValueError when a field has the wrong type or value."""
    if not isinstance(entry, dict):
        raise ValueError(f"an \"args\" entry is {type(entry).__name__}, not an object")
    name, shape, dtype = entry.get("name"), entry.get("shape"), entry.get("dtype")
    if not isinstance(name, str) or not isinstance(dtype, str):
        raise ValueError(f"argument {name!r}: \"name\" and \"dtype\" must be strings")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise ValueError(f"argument '{name}': shape {shape!r} is not a list of non-negative integers")
    if entry.get("kind", "gm") not in _ARG_KINDS or type(entry.get("output")) is not bool:
        raise ValueError(f"argument '{name}': \"kind\" must be one of {_ARG_KINDS} and \"output\" a boolean")
    np.dtype(dtype)  # TypeError for a name numpy does not know
    return ArgSpec.from_json(entry)


def _args_problem(args: tuple, kernel):
    """How the JSON's arguments disagree with the binary's parameters (count, kind, size in bytes), or None."""
    from npusim.sim.dtypes import itemsize
    params = [p for p in kernel.params if p.kind != "workspace"]
    if len(params) != len(args):
        return f"the binary takes {len(params)} argument(s) but the JSON lists {len(args)}"
    for index, (spec, param) in enumerate(zip(args, params)):
        if (spec.kind == "scalar") != (param.kind == "scalar"):
            return f"argument {index} ('{spec.name}') is {spec.kind} in the JSON but {param.kind} in the binary"
        if spec.kind == "gm" and _nbytes(spec) != param.size_elems * itemsize(param.dtype):
            return (f"argument {index} ('{spec.name}') of shape {list(spec.shape)} {spec.dtype} has "
                    f"{_nbytes(spec)} bytes but the binary's parameter has {param.size_elems * itemsize(param.dtype)}")
    return None


def load_built(name_or_path) -> BuiltKernel:
    """Read ``<kernel_meta>/<name>.json`` and its .o (a name, or a path to either file); checks the sha256."""
    json_path = _json_path(name_or_path)
    label = json_path.stem
    meta = _read_meta(json_path, label)
    if "deferred" in meta["npusim"]:  # a dynamic-shape op called with unknown dims: built per shape at launch
        from te_compat.build.deferred import DeferredKernel
        return DeferredKernel(json_path, meta)
    label = str(meta["binFileName"])
    obj_path = json_path.with_name(f"{meta['binFileName']}{meta['binFileSuffix']}")
    try:
        blob = obj_path.read_bytes()
    except OSError as exc:
        raise TbeLaunchError(f"kernel '{label}': cannot read its binary {obj_path}: {exc}") from exc
    digest = sha256_hex(blob)
    if digest != meta["sha256"]:
        raise TbeLaunchError(f"kernel '{label}': sha256 of {obj_path.name} is {digest}, but {json_path.name} "
                             f"says {meta['sha256']} (the files do not belong together)")
    from npusim.sim.kernel_io import kernel_from_bytes
    try:
        kernel = kernel_from_bytes(blob)
        raw_args = meta["npusim"].get("args")
        if not isinstance(raw_args, list):
            raise ValueError(f"\"args\" is {type(raw_args).__name__}, not a list")
        args = tuple(_arg_from_json(a) for a in raw_args)
    except (KernelFormatError, KeyError, TypeError, ValueError) as exc:
        raise TbeLaunchError(f"kernel '{label}': {obj_path.name} / {json_path.name} are malformed: {exc}") from exc
    problem = _args_problem(args, kernel)
    if problem is not None:
        raise TbeLaunchError(f"kernel '{label}': {problem}")
    expected = atomic_clean_flags(kernel)
    flags = meta.get("parameters", expected)
    if not isinstance(flags, list) or flags != expected:
        raise TbeLaunchError(f"kernel '{label}': the JSON's \"parameters\" {flags!r} disagree with the binary's "
                             f"atomic-clean parameters {expected}")
    return BuiltKernel(label, json_path, obj_path, kernel, args, meta)

