"""``mindspore.common.dtype`` (``from mindspore import dtype as mstype``)."""
from npusim.frontend.dtype import *  # noqa: F401,F403
from npusim.frontend.dtype import (  # noqa: F401
    Type, bool_, int_, uint, float_, number_type, int_type, uint_type, float_type, all_types, string, type_none,
    to_type, dtype_to_nptype, nptype_to_dtype, pytype_to_dtype, dtype_to_pytype,
)
