"""A TIK kernel, written as TIK op files write it, run two ways on the simulated Ascend 910:
with tikdb (numpy in, numpy out) and as the impl of an ops.Custom(func_type="tbe") op.

    npusim profile examples/tik_add.py
"""
import numpy as np

from mindspore import Tensor, context, ops
from mindspore.ops import CustomRegOp, DataType, custom_info_register
from tbe import tik

TILE = 2048          # fp16 elements per UB tile
PER_BLOCK = 16       # fp16 elements per 32-byte block
LANES = 128          # fp16 elements per vector repeat


def tik_add(total, kernel_name):
    """z = x + y over ``total`` fp16 elements (a multiple of TILE x the core count): every core takes an equal
    share, double-buffered (thread_num=2) tiles."""
    ti = tik.Tik()
    core_num = tik.Dprofile().get_aicore_num()
    x = ti.Tensor("float16", (total,), name="x", scope=tik.scope_gm)
    y = ti.Tensor("float16", (total,), name="y", scope=tik.scope_gm)
    z = ti.Tensor("float16", (total,), name="z", scope=tik.scope_gm)
    per_core = total // core_num
    with ti.for_range(0, core_num, block_num=core_num) as core:
        with ti.for_range(0, per_core // TILE, thread_num=2) as t:
            xu = ti.Tensor("float16", (TILE,), name="xu", scope=tik.scope_ubuf)
            yu = ti.Tensor("float16", (TILE,), name="yu", scope=tik.scope_ubuf)
            start = core * per_core + t * TILE
            ti.data_move(xu, x[start], 0, 1, TILE // PER_BLOCK, 0, 0)
            ti.data_move(yu, y[start], 0, 1, TILE // PER_BLOCK, 0, 0)
            ti.vec_add(LANES, xu, xu, yu, TILE // LANES, 8, 8, 8)
            ti.data_move(z[start], xu, 0, 1, TILE // PER_BLOCK, 0, 0)
    ti.BuildCCE(kernel_name=kernel_name, inputs=[x, y], outputs=[z])
    return ti


reg = (CustomRegOp().input(0, "x").input(1, "y").output(0, "z")
       .dtype_format(DataType.F16_Default, DataType.F16_Default, DataType.F16_Default)
       .target("Ascend").get_op_info())


@custom_info_register(reg)
def add_impl(x, y, z, kernel_name="tik_add"):
    """The op's impl: MindSpore's tensor dicts in, a TIK kernel built with BuildCCE."""
    tik_add(int(np.prod(x["shape"])), kernel_name)


if __name__ == "__main__":
    context.set_context(device_target="Ascend")
    total = 32 * 4 * TILE
    rng = np.random.default_rng(0)
    a = rng.standard_normal(total).astype(np.float16)
    b = rng.standard_normal(total).astype(np.float16)

    ti = tik_add(total, "tik_add_debug")
    (z,) = ti.tikdb.start_debug(feed_dict={"x": a, "y": b}, interactive=False)
    print("tikdb result matches numpy bit for bit:", bool(np.array_equal(z, a + b)))

    op = ops.Custom(add_impl, out_shape=lambda x, _: x, out_dtype=lambda x, _: x, func_type="tbe")
    out = op(Tensor(a), Tensor(b)).asnumpy()
    print("ops.Custom result matches numpy bit for bit:", bool(np.array_equal(out, a + b)))
