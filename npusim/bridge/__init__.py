"""Real MindSpore with simulated Ascend Custom ops: ``import npusim.bridge`` (or ``npusim run --mindspore real
SCRIPT``) before the script imports mindspore.

* npusim's own ``mindspore`` front end stays out: the compatibility layer serves only ``te`` / ``tbe`` / ``topi``
  / ``impl`` (:func:`npusim.compat.aliases.set_bridge_mode`), and ``mindspore`` is the installed MindSpore.
* Real MindSpore runs everything (tensors, nn, optimizers, GRAPH/PYNATIVE, autodiff); ``ops.Custom`` ops of
  func_type tbe / aicpu — and akg / hybrid when the script asked for device_target "Ascend" — run on npusim's
  simulator inside the MindSpore graph (:mod:`npusim.bridge.custom`).
* ``set_context(device_target="Ascend")`` / ``set_device("Ascend")`` are accepted: MindSpore stays on "CPU" and
  :func:`requested_target` tells what the script asked for (:mod:`npusim.bridge.context`).

Limits (each fails with a message naming the op and the way out): outputs must have shapes known from the input
shapes (MindSpore allocates them before the kernel runs); no bfloat16 across the op; out_shape and out_dtype must
be given; str / tuple attributes inside a compiled graph must be declared in the reg info (the bridge then interns
them); a user bprop sees a str/tuple attribute as its interned id.  Installing: ``pip install 'npusim[mindspore]'``
(MindSpore 2.10 CPU wheel).
"""
from npusim.bridge.activation import TESTED_VERSION, install, installed

install()


def requested_target() -> str:
    """The device target the script asked for ("Ascend", "GPU" or "CPU"); MindSpore itself runs on "CPU"."""
    from npusim.bridge.context import requested_target as requested
    return requested()


__all__ = ["TESTED_VERSION", "install", "installed", "requested_target"]
