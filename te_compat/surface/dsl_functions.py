"""The DSL functions as op files see them: every function of ``te_compat.dsl.__all__`` as a surface function
(:func:`te_compat.surface.tvm_objects.surface_function`: surface tensors in, surface tensors out, ``dtype`` a
``str``).  ``te.lang.cce``, ``tbe.dsl`` and their submodules serve these objects (see :mod:`.lazy`), so
``te.lang.cce.vadd is tbe.dsl.vadd``; each one's ``__wrapped__`` is the internal ``te_compat.dsl`` function."""
from te_compat import dsl as _dsl
from te_compat.surface.tvm_objects import surface_function

globals().update({_name: surface_function(getattr(_dsl, _name)) for _name in _dsl.__all__})

__all__ = list(_dsl.__all__)
