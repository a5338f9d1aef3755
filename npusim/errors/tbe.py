"""Errors of the TBE DSL layer (te_compat): argument checks, scheduling, building, launching.

TBE itself raises RuntimeError for most argument-check failures (para_check, op_utils) and TypeError/ValueError in a
few DSL functions; each class here inherits the builtin the original raises, so user code catching it still works.
"""
from npusim.errors.base import KernelBuildError, KernelRuntimeError, OpTypeError, OpValueError, UnsupportedError


class TbeError(Exception):
    """Marker base of every TBE DSL error (mixed into the concrete classes below)."""


class TbeArgumentError(TbeError, OpValueError, RuntimeError):
    """A DSL call or a para_check/op_utils check rejects an argument (shape, axis, dtype, kernel name ...)."""


class TbeDtypeError(TbeArgumentError):
    """An unknown dtype name given to the TVM API (``tvm.placeholder``, ``tvm.const``, ``tvm.var`` ...): a
    RuntimeError as CANN's TVM raises (its TVMError), and a ValueError as TVM 0.27 raises."""


class TbeTypeError(TbeError, OpTypeError):
    """An argument of the wrong kind (a tensor where a scalar is expected, a scalar of the wrong Python type ...)."""


class TbeScheduleError(TbeError, KernelBuildError):
    """auto_schedule cannot lower a graph to the simulated AI core (e.g. one row of a reduce exceeds UB)."""


class TbeBuildError(TbeError, KernelBuildError):
    """cce_build_code / tbe.dsl.build was given a bad config or cannot write kernel_meta."""


class TbeLaunchError(TbeError, KernelRuntimeError):
    """A built TBE kernel cannot be launched with the given arrays (missing kernel_meta, count or shape mismatch)."""


class TikUnsupportedError(TbeError, UnsupportedError, ImportError):
    """``tik`` was imported: npusim does not provide TIK yet (an ImportError too, for
    ``try: ... except ImportError``)."""


__all__ = ["TikUnsupportedError", "TbeError", "TbeArgumentError", "TbeDtypeError", "TbeTypeError", "TbeScheduleError", "TbeBuildError",
           "TbeLaunchError"]
