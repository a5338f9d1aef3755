"""The :class:`Runtime`: the target, the simulated device, the caches, the profiler sinks and the long-lived
resources (the AICPU worker ...) that everything below the API edge is handed explicitly.

    rt = current_runtime()          # the API edge: once per user call (Custom op, cce_build_code, Device() ...)
    rt.target.chip, rt.device       # passed down explicitly from here
    rt.cache("tbe.built", 256)      # one BoundedCache per name, shared by the runtimes of a store

Which runtime is current: the one activated in this context (``with rt.activate():`` or
``with use_target("Ascend310"):`` — a ContextVar, so threads and nested contexts each see their own), else the
process default for the default target.  The default target follows :func:`set_chip` (else ``NPUSIM_SOC``, else
Ascend910), :func:`set_overflow_mode` (else ``NPUSIM_SAT_MODE``, else the chip's default) and the core limit TBE's
``te_set_version`` sets; ``npusim profile --soc`` sets it too.

Runtimes that share a :class:`RuntimeStore` share its caches, profiler sinks, resources and chip catalog; each
target gets its own device.  The process has one store (every default runtime and every runtime made with
:meth:`Runtime.with_target` or :func:`use_target` uses it); :func:`new_runtime` makes one with a fresh store, for
work that must not share anything (tests, isolated sweeps).
"""
from __future__ import annotations

import atexit
import contextlib
import threading
from contextvars import ContextVar
from typing import Callable, Optional, Union

from npusim.sim import overflow
from npusim.sim.caches import SimCaches
from npusim.sim.chip import DEFAULT_CHIP, Chip, ChipCatalog
from npusim.sim.target import Target
from npusim.util.cache import BoundedCache, CacheStats
from npusim.util.env import EnvVar

ENV_VAR = "NPUSIM_SOC"
_SOC_ENV, _SAT_ENV = EnvVar(ENV_VAR), EnvVar(overflow.ENV_VAR)
_DEFAULT_TARGETS = 64    # default targets remembered per (selection, environment) key


class RuntimeStore:
    """What the runtimes of one store share: named caches, profiler sinks, resources, the chip catalog, the
    simulator's caches, and one device per target."""

    def __init__(self):
        self._lock = threading.RLock()
        self._caches: dict = {}
        self._resources: dict = {}
        self._runtimes: dict = {}
        self._devices: dict = {}
        self.sinks: list = []          # active ProfileSessions (npusim.sim.profiler); devices notify each
        self.chips = ChipCatalog()
        self.sim = SimCaches()

    def cache(self, name: str, maxsize: int, on_evict: Optional[Callable] = None) -> BoundedCache:
        """The store's cache called ``name`` (made with ``maxsize`` on first use)."""
        found = self._caches.get(name)
        if found is None:
            with self._lock:
                found = self._caches.setdefault(name, BoundedCache(name, maxsize, on_evict))
        return found

    def resource(self, name: str, factory: Callable[[], object]):
        """The store's long-lived object ``name`` (a worker process, a loaded library ...), made by ``factory()``
        on first use.  Objects with a ``close()`` are closed by :meth:`close`."""
        found = self._resources.get(name)
        if found is None:
            with self._lock:
                found = self._resources.get(name)
                if found is None:
                    found = self._resources[name] = factory()
        return found

    def drop_resource(self, name: str):
        """Forget resource ``name`` (not closed) and return it, or None."""
        with self._lock:
            return self._resources.pop(name, None)

    def runtime_for(self, target: Target) -> "Runtime":
        """The runtime of ``target`` in this store (one per target key)."""
        found = self._runtimes.get(target.key)
        if found is None:
            with self._lock:
                found = self._runtimes.setdefault(target.key, Runtime(target, self))
        return found

    def device_for(self, target: Target):
        found = self._devices.get(target.key)
        if found is None:
            from npusim.sim.device import Device
            with self._lock:
                found = self._devices.get(target.key)
                if found is None:
                    found = self._devices[target.key] = Device(target.chip, runtime=self.runtime_for(target))
        return found

    def cache_stats(self) -> list:
        """:class:`CacheStats` of every cache of the store (named caches and the simulator's), by name."""
        caches = list(self._caches.values()) + list(self.sim.caches())
        return sorted((c.stats() for c in caches), key=lambda s: s.name)

    def close(self) -> None:
        """Close every resource that has a ``close()`` and forget them all (caches stay)."""
        with self._lock:
            resources, self._resources = list(self._resources.values()), {}
        for item in resources:
            closer = getattr(item, "close", None)
            if callable(closer):
                closer()


class Runtime:
    """A target (frozen) with the store whose device, caches, sinks and resources work for it."""

    __slots__ = ("target", "store")

    def __init__(self, target: Target, store: Optional[RuntimeStore] = None):
        self.target = target
        self.store = store if store is not None else RuntimeStore()

    @property
    def chip(self) -> Chip:
        return self.target.chip

    @property
    def device(self):
        """The simulated device of this runtime's target (made on first use, then reused)."""
        return self.store.device_for(self.target)

    @property
    def sim(self) -> SimCaches:
        return self.store.sim

    @property
    def sinks(self) -> list:
        return self.store.sinks

    def cache(self, name: str, maxsize: int, on_evict: Optional[Callable] = None) -> BoundedCache:
        return self.store.cache(name, maxsize, on_evict)

    def resource(self, name: str, factory: Callable[[], object]):
        return self.store.resource(name, factory)

    def cache_stats(self) -> list[CacheStats]:
        return self.store.cache_stats()

    def with_target(self, target: Target) -> "Runtime":
        """The runtime of ``target`` sharing this one's store."""
        return self if target == self.target else self.store.runtime_for(target)

    @contextlib.contextmanager
    def activate(self):
        """Make this runtime the current one inside the ``with`` block (this context and code it calls)."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)

    def __repr__(self) -> str:
        return f"Runtime({self.target!r})"


class _DefaultSelection:
    """The process default target's settings: set_chip's name, set_overflow_mode's mode, te_set_version's core
    limit and core type (None: the environment variable or the chip's default)."""

    def __init__(self):
        self.name: Optional[str] = None
        self.overflow_mode: Optional[str] = None
        self.core_num: Optional[int] = None
        self.core_type: Optional[str] = None
        self.last: tuple = (None, None)   # (key, runtime) of the latest resolution: the common case, one compare

    def key(self) -> tuple:
        """What the default target depends on (environment values as opaque tokens)."""
        return (self.name, _SOC_ENV.token(), self.overflow_mode, _SAT_ENV.token(), self.core_num, self.core_type)


#: the process's store and default selection: the one root of npusim's state (everything else hangs off them)
_PROCESS_STORE = RuntimeStore()
_SELECTION = _DefaultSelection()
_ACTIVE: ContextVar = ContextVar("npusim_runtime", default=None)


def process_store() -> RuntimeStore:
    """The store the process's default runtimes share."""
    return _PROCESS_STORE


def current_runtime() -> Runtime:
    """The runtime in use here: the one activated in this context, else the process default for the default
    target (see the module docstring).  Call it once at an API edge and pass the result down."""
    active = _ACTIVE.get()
    if active is not None:
        return active
    key = _SELECTION.key()
    last_key, runtime = _SELECTION.last
    if key == last_key:
        return runtime
    defaults = _PROCESS_STORE.cache("sim.default_targets", _DEFAULT_TARGETS)
    runtime = defaults.get(key)
    if runtime is None:  # only successful resolutions are stored: a bad setting raises on every call
        runtime = defaults.put(key, _PROCESS_STORE.runtime_for(_resolve_default(*key)))
    _SELECTION.last = (key, runtime)
    return runtime


def current_target() -> Target:
    """The target of :func:`current_runtime`."""
    return current_runtime().target


def current_chip() -> Chip:
    """The chip of :func:`current_runtime` (in its overflow mode)."""
    return current_runtime().target.chip


def get_chip(name: str = DEFAULT_CHIP, overflow_mode: Union[str, int, None] = None) -> Chip:
    """The chip model called ``name`` (aliases such as "Ascend910B" work), in its default overflow mode or in
    ``overflow_mode`` (OverflowModeError if the chip does not support it), from the process's chip catalog."""
    return _PROCESS_STORE.chips.get(name, overflow_mode)


def chip_names() -> list[str]:
    """Names of every chip model npusim ships, sorted."""
    return _PROCESS_STORE.chips.names()


def _resolve_default(selected_name, env_name, selected_mode, env_mode, core_num, core_type) -> Target:
    chips = _PROCESS_STORE.chips
    env_name, env_mode = _SOC_ENV.text() if env_name else None, _SAT_ENV.text() if env_mode else None
    chip = chips.get(selected_name or env_name or DEFAULT_CHIP)
    mode, origin = selected_mode, "set_overflow_mode"
    if mode is None and (env_mode or "").strip():
        origin = f"{overflow.ENV_VAR}={env_mode}"
        mode = overflow.parse_overflow_mode(env_mode, origin)
    if mode is not None:
        overflow.check_supported(chip.name, chip.overflow_modes, mode, origin)
        chip = chips.get(chip.name, mode)
    return Target.of(chip, core_num, core_type)


def set_chip(name: Optional[str]) -> Chip:
    """Select the default chip from now on (None: back to ``NPUSIM_SOC`` / Ascend910).  Returns the chip the
    current runtime now uses (a runtime activated in this context keeps its own target)."""
    _SELECTION.name = None if name is None else _PROCESS_STORE.chips.canonical_name(name)
    return current_chip()


def set_overflow_mode(mode: Union[str, int, None]) -> Chip:
    """Select the default floating-point overflow mode: "saturation" (0) or "inf_nan" (1), as CANN's
    set_device_sat_mode (None: back to ``NPUSIM_SAT_MODE`` / the chip's default).  Raises OverflowModeError,
    selecting nothing, if the default chip does not support the mode; once selected, :func:`current_runtime`
    raises it while the default chip is one without it.  Returns the chip in use."""
    if mode is not None:
        chip = _PROCESS_STORE.chips.get(_SELECTION.name or _SOC_ENV.text() or DEFAULT_CHIP)
        mode = overflow.check_supported(chip.name, chip.overflow_modes,
                                        overflow.parse_overflow_mode(mode, "set_overflow_mode"), "set_overflow_mode")
    _SELECTION.overflow_mode = mode
    return current_chip()


def set_default_cores(core_num: Optional[int] = None, core_type: Optional[str] = None) -> Target:
    """Limit the default target to ``core_num`` AI cores reported as ``core_type`` (None: the chip's count /
    "AiCore"), as TBE's ``te_set_version(soc, core_type, aicore_num)`` asks.  Returns the default target."""
    _SELECTION.core_num, _SELECTION.core_type = core_num, core_type
    return current_target()


def reset_defaults() -> None:
    """Back to the defaults the environment gives: no set_chip / set_overflow_mode / core limit (a test fixture's
    one call instead of undoing each setting)."""
    _SELECTION.name = _SELECTION.overflow_mode = _SELECTION.core_num = _SELECTION.core_type = None


def resolve_target(chip: Union[str, Chip, None] = None, overflow_mode: Union[str, int, None] = None,
                   core_num: Optional[int] = None, core_type: Optional[str] = None) -> Target:
    """A target from explicit settings.  Without ``chip`` the current target's chip, core limit and core type are
    kept; a new chip comes in its default overflow mode with all its cores, unless told otherwise."""
    base = current_target()
    if chip is None:
        model, cores, kind = base.chip, (base.core_num if core_num is None else core_num), core_type or base.core_type
    else:
        model = chip if isinstance(chip, Chip) else _PROCESS_STORE.chips.get(chip)
        cores, kind = core_num, core_type
    if overflow_mode is not None:
        model = model.with_overflow_mode(overflow_mode, "use_target")
    return Target.of(model, cores, kind)


@contextlib.contextmanager
def use_target(chip: Union[str, Chip, Target, None] = None, overflow_mode: Union[str, int, None] = None,
               core_num: Optional[int] = None, core_type: Optional[str] = None):
    """Run the ``with`` block on another target (the current runtime's store, so caches and profiler sinks are
    shared): ``with use_target("Ascend310"):`` or ``with use_target(overflow_mode="saturation"):``.  Yields the
    runtime; threads started inside do not inherit it (pass the runtime to them and ``activate()`` it)."""
    target = chip if isinstance(chip, Target) else resolve_target(chip, overflow_mode, core_num, core_type)
    with current_runtime().with_target(target).activate() as runtime:
        yield runtime


def new_runtime(target: Union[Target, str, None] = None) -> Runtime:
    """A runtime with a fresh store (its own device, caches, sinks and resources) for ``target`` (a Target, a chip
    name, or None: the current target)."""
    if target is None or isinstance(target, str):
        target = resolve_target(target) if target is not None else current_target()
    return Runtime(target, RuntimeStore())


atexit.register(_PROCESS_STORE.close)   # stops the process's workers (AICPU ...) at exit

__all__ = ["ENV_VAR", "Runtime", "RuntimeStore", "chip_names", "current_chip", "current_runtime", "current_target",
           "get_chip", "new_runtime", "process_store", "reset_defaults", "resolve_target", "set_chip",
           "set_default_cores",
           "set_overflow_mode", "use_target"]
