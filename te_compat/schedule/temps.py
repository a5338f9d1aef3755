"""Dispatch by node kind: the temporaries an op needs (planning) and the emitter that writes it."""
from __future__ import annotations

from te_compat.schedule import emit_broadcast, emit_cast, emit_cmpsel, emit_elewise, emit_logic, emit_reduce
from te_compat.schedule.env import NodeEnv, PlanEnv

def _const_temps(plan_env) -> list:
    return []


def _const_emit(env: NodeEnv) -> None:
    from te_compat.schedule import vec
    vec.dup(env.em, vec.Loc(env.out), env.n, env.info.scalar)


_TEMPS = {"const": _const_temps, "unary": emit_elewise.temps, "vs": emit_elewise.temps, "binary": emit_elewise.temps,
          "axpy": emit_elewise.temps, "fma": emit_elewise.temps, "cmp": emit_cmpsel.temps,
          "sel": emit_cmpsel.temps, "cast": emit_cast.temps, "bcast": emit_broadcast.temps,
          "reduce": emit_reduce.temps, "logic": emit_logic.temps}
_EMIT = {"const": _const_emit, "unary": emit_elewise.emit, "vs": emit_elewise.emit, "binary": emit_elewise.emit,
         "axpy": emit_elewise.emit, "fma": emit_elewise.emit, "cmp": emit_cmpsel.emit_cmp,
         "sel": emit_cmpsel.emit_sel, "cast": emit_cast.emit, "bcast": emit_broadcast.emit,
         "reduce": emit_reduce.emit, "logic": emit_logic.emit}


def temp_bytes(an, index: int, layouts: dict, chip, dying: set) -> list:
    """Byte sizes of the temporaries node ``index`` needs while it is computed."""
    plan_env = PlanEnv(an, index, layouts, chip, frozenset(dying))
    return list(_TEMPS[an.infos[index].kind](plan_env))


def emit_node(env: NodeEnv) -> None:
    """Write the instructions of one node."""
    _EMIT[env.info.kind](env)
