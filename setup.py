"""Build steps that pyproject.toml cannot express: the compiled call bridges (Cython)."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

EXTENSIONS = [
    # aot: the C-ABI call path for ops.Custom(func_type="aot") and the AotExtra object kernels receive.
    Extension(
        "npusim.aot._bridge",
        # the two extra_*.cpp are the AotExtra implementation, once per libstdc++ string ABI (see extra_impl.h)
        ["npusim/aot/_bridge.pyx", "npusim/aot/csrc/extra_cxx11.cpp", "npusim/aot/csrc/extra_cow.cpp"],
        include_dirs=["npusim/aot/include", "npusim/aot/csrc", numpy.get_include()],
        language="c++",
        extra_compile_args=["-std=c++17", "-O2"],
    ),
    # sim: compiled host loops (vcadd's float32 pair tree, burst copies); without them the simulator uses numpy
    # forms that give the same bytes
    Extension("npusim.sim.isa._native", ["npusim/sim/isa/_native.pyx"], extra_compile_args=["-O3"]),
]


# ---- AICPU (issue 5): build the kernel runtime, the worker and libmindspore_aicpu_kernels.so at install --------
# aicpu_loader/build.py (standard library only) is loaded by file path, since npusim is not importable yet.
# Wheel builds put the artifacts in <build_lib>/aicpu_loader/lib; editable installs put them in the source tree's
# aicpu_loader/lib (git-ignored).  Without them, npusim builds them on first use into its cache instead.
import importlib.util as _importlib_util  # noqa: E402
import os as _os  # noqa: E402
import sys as _sys  # noqa: E402

from setuptools.command.build_py import build_py as _build_py  # noqa: E402


class BuildPyWithAicpu(_build_py):
    """build_py, then the AICPU artifacts (see aicpu_loader/build.py: build_install_artifacts)."""

    def run(self):
        super().run()
        here = _os.path.dirname(_os.path.abspath(__file__))
        spec = _importlib_util.spec_from_file_location("_npusim_aicpu_build",
                                                        _os.path.join(here, "aicpu_loader", "build.py"))
        builder = _importlib_util.module_from_spec(spec)
        _sys.modules[spec.name] = builder  # dataclasses look their module up there
        spec.loader.exec_module(builder)
        editable = getattr(self, "editable_mode", False)
        lib_dir = (_os.path.join(here, "aicpu_loader", "lib") if editable
                   else _os.path.join(self.build_lib, "aicpu_loader", "lib"))
        builder.build_install_artifacts(lib_dir)


setup(ext_modules=cythonize(EXTENSIONS, language_level=3, quiet=True),
      cmdclass={"build_py": BuildPyWithAicpu})  # AICPU artifacts, see above
