"""Tensor-scalar and ternary DSL functions: vadds vmuls vmaxs vmins, vaxpy vmla vmadd vmaddrelu.

The scalar (a Python number or tvm.const) is converted to the dtype the op computes in, and recorded in the node's
``scalar`` attr as that dtype holds it (e.g. 0.1 as the nearest float16 for a float16 tensor).
"""
from __future__ import annotations

from tvm import te

from te_compat.graph import scalar_tag
from te_compat.dsl.cast import autocast
from te_compat.dsl.checks import const, require_same_shape, require_tensor, scalar_value, static_shape, \
    value_in_dtype
from te_compat.dsl.nodes import bind_in_order, make_node


def tensor_scalar(func: str, raw_tensor, scalar, op: str, opcode: str, body):
    """A ``elewise_single_VS_<op>`` node: ``body(x, scalar_const)`` per element."""
    x = require_tensor(func, raw_tensor)
    number = scalar_value(func, scalar, "second input (scalar)")
    shape = static_shape(func, x)
    dtype, (x,) = autocast(func, (opcode,), x)
    value = value_in_dtype(number, dtype)
    scalar_const = const(value, dtype)
    return make_node(shape, lambda *i: body(x(*i), scalar_const), scalar_tag(op), {"scalar": value}, prefix=op)


def vadds(raw_tensor, scalar):
    """x + scalar."""
    return tensor_scalar("vadds", raw_tensor, scalar, "add", "vadds", lambda v, s: v + s)


def vmuls(raw_tensor, scalar):
    """x * scalar."""
    return tensor_scalar("vmuls", raw_tensor, scalar, "mul", "vmuls", lambda v, s: v * s)


def vmaxs(raw_tensor, scalar):
    """max(x, scalar)."""
    return tensor_scalar("vmaxs", raw_tensor, scalar, "max", "vmaxs", te.max)


def vmins(raw_tensor, scalar):
    """min(x, scalar)."""
    return tensor_scalar("vmins", raw_tensor, scalar, "min", "vmins", te.min)


def vaxpy(lhs, rhs, scalar):
    """scalar * lhs + rhs (``elewise_binary_scalar_axpy``, attrs scalar)."""
    func = "vaxpy"
    lhs = require_tensor(func, lhs, "first input")
    rhs = require_tensor(func, rhs, "second input")
    number = scalar_value(func, scalar, "third input (scalar)")
    shape = require_same_shape(func, (lhs, rhs), ["lhs", "rhs"])
    dtype, (lhs, rhs) = autocast(func, ("vaxpy",), lhs, rhs)
    value = value_in_dtype(number, dtype)
    scalar_const = const(value, dtype)
    return make_node(shape, lambda *i: scalar_const * lhs(*i) + rhs(*i), "elewise_binary_scalar_axpy",
                     {"scalar": value}, prefix="axpy", operands=[lhs, rhs])


def _ternary(func: str, tensor_0, tensor_1, tensor_2, tag: str, body):
    tensors = [require_tensor(func, t, f"input {n}") for n, t in enumerate((tensor_0, tensor_1, tensor_2))]
    shape = require_same_shape(func, tensors, ["tensor_0", "tensor_1", "tensor_2"])
    _, (a, b, c) = autocast(func, ("vmla",), *tensors)
    return make_node(shape, lambda *i: bind_in_order([a(*i), b(*i), c(*i)], body), tag,
                     prefix=tag.rsplit("_", 1)[-1], operands=[a, b, c])


def vmla(tensor_0, tensor_1, tensor_2):
    """tensor_0 * tensor_1 + tensor_2."""
    return _ternary("vmla", tensor_0, tensor_1, tensor_2, "elewise_multiple_mla", lambda a, b, c: a * b + c)


def vmadd(tensor_0, tensor_1, tensor_2):
    """tensor_0 * tensor_2 + tensor_1."""
    return _ternary("vmadd", tensor_0, tensor_1, tensor_2, "elewise_multiple_madd", lambda a, b, c: a * c + b)


def vmaddrelu(tensor_0, tensor_1, tensor_2):
    """relu(tensor_0 * tensor_2 + tensor_1)."""
    def body(a, b, c):
        value = a * c + b
        return te.max(value, const(0, str(value.ty)))
    return _ternary("vmaddrelu", tensor_0, tensor_1, tensor_2, "elewise_multiple_maddrelu", body)
