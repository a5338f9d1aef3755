"""MindSpore's Hybrid DSL: ``@kernel`` functions run on numpy (direct call) or compiled with TVM (ops.Custom).

Pipeline: :mod:`.source` (function → AST) → :mod:`.checks` (MindSpore's static rules) → :mod:`.kernel_ir`
(:mod:`.lower_stmt` / :mod:`.lower_loops` / :mod:`.lower_expr` / :mod:`.lower_intrin`: AST → TIR PrimFunc for
given input shapes/dtypes/attributes) → :mod:`.compile` (tvm.compile with LLVM + the process-level cache).
:mod:`.emulate` runs the same function directly with the numpy rows of :mod:`.intrinsics`; :mod:`.dtypes`
holds the promotion rules both paths agree on.  Only the lowering/compile modules import TVM.
"""
from npusim.hybrid.decorator import is_kernel, kernel, ms_hybrid, ms_kernel  # noqa: F401
