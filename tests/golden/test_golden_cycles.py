"""Golden cycle counts: the cycle model's estimate for a few reference kernels, pinned.

A refactor must not move these numbers silently.  A change to the cycle model, the chip YAMLs or the TBE schedules
that moves one is expected to update the figure here in the same commit, and that commit's message says why (for
cycle-model calibration: which published row moved it).

The kernels are built the way users build them: TBE ops through ``ops.Custom(func_type="tbe")`` (the README's demo
figures: the 2x2 add and the (1024, 4096) fp16 add), a softmax and a row sum in TBE DSL, and the hand-written,
double-buffered vadd of ``benchmarks/bench_sim_vadd.py``.
"""
from __future__ import annotations

import numpy as np
import pytest

from mindspore import Tensor, context, ops
from npusim.sim import Device, KernelBuilder, get_chip, profile

#: (kernel, chip) -> (block_dim, total cycles); update only in a commit that says why the model moved
GOLDEN = {
    "add_2x2_fp32@Ascend910": (1, 651),
    "add_1024x4096_fp16@Ascend910": (32, 20986),
    "vadd_fp16_db_16M@Ascend910": (32, 84462),
    "softmax_256x1024_fp32@Ascend910B1": (43, 4490),
    "reduce_sum_last_512x1024_fp32@Ascend910": (32, 2838),
}


def _tbe_add(a, b, output, kernel_name="add"):
    import te.lang.cce
    from te import tvm
    data0 = tvm.placeholder(a.get("shape"), name="data0", dtype=a.get("dtype").lower())
    data1 = tvm.placeholder(b.get("shape"), name="data1", dtype=b.get("dtype").lower())
    res = te.lang.cce.vadd(data0, data1)
    with tvm.target.cce():
        sch = te.lang.cce.auto_schedule(res)
    te.lang.cce.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data0, data1, res]})


def _tbe_softmax(x, y, kernel_name="softmax"):
    import te.lang.cce as tbe
    from te import tvm
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
    peak = tbe.reduce_max(data, axis=-1, keepdims=True)
    shifted = tbe.vsub(data, tbe.broadcast(peak, x["shape"]))
    exps = tbe.vexp(shifted)
    total = tbe.sum(exps, axis=-1, keepdims=True)
    res = tbe.vdiv(exps, tbe.broadcast(total, x["shape"]))
    sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


def _tbe_row_sum(x, y, kernel_name="row_sum"):
    import te.lang.cce as tbe
    from te import tvm
    data = tvm.placeholder(x["shape"], name="data", dtype=x["dtype"])
    res = tbe.sum(data, axis=-1)
    sch = tbe.auto_schedule(res)
    tbe.cce_build_code(sch, {"name": kernel_name, "tensor_list": [data, res]})


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NPUSIM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NPUSIM_SOC", raising=False)
    monkeypatch.delenv("NPUSIM_SAT_MODE", raising=False)
    context.set_context(device_target="Ascend")


def _profiled(op, *arrays):
    with profile() as prof:
        out = op(*[Tensor(a) for a in arrays]).asnumpy()
    (row,) = prof.rows()
    return out, row


def _check(name, row):
    blocks, cycles = GOLDEN[name]
    assert (row["block_dim"], round(row["cycles"])) == (blocks, cycles), (
        f"{name}: the cycle model now gives {row['block_dim']} blocks, {row['cycles']:.0f} cycles; golden is "
        f"{blocks} blocks, {cycles} cycles (update GOLDEN in a commit that says why)")


def test_readme_demo_adds_keep_their_cycles():
    op = ops.Custom(_tbe_add, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe")
    x0 = np.array([[0.0, 0.0], [1.0, 1.0]], np.float32)
    x1 = np.array([[2.0, 2.0], [3.0, 3.0]], np.float32)
    out, row = _profiled(op, x0, x1)
    np.testing.assert_array_equal(out, x0 + x1)
    _check("add_2x2_fp32@Ascend910", row)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 4096)).astype(np.float16)
    b = rng.standard_normal((1024, 4096)).astype(np.float16)
    out, row = _profiled(op, a, b)
    np.testing.assert_array_equal(out, a + b)
    _check("add_1024x4096_fp16@Ascend910", row)


def test_hand_written_double_buffered_vadd_keeps_its_cycles():
    import importlib.util
    import pathlib
    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_sim_vadd.py"
    spec = importlib.util.spec_from_file_location("_bench_sim_vadd_for_golden", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    chip = get_chip("Ascend910")
    n = 16 * 1024 * 1024
    tile, block_dim = bench.plan_launch(chip, n)
    kernel = bench.build_vadd(n, block_dim, tile)
    dev = Device(chip)
    x = np.ones(n, np.float16)
    px, py, pz = dev.to_device(x), dev.to_device(x), dev.malloc(n * 2)
    record = dev.run(kernel, [px, py, pz])
    assert np.all(dev.from_device(pz, (n,), "float16") == 2)
    _check("vadd_fp16_db_16M@Ascend910", {"block_dim": record.block_dim, "cycles": record.cost.total_cycles})


def test_softmax_on_910b1_keeps_its_cycles(monkeypatch):
    monkeypatch.setenv("NPUSIM_SOC", "Ascend910B1")
    op = ops.Custom(_tbe_softmax, out_shape=lambda x: x, out_dtype=lambda x: x, func_type="tbe")
    x = np.random.default_rng(1).standard_normal((256, 1024)).astype(np.float32)
    out, row = _profiled(op, x)
    expected = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(out, expected / expected.sum(-1, keepdims=True), rtol=1e-5, atol=1e-7)
    _check("softmax_256x1024_fp32@Ascend910B1", row)


def test_row_sum_keeps_its_cycles():
    op = ops.Custom(_tbe_row_sum, out_shape=lambda x: x[:-1], out_dtype=lambda x: x, func_type="tbe")
    x = np.random.default_rng(2).standard_normal((512, 1024)).astype(np.float32)
    out, row = _profiled(op, x)
    np.testing.assert_allclose(out, x.sum(-1), rtol=1e-4, atol=1e-3)
    _check("reduce_sum_last_512x1024_fp32@Ascend910", row)
