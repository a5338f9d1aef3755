/**
 * How `mindspore::tensor::Tensor` crosses to and from Python, and the pybind11 caster of `TensorPtr`
 * (`BaseTensorPtr`): Python None <-> nullptr, a Python mindspore.Tensor / Parameter <-> a C++ tensor over its
 * numpy buffer.  Lists of tensors use pybind11's list caster (a Python list out, a list or tuple in).
 */
#ifndef NPUSIM_EXT_TENSOR_PY_H_
#define NPUSIM_EXT_TENSOR_PY_H_

#include <string>
#include <vector>

#include "npusim_ext/tensor.h"

namespace mindspore::npusim_ext {
/// Whether `obj` is a Python mindspore.Tensor (or Parameter).
inline bool IsPyTensor(py::handle obj) {
  return PyObject_IsInstance(obj.ptr(), GetBridge().tensor_cls.ptr()) == 1;
}
}  // namespace mindspore::npusim_ext

namespace mindspore::tensor {
inline py::array Tensor::NumpyView() const {
  py::gil_scoped_acquire gil;
  const StoragePtr &storage = EnsureStorage();
  if (!cached_array_.empty()) {
    return py::reinterpret_borrow<py::array>(cached_array_.ptr());
  }
  const auto item = static_cast<py::ssize_t>(data_type_size());
  std::vector<py::ssize_t> shape(shape_.begin(), shape_.end());
  std::vector<py::ssize_t> strides;
  for (auto s : strides_) strides.push_back(static_cast<py::ssize_t>(s) * item);
  py::array view(py::dtype::from_args(npusim_ext::NumpyDtype(data_type_)), shape, strides,
                 storage->data + offset_ * item, storage->owner.object());
  cached_array_ = npusim_ext::PyRef(view);
  return view;
}

inline py::object Tensor::ToPython() const {
  py::gil_scoped_acquire gil;
  if (!py_tensor_.empty()) {
    return py_tensor_.object();
  }
  py::object obj = npusim_ext::GetBridge().wrap(NumpyView());
  py_tensor_ = npusim_ext::PyRef(obj);
  return obj;
}

inline TensorPtr Tensor::FromArray(py::array array) {
  py::gil_scoped_acquire gil;
  const auto itemsize = static_cast<py::ssize_t>(array.itemsize());
  bool plain_strides = true;
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    plain_strides = plain_strides && array.strides(i) >= 0 && array.strides(i) % itemsize == 0;
  }
  if (!plain_strides) {  // negative or misaligned strides: a C++ tensor needs a copy
    array = py::array::ensure(array, py::array::c_style);
  }
  py::dtype dtype = array.dtype();
  TypeId type = npusim_ext::TypeIdOfNumpy(dtype.kind(), static_cast<size_t>(dtype.itemsize()));
  if (type == kTypeUnknown) {
    npusim_ext::Raise(npusim_ext::ErrorKind::kType,
                      "a tensor of numpy dtype " + std::string(py::str(dtype)) + " has no MindSpore TypeId");
  }
  ShapeVector shape(array.shape(), array.shape() + array.ndim());
  auto tensor = std::make_shared<Tensor>(type, shape);
  for (py::ssize_t i = 0; i < array.ndim(); ++i) {
    tensor->strides_[i] = array.strides(i) / itemsize;
  }
  auto storage = std::make_shared<Storage>();
  storage->data = static_cast<char *>(const_cast<void *>(array.data()));
  storage->nbytes = static_cast<size_t>(array.nbytes());
  storage->owner = npusim_ext::PyRef(array);
  tensor->storage_ = storage;
  tensor->cached_array_ = npusim_ext::PyRef(array);
  return tensor;
}

inline TensorPtr Tensor::FromPython(py::handle obj) {
  py::gil_scoped_acquire gil;
  if (obj.is_none()) {
    return nullptr;
  }
  if (!npusim_ext::IsPyTensor(obj)) {
    npusim_ext::Raise(npusim_ext::ErrorKind::kType, "expected a mindspore.Tensor, got " +
                                                      std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  auto tensor = FromArray(py::array::ensure(obj.attr("_data")));
  tensor->py_tensor_ = npusim_ext::PyRef(py::reinterpret_borrow<py::object>(obj));
  return tensor;
}
}  // namespace mindspore::tensor

namespace pybind11::detail {
/// `TensorPtr` / `BaseTensorPtr` arguments and results: None <-> nullptr, mindspore.Tensor <-> tensor.
template <>
struct type_caster<mindspore::tensor::TensorPtr> {
  PYBIND11_TYPE_CASTER(mindspore::tensor::TensorPtr, const_name("mindspore.Tensor"));

  bool load(handle src, bool) {
    if (src.is_none()) {
      value = nullptr;
      return true;
    }
    if (!mindspore::npusim_ext::IsPyTensor(src)) {
      return false;
    }
    value = mindspore::tensor::Tensor::FromPython(src);
    return true;
  }

  static handle cast(const mindspore::tensor::TensorPtr &src, return_value_policy, handle) {
    if (src == nullptr) {
      return none().release();
    }
    return src->ToPython().release();
  }
};
}  // namespace pybind11::detail

#endif  // NPUSIM_EXT_TENSOR_PY_H_
