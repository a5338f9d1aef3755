"""``impl``: CANN's op-implementation package, of which npusim serves ``impl.util.platform_adapter`` (the import
hub of 2021-2022 op files) and ``impl.util.util_common`` helpers.

A custom-op project usually has its own ``impl`` directory of op files.  So that ``import impl.my_op`` keeps
working while the compatibility layer serves ``impl``, every ``impl`` directory on ``sys.path`` when this package is
first imported is appended to its ``__path__`` (npusim's modules come first).
"""
import os
import sys

_OWN_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_impl_dirs() -> list:
    found = []
    for entry in sys.path:
        candidate = os.path.abspath(os.path.join(entry or os.getcwd(), "impl"))
        if os.path.isdir(candidate) and candidate != _OWN_DIR and candidate not in found:
            found.append(candidate)
    return found


__path__ = [_OWN_DIR, *_user_impl_dirs()]
