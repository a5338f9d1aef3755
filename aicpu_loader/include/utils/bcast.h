// npusim AICPU compatibility header (MindSpore / canndev path utils/bcast.h): Bcast, the two-input broadcasting
// helper of element-wise kernels, and BCalcInfo, what it fills for Eigen-broadcasting kernels.
// Written for npusim from the helper's published names and behaviour; header-only (inline), no CANN source text.
//
// Two ways kernels use it:
//  - Bcast(x_shape, y_shape) [or Bcast(ctx, x_shape, y_shape)], then IsValid() and GetBroadcastXIndex(i) /
//    GetBroadcastYIndex(i): the flat x / y element feeding flat output element i (row-major, numpy rules,
//    shorter shape padded with leading 1s).  x_reshape() / y_reshape() / result_shape() / x_bcast() / y_bcast()
//    give the collapsed form: neighbouring dimensions that broadcast the same way merged, 1x1 dimensions
//    dropped, a single dimension of the element count for equal shapes, [1] for two scalars.
//  - Bcast() [or Bcast(ctx)], GenerateBcastInfo(calc_info) with input_0 / input_1 / output set, optionally
//    BCastIndexes(x_indexes, y_indexes), then GetBcastVec(calc_info): reshape_0 / reshape_1 are the inputs'
//    shapes padded to the output rank, bcast_0 / bcast_1 how often each dimension repeats (1: not broadcast),
//    shape_out the output shape; all empty when every shape is a scalar.
// BcastShapeType names the cases kernels special-case before broadcasting.
#ifndef _AICPU_AICPU_DEVICE_CPU_KERNELS_UTILS_BCAST_H_
#define _AICPU_AICPU_DEVICE_CPU_KERNELS_UTILS_BCAST_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../cpu_context.h"
#include "../log.h"
#include "../status.h"

namespace aicpu {

enum class BcastShapeType {
  SAME_SHAPE = 0,     // x and y have the same shape
  X_ONE_ELEMENT = 1,  // x holds a single element
  Y_ONE_ELEMENT = 2,  // y holds a single element
  DIFF_SHAPE = 3,     // a real broadcast
};

struct BCalcInfo {
  Tensor *input_0 = nullptr;
  Tensor *input_1 = nullptr;
  Tensor *output = nullptr;
  std::vector<int64_t> reshape_0;
  std::vector<int64_t> reshape_1;
  std::vector<int64_t> shape_out;
  std::vector<int64_t> bcast_0;
  std::vector<int64_t> bcast_1;
  std::vector<int64_t> x_indexes;
  std::vector<int64_t> y_indexes;
};

class Bcast {
 public:
  Bcast() = default;
  // The context only identifies the kernel (MindSpore's newer kernels pass it); logs go to the call's log.
  explicit Bcast(CpuKernelContext &ctx) : ctx_(&ctx) {}
  Bcast(const std::vector<int64_t> &x_shape, const std::vector<int64_t> &y_shape) { FromShapes(x_shape, y_shape); }
  Bcast(CpuKernelContext &ctx, const std::vector<int64_t> &x_shape, const std::vector<int64_t> &y_shape)
      : ctx_(&ctx) {
    FromShapes(x_shape, y_shape);
  }
  ~Bcast() = default;

  // Checks input_0 / input_1 against output and records the padded shapes and repeat counts.
  // KERNEL_STATUS_PARAM_INVALID (logged) when the shapes do not broadcast to the output.
  uint32_t GenerateBcastInfo(const BCalcInfo &calc_info);
  // Moves the padded shapes and repeat counts into calc_info (reshape_0/1, shape_out, bcast_0/1).
  void GetBcastVec(BCalcInfo &calc_info);
  // Appends, for every output element in row-major order, the flat x and y element it reads.
  void BCastIndexes(std::vector<int64_t> &x_indexes, std::vector<int64_t> &y_indexes);
  int64_t GetBroadcastXIndex(int64_t index) const { return SourceIndex(index, x_strides_); }
  int64_t GetBroadcastYIndex(int64_t index) const { return SourceIndex(index, y_strides_); }
  bool IsValid() const { return valid_; }

  const std::vector<int64_t> &x_reshape() const { return x_reshape_; }
  const std::vector<int64_t> &y_reshape() const { return y_reshape_; }
  const std::vector<int64_t> &result_shape() const { return result_shape_; }
  const std::vector<int64_t> &x_bcast() const { return x_bcast_; }
  const std::vector<int64_t> &y_bcast() const { return y_bcast_; }
  std::vector<int64_t> &x_reshape() { return x_reshape_; }
  std::vector<int64_t> &y_reshape() { return y_reshape_; }
  std::vector<int64_t> &result_shape() { return result_shape_; }
  std::vector<int64_t> &x_bcast() { return x_bcast_; }
  std::vector<int64_t> &y_bcast() { return y_bcast_; }
  // canndev's spelling of the same accessors.
  const std::vector<int64_t> &XReshape() const { return x_reshape_; }
  const std::vector<int64_t> &YReshape() const { return y_reshape_; }
  const std::vector<int64_t> &ResultShape() const { return result_shape_; }
  const std::vector<int64_t> &XBcast() const { return x_bcast_; }
  const std::vector<int64_t> &YBcast() const { return y_bcast_; }

 private:
  // How one padded dimension pairs x with y.
  enum class DimKind { kBothOne, kSame, kXOne, kYOne, kMismatch };
  static DimKind Classify(int64_t x_dim, int64_t y_dim);
  static void PadFront(std::vector<int64_t> &dims, size_t rank);
  static int64_t Product(const std::vector<int64_t> &dims);

  void FromShapes(const std::vector<int64_t> &x_shape, const std::vector<int64_t> &y_shape);
  void Collapse(const std::vector<int64_t> &x, const std::vector<int64_t> &y);
  // Index tables over `out` for GetBroadcast?Index: element strides, 0 where a side is broadcast.
  void PlanIndexes(const std::vector<int64_t> &x, const std::vector<int64_t> &y, const std::vector<int64_t> &out);
  int64_t SourceIndex(int64_t index, const std::vector<int64_t> &strides) const;

  [[maybe_unused]] CpuKernelContext *ctx_ = nullptr;
  bool valid_ = true;
  std::vector<int64_t> x_reshape_;
  std::vector<int64_t> y_reshape_;
  std::vector<int64_t> shape_out_;
  std::vector<int64_t> x_bcast_;
  std::vector<int64_t> y_bcast_;
  std::vector<int64_t> result_shape_;
  // Row-major index tables (set by both ways of building a Bcast).
  std::vector<int64_t> index_dims_;
  std::vector<int64_t> out_strides_;
  std::vector<int64_t> x_strides_;
  std::vector<int64_t> y_strides_;
};

inline Bcast::DimKind Bcast::Classify(int64_t x_dim, int64_t y_dim) {
  if (x_dim == y_dim) return x_dim == 1 ? DimKind::kBothOne : DimKind::kSame;
  if (x_dim == 1) return DimKind::kXOne;
  if (y_dim == 1) return DimKind::kYOne;
  return DimKind::kMismatch;
}

inline void Bcast::PadFront(std::vector<int64_t> &dims, size_t rank) {
  if (dims.size() < rank) dims.insert(dims.begin(), rank - dims.size(), 1);
}

inline int64_t Bcast::Product(const std::vector<int64_t> &dims) {
  int64_t count = 1;
  for (int64_t dim : dims) count *= dim;
  return count;
}

inline void Bcast::FromShapes(const std::vector<int64_t> &x_shape, const std::vector<int64_t> &y_shape) {
  if (x_shape == y_shape) {
    const int64_t count = Product(x_shape);
    shape_out_ = x_shape;
    x_reshape_ = y_reshape_ = result_shape_ = {count};
    x_bcast_ = y_bcast_ = {1};
    PlanIndexes(x_reshape_, y_reshape_, result_shape_);
    return;
  }
  const size_t rank = x_shape.size() > y_shape.size() ? x_shape.size() : y_shape.size();
  std::vector<int64_t> x = x_shape;
  std::vector<int64_t> y = y_shape;
  PadFront(x, rank);
  PadFront(y, rank);
  for (size_t i = 0; i < rank; ++i) {
    if (Classify(x[i], y[i]) == DimKind::kMismatch) {
      valid_ = false;
      KERNEL_LOG_ERROR("Broadcast failed, x_shape[%zu]=%lld and y_shape[%zu]=%lld can not be broadcast together.",
                       i + x_shape.size() - rank, static_cast<long long>(x[i]), i + y_shape.size() - rank,
                       static_cast<long long>(y[i]));
      return;
    }
  }
  Collapse(x, y);
  PlanIndexes(x_reshape_, y_reshape_, result_shape_);
}

inline void Bcast::Collapse(const std::vector<int64_t> &x, const std::vector<int64_t> &y) {
  DimKind previous = DimKind::kBothOne;
  for (size_t i = 0; i < x.size(); ++i) {
    const DimKind kind = Classify(x[i], y[i]);
    const int64_t out_dim = x[i] == 1 ? y[i] : x[i];
    shape_out_.push_back(out_dim);
    if (kind == DimKind::kBothOne) continue;  // a dimension of 1 on both sides changes no index
    if (kind != previous) {
      x_reshape_.push_back(1);
      y_reshape_.push_back(1);
      result_shape_.push_back(1);
      x_bcast_.push_back(1);
      y_bcast_.push_back(1);
      previous = kind;
    }
    x_reshape_.back() *= x[i];
    y_reshape_.back() *= y[i];
    result_shape_.back() *= out_dim;
    if (kind == DimKind::kXOne) x_bcast_.back() *= out_dim;
    if (kind == DimKind::kYOne) y_bcast_.back() *= out_dim;
  }
  if (result_shape_.empty()) {  // every dimension was 1 on both sides (e.g. two scalars)
    x_reshape_ = y_reshape_ = result_shape_ = x_bcast_ = y_bcast_ = {1};
  }
}

inline void Bcast::PlanIndexes(const std::vector<int64_t> &x, const std::vector<int64_t> &y,
                               const std::vector<int64_t> &out) {
  const size_t rank = out.size();
  index_dims_ = out;
  out_strides_.assign(rank, 1);
  x_strides_.assign(rank, 0);
  y_strides_.assign(rank, 0);
  int64_t out_step = 1;
  int64_t x_step = 1;
  int64_t y_step = 1;
  for (size_t k = rank; k-- > 0;) {
    out_strides_[k] = out_step;
    x_strides_[k] = (x[k] == 1 && out[k] != 1) ? 0 : x_step;
    y_strides_[k] = (y[k] == 1 && out[k] != 1) ? 0 : y_step;
    out_step *= out[k];
    x_step *= x[k];
    y_step *= y[k];
  }
}

inline int64_t Bcast::SourceIndex(int64_t index, const std::vector<int64_t> &strides) const {
  int64_t source = 0;
  for (size_t k = 0; k < index_dims_.size(); ++k) {
    if (index_dims_[k] == 0) return 0;
    const int64_t coordinate = (index / out_strides_[k]) % index_dims_[k];
    source += coordinate * strides[k];
  }
  return source;
}

inline uint32_t Bcast::GenerateBcastInfo(const BCalcInfo &calc_info) {
  if (calc_info.input_0 == nullptr || calc_info.input_1 == nullptr || calc_info.output == nullptr) {
    KERNEL_LOG_ERROR("Broadcast info needs input_0, input_1 and output tensors; one of them is null.");
    valid_ = false;
    return KERNEL_STATUS_PARAM_INVALID;
  }
  x_reshape_ = calc_info.input_0->GetTensorShape()->GetDimSizes();
  y_reshape_ = calc_info.input_1->GetTensorShape()->GetDimSizes();
  shape_out_ = calc_info.output->GetTensorShape()->GetDimSizes();
  x_bcast_.clear();
  y_bcast_.clear();
  const size_t rank = x_reshape_.size() > y_reshape_.size() ? x_reshape_.size() : y_reshape_.size();
  PadFront(x_reshape_, rank);
  PadFront(y_reshape_, rank);
  if (shape_out_.size() != rank) {
    KERNEL_LOG_ERROR("shape mismatch, max_dim_in=%zu, dim_out=%zu.", rank, shape_out_.size());
    valid_ = false;
    return KERNEL_STATUS_PARAM_INVALID;
  }
  x_bcast_.assign(rank, 1);
  y_bcast_.assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t x_dim = x_reshape_[i];
    const int64_t y_dim = y_reshape_[i];
    const DimKind kind = Classify(x_dim, y_dim);
    const int64_t expected = x_dim == 1 ? y_dim : x_dim;
    if (kind == DimKind::kMismatch || shape_out_[i] != expected) {
      KERNEL_LOG_ERROR("shape mismatch, dim_x[%zu]=%lld, dim_y[%zu]=%lld, dim_out[%zu]=%lld.", i,
                       static_cast<long long>(x_dim), i, static_cast<long long>(y_dim), i,
                       static_cast<long long>(shape_out_[i]));
      valid_ = false;
      return KERNEL_STATUS_PARAM_INVALID;
    }
    if (kind == DimKind::kXOne) x_bcast_[i] = y_dim;
    if (kind == DimKind::kYOne) y_bcast_[i] = x_dim;
  }
  PlanIndexes(x_reshape_, y_reshape_, shape_out_);
  return KERNEL_STATUS_OK;
}

inline void Bcast::GetBcastVec(BCalcInfo &calc_info) {
  calc_info.reshape_0 = std::move(x_reshape_);
  calc_info.reshape_1 = std::move(y_reshape_);
  calc_info.shape_out = std::move(shape_out_);
  calc_info.bcast_0 = std::move(x_bcast_);
  calc_info.bcast_1 = std::move(y_bcast_);
}

inline void Bcast::BCastIndexes(std::vector<int64_t> &x_indexes, std::vector<int64_t> &y_indexes) {
  const int64_t count = Product(index_dims_);
  x_indexes.reserve(x_indexes.size() + static_cast<size_t>(count));
  y_indexes.reserve(y_indexes.size() + static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    x_indexes.push_back(GetBroadcastXIndex(i));
    y_indexes.push_back(GetBroadcastYIndex(i));
  }
}

}  // namespace aicpu
#endif  // _AICPU_AICPU_DEVICE_CPU_KERNELS_UTILS_BCAST_H_
