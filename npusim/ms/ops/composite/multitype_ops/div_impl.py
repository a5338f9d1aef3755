"""``mindspore.ops.composite.multitype_ops.div_impl``: ``div``."""
from npusim.ms.ops.composite.multitype_ops._functions import div  # noqa: F401
