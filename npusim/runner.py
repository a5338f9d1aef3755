"""Running a user's script as ``python SCRIPT ARGS`` would, with the compatibility layer on."""
from __future__ import annotations

import os
import runpy
import sys


def run_script(path: str, argv: list[str]) -> int:
    """Run ``path`` as ``__main__`` with ``sys.argv == [path, *argv]``; return the exit status.

    The compatibility layer (:mod:`npusim.compat`: the old-Python shims and the ``mindspore`` / ``te`` / ``tbe`` /
    ``topi`` / ``impl`` aliases) is switched on first and left on.  The script's directory is first on ``sys.path``
    (as with ``python SCRIPT``), so the script's own ``impl`` / ``te`` ... modules win over npusim's.  ``SystemExit``
    gives the status; any other exception propagates to the caller with its traceback intact.
    """
    from npusim.compat import install
    install()
    if not os.path.exists(path):
        raise FileNotFoundError(f"npusim run: no such script: {path}")
    old_argv, old_path0 = sys.argv, sys.path[0] if sys.path else None
    sys.argv = [path, *argv]
    script_dir = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, script_dir)
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    finally:
        sys.argv = old_argv
        if sys.path and sys.path[0] == script_dir:
            sys.path.pop(0)
    return 0
