"""``mindspore.ops.composite`` (``C.GradOperation``)."""
from npusim.frontend.grad import GradOperation  # noqa: F401
