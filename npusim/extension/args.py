"""Checking ``CustomOpBuilder``'s arguments as MindSpore 2.7.1+ does: a wrong type is a TypeError naming the
argument, a backend other than None/"CPU"/"Ascend" is a ValueError; unknown keyword arguments are ignored."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Optional

from npusim.errors.extension_build import ExtensionArgumentTypeError, ExtensionArgumentValueError

BACKENDS = ("CPU", "Ascend")
_WHO = "For 'CustomOpBuilder', the"


@dataclass(frozen=True)
class BuilderArgs:
    """``CustomOpBuilder``'s arguments after checking (lists of strings where MindSpore accepts a str or a
    list/tuple of them)."""

    name: str
    sources: list
    backend: Optional[str]
    include_paths: Optional[list]
    cflags: Optional[str]
    ldflags: Optional[str]
    build_dir: Optional[str]
    debug_mode: bool
    enable_atb: bool
    enable_asdsip: bool
    op_def: Optional[list]
    op_doc: Optional[list]


def _type_names(types) -> str:
    names = ["None" if t is type(None) else t.__name__ for t in types]
    return f"'{names[0]}'" if len(names) == 1 else "one of " + ", ".join(f"'{n}'" for n in names)


def check_type(key: str, value, types: tuple):
    """``value`` when it is an instance of ``types`` (a bool is not an int here), else TypeError naming ``key``."""
    if isinstance(value, bool) and bool not in types:
        ok = False
    else:
        ok = isinstance(value, types)
    if not ok:
        raise ExtensionArgumentTypeError(f"{_WHO} type of '{key}' should be {_type_names(types)}, but got type "
                                         f"'{type(value).__name__}'.")
    return value


def check_bool(key: str, value) -> bool:
    if not isinstance(value, bool):
        raise ExtensionArgumentTypeError(f"{_WHO} '{key}' must be a bool, but got type '{type(value).__name__}'.")
    return value


def str_or_list(key: str, value) -> Optional[list]:
    """None, or ``value`` (a str, or a list/tuple of str) as a list of str."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    check_type(key, value, (list, tuple))
    for item in value:
        if not isinstance(item, str):
            raise ExtensionArgumentTypeError(f"{_WHO} element of '{key}' should be 'str', but got type "
                                             f"'{type(item).__name__}'.")
    return list(value)


def check_args(name, sources, backend, include_paths, cflags, ldflags, kwargs: dict) -> BuilderArgs:
    """Check every argument in MindSpore's order; unknown keys of ``kwargs`` are ignored."""
    name = check_type("name", name, (str,))
    if not name.isidentifier():
        raise ExtensionArgumentValueError(f"{_WHO} 'name' must be a valid Python identifier (it names the module "
                                          f"'PyInit_<name>' defines), but got '{name}'.")
    sources = str_or_list("sources", sources)
    if sources is None:
        check_type("sources", sources, (str, list, tuple))
    check_type("backend", backend, (str, type(None)))
    if backend is not None and backend not in BACKENDS:
        raise ExtensionArgumentValueError(f"For 'backend', only 'CPU' or 'Ascend' are allowed, but got '{backend}'.")
    return BuilderArgs(
        name=name, sources=sources, backend=backend,
        include_paths=str_or_list("include_paths", include_paths),
        cflags=check_type("cflags", cflags, (str, type(None))),
        ldflags=check_type("ldflags", ldflags, (str, type(None))),
        build_dir=check_type("build_dir", kwargs.get("build_dir"), (str, os.PathLike, type(None))),
        debug_mode=check_bool("debug_mode", kwargs.get("debug_mode", False)),
        enable_asdsip=check_bool("enable_asdsip", kwargs.get("enable_asdsip", False)),
        op_def=str_or_list("op_def", kwargs.get("op_def")),
        op_doc=str_or_list("op_doc", kwargs.get("op_doc")),
        enable_atb=check_bool("enable_atb", kwargs.get("enable_atb", False)),
    )


def check_accelerator_backend(flag: str, backend: Optional[str]) -> None:
    """``enable_atb`` / ``enable_asdsip`` need the Ascend backend (or none given): ValueError otherwise."""
    if backend is not None and backend != "Ascend":
        raise ExtensionArgumentValueError(f"For 'CustomOpBuilder', when '{flag}' is set to True, the 'backend' must "
                                          f"be 'Ascend' (or left implicit), but got '{backend}'")


__all__ = ["BuilderArgs", "BACKENDS", "check_args", "check_type", "check_bool", "str_or_list",
           "check_accelerator_backend"]
