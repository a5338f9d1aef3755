"""``mindspore.jit`` / ``ms_function`` (npusim executes eagerly: the decorators return the function) and seeds."""
import functools

import numpy as np

from npusim.frontend.signature import as_signature, check_inputs

_seed = {"value": None}


def jit(function=None, *args, input_signature=None, **kwargs):
    """Decorator; compilation is not needed in npusim, so the function runs as written.  An ``input_signature``
    (a Tensor or tuple of Tensors, ``Tensor(shape=[None, 3], ...)`` for a dynamic dim) is checked at every call, as
    MindSpore checks the inputs against the graph it compiled for it."""
    if function is None:
        return lambda fn: jit(fn, input_signature=input_signature)
    if isinstance(function, type):
        return function
    wanted = as_signature(input_signature)

    @functools.wraps(function)
    def wrapper(*call_args, **call_kwargs):
        if wanted:
            # a decorated method (a Cell's construct) gets self first: the signature covers the inputs after it
            inputs = call_args[1:] if len(call_args) == len(wanted) + 1 else call_args
            check_inputs(wanted, inputs, "input_signature")
        return function(*call_args, **call_kwargs)
    return wrapper


ms_function = jit


def set_seed(seed):
    _seed["value"] = int(seed)
    np.random.seed(int(seed) % (2 ** 32))


def get_seed():
    return _seed["value"]
