"""The ``npusim`` command: ``npusim run SCRIPT [ARGS...]`` and the other subcommands.

Subcommands are "module:function" strings taking argv and returning an exit status, imported only when used.
Exit statuses: what the script or subcommand returns; 2 for a usage error (one line on stderr, no traceback);
1 for a script's uncaught exception (its traceback starts at the script's own frame, as with ``python SCRIPT``).
"""
from __future__ import annotations

import argparse
import importlib
import sys
import traceback

SUBCOMMANDS = {
    "run": ("npusim.cli:run_main", "run an unmodified MindSpore script: npusim run SCRIPT [ARGS...]"),
    "chips": ("npusim.sim_cli:chips_main", "list the simulated Ascend chips"),
    "profile": ("npusim.sim_cli:profile_main", "run a script and report what each NPU kernel costs"),
    "aicpu": ("npusim.aicpu_cli:aicpu_main", "build AICPU kernel libraries and show include/link flags"),
    "optest": ("npusim.optest_cli:optest_main", "run op test case files (CANN msopst JSON) on the simulator"),
}
#: the exit status of a usage error (as argparse and most Unix tools)
USAGE_STATUS = 2
RUN_USAGE = "usage: npusim run [--mindspore {npusim,real}] [--] SCRIPT [ARGS...]"
#: ``--mindspore``: npusim's own MindSpore front end (default) or a real MindSpore install (npusim.bridge)
MINDSPORE_CHOICES = ("npusim", "real")


class CommandParser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line on stderr (``PROG: MESSAGE (see PROG --help)``) and exit
    status 2; ``--help`` prints the full help and exits 0, as argparse does."""

    def error(self, message: str):
        self.exit(USAGE_STATUS, f"{self.prog}: {' '.join(message.split())} (see {self.prog} --help)\n")


def usage_error(prog: str, message: str) -> int:
    """Print the one-line usage error ``PROG: MESSAGE`` on stderr; returns the usage exit status 2."""
    print(f"{prog}: {message}", file=sys.stderr)
    return USAGE_STATUS


def exit_status(exc: SystemExit) -> int:
    """The exit status a SystemExit stands for (None: 0; a non-integer is printed on stderr and gives 1)."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def parse_command(parser: argparse.ArgumentParser, argv: list):
    """``parser.parse_args(argv)``, or the exit status of ``--help`` (0) or of a usage error (2; a
    :class:`CommandParser` prints it in one line)."""
    try:
        return parser.parse_args(argv)
    except SystemExit as exc:
        return exit_status(exc)


def _usage() -> str:
    lines = ["usage: npusim COMMAND [ARGS...]", "", "commands:"]
    lines += [f"  {name:<8} {help_text}" for name, (_, help_text) in SUBCOMMANDS.items()]
    lines += ["", "npusim COMMAND --help shows a command's options; npusim --version its version."]
    return "\n".join(lines)


def run_main(argv: list[str]) -> int:
    """``npusim run [--] SCRIPT [ARGS...]``: run SCRIPT as ``python SCRIPT ARGS`` would, with ``mindspore`` (and
    te / tbe / topi / impl) served by npusim."""
    if argv and argv[0] in ("-h", "--help"):
        print(f"{RUN_USAGE}\nRuns SCRIPT like `python SCRIPT ARGS` with `mindspore` served by npusim; "
              f"everything after SCRIPT is the script's own arguments.")
        return 0
    choice, argv = _mindspore_option(argv)
    if choice not in MINDSPORE_CHOICES:
        return usage_error("npusim run", f"--mindspore takes one of {', '.join(MINDSPORE_CHOICES)}, got {choice!r}")
    if argv and argv[0] == "--":
        argv = argv[1:]
    elif argv and argv[0].startswith("-"):
        return usage_error("npusim run", f"unknown option {argv[0]!r} ({RUN_USAGE})")
    if not argv:
        return usage_error("npusim run", f"no script given ({RUN_USAGE})")
    if choice == "real" and use_real_mindspore("npusim run"):
        return 1
    from npusim.runner import ScriptNotFoundError, run_script
    try:
        return run_script(argv[0], argv[1:])
    except ScriptNotFoundError as exc:
        return usage_error("npusim run", str(exc))


def _mindspore_option(argv: list) -> tuple:
    """A leading ``--mindspore CHOICE`` / ``--mindspore=CHOICE`` split off: (choice or None if absent, rest)."""
    if argv and argv[0].startswith("--mindspore="):
        return argv[0].partition("=")[2], argv[1:]
    if argv and argv[0] == "--mindspore":
        return (argv[1] if len(argv) > 1 else None), argv[2:]
    return "npusim", argv


def use_real_mindspore(prog: str) -> bool:
    """Switch npusim's real-MindSpore bridge on (``--mindspore real``); False on success, True after printing why
    it cannot (no MindSpore installed, npusim's front end already imported)."""
    from npusim.errors import BridgeError
    try:
        import npusim.bridge  # noqa: F401  (switches the bridge on)
    except BridgeError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return True
    return False


def _checkout_problem() -> str | None:
    """The advice when npusim runs from an unbuilt source checkout while an installed npusim exists (what
    ``python -m npusim`` in a checkout's root after ``pip install .`` does), else None."""
    from npusim.util.checkout import inspect_checkout, unbuilt_advice
    state = inspect_checkout()
    return unbuilt_advice(state) if state.shadows_installed_copy else None


def main(argv: list[str] | None = None) -> int:
    """Entry of the ``npusim`` command; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        return usage_error("npusim", f"no command given (commands: {', '.join(SUBCOMMANDS)}; see npusim --help)")
    if argv[0] in ("-h", "--help") or argv == ["help"]:
        print(_usage())
        return 0
    if argv[0] == "help":                       # npusim help COMMAND == npusim COMMAND --help
        argv = [argv[1], "--help"]
    if argv[0] in ("-V", "--version"):
        from npusim import __version__
        print(f"npusim {__version__}")
        return 0
    entry = SUBCOMMANDS.get(argv[0])
    if entry is None:
        return usage_error("npusim", f"unknown command {argv[0]!r} (commands: {', '.join(SUBCOMMANDS)}; see "
                                     f"npusim --help)")
    problem = _checkout_problem()
    if problem is not None:
        print(f"npusim: {problem}", file=sys.stderr)
        return 1
    module_name, func_name = entry[0].split(":")
    try:
        func = getattr(importlib.import_module(module_name), func_name)
    except (ImportError, AttributeError):
        print(f"npusim: the '{argv[0]}' command is not available in this build", file=sys.stderr)
        return 1
    try:
        return func(argv[1:]) or 0
    except SystemExit as exc:                 # argparse's --help (0) and usage errors (2)
        return exit_status(exc)
    except KeyboardInterrupt:
        return 130
    except Exception:  # a failure of npusim itself (a script's own exceptions are reported by the runner)
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
