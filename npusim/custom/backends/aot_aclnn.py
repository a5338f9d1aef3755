"""``ops.Custom(func_type="aot")`` on Ascend naming an aclnn operator: MindSpore 2.3–2.6's route to Ascend C /
aclnn operators, run by npusim's aclnn library (:mod:`npusim.aclnn`) on the simulated device.

The func forms (``"aclnnMul"``, ``"Mul"``, ``"path/infer.cc:aclnnMul"``, the aclop form) are parsed by
:mod:`~npusim.custom.backends.aot_aclnn_func`; :class:`npusim.custom.backends.aot.AotBackend` hands ops on Ascend
whose func names an operator to this backend.  Per call, the inputs (read in place), the attributes and freshly
allocated outputs become the operator's arguments in aclnn order (:mod:`~npusim.custom.backends.aot_aclnn_args`)
and ``npusim.aclnn.call`` runs it; its errors come back naming the Custom op and the aclnn API.  Output shapes and
dtypes come from out_shape / out_dtype or from the func's C++ infer file
(:mod:`~npusim.custom.backends.aot_aclnn_infer`).

As on MindSpore, the reg info's dtype_format rows do not select a kernel here (the aclnn operator decides what it
accepts), and out_shape / out_dtype functions get a reg-info ``dynamic`` input (a tensor list) as one list of
shapes / dtypes.  GRAPH_MODE and PYNATIVE_MODE both run the operator eagerly; ``bprop`` works as for every Custom op.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from npusim.aclnn import AclnnError, call
from npusim.custom.backends.aot_aclnn_args import AclnnCall, grouped
from npusim.custom.backends.aot_aclnn_func import parse
from npusim.custom.backends.aot_aclnn_infer import CppInfer, encoded_attributes, tensor_shapes
from npusim.custom.backends.base import Backend, CallAttrs, OpDesc
from npusim.custom.reg_info import DYNAMIC, param_type
from npusim.errors import AclnnCustomOpError, OpValueError
from npusim.frontend import dtype as mstype
from npusim.frontend.tensor import Tensor


class AclnnAotBackend(Backend):
    """Runs one aclnn operator per call; see the module docstring."""

    can_infer = True
    needs_runtime = True
    #: Custom skips dtype_format selection for this backend (MindSpore runs aclnn Custom ops whatever the rows say)
    selects_rows = False

    def __init__(self, desc: OpDesc, runtime=None):
        super().__init__(desc, runtime)
        self.func = parse(desc.func, desc.name)
        self.api = self.func.api
        self.layout = AclnnCall(desc.name, self.func.op, desc.reg_info)
        multi = _multi_output(desc.reg_info, self.func.op)
        self._infer = (CppInfer(desc.name, self.func.infer_path, self.func.name, multi, self.runtime)
                       if self.func.infer_path else None)
        self._prim_attrs: dict = {}
        self._given = (False, False)  # whether the op has its own out_shape / out_dtype
        entries = (desc.reg_info or {}).get("inputs") or []
        self._dynamic_inputs = entries if any(param_type(e) == DYNAMIC for e in entries) else None

    # ---- hooks ops.Custom calls ---------------------------------------------------------------------------------
    def attach(self, op) -> None:
        """Called by ops.Custom once built: its primitive attributes (live: add_prim_attr reaches C++ infer) and
        which of out_shape / out_dtype it has."""
        self._prim_attrs = op.attrs
        self._given = (op.out_shape is not None, op.out_dtype is not None)

    def out_spec_args(self, shape_args: list, dtype_args: list, attr_args: tuple):
        """The arguments of out_shape / out_dtype functions, as MindSpore passes them: a dynamic input's (or a
        tensor-list argument's) shapes / dtypes as one list, other attribute arguments as they are."""
        if self._dynamic_inputs is not None:
            shape_args = grouped(self.desc.name, self._dynamic_inputs, shape_args)
            dtype_args = grouped(self.desc.name, self._dynamic_inputs, dtype_args)
        shapes, dtypes = list(shape_args), list(dtype_args)
        for value in attr_args:
            if isinstance(value, (list, tuple)) and value and all(isinstance(v, Tensor) for v in value):
                shapes.append([list(v.shape) for v in value])
                dtypes.append([mstype.to_type(v._data.dtype) for v in value])
            else:
                shapes.append(value)
                dtypes.append(value)
        return shapes, dtypes, ()

    # ---- Backend contract ---------------------------------------------------------------------------------------
    def infer(self, in_shapes: Sequence[tuple], in_dtypes: Sequence[str],
              attrs: CallAttrs) -> tuple[list[tuple], list[str]]:
        """Output shapes / dtypes from the func's C++ infer file (only the ones the op does not give itself)."""
        if self._infer is None:
            missing = " and ".join(n for n, given in zip(("out_shape", "out_dtype"), self._given) if not given)
            raise OpValueError(
                f"Custom op '{self.desc.name}' (func_type='aot', {self.api} on Ascend): {missing or 'out_shape'} "
                f"is None, so the outputs must be inferred in C++: give func as 'path/infer.cc:{self.func.name}' "
                f"with {self.func.name}InferShape / {self.func.name}InferType, or pass out_shape and out_dtype")
        extra_shapes, extra_dtypes = tensor_shapes(attrs.values)
        shapes_in, dtypes_in = list(in_shapes) + extra_shapes, [str(d) for d in in_dtypes] + extra_dtypes
        encoded = encoded_attributes(self.desc.name, self._prim_attrs, attrs.names, attrs.values)
        shapes = None if self._given[0] else self._infer.shapes(shapes_in, dtypes_in, encoded)
        dtypes = None if self._given[1] else self._infer.dtypes(dtypes_in, encoded)
        count = len(shapes if shapes is not None else dtypes)
        # the part the op gives itself is not used by ops.Custom: fill it with neutral values of the right count
        return (shapes if shapes is not None else [()] * count,
                dtypes if dtypes is not None else [dtypes_in[0] if dtypes_in else "float32"] * count)

    def launch(self, inputs: list[np.ndarray], attrs: CallAttrs,
               out_shapes: list[tuple], out_dtypes: list[str], runtime=None) -> list[np.ndarray]:
        """Run the operator on ``inputs`` (read in place) into fresh outputs of these shapes and dtypes."""
        outputs = [np.empty(tuple(shape), dtype=np.dtype(dtype)) for shape, dtype in zip(out_shapes, out_dtypes)]
        arguments = self.layout.arguments(self.layout.values(inputs, attrs.values), outputs)
        try:
            call(self.api, arguments, runtime if runtime is not None else self.runtime)
        except AclnnCustomOpError:
            raise
        except AclnnError as error:
            raise AclnnCustomOpError.wrapping(self.desc.name, error) from error
        return outputs


def _multi_output(reg_info, op) -> bool:
    """Whether the op has several outputs or a dynamic one (then C++ infer returns one entry per output): the reg
    info says so when it declares outputs, else the aclnn operator's output parameters."""
    outputs = (reg_info or {}).get("outputs") or []
    if outputs:
        return len(outputs) > 1 or any(param_type(e) == DYNAMIC for e in outputs)
    out_params = [p for p in op.params if p.output]
    return len(out_params) > 1 or any(p.kind == "tensor_list" for p in out_params)
