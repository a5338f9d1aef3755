"""``op_def`` / ``op_doc``: MindSpore 2.7.1+'s graph-mode operator definitions (YAML) for a CustomOpBuilder.

MindSpore generates graph-mode operator registrations and Python wrappers from these files, and ``load()`` then
returns a proxy that looks a name up in the generated wrappers first, then in the pybind11 module.  npusim never
compiles a graph (GRAPH_MODE runs eagerly, like PYNATIVE_MODE) and generates nothing: the files are checked the way
MindSpore checks them (each exists and ends in .yaml/.yml), and ``load()`` returns an :class:`OpDefModule` whose
names are the pybind11 module's.  An op the YAML declares that the module does not bind raises
ExtensionOpNotGeneratedError (an AttributeError) saying so; any other missing name raises MindSpore's
AttributeError "Custom op '<name>' is neither in func_module nor in so_module."
"""
from __future__ import annotations

import os

import yaml

from npusim.errors.extension_build import ExtensionArgumentValueError, ExtensionOpNotGeneratedError

YAML_SUFFIXES = (".yaml", ".yml")


def check_yaml_files(key: str, paths: list) -> None:
    """FileNotFoundError for a missing file, ValueError for a name not ending in .yaml/.yml (MindSpore's
    checks when it copies them into the build directory)."""
    for path in paths:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"File not found: {path}")
        suffix = os.path.splitext(path)[1].lower()
        if suffix not in YAML_SUFFIXES:
            raise ExtensionArgumentValueError(f"Invalid file extension: {suffix} for {os.path.basename(path)} "
                                              f"(CustomOpBuilder '{key}')")


def declared_ops(paths: list) -> frozenset:
    """The op names the ``op_def`` files declare: each document's top-level keys, and the ``function: name``
    each op entry gives."""
    names = set()
    for path in paths:
        with open(path, encoding="utf-8") as stream:
            document = yaml.safe_load(stream)
        if not isinstance(document, dict):
            continue
        for op_name, entry in document.items():
            names.add(str(op_name))
            function = entry.get("function") if isinstance(entry, dict) else None
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                names.add(function["name"])
    return frozenset(names)


class OpDefModule:
    """What ``load()`` returns for a builder with ``op_def``: the pybind11 module's attributes, and clear errors
    for the YAML-only ops npusim does not generate."""

    def __init__(self, name: str, so_module, yaml_ops: frozenset):
        self._name, self._so_module, self._yaml_ops = name, so_module, yaml_ops

    @property
    def so_module(self):
        """The extension's pybind11 module."""
        return self._so_module

    def __getattr__(self, attr: str):
        if attr in ("_name", "_so_module", "_yaml_ops"):      # not set yet (copy, pickle): no recursion
            raise AttributeError(attr)
        try:
            return getattr(self._so_module, attr)
        except AttributeError:
            pass
        if attr in self._yaml_ops:
            raise ExtensionOpNotGeneratedError(
                f"Custom op '{attr}' of CustomOpBuilder '{self._name}' is declared only in its op_def YAML: "
                f"npusim generates no graph-mode operators from op_def (GRAPH_MODE runs eagerly); bind '{attr}' "
                f"with pybind11 (m.def) in the extension's sources to call it in either mode")
        raise AttributeError(f"Custom op '{attr}' is neither in func_module nor in so_module.")

    def __dir__(self):
        return dir(self._so_module)

    def __repr__(self) -> str:
        return f"<npusim CustomOpBuilder module {self._name!r} (op_def given) of {self._so_module!r}>"


__all__ = ["check_yaml_files", "declared_ops", "OpDefModule", "YAML_SUFFIXES"]
