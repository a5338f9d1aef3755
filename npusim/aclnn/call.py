"""``call(api, args, runtime)``: one aclnn operator call (aclnnXGetWorkspaceSize + aclnnX) on the simulated device."""
from __future__ import annotations

from typing import Sequence

from npusim.aclnn.op import Invocation
from npusim.aclnn.registry import lookup
from npusim.errors.aclnn import AclnnError


def call(api: str, args: Sequence, runtime) -> None:
    """Run aclnn operator ``api`` ("aclnnMul" or "Mul") with ``args``: exactly the parameters of its
    aclnnXGetWorkspaceSize in aclnn order (inputs, attributes, outputs), without workspaceSize / executor.

    Output AclTensors are written in place (an output may be an input).  Kernels run on ``runtime.device`` (an
    :class:`npusim.sim.runtime.Runtime`) and show in ``npusim.sim.profile()``.  Raises AclnnNotFoundError for an
    API npusim does not provide, AclnnError naming the API and the argument (position and name) for a bad
    argument, AclnnUnsupportedError for a call real aclnn accepts that npusim's device cannot run.
    """
    op = lookup(api)
    if runtime is None or not hasattr(runtime, "device"):
        raise AclnnError(op.name, f"needs an npusim Runtime to run on, got {type(runtime).__name__}")
    if isinstance(args, (str, bytes)) or not hasattr(args, "__len__"):
        raise AclnnError(op.name, f"args must be a sequence of the operator's arguments, got {type(args).__name__}")
    op.run(Invocation(op, list(args), runtime))


__all__ = ["call"]
