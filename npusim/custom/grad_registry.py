"""Where a primitive's gradient comes from: its ``get_bprop()`` method or a getter in ``bprop_getters``.

``bprop_getters`` is MindSpore's registry (``mindspore.ops._grad.grad_base.bprop_getters``)::

    @bprop_getters.register(CusSquare)          # the class, an instance's name, or the name string
    def get_bprop_cus_square(self):
        def bprop(x, out, dout):
            return (2 * x * dout,)
        return bprop
"""
from __future__ import annotations


class Registry(dict):
    """name or primitive class → bprop getter."""

    def register(self, prim):
        def decorator(getter):
            key = prim if isinstance(prim, str) else getattr(prim, "__name__", None) or prim.name
            self[key] = getter
            return getter
        return decorator


bprop_getters = Registry()
bprops = Registry()


def find_bprop(prim):
    """A zero-argument callable returning the primitive's bprop function, or None."""
    getter = bprop_getters.get(prim.name) or bprop_getters.get(type(prim).__name__)
    if getter is not None:
        return lambda: getter(prim)
    method = getattr(type(prim), "get_bprop", None)
    if method is not None:
        return lambda: method(prim)
    return None
