"""Functions of an exact arity, as MindSpore needs them around a simulated Custom op.

* The pyfunc: MindSpore reads ``len(inspect.signature(func).parameters)`` into the op's ``inputs_num``; any other
  count makes it treat the call's arguments as one tuple input ("Tuple/List inputs are not supported").  A closure
  with ``*args`` and an exact ``__signature__`` satisfies it (and ``inspect.getsource``, which Custom also calls).
* The bprop wrapper: MindSpore's graph compiler parses a bprop's source and counts its parameters (``*args`` is
  refused: "requires at least 2 params 'out' and 'dout'"), and PYNATIVE wants one gradient per call argument,
  attributes included.  The wrapper is generated source with one parameter per argument plus ``out`` / ``dout``;
  it calls the user's bprop and pads a short gradient tuple with None.  Its source is registered in
  :mod:`linecache` under a pseudo file name (as interactive shells do), so ``inspect.getsource`` finds it.
"""
from __future__ import annotations

import inspect
import linecache

#: the importable module a generated function names as its ``__module__`` (MindSpore's parser imports it)
_MODULE = __name__


def exact_arity(call, arity: int, name: str):
    """A function of exactly ``arity`` positional parameters that returns ``call(args)``."""
    def npusim_simulated_custom_op(*args):
        return call(args)
    params = [inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(arity)]
    npusim_simulated_custom_op.__signature__ = inspect.Signature(params)
    npusim_simulated_custom_op.__qualname__ = f"npusim_simulated_custom_op[{name}]"
    return npusim_simulated_custom_op


def _bprop_source(arity: int) -> str:
    params = ", ".join([f"arg{i}" for i in range(arity)] + ["out", "dout"])
    lines = ["def make_bprop(user_bprop):",
             f"    def npusim_bprop({params}):",
             f"        grads = user_bprop({params})",
             "        if not isinstance(grads, tuple):",
             "            grads = (grads,)"]
    for given in range(arity):
        padding = ", ".join(["None"] * (arity - given))
        lines += [f"        if len(grads) == {given}:", f"            return grads + ({padding},)"]
    lines += ["        return grads", "    return npusim_bprop", ""]
    return "\n".join(lines)


def padded_bprop(user_bprop, arity: int):
    """``user_bprop`` (``bprop(*args, out, dout)`` for a call of ``arity`` arguments) as a function MindSpore
    parses in GRAPH mode and runs in PYNATIVE, returning exactly ``arity`` gradients (None for the ones left out)."""
    source = _bprop_source(arity)
    filename = f"<npusim-bridge-bprop-{arity}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"__name__": _MODULE}
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - generated from the arity only
    return namespace["make_bprop"](user_bprop)


__all__ = ["exact_arity", "padded_bprop"]
