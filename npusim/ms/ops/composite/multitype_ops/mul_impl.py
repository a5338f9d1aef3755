"""``mindspore.ops.composite.multitype_ops.mul_impl``: ``mul``."""
from npusim.ms.ops.composite.multitype_ops._functions import mul  # noqa: F401
