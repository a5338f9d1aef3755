"""``impl``: CANN's op-implementation package, of which npusim provides only ``impl.util`` —
``impl.util.platform_adapter`` (the import hub of 2021-2022 op files), ``impl.util.util_common`` and
``impl.util.util_select_op_base``.

A custom-op project keeps its op files in its own ``impl`` package; when one is on ``sys.path`` it is the ``impl``
Python imports, and npusim's compatibility layer fills in only the ``impl.util`` modules that project lacks (see
:mod:`npusim.compat.aliases`).  This package itself holds no op files.
"""
