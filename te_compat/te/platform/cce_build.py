"""``te.platform.cce_build``: ``build_config`` (usable as ``with build_config:``)."""
from te_compat.surface.buildcfg import BuildConfig, build_config, get_current_build_config  # noqa: F401

__all__ = ["BuildConfig", "build_config", "get_current_build_config"]
