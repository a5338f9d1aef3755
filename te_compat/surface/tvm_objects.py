"""Thin wrappers that give op files CANN's old-TVM view of TVM 0.27 objects; no TVM class is modified.

CANN's TVM gave ``tensor.dtype`` and ``expr.dtype`` as a ``str``, and real op code relies on it
(``x.dtype.lower()``, ``x.dtype[:5]``, ``{...}[x.dtype]``, ``tvm.const(0, data(*i).dtype)``).  TVM 0.27 gives a
tensor a ``PrimType`` (equal to the name, but another hash and no ``str`` methods) and prim expressions no
``dtype`` at all.  So the op-file surface (the ``tvm`` API of ``te`` / ``tbe``, the DSL functions, ``tbe.dsl.var``)
returns wrappers:

* :class:`SurfaceTensor` for a ``te.Tensor``: ``dtype`` is a ``str``; ``shape`` a list of :class:`SurfaceExpr`
  dims; ``op`` a :class:`SurfaceNode`; ``name``, ``ndim``, ``same_as`` ...; ``x[i]`` and ``x(*i)`` give
  :class:`SurfaceExpr`; TVM's whole-tensor operators; hashing and ``==`` by the tensor.
* :class:`SurfaceExpr` for prim expressions, tensor slices, vars and iteration vars: ``dtype`` is a ``str``; the
  arithmetic, bitwise and comparison operators on both sides (with Python numbers and raw TVM values too);
  ``astype``, ``value``, ``int()`` / ``float()`` / ``bool()`` where TVM allows them; other attributes delegated.
* :class:`SurfaceNode` for operations and as the common base: attributes delegated, their values wrapped.

Whatever is reached through a wrapper (attributes, method results) is wrapped too: TVM ``Array`` values become
lists, ``PrimType`` values ``str``.  A wrapper converts itself when handed to TVM (see
:class:`te_compat.objects.Wrapper`); the surface entry points unwrap arguments with
:func:`te_compat.objects.raw_tree` before calling TVM or npusim's internals.

:func:`surface_function` makes an internal function a surface one (arguments unwrapped, result wrapped),
:func:`user_callback` does the reverse for a user function TVM calls (``fcompute``, ``fidentity``), and
:func:`served_class` gives op code class objects (``tvm.tensor.Tensor``, ``tvm.expr.IntImm``) whose ``isinstance``
answers for wrapped and raw objects alike.
"""
from __future__ import annotations

import functools
import inspect
import numbers
import operator

import tvm
from tvm.ir import Array
from tvm.ir.expr import ExprWithOp
from tvm.runtime import Object, ObjectConvertible
from tvm.tirx.expr import ExprOp

from te_compat.const_fold import fold
from te_compat.objects import Wrapper, dtype_of, raw, raw_tree


def wrap(value):
    """The surface view of one TVM value: a wrapper for a tensor, expression or operation; a plain ``str`` for a
    ``PrimType`` or TVM ``DataType``; a list of surface values for an ``Array``; anything else unchanged."""
    if isinstance(value, Wrapper):
        return value
    if isinstance(value, tvm.te.Tensor):
        return SurfaceTensor(value)
    if isinstance(value, (ExprWithOp, ExprOp, tvm.te.TensorSlice)):
        return SurfaceExpr(fold(value))  # float16 constant arithmetic folds, as in CANN's TVM
    if isinstance(value, tvm.te.tensor.Operation):
        return SurfaceNode(value)
    if isinstance(value, (tvm.ir.PrimType, tvm.DataType)):
        return str(value)
    if isinstance(value, Array):
        return [wrap_tree(item) for item in value]
    return value


def wrap_tree(value):
    """:func:`wrap` applied inside (nested) lists, tuples and dicts as well."""
    kind = type(value)
    if kind is list or kind is tuple:
        return kind(wrap_tree(item) for item in value)
    if kind is dict:
        return {key: wrap_tree(item) for key, item in value.items()}
    return wrap(value)


def surface_function(func):
    """``func`` as the op-file surface serves it: arguments unwrapped (:func:`raw_tree`), the result wrapped
    (:func:`wrap_tree`).  Name, docstring and signature are ``func``'s."""

    @functools.wraps(func)
    def call(*args, **kwargs):
        return wrap_tree(func(*raw_tree(args), **raw_tree(kwargs)))

    return call


def user_callback(func):
    """A user function TVM calls back (``compute``'s ``fcompute``, a reducer's ``fidentity``): it receives
    surface values and its result is unwrapped for TVM.  Keeps ``func``'s signature, which TVM reads."""

    def call(*args):
        return raw_tree(func(*wrap_tree(args)))

    try:
        call.__signature__ = inspect.signature(func)
    except (TypeError, ValueError):
        pass  # a callable without a signature: TVM then reads call's own (*args)
    call.__name__ = getattr(func, "__name__", "callback")
    call.__doc__ = getattr(func, "__doc__", None)
    return call


def _is_bound_method(value) -> bool:
    return callable(value) and not isinstance(value, (Object, ObjectConvertible, type))


class SurfaceNode(Wrapper):
    """A TVM object as op code sees it: attributes and method results delegated to it and wrapped; immutable;
    ``==``, ``hash``, ``repr`` and ``str`` are the object's own."""

    __slots__ = ()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = getattr(object.__getattribute__(self, "_raw"), name)
        return surface_function(value) if _is_bound_method(value) else wrap_tree(value)

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot set attribute {name!r}: {type(self._raw).__name__} objects are immutable")

    def __dir__(self):
        return sorted(set(dir(type(self))) | set(dir(self._raw)))

    def __repr__(self) -> str:
        return repr(self._raw)

    def __str__(self) -> str:
        return str(self._raw)

    def __hash__(self) -> int:
        return hash(self._raw)

    def __eq__(self, other):
        return wrap(self._raw == raw(other))

    def __ne__(self, other):
        return wrap(self._raw != raw(other))

    def __bool__(self) -> bool:
        return bool(self._raw)

    def __iter__(self):  # indexing never runs out (x[i] is a slice for any i): iterating must not loop forever
        raise TypeError(f"'{type(self._raw).__name__}' object is not iterable")

    def __copy__(self):
        return self  # TVM objects are immutable: a copy is the object itself

    def __deepcopy__(self, memo):
        return self


def _operand_ok(value) -> bool:
    return isinstance(value, (Wrapper, numbers.Number, Object, ObjectConvertible, ExprOp))


def _forward(op):
    def method(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return wrap(op(self._raw, raw(other)))

    return method


def _reflected(op):
    def method(self, other):
        if not _operand_ok(other):
            return NotImplemented
        return wrap(op(raw(other), self._raw))

    return method


def _unary(op):
    def method(self):
        return wrap(op(self._raw))

    return method


def _with_operators(cls, binary: dict, unary: dict | None = None, compare: dict | None = None):
    """``cls`` with ``__<name>__`` and ``__r<name>__`` for each binary operator, plus the unary and comparison
    dunders, each applying the operator to the wrapped object(s) and wrapping the result."""
    for name, op in binary.items():
        setattr(cls, f"__{name}__", _forward(op))
        setattr(cls, f"__r{name}__", _reflected(op))
    for name, op in (unary or {}).items():
        setattr(cls, f"__{name}__", _unary(op))
    for name, op in (compare or {}).items():  # Python reflects comparisons itself (a < b tries b > a)
        setattr(cls, f"__{name}__", _forward(op))
    return cls


_ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv}
_EXPR_BINARY = {**_ARITHMETIC, "floordiv": operator.floordiv, "mod": operator.mod, "lshift": operator.lshift,
                "rshift": operator.rshift, "and": operator.and_, "or": operator.or_, "xor": operator.xor}
_COMPARE = {"lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}


class SurfaceExpr(SurfaceNode):
    """A prim expression, tensor slice, ``Var`` or ``IterVar`` with a ``str`` dtype and TVM's operators."""

    __slots__ = ()

    @property
    def dtype(self) -> str:
        """The dtype name (``"float16"``)."""
        return dtype_of(self._raw)

    def __int__(self) -> int:
        return int(self._raw)

    def __float__(self) -> float:
        return float(self._raw)

    def __getitem__(self, index):
        return wrap(self._raw[raw_tree(index)])


_with_operators(SurfaceExpr, _EXPR_BINARY, {"neg": operator.neg, "invert": operator.invert}, _COMPARE)


class SurfaceTensor(SurfaceNode):
    """A ``te.Tensor`` with a ``str`` dtype, a list shape and surface expressions from indexing."""

    __slots__ = ()

    @property
    def dtype(self) -> str:
        """The element dtype name (``"float16"``)."""
        return str(self._raw.dtype)

    @property
    def shape(self) -> list:
        """The dimensions (surface expressions: ``shape[0].value`` is the int of a constant dim)."""
        return [wrap(dim) for dim in self._raw.shape]

    def __call__(self, *indices):
        return wrap(self._raw(*raw_tree(indices)))

    def __getitem__(self, indices):
        return wrap(self._raw[raw_tree(indices)])


_with_operators(SurfaceTensor, _ARITHMETIC, {"neg": operator.neg})


class _ServedClass(type):
    """Metaclass of :func:`served_class` classes: they stand for one TVM class (``tvm_class``)."""

    def __instancecheck__(cls, value) -> bool:
        return isinstance(raw(value), cls.tvm_class)

    def __subclasscheck__(cls, subclass) -> bool:
        return isinstance(subclass, type) and issubclass(subclass, cls.tvm_class)

    def __call__(cls, *args, **kwargs):
        return wrap_tree(cls.tvm_class(*raw_tree(args), **raw_tree(kwargs)))

    def __getattr__(cls, name):
        return getattr(cls.tvm_class, name)

    def __repr__(cls) -> str:
        return f"<class '{cls.__module__}.{cls.__name__}' serving {cls.tvm_class.__module__}.{cls.__name__}>"


def served_class(tvm_class, module: str):
    """A class object for op code standing for ``tvm_class``: ``isinstance`` / ``issubclass`` answer as for the
    TVM class with wrapped and raw objects alike, calling it constructs a (wrapped) TVM object, and other class
    attributes are the TVM class's.  ``module`` is the serving module's name (for ``repr``)."""
    namespace = {"tvm_class": tvm_class, "__module__": module, "__qualname__": tvm_class.__name__,
                 "__doc__": tvm_class.__doc__}
    return _ServedClass(tvm_class.__name__, (), namespace)


__all__ = ["SurfaceExpr", "SurfaceNode", "SurfaceTensor", "served_class", "surface_function", "user_callback",
           "wrap", "wrap_tree"]
