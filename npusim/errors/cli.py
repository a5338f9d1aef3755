"""Errors of the ``npusim`` command line."""
from npusim.errors.base import NpusimError


class ScriptNotFoundError(NpusimError, FileNotFoundError):
    """``npusim run`` / ``npusim profile`` was given a script that does not exist (a usage error: exit status 2)."""


__all__ = ["ScriptNotFoundError"]
