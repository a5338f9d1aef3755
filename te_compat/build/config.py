"""The config dict of ``cce_build_code(sch, config)`` / ``tbe.dsl.build(sch, config)``, checked and made frozen.

Keys TBE defines and npusim honours:

* ``name`` (default ``"cce_op"``): the kernel name; at most 200 characters of ``[A-Za-z0-9_]``.
* ``tensor_list`` (mandatory): the kernel's arguments in order — placeholders (inputs) and compute results
  (outputs).  ``tbe.dsl.build`` also takes a list of such lists, one per schedule of a dynamic-shape op.
* ``print_ir`` (default False): print the lowered program (see :mod:`te_compat.build.printer`).
* ``need_build`` (default True): accepted and ignored, as CANN 2020's cce_build_code ignores it (cube op files
  pass False and expect their kernel): the kernel_meta files are always written.
* ``bool_storage_as_1bit`` (default True): accepted; npusim always stores a bool in one byte (MindSpore hands
  bool tensors to TBE ops as int8 anyway), so the flag changes nothing.

Every other key is a TVM build-config passthrough of the real toolchain (``dump_cce_code``, ``sync_mode``,
``double_buffer_non_reuse``, ``dummy_placeholder``, ``fusion_build_config``, ``l1_fusion_option``,
``add_lower_pass``, ``dump_pass_ir``, ``instrument_bound_checkers``, ``disable_vectorize``,
``partition_const_loop``, ``build_args`` ...).  They tune the CCE code generator, which npusim does not have;
they are accepted and ignored, as TBE itself ignores keys it does not know.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from npusim.errors import TbeBuildError

DEFAULT_NAME = "cce_op"
MAX_NAME_CHARS = 200
_NAME_RE = re.compile(r"[A-Za-z0-9_]+")

#: keys with a meaning in npusim; any other key is a passthrough (see the module docstring)
KNOWN_KEYS = ("name", "tensor_list", "print_ir", "need_build", "bool_storage_as_1bit")
#: passthroughs seen in real op files, listed for documentation (all other keys are accepted the same way)
PASSTHROUGH_KEYS = ("dump_cce_code", "sync_mode", "double_buffer_non_reuse", "dummy_placeholder",
                    "fusion_build_config", "l1_fusion_option", "add_lower_pass", "dump_pass_ir",
                    "instrument_bound_checkers", "disable_vectorize", "partition_const_loop", "build_args")


@dataclass(frozen=True)
class BuildConfig:
    """A checked config: ``tensor_list`` is a tuple (the argument order), flags are bools."""

    name: str
    tensor_list: tuple
    print_ir: bool = False
    need_build: bool = True
    bool_storage_as_1bit: bool = True
    passthrough: tuple = ()


def check_kernel_name(name) -> str:
    """``name`` if it is a valid kernel name (str, 1..200 chars of [A-Za-z0-9_]); TbeBuildError otherwise."""
    if not isinstance(name, str):
        raise TbeBuildError(f"kernel name must be a str, but got {type(name).__name__} {name!r}")
    if len(name) > MAX_NAME_CHARS:
        raise TbeBuildError(f"kernel name '{name[:40]}...' has {len(name)} characters; at most {MAX_NAME_CHARS} "
                            f"are allowed")
    if not _NAME_RE.fullmatch(name):
        raise TbeBuildError(f"kernel name {name!r} is invalid: only letters, digits and '_' are allowed")
    return name


def _flag(config: dict, key: str, default: bool, name: str) -> bool:
    value = config.get(key, default)
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise TbeBuildError(f"cce_build_code of '{name}': config '{key}' must be a bool, but got {value!r}")


def parse_config(config) -> BuildConfig:
    """Check a user config dict and return it as a :class:`BuildConfig` (errors raise TbeBuildError)."""
    if not isinstance(config, dict):
        raise TbeBuildError(f"cce_build_code: 'config' must be a dict, but got {type(config).__name__}")
    name = check_kernel_name(config.get("name", DEFAULT_NAME))
    if "tensor_list" not in config or config["tensor_list"] is None:
        raise TbeBuildError(f"cce_build_code of '{name}': config 'tensor_list' is mandatory (the kernel's "
                            f"arguments in order: input placeholders and output tensors)")
    tensors = config["tensor_list"]
    if not isinstance(tensors, (list, tuple)) or not tensors:
        raise TbeBuildError(f"cce_build_code of '{name}': config 'tensor_list' must be a non-empty list, but got "
                            f"{tensors!r}")
    passthrough = tuple(sorted((str(k), repr(v)) for k, v in config.items() if k not in KNOWN_KEYS))
    return BuildConfig(name=name, tensor_list=tuple(tensors),
                       print_ir=_flag(config, "print_ir", False, name),
                       need_build=_flag(config, "need_build", True, name),
                       bool_storage_as_1bit=_flag(config, "bool_storage_as_1bit", True, name),
                       passthrough=passthrough)
