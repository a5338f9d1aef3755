"""load_built / BuiltKernel.run: relaunching kernels from kernel_meta files on the simulated device."""
import json

import numpy as np
import pytest
from tbe_build_support import build_vadd, random_inputs

from npusim.errors import TbeLaunchError
from npusim.sim import default_device, profile
from te_compat.build import kernel_meta_dir, load_built


@pytest.mark.parametrize("shape, dtype, blocks", [((4, 64), "float16", 1), ((4, 64), "float16", 2),
                                                  ((2, 2), "float32", 1), ((8, 96), "float32", 4),
                                                  ((256,), "int32", 2)])
def test_reload_and_run(shape, dtype, blocks):
    build_vadd("k", shape, dtype, blocks=blocks)
    built = load_built("k")
    x, y = random_inputs(shape, dtype)
    outs = built.run(x, y)
    assert len(outs) == 1 and outs[0].shape == shape and outs[0].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(outs[0], x + y)
    assert built.block_dim == blocks and [a.name for a in built.inputs] == ["data0", "data1"]


def test_load_by_name_json_path_o_path_and_dir_name(tmp_path):
    build_vadd("kp", (2, 64), "float16")
    meta = kernel_meta_dir()
    x, y = random_inputs((2, 64), "float16")
    for ref in ("kp", meta / "kp.json", meta / "kp.o", str(meta / "kp"), str(meta / "kp.json")):
        built = load_built(ref)
        assert built.name == "kp" and built.json_path == meta / "kp.json"
        np.testing.assert_array_equal(built.run(x, y)[0], x + y)


def test_launch_is_profiled_with_the_json_block_dim():
    build_vadd("kprof", (4, 64), "float16", blocks=2)
    built = load_built("kprof")
    with profile() as prof:
        built.run(*random_inputs((4, 64), "float16"))
    assert len(prof.records) == 1
    record = prof.records[0]
    assert record.kernel.name == "kprof" and record.block_dim == 2 and record.cost.total_cycles > 0


def test_run_frees_device_memory():
    build_vadd("kmem", (4, 64), "float16")
    built = load_built("kmem")
    inputs = random_inputs((4, 64), "float16")
    built.run(*inputs)
    used = default_device().gm.used_bytes
    for _ in range(3):
        built.run(*inputs)
    assert default_device().gm.used_bytes == used


def test_missing_files_name_the_kernel():
    with pytest.raises(TbeLaunchError, match="kernel 'nothere'.*does not exist"):
        load_built("nothere")
    build_vadd("kgone")
    (kernel_meta_dir() / "kgone.o").unlink()
    with pytest.raises(TbeLaunchError, match="kernel 'kgone': cannot read its binary"):
        load_built("kgone")


def test_sha256_mismatch():
    build_vadd("ksha")
    obj = kernel_meta_dir() / "ksha.o"
    obj.write_bytes(obj.read_bytes() + b"\0")
    with pytest.raises(TbeLaunchError, match="kernel 'ksha': sha256 of ksha.o is .* do not belong together"):
        load_built("ksha")


def test_json_without_npusim_section_or_with_bad_magic():
    build_vadd("kjson")
    path = kernel_meta_dir() / "kjson.json"
    meta = json.loads(path.read_text())
    path.write_text(json.dumps(dict(meta, magic="RT_DEV_BINARY_MAGIC_ELF_AIVEC")))
    with pytest.raises(TbeLaunchError, match="kernel 'kjson'.*magic"):
        load_built("kjson")
    del meta["npusim"]
    path.write_text(json.dumps(meta))
    with pytest.raises(TbeLaunchError, match="kernel 'kjson'.*not written by npusim"):
        load_built("kjson")
    path.write_text("{not json")
    with pytest.raises(TbeLaunchError, match="kernel 'kjson': cannot read"):
        load_built("kjson")


def test_wrong_count_shape_dtype_name_the_kernel():
    build_vadd("kargs", (4, 64), "float16")
    built = load_built("kargs")
    x, y = random_inputs((4, 64), "float16")
    with pytest.raises(TbeLaunchError, match=r"kernel 'kargs' takes 2 input\(s\) \(data0, data1\), got 1"):
        built.run(x)
    with pytest.raises(TbeLaunchError, match=r"kernel 'kargs': input 1 \('data1'\) must have shape \[4, 64\]"):
        built.run(x, y.reshape(64, 4))
    with pytest.raises(TbeLaunchError, match=r"kernel 'kargs': input 0 \('data0'\) must be float16, got float32"):
        built.run(x.astype(np.float32), y)
