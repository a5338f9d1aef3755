import warnings

import pytest

import mindspore as ms
from mindspore import context
from npusim.frontend import context as ctx_impl


def test_set_and_get_context():
    context.set_context(mode=context.GRAPH_MODE, device_target="Ascend")
    assert context.get_context("mode") == context.GRAPH_MODE
    assert context.get_context("device_target") == "Ascend"
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="cpu")
    assert ms.get_context("device_target") == "CPU" and ms.get_context("mode") == ms.PYNATIVE_MODE
    ms.set_device("GPU")
    assert ms.get_context("device_target") == "GPU"


def test_bad_values_raise_value_error():
    with pytest.raises(ValueError, match="device_target"):
        context.set_context(device_target="TPU")
    with pytest.raises(ValueError, match="mode"):
        context.set_context(mode=7)


def test_gpu_without_cuda_warns_once_and_runs_on_cpu():
    context.set_context(device_target="GPU")
    ctx_impl._context.warned_gpu = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert ctx_impl.effective_target() == "CPU"
        assert ctx_impl.effective_target() == "CPU"
    assert len([w for w in caught if "no CUDA device" in str(w.message)]) == 1
