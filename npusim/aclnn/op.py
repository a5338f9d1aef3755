"""An aclnn operator as a table row (:class:`Op`) and one checked call of it (:class:`Invocation`)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from npusim.aclnn.params import Param, check_argument
from npusim.errors.aclnn import AclnnError, AclnnUnsupportedError


@dataclass(frozen=True)
class Op:
    """One aclnn API: ``name`` ("aclnnMul"), ``params`` (the aclnnXGetWorkspaceSize parameters in order, without
    workspaceSize/executor), ``run(inv)`` (checks what the kinds do not and launches the kernels), ``summary``
    (one line for the operator table) and ``pipe`` ("vector" or "scalar": where its kernels run)."""

    name: str
    params: tuple
    run: Callable
    summary: str = ""
    pipe: str = "vector"

    def signature(self) -> str:
        parts = [f"{p.name}: {p.kind}{'?' if p.optional else ''}{' (out)' if p.output else ''}" for p in self.params]
        return f"{self.name}({', '.join(parts)})"


class Invocation:
    """A call of ``op`` whose arguments passed their kind checks: ``inv["self"]`` is the value of parameter
    ``self``; ``inv.fail("other", cause)`` the error naming that argument; ``runtime``: where kernels run."""

    __slots__ = ("op", "api", "runtime", "values", "_index")

    def __init__(self, op: Op, args, runtime):
        self.op, self.api, self.runtime = op, op.name, runtime
        self._index = {p.name: i for i, p in enumerate(op.params)}
        if len(args) != len(op.params):
            raise AclnnError(op.name, f"takes {len(op.params)} argument(s) ({', '.join(p.name for p in op.params)}"
                                      f"; workspaceSize and executor excluded), got {len(args)}")
        self.values = {p.name: check_argument(p, v, self._failer(p)) for p, v in zip(op.params, args)}

    def _failer(self, param: Param):
        return lambda cause: AclnnError(self.api, cause, self._index[param.name], param.name)

    def __getitem__(self, name: str):
        return self.values[name]

    def fail(self, name: str, cause: str) -> AclnnError:
        """The error to raise for argument ``name``."""
        return AclnnError(self.api, cause, self._index[name], name)

    def unsupported(self, name: str, cause: str) -> AclnnUnsupportedError:
        """The error to raise for an argument the real aclnn accepts but npusim's device does not run."""
        return AclnnUnsupportedError(self.api, cause, self._index[name], name)


__all__ = ["Invocation", "Op"]
