"""Build steps that pyproject.toml cannot express: the compiled call bridges (Cython)."""
import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

EXTENSIONS = [
    # aot: the C-ABI call path for ops.Custom(func_type="aot") and the AotExtra object kernels receive.
    Extension(
        "npusim.aot._bridge",
        ["npusim/aot/_bridge.pyx"],
        include_dirs=["npusim/aot/include", numpy.get_include()],
        language="c++",
        extra_compile_args=["-std=c++17", "-O2"],
    ),
]

setup(ext_modules=cythonize(EXTENSIONS, language_level=3, quiet=True))
