"""TIK, CANN's instruction-level kernel language (``from tbe import tik`` / ``from te import tik``), on npusim.

    from tbe import tik
    tik_instance = tik.Tik()
    x = tik_instance.Tensor("float16", (4096,), name="x", scope=tik.scope_gm)
    ...
    tik_instance.BuildCCE(kernel_name="add", inputs=[x, y], outputs=[z])
    z_np, = tik_instance.tikdb.start_debug({"x": x_np, "y": y_np}, interactive=False)

A kernel's Python runs once and records statements (:mod:`te_compat.tik.container`); every instruction checks its
immediate operands with TIK's texts (:mod:`te_compat.tik.checks`, errors in :mod:`npusim.errors.tik`) and lowers to
one instruction of the simulator's ISA; BuildCCE inserts the pipe synchronisation (:mod:`te_compat.tik.sync`) and
writes kernel_meta like cce_build_code (:mod:`te_compat.tik.build`); ``tikdb.start_debug`` runs it
(:mod:`te_compat.tik.debug`).
"""
from te_compat.tik.container import Tik
from te_compat.tik.objects import (CmpMask, TikInputScalar as InputScalar, TikScalar as Scalar, TikTensor as Tensor,
                                   scope_ca, scope_cb, scope_cbuf, scope_cbuf_out, scope_cc, scope_gm, scope_ubuf)
from te_compat.tik.objects import tik_all as all  # noqa: A001  (TIK's name)
from te_compat.tik.objects import tik_any as any  # noqa: A001  (TIK's name)
from te_compat.tik.platform import Dprofile

__all__ = ["CmpMask", "Dprofile", "InputScalar", "Scalar", "Tensor", "Tik", "all", "any", "scope_ca", "scope_cb",
           "scope_cbuf", "scope_cbuf_out", "scope_cc", "scope_gm", "scope_ubuf"]
