"""More ``topi.cce.util`` helpers of 2019-2020 op files (also served by ``para_check`` / ``op_utils``, which took
them over): the 5HD reduce predicate, ``get_divisors``, ``axis_transfrom_5d``, ``get_device_api_dtype``.

``check_and_init_5hdc_reduce_support(x, axis)`` answers as CANN's does: True only for an NC1HWC0 float16 input
reduced over both C1 (axis 1) and C0 (axis 4), which then needs its original shape and format.  CANN's 5HD reduce
schedule uses them to leave the C0 padding out of the reduction; npusim's reduce schedule has no such mask, so when
the original shape shows the channels were padded (C is not a multiple of C0) the predicate raises
:class:`~npusim.errors.UnsupportedError` instead of letting a reduce include the padded values.
"""
from __future__ import annotations

from npusim.errors import TbeArgumentError, UnsupportedError

C0_FLOAT16 = 16  # channels per C0 block of a float16 NC1HWC0 tensor
_DEVICE_API_DTYPES = {"float32": 0, "float16": 1, "int32": 2, "double": 3}


def _channels(ori_shape, ori_format):
    """C of the original (pre-5HD) shape, or None when its format does not say where C is."""
    if not isinstance(ori_format, str) or "C" not in ori_format or not isinstance(ori_shape, (list, tuple)):
        return None
    if len(ori_format) != len(ori_shape):
        return None
    channels = ori_shape[ori_format.index("C")]
    return channels if isinstance(channels, int) and channels > 0 else None


def check_and_init_5hdc_reduce_support(input_tensor, axis, kernel_name=None) -> bool:
    """Whether a reduce of ``input_tensor`` over ``axis`` takes CANN's 5HD path (NC1HWC0, float16, axes 1 and 4).

    Raises :class:`~npusim.errors.TbeArgumentError` when that path has no ``ori_shape`` / ``ori_format`` (as CANN
    does) and :class:`~npusim.errors.UnsupportedError` when the original channel count shows C0 padding.
    """
    del kernel_name  # CANN keys the original shape by it for its schedule; npusim's schedule does not read it
    if not isinstance(input_tensor, dict):
        raise TbeArgumentError(f"check_and_init_5hdc_reduce_support: the input must be a tensor dict, got "
                               f"{type(input_tensor).__name__}")
    axes = [axis] if isinstance(axis, int) else list(axis)
    if input_tensor.get("format") != "NC1HWC0" or input_tensor.get("dtype") != "float16":
        return False
    if 1 not in axes or 4 not in axes:
        return False
    if "ori_shape" not in input_tensor or "ori_format" not in input_tensor:
        raise TbeArgumentError("Original shape needed for 5HD reduce: the NC1HWC0 input has no ori_shape / "
                               "ori_format")
    channels = _channels(input_tensor["ori_shape"], input_tensor["ori_format"])
    if channels is not None and channels % C0_FLOAT16:
        raise UnsupportedError(f"5HD reduce over C1 and C0 of an input whose {channels} channels (ori_shape "
                               f"{list(input_tensor['ori_shape'])}, {input_tensor['ori_format']}) are padded to a "
                               f"multiple of {C0_FLOAT16}: npusim's reduce schedule does not mask the C0 padding, "
                               f"so the padded values would enter the result")
    return True


def get_divisors(num: int) -> list:
    """The positive divisors of ``num`` in increasing order ([] for num < 1)."""
    return [d for d in range(1, num + 1) if num % d == 0] if num >= 1 else []


def get_device_api_dtype(dtype: str) -> int:
    """The device-API number of a dtype (float32 0, float16 1, int32 2, double 3)."""
    if dtype not in _DEVICE_API_DTYPES:
        raise TbeArgumentError(f"get_device_api_dtype: no device-API number for dtype {dtype!r} (known: "
                               f"{', '.join(_DEVICE_API_DTYPES)})")
    return _DEVICE_API_DTYPES[dtype]


def axis_transfrom_5d(axis: int, data_format: str) -> int:  # CANN's spelling
    """The NC1HWC0 axis of a 4-D (NCHW / NHWC) axis: NCHW shifts negative axes by one; NHWC maps C to C1."""
    if data_format == "NCHW":
        return axis - 1 if axis < 0 else axis
    if data_format == "NHWC":
        return {-4: -5, -1: -4, 1: 2, 2: 3, 3: 1}.get(axis, axis)
    return axis


__all__ = ["axis_transfrom_5d", "check_and_init_5hdc_reduce_support", "get_device_api_dtype", "get_divisors"]
