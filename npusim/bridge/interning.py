"""str / tuple / list attribute values as int ids: MindSpore's pyfunc kernel carries only tensors and numeric
scalars (a str argument fails with "Type: 12 not supported", a tuple inside a compiled graph with a TupleUnfold
error), so the bridge hands the kernel an id and the launcher looks the value up again.

Ids start at :data:`INTERN_BASE`, far above any attribute value a script passes, so a plain int given to a
list attribute (one element) is never mistaken for an id.
"""
from __future__ import annotations

#: the first id handed out (ids are INTERN_BASE, INTERN_BASE + 1, ...)
INTERN_BASE = 1 << 60
#: the values one op interns at most (distinct str / tuple attribute values; a script passes a handful)
MAX_INTERNED = 4096


def needs_interning(value) -> bool:
    """Whether a call argument cannot travel through a pyfunc kernel as it is (str, tuple, list, nested)."""
    return isinstance(value, (str, tuple, list))


def _frozen(value):
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    return value


class AttrTable:
    """One op's interned attribute values: ``id_of(value)`` ↔ ``value_of(id)``."""

    def __init__(self, op_name: str):
        self.op_name = op_name
        self._ids: dict = {}
        self._values: list = []

    def id_of(self, value) -> int:
        """The id of ``value`` (a str, or a tuple/list — given back as a tuple); new values get the next id."""
        key = (type(value).__name__, _frozen(value))
        found = self._ids.get(key)
        if found is not None:
            return found
        if len(self._values) >= MAX_INTERNED:
            from npusim.errors import BridgeAttributeError
            raise BridgeAttributeError(
                f"Custom op '{self.op_name}': more than {MAX_INTERNED} distinct str/tuple attribute values; pass "
                f"values that vary per call as tensors")
        self._values.append(_frozen(value) if isinstance(value, list) else value)
        self._ids[key] = INTERN_BASE + len(self._values) - 1
        return self._ids[key]

    def value_of(self, arg):
        """The value behind ``arg`` when it is one of this table's ids, else ``arg`` itself."""
        if type(arg) is int and INTERN_BASE <= arg < INTERN_BASE + len(self._values):
            return self._values[arg - INTERN_BASE]
        return arg

    def encode(self, args: tuple) -> tuple:
        """``args`` with every str / tuple / list replaced by its id."""
        return tuple(self.id_of(a) if needs_interning(a) else a for a in args)


__all__ = ["AttrTable", "INTERN_BASE", "MAX_INTERNED", "needs_interning"]
