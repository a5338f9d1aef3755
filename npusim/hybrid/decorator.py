"""The ``@kernel`` decorator (``ms_kernel`` in MindSpore 1.8, ``ms_hybrid`` in 1.7)."""
from __future__ import annotations

import functools
import json
import warnings

from npusim.hybrid.emulate import run_emulated

#: the attribute MindSpore looks for to recognise a kernel function
KERNEL_FLAG = "ms_kernel_flag"


def is_kernel(func) -> bool:
    """Whether ``func`` was decorated by kernel / ms_kernel / ms_hybrid."""
    return callable(func) and getattr(func, KERNEL_FLAG, False) is True


def _check_options(reg_info, compile_attrs) -> dict:
    if compile_attrs is None:
        compile_attrs = {}
    if not isinstance(compile_attrs, dict):
        raise TypeError(f"The input 'compile_attrs' of @kernel must be a dict, but get a {type(compile_attrs)}")
    for key in compile_attrs:
        if not isinstance(key, str):
            raise TypeError(f"The key of 'compile_attrs' of @kernel must be a str, but get a {type(key)}")
    if reg_info is not None and not isinstance(reg_info, (str, dict, tuple, list)):
        raise TypeError("The input 'reg_info' of @kernel should be one of str, dict and tuple, "
                        f"but get a {type(reg_info)}")
    return compile_attrs


def kernel(fn=None, reg_info=None, compile_attrs=None):
    """Mark a Hybrid DSL function as a kernel; usable as ``@kernel`` or ``@kernel(reg_info=..., compile_attrs=...)``.

    The result is a function with the original's name, docstring and source (``inspect.getsource`` follows
    ``__wrapped__``).  Calling it with numpy arrays runs the body in Python with the DSL intrinsics
    (``output_tensor``, ``allocate``, ``grid``, math functions ...) available as globals.  It carries
    ``ms_kernel_flag = True``, ``compile_attrs`` (a JSON string) and, when given, ``reg_info``.
    """
    compile_attrs = _check_options(reg_info, compile_attrs)

    def wrap(func):
        if not callable(func):
            raise TypeError(f"@kernel must decorate a function, but get a {type(func)}")

        @functools.wraps(func)
        def hybrid_kernel(*args, **kwargs):
            return run_emulated(func, args, kwargs)

        setattr(hybrid_kernel, KERNEL_FLAG, True)
        hybrid_kernel.compile_attrs = json.dumps(compile_attrs)
        if reg_info is not None:
            hybrid_kernel.reg_info = reg_info
        return hybrid_kernel

    if fn is not None:
        return wrap(fn)
    return wrap


def _deprecated_alias(alias: str, since: str):
    def decorator(fn=None, reg_info=None, compile_attrs=None):
        warnings.warn(f"'{alias}' is deprecated from version {since} and will be removed in a future version, "
                      "use 'kernel' instead.", DeprecationWarning, stacklevel=2)
        return kernel(fn, reg_info, compile_attrs)
    decorator.__name__ = alias
    decorator.__doc__ = f"Same as :func:`kernel` (MindSpore's name before the rename; deprecated since {since})."
    return decorator


ms_kernel = _deprecated_alias("ms_kernel", "1.8")
ms_hybrid = _deprecated_alias("ms_hybrid", "1.7")
