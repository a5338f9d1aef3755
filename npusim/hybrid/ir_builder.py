"""The TVM surface akg ``ir_builder`` kernels are written against (AKG's TVM 0.6 API), building TVM 0.27 TIR.

An akg function of the ir_builder kind (MindSpore sniffs "ir_builder" in its source) is called by AKG as
``func(inputs, attrs)``: ``inputs`` are placeholder tensors, ``attrs`` a dict of the op's attributes, and the
function returns the output tensor(s) of a ``tvm.extern`` whose body it writes with ``tvm.ir_builder``::

    def v_add(inputs, attrs):
        def vadd_func(dst, data_1, data_2):
            ib = tvm.ir_builder.create()
            with ib.for_range_n(data_1.shape, "i") as i:
                ib.store(dst, i, ib.load(data_1, i) + ib.load(data_2, i))
            return ib.get()
        return tvm.extern(data_1.shape, [data_1, data_2], lambda ins, outs: vadd_func(outs[0], ins[0], ins[1]),
                          name="v_add", dtype=data_1.dtype)

:func:`namespace` is the ``tvm`` such functions see.  Supported: ``ir_builder.create()`` with ``for_range``,
``for_range_n``, ``if_scope`` / ``else_scope`` / ``new_scope``, ``load`` / ``store`` (an index list per
dimension, or one flat index), ``allocate``, ``buffer_ptr`` (flat ``ptr[i]`` access), ``emit``, ``likely``,
``scope_attr`` (ignored), ``get``; ``extern`` (one or several outputs, ``out_buffers``), ``placeholder``,
``decl_buffer``, ``const``, ``all`` / ``any``, ``if_then_else`` / ``select``, ``max`` / ``min``,
``max_value`` / ``min_value`` and the math functions.  Anything else raises UnsupportedError naming it.
"""
from __future__ import annotations

import contextlib
import types

from tvm import tirx

from npusim.errors import UnsupportedError
from npusim.hybrid.values import const, declare_buffer, seq

_MATH = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "abs", "floor", "ceil", "round", "trunc", "erf", "sin",
         "cos", "atan", "atan2", "power", "pow", "isnan", "isinf", "log1p", "exp2", "log2", "log10", "fmod")


class ExternStage:
    """One ``tvm.extern``: its input tensors, output buffers and body."""

    def __init__(self, name, inputs, out_buffers, body):
        self.name, self.inputs, self.out_buffers, self.body = name, list(inputs), list(out_buffers), body


class Tensor:
    """A placeholder or an extern output: ``shape`` (list of ints), ``dtype``, ``name``, ``op.name``."""

    def __init__(self, name: str, shape, dtype: str, buffer=None, stage=None, index=0):
        self.name, self.shape, self.dtype = name, [int(d) for d in shape], str(dtype)
        self.buffer = buffer if buffer is not None else declare_buffer(name, tuple(self.shape), self.dtype)
        self.stage, self.value_index = stage, index
        self.op = types.SimpleNamespace(name=name, output=lambda i, t=self: t)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __call__(self, *indices):
        return tirx.BufferLoad(self.buffer, [_index(i) for i in indices])

    def __repr__(self):
        return f"Tensor({self.name}, shape={self.shape}, dtype={self.dtype})"


class BufferView:
    """A buffer as ``fcompute`` receives it: ``shape``, ``dtype``, ``name``, ``vload`` / ``vstore``."""

    def __init__(self, buffer):
        self.buffer = buffer
        self.name, self.dtype = buffer.name, str(buffer.dtype)
        self.shape = [int(d) for d in buffer.shape]
        self.data = buffer

    def vload(self, begin, dtype=None):
        return load(self, begin)

    def vstore(self, begin, value):
        return store_stmt(self, begin, value)


class Pointer:
    """``ib.buffer_ptr(buf)`` / ``ib.allocate(...)``: flat element access ``ptr[i]`` (read and write)."""

    def __init__(self, builder, view: BufferView):
        self._builder, self._view = builder, view
        self.dtype, self.name = view.dtype, view.name

    def __getitem__(self, index):
        return load(self._view, index)

    def __setitem__(self, index, value):
        self._builder.emit(store_stmt(self._view, index, value))

    def asobject(self):
        return self._view


class IRBuilder:
    """AKG's ``tvm.ir_builder.create()``: statements are collected per scope; :meth:`get` returns them."""

    def __init__(self):
        self._scopes = [[]]

    def emit(self, stmt) -> None:
        if stmt is not None:
            self._scopes[-1].append(stmt)

    @contextlib.contextmanager
    def _scope(self, wrap):
        self._scopes.append([])
        try:
            yield
        finally:
            body = seq(self._scopes.pop())
            self.emit(wrap(body))

    @contextlib.contextmanager
    def for_range(self, begin, end, name="i", dtype="int32", for_type="serial"):
        var = tirx.Var(name, dtype)
        low, high = _index(begin, dtype), _index(end, dtype)
        extent = high if isinstance(low, tirx.IntImm) and int(low.value) == 0 else tirx.Sub(high, low)
        with self._scope(lambda body: tirx.For(var, low, extent, tirx.ForKind.SERIAL, body)):
            yield var

    @contextlib.contextmanager
    def for_range_n(self, shape, name="i", for_type="serial"):
        variables = []
        with contextlib.ExitStack() as stack:
            for axis, extent in enumerate(shape):
                variables.append(stack.enter_context(self.for_range(0, extent, name=f"{name}{axis}")))
            yield variables

    @contextlib.contextmanager
    def if_scope(self, cond):
        with self._scope(lambda body: tirx.IfThenElse(_bool(cond), body, None)):
            yield

    @contextlib.contextmanager
    def else_scope(self):
        last = self._scopes[-1][-1] if self._scopes[-1] else None
        if not isinstance(last, tirx.IfThenElse) or last.else_case is not None:
            raise UnsupportedError("ir_builder: else_scope() must directly follow an if_scope()")
        self._scopes[-1].pop()
        with self._scope(lambda body: tirx.IfThenElse(last.condition, last.then_case, body)):
            yield

    @contextlib.contextmanager
    def new_scope(self):
        with self._scope(lambda body: body):
            yield

    def load(self, buf, index):
        return load(buf, index)

    def store(self, buf, index, value):
        self.emit(store_stmt(buf, index, value))

    def allocate(self, dtype, shape, name="buf", scope=None):
        extents = tuple(int(d) for d in (shape if isinstance(shape, (list, tuple)) else [shape]))
        buffer = declare_buffer(name, extents, str(dtype))
        self.emit(tirx.AllocBuffer(buffer))
        return Pointer(self, BufferView(buffer))

    def buffer_ptr(self, buf):
        return Pointer(self, _view(buf))

    def likely(self, expr):
        return expr

    def scope_attr(self, node, attr_key, value):
        return None

    def get(self):
        return seq(self._scopes[0])


def _view(buf) -> BufferView:
    if isinstance(buf, BufferView):
        return buf
    if isinstance(buf, Pointer):
        return buf.asobject()
    if isinstance(buf, Tensor):
        return BufferView(buf.buffer)
    raise UnsupportedError(f"ir_builder: expected a buffer, got {type(buf).__name__}")


def _index(value, dtype="int32"):
    return const(value, dtype) if isinstance(value, int) else value


def _bool(cond):
    if isinstance(cond, bool):
        return tirx.const(cond, "bool")
    return cond if str(cond.ty) == "bool" else tirx.NE(cond, const(0, str(cond.ty)))


def indices_of(view: BufferView, index) -> list:
    """The per-dimension indices of ``index``: a list with one entry per dimension, or one flat index."""
    items = list(index) if isinstance(index, (list, tuple)) else [index]
    items = [_index(i) for i in items]
    if len(items) == len(view.shape):
        return items
    if len(items) == 1:   # a flat index into a multi-dimensional buffer
        flat, result = items[0], []
        for axis in range(len(view.shape) - 1, -1, -1):
            result.insert(0, tirx.floormod(flat, const(view.shape[axis], "int32")) if axis else flat)
            flat = tirx.floordiv(flat, const(view.shape[axis], "int32"))
        return result
    raise UnsupportedError(f"ir_builder: buffer '{view.name}' has {len(view.shape)} dimensions, but the index "
                           f"has {len(items)}")


def load(buf, index):
    view = _view(buf)
    return tirx.BufferLoad(view.buffer, indices_of(view, index))


def store_stmt(buf, index, value):
    view = _view(buf)
    if isinstance(value, (int, float, bool)):
        value = const(value, view.dtype)
    elif str(value.ty) != view.dtype:
        value = tirx.Cast(view.dtype, value)
    return tirx.BufferStore(view.buffer, value, indices_of(view, index))


def _is_single_shape(shape) -> bool:
    return all(not isinstance(d, (list, tuple)) for d in shape)


def extern(shape, inputs, fcompute, name="extern", dtype=None, in_buffers=None, out_buffers=None, tag="",
           attrs=None):
    """``tvm.extern``: outputs of ``fcompute(ins, outs)``'s statement (a Tensor, or a list for several)."""
    shapes = [list(shape)] if _is_single_shape(shape) else [list(s) for s in shape]
    dtypes = dtype if isinstance(dtype, (list, tuple)) else [dtype or inputs[0].dtype] * len(shapes)
    if out_buffers is not None:
        given = out_buffers if isinstance(out_buffers, (list, tuple)) else [out_buffers]
        buffers = [_view(b).buffer for b in given]
    else:
        buffers = [declare_buffer(f"{name}_out{k}" if len(shapes) > 1 else name, tuple(int(d) for d in s), str(t))
                   for k, (s, t) in enumerate(zip(shapes, dtypes))]
    body = fcompute([BufferView(t.buffer) for t in inputs], [BufferView(b) for b in buffers])
    stage = ExternStage(name, inputs, buffers, body)
    outputs = [Tensor(b.name, b.shape, b.dtype, b, stage, k) for k, b in enumerate(buffers)]
    return outputs[0] if len(outputs) == 1 else outputs


def namespace():
    """The ``tvm`` module an akg ir_builder function sees."""
    space = types.SimpleNamespace(
        ir_builder=types.SimpleNamespace(create=IRBuilder),
        extern=extern,
        placeholder=lambda shape, dtype="float32", name="placeholder": Tensor(name, shape, dtype),
        decl_buffer=lambda shape, dtype="float32", name="buffer", **_: BufferView(
            declare_buffer(name, tuple(int(d) for d in shape), str(dtype))),
        const=lambda value, dtype=None: const(value, dtype or ("float32" if isinstance(value, float) else "int32")),
        all=lambda *conds: tirx.all(*[_bool(c) for c in conds]),
        any=lambda *conds: tirx.any(*[_bool(c) for c in conds]),
        if_then_else=lambda cond, t, f: tirx.if_then_else(_bool(cond), t, f),
        select=lambda cond, t, f: tirx.Select(_bool(cond), t, f),
        max=lambda a, b: tirx.Max(a, b), min=lambda a, b: tirx.Min(a, b),
        max_value=tirx.max_value, min_value=tirx.min_value,
        int32="int32", float32="float32", float16="float16",
    )
    for name in _MATH:
        function = getattr(tirx, "power" if name == "pow" else name, None)
        if function is not None:
            setattr(space, name, function)
    return _Strict(space)


class _Strict:
    """Attribute access that names what npusim's ir_builder surface lacks, instead of AttributeError."""

    def __init__(self, space):
        self.__dict__.update(vars(space))

    def __getattr__(self, name):
        raise UnsupportedError(f"akg ir_builder kernels on npusim cannot use tvm.{name} (supported: "
                               f"{', '.join(sorted(k for k in vars(self) if not k.startswith('_')))})")
