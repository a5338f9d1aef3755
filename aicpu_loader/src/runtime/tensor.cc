// TensorShape and Tensor of npusim's AICPU runtime.
#include "rt_internal.h"

namespace aicpu {

void TensorShape::SetFormat(Format format) { format_ = format; }
Format TensorShape::GetFormat() const { return format_; }
bool TensorShape::GetUnknownRank() const { return unknown_rank_; }
void TensorShape::SetUnknownRank(bool unknown_rank) { unknown_rank_ = unknown_rank; }
void TensorShape::SetDimSizes(const std::vector<int64_t> &dims) { dims_ = dims; }
std::vector<int64_t> TensorShape::GetDimSizes() const { return dims_; }

int64_t TensorShape::GetDimSize(int32_t index) const {
  if (index < 0 || static_cast<size_t>(index) >= dims_.size()) return 0;
  return dims_[static_cast<size_t>(index)];
}

int32_t TensorShape::GetDims() const { return static_cast<int32_t>(dims_.size()); }

int64_t TensorShape::NumElements() const {
  if (unknown_rank_) return -1;
  int64_t count = 1;
  for (int64_t dim : dims_) {
    if (dim < 0) return -1;
    if (dim != 0 && count > INT64_MAX / dim) return -1;
    count *= dim;
  }
  return count;
}

Tensor::Tensor() : shape_(npusim_rt::Access::NewShape()) {}

Tensor::Tensor(const Tensor &other)
    : shape_(std::make_shared<TensorShape>(*other.shape_)),
      data_type_(other.data_type_),
      data_(other.data_),
      data_size_(other.data_size_) {}

Tensor &Tensor::operator=(const Tensor &other) {
  if (this != &other) {
    *shape_ = *other.shape_;
    data_type_ = other.data_type_;
    data_ = other.data_;
    data_size_ = other.data_size_;
  }
  return *this;
}

bool Tensor::SetTensorShape(const TensorShape *shape) {
  if (shape == nullptr) return false;
  *shape_ = *shape;
  return true;
}

std::shared_ptr<TensorShape> Tensor::GetTensorShape() const { return shape_; }
void Tensor::SetDataType(DataType type) { data_type_ = type; }
DataType Tensor::GetDataType() const { return data_type_; }
void Tensor::SetData(void *addr) { data_ = addr; }
void *Tensor::GetData() const { return data_; }
void Tensor::SetDataSize(uint64_t size) { data_size_ = size; }
uint64_t Tensor::GetDataSize() const { return data_size_; }
int64_t Tensor::NumElements() const { return shape_->NumElements(); }

int64_t Tensor::CalcDataSizeByShape() const {
  int64_t count = NumElements();
  int element_size = GetSizeByDataType(data_type_);
  if (count < 0 || element_size < 0) return -1;
  if (count > INT64_MAX / (element_size == 0 ? 1 : element_size)) return -1;
  return count * element_size;
}

}  // namespace aicpu
