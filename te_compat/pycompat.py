"""Runtime adjustments that let 2020-2022 TBE op files run unmodified on Python 3.11 and TVM 0.27.

Both are explicit, idempotent and reversible; importing ``te``, ``tbe`` or ``topi`` (the compat surface) calls
:func:`install` once.

* :func:`restore_collections_aliases`: ``from collections import Iterable`` (removed in Python 3.10) works again;
  the names are the ``collections.abc`` classes themselves.
* :func:`install_str_dtypes`: CANN's TVM returned ``tensor.dtype`` as a ``str`` and real op code calls
  ``x.dtype.lower()``, slices it or uses it as a dict key.  TVM 0.27 returns a ``PrimType`` (no ``lower``, a
  different hash) and prim expressions have no ``dtype`` at all.  Installed, ``Tensor.dtype`` / ``TensorSlice.dtype``
  and ``<prim expr>.dtype`` return a :class:`DTypeStr`: a real ``str`` that also answers the ``PrimType``
  attributes TVM's own code uses (``matches_code``, ``bits``, ``lanes``...), so TVM and topi keep working.
  ``Tensor.expr_ty()`` keeps returning the ``PrimType``.
"""
from __future__ import annotations

import collections
import collections.abc

#: names 2020 op files import from ``collections`` that Python 3.10 moved to ``collections.abc`` only
COLLECTIONS_ABC_NAMES = (
    "Awaitable", "Coroutine", "AsyncIterable", "AsyncIterator", "AsyncGenerator", "Hashable", "Iterable",
    "Iterator", "Generator", "Reversible", "Sized", "Container", "Callable", "Collection", "Set", "MutableSet",
    "Mapping", "MutableMapping", "MappingView", "KeysView", "ItemsView", "ValuesView", "Sequence",
    "MutableSequence", "ByteString",
)

_restored: list = []  # names this module added to ``collections`` (so they can be removed again)
_saved_tvm: dict = {}  # original TVM attributes replaced by install_str_dtypes, for uninstall_str_dtypes


def restore_collections_aliases() -> tuple:
    """Put the ``collections.abc`` ABCs back as ``collections.<Name>``; returns the names added by this call."""
    added = []
    for name in COLLECTIONS_ABC_NAMES:
        if not hasattr(collections, name) and hasattr(collections.abc, name):
            setattr(collections, name, getattr(collections.abc, name))
            added.append(name)
    _restored.extend(added)
    return tuple(added)


def remove_collections_aliases() -> None:
    """Undo :func:`restore_collections_aliases`."""
    while _restored:
        name = _restored.pop()
        if getattr(collections, name, None) is getattr(collections.abc, name, object()):
            delattr(collections, name)


class DTypeStr(str):
    """A dtype name (``"float16"``) that also carries TVM's ``PrimType`` and forwards unknown attributes to it."""

    __slots__ = ("prim_type",)

    def __new__(cls, prim_type):
        obj = super().__new__(cls, str(prim_type))
        obj.prim_type = prim_type
        return obj

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "prim_type"), name)

    def __reduce__(self):  # pickle / deepcopy as the plain name
        return (str, (str(self),))


def _tensor_dtype(tensor):
    return DTypeStr(_saved_tvm["Tensor.dtype"].fget(tensor))


def _tensor_expr_ty(tensor):
    return _saved_tvm["Tensor.dtype"].fget(tensor)


def _expr_dtype(expr):
    import tvm
    ty = expr.ty
    if not isinstance(ty, tvm.ir.PrimType):
        raise AttributeError(f"{type(expr).__name__} of type {ty} has no scalar dtype")
    return DTypeStr(ty)


def _var_dtype(var):
    try:  # TVM's own property: the element dtype of a buffer Var
        return _saved_tvm["Var.dtype"].fget(var)
    except AttributeError:  # a scalar Var: its dtype name, as CANN's TVM gave it
        return _expr_dtype(var)


def install_str_dtypes() -> None:
    """Make ``tensor.dtype`` and ``prim_expr.dtype`` :class:`DTypeStr` values (see the module docstring).
    TVM's ``Var.dtype`` (defined for buffer Vars only) is extended to scalar Vars."""
    if _saved_tvm:
        return
    from tvm.ir import Var
    from tvm.ir.expr import ExprWithOp
    from tvm.te import tensor as te_tensor
    _saved_tvm["Tensor.dtype"] = te_tensor.Tensor.__dict__["dtype"]
    _saved_tvm["Tensor.expr_ty"] = te_tensor.Tensor.__dict__["expr_ty"]
    _saved_tvm["ExprWithOp.dtype"] = ExprWithOp.__dict__.get("dtype")
    _saved_tvm["Var.dtype"] = Var.__dict__["dtype"]
    te_tensor.Tensor.dtype = property(_tensor_dtype, doc="Element dtype name (a str, as in CANN's TVM).")
    te_tensor.Tensor.expr_ty = _tensor_expr_ty
    ExprWithOp.dtype = property(_expr_dtype, doc="Scalar dtype name of a prim expression (a str).")
    Var.dtype = property(_var_dtype, doc="Buffer element dtype (buffer Vars) or scalar dtype name (a str).")


def uninstall_str_dtypes() -> None:
    """Restore TVM's own ``dtype`` attributes."""
    if not _saved_tvm:
        return
    from tvm.ir import Var
    from tvm.ir.expr import ExprWithOp
    from tvm.te import tensor as te_tensor
    Var.dtype = _saved_tvm["Var.dtype"]
    te_tensor.Tensor.dtype = _saved_tvm["Tensor.dtype"]
    te_tensor.Tensor.expr_ty = _saved_tvm["Tensor.expr_ty"]
    if _saved_tvm["ExprWithOp.dtype"] is None:
        del ExprWithOp.dtype
    else:
        ExprWithOp.dtype = _saved_tvm["ExprWithOp.dtype"]
    _saved_tvm.clear()


def str_dtypes_installed() -> bool:
    return bool(_saved_tvm)


def install() -> None:
    """Everything above (called when ``te``, ``tbe`` or ``topi`` is imported)."""
    restore_collections_aliases()
    install_str_dtypes()


__all__ = ["COLLECTIONS_ABC_NAMES", "DTypeStr", "install", "install_str_dtypes", "remove_collections_aliases",
           "restore_collections_aliases", "str_dtypes_installed", "uninstall_str_dtypes"]
