"""``tvm.tensor`` of CANN's TVM: the tensor and operation classes, for ``isinstance`` checks in op code.

Each name stands for TVM 0.27's ``tvm.te`` class of that name (:func:`~te_compat.surface.tvm_objects.served_class`):
``isinstance(x, tvm.tensor.Tensor)`` is True for the surface tensors op code holds and for raw TVM tensors alike.
"""
from tvm import te as _te
from tvm.te import tensor as _te_tensor

from te_compat.surface.tvm_objects import served_class

ComputeOp = served_class(_te.ComputeOp, __name__)
ExternOp = served_class(_te.ExternOp, __name__)
Operation = served_class(_te_tensor.Operation, __name__)
PlaceholderOp = served_class(_te.PlaceholderOp, __name__)
ScanOp = served_class(_te.ScanOp, __name__)
Tensor = served_class(_te.Tensor, __name__)
TensorSlice = served_class(_te.TensorSlice, __name__)

__all__ = ["ComputeOp", "ExternOp", "Operation", "PlaceholderOp", "ScanOp", "Tensor", "TensorSlice"]
