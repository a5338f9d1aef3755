"""``error_manager_vector`` / ``error_manager_util``: the raisers op files call on bad arguments.

Each ``raise_err_*`` function raises :class:`~npusim.errors.TbeArgumentError` (a ``RuntimeError``, as CANN's do)
with a message naming the op and the offending parameter.  The common ones are spelled out; any other
``raise_err_<what>`` name resolves to a raiser that reports ``<what>`` and the arguments it was given.
"""
from __future__ import annotations

from npusim.errors import TbeArgumentError


def raise_err_input_dtype_not_supported(op_name, param_name, param_type_list, data_type):
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}]'s dtype should be one of "
                           f"[{param_type_list}], but actually is [{data_type}].")


def raise_err_inputs_dtype_not_equal(op_name, param_name1, param_name2, param_dtype1, param_dtype2):
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name1}][{param_name2}] are not equal in dtype "
                           f"with dtype[{param_dtype1}][{param_dtype2}].")


def raise_err_inputs_shape_not_equal(op_name, param_name1, param_name2, param1_shape, param2_shape, expect_shape):
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name1}][{param_name2}] is not match with the "
                           f"parameter[{param1_shape}][{param2_shape}], it should be [{expect_shape}].")


def raise_err_specific_reson(op_name, reason):  # CANN's spelling
    raise TbeArgumentError(f"In op[{op_name}], {reason}")


raise_err_specific_reason = raise_err_specific_reson


def raise_err_input_value_invalid(op_name, param_name, excepted_value, real_value):
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}] should be [{excepted_value}], but "
                           f"actually is [{real_value}].")


def raise_err_input_param_range_invalid(op_name, param_name, min_value, max_value, value):
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}] should be in the range of "
                           f"[{min_value}, {max_value}], but actually is [{value}].")


def raise_err_input_format_invalid(op_name, param_name, excepted_format_list, data_format):
    raise TbeArgumentError(f"In op[{op_name}], the format of input[{param_name}] should be one of "
                           f"[{excepted_format_list}], but actually is [{data_format}].")


def raise_err_check_params_rules(op_name, rule_desc, param_name, param_value):
    raise TbeArgumentError(f"In op[{op_name}], the parameter[{param_name}] [{param_value}] does not satisfy the "
                           f"rule: {rule_desc}")


def raise_err_input_shape_invalid(op_name, param_name, error_detail):
    raise TbeArgumentError(f"In op[{op_name}], the shape of input[{param_name}] is invalid: {error_detail}")


def get_error_message(args) -> str:
    """The text of a CANN error dict (its ``detailed_cause`` or all its fields)."""
    if isinstance(args, dict):
        if "detailed_cause" in args:
            return f"{args.get('errCode', '')} {args['detailed_cause']}".strip()
        return ", ".join(f"{k}={v}" for k, v in args.items())
    return str(args)


def raise_runtime_error(args):
    """Raise the error a CANN error dict describes."""
    raise TbeArgumentError(get_error_message(args))


def raise_runtime_error_cube(args, reason=""):
    raise TbeArgumentError(f"{get_error_message(args)} {reason}".strip())


def __getattr__(name):
    if not name.startswith("raise_err_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    what = name[len("raise_err_"):].replace("_", " ")

    def raiser(op_name="", *args, **kwargs):
        details = ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])
        raise TbeArgumentError(f"In op[{op_name}], {what}: {details}")

    raiser.__name__ = name
    return raiser
