"""Errors of ``npusim optest`` (op test case files in CANN's msopst form, see :mod:`npusim.optest`)."""
from npusim.errors.base import NpusimError, OpValueError


class OptestError(NpusimError):
    """Root of the op-test errors."""


class CaseFileError(OptestError, OpValueError):
    """A case file (or one case in it) is not a valid msopst case: names the file, the case and the field."""


class ImplNotFoundError(OptestError, LookupError):
    """No implementation of a case's op type was found (TBE impl package, AICPU library); lists where it looked."""


class ExpectFuncError(OptestError, RuntimeError):
    """The case's ``calc_expect_func_file`` could not be loaded, raised, or returned the wrong outputs."""


class RayUnavailableError(OptestError, RuntimeError):
    """``--ray`` was asked for but Ray is not installed or the cluster cannot be reached."""


__all__ = ["CaseFileError", "ExpectFuncError", "ImplNotFoundError", "OptestError", "RayUnavailableError"]
