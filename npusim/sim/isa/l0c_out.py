"""What the instructions that move a matmul result out of L0C share (``copy_matrix_cc_to_gm``,
``copy_matrix_cc_to_ubuf``): the operands' form on this chip and its path, a local operand's alignment and bounds,
and the batched read of every row's L0C bursts."""
from __future__ import annotations

import numpy as np

from npusim.errors.sim import InvalidOperandError
from npusim.sim.checks import check_access, check_aligned, check_dtype
from npusim.sim.isa.batch_moves import _local_get


def form_and_path(kc, opcode: str, forms: dict, src, dst, dst_space: str) -> tuple:
    """(isa key, the chip's L0C -> ``dst_space`` path) of ``opcode`` from ``src``'s dtype to ``dst``'s
    (``forms``: (src dtype, dst dtype) -> key), or the typed error saying why not."""
    chip = kc.chip
    key = forms.get((src.dtype, dst.dtype))
    if key is None:
        raise kc.fail(InvalidOperandError, f"{opcode} has no {src.dtype} -> {dst.dtype} form (forms: "
                                           f"{', '.join(f'{a} -> {b}' for a, b in forms)})")
    check_dtype(kc.site, chip, opcode, key)
    path = chip.paths.get(("L0C", dst_space))
    if path is None:
        raise kc.fail(InvalidOperandError, f"{opcode} on {chip.name} needs an L0C->{dst_space} path in its chip "
                                           f"model")
    return key, path


def check_local(site, op, start: int, span: int, align: int) -> None:
    """A local operand's byte ``start`` aligned to ``align`` and its ``span`` bytes inside the buffer."""
    if start % align:
        check_aligned(site, op.role, start, align)
    if start < op.lo or start + span > op.hi:
        check_access(site, op.role, op.buffer, start, start + span - 1, op.lo, op.hi, "bytes")


def l0c_rows(b, site, side, op, span: int, align: int, shape: tuple) -> np.ndarray:
    """A lockstep batch's L0C reads: every active row's ``shape`` = (bursts, burst bytes, pitch) from its start
    (``side``: the operand's batched start), each start checked first."""
    starts = side.starts(b)
    for start in (np.asarray(starts).reshape(-1) if isinstance(starts, np.ndarray) else (starts,)):
        check_local(site, op, int(start), span, align)
    return _local_get(b.views[op.key], b.rows, starts, shape)


__all__ = ["check_local", "form_and_path", "l0c_rows"]
