"""npusim's own modules as parsed ASTs, for the architecture tests (layers, state, hardware numbers)."""
from __future__ import annotations

import ast
import functools
import importlib.util
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("npusim", "te_compat", "aicpu_loader")


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module

    @property
    def rel(self) -> str:
        return str(self.path.relative_to(REPO))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@functools.lru_cache(maxsize=None)   # test-side memo of parsed sources (not npusim state)
def modules() -> tuple:
    found = []
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            found.append(Module(_module_name(path), path, ast.parse(path.read_text(encoding="utf-8"), str(path))))
    return tuple(found)


def _is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def imports(module: Module):
    """(imported module name, line) for every import in ``module``, function-level ones included; ``from X import
    y`` names ``X.y`` when that is a module of npusim's, else ``X``."""
    package = module.name if module.path.name == "__init__.py" else module.name.rpartition(".")[0]
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                yield (candidate if _is_module(candidate) else target), node.lineno


def own(name: str) -> bool:
    return name.split(".")[0] in PACKAGES


def spec_exists(name: str) -> bool:
    return importlib.util.find_spec(name) is not None
