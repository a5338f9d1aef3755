"""Calling a user-defined ``PrimitiveWithInfer`` whose implementation was registered with ``op_info_register``.

MindSpore's classic way to add an Ascend operator: a primitive class named after the op (``class CusSquare``), whose
``__init__`` imports the implementation module, where ``@op_info_register(TBERegOp("CusSquare")...)`` registers the
TBE impl function.  Calling the primitive runs that implementation.  Here the call becomes an ``ops.Custom`` of the
matching func_type, built once per primitive object:

* output shapes / dtypes come from the primitive's ``infer_shape`` / ``infer_dtype``;
* attributes are the primitive's attributes (``prim_attr_register`` / ``add_prim_attr``), in op-info order;
* the gradient is the primitive's ``get_bprop()`` or a getter registered in ``bprop_getters``.
"""
from __future__ import annotations

from npusim.custom import op_lib
from npusim.custom.attrs import fixed_value
from npusim.custom.reg_info import default_value, param_type
from npusim.errors import MissingAttributeError, UnsupportedError

_CUSTOM_SLOT = "_npusim_registered_custom"


def _unsupported(prim, why: str):
    return UnsupportedError(
        f"Primitive '{prim.name}': {why}. npusim runs primitives whose implementation is registered with "
        f"op_info_register (TBERegOp / AiCPURegOp named '{prim.name}'), built-in ops, and ops.Custom")


def _n_inputs(entry: op_lib.RegisteredOp) -> int:
    return len(entry.info.get("inputs") or [])


def _defines(prim, name: str) -> bool:
    from npusim.frontend.primitive import Primitive
    return any(name in klass.__dict__ for klass in type(prim).__mro__ if klass not in (Primitive, object))


def _infer_fns(prim, n_inputs: int):
    """(out_shape, out_dtype) callables for ops.Custom from the primitive's infer_shape / infer_dtype."""
    if not (_defines(prim, "infer_shape") and _defines(prim, "infer_dtype")):
        raise _unsupported(prim, "it does not define infer_shape and infer_dtype, so its outputs are unknown "
                                 "(__infer__-only primitives are not supported yet)")
    return (lambda *a: prim.infer_shape(*[list(s) for s in a[:n_inputs]]),
            lambda *a: prim.infer_dtype(*a[:n_inputs]))


def _attr_values(prim, entry: op_lib.RegisteredOp) -> tuple:
    """The primitive's attribute values in op-info order (missing optional ones: their default), as the trailing
    call arguments of the Custom op; attrs the op info fixes take no argument (see :func:`attrs.fixed_value`)."""
    values, pending = [], []
    for spec in entry.info.get("attr") or []:
        name = spec.get("name")
        if fixed_value(spec, entry.func_type) is not None:
            continue
        if name in prim.attrs:
            values.extend(pending)
            pending = []
            values.append(prim.attrs[name])
        elif default_value(spec) is not None:
            pending.append(default_value(spec))
        elif param_type(spec) == "required":
            raise MissingAttributeError(
                f"Primitive '{prim.name}': its op info requires the attribute '{name}', but the primitive has none "
                f"of that name. Give it one of these ways: declare it as an __init__ argument with "
                f"@prim_attr_register, call self.add_prim_attr('{name}', value), or give the op info's attr a "
                f"default_value")
        else:
            break
    return tuple(values)


def _bprop(prim, n_inputs: int):
    from npusim.custom.grad_registry import find_bprop
    getter = find_bprop(prim)
    if getter is None:
        return None
    bprop = getter()

    def custom_bprop(*args):
        return bprop(*args[:n_inputs], args[-2], args[-1])
    return custom_bprop


def _build_custom(prim, entry: op_lib.RegisteredOp):
    from npusim.custom.custom import Custom
    func_type = entry.func_type
    if func_type is None:
        raise _unsupported(prim, f"its registered implementation has imply_type {entry.imply_type!r}")
    n_inputs = _n_inputs(entry)
    out_shape, out_dtype = _infer_fns(prim, n_inputs)
    func = entry.op_name if func_type == "aicpu" else entry.func
    return Custom(func, out_shape=out_shape, out_dtype=out_dtype, func_type=func_type,
                  bprop=_bprop(prim, n_inputs), reg_info=entry.info)


def call_registered(prim, args: tuple):
    """Run ``prim(*args)`` through the implementation registered under the primitive's name."""
    custom = prim.__dict__.get(_CUSTOM_SLOT)
    if custom is None:
        entry = op_lib.find(prim.name)
        if entry is None:
            raise _unsupported(prim, "no implementation is registered under this name")
        custom = _build_custom(prim, entry)
        custom.registered_entry = entry
        prim.__dict__[_CUSTOM_SLOT] = custom
    return custom(*args, *_attr_values(prim, custom.registered_entry))
