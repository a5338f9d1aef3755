"""Static checks of a hybrid function, with MindSpore's rules and wording (plus file and line).

- ``while`` / ``break`` / ``continue`` and syntax outside the DSL → HybridSyntaxError (TypeError);
- calls of anything but a DSL intrinsic, reads of undeclared names → HybridNameError (ValueError);
- attributes other than ``.shape`` / ``.dtype`` of a tensor, loop variables written, tensors redefined,
  ``a = b = ...``, bad ``with`` scopes → HybridValueError (ValueError);
- the return value must be a name or a tuple of names of inputs / output tensors, every output tensor must be
  returned, and the return must end the function → HybridSyntaxError (TypeError);
- wrong argument counts of intrinsics → HybridSyntaxError (TypeError).
"""
from __future__ import annotations

import ast

from npusim.errors import HybridNameError, HybridSyntaxError, HybridValueError
from npusim.hybrid import intrinsics as intr
from npusim.hybrid.source import KernelSource

_ALLOWED_NODES = (
    ast.FunctionDef, ast.arguments, ast.arg, ast.Assign, ast.AugAssign, ast.For, ast.If, ast.With, ast.withitem,
    ast.Expr, ast.Return, ast.Pass, ast.Name, ast.Constant, ast.Subscript, ast.Tuple, ast.List, ast.Attribute,
    ast.Call, ast.keyword, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.expr_context,
    ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
)


def check_kernel(source: KernelSource) -> None:
    """Raise the first DSL violation found in ``source``; return None when the function is well formed."""
    checker = _Checker(source)
    checker.check_function(source.tree)


class _Checker(ast.NodeVisitor):
    """One pass over the function body; names are tracked in program order."""

    def __init__(self, source: KernelSource):
        self.src = source
        self.args: list = []
        self.loop_vars: list = []
        self.declared: set = set()
        self.output_tensors: list = []
        self.temp_tensors: list = []

    def where(self, node) -> str:
        return f" ({self.src.where(node)})"

    def dsl(self, text: str, node) -> str:
        return f"In the function {self.src.name} written in the Hybrid DSL, {text}{self.where(node)}"

    # ---- structure -------------------------------------------------------------------------------------
    def check_function(self, node: ast.FunctionDef) -> None:
        args = node.args
        if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
            raise HybridSyntaxError(self.dsl("only plain positional parameters are supported", node))
        self.args = [a.arg for a in args.args]
        body = [stmt for stmt in node.body if not _is_docstring(stmt)]
        if not body or not isinstance(body[-1], ast.Return):
            raise HybridSyntaxError(self.dsl("the function must end with a return of its output tensors", node))
        for stmt in body[:-1]:
            early = next((n for n in ast.walk(stmt) if isinstance(n, ast.Return)), None)
            if early is not None:
                raise HybridSyntaxError(self.dsl("'return' is only allowed as the last statement", early))
        for stmt in body:
            self.visit(stmt)

    def generic_visit(self, node):
        if not isinstance(node, _ALLOWED_NODES):
            raise HybridSyntaxError(self.dsl(f"the syntax '{type(node).__name__}' is not supported", node))
        super().generic_visit(node)

    def visit_While(self, node):
        raise HybridSyntaxError(f"Keyword 'while' not accepted in the function {self.src.name} written in the "
                                f"Hybrid DSL!{self.where(node)}")

    def visit_Break(self, node):
        raise HybridSyntaxError(f"Keyword 'break' not accepted in the function {self.src.name} written in the "
                                f"Hybrid DSL!{self.where(node)}")

    def visit_Continue(self, node):
        raise HybridSyntaxError(f"Keyword 'continue' not accepted in the function {self.src.name} written in the "
                                f"Hybrid DSL!{self.where(node)}")

    def visit_Expr(self, node):
        if not _is_docstring(node):
            self.visit(node.value)

    def visit_For(self, node):
        if node.orelse:
            raise HybridSyntaxError(self.dsl("'for ... else' is not supported", node))
        call = node.iter
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and getattr(intr.intrinsic(call.func.id), "kind", None) == intr.LOOP):
            raise HybridSyntaxError(self.dsl("a for loop must iterate over range, serial, vectorize, parallel, "
                                             "reduce or grid", node))
        self.visit(call)
        targets = _target_names(node.target)
        if targets is None:
            raise HybridSyntaxError(self.dsl("the loop variable must be a name or a tuple of names", node))
        self.loop_vars.append(targets)
        for stmt in node.body:
            self.visit(stmt)
        self.loop_vars.pop()

    def visit_With(self, node):
        for item in node.items:
            self._check_scope_call(item.context_expr)
        for stmt in node.body:
            self.visit(stmt)

    def _check_scope_call(self, expr) -> None:
        if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)
                and expr.func.id in ("attr", "block_realize")):
            shown = ast.unparse(expr.func if isinstance(expr, ast.Call) else expr)
            raise HybridValueError(f"Unsupported function in With scope in the function {self.src.name} written "
                                   f"in the Hybrid DSL: {shown}{self.where(expr)}")
        if expr.func.id == "attr":
            if len(expr.args) != 2:
                raise HybridValueError(self.dsl(f"two inputs are expected by 'attr', but get {len(expr.args)}", expr))
            if not (isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str)):
                raise HybridValueError(self.dsl("the first input of 'attr' should be a string", expr))
        elif len(expr.args) != 1 or not isinstance(expr.args[0], ast.Name):
            raise HybridValueError(self.dsl("the input of 'block_realize' should be a tensor name", expr))

    # ---- assignments --------------------------------------------------------------------------------------
    def visit_Assign(self, node):
        if len(node.targets) > 1:
            raise HybridValueError(f"One statement with multiple assignments is not allowed in the function "
                                   f"{self.src.name} written in the Hybrid DSL.{self.where(node)}")
        self.visit(node.value)
        target = node.targets[0]
        if isinstance(target, ast.Name) and _buffer_call(node.value):
            self._declare_tensor(target.id, node.value.func.id, node)
        self._visit_target(target)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        if isinstance(node.target, ast.Name):
            self._load_name(node.target.id, node.target)
        self._visit_target(node.target)

    def _declare_tensor(self, name: str, func_name: str, node) -> None:
        if name in self.output_tensors + self.temp_tensors:
            raise HybridValueError(self.dsl(f"the tensor is redefined: {name}", node))
        (self.output_tensors if func_name == "output_tensor" else self.temp_tensors).append(name)

    def _visit_target(self, target) -> None:
        if isinstance(target, ast.Name):
            self._store_name(target.id, target)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._visit_target(elt)
        elif isinstance(target, ast.Subscript):
            self.visit(target.value)
            self.visit(target.slice)
        else:
            raise HybridSyntaxError(self.dsl(f"cannot assign to '{ast.unparse(target)}'", target))

    def _store_name(self, name: str, node) -> None:
        if any(name in names for names in self.loop_vars):
            raise HybridValueError(self.dsl(f"iter var cannot be overwritten: {name}", node))
        if name in self.args:
            raise HybridValueError(self.dsl(f"the input cannot be reassigned: {name}", node))
        self.declared.add(name)

    def _load_name(self, name: str, node) -> None:
        if (name in self.args or name in self.declared or any(name in names for names in self.loop_vars)
                or intr.intrinsic(name) is not None):
            return
        raise HybridNameError(self.dsl(f"there is a undeclared variable: {name}", node))

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self._load_name(node.id, node)

    # ---- expressions --------------------------------------------------------------------------------------
    def visit_Call(self, node):
        if node.keywords and not _buffer_call(node):
            raise HybridSyntaxError(self.dsl(f"keyword arguments are not supported in a call of "
                                             f"'{ast.unparse(node.func)}'", node))
        func_name = node.func.id if isinstance(node.func, ast.Name) else ast.unparse(node.func)
        row = intr.intrinsic(func_name)
        if row is None:
            raise HybridNameError(f"In the function [{self.src.name}], function call id [{func_name}] not in "
                                  "intrinsics list of the Hybrid DSL. For the full support list, please refer to "
                                  f"'Hybrid DSL' at https://www.mindspore.cn.{self.where(node)}")
        self._check_arity(row, node)
        for arg in node.args:
            self.visit(arg)
        for kw in node.keywords:
            self.visit(kw.value)

    def _check_arity(self, row, node) -> None:
        low, high = row.arity
        count = len(node.args) + len(node.keywords)
        if count < low or (high is not None and count > high):
            expected = str(low) if low == high else (f"{low} to {high}" if high else f"at least {low}")
            raise HybridSyntaxError(f"In the function [{self.src.name}], function [{row.name}] expects {expected} "
                                    f"input(s), but get {count}.{self.where(node)}")

    def visit_Attribute(self, node):
        if not isinstance(node.value, ast.Name):
            raise HybridValueError(self.dsl("getattr is only supported for a tensor object, not for the object "
                                            f"with type: {type(node.value)}", node))
        tensors = self.output_tensors + self.temp_tensors + self.args
        if node.value.id not in tensors:
            raise HybridValueError(self.dsl("getattr is only supported for a tensor variable after its "
                                            f"declaration, not for: {node.value.id}", node))
        if node.attr not in ("shape", "dtype"):
            raise HybridValueError(self.dsl(f"a tensor object has no attribute called {node.attr}", node))

    def visit_Return(self, node):
        value = node.value
        if isinstance(value, ast.Name):
            symbols = [value]
        elif isinstance(value, ast.Tuple):
            symbols = list(value.elts)
            for elt in symbols:
                if not isinstance(elt, ast.Name):
                    raise HybridSyntaxError(self.dsl("the element in the return value should be the name of a "
                                                     f"tensor, but get a {type(elt)}.", node))
        else:
            raise HybridSyntaxError(self.dsl("the return value should be either a single tensor or a tuple, "
                                             f"but get a {type(value)}.", node))
        names = [sym.id for sym in symbols]
        for name in names:
            if name not in self.args + self.output_tensors:
                raise HybridSyntaxError(self.dsl("the element in the return value should be either an input "
                                                 "tensor or a tensor allocated by output_tensor, but get name: "
                                                 f"{name}", node))
        for name in self.output_tensors:
            if name not in names:
                raise HybridSyntaxError(self.dsl("the tensor is allocated as an output tensor but not in the "
                                                 f"return value: {name}", node))

    def visit_If(self, node):
        self.visit(node.test)
        for stmt in node.body + node.orelse:
            self.visit(stmt)


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _buffer_call(node) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("output_tensor", "allocate"))


def _target_names(target):
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, ast.Tuple) and all(isinstance(e, ast.Name) for e in target.elts):
        return {e.id for e in target.elts}
    return None
