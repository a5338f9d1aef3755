"""``tik.Tik()``: the TIK container.  Python runs once and records statements into a
:class:`~npusim.sim.builder.KernelBuilder`; ``BuildCCE`` turns them into an npusim kernel.

Declarations: ``Tensor`` (GM tensors become kernel parameters; local ones get an address in their scope that is
reused once their ``with`` block ends, as TIK does — sibling scopes share space, nothing is reserved; a tensor
declared inside a ``thread_num=n`` loop takes n copies of space), ``Scalar``, ``InputScalar``.  Control flow:
``for_range`` (``block_num`` > 1: the loop variable is the block index of a multi-core launch; ``thread_num``:
n-buffering — the simulator runs the iterations in order on one copy, which gives the same values, and the
inserted synchronisation lets the cycle model overlap them), ``if_scope`` / ``else_scope`` /
``new_stmt_scope``.  Instructions: :mod:`~te_compat.tik.vector`, :mod:`~te_compat.tik.cmpsel`,
:mod:`~te_compat.tik.moves`.  Pipe synchronisation is inserted at BuildCCE (:mod:`~te_compat.tik.sync`).
"""
from __future__ import annotations

from contextlib import contextmanager
from math import prod

from npusim.errors.tik import TikInstructionUnsupportedError, TikMemoryError, TikOperandRangeError, TikSyntaxError
from npusim.sim.builder import KernelBuilder
from npusim.sim.dtypes import canonical_dtype, itemsize
from te_compat.tik.checks import immediate
from te_compat.tik.cmpsel import CmpSelMixin
from te_compat.tik.cube import CubeMixin
from te_compat.tik.cube_fixpipe import FixpipeMixin
from te_compat.tik.edges import runtime_now
from te_compat.tik.fused import FusedMixin
from te_compat.tik.group_reduce import GroupReduceMixin
from te_compat.tik.missing import MissingMixin
from te_compat.tik.moves import MoveMixin
from te_compat.tik.objects import TikInputScalar, TikScalar, TikTensor, sim_scope
from te_compat.tik.transpose import TransposeMixin
from te_compat.tik.vector import VectorMixin

THREAD_NUM_MAX = 4     # TIK API limit on for_range thread_num (n-buffering depth), not hardware
LOOP_BOUND_LIMIT = 1 << 31   # for_range bounds are int32 (TIK: 0 <= begin <= end < 2**31)


class Tik(VectorMixin, CmpSelMixin, MoveMixin, CubeMixin, FixpipeMixin, TransposeMixin, GroupReduceMixin,
          FusedMixin, MissingMixin):
    """``tik.Tik(profiling=None, disable_debug=True, err_msg_level=0)``: a TIK kernel being written for the
    current runtime's chip (``set_current_compile_soc_info`` picks it).  Debugging stays enabled whatever
    ``disable_debug`` says."""

    def __init__(self, profiling=None, disable_debug=True, err_msg_level=0):
        del profiling, disable_debug
        self.err_msg_level = err_msg_level
        self.runtime = runtime_now()
        self.chip = self.runtime.target.chip
        self._kb = KernelBuilder("tik_kernel", chip=self.chip)
        self._kb.tik = self  # element views reach the container through their builder (t[i].set_as(u[j]))
        from te_compat.tik.stepping import SourceLines
        self.sources = SourceLines()     # each instruction's line in the user's code (tikdb breakpoints)
        self._kb.on_emit = self.sources.note
        self._tops: dict = {}
        self._names: dict = {}
        self._gm_names: set = set()
        self._block_num = 1
        self._threads: list = []       # thread_num of the open for_range loops, innermost last
        self._loop_vars: list = []     # their loop variables
        self.buffered: dict = {}       # loop var of a thread_num >= 2 loop -> local buffers declared in its body
        self.built = None
        from te_compat.tik.debug import Tikdb
        from te_compat.tik.debug_print import DebugPrints
        from te_compat.tik.platform import Dprofile
        self.prints = DebugPrints(self)
        self.tikdb = Tikdb(self)
        self.d_profiling = Dprofile()

    # -- declarations -------------------------------------------------------------------------------------------
    def Tensor(self, dtype, shape, scope, name="", enable_buffer_reuse=False, no_reuse_list=None,  # noqa: N802
               reuse_list=None, is_workspace=False, is_atomic_add=False, max_mem_size=None, init_value=None,
               start_addr=None) -> TikTensor:
        """Declare a tensor of ``dtype`` and ``shape`` in ``scope`` (tik.scope_gm, scope_ubuf ...)."""
        del enable_buffer_reuse, no_reuse_list, reuse_list, max_mem_size
        if init_value is not None or start_addr is not None:
            raise TikInstructionUnsupportedError(f"Tensor {name}: init_value / start_addr are not supported by "
                                                 f"npusim yet")
        dtype, where = canonical_dtype(dtype), sim_scope(scope)
        dims = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        if any(immediate(d) is None or immediate(d) < 1 for d in dims):
            raise TikSyntaxError(f"Tensor {name}: shape should be positive integers, input shape: {list(dims)}")
        dims = tuple(immediate(d) for d in dims)
        if where == "GM":
            if not name or name in self._gm_names:
                raise TikSyntaxError(f"Tensor name {name!r} is empty or already used: GM tensors need unique names")
            self._gm_names.add(name)
            self._names[name] = 1
            self._kb.tensor(dtype, dims, "GM", name, is_workspace=is_workspace, is_atomic_add=is_atomic_add)
            return TikTensor(self._kb, name, dtype, dims, "GM", user_name=name, is_workspace=is_workspace,
                             is_atomic_add=is_atomic_add)
        size = prod(dims) * itemsize(dtype)
        copies = next((n for n in reversed(self._threads) if n > 1), 1)   # n-buffering: each copy is reserved
        block = self.chip.block_bytes
        addr = -(-self._tops.get(where, 0) // block) * block
        capacity = self.chip.scope_bytes(where)
        if addr + size * copies > capacity:
            raise TikMemoryError(f"Tensor {name or '(unnamed)'} needs {size * copies} bytes of {where} at byte {addr} "
                                 f"({copies} buffer cop{'ies' if copies > 1 else 'y'}), but "
                                 f"{self.chip.name}'s {where} holds {capacity} bytes (the tensors alive here use "
                                 f"{addr})")
        self._tops[where] = addr + size * copies
        internal = self._unique(name or "tensor")
        for var, count in zip(self._loop_vars, self._threads):
            if count > 1:
                self.buffered.setdefault(var, set()).add(internal)
        self._kb.tensor(dtype, dims, where, internal, addr_bytes=addr)
        return TikTensor(self._kb, internal, dtype, dims, where, user_name=name or internal)

    def Scalar(self, dtype="int64", name="reg_buf", init_value=None) -> TikScalar:  # noqa: N802
        """A scalar register (``init_value``: its first write, here)."""
        handle = self._kb.scalar(dtype, self._unique(name or "reg_buf"))
        scalar = TikScalar(self._kb, handle.name, handle.dtype)
        if init_value is not None:
            scalar.set_as(init_value)
        return scalar

    def InputScalar(self, dtype="int64", name="input_scalar") -> TikInputScalar:  # noqa: N802
        """A scalar argument of the kernel (list it in BuildCCE inputs or flowtable)."""
        if name in self._names:
            raise TikSyntaxError(f"InputScalar name {name!r} is already used")
        self._names[name] = 1
        expr = self._kb.input_scalar(dtype, name)
        return TikInputScalar(expr.expr, name, canonical_dtype(dtype))

    def _unique(self, name: str) -> str:
        count = self._names.get(name, 0)
        self._names[name] = count + 1
        return name if count == 0 else f"{name}_{count}"

    # -- control flow -------------------------------------------------------------------------------------------
    @contextmanager
    def _lifetime(self):
        """Local tensors declared inside the block free their space when it ends."""
        saved = dict(self._tops)
        try:
            yield
        finally:
            self._tops = saved

    @contextmanager
    def for_range(self, begint, endt, name="i", thread_num=1, thread_type="whole", block_num=1, dtype="int32",
                  for_type="serial"):
        """``for name in range(begint, endt)`` as kernel IR; yields the loop variable (an Expr)."""
        del thread_type, dtype, for_type
        _check_thread_num(thread_num)
        low, high = immediate(begint), immediate(endt)
        for label, value in (("begint", low), ("endt", high)):
            if value is not None and not 0 <= value < LOOP_BOUND_LIMIT:
                raise TikOperandRangeError(f"for_range {label} should be in the range of [0, 2**31-1], input "
                                           f"{label}: {value}")
        if low is not None and high is not None and low > high:
            raise TikOperandRangeError(f"for_range begint should not be more than endt, input begint: {low}, "
                                       f"endt: {high}")
        blocks = immediate(block_num)
        if blocks is None or blocks < 1:
            raise TikOperandRangeError(f"block_num should be a positive integer, input block_num: {block_num!r}")
        if blocks > 1:
            with self._block_loop(low, high, blocks) as var:
                yield var
            return
        var_name = self._unique(name or "i")
        self._threads.append(immediate(thread_num))
        self._loop_vars.append(var_name)
        try:
            with self._lifetime(), self._kb.for_range(begint, endt, var_name) as var:
                yield var
        finally:
            self._threads.pop()
            self._loop_vars.pop()

    @contextmanager
    def _block_loop(self, low, high, blocks):
        if len(self._kb._stack) != 1 or self._block_num != 1:
            raise TikSyntaxError("for_range with block_num > 1 must be the outermost loop of the kernel, and only one")
        if low is None or high is None or high - low != blocks:
            raise TikSyntaxError(f"for_range with block_num={blocks} should have {blocks} iterations, input range: "
                                 f"[{low}, {high})")
        self._block_num = self._kb.block_dim = blocks
        with self._lifetime():
            yield self._kb.block_idx + low if low else self._kb.block_idx

    @contextmanager
    def if_scope(self, cond):
        """``if cond:`` as kernel IR (cond: an Expr, tik.all/any, or a Python bool)."""
        with self._lifetime(), self._kb.if_scope(cond):
            yield

    @contextmanager
    def else_scope(self):
        """The else branch of the if_scope just closed."""
        current = self._kb._stack[-1]
        from npusim.sim.kernel import If
        if not current or not isinstance(current[-1], If) or current[-1].else_body:
            raise TikSyntaxError("else_scope should be used directly after if_scope")
        with self._lifetime(), self._kb.else_scope():
            yield

    @contextmanager
    def new_stmt_scope(self, disable_sync=False):
        """A block whose local tensors are freed at its end."""
        del disable_sync
        with self._lifetime():
            yield

    # -- build / run ----------------------------------------------------------------------------------------------
    def BuildCCE(self, kernel_name, inputs, outputs, output_files_path=None, enable_l2=False,  # noqa: N802
                 config=None, flowtable=None, evaluates=None, extend_params=None):
        """Build the kernel and write ``kernel_meta/<kernel_name>.o`` / ``.json`` (under ``output_files_path`` if
        given); returns ``self`` (TIK returns the instance)."""
        del enable_l2, config, evaluates, extend_params
        from te_compat.tik.build import build_cce
        self.built = build_cce(self, kernel_name, inputs, outputs, flowtable, output_files_path)
        return self

    def get_available_buffer_size(self, scope) -> int:  # noqa: D401
        """Bytes of ``scope`` not used by the tensors alive here."""
        where = sim_scope(scope)
        return self.chip.scope_bytes(where) - self._tops.get(where, 0)


def _check_thread_num(thread_num) -> None:
    number = immediate(thread_num)
    if number is None or not 0 <= number <= THREAD_NUM_MAX:
        raise TikOperandRangeError(f"thread_num should be in the range of [0, {THREAD_NUM_MAX}], input thread_num: "
                                   f"{thread_num!r}")



__all__ = ["Tik"]
