"""``tbe.common.platform.platform_info``: SoC queries (see :mod:`te_compat.surface.platform`)."""
from te_compat.surface.platform import (  # noqa: F401
    api_check_support, get_align_factor, get_bit_len, get_block_size, get_soc_info, get_soc_spec,
    intrinsic_check_support, set_current_compile_soc_info)

__all__ = ["api_check_support", "get_align_factor", "get_bit_len", "get_block_size", "get_soc_info", "get_soc_spec",
           "intrinsic_check_support", "set_current_compile_soc_info"]
