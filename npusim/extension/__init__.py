"""C++ extensions built with MindSpore's ``CustomOpBuilder`` API, on npusim.

* :class:`CustomOpBuilder` (``mindspore.ops.CustomOpBuilder``): compiles C++ sources with ninja into
  ``<build_dir>/<name>.so`` and imports it.
* :mod:`npusim.extension.headers`: the include directories (npusim's ``ms_extension.h`` and friends in
  ``npusim/extension/include``, pybind11, Python) and default flags every extension is built with.
"""
from npusim.extension.builder import CustomOpBuilder  # noqa: F401
from npusim.extension.headers import include_dirs, default_cflags  # noqa: F401

__all__ = ["CustomOpBuilder", "include_dirs", "default_cflags"]
