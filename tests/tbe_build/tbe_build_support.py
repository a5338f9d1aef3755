"""Test helpers for te_compat.build: a fake schedule standing in for auto_schedule's NpuSchedule.

``FakeSchedule.lower(tensor_list, name)`` builds a real npusim kernel with KernelBuilder:
* 3 tensors (a, b, out): out = a + b with vadd, split over ``blocks`` blocks;
* 2 tensors (a, out): a byte copy (out may have another dtype of the same byte size, e.g. int8 → uint8).
"""
from __future__ import annotations

from math import prod

import numpy as np
import tvm
from tvm import te

from npusim.sim import KernelBuilder


class FakeSchedule:
    """Duck-types NpuSchedule: ``outputs``, ``classification``, ``lower``; counts ``lower`` calls."""

    classification = "elewise"

    def __init__(self, outputs, blocks: int = 1, workspace: bool = False):
        self.outputs = list(outputs)
        self.blocks, self.workspace = blocks, workspace
        self.lower_calls = 0

    def lower(self, tensor_list, name, runtime=None):
        self.lower_calls += 1
        kb = KernelBuilder(name, block_dim=self.blocks)
        gms = [kb.tensor(str(t.dtype), tuple(int(d) for d in t.shape), "GM", t.name) for t in tensor_list]
        if self.workspace:
            kb.tensor("float32", (64,), "GM", "ws", is_workspace=True)
        if len(gms) == 3:
            self._vadd(kb, *gms)
        else:
            self._copy(kb, *gms)
        return kb.build(inputs=gms[:-1], outputs=gms[-1:])

    def _vadd(self, kb, ga, gb, gc):
        size = np.dtype(ga.dtype).itemsize
        chunk = ga.size // self.blocks
        per_repeat = 256 // size
        repeat = -(-chunk // per_repeat)
        ua = kb.tensor(ga.dtype, (repeat * per_repeat,), "UB", "ua")
        ub = kb.tensor(ga.dtype, (repeat * per_repeat,), "UB", "ub")
        burst = -(-chunk * size // 32)
        offset = kb.block_idx * chunk
        kb.data_move(ua, ga[offset], 0, 1, burst, 0, 0)
        kb.data_move(ub, gb[offset], 0, 1, burst, 0, 0)
        kb.vadd(per_repeat, ua, ua, ub, repeat, 1, 1, 1, 8, 8, 8)
        kb.data_move(gc[offset], ua, 0, 1, burst, 0, 0)

    def _copy(self, kb, ga, gc):
        nbytes = ga.size * np.dtype(ga.dtype).itemsize
        burst = -(-nbytes // 32)
        buf = kb.tensor("uint8", (burst * 32,), "UB", "ubuf")
        kb.data_move(buf, ga.reinterpret_cast_to("uint8"), 0, 1, burst, 0, 0)
        kb.data_move(gc.reinterpret_cast_to("uint8"), buf, 0, 1, burst, 0, 0)


def vadd_graph(shape, dtype, names=("data0", "data1", "res")):
    """Placeholders a, b and the tagged compute a + b (TVM TE tensors)."""
    shape = tuple(int(d) for d in shape)
    a = te.placeholder(shape, name=names[0], dtype=dtype)
    b = te.placeholder(shape, name=names[1], dtype=dtype)
    c = te.compute(shape, lambda *i: a(*i) + b(*i), name=names[2], tag="elewise_binary_add")
    return a, b, c


def copy_graph(shape, in_dtype, out_dtype, out_shape=None):
    """Placeholder a and a compute standing for a byte copy of it as ``out_dtype`` (the fake schedule never
    evaluates the compute's body)."""
    a = te.placeholder(tuple(shape), name="data0", dtype=in_dtype)
    out_shape = tuple(shape) if out_shape is None else tuple(out_shape)
    c = te.compute(out_shape, lambda *i: tvm.tirx.const(0, out_dtype), name="res", tag="elewise_single_cast")
    return a, c


def build_vadd(name="myadd", shape=(4, 64), dtype="float16", blocks=1, workspace=False, **config):
    """Build a vadd kernel with cce_build_code; returns (schedule, (a, b, c))."""
    from te_compat.build import cce_build_code
    a, b, c = vadd_graph(shape, dtype)
    sch = FakeSchedule([c], blocks=blocks, workspace=workspace)
    cce_build_code(sch, dict({"name": name, "tensor_list": [a, b, c]}, **config))
    return sch, (a, b, c)


def random_inputs(shape, dtype, count=2, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-4, 4, size=shape).astype(dtype) for _ in range(count)]


def size_of(shape) -> int:
    return int(prod(shape))
