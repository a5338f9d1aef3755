"""State is explicit: the current target is read only at API edges, and no module keeps a cache of its own.

* Only the modules in ``EDGES`` call ``current_runtime`` / ``current_target`` / ``current_chip`` /
  ``default_device``: they are where a user's call enters npusim (ops.Custom, cce_build_code, auto_schedule, the
  DSL's auto-cast queries, get_soc_spec, Device(), KernelBuilder.build, profile ...).  Everything below receives
  the runtime or target it works for.
* No module-level mutable state outside the Runtime: no ``functools.lru_cache`` / ``cache``, no ``global``
  rebinding, and no module-level container the module mutates, except the ``ROOTS`` listed with their reason
  (the runtime's own root, registries that are process-wide by definition in MindSpore/CANN, import-layer records).
"""
from __future__ import annotations

import ast

from source_tree import modules

READERS = {"current_runtime", "current_target", "current_chip", "default_device"}

#: module -> why it may read the current runtime (it is an API edge)
EDGES = {
    "npusim/sim/runtime.py": "defines the readers and the defaults",
    "npusim/sim/device.py": "Device() / default_device() made by a user without a runtime",
    "npusim/sim/profiler.py": "profile() opened by a user without a runtime",
    "npusim/sim/builder.py": "KernelBuilder.build(check=True) compiles for the current chip",
    "npusim/sim_cli.py": "npusim chips marks the chip in use",
    "npusim/custom/custom.py": "ops.Custom: construction and every call",
    "npusim/bridge/custom.py": "ops.Custom under real MindSpore: construction and every call (pyfunc kernel too)",
    "npusim/custom/backends/base.py": "given_runtime(): backends called directly (tests) without a runtime",
    "te_compat/schedule/schedule.py": "auto_schedule",
    "te_compat/build/cce.py": "cce_build_code / tbe.dsl.build",
    "te_compat/build/launch.py": "BuiltKernel.run without a runtime",
    "te_compat/dsl/support.py": "the DSL functions' auto-cast and api_check_support queries",
    "te_compat/surface/platform.py": "get_soc_spec, te_set_version and the other SoC queries",
    "te_compat/tik/edges.py": "tik.Tik(): the chip a TIK kernel is written for (BuildCCE and tikdb use its runtime)",
    "aicpu_loader/worker.py": "default_worker() for direct callers",
    "npusim/extension/bridge.py": "a C++ extension op call (ms_extension.h): its aclnn launches' runtime",
    "npusim/optest/runner.py": "OpTestSession() / session_for(): an op test run (npusim optest, its pytest items)",
}

#: (module, name) -> why this module-level state is allowed
ROOTS = {
    ("npusim/sim/runtime.py", "_PROCESS_STORE"): "the process's runtime store: the root every cache hangs off",
    ("npusim/sim/runtime.py", "_SELECTION"): "the default target's settings (set_chip, set_overflow_mode ...)",
    ("npusim/compat/shims.py", "_added"): "the shims' record of what they added to the stdlib (for uninstall)",
    ("npusim/custom/op_lib.py", "_REGISTRY"): "MindSpore's op_info_register registry is process-wide",
    ("te_compat/surface/register.py", "_operators"): "CANN's register_operator registry is process-wide",
    ("te_compat/surface/register.py", "_computes"): "CANN's register_op_compute registry is process-wide",
    ("te_compat/surface/register.py", "_generalizations"): "CANN's param-generalization registry is process-wide",
    ("npusim/frontend/context.py", "_context"): "mindspore.set_context is process-wide in MindSpore",
    ("npusim/ms/jit.py", "_seed"): "mindspore.set_seed is process-wide in MindSpore",
    ("aicpu_loader/worker.py", "_live_workers"): "weak set of workers to forget in a forked child (fork hygiene)",
    ("npusim/util/cachedir.py", "_warned"): "the cache-directory warnings issued: one per process, like Python's "
                                            "warning registry (which catch_warnings resets)",
}

_MUTATORS = {"append", "extend", "add", "update", "setdefault", "pop", "popitem", "clear", "insert", "remove",
             "discard", "move_to_end", "put", "__setitem__"}
_CONTAINERS = {"dict", "list", "set", "OrderedDict", "defaultdict", "WeakSet", "WeakValueDictionary",
               "WeakKeyDictionary", "deque", "Counter", "BoundedCache"}


def _called_name(node) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def test_the_current_target_is_read_only_at_api_edges():
    found = []
    for module in modules():
        if module.rel in EDGES:
            continue
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Call) and _called_name(node) in READERS:
                found.append(f"{module.rel}:{node.lineno}: calls {_called_name(node)}()")
    assert not found, ("below the API edge, take the runtime/target as an argument instead of reading the "
                       "current one:\n" + "\n".join(found))


def test_no_function_level_memo_caches():
    found = []
    for module in modules():
        for node in ast.walk(module.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for deco in node.decorator_list:
                    text = ast.unparse(deco)
                    if "lru_cache" in text or text in ("cache", "functools.cache"):
                        found.append(f"{module.rel}:{node.lineno}: @{text} on {node.name}")
    assert not found, "module-level memo caches (use a Runtime cache):\n" + "\n".join(found)


def _module_containers(tree) -> dict:
    """name -> line of module-level assignments of a mutable container."""
    names = {}
    for stmt in tree.body:
        targets, value = [], None
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        mutable = isinstance(value, (ast.Dict, ast.List, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)) or (
            isinstance(value, ast.Call) and _called_name(value) in _CONTAINERS)
        if mutable:
            for target in targets:
                if isinstance(target, ast.Name):
                    names[target.id] = stmt.lineno
    return names


def _mutated(tree, name: str) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Subscript,)) and isinstance(node.ctx, (ast.Store, ast.Del)) and \
                isinstance(node.value, ast.Name) and node.value.id == name:
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _MUTATORS \
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name:
            return True
    return False


def test_no_module_level_mutable_state_outside_the_runtime():
    found = []
    for module in modules():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Global):
                found += [f"{module.rel}:{node.lineno}: global {n}" for n in node.names
                          if (module.rel, n) not in ROOTS]
        for name, line in _module_containers(module.tree).items():
            if (module.rel, name) not in ROOTS and _mutated(module.tree, name):
                found.append(f"{module.rel}:{line}: module-level {name} is mutated")
    assert not found, "module-level mutable state (hold it in a Runtime, or list it in ROOTS with why):\n" + \
        "\n".join(found)


def test_every_listed_root_and_edge_still_exists():
    rels = {m.rel: m for m in modules()}
    for rel in EDGES:
        assert rel in rels, f"EDGES names {rel}, which no longer exists"
    for rel, name in ROOTS:
        assert rel in rels and name in ast.unparse(rels[rel].tree), f"ROOTS names {rel}:{name}, which is gone"
