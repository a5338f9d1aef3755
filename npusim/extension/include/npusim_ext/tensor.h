/**
 * `mindspore::tensor::Tensor` (alias `BaseTensor`; `TensorPtr` / `BaseTensorPtr` shared pointers and their lists)
 * on npusim: a view (shape, element strides, offset, dtype) of a `Storage`.
 *
 * * Made from a Python `mindspore.Tensor` / `Parameter`, the storage IS that tensor's numpy buffer (no copy) and
 *   the tensor remembers the Python object, so handing it back to Python returns the very same object.
 * * Made in C++ (`std::make_shared<Tensor>(type, shape)`), it gets storage when first needed (`data_c()`, an
 *   aclnn launch, a PyboostRunner, crossing to Python): a numpy array the C++ tensor and, once it crosses, the
 *   Python Tensor wrapping it both keep alive.
 * * The copy constructor shares the storage with a new identity (MindSpore's shallow copy).
 */
#ifndef NPUSIM_EXT_TENSOR_H_
#define NPUSIM_EXT_TENSOR_H_

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "npusim_ext/value.h"

namespace mindspore::tensor {
class Tensor;
using TensorPtr = std::shared_ptr<Tensor>;
using TensorPtrList = std::vector<TensorPtr>;
using BaseTensor = Tensor;
using BaseTensorPtr = TensorPtr;
using BaseTensorPtrList = TensorPtrList;

/// Memory shared by a tensor and its views: a numpy array (`owner`) and its first byte.
struct Storage {
  npusim_ext::PyRef owner;
  char *data = nullptr;
  size_t nbytes = 0;
};
using StoragePtr = std::shared_ptr<Storage>;

class Tensor : public Value {
 public:
  /// An uninitialised tensor: storage comes when first needed.
  Tensor(TypeId data_type, const ShapeVector &shape) : data_type_(data_type), shape_(shape) {
    strides_ = ContiguousStrides(shape_);
  }
  /// A tensor holding a copy of `data_len` bytes at `data` (MindSpore's `Tensor(type, shape, data, data_len)`).
  Tensor(TypeId data_type, const ShapeVector &shape, void *data, size_t data_len) : Tensor(data_type, shape) {
    void *dst = data_c();
    std::memcpy(dst, data, std::min(data_len, Size()));
  }
  /// A shallow copy: the same memory, shape and dtype, a new identity (not the Python object of `other`).
  Tensor(const Tensor &other)
      : Value(other), data_type_(other.data_type_), shape_(other.shape_), strides_(other.strides_),
        offset_(other.offset_), storage_(other.EnsureStorage()) {}
  Tensor &operator=(const Tensor &) = delete;
  ~Tensor() override = default;

  // ---- queries -------------------------------------------------------------------------------------------------
  TypeId data_type() const { return data_type_; }
  int data_type_c() const { return static_cast<int>(data_type_); }
  const ShapeVector &shape() const { return shape_; }
  const ShapeVector &shape_c() const { return shape_; }
  int DataDim() const { return static_cast<int>(shape_.size()); }
  /// Number of elements.
  size_t DataSize() const {
    size_t n = 1;
    for (auto d : shape_) n *= static_cast<size_t>(d < 0 ? 0 : d);
    return n;
  }
  size_t ElementsNum() const { return DataSize(); }
  size_t data_type_size() const { return npusim_ext::TypeIdSize(data_type_); }
  /// Bytes of the elements.
  size_t Size() const { return DataSize() * data_type_size(); }
  /// Element strides.
  const std::vector<int64_t> &stride() const { return strides_; }
  /// Offset of the first element from the start of the storage, in elements.
  int64_t storage_offset() const { return offset_; }
  bool is_contiguous() const { return strides_ == ContiguousStrides(shape_); }
  /// Whether memory is attached yet.
  bool has_storage() const { return storage_ != nullptr; }
  /// The first element (memory is attached first if needed).
  void *data_c() const { return EnsureStorage()->data + offset_ * static_cast<int64_t>(data_type_size()); }
  void *data_ptr() const { return data_c(); }
  /// The first element, or nullptr while no memory is attached.
  void *unsafe_data() const {
    return storage_ ? storage_->data + offset_ * static_cast<int64_t>(data_type_size()) : nullptr;
  }
  void data_sync(bool = true) const {}
  void set_need_pipeline_sync(bool) {}
  void set_data_type(TypeId type) {
    if (npusim_ext::TypeIdSize(type) != data_type_size()) Detach();
    data_type_ = type;
    cached_array_.reset();
  }
  void set_shape(const ShapeVector &shape) {
    if (storage_ && !(is_contiguous() && SameNumel(shape))) Detach();
    shape_ = shape;
    strides_ = ContiguousStrides(shape_);
    cached_array_.reset();
  }
  std::string ToString() const override {
    std::string text = "Tensor(shape=[";
    for (size_t i = 0; i < shape_.size(); ++i) text += (i ? ", " : "") + std::to_string(shape_[i]);
    return text + "], dtype=" + npusim_ext::TypeIdName(data_type_) + ")";
  }
  std::string ToStringRepr() const { return ToString(); }
  std::string id() const { return std::to_string(reinterpret_cast<uintptr_t>(this)); }

  // ---- npusim --------------------------------------------------------------------------------------------------
  /// A view of this tensor's memory with another shape / strides / offset (shares the storage).
  TensorPtr View(const ShapeVector &shape, const std::vector<int64_t> &strides, int64_t offset) const {
    auto view = std::make_shared<Tensor>(data_type_, shape);
    view->strides_ = strides;
    view->offset_ = offset;
    view->storage_ = EnsureStorage();
    return view;
  }
  /// The tensor's memory as a numpy array view (attached first if needed).
  py::array NumpyView() const;
  /// The Python mindspore.Tensor of this tensor: the one it came from, else one made now (and kept).
  py::object ToPython() const;
  /// The Python object this tensor came from or went to (None when it never crossed).
  py::object python_object() const { return py_tensor_.empty() ? py::none() : py_tensor_.object(); }
  /// A C++ tensor over a Python mindspore.Tensor's buffer (no copy); TypeError for other objects.
  static TensorPtr FromPython(py::handle obj);
  /// A C++ tensor over a numpy array's buffer (no copy; the array is kept alive).
  static TensorPtr FromArray(py::array array);

  /// The element strides of a C-contiguous tensor of `shape`.
  static std::vector<int64_t> ContiguousStrides(const ShapeVector &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    int64_t step = 1;
    for (size_t i = shape.size(); i > 0; --i) {
      strides[i - 1] = step;
      step *= shape[i - 1] > 0 ? shape[i - 1] : 1;
    }
    return strides;
  }
 private:
  bool SameNumel(const ShapeVector &shape) const {
    size_t n = 1;
    for (auto d : shape) n *= static_cast<size_t>(d < 0 ? 0 : d);
    return n == DataSize();
  }
  void Detach() {
    storage_.reset();
    offset_ = 0;
    py_tensor_.reset();
  }
  const StoragePtr &EnsureStorage() const;

  TypeId data_type_;
  ShapeVector shape_;
  std::vector<int64_t> strides_;
  int64_t offset_ = 0;
  mutable StoragePtr storage_;
  mutable npusim_ext::PyRef py_tensor_;     // the Python Tensor (identity across crossings)
  mutable npusim_ext::PyRef cached_array_;  // the numpy view of the memory
};

inline const StoragePtr &Tensor::EnsureStorage() const {
  if (storage_ == nullptr) {
    py::gil_scoped_acquire gil;
    std::vector<py::ssize_t> shape(shape_.begin(), shape_.end());
    py::array array(py::dtype::from_args(npusim_ext::NumpyDtype(data_type_)), shape);
    auto storage = std::make_shared<Storage>();
    storage->data = static_cast<char *>(array.mutable_data());
    storage->nbytes = static_cast<size_t>(array.nbytes());
    storage->owner = npusim_ext::PyRef(array);
    storage_ = storage;
    cached_array_ = npusim_ext::PyRef(array);
  }
  return storage_;
}
}  // namespace mindspore::tensor

namespace mindspore {
using tensor::BaseTensor;
using tensor::BaseTensorPtr;
using tensor::BaseTensorPtrList;
using tensor::Tensor;
using tensor::TensorPtr;
using tensor::TensorPtrList;
}  // namespace mindspore

#endif  // NPUSIM_EXT_TENSOR_H_
