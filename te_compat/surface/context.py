"""Op and compute contexts of the dynamic-shape (``tbe.dsl``) style: ``OpContext``, ``tbe.compute()``, ``var``.

Served as ``tbe.common.context`` (``op_context.OpContext``, ``op_context.get_context``, ``op_info.OpInfo``) and
``tbe.dsl.base.operation`` (``compute``, ``dynamic``, ``static``, ``get_context``, ``add_compile_info``, ``var``,
``in_record``).  npusim builds every op for concrete shapes: an op context's mode is recorded and reported, but
``classify`` / ``variable_shape`` produce concrete shapes in every mode.  The contexts live on context-local stacks
(:class:`npusim.util.context_stack.ContextStack`: per thread and task, innermost last) for the duration of their
``with`` blocks.
"""
from __future__ import annotations

import contextlib

from npusim.errors import TbeArgumentError
from npusim.util.context_stack import ContextStack

OP_MODES = ("static", "dynamic", "pre-static")

_OP_CONTEXTS = ContextStack("npusim_tbe_op_contexts")  # entered OpContext objects
_COMPUTES = ContextStack("npusim_tbe_computes")  # entered ComputeContext objects


class OpInfo:
    """``tbe.common.context.op_info.OpInfo``: the name, type and tensor dicts of the op being built."""

    def __init__(self, op_name=None, op_type=None):
        self.op_name = op_name
        self.op_type = op_type
        self.inputs: list = []
        self.outputs: list = []
        self.attrs: list = []
        self.kernel_name = op_name
        self.extra_params: dict = {}


class ComputeContext:
    """One ``with tbe.compute():`` block: the vars created in it and free-form key/value entries."""

    def __init__(self):
        self.vars: list = []
        self._entries: dict = {}

    def add(self, key, value) -> None:
        self._entries[key] = value

    def get(self, key):
        return self._entries.get(key)

    def get_vars(self) -> list:
        return list(self.vars)

    def get_pattern(self):
        return self._entries.get("_pattern")


class OpContext:
    """``with OpContext("static"):`` — the context CANN's compiler opens around a dynamic-style op."""

    def __init__(self, mode: str = "static"):
        if mode not in OP_MODES:
            raise TbeArgumentError(f"OpContext: mode must be one of {OP_MODES}, got {mode!r}")
        self.mode = mode
        self.op_type = None
        self.op_infos: list = []
        self.compile_info: dict = {}
        self.additions: dict = {}
        self.build_results: dict = {}
        self.vars: list = []
        self._tokens: list = []

    def __enter__(self) -> "OpContext":
        self._tokens.append(_OP_CONTEXTS.push(self))
        return self

    def __exit__(self, *exc) -> None:
        _OP_CONTEXTS.pop(self._tokens.pop())

    # --- CANN's OpContext methods ---
    def get_op_mode(self) -> str:
        return self.mode

    def set_op_mode(self, mode: str) -> None:
        if mode not in OP_MODES:
            raise TbeArgumentError(f"OpContext.set_op_mode: mode must be one of {OP_MODES}, got {mode!r}")
        self.mode = mode

    def get_mode(self) -> str:
        return self.mode

    def set_op_type(self, op_type) -> None:
        self.op_type = op_type

    def get_op_type(self):
        return self.op_type

    def add_op_info(self, op_info: OpInfo) -> None:
        self.op_infos.append(op_info)

    def get_op_info(self, op_name=None):
        """All op infos (no name) or the one called ``op_name`` (None if absent)."""
        if op_name is None:
            return list(self.op_infos)
        return next((info for info in self.op_infos if info.op_name == op_name), None)

    def add_addition(self, key, value) -> None:
        self.additions[key] = value

    def get_addition(self, key):
        return self.additions.get(key)

    def add_compile_info(self, key, value) -> None:
        self.compile_info[key] = value

    def get_compile_info(self, key):
        return self.compile_info.get(key)

    def get_compile_info_all(self) -> dict:
        return dict(self.compile_info)

    def add_build_res(self, key, value) -> None:
        self.build_results[key] = value

    def get_build_res(self, key):
        return self.build_results.get(key)

    # --- the operation-context spelling (tbe.dsl.base.operation.get_context().add/get) ---
    def add(self, key, value) -> None:
        self.additions[key] = value

    def get(self, key):
        return self.additions.get(key)

    def get_current_compute(self):
        return current_compute()


def get_context():
    """The innermost active :class:`OpContext`, or None outside any."""
    return _OP_CONTEXTS.top()


def current_compute():
    """The innermost active :class:`ComputeContext`, or None."""
    return _COMPUTES.top()


@contextlib.contextmanager
def compute():
    """``with tbe.compute():`` — one compute of a classified input combination."""
    context = ComputeContext()
    token = _COMPUTES.push(context)
    try:
        yield context
    finally:
        _COMPUTES.pop(token)


def dynamic() -> OpContext:
    """``with operation.dynamic():`` — an op context in "dynamic" mode (npusim still needs concrete shapes)."""
    return OpContext("dynamic")


def static() -> OpContext:
    """``with operation.static():`` — an op context in "static" mode."""
    return OpContext("static")


def in_record() -> bool:
    """Whether a fusion compile is recording the op's compute: never in npusim (ops are built one at a time)."""
    return False


def in_dynamic() -> bool:
    """Whether the active op context is in "dynamic" mode."""
    context = get_context()
    return context is not None and context.mode == "dynamic"


def add_compile_info(key, value) -> None:
    """Record a compile-info entry in the active op context (CANN's tiling data)."""
    context = get_context()
    if context is None:
        raise TbeArgumentError(f"add_compile_info({key!r}) needs an active op context "
                               f"(with tbe.common.context.op_context.OpContext(): ...)")
    context.add_compile_info(key, value)


def get_compile_info() -> dict:
    """The active op context's compile info ({} outside any)."""
    context = get_context()
    return {} if context is None else context.get_compile_info_all()


def var(name: str, bound=None, dtype: str = "int32", addition=None):
    """A named shape/scalar variable (a TVM ``Var``, as a surface expression: ``dtype`` a ``str``).  npusim lowers
    only concrete shapes, so a shape built from vars cannot be scheduled; use them for scalar parameters.  ``bound``
    is recorded with the var (the raw TVM ``Var``)."""
    import tvm
    from te_compat.surface.tvm_objects import wrap
    if not isinstance(name, str) or not name:
        raise TbeArgumentError(f"var needs a non-empty name, got {name!r}")
    variable = tvm.te.var(name, dtype)
    record = (variable, bound, addition)
    for scope in (current_compute(), get_context()):
        if scope is not None:
            scope.vars.append(record)
    return wrap(variable)


__all__ = ["ComputeContext", "OP_MODES", "OpContext", "OpInfo", "add_compile_info", "compute", "current_compute",
           "dynamic", "get_compile_info", "get_context", "in_dynamic", "in_record", "static", "var"]
