"""``mindspore.ops.composite.multitype_ops.zeros_like_impl``: ``zeros_like``."""
from npusim.ms.ops.composite.multitype_ops._functions import zeros_like  # noqa: F401
