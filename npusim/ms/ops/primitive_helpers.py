"""``prim_attr_register`` and ``constexpr`` as MindSpore offers them to primitive authors."""
import functools


def prim_attr_register(fn):
    """Decorator for a Primitive's ``__init__``: records the init arguments as attributes."""
    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        from npusim.frontend.primitive import Primitive
        if "name" not in self.__dict__:
            Primitive.__init__(self, type(self).__name__)
        fn(self, *args, **kwargs)
        names = fn.__code__.co_varnames[1:fn.__code__.co_argcount]
        for name, value in zip(names, args):
            self.attrs[name] = value
        self.attrs.update(kwargs)
    return wrapper


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Decorator for compile-time constant functions: in eager execution they are plain functions."""
    if fn is None:
        return lambda f: f
    return fn
