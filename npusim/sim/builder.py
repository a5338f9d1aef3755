"""Writing kernels by hand, in a TIK-like style.

    kb = KernelBuilder("add_kernel")
    x = kb.tensor("float16", (4096,), "GM", "x")
    ub = kb.tensor("float16", (2048,), "UB", "ub")
    with kb.for_range(0, 2) as i:
        kb.data_move(ub, x[i * 2048], 0, 1, 128, 0, 0)       # positional operands in TIK's order
        kb.vadds(128, ub, ub, 1.0, 16, 1, 1, 8, 8)
        kb.data_move(x[i * 2048], ub, 0, 1, 128, 0, 0)
    kernel = kb.build(inputs=[x], outputs=[])

Every instruction of the ISA table is a method (``kb.vadd(...)``) taking its operands positionally in the row's
order or by name; ``kb.emit(opcode, ...)`` is the same thing by name.  Tensors index like TIK's: one index on a
multi-dimensional tensor is a flat element offset, a tuple indexes row-major.  Loop variables, ``block_idx``,
scalar registers and input scalars are :class:`E` expressions (``+ - * // % & | << >>``, comparisons); using one
as a Python bool is an error.  ``build()`` places local tensors on block boundaries of the builder's chip
(``KernelBuilder(name, chip=...)``, else the current runtime's) and compiles the kernel for that chip, so operand
errors surface at build time as in TIK.
"""
from __future__ import annotations

from contextlib import contextmanager
from math import prod

from npusim.errors.sim import InvalidOperandError
from npusim.sim.dtypes import canonical_dtype, itemsize
from npusim.sim.isa import ISA, REQUIRED
from npusim.sim.kernel import BLOCK_IDX, BinOp, Buffer, BufRef, Cast, If, Instr, Kernel, Loop, Param, ScalarReg, \
    UnOp, Var

SCOPE_NAMES = {"gm": "GM", "scope_gm": "GM", "ub": "UB", "scope_ubuf": "UB", "ubuf": "UB", "l1": "L1",
               "scope_cbuf": "L1", "cbuf": "L1", "l0a": "L0A", "scope_ca": "L0A", "ca": "L0A", "l0b": "L0B",
               "scope_cb": "L0B", "cb": "L0B", "l0c": "L0C", "scope_cc": "L0C", "cc": "L0C",
               "scope_cbuf_out": "L0C"}


def raw(value):
    """The kernel-format value of a builder object (E, tensor handles) or a plain Python value."""
    if isinstance(value, E):
        return value.expr
    if isinstance(value, TensorHandle):
        return value.ref(0)
    if isinstance(value, TensorRef):
        return value.bufref
    if isinstance(value, list):
        return tuple(raw(v) for v in value)
    if isinstance(value, tuple):
        return tuple(raw(v) for v in value)
    return value


def _binary(op, swap=False):
    def method(self, other):
        lhs, rhs = (raw(other), self.expr) if swap else (self.expr, raw(other))
        return E(BinOp(op, lhs, rhs))
    return method


class E:
    """A builder-side expression wrapping a kernel-format expression; operators build BinOp/UnOp trees."""

    __hash__ = object.__hash__

    def __init__(self, expr):
        self.expr = expr

    __add__, __radd__ = _binary("add"), _binary("add", True)
    __sub__, __rsub__ = _binary("sub"), _binary("sub", True)
    __mul__, __rmul__ = _binary("mul"), _binary("mul", True)
    __floordiv__, __rfloordiv__ = _binary("floordiv"), _binary("floordiv", True)
    __truediv__, __rtruediv__ = _binary("truediv"), _binary("truediv", True)
    __mod__, __rmod__ = _binary("mod"), _binary("mod", True)
    __and__, __rand__ = _binary("and"), _binary("and", True)
    __or__, __ror__ = _binary("or"), _binary("or", True)
    __xor__, __rxor__ = _binary("xor"), _binary("xor", True)
    __lshift__, __rlshift__ = _binary("shl"), _binary("shl", True)
    __rshift__, __rrshift__ = _binary("shr"), _binary("shr", True)
    __lt__, __le__, __gt__, __ge__ = _binary("lt"), _binary("le"), _binary("gt"), _binary("ge")
    __eq__, __ne__ = _binary("eq"), _binary("ne")

    def __neg__(self):
        return E(UnOp("neg", self.expr))

    def __abs__(self):
        return E(UnOp("abs", self.expr))

    def __invert__(self):
        return E(UnOp("bnot", self.expr))

    def __bool__(self):
        raise InvalidOperandError("a kernel expression has no Python truth value; use kb.if_scope(cond)")

    def astype(self, dtype: str) -> "E":
        return E(Cast(canonical_dtype(dtype), self.expr))

    def __repr__(self):
        from npusim.sim.kernel import expr_str
        return f"E({expr_str(self.expr)})"


def all_of(*conds) -> E:
    """Logical and of conditions (TIK's tik.all)."""
    result = raw(conds[0])
    for cond in conds[1:]:
        result = BinOp("land", result, raw(cond))
    return E(result)


def any_of(*conds) -> E:
    """Logical or of conditions (TIK's tik.any)."""
    result = raw(conds[0])
    for cond in conds[1:]:
        result = BinOp("lor", result, raw(cond))
    return E(result)


class TensorRef:
    """An element of a tensor (an operand start address); ``set_as`` stores a scalar there."""

    def __init__(self, tensor: "TensorHandle", offset):
        self.tensor = tensor
        self.offset = offset

    @property
    def bufref(self) -> BufRef:
        return self.tensor.ref(self.offset)

    def __getitem__(self, index):
        return TensorRef(self.tensor, _add(self.offset, self.tensor.flat_index(index)))

    def set_as(self, value) -> None:
        self.tensor.builder.emit("sstore", self, value)


def _add(a, b):
    a, b = raw(a), raw(b)
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if b == 0 and isinstance(b, int):
        return a
    if a == 0 and isinstance(a, int):
        return b
    return BinOp("add", a, b)


def _mul(a, k: int):
    a = raw(a)
    if isinstance(a, int):
        return a * k
    return a if k == 1 else BinOp("mul", a, k)


def _start(index):
    if isinstance(index, slice):
        return raw(index.start) if index.start is not None else 0
    return raw(index)


class TensorHandle:
    """A declared tensor (GM parameter or local buffer), possibly viewed as another dtype."""

    def __init__(self, builder, name: str, dtype: str, shape: tuple, scope: str, view_dtype=None):
        self.builder, self.name, self.dtype, self.shape, self.scope = builder, name, dtype, shape, scope
        self.view_dtype = view_dtype

    @property
    def size(self) -> int:
        return int(prod(self.shape)) if self.shape else 1

    def ref(self, offset) -> BufRef:
        return BufRef(self.name, raw(offset), self.view_dtype)

    def flat_index(self, index):
        """Element offset of an index: one index (int, expression, slice start) is flat; a tuple is row-major."""
        if not isinstance(index, tuple):
            return _start(index)
        if len(index) > len(self.shape):
            raise InvalidOperandError(f"{self.name}: {len(index)} indices for a {len(self.shape)}-d tensor")
        offset = 0
        for axis, idx in enumerate(index):
            offset = _add(offset, _mul(_start(idx), int(prod(self.shape[axis + 1:]))))
        return offset

    def __getitem__(self, index) -> TensorRef:
        return TensorRef(self, self.flat_index(index))

    def reinterpret_cast_to(self, dtype: str) -> "TensorHandle":
        """The same bytes as ``dtype`` elements (offsets then count in the new dtype)."""
        new = canonical_dtype(dtype)
        total = self.size * itemsize(self.view_dtype or self.dtype)
        return TensorHandle(self.builder, self.name, self.dtype, (total // itemsize(new),), self.scope, new)

    view = reinterpret_cast_to


class ScalarHandle(E):
    """A scalar register; reads are expressions, ``set_as`` writes it (from a value or a tensor element)."""

    def __init__(self, builder, name: str, dtype: str):
        super().__init__(Var(name))
        self.builder, self.name, self.dtype = builder, name, dtype

    def set_as(self, value) -> None:
        if isinstance(value, TensorRef):
            self.builder.emit("sload", self.name, value)
        else:
            self.builder.emit("sset", self.name, value)


class KernelBuilder:
    """Builds a :class:`Kernel` statement by statement (see the module docstring).  ``chip``: the chip the kernel
    is written for (its block aligns local tensors; None: the chip ``build()`` compiles for)."""

    def __init__(self, name: str, block_dim: int = 1, *, chip=None):
        self.name = name
        self.block_dim = block_dim
        self.chip = chip
        self._params: list = []
        self._gm: dict = {}
        self._locals: list = []     # (name, scope, dtype, shape, requested byte address or None), placed by build()
        self._scalars: list = []
        self._stack: list = [[]]
        self._counter = 0
        self._names: set = {BLOCK_IDX}
        self.on_emit = None         # called with every Instr emit() appends (front ends note its source line)

    # -- declarations -------------------------------------------------------------------------------------------
    @property
    def block_idx(self) -> E:
        """The running block's index (TIK: the for_range(block_num=N) variable)."""
        return E(Var(BLOCK_IDX))

    def _fresh(self, prefix: str, name=None) -> str:
        if name is None:
            self._counter += 1
            name = f"{prefix}{self._counter}"
        if name in self._names:
            raise InvalidOperandError(f"name {name!r} is declared twice in kernel {self.name}")
        self._names.add(name)
        return name

    def tensor(self, dtype, shape, scope="UB", name=None, *, is_workspace=False, addr_bytes=None,
               atomic_clean=False, is_atomic_add=False) -> TensorHandle:
        """Declare a tensor: GM ones become parameters, local ones get an address in their scope (``addr_bytes``,
        else the next block boundary after the tensors declared before it: see :meth:`build`).

        ``atomic_clean`` (or TIK's name ``is_atomic_add``): a GM tensor the runtime zeroes before each launch, for
        results the blocks accumulate into with ``set_atomic_add``.
        """
        dtype = canonical_dtype(dtype)
        shape = tuple(int(d) for d in (shape if isinstance(shape, (tuple, list)) else (shape,)))
        scope_name = SCOPE_NAMES.get(str(scope).lower(), str(scope).upper())
        clean = bool(atomic_clean or is_atomic_add)
        if clean and scope_name != "GM":
            raise InvalidOperandError(f"tensor {name or ''!s}: only GM tensors can be atomic_clean, not {scope_name}")
        name = self._fresh("t", name)
        if scope_name == "GM":
            param = Param(name, "workspace" if is_workspace else "gm", dtype, shape, clean)
            self._gm[name] = param
        else:
            self._locals.append((name, scope_name, dtype, shape, None if addr_bytes is None else int(addr_bytes)))
        return TensorHandle(self, name, dtype, shape, scope_name)

    def _place(self, block_bytes: int) -> tuple:
        """The local tensors as Buffers, in declaration order: each at its requested address, or at the first
        ``block_bytes`` boundary after every tensor of its scope declared before it."""
        buffers, next_addr = [], {}
        for name, scope, dtype, shape, requested in self._locals:
            size = int(prod(shape)) * itemsize(dtype) if shape else itemsize(dtype)
            addr = next_addr.get(scope, 0) if requested is None else requested
            buffers.append(Buffer(name, scope, dtype, shape, addr))
            next_addr[scope] = max(next_addr.get(scope, 0), -(-(addr + size) // block_bytes) * block_bytes)
        return tuple(buffers)

    def input_scalar(self, dtype="int64", name=None) -> E:
        """A scalar kernel argument (TIK InputScalar)."""
        name = self._fresh("s", name)
        self._params.append(Param(name, "scalar", canonical_dtype(dtype)))
        return E(Var(name))

    def scalar(self, dtype="int64", name=None, init_value=None) -> ScalarHandle:
        """A scalar register; ``init_value`` emits its first write here."""
        name = self._fresh("r", name)
        dtype = canonical_dtype(dtype)
        self._scalars.append(ScalarReg(name, dtype))
        handle = ScalarHandle(self, name, dtype)
        if init_value is not None:
            handle.set_as(init_value)
        return handle

    # -- control flow -------------------------------------------------------------------------------------------
    @contextmanager
    def for_range(self, begin, end, name=None):
        """``for name in range(begin, end)`` as kernel IR; yields the loop variable."""
        var = self._fresh("i", name)
        self._stack.append([])
        try:
            yield E(Var(var))
        finally:
            body = self._stack.pop()
        self._stack[-1].append(Loop(var, raw(begin), raw(end), tuple(body)))

    @contextmanager
    def if_scope(self, cond):
        self._stack.append([])
        try:
            yield
        finally:
            body = self._stack.pop()
        self._stack[-1].append(If(raw(cond), tuple(body), ()))

    @contextmanager
    def else_scope(self):
        current = self._stack[-1]
        if not current or not isinstance(current[-1], If) or current[-1].else_body:
            raise InvalidOperandError("else_scope must directly follow an if_scope")
        node = current.pop()
        self._stack.append([])
        try:
            yield
        finally:
            body = self._stack.pop()
        current.append(If(node.cond, node.then_body, tuple(body)))

    # -- instructions -------------------------------------------------------------------------------------------
    def emit(self, opcode: str, *args, **kwargs) -> Instr:
        """Append one instruction; operands bind positionally in the ISA row's order, or by name."""
        spec = ISA.get(opcode)
        if spec is None:
            raise InvalidOperandError(f"unknown instruction {opcode!r}")
        if len(args) > len(spec.operands):
            raise InvalidOperandError(f"{opcode} takes at most {len(spec.operands)} operands, got {len(args)}")
        bound = dict(zip((op.name for op in spec.operands), args))
        for key, value in kwargs.items():
            if spec.operand(key) is None:
                raise InvalidOperandError(f"{opcode} has no operand {key!r}")
            if key in bound:
                raise InvalidOperandError(f"{opcode}: operand {key!r} given twice")
            bound[key] = value
        missing = [op.name for op in spec.operands if op.default is REQUIRED and op.name not in bound]
        if missing:
            raise InvalidOperandError(f"{opcode} is missing operand(s) {', '.join(missing)}")
        instr = Instr(opcode, tuple((op.name, _operand(opcode, op, bound[op.name])) for op in spec.operands
                                    if op.name in bound))
        self._stack[-1].append(instr)
        if self.on_emit is not None:
            self.on_emit(instr)
        return instr

    def __getattr__(self, opcode: str):
        if opcode.startswith("_") or opcode not in ISA:
            raise AttributeError(opcode)
        return lambda *args, **kwargs: self.emit(opcode, *args, **kwargs)

    # -- result -------------------------------------------------------------------------------------------------
    def build(self, inputs=None, outputs=None, block_dim=None, check=True) -> Kernel:
        """The kernel; parameters are ``inputs + outputs`` (GM tensors and input scalars), then workspaces.

        With neither list, every GM tensor and input scalar in declaration order.  Local tensors are placed on
        block boundaries of the kernel's chip: the builder's ``chip``, else the chip of the runtime ``check``
        names (``check=True`` or ``False``: the current runtime).  ``check`` (True or a runtime, whose caches are
        used) compiles the kernel for that chip so that operand, dtype and capacity errors are raised now.
        """
        if len(self._stack) != 1:
            raise InvalidOperandError("build() inside an open for_range/if_scope")
        params = self._order_params(inputs, outputs)
        runtime = check if check is not True and check is not False else None
        if runtime is None and (check is True or self.chip is None):
            from npusim.sim.runtime import current_runtime
            runtime = current_runtime()
        chip = self.chip or runtime.target.chip
        kernel = Kernel(self.name, tuple(params), self._place(chip.block_bytes), tuple(self._scalars),
                        tuple(self._stack[0]), int(block_dim or self.block_dim))
        if check:
            from npusim.sim.compiler import compile_for
            compile_for(kernel, chip, runtime.store.sim)
        return kernel

    def _order_params(self, inputs, outputs) -> list:
        if inputs is None and outputs is None:
            ordered = list(self._gm.values()) + self._params
            return [p for p in ordered if p.kind != "workspace"] + [p for p in ordered if p.kind == "workspace"]
        by_name = {p.name: p for p in list(self._gm.values()) + self._params}
        params = []
        for item in list(inputs or []) + list(outputs or []):
            name = item.name if isinstance(item, TensorHandle) else getattr(raw(item), "name", None)
            if name not in by_name:
                raise InvalidOperandError(f"build: {item!r} is not a GM tensor or input scalar of {self.name}")
            params.append(by_name[name])
        listed = {p.name for p in params}
        for param in self._gm.values():
            if param.name not in listed:
                if param.kind != "workspace":
                    raise InvalidOperandError(f"GM tensor {param.name} is neither an input nor an output")
                params.append(param)
        return params


def _operand(opcode: str, spec, value):
    """Convert and check one operand value against its kind."""
    value = raw(value)
    if spec.kind == "tensor" and not isinstance(value, BufRef):
        raise InvalidOperandError(f"{opcode}: operand {spec.name} must be a tensor, got {value!r}")
    if spec.kind == "name" and isinstance(value, Var):
        value = value.name
    if spec.kind == "mask" and isinstance(value, tuple) and len(value) != 2:
        raise InvalidOperandError(f"{opcode}: mask pair must be [mask_h, mask_l], got {value!r}")
    if spec.kind in ("int", "scalar") and isinstance(value, BufRef):
        raise InvalidOperandError(f"{opcode}: operand {spec.name} must be a number or expression, not a tensor")
    return value
