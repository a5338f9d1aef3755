"""Layers import one way.

    errors, util  <-  simulator  <-  (TBE compiler | AICPU runtime | hybrid | aot)  <-  (tensor, primitive base,
    autodiff | aclnn operator library)  <-  (Custom and its backends | C++ extensions: CustomOpBuilder)  <-  the
    mindspore-shaped surface, te/tbe/topi/impl shims and the compatibility layer  <-  op test cases  <-  command line

A module may import its own layer's group and any lower layer, never a higher one; groups of one layer are peers
and do not import each other.  Every import counts, function-level ones included.
"""
from __future__ import annotations

from source_tree import imports, modules, own

#: (layer, group, module prefixes), lowest layer first
LAYERS = (
    (0, "errors", ("npusim.errors", "npusim.util")),
    (1, "simulator", ("npusim.sim",)),
    (2, "TBE compiler", ("te_compat",)),
    (2, "AICPU runtime", ("aicpu_loader",)),
    (2, "hybrid", ("npusim.hybrid",)),
    (2, "aot", ("npusim.aot",)),
    (3, "front end", ("npusim.frontend",)),
    (3, "aclnn", ("npusim.aclnn",)),
    (4, "Custom", ("npusim.custom",)),
    (4, "extension", ("npusim.extension",)),
    (5, "surfaces", ("npusim.ms", "npusim.compat", "npusim.bridge", "te_compat.te", "te_compat.tbe", "te_compat.topi",
                     "te_compat.impl")),
    (6, "op tests", ("npusim.optest",)),   # msopst case files: above Custom and the compat layer (issue 16)
    (7, "command line", ("npusim",)),
)


def layer_of(name: str):
    """(layer, group) of module ``name``: its longest matching prefix."""
    best = None
    for layer, group, prefixes in LAYERS:
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and (best is None or len(prefix) > best[2]):
                best = (layer, group, len(prefix))
    assert best is not None, f"module {name} belongs to no layer: add it to LAYERS"
    return best[:2]


def violations() -> list:
    found = []
    for module in modules():
        layer, group = layer_of(module.name)
        for target, line in imports(module):
            if not own(target):
                continue
            other_layer, other_group = layer_of(target)
            upward = other_layer > layer
            peer = other_layer == layer and other_group != group
            if upward or peer:
                kind = "upward" if upward else "peer"
                found.append(f"{module.rel}:{line}: {group} (layer {layer}) imports {target} ({other_group}, "
                             f"layer {other_layer}): {kind} import")
    return found


def test_every_module_belongs_to_a_layer():
    for module in modules():
        layer_of(module.name)


def test_no_module_imports_upward_or_across_peers():
    found = violations()
    assert not found, "layering violations:\n" + "\n".join(found)


def test_the_checker_sees_function_level_imports(tmp_path):
    """The walk includes imports inside functions (the kind that hid the old cycles)."""
    import ast
    from source_tree import Module
    tree = ast.parse("def f():\n    from npusim.custom.custom import Custom\n")
    fake = Module("npusim.sim.fake", tmp_path / "fake.py", tree)
    assert ("npusim.custom.custom", 2) in list(imports(fake))
