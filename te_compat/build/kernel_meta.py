"""The kernel_meta directory and its files: ``<name>.o`` (the serialised npusim kernel) and ``<name>.json``.

The JSON carries CANN's fields::

    {"binFileName": "<name>", "binFileSuffix": ".o", "blockDim": 1, "kernelName": "<name>__kernel0",
     "magic": "RT_DEV_BINARY_MAGIC_ELF", "opParaSize": 0, "parameters": [0, 0, 0], "sha256": "<of the .o>",
     "workspace": {"num": 1, "size": [1024], "type": [0]},          # only when the kernel has workspaces
     "npusim": {...}}

``parameters`` has one entry per kernel argument (tensor_list entries, then workspaces): 1 for an argument the
runtime must zero before each launch (an output or workspace the blocks atomically add into; the kernel
parameter's ``atomic_clean`` flag), else 0, as CANN writes it.  The ``npusim`` section holds what a relaunch
needs: the format version, the chip the kernel was built for, the scheduler's classification, and ``args`` — one
entry per tensor_list entry with name, shape, dtype, kind ("gm" | "scalar") and whether it is an output.

Where kernel_meta is: ``./kernel_meta`` under the current working directory (as TBE does), or the directory in
env ``NPUSIM_KERNEL_META``; code that builds on a user's behalf (Custom func_type="tbe") redirects it with
:func:`kernel_meta_override`.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from npusim.errors import TbeBuildError

ENV_VAR = "NPUSIM_KERNEL_META"
DIR_NAME = "kernel_meta"
BIN_SUFFIX = ".o"
MAGIC = "RT_DEV_BINARY_MAGIC_ELF"
META_FORMAT = 1

_override: contextvars.ContextVar = contextvars.ContextVar("npusim_kernel_meta_override", default=None)


def kernel_meta_dir() -> Path:
    """Where kernels are written: an active :func:`kernel_meta_override`, else ``$NPUSIM_KERNEL_META``, else
    ``<cwd>/kernel_meta`` (resolved now, so a later ``os.chdir`` moves it, as in TBE)."""
    forced = _override.get()
    if forced is not None:
        return forced
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path.cwd() / DIR_NAME


@contextlib.contextmanager
def kernel_meta_override(directory):
    """Make :func:`kernel_meta_dir` return ``directory`` inside the ``with`` block (this thread/context only)."""
    token = _override.set(Path(directory))
    try:
        yield Path(directory)
    finally:
        _override.reset(token)


@dataclass(frozen=True)
class ArgSpec:
    """One kernel argument as the JSON records it: name, shape (the tensor's), dtype, kind, output flag."""

    name: str
    shape: tuple
    dtype: str
    kind: str = "gm"
    output: bool = False

    def to_json(self) -> dict:
        return {"name": self.name, "shape": list(self.shape), "dtype": self.dtype, "kind": self.kind,
                "output": self.output}

    @staticmethod
    def from_json(data: dict) -> "ArgSpec":
        return ArgSpec(str(data["name"]), tuple(int(d) for d in data["shape"]), str(data["dtype"]),
                       str(data.get("kind", "gm")), bool(data["output"]))


def sha256_hex(blob: bytes) -> str:
    return hashlib.sha256(blob).hexdigest()


def atomic_clean_flags(kernel) -> list:
    """CANN's "parameters" list of a kernel: 1 per parameter zeroed before a launch (atomic clean), else 0."""
    return [1 if p.atomic_clean else 0 for p in kernel.params]


def meta_dict(name: str, kernel, args, blob: bytes, chip: str, classification: str) -> dict:
    """The JSON content for kernel ``kernel`` (an npusim Kernel) serialised as ``blob``."""
    from npusim.sim.dtypes import itemsize
    workspaces = [p for p in kernel.params if p.kind == "workspace"]
    meta = {"binFileName": name, "binFileSuffix": BIN_SUFFIX, "blockDim": int(kernel.block_dim),
            "kernelName": f"{name}__kernel0", "magic": MAGIC, "opParaSize": 0,
            "parameters": atomic_clean_flags(kernel), "sha256": sha256_hex(blob)}
    if workspaces:
        meta["workspace"] = {"num": len(workspaces), "size": [p.size_elems * itemsize(p.dtype) for p in workspaces],
                             "type": [0] * len(workspaces)}
    meta["npusim"] = {"format": META_FORMAT, "kernel": kernel.name, "chip": chip, "classification": classification,
                      "args": [a.to_json() for a in args]}
    return meta


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def write_kernel_files(directory: Path, name: str, kernel, args, chip: str, classification: str) -> tuple:
    """Write ``<directory>/<name>.o`` then ``<name>.json`` (each atomically); returns the JSON's path and content
    (the :func:`meta_dict`)."""
    blob = kernel.to_bytes()
    meta = meta_dict(name, kernel, args, blob, chip, classification)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _write_atomic(directory / f"{name}{BIN_SUFFIX}", blob)
        json_path = directory / f"{name}.json"
        _write_atomic(json_path, (json.dumps(meta, indent=2) + "\n").encode("utf-8"))
    except OSError as exc:
        raise TbeBuildError(f"cce_build_code of '{name}': cannot write kernel_meta files in '{directory}': "
                            f"{exc}") from exc
    return json_path, meta
