"""``tbe.common.platform``: set_current_compile_soc_info, get_soc_spec, api_check_support,
intrinsic_check_support, the ``cce_params`` constants, and ``platform_info``."""
from te_compat.surface.params import *  # noqa: F401,F403
from te_compat.surface.params import __all__ as _param_names
from te_compat.surface.platform import (  # noqa: F401
    api_check_support, get_align_factor, get_bit_len, get_block_size, get_soc_spec, intrinsic_check_support,
    set_current_compile_soc_info)
from te_compat.tbe.common.platform import platform_info  # noqa: F401

__all__ = [*_param_names, "api_check_support", "get_align_factor", "get_bit_len", "get_block_size", "get_soc_spec",
           "intrinsic_check_support", "platform_info", "set_current_compile_soc_info"]
