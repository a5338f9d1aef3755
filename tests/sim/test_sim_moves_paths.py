"""data_move on every path of every chip model (bit-exact, with burst gaps), and data_move timing against the
reference's measured figures (ascend-hw.md: msKPP single-core GB/s on 910B, pypto GM latencies)."""
import numpy as np
import pytest

from npusim.sim import Device, KernelBuilder, chip_names, get_chip, set_chip
from sim_helpers import pack_b

RNG = np.random.default_rng(11)
ELEMS = 512                        # elements of every buffer taking part (fp16: 32 blocks, fp32: 64 blocks)
NBURST, BURST, SRC_GAP, DST_GAP = 4, 3, 5, 1


def _eye_nz(k, n):
    """The k x n identity in L0B's nZ layout (flat)."""
    return pack_b(np.eye(k, n, dtype=np.float16)).reshape(-1)


class _Chain:
    """Moves data between GM and any local scope of a chip, using only paths that chip has."""

    def __init__(self, kb, chip, eye_a, eye_b):
        self.kb, self.chip, self.eye_a, self.eye_b = kb, chip, eye_a, eye_b
        self.count = 0

    def local(self, scope, dtype):
        self.count += 1
        return self.kb.tensor(dtype, (ELEMS,), scope, f"{scope.lower()}_{self.count}")

    def move_all(self, dst, src, dtype):
        self.kb.data_move(dst, src, 0, 1, ELEMS * np.dtype(dtype).itemsize // 32, 0, 0)

    def fill(self, buf, scope, gm):
        """buf (a local buffer of scope) <- gm; L0C is filled as f32(A) by an mmad with the identity."""
        if scope != "L0C":
            self.move_all(buf, gm, "float16")
            return
        l0a, l0b = self.local("L0A", "float16"), self.kb.tensor("float16", (1024,), "L0B", "l0b_eye")
        self.move_all(l0a, gm, "float16")
        self.kb.data_move(l0b, self.eye_b, 0, 1, 64, 0, 0)
        self.kb.mmad(buf, l0a, l0b, 16, 32, 32, False)     # m=16: C's fractals come out in A's order

    def drain(self, gm_out, buf, scope, dtype):
        """gm_out <- buf; L0A/L0B are read through an mmad with the identity, as float32."""
        if scope in ("L0A", "L0B"):
            l0c = self.local("L0C", "float32")
            if scope == "L0A":
                l0b = self.kb.tensor("float16", (1024,), "L0B", "l0b_eye2")
                self.kb.data_move(l0b, self.eye_b, 0, 1, 64, 0, 0)
                self.kb.mmad(l0c, buf, l0b, 16, 32, 32, False)
            else:
                l0a = self.kb.tensor("float16", (256,), "L0A", "l0a_eye")
                self.kb.data_move(l0a, self.eye_a, 0, 1, 16, 0, 0)
                self.kb.mmad(l0c, l0a, buf, 16, 16, 32, False)
            scope, buf, dtype = "L0C", l0c, "float32"
        if (scope, "GM") not in self.chip.paths:
            ub = self.local("UB", dtype)
            self.move_all(ub, buf, dtype)
            buf = ub
        self.move_all(gm_out, buf, dtype)


def _expected(data, background):
    out = background.copy()
    per_block = 32 // data.itemsize
    for i in range(NBURST):
        s = i * (BURST + SRC_GAP) * per_block
        d = i * (BURST + DST_GAP) * per_block
        out[d:d + BURST * per_block] = data[s:s + BURST * per_block]
    return out


def _readout(expected, dst_scope):
    if dst_scope == "L0A":
        return expected.astype(np.float32)
    if dst_scope == "L0B":
        return expected.reshape(2, 16, 16).transpose(0, 2, 1).reshape(-1).astype(np.float32)
    return expected


def _run_path(chip, src_scope, dst_scope):
    dtype = "float32" if src_scope == "L0C" else "float16"
    out_dtype = "float32" if dst_scope in ("L0A", "L0B") else dtype
    kb = KernelBuilder(f"path_{src_scope}_{dst_scope}")
    gm_in = kb.tensor("float16", (ELEMS,), "GM", "gm_in")
    gm_bg = kb.tensor(dtype, (ELEMS,), "GM", "gm_bg")
    gm_out = kb.tensor(out_dtype, (ELEMS,), "GM", "gm_out")
    eye_a = kb.tensor("float16", (256,), "GM", "eye_a")
    eye_b = kb.tensor("float16", (1024,), "GM", "eye_b")
    chain = _Chain(kb, chip, eye_a, eye_b)
    src = gm_in if src_scope == "GM" else chain.local(src_scope, dtype)
    if src_scope != "GM":
        chain.fill(src, src_scope, gm_in)
    dst = gm_out if dst_scope == "GM" else chain.local(dst_scope, dtype)
    if dst_scope != "GM":
        chain.move_all(dst, gm_bg, dtype)
    kb.data_move(dst, src, 0, NBURST, BURST, SRC_GAP, DST_GAP)
    if dst_scope != "GM":
        chain.drain(gm_out, dst, dst_scope, dtype)
    set_chip(chip.name)
    try:
        kernel = kb.build(inputs=[gm_in, gm_bg, eye_a, eye_b], outputs=[gm_out])
    finally:
        set_chip(None)
    data = RNG.standard_normal(ELEMS).astype(np.float16)
    background = RNG.standard_normal(ELEMS).astype(dtype)
    dev = Device(chip)
    out_init = background if dst_scope == "GM" else np.zeros(ELEMS, out_dtype)
    ptrs = [dev.to_device(a) for a in (data, background, np.eye(16, dtype=np.float16), _eye_nz(32, 32),
                                       out_init)]
    record = dev.run(kernel, [ptrs[0], ptrs[1], ptrs[2], ptrs[3], ptrs[4]])
    moved = data.astype(np.float32) if src_scope == "L0C" else data
    expected = _readout(_expected(moved, background), dst_scope)
    return dev.from_device(ptrs[4], (ELEMS,), out_dtype), expected, record


ALL_PATHS = [(name, src, dst) for name in chip_names() for (src, dst) in get_chip(name).paths]


@pytest.mark.parametrize("chip_name,src_scope,dst_scope", ALL_PATHS,
                         ids=[f"{c}-{s}-{d}" for c, s, d in ALL_PATHS])
def test_every_path_copies_bursts_bit_exact(chip_name, src_scope, dst_scope):
    chip = get_chip(chip_name)
    out, expected, record = _run_path(chip, src_scope, dst_scope)
    assert np.array_equal(out.view(np.uint8), expected.view(np.uint8))
    pipe = chip.paths[(src_scope, dst_scope)].pipe
    index = next(i for i, s in enumerate(record.trace.statics) if s.path == (src_scope, dst_scope)
                 and s.opcode == "data_move" and "nburst=4" in s.text)
    assert record.trace.statics[index].pipe == pipe
    assert record.cost.busy_cycles(pipe) > 0


def test_issue_paths_exist():
    """The issue's list: GM<->UB, GM<->L1, L1->UB, L1->L0A/L0B, L0C->UB/GM, over the chip models."""
    union = set().union(*(get_chip(n).paths for n in chip_names()))
    wanted = {("GM", "UB"), ("UB", "GM"), ("GM", "L1"), ("L1", "GM"), ("L1", "UB"), ("L1", "L0A"), ("L1", "L0B"),
              ("L0C", "UB"), ("L0C", "GM")}
    assert wanted <= union
    assert ("L0C", "GM") in get_chip("Ascend910B1").paths and ("L0C", "UB") in get_chip("Ascend910").paths


# ---- timing against the reference's measured figures (independent of the chip tables) -------------------------
# msKPP's measured single-core rate (GB/s) for 64 KiB transfers in a stream (resource910b.cpp curves, GiB = 2^30,
# as tabled in shared/reference/ascend-costs-published.md): GM->UB 78.2 GiB/s; UB->GM 1021 cycles per 64 KiB
# (ascend-hw.md's 80 GB/s is the curve's 13-16 KiB point); GM->L1 176.3 GiB/s at 64 KiB (its ~262 GiB/s plateau
# comes from 256 KiB on); L1->L0A / L1->L0B 440 / 220 GiB/s.
MSKPP_GBPS = {("GM", "UB"): 84.0, ("UB", "GM"): 118.7, ("GM", "L1"): 189.3, ("L1", "L0A"): 472.4,
              ("L1", "L0B"): 236.2}
CLOCK_910B_GHZ = 1.85
STREAM_MOVES, MOVE_BYTES = 16, 65536


def _stream_cycles(chip, src_scope, dst_scope, moves, nbytes):
    kb = KernelBuilder("stream")
    src = kb.tensor("uint8", (nbytes,), src_scope, "src")
    dst = kb.tensor("uint8", (nbytes,), dst_scope, "dst")
    for _ in range(moves):
        kb.data_move(dst, src, 0, 1, nbytes // 32, 0, 0)
    set_chip(chip.name)
    try:
        kernel = kb.build()
    finally:
        set_chip(None)
    dev = Device(chip)
    return dev.run(kernel, [dev.malloc(nbytes) for _ in kernel.params]).cost


@pytest.mark.parametrize("path", sorted(MSKPP_GBPS), ids=lambda p: f"{p[0]}-{p[1]}")
def test_data_move_bandwidth_within_10_percent_of_mskpp(path):
    chip = get_chip("Ascend910B1")
    cost = _stream_cycles(chip, *path, STREAM_MOVES, MOVE_BYTES)
    gbps = STREAM_MOVES * MOVE_BYTES / (cost.total_cycles / CLOCK_910B_GHZ)
    assert abs(gbps - MSKPP_GBPS[path]) <= 0.10 * MSKPP_GBPS[path], (path, gbps)


@pytest.mark.parametrize("path,low,high", [(("GM", "UB"), 307, 347), (("UB", "GM"), 153, 203)])
def test_gm_latency_in_the_pypto_range(path, low, high):
    cost = _stream_cycles(get_chip("Ascend910B1"), *path, 1, 32)
    latency = cost.total_cycles - 1 - 32 / (MSKPP_GBPS[path] / CLOCK_910B_GHZ)     # minus issue and data time
    assert low * 0.9 <= latency <= high * 1.1, latency
