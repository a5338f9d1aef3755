"""Writing the cube kernel: the tile loop (GM -> L1 -> L0A/L0B -> mmad -> L0C), the epilogue in UB and the store.

Per tile (``mt x nt`` output fractals, tiles spread over the blocks; neighbouring tiles may overlap, see
:func:`te_compat.cube.tiling.tile_start`), per sub-tile (its columns in its own L0C slot; slots alternate, so one
sub-tile's epilogue overlaps the next one's mmads; the first sub-tile takes the tile's last columns and the last
one its first, so where tiles overlap the lower block writes the shared columns first, as running the blocks one
after another would) and per GM -> L1 load of ``kl`` fractals of K: MTE2 loads the A and B panels into L1 (one
strided move each, from the native layouts of :mod:`te_compat.cube.staging`; an A panel resident in L1 only for
the first sub-tile; a load3d convolution's L1 holds channel blocks of the image's feature map instead), then for
each k-step of ``kt`` fractals MTE1 moves them to L0A (zZ: one move per fractal column of the panel, or per fractal
row when that is fewer; a load3d convolution: one load3d per fractal row of output pixels) and L0B (nZ: one move)
and M runs one ``mmad`` accumulating into L0C (the first k-step overwrites).  Then L0C goes to UB in chunks
(Ascend910: L0C->UB; chips without that path, e.g. Ascend910B1, go through a GM workspace on FIX then MTE2), the
vector unit adds the
bias (float32 / int32) or applies gemm's ``alpha * acc + beta * C`` (:mod:`te_compat.cube.gemm_epilogue`), casts to
the output dtype and runs the fused epilogue, and MTE3 stores the chunk.  On chips with a FIX pipe
(:mod:`te_compat.cube.fixpipe_out`: Ascend910B1) a result without bias / gemm terms whose epilogue is at most a
float16 cast and a relu skips UB: one ``copy_matrix_cc_to_gm`` per sub-tile writes it to GM.  Each
hand over between pipes is a set_flag / wait_flag pair; L1, L0A/L0B, L0C and the UB chunks are double-buffered
(ping-pong slots with one event id per slot), so loads overlap the cube and stores overlap the next chunk; where
four k-steps of A fit L0A, its slots form a ring of four and MTE1 moves each k-step's A panel while the cube runs
the one before (:meth:`CubeWriter._a_ring`).
MTE1 moves a load's first A panel before it waits for the load's B panel (as soon as the A panel is in L1 when
the load brings it; not in load3d convolutions, and a load split whole moves its A panels in
:meth:`CubeWriter._split_k_steps`), and the load's first k-step's mmads go piece by piece as their B columns reach
L0B (UB chunks of ``nc`` columns when a core's only tile's load brings A from K = 0).  The tile may start with a
head (``head``, :meth:`CubeWriter._led_tile`): its first K fractals over the first two sub-tiles' width at once;
its first sub-tile's loads follow the tiling's plan (``first_loads``, :mod:`te_compat.cube.load_plan`), and its last
sub-tile's last k-steps run by pieces (``nc`` columns each through UB; ``nc`` and then the rest by the fixpipe),
each piece leaving L0C while the cube runs the next (every element still accumulates its K in ascending order); on
chips with
``copy_matrix_cc_to_ubuf`` those pieces are cast (and relu'd) by the move out of L0C itself
(:func:`te_compat.cube.fixpipe_out.ub_convert`).  So are the chunks of an earlier sub-tile of a core's last tile
when each later sub-tile reads its K in at most two loads (one per L1 slot, so they start as the sub-tile ends):
its stores then run back to back.  Otherwise earlier sub-tiles keep the move, vconv and vrelu: their stores,
paced by the vector pipe, interleave with the next sub-tile's GM reads, which bunched stores would hold up on the
core's HBM share (measured: a 1024^3 matmul with a fused relu, whose narrow sub-tile reads four loads, +5 %).
"""
from __future__ import annotations

from npusim.sim import KernelBuilder
from npusim.sim.builder import E, raw
from npusim.sim.kernel import BinOp
from te_compat.cube.fixpipe_out import fixpipe_out, ub_convert
from te_compat.cube.gemm_epilogue import GemmEpilogue
from te_compat.cube.load_plan import head_shape_fits
from te_compat.cube.graph import CubeGraph
from te_compat.cube.tiling import CubeTiling, tile_start
from te_compat.dsl.cube import FRACTAL

_ITEMSIZE = {"float16": 2, "float32": 4, "int32": 4, "int8": 1, "uint8": 1}
_RING = 4          # L0A slots of the ring (CubeWriter._a_ring)
_A_EVENT = 3       # MTE2 -> MTE1: a load's A panel is in L1, its B panel may not be (events 0, 1: the L1 slots)
_PIECE_MIN = 3     # fractal columns of a piece at least (CubeWriter._piece_width)

_CAST_KEYS = {("float32", "float16"): "", ("int32", "float16"): "", ("float16", "float32"): ""}


class CubeWriter:
    """Writes one cube kernel into a KernelBuilder (see the module docstring)."""

    def __init__(self, kb: KernelBuilder, chip, graph: CubeGraph, tiling: CubeTiling, sources: dict, out_dst,
                 bias_src, b_batched: bool, gemm_handles: dict = None, load3d=None):
        self.kb, self.chip, self.g, self.t = kb, chip, graph, tiling
        self.load3d = load3d        # a convolution's geometry: A is the feature map, gathered by load3d
        self.m_start = 0            # the current tile's first fractal row of M (load3d's window corners)
        self.b_batched = b_batched
        self.d = graph.desc
        self.a_src, self.b_src = sources["a"], sources["b"]
        self.out_dst, self.bias_src = out_dst, bias_src
        self.bias_batched = graph.conv is not None and graph.conv["real_g"] > 1    # one bias run per group
        self.k0 = tiling.k0
        self.blk = chip.block_bytes
        self.c_dtype = gemm_handles["c"].dtype if gemm_handles and gemm_handles.get("c") is not None else None
        self.fixpipe = fixpipe_out(graph, chip)     # None: the result leaves L0C through UB
        self.out_pipe = "V" if self.fixpipe is None else "FIX"     # the pipe that frees an L0C slot
        # the UB path's move out of L0C converts (and relus) on the way where the chip can (fixpipe_out)
        self.ub_convert = ub_convert(graph, chip, bias_src is not None) if self.fixpipe is None and \
            ("L0C", "UB") in chip.paths else None
        self._declare_locals()
        self.gemm = GemmEpilogue(self, graph.gemm, gemm_handles) if graph.gemm is not None else None

    # -- buffers --------------------------------------------------------------------------------------------------
    def _declare_locals(self) -> None:
        kb, t, d = self.kb, self.t, self.d
        a_elems, b_elems = t.mt * t.kt * FRACTAL * self.k0, t.kt * t.ns * FRACTAL * self.k0
        isz = _ITEMSIZE[d.in_dtype]
        scale = t.kl1 // t.kt
        self.a_chunk, self.b_chunk = a_elems * scale, b_elems * scale        # one GM -> L1 load
        if self.load3d is not None:          # one load's channel blocks of the image's feature map
            self.a_chunk = self.load3d.plane_elems(self.k0)
        a_l1 = (t.k1 // t.kl1) * self.a_chunk if t.a_resident else 2 * self.a_chunk
        self.l1_slots = 2 if (a_l1 + 2 * self.b_chunk) * isz <= self.chip.l1_bytes else 1
        self.a_resident = t.a_resident and self.l1_slots == 2     # else every sub-tile reads its A panels
        if not self.a_resident:
            a_l1 = self.l1_slots * self.a_chunk
        # a head's k-steps take the first two sub-tiles' B panel in L0B (its loads fit the L1 slots as they are)
        self.head = self.a_resident and self._head_fits()
        # the first sub-tile's planned loads; a head that cannot run here becomes its first loads
        self.first_plan = t.first_loads if self.head or not t.head else t.head + t.first_loads
        if self.head:
            b_elems = t.kt * (t.parts[0] + t.parts[1]) * FRACTAL * self.k0
            if (a_l1 + 2 * b_elems * scale) * isz <= self.chip.l1_bytes:    # wider L1 slots where they fit:
                self.b_chunk = b_elems * scale                               # later sub-tiles' loads are fewer
        self.a_elems, self.b_elems = a_elems, b_elems
        self.l1_a = kb.tensor(d.in_dtype, (a_l1,), "L1", "l1_a")
        self.l1_b = kb.tensor(d.in_dtype, (self.l1_slots * self.b_chunk,), "L1", "l1_b")
        self.l0_slots = 2 if 2 * a_elems * isz <= self.chip.l0a_bytes and 2 * b_elems * isz <= \
            self.chip.l0b_bytes else 1
        self.a_slots = self._a_ring(a_elems * isz)
        self.l0a = kb.tensor(d.in_dtype, (self.a_slots * a_elems,), "L0A", "l0a")
        split_panels = self._split_depth(t.parts[-1]) * t.kt * t.parts[-1] * FRACTAL * self.k0
        self.l0b = kb.tensor(d.in_dtype, (max(self.l0_slots * b_elems, split_panels),), "L0B", "l0b")
        column = t.mt * FRACTAL * FRACTAL                             # one fractal column of a tile
        self.l0c_elems = t.l0c_columns * column                       # the L0C slots together
        self.slot_base = [t.l0c_offset(slot) * column for slot in range(t.l0c_slots)]
        if self.head:       # the first two sub-tiles' columns in order: the second's, then the first's
            self.slot_base = [t.parts[1] * column, 0]
        self.chunk_elems = t.mt * t.nc * FRACTAL * FRACTAL      # the part of a sub-tile UB holds at once
        self.l0c = kb.tensor(d.acc_dtype, (self.l0c_elems,), "L0C", "l0c")
        self.ub_slots = 0 if self.fixpipe is not None else self._ub_slots()
        if self.fixpipe is None:
            self._declare_ub()

    def _head_fits(self) -> bool:
        """Whether the tiling's head (``CubeTiling.head``, :meth:`_led_tile`) can run (the caller checks that
        the A panel stays resident): one tile per core, two or more sub-tiles, the second one at least as wide as
        every later one of its L0C slot, two k-steps of the first two sub-tiles' B panel fit L0B, each head load's
        B panel fits an L1 slot, and the head is whole turns of the L0A ring (four k-steps), so the second
        sub-tile, which starts again after it, keeps the ring's and the L0 slots' order (:meth:`_k_step`)."""
        t = self.t
        parts = t.parts
        if not t.head or t.tiles_per_block != 1 or len(parts) < 2 or not t.first_loads or self.load3d is not None:
            return False
        head_k = sum(count for count, _ in t.head)
        return head_shape_fits(self.chip, parts, t.kt) and head_k % (_RING * t.kt) == 0 and \
            all(count * (parts[0] + parts[1]) <= t.kl1 * t.ns for count, _ in t.head)

    def _a_ring(self, step_bytes: int) -> int:
        """L0A slots for the A panels of k-steps: four when they fit L0A and every sub-tile's and every looped
        GM -> L1 load's k-steps fill whole turns of the ring, else one per L0 slot.  With four, MTE1 moves a
        k-step's A panel while the cube runs the k-step before (:meth:`_k_step`), so after a mmad frees an L0B
        slot the next mmad waits for one B panel, not for A and B."""
        t = self.t
        ring = _RING
        if self.l0_slots == 2 and ring * step_bytes <= self.chip.l0a_bytes and (t.k1 // t.kt) % ring == 0 and \
                (t.kl1 // t.kt) % ring == 0:
            return ring
        return self.l0_slots

    def _declare_ub(self) -> None:
        kb, t, d = self.kb, self.t, self.d
        self.ub_acc = kb.tensor(d.acc_dtype, (self.ub_slots * self.chunk_elems,), "UB", "ub_acc")
        self.ub_out = {}
        self.has_l0c_ub = ("L0C", "UB") in self.chip.paths
        if not self.has_l0c_ub:
            self.ws_acc = kb.tensor(d.acc_dtype, (t.block_dim * self.l0c_elems,), "GM", "ws_acc",
                                    is_workspace=True)
        if self.bias_src is not None:
            self.ub_bias = kb.tensor(d.acc_dtype, (self.ub_slots * t.nc * FRACTAL,), "UB", "ub_bias")
            self.ub_bias_in = kb.tensor(self.bias_src.dtype, (self.ub_slots * t.nc * FRACTAL,), "UB",
                                        "ub_bias_in") if self.bias_src.dtype != d.acc_dtype else None

    def _ub_slots(self) -> int:
        """2 when two chunks' buffers (accumulator, every dtype of the epilogue, bias) fit UB: the next chunk
        leaves L0C while the previous one is stored; else 1."""
        d = self.d
        dtypes = {d.acc_dtype, d.out_dtype} | {step.dst_dtype for step in self.g.epilogue}
        chunk = self.chunk_elems * sum(_ITEMSIZE[x] for x in dtypes)
        bias = self.t.nc * FRACTAL * 8 if self.bias_src is not None else 0
        chunk += self.chunk_elems * GemmEpilogue.ub_bytes_per_elem(self.c_dtype, d.acc_dtype)
        return 2 if 2 * (chunk + bias) <= self.chip.ub_bytes else 1

    def _ub_of(self, dtype: str, uslot: int):
        """UB chunk buffer of ``dtype`` in UB slot ``uslot``."""
        if dtype == self.d.acc_dtype:
            return _Part(self.ub_acc, uslot * self.chunk_elems)
        if dtype not in self.ub_out:
            self.ub_out[dtype] = self.kb.tensor(dtype, (self.ub_slots * self.chunk_elems,), "UB", f"ub_{dtype}")
        return _Part(self.ub_out[dtype], uslot * self.chunk_elems)

    # -- kernel ---------------------------------------------------------------------------------------------------
    def emit(self) -> None:
        kb, t = self.kb, self.t
        if self.gemm is not None:
            self.gemm.start()
        for slot in range(2):
            kb.set_flag("MTE1", "MTE2", slot)
            kb.set_flag("M", "MTE1", slot)
        for slot in range(t.l0c_slots):
            kb.set_flag(self.out_pipe, "M", slot)
        for uslot in range(self.ub_slots):
            kb.set_flag("MTE3", "V", uslot)
        with kb.for_range(0, t.tiles_per_block) as i:
            self._tile(kb.block_idx * t.tiles_per_block + i)
        for slot in range(2):
            kb.wait_flag("MTE1", "MTE2", slot)
            kb.wait_flag("M", "MTE1", slot)
        for slot in range(t.l0c_slots):
            kb.wait_flag(self.out_pipe, "M", slot)
        for uslot in range(self.ub_slots):
            kb.wait_flag("MTE3", "V", uslot)
        if self.gemm is not None:
            self.gemm.finish()

    def _tile(self, tile) -> None:
        t = self.t
        n_tiles, m_tiles = t.n_tiles, t.m_tiles
        per_batch = m_tiles * n_tiles
        b = tile // per_batch
        rest = tile % per_batch
        m1_0 = tile_start(rest // n_tiles, m_tiles, t.m1, t.mt)
        n_start = tile_start(rest % n_tiles, n_tiles, t.n1, t.nt)
        self.m_start = m1_0
        if self.head:
            self._led_tile(b, m1_0, n_start)
            return
        loads = t.k1 // t.kl1
        for part, width in enumerate(t.parts):   # sub-tiles alternate between the L0C slots: one's epilogue
            n1_0 = n_start + t.nt - sum(t.parts[:part + 1])      # overlaps the next one's mmads
            slot = part % t.l0c_slots
            self.kb.wait_flag(self.out_pipe, "M", slot)  # this L0C slot is free (its previous epilogue moved it out)
            load_a = part == 0 or not self.a_resident
            # the last sub-tile of a core's only tile: its last k-steps run piece by piece, each piece leaving
            # L0C after them (pieces of one fractal column would pay a store's set-up for too little data); not
            # a sub-tile whose loads are planned (the tiler plans them only for the first of several)
            planned = part == 0 and self.first_plan and self.a_resident
            split = part == len(t.parts) - 1 and t.tiles_per_block == 1 and width // t.nc > 1 and t.nc > 1 and \
                not planned
            if planned:                 # unrolled as planned (CubeTiling.first_loads)
                self._planned_loads(b, m1_0, (n1_0, width), slot)
            else:
                a_range = (0, t.kl1) if load_a else None
                self._l1_load(b, m1_0, (n1_0, width), ((0, t.kl1), a_range), 0, slot, first=True,
                              split=split and loads == 1)
                looped = loads - 1 if split else loads
                if looped > 1:
                    with self.kb.for_range(1, looped) as kc:
                        k_range = (kc * t.kl1, t.kl1)
                        self._l1_load(b, m1_0, (n1_0, width), (k_range, k_range if load_a else None), kc % 2,
                                      slot, first=False)
                if split and loads > 1:
                    k_range = ((loads - 1) * t.kl1, t.kl1)
                    self._l1_load(b, m1_0, (n1_0, width), (k_range, k_range if load_a else None), (loads - 1) % 2,
                                  slot, first=False, split=True)
            if not split:
                # the core's last sub-tile, or later ones that each read K in at most two loads: see _epilogue
                self._epilogue(b, m1_0, n1_0, width, slot, bunched=t.tiles_per_block == 1 and
                               (part == len(t.parts) - 1 or loads <= 2))

    def _led_tile(self, b, m1_0, n_start) -> None:
        """A core's only tile with a head (``CubeTiling.head``): its first K fractals run over the first two
        sub-tiles' width at once (one mmad a k-step into both sub-tiles' L0C slots, which lie side by side in
        column order), so every A panel the first loads bring feeds the cube longer while the loads ramp up.  Then
        the first sub-tile runs the rest of K (its loads as ``first_loads`` plans them) and leaves L0C while the
        cube runs the second one's rest of K, and so on: later sub-tiles run all of K as usual, and the last one's
        last k-steps go by pieces.  The head is whole turns of the L0A ring (:meth:`_head_fits`; where the ring
        is used, K is whole turns too), so the second sub-tile, which starts again at the head's end after the
        first sub-tile's last k-step, keeps the order of the ring and of the L0 slots that :meth:`_k_step`'s flagless
        A moves rely on; every element accumulates its K in ascending order."""
        t, kb = self.t, self.kb
        parts = t.parts
        starts = [n_start + t.nt - sum(parts[:i + 1]) for i in range(len(parts))]    # as in _tile
        plan = t.head + t.first_loads           # covers K (CubeTiling checks it)
        for slot in range(t.l0c_slots):
            kb.wait_flag(self.out_pipe, "M", slot)
        loads = 0

        def load(columns, k_first, count, a_range, l0c_slot, split=False, first=False, run_first=0):
            nonlocal loads
            self._l1_load(b, m1_0, columns, ((k_first, count), a_range), loads % 2, l0c_slot,
                          first=first or loads == 0, split=split, run_first=run_first)
            loads += 1

        k_done = a_done = 0
        for i, (count, a_count) in enumerate(plan):     # the head (L0C from the second sub-tile's slot on), then
            head = i < len(t.head)                      # the first sub-tile's rest of K
            columns = (starts[1], parts[0] + parts[1]) if head else (starts[0], parts[0])
            load(columns, k_done, count, (a_done, a_count) if a_count else None, 1 if head else 0)
            k_done, a_done = k_done + count, a_done + a_count
        lead = sum(c for c, _ in t.head)

        def pieces(part):                       # the loads of a later sub-tile (its rest of K)
            cap = self.b_chunk // (parts[part] * FRACTAL * self.k0) // t.kt * t.kt    # K fractals an L1 slot holds
            return -(-(t.k1 - (lead if part == 1 else 0)) // cap)

        self._epilogue(b, m1_0, starts[0], parts[0], 0, bunched=all(pieces(p) <= 2 for p in range(1, len(parts))))
        for part in range(1, len(parts)):       # the rest of K of the second sub-tile, all of K of later ones
            width, slot, last = parts[part], part % 2, part == len(parts) - 1
            split = last and width // t.nc > 1 and t.nc > 1      # as _tile splits the last sub-tile
            if part > 1:
                kb.wait_flag(self.out_pipe, "M", slot)
            k_first = lead if part == 1 else 0
            count_of = pieces(part)
            for i in range(count_of):
                count = -(-(t.k1 - k_first) // (count_of - i) // t.kt) * t.kt
                load((starts[part], width), k_first, count, None, slot, split=split and i == count_of - 1,
                     first=part > 1 and i == 0,         # a later sub-tile's first k-step overwrites its slot
                     run_first=lead if part == 1 else 0)
                k_first += count
            if not split:
                self._epilogue(b, m1_0, starts[part], width, slot,
                               bunched=all(pieces(p) <= 2 for p in range(part + 1, len(parts))))

    def _planned_loads(self, b, m1_0, columns: tuple, l0c_slot: int) -> None:
        """The first sub-tile's loads as ``first_loads`` plans them: B panels of each load's K fractals, the
        resident A panel in the pieces the plan gives (each covering at least the K of the B panel beside it)."""
        k_first, a_done, plan = 0, 0, self.first_plan
        for r, (count, a_count) in enumerate(plan):      # the last in L1 slot 1: the next load takes slot 0
            a_range = (a_done, a_count) if a_count else None
            self._l1_load(b, m1_0, columns, ((k_first, count), a_range), (len(plan) - r) % 2, l0c_slot,
                          first=r == 0)
            k_first, a_done = k_first + count, a_done + a_count

    def _l1_load(self, b, m1_0, columns: tuple, ranges: tuple, slot, l0c_slot: int, first: bool,
                 split: bool = False, run_first: int = 0) -> None:
        """GM -> L1 panels for the sub-tile of ``columns`` = (first fractal column, width): ``ranges`` =
        ((first K fractal, count: at most ``kl``) of B, (first, count) of A or None: no A move), then the
        k-steps and mmads of B's K fractals (``split``: the sub-tile's last load; its last k-steps run by pieces
        and each piece leaves L0C after them, :meth:`_split_k_steps`; ``run_first``: the K fractal from which the
        sub-tile's k-steps ran one after another up to this load)."""
        kb, t, k0 = self.kb, self.t, self.k0
        n1_0, width = columns
        (k_first, k_count), a_range = ranges
        slot = slot if self.l1_slots == 2 else 0
        l1_a0 = k_first * t.mt * FRACTAL * k0 if self.a_resident else slot * self.a_chunk
        a_at = (lambda step: (l1_a0, step * t.kt)) if self.load3d is not None else \
            (lambda step: l1_a0 + step * self.a_elems)     # a k-step's A in L1 (load3d: plane, K fractal)
        l1_b0 = slot * self.b_chunk
        b_step = t.kt * width * FRACTAL * k0                          # one k-step of this sub-tile's B panel
        kb.wait_flag("MTE1", "MTE2", slot)
        a_rows, b_rows = t.m1 * FRACTAL, t.n1 * FRACTAL
        a_batch = b * (t.k1 * a_rows * k0)
        b_batch = self._group(b) * (t.k1 * b_rows * k0) if self.b_batched else 0
        # A panel [kl, mt*16, K0] of [k1, M1*16, K0]; B panel [kl, ns*16, K0] of [k1, N1*16, K0]
        if a_range is not None and self.load3d is not None:     # the load's channel blocks of image b: the band
            conv, (row0, rows) = self.load3d, self._band(m1_0)       # of input rows the tile's pixels read
            row_blocks = conv.w * k0 * _ITEMSIZE[self.d.in_dtype] // self.blk
            block = b // conv.groups * conv.plane_c1() + self._group(b) * conv.c1 + k_first // conv.positions
            kb.data_move(self.l1_a[l1_a0], self.a_src[(block * conv.h + row0) * conv.w * k0], 0, conv.c1_per_load,
                         rows * row_blocks, (conv.h - rows) * row_blocks, 0)
        elif a_range is not None:    # a resident panel's piece goes to its place; else to this load's slot
            a_first, a_count = a_range
            a_dst = a_first * t.mt * FRACTAL * k0 if self.a_resident else l1_a0
            kb.data_move(self.l1_a[a_dst], self.a_src[a_batch + (a_first * a_rows + m1_0 * FRACTAL) * k0], 0,
                         a_count, t.mt * FRACTAL, (t.m1 - t.mt) * FRACTAL, 0)
        steps = k_count // t.kt
        last = min(steps, self._split_depth(width)) if split else 0
        if last > self.l0_slots:       # side by side from L0B's start: the first split k-step must be slot 0's,
            last -= last % 2           # so the k-step before it (slot 1's) may still run while it moves
            first_slot = self._l0_slot(k_first, steps - last, steps)
            if not isinstance(first_slot, int) or first_slot != 0:     # (a looped load's may be unknown here)
                last = min(steps, self.l0_slots)
        # MTE1 moves the load's first A panel before it waits for the load's B panel (in _k_step, after its L0
        # slot's wait): once MTE2 has moved it when this load may bring it (MTE2 sets _A_EVENT between its A and B
        # moves; only a load whose A provably starts past its first K fractal, an earlier load's A panel, skips
        # the wait), then the first k-step's mmads go by pieces of B (_k_step) -- of UB chunks of ``nc`` for a
        # load from K = 0 that brings A in a core's only tile (1024^3: Ascend910 10405 -> 10341 cycles,
        # Ascend910B1 13666 -> 13599: the A move no longer delays B's)
        early_a = self.load3d is None and steps > last
        a_ahead = a_range is not None and isinstance(k_first, int) and isinstance(a_range[0], int) and \
            a_range[0] > k_first
        a_flag = early_a and a_range is not None and not a_ahead
        chunk_pieces = first and k_first == 0 and a_flag and t.tiles_per_block == 1 and width % t.nc == 0
        if a_flag:
            kb.set_flag("MTE2", "MTE1", _A_EVENT)
        kb.data_move(self.l1_b[l1_b0], self.b_src[b_batch + (k_first * b_rows + n1_0 * FRACTAL) * k0], 0,
                     k_count, width * FRACTAL, (t.n1 - width) * FRACTAL, 0)
        kb.set_flag("MTE2", "MTE1", slot)
        if not early_a:
            kb.wait_flag("MTE2", "MTE1", slot)
        split_steps = []
        ahead = self.a_slots > self.l0_slots                 # A panels move one k-step ahead (_a_ring)
        for step in range(steps):
            l0_slot = self._l0_slot(k_first, step, steps)
            operands = (a_at(step), l1_b0 + step * b_step, l0_slot, not (first and step == 0),
                        self._a_slot(k_first, step, l0_slot))
            if step >= steps - last:
                split_steps.append(operands)
            else:
                following = None
                if ahead and step + 1 < steps - last:
                    # (ahead means the ring, where _a_slot ignores the L0 slot)
                    following = (a_at(step + 1), self._a_slot(k_first, step + 1, None))
                b_ready, piece = None, 0
                if step == 0:                   # a load's first k-step: its B by pieces, once it is in L1
                    if a_flag:
                        kb.wait_flag("MTE2", "MTE1", _A_EVENT)
                    if early_a:
                        b_ready = lambda: kb.wait_flag("MTE2", "MTE1", slot)     # noqa: E731
                    piece = t.nc if chunk_pieces else self._piece_width(width)
                self._k_step(operands[0], operands[1], (l0_slot, l0c_slot, operands[4]), width,
                             accumulate=operands[3], own_a=not ahead or step == 0, next_a=following,
                             piece=piece, b_ready=b_ready)
        if split_steps:
            split_first = k_first + (steps - len(split_steps)) * t.kt if isinstance(k_first, int) else None
            run = (split_first - run_first) // t.kt if split_first is not None else 0
            self._split_k_steps(b, m1_0, columns, split_steps, l0c_slot, a_early=run >= self.a_slots)
        kb.set_flag("MTE1", "MTE2", slot)

    def _l0_slot(self, k_first, step: int, steps: int):
        """The L0 slot of k-step ``step`` of a load of ``steps`` k-steps from K fractal ``k_first``: the slots
        alternate over every k-step of the sub-tile (a looped load of an even step count: over its own)."""
        if self.l0_slots == 1:
            return 0
        if isinstance(k_first, int) or steps % 2:
            return (k_first // self.t.kt + step) % 2
        return step % 2

    def _split_depth(self, width: int) -> int:
        """How many last k-steps of a split sub-tile of ``width`` columns run by pieces (:meth:`_split_k_steps`):
        one per L0 slot, or with the L0A ring as many as a turn of it holds (the later pieces' mmads read all their
        A panels after the last k-step) whose B panels L0B holds side by side, a whole number per L0 slot (the
        caller also starts them on slot 0's k-step: the first panel lies where slot 0 does)."""
        t = self.t
        if self.a_slots <= self.l0_slots:
            return self.l0_slots
        room = self.chip.l0b_bytes // _ITEMSIZE[self.d.in_dtype] // (width * t.kt * FRACTAL * self.k0)
        deep = min(self.a_slots, room)                          # k-step panels L0B holds side by side,
        return max(self.l0_slots, deep - deep % 2)              # a whole number per L0 slot

    def _a_slot(self, k_first, step: int, l0_slot):
        """The L0A slot of k-step ``step`` of a load from K fractal ``k_first``: the L0 slot, or its place in
        the ring of :meth:`_a_ring` (whose looped loads fill whole turns, so ``step`` alone decides there)."""
        if self.a_slots == self.l0_slots:
            return l0_slot
        first = k_first // self.t.kt if isinstance(k_first, int) else 0
        return (first + step) % self.a_slots

    def _split_k_steps(self, b, m1_0, columns: tuple, steps: list, l0c_slot: int, a_early: bool = False) -> None:
        """The sub-tile's last k-steps (``steps``: (L1 A, L1 B, L0 slot, accumulate, L0A slot) each;
        :meth:`_split_depth` of them) by pieces (:meth:`_tail_pieces`): every piece's B columns in their own nZ
        panel of L0B (in the k-step's L0 slot, or with more k-steps than slots side by side from L0B's start: the
        first is slot 0's, so the k-step before, slot 1's, may still run), the mmads piece after piece
        (each piece's k-steps in K order), and each piece out of L0C (UB chunk or fixpipe copy) as soon as its
        mmads are done, while the cube runs the next piece.  Piece 0 runs each k-step as its panel comes in; with
        more k-steps than L0 slots the other pieces' panels move after the last k-step, each mmad as soon as its
        panel is in, so piece 0 leaves L0C that many k-steps of theirs before the last piece does (on Ascend910,
        1024^3: four k-steps, 10608 -> 10573 cycles).  With the L0A ring, the split k-steps' A panels move ahead
        of their mmads, each as soon as the flags MTE1 has waited for say its ring slot is free: the slot last held
        the panel of the k-step ``a_slots`` back (never a split one: the split is at most a turn of the ring), and
        waiting for a k-step's L0 slot waited for the mmad ``l0_slots`` back.  So the first split k-step, after its
        B panel, moves the A panels up to ``a_slots - l0_slots`` k-steps ahead, and each later one the next one's
        (its own B panel first, which its mmad needs sooner); with ``a_early`` those the k-steps before freed
        move before the first split k-step waits for its L0 slot (the caller sets it when at least a turn of the
        ring of the sub-tile's k-steps ran just before, in K order: a condition it can check that makes the flags
        those k-steps waited for cover the ring slots; weaker ones might do).  1024^3: Ascend910 10482 -> 10405,
        Ascend910B1 13776 -> 13666."""
        kb, t, k0 = self.kb, self.t, self.k0
        n1_0, width = columns
        widths = self._tail_pieces(width, deep=len(steps) > self.l0_slots)
        pieces = len(widths)
        first = [sum(widths[:piece]) for piece in range(pieces)]      # each piece's first column
        column = t.mt * FRACTAL * FRACTAL                   # one fractal column of L0C

        step_panel = width * t.kt * FRACTAL * k0            # one k-step's panel of this sub-tile in L0B
        slots = self.l0_slots
        last = len(steps) - 1
        deep = len(steps) > slots

        def panel(i, piece):            # a piece's panel of split k-step i in L0B: in its L0 slot, or with more
            base = i * step_panel if deep else steps[i][2] * self.b_elems      # k-steps than slots side by side
            return base + first[piece] * t.kt * FRACTAL * k0

        def mmad(i, piece):
            operands = steps[i]
            kb.mmad(self.l0c[self.slot_base[l0c_slot] + first[piece] * column], self.l0a[operands[4] * self.a_elems],
                    self.l0b[panel(i, piece)], t.mt * FRACTAL, t.kt * k0, widths[piece] * FRACTAL, operands[3])

        def move(i, piece):
            self._b_piece(panel(i, piece), steps[i][1], first[piece], widths[piece], width)

        moved = -1                      # the last split k-step whose A panel is in L0A

        def a_up_to(j):                 # A panels up to split k-step j's
            nonlocal moved
            for k in range(moved + 1, min(j, last) + 1):
                self._a_to_l0a(steps[k][0], steps[k][4] * self.a_elems)
            moved = max(moved, min(j, last))

        if deep and a_early:            # before the first wait: those whose ring slots the k-steps before freed
            a_up_to(self.a_slots - slots - 1)
        for i, operands in enumerate(steps):
            l0_slot = operands[2]
            kb.wait_flag("M", "MTE1", l0_slot)
            a_up_to(i)
            if not deep:
                for piece in range(1, pieces) if i < last else ():
                    move(i, piece)
            move(i, 0)
            kb.set_flag("MTE1", "M", 0)          # piece 0's mmad as soon as its panel is in
            if deep and i < last:                # A panels while the cube runs this k-step: the first one also
                a_up_to(i + (self.a_slots - slots if i == 0 else 1))     # moves those the ring frees after it
            kb.wait_flag("MTE1", "M", 0)
            mmad(i, 0)
            if i < last:
                if i + slots <= last:            # a later split k-step waits for this L0 slot (its panels lie
                    # elsewhere; this one's other pieces still read theirs after the last k-step)
                    kb.set_flag("M", "MTE1", l0_slot)
                continue
            self._piece_out(b, m1_0, n1_0, l0c_slot, 0, (first[0], widths[0]), last=pieces == 1)
            for piece in range(1, pieces):       # then piece after piece: its k-steps, then out of L0C
                for j in range(len(steps)):
                    if deep or j == last:
                        move(j, piece)
                        kb.set_flag("MTE1", "M", 0)
                        kb.wait_flag("MTE1", "M", 0)
                    mmad(j, piece)
                self._piece_out(b, m1_0, n1_0, l0c_slot, piece, (first[piece], widths[piece]),
                                last=piece == pieces - 1)
        for operands in steps[-slots:]:
            kb.set_flag("M", "MTE1", operands[2])

    def _tail_pieces(self, width: int, deep: bool) -> tuple:
        """Fractal columns of each piece of a split sub-tile of ``width`` columns: ``nc`` each (through UB one UB
        chunk each).  By the fixpipe with no more split k-steps than L0 slots, ``nc`` and then the rest at once:
        the pieces then lag each other by too few mmads for several copies to leave one by one, so one copy's
        set-up, not several, follows the last mmad (on Ascend910B1, 1024^3: 14104 -> 14030 cycles then); with more
        split k-steps than L0 slots (``deep``) the pieces of ``nc`` leave one by one (13846 -> 13812)."""
        nc = self.t.nc
        if self.fixpipe is not None and width > 2 * nc and not deep:
            return (nc, width - nc)
        return (nc,) * (width // nc)

    def _piece_out(self, b, m1_0, n1_0, slot: int, piece: int, columns: tuple, last: bool) -> None:
        """Piece ``piece`` (``columns`` = (its first fractal column in the sub-tile, its column count)) of the
        sub-tile from column ``n1_0`` in L0C slot ``slot`` out: the fixpipe copy, or its UB chunk (``nc``
        columns); ``last`` frees the L0C slot."""
        kb, t = self.kb, self.t
        first, count = columns
        if self.fixpipe is not None:
            rows = t.m1 * FRACTAL
            base = b * (t.n1 * rows * FRACTAL) + ((n1_0 + first) * rows + m1_0 * FRACTAL) * FRACTAL
            kb.set_flag("M", "FIX", slot)
            kb.wait_flag("M", "FIX", slot)
            kb.copy_matrix_cc_to_gm(self.out_dst[base],
                                    self.l0c[self.slot_base[slot] + first * t.mt * FRACTAL * FRACTAL],
                                    count * FRACTAL, t.mt * FRACTAL, t.mt * FRACTAL, rows, relu=self.fixpipe.relu)
            if last:
                kb.set_flag("FIX", "M", slot)
            return
        self._l0c_to_vector(slot)
        self._chunk(b, m1_0, n1_0, slot, piece, last, convert=True)

    def _k_step(self, l1_a0, l1_b0, slots: tuple, width: int, accumulate: bool, own_a: bool = True,
                next_a: tuple = None, piece: int = 0, b_ready=None) -> None:
        """L1 -> L0A / L0B of one k-step (``kt`` fractals of K, ``width`` fractal columns) and its mmad;
        ``slots`` = (L0 slot, L0C slot, L0A slot).  ``own_a`` False: the k-step before moved this one's A panel;
        ``next_a`` = (L1 offset, L0A slot): the next k-step's A panel, moved after this one's B panel while the
        cube runs this k-step.  That needs no flag of its own: the L0A ring has four slots, and waiting for this
        L0B slot (freed by the mmad two k-steps back) waited for the last mmad that read the next one's L0A slot
        (three back).  ``piece`` (the first k-step of a load, :meth:`_l1_load`): B goes to L0B by pieces of that
        many columns (UB chunks of ``nc``, or :meth:`_piece_width`: see :meth:`_l1_load`), each piece's mmad as
        soon as the piece is in, so the cube starts on a fresh load's first columns while MTE1 moves the rest;
        ``b_ready``, called once the A panel is moved, waits for the B panel in L1 (a load's first k-step, whose
        A panel MTE1 moves before B is in)."""
        kb, t, k0 = self.kb, self.t, self.k0
        l0_slot, l0c_slot, a_slot = slots
        kb.wait_flag("M", "MTE1", l0_slot)
        a0, b0 = a_slot * self.a_elems, l0_slot * self.b_elems
        if own_a:
            self._a_to_l0a(l1_a0, a0)
        if piece:                   # a load's first k-step: B by pieces, each one's mmad as soon as it is in
            if b_ready is not None:
                b_ready()
            pw = piece
            column = t.mt * FRACTAL * FRACTAL
            for piece in range(width // pw):
                panel = b0 + piece * t.kt * pw * FRACTAL * k0
                self._b_piece(panel, l1_b0, piece * pw, pw, width)
                kb.set_flag("MTE1", "M", 0)
                if next_a is not None and piece == width // pw - 1:
                    self._a_to_l0a(next_a[0], next_a[1] * self.a_elems)
                kb.wait_flag("MTE1", "M", 0)
                kb.mmad(self.l0c[self.slot_base[l0c_slot] + piece * pw * column], self.l0a[a0], self.l0b[panel],
                        t.mt * FRACTAL, t.kt * k0, pw * FRACTAL, accumulate)
            kb.set_flag("M", "MTE1", l0_slot)
            return
        kb.data_move(self.l0b[b0], self.l1_b[l1_b0], 0, 1, t.kt * width * FRACTAL, 0, 0)
        kb.set_flag("MTE1", "M", 0)
        if next_a is not None:
            self._a_to_l0a(next_a[0], next_a[1] * self.a_elems)
        kb.wait_flag("MTE1", "M", 0)
        kb.mmad(self.l0c[self.slot_base[l0c_slot]], self.l0a[a0], self.l0b[b0], t.mt * FRACTAL, t.kt * k0,
                width * FRACTAL, accumulate)
        kb.set_flag("M", "MTE1", l0_slot)

    @staticmethod
    def _piece_width(width: int) -> int:
        """Fractal columns of each piece of a load's first k-step, which moves B to L0B by pieces (:meth:`_k_step`;
        the kernel's first k-step goes by UB chunks of ``nc`` columns): the smallest divisor of ``width`` of at
        least three columns (``width`` when it is narrower), so the cube starts a few dozen MTE1 cycles after the
        panel is in L1; every further piece costs its mmad's and its move's set-up.  Measured on 1024^3, pieces of
        at least 1 / 2 / 3 / 4 columns: Ascend910 10701 / 10629 / 10608 / 10605 cycles, Ascend910B1 14011 /
        13894 / 13846 / 13959."""
        return min(d for d in range(_PIECE_MIN, width + 1) if width % d == 0) if width > _PIECE_MIN else width

    def _b_piece(self, l0b_at, l1_b0, first: int, count: int, width: int) -> None:
        """L1 -> L0B of ``count`` fractal columns from column ``first`` of a k-step's B panel (``width`` columns
        at ``l1_b0`` in L1) into their own nZ panel at ``l0b_at``."""
        t = self.t
        self.kb.data_move(self.l0b[l0b_at], self.l1_b[l1_b0 + first * FRACTAL * self.k0], 0, t.kt, count * FRACTAL,
                          (width - count) * FRACTAL, 0)

    def _a_to_l0a(self, l1_a0, a0) -> None:
        """L1 -> L0A (from ``a0``) of one k-step of the A panel (``l1_a0``: its L1 offset; a load3d convolution:
        (the load's feature-map plane in L1, the k-step's first K fractal in the load))."""
        kb, t, k0 = self.kb, self.t, self.k0
        frac = FRACTAL * k0
        if self.load3d is not None:
            self._load3d(l1_a0, a0)
            return
        if t.kt < t.mt:           # zZ: fractal row m of A holds its kt fractals side by side; one move per
            for k in range(t.kt):     # fractal column of the panel (its mt fractals, kt apart in L0A)
                kb.data_move(self.l0a[a0 + k * frac], self.l1_a[l1_a0 + k * t.mt * frac], 0, t.mt, FRACTAL, 0,
                             (t.kt - 1) * FRACTAL)
        else:                     # or one per fractal row (its kt fractals, mt apart in L1)
            for m in range(t.mt):
                kb.data_move(self.l0a[a0 + m * t.kt * frac], self.l1_a[l1_a0 + m * frac], 0, t.kt, FRACTAL,
                             (t.mt - 1) * FRACTAL, 0)

    def _group(self, b):
        """The (extended) group of batch ``b``: a load3d convolution's batch is (image, group), groups inner."""
        if self.load3d is not None:
            return b % self.load3d.groups if self.load3d.groups > 1 else 0
        return b

    def _band(self, m1_0) -> tuple:
        """(first input row, row count) of the band of the image L1 holds for the tile from fractal row ``m1_0``:
        ``band_rows`` rows (the most a tile's output pixels read) from the first row its windows read, moved up to
        stay inside the image.  A constant count keeps every block's moves the same shape (lockstep batches); rows
        no window reads are loaded but unused, and rows outside the image are padding load3d supplies."""
        conv = self.load3d
        top = (m1_0 * FRACTAL) // conv.wo * conv.stride_h - conv.pad_top
        return _min(_max(top, 0), conv.h - conv.band_rows), conv.band_rows

    def _load3d(self, at: tuple, a0) -> None:
        """One k-step's zZ A panel gathered from the feature-map band in L1: one load3d per kernel position taking
        the ``mt`` fractal rows of output pixels one after another (repeat mode 1, ``kt`` fractals apart), or, when
        the k-step has more kernel positions than fractal rows, one per fractal row taking its ``kt`` positions
        (repeat mode 0: kernel column, then row, then channel block)."""
        kb, t, conv = self.kb, self.t, self.load3d
        plane, k_in_load = at
        first, count = self._band(self.m_start)          # the band of rows L1 holds (its channel blocks' pitch)
        frac = FRACTAL * self.k0
        by_position = t.kt < t.mt
        for i in range(t.kt if by_position else t.mt):
            c1, rest = divmod(k_in_load + (i if by_position else 0), conv.positions)
            pixel = self.m_start * FRACTAL if by_position else (self.m_start + i) * FRACTAL
            kb.emit("load3d", dst=self.l0a[a0 + (i if by_position else i * t.kt) * frac], src=self.l1_a[plane],
                    pad_left=conv.pad_left, pad_right=conv.pad_right, pad_top=conv.pad_top,
                    pad_bottom=conv.pad_bottom, l1_h=count, l1_w=conv.w, c1_index=c1,
                    fetch_filter_w=rest % conv.kw, fetch_filter_h=rest // conv.kw,
                    left_top_w=pixel % conv.wo * conv.stride_w - conv.pad_left,
                    left_top_h=pixel // conv.wo * conv.stride_h - conv.pad_top - first, stride_w=conv.stride_w,
                    stride_h=conv.stride_h, filter_w=conv.kw, filter_h=conv.kh, dilation_filter_w=conv.dilate_w,
                    dilation_filter_h=conv.dilate_h, jump_offset=t.kt if by_position else 1,
                    repeat_mode=1 if by_position else 0, repeat_time=t.mt if by_position else t.kt)

    # -- epilogue -------------------------------------------------------------------------------------------------
    def _epilogue(self, b, m1_0, n1_0, width: int, slot: int, bunched: bool = False) -> None:
        """L0C slot ``slot``'s sub-tile through UB in chunks of ``nc`` fractal columns: move, bias, cast, fused
        steps, store.  ``bunched``: a sub-tile of the core's last tile that only the last sub-tile, or later ones
        reading their K in at most two loads, follow: its stores may run back to back, and where the chip can the
        move out of L0C casts (and relus) on the way.  Otherwise the vconv (and vrelu) on the vector pipe pace the
        stores, so the GM reads that follow get room on the core's HBM share between them."""
        t = self.t
        if self.fixpipe is not None:
            self._fixpipe_store(b, m1_0, n1_0, width, slot)
            return
        self._l0c_to_vector(slot)
        chunks = width // t.nc
        for chunk in range(chunks):     # chunks alternate between the UB slots: one is stored as the next arrives
            self._chunk(b, m1_0, n1_0, slot, chunk, last=chunk == chunks - 1, convert=bunched)

    def _l0c_to_vector(self, slot: int) -> None:
        """The vector side may read L0C slot ``slot``: M -> V, and M -> FIX on chips whose L0C leaves by FIX."""
        kb = self.kb
        kb.set_flag("M", "V", slot)
        kb.wait_flag("M", "V", slot)
        if not self.has_l0c_ub:
            kb.set_flag("M", "FIX", slot)
            kb.wait_flag("M", "FIX", slot)

    def _fixpipe_store(self, b, m1_0, n1_0, width: int, slot: int) -> None:
        """L0C slot ``slot``'s sub-tile (``width`` fractal columns of ``mt`` fractals) straight to its place in the
        output's FRACTAL_NZ on the FIX pipe (:mod:`te_compat.cube.fixpipe_out`)."""
        kb, t = self.kb, self.t
        rows = t.m1 * FRACTAL
        base = b * (t.n1 * rows * FRACTAL) + (n1_0 * rows + m1_0 * FRACTAL) * FRACTAL
        kb.set_flag("M", "FIX", slot)
        kb.wait_flag("M", "FIX", slot)
        kb.copy_matrix_cc_to_gm(self.out_dst[base], self.l0c[self.slot_base[slot]], width * FRACTAL,
                                t.mt * FRACTAL, t.mt * FRACTAL, rows, relu=self.fixpipe.relu)
        kb.set_flag("FIX", "M", slot)               # this L0C slot may take the next sub-tile

    def _load_chunk(self, slot: int, chunk: int, ub_acc, last: bool, convert: bool = False) -> None:
        kb, d = self.kb, self.d
        blocks = self.chunk_elems * _ITEMSIZE[d.acc_dtype] // self.blk
        l0c = self.l0c[self.slot_base[slot] + chunk * self.chunk_elems]
        if convert:                         # converted into the UB chunk of the cast's dtype
            kb.emit("copy_matrix_cc_to_ubuf", ub_acc[0], l0c, 0, 1, self.chunk_elems // (FRACTAL * FRACTAL), 0, 0,
                    self.ub_convert.relu)
        elif self.has_l0c_ub:
            kb.data_move(ub_acc[0], l0c, 0, 1, blocks, 0, 0)
        else:
            ws = self.ws_acc[kb.block_idx * self.l0c_elems + self.slot_base[slot] + chunk * self.chunk_elems]
            kb.data_move(ws, l0c, 0, 1, blocks, 0, 0)
            kb.set_flag("FIX", "MTE2", 0)
            kb.wait_flag("FIX", "MTE2", 0)
            kb.data_move(ub_acc[0], ws, 0, 1, blocks, 0, 0)
            kb.set_flag("MTE2", "V", 0)
            kb.wait_flag("MTE2", "V", 0)
        if last:
            kb.set_flag("V", "M", slot)             # this L0C slot may take the next sub-tile

    def _chunk(self, b, m1_0, n1_0, slot: int, chunk: int, last: bool, convert: bool = False) -> None:
        kb, t, d = self.kb, self.t, self.d
        uslot = chunk % self.ub_slots
        kb.wait_flag("MTE3", "V", uslot)            # this UB slot is free (its previous chunk's store is done)
        n_first = n1_0 + chunk * t.nc
        steps = self.g.epilogue
        if convert and self.ub_convert is not None:     # the move out of L0C casts (and relus)
            dtype, steps = self.ub_convert.dst_dtype, self.ub_convert.steps
            current = self._ub_of(dtype, uslot)
            self._load_chunk(slot, chunk, current, last, convert=True)
        else:
            current = self._ub_of(d.acc_dtype, uslot)
            self._load_chunk(slot, chunk, current, last)
            if self.bias_src is not None:
                self._add_bias(n_first + (self._group(b) * t.n1 if self.bias_batched else 0), current, uslot)
            if self.gemm is not None:        # alpha * acc + beta * C in the accumulator dtype (gemm_epilogue)
                self.gemm.apply(current, b, m1_0, n_first, uslot)
            dtype = d.acc_dtype
            if d.out_dtype != dtype:
                current = self._cast(current, dtype, d.out_dtype, uslot)
                dtype = d.out_dtype
        for step in steps:
            current = self._step(current, step, uslot)
            dtype = step.dst_dtype
        kb.set_flag("V", "MTE3", uslot)
        kb.wait_flag("V", "MTE3", uslot)
        self._store(current, dtype, b, m1_0, n_first)
        kb.set_flag("MTE3", "V", uslot)

    def _add_bias(self, n1_0, acc, uslot: int) -> None:
        kb, t, d = self.kb, self.t, self.d
        count = t.nc * FRACTAL
        src_dtype = self.bias_src.dtype
        bias = _Part(self.ub_bias, uslot * count)
        target = _Part(self.ub_bias_in, uslot * count) if self.ub_bias_in is not None else bias
        blocks = -(-count * _ITEMSIZE[src_dtype] // self.blk)
        kb.data_move(target[0], self.bias_src[n1_0 * FRACTAL], 0, 1, blocks, 0, 0)
        kb.set_flag("MTE2", "V", 1)
        kb.wait_flag("MTE2", "V", 1)
        if self.ub_bias_in is not None:
            self._vector("vconv", bias, target, count, d.acc_dtype, src_dtype, round_mode="")
        lanes_row = FRACTAL                     # one output row of a fractal: 16 accumulator values
        rows = t.mt * FRACTAL
        row_blocks = lanes_row * 4 // self.blk
        for n in range(t.nc):
            done = 0
            while done < rows:
                rep = min(self.chip.max_repeat, rows - done)
                base = (n * rows + done) * lanes_row
                kb.vadd(lanes_row, acc[base], acc[base], bias[n * lanes_row], rep, 1, 1, 1, row_blocks,
                        row_blocks, 0)
                done += rep

    def _cast(self, src, src_dtype: str, dst_dtype: str, uslot: int):
        dst = self._ub_of(dst_dtype, uslot)
        self._vector("vconv", dst, src, self.chunk_elems, dst_dtype, src_dtype, round_mode="")
        return dst

    def _step(self, current, step, uslot: int):
        if step.opcode == "vconv":
            return self._cast(current, step.src_dtype, step.dst_dtype, uslot)
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

    vector = _vector

    def binary(self, opcode: str, dst, src0, src1, count: int, dtype: str, src1_repeats: bool = True) -> None:
        """``opcode`` (vadd, ...) over ``count`` contiguous ``dtype`` elements; ``src1_repeats`` False: every
        repeat reads src1's first repeat (one broadcast row)."""
        lanes = self.chip.vector_width_bytes // _ITEMSIZE[dtype]
        rep_blocks = lanes * _ITEMSIZE[dtype] // self.blk
        done = 0
        while done < count:
            rep = min(self.chip.max_repeat, (count - done) // lanes) or 1
            mask = lanes if count - done >= lanes else count - done
            self.kb.emit(opcode, mask, dst[done], src0[done], src1[done if src1_repeats else 0], rep, 1, 1, 1,
                         rep_blocks, rep_blocks, rep_blocks if src1_repeats else 0)
            done += rep * mask

    @staticmethod
    def part(tensor, base: int):
        """Elements of ``tensor`` from ``base`` on (one slot of a double buffer)."""
        return _Part(tensor, base)

    def _store(self, ub, dtype: str, b, m1_0, n1_0) -> None:
        t = self.t
        if self.load3d is not None and (self.load3d.ho * self.load3d.wo) % FRACTAL:
            self._store_image_rows(ub, dtype, b, m1_0, n1_0)
            return
        frac_blocks = FRACTAL * FRACTAL * _ITEMSIZE[dtype] // self.blk
        rows = t.m1 * FRACTAL
        base = b * (t.n1 * rows * FRACTAL) + (n1_0 * rows + m1_0 * FRACTAL) * FRACTAL
        # chunk [nc, mt*16, 16] into [N1, M1*16, 16]
        self.kb.data_move(self.out_dst[base], ub[0], 0, t.nc, t.mt * frac_blocks, 0, (t.m1 - t.mt) * frac_blocks)

    def _store_image_rows(self, ub, dtype: str, b, m1_0, n1_0) -> None:
        """A load3d convolution's chunk into the NC1HWC0 result ``[N, Co1, Ho * Wo, 16]`` when Ho * Wo is not a
        whole number of fractals: only the tile's rows inside the image (the last fractal row's others are
        windows past the image's last output row)."""
        t = self.t
        pixels = self.load3d.ho * self.load3d.wo
        row_blocks = FRACTAL * _ITEMSIZE[dtype] // self.blk
        rows = t.mt * FRACTAL
        inside = pixels - m1_0 * FRACTAL
        valid = _min(rows, inside)
        base = b * (t.n1 * pixels * FRACTAL) + (n1_0 * pixels + m1_0 * FRACTAL) * FRACTAL
        self.kb.data_move(self.out_dst[base], ub[0], 0, t.nc, valid * row_blocks, (rows - valid) * row_blocks,
                          (pixels - valid) * row_blocks)


def _min(a, b):
    """min of two ints or kernel expressions."""
    return min(a, b) if isinstance(a, int) and isinstance(b, int) else E(BinOp("min", raw(a), raw(b)))


def _max(a, b):
    """max of two ints or kernel expressions."""
    return max(a, b) if isinstance(a, int) and isinstance(b, int) else E(BinOp("max", raw(a), raw(b)))


class _Part:
    """Elements of a UB tensor from ``base`` on (one slot of a double buffer): ``part[i]`` is ``tensor[base + i]``."""

    def __init__(self, tensor, base: int):
        self.tensor, self.base = tensor, base

    def __getitem__(self, index):
        return self.tensor[self.base + index]


__all__ = ["CubeWriter"]
