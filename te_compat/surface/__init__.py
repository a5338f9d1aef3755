"""Shared implementation of the TBE import surface (``te``, ``tbe``, ``topi``, ``impl.util.platform_adapter``).

The packages ``te_compat.te``, ``te_compat.tbe`` and ``te_compat.topi`` only re-export what these modules define,
under the module paths real op files import from:

* :mod:`~te_compat.surface.checks`: ``para_check`` / ``op_utils`` (check_op_params, check_shape, check_dtype ...)
* :mod:`~te_compat.surface.shapes`: ``shape_util`` (broadcast_shapes, refine_shape_axes, variable_shape ...)
* :mod:`~te_compat.surface.legacy_util`: ``topi.cce.util`` (check_input_type, check_shape_rule ...)
* :mod:`~te_compat.surface.platform`: SoC queries (get_soc_spec, te_set_version, api_check_support ...)
* :mod:`~te_compat.surface.params`: ``cce_params`` constants (scope names, block sizes)
* :mod:`~te_compat.surface.fusion`, :mod:`~te_compat.surface.register`: pass-through registration decorators
* :mod:`~te_compat.surface.buildcfg`: ``build_config`` contexts
* :mod:`~te_compat.surface.context`, :mod:`~te_compat.surface.classify`: op context, ``tbe.compute()``,
  ``classify`` and ``variable_shape`` for the dynamic-shape style, run with concrete shapes
* :mod:`~te_compat.surface.errormgr`: ``error_manager_vector``-style raisers
* :mod:`~te_compat.surface.lazy`: the DSL names, ``auto_schedule`` and the build entry points, resolved lazily
* :mod:`~te_compat.surface.tvm_objects`: the wrappers op code holds instead of raw TVM 0.27 objects (``dtype`` a
  ``str``, as in CANN's TVM), and :mod:`~te_compat.surface.dsl_functions`: the DSL functions taking and returning them
"""
