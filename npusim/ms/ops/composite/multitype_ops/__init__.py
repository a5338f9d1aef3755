"""``mindspore.ops.composite.multitype_ops``: MindSpore's operator functions that take tensors or Python values
(``zeros_like(axis)`` of a float attribute is 0.0, of a Tensor a zero Tensor).  npusim provides the arithmetic,
comparison, logical, indexing and zeros/ones ones, as functions (MindSpore's are MultitypeFuncGraphs; called, they
behave alike), and the ``*_impl`` submodules its tests import them from
(``from mindspore.ops.composite.multitype_ops.zeros_like_impl import zeros_like``).  Other names raise
UnsupportedError.
"""
from npusim.ms.ops.composite.multitype_ops._functions import (  # noqa: F401
    add, sub, mul, div, truediv, floordiv, mod, pow_, negative, uadd, equal, not_equal, less, less_equal, greater,
    greater_equal, logical_and, logical_or, logical_not, getitem, zeros_like, ones_like,
)
from npusim.ms.ops.unsupported import missing_attribute

__getattr__ = missing_attribute(__name__, "add, sub, mul, div, truediv, floordiv, mod, pow_, negative, uadd, "
                                          "equal, not_equal, less, less_equal, greater, greater_equal, "
                                          "logical_and, logical_or, logical_not, getitem, zeros_like, ones_like")
