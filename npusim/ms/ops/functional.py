"""``mindspore.ops.functional`` (``from mindspore.ops import functional as F``)."""
from npusim.frontend.functional import *  # noqa: F401,F403
from npusim.frontend.functional import abs, pow, sum  # noqa: F401,A004
from npusim.frontend.nn_functional import *  # noqa: F401,F403  (relu, softmax, gelu, ...)
