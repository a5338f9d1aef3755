"""Operator registration info: ``CustomRegOp``, ``DataType``, ``custom_info_register`` and the v1 builders.

``get_op_info()`` returns MindSpore's dict: keys op_name, inputs, outputs, attr, fusion_type, dtype_format, target,
with the v2 spelling (``paramType``, ``defaultValue``).  Readers in npusim accept the v1 spelling
(``param_type``, ``default_value``) as well, since scripts written for MindSpore 1.6–1.10 produce it.
"""
from __future__ import annotations

import functools
import json

from npusim.errors import OpTypeError, OpValueError, UnsupportedError

_DTYPES = {"BOOL": "bool", "I8": "int8", "U8": "uint8", "I16": "int16", "U16": "uint16", "I32": "int32",
           "U32": "uint32", "I64": "int64", "U64": "uint64", "F16": "float16", "F32": "float32",
           "F64": "float64", "BF16": "bfloat16", "C64": "complex64", "C128": "complex128"}
_FORMATS = {"Default": "DefaultFormat", "5HD": "NC1HWC0", "FracZ": "FRACTAL_Z", "FracNZ": "FRACTAL_NZ",
            "C1HWNCoC0": "C1HWNCoC0", "NCHW": "NCHW", "NHWC": "NHWC", "HWCN": "HWCN", "NDHWC": "NDHWC",
            "ChannelLast": "ChannelLast", "NCDHW": "NCDHW", "FracZNLSTM": "FRACTAL_ZN_LSTM", "ND": "ND",
            "NDC1HWC0": "NDC1HWC0", "FRACTAL_Z_3D": "FRACTAL_Z_3D"}


class DataType:
    """(dtype, format) pairs: ``DataType.F16_Default == ("float16", "DefaultFormat")``; ``None_None == ("", "")``."""

    None_None = ("", "")
    None_Default = ("", "DefaultFormat")


for _prefix, _dtype in _DTYPES.items():
    for _suffix, _format in _FORMATS.items():
        setattr(DataType, f"{_prefix}_{_suffix}", (_dtype, _format))
    setattr(DataType, f"{_prefix}_None", (_dtype, ""))


def _check_str(value, what):
    if not isinstance(value, str):
        raise OpTypeError(f"CustomRegOp: {what} must be a str, but got {type(value).__name__} ({value!r})")
    return value


class RegOp:
    """Common builder: inputs, outputs, attrs, dtype_format rows, fusion type and target."""

    def __init__(self, op_name=""):
        _check_str(op_name, "'op_name'")
        self.op_name = op_name
        self.inputs: list = []
        self.outputs: list = []
        self.attr_: list = []
        self.fusion_type_ = ""
        self.dtype_format_: list = []
        self.target_ = ""
        self.extra_: dict = {}

    @staticmethod
    def _io(index, name, param_type, kwargs):
        entry = {}
        if index is not None:
            if not isinstance(index, int):
                raise OpTypeError(f"CustomRegOp: input/output 'index' must be an int, got {index!r}")
            entry["index"] = index
        if name is not None:
            entry["name"] = _check_str(name, "input/output 'name'")
        if param_type is not None:
            entry["paramType"] = _check_str(param_type, "'param_type'")
        entry.update(kwargs)
        return entry

    def input(self, index=None, name=None, param_type="required", **kwargs):
        self.inputs.append(self._io(index, name, param_type, kwargs))
        return self

    def output(self, index=None, name=None, param_type="required", **kwargs):
        self.outputs.append(self._io(index, name, param_type, kwargs))
        return self

    def attr(self, name=None, param_type=None, value_type=None, default_value=None, **kwargs):
        entry = {}
        for key, value in (("name", name), ("paramType", param_type), ("type", value_type),
                           ("defaultValue", default_value)):
            if value is not None:
                entry[key] = value
        entry.update(kwargs)
        self.attr_.append(entry)
        return self

    def dtype_format(self, *args):
        io_count = len(self.inputs) + len(self.outputs)
        if len(args) != io_count:
            raise OpValueError(f"The size of 'args' is {len(args)}, but the size of inputs and outputs is "
                               f"{io_count}.")
        for arg in args:
            if not isinstance(arg, tuple) or len(arg) != 2:
                raise OpValueError(f"dtype_format: every argument must be a (dtype, format) tuple, got {arg!r}")
        self.dtype_format_.append(tuple(args))
        return self

    def fusion_type(self, fusion_type):
        self.fusion_type_ = _check_str(fusion_type, "'fusion_type'")
        return self

    def target(self, target=None):
        if target is not None:
            self.target_ = _check_str(target, "'target'")
        return self

    def get_op_info(self) -> dict:
        info = {"op_name": self.op_name, "inputs": list(self.inputs), "outputs": list(self.outputs),
                "attr": list(self.attr_), "fusion_type": self.fusion_type_ or "OPAQUE",
                "dtype_format": list(self.dtype_format_)}
        if self.target_:
            info["target"] = self.target_
        info.update(self.extra_)
        return info

    def __getattr__(self, name):
        # v1 builders have many single-value setters (async_flag, binfile_name, compute_cost, kernel_name,
        # partial_flag, imply_type, processor, op_pattern ...): store the value under the method's name.
        if name.startswith("_"):
            raise AttributeError(name)

        def setter(value=None, *rest):
            self.extra_[name] = value
            return self
        return setter


class CustomRegOp(RegOp):
    """``CustomRegOp(op_name="Custom")``."""

    def __init__(self, op_name="Custom"):
        super().__init__(op_name)


class TBERegOp(RegOp):
    """v1 TBE builder: ``attr(name, param_type, value_type, value=None, default_value=None)``;
    ``input(index, name, need_compile, param_type, shape)``.  Its info carries ``imply_type`` "TBE"."""

    def __init__(self, op_name=""):
        super().__init__(op_name)
        self.extra_["imply_type"] = "TBE"

    def attr(self, name=None, param_type=None, value_type=None, value=None, default_value=None, **kwargs):
        if value is not None:
            kwargs["value"] = value
        return super().attr(name, param_type, value_type, default_value, **kwargs)

    def input(self, index=None, name=None, need_compile=None, param_type=None, shape=None, value_depend=None,
              **kwargs):
        if value_depend is not None:  # MindSpore keeps it (v2 key "valueDepend"): the input is a constant
            kwargs["valueDepend"] = _check_str(value_depend, "'value_depend'")
        return super().input(index, name, param_type, **kwargs)

    def output(self, index=None, name=None, need_compile=None, param_type=None, shape=None, **kwargs):
        return super().output(index, name, param_type, **kwargs)


class AiCPURegOp(RegOp):
    """v1 AICPU builder: ``attr(name, value_type, value=None, **kwargs)``; ``imply_type`` "AiCPU"."""

    def __init__(self, op_name=""):
        super().__init__(op_name)
        self.extra_["imply_type"] = "AiCPU"

    def attr(self, name=None, value_type=None, value=None, **kwargs):
        if value is not None:
            kwargs["value"] = value
        return super().attr(name, None, value_type, None, **kwargs)


class AkgRegOp(RegOp):
    """v1 AKG builders; ``imply_type`` "AKG" and the processor of the subclass."""

    processor = ""

    def __init__(self, op_name=""):
        super().__init__(op_name)
        self.extra_["imply_type"] = "AKG"
        if self.processor:
            self.extra_["processor"] = self.processor

    def attr(self, name=None, param_type=None, value_type=None, **kwargs):
        return super().attr(name, param_type, value_type, None, **kwargs)


class AkgGpuRegOp(AkgRegOp):
    processor = "CUDA"


class AkgAscendRegOp(AkgRegOp):
    processor = "AiCore"


class AkgCpuRegOp(AkgRegOp):
    processor = "CPU"


def custom_info_register(*reg_info):
    """Decorator: attach registration info to a Custom op function (``func.reg_info``), keeping its metadata."""
    def decorator(func):
        infos = []
        for info in reg_info:
            infos.extend(info if isinstance(info, (list, tuple)) else [info])

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        wrapper.reg_info = infos
        return wrapper
    return decorator


def normalise_reg_info(reg_info) -> list[dict]:
    """reg_info (dict, JSON str, builder, or a list of them) → list of dicts."""
    if reg_info is None:
        return []
    items = reg_info if isinstance(reg_info, (list, tuple)) else [reg_info]
    out = []
    for item in items:
        if isinstance(item, RegOp):
            item = item.get_op_info()
        if isinstance(item, str):
            try:
                item = json.loads(item)
            except json.JSONDecodeError as exc:
                raise OpValueError(f"Custom: reg_info string is not valid JSON: {exc}") from None
        if isinstance(item, (list, tuple)):
            out.extend(normalise_reg_info(item))
            continue
        if not isinstance(item, dict):
            raise OpTypeError(f"Custom: 'reg_info' must be a dict, str or list of them, got {type(item).__name__}")
        out.append(item)
    return out


def param_type(entry: dict) -> str:
    """An input/output/attr entry's param type under either spelling."""
    return entry.get("paramType", entry.get("param_type", "required"))


def default_value(entry: dict):
    return entry.get("defaultValue", entry.get("default_value"))


#: reg-info ``param_type`` of an input/output that takes any number of tensors (MindSpore's dyn_input_sizes)
DYNAMIC = "dynamic"
#: ``value_depend`` values saying the kernel build needs the input's value (MindSpore then passes ``const_value``)
_VALUE_DEPENDS = ("required", "optional")


def value_depends(entry: dict) -> bool:
    """Whether an input entry declares its value needed at build time (``value_depend`` / ``valueDepend``
    "required" or "optional"): MindSpore then gives the TBE impl the input's ``const_value``."""
    flag = entry.get("valueDepend", entry.get("value_depend"))
    return isinstance(flag, str) and flag.lower() in _VALUE_DEPENDS


def group_sizes(op_name: str, entries: list, count: int, what: str = "input") -> list[int]:
    """How many of ``count`` tensors each reg-info entry takes, in order: one per required/optional entry, the rest
    for the one ``dynamic`` entry (MindSpore's dyn_input_sizes).  More than one dynamic entry is ambiguous
    without the call's grouping (unless every entry takes one tensor) and is refused (UnsupportedError); too few
    tensors raise OpValueError."""
    dynamic = [i for i, entry in enumerate(entries) if param_type(entry) == DYNAMIC]
    if not dynamic or (len(dynamic) > 1 and count == len(entries)):
        return [1] * len(entries)  # (several dynamic entries with one tensor each: the only reading of the count)
    if len(dynamic) > 1:
        names = ", ".join(str(entries[i].get("name", i)) for i in dynamic)
        raise UnsupportedError(f"Custom op '{op_name}': its registration info has {len(dynamic)} dynamic {what}s "
                               f"({names}); npusim supports one dynamic {what} per op")
    fixed = len(entries) - 1
    if count < fixed + 1:
        raise OpValueError(f"Custom op '{op_name}' has {fixed} {what}(s) plus the dynamic {what} "
                           f"'{entries[dynamic[0]].get('name', dynamic[0])}' (at least one tensor), but got "
                           f"{count} tensor(s)")
    return [count - fixed if i == dynamic[0] else 1 for i in range(len(entries))]


def flatten_dynamic_inputs(reg: dict | None, tensors) -> list:
    """The call's tensor arguments with each ``dynamic`` input's list/tuple of tensors spliced in its place
    (``op([x1, x2, x3], bias)``, as MindSpore calls an op with a dynamic input)."""
    entries = (reg or {}).get("inputs") or []
    flat = []
    for index, value in enumerate(tensors):
        dynamic = index < len(entries) and param_type(entries[index]) == DYNAMIC
        if dynamic and isinstance(value, (list, tuple)):
            flat.extend(value)
        else:
            flat.append(value)
    return flat
