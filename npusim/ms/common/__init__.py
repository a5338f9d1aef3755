"""``mindspore.common``."""
from npusim.ms.common import dtype  # noqa: F401
from npusim.frontend.tensor import Tensor  # noqa: F401
from npusim.frontend.parameter import Parameter, ParameterTuple  # noqa: F401
from npusim.frontend.dtype import *  # noqa: F401,F403
from npusim.frontend.dtype import bool_  # noqa: F401
