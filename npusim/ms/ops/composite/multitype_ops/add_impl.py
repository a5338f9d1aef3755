"""``mindspore.ops.composite.multitype_ops.add_impl``: ``add``."""
from npusim.ms.ops.composite.multitype_ops._functions import add  # noqa: F401
