"""``mindspore.context``: execution mode and device target.

Both GRAPH_MODE and PYNATIVE_MODE execute eagerly in npusim (a graph is never compiled, results are the same).
The device target decides where Custom ops run: "Ascend" → the simulator (once its backend supports the op),
"GPU" → a CUDA device when present, otherwise the CPU path with a one-time warning, "CPU" → the CPU path.
"""
from __future__ import annotations

import threading
import warnings

from npusim.errors import OpValueError

GRAPH_MODE = 0
PYNATIVE_MODE = 1
DEVICE_TARGETS = ("CPU", "GPU", "Ascend")


class _Context:
    def __init__(self):
        self.values = {"mode": PYNATIVE_MODE, "device_target": "CPU", "device_id": 0, "save_graphs": False,
                       "jit_level": "O0"}
        self.lock = threading.Lock()
        self.warned_gpu = False


_context = _Context()


def _device_target(value) -> str:
    for name in DEVICE_TARGETS:
        if isinstance(value, str) and value.lower() == name.lower():
            return name
    raise OpValueError(f"For 'set_context', the argument 'device_target' must be one of {list(DEVICE_TARGETS)}, "
                       f"but got {value!r}.")


def set_context(**kwargs):
    """Set context values; ``mode`` ∈ {GRAPH_MODE, PYNATIVE_MODE}, ``device_target`` ∈ CPU/GPU/Ascend.

    Other MindSpore keys (save_graphs, max_call_depth, jit_config ...) are accepted and stored.
    """
    with _context.lock:
        for key, value in kwargs.items():
            if key == "mode" and value not in (GRAPH_MODE, PYNATIVE_MODE):
                raise OpValueError(f"For 'set_context', the argument 'mode' must be GRAPH_MODE(0) or "
                                   f"PYNATIVE_MODE(1), but got {value!r}.")
            if key == "device_target":
                value = _device_target(value)
            _context.values[key] = value


def get_context(key):
    if key not in _context.values:
        raise OpValueError(f"For 'get_context', the argument 'attr_key' {key!r} is not set")
    return _context.values[key]


def flag(key: str, default=False):
    """A context value for npusim's own reads (``check_bprop`` ...): ``default`` when the script never set it."""
    return _context.values.get(key, default)


def set_device(device_target, device_id=None):
    """``mindspore.set_device`` (2.5+)."""
    kwargs = {"device_target": device_target}
    if device_id is not None:
        kwargs["device_id"] = device_id
    set_context(**kwargs)


def get_device_target() -> str:
    return _context.values["device_target"]


def cuda_available() -> bool:
    """True when a CUDA device can be used (npusim has no GPU path yet, so GPU targets run on the CPU)."""
    return False


def effective_target() -> str:
    """The device the current context really runs on: GPU falls back to CPU (warning once) without CUDA."""
    target = _context.values["device_target"]
    if target == "GPU" and not cuda_available():
        if not _context.warned_gpu:
            _context.warned_gpu = True
            warnings.warn("npusim: device_target 'GPU' but no CUDA device is available; "
                          "GPU custom ops run on the CPU path", RuntimeWarning, stacklevel=3)
        return "CPU"
    return target


class ParallelMode:
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"


def set_auto_parallel_context(**kwargs):
    _context.values.update({f"parallel.{k}": v for k, v in kwargs.items()})


def reset_auto_parallel_context():
    for key in [k for k in _context.values if k.startswith("parallel.")]:
        del _context.values[key]
