"""gemm's part of the cube kernel's epilogue: ``alpha * acc + beta * C`` on each UB chunk, in the accumulator dtype.

At the kernel's start the ``[1]``-shaped alpha / beta GM tensors move to UB (MTE2, one block each), float16 ones
are cast to float32 there (V, as CANN's gemm compute casts them), and the scalar unit loads each into a register
(after a V -> S or MTE2 -> S flag): the chip's way to broadcast a value held in memory.  Per chunk, the vector unit
multiplies the accumulator chunk by alpha (``vmuls`` with the register; int32, which vmuls lacks: ``vmul`` by a
row the register was ``vector_dup``-ed into once), MTE2 brings the chunk's part of C (in the
native ``[N1, M1*16, 16]`` tile layout, ``dst_dtype``) into UB, V casts it to float32 when it is float16, multiplies
it by beta and adds it: all in float32 (int32 for int8 inputs), rounded once afterwards when the chunk is cast to
the output dtype (CANN's order).  A float alpha / beta (tbe.dsl's para_dict form) is the ``vmuls`` immediate.
"""
from __future__ import annotations

from te_compat.dsl.cube import FRACTAL

_ITEMSIZE = {"float16": 2, "float32": 4, "int32": 4}
_VMULS_DTYPES = ("float16", "float32")        # vmuls' dtypes on the cube chips (int32 has vmul only)


class GemmEpilogue:
    """The alpha / beta / C steps of one cube kernel (``writer``: its :class:`~te_compat.cube.kernel.CubeWriter`;
    ``handles``: the GM handles of alpha, beta (None when a float) and of C in the native layout (None: no C))."""

    def __init__(self, writer, parts, handles: dict):
        self.w, self.parts = writer, parts
        self.alpha_src, self.beta_src, self.c_src = handles.get("alpha"), handles.get("beta"), handles.get("c")
        kb, acc = writer.kb, writer.d.acc_dtype
        self.scalars = {}
        for name, src in (("alpha", self.alpha_src), ("beta", self.beta_src)):
            if src is None:
                self.scalars[name] = float(getattr(parts, name))
                continue
            words = writer.blk // _ITEMSIZE[src.dtype]
            raw = kb.tensor(src.dtype, (words,), "UB", f"ub_{name}_in")
            wide = raw if src.dtype == acc else kb.tensor(acc, (writer.blk // 4,), "UB", f"ub_{name}")
            self.scalars[name] = (src, raw, wide)
        if self.c_src is not None:
            elems = writer.ub_slots * writer.chunk_elems
            self.ub_c = kb.tensor(self.c_src.dtype, (elems,), "UB", "ub_c")
            self.ub_c_acc = self.ub_c if self.c_src.dtype == acc else kb.tensor(acc, (elems,), "UB", "ub_c_acc")

    @staticmethod
    def ub_bytes_per_elem(c_dtype, acc_dtype: str) -> int:
        """UB bytes a chunk element of C takes (C's dtype, plus its accumulator-dtype copy when it is cast)."""
        if c_dtype is None:
            return 0
        return _ITEMSIZE[c_dtype] + (0 if c_dtype == acc_dtype else _ITEMSIZE[acc_dtype])

    def start(self) -> None:
        """alpha / beta from GM into scalar registers (before the tile loop); C's UB slots start free."""
        w, kb = self.w, self.w.kb
        loaded = [(name, item) for name, item in self.scalars.items() if not isinstance(item, float)]
        for _, (src, raw, _) in loaded:
            kb.data_move(raw[0], src[0], 0, 1, 1, 0, 0)
        casts = [(raw, wide) for _, (_, raw, wide) in loaded if wide is not raw]
        if casts:
            kb.set_flag("MTE2", "V", 0)
            kb.wait_flag("MTE2", "V", 0)
            for raw, wide in casts:
                w.vector("vconv", wide, raw, 1, w.d.acc_dtype, raw.dtype, round_mode="")
            kb.set_flag("V", "S", 0)
            kb.wait_flag("V", "S", 0)
        if loaded and len(casts) < len(loaded):
            kb.set_flag("MTE2", "S", 0)
            kb.wait_flag("MTE2", "S", 0)
        for name, (_, _, wide) in loaded:
            register = kb.scalar(w.d.acc_dtype, f"r_{name}")
            register.set_as(wide[0])        # the scalar unit reads UB: alpha / beta as the vmuls operand
            self.scalars[name] = register
        if w.d.acc_dtype not in _VMULS_DTYPES:      # no vmuls for int32: broadcast each value into a row once
            lanes = w.chip.vector_width_bytes // _ITEMSIZE[w.d.acc_dtype]
            for name in ("alpha", "beta"):
                row = kb.tensor(w.d.acc_dtype, (lanes,), "UB", f"ub_{name}_row")
                kb.emit("vector_dup", lanes, row[0], self.scalars[name], 1, 1, 8)
                self.scalars[name] = row
        if self.c_src is not None:
            for uslot in range(w.ub_slots):
                kb.set_flag("V", "MTE2", uslot)

    def _scale(self, chunk, name: str, count: int) -> None:
        """``chunk *= alpha`` / ``beta`` (``name``) over ``count`` accumulator elements."""
        w, acc = self.w, self.w.d.acc_dtype
        if acc in _VMULS_DTYPES:
            w.vector("vmuls", chunk, chunk, count, acc, acc, scalar=self.scalars[name])
        else:
            w.binary("vmul", chunk, chunk, self.scalars[name], count, acc, src1_repeats=False)

    def finish(self) -> None:
        if self.c_src is not None:
            for uslot in range(self.w.ub_slots):
                self.w.kb.wait_flag("V", "MTE2", uslot)

    def apply(self, acc_chunk, b, m1_0, n1_0, uslot: int) -> None:
        """``acc_chunk = alpha * acc_chunk (+ beta * C's chunk)`` for the chunk of fractal columns from ``n1_0``."""
        w, kb, t = self.w, self.w.kb, self.w.t
        acc, count = w.d.acc_dtype, w.chunk_elems
        self._scale(acc_chunk, "alpha", count)
        if self.c_src is None:
            return
        c_dtype = self.c_src.dtype
        c_in = w.part(self.ub_c, uslot * count)
        frac_blocks = FRACTAL * FRACTAL * _ITEMSIZE[c_dtype] // w.blk
        rows = t.m1 * FRACTAL
        base = b * (t.n1 * rows * FRACTAL) + (n1_0 * rows + m1_0 * FRACTAL) * FRACTAL
        kb.wait_flag("V", "MTE2", uslot)                # the previous chunk of this slot has read its C
        kb.data_move(c_in[0], self.c_src[base], 0, t.nc, t.mt * frac_blocks, (t.m1 - t.mt) * frac_blocks, 0)
        kb.set_flag("MTE2", "V", 1)
        kb.wait_flag("MTE2", "V", 1)
        c_acc = c_in
        if c_dtype != acc:
            c_acc = w.part(self.ub_c_acc, uslot * count)
            w.vector("vconv", c_acc, c_in, count, acc, c_dtype, round_mode="")
        self._scale(c_acc, "beta", count)
        w.binary("vadd", acc_chunk, acc_chunk, c_acc, count, acc)
        kb.set_flag("V", "MTE2", uslot)


__all__ = ["GemmEpilogue"]
