"""``te.platform.cce_conf``: SoC queries and selection (see :mod:`te_compat.surface.platform`)."""
from te_compat.surface.platform import (  # noqa: F401
    CceProductParams, api_check_support, get_product_version, get_soc_spec, intrinsic_check_support,
    set_current_compile_soc_info, te_set_version)
from te_compat.surface.platform import get_product_param as getValue  # noqa: F401  (CANN 2019 name)
from te_compat.surface.params import (  # noqa: F401
    AICORE_TYPE, CORE_NUM, CUBE_SIZE, L0A_SIZE, L0B_SIZE, L0C_SIZE, L1_SIZE, L2_SIZE, SHORT_SOC_VERSION, SOC_VERSION,
    UB_SIZE)

__all__ = ["AICORE_TYPE", "CORE_NUM", "CUBE_SIZE", "CceProductParams", "L0A_SIZE", "L0B_SIZE", "L0C_SIZE", "L1_SIZE",
           "L2_SIZE", "SHORT_SOC_VERSION", "SOC_VERSION", "UB_SIZE", "api_check_support", "getValue",
           "get_product_version", "get_soc_spec", "intrinsic_check_support", "set_current_compile_soc_info",
           "te_set_version"]
