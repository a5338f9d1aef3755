"""Benchmark: the cycle model on Ascend910B1 against the published per-instruction figures of the 910B class.

Builds one micro-kernel per row of the published table (``../shared/reference/ascend-costs-published.md``: vector
instructions at 1/8/64/255 repeats, GM<->UB moves of 1-128 KiB, L1->L0A/L0B loads, mmad tiles, scalar
instructions, a flag pair), each alone ("iso": the cycles from the instruction's issue to the kernel's end) and in a
back-to-back stream of independent copies ("stream": the cycles each further copy adds), runs them on the
simulator and prints, per row, npusim next to each source, then the summary: the fraction of rows within +-10 %
and +-25 % of the source and Spearman's rank correlation, for isolated and stream rows and for all together.

Each row is judged against ONE source: the one the chip YAML says the cost row follows (``follows: {iso: ...,
stream: ...}`` on the row, ``iso_<dtype>`` / ``stream_<dtype>`` overriding per dtype); the YAML's comments say
why.  The summary over every published cell (all sources, including those the model does not follow) is printed
too, for comparison with the issue's baseline.  Finally the cycle model's own cost per trace record of
``estimate()`` on the calibration kernels and on a multi-block launch (target: at most ~1 us per record): on a
later launch of the same kernel without its dependences (the figure judged), with them (as ``npusim profile``
prices a launch), and on each kernel's first launch (its descriptors and footprints built).

    python benchmarks/bench_cycle_calibration.py [--quiet] [--follows-from CHIP.yaml]

Exits 1 when fewer than 80 % of the judged rows are within 10 % or the rank correlation is below 0.97.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from npusim.sim import Device, KernelBuilder, get_chip  # noqa: E402
from npusim.sim.chip import CHIP_DIR  # noqa: E402
from npusim.sim.cost import estimate  # noqa: E402

CHIP = "Ascend910B1"
STREAM_COPIES = 9             # a stream row is (T(9 copies) - T(1 copy)) / 8
SOURCES = ("PTO", "pypto-CA", "msKPP")
#: the chip YAML's reference ids of the three published sources -> the table's column names
SOURCE_IDS = {"pto": "PTO", "pypto": "pypto-CA", "mskpp": "msKPP"}
TARGET_WITHIN_10, TARGET_SPEARMAN = 0.80, 0.97
DTYPES = {"fp16": "float16", "fp32": "float32"}

# ---- the published table ------------------------------------------------------------------------------------------
# (instr, config, PTO (iso, stream), pypto-CA (iso, stream), msKPP stream); None: the source has no such figure.
# Copied from ../shared/reference/ascend-costs-published.md (measured 2026-11-25), which names each source's file.
_V = "vector"
PUBLISHED_ROWS = (
    ("vadd", "fp16 r=1", (8.0, 2.1), (22.0, 1.0), 7.0), ("vadd", "fp16 r=8", (22.0, 17.0), (29.0, 8.0), 17.0),
    ("vadd", "fp16 r=64", (138.0, 132.0), (85.0, 64.0), 129.0),
    ("vadd", "fp16 r=255", (533.0, 527.0), (276.0, 255.0), 511.0),
    ("vadd", "fp32 r=1", (8.0, 2.1), (22.0, 1.0), 4.0), ("vadd", "fp32 r=8", (22.0, 17.0), (29.0, 8.0), 17.0),
    ("vadd", "fp32 r=64", (138.0, 132.0), (85.0, 64.0), 129.0),
    ("vadd", "fp32 r=255", (533.0, 527.0), (276.0, 255.0), 511.0),
    ("vmul", "fp16 r=1", (9.0, 2.1), (23.0, 1.0), 7.0), ("vmul", "fp16 r=8", (24.0, 17.0), (30.0, 8.0), 17.0),
    ("vmul", "fp16 r=64", (143.0, 137.0), (86.0, 64.0), 129.0),
    ("vmul", "fp16 r=255", (551.0, 544.0), (277.0, 255.0), 511.0),
    ("vmul", "fp32 r=1", (9.0, 2.1), (23.0, 1.0), 4.0), ("vmul", "fp32 r=8", (24.0, 17.0), (30.0, 8.0), 17.0),
    ("vmul", "fp32 r=64", (143.0, 136.0), (86.0, 64.0), 129.0),
    ("vmul", "fp32 r=255", (551.0, 544.0), (277.0, 255.0), 511.0),
    ("vexp", "fp16 r=1", (16.0, 4.0), (31.0, 4.0), 4.0), ("vexp", "fp16 r=8", (44.0, 32.0), (59.0, 32.0), 32.0),
    ("vexp", "fp16 r=64", (267.0, 255.0), (283.0, 256.0), 250.0),
    ("vexp", "fp16 r=255", (1029.0, 1017.0), (1047.0, 1020.0), 994.0),
    ("vexp", "fp32 r=1", (14.0, 2.0), (29.0, 2.0), 4.0), ("vexp", "fp32 r=8", (28.0, 16.0), (43.0, 16.0), 17.0),
    ("vexp", "fp32 r=64", (140.0, 128.0), (155.0, 128.0), 129.0),
    ("vexp", "fp32 r=255", (522.0, 510.0), (537.0, 510.0), 511.0),
    ("vln", "fp16 r=1", (18.0, 4.0), (33.0, 4.0), 4.0), ("vln", "fp16 r=8", (46.0, 32.0), (61.0, 32.0), 32.0),
    ("vln", "fp16 r=64", (271.0, 257.0), (285.0, 256.0), 250.0),
    ("vln", "fp16 r=255", (1038.0, 1024.0), (1049.0, 1020.0), 994.0),
    ("vln", "fp32 r=1", (16.0, 2.0), (31.0, 2.0), 4.0), ("vln", "fp32 r=8", (30.0, 16.0), (45.0, 16.0), 17.0),
    ("vln", "fp32 r=64", (142.0, 128.0), (157.0, 128.0), 129.0),
    ("vln", "fp32 r=255", (524.0, 510.0), (539.0, 510.0), 511.0),
    ("vsqrt", "fp16 r=1", (17.0, 4.0), (32.0, 4.0), 5.0), ("vsqrt", "fp16 r=8", (45.0, 32.0), (60.0, 32.0), 33.0),
    ("vsqrt", "fp16 r=64", (269.0, 256.0), (284.0, 256.0), 257.0),
    ("vsqrt", "fp16 r=255", (1033.0, 1020.0), (1048.0, 1020.0), 1021.0),
    ("vsqrt", "fp32 r=1", (15.0, 2.0), (30.0, 2.0), 4.0), ("vsqrt", "fp32 r=8", (29.0, 16.0), (44.0, 16.0), 17.0),
    ("vsqrt", "fp32 r=64", (141.0, 128.0), (156.0, 128.0), 129.0),
    ("vsqrt", "fp32 r=255", (523.0, 510.0), (538.0, 510.0), 511.0),
    ("vrec", "fp16 r=1", (None, None), (21.0, 1.0), 5.0), ("vrec", "fp16 r=8", (None, None), (28.0, 8.0), 9.0),
    ("vrec", "fp16 r=64", (None, None), (84.0, 64.0), 65.0),
    ("vrec", "fp16 r=255", (None, None), (275.0, 255.0), 256.0),
    ("vrec", "fp32 r=1", (None, None), (21.0, 1.0), 4.0), ("vrec", "fp32 r=8", (None, None), (28.0, 8.0), 9.0),
    ("vrec", "fp32 r=64", (None, None), (84.0, 64.0), 65.0),
    ("vrec", "fp32 r=255", (None, None), (275.0, 255.0), 256.0),
    ("vconv_f322f16", "fp32 r=1", (None, None), (20.0, 1.0), 7.0),
    ("vconv_f322f16", "fp32 r=8", (None, None), (27.0, 8.0), 8.0),
    ("vconv_f322f16", "fp32 r=64", (None, None), (83.0, 64.0), 63.0),
    ("vconv_f322f16", "fp32 r=255", (None, None), (274.0, 255.0), 250.0),
    ("vcadd", "fp16 r=1", (30.0, 7.0), (45.0, 7.0), 8.0), ("vcadd", "fp16 r=8", (79.0, 56.0), (94.0, 56.0), 57.0),
    ("vcadd", "fp16 r=64", (471.0, 448.0), (486.0, 448.0), 449.0),
    ("vcadd", "fp16 r=255", (1808.0, 1785.0), (1823.0, 1785.0), 1787.0),
    ("vcadd", "fp32 r=1", (27.0, 7.0), (42.0, 7.0), 4.0), ("vcadd", "fp32 r=8", (76.0, 56.0), (91.0, 56.0), 25.0),
    ("vcadd", "fp32 r=64", (468.0, 448.0), (483.0, 448.0), 193.0),
    ("vcadd", "fp32 r=255", (1805.0, 1785.0), (1820.0, 1785.0), 766.0),
    ("vcmax", "fp16 r=1", (16.0, 7.0), (31.0, 7.0), 7.0), ("vcmax", "fp16 r=8", (65.0, 56.0), (80.0, 56.0), 55.0),
    ("vcmax", "fp16 r=64", (457.0, 448.0), (472.0, 448.0), 437.0),
    ("vcmax", "fp16 r=255", (1794.0, 1785.0), (1809.0, 1785.0), 1738.0),
    ("vcmax", "fp32 r=1", (15.0, 7.0), (30.0, 7.0), 8.0), ("vcmax", "fp32 r=8", (64.0, 56.0), (79.0, 56.0), 57.0),
    ("vcmax", "fp32 r=64", (456.0, 448.0), (471.0, 448.0), 449.0),
    ("vcmax", "fp32 r=255", (1793.0, 1785.0), (1808.0, 1785.0), 1786.0),
    ("vector_dup", "fp16 r=1", (2.0, 1.0), (17.0, 1.0), 4.0),
    ("vector_dup", "fp16 r=8", (9.0, 8.0), (24.0, 8.0), 8.0),
    ("vector_dup", "fp16 r=64", (65.0, 64.0), (80.0, 64.0), 63.0),
    ("vector_dup", "fp16 r=255", (256.0, 255.0), (271.0, 255.0), 249.0),
    ("vector_dup", "fp32 r=1", (2.0, 1.0), (17.0, 1.0), 5.0),
    ("vector_dup", "fp32 r=8", (9.0, 8.0), (24.0, 8.0), 9.0),
    ("vector_dup", "fp32 r=64", (65.0, 64.0), (80.0, 64.0), 65.0),
    ("vector_dup", "fp32 r=255", (256.0, 255.0), (271.0, 255.0), 256.0),
    ("vdiv", "fp16 r=1", (21.0, 8.0), (32.0, 4.0), 9.0), ("vdiv", "fp16 r=8", (77.0, 64.0), (60.0, 32.0), 37.0),
    ("vdiv", "fp16 r=64", (525.0, 512.0), (284.0, 256.0), 265.0),
    ("vdiv", "fp16 r=255", (2053.0, 2040.0), (1048.0, 1020.0), 1053.0),
    ("vdiv", "fp32 r=1", (17.0, 4.0), (30.0, 2.0), 5.0), ("vdiv", "fp32 r=8", (45.0, 32.0), (44.0, 16.0), 33.0),
    ("vdiv", "fp32 r=64", (269.0, 256.0), (156.0, 128.0), 257.0),
    ("vdiv", "fp32 r=255", (1033.0, 1020.0), (538.0, 510.0), 1021.0),
    ("vrsqrt", "fp16 r=1", (5.9, 1.1), (21.0, 1.0), 4.0), ("vrsqrt", "fp16 r=8", (13.0, 8.5), (28.0, 8.0), 9.0),
    ("vrsqrt", "fp16 r=64", (73.0, 68.0), (84.0, 64.0), 65.0),
    ("vrsqrt", "fp16 r=255", (276.0, 272.0), (275.0, 255.0), 256.0),
    ("vrsqrt", "fp32 r=1", (5.9, 1.1), (21.0, 1.0), 4.0), ("vrsqrt", "fp32 r=8", (13.0, 8.5), (28.0, 8.0), 9.0),
    ("vrsqrt", "fp32 r=64", (73.0, 68.0), (84.0, 64.0), 65.0),
    ("vrsqrt", "fp32 r=255", (276.0, 272.0), (275.0, 255.0), 256.0),
    ("data_move GM->UB", "1 KiB", (None, 17.0), (365.0, 363.0), 242.0),
    ("data_move GM->UB", "2 KiB", (None, 34.0), (379.0, 375.0), 262.0),
    ("data_move GM->UB", "4 KiB", (None, 69.0), (407.0, 399.0), 300.0),
    ("data_move GM->UB", "8 KiB", (None, 139.0), (462.0, 446.0), 331.0),
    ("data_move GM->UB", "16 KiB", (None, 279.0), (572.0, 540.0), 416.0),
    ("data_move GM->UB", "32 KiB", (None, 559.0), (792.0, 728.0), 732.0),
    ("data_move GM->UB", "64 KiB", (None, 1119.0), (1233.0, 1105.0), 1466.0),
    ("data_move GM->UB", "128 KiB", (None, 2238.0), (2114.0, 1858.0), 2878.0),
    ("data_move UB->GM", "1 KiB", (None, 9.0), (221.0, 219.0), 155.0),
    ("data_move UB->GM", "2 KiB", (None, 18.0), (235.0, 231.0), 160.0),
    ("data_move UB->GM", "4 KiB", (None, 37.0), (263.0, 255.0), 187.0),
    ("data_move UB->GM", "8 KiB", (None, 74.0), (318.0, 302.0), 245.0),
    ("data_move UB->GM", "16 KiB", (None, 149.0), (428.0, 396.0), 326.0),
    ("data_move UB->GM", "32 KiB", (None, 299.0), (648.0, 584.0), 521.0),
    ("data_move UB->GM", "64 KiB", (None, 599.0), (1089.0, 961.0), 1021.0),
    ("data_move UB->GM", "128 KiB", (None, 1198.0), (1970.0, 1714.0), 2051.0),
    ("load2d L1->L0A", "1 fractal(s) (512 B)", (None, 2.0), (27.0, 3.0), 5.0),
    ("load2d L1->L0A", "8 fractal(s) (4096 B)", (None, 16.0), (41.0, 17.0), 18.0),
    ("load2d L1->L0A", "64 fractal(s) (32768 B)", (None, 128.0), (153.0, 129.0), 130.0),
    ("load2d L1->L0A", "128 fractal(s) (65536 B)", (None, 256.0), (281.0, 257.0), 258.0),
    ("load2d L1->L0B", "1 fractal(s) (512 B)", (None, 4.0), (29.0, 5.0), 6.0),
    ("load2d L1->L0B", "8 fractal(s) (4096 B)", (None, 32.0), (57.0, 33.0), 34.0),
    ("load2d L1->L0B", "64 fractal(s) (32768 B)", (None, 256.0), (281.0, 257.0), 258.0),
    ("load2d L1->L0B", "128 fractal(s) (65536 B)", (None, 512.0), (537.0, 513.0), 514.0),
    ("mmad", "16x16x16 fp16->fp32 (1 tiles)", (7.0, 1.0), (21.0, None), 3.0),
    ("mmad", "32x16x64 fp16->fp32 (8 tiles)", (14.0, 8.0), (28.0, None), 10.0),
    ("mmad", "64x64x64 fp16->fp32 (64 tiles)", (70.0, 64.0), (84.0, None), 68.0),
    ("mmad", "128x64x128 fp16->fp32 (256 tiles)", (262.0, 256.0), (276.0, None), 256.0),
    ("scalar alu", "1 instr", (None, None), (2.0, None), None),
    ("scalar sload", "1 instr", (None, None), (6.0, None), None),
    ("scalar sstore", "1 instr", (None, None), (4.0, None), None),
    ("set_flag+wait_flag", "MTE2->V, 1 pair", (2.0, None), (2.0, None), None),
)


@dataclass(frozen=True)
class Published:
    """One row of the table: the instruction, its configuration and each source's (iso, stream) cycles."""

    instr: str
    config: str
    figures: dict           # source -> (iso or None, stream or None)

    def figure(self, source: str, kind: str) -> Optional[float]:
        return self.figures[source][0 if kind == "iso" else 1]


def published_rows() -> list:
    """The published table as :class:`Published` rows."""
    return [Published(instr, config, {"PTO": pto, "pypto-CA": pypto, "msKPP": (None, mskpp)})
            for instr, config, pto, pypto, mskpp in PUBLISHED_ROWS]


# ---- micro-kernels --------------------------------------------------------------------------------------------------
def _vector_kernel(chip, opcode: str, dtype: str, repeat: int, copies: int):
    """``copies`` independent instructions: each reads ``src`` and writes ``dst`` (no copy reads another's result)."""
    kb = KernelBuilder(f"cal_{opcode}", chip=chip)
    lanes = chip.lanes(np.dtype(dtype).itemsize)
    elems = repeat * chip.repeat_bytes // np.dtype(dtype).itemsize
    src = kb.tensor(dtype, (elems,), "UB", "src")
    if opcode == "vconv":
        dst = kb.tensor("float16", (elems,), "UB", "dst")
    elif opcode in ("vcadd", "vcmax"):
        dst = kb.tensor(dtype, (max(2 * repeat, chip.block_elems(np.dtype(dtype).itemsize)),), "UB", "dst")
    else:
        dst = kb.tensor(dtype, (elems,), "UB", "dst")
    for _ in range(copies):
        if opcode in ("vadd", "vmul", "vdiv"):
            kb.emit(opcode, lanes, dst, src, src, repeat, 1, 1, 1, 8, 8, 8)
        elif opcode == "vector_dup":
            kb.vector_dup(lanes, dst, 1.0, repeat, 1, 8)
        elif opcode == "vconv":
            kb.vconv(lanes, "", dst, src, repeat, 1, 1, 4, 8)
        elif opcode in ("vcadd", "vcmax"):
            kb.emit(opcode, lanes, dst, src, repeat, 1, 1, 8)
        else:
            kb.emit(opcode, lanes, dst, src, repeat, 1, 1, 8, 8)
    return kb.build(check=False)


def _move_kernel(chip, src_scope: str, dst_scope: str, nbytes: int, copies: int):
    """``copies`` moves of ``nbytes``; GM sides use a fresh region per copy, local sides one buffer."""
    kb = KernelBuilder("cal_move", chip=chip)
    src_elems = nbytes * (copies if src_scope == "GM" else 1)
    dst_elems = nbytes * (copies if dst_scope == "GM" else 1)
    src = kb.tensor("uint8", (src_elems,), src_scope, "src")
    dst = kb.tensor("uint8", (dst_elems,), dst_scope, "dst")
    for i in range(copies):
        s = src[i * nbytes] if src_scope == "GM" else src
        d = dst[i * nbytes] if dst_scope == "GM" else dst
        kb.data_move(d, s, 0, 1, nbytes // chip.block_bytes, 0, 0)
    return kb.build(check=False)


def _mmad_kernel(chip, m: int, k: int, n: int, copies: int):
    kb = KernelBuilder("cal_mmad", chip=chip)
    a = kb.tensor("float16", (m * k,), "L0A", "a")
    b = kb.tensor("float16", (k * n,), "L0B", "b")
    c = kb.tensor("float32", (m * n,), "L0C", "c")
    for _ in range(copies):
        kb.mmad(c, a, b, m, k, n, True)
    return kb.build(check=False)


def _scalar_kernel(chip, what: str, copies: int):
    kb = KernelBuilder("cal_scalar", chip=chip)
    ub = kb.tensor("float32", (chip.block_elems(4),), "UB", "ub")
    reg = kb.scalar("float32", "r")
    for _ in range(copies):
        if what == "alu":
            reg.set_as(1.0)
        elif what == "sload":
            reg.set_as(ub[0])
        elif what == "sstore":
            ub[0].set_as(2.0)
        else:
            kb.set_flag("MTE2", "V", 0)
            kb.wait_flag("MTE2", "V", 0)
    return kb.build(check=False)


def _kernel_for(chip, row: Published, copies: int):
    instr, config = row.instr, row.config
    if instr.startswith("data_move"):
        src, dst = instr.split()[1].split("->")
        return _move_kernel(chip, src, dst, int(config.split()[0]) * 1024, copies)
    if instr.startswith("load2d"):
        src, dst = instr.split()[1].split("->")
        return _move_kernel(chip, src, dst, int(config.split()[0]) * 512, copies)
    if instr == "mmad":
        m, k, n = (int(v) for v in config.split()[0].split("x"))
        return _mmad_kernel(chip, m, k, n, copies)
    if instr.startswith("scalar") or instr.startswith("set_flag"):
        return _scalar_kernel(chip, instr.split()[-1] if instr.startswith("scalar") else "flags", copies)
    dtype, repeat = config.split()
    opcode = "vconv" if instr.startswith("vconv") else instr
    return _vector_kernel(chip, opcode, DTYPES[dtype], int(repeat.split("=")[1]), copies)


def _total_cycles(chip, kernel) -> float:
    dev = Device(chip)
    args = [dev.malloc(int(np.prod(p.shape)) * np.dtype(p.dtype).itemsize) for p in kernel.params]
    return dev.run(kernel, args).cost.total_cycles


def measure(chip, row: Published) -> tuple:
    """npusim's (iso, stream) cycles of ``row``: iso = one instruction's cycles after its issue; stream = what each
    further independent copy adds.  Scalar rows (run on S, no issue) have no stream figure."""
    scalar = row.instr.startswith("scalar")
    flags = row.instr.startswith("set_flag")
    one = _total_cycles(chip, _kernel_for(chip, row, 1))
    iso = one - (0.0 if scalar else chip.scalar_issue_cycles)
    if scalar or flags:
        return iso, None
    many = _total_cycles(chip, _kernel_for(chip, row, STREAM_COPIES))
    return iso, (many - one) / (STREAM_COPIES - 1)


# ---- which source each row follows --------------------------------------------------------------------------------
def _yaml_row(data: dict, row: Published) -> dict:
    """The chip YAML entry that prices ``row``."""
    instr = row.instr
    if instr.startswith("data_move") or instr.startswith("load2d"):
        return data["paths"][instr.split()[1]]
    if instr == "mmad":
        return data["cube_costs"]
    if instr.startswith("scalar") or instr.startswith("set_flag"):
        return data["scalar_costs"]
    return data["vector_costs"]["vconv" if instr.startswith("vconv") else instr]


def judged_source(data: dict, row: Published, kind: str) -> str:
    """The table column ``row``'s ``kind`` figure is judged against: the YAML row's ``follows`` entry
    (``<kind>_<dtype>`` first)."""
    follows = _yaml_row(data, row).get("follows")
    if not isinstance(follows, dict):
        raise SystemExit(f"{row.instr} {row.config}: the chip YAML row has no `follows` entry naming its source")
    dtype = DTYPES.get(row.config.split()[0], "")
    ref = follows.get(f"{kind}_{dtype}", follows.get(kind))
    if ref not in SOURCE_IDS:
        raise SystemExit(f"{row.instr} {row.config}: `follows.{kind}` is {ref!r}, not one of {sorted(SOURCE_IDS)}")
    return SOURCE_IDS[ref]


# ---- statistics ---------------------------------------------------------------------------------------------------
def _ranks(values) -> np.ndarray:
    """Ranks 1..n, ties sharing their mean rank."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(len(values))
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[order[j + 1]] == values[order[i]]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs, ys) -> float:
    """Spearman's rank correlation of two equally long sequences."""
    rx, ry = _ranks(xs), _ranks(ys)
    return float(np.corrcoef(rx, ry)[0, 1])


@dataclass(frozen=True)
class Judged:
    """One compared figure: npusim's cycles and the published one it is judged against."""

    row: Published
    kind: str
    source: str
    model: float
    published: float

    @property
    def ratio(self) -> float:
        return self.model / self.published


def summary(items: list) -> dict:
    """within_10, within_25 (fractions), spearman and count of a list of :class:`Judged`."""
    if not items:
        return {"count": 0, "within_10": 0.0, "within_25": 0.0, "spearman": float("nan")}
    ratios = np.array([j.ratio for j in items])
    return {"count": len(items), "within_10": float(np.mean(np.abs(ratios - 1) <= 0.10)),
            "within_25": float(np.mean(np.abs(ratios - 1) <= 0.25)),
            "spearman": spearman([j.model for j in items], [j.published for j in items])}


def calibrate(chip_name: str = CHIP, follows_yaml: Optional[Path] = None) -> tuple:
    """(judged, every_cell, measured): the rows judged against their followed source, every published cell, and
    {(instr, config): (iso, stream)} as npusim gives them on ``chip_name``."""
    chip = get_chip(chip_name)
    data = yaml.safe_load(Path(follows_yaml or CHIP_DIR / f"{chip.name}.yaml").read_text())
    judged, cells, measured = [], [], {}
    for row in published_rows():
        iso, stream = measure(chip, row)
        measured[(row.instr, row.config)] = (iso, stream)
        for kind, model in (("iso", iso), ("stream", stream)):
            if model is None:
                continue
            for source in SOURCES:
                value = row.figure(source, kind)
                if value is not None:
                    cells.append(Judged(row, kind, source, model, value))
            available = [s for s in SOURCES if row.figure(s, kind) is not None]
            if available:
                source = judged_source(data, row, kind)
                if row.figure(source, kind) is None:
                    raise SystemExit(f"{row.instr} {row.config}: the YAML follows {source} for {kind}, which has "
                                     f"no such figure (published: {', '.join(available)})")
                judged.append(Judged(row, kind, source, model, row.figure(source, kind)))
    return judged, cells, measured


# ---- the cycle model's own cost -------------------------------------------------------------------------------------
def _launch_traces(chip) -> list:
    """(label, trace, kernel) of launches to time estimate() on: the calibration kernels (one block) and a
    multi-block kernel."""
    import importlib.util
    launches = []
    for row in published_rows()[::3]:
        kernel = _kernel_for(chip, row, STREAM_COPIES)
        dev = Device(chip)
        args = [dev.malloc(int(np.prod(p.shape)) * np.dtype(p.dtype).itemsize) for p in kernel.params]
        launches.append(("calibration (1 block)", dev.run(kernel, args).trace, kernel))
    spec = importlib.util.spec_from_file_location("_bench_sim_vadd", Path(__file__).with_name("bench_sim_vadd.py"))
    vadd = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(vadd)
    n = 4 * 1024 * 1024
    tile, block_dim = vadd.plan_launch(chip, n)
    from npusim.sim import set_chip
    set_chip(chip.name)
    try:
        kernel = vadd.build_vadd(n, block_dim, tile)
    finally:
        set_chip(None)
    dev = Device(chip)
    ptrs = [dev.malloc(n * 2) for _ in range(3)]
    launches.append((f"double-buffered vadd ({block_dim} blocks)", dev.run(kernel, ptrs).trace, kernel))
    return launches


def _seconds(launches: list, chip, with_kernel: bool) -> float:
    t0 = time.perf_counter()
    for _, trace, kernel in launches:
        estimate(trace, chip, kernel if with_kernel else None)
    return time.perf_counter() - t0


def model_cost(chip_name: str = CHIP, repeats: int = 20) -> list:
    """[(label, records, seconds per record: first estimate, best of ``repeats`` without the kernel, best with
    the kernel)] of estimate() per kind of launch.

    The first estimate of a launch also describes its kernel's instructions and (with the kernel) works out their
    footprints; later launches of the same compiled kernel reuse both (:mod:`npusim.sim.cost.tables`).  With the
    kernel (as a device's launch record, so ``npusim profile``, prices it) dependent vector instructions are
    tracked; without it every instruction counts as independent."""
    chip = get_chip(chip_name)
    groups: dict = {}
    for launch in _launch_traces(chip):
        groups.setdefault(launch[0], []).append(launch)
    out = []
    for label, launches in groups.items():
        records = sum(trace.instruction_count for _, trace, _ in launches)
        first = _seconds(launches, chip, True)
        bare = min(_seconds(launches, chip, False) for _ in range(repeats))
        tracked = min(_seconds(launches, chip, True) for _ in range(repeats))
        out.append((label, records, first / records, bare / records, tracked / records))
    return out


# ---- report ---------------------------------------------------------------------------------------------------------
def _fmt(value) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_rows(measured: dict, judged: list) -> None:
    followed = {(j.row.instr, j.row.config, j.kind): j.source for j in judged}
    print(f"{'instr':<20} {'config':<34} {'kind':<6} {'npusim':>8} " +
          " ".join(f"{s:>16}" for s in SOURCES) + "  judged vs")
    for row in published_rows():
        for kind, model in zip(("iso", "stream"), measured[(row.instr, row.config)]):
            if model is None or all(row.figure(s, kind) is None for s in SOURCES):
                continue
            cells = []
            for source in SOURCES:
                value = row.figure(source, kind)
                cells.append("-" if value is None else f"{value:g} ({model / value:.2f})")
            print(f"{row.instr:<20} {row.config:<34} {kind:<6} {_fmt(model):>8} " +
                  " ".join(f"{c:>16}" for c in cells) + f"  {followed.get((row.instr, row.config, kind), '-')}")


def _print_summary(label: str, items: list) -> dict:
    s = summary(items)
    print(f"  {label:<34} {s['count']:>4} rows: {100 * s['within_10']:5.1f} % within 10 %, "
          f"{100 * s['within_25']:5.1f} % within 25 %, Spearman {s['spearman']:.3f}")
    return s


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", action="store_true", help="print the summary only")
    parser.add_argument("--follows-from", type=Path, default=None,
                        help="read the followed sources from this chip YAML (default: the model's own)")
    parser.add_argument("--no-timing", action="store_true", help="skip timing the cycle model")
    args = parser.parse_args(argv)
    judged, cells, measured = calibrate(CHIP, args.follows_from)
    if not args.quiet:
        print_rows(measured, judged)
        print()
    print(f"calibration on {CHIP} (each row judged against the source its chip YAML row follows):")
    overall = _print_summary("all judged rows", judged)
    _print_summary("isolated rows", [j for j in judged if j.kind == "iso"])
    _print_summary("stream rows", [j for j in judged if j.kind == "stream"])
    for source in SOURCES:
        _print_summary(f"judged against {source}", [j for j in judged if j.source == source])
    print("every published cell (all sources, also those the model does not follow):")
    _print_summary("all cells", cells)
    _print_summary("isolated cells", [j for j in cells if j.kind == "iso"])
    _print_summary("stream cells", [j for j in cells if j.kind == "stream"])
    if not args.no_timing:
        print("cycle model cost per trace record (estimate(); best of 20 passes; target ~1 us):")
        print(f"  {'launches':<34} {'records':>7} {'repeat':>8} {'+deps':>8} {'first':>8}")
        for label, records, first, bare, tracked in model_cost(CHIP):
            print(f"  {label:<34} {records:>7} {bare * 1e6:>5.2f} us {tracked * 1e6:>5.2f} us {first * 1e6:>5.2f} us"
                  f"  {'OK' if bare <= 1.05e-6 else 'MISSED'}")
        print("  (repeat: a later launch of the same kernel, without the kernel's dependences; +deps: with them, as "
              "npusim profile prices a launch; first: the first launch of each kernel, with its dependences)")
    ok = overall["within_10"] >= TARGET_WITHIN_10 and overall["spearman"] >= TARGET_SPEARMAN
    print(f"targets: >= {100 * TARGET_WITHIN_10:.0f} % within 10 % and Spearman >= {TARGET_SPEARMAN}: "
          f"{'OK' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
