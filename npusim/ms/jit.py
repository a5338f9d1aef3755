"""``mindspore.jit`` / ``ms_function`` (npusim executes eagerly: the decorators return the function) and seeds."""
import functools

import numpy as np

_seed = {"value": None}


def jit(function=None, *args, **kwargs):
    """Decorator; compilation is not needed in npusim, so the function runs as written."""
    if function is None:
        return lambda fn: jit(fn)
    if isinstance(function, type):
        return function

    @functools.wraps(function)
    def wrapper(*call_args, **call_kwargs):
        return function(*call_args, **call_kwargs)
    return wrapper


ms_function = jit


def set_seed(seed):
    _seed["value"] = int(seed)
    np.random.seed(int(seed) % (2 ** 32))


def get_seed():
    return _seed["value"]
