"""C++ shape/type inference of Custom aot ops on Ascend (``func="path/infer.cc:aclnnMul"``).

The file is compiled like every aot source (:mod:`npusim.aot.compile`, its cache) and loaded by
:mod:`npusim.aot.library`; its functions run through the aot bridge (``npusim.aot._bridge.InferFunctions``, with
the crash guard and an AotExtra holding the attributes):

- ``std::vector<int64_t> <name>InferShape(int *ndims, int64_t **shapes, AotExtra *extra)`` and, for an op with
  several outputs (or a dynamic one), ``std::vector<std::vector<int64_t>> <name>InferShape(...)``;
- ``TypeId <name>InferType(std::vector<TypeId> type_ids, AotExtra *extra)`` / ``std::vector<TypeId> ...``, with
  MindSpore's TypeId values (Float32 = 43 ...).

``<name>`` is the func's name as written (``aclnnMul`` or ``Mul``); when the file has no function of that spelling,
the other spelling (with / without the "aclnn" prefix) is looked up too.  The shapes are the tensor inputs' (a
tensor list's tensors one by one, as MindSpore expands it); the AotExtra holds the call's attributes and the op's
primitive attributes (``add_prim_attr``, MindSpore's way to hand values to C++ infer).  The file is compiled on the
first inference, so a func file used only for its name (a callback file that needs CANN headers) costs nothing.
"""
from __future__ import annotations

import os

import numpy as np

from npusim.aclnn import AclDataType
from npusim.aot.attrs import encode_attrs
from npusim.aot.compile import SOURCE_SUFFIXES, compile_source
from npusim.aot.library import bridge, load_library
from npusim.custom.backends.aot import LIBRARIES_CACHE, LIBRARIES_ENTRIES, VERSIONS_CACHE, VERSIONS_ENTRIES
from npusim.errors import OpTypeError, OpValueError
from npusim.frontend.tensor import Tensor

#: MindSpore TypeId value of each dtype name (from npusim.aclnn's TypeId facts)
_TYPE_ID_RANGE = range(30, 50)


def _type_ids() -> dict:
    table = {}
    for type_id in _TYPE_ID_RANGE:
        try:
            table[AclDataType.from_type_id(type_id).dtype_name] = type_id
        except ValueError:
            continue
    return table


TYPE_IDS = _type_ids()
DTYPE_OF_TYPE_ID = {type_id: name for name, type_id in TYPE_IDS.items()}


def _is_tensor_data(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_is_tensor_data(item) for item in value)
    return isinstance(value, (Tensor, np.ndarray))


def tensor_shapes(values) -> tuple[list, list]:
    """Shapes and dtype names of the tensors inside call values (a tensor list passed without reg info)."""
    shapes, dtypes = [], []
    for value in values:
        for item in (value if isinstance(value, (list, tuple)) else [value]):
            if isinstance(item, (Tensor, np.ndarray)):
                data = item._data if isinstance(item, Tensor) else item
                shapes.append(tuple(data.shape))
                dtypes.append(data.dtype.name)
    return shapes, dtypes


def encoded_attributes(op_name: str, prim_attrs: dict, names, values) -> tuple:
    """The AotExtra attributes of one inference: the primitive's attributes an AotExtra can carry (bool, int, float,
    str, lists of numbers), then the call's attributes (which win on equal names; tensors among them are inputs)."""
    call = {k: v for k, v in zip(names, values) if not _is_tensor_data(v)}
    merged = [(k, v) for k, v in (prim_attrs or {}).items() if k not in call] + list(call.items())
    encoded = []
    for name, value in merged:
        try:
            encoded.extend(encode_attrs([name], [value], op_name))
        except OpTypeError:
            if name in call:
                raise
    return tuple(encoded)


class CppInfer:
    """The infer functions of one Custom op's C++ file, loaded on first use.  ``multi``: several outputs."""

    def __init__(self, op_name: str, path: str, name: str, multi: bool, runtime):
        self.op_name, self.path, self.name, self.multi = op_name, path, name, multi
        self._runtime = runtime
        self._functions = None

    def functions(self):
        """The bridge's InferFunctions for the file (compiled and loaded now if not yet)."""
        if self._functions is None:
            library = load_library(self._library_path(), self.op_name,
                                   self._runtime.cache(LIBRARIES_CACHE, LIBRARIES_ENTRIES))
            names = [self.name]
            names.append(self.name[len("aclnn"):] if self.name.startswith("aclnn") else "aclnn" + self.name)
            shape_fn = next((f for f in (library.symbol(n + "InferShape") for n in names) if f), 0)
            type_fn = next((f for f in (library.symbol(n + "InferType") for n in names) if f), 0)
            self._functions = bridge().InferFunctions(self.op_name, library.path, self.name, shape_fn, type_fn,
                                                      library.cxx11_abi, self.multi)
        return self._functions

    def _library_path(self) -> str:
        lowered = self.path.lower()
        if lowered.endswith(SOURCE_SUFFIXES):
            versions = self._runtime.cache(VERSIONS_CACHE, VERSIONS_ENTRIES)
            return str(compile_source(self.path, versions=versions))
        if lowered.endswith(".so") or ".so." in os.path.basename(lowered):
            return self.path
        raise OpValueError(f"Custom op '{self.op_name}': the infer file must be a .cc/.cpp source or a .so "
                           f"library, but got '{self.path}'")

    def shapes(self, in_shapes, in_dtypes, attrs: tuple) -> list:
        """Output shapes from ``<name>InferShape``."""
        functions = self.functions()
        if not functions.has_infer_shape:
            kind = "std::vector<std::vector<int64_t>>" if self.multi else "std::vector<int64_t>"
            raise self._missing("out_shape", "InferShape", f'extern "C" {kind} {self.name}InferShape(int *ndims, '
                                                          f'int64_t **shapes, AotExtra *extra)')
        shapes = functions.infer_shapes([tuple(s) for s in in_shapes], list(in_dtypes), attrs)
        for shape in shapes:
            if any(extent < 0 for extent in shape):
                raise OpValueError(f"Custom op '{self.op_name}': {self.name}InferShape in '{self.path}' returned "
                                   f"the shape {list(shape)}; npusim needs static (non-negative) extents")
        return shapes

    def dtypes(self, in_dtypes, attrs: tuple) -> list:
        """Output dtype names from ``<name>InferType`` (fed and answering MindSpore TypeId values)."""
        functions = self.functions()
        if not functions.has_infer_type:
            kind = "std::vector<TypeId>" if self.multi else "TypeId"
            raise self._missing("out_dtype", "InferType", f'extern "C" {kind} {self.name}InferType('
                                                          f'std::vector<TypeId> type_ids, AotExtra *extra)')
        ids = []
        for dtype in in_dtypes:
            if dtype not in TYPE_IDS:
                raise OpTypeError(f"Custom op '{self.op_name}': an input of dtype {dtype} has no MindSpore TypeId "
                                  f"npusim knows, so {self.name}InferType cannot be called")
            ids.append(TYPE_IDS[dtype])
        result = []
        for type_id in functions.infer_types(ids, attrs):
            if type_id not in DTYPE_OF_TYPE_ID:
                raise OpValueError(f"Custom op '{self.op_name}': {self.name}InferType in '{self.path}' returned "
                                   f"TypeId {type_id}, which is no dtype npusim knows (known: "
                                   f"{sorted(DTYPE_OF_TYPE_ID.items())})")
            result.append(DTYPE_OF_TYPE_ID[type_id])
        return result

    def _missing(self, spec: str, suffix: str, declaration: str) -> OpValueError:
        return OpValueError(f"Custom op '{self.op_name}': '{spec}' is None, so it must come from "
                            f"{self.name}{suffix} in '{self.path}', which defines no such function (declare "
                            f"{declaration})")
