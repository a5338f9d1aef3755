"""``tvm.build_module`` of CANN's TVM: ``build_config`` (see :mod:`te_compat.surface.buildcfg`)."""
from te_compat.surface.buildcfg import BuildConfig, build_config, current_build_config  # noqa: F401

__all__ = ["BuildConfig", "build_config", "current_build_config"]
