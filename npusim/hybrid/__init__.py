"""MindSpore's Hybrid DSL: ``@kernel`` functions run on numpy (direct call) or compiled with TVM (ops.Custom).

Pipeline: :mod:`.source` (function → AST) → :mod:`.checks` (MindSpore's static rules) → :mod:`.kernel_ir`
(:mod:`.lower_stmt` / :mod:`.lower_loops` / :mod:`.lower_expr` / :mod:`.lower_intrin`: AST → TIR PrimFunc for
given input shapes/dtypes/attributes) → :mod:`.compile` (tvm.compile with LLVM + the process-level cache, and
:mod:`.disk_cache` across processes).  :mod:`.autodiff` (with :mod:`.grad_rules`) derives a kernel's automatic
backward from its TIR; :mod:`.ir_builder` / :mod:`.akg_lower` lower akg ir_builder functions to the same form.
:mod:`.emulate` runs the same function directly with the numpy rows of :mod:`.intrinsics`; :mod:`.dtypes`
holds the promotion rules both paths agree on.  Only the lowering/compile modules import TVM.
"""
from npusim.hybrid.decorator import is_kernel, kernel, ms_hybrid, ms_kernel  # noqa: F401
