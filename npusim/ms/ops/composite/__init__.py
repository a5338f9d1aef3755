"""``mindspore.ops.composite`` (``C.GradOperation``, ``C.zeros_like``; ``multitype_ops`` below)."""
from npusim.frontend.grad import GradOperation  # noqa: F401
from npusim.ms.ops.composite import multitype_ops  # noqa: F401
from npusim.ms.ops.composite.multitype_ops import zeros_like, ones_like  # noqa: F401
