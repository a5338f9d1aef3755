"""TIK kernels written the way public TIK kernels are (CANN samples / canndev style), shared by the tests.

Each ``*_kernel`` function takes the shapes it needs, writes the kernel on a fresh ``tik.Tik()``, calls BuildCCE
and returns the instance (what an op impl does), so the same kernel runs through tikdb and through ops.Custom.
"""
from tbe import tik
from tbe.common.platform import get_soc_spec


def vadd_kernel(total, kernel_name="tik_vadd", dtype="float16"):
    """z = x + y: multi-core (block_num), double-buffered (thread_num=2) 2048-element tiles, an unaligned tail moved
    as the last whole block (overlapping the previous tile) as TIK kernels do."""
    ti = tik.Tik()
    core_num = tik.Dprofile().get_aicore_num()
    x = ti.Tensor(dtype, (total,), name="x", scope=tik.scope_gm)
    y = ti.Tensor(dtype, (total,), name="y", scope=tik.scope_gm)
    z = ti.Tensor(dtype, (total,), name="z", scope=tik.scope_gm)
    per_block = 32 // (2 if dtype == "float16" else 4)
    lanes = 8 * per_block
    tile = 2048
    per_core = total // core_num // tile * tile
    tiles = per_core // tile
    with ti.for_range(0, core_num, block_num=core_num) as core:
        with ti.for_range(0, tiles, thread_num=2) as t:
            xu = ti.Tensor(dtype, (tile,), name="xu", scope=tik.scope_ubuf)
            yu = ti.Tensor(dtype, (tile,), name="yu", scope=tik.scope_ubuf)
            start = core * per_core + t * tile
            ti.data_move(xu, x[start], 0, 1, tile // per_block, 0, 0)
            ti.data_move(yu, y[start], 0, 1, tile // per_block, 0, 0)
            ti.vec_add(lanes, xu, xu, yu, tile // lanes, 8, 8, 8)
            ti.data_move(z[start], xu, 0, 1, tile // per_block, 0, 0)
        rest = total - per_core * core_num
        if rest:
            with ti.if_scope(core == core_num - 1):
                _vadd_tail(ti, x, y, z, per_core * core_num, rest, per_block, lanes, dtype)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x, y], outputs=[z])
    return ti


def _vadd_tail(ti, x, y, z, start, rest, per_block, lanes, dtype):
    """The last ``rest`` elements: whole blocks from ``start``, then the last block ending at the GM end."""
    size = (rest + per_block - 1) // per_block * per_block
    xu = ti.Tensor(dtype, (size,), name="xt", scope=tik.scope_ubuf)
    yu = ti.Tensor(dtype, (size,), name="yt", scope=tik.scope_ubuf)
    whole = rest // per_block
    if whole:
        ti.data_move(xu, x[start], 0, 1, whole, 0, 0)
        ti.data_move(yu, y[start], 0, 1, whole, 0, 0)
    last = start + rest - per_block
    if rest % per_block:
        ti.data_move(xu[size - per_block], x[last], 0, 1, 1, 0, 0)
        ti.data_move(yu[size - per_block], y[last], 0, 1, 1, 0, 0)
    done = 0
    while done < size:  # Python loops unroll at build time
        count = min(lanes, size - done)
        ti.vadd(count, xu[done], xu[done], yu[done], 1, 1, 1, 1, 8, 8, 8)
        done += count
    if whole:
        ti.data_move(z[start], xu, 0, 1, whole, 0, 0)
    if rest % per_block:
        ti.data_move(z[last], xu[size - per_block], 0, 1, 1, 0, 0)


def scaled_relu_kernel(rows, cols, kernel_name="tik_scaled_relu"):
    """y = relu(x * scale + bias) over a 2-D float16 tensor, old v* forms with block strides, scale/bias read
    from a GM tensor into Scalars (set_as), rows looped with a Scalar bound from an InputScalar (flowtable)."""
    ti = tik.Tik()
    x = ti.Tensor("float16", (rows, cols), name="x", scope=tik.scope_gm)
    params = ti.Tensor("float16", (16,), name="params", scope=tik.scope_gm)
    y = ti.Tensor("float16", (rows, cols), name="y", scope=tik.scope_gm)
    row_count = ti.InputScalar("int32", name="row_count")
    pu = ti.Tensor("float16", (16,), name="pu", scope=tik.scope_ubuf)
    ti.data_move(pu, params, 0, 1, 1, 0, 0)
    scale = ti.Scalar("float16", name="scale", init_value=pu[0])
    bias = ti.Scalar("float16", name="bias")
    bias.set_as(pu[1])
    with ti.for_range(0, row_count, thread_num=2) as r:
        xu = ti.Tensor("float16", (cols,), name="xu", scope=tik.scope_ubuf)
        ti.data_move(xu, x[r * cols], 0, 1, cols // 16, 0, 0)     # flat index into a 2-D tensor
        ti.vmuls(128, xu, xu, scale, cols // 128, 1, 1, 8, 8)
        ti.vadds(128, xu, xu, bias, cols // 128, 1, 1, 8, 8)
        ti.vrelu(128, xu, xu, cols // 128, 1, 1, 8, 8)
        ti.data_move(y[r, 0], xu, 0, 1, cols // 16, 0, 0)          # row-major tuple index
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x, params], outputs=[y], flowtable=[row_count])
    return ti


def int8_dequant_kernel(total, kernel_name="tik_int8_to_fp16"):
    """int8 -> float16 (vconv s8->f16: src rep stride 4, dst 8), times a scale, then back to uint8 with
    round-half-away (vconv f16->u8 'away-zero' where the chip has it, else plain)."""
    ti = tik.Tik()
    x = ti.Tensor("int8", (total,), name="x", scope=tik.scope_gm)
    h = ti.Tensor("float16", (total,), name="h", scope=tik.scope_gm)
    q = ti.Tensor("uint8", (total,), name="q", scope=tik.scope_gm)
    xu = ti.Tensor("int8", (total,), name="xu", scope=tik.scope_ubuf)
    hu = ti.Tensor("float16", (total,), name="hu", scope=tik.scope_ubuf)
    qu = ti.Tensor("uint8", (total,), name="qu", scope=tik.scope_ubuf)
    ti.data_move(xu, x, 0, 1, total // 32, 0, 0)
    ti.vec_conv(128, "", hu, xu, total // 128, 8, 4)
    ti.vec_muls(128, hu, hu, 0.5, total // 128, 8, 8)
    ti.data_move(h, hu, 0, 1, total // 16, 0, 0)
    ti.vec_abs(128, hu, hu, total // 128, 8, 8)
    ti.vconv(128, "", qu, hu, total // 128, 1, 1, 4, 8)
    ti.data_move(q, qu, 0, 1, total // 32, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[h, q])
    return ti


def row_sum_kernel(rows, cols, kernel_name="tik_row_sum", dtype="float32"):
    """out[r] = sum of row r: vec_reduce_add per row, one row per core (block_num), results gathered in a GM
    workspace-free way: each core writes its block of 8 results."""
    ti = tik.Tik()
    lanes = 64 if dtype == "float32" else 128
    per_block = 8 if dtype == "float32" else 16
    x = ti.Tensor(dtype, (rows, cols), name="x", scope=tik.scope_gm)
    out = ti.Tensor(dtype, (rows * per_block,), name="out", scope=tik.scope_gm)
    with ti.for_range(0, rows, block_num=rows) as r:
        xu = ti.Tensor(dtype, (cols,), name="xu", scope=tik.scope_ubuf)
        work = ti.Tensor(dtype, (cols // lanes + per_block,), name="work", scope=tik.scope_ubuf)
        res = ti.Tensor(dtype, (per_block,), name="res", scope=tik.scope_ubuf)
        ti.data_move(xu, x[r, 0], 0, 1, cols // per_block, 0, 0)
        ti.vec_dup(per_block, res, 0, 1, 8)
        ti.vec_reduce_add(lanes, res, xu, work, cols // lanes, 8)
        ti.data_move(out[r * per_block], res, 0, 1, 1, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x], outputs=[out])
    return ti


def soc_core_num():
    return int(get_soc_spec("CORE_NUM"))


def reg_info(inputs, outputs, *formats):
    """A Custom op's reg info: named inputs and outputs, the given dtype_format rows, target Ascend."""
    from mindspore.ops import CustomRegOp
    reg = CustomRegOp()
    for i, name in enumerate(inputs):
        reg = reg.input(i, name)
    for i, name in enumerate(outputs):
        reg = reg.output(i, name)
    for row in formats:
        reg = reg.dtype_format(*row)
    return reg.target("Ascend").get_op_info()
