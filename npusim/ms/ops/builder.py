"""``mindspore.ops.CustomOpBuilder`` — C++ ops built with MindSpore's extension API (a later npusim step)."""
from npusim.errors import UnsupportedError


class CustomOpBuilder:
    """Not supported yet: constructing one raises UnsupportedError naming the op."""

    def __init__(self, name, sources=None, backend=None, include_paths=None, cflags=None, ldflags=None, **kwargs):
        raise UnsupportedError(f"CustomOpBuilder '{name}': C++ ops built with MindSpore's extension API are not "
                               f"supported yet by npusim")
