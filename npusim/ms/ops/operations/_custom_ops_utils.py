"""``mindspore.ops.operations._custom_ops_utils``: registration info and aclnn callback code for Custom aot ops on
Ascend (:class:`CustomInfoGenerator`, :class:`CustomCodeGenerator`).

MindSpore reads these facts from a CANN installation: the aclnn header ``aclnn_<op>.h`` (the parameter types of
``aclnn<Op>GetWorkspaceSize``) and the operator-information JSON ``aic-<soc>-ops-info.json`` (the GE operator's
inputs, outputs, attributes and dtype/format rows), searched in ``$ASCEND_CUSTOM_OPP_PATH`` (each entry's
``op_api/include`` and ``op_impl/ai_core/tbe/config/<soc>``), the vendors of ``$ASCEND_OPP_PATH/vendors/config.ini``
(load_priority order), then ``$ASCEND_OPP_PATH/../include/aclnnop`` and ``$ASCEND_OPP_PATH/built-in``.  npusim
searches the same files when they exist (a custom operator package, a CANN tree); without them it answers from its
own aclnn operator facts (:func:`npusim.aclnn.lookup`: parameter kinds, names and accepted dtypes).  Those give the
aclnn API types exactly, and a reg info that describes the aclnn operator: aclnn parameter names (``self``,
``other``, ``out``) rather than the GE operator's (``x1``, ``x2``, ``y``), its scalar parameters as attributes
(``alpha``: "number"), and one dtype_format row per dtype the first input accepts.
"""
from __future__ import annotations

import json
import os
import re
import warnings

from npusim.aclnn import AclnnNotFoundError, lookup
from npusim.custom.reg_info import CustomRegOp

PREFIX = "aclnn"
#: C type of each npusim.aclnn parameter kind, as aclnn headers spell it (pointers without spaces)
C_TYPES = {"tensor": "aclTensor*", "scalar": "aclScalar*", "int_array": "aclIntArray*",
           "float_array": "aclFloatArray*", "bool_array": "aclBoolArray*", "tensor_list": "aclTensorList*",
           "dtype": "aclDataType", "bool": "bool", "int": "int64_t", "double": "double", "str": "char*"}
#: reg-info attribute type of each non-tensor npusim.aclnn parameter kind (the types CustomCodeGenerator maps back)
ATTR_TYPES = {"scalar": "number", "int": "int", "double": "double", "bool": "bool", "int_array": "listInt",
              "float_array": "listFloat", "bool_array": "listBool", "dtype": "int", "str": "str"}
WORKSPACE_TYPES = ["uint64_t*", "aclOpExecutor**"]


class CustomCodeGenerator:
    """Generates the C++ ``<func>GetWorkSpaceSize`` callback MindSpore compiles for an aclnn Custom op: it casts
    the framework's ``void*`` inputs and outputs to the aclnn parameter types and calls the API's
    ``GetWorkspaceSize`` function through a pointer.  (npusim calls its aclnn operators directly and needs no
    callback; the generator serves scripts and tests that produce or inspect it.)"""

    def __init__(self):
        self.header = "\n".join(["#include <vector>", '#include "acl/acl_base.h"', ""] + [
            f"typedef struct {name} {name};" for name in (
                "aclOpExecutor", "aclTensor", "aclScalar", "aclIntArray", "aclFloatArray", "aclBoolArray",
                "aclTensorList", "aclScalarList")])
        self.supported_input_scalar_type = ["int64_t", "uint64_t", "float", "double", "bool", "aclDataType"]
        self.supported_input_pointer_type = ["aclTensor*", "aclScalar*", "aclIntArray*", "aclFloatArray*",
                                             "aclBoolArray*", "aclTensorList*"]
        self.supported_input_type = self.supported_input_pointer_type + self.supported_input_scalar_type
        self.supported_output_type = ["aclTensor*", "aclTensorList*"]

    @staticmethod
    def _get_type_declaration(typ):
        """The C++ type of a reg-info attribute type; RuntimeError for one without a C++ counterpart."""
        declarations = {"tensor": "aclTensor*", "int": "int64_t", "float": "float", "double": "double",
                        "bool": "bool", "number": "aclScalar*", "listInt": "aclIntArray*",
                        "listBool": "aclBoolArray*", "listFloat": "aclFloatArray*"}
        if typ not in declarations:
            raise RuntimeError(f"Unsupported type: {typ}")
        return declarations[typ]

    def _get_input_output_types(self, reg_info):
        """(input + attribute C types, output C types) of a reg info; a dynamic input/output is a tensor list."""
        def tensor_type(entry):
            return "aclTensorList*" if entry.get("paramType") == "dynamic" else "aclTensor*"
        inputs = [tensor_type(entry) for entry in reg_info.get("inputs", [])]
        inputs += [self._get_type_declaration(attr.get("type")) for attr in reg_info.get("attr", [])]
        return inputs, [tensor_type(entry) for entry in reg_info.get("outputs", [])]

    def get_api_types_by_reg_info(self, reg_info):
        """The aclnn API's parameter types as the reg info implies them (workspace size and executor included)."""
        inputs, outputs = self._get_input_output_types(reg_info)
        return inputs + outputs + list(WORKSPACE_TYPES)

    def generate_callback_by_reg_info(self, func_name, reg_info):
        """The callback source for ``func_name`` with the types the reg info implies."""
        inputs, outputs = self._get_input_output_types(reg_info)
        return self._generate_callback(func_name, inputs, outputs)

    def generate_callback_by_types(self, func_name, reg_info, input_output_types):
        """The callback source with the aclnn API's own types (``input_output_types``, workspace pair last); the
        reg info gives the split into inputs and outputs.  RuntimeError when the counts differ; a warning for each
        position whose reg-info type differs from the API's."""
        inputs, outputs = self._get_input_output_types(reg_info)
        expected = len(inputs) + len(outputs) + 2
        if expected != len(input_output_types):
            raise RuntimeError(f"Reg info input size: {expected} is not equal to aclnn api input size "
                               f"{len(input_output_types)}")
        for position, (declared, actual) in enumerate(zip(inputs + outputs, input_output_types)):
            if declared != actual:
                warnings.warn(f"Reg info type {declared} is not same with function prototype {actual} "
                              f"(parameter {position})")
        count = len(inputs)
        return self._generate_callback(func_name, list(input_output_types[:count]),
                                       list(input_output_types[count:count + len(outputs)]))

    def _generate_callback_inputs(self, inputs_types):
        lines = []
        for index, typ in enumerate(inputs_types):
            if typ not in self.supported_input_type:
                raise RuntimeError(f"Unsupported input type: {typ}, supported input types are: "
                                   f"{self.supported_input_type}")
            cast = typ + "*" if typ in self.supported_input_scalar_type else typ
            lines.append(f"  {cast} input{index} = static_cast<{cast}>(inputs[{index}])")
        return lines

    def _generate_callback_outputs(self, outputs_types):
        lines = []
        for index, typ in enumerate(outputs_types):
            if typ not in self.supported_output_type:
                raise RuntimeError(f"Unsupported output type: {typ}, supported output types are: "
                                   f"{self.supported_output_type}")
            lines.append(f"  {typ} output{index} = static_cast<{typ}>(outputs[{index}])")
        return lines

    def _generate_callback_func_params(self, inputs_types, outputs_types):
        params = []
        for index, typ in enumerate(inputs_types):
            if typ not in self.supported_input_type:
                raise RuntimeError(f"Unsupported input type: {typ}, supported input types are: "
                                   f"{self.supported_input_type}")
            params.append(f"*input{index}" if typ in self.supported_input_scalar_type else f"input{index}")
        for index, typ in enumerate(outputs_types):
            if typ not in self.supported_output_type:
                raise RuntimeError(f"Unsupported output type: {typ}, supported output types are: "
                                   f"{self.supported_output_type}")
            params.append(f"output{index}")
        return params + ["workspace_size", "executor"]

    def _generate_callback(self, func_name, inputs_types, outputs_types):
        """The C++ source of ``extern "C" int <func_name>GetWorkSpaceSize(...)``."""
        inputs_code = ";\n".join(self._generate_callback_inputs(inputs_types)) + ";"
        outputs_code = ";\n".join(self._generate_callback_outputs(outputs_types)) + ";"
        params = ", ".join(self._generate_callback_func_params(inputs_types, outputs_types))
        signature = f"{', '.join(inputs_types)}, {', '.join(outputs_types)}, uint64_t *, aclOpExecutor **"
        return "\n".join([
            "", self.header, "",
            f'extern "C" int {func_name}GetWorkSpaceSize(void *func_ptr, std::vector<void *> inputs, '
            f"std::vector<void *> outputs,",
            "                           uint64_t *workspace_size, aclOpExecutor **executor) {",
            f"  using FuncType = int (*)({signature});",
            "  auto func = reinterpret_cast<FuncType>(func_ptr);",
            inputs_code, outputs_code,
            f"  return func({params});",
            "}"])


class CustomInfoGenerator:
    """Registration info and aclnn API types of operator ``op_name`` ("Abs" or "aclnnAbs"); see the module
    docstring for where the facts come from."""

    def __init__(self, op_name):
        if not op_name:
            raise ValueError("op_name cannot be None or empty")
        self.ori_op_name = op_name
        self.prefix = PREFIX
        self.pure_op_name = op_name[len(PREFIX):] if op_name.startswith(PREFIX) else op_name
        self.prefix_op_name = op_name if op_name.startswith(PREFIX) else PREFIX + op_name
        self.aclnn_api_file_name = self._get_aclnn_api_file_name(self.prefix_op_name)
        self.env_ascend_opp_path = os.getenv("ASCEND_OPP_PATH")
        self.env_ascend_custom_opp_path = os.getenv("ASCEND_CUSTOM_OPP_PATH")
        self.op_info_paths, self.target_json_path, self.op_info = [], "", ""
        self.aclnn_api_paths, self.aclnn_api = [], ""

    @staticmethod
    def _get_aclnn_api_file_name(op_name):
        """``aclnnAddCustom`` -> ``aclnn_add_custom.h``."""
        name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", op_name)
        return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower() + ".h"

    # ---- aclnn API types ---------------------------------------------------------------------------------------
    def get_aclnn_api_types(self):
        """The parameter types of ``aclnn<Op>GetWorkspaceSize`` (``['aclTensor*', ..., 'uint64_t*',
        'aclOpExecutor**']``); [] with a warning when neither a header nor npusim knows the API."""
        for directory in self._api_include_dirs():
            self.aclnn_api_paths.append(directory)
            declaration = _declaration_in(os.path.join(directory, self.aclnn_api_file_name), self.prefix_op_name)
            if declaration is not None:
                self.aclnn_api = declaration
                return _parameter_types(declaration)
        op = self._npusim_operator()
        if op is None:
            warnings.warn(f"Cannot find file [{self.aclnn_api_file_name}] in paths "
                          f"[{','.join(self.aclnn_api_paths)}], and npusim provides no {self.prefix_op_name}")
            return []
        return [C_TYPES[p.kind] for p in op.params] + list(WORKSPACE_TYPES)

    def _api_include_dirs(self):
        for entry in _split_paths(self.env_ascend_custom_opp_path):
            yield os.path.join(entry, "op_api", "include")
        if self.env_ascend_opp_path:
            vendors = os.path.join(self.env_ascend_opp_path, "vendors")
            for vendor in self._vendor_priorities(vendors):
                yield os.path.join(vendors, vendor, "op_api", "include")
            yield os.path.join(self.env_ascend_opp_path, "..", "include", "aclnnop")

    @staticmethod
    def _vendor_priorities(vendors_dir):
        config = os.path.join(vendors_dir, "config.ini")
        if not os.path.isfile(config):
            return []
        with open(config, encoding="utf-8") as file:
            for line in file:
                key, _, value = line.strip().partition("=")
                if key.strip().lower() == "load_priority":
                    return [item.strip() for item in value.split(",") if item.strip()]
        return []

    def _npusim_operator(self):
        try:
            return lookup(self.prefix_op_name)
        except AclnnNotFoundError:
            return None

    # ---- registration info ---------------------------------------------------------------------------------------
    def generate_custom_reg_op(self):
        """The reg info (``CustomRegOp(...).target("Ascend").get_op_info()``) of the operator."""
        if self._find_op_json():
            return self._reg_info_from_json()
        op = self._npusim_operator()
        if op is None:
            raise RuntimeError(f"Cannot find operator [{self.pure_op_name}] in JSON files "
                               f"[{','.join(self.op_info_paths)}], and npusim provides no {self.prefix_op_name}")
        return self._reg_info_from_operator(op)

    def _json_files(self):
        from te_compat.surface.platform import get_soc_spec
        soc = re.match(r"[a-z]+\d+[a-z]*", str(get_soc_spec("SHORT_SOC_VERSION")).lower())
        soc = soc.group(0) if soc else "ascend910b"
        name, subdir = f"aic-{soc}-ops-info", os.path.join("op_impl", "ai_core", "tbe", "config", soc)
        for entry in _split_paths(self.env_ascend_custom_opp_path):
            yield os.path.join(entry, subdir, name + ".json")
        if self.env_ascend_opp_path:
            vendors = os.path.join(self.env_ascend_opp_path, "vendors")
            for vendor in self._vendor_priorities(vendors):
                yield os.path.join(vendors, vendor, subdir, name + ".json")
            builtin = os.path.join(self.env_ascend_opp_path, "built-in", subdir)
            if os.path.isdir(builtin):
                for file_name in sorted(os.listdir(builtin)):
                    if file_name.startswith(name) and file_name.endswith(".json"):
                        yield os.path.join(builtin, file_name)

    def _find_op_json(self) -> bool:
        for path in self._json_files():
            self.op_info_paths.append(path)
            if not os.path.isfile(path):
                continue
            with open(path, encoding="utf-8") as file:
                table = json.load(file)
            if self.pure_op_name in table:
                self.target_json_path, self.op_info = path, table[self.pure_op_name]
                return True
        return False

    def _reg_info_from_json(self):
        info = self.op_info
        inputs = [info[k] for k in sorted((k for k in info if k.startswith("input")), key=_key_order)]
        outputs = [info[k] for k in sorted((k for k in info if k.startswith("output")), key=_key_order)]
        reg = CustomRegOp(self.ori_op_name)
        for index, entry in enumerate(inputs):
            reg.input(index, entry["name"], entry["paramType"])
        for index, entry in enumerate(outputs):
            reg.output(index, entry["name"], entry["paramType"])
        names = info.get("attr", {}).get("list", "")
        for name in (n for n in names.split(",") if n):
            if f"attr_{name}" not in info:
                raise KeyError(f"Attr key 'attr_{name}' not found in operator '{self.pure_op_name}' from JSON file "
                               f"'{self.target_json_path}'")
            attr = info[f"attr_{name}"]
            reg.attr(name, attr.get("paramType", ""), attr.get("type", ""), attr.get("value", ""))
        columns = [(e.get("dtype", "float16").split(","), e.get("format", "DefaultFormat").split(","))
                   for e in inputs + outputs]
        for row in range(len(columns[0][0]) if columns else 0):
            reg.dtype_format(*[_dtype_format(dtypes[row], formats[row] if row < len(formats) else "DefaultFormat")
                               for dtypes, formats in columns])
        return reg.target("Ascend").get_op_info()

    def _reg_info_from_operator(self, op):
        reg = CustomRegOp(self.ori_op_name)
        tensors, outputs = [], []
        for param in op.params:
            state = "dynamic" if param.kind == "tensor_list" else ("optional" if param.optional else "required")
            if param.output:
                reg.output(len(outputs), param.name, state)
                outputs.append(param)
            elif param.kind in ("tensor", "tensor_list"):
                reg.input(len(tensors), param.name, state)
                tensors.append(param)
            else:
                reg.attr(param.name, "optional" if param.optional else "required", ATTR_TYPES[param.kind])
        columns = tensors + outputs
        lead = columns[0].dtypes if columns and columns[0].dtypes else ()
        for dtype in (d for d in lead if _known_dtype(d)):
            reg.dtype_format(*[(_column_dtype(p, dtype), "DefaultFormat") for p in columns])
        return reg.target("Ascend").get_op_info()


def _split_paths(value):
    return [entry for entry in (value or "").split(":") if entry]


def _key_order(key):
    digits = re.sub(r"\D", "", key)
    return (int(digits) if digits else 0, key)


def _dtype_format(dtype, format_name):
    return ("float32" if dtype == "float" else dtype, "DefaultFormat" if format_name == "ND" else format_name)


def _known_dtype(dtype) -> bool:
    return dtype in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                     "float32", "float64", "bfloat16", "complex64", "complex128")


def _column_dtype(param, dtype):
    if param.dtypes is None or dtype in param.dtypes:
        return dtype
    return next((d for d in param.dtypes if _known_dtype(d)), dtype)


def _declaration_in(path, api):
    """The text ``aclnnXGetWorkspaceSize(...);`` declared with ``aclnnStatus`` in header ``path``, or None."""
    if not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8", errors="replace") as file:
        content = file.read()
    match = re.search(r"\baclnnStatus\s+(" + re.escape(api) + r"GetWorkspaceSize\s*\(.*?\)\s*;)", content, re.DOTALL)
    if match is None:
        raise ValueError(f"Can not find 'aclnnStatus' followed by function [{api}GetWorkspaceSize(] in file "
                         f"[{path}]")
    return match.group(1)


def _parameter_types(declaration):
    """``aclnnXGetWorkspaceSize(const aclTensor *self, int64_t dim, ...);`` -> ``['aclTensor*', 'int64_t', ...]``."""
    inside = declaration[declaration.index("(") + 1:declaration.rindex(")")]
    types = []
    for parameter in inside.split(","):
        text = re.sub(r"\bconst\b", " ", parameter).strip()
        named = re.match(r"^(.*[\s*])(\w+)$", text)  # "aclTensor *self": drop the parameter's name
        types.append(re.sub(r"\s+", "", named.group(1) if named else text))
    return types
