"""npusim's aclnn operator library: aclnn operators run as kernels on the simulated Ascend device.

    from npusim.aclnn import call, AclTensor, AclScalar
    call("aclnnAdd", [AclTensor(x), AclTensor(y), AclScalar(1, "float32"), AclTensor(out)], runtime)

``call(api, args, runtime)`` takes exactly the parameters of ``aclnnXGetWorkspaceSize`` in aclnn's order (inputs,
attributes, outputs; no workspaceSize / executor) and writes the output tensors' arrays in place; ``provided()``
lists the operators.  Arguments are :class:`AclTensor`, :class:`AclScalar`, :class:`AclIntArray`,
:class:`AclFloatArray`, :class:`AclBoolArray`, :class:`AclTensorList`, :class:`AclDataType` and plain bool / int /
float / str; None is a null optional tensor.  Each operator's kernels are built once per shapes, dtypes,
attributes and target (from npusim's TBE DSL for the vector unit, or as a scalar-pipe TVM compute) and every
launch shows in ``npusim profile``.
"""
from npusim.aclnn.call import call
from npusim.aclnn.dtypes import AclDataType
from npusim.aclnn.registry import lookup, operators, provided
from npusim.aclnn.types import AclBoolArray, AclFloatArray, AclIntArray, AclScalar, AclTensor, AclTensorList
from npusim.errors.aclnn import AclnnError, AclnnNotFoundError, AclnnUnsupportedError

__all__ = ["AclBoolArray", "AclDataType", "AclFloatArray", "AclIntArray", "AclScalar", "AclTensor", "AclTensorList",
           "AclnnError", "AclnnNotFoundError", "AclnnUnsupportedError", "call", "lookup", "operators", "provided"]
