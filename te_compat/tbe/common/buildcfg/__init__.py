"""``tbe.common.buildcfg``: ``build_config(**options)`` contexts, get/set_current_build_config."""
from te_compat.surface.buildcfg import (  # noqa: F401
    BuildConfig, build_config, current_build_config, get_current_build_config, set_current_build_config)

__all__ = ["BuildConfig", "build_config", "current_build_config", "get_current_build_config",
           "set_current_build_config"]
