"""Building and launching TBE kernels: ``cce_build_code`` / ``tbe.dsl.build``, kernel_meta files, print_ir.

* :func:`cce_build_code` (``te.lang.cce``) and :func:`build` (``tbe.dsl``): lower a schedule and write
  ``kernel_meta/<name>.o`` + ``<name>.json`` (see :mod:`te_compat.build.config` for the config keys and
  :mod:`te_compat.build.kernel_meta` for the files).
* :func:`kernel_meta_dir`: ``./kernel_meta`` of the working directory, or ``$NPUSIM_KERNEL_META``.
* :func:`load_built` → :class:`BuiltKernel`; ``BuiltKernel.run(*inputs)`` launches on the simulated device.  For
  a dynamic-shape op entry called with unknown dims it returns a :class:`~te_compat.build.deferred.DeferredKernel`,
  built per concrete shape when run.
* :func:`kernel_text`: the readable listing of an npusim kernel (what ``print_ir`` prints).
* :func:`collect_builds`: the BuildResults of the builds made inside a ``with`` block, handed over as objects
  (``BuiltKernel.from_result``), so the code that asked for a build need not read its files back.
"""
from te_compat.build.cce import BuildResult, build, build_kernel, cce_build_code
from te_compat.build.collect import BuildCollector, collect_builds
from te_compat.build.config import DEFAULT_NAME, MAX_NAME_CHARS, BuildConfig, check_kernel_name, parse_config
from te_compat.build.kernel_meta import ArgSpec, kernel_meta_dir, kernel_meta_override
from te_compat.build.launch import BuiltKernel, load_built
from te_compat.build.printer import kernel_text

__all__ = ["ArgSpec", "BuildCollector", "BuildConfig", "BuildResult", "BuiltKernel", "DEFAULT_NAME",
           "MAX_NAME_CHARS", "build", "build_kernel", "cce_build_code", "check_kernel_name", "collect_builds",
           "kernel_meta_dir", "kernel_meta_override", "kernel_text", "load_built", "parse_config"]
