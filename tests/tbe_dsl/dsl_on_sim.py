"""Running te_compat.dsl graphs the way an op file does — auto_schedule, lower, launch on the simulated device —
and comparing with numpy.  Used by the test_dsl_sim_*.py files.

``simulate(outs, inputs, arrays)`` lowers through ``te_compat.schedule.auto_schedule`` (no TVM/LLVM involved for
vector graphs: a ScalarPipeWarning there fails the test unless ``vector=False``), runs the kernel on a fresh
Device of the current chip with guard bytes after every output, and returns the outputs with the schedule.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from tvm import te

from npusim.sim import Device
from te_compat.fallback import ScalarPipeWarning
from te_compat.schedule import auto_schedule

GUARD_BYTES = 64
SENTINEL = 0xA5
TAIL_2D = (3, 37)           # rows of 74 B (float16) / 148 B (float32): never whole 32-byte blocks
TAIL_1D = (1001,)
BIG_2D = (1029, 4111)       # 4 230 219 elements: 8 MB float16 — 264 KB a core on 32 cores, beyond a 256 KB UB
BIG_2D_310 = (131, 1531)    # 200 561 elements: 200 KB float16 a core on the 310's 2 cores (248 KB UB)
TOL = {"float16": 2e-3, "float32": 2e-6}


@dataclass
class SimResult:
    outputs: list
    sched: object
    kernel: object
    record: object

    @property
    def block_dim(self) -> int:
        return self.kernel.block_dim

    @property
    def tiles(self) -> int:
        return self.sched.tiles_per_block


def placeholders(shape, dtypes, names=None):
    names = names or [f"in{i}" for i in range(len(dtypes))]
    return [te.placeholder(tuple(shape), d, name=n) for d, n in zip(dtypes, names)]


def data(shape, dtype, seed=0, low=-4.0, high=4.0, away_from_zero=0.0):
    """Random data of ``dtype``; floats uniform in [low, high) with |x| >= away_from_zero; ints in [low, high)."""
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(int(low), int(high), size=shape).astype(dtype)
    values = rng.uniform(low, high, size=shape)
    if away_from_zero:
        values = np.where(np.abs(values) < away_from_zero, np.copysign(away_from_zero, values), values)
    return values.astype(dtype)


def simulate(outs, inputs, arrays, vector: bool = True, name: str = "dsl_k") -> SimResult:
    """Lower ``outs`` with tensor_list ``inputs + outs`` and run it on a fresh Device of the current chip."""
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    with warnings.catch_warnings():
        if vector:
            warnings.simplefilter("error", ScalarPipeWarning)
        sched = auto_schedule(outs)
        kernel = sched.lower(list(inputs) + outs, name)
    if vector:
        assert sched.classification != "fallback", sched.fallback_reason
    dev = Device()
    args = [dev.to_device(np.ascontiguousarray(a.view(np.uint8) if a.dtype == np.bool_ else a)) for a in arrays]
    out_ptrs, sizes = [], []
    for tensor in outs:
        nbytes = int(np.prod([int(d) for d in tensor.shape])) * _itemsize(str(tensor.dtype))
        ptr = dev.malloc(nbytes + GUARD_BYTES)
        dev.memcpy(ptr, np.full(nbytes + GUARD_BYTES, SENTINEL, np.uint8))
        out_ptrs.append(ptr)
        sizes.append(nbytes)
    record = dev.run(kernel, args + out_ptrs)
    assert record.cost.total_cycles > 0
    results = []
    for ptr, tensor, nbytes in zip(out_ptrs, outs, sizes):
        raw = dev.from_device(ptr, (nbytes + GUARD_BYTES,), "uint8")
        assert np.all(raw[nbytes:] == SENTINEL), f"the kernel wrote past the end of output {tensor.name}"
        dtype = str(tensor.dtype)
        shape = tuple(int(d) for d in tensor.shape)
        view = raw[:nbytes].view(np.uint8 if dtype == "bool" else dtype).reshape(shape)
        results.append(view != 0 if dtype == "bool" else view.copy())
    return SimResult(results, sched, kernel, record)


def big_shape(chip: str) -> tuple:
    """A shape far beyond UB for ``chip``'s core count (the 310 has 2 cores, the 910 32)."""
    return BIG_2D_310 if chip == "Ascend310" else BIG_2D


def _itemsize(dtype: str) -> int:
    return 1 if dtype == "bool" else np.dtype(dtype).itemsize


def close(actual, expected, dtype: str, scale: float = 1.0) -> None:
    """``actual`` (dtype) against a float64 ``expected``: exact for ints/bools, else relative+absolute TOL*scale."""
    assert str(actual.dtype) == ("bool" if dtype == "bool" else dtype), (actual.dtype, dtype)
    if dtype == "bool" or np.dtype(dtype).kind in "iu":
        np.testing.assert_array_equal(actual, np.asarray(expected).astype(actual.dtype))
        return
    tol = TOL[dtype] * scale
    np.testing.assert_allclose(actual.astype(np.float64), expected, rtol=tol, atol=tol)


def as_computed(array, dtype: str):
    """``array`` as the op sees it after auto-cast to ``dtype``, widened to float64 for the reference."""
    return array.astype(dtype).astype(np.float64)


def assert_engages_tiling_and_cores(result: SimResult, min_blocks: int = 2) -> None:
    """A big input must be split across cores and, within a block, over several UB tiles."""
    assert result.block_dim >= min_blocks, f"block_dim {result.block_dim}"
    assert result.tiles > 1, f"one tile per block ({result.sched.plan.tile})"


def gm_traffic_bytes(result: SimResult) -> tuple:
    """(bytes read from GM, bytes written to GM) by the launch's data moves, from its trace."""
    trace = result.record.trace
    read = written = 0
    for block in trace.blocks:
        for index, units in block.records:
            path = trace.statics[index].path
            if trace.statics[index].cost_kind != "move" or path is None:
                continue
            if path[0] == "GM":
                read += units
            if path[1] == "GM":
                written += units
    return read, written
