"""``npusim aicpu ...``: build AICPU kernel libraries and show the flags to build them yourself.

    npusim aicpu build SRC... -o DIR/libNAME.so [-I DIR]... [-D NAME[=VALUE]]... [--cxxflags "..."] [--ldflags "..."]
    npusim aicpu include            # the header directories, one per line (--flags: as -I options)
    npusim aicpu cflags             # compile flags for a kernel source
    npusim aicpu ldflags            # link flags: -shared and the runtime archive
    npusim aicpu list LIB           # op types a library registers (LIB: a path, or a cust_aicpu name)
    npusim aicpu find NAME          # which libNAME.so cust_aicpu=NAME selects
    npusim aicpu default            # build (if needed) and print npusim's default kernel library
"""
from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from npusim.cli import CommandParser, parse_command
from npusim.errors import NpusimError


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="npusim aicpu", description="AICPU kernel libraries for npusim")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="compile kernel sources into libNAME.so linked with npusim's runtime")
    build.add_argument("sources", nargs="+", metavar="SRC")
    build.add_argument("-o", "--output", required=True, help="the library to write, e.g. DIR/libNAME.so")
    build.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR")
    build.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    build.add_argument("--cxxflags", default="", help="extra compiler flags (one shell-quoted string)")
    build.add_argument("--ldflags", default="", help="extra linker flags (one shell-quoted string)")
    include = sub.add_parser("include", help="print the header directories")
    include.add_argument("--flags", action="store_true", help="print them as -I options on one line")
    sub.add_parser("cflags", help="print compile flags for a kernel source")
    sub.add_parser("ldflags", help="print link flags for a kernel library")
    listing = sub.add_parser("list", help="list the op types a library registers")
    listing.add_argument("library", help="a path to libX.so, or a cust_aicpu name X")
    find = sub.add_parser("find", help="show which library a cust_aicpu name selects")
    find.add_argument("name")
    sub.add_parser("default", help="build (if needed) and print npusim's default kernel library")
    return parser


def _library_path(text: str) -> Path:
    from aicpu_loader.lookup import find_library
    path = Path(text)
    if "/" in text or path.suffix == ".so":
        return path.resolve()
    return find_library(text)


def _run(args: argparse.Namespace) -> int:
    import aicpu_loader
    if args.command == "build":
        built = aicpu_loader.build_kernel_library(
            args.sources, args.output, include_dirs=args.include_dirs, defines=args.defines,
            cxxflags=shlex.split(args.cxxflags), ldflags=shlex.split(args.ldflags))
        print(f"{built.path}{' (cached)' if built.from_cache else ''}")
    elif args.command == "include":
        dirs = aicpu_loader.get_include_dirs()
        print(" ".join(f"-I{d}" for d in dirs) if args.flags else "\n".join(dirs))
    elif args.command == "cflags":
        print(shlex.join(aicpu_loader.get_compile_flags()))
    elif args.command == "ldflags":
        print(shlex.join(aicpu_loader.get_link_flags()))
    elif args.command == "list":
        from aicpu_loader.worker import AicpuWorker
        worker = AicpuWorker()
        try:
            print("\n".join(worker.list_kernels(str(_library_path(args.library)))))
        finally:
            worker.close()
    elif args.command == "find":
        print(aicpu_loader.find_library(args.name))
    elif args.command == "default":
        print(aicpu_loader.default_library())
    return 0


def aicpu_main(argv: list[str]) -> int:
    """Entry of ``npusim aicpu``; returns the exit status (2 for usage errors, 1 for build/lookup failures)."""
    args = parse_command(_parser(), argv)  # --help: 0; a usage error: one line, 2
    if isinstance(args, int):
        return args
    try:
        return _run(args)
    except NpusimError as exc:
        print(f"npusim aicpu: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(aicpu_main(sys.argv[1:]))
