"""``mindspore.ops._grad.grad_base``: ``bprop_getters`` for user primitives."""
from npusim.custom.grad_registry import bprop_getters, bprops  # noqa: F401
