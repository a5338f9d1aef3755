"""Small C++ projects the CustomOpBuilder tests build (shared by tests/extension/test_builder_*.py).

Sources that include pybind11 are slow to compile, so each project has one pybind11 file and keeps what a test
changes (headers, flags) in plain C++ files that recompile quickly.
"""
from __future__ import annotations

import itertools
import os
import textwrap

#: tests compile without optimisation: the builder's -O2 comes first, so this one wins
FAST_CFLAGS = "-O0"

_counter = itertools.count()


def unique_name(stem: str) -> str:
    """A module name no other test in this process has loaded (load() caches modules by name per process)."""
    return f"{stem}_{os.getpid()}_{next(_counter)}"


def write(path, text: str):
    os.makedirs(os.path.dirname(str(path)) or ".", exist_ok=True)
    with open(path, "w") as out:
        out.write(textwrap.dedent(text).lstrip())
    return path


def binding_source(functions: str = "m.def(\"value\", &value);", declarations: str = "int value();") -> str:
    """A pybind11 module named by MS_EXTENSION_NAME binding functions defined in other files."""
    return f"""
        #include <pybind11/pybind11.h>
        {declarations}
        PYBIND11_MODULE(MS_EXTENSION_NAME, m) {{ {functions} }}
        """


def c_api_module_source() -> str:
    """A module named by MS_EXTENSION_NAME written against Python's C API (compiles in a fraction of a second):
    ``value()`` returns the int ``int value()`` (defined in another file) gives."""
    return """
        #include <Python.h>
        int value();
        static PyObject *py_value(PyObject *, PyObject *) { return PyLong_FromLong(value()); }
        static PyMethodDef methods[] = {{"value", py_value, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
        #define STR2(x) #x
        #define STR(x) STR2(x)
        static PyModuleDef module_def = {PyModuleDef_HEAD_INIT, STR(MS_EXTENSION_NAME), nullptr, -1, methods};
        #define CAT2(a, b) a##b
        #define CAT(a, b) CAT2(a, b)
        extern "C" PyObject *CAT(PyInit_, MS_EXTENSION_NAME)(void) { return PyModule_Create(&module_def); }
        """


def multi_file_project(root) -> dict:
    """``root/src/module.cpp`` (the binding), ``root/src/value.cpp`` (needs ``-DOFFSET`` and ``defs.h``) and
    ``root/inc/defs.h`` (``BASE_VALUE``): ``value()`` returns BASE_VALUE + OFFSET."""
    root = str(root)
    files = {
        "module": write(os.path.join(root, "src", "module.cpp"), binding_source()),
        "value": write(os.path.join(root, "src", "value.cpp"), """
            #include "defs.h"
            #ifndef OFFSET
            #error "OFFSET must be given with cflags"
            #endif
            int value() { return BASE_VALUE + OFFSET; }
            """),
        "header": write(os.path.join(root, "inc", "defs.h"), "#define BASE_VALUE 40\n"),
    }
    return files


def compile_commands(build_log: str) -> list[str]:
    """The compiler invocations ``ninja -v`` printed (one per object compiled)."""
    return [line for line in build_log.splitlines() if " -c " in line]
