"""AddTik: z = x + y for float16 written with TIK (the kernel BuildCCE writes into kernel_meta, as CANN's TIK ops do).

The element count must be a multiple of 128 (one vector repeat) and at most 16384 per core; the cores share the
work tile by tile (block_num)."""
from functools import reduce

from tbe import tik

TILE = 2048          # float16 elements per tile: 16 repeats of 128
LANES = 128          # float16 elements per vector repeat
BLOCK_ELEMENTS = 16  # float16 elements per 32-byte block


def add_tik(x, y, z, kernel_name="add_tik"):
    """The op entry: TIK kernel of z = x + y over float16 tensors of one shape."""
    total = reduce(lambda a, b: a * b, x.get("shape"))
    if x.get("dtype").lower() != "float16" or total % LANES:
        raise RuntimeError(f"AddTik needs float16 with a multiple of {LANES} elements, got {x.get('dtype')} x {total}")
    tiles, tail = divmod(total, TILE)
    tik_instance = tik.Tik()
    x_gm = tik_instance.Tensor("float16", (total,), name="x_gm", scope=tik.scope_gm)
    y_gm = tik_instance.Tensor("float16", (total,), name="y_gm", scope=tik.scope_gm)
    z_gm = tik_instance.Tensor("float16", (total,), name="z_gm", scope=tik.scope_gm)
    if tiles:
        with tik_instance.for_range(0, tiles, block_num=min(tiles, 8)) as index:
            _add_tile(tik_instance, (x_gm, y_gm, z_gm), index * TILE, TILE)
    if tail:
        _add_tile(tik_instance, (x_gm, y_gm, z_gm), tiles * TILE, tail)
    tik_instance.BuildCCE(kernel_name=kernel_name, inputs=[x_gm, y_gm], outputs=[z_gm])
    return tik_instance


def _add_tile(tik_instance, tensors, offset, count):
    """Move one tile of x and y to UB, add, move the sum back."""
    x_gm, y_gm, z_gm = tensors
    x_ub = tik_instance.Tensor("float16", (TILE,), name="x_ub", scope=tik.scope_ubuf)
    y_ub = tik_instance.Tensor("float16", (TILE,), name="y_ub", scope=tik.scope_ubuf)
    blocks = count // BLOCK_ELEMENTS
    tik_instance.data_move(x_ub, x_gm[offset], 0, 1, blocks, 0, 0)
    tik_instance.data_move(y_ub, y_gm[offset], 0, 1, blocks, 0, 0)
    tik_instance.vec_add(LANES, x_ub, x_ub, y_ub, count // LANES, 8, 8, 8)
    tik_instance.data_move(z_gm[offset], x_ub, 0, 1, blocks, 0, 0)
