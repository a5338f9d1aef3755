"""``te.platform``: SoC queries (``get_soc_spec``, ``api_check_support``, ``te_set_version`` ...), the
``cce_params`` constants and the ``cce_conf``, ``cce_params``, ``cce_policy``, ``fusion_manager`` and ``cce_build``
submodules."""
from te_compat.surface.params import *  # noqa: F401,F403
from te_compat.surface.params import __all__ as _param_names
from te_compat.surface.platform import (  # noqa: F401
    CceProductParams, api_check_support, get_soc_spec, intrinsic_check_support, set_current_compile_soc_info,
    te_set_version)
from te_compat.te.platform import cce_build, cce_conf, cce_params, cce_policy, fusion_manager  # noqa: F401
from te_compat.te.platform.cce_build import build_config  # noqa: F401

__all__ = [*_param_names, "CceProductParams", "api_check_support", "build_config", "cce_build", "cce_conf",
           "cce_params", "cce_policy", "fusion_manager", "get_soc_spec", "intrinsic_check_support",
           "set_current_compile_soc_info", "te_set_version"]
