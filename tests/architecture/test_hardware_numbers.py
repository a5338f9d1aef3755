"""Hardware numbers live only in the chip YAMLs and in ``npusim/sim/geometry.py``; chip names are not compared in code.

Rule 1 (hardware numbers), over the simulator (npusim/sim/**), the TBE scheduler, DSL, build and fallback
(te_compat/{schedule,dsl,build,fallback}/**) and the TBE backend (npusim/custom/backends/tbe.py), geometry.py
excepted:

* no integer literal among ``FORBIDDEN`` — the block (32), mask words and lanes (64, 128), the vcmpv chunk (248),
  the repeat and stride limits (255), the repeat bytes (256), a cube fractal's bytes (512), the burst-count and
  burst/gap field maxima (4095, 65535);
* no module-level constant named like a hardware limit or size (``*_BYTES``, ``*_MAX``, ``MAX_*``, ``*_LANES``)
  bound to a literal (an int, or arithmetic on ints only).

Every exception is listed in ``ALLOWED`` with why it is not a hardware number (cache sizes, host memory budgets,
tiling heuristics, byte arithmetic, API limits); an entry that no longer matches anything fails too, so the list
stays exact.  Read a chip number from the :class:`~npusim.sim.chip.Chip` the code was given (``block_bytes``,
``repeat_bytes``, ``max_repeat``, ``lanes(itemsize)``, ``block_elems(itemsize)`` ...) or an
instruction-field width from :mod:`npusim.sim.geometry`.

Rule 2 (chip names), over every npusim / te_compat / aicpu_loader module: no comparison (``==``, ``!=``, ``in``)
or ``startswith`` / ``endswith`` against a chip or chip-family name ("Ascend310", "Ascend910B", "mini" ...).  What
such a comparison decided is a chip YAML field named for the behaviour (``identity.short_soc_version``,
``identity.product_2020``, ``dsl.vrec_newton_steps``).
"""
from __future__ import annotations

import ast
import re

from source_tree import REPO, modules

FORBIDDEN = frozenset({32, 64, 128, 248, 255, 256, 512, 4095, 65535})
LIMIT_NAME = re.compile(r"(_BYTES|_MAX|_LANES)$|^MAX_")
CHIP_NAME = re.compile(r"^(Ascend\d|Hi\d{4}|SD\d{4}|BS9SX|mini$|cloud$)", re.IGNORECASE)

ROOTS = ("npusim/sim/", "te_compat/schedule/", "te_compat/dsl/", "te_compat/build/", "te_compat/fallback/",
         "npusim/custom/backends/tbe.py", "te_compat/tik/", "te_compat/cube/")
GEOMETRY = "npusim/sim/geometry.py"

#: "path:where:value" (where: the module-level name a literal is bound to, else the enclosing function or class;
#: value: the literal, or "named" for a limit-named constant) -> why it is not a hardware number
ALLOWED = {
    "te_compat/cube/trans_data.py:ENTRIES:64": "a cache capacity (trans_data kernels kept), not hardware",
    "te_compat/dsl/cube.py:_CONV_LIMITS:255": "TBE's check_conv_shape argument limits (filter H/W, pads, dilations "
                                              "at most 255), checked as CANN checks them; they size nothing",
    "npusim/sim/caches.py:COMPILED_KERNELS:64": "a cache capacity (compiled kernels kept), not hardware",
    "npusim/sim/caches.py:TVM_PROGRAMS:256": "a cache capacity (tvm_call programs kept), not hardware",
    "npusim/sim/runtime.py:_DEFAULT_TARGETS:64": "a cache capacity (default targets remembered), not hardware",
    "npusim/custom/backends/tbe.py:BUILT_ENTRIES:256": "a cache capacity (built TBE kernels kept), not hardware",
    "npusim/sim/isa/batch_moves.py:COPY_SLICE_BYTES:named": "the host cache block of the simulator's batched "
                                                            "copies (64 KiB slices), not hardware",
    "npusim/sim/isa/dup_reduce.py:TREE_SLICE_BYTES:named": "the host cache block of the simulator's vcadd trees "
                                                           "(512 KiB slices), not hardware",
    "npusim/sim/memory.py:POISON_BYTE:255": "the fill byte of fresh local memory (0xFF: NaN / -1), a debugging "
                                            "pattern, not hardware",
    "npusim/sim/memory.py:ARENA_POOL_LIMIT_BYTES:64": "host memory the simulator keeps pooled (64 MiB), not "
                                                      "hardware",
    "npusim/sim/memory.py:ARENA_POOL_LIMIT_BYTES:named": "host memory the simulator keeps pooled, not hardware",
    "npusim/sim/isa/batch_moves.py:LOGGED_BURSTS:64": "how many bursts a batched move logs one by one before it "
                                                     "logs one span (a host bookkeeping choice), not hardware",
    "npusim/sim/lockstep/runner.py:ARENA_ALIGN_BYTES:64": "host arena rows are padded to a multiple every dtype's "
                                                         "itemsize divides (host memory layout), not hardware",
    "npusim/sim/lockstep/runner.py:ARENA_ALIGN_BYTES:named": "host arena row padding, not hardware",
    "npusim/sim/compiler.py:MAX_LOOP_TRIPS:named": "a loop's trip count fits its int32 variable (TIK: bounds "
                                                   "< 2**31): a dtype range, not hardware",
    "te_compat/schedule/vec.py:dup:255": "the low byte of a fill value (byte arithmetic before a 16-bit dup)",
    "te_compat/schedule/emit_reduce.py:FOLD_WORK_BYTES:named": "a schedule heuristic (how far a reduce's fold "
                                                               "buffer may grow for few long rows), not hardware",
    "te_compat/schedule/atomic.py:MIN_SHARE_BYTES:named": "a tiling heuristic (input bytes a block must get for "
                                                          "a reduce-axis split to pay off), not hardware",
    "te_compat/schedule/tiling.py:MIN_CHUNK_COLUMNS:512": "a tiling heuristic (least columns of a chunked tile, "
                                                          "in elements), not hardware",
    "te_compat/schedule/tiling.py:FIRST_ROWS:32": "a tiling heuristic (rows a chunked tile tries first), not "
                                                  "hardware",
    "te_compat/schedule/tiling.py:CHUNK_COLUMNS:128": "a tiling heuristic (columns of a multi-pass tile, in "
                                                      "elements), not hardware",
    "te_compat/build/config.py:MAX_NAME_CHARS:named": "CANN's kernel-name length limit, an API limit, not "
                                                      "hardware",
    "te_compat/tik/container.py:THREAD_NUM_MAX:named": "TIK's for_range thread_num limit (n-buffering depth), an "
                                                       "API limit, not hardware",
}


def _is_int_literal(node) -> bool:
    """An int constant, or unary/binary arithmetic on int constants only."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.UnaryOp):
        return _is_int_literal(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_int_literal(node.left) and _is_int_literal(node.right)
    return False


def _bindings(statement) -> list:
    """(name, value node) pairs a module-level assignment binds (tuple targets element by element)."""
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value:
        return [(statement.target.id, statement.value)]
    if not isinstance(statement, ast.Assign):
        return []
    pairs = []
    for target in statement.targets:
        if isinstance(target, ast.Name):
            pairs.append((target.id, statement.value))
        elif isinstance(target, ast.Tuple) and isinstance(statement.value, ast.Tuple) and \
                len(target.elts) == len(statement.value.elts):
            pairs += [(t.id, v) for t, v in zip(target.elts, statement.value.elts) if isinstance(t, ast.Name)]
    return pairs


def _literals(node, where: str, found: list) -> None:
    """Forbidden literals in ``node`` and below, recorded as (where, value, line); a function or class renames
    ``where`` for its body."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        where = node.name
    elif isinstance(node, ast.Constant) and type(node.value) is int and node.value in FORBIDDEN:
        found.append((where, node.value, node.lineno))
        return
    for child in ast.iter_child_nodes(node):
        _literals(child, where, found)


def hardware_numbers(tree: ast.Module) -> list:
    """(where, value or "named", line) of every hardware number in a module's AST (see the module docstring)."""
    found = []
    for statement in tree.body:
        bindings = _bindings(statement)
        for name, value in bindings:
            if LIMIT_NAME.search(name) and _is_int_literal(value):
                found.append((name, "named", statement.lineno))
            _literals(value, name, found)
        if not bindings:
            _literals(statement, "<module>", found)
    return found


def _strings(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _strings(element)


def chip_name_comparisons(tree: ast.Module) -> list:
    """(chip name, line) of every comparison / startswith / endswith against a chip name in a module's AST."""
    found = []
    for node in ast.walk(tree):
        parts = []
        if isinstance(node, ast.Compare):
            parts = [node.left, *node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("startswith", "endswith"):
            parts = list(node.args)
        found += [(text, node.lineno) for part in parts for text in _strings(part) if CHIP_NAME.match(text)]
    return found


def _in_scope(rel: str) -> bool:
    return rel != GEOMETRY and any(rel == root or (root.endswith("/") and rel.startswith(root)) for root in ROOTS)


def _scanned():
    return [m for m in modules() if _in_scope(m.rel)]


def test_hardware_numbers_only_in_chip_yaml_and_geometry():
    hits, used = [], set()
    for module in _scanned():
        for where, value, line in hardware_numbers(module.tree):
            key = f"{module.rel}:{where}:{value}"
            if key in ALLOWED:
                used.add(key)
            else:
                hits.append(f"{module.rel}:{line}: {value} in {where}")
    assert not hits, ("hardware numbers outside the chip YAMLs and npusim/sim/geometry.py (read them from the Chip "
                      "or the geometry module, or list a non-hardware use in ALLOWED with its reason):\n"
                      + "\n".join(hits))
    stale = sorted(set(ALLOWED) - used)
    assert not stale, "ALLOWED entries that match nothing any more (remove them):\n" + "\n".join(stale)


def test_no_chip_name_is_compared_in_code():
    hits = [f"{m.rel}:{line}: {text!r}" for m in modules() for text, line in chip_name_comparisons(m.tree)]
    assert not hits, ("chip names compared in code (make the behaviour a chip YAML field instead):\n"
                      + "\n".join(hits))


def test_the_scan_covers_the_simulator_scheduler_and_dsl():
    scanned = {m.rel for m in _scanned()}
    for rel in ("npusim/sim/isa/vector.py", "npusim/sim/builder.py", "te_compat/schedule/vec.py",
                "te_compat/dsl/elewise.py", "te_compat/build/cce.py", "npusim/custom/backends/tbe.py"):
        assert rel in scanned
    assert GEOMETRY not in scanned and (REPO / GEOMETRY).is_file()


def test_the_rules_catch_what_they_forbid():
    source = '''
BLOCK_BYTES = 32
MAX_REPEAT = 255
MASK_LANES = 2 * 64
COUNT_MAX = len("abc")
CACHE = 16


def lanes(isz):
    return min(128, 256 // isz)


def short(chip):
    if chip.name == "Ascend310" or "mini" in chip.aliases:
        return chip.name.startswith(("Ascend910B", "Ascend910"))
    return chip.name in ("Ascend310P3",) or chip.device_target == "Ascend"
'''
    tree = ast.parse(source)
    numbers = {(where, value) for where, value, _ in hardware_numbers(tree)}
    assert numbers == {("BLOCK_BYTES", "named"), ("BLOCK_BYTES", 32), ("MAX_REPEAT", "named"), ("MAX_REPEAT", 255),
                       ("MASK_LANES", "named"), ("MASK_LANES", 64), ("lanes", 128), ("lanes", 256)}
    names = sorted(text for text, _ in chip_name_comparisons(tree))
    assert names == ["Ascend310", "Ascend310P3", "Ascend910", "Ascend910B", "mini"]   # "Ascend" is a device target
