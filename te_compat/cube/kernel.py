"""Writing the cube kernel: staging programs, the tile loop (GM -> L1 -> L0A/L0B -> mmad -> L0C), the epilogue in
UB and the store.

Per tile (``mt x nt`` output fractals, tiles spread over the blocks) and k-step (``kt`` fractals of K):
MTE2 loads the A and B panels into L1 (one strided move each, from the native layouts of
:mod:`te_compat.cube.staging`), MTE1 moves them to L0A (zZ: one move per fractal row of A) and L0B (nZ: one move),
M runs one ``mmad`` accumulating into L0C (the first k-step overwrites).  Then L0C goes to UB (Ascend910: L0C->UB;
chips without that path, e.g. Ascend910B1, go through a GM workspace on FIX then MTE2), the vector unit adds the
bias (float32 / int32), casts to the output dtype and runs the fused epilogue, and MTE3 stores the tile.  Each hand
over between pipes is a set_flag / wait_flag pair; the L1 and L0 panels are double-buffered over k-steps (the
loads of step k+1 overlap the mmad of step k).
"""
from __future__ import annotations

from npusim.sim import KernelBuilder
from te_compat.cube.graph import CubeGraph
from te_compat.cube.tiling import CubeTiling
from te_compat.dsl.cube import FRACTAL

_ITEMSIZE = {"float16": 2, "float32": 4, "int32": 4, "int8": 1, "uint8": 1}
_CAST_KEYS = {("float32", "float16"): "", ("int32", "float16"): "", ("float16", "float32"): ""}


class CubeWriter:
    """Writes one cube kernel into a KernelBuilder (see the module docstring)."""

    def __init__(self, kb: KernelBuilder, chip, graph: CubeGraph, tiling: CubeTiling, sources: dict, out_dst,
                 bias_src, b_batched: bool):
        self.kb, self.chip, self.g, self.t = kb, chip, graph, tiling
        self.b_batched = b_batched
        self.d = graph.desc
        self.a_src, self.b_src = sources["a"], sources["b"]
        self.out_dst, self.bias_src = out_dst, bias_src
        self.k0 = tiling.k0
        self.blk = chip.block_bytes
        self._declare_locals()

    # -- buffers --------------------------------------------------------------------------------------------------
    def _declare_locals(self) -> None:
        kb, t, d = self.kb, self.t, self.d
        a_elems, b_elems = t.mt * t.kt * FRACTAL * self.k0, t.kt * t.nt * FRACTAL * self.k0
        self.a_elems, self.b_elems = a_elems, b_elems
        isz = _ITEMSIZE[d.in_dtype]
        l1_slots = 2 if 2 * (a_elems + b_elems) * isz <= self.chip.l1_bytes else 1
        self.l1_a = kb.tensor(d.in_dtype, (l1_slots * a_elems,), "L1", "l1_a")
        self.l1_b = kb.tensor(d.in_dtype, (l1_slots * b_elems,), "L1", "l1_b")
        self.l0_slots = 2 if 2 * a_elems * isz <= self.chip.l0a_bytes and 2 * b_elems * isz <= \
            self.chip.l0b_bytes else 1
        self.l1_slots = l1_slots
        self.l0a = kb.tensor(d.in_dtype, (self.l0_slots * a_elems,), "L0A", "l0a")
        self.l0b = kb.tensor(d.in_dtype, (self.l0_slots * b_elems,), "L0B", "l0b")
        self.tile_elems = t.mt * t.nt * FRACTAL * FRACTAL
        self.chunk_elems = t.mt * t.nc * FRACTAL * FRACTAL      # the part of the tile UB holds at once
        self.l0c = kb.tensor(d.acc_dtype, (self.tile_elems,), "L0C", "l0c")
        self.ub_acc = kb.tensor(d.acc_dtype, (self.chunk_elems,), "UB", "ub_acc")
        self.ub_out = {}
        self.has_l0c_ub = ("L0C", "UB") in self.chip.paths
        if not self.has_l0c_ub:
            self.ws_acc = kb.tensor(d.acc_dtype, (t.block_dim * self.tile_elems,), "GM", "ws_acc",
                                    is_workspace=True)
        if self.bias_src is not None:
            self.ub_bias = kb.tensor(d.acc_dtype, (t.nc * FRACTAL,), "UB", "ub_bias")
            self.ub_bias_in = kb.tensor(self.bias_src.dtype, (t.nc * FRACTAL,), "UB", "ub_bias_in") \
                if self.bias_src.dtype != d.acc_dtype else None

    def _ub_of(self, dtype: str):
        if dtype == self.d.acc_dtype:
            return self.ub_acc
        if dtype not in self.ub_out:
            self.ub_out[dtype] = self.kb.tensor(dtype, (self.chunk_elems,), "UB", f"ub_{dtype}")
        return self.ub_out[dtype]

    # -- kernel ---------------------------------------------------------------------------------------------------
    def emit(self) -> None:
        kb, t = self.kb, self.t
        for slot in range(2):
            kb.set_flag("MTE1", "MTE2", slot)
            kb.set_flag("M", "MTE1", slot)
        kb.set_flag("MTE3", "V", 0)
        kb.set_flag("V", "M", 0)
        with kb.for_range(0, t.tiles_per_block) as i:
            self._tile(kb.block_idx * t.tiles_per_block + i)
        for slot in range(2):
            kb.wait_flag("MTE1", "MTE2", slot)
            kb.wait_flag("M", "MTE1", slot)
        kb.wait_flag("MTE3", "V", 0)
        kb.wait_flag("V", "M", 0)

    def _tile(self, tile) -> None:
        t = self.t
        n_tiles, m_tiles = t.n1 // t.nt, t.m1 // t.mt
        per_batch = m_tiles * n_tiles
        b = tile // per_batch
        rest = tile % per_batch
        m1_0 = (rest // n_tiles) * t.mt
        n1_0 = (rest % n_tiles) * t.nt
        self.kb.wait_flag("V", "M", 0)              # L0C free (the previous tile left it)
        steps = t.k1 // t.kt
        self._k_step(b, m1_0, n1_0, 0, 0, accumulate=False)
        if steps > 1:
            with self.kb.for_range(1, steps) as ks:
                self._k_step(b, m1_0, n1_0, ks, ks % 2, accumulate=True)
        self._epilogue(b, m1_0, n1_0)

    def _k_step(self, b, m1_0, n1_0, ks, slot, accumulate: bool) -> None:
        kb, t, k0 = self.kb, self.t, self.k0
        slot = slot if self.l1_slots == 2 else 0
        l1_a, l1_b = self.l1_a[slot * self.a_elems], self.l1_b[slot * self.b_elems]
        kb.wait_flag("MTE1", "MTE2", slot)
        a_rows, b_rows = t.m1 * FRACTAL, t.n1 * FRACTAL
        a_batch = b * (t.k1 * a_rows * k0)
        b_batch = b * (t.k1 * b_rows * k0) if self.b_batched else 0
        k_first = ks * t.kt
        # A panel [kt, mt*16, K0] of [k1, M1*16, K0]; B panel [kt, nt*16, K0] of [k1, N1*16, K0]
        kb.data_move(l1_a, self.a_src[a_batch + (k_first * a_rows + m1_0 * FRACTAL) * k0], 0, t.kt,
                     t.mt * FRACTAL, (t.m1 - t.mt) * FRACTAL, 0)
        kb.data_move(l1_b, self.b_src[b_batch + (k_first * b_rows + n1_0 * FRACTAL) * k0], 0, t.kt,
                     t.nt * FRACTAL, (t.n1 - t.nt) * FRACTAL, 0)
        kb.set_flag("MTE2", "MTE1", slot)
        kb.wait_flag("MTE2", "MTE1", slot)
        l0_slot = slot if self.l0_slots == 2 else 0
        kb.wait_flag("M", "MTE1", l0_slot)
        a0, b0 = l0_slot * self.a_elems, l0_slot * self.b_elems
        l1_a0, l1_b0 = slot * self.a_elems, slot * self.b_elems
        frac = FRACTAL * k0
        for m in range(t.mt):     # zZ: fractal row m of A holds its kt fractals side by side
            kb.data_move(self.l0a[a0 + m * t.kt * frac], self.l1_a[l1_a0 + m * frac], 0, t.kt, FRACTAL,
                         (t.mt - 1) * FRACTAL, 0)
        kb.data_move(self.l0b[b0], self.l1_b[l1_b0], 0, 1, t.kt * t.nt * FRACTAL, 0, 0)
        kb.set_flag("MTE1", "MTE2", slot)
        kb.set_flag("MTE1", "M", 0)
        kb.wait_flag("MTE1", "M", 0)
        kb.mmad(self.l0c, self.l0a[a0], self.l0b[b0], t.mt * FRACTAL, t.kt * k0, t.nt * FRACTAL, accumulate)
        kb.set_flag("M", "MTE1", l0_slot)

    # -- epilogue -------------------------------------------------------------------------------------------------
    def _epilogue(self, b, m1_0, n1_0) -> None:
        """L0C's tile through UB in chunks of ``nc`` fractal columns: move, bias, cast, fused steps, store."""
        kb, t = self.kb, self.t
        kb.set_flag("M", "V", 0)
        kb.wait_flag("M", "V", 0)
        if not self.has_l0c_ub:
            kb.set_flag("M", "FIX", 0)
            kb.wait_flag("M", "FIX", 0)
        chunks = t.nt // t.nc
        for chunk in range(chunks):
            self._chunk(b, m1_0, n1_0, chunk, last=chunk == chunks - 1)

    def _load_chunk(self, chunk: int, last: bool) -> None:
        kb, d = self.kb, self.d
        nbytes = self.chunk_elems * _ITEMSIZE[d.acc_dtype]
        l0c = self.l0c[chunk * self.chunk_elems]
        if self.has_l0c_ub:
            kb.data_move(self.ub_acc, l0c, 0, 1, nbytes // self.blk, 0, 0)
        else:
            ws = self.ws_acc[kb.block_idx * self.tile_elems + chunk * self.chunk_elems]
            kb.data_move(ws, l0c, 0, 1, nbytes // self.blk, 0, 0)
            kb.set_flag("FIX", "MTE2", 0)
            kb.wait_flag("FIX", "MTE2", 0)
            kb.data_move(self.ub_acc, ws, 0, 1, nbytes // self.blk, 0, 0)
            kb.set_flag("MTE2", "V", 0)
            kb.wait_flag("MTE2", "V", 0)
        if last:
            kb.set_flag("V", "M", 0)                # L0C may take the next tile

    def _chunk(self, b, m1_0, n1_0, chunk: int, last: bool) -> None:
        kb, t, d = self.kb, self.t, self.d
        kb.wait_flag("MTE3", "V", 0)                # UB free (the previous chunk's store is done)
        self._load_chunk(chunk, last)
        n_first = n1_0 + chunk * t.nc
        if self.bias_src is not None:
            self._add_bias(n_first)
        current = self.ub_acc
        dtype = d.acc_dtype
        if d.out_dtype != dtype:
            current = self._cast(current, dtype, d.out_dtype)
            dtype = d.out_dtype
        for step in self.g.epilogue:
            current = self._step(current, step)
            dtype = step.dst_dtype
        kb.set_flag("V", "MTE3", 0)
        kb.wait_flag("V", "MTE3", 0)
        self._store(current, dtype, b, m1_0, n_first)
        kb.set_flag("MTE3", "V", 0)

    def _add_bias(self, n1_0) -> None:
        kb, t, d = self.kb, self.t, self.d
        count = t.nc * FRACTAL
        src_dtype = self.bias_src.dtype
        target = self.ub_bias_in if self.ub_bias_in is not None else self.ub_bias
        blocks = -(-count * _ITEMSIZE[src_dtype] // self.blk)
        kb.data_move(target, self.bias_src[n1_0 * FRACTAL], 0, 1, blocks, 0, 0)
        kb.set_flag("MTE2", "V", 1)
        kb.wait_flag("MTE2", "V", 1)
        if self.ub_bias_in is not None:
            self._vector("vconv", self.ub_bias, self.ub_bias_in, count, d.acc_dtype, src_dtype, round_mode="")
        lanes_row = FRACTAL                     # one output row of a fractal: 16 accumulator values
        rows = t.mt * FRACTAL
        row_blocks = lanes_row * 4 // self.blk
        for n in range(t.nc):
            done = 0
            while done < rows:
                rep = min(self.chip.max_repeat, rows - done)
                base = (n * rows + done) * lanes_row
                kb.vadd(lanes_row, self.ub_acc[base], self.ub_acc[base], self.ub_bias[n * lanes_row], rep,
                        1, 1, 1, row_blocks, row_blocks, 0)
                done += rep

    def _cast(self, src, src_dtype: str, dst_dtype: str):
        dst = self._ub_of(dst_dtype)
        self._vector("vconv", dst, src, self.chunk_elems, dst_dtype, src_dtype, round_mode="")
        return dst

    def _step(self, current, step):
        if step.opcode == "vconv":
            return self._cast(current, step.src_dtype, step.dst_dtype)
        extra = {} if step.scalar is None else {"scalar": step.scalar}
        self._vector(step.opcode, current, current, self.chunk_elems, step.dst_dtype, step.src_dtype, **extra)
        return current

    def _vector(self, opcode: str, dst, src, count: int, dst_dtype: str, src_dtype: str, **extra) -> None:
        """``opcode`` over ``count`` contiguous elements (whole repeats; the tile is a multiple of 256)."""
        wide = max(_ITEMSIZE[dst_dtype], _ITEMSIZE[src_dtype])
        lanes = self.chip.vector_width_bytes // wide
        dst_rep = lanes * _ITEMSIZE[dst_dtype] // self.blk
        src_rep = lanes * _ITEMSIZE[src_dtype] // self.blk
        full, tail = divmod(count, lanes)
        done = 0
        while done < full:
            rep = min(self.chip.max_repeat, full - done)
            self.kb.emit(opcode, mask=lanes, dst=dst[done * lanes], src=src[done * lanes], repeat_times=rep,
                         dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=dst_rep, src_rep_stride=src_rep,
                         **extra)
            done += rep
        if tail:
            self.kb.emit(opcode, mask=tail, dst=dst[full * lanes], src=src[full * lanes], repeat_times=1,
                         dst_blk_stride=1, src_blk_stride=1, dst_rep_stride=dst_rep, src_rep_stride=src_rep,
                         **extra)

    def _store(self, ub, dtype: str, b, m1_0, n1_0) -> None:
        t = self.t
        frac_blocks = FRACTAL * FRACTAL * _ITEMSIZE[dtype] // self.blk
        rows = t.m1 * FRACTAL
        base = b * (t.n1 * rows * FRACTAL) + (n1_0 * rows + m1_0 * FRACTAL) * FRACTAL
        # chunk [nc, mt*16, 16] into [N1, M1*16, 16]
        self.kb.data_move(self.out_dst[base], ub, 0, t.nc, t.mt * frac_blocks, 0, (t.m1 - t.mt) * frac_blocks)


__all__ = ["CubeWriter"]
