/**
 * The 2.7+ `ms::Tensor` API: a handle of a `mindspore::tensor::Tensor` (copies share it), its queries, its
 * operators and the `ms::tensor / ones / zeros` factories.
 *
 * Where the operators run:
 * * `reshape`, `flatten` (of a contiguous tensor) and `chunk` are views: no data moves.
 * * `cast` runs npusim's aclnnCast on the simulated device (it shows in npusim's profile).
 * * `contiguous`, `index_select`, `repeat`, `repeat_interleave` and the factories are host code (numpy), as
 *   data movement that needs no device kernel.
 * A Python None converts to an undefined tensor and back.
 */
#ifndef NPUSIM_EXT_MS_TENSOR_H_
#define NPUSIM_EXT_MS_TENSOR_H_

#include <optional>
#include <string>
#include <vector>

#include "npusim_ext/aclnn_launch.h"

namespace ms {
using TypeId = mindspore::TypeId;

class Tensor {
 public:
  /// An undefined tensor (a placeholder; Python None).
  Tensor() = default;
  /// A tensor of this type and shape; `PyboostRunner::Run` (or first use) gives it memory.
  Tensor(TypeId type_id, const ShapeVector &shape)
      : tensor_(std::make_shared<mindspore::tensor::Tensor>(type_id, shape)) {}
  /// The tensor a Value holds (nullptr: undefined).
  explicit Tensor(const mindspore::ValuePtr &value) {
    if (value != nullptr) {
      tensor_ = value->cast<mindspore::tensor::TensorPtr>();
      if (tensor_ == nullptr) {
        mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kType,
                                     "ms::Tensor: the value " + value->ToString() + " is not a tensor");
      }
    }
  }

  // ---- queries -------------------------------------------------------------------------------------------------
  bool is_defined() const { return tensor_ != nullptr; }
  TypeId data_type() const { return checked()->data_type(); }
  const ShapeVector &shape() const { return checked()->shape(); }
  size_t numel() const { return checked()->DataSize(); }
  std::vector<int64_t> stride() const { return checked()->stride(); }
  int64_t storage_offset() const { return checked()->storage_offset(); }
  bool is_contiguous() const { return checked()->is_contiguous(); }
  /// Whether `PyboostRunner::Call` makes this tensor contiguous before the function sees it (default true).
  void SetNeedContiguous(bool flag) const { need_contiguous_ = flag; }
  /// The first element (storage offset included), nullptr before the tensor has memory.
  void *GetDataPtr() const { return is_defined() ? tensor_->unsafe_data() : nullptr; }

  // ---- operators -----------------------------------------------------------------------------------------------
  Tensor cast(TypeId dtype) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  Tensor contiguous() const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor index_select(int64_t dim, const Tensor &index) const;
  Tensor reshape(const std::vector<int64_t> &shape) const;
  Tensor repeat(const std::vector<int64_t> &repeats) const;
  Tensor repeat_interleave(const Tensor &repeats, const std::optional<int64_t> &dim = std::nullopt,
                           const std::optional<int64_t> &output_size = std::nullopt) const;
  Tensor repeat_interleave(int64_t repeats, const std::optional<int64_t> &dim = std::nullopt,
                           const std::optional<int64_t> &output_size = std::nullopt) const;

  // ---- internal ------------------------------------------------------------------------------------------------
  const mindspore::tensor::TensorPtr &tensor() const { return tensor_; }
  bool need_contiguous() const { return need_contiguous_; }
  const mindspore::ValuePtr &stub_node() const {
    static const mindspore::ValuePtr none;
    return none;
  }
  void ConvertStubNodeToTensor() const {}
  void AssignTensor(const mindspore::tensor::TensorPtr &tensor) const { tensor_ = tensor; }
  void set_format(const std::string &format) const { format_ = format; }
  const std::string &format() const { return format_; }

 private:
  const mindspore::tensor::TensorPtr &checked() const {
    if (tensor_ == nullptr) {
      mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kValue,
                                   "ms::Tensor: the tensor is undefined (made by Tensor() or from None)");
    }
    return tensor_;
  }
  static int64_t NormDim(int64_t dim, size_t rank, const char *what);

  mutable mindspore::tensor::TensorPtr tensor_;
  mutable bool need_contiguous_ = true;
  mutable std::string format_ = "ND";
};

/// aclnn arguments of ms::Tensor (found by argument-dependent lookup from LAUNCH_ACLNN).
inline py::object ToAcl(const Tensor &t) {
  return t.is_defined() ? mindspore::npusim_ext::ToAcl(t.tensor()) : py::none();
}
inline py::object ToAcl(const std::vector<Tensor> &tensors) {
  std::vector<mindspore::tensor::TensorPtr> list;
  for (const auto &t : tensors) list.push_back(t.tensor());
  return mindspore::npusim_ext::ToAcl(list);
}

namespace inner {
/// A host (numpy) operation of npusim.extension.bridge; its result as a tensor.
template <typename... Args>
Tensor HostOp(const char *name, Args &&...args) {
  py::gil_scoped_acquire gil;
  py::object result = mindspore::npusim_ext::GetBridge().host_op(name, std::forward<Args>(args)...);
  return Tensor(mindspore::tensor::Tensor::FromArray(py::array::ensure(result)));
}
inline py::object DtypeName(TypeId type) { return mindspore::npusim_ext::NumpyDtype(type); }
}  // namespace inner

// ---- operator bodies -------------------------------------------------------------------------------------------
inline int64_t Tensor::NormDim(int64_t dim, size_t rank, const char *what) {
  const auto r = static_cast<int64_t>(rank == 0 ? 1 : rank);
  if (dim < -r || dim >= r) {
    mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kValue,
                                 std::string("ms::Tensor::") + what + ": dim " + std::to_string(dim) +
                                   " is out of range for a tensor of rank " + std::to_string(rank));
  }
  return dim < 0 ? dim + r : dim;
}

inline Tensor Tensor::contiguous() const {
  if (checked()->is_contiguous()) return *this;
  return inner::HostOp("contiguous", tensor_->NumpyView());
}

inline Tensor Tensor::reshape(const std::vector<int64_t> &shape) const {
  const int64_t numel = static_cast<int64_t>(this->numel());
  ShapeVector target(shape);
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1 && infer < 0) {
      infer = static_cast<int64_t>(i);
    } else {
      known *= target[i];
    }
  }
  if (infer >= 0 && known > 0 && numel % known == 0) target[infer] = numel / known;
  int64_t total = 1;
  for (auto d : target) total *= d;
  if (total != numel || (infer >= 0 && known == 0)) {
    std::string text;
    for (auto d : shape) text += (text.empty() ? "" : ", ") + std::to_string(d);
    mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kValue,
                                 "ms::Tensor::reshape: shape [" + text + "] is invalid for a tensor of " +
                                   std::to_string(numel) + " elements");
  }
  if (!is_contiguous()) return contiguous().reshape(target);
  return Tensor(tensor_->View(target, mindspore::tensor::Tensor::ContiguousStrides(target), storage_offset()));
}

inline Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  const auto &s = shape();
  if (s.empty()) return reshape({1});
  const int64_t start = NormDim(start_dim, s.size(), "flatten"), end = NormDim(end_dim, s.size(), "flatten");
  if (start > end) {
    mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kValue,
                                 "ms::Tensor::flatten: start_dim " + std::to_string(start_dim) +
                                   " comes after end_dim " + std::to_string(end_dim));
  }
  ShapeVector target(s.begin(), s.begin() + start);
  int64_t merged = 1;
  for (int64_t i = start; i <= end; ++i) merged *= s[i];
  target.push_back(merged);
  target.insert(target.end(), s.begin() + end + 1, s.end());
  return reshape(target);
}

inline std::vector<Tensor> Tensor::chunk(int64_t chunks, int64_t dim) const {
  if (chunks <= 0) {
    mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kValue,
                                 "ms::Tensor::chunk: chunks must be positive, got " + std::to_string(chunks));
  }
  const auto &s = shape();
  if (s.empty()) {
    mindspore::npusim_ext::Raise(mindspore::npusim_ext::ErrorKind::kValue,
                                 "ms::Tensor::chunk: a 0-d tensor cannot be chunked");
  }
  const int64_t d = NormDim(dim, s.size(), "chunk");
  const int64_t size = (s[d] + chunks - 1) / chunks;
  std::vector<Tensor> parts;
  if (size == 0) {
    parts.push_back(*this);
    return parts;
  }
  const auto strides = stride();
  for (int64_t begin = 0; begin < s[d]; begin += size) {
    ShapeVector part_shape(s);
    part_shape[d] = std::min(size, s[d] - begin);
    parts.emplace_back(tensor_->View(part_shape, strides, storage_offset() + begin * strides[d]));
  }
  return parts;
}

inline Tensor Tensor::cast(TypeId dtype) const {
  if (dtype == data_type()) return *this;
  Tensor out(dtype, shape());
  mindspore::npusim_ext::LaunchAclnn("aclnnCast", contiguous().tensor(), dtype, out.tensor());
  return out;
}

inline Tensor Tensor::index_select(int64_t dim, const Tensor &index) const {
  const int64_t d = NormDim(dim, shape().size(), "index_select");
  return inner::HostOp("index_select", tensor_->NumpyView(), d, index.checked()->NumpyView());
}

inline Tensor Tensor::repeat(const std::vector<int64_t> &repeats) const {
  return inner::HostOp("repeat", checked()->NumpyView(), repeats);
}

inline Tensor Tensor::repeat_interleave(const Tensor &repeats, const std::optional<int64_t> &dim,
                                        const std::optional<int64_t> &output_size) const {
  return inner::HostOp("repeat_interleave", checked()->NumpyView(), repeats.checked()->NumpyView(), dim,
                       output_size);
}

inline Tensor Tensor::repeat_interleave(int64_t repeats, const std::optional<int64_t> &dim,
                                        const std::optional<int64_t> &output_size) const {
  return inner::HostOp("repeat_interleave", checked()->NumpyView(), repeats, dim, output_size);
}

// ---- factories -------------------------------------------------------------------------------------------------
/// A 0-d tensor holding `value` (Int64 by default).
inline Tensor tensor(int64_t value, TypeId dtype = TypeId::kNumberTypeInt64) {
  return inner::HostOp("from_values", value, inner::DtypeName(dtype));
}
/// A 0-d tensor holding an integer of another C++ type (`ms::tensor(3)`), Int64 by default.
template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, int64_t>, int> = 0>
Tensor tensor(T value, TypeId dtype = TypeId::kNumberTypeInt64) {
  return tensor(static_cast<int64_t>(value), dtype);
}
/// A 1-d tensor holding `value` (Int64 by default).
inline Tensor tensor(const std::vector<int64_t> &value, TypeId dtype = TypeId::kNumberTypeInt64) {
  return inner::HostOp("from_values", value, inner::DtypeName(dtype));
}
/// A 0-d tensor holding `value` (Float64 by default).
inline Tensor tensor(double value, TypeId dtype = TypeId::kNumberTypeFloat64) {
  return inner::HostOp("from_values", value, inner::DtypeName(dtype));
}
/// A 1-d tensor holding `value` (Float64 by default).
inline Tensor tensor(const std::vector<double> &value, TypeId dtype = TypeId::kNumberTypeFloat64) {
  return inner::HostOp("from_values", value, inner::DtypeName(dtype));
}
/// A tensor of ones.
inline Tensor ones(const ShapeVector &shape, TypeId dtype = TypeId::kNumberTypeFloat32) {
  return inner::HostOp("filled", shape, 1, inner::DtypeName(dtype));
}
/// A tensor of zeros.
inline Tensor zeros(const ShapeVector &shape, TypeId dtype = TypeId::kNumberTypeFloat32) {
  return inner::HostOp("filled", shape, 0, inner::DtypeName(dtype));
}
}  // namespace ms

namespace pybind11::detail {
/// `ms::Tensor` arguments and results: None <-> undefined, mindspore.Tensor <-> tensor.
template <>
struct type_caster<ms::Tensor> {
  PYBIND11_TYPE_CASTER(ms::Tensor, const_name("mindspore.Tensor"));

  bool load(handle src, bool) {
    if (src.is_none()) {
      value = ms::Tensor();
      return true;
    }
    if (!mindspore::npusim_ext::IsPyTensor(src)) {
      return false;
    }
    value = ms::Tensor(mindspore::tensor::Tensor::FromPython(src));
    return true;
  }

  static handle cast(const ms::Tensor &src, return_value_policy, handle) {
    if (!src.is_defined()) {
      return none().release();
    }
    return src.tensor()->ToPython().release();
  }
};
}  // namespace pybind11::detail

#endif  // NPUSIM_EXT_MS_TENSOR_H_
