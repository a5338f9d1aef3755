"""Accumulation chains: consecutive element-wise instructions ``acc = op(acc, x_k)`` on one accumulator, as TBE
schedules emit for a reduction over row chunks (``vmax(acc, acc, chunk_k)`` for every chunk).

:func:`chain_link` describes one instruction of such a chain (static plans, constant starts, the accumulator
read as ``src0`` at ``dst``'s exact place, ``src1`` apart from it); :mod:`npusim.sim.lockstep.chains` runs a run
of links as one loop over the sources without storing and reloading the accumulator between them.  Each step is
the instruction's own numpy operation on the same values in the same order, so results are bit-identical; only
saturation is deferred: it is applied when the chain's result holds a non-finite value, and then the chain runs
instruction by instruction instead (with finite inputs and a finite result no step produced a non-finite value
for these operations: an inf or NaN in add, sub, mul, max or min never becomes finite again unless another
non-finite value cancels it, which leaves the result non-finite too).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from npusim.sim.expr import Const
from npusim.sim.isa.plans import AccessPlan

CHAIN_OPCODES = frozenset({"vadd", "vsub", "vmul", "vmax", "vmin"})


@dataclass(frozen=True, eq=False)
class ChainLink:
    """One ``acc = op(acc, src)`` instruction: ``raw(inputs, None, npdt)`` is its operation without saturation,
    ``fix`` the chip's saturation (or None), ``batch`` the instruction's own batched closure."""

    opcode: str
    raw: Callable
    fix: Optional[Callable]
    npdt: np.dtype
    acc_key: tuple
    acc_base: int
    acc_plan: AccessPlan
    src_key: tuple
    src_base: int
    src_plan: AccessPlan
    record: tuple
    batch: Callable

    def continues(self, other: "ChainLink") -> bool:
        """Whether ``other`` accumulates into the same place with the same operation."""
        return (other.opcode == self.opcode and other.acc_key == self.acc_key and other.acc_base == self.acc_base
                and other.fix is self.fix and other.npdt == self.npdt
                and (other.acc_plan is self.acc_plan or np.array_equal(other.acc_plan.rel, self.acc_plan.rel)))


def _byte_range(key: tuple, base: int, plan: AccessPlan, isz: int) -> tuple:
    return key[0], (base + plan.first) * isz, (base + plan.last + 1) * isz


def chain_link(opcode: str, tensors: tuple, shape, raw: Callable, fix, npdt: np.dtype, index: int,
               batch: Callable) -> Optional[ChainLink]:
    """The instruction as a chain link, or None when it is not one."""
    if opcode not in CHAIN_OPCODES or len(tensors) != 3 or shape.static_plans is None:
        return None
    if not all(isinstance(op.base, Const) for op in tensors):
        return None
    dst, acc, src = tensors
    repeat, (dst_plan, acc_plan, src_plan) = shape.static_plans
    if not dst_plan.size or dst.key != acc.key or dst.base.value != acc.base.value:
        return None
    if not (dst_plan is acc_plan or np.array_equal(dst_plan.rel, acc_plan.rel)) or dst_plan.write_sel is not None:
        return None
    space, lo, hi = _byte_range(dst.key, dst.base.value, dst_plan, dst.isz)
    s_space, s_lo, s_hi = _byte_range(src.key, src.base.value, src_plan, src.isz)
    if space == s_space and s_lo < hi and lo < s_hi:
        return None
    return ChainLink(opcode, raw, fix, npdt, dst.key, dst.base.value, dst_plan, src.key, src.base.value, src_plan,
                     (index, repeat), batch)
