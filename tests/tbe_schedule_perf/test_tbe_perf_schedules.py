"""TBE schedules that use the chip well (issue 13 item 3), asserted on the kernels' structure and traces.

* Vector-only kernels spread over every vector core: 48 blocks on Ascend910B1 (24 AI cores, 48 AIV cores), each
  block on a core of its own (its own UB and vector pipe), with a core limit scaled by the same ratio; chips whose
  vector and AI core counts agree are unchanged.
* Row chunks are double-buffered: a tile's loads are issued before the previous tile's vector work, so in the cycle
  model MTE2 streams the next chunk while V works on this one.
"""
from __future__ import annotations

import numpy as np
import pytest
import tvm
from tvm import te

from npusim.sim import Device, Runtime, Target, get_chip
from te_compat.schedule import auto_schedule

B1 = get_chip("Ascend910B1")
A910 = get_chip("Ascend910")


def _lower(chip, ins, outs, cores=None):
    runtime = Runtime(Target.of(chip, core_num=cores))
    with runtime.activate():
        return auto_schedule(outs).lower(list(ins) + list(outs), "perf")


def _run(chip, kernel, arrays, out_shape, out_dtype):
    dev = Device(chip)
    out = dev.malloc(int(np.prod(out_shape)) * np.dtype(out_dtype).itemsize)
    record = dev.run(kernel, [dev.to_device(a) for a in arrays] + [out])
    return record, dev.from_device(out, out_shape, out_dtype)


def _add_graph(n: int):
    x = te.placeholder((n,), name="x", dtype="float16")
    y = te.placeholder((n,), name="y", dtype="float16")
    res = te.compute((n,), lambda i: x(i) + y(i), name="add", tag="elewise_binary_add")
    return [x, y], [res]


def _softmax_graph(shape):
    import te.lang.cce as tbe   # the DSL as an op file writes it
    from te import tvm as te_tvm
    data = te_tvm.placeholder(shape, name="x", dtype="float32")
    peak = tbe.broadcast(tbe.reduce_max(data, axis=-1, keepdims=True), shape)
    exps = tbe.vexp(tbe.vsub(data, peak))
    res = tbe.vdiv(exps, tbe.broadcast(tbe.sum(exps, axis=-1, keepdims=True), shape))
    return [data], [res]


def _softmax_np(x):
    exps = np.exp(x - x.max(-1, keepdims=True))
    return exps / exps.sum(-1, keepdims=True)


# -- every vector core ---------------------------------------------------------------------------------------------
def test_vector_kernel_on_910b1_uses_all_48_vector_cores_and_computes_right():
    n = 48 * 8192
    ins, outs = _add_graph(n)
    kernel = _lower(B1, ins, outs)
    assert B1.aicore_num == 24 and B1.vector_core_num == 48
    assert kernel.block_dim == 48
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(n).astype(np.float16) for _ in range(2))
    record, out = _run(B1, kernel, [a, b], (n,), "float16")
    np.testing.assert_array_equal(out.view(np.uint16), (a + b).view(np.uint16))
    assert record.trace.num_cores == 48
    cores = record.trace.blocks_by_core()
    assert len(cores) == 48 and all(len(blocks) == 1 for blocks in cores.values())   # one block per vector core
    assert len(record.cost.cores) == 48


def test_core_limit_scales_to_the_vector_cores():
    n = 48 * 8192
    ins, outs = _add_graph(n)
    assert _lower(B1, ins, outs, cores=8).block_dim == 16      # 8 AI cores' worth: 16 AIV cores
    assert _lower(A910, ins, outs).block_dim == A910.aicore_num == A910.vector_core_num


def test_softmax_on_910b1_splits_rows_over_the_vector_cores():
    import npusim.compat  # noqa: F401  (te.lang.cce)
    shape = (1024, 1024)
    runtime = Runtime(Target.of(B1))
    with runtime.activate():
        ins, outs = _softmax_graph(shape)
        kernel = auto_schedule(outs).lower(ins + outs, "softmax")
    assert kernel.block_dim > B1.aicore_num
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    record, out = _run(B1, kernel, [x], shape, "float32")
    np.testing.assert_allclose(out, _softmax_np(x), rtol=1e-5, atol=1e-7)
    assert len(record.trace.blocks_by_core()) == kernel.block_dim


# -- double buffering across row chunks ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def softmax_run():
    import npusim.compat  # noqa: F401
    shape = (1024, 1024)
    runtime = Runtime(Target.of(B1))
    with runtime.activate():
        ins, outs = _softmax_graph(shape)
        sched = auto_schedule(outs)
        kernel = sched.lower(ins + outs, "softmax")
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    record, out = _run(B1, kernel, [x], shape, "float32")
    np.testing.assert_allclose(out, _softmax_np(x), rtol=1e-5, atol=1e-7)
    return sched, record


def _positions(record, block: int = 0) -> dict:
    """opcode/path -> positions in block ``block``'s records (program order)."""
    statics = record.trace.statics
    found: dict = {}
    for position, (index, _) in enumerate(record.trace.blocks[block].records):
        static = statics[index]
        key = f"{static.path[0]}->{static.path[1]}" if static.path else static.opcode
        found.setdefault(key, []).append(position)
    return found


def test_softmax_row_chunks_load_ahead_of_the_vector_work(softmax_run):
    sched, record = softmax_run
    assert sched.classification == "norm" and sched.tiles_per_block >= 2
    at = _positions(record)
    loads, exps, stores = at["GM->UB"], at["vexp"], at["UB->GM"]
    assert len(loads) == len(exps) == len(stores) == sched.tiles_per_block
    for k in range(1, len(loads)):
        assert loads[k] < exps[k - 1], "tile k's load is issued before tile k-1's vector work"
        assert loads[k] < stores[k - 1]


def test_softmax_next_chunk_streams_while_v_computes(softmax_run):
    """In the cycle model, the second chunk's GM->UB transfer runs while V works on the first chunk."""
    _, record = softmax_run
    statics = record.trace.statics
    core = next(c for c in record.cost.cores if c.core == 0)
    moves_in = [(s, e) for s, e, i in core.intervals["MTE2"] if statics[i].path == ("GM", "UB")]
    exps = [(s, e) for s, e, i in core.intervals["V"] if statics[i].opcode == "vexp"]
    assert len(moves_in) >= 2 and exps
    second_load_start, second_load_end = moves_in[1]
    first_exp_start = exps[0][0]
    assert second_load_start < first_exp_start < second_load_end
