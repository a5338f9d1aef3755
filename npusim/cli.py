"""The ``npusim`` command: ``npusim run SCRIPT [ARGS...]`` and the other subcommands.

Subcommands are "module:function" strings taking argv and returning an exit status, imported only when used.
"""
from __future__ import annotations

import importlib
import sys
import traceback

SUBCOMMANDS = {
    "run": ("npusim.cli:run_main", "run an unmodified MindSpore script: npusim run SCRIPT [ARGS...]"),
    "chips": ("npusim.sim_cli:chips_main", "list the simulated Ascend chips"),
    "profile": ("npusim.sim_cli:profile_main", "run a script and report what each NPU kernel costs"),
    "aicpu": ("npusim.aicpu_cli:aicpu_main", "build AICPU kernel libraries and show include/link flags"),
}


def _usage() -> str:
    lines = ["usage: npusim COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<8} {help_text}" for name, (_, help_text) in SUBCOMMANDS.items()]
    return "\n".join(lines)


def run_main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: npusim run SCRIPT [ARGS...]\nRuns SCRIPT like `python SCRIPT ARGS` with `mindspore` "
              "served by npusim.", file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    from npusim.runner import run_script
    try:
        return run_script(argv[0], argv[1:])
    except FileNotFoundError as exc:
        if exc.filename is None and str(exc).startswith("npusim run:"):
            print(exc, file=sys.stderr)
            return 2
        raise


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(_usage())
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        from npusim import __version__
        print(f"npusim {__version__}")
        return 0
    entry = SUBCOMMANDS.get(argv[0])
    if entry is None:
        print(f"npusim: unknown command {argv[0]!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, func_name = entry[0].split(":")
    try:
        func = getattr(importlib.import_module(module_name), func_name)
    except (ImportError, AttributeError):
        print(f"npusim: the '{argv[0]}' command is not available in this build", file=sys.stderr)
        return 2
    try:
        return func(argv[1:]) or 0
    except KeyboardInterrupt:
        return 130
    except BaseException:  # a script's uncaught exception: print it as Python would, exit 1
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
