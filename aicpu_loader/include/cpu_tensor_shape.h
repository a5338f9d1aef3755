// npusim AICPU compatibility header: TensorShape (dims, format, unknown-rank flag) of a kernel tensor.
#ifndef NPUSIM_AICPU_CPU_TENSOR_SHAPE_H
#define NPUSIM_AICPU_CPU_TENSOR_SHAPE_H

#include "cpu_types.h"

namespace aicpu {
namespace npusim_rt {
struct Access;  // the runtime's builder of contexts (not part of the CANN API)
}

class AICPU_VISIBILITY TensorShape {
  friend class CpuKernelUtils;
  friend struct npusim_rt::Access;

 public:
  TensorShape(const TensorShape &) = default;
  TensorShape &operator=(const TensorShape &) = default;
  ~TensorShape() = default;

  void SetFormat(Format format);
  Format GetFormat() const;
  bool GetUnknownRank() const;
  void SetUnknownRank(bool unknown_rank);
  void SetDimSizes(const std::vector<int64_t> &dims);
  std::vector<int64_t> GetDimSizes() const;
  // The size of dimension `index`; 0 when the index is out of range.
  int64_t GetDimSize(int32_t index) const;
  // The rank.
  int32_t GetDims() const;
  // Element count: 1 for a scalar, -1 when the rank is unknown or a dimension is negative.
  int64_t NumElements() const;

 private:
  TensorShape() = default;

  std::vector<int64_t> dims_;
  Format format_ = FORMAT_ND;
  bool unknown_rank_ = false;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_TENSOR_SHAPE_H
