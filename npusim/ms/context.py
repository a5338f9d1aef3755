"""``mindspore.context``."""
from npusim.frontend.context import (  # noqa: F401
    GRAPH_MODE, PYNATIVE_MODE, set_context, get_context, set_device, ParallelMode, set_auto_parallel_context,
    reset_auto_parallel_context,
)
