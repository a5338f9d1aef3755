"""The ``npusim chips`` and ``npusim profile`` subcommands (wired into the CLI by npusim/cli.py)."""
from __future__ import annotations

import argparse
import json
import os
import sys

from npusim.cli import CommandParser, parse_command, usage_error, use_real_mindspore
from npusim.errors.sim import UnknownChipError
from npusim.sim.runtime import chip_names, current_chip, get_chip, set_chip


def _chip_row(chip) -> dict:
    return {
        "name": chip.name, "cores": chip.aicore_num, "vector_cores": chip.vector_core_num,
        "clock_mhz": chip.clock_mhz, "ub_kib": chip.ub_bytes // 1024, "l1_kib": chip.l1_bytes // 1024,
        "l0a_kib": chip.l0a_bytes // 1024, "l0b_kib": chip.l0b_bytes // 1024, "l0c_kib": chip.l0c_bytes // 1024,
        "hbm_gbps": chip.hbm_gbps, "fp16_tflops": chip.peak_fp16_tflops, "event_ids": chip.event_ids,
        "overflow_mode": chip.overflow_mode, "overflow_modes": list(chip.overflow_modes),
        "short_soc_version": chip.short_soc_version, "product_2020": chip.product_2020,
        "block_bytes": chip.block_bytes, "repeat_bytes": chip.repeat_bytes, "max_repeat": chip.max_repeat,
        "vrec_newton_steps": chip.vrec_newton_steps,
    }


def _chips_table(names: list, selected: str) -> str:
    header = ["chip", "cores", "vec", "MHz", "UB KiB", "L1 KiB", "L0A/B/C KiB", "HBM GB/s", "fp16 TF", "events"]
    lines = [header]
    for name in names:
        row = _chip_row(get_chip(name))
        marker = "*" if name == selected else " "
        lines.append([f"{marker}{row['name']}", str(row["cores"]), str(row["vector_cores"]), f"{row['clock_mhz']:g}",
                      str(row["ub_kib"]), str(row["l1_kib"]), f"{row['l0a_kib']}/{row['l0b_kib']}/{row['l0c_kib']}",
                      f"{row['hbm_gbps']:g}", f"{row['fp16_tflops']:g}", str(row["event_ids"])])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(line, widths)))
           for line in lines]
    return "\n".join(out + ["", f"* = chip in use (NPUSIM_SOC or set_chip; default Ascend910): {selected}"])


def _chip_detail(name: str) -> str:
    chip = get_chip(name)
    lines = [f"{chip.name}: {chip.description}", f"aliases: {', '.join(chip.aliases) or '-'}",
             f"CANN names: SHORT_SOC_VERSION {chip.short_soc_version}, 2020 product {chip.product_2020 or '-'}",
             f"vector geometry: block {chip.block_bytes} B, repeat {chip.repeat_bytes} B, max repeat "
             f"{chip.max_repeat}; DSL vrec Newton steps {chip.vrec_newton_steps}", "",
             "numbers and sources:"]
    for field, source in sorted(chip.sources.items()):
        lines.append(f"  {field}: {source}")
    lines += ["", "data_move paths (pipe, bytes/cycle, latency cycles):"]
    for (src, dst), path in chip.paths.items():
        lines.append(f"  {src}->{dst}: {path.pipe}, {path.bytes_per_cycle:g}, {path.latency_cycles:g}")
    lines += ["", "instructions and dtypes:"]
    for opcode, keys in sorted(chip.isa.items()):
        lines.append(f"  {opcode}: {', '.join(sorted(keys))}")
    return "\n".join(lines)


def chip_name(text: str) -> str:
    """argparse type of a chip option: a chip npusim models (a usage error names the known ones)."""
    try:
        get_chip(text)
    except UnknownChipError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def chips_main(argv: list) -> int:
    """``npusim chips [--json] [NAME]``: list the chip models, or show one with the source of every number."""
    parser = CommandParser(prog="npusim chips", description="List the simulated Ascend chips.")
    parser.add_argument("name", nargs="?", type=chip_name,
                        help="show one chip in detail (numbers, sources, paths, instructions)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    args = parse_command(parser, argv)
    if isinstance(args, int):
        return args
    selected = current_chip().name
    if args.name:
        if args.json:
            print(json.dumps(_chip_row(get_chip(args.name)), indent=2))
        else:
            print(_chip_detail(args.name))
        return 0
    if args.json:
        print(json.dumps([_chip_row(get_chip(n)) for n in chip_names()], indent=2))
    else:
        print(_chips_table(chip_names(), selected))
    return 0


def _output_file(text: str) -> str:
    """argparse type of an output file option: its directory must exist."""
    directory = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(directory):
        raise argparse.ArgumentTypeError(f"cannot write {text!r}: directory {directory!r} does not exist")
    return text


def _profile_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="npusim profile",
                           usage="%(prog)s [--soc NAME] [--trace FILE] [--png FILE] [--json FILE] "
                                 "[--mindspore {npusim,real}] SCRIPT [ARGS...]",
                           description="Run SCRIPT as `npusim run` does and report every NPU kernel.")
    parser.add_argument("--soc", type=chip_name, metavar="NAME",
                        help="chip to simulate (default: NPUSIM_SOC or Ascend910)")
    parser.add_argument("--trace", type=_output_file, metavar="FILE",
                        help="write a Chrome-trace JSON (open in Perfetto / chrome://tracing)")
    parser.add_argument("--png", type=_output_file, metavar="FILE", help="write a timeline picture (needs matplotlib)")
    parser.add_argument("--json", dest="json_path", type=_output_file, metavar="FILE",
                        help="write the per-kernel table as JSON")
    parser.add_argument("--mindspore", choices=("npusim", "real"), default="npusim",
                        help="npusim's MindSpore front end (default) or a real MindSpore install (npusim.bridge)")
    parser.add_argument("script", nargs="?", metavar="SCRIPT", help="the script to run (its own arguments follow it)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    return parser


def profile_main(argv: list) -> int:
    """``npusim profile [--soc NAME] [--trace FILE] [--png FILE] [--json FILE] SCRIPT [ARGS...]``: the script's
    exit status (1 if it raised: its traceback starts at its own frame), 2 for a usage error (one line)."""
    args = parse_command(_profile_parser(), argv)
    if isinstance(args, int):
        return args
    if args.script is None:
        return usage_error("npusim profile", "no script given (see npusim profile --help)")
    from npusim.runner import run_script
    from npusim.sim.profiler import profile
    if not os.path.exists(args.script):
        return usage_error("npusim profile", f"no such script: {args.script}")
    if args.soc:
        set_chip(args.soc)
    if args.mindspore == "real" and use_real_mindspore("npusim profile"):
        return 1
    with profile() as session:
        try:
            status = run_script(args.script, list(args.args))
        finally:
            written = _report(session, args)
    return status if written else max(status, 1)


def _report(session, args) -> bool:
    """Print the kernel table and write the files asked for; False (after a one-line message) if one cannot be
    written."""
    try:
        _write_report(session, args)
    except OSError as exc:
        print(f"npusim profile: cannot write the report: {exc}", file=sys.stderr)
        return False
    return True


def _write_report(session, args) -> None:
    print("\nnpusim profile: NPU kernels")
    print(session.table())
    if args.trace:
        session.write_chrome_trace(args.trace)
        print(f"chrome trace written to {args.trace}")
    if args.png:
        if session.write_png(args.png):
            print(f"timeline written to {args.png}")
        else:
            print("no PNG: matplotlib is not installed")
    if args.json_path:
        with open(args.json_path, "w", encoding="utf-8") as handle:
            json.dump(session.rows(), handle, indent=2)
