"""Errors of npusim's aclnn operator library (:mod:`npusim.aclnn`).

MindSpore turns every failing aclnn call into a RuntimeError ("Call aclnnX failed" / "Dlsym aclnnX failed"), so
each class here is a RuntimeError too.  Messages name the aclnn API and, for a bad argument, its position and
parameter name (``aclnnMul: argument 1 'other': ...``).
"""
from npusim.errors.base import NpusimError, UnsupportedError


class AclnnError(NpusimError, RuntimeError):
    """An aclnn call rejected by its parameter checks (kind, dtype, shape, broadcast, attribute value).

    ``api``: the aclnn name ("aclnnMul"); ``position`` / ``param``: the bad argument's index (from 0, in
    aclnnXGetWorkspaceSize's order) and parameter name
    (None when the error is not about one argument); ``cause``: the reason alone."""

    def __init__(self, api: str, cause: str, position=None, param=None):
        self.api, self.cause, self.position, self.param = api, cause, position, param
        where = "" if position is None else f" argument {position} '{param}':"
        super().__init__(f"{api}:{where} {cause}")

    def __reduce__(self):  # picklable (worker processes, pytest-xdist) despite the keyword-rich __init__
        return _rebuild, (type(self), self.api, self.cause, self.position, self.param)


class AclnnNotFoundError(AclnnError):
    """An aclnn API name npusim does not provide (the message lists close names)."""

    def __init__(self, api: str, cause: str):
        super().__init__(api, cause)


class AclnnUnsupportedError(AclnnError, UnsupportedError):
    """A call the real aclnn accepts but npusim's simulated device does not run (e.g. a dtype the op supports on
    hardware that npusim has no kernel for): also an UnsupportedError (NotImplementedError)."""


def _rebuild(cls, api, cause, position, param):
    error = cls.__new__(cls)
    AclnnError.__init__(error, api, cause, position, param)
    return error


__all__ = ["AclnnError", "AclnnNotFoundError", "AclnnUnsupportedError"]
