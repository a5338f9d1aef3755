"""Running a user's script as ``python SCRIPT ARGS`` would, with the compatibility layer on."""
from __future__ import annotations

import builtins
import io
import os
import runpy
import sys
import types
import zipfile

from npusim.errors import ScriptNotFoundError


def run_script(path: str, argv: list[str]) -> int:
    """Run ``path`` as ``__main__`` with ``sys.argv == [path, *argv]``; return the exit status.

    The compatibility layer (:mod:`npusim.compat`: the old-Python shims and the ``mindspore`` / ``te`` / ``tbe`` /
    ``topi`` / ``impl`` aliases) is switched on first and left on.  The script's directory is first on ``sys.path``
    (as with ``python SCRIPT``), so the script's own ``impl`` / ``te`` ... modules win over npusim's.  As with
    Python: ``SystemExit`` gives the status; any other exception the script lets escape is reported through
    ``sys.excepthook`` with a traceback that starts at the script's own frame (npusim's runner frames are left
    out), and gives status 1 (130 for KeyboardInterrupt).  ScriptNotFoundError if ``path`` does not exist.
    """
    from npusim.compat import install
    install()
    if not os.path.exists(path):
        raise ScriptNotFoundError(f"no such script: {path}")
    old_argv = sys.argv
    sys.argv = [path, *argv]
    script_dir = os.path.dirname(os.path.abspath(path))
    sys.path.insert(0, script_dir)
    try:
        _run_main(path)
    except SystemExit as exc:
        return _exit_status(exc.code)
    except BaseException as exc:  # the script's own exception: report it as Python would
        report_script_exception(exc)
        return 130 if isinstance(exc, KeyboardInterrupt) else 1
    finally:
        sys.argv = old_argv
        if sys.path and sys.path[0] == script_dir:
            sys.path.pop(0)
    return 0


def _run_main(path: str) -> None:
    """Execute the script ``path`` as ``__main__``, as ``python SCRIPT`` does: ``sys.argv[0]`` stays as given while
    ``__file__`` and the code's file name are absolute (Python >= 3.9).  A directory or zip file with a
    ``__main__.py``, or a compiled ``.pyc``, is run by :func:`runpy.run_path`."""
    if not os.path.isfile(path) or path.endswith(".pyc") or zipfile.is_zipfile(path):
        runpy.run_path(path, run_name="__main__")
        return
    script = os.path.abspath(path)
    with io.open_code(script) as handle:
        code = compile(handle.read(), script, "exec", dont_inherit=True)
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=script, __cached__=None, __loader__=None, __package__=None, __spec__=None,
                         __builtins__=builtins)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(code, main.__dict__)
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _exit_status(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


#: the files of the frames that run a script (this module's and runpy's), left out of a script's traceback
RUNNER_FILES = frozenset({__file__, os.path.abspath(__file__), runpy.__file__, "<frozen runpy>"})


def script_traceback(exc: BaseException):
    """``exc``'s traceback without its leading frames of npusim's runner and runpy: it starts at the script's own
    frame, as with ``python SCRIPT`` (None when the script never ran: a SyntaxError while compiling it)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename in RUNNER_FILES:
        tb = tb.tb_next
    return tb


def report_script_exception(exc: BaseException) -> None:
    """Print ``exc`` (escaped from a script) through ``sys.excepthook``, its traceback starting at the script's
    frame."""
    tb = script_traceback(exc)
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)
