"""``prim_attr_register`` and ``constexpr`` as MindSpore offers them to primitive authors."""
import functools
import inspect


def prim_attr_register(fn):
    """Decorator for a Primitive's ``__init__``: records the init arguments as attributes (``add_prim_attr``)."""
    signature = inspect.signature(fn)  # once per decorated __init__, not per instance

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        from npusim.frontend.primitive import Primitive
        if "name" not in self.__dict__:
            Primitive.__init__(self, type(self).__name__)
        bound = signature.bind(self, *args, **kwargs)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:  # every argument but self, defaults included
            kind = signature.parameters[name].kind
            if kind == inspect.Parameter.VAR_KEYWORD:
                for key, item in value.items():
                    self.add_prim_attr(key, item)
            elif kind != inspect.Parameter.VAR_POSITIONAL:
                self.add_prim_attr(name, value)  # as MindSpore: also readable as self.<name> in infer_shape
        fn(self, *args, **kwargs)
    return wrapper


def constexpr(fn=None, get_instance=True, name=None, reuse_result=True, check=True):
    """Decorator for compile-time constant functions: in eager execution they are plain functions."""
    if fn is None:
        return lambda f: f
    return fn
