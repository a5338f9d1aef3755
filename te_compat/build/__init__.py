"""Building and launching TBE kernels: ``cce_build_code`` / ``tbe.dsl.build``, kernel_meta files, print_ir.

* :func:`cce_build_code` (``te.lang.cce``) and :func:`build` (``tbe.dsl``): lower a schedule and write
  ``kernel_meta/<name>.o`` + ``<name>.json`` (see :mod:`te_compat.build.config` for the config keys and
  :mod:`te_compat.build.kernel_meta` for the files).
* :func:`kernel_meta_dir`: ``./kernel_meta`` of the working directory, or ``$NPUSIM_KERNEL_META``.
* :func:`load_built` → :class:`BuiltKernel`; ``BuiltKernel.run(*inputs)`` launches on the simulated device.
* :func:`kernel_text`: the readable listing of an npusim kernel (what ``print_ir`` prints).
"""
from te_compat.build.cce import BuildResult, build, build_kernel, cce_build_code
from te_compat.build.config import DEFAULT_NAME, MAX_NAME_CHARS, BuildConfig, check_kernel_name, parse_config
from te_compat.build.kernel_meta import ArgSpec, kernel_meta_dir, kernel_meta_override
from te_compat.build.launch import BuiltKernel, load_built
from te_compat.build.printer import kernel_text

__all__ = ["ArgSpec", "BuildConfig", "BuildResult", "BuiltKernel", "DEFAULT_NAME", "MAX_NAME_CHARS", "build",
           "build_kernel", "cce_build_code", "check_kernel_name", "kernel_meta_dir", "kernel_meta_override",
           "kernel_text", "load_built", "parse_config"]
