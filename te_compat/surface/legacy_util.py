"""``topi.cce.util``: the checks and shape helpers of 2019-2020 (``te.lang.cce``-style) op files.

Like CANN, failed checks raise ``RuntimeError`` (:class:`~npusim.errors.TbeArgumentError`); ``check_kernel_name``
raises the same class for an over-long name, where CANN raised ``ValueError`` (TbeArgumentError is both).
"""
from __future__ import annotations

import functools
import inspect
from math import prod

from npusim.errors import TbeArgumentError
from te_compat.surface.checks import check_kernel_name as _check_kernel_name_strict
from te_compat.surface.checks import is_scalar  # noqa: F401  (re-exported)
from te_compat.surface.legacy_extra import (  # noqa: F401  (re-exported)
    axis_transfrom_5d, check_and_init_5hdc_reduce_support, get_device_api_dtype, get_divisors)
from te_compat.surface.opname import op_name_scope
from te_compat.surface.platform import get_product_version
from te_compat.surface.shapes import (  # noqa: F401  (re-exported)
    axis_check, produce_shapes, refine_axis, refine_shape_axes, scalar2tensor_one, shape_refine, shape_to_list,
    simplify_axis_shape)

DEFAULT_MIN_SHAPE_DIM = 1
DEFAULT_MAX_SHAPE_DIM = 8
DEFAULT_MAX_SHAPE_NUM = 200000000
MAX_REDUCE_SHAPE_NUM = 200000000
MAX_KERNEL_NAEM_LEN = 200
SHAPE_SIZE_LIMIT = 2 ** 31
VERSION_CLOUD = "cloud"
VERSION_MINI = "mini"
VERSION_SHISI = "smallhisi"
VERSION_MINI_1951 = "mini_1951"
VERSION_MINI_1951M = "mini_1951m"


def check_input_type_dict(input_dict, input_key, input_name):
    """A tensor dict's keys must be among ``input_key``; its shape a list/tuple and its dtype a str."""
    for key, value in input_dict.items():
        if key not in input_key:
            raise TbeArgumentError(f"Input parameter [{input_name}] has an unexpected key [{key}].")
        if key == "shape" and not isinstance(value, (list, tuple)):
            raise TbeArgumentError(f"Input parameter [{input_name}]: shape must be a list or tuple, got "
                                   f"[{type(value).__name__}].")
        if key == "dtype" and not isinstance(value, str):
            raise TbeArgumentError(f"Input parameter [{input_name}]: dtype must be a str, got "
                                   f"[{type(value).__name__}].")


def check_input_type(*type_args, **type_kwargs):
    """Decorator: each passed argument must be an instance of the type (or tuple of types) given for it."""
    del type_kwargs

    def decorator(func):
        names = list(inspect.signature(func).parameters)

        def check(name, value, expected):
            if isinstance(value, dict):
                check_input_type_dict(value, value.keys(), name)
            if not isinstance(value, expected):
                raise TbeArgumentError(f"Input parameter type error in op[{func.__name__}]: [{name}] should be "
                                       f"{expected}, but actually is [{type(value).__name__}].")

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if len(args) > len(type_args):
                raise TbeArgumentError(f"check_input_type of op[{func.__name__}] declares {len(type_args)} types "
                                       f"but the op was called with {len(args)} positional arguments")
            for name, value, expected in zip(names, args, type_args):
                check(name, value, expected)
            for key, value in kwargs.items():
                if key in names and names.index(key) < len(type_args):
                    check(key, value, type_args[names.index(key)])
            with op_name_scope(func.__name__):
                return func(*args, **kwargs)

        return wrapper

    return decorator


def check_dtype_rule(dtype, check_list, param_name=""):
    """``dtype`` (case-insensitive) must be in ``check_list``."""
    if dtype is None:
        raise TbeArgumentError(f"dtype of [{param_name}] is None")
    if dtype.lower() not in check_list:
        raise TbeArgumentError(f"The data type [{dtype}] of [{param_name}] is not supported; supported: "
                               f"{list(check_list)}")


def check_shape_rule(shape, min_dim=None, max_dim=None, max_shape_num=None):
    """A shape is a list/tuple of 1..8 (or [min_dim, max_dim]) positive ints, each at most max_shape_num."""
    min_dim = DEFAULT_MIN_SHAPE_DIM if min_dim is None else min_dim
    max_dim = DEFAULT_MAX_SHAPE_DIM if max_dim is None else max_dim
    max_shape_num = DEFAULT_MAX_SHAPE_NUM if max_shape_num is None else max_shape_num
    if not isinstance(shape, (tuple, list)):
        raise TbeArgumentError(f"Wrong type of input shape [{type(shape).__name__}]: the shape must be a tuple "
                               f"or list")
    if not min_dim <= len(shape) <= max_dim:
        raise TbeArgumentError(f"The ndim of input must be in [{min_dim}, {max_dim}], actual input is {len(shape)}")
    for dim in shape:
        if type(dim) is not int or not 0 < dim <= max_shape_num:
            raise TbeArgumentError(f"The type of axis must be positive int and value more than 0 and at most "
                                   f"{max_shape_num}, got {dim!r} in shape {list(shape)}")


def check_shape_size(shape, limit=SHAPE_SIZE_LIMIT):
    """The element count of ``shape``; raises if it exceeds ``limit`` (default 2^31, as ``para_check``'s)."""
    size = prod(shape)
    if size > limit:
        raise TbeArgumentError(f"the shape {list(shape)} is too large to calculate ({size} > {limit} elements)")
    return size


def check_tensor_shape_size(shape):
    """:func:`check_shape_size` with the 2^31 element limit."""
    return check_shape_size(shape, SHAPE_SIZE_LIMIT)


def check_reduce_shape_rule(shape):
    """The element count of a reduce input is at most 200 000 000."""
    size = prod(shape)
    if size > MAX_REDUCE_SHAPE_NUM:
        raise TbeArgumentError(f"The all reduce axis num of shape must be less than {MAX_REDUCE_SHAPE_NUM}, actual "
                               f"input is {size}")


def check_reduce_need_refine(shape, reduce_axis) -> bool:
    """False when a reduced axis has size 1 (then shape_refine must not drop 1-dims)."""
    axes = reduce_axis if isinstance(reduce_axis, (list, tuple)) else [reduce_axis]
    return all(shape[a] != 1 for a in axes)


def check_kernel_name(kernel_name):
    """``topi`` variant: None is accepted and a non-str name is converted with ``str`` first."""
    if kernel_name is None:
        return
    _check_kernel_name_strict(kernel_name if isinstance(kernel_name, str) else str(kernel_name))


def compare_tensor_dict_key(dict1, dict2, dict_key):
    """Both tensor dicts must hold equal values for ``dict_key`` (strings compared case-insensitively)."""
    for name, tensor in (("dict1", dict1), ("dict2", dict2)):
        if not isinstance(tensor, dict):
            raise TbeArgumentError(f"the input {name} is not dict")
        if dict_key not in tensor:
            raise TbeArgumentError(f"the input {name} has no value for [{dict_key}]")
    value1, value2 = dict1[dict_key], dict2[dict_key]
    if isinstance(value1, (list, tuple)) and isinstance(value2, (list, tuple)):
        equal = list(value1) == list(value2)
    elif isinstance(value1, str) and isinstance(value2, str):
        equal = value1.lower() == value2.lower()
    else:
        equal = type(value1) is type(value2) and value1 == value2
    if not equal:
        raise TbeArgumentError(f"Input one and input two are not equal in [{dict_key}]: {value1!r} vs {value2!r}")


def is_cloud_version() -> bool:
    return get_product_version() == VERSION_CLOUD


def is_mini_version() -> bool:
    return get_product_version() == VERSION_MINI


def is_lhisi_version() -> bool:
    return False  # no Hi3796 chip is modelled


def is_mini_or_lhisi_version() -> bool:
    return is_mini_version()


def is_v200_version() -> bool:
    return False  # no Ascend610/620 chip is modelled


__all__ = [
    "DEFAULT_MIN_SHAPE_DIM", "DEFAULT_MAX_SHAPE_DIM", "DEFAULT_MAX_SHAPE_NUM", "MAX_REDUCE_SHAPE_NUM",
    "MAX_KERNEL_NAEM_LEN", "SHAPE_SIZE_LIMIT", "VERSION_CLOUD", "VERSION_MINI", "VERSION_MINI_1951",
    "VERSION_MINI_1951M", "VERSION_SHISI", "axis_check", "axis_transfrom_5d", "check_and_init_5hdc_reduce_support",
    "check_dtype_rule", "get_device_api_dtype", "get_divisors",
    "check_input_type", "check_input_type_dict", "check_kernel_name", "check_reduce_need_refine",
    "check_reduce_shape_rule", "check_shape_rule", "check_shape_size", "check_tensor_shape_size",
    "compare_tensor_dict_key", "get_product_version", "is_cloud_version", "is_lhisi_version", "is_mini_or_lhisi_version",
    "is_mini_version", "is_scalar", "is_v200_version", "produce_shapes", "refine_axis", "refine_shape_axes",
    "scalar2tensor_one", "shape_refine", "shape_to_list", "simplify_axis_shape",
]
