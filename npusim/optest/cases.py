"""Op test case files in CANN's msopst form, parsed into concrete :class:`OpCase` objects.

A case file is a JSON list of cases.  The fields follow the msopst case definition file ("生成测试用例定义文件",
MindStudio operator tools, https://www.hiascend.com/document/detail/zh/mindstudio/830/ODtools/
Operatordevelopmenttools/atlasopdev_16_0032.html): ``case_name``, ``op``, ``input_desc`` / ``output_desc``
(``name``, ``format``, ``ori_format``, ``type``, ``shape``, ``ori_shape``, ``typical_shape``, ``data_distribute``,
``value_range``, ``value``), ``attr`` (``name``, ``type``, ``value``), ``calc_expect_func_file`` ("file.py:func"),
``error_threshold`` ([threshold, ratio]), ``expect`` ("success" / "failed") and ``st_mode``.

Expansion is msopst's (``CaseDesign`` in msopst's ``st/interface/case_design.py``): every field of a tensor may be
a list; each tensor's values are crossed in the order format, shape, type, data_distribute, value_range
(``itertools.product``), the i-th sub case takes the i-th combination of every tensor, the format/type/shape lists
must have the same length in every input and output, and sub cases are named ``<case_name>_sub_case_<NNN>`` with
NNN counting from 001 over the whole file.  A case whose fields all hold one value keeps its own name (msopst would
append ``_case_NNN``).  Defaults are msopst's: ``data_distribute`` "uniform", ``value_range`` [0.1, 1.0].

npusim additions: ``imply_type`` ("tbe", "tik" or "aicpu": which implementation to look for; default: whichever
is found), ``impl_file`` ("path/to/op.py[:function]": the TBE/TIK entry function, instead of a search of the impl
directories) and ``precision_standard`` (op_test_frame's dict ``{"rtol", "atol", "max_atol", "precision_type"}``).
Paths are relative to the case file.  Not supported (CaseFileError): ``fuzz`` values, optional inputs
(``RESERVED`` / ``UNDEFINED``), bfloat16.
"""
from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from npusim.errors import CaseFileError
from npusim.optest.criteria import PrecisionStandard, standard_from_json

#: msopst type names → numpy dtype names ("float" is float32, as in msopst's DTYPE_TO_NUMPY_MAP)
DTYPES = {"bool": "bool", "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16",
          "int32": "int32", "uint32": "uint32", "int64": "int64", "uint64": "uint64", "float16": "float16",
          "float32": "float32", "float": "float32", "double": "float64", "float64": "float64",
          "complex64": "complex64", "complex128": "complex128"}
FORMATS = frozenset({"NCHW", "NHWC", "ND", "NC1HWC0", "FRACTAL_Z", "FRACTAL_NZ", "NDHWC", "NCDHW", "HWCN",
                     "NDC1HWC0", "FRACTAL_Z_3D", "NC1HWC0_C04", "FRACTAL_Z_C04", "CHWN", "FRACTAL_ZN_LSTM"})
DISTRIBUTIONS = ("uniform", "normal", "beta", "laplace", "triangular", "relu", "sigmoid", "softmax", "tanh")
ATTR_TYPES = ("bool", "int", "float", "string", "list_bool", "list_int", "list_float", "list_string",
              "list_list_int", "data_type")
IMPLY_TYPES = ("tbe", "tik", "aicpu")
DEFAULT_DISTRIBUTION, DEFAULT_RANGE = "uniform", (0.1, 1.0)
_INPUT_CROSS = ("format", "shape", "type", "data_distribute", "value_range")
_OUTPUT_CROSS = ("format", "shape", "type")


@dataclass(frozen=True)
class TensorDesc:
    """One concrete input or output of a case (dtype as a numpy name)."""

    name: Optional[str]
    format: str
    dtype: str
    shape: tuple
    ori_format: Optional[str] = None
    ori_shape: Optional[tuple] = None
    distribution: str = DEFAULT_DISTRIBUTION
    value_range: tuple = DEFAULT_RANGE
    value: Any = None   # the case's fixed data: nested lists, or an absolute path to a .bin file

    def label(self) -> str:
        """``float16[16,32]``."""
        return f"{self.dtype}[{','.join(map(str, self.shape))}]"


@dataclass(frozen=True)
class AttrDesc:
    """One attribute: name, msopst type ("float", "list_int" ...) and value."""

    name: str
    type: str
    value: Any


@dataclass(frozen=True)
class OpCase:
    """One concrete case: what to run, on which data, and how to judge it."""

    name: str
    op: str
    inputs: tuple
    outputs: tuple
    attrs: tuple = ()
    expect_func: Optional[tuple] = None        # (absolute .py path, function name)
    error_threshold: Optional[tuple] = None    # msopst's [threshold, ratio]
    precision_standard: Optional[PrecisionStandard] = None
    expect: str = "success"
    imply_type: Optional[str] = None
    impl_file: Optional[tuple] = None          # (absolute .py path, function name or None)
    st_mode: str = ""
    source: str = ""                           # the case file (absolute)
    index: int = 0                             # position among the file's expanded cases
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def signature(self) -> str:
        """``float16[16,32],float16[16,32]->float16[16,32]``."""
        return ",".join(t.label() for t in self.inputs) + "->" + ",".join(t.label() for t in self.outputs)

    @property
    def base_dir(self) -> Path:
        return Path(self.source).parent


class _Context:
    """Where parsing is (file and case name), for messages."""

    def __init__(self, path: Path):
        self.path = path
        self.case = "?"

    def error(self, message: str) -> CaseFileError:
        return CaseFileError(f"{self.path}: case '{self.case}': {message}")


def load_cases(path, names: Optional[set] = None) -> list:
    """The concrete cases of the case file ``path`` (msopst expansion applied), in file order; ``names``: keep only
    these (original or expanded) case names.  Raises CaseFileError naming the file, case and field."""
    path = Path(path).resolve()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CaseFileError(f"cannot read the case file {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise CaseFileError(f"{path}: not valid JSON: {exc}") from None
    data = [data] if isinstance(data, dict) else data
    if not isinstance(data, list) or not data:
        raise CaseFileError(f"{path}: a case file is a non-empty JSON list of cases")
    ctx, cases, seen = _Context(path), [], set()
    for raw in data:
        for case in _expand(raw, ctx, len(cases)):
            if case.name in seen:
                raise ctx.error(f"the case name '{case.name}' is used twice")
            seen.add(case.name)
            cases.append(case)
    if names:
        cases = [c for c in cases if c.name in names or c.extra.get("case_name") in names]
    return cases


def _expand(raw, ctx: _Context, start: int) -> list:
    if not isinstance(raw, dict):
        raise CaseFileError(f"{ctx.path}: every case is a JSON object, got {type(raw).__name__}")
    ctx.case = str(raw.get("case_name", "?"))
    for key in ("case_name", "op", "input_desc", "output_desc"):
        if key not in raw:
            raise ctx.error(f"the required field '{key}' is missing")
    if not isinstance(raw["op"], str) or not raw["op"]:
        raise ctx.error("'op' must be a non-empty string")
    ms_mode = raw.get("st_mode") == "ms_python_train"
    inputs = [_tensor_lists(d, ctx, True, ms_mode) for d in _desc_list(raw, "input_desc", ctx)]
    outputs = [_tensor_lists(d, ctx, False, ms_mode) for d in _desc_list(raw, "output_desc", ctx)]
    if not outputs:
        raise ctx.error("'output_desc' is empty")
    _check_counts(inputs + outputs, ctx)
    in_combos = [_cross(lists, _INPUT_CROSS) for lists in inputs]
    out_combos = [_cross(lists, _OUTPUT_CROSS) for lists in outputs]
    if len({len(c) for c in in_combos}) > 1:
        raise ctx.error("the inputs' data_distribute / value_range lists have different lengths")
    count = len(in_combos[0]) if in_combos else len(out_combos[0])
    per_output = max(1, count // len(out_combos[0]))
    multi = any(len(v) > 1 for lists in inputs + outputs for v in lists.values() if isinstance(v, list))
    common = _common_fields(raw, ctx)
    cases = []
    for i in range(count):
        name = f"{ctx.case.replace('/', '_')}_sub_case_{start + i + 1:03d}" if multi else ctx.case
        ins = tuple(_tensor(raw["input_desc"][k], combo[i], ctx) for k, combo in enumerate(in_combos))
        outs = tuple(_tensor(raw["output_desc"][k], combo[i // per_output], ctx) for k, combo in enumerate(out_combos))
        cases.append(OpCase(name=name, op=raw["op"], inputs=ins, outputs=outs, index=start + i,
                            extra={"case_name": ctx.case}, **common))
    return cases


def _desc_list(raw: dict, key: str, ctx: _Context) -> list:
    descs = raw[key]
    if not isinstance(descs, list) or not all(isinstance(d, dict) for d in descs):
        raise ctx.error(f"'{key}' must be a list of objects")
    return descs


def _str_list(desc: dict, key: str, ctx: _Context, allowed, default=None) -> list:
    value = desc.get(key, default)
    if value is None:
        raise ctx.error(f"a tensor has no '{key}'")
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
        raise ctx.error(f"'{key}' must be a string or a non-empty list of strings, got {value!r}")
    for item in values:
        if item == "fuzz":
            raise ctx.error(f"'{key}': fuzz values (fuzz_impl scripts) are not supported by npusim optest")
        if allowed is not None and item not in allowed:
            raise ctx.error(f"'{key}' value {item!r} is not supported (supported: {', '.join(sorted(allowed))})")
    return list(values)


def _list_list(desc: dict, key: str, ctx: _Context, default=None) -> list:
    """msopst's "[] or [[]]" fields (shape, value_range): one value or a list of them."""
    value = desc.get(key, default)
    if value == "fuzz":
        raise ctx.error(f"'{key}': fuzz values (fuzz_impl scripts) are not supported by npusim optest")
    if not isinstance(value, (list, tuple)):
        raise ctx.error(f"'{key}' must be a list (or a list of lists), got {value!r}")
    nested = [isinstance(v, (list, tuple)) for v in value]
    if any(nested) and not all(nested):
        raise ctx.error(f"'{key}' mixes numbers and lists: {value!r}")
    return [tuple(v) for v in value] if value and all(nested) else [tuple(value)]


def _tensor_lists(desc: dict, ctx: _Context, is_input: bool, ms_mode: bool) -> dict:
    types = _str_list(desc, "type", ctx, None)
    for name in types:
        if name in ("UNDEFINED", "bfloat16") or name not in DTYPES:
            raise ctx.error(f"type {name!r} is not supported (optional inputs and bfloat16 are not; supported: "
                            f"{', '.join(DTYPES)})")
    formats = _str_list(desc, "format", ctx, FORMATS, "ND" if ms_mode else None)
    shapes = [_shape(desc, s, ctx) for s in _list_list(desc, "shape", ctx)]
    # ori_format / ori_shape travel with format / shape as pairs (msopst zips them before crossing)
    lists = {"type": [DTYPES[t] for t in types],
             "format": list(zip(formats, _aligned(desc.get("ori_format"), len(formats), False))),
             "shape": list(zip(shapes, _aligned(desc.get("ori_shape"), len(shapes), True)))}
    if is_input:
        lists["data_distribute"] = _str_list(desc, "data_distribute", ctx, DISTRIBUTIONS, DEFAULT_DISTRIBUTION)
        lists["value_range"] = [_range(r, ctx) for r in _list_list(desc, "value_range", ctx, list(DEFAULT_RANGE))]
    return lists


def _shape(desc: dict, shape: tuple, ctx: _Context) -> tuple:
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in shape):
        raise ctx.error(f"shape {list(shape)} must hold integers")
    if any(d <= 0 for d in shape):   # a dynamic shape: msopst runs its typical_shape
        typical = desc.get("typical_shape")
        if not isinstance(typical, list) or not all(isinstance(d, int) and d > 0 for d in typical):
            raise ctx.error(f"shape {list(shape)} has unknown dims and no positive 'typical_shape' to run")
        return tuple(typical)
    return shape


def _range(pair: tuple, ctx: _Context) -> tuple:
    if len(pair) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in pair):
        raise ctx.error(f"value_range {list(pair)} must be [min, max] numbers")
    if pair[1] < pair[0]:
        raise ctx.error(f"value_range {list(pair)}: the maximum is less than the minimum")
    return (pair[0], pair[1])


def _check_counts(tensors: list, ctx: _Context) -> None:
    for key in ("format", "type", "shape"):
        counts = {len(t[key]) for t in tensors}
        if len(counts) > 1:
            raise ctx.error(f"the number of '{key}' values differs between the inputs and outputs "
                            f"({sorted(counts)}); msopst pairs them one to one")


def _cross(lists: dict, keys: tuple) -> list:
    return [dict(zip(keys, combo)) for combo in itertools.product(*(lists[k] for k in keys))]


def _tensor(desc: dict, combo: dict, ctx: _Context) -> TensorDesc:
    (fmt, ori_format), (shape, ori_shape) = combo["format"], combo["shape"]
    value = desc.get("value")
    if isinstance(value, str):
        value = str((ctx.path.parent / value).resolve())
    return TensorDesc(name=desc.get("name"), format=fmt, dtype=combo["type"], shape=tuple(shape),
                      ori_format=ori_format, ori_shape=ori_shape,
                      distribution=combo.get("data_distribute", DEFAULT_DISTRIBUTION),
                      value_range=combo.get("value_range", DEFAULT_RANGE), value=value)


def _aligned(value, count: int, nested: bool) -> list:
    """ori_format / ori_shape as one entry per format / shape (None where not given)."""
    if value is None:
        return [None] * count
    if nested:
        items = [tuple(v) for v in value] if value and all(isinstance(v, list) for v in value) else [tuple(value)]
    else:
        items = [value] if isinstance(value, str) else list(value)
    return items + [None] * (count - len(items)) if len(items) <= count else items[:count]


def _common_fields(raw: dict, ctx: _Context) -> dict:
    expect = raw.get("expect", "success")
    if expect not in ("success", "failed"):
        raise ctx.error(f"'expect' must be \"success\" or \"failed\", got {expect!r}")
    imply = raw.get("imply_type")
    if imply is not None and str(imply).lower() not in IMPLY_TYPES:
        raise ctx.error(f"'imply_type' must be one of {', '.join(IMPLY_TYPES)}, got {imply!r}")
    return {"attrs": _attrs(raw.get("attr", []), ctx), "expect_func": _expect_func(raw, ctx),
            "error_threshold": _threshold(raw.get("error_threshold"), ctx),
            "precision_standard": _standard(raw.get("precision_standard"), ctx), "expect": expect,
            "imply_type": str(imply).lower() if imply is not None else None,
            "impl_file": _impl_file(raw.get("impl_file"), ctx), "st_mode": str(raw.get("st_mode") or ""),
            "source": str(ctx.path)}


def _attrs(items, ctx: _Context) -> tuple:
    if not isinstance(items, list):
        raise ctx.error(f"'attr' must be a list, got {items!r}")
    attrs, names = [], set()
    for item in items:
        if not isinstance(item, dict) or not all(k in item for k in ("name", "type", "value")):
            raise ctx.error(f"every attr needs 'name', 'type' and 'value', got {item!r}")
        if item["type"] not in ATTR_TYPES:
            raise ctx.error(f"attr '{item['name']}': type {item['type']!r} is not one of {', '.join(ATTR_TYPES)}")
        if item["name"] in names:
            raise ctx.error(f"attr '{item['name']}' is given twice")
        if item["value"] == "fuzz":
            raise ctx.error(f"attr '{item['name']}': fuzz values are not supported by npusim optest")
        names.add(item["name"])
        attrs.append(AttrDesc(item["name"], item["type"], item["value"]))
    return tuple(attrs)


def _file_and_func(text, key: str, ctx: _Context, default_func: Optional[str]) -> Optional[tuple]:
    """msopst's "file.py:func" (a bare file: the function is named after the op)."""
    if text in (None, ""):
        return None
    if not isinstance(text, str) or text.count(":") > 1:
        raise ctx.error(f"'{key}' must be \"path/to/file.py:function\", got {text!r}")
    file_part, _, func = text.partition(":")
    path = (ctx.path.parent / file_part).resolve()
    if not path.is_file():
        raise ctx.error(f"'{key}': no such file {path}")
    return (str(path), func or default_func)


def _expect_func(raw: dict, ctx: _Context) -> Optional[tuple]:
    return _file_and_func(raw.get("calc_expect_func_file"), "calc_expect_func_file", ctx, raw["op"])


def _impl_file(text, ctx: _Context) -> Optional[tuple]:
    return _file_and_func(text, "impl_file", ctx, None)


def _threshold(value, ctx: _Context) -> Optional[tuple]:
    if value is None:
        return None
    if isinstance(value, str):   # the doc quotes it: "[0.01,0.05]"
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise ctx.error(f"'error_threshold' must be [threshold, ratio], got {value!r}") from None
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, (int, float)) and 0 <= v <= 1
                                                               for v in value)):
        raise ctx.error(f"'error_threshold' must be [threshold, ratio] with values in [0, 1], got {value!r}")
    return (float(value[0]), float(value[1]))


def _standard(value, ctx: _Context) -> Optional[PrecisionStandard]:
    if value is None:
        return None
    try:
        return standard_from_json(value)
    except (TypeError, ValueError, KeyError) as exc:
        raise ctx.error(f"'precision_standard' {value!r}: {exc}") from None


__all__ = ["AttrDesc", "DTYPES", "OpCase", "TensorDesc", "load_cases"]
