"""Errors of the Hybrid DSL (``@kernel`` functions, func_type "hybrid"/"akg").

MindSpore reports DSL misuse as TypeError or ValueError; the classes here keep those builtins as bases.
HybridSyntaxError (TypeError) and HybridNameError (ValueError) live in :mod:`npusim.errors.frontend`.
"""
from npusim.errors.base import OpValueError


class HybridValueError(OpValueError):
    """A hybrid function breaks a DSL rule MindSpore reports as ValueError (bad attribute, iter var overwritten,
    tensor redefined, a shape that is not a compile-time constant ...)."""
