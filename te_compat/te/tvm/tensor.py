"""``tvm.tensor`` of CANN's TVM: the tensor and operation classes (TVM 0.27's ``tvm.te`` classes)."""
from tvm.te import ComputeOp, ExternOp, PlaceholderOp, ScanOp, Tensor, TensorSlice  # noqa: F401
from tvm.te.tensor import Operation  # noqa: F401

__all__ = ["ComputeOp", "ExternOp", "Operation", "PlaceholderOp", "ScanOp", "Tensor", "TensorSlice"]
