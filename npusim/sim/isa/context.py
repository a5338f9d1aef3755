"""Compile-time context of one instruction, and tensor operands resolved to (view, base, bounds).

Local buffers are addressed through typed views of their core's scope arena (one array per scope and dtype), GM
parameters through typed views of their allocation.  A :class:`TensorOperand` knows which view (``key``), the
element index of its start in that view (``base``: constant or function of the environment) and the element
bounds of the buffer it belongs to.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import Site, check_aligned
from npusim.sim.dtypes import canonical_dtype, itemsize
from npusim.sim.batch_expr import BatchExpr, compile_batch_expr, scaled
from npusim.sim.expr import Compiled, Const, SlotMap, compile_expr
from npusim.sim.kernel import BufRef, Kernel

GM = "GM"


@dataclass(frozen=True)
class TensorOperand:
    """A resolved tensor operand.  Element indices are in ``dtype`` units of the view ``key``."""

    role: str
    buffer: str
    space: str
    dtype: str
    isz: int
    key: tuple
    base: Compiled
    lo: int
    hi: Optional[int]
    offset: object = 0      # the kernel's offset expression: base = lo + offset * unit
    unit: int = 1

    @property
    def is_gm(self) -> bool:
        return self.space == GM


class CompileContext:
    """Everything a family needs to compile one instruction of ``kernel`` for ``chip``."""

    def __init__(self, kernel: Kernel, chip, slots: SlotMap, view_keys: set, uses: dict, caches):
        self.kernel = kernel
        self.chip = chip
        self.caches = caches  # the runtime's SimCaches: plans and tvm_call programs
        self.plans = caches.plans
        self.slots = slots
        self.view_keys = view_keys
        self.uses = uses  # scope -> highest byte touched by declared buffers that instructions reference
        self.step_hook = None  # compiler: called before every instruction of a block run (debuggers)
        self.buffers = {b.name: b for b in kernel.buffers}
        self.params = {p.name: (i, p) for i, p in enumerate(kernel.params)}
        self.site: Optional[Site] = None

    def at(self, site: Site) -> "CompileContext":
        self.site = site
        return self

    def fail(self, cls, cause: str):
        return self.site.error(cls, cause)

    def expr(self, value) -> Compiled:
        try:
            return compile_expr(value, self.slots)
        except InvalidOperandError as exc:
            raise self.fail(InvalidOperandError, exc.cause) from None

    def tensor(self, role: str, ref, scopes: Optional[tuple] = None) -> TensorOperand:
        """Resolve a BufRef operand; ``scopes`` restricts where it may live (e.g. ("UB",))."""
        if not isinstance(ref, BufRef):
            raise self.fail(InvalidOperandError, f"{role} must be a tensor operand, got {ref!r}")
        if ref.buffer in self.buffers:
            return self._local(role, ref, scopes)
        if ref.buffer in self.params:
            return self._gm(role, ref, scopes)
        raise self.fail(InvalidOperandError, f"{role}: unknown buffer or parameter {ref.buffer!r}")

    def _dtype(self, role: str, ref: BufRef, declared: str) -> str:
        if ref.dtype is None:
            return declared
        try:
            return canonical_dtype(ref.dtype)
        except InvalidOperandError as exc:
            raise self.fail(InvalidOperandError, f"{role}: {exc.cause}") from None

    def _local(self, role: str, ref: BufRef, scopes) -> TensorOperand:
        buf = self.buffers[ref.buffer]
        if scopes is not None and buf.scope not in scopes:
            raise self.fail(InvalidOperandError, f"{role} {buf.name} is in {buf.scope}; this operand must be in "
                                                 f"{' or '.join(scopes)}")
        dtype = self._dtype(role, ref, buf.dtype)
        isz = itemsize(dtype)
        size_bytes = buf.size_elems * itemsize(buf.dtype)
        self.uses[buf.scope] = max(self.uses.get(buf.scope, 0), buf.addr_bytes + size_bytes)
        key = (buf.scope, dtype)
        self.view_keys.add(key)
        lo = buf.addr_bytes // isz
        offset = self.expr(ref.offset)
        base = Const(lo + offset.value) if isinstance(offset, Const) else (lambda env, f=offset, b=lo: b + f(env))
        return TensorOperand(role, buf.name, buf.scope, dtype, isz, key, base, lo,
                             (buf.addr_bytes + size_bytes) // isz, ref.offset)

    def _gm(self, role: str, ref: BufRef, scopes) -> TensorOperand:
        index, param = self.params[ref.buffer]
        if not param.is_tensor:
            raise self.fail(InvalidOperandError, f"{role}: {param.name} is a scalar parameter, not a tensor")
        if scopes is not None and GM not in scopes:
            raise self.fail(InvalidOperandError, f"{role} {param.name} is in GM; this operand must be in "
                                                 f"{' or '.join(scopes)}")
        dtype = self._dtype(role, ref, param.dtype)
        key = (GM, index, dtype)
        self.view_keys.add(key)
        return TensorOperand(role, param.name, GM, dtype, itemsize(dtype), key, self.expr(ref.offset), 0, None,
                             ref.offset)

    def check_static_alignment(self, op: TensorOperand, align: Optional[int] = None) -> None:
        """Check a local operand's alignment (``align`` bytes; None: the chip's block) now when its start is a
        constant."""
        if not op.is_gm and isinstance(op.base, Const):
            align = self.chip.block_bytes if align is None else align
            check_aligned(self.site, op.role, op.base.value * op.isz, align)

    def as_bytes(self, op: TensorOperand) -> TensorOperand:
        """The same operand viewed as bytes (uint8 elements), for bit masks and byte-granular copies."""
        key = op.key[:-1] + ("uint8",)
        self.view_keys.add(key)
        isz = op.isz
        base = Const(op.base.value * isz) if isinstance(op.base, Const) else (lambda env, f=op.base: f(env) * isz)
        return TensorOperand(op.role, op.buffer, op.space, "uint8", 1, key, base, op.lo * isz,
                             None if op.hi is None else op.hi * isz, op.offset, op.unit * isz)

    def batch_base(self, op: TensorOperand) -> BatchExpr:
        """The operand's start (``lo + offset * unit``) compiled for lockstep batches."""
        return scaled(compile_batch_expr(op.offset, self.slots), op.unit, op.lo)

    def batch_uniform(self, *values) -> bool:
        """Whether every given operand expression (ints, expressions, mask pairs) has one value for every block
        of a batch (no block_idx, no register)."""
        for value in values:
            parts = value if isinstance(value, (tuple, list)) else (value,)
            for part in parts:
                if isinstance(part, (str, BufRef)) or part is None:
                    continue
                if not compile_batch_expr(part, self.slots).uniform:
                    return False
        return True
