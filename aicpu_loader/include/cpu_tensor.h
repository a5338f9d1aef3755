// npusim AICPU compatibility header: Tensor (shape, data type, data pointer and size) seen by a kernel.
#ifndef NPUSIM_AICPU_CPU_TENSOR_H
#define NPUSIM_AICPU_CPU_TENSOR_H

#include "cpu_tensor_shape.h"

namespace aicpu {
class AICPU_VISIBILITY Tensor {
  friend class CpuKernelUtils;
  friend struct npusim_rt::Access;

 public:
  Tensor(const Tensor &other);
  Tensor &operator=(const Tensor &other);
  ~Tensor() = default;

  // Copies the values of `shape` into this tensor's shape object (the one GetTensorShape() shares).
  bool SetTensorShape(const TensorShape *shape);
  // The tensor's shape object; changes made through it (SetDimSizes on an output) are the tensor's.
  std::shared_ptr<TensorShape> GetTensorShape() const;
  void SetDataType(DataType type);
  DataType GetDataType() const;
  void SetData(void *addr);
  void *GetData() const;
  void SetDataSize(uint64_t size);
  uint64_t GetDataSize() const;
  // NumElements() x element size; negative when unknown.
  int64_t CalcDataSizeByShape() const;
  int64_t NumElements() const;

 private:
  Tensor();

  std::shared_ptr<TensorShape> shape_;
  DataType data_type_ = DT_UNDEFINED;
  void *data_ = nullptr;
  uint64_t data_size_ = 0;
};
}  // namespace aicpu
#endif  // NPUSIM_AICPU_CPU_TENSOR_H
