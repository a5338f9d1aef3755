"""``mindspore.ops.CustomOpBuilder``: C++ extension ops built with MindSpore's ``ms_extension.h`` API
(implemented in :mod:`npusim.extension`)."""
from npusim.extension.builder import CustomOpBuilder  # noqa: F401

__all__ = ["CustomOpBuilder"]
