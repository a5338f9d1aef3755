/**
 * npusim's MindSpore extension headers: pybind11 and its STL / numpy / functional casters, `namespace py`, and the
 * global `ShapeVector` every MindSpore header provides.
 */
#ifndef NPUSIM_EXT_PYBIND_H_
#define NPUSIM_EXT_PYBIND_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

namespace py = pybind11;

/// A tensor shape (MindSpore: `using ShapeVector = std::vector<int64_t>` at global scope).
using ShapeVector = std::vector<int64_t>;

namespace mindspore {
using ::ShapeVector;
}  // namespace mindspore

#endif  // NPUSIM_EXT_PYBIND_H_
