"""``build_config``: TBE/TVM build options as a context manager (``with tvm.build_config(dump_pass_ir=True):``).

CANN exposes it in three forms, all supported here: ``te.platform.cce_build.build_config`` (an object used directly
in ``with``), ``tvm.build_config(**kwargs)`` and ``tbe.common.buildcfg.build_config(**kwargs)`` (calls returning
one).  Options are plain key/value pairs; npusim's build (``te_compat.build``) may read them with
:func:`current_build_config`.  ``get_current_build_config(key)`` answers the keys op files query.
"""
from __future__ import annotations

from types import MappingProxyType

from npusim.errors import TbeArgumentError
from npusim.util.context_stack import ContextStack

#: defaults of the options op files query with get_current_build_config
DEFAULT_OPTIONS = MappingProxyType({
    "enable_op_prebuild": False, "bool_storage_as_1bit": True, "double_buffer_non_reuse": False,
    "dummy_placeholder": False, "dump_pass_ir": False, "enable_vector_2x": True, "dynamic_shape": False,
    "sync_mode": 2, "save_temp_cce_file": False, "parse_ddr_args": False, "l1_fusion_option": False,
    "ub_fusion_option": False, "InjectSync": True,
})

_ACTIVE = ContextStack("npusim_tbe_build_configs")  # entered BuildConfig objects (per thread and task)


class BuildConfig:
    """A set of build options; entering it (``with``) makes it current.  Calling it returns a copy with more options."""

    def __init__(self, options=None, **kwargs):
        self.options = MappingProxyType({**(options or {}), **kwargs})
        self.__dict__["_tokens"] = []

    def __call__(self, **kwargs) -> "BuildConfig":
        return BuildConfig(dict(self.options), **kwargs)

    def __enter__(self) -> "BuildConfig":
        self._tokens.append(_ACTIVE.push(self))
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.pop(self._tokens.pop())

    def __getattr__(self, name):
        options = self.__dict__.get("options", {})
        if name in options:
            return options[name]
        if name in DEFAULT_OPTIONS:
            return DEFAULT_OPTIONS[name]
        raise AttributeError(f"build_config has no option {name!r}")

    def __repr__(self) -> str:
        return f"BuildConfig({dict(self.options)})"


#: ``te.platform.cce_build.build_config``: the default config object (usable as ``with build_config:``)
build_config = BuildConfig()


def current_build_config() -> dict:
    """The options in effect: defaults overridden by every entered config, innermost last."""
    merged = dict(DEFAULT_OPTIONS)
    for config in _ACTIVE.items():
        merged.update(config.options)
    return merged


def get_current_build_config(key=None):
    """All current options (no key) or the value of ``key``; raises for an option npusim does not know."""
    options = current_build_config()
    if key is None:
        return options
    if key not in options:
        raise TbeArgumentError(f"get_current_build_config: unknown build option {key!r}; known: "
                               f"{', '.join(sorted(options))}")
    return options[key]


def set_current_build_config(key, value) -> None:
    """Set ``key`` in the innermost entered config (raises outside any ``with build_config``)."""
    innermost = _ACTIVE.top()
    if innermost is None:
        raise TbeArgumentError("set_current_build_config needs an active build_config context")
    innermost.options = MappingProxyType({**innermost.options, key: value})


__all__ = ["BuildConfig", "DEFAULT_OPTIONS", "build_config", "current_build_config", "get_current_build_config",
           "set_current_build_config"]
