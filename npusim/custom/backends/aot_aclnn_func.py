"""What the ``func`` of a Custom aot op on Ascend names: an aclnn operator, optionally with a C++ infer source.

MindSpore 2.3–2.6 forms, all handled here:

- ``"aclnnMul"``: the aclnn operator; ``"Mul"``: the same with the "aclnn" prefix added (2.4+ reading);
- ``"path/infer.cc:aclnnMul"`` / ``"path/infer.cc:Mul"``: the same operator, shape/type inference from the C++ file's
  ``<name>InferShape`` / ``<name>InferType`` (see :mod:`npusim.custom.backends.aot_aclnn_infer`);
- the aclop form (2.3: a name without prefix goes through GE as an aclop): when "aclnn" + name is not an operator,
  a GE operator type maps to the aclnn operator computing the same (:data:`ACLOP_OPERATORS`).  npusim does not run
  Ascend C operator packages (op_host/op_kernel built with msopgen or MindSpore's custom_compiler), so any other
  name is an :class:`~npusim.errors.AclnnCustomNotFoundError` naming it.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from typing import Optional

from npusim.aclnn import AclnnNotFoundError, lookup, provided
from npusim.errors import AclnnCustomNotFoundError, OpTypeError

PREFIX = "aclnn"
#: GE (aclop) operator types whose computation an aclnn operator of another name performs.  ``AddCustom`` is the
#: Ascend C sample operator of CANN's samples (z = x + y, 1_add_frameworklaunch) that MindSpore's custom_ascendc
#: tests and tutorials build; npusim runs it as aclnnAdd (with a warning, since its package is not read).
ACLOP_OPERATORS = {
    "RealDiv": "aclnnDiv",
    "ConcatD": "aclnnCat",
    "Concat": "aclnnCat",
    "AddCustom": "aclnnAdd",
}
#: aclop names that are Ascend C samples rather than CANN operators (their package is assumed to be the sample's)
SAMPLE_OPERATORS = frozenset({"AddCustom"})


@dataclass(frozen=True)
class OperatorFunc:
    """A parsed func: ``name`` (as written after the colon), ``api`` (the aclnn operator run), ``op`` (its
    npusim.aclnn Op: the parameter list), ``infer_path`` (absolute path of the C++ infer file, or None) and
    ``via`` ("aclnn", "prefix" or "aclop": how ``name`` led to ``api``)."""

    name: str
    api: str
    op: object
    infer_path: Optional[str]
    via: str


def split_func(func) -> tuple[Optional[str], str]:
    """(infer file path or None, operator name) of a Custom aot func on Ascend, with MindSpore's TypeErrors."""
    if not isinstance(func, str):
        raise OpTypeError(f"For 'Custom' (func_type='aot'), 'func' must be of type str, but got "
                          f"{type(func).__name__}")
    parts = func.split(":")
    if len(parts) == 1 and parts[0].strip():
        return None, parts[0].strip()
    if len(parts) != 2 or not parts[0] or not parts[1].strip():
        raise OpTypeError(f"For 'Custom', 'func' should be like 'file_name:func_name' or an operator name such "
                          f"as 'aclnnMul', but got {func!r}")
    return parts[0], parts[1].strip()


def operator_name_of(name: str) -> Optional[str]:
    """The aclnn operator ``name`` leads to (see the module docstring), or None when npusim has none."""
    if name.startswith(PREFIX):
        return name if name in provided() else None
    if PREFIX + name in provided():
        return PREFIX + name
    mapped = ACLOP_OPERATORS.get(name)
    return mapped if mapped in provided() else None


def names_operator(func) -> bool:
    """Whether ``func`` (an aot func string on Ascend) names an aclnn operator or the aclop form: a plain name, or
    ``file:name`` whose name is one npusim provides (other ``file:function`` pairs stay host aot kernels)."""
    if not isinstance(func, str) or func.count(":") > 1:
        return False
    if ":" not in func:
        return bool(func.strip())
    name = func.split(":")[1].strip()
    return name.startswith(PREFIX) or operator_name_of(name) is not None


def parse(func, op_name: str) -> OperatorFunc:
    """The operator ``func`` names; AclnnCustomNotFoundError naming it when npusim provides none."""
    path, name = split_func(func)
    api = operator_name_of(name)
    if api is None:
        raise _not_found(op_name, name)
    via = "aclnn" if name.startswith(PREFIX) else ("prefix" if api == PREFIX + name else "aclop")
    if name in SAMPLE_OPERATORS:
        warnings.warn(f"Custom op '{op_name}': npusim does not run Ascend C operator packages; it runs '{name}' as "
                      f"CANN's sample operator of that name (z = x + y) with {api}", stacklevel=4)
    return OperatorFunc(name, api, lookup(api), os.path.abspath(path) if path else None, via)


def _not_found(op_name: str, name: str) -> AclnnCustomNotFoundError:
    api = name if name.startswith(PREFIX) else PREFIX + name
    try:
        lookup(api)
        cause = f"'{api}' is not available"
    except AclnnNotFoundError as error:
        cause = error.cause
    if not name.startswith(PREFIX):
        mapped = ", ".join(f"{k} -> {v}" for k, v in ACLOP_OPERATORS.items() if v in provided())
        cause = (f"'{name}' is neither an aclnn operator without its prefix nor an aclop npusim maps to one "
                 f"({mapped}): {cause}")
    return AclnnCustomNotFoundError(op_name, api, (
        f"{cause}. npusim runs the aclnn operators it implements on its simulated device; it does not run Ascend C "
        f"operator packages (op_host/op_kernel built with msopgen or MindSpore's custom_compiler, found through "
        f"ASCEND_CUSTOM_OPP_PATH)"))
