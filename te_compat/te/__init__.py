"""``te``: the 2019-2020 TBE package (``te.lang.cce``, ``te.tvm``, ``te.platform``, ``te.utils``), served by npusim's
compatibility layer from ``te_compat.te`` where the user's ``sys.path`` holds no ``te`` of its own."""
from te_compat.te import lang, platform, tvm, utils  # noqa: F401

__all__ = ["lang", "platform", "tvm", "utils"]
