"""TIK's data objects: tensors (and their element views), Scalars, InputScalars, the CMPMASK handle, scopes.

They are thin subclasses of :mod:`npusim.sim.builder`'s handles, so instructions lower with ``raw()`` onto the
kernel format: a tensor or an element view is a ``BufRef`` (buffer name + element offset), a Scalar a register
``Var``, every arithmetic on them a symbolic expression (``npusim.sim.builder.E``).  Indexing follows TIK: one
index on an N-D tensor is a flat element offset, a tuple is row-major (a slice means its start), chains add.
"""
from __future__ import annotations

from math import prod

from npusim.errors.tik import TikScopeError, TikSyntaxError
from npusim.sim.builder import E, ScalarHandle, TensorHandle, TensorRef, raw
from npusim.sim.dtypes import canonical_dtype, itemsize

#: TIK's scope constants (the strings tik.scope_* hold) and the simulator scope each names
scope_gm, scope_ubuf, scope_cbuf = "global", "local.UB", "local.L1"
scope_ca, scope_cb, scope_cc, scope_cbuf_out = "local.L0A", "local.L0B", "local.L0C", "local.L1_OUT"
SCOPES = {scope_gm: "GM", scope_ubuf: "UB", scope_cbuf: "L1", scope_ca: "L0A", scope_cb: "L0B", scope_cc: "L0C",
          scope_cbuf_out: "L0C"}
_TIK_SCOPE = {"GM": scope_gm, "UB": scope_ubuf, "L1": scope_cbuf, "L0A": scope_ca, "L0B": scope_cb, "L0C": scope_cc}


def sim_scope(scope) -> str:
    """The simulator scope ("GM", "UB" ...) of a TIK scope constant; TikScopeError for anything else."""
    found = SCOPES.get(scope)
    if found is None:
        raise TikScopeError(f"scope should be one of tik.scope_gm, scope_ubuf, scope_cbuf, scope_cbuf_out, "
                            f"scope_ca, scope_cb, scope_cc, input scope: {scope!r}")
    return found


class TikTensor(TensorHandle):
    """``tik_instance.Tensor(...)``: a GM or local tensor.  ``t[i]`` / ``t[i, j]`` / ``t[a:]`` are element views
    (operand start addresses); ``reinterpret_cast_to`` / ``reshape`` view the same bytes differently."""

    def __init__(self, builder, name, dtype, shape, scope, view_dtype=None, *, user_name=None,
                 is_workspace=False, is_atomic_add=False):
        super().__init__(builder, name, dtype, shape, scope, view_dtype)
        self.user_name = user_name or name
        self.is_workspace, self.is_atomic_add = is_workspace, is_atomic_add

    @property
    def tik_scope(self) -> str:
        """The TIK scope constant (tik.scope_ubuf ...)."""
        return _TIK_SCOPE[self.scope]

    @property
    def buffer_size_bytes(self) -> int:
        return self.size * itemsize(self.dtype)

    def __getitem__(self, index) -> "TikRef":
        return TikRef(self, self.flat_index(index))

    def reinterpret_cast_to(self, dtype: str) -> "TikTensor":
        """The same bytes as ``dtype`` elements (sizes and offsets then count ``dtype`` elements)."""
        new = canonical_dtype(dtype)
        total = self.buffer_size_bytes
        return self._derive(new, (total // itemsize(new),), new)

    def reshape(self, new_shape) -> "TikTensor":
        """The same elements with another shape (same element count)."""
        shape = tuple(int(d) for d in (new_shape if isinstance(new_shape, (tuple, list)) else (new_shape,)))
        if prod(shape) != self.size:
            raise TikSyntaxError(f"reshape of tensor {self.user_name}: {list(shape)} holds {prod(shape)} elements, "
                                 f"the tensor {self.size}")
        return self._derive(self.dtype, shape, self.view_dtype)

    def _derive(self, dtype, shape, view) -> "TikTensor":
        return TikTensor(self.builder, self.name, dtype, shape, self.scope, view, user_name=self.user_name,
                         is_workspace=self.is_workspace, is_atomic_add=self.is_atomic_add)

    def __repr__(self) -> str:
        return f"Tensor({self.user_name}, {self.dtype}{list(self.shape)}, {self.tik_scope})"


class TikRef(TensorRef):
    """An element view ``t[i]``: an operand start address; ``set_as(v)`` stores ``v`` there."""

    @property
    def dtype(self) -> str:
        return self.tensor.dtype

    @property
    def scope(self) -> str:
        return self.tensor.scope

    def __getitem__(self, index) -> "TikRef":
        from npusim.sim.builder import _add
        return TikRef(self.tensor, _add(self.offset, self.tensor.flat_index(index)))

    def reinterpret_cast_to(self, dtype: str) -> "TikRef":
        """This element's address seen as ``dtype`` (the byte offset must fall on a ``dtype`` element)."""
        new = canonical_dtype(dtype)
        offset = raw(self.offset)
        if isinstance(offset, int):
            offset = offset * itemsize(self.dtype) // itemsize(new)
        else:
            offset = (E(offset) * itemsize(self.dtype) // itemsize(new)).expr
        return TikRef(self.tensor.reinterpret_cast_to(new), offset)

    def set_as(self, value) -> None:
        if isinstance(value, TensorRef):  # element to element: through a scalar register, as TIK does
            value = self.tensor.builder.tik.Scalar(value.tensor.dtype, init_value=value)
        self.tensor.builder.emit("sstore", self, value)

    def __repr__(self) -> str:
        return f"{self.tensor.user_name}[{raw(self.offset)!r}]"


class TikScalar(ScalarHandle):
    """``tik_instance.Scalar(dtype, name, init_value)``: a scalar register; ``set_as`` writes it from a number,
    an Expr or a tensor element."""

    def set_as(self, value) -> None:
        if isinstance(value, TensorRef):
            self.builder.emit("sload", self.name, value)
        else:
            self.builder.emit("sset", self.name, value)

    def __repr__(self) -> str:
        return f"Scalar({self.name}, {self.dtype})"


class TikInputScalar(E):
    """``tik_instance.InputScalar(dtype, name)``: a scalar argument of the kernel (BuildCCE inputs/flowtable)."""

    def __init__(self, expr, name: str, dtype: str):
        super().__init__(expr)
        self.name, self.dtype = name, dtype

    def __repr__(self) -> str:
        return f"InputScalar({self.name}, {self.dtype})"


class CmpMask:
    """What ``vcmp_*`` returns: the core's CMPMASK register, to pass as ``sel`` of ``vsel`` (mode 0)."""

    def __repr__(self) -> str:
        return "CMPMASK"


def tik_all(*conds) -> E:
    """``tik.all``: logical and of Exprs and Python bools."""
    return _combine("land", conds)


def tik_any(*conds) -> E:
    """``tik.any``: logical or of Exprs and Python bools."""
    return _combine("lor", conds)


def _combine(op: str, conds) -> E:
    from npusim.sim.kernel import BinOp
    if not conds:
        raise TikSyntaxError(f"tik.{'all' if op == 'land' else 'any'} needs at least one condition")
    result = raw(conds[0])
    for cond in conds[1:]:
        result = BinOp(op, result, raw(cond))
    return E(result)


__all__ = ["CmpMask", "SCOPES", "TikInputScalar", "TikRef", "TikScalar", "TikTensor", "scope_ca", "scope_cb",
           "scope_cbuf", "scope_cbuf_out", "scope_cc", "scope_gm", "scope_ubuf", "sim_scope", "tik_all", "tik_any"]
