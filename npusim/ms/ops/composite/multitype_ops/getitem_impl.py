"""``mindspore.ops.composite.multitype_ops.getitem_impl``: ``getitem``."""
from npusim.ms.ops.composite.multitype_ops._functions import getitem  # noqa: F401
