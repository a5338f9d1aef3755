"""Static checks: error classes (TypeError / ValueError like MindSpore) and messages naming function and line."""
import inspect

import pytest

from npusim.custom.backends.base import OpDesc
from npusim.custom.backends.hybrid import AkgBackend, HybridBackend
from npusim.errors import HybridNameError, HybridSyntaxError, HybridValueError
from npusim.hybrid import kernel
from npusim.hybrid.checks import check_kernel
from npusim.hybrid.source import load_source


def uses_while(a):
    b = output_tensor(a.shape, a.dtype)
    i = 0
    while i < 3:
        i += 1
    return b


def uses_break(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(3):
        break
    return b


def uses_continue(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(3):
        continue
    return b


def calls_unknown(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = softplus(a[i])
    return b


def calls_numpy(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = np.exp(a[i])
    return b


def bad_attribute(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.size):
        b[i] = a[i]
    return b


def returns_expression(a):
    b = output_tensor(a.shape, a.dtype)
    return b + 1


def returns_local(a):
    b = output_tensor(a.shape, a.dtype)
    c = allocate(a.shape, a.dtype)
    return b, c


def forgets_output(a):
    b = output_tensor(a.shape, a.dtype)
    c = output_tensor(a.shape, a.dtype)
    return b


def no_return(a):
    b = output_tensor(a.shape, a.dtype)


def early_return(a):
    b = output_tensor(a.shape, a.dtype)
    if a.shape[0] > 2:
        return b
    return b


def overwrites_loop_var(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        i = 0
    return b


def undeclared(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = a[i] + missing
    return b


def redefines_tensor(a):
    b = output_tensor(a.shape, a.dtype)
    b = output_tensor(a.shape, a.dtype)
    return b


def chained_assignment(a):
    b = output_tensor(a.shape, a.dtype)
    x = y = 1.0
    return b


def bad_with(a):
    b = output_tensor(a.shape, a.dtype)
    with open("f"):
        pass
    return b


def bad_arity(a):
    b = output_tensor(a.shape, a.dtype)
    for i in range(a.shape[0]):
        b[i] = sqrt(a[i], 2)
    return b


def comprehension(a):
    b = output_tensor(a.shape, a.dtype)
    c = [x for x in range(3)]
    return b


CASES = [
    (uses_while, HybridSyntaxError, TypeError, "Keyword 'while' not accepted"),
    (uses_break, HybridSyntaxError, TypeError, "Keyword 'break' not accepted"),
    (uses_continue, HybridSyntaxError, TypeError, "Keyword 'continue' not accepted"),
    (calls_unknown, HybridNameError, ValueError, r"function call id \[softplus\] not in intrinsics list"),
    (calls_numpy, HybridNameError, ValueError, r"function call id \[np.exp\]"),
    (bad_attribute, HybridValueError, ValueError, "has no attribute called size"),
    (returns_expression, HybridSyntaxError, TypeError, "either a single tensor or a tuple"),
    (returns_local, HybridSyntaxError, TypeError, "should be either an input tensor or a tensor allocated by "
                                                  "output_tensor, but get name: c"),
    (forgets_output, HybridSyntaxError, TypeError, "not in the return value: c"),
    (no_return, HybridSyntaxError, TypeError, "must end with a return"),
    (early_return, HybridSyntaxError, TypeError, "only allowed as the last statement"),
    (overwrites_loop_var, HybridValueError, ValueError, "iter var cannot be overwritten: i"),
    (undeclared, HybridNameError, ValueError, "undeclared variable: missing"),
    (redefines_tensor, HybridValueError, ValueError, "the tensor is redefined: b"),
    (chained_assignment, HybridValueError, ValueError, "multiple assignments"),
    (bad_with, HybridValueError, ValueError, "Unsupported function in With scope"),
    (bad_arity, HybridSyntaxError, TypeError, r"function \[sqrt\] expects 1 input\(s\), but get 2"),
    (comprehension, HybridSyntaxError, TypeError, "'ListComp' is not supported"),
]


@pytest.mark.parametrize("func, error_class, builtin, pattern", CASES, ids=[c[0].__name__ for c in CASES])
def test_check_reports_function_line_and_class(func, error_class, builtin, pattern):
    with pytest.raises(error_class, match=pattern) as info:
        check_kernel(load_source(func))
    assert isinstance(info.value, builtin)
    message = str(info.value)
    assert func.__name__ in message
    lines, first = inspect.getsourcelines(func)
    line = int(message.rsplit("line ", 1)[1].rstrip(")!. "))
    assert first <= line < first + len(lines)


def test_checks_run_when_the_backend_is_built():
    with pytest.raises(TypeError, match="while"):
        AkgBackend(OpDesc(uses_while, "uses_while", None, "CPU", "akg"))
    with pytest.raises(ValueError, match="softplus"):
        HybridBackend(OpDesc(kernel(calls_unknown), "calls_unknown", None, "CPU", "hybrid"))


def test_hybrid_requires_the_decorator():
    def plain(a):
        b = output_tensor(a.shape, a.dtype)
        return b
    with pytest.raises(TypeError, match="'func' must be a function decorated by kernel"):
        HybridBackend(OpDesc(plain, "plain", None, "CPU", "hybrid"))
    AkgBackend(OpDesc(plain, "plain", None, "CPU", "akg"))   # akg takes plain functions
