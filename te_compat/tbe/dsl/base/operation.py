"""``tbe.dsl.base.operation``: compute/op contexts, compile info and vars (see :mod:`te_compat.surface.context`)."""
from te_compat.surface.context import (  # noqa: F401
    add_compile_info, compute, current_compute, dynamic, get_compile_info, get_context, in_dynamic, in_record, static,
    var)

get_op_context = get_context

__all__ = ["add_compile_info", "compute", "current_compute", "dynamic", "get_compile_info", "get_context",
           "get_op_context", "in_dynamic", "in_record", "static", "var"]
