"""``tikdb.debug_print(expr)``: record a value while the kernel runs, print it after a tikdb run.

Each ``debug_print`` becomes scalar stores into two hidden GM workspaces (what TIK's debugger keeps on the host):
the print's id and the value (as float64: exact for every int up to 2**53 and every float16/float32) at slot
``block_idx * DEBUG_PRINT_SLOTS + counter`` of a per-block counter register.  ``tikdb.start_debug`` reads the
slots back and prints one line per executed print, block by block, in execution order.  Prints past
``DEBUG_PRINT_SLOTS`` per block are dropped.  Launched outside tikdb (ops.Custom) the stores still run
and nobody reads them, as TIK's debug statements are ignored on the chip.
"""
from __future__ import annotations

import numpy as np

from npusim.errors.tik import TikSyntaxError
from npusim.sim.builder import E, TensorHandle, TensorRef, raw
from npusim.sim.kernel import BLOCK_IDX, Cast, Instr, Var, expr_str

DEBUG_PRINT_SLOTS = 4096   # prints kept per block (host memory of the debugger), not hardware
IDS, VALUES, COUNTS = "__tikdb_print_ids", "__tikdb_print_values", "__tikdb_print_counts"
COUNTER = "__tikdb_print_counter"
HIDDEN = (IDS, VALUES, COUNTS)


class DebugPrints:
    """The debug_print statements of one Tik: their texts, and the hidden buffers they write."""

    def __init__(self, tik):
        self._tik = tik
        self.texts: list = []

    def add(self, expr) -> None:
        if isinstance(expr, (TensorHandle, TensorRef)):
            raise TikSyntaxError("tikdb.debug_print takes a Scalar or an Expr (print a tensor from start_debug's "
                                 "outputs)")
        kb = self._tik._kb
        if not self.texts:  # the counter starts at 0 at the top of the kernel, whatever the print's nesting
            kb.scalar("int32", COUNTER)
            kb._stack[0].insert(0, Instr("sset", (("dst", COUNTER), ("value", 0))))
        self.texts.append((expr, True) if isinstance(expr, str) else (expr_str(raw(expr)), False))
        count = E(Var(COUNTER))
        slot = E(Var(BLOCK_IDX)) * DEBUG_PRINT_SLOTS + count
        value = 0 if isinstance(expr, str) else E(Cast("float64", raw(expr)))
        with kb.if_scope(count < DEBUG_PRINT_SLOTS):
            kb.emit("sstore", TensorRef(_Hidden(kb, IDS, "int32"), raw(slot)), len(self.texts) - 1)
            kb.emit("sstore", TensorRef(_Hidden(kb, VALUES, "float64"), raw(slot)), value)
        kb.emit("sset", COUNTER, count + 1)

    def declare(self, block_num: int) -> None:
        """Declare the hidden workspaces and store each block's print count at the kernel's end (at BuildCCE,
        when the block count is known; once)."""
        kb = self._tik._kb
        if not self.texts or IDS in kb._gm:
            return
        kb.tensor("int32", (block_num * DEBUG_PRINT_SLOTS,), "GM", IDS, is_workspace=True)
        kb.tensor("float64", (block_num * DEBUG_PRINT_SLOTS,), "GM", VALUES, is_workspace=True)
        kb.tensor("int32", (block_num,), "GM", COUNTS, is_workspace=True)
        kb.emit("sstore", TensorRef(_Hidden(kb, COUNTS, "int32"), Var(BLOCK_IDX)), E(Var(COUNTER)))

    def report(self, hidden: dict, block_num: int, out) -> None:
        """Print the recorded values (``hidden``: workspace name -> array read back after the run)."""
        if not self.texts or IDS not in hidden:
            return
        ids = hidden[IDS].reshape(block_num, DEBUG_PRINT_SLOTS)
        values = hidden[VALUES].reshape(block_num, DEBUG_PRINT_SLOTS)
        counts = hidden[COUNTS]
        for block in range(block_num):
            for slot in range(min(int(counts[block]), DEBUG_PRINT_SLOTS)):
                text, is_text = self.texts[int(ids[block, slot])]
                shown = "" if is_text else f" = {_number(values[block, slot])}"
                print(f"[tikdb block {block}] {text}{shown}", file=out)


def _number(value: np.float64) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


class _Hidden:
    """A minimal tensor handle for the hidden buffers (BufRef of a name)."""

    def __init__(self, builder, name: str, dtype: str):
        self.builder, self.name, self.dtype, self.view_dtype = builder, name, dtype, None

    def ref(self, offset):
        from npusim.sim.kernel import BufRef
        return BufRef(self.name, raw(offset))


__all__ = ["DEBUG_PRINT_SLOTS", "DebugPrints"]
