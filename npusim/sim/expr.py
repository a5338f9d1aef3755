"""Compiling kernel expressions into small Python closures over an environment list.

Every variable (``block_idx``, loop variables, scalar registers, scalar parameters) gets a slot in a per-block
environment list.  :func:`compile_expr` returns a :class:`Const` when the expression has no variables, otherwise
a function ``f(env) -> value``.  Affine expressions (the common case: ``base + stride * i``) get a specialised
closure with no recursion.  Reading a scalar register that was never written raises InvalidOperandError.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Callable, Union

from npusim.errors.sim import InvalidOperandError
from npusim.sim.dtypes import cast_scalar
from npusim.sim.kernel import BinOp, Cast, UnOp, Var

UNSET = object()  # value of a scalar register slot before its first write


@dataclass(frozen=True)
class Const:
    """A compile-time constant expression value."""

    value: object


Compiled = Union[Const, Callable]

_BIN_FUNCS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "floordiv": operator.floordiv,
    "truediv": operator.truediv, "mod": operator.mod, "min": min, "max": max, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "shl": operator.lshift, "shr": operator.rshift, "lt": operator.lt,
    "le": operator.le, "gt": operator.gt, "ge": operator.ge, "eq": operator.eq, "ne": operator.ne,
    "land": lambda a, b: bool(a) and bool(b), "lor": lambda a, b: bool(a) or bool(b),
}
_UN_FUNCS = {"neg": operator.neg, "abs": abs, "bnot": operator.invert, "lnot": lambda a: not a,
             "sqrt": lambda a: math.sqrt(a) if a >= 0 else math.nan}


class SlotMap:
    """Names → environment slots.  ``registers`` holds the names whose reads must check initialisation."""

    def __init__(self):
        self.slots: dict = {}
        self.registers: set = set()

    def add(self, name: str, register: bool = False) -> int:
        if name in self.slots:
            raise InvalidOperandError(f"name {name!r} is declared twice (loop variable, register or parameter)")
        self.slots[name] = len(self.slots)
        if register:
            self.registers.add(name)
        return self.slots[name]

    def slot(self, name: str) -> int:
        if name not in self.slots:
            raise InvalidOperandError(f"unknown variable {name!r} (not a loop variable, register or parameter)")
        return self.slots[name]

    def size(self) -> int:
        return len(self.slots)


def _safe(func, op_name):
    def apply(*args):
        try:
            return func(*args)
        except ZeroDivisionError:
            raise InvalidOperandError(f"scalar expression divides by zero ({op_name})") from None
        except (TypeError, ValueError, OverflowError) as exc:
            raise InvalidOperandError(f"scalar expression {op_name} failed: {exc}") from None
    return apply


def _affine(expr, slots: SlotMap):
    """(constant, {slot: coef}) if expr is affine in non-register variables with int coefficients, else None."""
    if isinstance(expr, bool):
        return None
    if isinstance(expr, int):
        return expr, {}
    if isinstance(expr, Var):
        if expr.name in slots.registers:
            return None
        return 0, {slots.slot(expr.name): 1}
    if isinstance(expr, BinOp) and expr.op in ("add", "sub", "mul"):
        left, right = _affine(expr.lhs, slots), _affine(expr.rhs, slots)
        if left is None or right is None:
            return None
        if expr.op == "mul":
            if left[1] and right[1]:
                return None
            (c, terms), k = (left, right[0]) if left[1] else (right, left[0])
            return c * k, {s: v * k for s, v in terms.items() if v * k}
        sign = 1 if expr.op == "add" else -1
        terms = dict(left[1])
        for s, v in right[1].items():
            terms[s] = terms.get(s, 0) + sign * v
        return left[0] + sign * right[0], {s: v for s, v in terms.items() if v}
    return None


def _affine_closure(const: int, terms: dict) -> Callable:
    items = list(terms.items())
    if len(items) == 1:
        (s0, k0), = items
        if k0 == 1:
            return lambda env: const + env[s0]
        return lambda env: const + k0 * env[s0]
    if len(items) == 2:
        (s0, k0), (s1, k1) = items
        return lambda env: const + k0 * env[s0] + k1 * env[s1]
    return lambda env: const + sum(k * env[s] for s, k in items)


def compile_expr(expr, slots: SlotMap) -> Compiled:
    """Compile ``expr`` against ``slots``; constant subtrees fold to :class:`Const`."""
    if isinstance(expr, (bool, int, float)):
        return Const(expr)
    affine = _affine(expr, slots)
    if affine is not None:
        return Const(affine[0]) if not affine[1] else _affine_closure(*affine)
    if isinstance(expr, Var):
        return _var_reader(expr.name, slots)
    if isinstance(expr, BinOp):
        return _compile_bin(expr, slots)
    if isinstance(expr, UnOp):
        if expr.op not in _UN_FUNCS:
            raise InvalidOperandError(f"unknown unary operator {expr.op!r}")
        return _lift(_safe(_UN_FUNCS[expr.op], expr.op), [compile_expr(expr.arg, slots)])
    if isinstance(expr, Cast):
        dtype = expr.dtype
        return _lift(_safe(lambda v: cast_scalar(v, dtype), f"cast to {dtype}"), [compile_expr(expr.arg, slots)])
    raise InvalidOperandError(f"not a scalar expression: {expr!r}")


def _var_reader(name: str, slots: SlotMap) -> Callable:
    slot = slots.slot(name)
    if name not in slots.registers:
        return operator.itemgetter(slot)

    def read_register(env):
        value = env[slot]
        if value is UNSET:
            raise InvalidOperandError(f"found uninitialized Scalar {name!r} (read before any write)")
        return value
    return read_register


def _compile_bin(expr: BinOp, slots: SlotMap) -> Compiled:
    if expr.op not in _BIN_FUNCS:
        raise InvalidOperandError(f"unknown binary operator {expr.op!r}")
    return _lift(_safe(_BIN_FUNCS[expr.op], expr.op), [compile_expr(expr.lhs, slots), compile_expr(expr.rhs, slots)])


def _lift(func: Callable, args: list) -> Compiled:
    if all(isinstance(a, Const) for a in args):
        return Const(func(*(a.value for a in args)))
    if len(args) == 1:
        (fa,) = args
        return lambda env: func(fa(env))
    fa, fb = (a if not isinstance(a, Const) else (lambda env, v=a.value: v) for a in args)
    return lambda env: func(fa(env), fb(env))


def evaluator(compiled: Compiled) -> Callable:
    """A function env -> value for either form (constants become a trivial closure)."""
    if isinstance(compiled, Const):
        value = compiled.value
        return lambda env: value
    return compiled
