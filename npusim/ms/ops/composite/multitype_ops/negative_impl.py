"""``mindspore.ops.composite.multitype_ops.negative_impl``: ``negative``."""
from npusim.ms.ops.composite.multitype_ops._functions import negative  # noqa: F401
