"""``mindspore.ops.composite.multitype_ops.sub_impl``: ``sub``."""
from npusim.ms.ops.composite.multitype_ops._functions import sub  # noqa: F401
