"""Handing built kernels to the code that asked for a build, as objects (no re-reading of kernel_meta).

Code that runs a user's build function (``ops.Custom(func_type="tbe")`` calling an impl) opens a collector
around the call; every ``cce_build_code`` / ``tbe.dsl.build`` made inside it reports its
:class:`~te_compat.build.cce.BuildResult` (the lowered npusim ``Kernel``, its argument specs, the JSON's content
and path) to the innermost open collector::

    with collect_builds() as builds:
        impl(*dicts, kernel_name=name)
    result = builds.pick(name)          # the kernel named ``name``, else the only one built; None otherwise

The kernel_meta files are still written as CANN writes them (``npusim profile``, users and a new process read
them); the collector only spares the caller reading back what was just lowered.  The collector is scoped by a
ContextVar, like :func:`~te_compat.build.kernel_meta.kernel_meta_override`: builds made in other threads or
contexts do not reach it, exactly as their files do not reach the overridden kernel_meta directory.
"""
from __future__ import annotations

import contextlib
import contextvars
from pathlib import Path
from typing import Optional

_active: contextvars.ContextVar = contextvars.ContextVar("npusim_build_collector", default=None)


class BuildCollector:
    """The builds reported inside one :func:`collect_builds` block, in the order they were made."""

    def __init__(self):
        self._results: list = []

    def report(self, result) -> None:
        """Record one build (a BuildResult)."""
        self._results.append(result)

    @property
    def results(self) -> tuple:
        """Every build reported, written to kernel_meta or not (``need_build=False``)."""
        return tuple(self._results)

    def written(self, directory=None) -> dict:
        """Kernel name -> the latest build of that name that wrote kernel files (in ``directory`` only, when
        given); a later build of a name replaces an earlier one, as its files do."""
        where = None if directory is None else Path(directory)
        return {r.name: r for r in self._results
                if r.json_path is not None and (where is None or Path(r.json_path).parent == where)}

    def names(self, directory=None) -> list[str]:
        """Sorted names of the kernels written (in ``directory`` only, when given)."""
        return sorted(self.written(directory))

    def pick(self, kernel_name: str, directory=None) -> Optional[object]:
        """The written build named ``kernel_name``, else the only kernel written; None if none or ambiguous (what
        a look at the kernel_meta ``directory`` would find, without reading it)."""
        written = self.written(directory)
        if kernel_name in written:
            return written[kernel_name]
        return next(iter(written.values())) if len(written) == 1 else None


@contextlib.contextmanager
def collect_builds():
    """Collect the builds made inside the ``with`` block (this context and the code it calls); yields the
    :class:`BuildCollector`.  Nested blocks each collect their own builds."""
    collector = BuildCollector()
    token = _active.set(collector)
    try:
        yield collector
    finally:
        _active.reset(token)


def report_build(result) -> None:
    """Give ``result`` to the innermost open collector (nothing happens outside :func:`collect_builds`)."""
    collector = _active.get()
    if collector is not None:
        collector.report(result)


__all__ = ["BuildCollector", "collect_builds", "report_build"]
