"""Cheap reads of environment variables on per-call paths.

``os.environ.get`` costs ~1-2 µs (it encodes the key and decodes the value every time); the runtime reads
``NPUSIM_SOC`` and ``NPUSIM_SAT_MODE`` on every kernel launch to resolve the default target.  CPython's
``os.environ`` keeps its encoded items in ``_data``, which ``os.environ[...] = ...``, ``del os.environ[...]`` and
pytest's monkeypatch all go through; :class:`EnvVar` reads it directly (~0.05 µs) where it exists and falls back to
``os.environ.get`` elsewhere (other interpreters, Windows).

    SOC = EnvVar("NPUSIM_SOC")
    SOC.token()     # opaque: equal tokens mean equal values (None when unset)
    SOC.text()      # the value as str (None when unset)
"""
from __future__ import annotations

import os
from typing import Optional, Union

_DATA = getattr(os.environ, "_data", None)
_ENCODE = getattr(os.environ, "encodekey", None)


class EnvVar:
    """One environment variable, its encoded key computed once."""

    __slots__ = ("name", "_key")

    def __init__(self, name: str):
        self.name = name
        self._key = _ENCODE(name) if _DATA is not None and _ENCODE is not None else None

    def token(self) -> Union[bytes, str, None]:
        """The value as an opaque token (None when unset); decode it with :meth:`text` only when it changed."""
        if self._key is not None:
            return _DATA.get(self._key)
        return os.environ.get(self.name)

    def text(self) -> Optional[str]:
        """The value (None when unset)."""
        return os.environ.get(self.name)

    def __repr__(self) -> str:
        return f"EnvVar({self.name!r})"


__all__ = ["EnvVar"]
