"""``mindspore.ops._grad_experimental.grad_base``: the same ``bprop_getters`` as ``mindspore.ops._grad``."""
from npusim.custom.grad_registry import bprop_getters, bprops  # noqa: F401
