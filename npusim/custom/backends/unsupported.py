"""func_types npusim cannot run yet.  Constructing such a Custom op raises a clear UnsupportedError."""
from npusim.custom.backends.base import Backend
from npusim.errors import UnsupportedError


class _Unsupported(Backend):
    reason = ""

    def __init__(self, desc, runtime=None):
        raise UnsupportedError(f"Custom op '{desc.name}': func_type={desc.func_type!r} is not supported yet by "
                               f"npusim ({self.reason})")


class JuliaBackend(_Unsupported):
    reason = "Julia kernels are not planned"
