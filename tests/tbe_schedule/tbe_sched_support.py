"""Test-side DSL: tagged TVM computes with the contract's tags/attrs and correct bodies (te_compat.dsl is written
elsewhere at the same time), plus a runner that lowers a graph and runs it on the simulated device."""
from __future__ import annotations

import numpy as np
import tvm
from tvm import te

from npusim.sim import Device, current_chip
from te_compat.schedule import auto_schedule

_UNARY = {
    "abs": lambda v, dt: te.abs(v), "exp": lambda v, dt: te.exp(v), "log": lambda v, dt: te.log(v),
    "sqrt": lambda v, dt: te.sqrt(v), "rsqrt": lambda v, dt: te.rsqrt(v),
    "rec": lambda v, dt: tvm.tirx.const(1, dt) / v, "relu": lambda v, dt: te.max(v, tvm.tirx.const(0, dt)),
    "not": lambda v, dt: tvm.tirx.bitwise_not(v),
}
_BINARY = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
           "div": lambda a, b: a / b, "max": lambda a, b: te.max(a, b), "min": lambda a, b: te.min(a, b),
           "and": lambda a, b: a & b, "or": lambda a, b: a | b}
_CMP = {"lt": lambda a, b: a < b, "gt": lambda a, b: a > b, "le": lambda a, b: a <= b, "ge": lambda a, b: a >= b,
        "eq": lambda a, b: a == b, "ne": lambda a, b: a != b}


def ph(shape, dtype="float16", name="x"):
    return te.placeholder(tuple(shape), name=name, dtype=dtype)


def _c(value, dtype):
    return tvm.tirx.const(value, dtype)


def unary(op, x):
    return te.compute(x.shape, lambda *i: _UNARY[op](x(*i), x.dtype), name=f"v{op}", tag=f"elewise_single_{op}")


def vs(op, x, scalar):
    s = _c(scalar, x.dtype)
    body = {"add": lambda v: v + s, "mul": lambda v: v * s, "max": lambda v: te.max(v, s),
            "min": lambda v: te.min(v, s)}[op]
    return te.compute(x.shape, lambda *i: body(x(*i)), name=f"v{op}s", tag=f"elewise_single_VS_{op}",
                      attrs={"scalar": scalar})


def binary(op, a, b):
    return te.compute(a.shape, lambda *i: _BINARY[op](a(*i), b(*i)), name=f"v{op}", tag=f"elewise_binary_{op}")


def cmp(op, a, b):
    return te.compute(a.shape, lambda *i: _CMP[op](a(*i), b(*i)), name=f"vcmp_{op}",
                      tag=f"elewise_binary_vcmpv_{op}")


def sel(cond, a, b):
    def pick(v, i):
        return v(*i) if isinstance(v, te.Tensor) else _c(v, dtype)
    dtype = a.dtype if isinstance(a, te.Tensor) else b.dtype
    return te.compute(cond.shape, lambda *i: tvm.tirx.Select(cond(*i), pick(a, i), pick(b, i)), name="vsel",
                      tag="elewise_multiple_sel")


def cast(x, dtype, mode="none"):
    return te.compute(x.shape, lambda *i: x(*i).astype(dtype), name="cast", tag="elewise_single_cast",
                      attrs={"round_mode": mode})


def rounding(kind, x, dtype="int32"):
    func = {"floor": tvm.tirx.floor, "ceil": tvm.tirx.ceil, "round": tvm.tirx.round, "trunc": tvm.tirx.trunc}[kind]
    return te.compute(x.shape, lambda *i: func(x(*i)).astype(dtype), name=kind, tag=f"elewise_single_{kind}")


def mla(a, b, c):
    return te.compute(a.shape, lambda *i: a(*i) * b(*i) + c(*i), name="vmla", tag="elewise_multiple_mla")


def madd(a, b, c):
    out = te.compute(a.shape, lambda *i: a(*i) * c(*i) + b(*i), name="vmadd", tag="elewise_multiple_madd")
    inputs = list(out.op.input_tensors)          # (a, c, b): the contract's ``args`` attr restores (a, b, c)
    args = [next(k for k, t in enumerate(inputs) if t.same_as(arg)) for arg in (a, b, c)]
    return te.compute(a.shape, lambda *i: a(*i) * c(*i) + b(*i), name="vmadd", tag="elewise_multiple_madd",
                      attrs={"args": args})


def axpy(a, b, scalar):
    return te.compute(a.shape, lambda *i: a(*i) * _c(scalar, a.dtype) + b(*i), name="vaxpy",
                      tag="elewise_binary_scalar_axpy", attrs={"scalar": scalar})


def const(value, shape, dtype="float16"):
    return te.compute(tuple(shape), lambda *i: _c(value, dtype), name="bc", tag="broadcast", attrs={"value": value})


def bcast(x, shape):
    shape = tuple(shape)
    offset = len(shape) - len(x.shape)

    def body(*i):
        return x(*[0 if int(x.shape[d]) == 1 and shape[d + offset] != 1 else i[d + offset]
                   for d in range(len(x.shape))])
    return te.compute(shape, body, name="bcast", tag="broadcast_for_tensor")


def reduce(op, x, axes, keepdims=False):
    rank = len(x.shape)
    axes = sorted({a % rank for a in ([axes] if isinstance(axes, int) else axes)})
    rvars = [te.reduce_axis((0, int(x.shape[a])), name=f"k{a}") for a in axes]
    kept = [d for d in range(rank) if d not in axes]
    if keepdims:
        shape = tuple(1 if d in axes else int(x.shape[d]) for d in range(rank))
    else:
        shape = tuple(int(x.shape[d]) for d in kept) or (1,)

    def index(i):
        idx, out = [], 0
        for d in range(rank):
            if d in axes:
                idx.append(rvars[axes.index(d)])
            else:
                idx.append(i[d] if keepdims else i[out])
                out += 1
        return idx
    reducer = {"sum": te.sum, "max": te.max, "min": te.min}.get(op)
    if reducer is None:
        reducer = te.comm_reducer(lambda a, b: a * b, lambda t: tvm.tirx.const(1, t), name="prod")
    return te.compute(shape, lambda *i: reducer(x(*index(i)), axis=rvars), name=f"reduce_{op}",
                      tag=f"reduce_{op}", attrs={"axes": axes, "keepdims": keepdims})


GUARD_BYTES = 64
SENTINEL = 0xAB


class Result:
    def __init__(self, outputs, record, sched, kernel):
        self.outputs, self.record, self.sched, self.kernel = outputs, record, sched, kernel

    @property
    def ub_high_water(self) -> int:
        return self.record.trace.scope_high_water.get("UB", 0)

    def buffers_used(self) -> set:
        """Names of the buffers / parameters the kernel's instructions touch."""
        names = set()
        for _, instr in self.kernel.instructions():
            for _, value in instr.args:
                if hasattr(value, "buffer"):
                    names.add(value.buffer)
        return names


def run(outs, inputs, arrays, name="k"):
    """Lower ``outs`` with tensor_list inputs + outs, run on a fresh Device, return a Result."""
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    sched = auto_schedule(outs)
    kernel = sched.lower(list(inputs) + outs, name)
    dev = Device()
    args = [dev.to_device(np.ascontiguousarray(a)) for a in arrays]
    out_ptrs, sizes = [], []
    for t in outs:
        nbytes = int(np.prod([int(d) for d in t.shape])) * np.dtype(str(t.dtype)).itemsize
        ptr = dev.malloc(nbytes + GUARD_BYTES)
        dev.memcpy(ptr, np.full(nbytes + GUARD_BYTES, SENTINEL, np.uint8))
        out_ptrs.append(ptr)
        sizes.append(nbytes)
    record = dev.run(kernel, args + out_ptrs)
    assert record.cost.total_cycles > 0          # the cycle model replays the flags: a missing set_flag hangs it
    results = []
    for ptr, t, nbytes in zip(out_ptrs, outs, sizes):
        raw = dev.from_device(ptr, (nbytes + GUARD_BYTES,), "uint8")
        if not np.all(raw[nbytes:] == SENTINEL):
            raise AssertionError(f"kernel wrote past the end of output {t.name} ({nbytes} bytes)")
        results.append(raw[:nbytes].view(str(t.dtype)).reshape(tuple(int(d) for d in t.shape)))
    return Result(results, record, sched, kernel)


def ub_bytes() -> int:
    return current_chip().ub_bytes
