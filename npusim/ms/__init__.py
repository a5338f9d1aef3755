"""npusim's MindSpore-compatible package.  Importable as ``mindspore`` once the compatibility layer is on
(``npusim run script.py``, ``import npusim.compat``, or the pytest plugin)."""
from npusim.frontend.dtype import (  # noqa: F401
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, float32, float64, complex64,
    complex128, int_, uint, float_, half, single, double, dtype_to_nptype, pytype_to_dtype, dtype_to_pytype,
)
from npusim.frontend.tensor import Tensor  # noqa: F401
from npusim.frontend.parameter import Parameter, ParameterTuple  # noqa: F401
from npusim.frontend.context import (  # noqa: F401
    GRAPH_MODE, PYNATIVE_MODE, set_context, get_context, set_device, ParallelMode, set_auto_parallel_context,
)
from npusim.frontend.grad import grad, value_and_grad  # noqa: F401
from npusim.ms.common import dtype  # noqa: F401
from npusim.ms import common, context, nn, ops  # noqa: F401
from npusim.ms.jit import jit, ms_function, set_seed, get_seed  # noqa: F401

#: the MindSpore release whose Python surface this package matches: ops.Custom, its registration API and the
#: front end as MindSpore 2.6 has them (scripts written for 1.6 - 2.5 run too; see README "Running MindSpore scripts")
__version__ = "2.6.0"
