"""The TBE cube schedule's way out of L0C (te_compat/cube/fixpipe_out.py): on Ascend910B1 a plain matmul /
batch_matmul result (fp16 or fp32 out, an optional relu) leaves L0C by copy_matrix_cc_to_gm straight to GM, bit
for bit what the UB path (L0C -> GM workspace -> UB, vconv, vrelu, UB -> GM) gives; Ascend910 keeps the UB path,
and so do the epilogues the fixpipe cannot do (a bias)."""
import numpy as np
import pytest

from npusim.custom.backends.tbe_formats import to_format
from npusim.sim import set_chip
import te_compat.cube.kernel as cube_kernel

FIX = "copy_matrix_cc_to_gm"


def _build_and_run(m, k, n, seed, out_dtype="float16", relu=False, batch=(), bias=False):
    """The m x k x n float16 matmul (A and B^T in FRACTAL_NZ, batch dims ``batch``, a FRACTAL_NZ result) through
    the DSL's cube schedule: (result [*batch, m, n], float32 reference, the kernel's opcodes)."""
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((*batch, m, k)).astype(np.float16)
    bt = rng.standard_normal((*batch, n, k)).astype(np.float16)
    a_nz, bt_nz = to_format(a, "FRACTAL_NZ"), to_format(bt, "FRACTAL_NZ")
    pa = tvm.placeholder(a_nz.shape, name="a", dtype="float16")
    pb = tvm.placeholder(bt_nz.shape, name="b", dtype="float16")
    args, arrays = [pa, pb], [a_nz, bt_nz]
    bias_value = None
    if bias:
        n_pad = -(-n // 16) * 16
        bias_value = np.zeros(n_pad, np.float32)
        bias_value[:n] = rng.standard_normal(n)
        pbias = tvm.placeholder((n_pad,), name="bias", dtype="float32")
        args.append(pbias)
        arrays.append(bias_value)
    if batch:
        res = cce.batch_matmul(pa, pb, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ",
                               dst_dtype=out_dtype)
    else:
        res = cce.matmul(pa, pb, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype=out_dtype,
                         tensor_bias=args[2] if bias else None)
    if relu:
        res = cce.vrelu(res)
    sch = cce.auto_schedule(res)
    name = f"fx_mm_{m}_{k}_{n}_{out_dtype}_{int(relu)}_{len(batch)}_{int(bias)}"
    kernel = BuiltKernel.from_result(build_kernel(sch, {"name": name, "tensor_list": [*args, res]}))
    out = kernel.run(*arrays)
    out = out[0] if isinstance(out, (list, tuple)) else out
    got = _from_nz16(np.asarray(out), batch, m, n)
    ref = a.astype(np.float32) @ np.swapaxes(bt, -1, -2).astype(np.float32)
    if bias:
        ref = ref + bias_value[:n]
    if relu:
        ref = np.maximum(ref, 0)
    opcodes = {instr.opcode for _, instr in kernel.kernel.instructions()}
    return got, ref, opcodes


def _from_nz16(out, batch, m, n):
    """The kernel's NZ result [*batch, N1, M1, 16, 16] (16-wide fractals in every dtype, as the cube writes them)
    as [*batch, m, n]."""
    n1, m1 = -(-n // 16), -(-m // 16)
    tiles = out.reshape(*batch, n1, m1, 16, 16)
    full = np.moveaxis(tiles, -4, -2).reshape(*batch, m1 * 16, n1 * 16)
    return full[..., :m, :n]


def _ub_path(monkeypatch):
    """Force the UB path on a chip that has the fixpipe (the schedule then ignores the instruction)."""
    monkeypatch.setattr(cube_kernel, "fixpipe_out", lambda graph, chip: None)


CASES = [((33, 65, 47), "float16", False, ()), ((64, 48, 80), "float32", False, ()),
         ((33, 65, 47), "float16", True, ()), ((256, 512, 256), "float16", True, ()),
         ((40, 32, 24), "float32", True, (3,))]


@pytest.mark.parametrize("shape, out_dtype, relu, batch", CASES)
def test_910b_matmul_leaves_l0c_by_fixpipe_bit_for_bit_as_the_ub_path(shape, out_dtype, relu, batch, monkeypatch):
    set_chip("Ascend910B1")
    m, k, n = shape
    got, ref, opcodes = _build_and_run(m, k, n, sum(shape), out_dtype, relu, batch)
    assert FIX in opcodes
    assert not opcodes & {"vconv", "vrelu", "vadd"}         # nothing of the epilogue runs in UB
    assert got.dtype == np.dtype(out_dtype) and got.shape == (*batch, m, n)
    np.testing.assert_allclose(got.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
    if relu:
        assert (got >= 0).all()
    _ub_path(monkeypatch)
    via_ub, _, ub_opcodes = _build_and_run(m, k, n, sum(shape), out_dtype, relu, batch)
    assert FIX not in ub_opcodes and ("vconv" in ub_opcodes or out_dtype == "float32")
    assert got.tobytes() == via_ub.tobytes()


def test_910_keeps_the_ub_path():
    set_chip("Ascend910")
    got, ref, opcodes = _build_and_run(33, 65, 47, 5, "float16", True)
    # a core's only tile: the move out of L0C into UB casts and relus on the way (Ascend910 has no fixpipe)
    assert FIX not in opcodes and "copy_matrix_cc_to_ubuf" in opcodes and not opcodes & {"vconv", "vrelu"}
    np.testing.assert_allclose(got.astype(np.float32), ref, rtol=2e-3, atol=2e-2)
    assert (got >= 0).all()


def test_910b_bias_keeps_the_ub_path():
    set_chip("Ascend910B1")
    got, ref, opcodes = _build_and_run(33, 65, 47, 6, "float16", False, bias=True)
    assert FIX not in opcodes and "vadd" in opcodes
    np.testing.assert_allclose(got.astype(np.float32), ref, rtol=2e-3, atol=2e-2)


def test_fixpipe_kernel_costs_the_fix_pipe_and_no_ub_traffic():
    set_chip("Ascend910B1")
    import npusim.compat  # noqa: F401
    import te.lang.cce as cce
    from te import tvm
    from te_compat.build import BuiltKernel
    from te_compat.build.cce import build_kernel
    from npusim.sim import Device, get_chip
    pa = tvm.placeholder((4, 4, 16, 16), name="a", dtype="float16")
    pb = tvm.placeholder((4, 4, 16, 16), name="b", dtype="float16")
    res = cce.matmul(pa, pb, False, True, format_a="FRACTAL_NZ", format_b="FRACTAL_NZ", dst_dtype="float16")
    kernel = BuiltKernel.from_result(build_kernel(cce.auto_schedule(res), {"name": "fx_cost",
                                                                           "tensor_list": [pa, pb, res]}))
    device = Device(get_chip("Ascend910B1"))
    ptrs = [device.to_device(np.ones((4, 4, 16, 16), np.float16)) for _ in range(3)]
    record = device.run(kernel.kernel, ptrs, block_dim=kernel.block_dim)
    out = device.from_device(ptrs[2], (4, 4, 16, 16), np.float16)
    assert (out == 64).all()
    assert record.cost.busy_cycles("FIX") > 0 and record.cost.busy_cycles("MTE3") == 0
    assert record.cost.busy_cycles("V") == 0
