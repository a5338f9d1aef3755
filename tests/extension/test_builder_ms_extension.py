"""A source that includes npusim's ``ms_extension.h`` builds with CustomOpBuilder's default include paths and
flags, and loads (one build: the header is heavy to compile)."""
from npusim.extension import CustomOpBuilder
from builder_testkit import FAST_CFLAGS, unique_name, write

SOURCE = """
#include <string>
#include "ms_extension.h"

int64_t rank_of(const ShapeVector &shape) { return static_cast<int64_t>(shape.size()); }

std::string backend() {
#ifdef CUSTOM_ASCEND_OP
  return "Ascend";
#else
  return "host";
#endif
}

PYBIND11_MODULE(MS_EXTENSION_NAME, m) {
  m.def("rank_of", &rank_of);
  m.def("backend", &backend);
  m.attr("name") = py::str(MS_EXTENSION_STR);
}
"""


def test_ms_extension_h_builds_with_the_default_include_paths(tmp_path, monkeypatch):
    """backend="Ascend" without ASCEND_OPP_PATH: npusim's headers are found, CUSTOM_ASCEND_OP is defined."""
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "ext.cpp", SOURCE.replace("MS_EXTENSION_STR", '"ok"'))
    name = unique_name("msext")
    module = CustomOpBuilder(name, "ext.cpp", backend="Ascend", cflags=FAST_CFLAGS).load()
    assert module.rank_of([2, 3, 4]) == 3 and module.rank_of([]) == 0
    assert module.backend() == "Ascend" and module.name == "ok"
    assert module.__name__ == name
