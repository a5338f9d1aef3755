"""Getting at a kernel function's source text and AST."""
from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from typing import Any

from npusim.errors import KernelBuildError


@dataclass(frozen=True)
class KernelSource:
    """A hybrid function's source.

    name: the function's name; text: its dedented source (the cache key); filename / first_line: where it was
    read from; tree: the ``ast.FunctionDef`` with line numbers of the original file; defaults: the function's
    ``__defaults__`` (used for trailing attribute parameters that a call leaves out).
    """

    name: str
    text: str
    filename: str
    first_line: int
    tree: ast.FunctionDef
    defaults: tuple = ()

    def where(self, node: ast.AST) -> str:
        """"file, line N" for messages."""
        return f"{self.filename}, line {getattr(node, 'lineno', self.first_line)}"

    @property
    def param_names(self) -> tuple:
        return tuple(arg.arg for arg in self.tree.args.args)


def original_function(func: Any):
    """The undecorated function behind ``func`` (follows ``__wrapped__`` chains set by functools.wraps)."""
    return inspect.unwrap(func)


def load_source(func: Any) -> KernelSource:
    """Read and parse the source of ``func`` (decorated or not).  Raises KernelBuildError when no source exists."""
    plain = original_function(func)
    name = getattr(plain, "__name__", repr(plain))
    try:
        lines, first_line = inspect.getsourcelines(plain)
        filename = inspect.getsourcefile(plain) or "<unknown>"
    except (OSError, TypeError) as exc:
        raise KernelBuildError(f"cannot read the source of hybrid function '{name}' ({exc}); hybrid kernels "
                               "must be defined in a file, not in an interactive session or exec()") from exc
    text = textwrap.dedent("".join(lines))
    module = ast.parse(text)
    tree = next((node for node in module.body if isinstance(node, ast.FunctionDef)), None)
    if tree is None:
        raise KernelBuildError(f"the source of '{name}' holds no function definition (lambdas are not kernels)")
    ast.increment_lineno(module, first_line - 1)
    return KernelSource(name=name, text=text, filename=filename, first_line=first_line, tree=tree,
                        defaults=tuple(getattr(plain, "__defaults__", None) or ()))
