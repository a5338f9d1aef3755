"""TIK's cube instructions: ``matmul`` (lowered as TIK lowers it: load2d panels L1 -> L0A / L0B, then ``mmad``
into L1OUT), and the low-level ``load2dv1``, ``load3dv1`` (img2col, :mod:`npusim.sim.isa.load3d`) and ``mmad``.
``fixpipe`` is in :mod:`te_compat.tik.cube_fixpipe`.

Layouts (TIK API reference, matmul): a in L1 as ``[K1, M, K0]``, b in L1 as ``[K1, N, K0]`` (K0 = one block of
elements: 16 fp16, 32 int8; M and N rounded up to whole 16-row fractals), dst in L1OUT (L0C) as ``[N1, M, 16]``.
A fractal is 16 rows x one block (512 bytes).  In L1, a's fractal (row block i, column block j) is fractal
``j * M1 + i`` and b's (column block j, k block l) is fractal ``l * N1 + j``; mmad wants A zZ ``[M1, K1, 16, K0]``
in L0A and B nZ ``[K1, N1, 16, K0]`` in L0B, so an A panel is loaded one fractal row at a time with
``src_stride = M1`` and a B panel one K row at a time (contiguous fractals).

The panels are sized to what is free of L0A / L0B where matmul is written (TIK allocates them the same way,
freed when matmul returns) and to mmad's 12-bit matrix fields; a panel holding all of M may span several N
fractals, a partial M panel one (C's fractals of one N column are contiguous).  The K steps accumulate: the first
overwrites dst when ``init_l1out`` is true, every later one (and the first when it is false) adds.  Rows past m
and columns past n compute from whatever L1 holds there, as on the hardware; fixpipe drops them.
"""
from __future__ import annotations

from npusim.errors.tik import (TikInstructionUnsupportedError, TikMemoryError, TikOperandRangeError,
                               TikSyntaxError)
from npusim.sim.dtypes import itemsize
from npusim.sim.geometry import DATA_MOVE_SID_MAX, LOAD2D_INDEX_MAX, LOAD2D_REPEAT_MAX, LOAD2D_STRIDE_MAX, \
    MMAD_DIM_MAX
from npusim.sim.isa.cube import mmad_key
from te_compat.tik.checks import check_range, check_repeat, immediate
from te_compat.tik.cube_checks import (check_byte_alignment, check_need, python_int, tensor_operand,
                                       unsupported_combo)
from te_compat.tik.objects import scope_ca, scope_cb

MATMUL_DIM_LIMIT = 4096                          # TIK matmul m, n in [1, 4096] (an API limit)
MATMUL_K_LIMIT = {1: 32768, 2: 16384}            # TIK matmul k range by input itemsize (an API limit)
MATMUL_KEYS = ("f162f32", "s8", "u8s8")          # mmad keys TIK's matmul accepts (f16f16f32, s8s8s32, u8s8s32)
LOAD3D_DTYPES = ("float16", "int8", "uint8")     # TIK load3dv1's feature-map dtypes


class CubeMixin:
    """``matmul``, ``mmad``, ``load2dv1`` and ``load3dv1`` of :class:`~te_compat.tik.Tik`."""

    # -- matmul ---------------------------------------------------------------------------------------------------
    def matmul(self, dst, a, b, m, k, n, init_l1out=True, bias=None):
        """TIK ``matmul``: dst (L1OUT ``[N1, M, 16]``) (+)= a (L1 ``[K1, M, K0]``) x b (L1 ``[K1, N, K0]``) for
        the leading m x k and k x n; fp16 -> fp32, int8 -> int32; ``init_l1out=False`` accumulates.  ``bias``
        (newer TIK) is not modelled: fixpipe's extend_params bias adds one."""
        if bias is not None:
            raise TikInstructionUnsupportedError("matmul bias is not supported by npusim yet; add the bias with "
                                                 "fixpipe's extend_params={'bias': ...}")
        d = tensor_operand("dst", dst, ("L0C",), "L1_OUT")
        oa = tensor_operand("a", a, ("L1",), "L1")
        ob = tensor_operand("b", b, ("L1",), "L1")
        key = mmad_key(oa.dtype, ob.dtype, d.dtype)
        if key not in MATMUL_KEYS or not self.chip.supports("mmad", key):
            raise unsupported_combo("matmul", (oa.dtype, ob.dtype, d.dtype))
        isz = itemsize(oa.dtype)
        python_int("m", m, 1, MATMUL_DIM_LIMIT, matmul=True)
        python_int("k", k, 1, MATMUL_K_LIMIT[isz], matmul=True)
        python_int("n", n, 1, MATMUL_DIM_LIMIT, matmul=True)
        if not isinstance(init_l1out, bool):
            raise TikSyntaxError("init_l1out should be bool type.")
        geo = _Geometry(self.chip, m, k, n, isz)
        check_need("dst", d, geo.m1 * geo.n1 * self.chip.cube_m * self.chip.cube_n)
        check_need("a", oa, geo.m1 * geo.k1 * geo.frac_elems)
        check_need("b", ob, geo.n1 * geo.k1 * geo.frac_elems)
        c_frac_bytes = self.chip.cube_m * self.chip.cube_n * itemsize(d.dtype)
        check_byte_alignment(d, c_frac_bytes, f"dst address should be {c_frac_bytes}B aligned")
        for op in (oa, ob):
            check_byte_alignment(op, geo.frac_bytes, f"source a and b address should be {geo.frac_bytes}B aligned")
        with self.new_stmt_scope():
            _MatmulWriter(self, geo, dst, a, b, oa.dtype, init_l1out).emit()

    # -- low level ------------------------------------------------------------------------------------------------
    def load2dv1(self, dst, src, start_index, repeat_times, src_stride, sid, if_transpose=False, addr_mode=None):
        """TIK ``load2dv1``: ``repeat_times`` 512-byte fractals from L1 into L0A / L0B; repeat r reads source
        fractal ``start_index + r * src_stride``; ``if_transpose`` transposes each (2-byte dtypes)."""
        d = tensor_operand("dst", dst, ("L0A", "L0B"), "L0A or L0B")
        s = tensor_operand("src", src, ("L1", "GM"), "L1")
        if d.dtype != s.dtype:
            raise unsupported_combo("load2dv1", (s.dtype, d.dtype))
        if (s.tensor.scope, d.tensor.scope) not in self.chip.paths:
            raise unsupported_combo("load2dv1", (s.dtype, d.dtype))
        if addr_mode not in (None, "inc"):
            raise TikInstructionUnsupportedError(f"load2dv1 addr_mode {addr_mode!r} is not supported by npusim "
                                                 f"(only the increasing address mode)")
        check_range("start_index", start_index, 0, LOAD2D_INDEX_MAX)
        check_repeat(self.chip, repeat_times)
        check_range("src_stride", src_stride, 0, LOAD2D_STRIDE_MAX)
        check_range("sid", sid, 0, DATA_MOVE_SID_MAX)
        if not isinstance(if_transpose, bool):
            raise TikSyntaxError("if_transpose should be bool type.")
        frac_bytes = self.chip.cube_m * self.chip.block_bytes
        check_byte_alignment(d, frac_bytes, f"Address align error, dst is not {frac_bytes} Byte align")
        if s.tensor.scope == "L1":
            check_byte_alignment(s, self.chip.block_bytes,
                                 f"Address align error, src is not {self.chip.block_bytes} Byte align")
        return self._kb.emit("load2d", dst, src, start_index, repeat_times, src_stride, sid, if_transpose)

    def load3dv1(self, dst, src, pad, l1_h, l1_w, c1_index, fetch_w, fetch_h, left_top_w, left_top_h, stride_w,
                 stride_h, filter_w, filter_h, dilation_filter_w, dilation_filter_h, jump_offset, repeat_mode,
                 repeat_time, csize=0, pad_value=None):
        """TIK ``load3dv1`` (img2col): ``repeat_time`` 16-row fractals of feature-map pixels from L1 ``[C1, H, W,
        C0]`` into L0A or UB; ``repeat_mode`` 0 walks the filter positions, 1 the output pixels (fractals
        ``jump_offset`` apart); ``pad`` is [left, right, top, bottom], padding reads ``pad_value``."""
        d = tensor_operand("dst", dst, ("L0A", "UB"), "L0A or scope_ubuf")
        s = tensor_operand("src", src, ("L1",), "L1")
        if d.dtype != s.dtype or d.dtype not in LOAD3D_DTYPES:
            raise unsupported_combo("load3dv1", (s.dtype, d.dtype))
        if not isinstance(pad, (list, tuple)) or len(pad) != 4:
            raise TikSyntaxError(f"pad should be a list of 4 (pad_left, pad_right, pad_top, pad_bottom), input pad: "
                                 f"{pad!r}")
        if immediate(csize) not in (0, None):
            raise TikInstructionUnsupportedError("load3dv1 csize != 0 is not supported by npusim yet")
        check_repeat(self.chip, repeat_time)
        if immediate(repeat_mode) not in (0, 1):
            raise TikOperandRangeError(f"repeat_mode should be 0 or 1, input repeat_mode: {repeat_mode!r}")
        for name, value in (("stride_w", stride_w), ("stride_h", stride_h), ("filter_w", filter_w),
                            ("filter_h", filter_h), ("dilation_filter_w", dilation_filter_w),
                            ("dilation_filter_h", dilation_filter_h), ("l1_h", l1_h), ("l1_w", l1_w)):
            if immediate(value) is not None and immediate(value) < 1:
                raise TikOperandRangeError(f"{name} should be a positive integer, input {name}: {value!r}")
        frac_bytes = self.chip.cube_m * self.chip.block_bytes
        align = frac_bytes if d.tensor.scope == "L0A" else self.chip.block_bytes
        check_byte_alignment(d, align, f"Address align error, dst is not {align} Byte align")
        names = ("pad_left", "pad_right", "pad_top", "pad_bottom")
        args = dict(zip(names, pad), l1_h=l1_h, l1_w=l1_w, c1_index=c1_index, fetch_filter_w=fetch_w,
                    fetch_filter_h=fetch_h, left_top_w=left_top_w, left_top_h=left_top_h, stride_w=stride_w,
                    stride_h=stride_h, filter_w=filter_w, filter_h=filter_h, dilation_filter_w=dilation_filter_w,
                    dilation_filter_h=dilation_filter_h, jump_offset=jump_offset, repeat_mode=repeat_mode,
                    repeat_time=repeat_time, pad_value=0 if pad_value is None else pad_value)
        return self._kb.emit("load3d", dst=dst, src=src, **args)

    def mmad(self, dst_fm, src_fm, src_filter, matrix_m, matrix_k, matrix_n, is_bias, fm_offset=0,
             en_weight_offset=False, smask=None, en_small_channel=False, en_small_k=False, en_ssparse=False,
             en_winograd_a=False, en_winograd_b=False):
        """TIK ``mmad``: dst_fm (L1OUT, zN) (+)= src_fm (L0A, zZ) x src_filter (L0B, nZ); ``is_bias`` true
        accumulates into dst_fm."""
        d = tensor_operand("dst_fm", dst_fm, ("L0C",), "L1_OUT")
        a = tensor_operand("src_fm", src_fm, ("L0A",), "L0A")
        b = tensor_operand("src_filter", src_filter, ("L0B",), "L0B")
        key = mmad_key(a.dtype, b.dtype, d.dtype)
        if key is None or not self.chip.supports("mmad", key):
            raise unsupported_combo("mmad", (a.dtype, b.dtype, d.dtype))
        extras = {"fm_offset": fm_offset not in (0, None), "en_weight_offset": en_weight_offset,
                  "smask": smask is not None, "en_small_channel": en_small_channel, "en_small_k": en_small_k,
                  "en_ssparse": en_ssparse, "en_winograd_a": en_winograd_a, "en_winograd_b": en_winograd_b}
        used = [name for name, on in extras.items() if on]
        if used:
            raise TikInstructionUnsupportedError(f"mmad {', '.join(used)} is not supported by npusim yet")
        for name, value in (("matrix_m", matrix_m), ("matrix_k", matrix_k), ("matrix_n", matrix_n)):
            check_range(name, value, 0, MMAD_DIM_MAX)
        if immediate(is_bias) is None or immediate(is_bias) not in (0, 1):
            raise TikSyntaxError(f"is_bias should be 0 or 1 (an immediate), input is_bias: {is_bias!r}")
        return self._kb.emit("mmad", dst_fm, src_fm, src_filter, matrix_m, matrix_k, matrix_n,
                             bool(immediate(is_bias)))


def buffer_copies(tik) -> int:
    """Copies a tensor declared here takes (a thread_num >= 2 loop around it buffers it n times)."""
    return next((n for n in reversed(tik._threads) if n > 1), 1)


class _Geometry:
    """matmul's fractal counts and the L0 panel sizes (in fractals) for one call."""

    def __init__(self, chip, m: int, k: int, n: int, isz: int):
        self.m, self.k, self.n = m, k, n
        self.k0 = chip.block_elems(isz)
        self.rows = chip.cube_m
        self.frac_bytes = chip.cube_m * chip.block_bytes
        self.frac_elems = self.frac_bytes // isz
        self.m1, self.k1, self.n1 = -(-m // chip.cube_m), -(-k // self.k0), -(-n // chip.cube_n)

    def panels(self, free_a: int, free_b: int) -> tuple:
        """(m_t, k_t, n_t) fractals per panel for ``free_a`` / ``free_b`` free fractals of L0A / L0B."""
        if free_a < 1 or free_b < 1:
            return None
        dim_fracs = MMAD_DIM_MAX // self.rows          # mmad's 12-bit m / n fields, in fractals
        k_fracs = MMAD_DIM_MAX // self.k0              # and its k field
        m_t = min(self.m1, free_a, dim_fracs)
        k_t = min(self.k1, free_a // m_t, k_fracs, free_b)
        n_t = min(self.n1, free_b // k_t, dim_fracs) if m_t == self.m1 else 1
        return m_t, k_t, n_t


class _MatmulWriter:
    """Emits one matmul: K steps outermost; per M panel one A load, per N panel one B load and one mmad."""

    def __init__(self, tik, geo: _Geometry, dst, a, b, dtype: str, init: bool):
        self.tik, self.geo, self.dst, self.a, self.b, self.init = tik, geo, dst, a, b, init
        chip = tik.chip
        frac = geo.frac_bytes
        free = {}
        for scope, tik_scope in (("L0A", scope_ca), ("L0B", scope_cb)):
            pad = -tik._tops.get(scope, 0) % frac     # mmad reads L0A / L0B from whole-fractal addresses
            if pad and chip.scope_bytes(scope) - tik._tops[scope] >= pad:
                tik.Tensor("uint8", (pad,), tik_scope, name=f"matmul_{scope.lower()}_pad")
            free[scope] = (chip.scope_bytes(scope) - tik._tops.get(scope, 0)) // frac // buffer_copies(tik)
        panels = geo.panels(free["L0A"], free["L0B"])
        if panels is None:
            raise TikMemoryError(f"matmul needs at least one {frac}-byte fractal free in L0A and in L0B; free: "
                                 f"{free['L0A']} and {free['L0B']}")
        self.m_t, self.k_t, self.n_t = panels
        self.l0a = tik.Tensor(dtype, (self.m_t * self.k_t * geo.frac_elems,), scope_ca, name="matmul_l0a")
        self.l0b = tik.Tensor(dtype, (self.k_t * self.n_t * geo.frac_elems,), scope_cb, name="matmul_l0b")

    def emit(self) -> None:
        geo, k_t = self.geo, self.k_t
        steps = -(-geo.k1 // k_t)
        if steps == 1:
            self._k_step(0, geo.k1, geo.k, not self.init)
            return
        self._k_step(0, k_t, k_t * geo.k0, not self.init)
        if steps > 2:
            with self.tik.for_range(1, steps - 1, name="matmul_k") as ks:
                self._k_step(ks * k_t, k_t, k_t * geo.k0, True)
        first = (steps - 1) * k_t
        self._k_step(first, geo.k1 - first, geo.k - first * geo.k0, True)

    def _tiles(self, total: int, per: int, name: str, body) -> None:
        """body(first fractal, count) over panels of ``per`` of ``total`` fractals: a loop, then the tail."""
        full, tail = divmod(total, per)
        if full == 1:
            body(0, per)
        elif full > 1:
            with self.tik.for_range(0, full, name=name) as i:
                body(i * per, per)
        if tail:
            body(full * per, tail)

    def _k_step(self, kb0, k_cnt: int, matrix_k: int, accumulate: bool) -> None:
        geo = self.geo

        def m_panel(mb0, m_cnt):
            self._load_a(mb0, m_cnt, kb0, k_cnt)

            def n_panel(nb0, n_cnt):
                self._load_b(kb0, k_cnt, nb0, n_cnt)
                c_offset = (nb0 * geo.m1 + mb0) * geo.rows * self.tik.chip.cube_n
                self.tik.mmad(self.dst[c_offset], self.l0a, self.l0b, m_cnt * geo.rows, matrix_k,
                              n_cnt * geo.rows, int(accumulate))

            self._tiles(geo.n1, self.n_t, "matmul_n", n_panel)

        self._tiles(geo.m1, self.m_t, "matmul_m", m_panel)

    def _load_a(self, mb0, m_cnt: int, kb0, k_cnt: int) -> None:
        """A panel zZ [m_cnt, k_cnt] from a's fractals (kb0 + j) * M1 + mb0 + i."""
        geo, tik, fe = self.geo, self.tik, self.geo.frac_elems
        if k_cnt == 1:   # one K column: its M fractals are contiguous in L1
            tik.load2dv1(self.l0a, self.a[(kb0 * geo.m1 + mb0) * fe], 0, m_cnt, 1, 0)
            return

        def row(i):
            tik.load2dv1(self.l0a[i * k_cnt * fe], self.a[(kb0 * geo.m1 + mb0 + i) * fe], 0, k_cnt, geo.m1, 0)

        if m_cnt == 1:
            row(0)
        else:
            with tik.for_range(0, m_cnt, name="matmul_row") as i:
                row(i)

    def _load_b(self, kb0, k_cnt: int, nb0, n_cnt: int) -> None:
        """B panel nZ [k_cnt, n_cnt] from b's fractals (kb0 + l) * N1 + nb0 + j."""
        geo, tik, fe = self.geo, self.tik, self.geo.frac_elems
        if n_cnt == geo.n1 and k_cnt * n_cnt <= LOAD2D_REPEAT_MAX:   # the whole panel is contiguous in L1
            tik.load2dv1(self.l0b, self.b[kb0 * geo.n1 * fe], 0, k_cnt * n_cnt, 1, 0)
            return

        def k_row(j):
            tik.load2dv1(self.l0b[j * n_cnt * fe], self.b[((kb0 + j) * geo.n1 + nb0) * fe], 0, n_cnt, 1, 0)

        if k_cnt == 1:
            k_row(0)
        else:
            with tik.for_range(0, k_cnt, name="matmul_krow") as j:
                k_row(j)


__all__ = ["CubeMixin"]
