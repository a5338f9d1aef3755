"""Errors of ``ops.Custom(func_type="aot")`` on Ascend naming aclnn operators (npusim.custom.backends.aot_aclnn).

Each class is an :class:`~npusim.errors.aclnn.AclnnError` (a RuntimeError, as MindSpore's failing aclnn calls are)
whose message names the Custom op first and then the aclnn API (and the argument, when one is at fault).
"""
from npusim.errors.aclnn import AclnnError, AclnnNotFoundError


def _custom_message(op_name: str, api: str, cause: str, position=None, param=None) -> str:
    where = "" if position is None else f" argument {position} '{param}':"
    return f"Custom op '{op_name}' (func_type='aot' on Ascend) calls {api}:{where} {cause}"


class AclnnCustomOpError(AclnnError):
    """A Custom aot op whose aclnn call cannot be made or was rejected.

    ``op_name``: the Custom op's name (its func string); ``api``, ``cause``, ``position``, ``param``: as in
    AclnnError (``position`` counts the aclnn parameters, inputs then attributes then outputs)."""

    def __init__(self, op_name: str, api: str, cause: str, position=None, param=None):
        super().__init__(api, cause, position, param)
        self.op_name = op_name
        self.args = (_custom_message(op_name, api, cause, position, param),)

    @classmethod
    def wrapping(cls, op_name: str, error: AclnnError) -> "AclnnCustomOpError":
        """The error for ``error`` raised by npusim.aclnn while running the Custom op ``op_name``."""
        return cls(op_name, error.api, error.cause, error.position, error.param)


class AclnnCustomNotFoundError(AclnnNotFoundError):
    """A Custom aot op on Ascend whose func names an operator npusim does not provide (neither an aclnn operator
    nor an aclop it maps to one): the message names the func, the names tried and close names."""

    def __init__(self, op_name: str, api: str, cause: str):
        super().__init__(api, cause)
        self.op_name = op_name
        self.args = (f"Custom op '{op_name}' (func_type='aot' on Ascend): {cause}",)


__all__ = ["AclnnCustomNotFoundError", "AclnnCustomOpError"]
