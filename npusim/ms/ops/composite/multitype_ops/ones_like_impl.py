"""``mindspore.ops.composite.multitype_ops.ones_like_impl``: ``ones_like``."""
from npusim.ms.ops.composite.multitype_ops._functions import ones_like  # noqa: F401
