"""``para_check`` / ``op_utils``: the parameter checks of TBE op entry functions.

Served as ``te.utils.op_utils``, ``te.utils.para_check`` and ``tbe.common.utils.para_check``.  Like CANN, every
failed check raises an error that is a ``RuntimeError`` (:class:`~npusim.errors.TbeArgumentError`, also a
``ValueError``), with CANN's message wording ("In op[add], the parameter[x]'s type should be [dict], but actually
is [list].").

npusim compiles each op for concrete shapes, but the checks accept unknown dims as CANN's do for a dynamic kernel:
``check_shape`` skips a -1 dimension (and a ``[-2]`` unknown-rank shape); an op entry called with unknown input dims
is built per concrete shape at launch (see :mod:`te_compat.build.deferred`).  ``classify`` and ``variable_shape``
still need every dimension known (or pinned by its ``range``) when they run.
"""
from __future__ import annotations

import functools
import inspect
import re
from math import prod

from npusim.errors import TbeArgumentError, TbeTypeError
from te_compat.surface.opname import op_name_scope

SHAPE_SIZE_LIMIT = 2 ** 31 - 1
SHAPE_SIZE_ZERO = 0
RANK_ZERO = 0
RANK_LIMIT = 8
DIM_LIMIT = SHAPE_SIZE_LIMIT
ZERO_DIM = 0
MAX_KERNEL_NAME_LEN = 200
MAX_KERNEL_NAEM_LEN = MAX_KERNEL_NAME_LEN  # CANN's own spelling, imported by some op files
OP_NAME = ""
PARAM_NAME = ""
UNKNOWN_DIM = -1  # a dynamic kernel's unknown dimension
UNKNOWN_RANK = -2  # shape [-2]: unknown rank
MIN_UNKOWN_SHAPE_RANK = 0  # CANN's spelling
MAX_UNKOWN_SHAPE_NUM = 2 ** 31 - 1  # CANN's spelling
MAX_UNKNOWN_SHAPE_NUM = MAX_UNKOWN_SHAPE_NUM
# classify modes of an input dict ("mode" key), as CANN's dynamic-shape code names them
CONST = "const"
SPECIAL = "special"
ORIGINAL = "original"
SPECIAL_SCALAR = "special_scalar"
COMMON = "common"
BROADCAST = "broadcast"

REQUIRED_INPUT = "required_input"
OPTION_INPUT = "option_input"
DYNAMIC_INPUT = "dynamic_input"
REQUIRED_OUTPUT = "required_output"
OPTION_OUTPUT = "option_output"
DYNAMIC_OUTPUT = "dynamic_output"
KERNEL_NAME = "kernel_name"

REQUIRED_ATTR_INT = "REQUIRED_ATTR_INT"
REQUIRED_ATTR_FLOAT = "REQUIRED_ATTR_FLOAT"
REQUIRED_ATTR_STR = "REQUIRED_ATTR_STR"
REQUIRED_ATTR_BOOL = "REQUIRED_ATTR_BOOL"
REQUIRED_ATTR_TYPE = "REQUIRED_ATTR_TYPE"
REQUIRED_ATTR_LIST_INT = "REQUIRED_ATTR_LIST_INT"
REQUIRED_ATTR_LIST_FLOAT = "REQUIRED_ATTR_LIST_FLOAT"
REQUIRED_ATTR_LIST_BOOL = "REQUIRED_ATTR_LIST_BOOL"
REQUIRED_ATTR_LIST_LIST_INT = "REQUIRED_ATTR_LIST_LIST_INT"
OPTION_ATTR_INT = "OPTION_ATTR_INT"
OPTION_ATTR_FLOAT = "OPTION_ATTR_FLOAT"
OPTION_ATTR_STR = "OPTION_ATTR_STR"
OPTION_ATTR_BOOL = "OPTION_ATTR_BOOL"
OPTION_ATTR_TYPE = "OPTION_ATTR_TYPE"
OPTION_ATTR_LIST_INT = "OPTION_ATTR_LIST_INT"
OPTION_ATTR_LIST_FLOAT = "OPTION_ATTR_LIST_FLOAT"
OPTION_ATTR_LIST_BOOL = "OPTION_ATTR_LIST_BOOL"
OPTION_ATTR_LIST_LIST_INT = "OPTION_ATTR_LIST_LIST_INT"


class OpParamInfoKey:
    """The keys every input/output dict must have."""

    SHAPE = "shape"
    FORMAT = "format"
    ORI_SHAPE = "ori_shape"
    ORI_FORMAT = "ori_format"
    D_TYPE = "dtype"
    RANGE = "range"


class TensorFormat:
    """Tensor formats the checks accept (CANN's names; "DefaultFormat" is MindSpore's spelling of ND)."""

    ND = "ND"
    NCHW = "NCHW"
    NHWC = "NHWC"
    NDHWC = "NDHWC"
    NCDHW = "NCDHW"
    CHWN = "CHWN"
    NC1HWC0 = "NC1HWC0"
    NC1HWC0_C04 = "NC1HWC0_C04"
    NDC1HWC0 = "NDC1HWC0"
    FRACTAL_NZ = "FRACTAL_NZ"
    HWCN = "HWCN"
    DHWCN = "DHWCN"
    FRACTAL_Z = "FRACTAL_Z"
    FRACTAL_Z_C04 = "FRACTAL_Z_C04"
    C1HWNCoC0 = "C1HWNCoC0"
    FRACTAL_Z_3D = "FRACTAL_Z_3D"
    FRACTAL_ZN_LSTM = "FRACTAL_ZN_LSTM"
    NC = "NC"
    NCL = "NCL"
    DefaultFormat = "DefaultFormat"


ALL_FORMAT_LIST = tuple(v for k, v in vars(TensorFormat).items() if not k.startswith("_"))
ALL_DTYPE_LIST = ("int4", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                  "float32", "float64", "double", "bfloat16", "bool", "uint1", "complex32", "complex64",
                  "complex128")

INPUT_KINDS = (REQUIRED_INPUT, OPTION_INPUT, DYNAMIC_INPUT)
OUTPUT_KINDS = (REQUIRED_OUTPUT, OPTION_OUTPUT, DYNAMIC_OUTPUT)
REQUIRED_ATTR_KINDS = (REQUIRED_ATTR_INT, REQUIRED_ATTR_FLOAT, REQUIRED_ATTR_STR, REQUIRED_ATTR_BOOL,
                       REQUIRED_ATTR_TYPE, REQUIRED_ATTR_LIST_INT, REQUIRED_ATTR_LIST_FLOAT, REQUIRED_ATTR_LIST_BOOL,
                       REQUIRED_ATTR_LIST_LIST_INT)
OPTION_ATTR_KINDS = tuple(k.replace("REQUIRED_", "OPTION_") for k in REQUIRED_ATTR_KINDS)
# attr kind (without its REQUIRED_/OPTION_ prefix) -> (Python type of the value or its elements, type name, is list)
_ATTR_TYPES = {"ATTR_INT": (int, "int", False), "ATTR_FLOAT": (float, "float", False),
               "ATTR_STR": (str, "str", False), "ATTR_BOOL": (bool, "bool", False),
               "ATTR_LIST_INT": (int, "int", True), "ATTR_LIST_FLOAT": (float, "float", True),
               "ATTR_LIST_BOOL": (bool, "bool", True)}
_KERNEL_NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _type_error(op_name, param_name, expected: str, value) -> TbeArgumentError:
    return TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}]'s type should be [{expected}], "
                            f"but actually is [{type(value).__name__}].")


def _missing(op_name, param_name) -> TbeArgumentError:
    return TbeArgumentError(f"In op[{op_name}], the mandatory parameter[{param_name}] is missed.")


def unknown_dim_error(where: str, shape) -> TbeArgumentError:
    """The error for a -1/-2 dimension npusim cannot resolve to a concrete value."""
    return TbeArgumentError(f"{where}: shape {list(shape)} has an unknown dimension (-1 or -2) whose range does not "
                            f"fix its value; npusim compiles each op per concrete shape, so every dimension must "
                            f"be known when the op is built")


def pinned_shape(shape, shape_range=None, where: str = "shape", keep_unknown: bool = False) -> list:
    """``shape`` with each -1 replaced by its range's single value; a dimension that stays unknown raises, or is
    kept as it is with ``keep_unknown``."""
    dims = []
    for axis, dim in enumerate(shape):
        if isinstance(dim, int) and not isinstance(dim, bool) and dim < 0:
            bounds = shape_range[axis] if shape_range is not None and axis < len(shape_range) else None
            if dim != -1 or bounds is None or bounds[0] is None or bounds[0] != bounds[1]:
                if keep_unknown:
                    dims.append(dim)
                    continue
                raise unknown_dim_error(where, shape)
            dim = int(bounds[0])
        dims.append(dim)
    return dims


def pinned_tensor(tensor, index: int, where: str = "classify") -> dict:
    """A copy of input dict ``index`` with its shape pinned (:func:`pinned_shape`) and its range that shape."""
    if not isinstance(tensor, dict):
        raise TbeTypeError(f"{where}: input {index} must be a tensor dict, got {type(tensor).__name__}")
    if "shape" not in tensor:
        raise TbeArgumentError(f"{where}: input {index} has no 'shape'")
    return with_shape(tensor, pinned_shape(tensor["shape"], tensor.get("range"), f"{where} input {index}"))


def with_shape(tensor: dict, shape: list) -> dict:
    """A copy of ``tensor`` with ``shape`` and the range that pins it."""
    return dict(tensor, shape=list(shape), range=[(d, d) for d in shape])


def check_shape(shape, min_dim=ZERO_DIM, max_dim=DIM_LIMIT, min_rank=RANK_ZERO, max_rank=RANK_LIMIT,
                min_size=SHAPE_SIZE_ZERO, max_size=SHAPE_SIZE_LIMIT, param_name=PARAM_NAME):
    """Check a shape: list/tuple of ints, rank in [min_rank, max_rank], each dim in [min_dim, max_dim], the
    element count in [min_size, max_size].  A -1 dim (unknown) passes and counts for the rank only; ``[-2]``
    (unknown rank) passes."""
    if not isinstance(shape, (tuple, list)):
        raise _type_error(OP_NAME, param_name, "list tuple", shape)
    for dim in shape:
        if not isinstance(dim, int):
            raise _type_error(OP_NAME, f"{param_name} dim", "int", dim)
    if list(shape) == [UNKNOWN_RANK]:
        return  # unknown rank (a dynamic kernel's input): nothing to check until the shape is known
    if any(dim < 0 and dim != UNKNOWN_DIM for dim in shape):
        raise unknown_dim_error(f"check_shape of [{param_name}]", shape)
    if not min_rank <= len(shape) <= max_rank:
        raise TbeArgumentError(f"In op, the num of dimensions of input[{param_name}] should be in the range of "
                               f"[{min_rank}, {max_rank}], but actually is [{len(shape)}].")
    shape = [dim for dim in shape if dim != UNKNOWN_DIM]  # CANN checks a -1 dim against its range, when known
    for dim in shape:
        if not min_dim <= dim <= max_dim:
            raise TbeArgumentError(f"In op, the dim value of input[{param_name}] should be in the range of "
                                   f"[{min_dim}, {max_dim}], but actually is [{dim}] (shape {list(shape)}).")
    size = prod(shape) if shape else 1
    if not min_size <= size <= max_size:
        raise TbeArgumentError(f"In op, the shape size(product of all dimensions) of input[{param_name}] should be "
                               f"in the range of [{min_size}, {max_size}], but actually is [{size}].")


def check_dtype(dtype, check_list=ALL_DTYPE_LIST, param_name=PARAM_NAME):
    """Check that ``dtype`` (case-insensitive) is one of ``check_list``."""
    if dtype is None:
        raise TbeArgumentError(f"In op, the input[{param_name}]'s dtype could not be none.")
    if not isinstance(dtype, str):
        raise _type_error(OP_NAME, param_name, "str", dtype)
    if dtype.lower() not in check_list:
        raise TbeArgumentError(f"In op, the parameter[{param_name}]'s dtype should be one of "
                               f"[{','.join(check_list)}], but actually is [{dtype.lower()}].")


def check_format(data_format, check_list=ALL_FORMAT_LIST, param_name=PARAM_NAME):
    """Check that ``data_format`` is one of ``check_list``."""
    if data_format is None:
        raise TbeArgumentError(f"In op, the input[{param_name}]'s format could not be none.")
    if data_format not in check_list:
        raise TbeArgumentError(f"In op, the format of input[{param_name}] should be one of [{','.join(check_list)}]"
                               f", but actually is [{data_format}].")


def check_kernel_name(kernel_name):
    """A kernel name is a str of at most 200 characters: letters, digits and '_', not starting with a digit."""
    if not isinstance(kernel_name, str):
        raise TbeArgumentError(f"kernel name must be string type, but actually is [{type(kernel_name).__name__}].")
    if len(kernel_name) > MAX_KERNEL_NAME_LEN:
        raise TbeArgumentError(f"kernel_name len must be less than {MAX_KERNEL_NAME_LEN}, but got "
                               f"{len(kernel_name)}")
    if not _KERNEL_NAME_PATTERN.match(kernel_name):
        raise TbeArgumentError(f"kernel_name [{kernel_name}] can only contain letters, numbers and underscores, and "
                               f"begin with underscores or letters")


def is_scalar(shape) -> bool:
    """Whether ``shape`` is the one-element shape ``[1]``."""
    return isinstance(shape, (list, tuple)) and len(shape) == 1 and shape[0] == 1


def _check_tensor_dict(param, param_name, op_name):
    if not isinstance(param, dict):
        raise _type_error(op_name, param_name, "dict", param)
    for key in (OpParamInfoKey.SHAPE, OpParamInfoKey.FORMAT, OpParamInfoKey.ORI_SHAPE, OpParamInfoKey.ORI_FORMAT,
                OpParamInfoKey.D_TYPE):
        if key not in param:
            raise TbeArgumentError(f"In op[{op_name}], the input[{param_name}] does not contain the item[{key}].")
    where = f"In op[{op_name}], input[{param_name}]"
    check_shape(pinned_shape(param["shape"], param.get("range"), where, keep_unknown=True), param_name=param_name)
    ori_shape = param["ori_shape"]
    if isinstance(ori_shape, (list, tuple)) and not any(isinstance(d, int) and d < 0 for d in ori_shape):
        check_shape(ori_shape, param_name=param_name)
    for key in (OpParamInfoKey.FORMAT, OpParamInfoKey.ORI_FORMAT):
        if param[key] not in ALL_FORMAT_LIST:
            raise TbeArgumentError(f"In op[{op_name}], the {key.replace('_', ' ')} of input[{param_name}] should be "
                                   f"one of [{','.join(ALL_FORMAT_LIST)}], but actually is [{param[key]}].")
    dtype = param[OpParamInfoKey.D_TYPE]
    if not isinstance(dtype, str) or dtype.lower() not in ALL_DTYPE_LIST:
        raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}]'s dtype should be one of "
                               f"[{','.join(ALL_DTYPE_LIST)}], but actually is [{dtype}].")


def _check_tensor_param(param, param_name, kind, op_name):
    if kind in (REQUIRED_INPUT, REQUIRED_OUTPUT):
        if param is None:
            raise _missing(op_name, param_name)
        _check_tensor_dict(param, param_name, op_name)
    elif kind in (OPTION_INPUT, OPTION_OUTPUT):
        if param is not None:
            _check_tensor_dict(param, param_name, op_name)
    else:  # dynamic input/output: a non-empty list of dicts
        if not isinstance(param, (list, tuple)):
            raise _type_error(op_name, param_name, "list tuple", param)
        if not param:
            raise _missing(op_name, param_name)
        for one in param:
            _check_tensor_dict(one, param_name, op_name)


def _check_attr(value, param_name, kind, op_name):
    if value is None and kind in REQUIRED_ATTR_KINDS:
        raise _missing(op_name, param_name)
    if not value:  # CANN skips empty / zero / False values
        return
    base = kind.split("_", 1)[1]
    if base == "ATTR_TYPE":
        if value not in ALL_DTYPE_LIST:
            raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}]'s dtype should be one of "
                                   f"[{','.join(ALL_DTYPE_LIST)}], but actually is [{value}].")
        return
    if base == "ATTR_LIST_LIST_INT":
        if not isinstance(value, (list, tuple)):
            raise _type_error(op_name, param_name, "list tuple", value)
        for inner in value:
            if not isinstance(inner, (list, tuple)):
                raise _type_error(op_name, param_name, "list tuple", inner)
            for element in inner:
                if not isinstance(element, int):
                    raise _type_error(op_name, param_name, "int", element)
        return
    py_type, type_name, is_list = _ATTR_TYPES[base]
    if not is_list:
        if not isinstance(value, py_type):
            raise _type_error(op_name, param_name, type_name, value)
        return
    if not isinstance(value, (list, tuple)):
        raise _type_error(op_name, param_name, "list tuple", value)
    for element in value:
        if not isinstance(element, py_type):
            raise _type_error(op_name, param_name, type_name, element)


def _check_alternatives(value, param_name, kinds: tuple, op_name):
    """A tuple of kinds, e.g. ``(OPTION_ATTR_INT, OPTION_ATTR_LIST_INT)``: the value must pass one of them."""
    if not kinds:
        raise TbeArgumentError(f"In op[{op_name}], check_op_params got an empty tuple of parameter types for "
                               f"parameter[{param_name}]")
    failures = []
    for kind in kinds:
        try:
            _check_one(value, param_name, kind, op_name)
            return
        except TbeArgumentError as exc:
            failures.append(f"as {kind}: {exc}")
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}] ({type(value).__name__} {value!r}) "
                           f"matches none of its alternative types: " + "; ".join(failures))


def _check_one(value, param_name, kind, op_name):
    if isinstance(kind, tuple):
        _check_alternatives(value, param_name, kind, op_name)
    elif kind in INPUT_KINDS or kind in OUTPUT_KINDS:
        _check_tensor_param(value, param_name, kind, op_name)
    elif kind == KERNEL_NAME:
        if value is not None:
            check_kernel_name(value)
    elif kind in REQUIRED_ATTR_KINDS or kind in OPTION_ATTR_KINDS:
        _check_attr(value, param_name, kind, op_name)
    else:
        raise TbeArgumentError(f"In op[{op_name}], check_op_params got an unknown parameter type {kind!r} for "
                               f"parameter[{param_name}]")


def check_op_params(*type_args, **type_kwargs):
    """Decorator checking an op entry function's arguments by kind (REQUIRED_INPUT, OPTION_ATTR_FLOAT,
    KERNEL_NAME ...), one kind per parameter in order; a tuple of kinds accepts a value that passes any of them.
    Only arguments actually passed are checked.  While the op runs, its name is the one errors report
    (:func:`te_compat.surface.opname.current_op_name`)."""
    del type_kwargs  # accepted for CANN compatibility; it carries nothing the checks use

    def decorator(func):
        names = list(inspect.signature(func).parameters)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            op_name = func.__name__
            if len(args) > len(type_args):
                raise TbeArgumentError(f"In op[{op_name}], check_op_params declares {len(type_args)} parameter "
                                       f"type(s) but the op was called with {len(args)} positional arguments")
            for name, value, kind in zip(names, args, type_args):
                _check_one(value, name, kind, op_name)
            for key, value in kwargs.items():
                position = names.index(key) if key in names else len(type_args)
                if position < len(type_args):
                    _check_one(value, key, type_args[position], op_name)
            with op_name_scope(op_name):
                return func(*args, **kwargs)

        return wrapper

    return decorator


def check_elewise_shape_range(inputs, support_broadcast=False):
    """The input dicts' shapes must be equal (or, with ``support_broadcast``, broadcastable)."""
    shapes = [pinned_shape(d["shape"], d.get("range"), f"input {i}") for i, d in enumerate(inputs)]
    rank = max((len(s) for s in shapes), default=0)
    padded = [[1] * (rank - len(s)) + list(s) for s in shapes]
    for axis in range(rank):
        dims = {s[axis] for s in padded}
        if len(dims) > 1 and not (support_broadcast and len(dims - {1}) <= 1):
            raise TbeArgumentError(f"In op, the input shapes {[list(s) for s in shapes]} do not match at axis "
                                   f"{axis}" + ("" if support_broadcast else " (broadcast is not supported)"))


__all__ = [
    "SHAPE_SIZE_LIMIT", "SHAPE_SIZE_ZERO", "RANK_ZERO", "RANK_LIMIT", "DIM_LIMIT", "ZERO_DIM", "MAX_KERNEL_NAME_LEN",
    "MAX_KERNEL_NAEM_LEN", "OP_NAME", "PARAM_NAME", "MIN_UNKOWN_SHAPE_RANK", "MAX_UNKOWN_SHAPE_NUM",
    "MAX_UNKNOWN_SHAPE_NUM", "CONST", "SPECIAL", "ORIGINAL", "SPECIAL_SCALAR", "COMMON", "BROADCAST",
    "REQUIRED_INPUT", "OPTION_INPUT", "DYNAMIC_INPUT",
    "REQUIRED_OUTPUT", "OPTION_OUTPUT", "DYNAMIC_OUTPUT", "KERNEL_NAME", *REQUIRED_ATTR_KINDS, *OPTION_ATTR_KINDS,
    "OpParamInfoKey", "TensorFormat", "ALL_FORMAT_LIST", "ALL_DTYPE_LIST", "check_op_params", "check_shape",
    "check_dtype", "check_format", "check_kernel_name", "check_elewise_shape_range", "is_scalar",
]
